"""A decode step's rotary embedding, KV-cache writes and attention as few kernels on "webgpu"
(rotary.wgsl, decode_attention.wgsl).

Composed from ops, rotating q or k is four kernels (q * cos; rotate_half's negation and its
concatenation's second copy; * sin and the sum), writing k and v into the static cache's row at the
device's position three (two masked where()s over the whole cache and a copy), and attending the
cache five more (q k^T and its scale, the mask, softmax, weights v): per layer and token, one kernel
writes the key (rotated) and the value, and one attends (rotating q on the way). The arithmetic is the
ops' (each product and the sum rounded to the dtype as they round it; sums in f32 in another order)."""
import functools
import struct
from string import Template

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


def attends(head_dim):
    """Whether decode_attention takes this head size (its workgroup shares 256 invocations among whole rows)."""
    return head_dim <= 256 and 256 % head_dim == 0


# decode_attention.wgsl's dot product of the query with a key row: element by element, or in vec4s
_KEY_DOTS = {False: "  for (var k = 0u; k < D; k = k + 1u) { sum = fma(qs[k], f32(cache_k[row + k]), sum); }",
             True: """  for (var k = 0u; k < D; k = k + 4u) {
    sum = sum + dot(vec4<f32>(qs[k], qs[k + 1u], qs[k + 2u], qs[k + 3u]), vec4<f32>(cache_k[(row + k) / 4u]));
  }"""}


@functools.lru_cache(maxsize=None)
def _attention_kernel(dtype, vec4, head_dim):
    """vec4: cache_k read as vec4s (its rows start at multiples of 4 elements)."""
    storage = kernels.STORAGE[dtype]
    source = kernels.wgsl("prelude") + kernels.store_fn("f32", dtype) + Template(kernels.wgsl("decode_attention")).substitute(
        S=storage, K=f"vec4<{storage}>" if vec4 else storage, dot=_KEY_DOTS[vec4], D=head_dim)
    return ("decode_attention", dtype.name, kernels.stored(dtype), vec4, head_dim), source, "wrrrrrr"


def decode_attention(q, cos, sin, cache_k, cache_v, position, scale):
    """softmax((rotary(q) k^T) * scale over the cache rows 0 ..= position) v for one token per row: q (b,
    heads, 1, head_dim) not yet rotated, caches (b, kv_heads, capacity, head_dim) contiguous with this
    token's key and value written (write_rows), heads a multiple of kv_heads. (b, heads, 1, head_dim)."""
    q, cos, sin = q.contiguous(), cos.contiguous(), sin.contiguous()
    b, heads, _, d = q.shape
    kv_heads, capacity = cache_k.shape[1], cache_k.shape[2]
    out = gpu.empty(q.dtype, q.numel())
    buffers = [out.buffer, q._storage.buffer, cache_k._storage.buffer, cache_v._storage.buffer,
               cos._storage.buffer, sin._storage.buffer, position._storage.buffer]
    meta = [d, heads, kv_heads, capacity, q._offset, cos._offset, sin._offset,
            struct.unpack("<I", struct.pack("<f", scale))[0], cache_k._offset, cache_v._offset]
    vec4 = d % 4 == 0 and cache_k._offset % 4 == 0
    q._storage.runtime.run(_attention_kernel(q.dtype, vec4, d), buffers, meta, (heads, b, 1))
    return Tensor(out, q.shape)
