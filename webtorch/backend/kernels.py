"""WGSL kernel generation: the templates in webtorch/wgsl/ filled in per op and dtype.

Each function returns (cache key, WGSL source, binding access string). The runtime compiles
a source once per key.
"""
import functools
import math
import re
import struct
from importlib import resources
from string import Template

from .. import _dtypes as dt

_SOURCES = {}


def wgsl(name):
    if name not in _SOURCES:
        _SOURCES[name] = resources.files("webtorch").joinpath("wgsl", name + ".wgsl").read_text()
    return _SOURCES[name]


# How each dtype is stored in GPU memory and computed in WGSL. float16 is stored as f16 (2 bytes;
# the runtime adds `enable f16;`) and computed in f32: converted on load, rounded to half on store
# (PyTorch's CPU half kernels compute in float too and round each result; reductions, scans and
# matmul accumulate in f32). Where the adapter lacks "shader-f16" (stock Chrome on Linux + NVIDIA,
# SwiftShader, older Windows setups), float16 is stored as f32 holding half values instead, rounded
# to half on every store like bfloat16 (the pseudo-type "f16r"): set_float16_storage below.
# int8, int16, uint8 and bfloat16 are stored in 4 bytes (i32, f32: WGSL has no narrower storage
# without extensions) and keep their logical dtype: every store wraps the integers to their width and
# rounds bfloat16 to nearest even (the pseudo-types "i8", "i16", "u8", "bf16" of convert()). float64
# never reaches the GPU (gpu.py stores it as float32); its entries serve the cast into float32.
STORAGE = {dt.bool_: "u32", dt.uint8: "i32", dt.int8: "i32", dt.int16: "i32", dt.int32: "i32", dt.int64: "i32",
           dt.float16: "f16", dt.bfloat16: "f32", dt.float32: "f32", dt.float64: "f32"}
COMPUTE = {**{d: "i32" for d in STORAGE}, dt.bool_: "bool",
           **{d: "f32" for d in (dt.float16, dt.bfloat16, dt.float32, dt.float64)}}
NARROW = {dt.int8: "i8", dt.int16: "i16", dt.uint8: "u8", dt.bfloat16: "bf16"}
# the WGSL function of the prelude that rounds an f32 to a narrow float stored as f32
_ROUND_FLOAT = {"bf16": "wt_bf16", "f16r": "wt_f16"}


def set_float16_storage(native):
    """float16 stored as f16 (native: the adapter offers "shader-f16") or as f32 rounded to half.
    Called when a runtime starts, before any kernel of it is built; the kernels cached here and the
    launches cached above them assume one layout per process, so a runtime of the other kind raises."""
    layout = "f16" if native else "f32"
    if STORAGE[dt.float16] == layout:
        return
    if _EW_CACHE or any(f.cache_info().currsize for f in _CACHED):
        raise RuntimeError("webtorch: a new WebGPU device differs from the first in 'shader-f16' support; "
                           "float16's layout is fixed per process: restart Python")
    STORAGE[dt.float16] = layout
    if native:
        NARROW.pop(dt.float16, None)
    else:
        NARROW[dt.float16] = "f16r"


def half_stored(d):
    """Whether d's elements are 2-byte halves on the GPU (float16 on an adapter with "shader-f16")."""
    return STORAGE[d] == "f16"
_ZERO = {"f32": "0.0f", "i32": "0i", "u32": "0u"}
_ONE = {"f32": "1.0f", "i32": "1i", "u32": "1u"}


def stored(d):
    """The convert() destination of a store into d's storage (a narrow pseudo-type, or the WGSL type)."""
    return NARROW.get(d) or STORAGE[d]


def store_fn(t, d):
    """WGSL `fn wt_store(v: t) -> d's storage type`, for templates that store a value of type t."""
    return f"fn wt_store(v: {t}) -> {STORAGE[d]} {{ return {convert('v', t, stored(d))}; }}\n"


def convert(expr, src, dst):
    """WGSL converting expr from type src to dst; 'u32' is a stored bool, 'bool' a computed one;
    dst may be a narrow pseudo-type (NARROW): an i32 wrapped to 8/16 bits, an f32 rounded to bfloat16
    or (float16 without "shader-f16") to half."""
    if src == dst:
        return expr
    if dst in ("i8", "i16"):  # sign-extend the low bits
        shift = "24u" if dst == "i8" else "16u"
        return f"((({convert(expr, src, 'i32')}) << {shift}) >> {shift})"
    if dst == "u8":
        return f"(({convert(expr, src, 'i32')}) & 255i)"
    if dst in _ROUND_FLOAT:
        return f"{_ROUND_FLOAT[dst]}({convert(expr, src, 'f32')})"
    if src == "f16":  # stored half: through f32
        return convert(f"f32({expr})", "f32", dst)
    if dst == "f16":
        return f"f16({convert(expr, src, 'f32')})"
    if src == "f32" and dst in ("bool", "u32"):  # from bits: NaN is true, -0 false, whatever the compiler assumes
        nonzero = f"((bitcast<u32>({expr}) & 0x7fffffffu) != 0u)"
        return nonzero if dst == "bool" else f"select(0u, 1u, {nonzero})"
    if dst == "bool":
        return f"({expr} != {_ZERO[src]})"
    if src == "bool":
        return f"select({_ZERO[dst]}, {_ONE[dst]}, {expr})"
    if dst == "u32":
        return f"select(0u, 1u, {expr} != {_ZERO[src]})"
    return f"{dst}({expr})"


_F32, _U32 = struct.Struct("<f"), struct.Struct("<I")


