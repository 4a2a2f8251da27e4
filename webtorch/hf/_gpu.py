"""A decode step's rotary embedding, KV-cache writes and attention as few kernels on "webgpu"
(rotary.wgsl, decode_attention.wgsl), and its norms folded into the quantized projections after them.

Composed from ops, rotating q or k is four kernels (q * cos; rotate_half's negation and its
concatenation's second copy; * sin and the sum), writing k and v into the static cache's row at the
device's position three (two masked where()s over the whole cache and a copy), and attending the
cache five more (q k^T and its scale, the mask, softmax, weights v): per layer and token, one kernel
attends, rotating q on the way, and writes the key (rotated) and the value into the cache (or, where
the adapter cannot bind that many buffers, one kernel writes them first). The arithmetic is the ops'
(each product and the sum rounded to the dtype as they round it; sums in f32 in another order)."""
import functools
import struct
from string import Template

from .. import _dtypes as dt
from .. import _ops
from .._tensor import Tensor, versions
from ..backend import gpu, kernels


@functools.lru_cache(maxsize=None)
def _kernel(dtype):
    source = kernels.wgsl("prelude") + kernels.store_fn("f32", dtype) + \
        Template(kernels.wgsl("rotary")).substitute(S=kernels.STORAGE[dtype])
    return ("rotary", dtype.name, kernels.stored(dtype)), source, "wrrrrwr"


