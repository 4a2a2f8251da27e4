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
# Per bit width: elements per u32 word, and the WGSL that decodes them for the tiled GEMM (the GEMV's
# decoding is quantized_gemv.wgsl's int4_word / int8_word). Field i of `word`, sign-extended:
# bitcast<i32>(word << (32 - bits - bits * i)) >> (32 - bits).
_INT4 = {
    "per": 8,
    "zero_binding": "@group(0) @binding(5) var<storage, read> zero: array<$S>;",
    "gemm": """      let g = ((j * 8u) / GS) * N + min(n, N - 1u);
      let s = f32(scale[g]);
      let z = f32(zero[g]);
      for (var i = 0u; i < 8u; i = i + 1u) {
        ws[(kk + i) * 64u + c] = select(0.0f, fma(f32(bitcast<i32>(word << (28u - 4u * i)) >> 28u), s, z), n < N);
      }""",
    # an output's product from its sum (GEMV: of set {s})
    "finish": "{total}",
}
# int8: torchao's (x @ q.T) * scale, the per-row scale applied to the sum
_INT8 = {
    "per": 4,
    "zero_binding": "",
    "gemm": """      for (var i = 0u; i < 4u; i = i + 1u) {
        ws[(kk + i) * 64u + c] = f32(bitcast<i32>(word << (24u - 8u * i)) >> 24u);
      }""",
    "finish": "{total} * f32(scale{s}[n])",
}
_KINDS = {4: _INT4, 8: _INT8}


@functools.lru_cache(maxsize=None)
def _gemm_kernel(bits, x_dtype, scale_dtype):
    """The tiled GEMM (quantized_gemm.wgsl); the output has x's dtype."""
    kind = _KINDS[bits]
    source = Template(kernels.wgsl("quantized_bindings") + kernels.wgsl("quantized_gemm")).substitute(
        O=kernels.STORAGE[x_dtype], X=kernels.STORAGE[x_dtype], S=kernels.STORAGE[scale_dtype],
        zero_binding=Template(kind["zero_binding"]).substitute(S=kernels.STORAGE[scale_dtype]),
        dequant=kind["gemm"], finish=kind["finish"].format(total="total", s=""), bias_at=5 + (bits == 4))
    source = kernels.wgsl("prelude") + kernels.store_fn("f32", x_dtype) + f"const PER = {kind['per']}u;\n" + source
    key = ("quantized_gemm", bits, x_dtype.name, scale_dtype.name, kernels.stored(x_dtype))
    return key, source, "wrrr" + ("r" if bits == 4 else "") + "r"


def _gemv_step(bits, vec, s, c):
    """WGSL adding load j of set s's packed row n (elements k0 .. of the row, x's from buffer index i)
    into acc.c: int4 a group's scale and zero point over the sums of its words (a load lies in one group:
    32 elements, group sizes are multiples of 32), int8 the bare sum (the per-row scale comes after)."""
    words = ["q"] if vec == 1 else ["q.x", "q.y", "q.z", "q.w"]
    if bits == 4:
        p = " + ".join(f"int4_word({w}, i + {8 * t}u)" for t, w in enumerate(words))
        return f"""      {{
        let q = qdata{s}[n * loads + j];
        let p = {p};
        let g = (k0 / GS) * Ns + n;
        acc.{c} = acc.{c} + fma(f32(scale{s}[g]), p.x, f32(zero{s}[g]) * p.y);
      }}"""
    p = " + ".join(f"int8_word({w}, i + {4 * t}u, K - k0 - {4 * t}u)" for t, w in enumerate(words))
    return f"""      {{
        let q = qdata{s}[n * loads + j];
        acc.{c} = acc.{c} + {p};
      }}"""


def _gemv_loop(bits, vec, steps):
    return """    for (var j = lane; j < loads; j = j + LANES) {
      let k0 = j * (VEC * PER);
      let i = xrow + k0;
%s
    }""" % "\n".join(_gemv_step(bits, vec, s, c) for s, c in steps)


def _gemv_finish(bits, s, c):
    """The f32 product of set s's output n from its lanes' total's component c."""
    return _KINDS[bits]["finish"].format(total=f"total.{c}", s=s)