def scalar_bits(value, d):
    """The u32 word that carries a Python scalar of compute dtype d in a kernel's meta."""
    if d.is_floating_point:  # float16 computes in f32 too
        try:
            return _U32.unpack(_F32.pack(value))[0]
        except OverflowError:  # a float beyond float32's range: PyTorch rounds it to +-inf
            return _U32.unpack(_F32.pack(math.copysign(math.inf, value)))[0]
    if d is dt.bool_:
        return int(bool(value))
    value = dt.TO_ELEMENT[d](value)  # wrapped to d first, as PyTorch casts the scalar
    if d is dt.int64:
        check_int64_fits(value, value)
    return value & 0xFFFFFFFF


INT32_RANGE = (-(1 << 31), (1 << 31) - 1)


def check_int64_fits(lo, hi):
    """int64 is i32 on the GPU (WGSL has no 64-bit integers): a value beyond int32 raises, whether it
    comes in a tensor or as a scalar operand (x + 2**40 would otherwise add its low 32 bits)."""
    if lo < INT32_RANGE[0] or hi > INT32_RANGE[1]:
        raise RuntimeError(f"webtorch stores int64 as 32 bits on the GPU; value {lo if lo < INT32_RANGE[0] else hi} "
                           "does not fit in int32")


_EW_CACHE = {}  # (op, dtypes.., contiguous) -> kernel: an eager op builds no WGSL after its first call


def elementwise(op, operands, computes, out_dtype, contiguous):
    """operands: the dtype of each tensor operand, or None for a scalar carried in meta.
    computes: the compute dtype of each operand (where's condition differs from its branches)."""
    key = (op.name, *operands, *computes, out_dtype, contiguous)
    kernel = _EW_CACHE.get(key)
    if kernel is None:
        kernel = _EW_CACHE[key] = _elementwise(op, operands, computes, out_dtype, contiguous)
    return kernel


def _elementwise(op, operands, computes, out_dtype, contiguous):
    """One op's kernel: a program of one member reading its operands' views, storing into view 0."""
    bindings = [(out_dtype, True)] + [(d, False) for d in operands if d is not None]
    tensor_views, scalars = iter(range(1, len(bindings))), iter(range(len(operands)))
    member = (op, [("scalar", next(scalars)) if d is None else ("view", next(tensor_views)) for d in operands],
              computes, out_dtype, [0])
    key = ("ew", op.name, tuple(d and d.name for d in operands), tuple(c.name for c in computes),
           out_dtype.name, contiguous)
    return key, elementwise_program(bindings, range(len(bindings)), [member], contiguous), \
        "w" + "r" * (len(bindings) - 1)


# Output indices per invocation of a contiguous elementwise kernel (elementwise.wgsl): dispatch
# ceil(n / (256 * ELEMENTWISE_PER)) workgroups for them (fewer workgroups leave indices undone; more
# run correctly, idle).
ELEMENTWISE_PER = 4


def elementwise_program(bindings, views, members, contiguous):
    """WGSL of elementwise.wgsl running members one after another per output index, each in registers.

    bindings: per buffer (binding 1 on) its dtype and whether kernels write it; views: per view the
    buffer it indexes (params hold each view's offset and strides over the shape); members: per
    member (op, operands, computes, out_dtype, stores), an operand being ("view", v), ("scalar", s)
    (the s-th scalar word after the views) or ("member", m) (an earlier member's stored value, as a
    load of it from memory would give), stores: the views its result is written to. The views of
    webtorch.compile's fused chains and of a single op's kernel alike. A contiguous program takes
    ELEMENTWISE_PER indices per invocation, spaced by the number of invocations (each load coalesced
    across a subgroup): the loads from buffers the program does not write, of all its indices, come
    first, so that many are in flight per thread (one per thread left a float16 stream latency-bound on
    the H200, at float32's elements per second); the rest runs index after index."""
    n_views = len(views)
    views = list(views)
    per = ELEMENTWISE_PER if contiguous else 1
    index, early, lines = ["  let rank = params[1];"], [], []
    if contiguous:
        index.append("  let total = nwg.x * nwg.y * 256u;")
    for e in range(per):
        if contiguous:  # an index past the end reads element n - 1 again and stores nothing
            index.append(f"  let i_{e} = min(tid + {e}u * total, n - 1u);")
            index += [f"  let o{v}_{e} = params[2u + rank + {v}u * (rank + 1u)] + i_{e};" for v in range(n_views)]
        else:
            index += ["  var rem = tid;"]
            index += [f"  var o{v}_0 = params[2u + rank + {v}u * (rank + 1u)];" for v in range(n_views)]
            index += ["  for (var d = rank; d > 0u; d = d - 1u) {",
                      "    let size = params[1u + d];",
                      "    let idx = rem % size;",
                      "    rem = rem / size;"]
            index += [f"    o{v}_0 = o{v}_0 + idx * params[2u + rank + {v}u * (rank + 1u) + d];"
                      for v in range(n_views)]
            index += ["  }"]
        body = _member_lines(bindings, views, members, e, "2u + rank", early)
        if contiguous:
            lines += [f"  if (tid + {e}u * total < n) {{"] + ["  " + line for line in body] + ["  }"]
        else:
            lines += body
    return wgsl("prelude") + Template(wgsl("elementwise")).substitute(
        bindings=_declarations(bindings), index="\n".join(index + early), body="\n".join(lines))


def _declarations(bindings):
    """The storage bindings x0, x1, .. at binding 1, 2, ..; None: a binding the kernel declares itself."""
    return "\n".join(f"@group(0) @binding({b + 1}) var<storage, {'read_write' if writable else 'read'}> "
                     f"x{b}: array<{STORAGE[d]}>;" for b, (d, writable) in enumerate(bindings) if d is not None)


