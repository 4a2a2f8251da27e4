"""Indexing with tensors: advanced __getitem__/__setitem__, gather/scatter and friends, nonzero.

Two primitives do all of it: `take` (out[i] = storage[offsets[i]]) and `put` (storage[offsets[i]]
= or += src[i]). Each op computes the element offsets of what it reads or writes with
elementwise integer math over broadcast index tensors, then makes one take or put.

Slices along one dim picked by an index vector (index_select, F.embedding) have a primitive of
their own, `take_along`: one gather kernel that reads the index vector directly, with no offsets
tensor (whose size would be the result's) and no kernels to build one.

Out-of-range indices raise like PyTorch's CPU. On "webgpu" an index tensor uploaded from the host
(torch.tensor(ids, device=...), .to(device), arange) carries the range of its values until a
kernel writes into it, and is checked against that on the host, without touching the GPU. Other
index tensors (computed on the GPU) cost one flag read back from the GPU (a sync): PyTorch's CUDA
asserts on the device instead, which WebGPU cannot do.
"""
import builtins
import math
import sys

from . import _complex
from . import _dtypes as dt
from . import _tape
from . import _ops
from ._autocast import autocast_op
from ._ops import (_device_of, _empty, _getitem, _is_tensor, _setitem, _wrap_dim, add, broadcast_shapes,
                   cast, elementwise, expand, mul, remainder, reshape, tensor, where)
from ._tensor import _TYPE_NAMES, Tensor, backend, versions
from .backend import meta

__all__ = ["gather", "take_along_dim", "scatter", "scatter_add", "index_select", "index_add", "index_put",
           "index_put_", "masked_fill", "masked_select", "nonzero", "argwhere", "where", "take", "put", "index_fill",
           "scatter_reduce", "index_copy", "masked_scatter", "nonzero_static", "index_reduce"]


def _iota(n, stride, pos, ndim, device_type):
    """arange(n) * stride, shaped to broadcast along position pos of ndim dims."""
    shape = [1] * ndim
    shape[pos] = n
    return _ops.tensor([i * stride for i in range(n)], dtype=dt.int64, device=device_type).reshape(shape)


def _check_index_dtype(idx, name=None):
    if idx.dtype.is_floating_point:
        if name is None:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")


def _check_bounds(checks, exc=IndexError, message=None, negative=True):
    """checks: (index tensor, dim size, dim); negative: whether -size <= index < 0 is allowed;
    message: a format string of value, dim and size. One readback for all of them."""
    checks = [(i, s, d) for i, s, d in checks if i.numel() and not _known_in_range(i, -s if negative else 0, s)]
    if not checks:
        return
    flags = [_ops.any(elementwise("logical_or", elementwise("lt", i, -s if negative else 0), elementwise("ge", i, s)))
             for i, s, _ in checks]
    flag = flags[0]
    for f in flags[1:]:
        flag = elementwise("logical_or", flag, f)
    if not flag.item():
        return
    for i, size, d in checks:
        for v in reshape(i, -1).tolist():
            if not (-size if negative else 0) <= v < size:
                raise exc(message.format(v) if message else f"index {v} is out of bounds for dimension {d} with size {size}")


def _known_in_range(idx, low, high):
    """Whether idx's values are known, without reading the GPU, to lie in [low, high)."""
    known = backend(idx.device.type).known_range(idx._storage)
    return known is not None and low <= known[0] and known[1] < high


def _wrapped(idx, size):
    """Negative indices counted from the end (in range, after _check_bounds)."""
    return remainder(idx, size) if size else idx


def _sum_offsets(base, terms, shape):
    offsets = add(terms[0], base)
    for t in terms[1:]:
        offsets = add(offsets, t)
    return expand(offsets, *shape)


def _pair_offsets(offsets):
    """A complex tensor's storage offsets as those of its (real, imaginary) pairs: a last dim of 2."""
    return add(mul(reshape(offsets, *offsets.shape, 1), 2), tensor([0, 1], device=offsets.device))


def _gradable(x):
    """x, or where it requires grad and is expanded (stride 0 over a dim of more than one) a contiguous copy:
    offsets into x's storage would merge the gradients of the elements that share a storage element."""
    if _tape.is_grad_enabled() and x.requires_grad and any(st == 0 and n > 1 for n, st in zip(x.shape, x._stride)):
        return _ops.contiguous(x)
    return x


