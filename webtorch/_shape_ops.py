"""Shape ops: views where the result is one (split, chunk, unbind, movedim, diagonal, meshgrid),
and otherwise one `take` whose per-dim source indices are known on the host (flip, roll,
repeat, tile, repeat_interleave, pad), or elementwise masks (tril, triu). einsum is
permute + reshape + matmul.
"""
import builtins
import operator

from . import _dtypes as dt
from . import _ops, _tape
from ._autocast import autocast_op
from ._indexing import _gradable, _take
from ._ops import _is_tensor, _shape_arg, _sized, _wrap_dim, cast, expand, narrow, permute, reshape, where
from ._tensor import _TYPE_NAMES, Tensor, check_size


__all__ = ["split", "chunk", "tensor_split", "unbind", "select", "movedim", "moveaxis", "unflatten", "diagonal",
           "meshgrid", "flip", "fliplr", "flipud", "roll", "tile", "repeat_interleave", "tril", "triu", "diag", "diag_embed",
           "einsum", "split_with_sizes", "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "row_stack",
           "dstack", "column_stack", "rot90", "block_diag", "cartesian_prod", "combinations", "as_strided",
           "select_scatter", "slice_scatter", "diagonal_scatter", "as_strided_scatter", "vsplit", "hsplit", "dsplit",
           "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes", "diagflat", "tril_indices", "triu_indices",
           "unravel_index"]


def _take_by_dims(x, sources):
    """out[i0, i1, ...] = x[sources[0][i0], sources[1][i1], ...]; sources: one list per dim of x."""
    shape = [len(s) for s in sources]
    x = _gradable(x)
    offsets = None
    for d, src in enumerate(sources):
        axis = [1] * len(shape)
        axis[d] = len(src)
        term = _ops.tensor([i * x._stride[d] for i in src], dtype=dt.int64, device=x.device).reshape(axis)
        offsets = term if offsets is None else _ops.add(offsets, term)
    if offsets is None:
        return _ops.clone(x)
    return _take(x, expand(_ops.add(offsets, x._offset), *shape))


def _dims_arg(dims):
    if isinstance(dims, int):
        return (dims,)
    return tuple(dims)


# -- views -----------------------------------------------------------------------------------
def split(x, split_size_or_sections, dim=0):
    if x.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, x.dim())
    n = x.shape[d]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size < 0 or (size == 0 and n):
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        sizes = [builtins.min(size, n - s) for s in range(0, n, size)] if n else [0]
    else:
        sizes = list(split_size_or_sections)
        if builtins.sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                               f"dimension {d}), but got split_sizes={sizes}")
    out, start = [], 0
    for s in sizes:
        out.append(narrow(x, d, start, s))
        start += s
    return tuple(out)


def split_with_sizes(x, split_sizes, dim=0):
    return split(x, list(split_sizes), dim)


def chunk(x, chunks, dim=0):
    if isinstance(chunks, bool) or isinstance(chunks, Tensor) and (chunks.dim() or chunks.dtype.is_floating_point):
        raise TypeError(f"chunk(): argument 'chunks' (position 2) must be int, not {type(chunks).__name__}")
    try:  # an int, a numpy integer or a 0-d integer tensor, as torch's int arguments take
        chunks = operator.index(chunks)
    except TypeError:
        raise TypeError(f"chunk(): argument 'chunks' (position 2) must be int, not {type(chunks).__name__}") from None
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if x.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    n = x.shape[_wrap_dim(dim, x.dim())]
    return split(x, -(-n // chunks), dim) if n else (x,) * chunks


def tensor_split(x, indices_or_sections, dim=0):
    if x.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _wrap_dim(dim, x.dim())
    n = x.shape[d]
    if isinstance(indices_or_sections, Tensor):  # a 0-d count or 1-D indices, as PyTorch takes them
        if indices_or_sections.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {indices_or_sections.dim()} dims")
        if indices_or_sections.dtype is not dt.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{_TYPE_NAMES[indices_or_sections.dtype.name]}")
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        bounds = [i * (n // k) + builtins.min(i, n % k) for i in range(k + 1)]
    else:
        # each index read as a slice bound: a negative one counts from the end, then clamped to [0, n]
        bounds = [0] + [builtins.min(builtins.max(i + n if i < 0 else i, 0), n) for i in indices_or_sections] + [n]
    return tuple(narrow(x, d, a, builtins.max(b - a, 0)) for a, b in zip(bounds, bounds[1:]))


def unbind(x, dim=0):
    d = _wrap_dim(dim, x.dim(), scalar_ok=False)
    return tuple(select(x, d, i) for i in range(x.shape[d]))


def select(x, dim, index):
    if x.dim() == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, x.dim())
    return x[(slice(None),) * d + (index,)]


def movedim(x, source, destination):
    src = [_wrap_dim(s, x.dim()) for s in _dims_arg(source)]
    dst = [_wrap_dim(s, x.dim()) for s in _dims_arg(destination)]
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(_dims_arg(source))} dims) "
                           f"should contain the same number of dims as destination "
                           f"({list(_dims_arg(destination))} dims)")
    for name, dims, given in (("source", src, source), ("destination", dst, destination)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(_dims_arg(given))})")
    if x.dim() == 0:
        return permute(x)
    order = [None] * x.dim()
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(x.dim()) if d not in src)
    return permute(x, *[o if o is not None else next(rest) for o in order])