def _member_lines(bindings, views, members, e, first_view_word, early):
    """WGSL lines computing and storing members at index suffix e (view v at offset o{v}_{e}; the views'
    params from word first_view_word on, then the scalars). Loads from buffers nothing writes go to
    early instead. An operand ("value", None) is the matmul's value v (matmul_epilogue.wgsl)."""
    n_views, body = len(views), []
    for k, (op, operands, computes, out_dtype, stores) in enumerate(members):
        names = []
        for j, ((kind, ref), c) in enumerate(zip(operands, computes)):
            if kind == "scalar":
                word = f"params[{first_view_word} + {n_views}u * (rank + 1u) + {ref}u]"
                value = {"f32": f"bitcast<f32>({word})", "i32": f"bitcast<i32>({word})",
                         "bool": f"({word} != 0u)"}[COMPUTE[c]]
            elif kind == "view":
                value = convert(f"x{views[ref]}[o{ref}_{e}]", STORAGE[bindings[views[ref]][0]], COMPUTE[c])
            elif kind == "value":
                value = "v"
            else:
                value = convert(f"r{ref}_{e}", STORAGE[members[ref][3]], COMPUTE[c])
            names.append(f"v{k}_{j}_{e}")
            read_only = kind == "view" and not bindings[views[ref]][1]
            (early if read_only else body).append(f"  let {names[-1]} = {value};")
        result_compute = COMPUTE[computes[-1]]
        expr = Template(op.expression(result_compute)).substitute(dict(zip("abc", names)))
        result_type = "bool" if op.out == "bool" else result_compute
        body.append(f"  let r{k}_{e} = {convert(expr, result_type, stored(out_dtype))};")
        body += [f"  x{views[v]}[o{v}_{e}] = r{k}_{e};" for v in stores]
    return body


def matmul_epilogue(matmul_key, batch_rank, bindings, views, members, rank, by_rows):
    """A matmul kernel (by its key) whose store of C's element (row, col) runs members instead
    (matmul_epilogue.wgsl): member 0 takes the matmul's value (operand ("value", None)) as its store
    into C would have rounded it; the others are an elementwise chain after it, as in
    elementwise_program (batch_rank: the matmul's, which places the chain's params). bindings, views
    and members as there; bindings[1] and [2] are None (the
    matmul's A and B). The chain's views: offsets and strides over a shape of rank dims (params after
    the matmul's), by_rows: its last dim is C's row (col indexes it; row is unravelled over the
    others), else the element's index in C, row * N + col, is unravelled over all of them."""
    early = []
    body = _member_lines(bindings, views, members, 0, "e0 + 2u + rank", early)
    index = [f"  let rank = {rank}u;", f"  var rem = {'row' if by_rows else 'row * params[1] + col'};"]
    index += [f"  var o{v}_0 = params[e0 + 2u + rank + {v}u * (rank + 1u)]" +
              (f" + col * params[e0 + 2u + rank + {v}u * (rank + 1u) + rank];" if by_rows else ";")
              for v in range(len(views))]
    index += [f"  for (var d = {rank - 1 if by_rows else rank}u; d > 1u; d = d - 1u) {{",
              "    let size = params[e0 + 1u + d];",
              "    let idx = rem % size;",
              "    rem = rem / size;"]
    index += [f"    o{v}_0 = o{v}_0 + idx * params[e0 + 2u + rank + {v}u * (rank + 1u) + d];" for v in range(len(views))]
    index += ["  }"]
    if rank > 1 or not by_rows:  # the outermost dim: what remains of the index
        index += [f"  o{v}_0 = o{v}_0 + rem * params[e0 + 3u + rank + {v}u * (rank + 1u)];" for v in range(len(views))]
    kind, *args = matmul_key
    epilogue = wgsl("prelude") + Template(wgsl("matmul_epilogue")).substitute(
        bindings=_declarations(bindings), T=COMPUTE[members[0][2][0]], E0=10 + 3 * batch_rank, index="\n".join(index + early),
        body="\n".join(body))
    source = _MATMUL_SOURCES[kind](*args)
    # the kernel first: its `enable` directives must open the module
    return source + epilogue, "".join("w" if writable else "r" for _, writable in bindings)


_IDENTITY = {
    ("sum", "f32"): "0.0f", ("sum", "i32"): "0i", ("prod", "f32"): "1.0f", ("prod", "i32"): "1i",
    ("max", "f32"): "-wt_inf()", ("max", "i32"): "i32(-2147483647 - 1)", ("max", "u32"): "0u",
    ("pool_max", "f32"): "-wt_inf()", ("pool_max", "i32"): "i32(-2147483647 - 1)", ("pool_max", "u32"): "0u",
    ("min", "f32"): "wt_inf()", ("min", "i32"): "2147483647i", ("min", "u32"): "1u",
    ("logaddexp", "f32"): "-wt_inf()",
}
_COMBINE = {
    ("sum", "*"): "a + b", ("prod", "*"): "a * b",
    ("max", "f32"): "wt_max(a, b)", ("max", "*"): "max(a, b)",
    ("pool_max", "f32"): "wt_max(a, b)", ("pool_max", "*"): "max(a, b)",
    ("min", "f32"): "wt_min(a, b)", ("min", "*"): "min(a, b)",
    ("logaddexp", "f32"): "wt_logaddexp(a, b)",
}
# Arg-reductions: NaN wins (the first NaN), then the extreme value, ties to the lower index. pool_max: max
# pooling's (torch's kernels: `val > maxval || isnan(val)` in window order), the last NaN.
_TAKES = {
    ("pool_max", "f32"): "select(wt_isnan(bv) || bv > av || (bv == av && bi < ai), wt_isnan(bv) && bi > ai, "
                         "wt_isnan(av))",
    ("pool_max", "*"): "bv > av || (bv == av && bi < ai)",
    ("max", "f32"): "select(wt_isnan(bv) || bv > av || (bv == av && bi < ai), wt_isnan(bv) && bi < ai, "
                    "wt_isnan(av))",
    ("min", "f32"): "select(wt_isnan(bv) || bv < av || (bv == av && bi < ai), wt_isnan(bv) && bi < ai, "
                    "wt_isnan(av))",
    ("max", "*"): "bv > av || (bv == av && bi < ai)",
    ("min", "*"): "bv < av || (bv == av && bi < ai)",
}


