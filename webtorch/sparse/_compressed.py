"""Sparse compressed tensors (torch.sparse_csr, torch.sparse_csc) of one matrix, with trailing dense dims
(hybrid) allowed and no batch dims: compressed indices (the entries of row r of a CSR tensor, of column r
of a CSC one, are [compressed[r], compressed[r + 1])), plain indices (each entry's column, or row) and
values (nnz, *dense dims), as torch's.

Everything is derived from sparse COO (_coo.py): a compressed tensor's entries, in its compressed order,
are a COO tensor (coo_of: recorded on the tape, so gradients flow), and a COO result is compressed again
(from_coo: the entries sorted by a coalesce of the matrix, or of its transpose for CSC, and the pointers
a cumsum of the entries per row). A CSR tensor's order is row-major, so its COO form is coalesced.

Gradients, as for COO: the gradient of a compressed tensor is compressed over its own entries in its
order (the dense gradient sampled there) or dense. The rules are autograd.BACKWARD's rows
sparse_compressed_tensor (values -> tensor), compressed_values, compressed_to_coo and compressed_t.
"""
from .. import _dtypes as dt, _math_ops, _ops as F, _shape_ops, _tape
from .._memory_format import sparse_coo, sparse_csc, sparse_csr
from .._tensor import Size, Tensor, to_targets, versions
from . import _coo
from ._coo import SparseTensor

_NAMES = {sparse_csr: ("crow_indices", "col_indices", "row", "SparseCsr", "Csr"),
          sparse_csc: ("ccol_indices", "row_indices", "column", "SparseCsc", "Csc")}
_LAYOUT_NAMES = {sparse_coo: "Sparse", sparse_csr: "SparseCsr", sparse_csc: "SparseCsc"}


def _refusal(what):
    return NotImplementedError(
        f"webtorch: {what} does not take a sparse CSR/CSC tensor (webtorch's compressed tensors support "
        "construction, crow/col/ccol/row indices and values, to_dense, layout conversions, t, to, products with "
        "dense and compressed tensors, addition, multiplication, sum, the elementwise ops that map 0 to 0 and "
        "in-place mul_/add_/zero_; call .to_dense() or .to_sparse() first)")


