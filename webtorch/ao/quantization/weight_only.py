"""Weight-only quantized linear layers: torchao's int8 and int4 arithmetic, packed for WGSL.

The numbers are torchao 0.18's (github.com/pytorch/ao, torchao/quantization):

- int8 (Int8WeightOnlyConfig, Int8Tensor.from_hp: choose_qparams_affine SYMMETRIC per row, then
  quantize_affine, quant_primitives.py): per output row, amax = max(-min(min(w), 0), max(max(w), 0)),
  scale = amax / 127.5 in w's dtype, clamped to float32's eps and kept as float32;
  q = clamp(round(w * (1 / scale)), -128, 127). The layer computes (x @ q.T) * scale, torchao's
  weight-only path (int8_tensor.py), the scale applied after the sum.
- int4 (Int4WeightOnlyConfig's default packing, "plain": Int4Tensor.from_hp calls mslk's
  int4_row_quantize_zp, mslk/quantize/shuffle.py, formerly fbgemm_gpu's quantize_utils.py): per group
  of group_size along K, in float32, scale = clamp(max - min, 1e-6) / 15, zero = min + 8 * scale,
  q = clamp(round((w - min) / scale), 0, 15) - 8, a signed int4; scale and zero are then cast to w's
  dtype. The weight is q * scale + zero (a zero point in the float domain, tinygemm's form:
  quant_primitives' _dequantize_affine_tinygemm computes (u - 8) * scale + zero for u = q + 8).

Layout (a module's buffers, its state_dict):
- int4: weight_qdata int32 (N, K / 8), element k of row n in bits 4 (k % 8) .. of word k // 8, as a
  two's-complement nibble: on the host, weight_qdata.view(torch.uint8) is torchao's plain Int4Tensor
  qdata (N, K / 2) byte for byte; weight_scale and weight_zero_point (K / group_size, N), as torchao's.
- int8: weight_qdata int32 (N, ceil(K / 4)), element k in byte k % 4 of word k // 4 (zero padding
  bytes): weight_qdata.view(torch.int8)[:, :K] is torchao's Int8Tensor qdata; weight_scale float32 (N, 1).

On "webgpu" the layers run quantized_gemv.wgsl (few rows of x: decode) or quantized_gemm.wgsl
(prefill), which dequantize inside the matmul; on "cpu" (and "meta") they compute the reference
arithmetic with ordinary ops.
"""
import math

from ... import _dtypes as dt
from ... import _ops as F
from ..._tensor import Size, Tensor
from ...autograd import is_grad_enabled, no_grad
from ...nn.layers import Linear

_NIBBLE_SHIFTS = [4 * i for i in range(8)]
_BYTE_SHIFTS = [8 * i for i in range(4)]


def _pack(q, shifts):
    """Signed integers q (..., K) of len(shifts) * (32 // len(shifts)) bits each -> int32 words
    (..., K / len(shifts)), element i of a word in bits shifts[i]..: the low fields masked to their
    bits, the top one kept signed, so the sum is the word's two's-complement value (no overflow)."""
    per = len(shifts)
    bits = 32 // per
    q = q.to(dt.int32).reshape(*q.shape[:-1], q.shape[-1] // per, per)
    shift = F.tensor(shifts, dtype=dt.int32, device=q.device)
    field = F.where(shift == 32 - bits, q, q & ((1 << bits) - 1))
    return (field << shift).sum(-1, dtype=dt.int32)


_shift_tensors = {}  # (shifts, device, runtime) -> _unpack's shifts as a tensor there: made once, not uploaded per call


def _unpack(words, shifts, k):
    """The signed fields of int32 words (..., W) -> int32 (..., k): _pack's inverse."""
    bits = 32 // len(shifts)
    key = (tuple(shifts), words.device, getattr(words._storage, "runtime", None))  # a new runtime after a device loss: anew
    shift = _shift_tensors.get(key)
    if shift is None:
        shift = _shift_tensors[key] = F.tensor([32 - bits - s for s in shifts], dtype=dt.int32, device=words.device)
    fields = (words.unsqueeze(-1) << shift) >> (32 - bits)  # arithmetic shift: sign-extended
    return fields.reshape(*words.shape[:-1], -1)[..., :k]


def quantize_int8(w):
    """(qdata words, scale float32 (N, 1)) of a float weight (N, K): torchao's symmetric per-row int8."""
    with no_grad():
        min_neg = F.minimum(w.amin(dim=-1, keepdim=True), F.zeros((), dtype=w.dtype, device=w.device))
        max_pos = F.maximum(w.amax(dim=-1, keepdim=True), F.zeros((), dtype=w.dtype, device=w.device))
        scale = (F.maximum(-min_neg, max_pos) / 127.5).clamp(min=1.1920928955078125e-07).to(dt.float32)
        q = (w * (1.0 / scale)).round().clamp(-128, 127)
        pad = -w.shape[-1] % 4
        if pad:
            q = F.cat([q, F.zeros(w.shape[0], pad, dtype=q.dtype, device=q.device)], -1)
        return _pack(q, _BYTE_SHIFTS), scale


def quantize_int4(w, group_size):
    """(qdata words, scale, zero_point) of a float weight (N, K), K a multiple of group_size: mslk's
    int4_row_quantize_zp as torchao's plain Int4Tensor calls it; scale and zero (K / group_size, N)."""
    with no_grad():
        n, k = w.shape
        groups = w.to(dt.float32).reshape(-1, group_size)
        max_val, min_val = groups.amax(dim=1, keepdim=True), groups.amin(dim=1, keepdim=True)
        scale = (max_val - min_val).clamp(min=1e-6) / 15
        zero = min_val + scale * 8
        q = (groups - min_val).div(scale).round().clamp(0, 15) - 8
        words = _pack(q.reshape(n, k), _NIBBLE_SHIFTS)
        return words, scale.reshape(n, -1).t().contiguous().to(w.dtype), zero.reshape(n, -1).t().contiguous().to(w.dtype)


class _WeightOnlyLinear(Linear):
    """A Linear whose weight is held quantized (buffers weight_qdata, weight_scale[, weight_zero_point]).
    quantize_ turns an nn.Linear into one in place (its class changes; parameters become buffers)."""
    BITS = None

    def _quantize_weight(self, w):
        """The buffers' tensors for a float weight (N, K)."""
        raise NotImplementedError

    def _take_weight(self, w):
        names = ("weight_qdata", "weight_scale", "weight_zero_point")
        for name, t in zip(names, self._quantize_weight(w.detach())):
            self.register_buffer(name, t)

    @property
    def weight(self):
        return QuantizedWeight(self)

    def _load_from_state_dict(self, state_dict, prefix, *args):
        """A float 'weight' loading into a quantized layer is quantized first (quantize_ on a model built
        empty, then load_state_dict of a float checkpoint: quantization at load time). torchao's own
        checkpoints load too: its flattened safetensors keys (_weight_qdata, _weight_scale,
        _weight_zero_point, as torchao.prototype.safetensors' flatten_tensor_state_dict writes them for
        Int4Tensor and Int8Tensor), the qdata bytes regrouped into words (_from_torchao_qdata)."""
        w = state_dict.get(prefix + "weight")
        if isinstance(w, Tensor):
            del state_dict[prefix + "weight"]
            device = self.weight_qdata.device.type
            tensors = self._quantize_weight(w.detach() if device == "meta" else w.detach().to(device))
            state_dict.update(zip((prefix + "weight_qdata", prefix + "weight_scale", prefix + "weight_zero_point"),
                                  tensors))
        for name in ("weight_qdata", "weight_scale", "weight_zero_point"):
            theirs = state_dict.pop(prefix + "_" + name, None)
            if theirs is None:
                continue
            if name == "weight_qdata":
                theirs = self._from_torchao_qdata(theirs)
            elif name == "weight_zero_point" and self.BITS == 8:
                if (theirs != 0).any().item():
                    raise NotImplementedError(f"webtorch: {prefix}_weight_zero_point: int8 weights with nonzero zero "
                                              "points (asymmetric) are not supported")
                continue
            state_dict[prefix + name] = theirs
        super()._load_from_state_dict(state_dict, prefix, *args)

    def _from_torchao_qdata(self, qdata):
        """torchao's qdata (int4: two nibbles a byte (N, K / 2); int8: (N, K)) as this layer's int32 words."""
        per_byte = 2 if self.BITS == 4 else 1
        if qdata.dim() != 2 or qdata.element_size() != 1 or qdata.shape[1] * per_byte != self.in_features:
            raise RuntimeError(f"torchao qdata of shape {tuple(qdata.shape)} and dtype {qdata.dtype} does not fit a "
                               f"{self.BITS}-bit layer of {self.in_features} input features")
        qdata = qdata.detach().cpu().to(dt.int8 if self.BITS == 8 else qdata.dtype).contiguous()
        pad = -qdata.shape[1] % 4
        if pad:
            qdata = F.cat([qdata, F.zeros(qdata.shape[0], pad, dtype=qdata.dtype)], -1)
        return qdata.view(dt.int32)

    def dequantize(self):
        """The float weight (N, K) the quantized one stands for."""
        raise NotImplementedError

    def _dequantized(self, dtype):
        """On "webgpu": what the reference multiplies x by, W's (N, K) in dtype, made by one kernel."""
        from . import _gpu
        return _gpu.dequantized(self, dtype)

    def forward(self, x):
        if is_grad_enabled() and x.requires_grad:
            raise NotImplementedError("webtorch: a weight-only quantized Linear computes no gradients (quantize_ is "
                                      "for inference: run it under torch.no_grad() or with inputs that need no grad)")
        if x.shape[-1] != self.in_features:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({math.prod(x.shape[:-1])}x{x.shape[-1]} "
                               f"and {self.in_features}x{self.out_features})")
        if x.device.type == "webgpu" and x.dtype in (dt.float32, dt.float16, dt.bfloat16) and x.numel():
            from . import _gpu  # (the webgpu backend loads on first use)
            bias = self.bias
            if bias is not None and bias.dtype is x.dtype and bias.device == x.device and bias.dim() == 1:
                out = _gpu.linear(x, self, bias.contiguous())  # the add in the kernel
                if out is not None:
                    return out
            out = _gpu.linear(x, self)
        else:
            out = None
        if out is None:  # many rows on webgpu (a prefill: _gpu.DEQUANTIZED_ROWS), or another device
            out = self._reference(x)
        return out if self.bias is None else out + self.bias

    def extra_repr(self):
        return f"{super().extra_repr()}, {self._describe()}"


class Int8WeightOnlyLinear(_WeightOnlyLinear):
    BITS = 8

    def _quantize_weight(self, w):
        return quantize_int8(w)

    def _describe(self):
        return "weight=int8 per-row symmetric"

    def int_data(self):
        return _unpack(self.weight_qdata, _BYTE_SHIFTS, self.in_features)

    def dequantize(self):
        """q * scale, in float32."""
        return self.int_data().to(dt.float32) * self.weight_scale

    def _reference(self, x):
        """torchao's weight-only int8 linear: mm(x, q.T in x's dtype) * scale in x's dtype."""
        y = F.matmul(x, F.t(self._dequantized(x.dtype) if x.device.type == "webgpu" else self.int_data().to(x.dtype)))
        return y * self.weight_scale.to(x.dtype).reshape(-1)


class Int4WeightOnlyLinear(_WeightOnlyLinear):
    BITS = 4
    group_size = 128

    def _quantize_weight(self, w):
        return quantize_int4(w, self.group_size)

    def _describe(self):
        return f"weight=int4 group_size={self.group_size} asymmetric, float zero point"

    def int_data(self):
        return _unpack(self.weight_qdata, _NIBBLE_SHIFTS, self.in_features)

    def dequantize(self):
        """q * scale + zero per group, in float32 (torchao's _dequantize_affine_tinygemm's default)."""
        n, k, g = self.out_features, self.in_features, self.group_size
        scale = F.t(self.weight_scale).reshape(n, -1, 1).to(dt.float32)
        zero = F.t(self.weight_zero_point).reshape(n, -1, 1).to(dt.float32)
        return (self.int_data().reshape(n, k // g, g).to(dt.float32) * scale + zero).reshape(n, k)

    def _reference(self, x):
        return F.matmul(x, F.t(self._dequantized(x.dtype) if x.device.type == "webgpu" else self.dequantize().to(x.dtype)))


class QuantizedWeight:
    """What a quantized layer's .weight answers: the float weight's shape, dtype and device (as
    torchao's quantized tensors do), and dequantize()."""
    __slots__ = ("module",)

    def __init__(self, module):
        self.module = module

    @property
    def shape(self):
        return Size((self.module.out_features, self.module.in_features))

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def dim(self):
        return 2

    ndim = property(dim)

    @property
    def dtype(self):
        return self.module._weight_dtype

    @property
    def device(self):
        return self.module.weight_qdata.device

    requires_grad = False

    def dequantize(self):
        return self.module.dequantize().to(self.dtype)

    def __repr__(self):
        return f"QuantizedWeight(shape={tuple(self.shape)}, {self.module._describe()})"


def convert_linear(module, config):
    """Turns module (an nn.Linear) into config's weight-only quantized layer, in place."""
    cls = Int8WeightOnlyLinear if config.BITS == 8 else Int4WeightOnlyLinear
    w = module._parameters.pop("weight")
    module.__class__ = _quantized_class(cls, type(module))
    module._weight_dtype = w.dtype
    if cls is Int4WeightOnlyLinear:
        module.group_size = config.group_size
    module._take_weight(w)
    if module.bias is not None:
        module.bias.requires_grad_(False)
    return module


_CLASSES = {}


def _quantized_class(cls, base):
    """cls itself for an nn.Linear; for a subclass of it, cls mixed in before it (its forward wins)."""
    if base is Linear or issubclass(base, _WeightOnlyLinear):
        return cls
    key = (cls, base)
    if key not in _CLASSES:
        _CLASSES[key] = type(base.__name__, (cls, base), {"__module__": base.__module__})
    return _CLASSES[key]