def _norm_source(norm, X, at, p):
    """gemv_norm.wgsl for norm (None: no norm folded in; else (residual, xs): whether the row is x + residual,
    the elements of workgroup memory xs), its bindings from `at`, its params from word p: (WGSL at module
    scope, the call starting main, the access string of its bindings)."""
    if norm is None:
        return "", "", ""
    residual, xs = norm
    load = "  return f32(x[i]);"
    bindings, store_sum = "", ""
    if residual:
        bindings = (f"@group(0) @binding({at + 1}) var<storage, read> norm_residual: array<{X}>;\n"
                    f"@group(0) @binding({at + 2}) var<storage, read_write> sum_out: array<{X}>;")
        load = f"  return f32(wt_store(f32(x[i]) + f32(norm_residual[i + params[{p + 3}u]])));"
        store_sum = "      if (wid.x == 0u) { sum_out[wid.y * len + r] = wt_store(v); }"
    source = kernels.wgsl("row_threads") + Template(kernels.wgsl("gemv_norm")).substitute(
        X=X, weight_at=at, residual_bindings=bindings, XS=xs, load=load, P=f"{p}u", store_sum=store_sum)
    return source, "  norm_row(li, wid);", "r" + "rw" * residual


@functools.lru_cache(maxsize=None)
def _gemv_kernel(bits, sets, gated, biases, vec, x_vec, x_dtype, scale_dtype, subgroup_min, norm=None):
    """quantized_gemv.wgsl for `sets` weight sets of `bits` side by side (gated: two on the same outputs,
    silu(first) * second), with bias bindings or not; W read in loads of vec words, x as vec4s or not;
    norm: None, or a norm of x's rows folded in (_norm_source)."""
    S, O, X = kernels.STORAGE[scale_dtype], kernels.STORAGE[x_dtype], kernels.STORAGE[x_dtype]
    bindings, at = [], 3
    for s in range(sets):
        for name, kind in [("qdata", "vec4<u32>" if vec == 4 else "u32"), ("scale", S)] + \
                [("zero", S)] * (bits == 4) + [("bias", O)] * biases:
            bindings.append(f"@group(0) @binding({at}) var<storage, read> {name}{s}: array<{kind}>;")
            at += 1
    norm_source, norm_row, norm_access = _norm_source(norm, X, at, 6 + 2 * sets)
    if gated:
        walk = f"""  let Ns = params[6];
  n = row;
  if (row < Ns) {{
{_gemv_loop(bits, vec, [(0, "x"), (1, "y")])}
  }}"""
        store = f"""    let gate = f32(wt_store({_gemv_finish(bits, 0, "x")}));
    let up = f32(wt_store({_gemv_finish(bits, 1, "y")}));
    out[wid.y * total_n + row] = wt_store(f32(wt_store(gate * wt_sigmoid(gate))) * up);"""
    else:
        walk, store = [], [f"    var v: {O};"]
        for s in range(sets):
            walk.append(f"""  if (row >= start && row < start + params[{6 + 2 * s}]) {{
    let Ns = params[{6 + 2 * s}];
    n = row - start;
    part = {s}u;
{_gemv_loop(bits, vec, [(s, "x")])}
  }}
  start = start + params[{6 + 2 * s}];""")
            add = f"""
      let b = params[{7 + 2 * s}];
      if (b != 0u) {{ v = wt_store(f32(v) + f32(bias{s}[b - 1u + n])); }}""" if biases else ""
            store.append(f"""    if (part == {s}u) {{
      v = wt_store({_gemv_finish(bits, s, "x")});{add}
    }}""")
        walk = "\n".join(walk)
        store = "\n".join(store + ["    out[wid.y * total_n + row] = v;"])
    if norm is not None:
        x4 = "  return vec4<f32>(xs[i], xs[i + 1u], xs[i + 2u], xs[i + 3u]);"
    elif x_vec:
        x4 = "  return vec4<f32>(x[i / 4u]);"
    else:
        x4 = "  return vec4<f32>(f32(x[i]), f32(x[i + 1u]), f32(x[i + 2u]), f32(x[i + 3u]));"
    source = Template(kernels.wgsl("quantized_gemv")).substitute(
        O=O, XV=f"vec4<{X}>" if x_vec else X, bindings="\n".join(bindings), x4=x4, walk=walk, store=store,
        norm=norm_source, norm_row=norm_row, xrow="params[5] + wid.y * K" if norm is None else "0u")
    source = (kernels.wgsl("prelude") + kernels.store_fn("f32", x_dtype) + kernels.subgroup_helpers(subgroup_min) +
              f"const PER = {_KINDS[bits]['per']}u;\nconst VEC = {vec}u;\n" + kernels.wgsl("gemv_lanes") + source)
    key = ("quantized_gemv", bits, sets, gated, biases, vec, x_vec, x_dtype.name, scale_dtype.name,
           kernels.stored(x_dtype), subgroup_min, norm)
    return key, source, "w" + "r" * (1 + (len(bindings))) + norm_access