class CompressedTensor(Tensor):
    __slots__ = ("_cs_compressed", "_cs_plain", "_cs_values", "_cs_layout")

    def __init__(self, compressed, plain, values, shape, layout):
        self._storage = _coo._NoStorage(values.dtype)
        self.shape = Size(shape)
        self._stride = (0,) * len(shape)
        self._offset = 0
        self.dtype = values.dtype
        self.grad_fn = self._base = self.grad = self._own_versions = None
        self._requires_grad = False
        self._cs_compressed, self._cs_plain, self._cs_values, self._cs_layout = compressed, plain, values, layout

    # -- what a compressed tensor is -------------------------------------------------------------
    is_sparse = property(lambda self: False)  # (torch's is_sparse: COO only)
    is_sparse_csr = property(lambda self: self._cs_layout is sparse_csr)
    layout = property(lambda self: self._cs_layout)
    device = property(lambda self: self._cs_values.device)
    is_cpu = property(lambda self: self._cs_values.is_cpu)
    is_meta = property(lambda self: False)

    def stride(self, dim=None):
        raise RuntimeError(f"Sparse {_NAMES[self._cs_layout][4].upper()} tensors do not have strides")

    def is_contiguous(self, memory_format=None):
        raise RuntimeError(f"Sparse {_NAMES[self._cs_layout][4].upper()} tensors do not have is_contiguous")

    def sparse_dim(self):
        return 2

    def dense_dim(self):
        return self.dim() - 2

    def _nnz(self):
        return self._cs_plain.shape[0]

    def _indices_of(self, name, layout):
        if self._cs_layout is not layout:
            kind = "row" if layout is sparse_csr else "column"
            raise RuntimeError(f"{name} expected sparse {kind} compressed tensor layout but got "
                               f"{_LAYOUT_NAMES[self._cs_layout]}")
        return F.detach(self._cs_compressed if name.endswith(("crow_indices", "ccol_indices")) else self._cs_plain)

    def crow_indices(self):
        return self._indices_of("crow_indices", sparse_csr)

    def col_indices(self):
        return self._indices_of("col_indices", sparse_csr)

    def ccol_indices(self):
        return self._indices_of("ccol_indices", sparse_csc)

    def row_indices(self):
        return self._indices_of("row_indices", sparse_csc)

    def values(self):
        return _tape.record("compressed_values", F.detach(self._cs_values), (self,))

    @property
    def data(self):
        return self.detach()

    # -- conversions ----------------------------------------------------------------------------
    def to_dense(self, dtype=None, *, masked_grad=None):
        if dtype is not None:
            raise RuntimeError(f"dtype argument is not supported by sparse_{_NAMES[self._cs_layout][4].lower()}"
                               "_to_dense")
        return coo_of(self).to_dense()

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        if layout in (sparse_csr, sparse_csc):
            return self.to_sparse_csr(dense_dim) if layout is sparse_csr else self.to_sparse_csc(dense_dim)
        _coo._check_layout(layout, blocksize)
        if sparse_dim is not None and sparse_dim != 2:
            raise RuntimeError(f"sparse_compressed_to_sparse: conversion from {_LAYOUT_NAMES[self._cs_layout]} to "
                               "Sparse with sparse_dim argument !=2 is not supported")
        return coo_of(self)

    def to_sparse_coo(self, sparse_dim=None):
        return self.to_sparse(sparse_dim)

    def to_sparse_csr(self, dense_dim=None):
        return self if self._cs_layout is sparse_csr else from_coo(coo_of(self), sparse_csr)

    def to_sparse_csc(self, dense_dim=None):
        return self if self._cs_layout is sparse_csc else from_coo(coo_of(self), sparse_csc)

    def to(self, *args, **kwargs):
        device, dtype = to_targets(args, kwargs)
        tensors = (self._cs_compressed, self._cs_plain, self._cs_values)
        if dtype is not None and dtype is not self.dtype:
            tensors = tensors[:2] + (tensors[2].to(dtype),)
        if device is not None and device.type != self.device.type:
            tensors = tuple(t.to(device) for t in tensors)
        if tensors[2] is self._cs_values:
            return self
        out = CompressedTensor(*tensors, self.shape, self._cs_layout)
        return _tape.record("sparse_to", out, (self,))

    def detach(self):
        return CompressedTensor(self._cs_compressed, self._cs_plain, F.detach(self._cs_values), self.shape,
                                self._cs_layout)

    def clone(self, *, memory_format=None):
        return _valuewise_of(self, F.clone(self.values()))

    def t(self):
        """CSR of A is CSC of Aᵀ with the same arrays (and back)."""
        if self.dense_dim():
            raise RuntimeError("t() expects a tensor with <= 2 sparse and 0 dense dimensions")
        out = CompressedTensor(self._cs_compressed, self._cs_plain, self._cs_values, (self.shape[1], self.shape[0]),
                               sparse_csc if self._cs_layout is sparse_csr else sparse_csr)
        return _tape.record("compressed_t", out, (self,))

    def transpose(self, dim0, dim1):
        if {dim0 % self.dim(), dim1 % self.dim()} == {0, 1}:
            return self.t()
        if dim0 % self.dim() == dim1 % self.dim():
            return self
        raise _refusal("transpose of a dense dim")

    # -- arithmetic -----------------------------------------------------------------------------
    def mul(self, other):
        if isinstance(other, (int, float, bool)) or isinstance(other, Tensor) and not other.dim() and \
                not is_sparse_any(other):
            return _valuewise_of(self, self.values() * other)
        if self._cs_layout is sparse_csc or getattr(other, "layout", None) is sparse_csc:
            raise RuntimeError("Expected result Tensor to be of format CSR")  # (torch's mul of CSC tensors)
        return _through_coo(self, other, lambda a, b: a * b)

    __mul__ = __rmul__ = multiply = mul

    def add(self, other, *, alpha=1):
        if not isinstance(other, Tensor):
            raise RuntimeError(f"unsupported tensor layout: {_LAYOUT_NAMES[self._cs_layout]}")
        if not is_sparse_any(other):  # csr + dense: dense, its gradient to self dense, as torch's
            return F.add(_coo.densified(coo_of(self)), other, alpha=alpha)
        if self._cs_layout is sparse_csc:
            raise RuntimeError("crow_indices expected sparse row compressed tensor layout but got SparseCsc")
        return _through_coo(self, other, lambda a, b: a.add(b, alpha=alpha))

    __add__ = add

    def __radd__(self, other):
        if not isinstance(other, Tensor):
            raise RuntimeError(f"unsupported tensor layout: {_LAYOUT_NAMES[self._cs_layout]}")
        return F.add(other, _coo.densified(coo_of(self)))

    def __neg__(self):
        return self.neg()

    def sum(self, dim=None, keepdim=False, dtype=None):
        if dim is None:  # a dense 0-d tensor, its gradient to self dense, as torch's
            return _coo.densified(coo_of(self)).sum(dtype=dtype)
        if self._cs_layout is sparse_csc:
            raise RuntimeError("Currently the only compressed sparse format supported for sum.dim_IntList is CSR, but "
                               "got layout SparseCsc")
        if not keepdim:
            raise RuntimeError("reduction operations on CSR tensors with keepdim=False is unsupported")
        dims = sorted({d % self.dim() for d in ([dim] if isinstance(dim, int) else dim)})
        if any(d >= 2 for d in dims):
            raise _refusal("sum over a dense dim")
        s = coo_of(self).to(dtype) if dtype is not None else coo_of(self)
        kept = _coo.sparse_sum(s, dims)
        indices = kept._sp_indices if isinstance(kept, SparseTensor) else None
        values = _coo.values_of(kept) if isinstance(kept, SparseTensor) else kept.reshape(1, *kept.shape)
        full = [F.zeros(values.shape[0], dtype=dt.int64, device=values.device)] * 2
        if indices is not None:
            full[1 - dims[0]] = indices[0]
        size = [1 if d in dims else n for d, n in enumerate(self.shape)]
        return from_coo(_coo.build(F.stack(full), values, size, True), sparse_csr)

    # -- in place (no autograd: torch's in-place sparse ops on a tensor that requires grad differ) -----
    def mul_(self, other):
        return assign(self, self.mul(other))

    def add_(self, other, *, alpha=1):
        if not is_sparse_any(other):
            raise RuntimeError(f"Sparse {_NAMES[self._cs_layout][4].upper()} tensors do not have is_contiguous")
        return assign(self, self.add(other, alpha=alpha))

    def zero_(self):
        empty = F.zeros((0, *self.shape[2:]), dtype=self.dtype, device=self.device)
        pointers = F.zeros(self.shape[0 if self._cs_layout is sparse_csr else 1] + 1, dtype=self._cs_compressed.dtype,
                           device=self.device)
        return assign(self, CompressedTensor(pointers, self._cs_plain[:0], empty, self.shape, self._cs_layout))

    def __repr__(self):
        names = _NAMES[self._cs_layout]
        return _coo.repr_entries(self, [(names[0], self._cs_compressed), (names[1], self._cs_plain),
                                        ("values", self._cs_values)])

    def __reduce_ex__(self, proto):
        return _rebuild, (self._cs_compressed, self._cs_plain, F.detach(self._cs_values), tuple(self.shape),
                          self._cs_layout is sparse_csr, self.requires_grad)