def _take(x, offsets):
    """x's storage elements at offsets (a tensor of storage offsets), shaped like offsets."""
    if x.dtype.is_complex:
        return _complex.view_as_complex(_take(_complex.view_as_real(x), _pair_offsets(offsets)))
    out = Tensor(backend(x.device.type).take(x, offsets), offsets.shape)
    if _tape.is_grad_enabled() and x.requires_grad and any(st == 0 and n > 1 for n, st in zip(x.shape, x._stride)):
        raise NotImplementedError("webtorch: indexing an expanded (stride 0) tensor that requires grad is not "
                                  "supported; call .contiguous() first")
    return _tape.record("take", out, (x,), offsets=offsets)


def _take_along(x, dim, index, skip=None):
    """x's slices along dim at index (a 1-D int tensor, checked in range, non-negative): dim's size
    becomes index's length. skip: an index whose slices get no gradient (embedding's padding_idx)."""
    if x.dtype.is_complex:
        return _complex.view_as_complex(_take_along(_complex.view_as_real(x), dim, index, skip))
    if index.device.type != x.device.type:
        index = index.to(x.device.type)
    shape = list(x.shape)
    shape[dim] = index.shape[0]
    out = Tensor(backend(x.device.type).take_along(x, dim, index), tuple(shape))
    return _tape.record("take_along", out, (x, index), dim=dim, skip=skip)


def _put(x, offsets, src, accumulate=False):
    """x's elements at offsets = (or +=) src, broadcast to offsets' shape and cast to x's dtype."""
    if offsets.numel() == 0:
        return x
    if x.dtype.is_complex:
        if _tape.is_grad_enabled() and (x.requires_grad or (_is_tensor(src) and src.requires_grad)):
            raise NotImplementedError("webtorch: an indexed write into a complex tensor that requires grad is not "
                                      "supported")
        src = src if _is_tensor(src) else _ops.full((), src, dtype=x.dtype, device=x.device)
        _put(_complex.pairs(x), _pair_offsets(offsets), _complex.pairs(_ops.contiguous(cast(src, x.dtype))),
             accumulate)
        versions(x).version += 1
        return x
    if _is_tensor(src):
        if src.device.type != x.device.type:
            src = src.to(x.device.type)
        while src.dim() > offsets.dim() and src.shape[0] == 1:  # torch drops a value's leading 1s
            src = src[0]
        src = expand(cast(src, x.dtype), *offsets.shape)
    else:
        src = _ops.full(offsets.shape, src, dtype=x.dtype, device=x.device)
    # The history belongs to the tensor that owns the storage the offsets index.
    owner = x._base if x._base is not None else x
    tracking = _tape.is_grad_enabled() and (owner.requires_grad or src.requires_grad)
    if tracking:
        _tape.check_inplace(owner)
        if not owner.is_contiguous():
            raise NotImplementedError("webtorch: an indexed write into a non-contiguous tensor that requires grad is "
                                      "not supported; write into a .contiguous() copy")
        old = _tape.alias(owner)
    backend(x.device.type).put(x, offsets, src, accumulate)
    versions(x).version += 1
    if tracking:
        owner.grad_fn = _tape.Node("put", (old, src), owner, dict(offsets=offsets, accumulate=accumulate),
                                      _tape.BACKWARD["put"])
        owner.requires_grad = True
    return x


# -- advanced __getitem__ / __setitem__ ------------------------------------------------------
def _is_sequence_index(i):
    """A list, range or numpy array (of 1 or more dims) as an index: torch indexes with the tensor made of it."""
    np = sys.modules.get("numpy")
    return isinstance(i, (list, range)) or (np is not None and isinstance(i, np.ndarray) and i.ndim > 0)


def _is_advanced(index):
    items = index if isinstance(index, tuple) else (index,)
    return builtins.any(_is_tensor(i) or _is_sequence_index(i) for i in items)