def subgroup_helpers(subgroup_min):
    """subgroup_shuffle.wgsl for subgroups of at least subgroup_min invocations, subgroup_none.wgsl
    for None (no subgroups)."""
    if subgroup_min:
        return Template(wgsl("subgroup_shuffle")).substitute(SG_MIN=subgroup_min)
    return wgsl("subgroup_none")


@functools.lru_cache(maxsize=None)
def reduce(op, in_dtype, acc_dtype, out_dtype, with_index, layout, indexed_input=False, subgroup_min=None,
           solo=False, fold=False):
    """op: sum, prod, max or min over a strided input; acc_dtype: the accumulation dtype.
    layout: "columns" (reduce_by_cols.wgsl: adjacent threads on adjacent rows), else rows over threads
    (reduce_by_rows.wgsl) reading "strided" (any view), "contiguous" (each row is one run of memory)
    or "vec4" (contiguous, every row starting at a multiple of 4 elements: read as vec4s).
    indexed_input: the input is the partial results of a split arg-reduction, whose row indices
    come from a second buffer (binding 4) instead of the element's position. subgroup_min: the
    adapter's least subgroup size where it offers subgroups (threads join by shuffles), else None.
    solo: threads do not join (reduce_solo.wgsl: no barriers; launched with one thread per row chunk).
    fold: rows split over workgroups fold their float32 partials in the same launch (reduce_fold_last.wgsl,
    with the scratch buffer at binding 3: FOLD_ROWS counters, then the partials)."""
    t = STORAGE[acc_dtype] if acc_dtype is dt.bool_ else COMPUTE[acc_dtype]

    def row(table):
        return table.get((op, t), table.get((op, "*"), "false"))

    s = STORAGE[in_dtype]
    scheme = ["reduce_by_cols"] if layout == "columns" else [
        "reduce_vec4" if layout == "vec4" else "reduce_rows", "reduce_by_rows",
        "reduce_fold_last" if fold else "reduce_store"]
    joins = wgsl("reduce_solo") if solo else subgroup_helpers(subgroup_min) + wgsl("reduce_join")
    source = wgsl("prelude") + wgsl("rows") + Template(
        "".join(wgsl(f) for f in ["reduce"] + scheme) + joins).substitute(
        T=t, out_storage=STORAGE[out_dtype], in_storage=s, in_type=f"vec4<{s}>" if layout == "vec4" else s,
        index_binding=("@group(0) @binding(3) var<storage, read_write> indices: array<i32>;" if with_index else "") +
        ("\n@group(0) @binding(4) var<storage, read> input_indices: array<i32>;" if indexed_input else ""),
        address="element_offset(o, r)" if layout == "strided" else "base + r",
        candidate="u32(input_indices[j])" if indexed_input else "r",
        takes=row(_TAKES), combine=row(_COMBINE), identity=row(_IDENTITY), convert=convert("s", s, t),
        arg="true" if with_index else "false",
        store=convert("a.v", t, stored(out_dtype)),
        index_store="  indices[f] = i32(a.i);" if with_index else "", FOLD_ROWS=FOLD_ROWS, FOLD_EMPTY=FOLD_EMPTY)
    key = ("reduce", op, in_dtype.name, acc_dtype.name, out_dtype.name, with_index, layout, indexed_input,
           subgroup_min, solo, fold)
    return key, source, ("wrw" if with_index or fold else "wr") + ("r" if indexed_input else "")


# The fold scratch of reduce_fold_last.wgsl: counters for up to FOLD_ROWS rows, then FOLD_PARTIALS partials;
# FOLD_EMPTY marks a partial not written yet (a signalling NaN's bits: no arithmetic makes it).
FOLD_ROWS, FOLD_PARTIALS, FOLD_EMPTY = 1024, 4096, 0x7FBADBAD


@functools.lru_cache(maxsize=None)
def matmul_vec4(d, tile, b_transposed=False):
    """The fast path of floating d (matmul_vec4.wgsl): vec4 loads of d's storage (f32, or f16), computed in
    f32, C rounded to d. tile: (wx, wy, tm, tn4, bk4), a (wy*tm) x (4*wx*tn4) tile per workgroup of
    wx x wy invocations, K in steps of 4*bk4; wy*tm*bk4 and 4*bk4*wx*tn4 must be multiples of wx*wy
    (whole vec4 loads per invocation). b_transposed: B's stride 1 is along K (x @ W.T)."""
    return ("matmul_vec4", d.name, tile, b_transposed), _with_c4_store(d, _matmul_vec4_source(d.name, tile, b_transposed)), \
        "wrr"


# matmul_load4.wgsl's array element and its widening to f32, by the storage type of A and B
_LOAD4 = {"f32": {"LOAD": "vec4<f32>", "LOAD4": "return v;"},
          "f16": {"LOAD": "vec2<u32>", "LOAD4": "return vec4<f32>(unpack2x16float(v.x), unpack2x16float(v.y));"}}


def _load4(name):
    return Template(wgsl("matmul_load4")).substitute(_LOAD4[STORAGE[dt.BY_NAME[name]]])


def _matmul_vec4_source(name, tile, b_transposed):
    wx, wy, tm, tn4, bk4 = tile
    return wgsl("matmul_batch") + _load4(name) + Template(wgsl("matmul_vec4")).substitute(
        WX=wx, WY=wy, TM=tm, TN4=tn4, BK4=bk4, B_T=str(b_transposed).lower())