def is_sparse_any(x):
    return isinstance(x, (SparseTensor, CompressedTensor))


def _rebuild(compressed, plain, values, shape, is_csr, requires_grad=False):
    """A pickled compressed tensor back (CompressedTensor.__reduce_ex__: copy.deepcopy, pickle)."""
    out = CompressedTensor(compressed, plain, values, shape, sparse_csr if is_csr else sparse_csc)
    out.requires_grad = requires_grad
    return out


def assign(x, result):
    """x takes result's entries (an in-place op on a sparse tensor, COO or compressed)."""
    if x.requires_grad and _tape.is_grad_enabled():
        raise _refusal("an in-place op on a sparse tensor that requires grad")
    if isinstance(x, CompressedTensor):
        x._cs_compressed, x._cs_plain, x._cs_values = result._cs_compressed, result._cs_plain, F.detach(
            result._cs_values)
    else:
        x._sp_indices, x._sp_values, x._sp_coalesced = result._sp_indices, F.detach(result._sp_values), \
            result._sp_coalesced
    versions(x).version += 1
    return x


def _valuewise_of(x, values):
    """A compressed tensor of x's entries holding values (their gradient reaches values)."""
    return compressed_tensor(x._cs_compressed, x._cs_plain, values, x.shape, x._cs_layout)


