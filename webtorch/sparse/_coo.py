"""Sparse COO tensors (torch.sparse_coo): a SparseTensor holds an int64 (sparse_dim, nnz) indices tensor
and a (nnz, *dense dims) values tensor, both dense webtorch tensors on one device, and no strided storage.

Gradients. A sparse tensor takes part in autograd as one tensor (its own requires_grad, grad_fn and, for
a leaf, grad). Its gradient is itself sparse over the same entries, in the same order, or dense:
the value of a sparse gradient at entry k is the loss's derivative with respect to the tensor's value at
entry k's index (the dense gradient sampled there; an uncoalesced tensor's duplicates each get it, as
torch gives each of them). So sparse_coo_tensor hands its values the gradient's values unchanged,
coalesce maps the coalesced entries' gradient back through the inverse of its merge, and a leaf stores
the gradient coalesced, as torch's sparse.mm leaves it. The rules are autograd.BACKWARD's rows that
name sparse ops.

Everything a SparseTensor is not built for raises NotImplementedError naming the gap: its Tensor
methods are replaced by refusals (attach), and its storage slot holds _NoStorage, which refuses any use
by the dense ops' code.
"""
import builtins

from .. import _dtypes as dt, _indexing, _math_ops, _ops as F, _shape_ops, _tape
from .._memory_format import sparse_coo
from .._tensor import Size, Tensor, _body, to_targets

_GAP = ("webtorch's sparse COO tensors support construction, coalesce, to_dense, indices/values, t, to, "
        "torch.sparse.mm/addmm/sum/softmax, sparse @ dense, sparse @ sparse, dense + sparse, sparse + sparse, "
        "sparse * (number, dense or sparse) and the elementwise ops that map 0 to 0; call .to_dense() first")


def _refusal(what):
    return NotImplementedError(f"webtorch: {what} does not take a sparse COO tensor ({_GAP})")


class _NoStorage:
    """A sparse tensor's storage slot: the dtype and version counter autograd reads; any other use (a
    dense op reaching for strided memory) raises NotImplementedError."""
    __slots__ = ("dtype", "version")

    def __init__(self, dtype):
        self.dtype, self.version = dtype, 0

    def __getattr__(self, name):
        raise _refusal("this operation")