moveaxis = movedim


def unflatten(x, dim, sizes):
    if x.dim() == 0:
        raise RuntimeError("unflatten got an unexpected error: Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, x.dim())
    sizes = list(sizes)
    if -1 in sizes:
        known = 1
        for s in sizes:
            known *= s if s != -1 else 1
        sizes[sizes.index(-1)] = x.shape[d] // known if known else 0
    n = 1
    for s in sizes:
        n *= s
    if n != x.shape[d]:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({x.shape[d]}) in the input tensor")
    return reshape(x, *x.shape[:d], *sizes, *x.shape[d + 1:])


def diagonal(x, offset=0, dim1=0, dim2=1):
    d1, d2 = _wrap_dim(dim1, x.dim()), _wrap_dim(dim2, x.dim())
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n1, n2 = x.shape[d1], x.shape[d2]
    length = builtins.max(0, builtins.min(n1, n2 - offset) if offset >= 0 else builtins.min(n1 + offset, n2))
    start = x._offset
    if length:
        start += offset * x._stride[d2] if offset >= 0 else -offset * x._stride[d1]
    keep = [d for d in range(x.dim()) if d not in (d1, d2)]
    view = x._view([x.shape[d] for d in keep] + [length], [x._stride[d] for d in keep] + [x._stride[d1] + x._stride[d2]],
                   start)
    return _tape.record("diagonal", view, (x,), offset=offset, dim1=d1, dim2=d2)


def meshgrid(*tensors, indexing="ij"):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    if builtins.any(t.dtype is not tensors[0].dtype for t in tensors):
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    flat = [reshape(t, -1) for t in tensors]
    if indexing == "xy" and len(flat) >= 2:
        flat[0], flat[1] = flat[1], flat[0]
    shape = [t.shape[0] for t in flat]
    grids = [expand(reshape(t, [1] * i + [-1] + [1] * (len(flat) - i - 1)), *shape) for i, t in enumerate(flat)]
    if indexing == "xy" and len(grids) >= 2:  # "ij" of the swapped inputs, outputs swapped back
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def unfold(x, dimension, size, step):
    """Tensor.unfold: the windows of `size` every `step` along a dim, as a new last dim (a view)."""
    d = _wrap_dim(dimension, x.dim())
    n = x.shape[d] if x.dim() else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    st = x._stride[d] if x.dim() else 1
    shape, stride = list(x.shape), list(x._stride)
    if x.dim():
        shape[d], stride[d] = (n - size) // step + 1, st * step
    return _strided_view(x, shape + [size], stride + [st], x._offset)


def _strided_view(x, shape, stride, offset):
    """A view of x's storage with any shape, strides and offset; elements may overlap."""
    view = x._view(list(shape), list(stride), offset)
    if not (_tape.is_grad_enabled() and x.requires_grad):
        return view
    # elements may overlap: the gradient adds up at each storage offset they read (the take rule)
    offsets = _ops.add(_ops.zeros(view.shape, dtype=dt.int64, device=x.device), view._offset)
    for k, (size_k, stride_k) in enumerate(zip(view.shape, view._stride)):
        axis = [1] * view.dim()
        axis[k] = size_k
        offsets = _ops.add(offsets, _ops.mul(_ops.arange(size_k, device=x.device).reshape(axis), stride_k))
    return _tape.record("take", view, (x,), offsets=offsets)


def as_strided(x, size, stride, storage_offset=None):
    """A view of x's storage (torch.as_strided): sizes, strides and offset counted in elements of it."""
    size, stride = [int(n) for n in size], [int(n) for n in stride]
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    if builtins.any(n < 0 for n in size):
        raise RuntimeError(f"as_strided: Negative sizes are not allowed, got {size}")
    if builtins.any(n < 0 for n in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {stride}")
    offset = x._offset if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = 0 if 0 in size else offset + 1 + builtins.sum((n - 1) * st for n, st in zip(size, stride))
    if needed > x._storage.numel:
        raise RuntimeError(f"setStorage: sizes {size}, strides {stride}, storage offset {offset}, and itemsize "
                           f"{x.element_size()} requiring a storage size of {needed * x.element_size()} are out of "
                           f"bounds for storage of size {x._storage.numel * x.element_size()}")
    return _strided_view(x, size, stride, offset)


def _scatter_into(x, view_of, src):
    """A copy of x whose view view_of(copy) is src, which must have that view's shape (the *_scatter ops)."""
    out = _ops.clone(x)
    view = view_of(out)
    if tuple(src.shape) != tuple(view.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(view.shape)}")
    _ops.write_(view, src)
    return out


def select_scatter(input, src, dim, index):
    return _scatter_into(input, lambda t: select(t, dim, index), src)


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    d = _wrap_dim(dim, input.dim())
    return _scatter_into(input, lambda t: t[(slice(None),) * d + (slice(start, end, step),)], src)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    return _scatter_into(input, lambda t: diagonal(t, offset, dim1, dim2), src)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """input (laid out contiguously) with its as_strided view replaced by src."""
    return _scatter_into(_ops.contiguous(input), lambda t: as_strided(t, size, stride, storage_offset), src)


def _split_along(name, x, indices_or_sections, dim, min_dims):
    if x.dim() < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor with "
                           f"{x.dim()} dimensions!")
    if isinstance(indices_or_sections, int) and (not indices_or_sections or x.shape[dim] % indices_or_sections):
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{x.shape[dim]} is not divisible by the split_size {indices_or_sections}!")
    return tensor_split(x, indices_or_sections, dim)


def vsplit(x, indices_or_sections):
    return _split_along("vsplit", x, indices_or_sections, 0, 2)


def hsplit(x, indices_or_sections):
    return _split_along("hsplit", x, indices_or_sections, 1 if x.dim() > 1 else 0, 1)


def dsplit(x, indices_or_sections):
    return _split_along("dsplit", x, indices_or_sections, 2, 3)


# torch's unsafe_* forms are its split ops without view tracking: the same values
unsafe_chunk, unsafe_split, unsafe_split_with_sizes = chunk, split, split_with_sizes


def diagflat(x, offset=0):
    return diag(reshape(x, -1), offset)


def sum_to_size(x, *size):
    """Tensor.sum_to_size: x summed over the dims where size is 1 (or absent in front) to size."""
    size = list(_shape_arg(size))
    lead = x.dim() - len(size)
    if lead < 0 or builtins.any(n != 1 and n != m for n, m in zip(size, x.shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(x.shape)}}}.")
    if not size:  # torch's sum_to: the whole sum (an int or bool input's sum is int64), a 0-d input's too
        return _ops.sum(x)
    dims = list(range(lead)) + [lead + i for i, n in enumerate(size) if n == 1 and x.shape[lead + i] != 1]
    return reshape(_ops.sum(x, dims, keepdim=True), size) if dims else x