def _valuewise(name):
    def op(self, *args, **kwargs):
        if name in _coo.IDENTITIES and not self.dtype.is_complex:
            return self
        return _valuewise_of(self, getattr(self.values(), name)(*args, **kwargs))
    op.__name__ = name
    return op


for _name in (*_coo.VALUEWISE, "angle"):  # (torch's angle takes CSR/CSC, not COO)
    setattr(CompressedTensor, _name, _valuewise(_name))


def _through_coo(a, b, op):
    """op on the COO forms of a and b, compressed back to a's layout where the result is sparse."""
    out = op(coo_of(a) if isinstance(a, CompressedTensor) else a, coo_of(b) if isinstance(b, CompressedTensor) else b)
    return from_coo(out, a._cs_layout if isinstance(a, CompressedTensor) else b._cs_layout) \
        if isinstance(out, SparseTensor) else out


# -- between layouts -------------------------------------------------------------------------------
def _entries(x):
    """(row, column) indices (2, nnz) of x's entries in its compressed order, int64."""
    compressed, plain = x._cs_compressed.to(dt.int64), x._cs_plain.to(dt.int64)
    n = compressed.shape[0] - 1
    lengths = compressed[1:] - compressed[:-1]
    major = _shape_ops.repeat_interleave(F.arange(n, device=compressed.device), lengths) if x._nnz() else plain
    return F.stack([major, plain] if x._cs_layout is sparse_csr else [plain, major])


def coo_of(x):
    """x's entries, in its order, as a COO tensor on the tape (coalesced for CSR: row-major order)."""
    out = SparseTensor(_entries(x), F.detach(x._cs_values), x.shape, x._cs_layout is sparse_csr or x._nnz() < 2)
    return _tape.record("compressed_to_coo", out, (x,))


def _pointers(major, n, device):
    """Compressed indices of sorted major indices: n + 1 pointers, the cumsum of the entries per row."""
    counts = F.zeros(n + 1, dtype=dt.int64, device=device).index_add_(
        0, major + 1, F.ones(major.shape, dtype=dt.int64, device=device))
    return _math_ops.cumsum(counts, 0)


def from_coo(s, layout, dense_dim=None):
    """The COO tensor s (2 sparse dims) compressed: its coalesced entries, ordered by row (CSR) or column
    (CSC); their values carry the gradient back to s."""
    if s.sparse_dim() != 2:
        raise RuntimeError(f"coo_to_sparse_{_NAMES[layout][4].lower()}: conversion from Sparse to "
                           f"{_LAYOUT_NAMES[layout]} for input tensors with sparse_dim()!=2 is not supported")
    if dense_dim is not None:
        raise RuntimeError(f"coo_to_sparse_{_NAMES[layout][4].lower()}: conversion from Sparse to "
                           f"{_LAYOUT_NAMES[layout]} with dense_dim argument given is not supported")
    if layout is sparse_csc:  # the transpose's row-major order is the column-major order
        s = _coo.build(s._sp_indices.flip(0), _coo.values_of(s), (s.shape[1], s.shape[0], *s.shape[2:]), False)
    c = s.coalesce()
    major, plain = c._sp_indices[0], c._sp_indices[1]
    shape = c.shape if layout is sparse_csr else (c.shape[1], c.shape[0], *c.shape[2:])
    return compressed_tensor(_pointers(major, c.shape[0], major.device), plain, _coo.values_of(c), shape, layout)