def _parse(x, index):
    """Basic indexing first (a view v), plus [(dim of v, index tensor)] for the advanced part."""
    items = []
    for i in (index if isinstance(index, tuple) else (index,)):
        if isinstance(i, range) or isinstance(i, list) and not i:  # an empty sequence indexes as int64
            i = tensor(list(i), dtype=dt.int64, device=x.device)
        elif _is_sequence_index(i):
            i = tensor(i, device=x.device)
        elif _is_tensor(i) and i.device.type != x.device.type and i.dtype is not dt.bool_:
            i = i.to(x.device.type)  # a mask's coordinates are found where its values are (a meta x, a cpu mask)
        items.append(i)
    used = builtins.sum(i.dim() if _is_tensor(i) and i.dtype is dt.bool_ else 1
                        for i in items if i is not None and i is not Ellipsis)
    if used > x.dim():
        raise IndexError(f"too many indices for tensor of dimension {x.dim()}")
    if Ellipsis in [i for i in items if not _is_tensor(i)]:
        at = [k for k, i in enumerate(items) if not _is_tensor(i) and i is Ellipsis][0]
        items[at:at + 1] = [slice(None)] * (x.dim() - used)
    basic, adv, empty_dims, d, src = [], [], [], 0, 0
    for i in items:
        if i is None or isinstance(i, slice):
            basic.append(i)
            d, src = d + 1, src + (i is not None)
        elif _is_tensor(i) and i.dtype is dt.bool_ and i.dim() == 0:
            basic.append(None)  # True adds a dim of size 1, False one of size 0
            if not i.item():
                empty_dims.append(d)
            d += 1
        elif _is_tensor(i) and i.dtype is dt.bool_:
            for k in range(i.dim()):
                if i.shape[k] != x.shape[src + k]:
                    raise IndexError(f"The shape of the mask {list(i.shape)} at index {k} does not match the shape "
                                     f"of the indexed tensor {list(x.shape)} at index {src + k}")
            for k, coords in enumerate(nonzero(i, as_tuple=True)):
                basic.append(slice(None))
                adv.append((d + k, coords.to(x.device.type)))
            d, src = d + i.dim(), src + i.dim()
        elif _is_tensor(i):
            _check_index_dtype(i)
            basic.append(slice(None))
            adv.append((d, i))
            d, src = d + 1, src + 1
        else:
            basic.append(i)
            src += 1
    v = _getitem(x, tuple(basic))
    for e in empty_dims:
        v = _ops.narrow(v, e, 0, 0)
    return v, adv


def _advanced_offsets(v, adv):
    """Offsets into v's storage of v[advanced indices], shaped like PyTorch's result."""
    dims = [d for d, _ in adv]
    try:
        bshape = list(broadcast_shapes(*[i.shape for _, i in adv]))
    except RuntimeError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes " +
                         ", ".join(str(list(i.shape)) for _, i in adv)) from None
    rest = [d for d in range(v.dim()) if d not in dims]
    if dims == list(range(dims[0], dims[0] + len(dims))):  # adjacent: the result keeps them in place
        before, after = [d for d in rest if d < dims[0]], [d for d in rest if d > dims[-1]]
    else:  # separated: the broadcast index dims go first
        before, after = [], rest
    shape = [v.shape[d] for d in before] + bshape + [v.shape[d] for d in after]
    if math.prod(shape):  # as torch, which checks an index as it reads through it: never for an empty result
        _check_bounds([(i, v.shape[d], d) for d, i in adv])
    term = None
    for d, i in adv:
        t = mul(_wrapped(i, v.shape[d]), v._stride[d])
        term = t if term is None else add(term, t)
    term = reshape(term, [1] * len(before) + bshape + [1] * len(after))
    device = v.device.type
    terms = [term] + [_iota(v.shape[d], v._stride[d], p, len(shape), device) for p, d in enumerate(before)]
    terms += [_iota(v.shape[d], v._stride[d], len(before) + len(bshape) + p, len(shape), device)
              for p, d in enumerate(after)]
    return _sum_offsets(v._offset, terms, shape)


def getitem(x, index):
    if not _is_advanced(index):
        return _getitem(x, index)
    v, adv = _parse(x, index)
    if not adv:
        return v
    v = _gradable(v)
    return _take(v, _advanced_offsets(v, adv))