def _run(out, out_offset, row_stride, x, cos, sin, position, flags, second=None):
    """second: (out2 buffer, its offset, x2) for flags 4."""
    x = x.contiguous()
    rows, d = x.numel() // x.shape[-1], x.shape[-1]
    cos, sin = cos.contiguous(), sin.contiguous()
    # without flags 4 nothing is written at out2: the runtime's own unused buffer (out there too would be one
    # buffer at two writable bindings, which WebGPU refuses)
    out2, out2_offset, x2 = second if second is not None else (x._storage.runtime.owned("unused output"), 0, x)
    x2 = x2.contiguous()
    buffers = [out, x._storage.buffer, cos._storage.buffer, sin._storage.buffer,
               (position if position is not None else x)._storage.buffer, out2, x2._storage.buffer]
    meta = [rows, d, row_stride, flags, x._offset, cos._offset, sin._offset, out_offset, x2._offset, out2_offset]
    x._storage.runtime.run(_kernel(x.dtype), buffers, meta, -(-rows * d * (2 if second else 1) // 256))


def rotary(x, cos, sin):
    """x * cos + rotate_half(x) * sin over x's last dim (head_dim); cos, sin: (head_dim,) values (any
    leading size-1 dims) of x's dtype. A new contiguous tensor of x's shape."""
    out = gpu.empty(x.dtype, x.numel())
    _run(out.buffer, 0, x.shape[-1], x, cos, sin, None, 0)
    return Tensor(out, x.shape)


def write_rows(cache_k, k, cache_v, v, position, cos, sin):
    """cache_k[:, :, position] = k rotated, cache_v[:, :, position] = v, in place, in one kernel: caches
    (b, kv_heads, capacity, head_dim) contiguous, k and v (b, kv_heads, 1, head_dim), position a (1,)
    float32 device tensor."""
    capacity, d = cache_k.shape[-2], cache_k.shape[-1]
    _run(cache_k._storage.buffer, cache_k._offset, capacity * d, k, cos, sin, position, 2 | 4,
         (cache_v._storage.buffer, cache_v._offset, v))
    versions(cache_k).version += 1
    versions(cache_v).version += 1


# decode_attention writes the token's key and value itself where it can (False: write_rows writes them
# first, two kernels: the reference the tests compare it with)
WRITES_IN_ATTENTION = True


def attends(head_dim):
    """Whether decode_attention takes this head size (its workgroup shares 256 invocations among whole rows)."""
    return head_dim <= 256 and 256 % head_dim == 0


# decode_attention.wgsl's dot products of the query with a key row, element by element or in vec4s: a cache
# row's (cache_k) and the token's own (ks), in the same arithmetic
_KEY_DOTS = {False: "  for (var k = 0u; k < D; k = k + 1u) {{ sum = fma(qs[k], {key}, sum); }}",
             True: """  for (var k = 0u; k < D; k = k + 4u) {{
    sum = sum + dot(vec4<f32>(qs[k], qs[k + 1u], qs[k + 2u], qs[k + 3u]), {key});
  }}"""}
_KEYS = {False: ("f32(cache_k[row + k])", "ks[k]"),
         True: ("vec4<f32>(cache_k[(row + k) / 4u])", "vec4<f32>(ks[k], ks[k + 1u], ks[k + 2u], ks[k + 3u])")}
# where the kernel writes the token's row: new_k and new_v bound, ks and vs filled (by the invocations
# li < D, partner its rotate_half source), and stored (by the first query head of each key/value head)
_NEW_INPUTS = """@group(0) @binding(8) var<storage, read> new_k: array<$S>;
@group(0) @binding(9) var<storage, read> new_v: array<$S>;"""
_NEW_ROWS = """    let krow = params[10] + kv_head * D;
    ks[li] = rotary(f32(new_k[krow + li]), f32(new_k[krow + partner]), li);
    vs[li] = f32(new_v[params[11] + kv_head * D + li]);"""
_STORE_KEY = {False: "    if (li < D) { cache_k[k0 + p * D + li] = wt_store(ks[li]); }",
              True: """    if (li < D / 4u) {
      let e = 4u * li;
      cache_k[(k0 + p * D) / 4u + li] = vec4<$S>(wt_store(ks[e]), wt_store(ks[e + 1u]), wt_store(ks[e + 2u]),
                                                 wt_store(ks[e + 3u]));
    }"""}
_STORE_VALUE = "    if (li < D) { cache_v[v0 + p * D + li] = new_v[params[11] + kv_head * D + li]; }"
# decode_attention.wgsl whole (one workgroup per head: each weight rounded, the sum rounded once into out) or
# one chunk of rows per workgroup (its f32 partials into a scratch buffer: decode_attention_combine.wgsl)
_FINISH = {False: dict(weight="f32(wt_store(wt_exp(s - mx) / total))", store="    out[(b * heads + h) * D + li] = wt_store(sum);"),
           True: dict(weight="wt_exp(s - mx)", store="""    let at = ((b * heads + h) * nwg.z + wid.z) * (D + 2u);
    out[at + li] = sum;
    if (li == 0u) {
      out[at + D] = mx;
      out[at + D + 1u] = total;
    }""")}
# Rows per workgroup where a cache's rows are split (one score per invocation), and at most this many
# chunks (longer caches take more rows per chunk): a cache of CHUNK_ROWS rows or fewer stays one kernel.
CHUNK_ROWS = 256
MAX_CHUNKS = 64


def chunk_rows(capacity):
    """The rows of each workgroup of decode_attention over a cache of `capacity` rows (capacity: unsplit)."""
    return CHUNK_ROWS * -(-capacity // (CHUNK_ROWS * MAX_CHUNKS)) if capacity > CHUNK_ROWS else capacity


@functools.lru_cache(maxsize=None)
def _attention_kernel(dtype, vec4, head_dim, writes, chunk):
    """vec4: cache_k read as vec4s (its rows start at multiples of 4 elements); writes: the kernel writes the
    token's key and value into the caches; chunk: rows per workgroup, its partials out (None: one workgroup
    per head over all rows)."""
    storage = kernels.STORAGE[dtype]
    split = chunk is not None
    snippets = dict(dot=_KEY_DOTS[vec4].format(key=_KEYS[vec4][0]), new_dot=_KEY_DOTS[vec4].format(key=_KEYS[vec4][1]),
                    new_inputs="", new_rows="", store_rows="", **_FINISH[split])
    if writes:
        snippets.update(new_inputs=_NEW_INPUTS, new_rows=_NEW_ROWS, store_rows=_STORE_VALUE + "\n" + _STORE_KEY[vec4])
    template = Template(Template(kernels.wgsl("decode_attention")).safe_substitute(snippets))  # they name $S too
    source = kernels.wgsl("prelude") + kernels.store_fn("f32", dtype) + template.substitute(
        S=storage, K=f"vec4<{storage}>" if vec4 else storage, D=head_dim, writes=str(writes).lower(),
        cache="read_write" if writes else "read", O="f32" if split else storage, CHUNK=chunk if split else 0xFFFFFFFF)
    access = "wr" + ("ww" if writes else "rr") + "rrr" + ("rr" if writes else "")
    return ("decode_attention", dtype.name, kernels.stored(dtype), vec4, head_dim, writes, chunk), source, access


@functools.lru_cache(maxsize=None)
def _combine_kernel(dtype, head_dim, chunk):
    source = kernels.wgsl("prelude") + kernels.store_fn("f32", dtype) + Template(
        kernels.wgsl("decode_attention_combine")).substitute(S=kernels.STORAGE[dtype], D=head_dim, CHUNK=chunk)
    return ("decode_attention_combine", dtype.name, kernels.stored(dtype), head_dim, chunk), source, "wrr"


def decode_attention(q, cos, sin, cache_k, cache_v, position, scale, k=None, v=None):
    """softmax((rotary(q) k^T) * scale over the cache rows 0 ..= position) v for one token per row: q (b,
    heads, 1, head_dim) not yet rotated, caches (b, kv_heads, capacity, head_dim) contiguous, heads a
    multiple of kv_heads. k and v (b, kv_heads, 1, head_dim), k not yet rotated: the token's key and value,
    written into the caches' row `position` by this kernel as write_rows writes them (and attended as
    written), where the adapter may bind 10 storage buffers; None where it may not. Without k and v,
    write_rows has written them. (b, heads, 1, head_dim). A cache of more than CHUNK_ROWS rows is attended
    in chunks of chunk_rows(capacity) rows, a workgroup each, joined by a second kernel: the chunks are
    fixed here (a recorded step replays them at every position), those past the position returning at once."""
    runtime = q._storage.runtime
    writes = k is not None
    if writes and runtime.limits["max_storage_buffers_per_shader_stage"] < 10:
        return None
    q, cos, sin = q.contiguous(), cos.contiguous(), sin.contiguous()
    b, heads, _, d = q.shape
    kv_heads, capacity = cache_k.shape[1], cache_k.shape[2]
    out = gpu.empty(q.dtype, q.numel())
    rows = chunk_rows(capacity)
    chunks = -(-capacity // rows)
    partials = gpu.empty(dt.float32, b * heads * chunks * (d + 2)) if chunks > 1 else out
    buffers = [partials.buffer, q._storage.buffer, cache_k._storage.buffer, cache_v._storage.buffer,
               cos._storage.buffer, sin._storage.buffer, position._storage.buffer]
    meta = [d, heads, kv_heads, capacity, q._offset, cos._offset, sin._offset,
            struct.unpack("<I", struct.pack("<f", scale))[0], cache_k._offset, cache_v._offset]
    if writes:
        k, v = k.contiguous(), v.contiguous()
        buffers += [k._storage.buffer, v._storage.buffer]
        meta += [k._offset, v._offset]
    vec4 = d % 4 == 0 and cache_k._offset % 4 == 0
    runtime.run(_attention_kernel(q.dtype, vec4, d, writes, rows if chunks > 1 else None), buffers, meta, (heads, b, chunks))
    if chunks > 1:
        runtime.run(_combine_kernel(q.dtype, d, rows), [out.buffer, partials.buffer, position._storage.buffer],
                    [heads, chunks], (heads, b, 1))
    if writes:
        versions(cache_k).version += 1
        versions(cache_v).version += 1
    return Tensor(out, q.shape)


# Whether fold computes a layer's RMSNorm inside the quantized GEMV after it (False: a norm kernel, then
# the GEMV; the same values bit for bit). Off: on the H200 (natively, bench/results/h200-native/decode-long)
# the folded GEMVs took 2.44 ms of GPU time per Llama-3.2-1B token against 0.98 + 0.54 for the GEMVs and the
# norm kernels apart (each of a GEMV's up to 1024 workgroups reads and reduces the whole row again): 311
# against 480 tok/s. An adapter whose kernels cost more to launch than that may gain from it.
FOLD_NORMS = False


def fold(norm, x, delta, layers, gated=False):
    """(x + delta, the layers' outputs of h = norm(x + delta)) from one GEMV kernel that computes the norm
    itself (ao/quantization/_gpu.py's RowNorm: the norm kernel's values bit for bit), without a norm kernel
    before it: a decode step's input norm and q, k, v projections (their outputs), its post-attention norm,
    residual add and gate and up projections (gated: silu(gate(h)) * up(h)), quantized layers (webtorch.ao)
    as projections takes them. norm: an RMSNorm; delta: None (norm(x), x its own sum) or x's shape. Each of
    the GEMV's workgroups reads the whole row again (from the cache): see FOLD_NORMS. None where it does not fold: FOLD_NORMS off, the norm
    not one kernel (_ops._rms_norm_in_one_kernel: cpu, bfloat16, gradients, autocast) or no GEMV for it
    (rows, bindings, workgroup memory)."""
    if not (FOLD_NORMS and _ops._rms_norm_in_one_kernel(x, 1, norm.weight, delta)):
        return None
    from ..ao.quantization import _gpu as quantized
    row_norm = quantized.RowNorm(norm.weight, norm.eps, delta)
    out = projections(x, layers, gated, row_norm)
    return None if out is None else (row_norm.sum, out)


def projections(x, layers, gated=False, norm=None):
    """The quantized layers' outputs of few rows of x (parts: side by side) from one GEMV kernel, or (gated)
    silu(first(x)) * second(x): the gated kernel, or where it does not apply (biases) the parts kernel and
    the ops after; norm: a RowNorm of x computed inside (ao/quantization/_gpu.py). None where no GEMV
    applies."""
    from ..ao.quantization import _gpu as quantized
    out = quantized.gated(x, *layers, norm=norm) if gated else None
    if out is None:
        out = quantized.parts(x, layers, norm=norm)
        if gated and out is not None:
            out = _ops.silu(out[0]) * out[1]
    return out