def to_sparse_compressed(x, layout, dense_dim=None):
    """Tensor.to_sparse_csr / to_sparse_csc of a dense tensor (dense_dim trailing dims stay in the values)."""
    name = _NAMES[layout][4].lower()
    if x.dim() < 2:
        raise IndexError(f"to_sparse_{name}: a {x.dim()}-D tensor has no rows and columns")
    dd = 0 if dense_dim is None else dense_dim
    if not 0 <= dd <= x.dim() - 2:
        raise RuntimeError(f"dense_to_sparse_{name}: dense_dim argument must be in [0,{x.dim() - 2}] range, but "
                           f"{dd} is given")
    if x.dim() - dd != 2:
        raise _refusal(f"to_sparse_{name} of a batched tensor (batch dims)")
    return from_coo(_coo.to_sparse(x, 2), layout)


# -- construction ----------------------------------------------------------------------------------
def compressed_tensor(compressed, plain, values, shape, layout):
    """A compressed tensor of checked arrays; values' gradient is the compressed gradient's values."""
    out = CompressedTensor(compressed, plain, F.detach(values), shape, layout)
    entries = CompressedTensor(compressed, plain, out._cs_values, shape, layout)  # (the node holds no cycle to out)
    return _tape.record("sparse_compressed_tensor", out, (values,), entries=entries)


def _as_tensor(x, dtype=None):
    return x if isinstance(x, Tensor) else F.tensor(x, dtype=dtype)


def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *, dtype=None, layout=None,
                             device=None, pin_memory=False, requires_grad=False, check_invariants=None):
    """torch.sparse_compressed_tensor: checked always, as torch's check_invariants=True checks (an index
    outside the size would make to_dense write outside the tensor), with torch's messages."""
    if layout not in (sparse_csr, sparse_csc):
        if layout in (None, sparse_coo):
            raise RuntimeError("sparse_compressed_tensor expected sparse compressed tensor layout but got "
                               f"{'none' if layout is None else 'Sparse'}")
        raise _refusal(f"{layout} tensors (BSR/BSC)")
    names = _NAMES[layout]
    compressed, plain = _as_tensor(compressed_indices, dt.int64), _as_tensor(plain_indices, dt.int64)
    values = _as_tensor(values, dtype)
    target = device if device is not None else values.device
    values = values.to(target) if dtype is None else values.to(target, dtype)
    compressed, plain = compressed.to(target), plain.to(target)
    if compressed.dtype is not plain.dtype:
        raise RuntimeError(f"{names[0]} and {names[1]} must have the same dtype, bot got "
                           f"{_coo._TYPE[compressed.dtype.name]} and {_coo._TYPE[plain.dtype.name]}, respectively")
    if compressed.dtype not in (dt.int32, dt.int64):
        raise RuntimeError(f"{names[0]} and {names[1]} must be an int32 or int64 type, but got: {compressed.dtype}")
    if compressed.dim() != plain.dim():
        raise RuntimeError(f"{names[0]} and {names[1]} dimensionalities must be equal but got {compressed.dim()} "
                           f"and {plain.dim()}, respectively")
    if compressed.dim() != 1:
        raise _refusal(f"torch.sparse_{names[4].lower()}_tensor with batch dims")
    if values.dim() < 1:
        raise RuntimeError(f"values must have dimensionality > sum of batch and block dimensionalities (=0 + 0) but "
                           f"got {values.dim()}")
    nnz = values.shape[0]
    if size is None:
        n_plain = int(plain.amax()) + 1 if plain.numel() else 0
        size = [compressed.shape[0] - 1, n_plain] if layout is sparse_csr else [n_plain, compressed.shape[0] - 1]
        size += list(values.shape[1:])
    size = tuple(int(n) for n in size)
    if len(size) != 2 + values.dim() - 1:
        raise RuntimeError(f"tensor dimensionality must be sum of batch, base, and dense dimensionalities (=0 + 2 + "
                           f"{values.dim() - 1}) but got {len(size)}")
    n_major, n_minor = (size[0], size[1]) if layout is sparse_csr else (size[1], size[0])
    if compressed.shape[0] != n_major + 1:
        raise RuntimeError(f"{names[0]}.shape[-1] must be equal to the number of {names[2]}s + 1 (={n_major + 1}), "
                           f"but got {compressed.shape[0]}")
    if plain.shape[0] != nnz:
        raise RuntimeError(f"{names[1]}.shape[-1] must be equal to nnz (={nnz}) as defined by values.shape[0], but "
                           f"got {plain.shape[0]}")
    if tuple(values.shape[1:]) != size[2:]:
        raise RuntimeError(f"values.shape[1:] must be equal to the dense dims of size {list(size[2:])}, but got "
                           f"{list(values.shape[1:])}")
    pointers = compressed.tolist()
    minor = "ncols" if layout is sparse_csr else "nrows"
    if pointers[0] != 0:
        raise RuntimeError(f"`{names[0]}[..., 0] == 0` is not satisfied.")
    if pointers[-1] != nnz:
        raise RuntimeError(f"`{names[0]}[..., -1] == nnz` is not satisfied.")
    if any(not 0 <= b - a <= n_minor for a, b in zip(pointers, pointers[1:])):
        raise RuntimeError(f"`0 <= {names[0]}[..., 1:] - {names[0]}[..., :-1] <= {minor}` is not satisfied.")
    if nnz:
        if int(plain.amin()) < 0 or int(plain.amax()) >= n_minor:
            raise RuntimeError(f"`0 <= {names[1]} < {minor}` is not satisfied.")
        row = _entries(CompressedTensor(compressed, plain, values, size, layout))[0 if layout is sparse_csr else 1]
        keys = (row * n_minor + plain.to(dt.int64)).tolist()
        if any(b <= a for a, b in zip(keys, keys[1:])):
            raise RuntimeError(f"`{names[1]}[..., {names[0]}[..., i - 1]:{names[0]}[..., i]] for all i = 1, ..., "
                               f"n{names[2]}s are sorted and distinct along the last dimension values` is not "
                               "satisfied.")
    out = compressed_tensor(compressed, plain, values, size, layout)
    if requires_grad:
        out.requires_grad = True
    return out


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None):
    return sparse_compressed_tensor(crow_indices, col_indices, values, size, dtype=dtype, layout=sparse_csr,
                                    device=device, requires_grad=requires_grad)