@functools.lru_cache(maxsize=None)
def matmul_registers(d, b_transposed):
    """The path of CPU adapters for floating d (matmul_registers.wgsl): 8x4 outputs per invocation, no
    workgroup memory. b_transposed: B's stride 1 is along K (x @ W.T)."""
    return ("matmul_registers", d.name, b_transposed), _with_c4_store(d, _matmul_registers_source(d.name, b_transposed)), \
        "wrr"


def _matmul_registers_source(name, b_transposed):
    return wgsl("matmul_batch") + _load4(name) + unrolled(Template(wgsl("matmul_registers")).substitute(
        B_T=str(b_transposed).lower()))


def _with_store(d, t, source):
    """source preceded by wt_store (and the prelude's rounding for bfloat16 and emulated float16, unless
    source has it)."""
    prelude = wgsl("prelude")
    return (prelude if stored(d) in _ROUND_FLOAT and prelude not in source else "") + store_fn(t, d) + source


def _with_c_store(d, t, source):
    """A matmul kernel's source with its C binding and store_c (matmul_store.wgsl), storing d."""
    return _with_store(d, t, Template(wgsl("matmul_store")).substitute(S=STORAGE[d], T=t) + source)


def _with_c4_store(d, source):
    """A vec4 matmul kernel's source with its C binding and store_c4 (matmul_store_vec4.wgsl), storing d."""
    return _with_store(d, "f32", Template(wgsl("matmul_store_vec4")).substitute(S=STORAGE[d]) + source)


# How matmul_subgroup_matrix.wgsl loads and stages its inputs, by (float32 inputs, elements per load):
# float16 as words of two halves, as they are; float32 rounded to f16 ("medium"), or as f16 hi + lo
# parts ("high", split).
_F16_STAGING = {"PAIR": "vec2<f16>", "HI_PART": "return p;", "LO_PART": "return vec2<f16>();"}
_F32_STAGING = {"PAIR": "vec2<f32>", "HI_PART": "return to_f16(p);", "LO_PART": "return to_f16(p - vec2<f32>(hi));"}
_STAGED = {(False, 2): {**_F16_STAGING, "LOAD": "u32", "PAIR_OF": "bitcast<vec2<f16>>(p)"},
           (False, 4): {**_F16_STAGING, "LOAD": "vec2<u32>", "PAIR_OF": "bitcast<vec2<f16>>(p[q])"},
           (False, 8): {**_F16_STAGING, "LOAD": "vec4<u32>", "PAIR_OF": "bitcast<vec2<f16>>(p[q])"},
           (True, 2): {**_F32_STAGING, "LOAD": "vec2<f32>", "PAIR_OF": "p"},
           (True, 4): {**_F32_STAGING, "LOAD": "vec4<f32>", "PAIR_OF": "vec2<f32>(p[2u * q], p[2u * q + 1u])"}}
# the subgroup-matrix builtins' layout argument, by column-major
_LAYOUT = {False: "row_major", True: "col_major"}
# elements per load of the tensor-core kernel, widest (16 bytes) first
SUBGROUP_MATRIX_VECS = {False: (8, 4, 2), True: (4, 2)}


_UNROLL = re.compile(r"^[ \t]*// unroll (\w+) (?:< (\d+)|in ([a-z ]+))\n(.*?)^[ \t]*// end \1\n", re.M | re.S)


def unrolled(source):
    """source with each block `// unroll v < N` .. `// end v` written out N times, #v in it replaced by
    0 .. N-1, and each block `// unroll v in x y` once per word, #v replaced by the word and #V by it in
    capitals (nested blocks name different variables). A block whose bound is not a number yet (a
    template placeholder) stays for a call after the substitution, so a word block may name
    placeholders: `${#O_LOADS}` is ${A_LOADS} in the block of a."""
    def expand(m):
        var, n, words, body = m.groups()
        values = words.split() if words else [str(i) for i in range(int(n))]
        return "".join(unrolled(re.sub(rf"#{var.upper()}(?![A-Za-z])", v.upper(), re.sub(rf"#{var}(?![A-Za-z])", v, body)))
                       for v in values)
    return _UNROLL.sub(expand, source)


def matmul_subgroup_matrix_bytes(out_dtype, fragment, tiles, split):
    """Workgroup memory of matmul_subgroup_matrix.wgsl: the padded A and B tiles in halves (twice with
    split), and float16 C's staged fragments (matmul_subgroup_matrix_out_f16.wgsl) in f32."""
    (sm, sn, sk), (tm, tn, wm, wn, bk) = fragment, tiles
    bm, bn = wm * tm * sm, wn * tn * sn
    halves = max(bm * (bk + 8), bk * (bm + 8)) + max(bk * (bn + 8), bn * (bk + 8))  # either layout
    return 2 * halves * (2 if split else 1) + (4 * wm * wn * sm * sn if out_dtype is dt.float16 else 0)