class SparseTensor(Tensor):
    __slots__ = ("_sp_indices", "_sp_values", "_sp_coalesced", "_sp_row_starts")

    def __init__(self, indices, values, shape, coalesced):
        self._storage = _NoStorage(values.dtype)
        self.shape = Size(shape)
        self._stride = (0,) * len(shape)  # torch 2.13's answer to a sparse tensor's stride()
        self._offset = 0
        self.dtype = values.dtype
        self.grad_fn = self._base = self.grad = self._own_versions = None
        self._requires_grad = False
        self._sp_indices, self._sp_values, self._sp_coalesced = indices, values, coalesced

    # -- what a sparse tensor is ----------------------------------------------------------------
    is_sparse = property(lambda self: True)
    layout = property(lambda self: sparse_coo)
    device = property(lambda self: self._sp_values.device)
    is_cpu = property(lambda self: self._sp_values.is_cpu)
    is_meta = property(lambda self: False)

    def is_contiguous(self, memory_format=None):
        return False

    def sparse_dim(self):
        return self._sp_indices.shape[0]

    def dense_dim(self):
        return self.dim() - self.sparse_dim()

    def _nnz(self):
        return self._sp_indices.shape[1]

    def is_coalesced(self):
        return self._sp_coalesced

    def _indices(self):
        return F.detach(self._sp_indices)

    def _values(self):
        return F.detach(self._sp_values)

    def indices(self):
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return F.detach(self._sp_indices)

    def values(self):
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return values_of(self)

    @property
    def data(self):
        return self.detach()

    # -- conversions ----------------------------------------------------------------------------
    def coalesce(self):
        if self._sp_coalesced:
            return self
        with _tape.no_grad():
            out, inverse = _coalesced(self)
        return _tape.record("coalesce", out, (self,), inverse=inverse)

    def to_dense(self, dtype=None, *, masked_grad=None):
        if dtype is not None:
            raise RuntimeError("dtype argument is not supported by sparse_to_dense")
        with _tape.no_grad():
            out = _scatter(self._sp_indices, self._sp_values, self.shape, accumulate=True)
        return _tape.record("sparse_to_dense", out, (self,))

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        _check_layout(layout, blocksize)
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument !=self.sparse_dim() "
                               "is not supported")
        return self

    to_sparse_coo = to_sparse

    def to(self, *args, **kwargs):
        device, dtype = to_targets(args, kwargs)
        indices, values = self._sp_indices, self._sp_values
        if dtype is not None and dtype is not values.dtype:
            values = values.to(dtype)
        if device is not None and device.type != values.device.type:
            indices, values = indices.to(device), values.to(device)
        if values is self._sp_values:
            return self
        out = SparseTensor(indices, values, self.shape, self._sp_coalesced)
        return _tape.record("sparse_to", out, (self,))

    def detach(self):
        return SparseTensor(self._sp_indices, F.detach(self._sp_values), self.shape, self._sp_coalesced)

    def clone(self, *, memory_format=None):
        out = SparseTensor(F.clone(self._sp_indices), F.clone(self._sp_values), self.shape, self._sp_coalesced)
        return _tape.record("sparse_to", out, (self,))  # the same entries: the gradient passes as is

    def t(self):
        if self.sparse_dim() != 2 or self.dense_dim():
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but self is "
                               f"{self.sparse_dim()} sparse and {self.dense_dim()} dense dimensions")
        out = SparseTensor(self._sp_indices.flip(0), self._sp_values, (self.shape[1], self.shape[0]),
                           self._nnz() < 2)
        return _tape.record("sparse_t", out, (self,))

    # -- products and reductions (torch.sparse) -------------------------------------------------
    def mm(self, other):
        return mm(self, other)

    def matmul(self, other):
        return matmul(self, other)

    __matmul__ = matmul

    def __rmatmul__(self, other):  # dense @ sparse (tried before the dense operand's __matmul__: a subclass's)
        return matmul(other, self)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        raise _refusal("Tensor.addmm with a sparse input (add the product to .to_dense())")

    def sum(self, dim=None, keepdim=False, dtype=None):
        if dim is None:  # a dense 0-d tensor, its gradient to self dense (1 everywhere) as torch's (sparse.sum's
            with _tape.no_grad():  # is over the entries)
                out = sparse_sum(self, None, dtype)
            return _tape.record("sparse_sum_all", out, (self,))
        out = sparse_sum(self, dim, dtype)
        if not keepdim or dim is None:
            return out
        dims = {d % self.dim() for d in ([dim] if isinstance(dim, int) else dim)}
        shape = [1 if d in dims else n for d, n in enumerate(self.shape)]
        if not isinstance(out, SparseTensor):  # every sparse dim summed: dense, as torch's
            return out.reshape(shape)
        kept, sd = iter(out._sp_indices), self.sparse_dim()  # the summed sparse dims back at index 0
        rows = [F.zeros(out._nnz(), dtype=dt.int64, device=out.device) if d in dims else next(kept) for d in range(sd)]
        return build(F.stack(rows), values_of(out).reshape(out._nnz(), *shape[sd:]), shape, out._sp_coalesced)

    def __repr__(self):
        return _repr(self)

    def __reduce_ex__(self, proto):
        return _rebuild, (self._indices(), self._values(), tuple(self.shape), self._sp_coalesced,
                          self.requires_grad)


# Elementwise ops that map 0 to 0: on a sparse tensor they apply to its values and keep the layout; a
# nonlinear one to the values of its coalesced form (duplicates summed first, as torch's sparse kernels do),
# a linear one (neg) to the entries as they are. The is*/signbit ones give a bool sparse tensor.
VALUEWISE = tuple("""abs sin sinh tan tanh asin arcsin asinh arcsinh atan arctan atanh arctanh ceil floor round trunc
    fix frac sign log1p expm1 sqrt square erf erfinv relu isinf isposinf isneginf isnan signbit nan_to_num neg
    negative sgn positive conj conj_physical deg2rad rad2deg""".split())
LINEAR = ("neg", "negative")
IDENTITIES = ("positive", "conj", "conj_physical")  # of a real tensor


def _valuewise(name):
    def op(self, *args, **kwargs):
        if name in IDENTITIES and not self.dtype.is_complex:  # torch returns the tensor itself
            return self
        c = self if name in LINEAR else self.coalesce()
        return build(c._sp_indices, getattr(values_of(c), name)(*args, **kwargs), c.shape, c._sp_coalesced)
    op.__name__ = name
    return op