def sparse_csc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None):
    return sparse_compressed_tensor(ccol_indices, row_indices, values, size, dtype=dtype, layout=sparse_csc,
                                    device=device, requires_grad=requires_grad)


# -- products --------------------------------------------------------------------------------------
def as_coo(x):
    return coo_of(x) if isinstance(x, CompressedTensor) else x


def product(coo_fn):
    """coo_fn (a COO product) over compressed operands: a sparse result is CSR (torch's csr @ csr and
    csc @ csc are), a dense one as it is."""
    def op(*args, **kwargs):
        out = coo_fn(*(as_coo(a) for a in args), **kwargs)
        return from_coo(out, sparse_csr) if isinstance(out, SparseTensor) else out
    op.__name__ = coo_fn.__name__
    return op


# -- gradients (autograd.BACKWARD rows) ------------------------------------------------------------
def values_at(g, x):
    """The gradient g of the compressed tensor x at its entries: g's own values when g is compressed."""
    if isinstance(g, CompressedTensor):
        return g._cs_values
    return g[tuple(_entries(x))]


def like(x, values):
    """A gradient of x compressed over x's entries."""
    return CompressedTensor(x._cs_compressed, x._cs_plain, values, x.shape, x._cs_layout)


def from_coo_gradient(x, g):
    """The gradient of compressed x from that of its COO form (sparse over the same entries, or dense)."""
    return like(x, g._sp_values) if isinstance(g, SparseTensor) else g


def add_gradients(a, b):
    """The sum of two gradients of one compressed tensor (compressed over its entries, or dense)."""
    if isinstance(a, CompressedTensor) and isinstance(b, CompressedTensor):
        return like(a, a._cs_values + b._cs_values)
    return (a.to_dense() if isinstance(a, CompressedTensor) else a) + \
        (b.to_dense() if isinstance(b, CompressedTensor) else b)


CompressedTensor.mm = product(_coo.mm)
CompressedTensor.matmul = CompressedTensor.__matmul__ = product(_coo.matmul)
CompressedTensor.__rmatmul__ = lambda self, other: CompressedTensor.matmul(other, self)
