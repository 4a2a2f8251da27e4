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
# the tiled GEMM, below DEQUANTIZED_ROWS; from there (a prefill) W dequantized to x's dtype and the float
# matmul (the layer's _reference: torchao's arithmetic): on the H200 the tiled GEMM took 12.7 ms for
# 128 x 2048 -> 8192 (bench/results/h200-native/decode-encoded), the float16 matmul tiles far faster
GEMV_MAX_ROWS = 4
DEQUANTIZED_ROWS = 32
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


@functools.lru_cache(maxsize=None)
def _parts_kernel(parts, x_dtype, scale_dtype):
    S, O = kernels.STORAGE[scale_dtype], kernels.STORAGE[x_dtype]
    bindings, body, biases = [], [], []
    for p in range(parts):
        at = 3 + 4 * p
        bindings += [f"@group(0) @binding({at}) var<storage, read> qdata{p}: array<u32>;",
                     f"@group(0) @binding({at + 1}) var<storage, read> scale{p}: array<{S}>;",
                     f"@group(0) @binding({at + 2}) var<storage, read> zero{p}: array<{S}>;",
                     f"@group(0) @binding({at + 3}) var<storage, read> bias{p}: array<{O}>;"]
        decode = _INT4["gemv"].replace("scale[", f"scale{p}[").replace("zero[", f"zero{p}[")
        body.append(f"""  N = params[{6 + 2 * p}];
  if (row >= start && row < start + N) {{
    n = row - start;
    part = {p}u;
    bias_word = params[{7 + 2 * p}];
    for (var j = lane; j < W; j = j + LANES) {{
      let word = qdata{p}[n * W + j];
      let k0 = j * PER;
{decode}
    }}
  }}
  start = start + N;""")
        biases.append(f"""    if (bias_word != 0u && part == {p}u) {{ v = wt_store(f32(v) + f32(bias{p}[bias_word - 1u + n])); }}""")
    source = Template(kernels.wgsl("gemv_lanes") + kernels.wgsl("quantized_gemv_parts")).substitute(
        O=O, X=kernels.STORAGE[x_dtype], bindings="\n".join(bindings), parts="\n".join(body), biases="\n".join(biases))
    source = kernels.wgsl("prelude") + kernels.store_fn("f32", x_dtype) + "const PER = 8u;\n" + source
    return ("quantized_gemv_parts", parts, x_dtype.name, scale_dtype.name, kernels.stored(x_dtype)), source, \
        "w" + "r" * (1 + 4 * parts)


def parts(x, layers):
    """(layer(x) for layer in layers) in one kernel for int4 layers of one K and group size (biases of x's
    dtype or none), few rows of x on "webgpu" (a decode step's q, k and v projections), where a kernel
    may bind their buffers; views of one output, side by side. None otherwise."""
    lead = x.shape[:-1]
    m = math.prod(lead)
    first = layers[0]
    if not (0 < m <= GEMV_MAX_ROWS and x.device.type == "webgpu" and x.dtype in (dt.float32, dt.float16, dt.bfloat16)
            and all(getattr(layer, "BITS", None) == 4 and layer.in_features == first.in_features == x.shape[-1] and
                    layer.group_size == first.group_size and layer.weight_scale.dtype is first.weight_scale.dtype and
                    (layer.bias is None or layer.bias.dtype is x.dtype and layer.bias.dim() == 1) for layer in layers)):
        return None
    x = x.contiguous()
    if x._storage.runtime.limits["max_storage_buffers_per_shader_stage"] < 3 + 4 * len(layers):
        return None
    operands = []
    for layer in layers:
        tensors = [t.contiguous() for t in (layer.weight_qdata, layer.weight_scale, layer.weight_zero_point)]
        operands.append([t.clone() if t._offset else t for t in tensors] +
                        [layer.bias.contiguous() if layer.bias is not None else None])
    sizes = [layer.out_features for layer in layers]
    total = sum(sizes)
    out = gpu.empty(x.dtype, m * total)
    meta = [m, total, first.in_features, operands[0][0].shape[-1], first.group_size, x._offset]
    buffers = [out.buffer, x._storage.buffer]
    for size, (qdata, scale, zero, bias) in zip(sizes, operands):
        meta += [size, 0 if bias is None else 1 + bias._offset]
        buffers += [qdata._storage.buffer, scale._storage.buffer, zero._storage.buffer,
                    (bias if bias is not None else x)._storage.buffer]
    out.runtime.run(_parts_kernel(len(layers), x.dtype, first.weight_scale.dtype), buffers, meta,
                    (-(-total // 8), m, 1))
    whole = Tensor(out, (*lead, total))
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    return tuple(whole.narrow(-1, start, size) for start, size in zip(starts, sizes))


def linear(x, layer, bias=None):
    """x @ W.T (+ bias, a contiguous (N,) tensor of x's dtype: in the same kernel) for a quantized layer's W
    (all on "webgpu"): a tensor of x's shape[:-1] + (N,), x's dtype; None from DEQUANTIZED_ROWS rows of x."""
    n, k = layer.out_features, layer.in_features
    lead = x.shape[:-1]
    m = math.prod(lead)
    if m >= DEQUANTIZED_ROWS:
        return None
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


@functools.lru_cache(maxsize=None)
def _dequantize_kernel(bits, out_dtype, scale_dtype):
    S = kernels.STORAGE[scale_dtype]
    scale_bindings, value = (
        (f"@group(0) @binding(3) var<storage, read> scale: array<{S}>;\n"
         f"@group(0) @binding(4) var<storage, read> zero: array<{S}>;", "fma(q, f32(scale[(k0 / GS) * N + n]), "
                                                                        "f32(zero[(k0 / GS) * N + n]))")
        if bits == 4 else ("", "q"))
    source = Template(kernels.wgsl("quantized_dequantize")).substitute(
        O=kernels.STORAGE[out_dtype], scale_bindings=scale_bindings, value=value)
    source = (kernels.wgsl("prelude") + kernels.store_fn("f32", out_dtype) +
              f"const PER = {_KINDS[bits]['per']}u;\nconst BITS = {bits}u;\n" + source)
    key = ("quantized_dequantize", bits, out_dtype.name, scale_dtype.name, kernels.stored(out_dtype))
    return key, source, "wr" + ("rr" if bits == 4 else "")


def dequantized(layer, dtype):
    """The layer's W (N, K) on "webgpu" in dtype, for a prefill's float matmul: int4 q * scale + zero (the
    layer's dequantize() rounded to dtype), int8 q (torchao's weight-only int8 applies the scale after the
    product). One kernel instead of the reference's unpacking and casts."""
    from ...backend.webgpu import grid
    n, k = layer.out_features, layer.in_features
    operands = [layer.weight_qdata.contiguous()] + (
        [layer.weight_scale.contiguous(), layer.weight_zero_point.contiguous()] if layer.BITS == 4 else [])
    if any(t._offset for t in operands):
        operands = [t.clone() for t in operands]
    words = operands[0].shape[-1]
    out = gpu.empty(dtype, n * k)
    scale_dtype = operands[1].dtype if layer.BITS == 4 else dt.float32
    out.runtime.run(_dequantize_kernel(layer.BITS, dtype, scale_dtype), [out.buffer] + [t._storage.buffer for t in operands],
                    [n, k, words, getattr(layer, "group_size", 0)], grid(-(-n * words // 256)))
    return Tensor(out, (n, k))