def _scaled(name, scale):
    """s * factor or s / factor for a number or a 0-d dense tensor (the values scaled; duplicates stay)."""
    def op(self, factor):
        if isinstance(factor, SparseTensor) or isinstance(factor, Tensor) and factor.dim():
            if name == "div":
                raise _division_error(factor)
            return _times_sparse(self, factor) if isinstance(factor, SparseTensor) else _times_dense(self, factor)
        if not isinstance(factor, (Tensor, int, float, bool)):
            raise _refusal(f"Tensor.{name} of a sparse tensor by {type(factor).__name__}")
        return build(self._sp_indices, scale(values_of(self), factor), self.shape, self._sp_coalesced)
    op.__name__ = name
    return op


def _division_error(divisor):
    return RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                        f"{list(divisor.shape)} for divisor)")


def _summed(name, sign):
    """s + alpha * other (or s - alpha * other) for a sparse other of s's size: both tensors' entries,
    uncoalesced, or merged into a coalesced sum when both are coalesced (entries that cancel stay, as
    torch's); a dense other is refused as torch refuses it."""
    def op(self, other, *, alpha=1):
        if not isinstance(other, SparseTensor):
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")  # sub too
        if tuple(other.shape) != tuple(self.shape):
            raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but {list(self.shape)} != "
                               f"{list(other.shape)}")
        if other.sparse_dim() != self.sparse_dim():
            raise RuntimeError(f"add: expected 'self' and 'other' to have same density, but 'self' has "
                               f"{self.sparse_dim()} sparse dimensions while 'other' has {other.sparse_dim()} sparse "
                               "dimensions")
        scale = sign * alpha
        other_values = values_of(other) if scale == 1 else values_of(other) * scale
        out = build(F.cat([self._sp_indices, other._sp_indices], 1), F.cat([values_of(self), other_values]),
                    self.shape, False)
        return out.coalesce() if self._sp_coalesced and other._sp_coalesced else out  # torch merges two coalesced
    op.__name__ = name
    return op


def _reflected(sign):
    """other + s (or other - s) for a dense other: dense_plus_sparse; number + s is refused as torch refuses
    it (number - s fails dense_plus_sparse's size check, as torch's)."""
    def op(self, other):
        if sign == 1 and not isinstance(other, Tensor):
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
        return dense_plus_sparse(other, self, sign)
    op.__name__ = "__radd__" if sign == 1 else "__rsub__"
    return op


def densified(s):
    """s as a dense tensor whose gradient reaches s dense (as torch's dense + sparse gives a sparse leaf)."""
    with _tape.no_grad():
        out = _scatter(s._sp_indices, s._sp_values, s.shape, accumulate=True)
    return _tape.record("sparse_densify", out, (s,))


def dense_plus_sparse(d, s, alpha=1, inplace=False):
    """torch.add(dense, sparse, alpha=alpha): a dense tensor of d's size, which s must have (torch does not
    broadcast here); in place into d for add_/+=."""
    size = list(d.shape) if isinstance(d, Tensor) else []
    if size != list(s.shape):
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size {size} while "
                           f"other has size {list(s.shape)} (FYI: dense-sparse addition does not currently support "
                           "broadcasting)")
    return d.add_(densified(s), alpha=alpha) if inplace else F.add(d, densified(s), alpha=alpha)


def _times_dense(s, d):
    """s * d for a dense d that broadcasts to s's size: s's entries (duplicates too), each times d at its
    index, as torch's mul(sparse, dense) (its gradient to d is dense here, sparse over s's entries in torch)."""
    if tuple(F.broadcast_shapes(s.shape, d.shape)) != tuple(s.shape):
        raise _refusal(f"mul of a sparse tensor of size {list(s.shape)} by a dense one that broadcasts it to "
                       f"{list(F.broadcast_shapes(s.shape, d.shape))}")
    sd, indices = s.sparse_dim(), s._sp_indices
    d = d.reshape((1,) * (s.dim() - d.dim()) + tuple(d.shape))
    at_entries = d[tuple(indices[k] if d.shape[k] != 1 else F.zeros_like(indices[k]) for k in range(sd))]
    return build(indices, values_of(s) * at_entries.expand(s._nnz(), *s.shape[sd:]), s.shape, s._sp_coalesced)


def _probe(c, indices):
    """For each index (a column of indices): the position of its entry in the coalesced c, and whether c
    has one there."""
    sizes = c.shape[:c.sparse_dim()]
    wanted = _keys(indices, sizes)
    if not c._nnz():
        return F.zeros_like(wanted), F.zeros(wanted.shape, dtype=dt.bool_, device=wanted.device)
    keys = _keys(c._sp_indices, sizes)
    position = F.clamp(_math_ops.searchsorted(keys, wanted), max=c._nnz() - 1)
    return position, F.eq(keys.index_select(0, position), wanted)


