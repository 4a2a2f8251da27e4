"""The "meta" device: storages with a dtype and a size but no data.

Every primitive of the cpu/gpu backends is here with the same signature; each returns a storage of
the size its result has and launches nothing. Shapes, dtypes, broadcasting, type promotion and the
argument checks live above the backends (_ops and the modules over it), so every op runs its shape
logic unchanged on meta tensors, as torch's meta kernels do. Reading the values is the one thing
that cannot work: to_host raises torch's NotImplementedError, and Tensor.item torch's RuntimeError.
"""
import math

from .. import _dtypes as dt


class Storage:
    __slots__ = ("dtype", "numel", "version", "__weakref__")
    device_type = "meta"

    def __init__(self, dtype, numel):
        self.dtype, self.numel = dtype, numel
        self.version = 0  # bumped by every in-place write (autograd's saved-tensor check)


NO_DATA = "Cannot copy out of meta tensor; no data!"  # torch's message (nn.Module.to matches it)


def data_dependent(op):
    """torch's error for an op whose result's shape depends on the values (nonzero, unique, ...)."""
    return NotImplementedError(f"{op}: the result's shape depends on the values, which a meta tensor does not have "
                               "(torch's meta device refuses it too)")


def check_numel(dtype, numel):
    """No limit: nothing is allocated (a model too large for any host may be built on meta)."""


def empty(dtype, numel):
    return Storage(dtype, numel)


def from_host(dtype, values, exact=False):
    return Storage(dtype, len(values))


def from_bytes(dtype, data):
    return Storage(dtype, len(data) // dtype.itemsize)


def to_host(storage, offset, numel):
    raise NotImplementedError(NO_DATA)


def known_range(storage):
    """The range of no values, (inf, -inf): an index tensor on meta passes every bounds check, as
    torch's meta kernels check no index values."""
    return math.inf, -math.inf


def set_known_range(storage, low, high):
    pass


def elementwise(op, out, operands, computes):
    pass


def reduce(op, x, dims, acc_dtype, out_dtype, with_index):
    n_out = _numel(s for d, s in enumerate(x.shape) if d not in dims)
    return Storage(out_dtype, n_out), (Storage(dt.int64, n_out) if with_index else None)


def matmul(a, b, out_dtype):
    return Storage(out_dtype, _numel(a.shape[:-1]) * b.shape[-1])


def take(x, offsets):
    return Storage(x.dtype, offsets.numel())


def put(dst, offsets, src, accumulate):
    pass


def take_along(x, dim, index):
    return Storage(x.dtype, _numel(s for d, s in enumerate(x.shape) if d != dim) * index.numel())


def put_along(dst, dim, index, src, accumulate):
    pass


def scan(op, x):
    return Storage(x.dtype, x.numel())


def sort(x, descending):
    return Storage(x.dtype, x.numel()), Storage(dt.int64, x.numel())


def random(kind, n, seed, offset):
    return Storage(dt.int32 if kind == "bits" else dt.float32, n)


def layer_norm(x, weight, bias, eps):
    return Storage(x.dtype, x.numel())


def moments(x, dims):
    return Storage(dt.float64 if x.dtype is dt.float64 else dt.float32,
                   3 * _numel(x.shape[d] for d in range(x.dim()) if d not in dims))


def conv2d(x, weight, bias, stride, pads, dilation, groups, out_size):
    return Storage(x.dtype, x.shape[0] * weight.shape[0] * _numel(out_size))


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n