@functools.lru_cache(maxsize=None)
def matmul_subgroup_matrix(out_dtype, fragment, subgroup_size, tiles, a_col_major, b_col_major, f32_inputs=False,
                           split=False, vec=2):
    """A @ B on tensor cores (matmul_subgroup_matrix.wgsl): f16 inputs, or f32 ones rounded to f16
    (split: as hi + lo f16 parts); fragment = (M, N, K) of the adapter's f16 -> f32 subgroup-matrix
    configuration; tiles = (TM, TN, WM, WN, BK); vec: elements per load (SUBGROUP_MATRIX_VECS)."""
    (sm, sn, sk), (tm, tn, wm, wn, bk) = fragment, tiles
    inv = wm * wn * subgroup_size
    source = unrolled(Template(unrolled(wgsl("matmul_subgroup_matrix"))).substitute(  # blocks of A and B first
        C_WORD={dt.float16: "u32", dt.float32: "f32"}[out_dtype], SM=sm, SN=sn, SK=sk, TM=tm, TN=tn, WM=wm, WN=wn,
        BK=bk, SG=subgroup_size, VEC=vec, K_STEPS=bk // sk, A_LOADS=wm * tm * sm * bk // vec // inv,
        B_LOADS=wn * tn * sn * bk // vec // inv, PAIRS=vec // 2,
        A_COL_MAJOR=str(a_col_major).lower(), B_COL_MAJOR=str(b_col_major).lower(), SPLIT=str(split).lower(),
        A_LAYOUT=_LAYOUT[a_col_major], B_LAYOUT=_LAYOUT[b_col_major],
        A_LO_SIZE="BM * BK / A_RUN * A_STRIDE" if split else 1, B_LO_SIZE="BK * BN / B_RUN * B_STRIDE" if split else 1,
        A_LO="a_lo_tile" if split else "a_tile", B_LO="b_lo_tile" if split else "b_tile",
        **_STAGED[f32_inputs, vec])) + wgsl("matmul_subgroup_matrix_out_" + STORAGE[out_dtype]) + wgsl("matmul_batch")
    return ("matmul_subgroup_matrix", out_dtype.name, fragment, subgroup_size, tiles, vec, a_col_major, b_col_major,
            f32_inputs, split), source, "wrr"


@functools.lru_cache(maxsize=None)
def matmul(d):
    return ("matmul", d.name), _with_c_store(d, COMPUTE[d], _matmul_source(d.name)), "wrr"


def _matmul_source(name):
    """matmul.wgsl without C's store (matmul_store.wgsl, or an epilogue)."""
    d = dt.BY_NAME[name]
    t = COMPUTE[d]
    return wgsl("matmul_batch") + Template(wgsl("matmul")).substitute(
        S=STORAGE[d], T=t, fma="fma(ar[i], br[j], acc[i][j])" if t == "f32" else "acc[i][j] + ar[i] * br[j]")


@functools.lru_cache(maxsize=None)
def matmul_small(d):
    """One output per invocation (matmul_small.wgsl): the path for small products."""
    return ("matmul_small", d.name), _with_c_store(d, COMPUTE[d], _matmul_small_source(d.name)), "wrr"


def _matmul_small_source(name):
    d = dt.BY_NAME[name]
    t = COMPUTE[d]
    mad = f"fma({t}(a[ai]), {t}(b[bi]), acc)" if t == "f32" else f"acc + {t}(a[ai]) * {t}(b[bi])"
    return wgsl("matmul_batch") + Template(wgsl("matmul_small")).substitute(S=STORAGE[d], T=t, mad=mad)


# matmul_gemv.wgsl's walk along K: element by element, or in vec4s, four loads per trip (all issued
# before any is summed: the loads in flight set the bandwidth), then the rest one each
_GEMV_WALKS = {False: """    for (var k = lane; k < K; k = k + LANES) {
      acc = fma(f32(a[ai + k * params[6]]), f32(b[bi + k]), acc);
    }""", True: """    let a4 = ai / 4u;
    let b4 = bi / 4u;
    let K4 = K / 4u;
    var k = lane;
    for (; k + 3u * LANES < K4; k = k + 4u * LANES) {
      let b0 = vec4<f32>(b[b4 + k]);
      let b1 = vec4<f32>(b[b4 + k + LANES]);
      let b2 = vec4<f32>(b[b4 + k + 2u * LANES]);
      let b3 = vec4<f32>(b[b4 + k + 3u * LANES]);
      acc = acc + dot(vec4<f32>(a[a4 + k]), b0) + dot(vec4<f32>(a[a4 + k + LANES]), b1) +
            dot(vec4<f32>(a[a4 + k + 2u * LANES]), b2) + dot(vec4<f32>(a[a4 + k + 3u * LANES]), b3);
    }
    for (; k < K4; k = k + LANES) {
      acc = acc + dot(vec4<f32>(a[a4 + k]), vec4<f32>(b[b4 + k]));
    }"""}


def matmul_gemv(d, vec4=False):
    """A few rows of A times B read along K (matmul_gemv.wgsl): decode's x @ W.T; vec4: A and B read as
    vec4s (A's rows contiguous, every row of A and B and K multiples of 4 elements)."""
    return ("matmul_gemv", d.name, vec4), _with_c_store(d, COMPUTE[d], _matmul_gemv_source(d.name, vec4)), "wrr"


def _matmul_gemv_source(name, vec4):
    d = dt.BY_NAME[name]
    return wgsl("matmul_batch") + wgsl("subgroup_none") + wgsl("gemv_lanes") + Template(wgsl("matmul_gemv")).substitute(
        S=STORAGE[d], T=COMPUTE[d], L=f"vec4<{STORAGE[d]}>" if vec4 else STORAGE[d], walk=_GEMV_WALKS[vec4])


# The matmul kernels without C's store, by their key's name and the rest of the key (matmul_epilogue)
_MATMUL_SOURCES = {"matmul": _matmul_source, "matmul_small": _matmul_small_source,
                   "matmul_vec4": _matmul_vec4_source, "matmul_registers": _matmul_registers_source,
                   "matmul_gemv": _matmul_gemv_source}


# Where take.wgsl / put.wgsl find element i's offset: precomputed offsets, or a slice along one dim
# picked by an index vector (along.wgsl, its params from the given word).
_ADDRESS = {"offsets": lambda base: "u32(offsets[params[1] + i])", "along": lambda base: f"along_offset(i, {base}u)"}


def _addressed(name, address, base, **subs):
    source = Template(wgsl(name)).substitute(address=_ADDRESS[address](base), **subs)
    return source + wgsl("along") if address == "along" else source