def _times_sparse(a, b):
    """a * b of two sparse tensors, as torch's sparse intersection: both coalesced, the entries they share
    (coalesced); otherwise every entry of the uncoalesced one (of the one with fewer entries when both are,
    b's on a tie), each times the other's summed value at its index (0 where it has none)."""
    if a.sparse_dim() != b.sparse_dim() or tuple(a.shape) != tuple(b.shape):
        raise RuntimeError("sparse_binary_op_intersection_cpu(): expects sparse inputs with equal dimensionality, "
                           "number of sparse dimensions, and shape of sparse dimensions")
    if a._sp_coalesced != b._sp_coalesced:
        kept = b if a._sp_coalesced else a
    else:
        kept = a if a._sp_coalesced or a._nnz() < b._nnz() else b
    other = (b if kept is a else a).coalesce()
    with _tape.no_grad():
        position, found = _probe(other, kept._sp_indices)
    looked_up = values_of(other).index_select(0, position) if other._nnz() else \
        F.zeros((kept._nnz(), *other.shape[other.sparse_dim():]), dtype=other.dtype, device=other.device)
    looked_up = F.where(found.reshape(-1, *[1] * (looked_up.dim() - 1)), looked_up, 0)
    values = values_of(kept) * looked_up if kept is a else looked_up * values_of(kept)
    if not (a._sp_coalesced and b._sp_coalesced):
        return build(kept._sp_indices, values, kept.shape, False)
    shared = _indexing.nonzero(found).reshape(-1)
    return build(kept._sp_indices.index_select(1, shared), values.index_select(0, shared), kept.shape, True)


SparseTensor.add = SparseTensor.__add__ = _summed("add", 1)
SparseTensor.sub = SparseTensor.__sub__ = SparseTensor.subtract = _summed("sub", -1)
SparseTensor.__radd__, SparseTensor.__rsub__ = _reflected(1), _reflected(-1)
for _name in VALUEWISE:
    setattr(SparseTensor, _name, _valuewise(_name))
SparseTensor.__neg__ = SparseTensor.neg
SparseTensor.mul = SparseTensor.__mul__ = SparseTensor.__rmul__ = SparseTensor.multiply = _scaled("mul", F.mul)
SparseTensor.div = SparseTensor.__truediv__ = SparseTensor.divide = SparseTensor.true_divide = _scaled(
    "div", lambda values, factor: values / factor)


def _divided_by_sparse(self, other):
    raise _division_error(self)


SparseTensor.__rtruediv__ = _divided_by_sparse


def _rebuild(indices, values, shape, coalesced, requires_grad=False):
    """A pickled sparse tensor back (SparseTensor.__reduce_ex__: copy.deepcopy, pickle)."""
    out = SparseTensor(indices, values, shape, coalesced)
    out.requires_grad = requires_grad
    return out


def _check_layout(layout, blocksize):
    if layout not in (None, sparse_coo) or blocksize is not None:
        raise NotImplementedError(f"webtorch has no {layout} tensors (block sparse BSR/BSC: only sparse COO, CSR "
                                  "and CSC; issue 24)")


# -- construction ----------------------------------------------------------------------------------
def sparse_coo_tensor(indices=None, values=None, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """torch.sparse_coo_tensor: the entries values[k] at indices[:, k] of a tensor of size (inferred from
    the largest index per sparse dim and values' trailing dims when not given)."""
    if indices is None:  # sparse_coo_tensor(size): an empty one
        indices, values, size = F.zeros((len(size), 0), dtype=dt.int64), F.zeros(0, dtype=dtype), size
    if not isinstance(indices, Tensor):
        indices = F.tensor(indices, dtype=dt.int64)
    if not isinstance(values, Tensor):
        values = F.tensor(values, dtype=dtype)
    target = device if device is not None else values.device
    if indices.dtype.is_floating_point or indices.dtype is dt.bool_:
        raise RuntimeError("indices must be an int64 tensor")
    indices = indices.to(dt.int64).to(target)
    values = values.to(target) if dtype is None else values.to(target, dtype)
    if indices.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    if values.dim() == 0:
        raise RuntimeError("values must have dim >= 1 (the nnz dimension)")
    if indices.shape[1] != values.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {indices.shape[1]}, "
                           f"nnz from values: {values.shape[0]}")
    sparse_dim = indices.shape[0]
    highest = indices.amax(1).tolist() if indices.shape[1] else [-1] * sparse_dim
    if size is None:
        size = [h + 1 for h in highest] + list(values.shape[1:])
    size = tuple(int(s) for s in size)
    if len(size) != sparse_dim + values.dim() - 1:
        raise RuntimeError(f"number of dimensions must be sparse_dim ({sparse_dim}) + dense_dim "
                           f"({values.dim() - 1}), but got {len(size)}")
    if tuple(values.shape[1:]) != size[sparse_dim:]:
        raise RuntimeError(f"values has incorrect size, expected {list(values.shape[:1]) + list(size[sparse_dim:])}, "
                           f"got {list(values.shape)}")
    lowest = indices.amin(1).tolist() if indices.shape[1] else [0] * sparse_dim
    for d, (lo, hi, s) in enumerate(zip(lowest, highest, size)):
        if lo < 0:
            raise RuntimeError(f"found negative index {lo} for dim {d}")
        if hi >= s:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {s} but found index {hi}")
    out = build(indices, values, size, bool(is_coalesced) or indices.shape[1] <= 1)
    if requires_grad:
        out.requires_grad = True
    return out