def _triangle_indices(lower, row, col, offset, dtype, device):
    """The (row, col) coordinates of a row x col matrix's lower (upper) triangle from diagonal offset, row-major."""
    if row < 0 or col < 0:
        raise RuntimeError(f"row must be non-negative, got{row}" if row < 0 else f"col must be non-negative, got{col}")
    # (plain Python: webtorch runs without numpy, as in Pyodide)
    pairs = [(i, j) for i in range(row) for j in range(col) if (j - i <= offset if lower else j - i >= offset)]
    return _ops.tensor([[i for i, _ in pairs], [j for _, j in pairs]], dtype=dtype, device=device).reshape(2, -1)


def tril_indices(row, col, offset=0, *, dtype=dt.int64, device=None, layout=None, pin_memory=False):
    return _triangle_indices(True, row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=dt.int64, device=None, layout=None, pin_memory=False):
    return _triangle_indices(False, row, col, offset, dtype, device)


def unravel_index(indices, shape):
    """The coordinates (a tuple of int64 tensors shaped like indices) of flat indices into shape."""
    if not _is_tensor(indices):
        raise TypeError(f"expected 'indices' to be an integer tensor, but got {type(indices).__name__}")
    if indices.dtype.category != 1:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = [int(n) for n in _shape_arg((shape,) if isinstance(shape, int) else tuple(shape))]
    if builtins.any(n < 0 for n in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
    flat = cast(indices, dt.int64)  # torch wraps an index out of range: each coordinate is taken modulo its size
    coords = []
    for n in reversed(shape):
        coords.append(_ops.remainder(flat, n))
        flat = _ops.floor_divide(flat, n)
    return tuple(reversed(coords))


# -- joining ----------------------------------------------------------------------------------
_ATLEAST = {1: {0: (1,)}, 2: {0: (1, 1), 1: (1, -1)}, 3: {0: (1, 1, 1), 1: (1, -1, 1), 2: (0, 0, 1)}}


def _atleast(x, n):
    if isinstance(x, (list, tuple)):
        return tuple(_atleast(t, n) for t in x)
    shape = _ATLEAST[n].get(x.dim())
    if shape is None:
        return x
    return reshape(x, [x.shape[i] if s == 0 else s for i, s in enumerate(shape)])


def _atleast_args(tensors, n):
    return _atleast(tensors[0] if len(tensors) == 1 else tensors, n)


def atleast_1d(*tensors):
    return _atleast_args(tensors, 1)


def atleast_2d(*tensors):
    return _atleast_args(tensors, 2)


def atleast_3d(*tensors):
    return _atleast_args(tensors, 3)


def _nonempty(tensors, name):
    tensors = tuple(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def hstack(tensors):
    tensors = _atleast(_nonempty(tensors, "hstack"), 1)
    return _ops.cat(tensors, 0 if tensors[0].dim() == 1 else 1)


def vstack(tensors):
    return _ops.cat(_atleast(_nonempty(tensors, "vstack"), 2), 0)


row_stack = vstack


def dstack(tensors):
    return _ops.cat(_atleast(_nonempty(tensors, "dstack"), 3), 2)


def column_stack(tensors):
    return _ops.cat([reshape(t, -1, 1) if t.dim() <= 1 else t for t in _nonempty(tensors, "column_stack")], 1)


def block_diag(*tensors):
    mats = [reshape(t, 1, 1) if t.dim() == 0 else reshape(t, 1, -1) if t.dim() == 1 else t for t in tensors]
    for i, t in enumerate(mats):
        if t.dim() != 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
    if not mats:
        return _ops.empty(1, 0)
    dtype = dt.result_type(*mats)
    width = builtins.sum(t.shape[1] for t in mats)
    rows, left = [], 0
    for t in mats:
        zeros = [_ops.zeros(t.shape[0], w, dtype=dtype, device=t.device) for w in (left, width - left - t.shape[1])]
        rows.append(_ops.cat([zeros[0], cast(t, dtype), zeros[1]], 1))
        left += t.shape[1]
    return _ops.cat(rows, 0)


def cartesian_prod(*tensors):
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return _ops.stack([reshape(g, -1) for g in grids], 1)


def combinations(x, r=2, with_replacement=False):
    import itertools
    if x.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(x.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _ops.empty(0, dtype=x.dtype, device=x.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    combos = list(pick(range(x.shape[0]), r))
    if not combos:
        return _ops.empty(0, r, dtype=x.dtype, device=x.device)
    return reshape(_take_by_dims(x, [[c for combo in combos for c in combo]]), len(combos), r)


# -- copies through take ---------------------------------------------------------------------
def flip(x, *dims, **kwargs):
    if "dims" in kwargs:
        dims = (kwargs.pop("dims"),)
    if kwargs:
        raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
    dims = {_wrap_dim(d, x.dim()) for d in _shape_arg(dims)} if dims else set()
    return _take_by_dims(x, [list(range(n - 1, -1, -1)) if d in dims else list(range(n))
                             for d, n in enumerate(x.shape)])


def rot90(x, k=1, dims=(0, 1)):
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if x.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {x.dim()}")
    d0, d1 = _wrap_dim(dims[0], x.dim()), _wrap_dim(dims[1], x.dim())
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return _ops.transpose(flip(x, d1), d0, d1)
    if k == 2:
        return flip(x, d0, d1)
    if k == 3:
        return flip(_ops.transpose(x, d0, d1), d1)
    return _ops.clone(x)


def fliplr(x):
    if x.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(x, 1)


def flipud(x):
    if x.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(x, 0)


def roll(x, shifts, dims=None):
    if dims is None:
        return reshape(roll(reshape(x, -1), shifts, 0), x.shape)
    shifts, dims = _dims_arg(shifts), _dims_arg(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if x.numel() == 0:
        return _ops.clone(x)  # before the dims are checked, like torch
    dims = [_wrap_dim(d, x.dim(), scalar_ok=False) for d in dims]
    by_dim = {}
    for s, d in zip(shifts, dims):
        by_dim[d] = by_dim.get(d, 0) + s
    return _take_by_dims(x, [[(i - by_dim.get(d, 0)) % n for i in range(n)] if n else []
                             for d, n in enumerate(x.shape)])


def repeat(x, *sizes, repeats=None):
    sizes = _sized(sizes, repeats, "repeats")
    if len(sizes) < x.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    if builtins.any(r < 0 for r in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension {builtins.min(sizes)}: {list(sizes)}")
    x = reshape(x, [1] * (len(sizes) - x.dim()) + list(x.shape))
    check_size([n * r for n, r in zip(x.shape, sizes)], x.dtype, x.device.type)
    # each dim n as (1, n) expanded to (r, n): one copy, no index tensors to upload. The copy is made
    # explicitly: reshape alone returns a view of x (stride 0 where a repeated dim had size 1; x itself for
    # repeats of 1), and torch's repeat always returns a new tensor
    split = expand(reshape(x, [v for n in x.shape for v in (1, n)]), *[v for n, r in zip(x.shape, sizes) for v in (r, n)])
    return reshape(_ops.clone(split), [n * r for n, r in zip(x.shape, sizes)])


def tile(x, *dims_args, dims=None):
    dims = _sized(dims_args, dims, "dims")
    return repeat(x, *([1] * (x.dim() - len(dims)) + list(dims)))


def repeat_interleave(x, repeats=None, dim=None, *, output_size=None):
    if repeats is None:  # repeat_interleave(counts): each index i repeated counts[i] times
        counts = x.tolist()
        return _ops.tensor([i for i, c in enumerate(counts) for _ in range(c)], dtype=dt.int64, device=x.device)
    if dim is None:
        x, dim = reshape(x, -1), 0
    d = _wrap_dim(dim, x.dim())
    n = x.shape[d]
    counts = repeats.tolist() if _is_tensor(repeats) else repeats
    if isinstance(counts, int):
        counts = [counts] * n
    elif len(counts) == 1:
        counts = counts * n
    if len(counts) != n:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{len(counts)} and input.size({d}) = {n}")
    if builtins.any(c < 0 for c in counts):
        raise RuntimeError("repeats can not be negative")
    if n and counts.count(counts[0]) == n:  # one count (grouped-query attention's heads): dim d as (n, 1) expanded
        shape = list(x.shape)
        split = expand(reshape(x, shape[:d + 1] + [1] + shape[d + 1:]), *shape[:d + 1], counts[0], *shape[d + 1:])
        return reshape(_ops.clone(split), shape[:d] + [n * counts[0]] + shape[d + 1:])  # a copy, as repeat
    return _take_by_dims(x, [[i for i, c in enumerate(counts) for _ in range(c)] if k == d else list(range(s))
                             for k, s in enumerate(x.shape)])


def _tri(x, diagonal, keep_upper, name):
    if x.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    rows = _ops.arange(x.shape[-2], device=x.device).reshape(-1, 1)
    cols = _ops.arange(x.shape[-1], device=x.device)
    offset = _ops.sub(cols, rows)
    keep = _ops.ge(offset, diagonal) if keep_upper else _ops.le(offset, diagonal)
    return cast(where(keep, x, False if x.dtype is dt.bool_ else 0), x.dtype)


def tril(x, diagonal=0):
    return _tri(x, diagonal, False, "tril")


def triu(x, diagonal=0):
    return _tri(x, diagonal, True, "triu")


def diag(x, diagonal=0):
    if x.dim() == 1:
        n = x.shape[0] + builtins.abs(diagonal)
        out = _ops.zeros(n, n, dtype=x.dtype, device=x.device)
        _ops.write_(globals()["diagonal"](out, diagonal), x)
        return out
    if x.dim() == 2:
        return _ops.clone(globals()["diagonal"](x, diagonal))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {x.dim()}D")


def diag_embed(x, offset=0, dim1=-2, dim2=-1):
    n = x.shape[-1] + builtins.abs(offset)
    out = _ops.zeros(*x.shape[:-1], n, n, dtype=x.dtype, device=x.device)
    _ops.write_(diagonal(out, offset, dim1, dim2), x)
    return out


def check_pad_length(x, pad):
    if len(pad) % 2 or len(pad) // 2 > x.dim():
        raise RuntimeError("Padding length must be divisible by 2" if len(pad) % 2 else
                           "Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {x.dim()}")


def pad(x, pad, mode="constant", value=None):
    pad = list(pad)
    check_pad_length(x, pad)
    before, after = [0] * x.dim(), [0] * x.dim()
    for i in range(len(pad) // 2):
        before[x.dim() - 1 - i], after[x.dim() - 1 - i] = pad[2 * i], pad[2 * i + 1]
    shape = [n + b + a for n, b, a in zip(x.shape, before, after)]
    if mode == "constant":
        if builtins.any(s < 0 for s in shape):
            raise RuntimeError(f"The input size {list(x.shape)}, plus negative padding {pad} resulted in a negative "
                               f"output size, which is invalid. Check dimension {shape.index(builtins.min(shape))} "
                               "of your input.")
        out = _ops.full(shape, 0 if value is None else value, dtype=x.dtype, device=x.device)
        src, dst = x, out
        for d in range(x.dim()):  # negative padding crops the input
            src = narrow(src, d, builtins.max(-before[d], 0), x.shape[d] - builtins.max(-before[d], 0)
                         - builtins.max(-after[d], 0))
            dst = narrow(dst, d, builtins.max(before[d], 0), src.shape[d])
        _ops._copy_into(dst, src)
        return out
    if value:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if mode == "circular" and builtins.any(p < 0 for p in before + after):
        # torch crops the negative sides first, then wraps around what is left
        for d in range(x.dim()):
            lo, hi = builtins.max(-before[d], 0), builtins.max(-after[d], 0)
            x = narrow(x, d, lo, x.shape[d] - lo - hi)
        return globals()["pad"](x, [builtins.max(p, 0) for p in pad], mode, value)  # the function, not the list
    sources = []
    for d, n in enumerate(x.shape):
        idx = range(-before[d], n + after[d])
        if mode == "reflect":
            if (before[d] or after[d]) and (before[d] >= n or after[d] >= n):
                raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({before[d]}, {after[d]}) at dimension {d} of "
                                   f"input {list(x.shape)}")
            sources.append([-i if i < 0 else 2 * (n - 1) - i if i >= n else i for i in idx])
        elif mode == "replicate":
            sources.append([builtins.min(builtins.max(i, 0), n - 1) for i in idx])
        elif mode == "circular":
            if before[d] > n or after[d] > n:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            sources.append([i % n for i in idx])
        else:
            raise NotImplementedError(f"webtorch: pad mode {mode!r} is not supported")
    return _take_by_dims(x, sources)


# -- einsum ----------------------------------------------------------------------------------
@autocast_op
def einsum(equation, *operands):
    """Sums of products by label: each operand's repeated labels become a diagonal, labels no one
    else needs are summed out, and pairs of operands contract through one batched matmul."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError(f"einsum(): more operands were provided than specified in the equation"
                           if len(operands) > len(terms) else
                           "einsum(): fewer operands were provided than specified in the equation")
    ell_dims = builtins.max((t.dim() - len(s.replace("...", "")) for s, t in zip(terms, operands) if "..." in s),
                            default=0)
    ell = "".join(chr(0x100 + i) for i in range(ell_dims))  # labels no equation can use

    def labels(s, ndim):
        if "..." in s:
            return s.replace("...", ell[ell_dims - (ndim - len(s) + 3):])
        return s

    terms = [labels(s, t.dim()) for s, t in zip(terms, operands)]
    for s, t in zip(terms, operands):
        if len(s) != t.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(s)}) does not match the "
                               f"number of dimensions ({t.dim()}) for operand {terms.index(s)}")
    if arrow:
        out = labels(rhs, ell_dims + len(rhs.replace("...", ""))) if "..." in rhs else rhs
    else:
        counts = {}
        for s in terms:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c in counts if counts[c] == 1 and c not in ell))
    ops = [_diagonalize(t, s) for s, t in zip(terms, operands)]
    while True:
        ops = [_sum_unneeded(t, s, out, [o for j, o in enumerate(ops) if j != i]) for i, (t, s) in enumerate(ops)]
        if len(ops) == 1:
            break
        (a, sa), (b, sb) = ops[0], ops[1]
        ops = [_contract(a, sa, b, sb, out + "".join(s for _, s in ops[2:]))] + ops[2:]
    t, s = ops[0]
    for c in out:
        if c not in s:
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input "
                               "operand")
    return permute(t, *[s.index(c) for c in out]) if s != out else t


def _diagonalize(t, s):
    """Repeated labels in one operand take the diagonal: 'ii' -> 'i'."""
    while len(set(s)) != len(s):
        c = [c for c in s if s.count(c) > 1][0]
        i = s.index(c)
        j = s.index(c, i + 1)
        t = diagonal(t, 0, i, j)
        s = s[:i] + s[i + 1:j] + s[j + 1:] + c
    return t, s


def _sum_unneeded(t, s, out, others):
    needed = set(out) | {c for _, o in others for c in o}
    dims = [i for i, c in enumerate(s) if c not in needed]
    if not dims:
        return t, s
    return _ops.sum(t, dims), "".join(c for i, c in enumerate(s) if i not in dims)


def _contract(a, sa, b, sb, keep):
    batch = [c for c in sa if c in sb and c in keep]
    summed = [c for c in sa if c in sb and c not in keep]
    a_only = [c for c in sa if c not in sb]
    b_only = [c for c in sb if c not in sa]
    a = permute(a, *[sa.index(c) for c in batch + a_only + summed])
    b = permute(b, *[sb.index(c) for c in batch + summed + b_only])
    size = {}
    for c, n in list(zip(batch + a_only + summed, a.shape)) + list(zip(batch + summed + b_only, b.shape)):
        size[c] = n if size.get(c, 1) == 1 else size[c]  # a size-1 dim broadcasts (to 0 too)
    m, k, n = _numel([size[c] for c in a_only]), _numel([size[c] for c in summed]), \
        _numel([size[c] for c in b_only])
    a = reshape(a, [a.shape[i] for i in range(len(batch))] + [m, k])
    b = reshape(b, [b.shape[i] for i in range(len(batch))] + [k, n])
    r = _ops.matmul(a, b) if a.dtype is b.dtype else _ops.matmul(cast(a, dt.result_type(a, b)),
                                                                 cast(b, dt.result_type(a, b)))
    return reshape(r, [size[c] for c in batch + a_only + b_only]), "".join(batch + a_only + b_only)


def _numel(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


_METHODS = ["split", "chunk", "tensor_split", "unbind", "select", "movedim", "moveaxis", "unflatten", "diagonal",
            "flip", "fliplr", "flipud", "roll", "repeat", "tile", "repeat_interleave", "tril", "triu", "diag",
            "diag_embed", "split_with_sizes", "unfold", "rot90", "as_strided", "select_scatter", "slice_scatter",
            "diagonal_scatter", "as_strided_scatter", "vsplit", "hsplit", "dsplit", "unsafe_chunk", "unsafe_split",
            "unsafe_split_with_sizes", "diagflat", "sum_to_size"]
for _name in _METHODS:
    setattr(Tensor, _name, globals()[_name])