def _check_assignable(x, value):
    """torch's x[...] = value takes a numpy integer or np.float64 (a Python float) as a number, and no
    other numpy scalar or array (TypeError)."""
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, (np.ndarray, np.generic)) \
            and not isinstance(value, (np.integer, float)):
        raise TypeError(f"can't assign a numpy.{type(value).__name__} to a torch.{_TYPE_NAMES[x.dtype.name]}Tensor")


def setitem(x, index, value):
    _check_assignable(x, value)
    if not _is_advanced(index):
        return _setitem(x, index, value)
    items = index if isinstance(index, tuple) else (index,)
    mask = items[0] if len(items) == 1 and _is_tensor(items[0]) and items[0].dtype is dt.bool_ else None
    if mask is not None and mask.dim() and (not _is_tensor(value) or value.numel() == 1) \
            and tuple(mask.shape) == tuple(x.shape[:mask.dim()]):
        # x[mask] = scalar: a masked select-and-write, no nonzero (which would read the count back)
        m = reshape(mask.to(x.device.type), list(mask.shape) + [1] * (x.dim() - mask.dim()))
        _ops.write_(x, where(m, cast(reshape(value, ()), x.dtype) if _is_tensor(value) else dt.checked_convert(value, x.dtype), x))
        return
    v, adv = _parse(x, index)
    if not adv:
        _ops.write_(v, value)
    else:
        _put(v, _advanced_offsets(v, adv), value)
    _tape.refresh_view(x)


def index_put_(x, indices, values, accumulate=False):
    v, adv = _parse(x, tuple(indices))
    if not adv:
        _ops.write_(v, add(v, values) if accumulate else values)
        return x
    _put(v, _advanced_offsets(v, adv), values, accumulate)
    return x


@autocast_op
def index_put(x, indices, values, accumulate=False):
    return index_put_(_ops.clone(x), indices, values, accumulate)


# -- along one dim ---------------------------------------------------------------------------
def _along_offsets(t, shape, dim, index):
    """Offsets into t of the positions of `shape` whose coordinate along dim is index's value."""
    device = t.device.type
    terms = [mul(index, t._stride[dim])] + [_iota(shape[d], t._stride[d], d, len(shape), device)
                                            for d in range(len(shape)) if d != dim]
    return _sum_offsets(t._offset, terms, shape)


def _check_along(name, x, dim, index, other=None):
    _check_index_dtype(index, name)
    if index.dim() != x.dim() and index.numel() and x.dim():
        raise RuntimeError("Index tensor must have the same number of dimensions as "
                           f"{'self' if name != 'gather' else 'input'} tensor")
    if x.dim() and index.dim():
        for d in range(x.dim()):
            if d != dim and index.shape[d] > x.shape[d]:
                raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index.shape)} to be "
                                   f"no larger than {'self' if name != 'gather' else 'input'} {list(x.shape)} apart "
                                   f"from dimension {dim}")
            if other is not None and index.shape[d] > other.shape[d]:
                raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self {list(x.shape)} "
                                   f"apart from dimension {dim} and to be no larger size than src "
                                   f"{list(other.shape)}")
    _check_bounds([(index, x.shape[dim] if x.dim() else 1, dim)], RuntimeError, negative=False)
    return index


def gather(x, dim, index):
    d = _wrap_dim(dim, x.dim())
    return _gather(x, d, _check_along("gather", x, d, index))


def _gather(x, d, index):
    """gather along dim d of an index already checked."""
    x = _gradable(x)
    if x.dim() == 0:
        return _take(x, _sum_offsets(x._offset, [mul(index, 0)], index.shape))
    return _take(x, _along_offsets(x, index.shape, d, index))