class RowNorm:
    """An RMSNorm of x's rows that the GEMV after it computes itself (gemv_norm.wgsl) instead of a norm kernel
    before it: torch._ops._rms_norm's arithmetic with weight_after_rounding (transformers' Llama RMSNorm),
    of x, or of x + residual (x's shape, dtype and layout). weight: (K,) of x's dtype. After the GEMV, sum
    holds x + residual (x without a residual): the residual stream the model goes on with."""

    def __init__(self, weight, eps, residual=None):
        self.weight, self.eps, self.residual, self.sum = weight, eps, residual, None

    def key(self, x):
        """The kernel's norm (_norm_source) for contiguous x: (with a residual, the elements of workgroup
        memory xs); None where gemv_norm.wgsl cannot fold it (x not float32/float16, operands of another
        dtype, shape or runtime, too long a row for workgroup memory)."""
        k = x.shape[-1]
        rt = x._storage.runtime
        residual = self.residual
        operands = [self.weight] + ([residual] if residual is not None else [])
        xs = -(-k // 32) * 32  # (int8 loads read up to 16 elements past K: zeros)
        if x.dtype not in (dt.float32, dt.float16) or self.weight.shape != (k,) or residual is not None and (
                residual.shape != x.shape or not residual.is_contiguous()) or any(
                t.dtype is not x.dtype or t._storage.device_type != "webgpu" or t._storage.runtime is not rt
                for t in operands) or 4 * (xs + 2 * 256) + 8 * 256 > rt.limits["max_compute_workgroup_storage_size"]:
            return None  # (xs, row_threads.wgsl's partial_m and partial_s, gemv_lanes.wgsl's partial)
        return residual is not None, xs

    def operands(self, x):
        """(the kernel's buffers, its params words) for contiguous x, where key(x) is one; the sum made here."""
        residual = self.residual
        weight = self.weight.contiguous()
        buffers = [weight._storage.buffer]
        meta = [gpu.row_threads(math.prod(x.shape[:-1]), x.shape[-1]), kernels.scalar_bits(self.eps, dt.float32),
                weight._offset, (residual._offset - x._offset) % (1 << 32) if residual is not None else 0]
        if residual is not None:
            self.sum = Tensor(gpu.empty(x.dtype, x.numel()), x.shape)
            buffers += [residual._storage.buffer, self.sum._storage.buffer]
        else:
            self.sum = x
        return buffers, meta


def _gemv(x, layers, biases=None, gated=False, norm=None):
    """The GEMV kernel for few rows of contiguous x over the quantized layers (of one bit width, K and
    group size): their outputs side by side in a storage of rows of their summed N, or (gated) silu of
    the first's times the second's. biases: None, or per layer a contiguous (N,) tensor of x's dtype or
    None. norm: None, or a RowNorm of x computed inside (x then its input). None where the adapter cannot
    bind the buffers or fold the norm."""
    first = layers[0]
    bits, k = first.BITS, first.in_features
    words = first.weight_qdata.shape[-1]
    vec = 4 if words % 4 == 0 and k % (4 * _KINDS[bits]["per"]) == 0 else 1
    x_vec = x._offset % 4 == 0 and k % 4 == 0 and norm is None
    norm_key = None if norm is None else norm.key(x)
    if norm is not None and norm_key is None:
        return None
    kernel = _gemv_kernel(bits, len(layers), gated, biases is not None, vec, x_vec, x.dtype, first.weight_scale.dtype,
                          gpu.subgroup_min(x._storage.runtime), norm_key)
    # the kernel's storage bindings: its params, then those of its access string (out, x, each set's buffers,
    # the norm's)
    if x._storage.runtime.limits["max_storage_buffers_per_shader_stage"] < 1 + len(kernel[2]):
        return None
    operands = [_weight_operands(layer) for layer in layers]
    m = math.prod(x.shape[:-1])
    sizes = [layer.out_features for layer in layers]
    total = sizes[0] if gated else sum(sizes)
    out = gpu.empty(x.dtype, m * total)
    meta = [m, total, k, words, getattr(first, "group_size", 0), x._offset]
    buffers = [out.buffer, x._storage.buffer]
    for s, (size, tensors) in enumerate(zip(sizes, operands)):
        bias = biases[s] if biases is not None else None
        meta += [size, 0 if bias is None else 1 + bias._offset]
        buffers += [t._storage.buffer for t in tensors]
        if biases is not None:
            buffers.append((bias if bias is not None else x)._storage.buffer)
    if norm is not None:
        norm_buffers, norm_meta = norm.operands(x)
        buffers += norm_buffers
        meta += norm_meta
    out.runtime.run(kernel, buffers, meta, (-(-total // 8), m, 1))
    return out


def _same_kind(x, layers):
    """Whether few rows of x on "webgpu" may go through one GEMV kernel over the quantized layers: one bit
    width, x's K and group size, one scale dtype."""
    first = layers[0]
    return (0 < math.prod(x.shape[:-1]) <= GEMV_MAX_ROWS and x.device.type == "webgpu" and
            x.dtype in (dt.float32, dt.float16, dt.bfloat16) and
            all(getattr(layer, "BITS", None) == first.BITS and layer.in_features == x.shape[-1] and
                getattr(layer, "group_size", 0) == getattr(first, "group_size", 0) and
                layer.weight_scale.dtype is first.weight_scale.dtype for layer in layers))


def gated(x, gate, up, norm=None):
    """silu(gate(x)) * up(x) in one kernel for two quantized layers of one shape, bit width and group size
    without biases, few rows of x on "webgpu" (a decode step's MLP), where a kernel may bind their buffers;
    None otherwise. norm: a RowNorm of x to compute first, in the same kernel (x is then its input)."""
    if not (_same_kind(x, (gate, up)) and gate.bias is None and up.bias is None and
            gate.out_features == up.out_features):
        return None
    out = _gemv(x.contiguous(), (gate, up), gated=True, norm=norm)
    return None if out is None else Tensor(out, (*x.shape[:-1], gate.out_features))


def parts(x, layers, norm=None):
    """(layer(x) for layer in layers) in one kernel for quantized layers of one bit width, K and group size
    (biases of x's dtype or none), few rows of x on "webgpu" (a decode step's q, k and v projections),
    where a kernel may bind their buffers; views of one output, side by side. None otherwise. norm: a
    RowNorm of x to compute first, in the same kernel (x is then its input)."""
    if not (_same_kind(x, layers) and all(layer.bias is None or layer.bias.dtype is x.dtype and layer.bias.dim() == 1
                                          for layer in layers)):
        return None
    biases = [layer.bias.contiguous() if layer.bias is not None else None for layer in layers]
    out = _gemv(x.contiguous(), layers, biases if any(b is not None for b in biases) else None, norm=norm)
    if out is None:
        return None
    sizes = [layer.out_features for layer in layers]
    whole = Tensor(out, (*x.shape[:-1], sum(sizes)))
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
    if m <= GEMV_MAX_ROWS:
        out = _gemv(x, (layer,), None if bias is None else [bias])
        if out is not None:
            return Tensor(out, (*lead, n))
    operands = _weight_operands(layer)
    qdata, scale = operands[:2]
    out = gpu.empty(x.dtype, m * n)
    meta = [m, n, k, qdata.shape[-1], getattr(layer, "group_size", 0), x._offset,
            0 if bias is None else 1 + bias._offset]
    buffers = [out.buffer, x._storage.buffer] + [t._storage.buffer for t in operands] + \
        [(bias if bias is not None else x)._storage.buffer]
    out.runtime.run(_gemm_kernel(layer.BITS, x.dtype, scale.dtype), buffers, meta, (-(-n // 64), -(-m // 64), 1))
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


def _weight_operands(layer):
    """The layer's packed W as the kernels bind it: qdata, scale (and int4's zero point), each contiguous
    from element 0 of its buffer."""
    tensors = [layer.weight_qdata.contiguous(), layer.weight_scale.contiguous()] + \
        ([layer.weight_zero_point.contiguous()] if layer.BITS == 4 else [])
    return [t.clone() if t._offset else t for t in tensors]


def dequantized(layer, dtype):
    """The layer's W (N, K) on "webgpu" in dtype, for a prefill's float matmul: int4 q * scale + zero (the
    layer's dequantize() rounded to dtype), int8 q (torchao's weight-only int8 applies the scale after the
    product). One kernel instead of the reference's unpacking and casts."""
    from ...backend.webgpu import grid
    n, k = layer.out_features, layer.in_features
    operands = _weight_operands(layer)
    operands = operands if layer.BITS == 4 else operands[:1]  # (int8: the scale applies after the product)
    words = operands[0].shape[-1]
    out = gpu.empty(dtype, n * k)
    scale_dtype = operands[1].dtype if layer.BITS == 4 else dt.float32
    out.runtime.run(_dequantize_kernel(layer.BITS, dtype, scale_dtype), [out.buffer] + [t._storage.buffer for t in operands],
                    [n, k, words, getattr(layer, "group_size", 0)], grid(-(-n * words // 256)))
    return Tensor(out, (n, k))