def take(d, address="offsets"):
    return ("take", STORAGE[d], address), _addressed("take", address, 2, T=STORAGE[d]), "wrr"


def spmm():
    """Sparse (CSR row pointers) times dense, float32: spmm.wgsl."""
    return ("spmm",), wgsl("spmm"), "wrrrr"


def complex_pairs():
    """complex64 mul/add/sub/abs over interleaved pairs in one kernel: complex_pairs.wgsl (after the prelude:
    wt_hypot)."""
    return ("complex_pairs",), wgsl("prelude") + wgsl("complex_pairs"), "wrr"


def fft_stockham():
    """One radix-2 or radix-4 pass of Stockham's FFT over rows of complex64 pairs: fft_stockham.wgsl."""
    return ("fft_stockham",), wgsl("fft_stockham"), "wrr"


def sddmm():
    """A Bᵀ sampled at sparse entries, float32: sddmm.wgsl."""
    return ("sddmm",), wgsl("sddmm"), "wrrrr"


def _cas(t, combine):
    """A compare-and-swap loop storing combine(old, v) (f32 lives in atomic<u32> as bits)."""
    new = f"bitcast<u32>({combine.format(old='bitcast<f32>(old)')})" if t == "f32" else combine.format(old="old")
    return ("  loop {\n    let old = atomicLoad(&dst[o]);\n"
            f"    if (atomicCompareExchangeWeak(&dst[o], old, {new}).exchanged) {{ break; }}\n  }}")


# put's store per stored type when reducing: "sum" (+=), "prod", "amax", "amin" (scatter_reduce).
# WGSL atomics are integer-only, so float reductions are a compare-exchange loop on the bits.
_ATOMIC = {
    ("sum", "f32"): _cas("f32", "{old} + v"), ("sum", "i32"): "  atomicAdd(&dst[o], v);",
    ("sum", "u32"): "  atomicOr(&dst[o], v);",
    ("prod", "f32"): _cas("f32", "{old} * v"), ("prod", "i32"): _cas("i32", "{old} * v"),
    ("prod", "u32"): "  atomicAnd(&dst[o], v);",
    ("amax", "f32"): _cas("f32", "wt_max({old}, v)"), ("amax", "i32"): "  atomicMax(&dst[o], v);",
    ("amax", "u32"): "  atomicOr(&dst[o], v);",
    ("amin", "f32"): _cas("f32", "wt_min({old}, v)"), ("amin", "i32"): "  atomicMin(&dst[o], v);",
    ("amin", "u32"): "  atomicAnd(&dst[o], v);",
}


def put(d, accumulate, address="offsets"):
    """accumulate: False (assign), True or "sum" (+=), "prod", "amax", "amin"."""
    t = STORAGE[d]
    reduce = "sum" if accumulate is True else accumulate or None
    if reduce:
        dst_type, store = "atomic<i32>" if t == "i32" else "atomic<u32>", _ATOMIC[(reduce, t)]
    else:
        dst_type, store = t, "  dst[o] = v;"
    source = wgsl("prelude") + _addressed("put", address, 3, T=t, dst_type=dst_type, store=store)
    return ("put", t, reduce, address), source, "wrr"


def scan(op, d):
    """Inclusive scan; op: "sum", "prod", "max", "min" (d: int32/int64/float16/float32) or
    "logaddexp" (floats), in d's compute type."""
    t = COMPUTE[d]
    combine = _COMBINE.get((op, t)) or _COMBINE[(op, "*")]
    source = wgsl("prelude") + Template(wgsl("scan")).substitute(S=STORAGE[d], T=t, combine=combine,
                                               identity=_IDENTITY[(op, t)])
    return ("scan", op, d.name), _with_store(d, t, source), "wr"


_BEFORE = {
    # NaN sorts as the largest value (torch.sort); ties by index
    ("f32", False): "let an = wt_isnan(va); let bn = wt_isnan(vb);\n"
                    "  if (an) { return bn && ia < ib; }\n"
                    "  return bn || va < vb || (va == vb && ia < ib);",
    ("f32", True): "let an = wt_isnan(va); let bn = wt_isnan(vb);\n"
                   "  if (an) { return !bn || ia < ib; }\n"
                   "  if (bn) { return false; }\n"
                   "  return va > vb || (va == vb && ia < ib);",
    ("*", False): "return va < vb || (va == vb && ia < ib);",
    ("*", True): "return va > vb || (va == vb && ia < ib);",
}


def sort_key_dtype(d):
    """The dtype of sort's scratch keys: float16 sorts as f32 (exact), the others as stored."""
    return dt.float32 if d is dt.float16 else d


# The longest (padded) row sort.wgsl sorts in workgroup memory; longer rows take sort_stages.wgsl
SORT_IN_WORKGROUP = 2048


def sort(d, descending, stages=False):
    """sort.wgsl (rows up to SORT_IN_WORKGROUP) or, stages, sort_stages.wgsl."""
    s, t = STORAGE[d], STORAGE[sort_key_dtype(d)]
    before = _BEFORE.get((t, descending), _BEFORE[("*", descending)])
    # Does (va, ia) come before (vb, ib)? Padding (index >= row_len) comes last.
    before_fn = (f"fn before(va: {t}, ia: u32, vb: {t}, ib: u32, len: u32) -> bool {{\n"
                 f"  if (ia >= len) {{ return false; }}\n  if (ib >= len) {{ return true; }}\n  {before}\n}}")
    name = "sort_stages" if stages else "sort"
    source = wgsl("prelude") + Template(wgsl(name)).substitute(S=s, T=t, before_fn=before_fn)
    return (name, s, descending), source, "wwrww" if stages else "wwr"