def take_along_dim(x, indices, dim=None):
    """gather with broadcasting; unlike gather, negative indices count from the end."""
    if dim is None:
        x, indices, dim = reshape(x, -1), reshape(indices, -1), 0
    d = _wrap_dim(dim, x.dim(), scalar_ok=False)
    _check_index_dtype(indices, "take_along_dim")
    _check_bounds([(indices, x.shape[d], d)], RuntimeError)
    indices = _wrapped(indices, x.shape[d])
    if x.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {x.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    xs, ids = list(x.shape), list(indices.shape)
    xs[d] = ids[d] = 1
    shape = list(broadcast_shapes(xs, ids))
    return gather(expand(x, *shape[:d], x.shape[d], *shape[d + 1:]), d,
                  expand(indices, *shape[:d], indices.shape[d], *shape[d + 1:]))


_SCATTER_REDUCE = {None: False, "add": "sum", "multiply": "prod"}


def _scatter_offsets(name, x, dim, index, src):
    """(offsets of the positions index names along dim, src cut to index's shape)."""
    d = _wrap_dim(dim, x.dim())
    index = _check_along(name, x, d, index, src if _is_tensor(src) else None)
    if _is_tensor(src) and src.dim():
        src = src[tuple(slice(0, s) for s in index.shape)]
    if x.dim() == 0:
        return _sum_offsets(x._offset, [mul(index, 0)], index.shape), src
    return _along_offsets(x, index.shape, d, index), src


def scatter_(x, dim, index, src=None, reduce=None, *, value=None):
    if src is None:
        src = value
    if reduce not in _SCATTER_REDUCE:
        raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")
    offsets, src = _scatter_offsets("scatter", x, dim, index, src)
    if offsets.numel() == 0:
        return x
    if reduce == "multiply" and _tape.is_grad_enabled() and (x.requires_grad or _is_tensor(src) and
                                                                 src.requires_grad):
        raise NotImplementedError("webtorch: scatter(reduce='multiply') has no gradient (torch's has none either)")
    return _put(x, offsets, src, _SCATTER_REDUCE[reduce])


def scatter(x, dim, index, src=None, reduce=None, *, value=None):
    return scatter_(_ops.clone(x), dim, index, src, reduce, value=value)


_IDENTITY = {"sum": 0, "mean": 0, "prod": 1}


def scatter_reduce(x, dim, index, src, reduce, *, include_self=True):
    """x's positions named by index (along dim) reduced with src's: sum, prod, mean, amax, amin
    (a reducing put into a copy of x); include_self=False starts each such position from the
    reduction's identity. Gradients: sum and mean through the put; amax/amin evenly to every input
    equal to the result (torch's rule); prod has none here."""
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    out = _ops.clone(x)  # contiguous from element 0: the offsets below index it and its likes
    offsets, src = _scatter_offsets("scatter_reduce", out, dim, index, src)
    if reduce == "mean" and x.dtype is dt.bool_:
        raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
    tracking = _tape.is_grad_enabled() and (x.requires_grad or src.requires_grad)
    if reduce == "prod" and tracking:
        raise NotImplementedError("webtorch: scatter_reduce(reduce='prod') has no gradient yet")
    if offsets.numel() == 0:
        return out
    if reduce in ("amax", "amin"):
        return _scatter_extreme(x, out, offsets, src, reduce, include_self, tracking)
    if not include_self:
        _put(out, offsets, _IDENTITY[reduce])
    if reduce != "mean":
        return _put(out, offsets, src, reduce)
    counts = _ops.full(x.shape, 1 if include_self else 0, dtype=x.dtype, device=x.device)
    with _tape.no_grad():
        _put(counts, offsets, 1, "sum")
    total = _put(out, offsets, src, "sum")
    counts = where(_ops.eq(counts, 0), 1, counts)
    return _ops.div(total, counts) if x.dtype.is_floating_point else _ops.floor_divide(total, counts)


def _extreme_identity(x, reduce):
    """The value amax (amin) starts from: the least (greatest) value of x's dtype."""
    if x.dtype is dt.bool_:
        low, high = False, True
    elif x.dtype.is_floating_point:
        low, high = -math.inf, math.inf
    else:
        low, high = dt.iinfo(x.dtype).min, dt.iinfo(x.dtype).max
        if x.device.type == "webgpu":  # int64 is held as i32 there
            low, high = builtins.max(low, -2 ** 31), builtins.min(high, 2 ** 31 - 1)
    return low if reduce == "amax" else high


def _scatter_extreme(x, out, offsets, src, reduce, include_self, tracking):
    with _tape.no_grad():
        result = out.detach()
        if not include_self:
            _put(result, offsets, _extreme_identity(x, reduce))
        _put(result, offsets, src, reduce)
    if not tracking:
        return result
    # value: result; gradient: split evenly among the inputs equal to it (self included or not)
    src = _ops.expand(cast(src, x.dtype), *offsets.shape)
    src_hit = cast(_ops.eq(src, _take(result, offsets)), x.dtype)
    self_hit = cast(_ops.eq(x, result), x.dtype)
    with _tape.no_grad():  # as torch, self counts in the split even when include_self=False
        counts = _ops.clone(self_hit)
        _put(counts, offsets, src_hit, "sum")
    if not include_self:  # ... but gets no gradient where src was scattered
        touched = _ops.zeros(x.shape, dtype=dt.bool_, device=x.device)
        _put(touched, offsets, True)
        self_hit = where(touched, 0.0, self_hit)
    weighted = _put(_ops.zeros(x.shape, dtype=x.dtype, device=x.device), offsets, mul(src, src_hit), "sum")
    counts = where(_ops.eq(counts, 0), 1.0, counts)
    blend = _ops.div(add(mul(x, self_hit), weighted), counts)
    return add(result, _ops.sub(blend, blend.detach()))


def scatter_reduce_(x, dim, index, src, reduce, *, include_self=True):
    return _ops.write_(x, scatter_reduce(x, dim, index, src, reduce, include_self=include_self))


def scatter_add_(x, dim, index, src):
    return scatter_(x, dim, index, src, reduce="add")


@autocast_op
def scatter_add(x, dim, index, src):
    return scatter_(_ops.clone(x), dim, index, src, reduce="add")


def _select_index(name, x, dim, index):
    if index.dim() > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    _check_index_dtype(index, name)
    return reshape(index, -1)


def index_select(x, dim, index):
    d = _wrap_dim(dim, x.dim())
    index = _select_index("index_select", x, d, index)
    if x.dim() == 0:  # torch: a 0-d result, from an index of one value
        if index.numel() != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
        _check_bounds([(index, 1, 0)], IndexError, "index out of range in self", negative=False)
        return reshape(_take(x, _sum_offsets(x._offset, [mul(index, 0)], index.shape)), ())
    _check_bounds([(index, x.shape[d], d)], IndexError, "index out of range in self", negative=False)
    return _take_along(x, d, index)


def _put_along_dim(x, d, index, src, accumulate=False):
    """x's slices along dim d at the (in-range, non-negative) index vector = (or +=) src's slices."""
    if x.dim() == 0:
        return _put(x, _sum_offsets(x._offset, [mul(index, 0)], index.shape), src, accumulate)
    shape = list(x.shape)
    shape[d] = index.shape[0]
    idx = expand(reshape(index, [1] * d + [-1] + [1] * (x.dim() - d - 1)), *shape)
    return _put(x, _along_offsets(x, shape, d, idx), src, accumulate)


def index_add_(x, dim, index, source, alpha=1):
    d = _wrap_dim(dim, x.dim())
    index = _select_index("index_add", x, d, index)
    if _is_tensor(source) and source.dim() and x.dim():
        if source.dim() != x.dim() or builtins.any(a != b for i, (a, b) in enumerate(zip(x.shape, source.shape)) if i != d):
            raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified "
                               f"dimension. Got self.shape = {list(x.shape)} source.shape = {list(source.shape)}")
        if source.shape[d] != index.numel():
            raise RuntimeError(f"index_add_(): Number of indices ({index.numel()}) should be equal to "
                               f"source.size(dim): ({source.shape[d]}), for dim: {dim}")
    size = x.shape[d] if x.dim() else 1
    if x.dim() <= 1:  # torch's check differs by rank
        _check_bounds([(index, size, d)], IndexError, "index out of range in self", negative=False)
    else:
        _check_bounds([(index, size, d)], RuntimeError, negative=False)
    return _put_along_dim(x, d, index, source if alpha == 1 else mul(source, alpha), True)


