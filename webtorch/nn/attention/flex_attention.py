"""torch.nn.attention.flex_attention, evaluated densely: score_mod(score, b, h, q_idx, kv_idx) and
mask_mod(b, h, q_idx, kv_idx) are called once on broadcast index tensors (b: [B,1,1,1], h: [1,H,1,1],
q_idx: [1,1,L,1], kv_idx: [1,1,1,S]) instead of torch's vmap over scalars, so elementwise mods (the
usual causal / sliding-window / ALiBi / document masks) give torch's numbers; a BlockMask holds the
dense boolean mask. Scores are in float32 as torch's; no block sparsity is exploited."""
import math
from typing import NamedTuple

from ... import _ops as F
from ... import _shape_ops
from .. import functional

__all__ = ["AuxRequest", "AuxOutput", "BlockMask", "flex_attention", "create_block_mask", "create_mask", "and_masks", "or_masks",
           "noop_mask", "_DEFAULT_SPARSE_BLOCK_SIZE"]

_DEFAULT_SPARSE_BLOCK_SIZE = 128


class AuxRequest(NamedTuple):
    """Which auxiliary outputs flex_attention(return_aux=...) returns."""
    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    lse: object = None
    max_scores: object = None


def noop_mask(b, h, q_idx, kv_idx):
    return F.ones_like(q_idx + kv_idx).bool() if hasattr(q_idx, "shape") else True


def and_masks(*mask_mods):
    def mask(b, h, q_idx, kv_idx):
        result = True
        for mod in mask_mods:
            result = result & mod(b, h, q_idx, kv_idx)
        return result
    return mask


def or_masks(*mask_mods):
    def mask(b, h, q_idx, kv_idx):
        result = False
        for mod in mask_mods:
            result = result | mod(b, h, q_idx, kv_idx)
        return result
    return mask


def _indices(B, H, Q_LEN, KV_LEN, device):
    return (F.arange(B, device=device).reshape(B, 1, 1, 1), F.arange(H, device=device).reshape(1, H, 1, 1),
            F.arange(Q_LEN, device=device).reshape(1, 1, Q_LEN, 1),
            F.arange(KV_LEN, device=device).reshape(1, 1, 1, KV_LEN))


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device="cpu"):
    """The dense [B or 1, H or 1, Q_LEN, KV_LEN] boolean mask of a mask_mod (B/H None: 1)."""
    B, H = B or 1, H or 1
    b, h, q, kv = _indices(B, H, Q_LEN, KV_LEN, device)
    mask = mod_fn(b, h, q, kv)
    if not hasattr(mask, "shape"):
        mask = F.full((1, 1, 1, 1), bool(mask), device=device)
    return F.expand(mask, (B, H, Q_LEN, KV_LEN)).contiguous()


class BlockMask:
    """A mask_mod's mask, kept dense (torch keeps block indices; the values it masks are the same)."""

    def __init__(self, mask, mask_mod, BLOCK_SIZE=(_DEFAULT_SPARSE_BLOCK_SIZE, _DEFAULT_SPARSE_BLOCK_SIZE)):
        self.mask, self.mask_mod, self.BLOCK_SIZE = mask, mask_mod, BLOCK_SIZE
        self.seq_lengths = tuple(mask.shape[-2:])

    @property
    def shape(self):
        return tuple(self.mask.shape)

    def to_dense(self):
        return self.mask

    def to(self, device):
        return BlockMask(self.mask.to(device), self.mask_mod, self.BLOCK_SIZE)

    def __repr__(self):
        return f"BlockMask(shape={self.shape}, dense)"


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device="cpu", BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                      _compile=False):
    size = BLOCK_SIZE if isinstance(BLOCK_SIZE, tuple) else (BLOCK_SIZE, BLOCK_SIZE)
    return BlockMask(create_mask(mask_mod, B, H, Q_LEN, KV_LEN, device), mask_mod, size)


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None, enable_gqa=False,
                   return_lse=False, kernel_options=None, *, return_aux=None):
    B, Hq, L, E = query.shape
    if enable_gqa and key.shape[1] != Hq:
        key = _shape_ops.repeat_interleave(key, Hq // key.shape[1], 1)
        value = _shape_ops.repeat_interleave(value, Hq // value.shape[1], 1)
    elif key.shape[1] != Hq:
        raise ValueError(f"Expect query and key/value to have the same number of heads but got Hq={Hq} and "
                         f"Hkv={key.shape[1]}. Try setting enable_gqa=True for GQA.")
    S = key.shape[2]
    scale = 1.0 / math.sqrt(E) if scale is None else scale
    scores = F.matmul(query.float(), key.float().transpose(-2, -1)) * scale
    if score_mod is not None:
        scores = score_mod(scores, *_indices(B, Hq, L, S, query.device))
    if block_mask is not None:
        scores = F.where(block_mask.mask.to(query.device.type), scores, -math.inf)
    weights = functional.softmax(scores, -1)
    weights = F.where(F.isnan(weights), 0.0, weights)  # a row with every key masked attends to nothing
    out = F.matmul(weights, value.float()).to(query.dtype)
    if return_aux is not None:
        return out, AuxOutput(F.logsumexp(scores, -1) if return_aux.lse else None,
                              F.amax(scores, -1) if return_aux.max_scores else None)
    return (out, F.logsumexp(scores, -1)) if return_lse else out