_RANDOM_STORE = {
    # 24 random bits: every value k * 2^-24 in [0, 1) is exact in f32
    "uniform": ("f32", "  out[i] = f32(w.x >> 8u) * 5.9604644775390625e-8f;"),
    # Box-Muller on two words; u1 in (0, 1] keeps the log finite
    "normal": ("f32", "  let u1 = (f32(w.x >> 8u) + 1.0f) * 5.9604644775390625e-8f;\n"
                      "  let u2 = f32(w.y >> 8u) * 5.9604644775390625e-8f;\n"
                      "  out[i] = sqrt(-2.0f * wt_log(u1)) * wt_cos(6.283185307179586f * u2);"),
    "bits": ("i32", "  out[i] = bitcast<i32>(w.x);"),
}


def philox(kind):
    t, store = _RANDOM_STORE[kind]
    source = wgsl("prelude") + Template(wgsl("philox")).substitute(T=t, store=store)
    return ("philox", kind), source, "w"


# Fused optimizer steps (optimizer.wgsl): the WGSL lines of each update, by flags; hp(k) are the
# host-computed scalars in the order the optim module passes them.
@functools.lru_cache(maxsize=None)
def optimizer_step(kind, maximize, weight_decay, flags):
    """kind "sgd": flags (momentum, first_step, nesterov), scalars: wd, momentum, 1-dampening, -lr.
    kind "adam": flags (decoupled, amsgrad), scalars: wd or 1-lr*wd, 1-beta1, beta2, 1-beta2,
    sqrt(bias_correction2), eps, -step_size."""
    lines = ["  var grad = " + ("-g[i];" if maximize else "g[i];"), "  var param = p[i];"]
    if kind == "sgd":
        momentum, first_step, nesterov = flags
        n_states = 1 if momentum else 0
        if weight_decay:
            lines.append("  grad = grad + param * hp(0u);")
        if momentum:
            lines.append("  let buf = grad;" if first_step else "  let buf = s0[i] * hp(1u) + grad * hp(2u);")
            lines.append("  s0[i] = buf;")
            lines.append("  grad = grad + buf * hp(1u);" if nesterov else "  grad = buf;")
        lines.append("  p[i] = param + grad * hp(3u);")
    else:
        decoupled, amsgrad = flags
        n_states = 3 if amsgrad else 2
        if weight_decay:
            lines.append("  param = param * hp(0u);" if decoupled else "  grad = grad + param * hp(0u);")
        lines += ["  var m = s0[i];",
                  "  m = m + (grad - m) * hp(1u);",
                  "  var v = s1[i] * hp(2u) + grad * hp(3u) * grad;",
                  "  s0[i] = m;",
                  "  s1[i] = v;"]
        if amsgrad:
            lines += ["  v = wt_max(s2[i], v);", "  s2[i] = v;"]
        lines += ["  let denom = sqrt(v) / hp(4u) + hp(5u);", "  p[i] = param + m * hp(6u) / denom;"]
    bindings = "\n".join(f"@group(0) @binding({3 + k}) var<storage, read_write> s{k}: array<f32>;"
                          for k in range(n_states))
    source = wgsl("prelude") + Template(wgsl("optimizer")).substitute(state_bindings=bindings,
                                                                      update="\n".join(lines))
    return ("optimizer", kind, maximize, weight_decay, flags), source, "wr" + "w" * n_states


@functools.lru_cache(maxsize=None)
def softmax(log, subgroup_min=None, d=dt.float32):
    """softmax.wgsl: exp(x - max) / sum, or (x - max) - log(sum) for log_softmax, of d (float32 or
    float16: computed in f32); subgroup_min as for reduce()."""
    result = "shifted - wt_log(total)" if log else "wt_exp(shifted) / total"
    source = _with_store(d, "f32", wgsl("prelude") + wgsl("rows") + subgroup_helpers(subgroup_min) + wgsl(
        "row_threads") + Template(wgsl("softmax")).substitute(
        result=result, result_in_registers=result if log else "e[k] / total", S=STORAGE[d],
        row_threads_start=wgsl("row_threads_start")))
    return ("softmax", log, subgroup_min, d.name), source, "wr"


@functools.lru_cache(maxsize=None)
def layer_norm(subgroup_min=None, d=dt.float32):
    """layer_norm.wgsl: (x - mean) * rstd (* weight) (+ bias) of each row of d (float32 or float16:
    computed in f32); subgroup_min as for reduce()."""
    source = _with_store(d, "f32", wgsl("prelude") + wgsl("rows") + subgroup_helpers(subgroup_min) + wgsl(
        "row_threads") + Template(wgsl("layer_norm")).substitute(S=STORAGE[d],
                                                                  row_threads_start=wgsl("row_threads_start")))
    return ("layer_norm", subgroup_min, d.name), source, "wrrrwr"


@functools.lru_cache(maxsize=None)
def moments():
    """moments.wgsl: the mean and biased variance of each row of float32 x scaled by its power of two, and
    that power (batch_norm, instance_norm)."""
    return ("moments",), wgsl("prelude") + wgsl("rows") + wgsl("moments"), "wr"


@functools.lru_cache(maxsize=None)
def conv2d(tx, tm, ty, tn, bk):
    """conv2d.wgsl (implicit GEMM): a (tx*tm) x (ty*tn) tile of (rows n,oh,ow) x (out channels) per
    256-invocation workgroup (tx*ty = 256), K in steps of bk; tx*tm and bk must divide 256."""
    source = Template(wgsl("conv2d")).substitute(TX=tx, TM=tm, TY=ty, TN=tn, BK=bk)
    return ("conv2d", tx, tm, ty, tn, bk), source, "wrrr"


# the kernel builders that cache their WGSL (set_float16_storage checks none has built one yet)
_CACHED = [f for f in list(globals().values()) if callable(getattr(f, "cache_info", None))]