def build(indices, values, shape, coalesced):
    """A sparse tensor of entries (indices, values); values' gradient is the sparse gradient's values."""
    return _tape.record("sparse_coo_tensor", SparseTensor(indices, F.detach(values), shape, coalesced), (values,),
                        indices=indices)


def values_of(s):
    """s's values, differentiable (the gradient comes back as a sparse gradient over s's entries)."""
    return _tape.record("sparse_values", F.detach(s._sp_values), (s,))


def to_sparse(x, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """Tensor.to_sparse of a dense tensor: its nonzero entries (over the first sparse_dim dims; a slice
    of the dense dims is an entry when any of its elements is nonzero), coalesced."""
    _check_layout(layout, blocksize)
    sd = x.dim() if sparse_dim is None else sparse_dim
    if not 0 <= sd <= x.dim():
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{x.dim()}] range, but {sd} is given")
    if sd == 0 and x.dim():
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
    with _tape.no_grad():
        if sd == 0:
            indices, values = F.zeros((0, 1), dtype=dt.int64, device=x.device), x.unsqueeze(0)
        else:
            nonzero = F.ne(x, 0)
            if sd < x.dim():
                nonzero = nonzero.reshape(*x.shape[:sd], -1).any(-1)
            indices = _indexing.nonzero(nonzero).t().contiguous()
            values = x[tuple(indices)]
    return _tape.record("to_sparse", SparseTensor(indices, values, x.shape, True), (x,))


# -- the entries' arithmetic -----------------------------------------------------------------------
def _keys(indices, sizes):
    """Each entry's row-major position over the sparse dims' sizes (int64; int32 on the GPU, so the sizes'
    product must stay below 2**31 there)."""
    if indices.device.type == "webgpu" and _prod(sizes) >= 2 ** 31:
        raise NotImplementedError(f"webtorch: coalescing a sparse tensor of sparse sizes {list(sizes)} (2**31 "
                                  "positions or more) on webgpu, whose int64 is 32-bit; coalesce it on the cpu")
    keys = indices[0]
    for d in range(1, len(sizes)):
        keys = keys * sizes[d] + indices[d]
    return keys


def _prod(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


def _unravel(keys, sizes):
    rows = []
    for s in reversed(sizes):
        rows.append(F.remainder(keys, s))
        keys = F.floor_divide(keys, s)
    return F.stack(rows[::-1])


def _coalesced(s):
    """(s with duplicate entries summed and entries sorted by index, each entry's position in it)."""
    sd, values = s.sparse_dim(), s._sp_values
    keys = _keys(s._sp_indices, s.shape[:sd])
    unique, inverse = _math_ops.unique(keys, sorted=True, return_inverse=True)
    summed = _segment_sum(values, inverse, unique.shape[0])
    return SparseTensor(_unravel(unique, s.shape[:sd]), summed, s.shape, True), inverse


def _segment_sum(values, segment, n):
    """out[i] = the sum of values[k] over the k with segment[k] == i (bool values: any)."""
    wide = values.to(dt.int64) if values.dtype is dt.bool_ else values
    out = F.zeros((n, *values.shape[1:]), dtype=wide.dtype, device=values.device).index_add_(0, segment, wide)
    return F.ne(out, 0) if values.dtype is dt.bool_ else out


def _scatter(indices, values, shape, accumulate):
    """A dense tensor of shape holding values at indices: summed where entries repeat (accumulate), or any
    one of them (a sparse gradient's duplicates hold equal values)."""
    sd = indices.shape[0]
    if sd == 0:
        return values.sum(0) if values.dtype is not dt.bool_ else values.any(0)
    wide = values.to(dt.int64) if values.dtype is dt.bool_ and accumulate else values
    out = F.zeros(shape, dtype=wide.dtype, device=values.device)
    if indices.shape[1]:
        out.index_put_(tuple(indices), wide, accumulate=accumulate)
    return F.ne(out, 0) if wide is not values else out


def densify_gradient(g):
    """A sparse gradient (module docstring) as the dense tensor it samples; a dense one as is."""
    return _scatter(g._sp_indices, g._sp_values, g.shape, False) if isinstance(g, SparseTensor) else g


def add_gradients(a, b):
    """The sum of two gradients of one tensor, sparse (over its entries) or dense."""
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor) and a._nnz() == b._nnz():
        return SparseTensor(a._sp_indices, a._sp_values + b._sp_values, a.shape, a._sp_coalesced)
    return densify_gradient(a) + densify_gradient(b)