def index_add(x, dim, index, source, alpha=1):
    return index_add_(_ops.clone(x), dim, index, source, alpha=alpha)


def index_fill_(x, dim, index, value):
    d = _wrap_dim(dim, x.dim())
    index = _select_index("index_fill", x, d, index)
    if _is_tensor(value) and value.dim():
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    if not x.dtype.is_complex and (value.dtype.is_complex if _is_tensor(value) else isinstance(value, complex)):
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    size = x.shape[d] if x.dim() else 1
    _check_bounds([(index, size, d)], IndexError, negative=True)
    index = _wrapped(index, size)
    return _put_along_dim(x, d, index, value)


def index_copy_(x, dim, index, source):
    """x's slices along dim at index = source's slices in order, through the indexed write (its autograd: x's
    gradient without the overwritten slices, source's the gradient there). A repeated index writes one of
    its slices (torch leaves which undefined)."""
    if index.dim() > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.dim()})")
    if index.dtype is not dt.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {_TYPE_NAMES[index.dtype.name]}")
    if source.dtype is not x.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_TYPE_NAMES[x.dtype.name]} and (source) {_TYPE_NAMES[source.dtype.name]}")
    d = _wrap_dim(dim, x.dim())
    index = reshape(index, -1)
    if x.dim() and source.dim():
        if source.dim() != x.dim():
            raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality "
                             f"must match. Source dimensionality ({source.dim()}), destination dimensionality "
                             f"({x.dim()})")
        if builtins.any(a != b for i, (a, b) in enumerate(zip(x.shape, source.shape)) if i != d):
            sliced = [" ".join(str(n) for i, n in enumerate(t.shape) if i != d) for t in (x, source)]
            raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                               f"slice shape: {sliced[0]} at dimension {d} and source slice shape: {sliced[1]} at "
                               f"dimension 0.")
    if index.numel() != (source.shape[d] if source.dim() else 1):
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal to source.size(dim) "
                         f"({source.shape[d] if source.dim() else 1})")
    size = x.shape[d] if x.dim() else 1
    _check_bounds([(index, size, d)], IndexError, f"index_copy_(): index {{}} is out of bounds for dimension {d} "
                                                  f"with size {size}", negative=False)
    return _put_along_dim(x, d, index, source)


