"""The quantized layers' matmul on "webgpu": quantized_gemv.wgsl for few rows of x (decode),
quantized_gemm.wgsl otherwise (prefill); both dequantize W's packed words inside the matmul,
accumulate in f32, and read x and store out in x's dtype (f16 where the adapter has "shader-f16")."""
import functools
import math
from string import Template

from ... import _dtypes as dt
from ..._tensor import Tensor
from ...backend import gpu, kernels

# x rows up to which the GEMV kernel runs (each of its workgroups reads W once per row of x); above,
# the tiled GEMM
GEMV_MAX_ROWS = 4
# Per bit width: elements per u32 word, and the WGSL that decodes them. Field i of `word`, sign-extended:
# bitcast<i32>(word << (32 - bits - bits * i)) >> (32 - bits).
_INT4 = {
    "per": 8,
    "zero_binding": "@group(0) @binding(5) var<storage, read> zero: array<$S>;",
    # a group's scale and zero point apply to the whole word (group sizes are multiples of 8):
    # sum x (q s + z) = s sum x q + z sum x
    "gemv": """      let g = (k0 / GS) * N + n;
      var dot = 0.0f;
      var xsum = 0.0f;
      for (var i = 0u; i < 8u; i = i + 1u) {
        let xv = f32(x[xrow + k0 + i]);
        dot = fma(xv, f32(bitcast<i32>(word << (28u - 4u * i)) >> 28u), dot);
        xsum = xsum + xv;
      }
      acc = acc + fma(f32(scale[g]), dot, f32(zero[g]) * xsum);""",
    "gemm": """      let g = ((j * 8u) / GS) * N + min(n, N - 1u);
      let s = f32(scale[g]);
      let z = f32(zero[g]);
      for (var i = 0u; i < 8u; i = i + 1u) {
        ws[(kk + i) * 64u + c] = select(0.0f, fma(f32(bitcast<i32>(word << (28u - 4u * i)) >> 28u), s, z), n < N);
      }""",
    "finish": "total",
}
# int8: torchao's (x @ q.T) * scale, the per-row scale applied to the sum
_INT8 = {
    "per": 4,
    "zero_binding": "",
    "gemv": """      for (var i = 0u; i < 4u; i = i + 1u) {
        if (k0 + i < K) {
          acc = fma(f32(x[xrow + k0 + i]), f32(bitcast<i32>(word << (24u - 8u * i)) >> 24u), acc);
        }
      }""",
    "gemm": """      for (var i = 0u; i < 4u; i = i + 1u) {
        ws[(kk + i) * 64u + c] = f32(bitcast<i32>(word << (24u - 8u * i)) >> 24u);
      }""",
    "finish": "total * f32(scale[n])",
}
_KINDS = {4: _INT4, 8: _INT8}


@functools.lru_cache(maxsize=None)
def _kernel(shape, bits, x_dtype, scale_dtype):
    """shape: "gemv" or "gemm"; the output has x's dtype."""
    kind = _KINDS[bits]
    lanes = kernels.wgsl("gemv_lanes") if shape == "gemv" else ""
    source = Template(kernels.wgsl("quantized_bindings") + lanes + kernels.wgsl("quantized_" + shape)).substitute(
        O=kernels.STORAGE[x_dtype], X=kernels.STORAGE[x_dtype], S=kernels.STORAGE[scale_dtype],
        zero_binding=Template(kind["zero_binding"]).substitute(S=kernels.STORAGE[scale_dtype]),
        decode=kind["gemv"], dequant=kind["gemm"], finish=kind["finish"], bias_at=5 + (bits == 4))
    source = kernels.wgsl("prelude") + kernels.store_fn("f32", x_dtype) + f"const PER = {kind['per']}u;\n" + source
    key = ("quantized_" + shape, bits, x_dtype.name, scale_dtype.name, kernels.stored(x_dtype))
    return key, source, "wrrr" + ("r" if bits == 4 else "") + "r"


@functools.lru_cache(maxsize=None)
def _gated_kernel(x_dtype, scale_dtype):
    decode = _INT4["gemv"]
    source = Template(kernels.wgsl("gemv_lanes") + kernels.wgsl("quantized_gemv_gated")).substitute(
        O=kernels.STORAGE[x_dtype], X=kernels.STORAGE[x_dtype], S=kernels.STORAGE[scale_dtype], decode=decode,
        decode2=decode.replace("scale[", "scale2[").replace("zero[", "zero2[").replace("acc = acc", "acc2 = acc2"))
    source = kernels.wgsl("prelude") + kernels.store_fn("f32", x_dtype) + "const PER = 8u;\n" + source
    return ("quantized_gemv_gated", x_dtype.name, scale_dtype.name, kernels.stored(x_dtype)), source, "wrrrrrrr"


def gated(x, gate, up):
    """silu(gate(x)) * up(x) in one kernel for two int4 layers of one shape and group size without biases,
    few rows of x on "webgpu" (a decode step's MLP), where a kernel may bind the nine buffers; None otherwise."""
    layers = (gate, up)
    lead = x.shape[:-1]
    m = math.prod(lead)
    if not (0 < m <= GEMV_MAX_ROWS and all(getattr(layer, "BITS", None) == 4 and layer.bias is None for layer in layers)
            and (gate.out_features, gate.in_features, gate.group_size) == (up.out_features, up.in_features, up.group_size)
            and gate.weight_scale.dtype is up.weight_scale.dtype and x.shape[-1] == gate.in_features and
            x.device.type == "webgpu" and x.dtype in (dt.float32, dt.float16, dt.bfloat16)):
        return None
    x = x.contiguous()
    if x._storage.runtime.limits["max_storage_buffers_per_shader_stage"] < 9:
        return None
    operands = [t.contiguous() for layer in layers for t in (layer.weight_qdata, layer.weight_scale, layer.weight_zero_point)]
    if any(t._offset for t in operands):
        operands = [t.clone() for t in operands]
    n, k = gate.out_features, gate.in_features
    out = gpu.empty(x.dtype, m * n)
    meta = [m, n, k, operands[0].shape[-1], gate.group_size, x._offset]
    out.runtime.run(_gated_kernel(x.dtype, gate.weight_scale.dtype), [out.buffer, x._storage.buffer] +
                    [t._storage.buffer for t in operands], meta, (-(-n // 8), m, 1))
    return Tensor(out, (*lead, n))


def linear(x, layer, bias=None):
    """x @ W.T (+ bias, a contiguous (N,) tensor of x's dtype: in the same kernel) for a quantized layer's W
    (all on "webgpu"): a tensor of x's shape[:-1] + (N,), x's dtype."""
    n, k = layer.out_features, layer.in_features
    lead = x.shape[:-1]
    m = math.prod(lead)
    x = x.contiguous()
    qdata = layer.weight_qdata.contiguous()
    scale = layer.weight_scale.contiguous()
    operands = [qdata, scale] + ([layer.weight_zero_point.contiguous()] if layer.BITS == 4 else [])
    if any(t._offset for t in operands):
        operands = [t.clone() for t in operands]
    out = gpu.empty(x.dtype, m * n)
    meta = [m, n, k, qdata.shape[-1], getattr(layer, "group_size", 0), x._offset,
            0 if bias is None else 1 + bias._offset]
    buffers = [out.buffer, x._storage.buffer] + [t._storage.buffer for t in operands] + \
        [(bias if bias is not None else x)._storage.buffer]
    if m <= GEMV_MAX_ROWS:
        out.runtime.run(_kernel("gemv", layer.BITS, x.dtype, scale.dtype), buffers, meta, (-(-n // 8), m, 1))
    else:
        out.runtime.run(_kernel("gemm", layer.BITS, x.dtype, scale.dtype), buffers, meta, (-(-n // 64), -(-m // 64), 1))
    return Tensor(out, (*lead, n))