def leaf_gradient(x, g):
    """What a sparse leaf's .grad holds: its sparse gradient coalesced (each index once, its value)."""
    if not isinstance(g, SparseTensor) or g._sp_coalesced:
        return g
    out, inverse = _coalesced(g)
    values = F.zeros_like(out._sp_values).index_copy_(0, inverse, g._sp_values)
    return SparseTensor(out._sp_indices, values, g.shape, True)


def values_at(g, indices):
    """The values of gradient g at the entries indices: g's own values when g is sparse over them."""
    if isinstance(g, SparseTensor):
        return g._sp_values
    return g[tuple(indices)] if indices.shape[0] else g.unsqueeze(0).expand(indices.shape[1], *g.shape)


# -- products --------------------------------------------------------------------------------------
def _check_mm(s, d, name):
    if s.sparse_dim() != 2 or s.dense_dim() != 0:
        raise RuntimeError(f"{name}: expected a 2-D sparse matrix with no dense dimensions, got sparse_dim "
                           f"{s.sparse_dim()} and dense_dim {s.dense_dim()}")
    if d.dim() != 2:
        raise RuntimeError(f"{name}: expected a 2-D dense matrix, got {d.dim()}-D")
    if s.shape[1] != d.shape[0]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {s.shape[1]}, got {d.shape[0]}")
    if s.dtype is not d.dtype:
        raise RuntimeError(f"expected scalar type {_TYPE[s.dtype.name]} but found {_TYPE[d.dtype.name]}")


_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
         "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def spmm_values(c, d):
    """The dense (M, N) product of the coalesced sparse (M, K) c and the dense (K, N) d, without a graph.
    On webgpu a float product is spmm.wgsl (per 4 outputs of a row, a gather and a segment sum over its entries,
    by the row pointers kept with c); elsewhere the products of the entries are summed into their rows by
    index_add."""
    m, n = c.shape[0], d.shape[1]
    rows, cols = c._sp_indices[0], c._sp_indices[1]
    if not c._nnz():
        return F.zeros((m, n), dtype=d.dtype, device=d.device)
    if d.device.type == "webgpu" and d.dtype.is_floating_point:
        from ..backend import gpu
        out = Tensor(gpu.spmm(row_starts(c), cols, c._sp_values.to(dt.float32), d.to(dt.float32), m), (m, n))
        return out.to(d.dtype)
    products = c._sp_values.unsqueeze(1) * d.index_select(0, cols)
    return F.zeros((m, n), dtype=d.dtype, device=d.device).index_add_(0, rows, products)


def row_starts(c):
    """The CSR row pointers of the coalesced 2-D c: row r's entries are [starts[r], starts[r + 1]) (an index_add of
    the entries' rows after a 0, and a cumsum). Made once per indices tensor and version: a sparse matrix is
    often multiplied again and again (a graph's adjacency, every layer and step)."""
    indices = c._sp_indices
    cached = getattr(c, "_sp_row_starts", None)
    if cached is not None and cached[0] is indices and cached[1] == indices._version:
        return cached[2]
    rows = indices[0]
    counts = F.zeros(c.shape[0] + 1, dtype=dt.int64, device=c.device).index_add_(
        0, rows + 1, F.ones(rows.shape, dtype=dt.int64, device=c.device))
    starts = _math_ops.cumsum(counts, 0)
    c._sp_row_starts = (indices, indices._version, starts)
    return starts


def sampled_products(a, b, rows, cols):
    """Per entry k, a[rows[k]] · b[cols[k]] (the dense a Bᵀ at the entries), without a graph: sddmm.wgsl
    on webgpu for floats, gathers of the rows elsewhere."""
    if a.device.type == "webgpu" and a.dtype.is_floating_point and rows.numel():
        from ..backend import gpu
        out = Tensor(gpu.sddmm(rows, cols, a.to(dt.float32), b.to(dt.float32)), rows.shape)
        return out.to(a.dtype)
    return F.sum(a.index_select(0, rows) * b.index_select(0, cols), -1)


def transposed_values(c):
    """The coalesced transpose of a 2-D sparse c, without a graph."""
    return _coalesced(SparseTensor(c._sp_indices.flip(0), c._sp_values, (c.shape[1], c.shape[0]), False))[0]


def _spmm(s, d, masked, name):
    """sparse (M, K) @ dense (K, N): the gradient to s is sparse over its entries (masked: torch.sparse.mm)
    or dense (torch.mm, matmul)."""
    _check_mm(s, d, name)
    c = s.coalesce()
    with _tape.no_grad():
        out = spmm_values(c, d)
    return _tape.record("spmm", out, (c, d), masked=masked)


def _dense_times_sparse(d, s, masked, name):
    """dense @ sparse as (sparseᵀ @ denseᵀ)ᵀ."""
    if d.dim() != 2:
        raise RuntimeError(f"{name}: expected a 2-D dense matrix, got {d.dim()}-D")
    return _spmm(s.t(), d.t(), masked, name).t()


def _sparse_times_sparse(a, b):
    """sparse (M, K) @ sparse (K, N), sparse and coalesced as torch's: every pair of an entry (i, k) of a
    and an entry (k, j) of b gives a product at (i, j), and the products are coalesced. The pairs are
    found without a dense intermediate: b's entries are sorted by row, so the entries of b that meet a's
    entry (i, k) are the run of b's row k (its start and length from an index_add and a cumsum)."""
    for s in (a, b):
        if s.dim() != 2:
            raise RuntimeError("Expected mat1_.dim() == 2 to be true, but got false.")
        if s.dense_dim():
            raise RuntimeError(f"sparse_sparse_matmul_cpu: scalar values expected, got {s.dense_dim()}D values")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"mat1 dtype {_TYPE[a.dtype.name]} does not match mat2 dtype {_TYPE[b.dtype.name]}")
    a, b = a.coalesce(), b.coalesce()
    device = a.device
    with _tape.no_grad():
        rows_of_b = b._sp_indices[0]
        run = F.zeros(b.shape[0], dtype=dt.int64, device=device).index_add_(  # b's entries per row
            0, rows_of_b, F.ones(rows_of_b.shape, dtype=dt.int64, device=device))
        run_start = _math_ops.cumsum(run, 0) - run
        cols_of_a = a._sp_indices[1]
        meets = run.index_select(0, cols_of_a)  # how many of b's entries each entry of a meets
        pair_a = _shape_ops.repeat_interleave(F.arange(a._nnz(), device=device), meets)
        first_pair = (_math_ops.cumsum(meets, 0) - meets).index_select(0, pair_a)
        pair_b = run_start.index_select(0, cols_of_a.index_select(0, pair_a)) + \
            F.arange(pair_a.shape[0], device=device) - first_pair
        indices = F.stack([a._sp_indices[0].index_select(0, pair_a), b._sp_indices[1].index_select(0, pair_b)])
    values = values_of(a).index_select(0, pair_a) * values_of(b).index_select(0, pair_b)
    return build(indices, values, (a.shape[0], b.shape[1]), False).coalesce()


def mm(a, b, masked=False, name="mm"):
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        if name == "addmm":
            raise RuntimeError("addmm_sparse_dense: expected either 'mat1' to have sparse layout and 'mat2' to have "
                               "strided layout, got 'mat1' with layout Sparse and 'mat2' with layout Sparse")
        return _sparse_times_sparse(a, b)
    if isinstance(a, SparseTensor):
        return _spmm(a, b, masked, name)
    return _dense_times_sparse(a, b, masked, name)


def matmul(a, b):
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor) and b.dim() == 1:
        return _spmm(a, b.unsqueeze(1), False, "matmul").squeeze(1)
    return mm(a, b, name="matmul")


def addmm(input, mat1, mat2, beta=1, alpha=1, masked=False):
    product = mm(mat1, mat2, masked, "addmm")
    if alpha != 1:
        product = product * alpha
    if isinstance(input, SparseTensor):
        input = input.to_dense()
    if beta == 0:  # torch ignores input then (NaN in it does not propagate)
        return product
    return (input if beta == 1 else input * beta) + product


# -- reductions ------------------------------------------------------------------------------------
def sparse_sum(s, dim=None, dtype=None):
    """torch.sparse.sum: over every dim (a dense 0-d tensor), or over dim (sparse while sparse dims stay)."""
    if dtype is not None:
        s = s.to(dtype)
    if s.dtype is dt.bool_:  # duplicates are one True entry (torch coalesces first), then counted
        s = s.coalesce()
    values = values_of(s)
    if dim is None:
        return values.sum()
    dims = sorted({d % builtins.max(s.dim(), 1) for d in ([dim] if isinstance(dim, int) else dim)})
    sd = s.sparse_dim()
    dense_dims = [d - sd + 1 for d in dims if d >= sd]
    kept = [d for d in range(sd) if d not in dims]
    if dense_dims:
        values = values.sum(dense_dims)
    if not kept:
        return values.sum(0)
    shape = [s.shape[d] for d in kept] + [n for d, n in enumerate(s.shape) if d >= sd and d not in dims]
    return build(s._sp_indices[kept], values, shape, False).coalesce()


def softmax(s, dim, dtype=None, log=False):
    """torch.sparse.softmax / log_softmax: along dim over the specified entries of each slice (the
    unspecified ones count as -inf: they stay unspecified)."""
    if dtype is not None:
        s = s.to(dtype)
    c = s.coalesce()
    dim = dim % s.dim()
    sd = c.sparse_dim()
    values = values_of(c)
    if dim >= sd:
        out = values.log_softmax(dim - sd + 1) if log else values.softmax(dim - sd + 1)
        return build(c._sp_indices, out, s.shape, True)
    others = [d for d in range(sd) if d != dim]
    if others:
        slices = _keys(c._sp_indices[others], [s.shape[d] for d in others])
    else:
        slices = F.zeros(c._nnz(), dtype=dt.int64, device=values.device)
    n = int(slices.amax()) + 1 if c._nnz() else 0
    with _tape.no_grad():  # the shift is any constant per slice: no gradient
        shift = F.full((n, *values.shape[1:]), float("-inf"), dtype=values.dtype, device=values.device)
        spread = slices.reshape(-1, *[1] * (values.dim() - 1)).expand(values.shape)
        shift = _indexing.scatter_reduce(shift, 0, spread, values, "amax")
    shifted = values - shift.index_select(0, slices)
    exp = shifted.exp()
    total = F.zeros((n, *values.shape[1:]), dtype=values.dtype, device=values.device).index_add(0, slices, exp)
    out = shifted - total.log().index_select(0, slices) if log else exp / total.index_select(0, slices)
    return build(c._sp_indices, out, s.shape, True)


# -- repr as torch's -------------------------------------------------------------------------------
def _repr(s):
    return repr_entries(s, [("indices", s._sp_indices), ("values", s._sp_values)])


def repr_entries(s, parts):
    """torch's repr of a sparse tensor of arrays parts [(name, tensor)]: the first suffix on a new line for
    COO (torch's force_newline=is_sparse), on the values' line where it fits for the compressed layouts."""
    suffixes = []
    if s.device.type != "cpu":
        suffixes.append(f"device='{s.device}'")
    suffixes += [f"size={tuple(s.shape)}", f"nnz={s._nnz()}"]
    if s.dtype not in (dt.default_float, dt.int64, dt.bool_):
        suffixes.append(f"dtype=webtorch.{s.dtype.name}")
    suffixes.append(f"layout={s.layout!r}")
    if s.grad_fn is not None:
        suffixes.append(f"grad_fn={s.grad_fn!r}")
    elif s.requires_grad:
        suffixes.append("requires_grad=True")
    texts = []
    for name, t in parts:
        prefix = name + "=tensor("
        host = list(t._host_values()) if t.numel() <= 1000 else None
        text = prefix + _body(t, host, 7 + len(prefix))
        texts.append(text + (f", size={tuple(t.shape)})" if t.numel() == 0 else ")"))
    text = "tensor(" + ",\n       ".join(texts)
    # torch's _add_suffixes: the first suffix on a new line (COO), the others while the line stays within 80
    line, newline = len(text) - text.rfind("\n") + 1, s.layout is sparse_coo
    for suffix in suffixes:
        if newline or line + len(suffix) + 2 > 80:
            text += ",\n       " + suffix
            line, newline = 7 + len(suffix), False
        else:
            text += ", " + suffix
            line += len(suffix) + 2
    return text + ")"