def index_copy(x, dim, index, source):
    return index_copy_(_ops.clone(x), dim, index, source)


def index_fill(x, dim, index, value):
    return index_fill_(_ops.clone(x), dim, index, value)


def _flat_offsets(x, index):
    """Storage offsets of x's elements at row-major flat positions `index` (negative from the end)."""
    n = x.numel()
    _check_index_dtype(index, "take")
    _check_bounds([(index, n, 0)], IndexError,
                  message="out of range: tried to access index {} on a tensor of " + f"{n} elements.")
    flat = _wrapped(index, n)
    offsets, stride = None, 1
    for size, st in zip(reversed(x.shape), reversed(x._stride)):
        term = mul(remainder(_ops.floor_divide(flat, stride), size), st)
        offsets = term if offsets is None else add(offsets, term)
        stride *= size
    return add(offsets, x._offset) if offsets is not None else add(mul(flat, 0), x._offset)


def take(x, index):
    x = _gradable(x)
    return _take(x, _flat_offsets(x, index))


def put_(x, index, source, accumulate=False):
    if index.numel() != (source.numel() if _is_tensor(source) else 1):
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    return _put(x, reshape(_flat_offsets(x, index), -1), reshape(source, -1) if _is_tensor(source) else source,
                accumulate)


def put(x, index, source, accumulate=False):
    return put_(_ops.clone(x), index, source, accumulate)


# -- masks -----------------------------------------------------------------------------------
def _check_mask(mask, value=None):
    if mask.dtype is not dt.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype.name if mask.dtype is not dt.int64 else 'long int'}")
    if _is_tensor(value) and value.dim():
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")


def masked_fill(x, mask, value):
    """value cast to x's dtype first, as torch (through a float32 where, 2^31 - 1 in int64 came back 2^31).
    A complex value tensor into a real x is read as torch reads it, a number checked_convert takes."""
    _check_mask(mask, value)
    if _is_tensor(value) and value.dtype.is_complex and not x.dtype.is_complex:
        value = value.item()
    value = cast(value, x.dtype) if _is_tensor(value) else dt.checked_convert(value, x.dtype)
    return cast(where(mask, value, x), x.dtype)


def masked_select(x, mask):
    if mask.dtype is not dt.bool_:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(x.shape, mask.shape)
    return getitem(expand(x, *shape), expand(mask, *shape))


