"""A decode step's rotary embedding and KV-cache writes as one kernel each on "webgpu" (rotary.wgsl).

Composed from ops, rotating q or k is four kernels (q * cos; rotate_half's negation and its
concatenation's second copy; * sin and the sum), and writing k and v into the static cache's row at
the device's position is three (two masked where()s over the whole cache and a copy): eleven kernels per
layer and token, where these make three. The arithmetic is the ops' (each product and the sum rounded
to the dtype as they round it)."""
import functools
from string import Template

from .._tensor import Tensor
from ..backend import gpu, kernels


@functools.lru_cache(maxsize=None)
def _kernel(dtype):
    source = kernels.wgsl("prelude") + kernels.store_fn("f32", dtype) + \
        Template(kernels.wgsl("rotary")).substitute(S=kernels.STORAGE[dtype])
    return ("rotary", dtype.name, kernels.stored(dtype)), source, "wrrrr"


def _run(out, out_offset, row_stride, x, cos, sin, position, flags):
    x = x.contiguous()
    rows, d = x.numel() // x.shape[-1], x.shape[-1]
    cos, sin = cos.contiguous(), sin.contiguous()
    buffers = [out, x._storage.buffer, cos._storage.buffer, sin._storage.buffer,
               (position if position is not None else x)._storage.buffer]
    meta = [rows, d, row_stride, flags, x._offset, cos._offset, sin._offset, out_offset]
    x._storage.runtime.run(_kernel(x.dtype), buffers, meta, -(-rows * d // 256))


def rotary(x, cos, sin):
    """x * cos + rotate_half(x) * sin over x's last dim (head_dim); cos, sin: (head_dim,) values (any
    leading size-1 dims) of x's dtype. A new contiguous tensor of x's shape."""
    out = gpu.empty(x.dtype, x.numel())
    _run(out.buffer, 0, x.shape[-1], x, cos, sin, None, 0)
    return Tensor(out, x.shape)


def write_row(cache, x, position, cos=None, sin=None):
    """cache[:, :, position] = x (rotated first when cos and sin are given), in place: cache (b, heads,
    capacity, head_dim) contiguous, x (b, heads, 1, head_dim), position a (1,) float32 device tensor."""
    capacity, d = cache.shape[-2], cache.shape[-1]
    _run(cache._storage.buffer, cache._offset, capacity * d, x, cos if cos is not None else x,
         sin if sin is not None else x, position, 2 | (cos is None))
    cache._storage.version += 1
