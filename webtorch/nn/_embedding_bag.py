"""Bags of embedding rows, for F.embedding_bag (nn.EmbeddingBag) and torch.embedding_bag (with its offset2bag,
bag_size and max_indices).

Every index is looked up once (by the caller's F.embedding, which also does max_norm and scale_grad_by_freq), each index gets the
number of its bag (searchsorted over the bags' starts), and the bags are segment reductions over those numbers:
index_add for sum and mean (a mean divides by the bag's count), scatter_reduce(amax) for max. An index that counts
for no bag (padding_idx, or past the last offset with include_last_offset) goes to one extra bag that is dropped.
An empty bag is zeros, as torch's. Gradients flow through the lookup and the reductions.
"""
from .. import _dtypes as dt
from .. import _ops as F
from .._indexing import _check_bounds, index_add, scatter_reduce
from .._math_ops import searchsorted

MODES = ("sum", "mean", "max")


def _check(input, weight, offsets, mode, per_sample_weights, padding_idx, scale_grad_by_freq, sparse):
    if input.dim() not in (1, 2):
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dtype not in (dt.int32, dt.int64):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.dtype} instead (while checking arguments for embedding_bag)")
    if input.dim() == 2 and offsets is not None:
        raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                         "fixed length sequences. However, found offsets of type Tensor")
    if input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    if mode not in MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                      f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                      "on GitHub.")
        if per_sample_weights.shape != input.shape:
            raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                             f"must have the same shape as the input ({input.shape})")
    n = weight.shape[0]
    if padding_idx is not None and not -n <= padding_idx < n:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n} through {n - 1}, but got "
                           f"{padding_idx}")


def _bag_of_each(input, offsets, include_last_offset):
    """(flat indices, the bag number of each (int64), number of bags, whether each index counts for its bag)."""
    if input.dim() == 2:
        bags, length = input.shape
        flat = input.reshape(-1)
        return flat, F.floor_divide(F.arange(bags * length, device=input.device), max(length, 1)), bags, None
    starts = [int(v) for v in offsets.tolist()]
    n = input.shape[0]
    if starts and starts[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {starts[0]}")
    if starts and starts[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
                           f"{starts[-1]}")
    if any(b < a for a, b in zip(starts, starts[1:])):
        raise RuntimeError("embedding_bag: offsets must be non-decreasing")
    bags = len(starts) - 1 if include_last_offset else len(starts)
    position = F.arange(n, device=input.device)
    if bags <= 0:
        return input, F.zeros(n, dtype=dt.int64, device=input.device), max(bags, 0), F.zeros(n, dtype=dt.bool_,
                                                                                               device=input.device)
    starts_t = F.tensor(starts[:bags], dtype=dt.int64, device=input.device)
    bag = F.sub(searchsorted(starts_t, position, right=True), 1)
    inside = F.lt(position, starts[bags]) if include_last_offset else None
    return input, bag, bags, inside


def embedding_bag_parts(lookup, input, weight, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
                        include_last_offset, padding_idx):
    """(output, offset2bag, bag_size, max_indices) as torch.embedding_bag returns them on CPU; lookup(ids): the
    rows of weight at the int64 ids (F.embedding with the caller's max_norm and scale_grad_by_freq)."""
    _check(input, weight, offsets, mode, per_sample_weights, padding_idx, scale_grad_by_freq, sparse)
    num, dim = weight.shape
    if padding_idx is not None:
        padding_idx %= num
    flat, bag, bags, counts = _bag_of_each(input, offsets, include_last_offset)
    flat = F.cast(flat, dt.int64)
    _check_bounds([(flat, num, 0)], RuntimeError, "Index of input takes value {} which is not in the valid range "
                  f"[0, {num})", negative=False)
    rows = lookup(flat)
    if per_sample_weights is not None:
        rows = rows * F.unsqueeze(per_sample_weights.reshape(-1), -1)
    if padding_idx is not None:
        keep = F.ne(flat, padding_idx)
        counts = keep if counts is None else F.logical_and(counts, keep)
    target = bag if counts is None else F.where(counts, bag, bags)  # the extra bag `bags`: dropped
    ones = F.ones(flat.shape[0], dtype=dt.int64, device=weight.device)
    size = index_add(F.zeros(bags + 1, dtype=dt.int64, device=weight.device), 0, target, ones)[:bags]
    if mode == "max":
        spread = F.expand(F.unsqueeze(target, -1), flat.shape[0], dim)
        out = scatter_reduce(F.zeros(bags + 1, dim, dtype=weight.dtype, device=weight.device), 0, spread, rows,
                             "amax", include_self=False)[:bags]
        max_indices = _max_indices(flat, rows.detach(), out.detach(), target, bags)
    else:
        out = index_add(F.zeros(bags + 1, dim, dtype=rows.dtype, device=weight.device), 0, target, rows)[:bags]
        if mode == "mean":
            out = out / F.unsqueeze(F.cast(F.clamp(size, min=1), out.dtype), -1)
        max_indices = size if mode == "mean" else F.zeros(bags, dtype=dt.int64, device=weight.device)
    sum_fast_path = mode == "sum" and padding_idx is None  # torch's CPU kernel leaves offset2bag empty there
    offset2bag = F.zeros(0, dtype=dt.int64, device=weight.device) if sum_fast_path else bag
    bag_size = F.zeros(bags, dtype=dt.int64, device=weight.device) if mode == "sum" else size
    return (out, *(F.cast(t, input.dtype) for t in (offset2bag, bag_size, max_indices)))  # (in the indices' dtype)


def _max_indices(flat, rows, out, target, bags):
    """Per bag and column, the index whose row holds the maximum (the first such in the bag; 0 for an empty bag)."""
    n, dim = rows.shape
    position = F.expand(F.unsqueeze(F.arange(n, device=rows.device), -1), n, dim)
    spread = F.expand(F.unsqueeze(target, -1), n, dim)
    peak = F.cat([out, F.zeros(1, dim, dtype=out.dtype, device=out.device)])
    holds = F.eq(rows, peak[target])
    first = scatter_reduce(F.full((bags + 1, dim), n, dtype=dt.int64, device=rows.device), 0, spread,
                           F.where(holds, position, n), "amin")[:bags]
    found = F.lt(first, n)
    ids = F.cat([flat, F.zeros(1, dtype=dt.int64, device=flat.device)])
    return F.where(found, ids[F.clamp(first, max=n)], 0)