def index_reduce(x, dim, index, source, reduce, *, include_self=True):
    """x's slices along dim named by index reduced with source's (prod, mean, amax, amin): scatter_reduce
    with index spread over the other dims."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if index.dim() > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
                         f"{_TYPE_NAMES[index.dtype.name]} and size: {list(index.shape)}")
    if index.dtype not in (dt.int32, dt.int64):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{_TYPE_NAMES[index.dtype.name]}")
    if x.dim() == 0:  # a 0-d x (and source) as one element along dim 0
        return reshape(index_reduce(reshape(x, 1), dim, index, reshape(source, 1) if source.dim() == 0 else source,
                                    reduce, include_self=include_self), ())
    d = _wrap_dim(dim, x.dim())
    if source.dim() and index.numel() != source.shape[d]:
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({source.shape[d]}), for dim: {d}")
    if index.numel() and bool(_ops.logical_or(_ops.ge(index, x.shape[d] if x.dim() else 1), _ops.lt(index, 0)).any()):
        raise IndexError("index out of range in self")  # torch takes no negative index here
    if x.dtype is dt.bool_:
        raise NotImplementedError(f"\"{'index_func_' if include_self else 'index_reduce_func_exclude_input_init'}\" "
                                  f"not implemented for 'Bool'")
    spread = reshape(index, [-1 if k == d else 1 for k in range(source.dim())]) if source.dim() else index
    return scatter_reduce(x, d, expand(spread, *source.shape), source, reduce, include_self=include_self)


def masked_scatter(x, mask, source):
    """x (broadcast with mask) with its elements where mask is True taken from source's first ones, in order."""
    if mask.dtype is not dt.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_ops._tname(mask.dtype).capitalize()}")
    shape = broadcast_shapes(x.shape, mask.shape)
    mask = expand(mask, *shape)
    count = int(_ops.sum(mask).item()) if mask.numel() else 0
    if source.numel() < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    out = _ops.clone(expand(x, *shape))
    return index_put_(out, (mask,), reshape(source, -1)[:count])


def nonzero_static(x, *, size, fill_value=-1):
    """nonzero's coordinates, cut or padded with fill_value to size rows."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got {size}")
    found = nonzero(x)[:size]
    pad = _ops.full((size - found.shape[0], x.dim()), fill_value, dtype=dt.int64, device=x.device)
    return _ops.cat([found, pad], 0)


def nonzero(x, as_tuple=False):
    """Coordinates of the nonzero elements. Computed on the device: a cumsum of the nonzero flags
    gives each element's output slot; only the count is read back (the result's shape)."""
    if x.is_meta:
        raise meta.data_dependent("nonzero")
    flags = cast(cast(reshape(x, -1), dt.bool_), dt.int64)
    n = flags.numel()
    device = x.device.type
    if n:
        slots = _ops.sub(Tensor(backend(device).scan("sum", flags), (n,)), 1)
        count = slots[-1].item() + 1
    else:
        count = 0
    linear = _empty((count + 1,), dt.int64, device)  # the extra slot takes the zero elements' writes
    if n:
        positions = _ops.arange(n, device=device)
        _put(linear, where(cast(flags, dt.bool_), slots, count), positions)
    linear = linear[:count]
    coords = []
    stride = 1
    for size in reversed(x.shape):
        coords.append(remainder(_ops.floor_divide(linear, stride), size) if size else linear)
        stride *= size
    coords.reverse()
    if as_tuple:
        return tuple(coords) if x.dim() else (_ops.zeros(count, dtype=dt.int64, device=device),)
    if not coords:
        return _empty((count, 0), dt.int64, device)
    return _ops.stack(coords, 1)


def argwhere(x):
    return nonzero(x)


def where(condition, input=None, other=None):
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    return _ops.where(condition, input, other)


_METHODS = ["gather", "take_along_dim", "scatter", "scatter_", "scatter_add", "scatter_add_", "index_select",
            "index_add", "index_add_", "index_put", "index_put_", "masked_fill", "masked_select", "nonzero",
            "argwhere", "take", "put", "put_", "index_fill", "index_fill_", "scatter_reduce", "scatter_reduce_",
            "index_copy", "index_copy_", "masked_scatter", "nonzero_static", "index_reduce"]
for _name in _METHODS:
    setattr(Tensor, _name, globals()[_name])
Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem
