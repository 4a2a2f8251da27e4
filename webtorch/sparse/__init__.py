"""torch.sparse: sparse COO tensors (their class and arithmetic: _coo.py) and the functions of torch's
sparse namespace that webtorch offers; its other public names are refused (webtorch/_refusals.py)."""
import functools
import types

from .._dtypes import int64
from .._memory_format import sparse_coo, sparse_csc, sparse_csr
from .._ops import zeros
from .._tensor import Tensor
from . import _compressed, _coo
from ._compressed import CompressedTensor, sparse_compressed_tensor, sparse_csc_tensor, sparse_csr_tensor
from ._coo import SparseTensor, sparse_coo_tensor

_SPARSE = (SparseTensor, CompressedTensor)

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax"]


def mm(mat1, mat2, reduce=None):
    """torch.sparse.mm: sparse @ dense (or dense @ sparse); the sparse operand's gradient is sparse, over
    its entries (torch's masked gradient)."""
    if reduce is not None and reduce != "sum":
        raise _coo._refusal(f"torch.sparse.mm(reduce={reduce!r})")
    if not isinstance(mat1, _SPARSE) and not isinstance(mat2, _SPARSE):
        return mat1.mm(mat2)
    return _layouts(_coo.mm)(mat1, mat2, masked=True, name="torch.sparse.mm")


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """torch.sparse.addmm: beta * mat + alpha * (mat1 @ mat2), mat1 sparse (its gradient sparse)."""
    return _layouts(_coo.addmm)(mat, mat1, mat2, beta, alpha, masked=True)


def _layouts(coo_fn):
    """coo_fn, or its form over compressed operands (_compressed.product) where one is CSR/CSC."""
    compressed_fn = _compressed.product(coo_fn)

    def op(*args, **kwargs):
        for a in args:
            if a.__class__ is CompressedTensor:
                return compressed_fn(*args, **kwargs)
        return coo_fn(*args, **kwargs)
    op.__name__ = coo_fn.__name__
    return op


def sum(input, dim=None, dtype=None):  # noqa: A001 (torch.sparse.sum)
    if not isinstance(input, SparseTensor):
        return input.sum(dtype=dtype) if dim is None else input.sum(dim, dtype=dtype)
    return _coo.sparse_sum(input, dim, dtype)


def softmax(input, dim, *, dtype=None):
    return _coo.softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    return _coo.softmax(input, dim, dtype, log=True)


# -- what torch.Tensor and torch offer for sparse tensors ----------------------------------------------
def _dense_only(name, message):
    def refuse(self, *args, **kwargs):
        raise RuntimeError(message)
    refuse.__name__ = name
    return refuse


# Tensor methods a SparseTensor inherits and may use: they read only its shape, dtype and autograd
# fields, or go through its own to()
_INHERITED = set("""dim ndimension size numel nelement element_size is_floating_point is_complex __len__ cpu webgpu
    cuda float half double bfloat16 int long short char byte bool type requires_grad_ backward register_hook
    retain_grad __hash__ __init_subclass__ get_device""".split())


def _sparse_refusal(name):
    def refused(self, *args, **kwargs):
        raise (_compressed if self.__class__ is CompressedTensor else _coo)._refusal(f"Tensor.{name}")
    refused.__name__ = name
    return refused


def _sparse_first(dense_fn, sparse_fn, positions):
    """dense_fn, or sparse_fn where an argument at one of positions is a SparseTensor."""
    @functools.wraps(dense_fn)
    def op(*args, **kwargs):  # (on the dense ops' hot path: a class check per position, no generator)
        n = len(args)
        for i in positions:
            if i < n and args[i].__class__ in _SPARSE:
                return sparse_fn(*args, **kwargs)
        return dense_fn(*args, **kwargs)
    return op


def attach(package):
    """Installs sparse tensors into the package (after every dense name is defined): torch.sparse_coo_tensor,
    the dense Tensor's sparse methods, sparse operands for mm/matmul/addmm/spmm and @, and a refusal on
    SparseTensor for every Tensor method it does not implement."""
    package.sparse_coo_tensor = sparse_coo_tensor
    package.sparse_csr_tensor, package.sparse_csc_tensor = sparse_csr_tensor, sparse_csc_tensor
    package.sparse_compressed_tensor = sparse_compressed_tensor
    for name, positions, sparse_fn in (("mm", (0, 1), _layouts(_coo.mm)), ("matmul", (0, 1), _layouts(_coo.matmul)),
                                       ("addmm", (0, 1, 2), _layouts(_addmm))):
        setattr(package, name, _sparse_first(getattr(package, name), sparse_fn, positions))
        setattr(Tensor, name, _sparse_first(getattr(Tensor, name), sparse_fn, positions))
    package.spmm = package.mm  # torch.spmm: torch.mm with a sparse (or dense) first operand
    package.zeros_like = _sparse_first(package.zeros_like, _zeros_like, (0,))
    package.sum = _sparse_first(package.sum, lambda x, *args, **kwargs: x.sum(*args, **kwargs), (0,))
    relu = package.nn.functional.relu
    package.nn.functional.relu = _sparse_first(relu, lambda x, inplace=False: x.relu_() if inplace else x.relu(), (0,))
    wrapped = {}  # dense function -> its sparse-aware form
    for name in (*_coo.VALUEWISE, "angle"):
        if name in vars(package):  # (not the names webtorch refuses for dense tensors too)
            dense = getattr(package, name)
            wrapped.setdefault(dense, _sparse_first(dense, _method(name), (0,)))
    for name in _BINARY:
        dense = getattr(package, name)
        wrapped.setdefault(dense, _sparse_first(dense, _binary(name), (0, 1)))
    for name, value in list(vars(package).items()):  # every name bound to one (torch.absolute is torch.abs)
        if isinstance(value, types.FunctionType) and value in wrapped:
            setattr(package, name, wrapped[value])
    for name in _BINARY:  # dense_tensor.add(sparse), .add_(sparse), += sparse, ...
        setattr(Tensor, name, _sparse_first(getattr(Tensor, name), _binary(name), (1,)))
        if name in _INPLACE:
            setattr(Tensor, name + "_", _sparse_first(getattr(Tensor, name + "_"), _binary(name, True), (1,)))
    for op, name in (("__iadd__", "add"), ("__isub__", "sub"), ("__imul__", "mul"), ("__itruediv__", "div")):
        # the operator's own form (numpy operands as torch's operators take them), sparse-aware
        setattr(Tensor, op, _sparse_first(getattr(Tensor, op), _binary(name, True), (1,)))
    Tensor.__matmul__ = _sparse_first(Tensor.__matmul__, _layouts(_coo.matmul), (1,))
    Tensor.to_sparse = SparseTensor.to_sparse = _to_sparse
    Tensor.to_sparse_coo = _coo.to_sparse
    Tensor.to_sparse_csr = lambda self, dense_dim=None: _compressed.to_sparse_compressed(self, sparse_csr, dense_dim)
    Tensor.to_sparse_csc = lambda self, dense_dim=None: _compressed.to_sparse_compressed(self, sparse_csc, dense_dim)
    SparseTensor.to_sparse_csr = lambda self, dense_dim=None: _compressed.from_coo(self, sparse_csr, dense_dim)
    SparseTensor.to_sparse_csc = lambda self, dense_dim=None: _compressed.from_coo(self, sparse_csc, dense_dim)
    Tensor.to_dense = lambda self, dtype=None, *, masked_grad=None: self if dtype is None else self.to(dtype)
    Tensor.sparse_dim = lambda self: 0
    Tensor.dense_dim = lambda self: self.dim()
    for name in ("coalesce", "is_coalesced", "indices"):
        setattr(Tensor, name, _dense_only(name, f"{name} expected sparse coordinate tensor layout but got Strided"))
    Tensor.values = _dense_only("values", "values expected sparse tensor layout but got Strided")
    for name, kind in (("crow_indices", "row"), ("col_indices", "row"), ("ccol_indices", "column"),
                       ("row_indices", "column")):
        message = f"{name} expected sparse {kind} compressed tensor layout but got "
        setattr(Tensor, name, _dense_only(name, message + "Strided"))
        setattr(SparseTensor, name, _dense_only(name, message + "Sparse"))
    for name in ("coalesce", "is_coalesced", "indices"):
        setattr(CompressedTensor, name, _coo_only(name))
    for name in ("_indices", "_values"):  # torch: no such kernel for the compressed layouts
        setattr(CompressedTensor, name, _no_kernel(name))
    for cls in _SPARSE:  # in place: the op's result's entries taken over (no autograd)
        for name in ("mul", "div", "add", "sub", *_coo.VALUEWISE):
            if name in vars(cls) and name + "_" not in vars(cls):
                setattr(cls, name + "_", _inplace(name))
    SparseTensor.zero_ = _zero_
    for cls in _SPARSE:
        own = set(vars(cls))
        for name, attr in list(vars(Tensor).items()):
            if callable(attr) and not isinstance(attr, type) and name not in own and name not in _INHERITED \
                    and name not in ("__init__", "__slots__"):
                setattr(cls, name, _sparse_refusal(name))


def _coo_only(name):
    def refuse(self, *args, **kwargs):
        raise RuntimeError(f"{name} expected sparse coordinate tensor layout but got "
                           f"{_compressed._LAYOUT_NAMES[self.layout]}")
    refuse.__name__ = name
    return refuse


def _no_kernel(name):
    def refuse(self, *args, **kwargs):
        raise NotImplementedError(f"Could not run 'aten::{name}' with arguments from the "
                                  f"'{_compressed._LAYOUT_NAMES[self.layout]}' backend: it is only available for "
                                  "sparse COO tensors")
    refuse.__name__ = name
    return refuse


def _to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """Tensor.to_sparse (dense or COO): COO, or the compressed layout asked for."""
    if layout in (sparse_csr, sparse_csc):
        if self.__class__ is SparseTensor:
            return _compressed.from_coo(self, layout, dense_dim)
        return _compressed.to_sparse_compressed(self, layout, dense_dim)
    if self.__class__ is SparseTensor:
        return SparseTensor.to_sparse_coo(self, sparse_dim, layout=layout, blocksize=blocksize)
    return _coo.to_sparse(self, sparse_dim, layout=layout, blocksize=blocksize, dense_dim=dense_dim)


def _inplace(name):
    def op(self, *args, **kwargs):
        return _compressed.assign(self, getattr(self, name)(*args, **kwargs))
    op.__name__ = name + "_"
    return op


def _zero_(self):
    """The entries dropped (torch's zero_ of a sparse COO tensor: nnz 0)."""
    empty = _coo.SparseTensor(self._sp_indices[:, :0], self._sp_values[:0], self.shape, True)
    return _compressed.assign(self, empty)


# the binary arithmetic that takes a sparse operand on either side (the sign of a sum's second operand)
_BINARY = {"add": 1, "sub": -1, "subtract": -1, "mul": 0, "multiply": 0, "div": 0, "divide": 0, "true_divide": 0}
_INPLACE = ("add", "sub", "mul", "div")


def _binary(name, inplace=False):
    """torch.<name>(a, b) (or a.<name>_(b)) where a or b is sparse: SparseTensor's method for a sparse a;
    for a dense a, a dense sum (torch's add(dense, sparse)), a sparse product over b's entries (in place:
    a times b's dense form), or torch's division error."""
    sign = _BINARY[name]

    def op(a, b, *args, **kwargs):
        if a.__class__ in _SPARSE:
            if inplace:
                return getattr(a, name + "_")(b, *args, **kwargs)
            return getattr(a.__class__, name)(a, b, *args, **kwargs)
        if b.__class__ is CompressedTensor:
            if sign:
                return _coo.dense_plus_sparse(a, _compressed.coo_of(b), sign * kwargs.get(
                    "alpha", args[0] if args else 1), inplace)
            b = _compressed.coo_of(b) if inplace else b
        if sign:
            alpha = kwargs.get("alpha", args[0] if args else 1)
            return _coo.dense_plus_sparse(a, b, sign * alpha, inplace)
        if name.startswith("mul"):
            return a.mul_(_coo.densified(b)) if inplace else b.mul(a)
        raise _coo._division_error(b)
    op.__name__ = name + "_" if inplace else name
    return op


def _method(name):
    return lambda self, *args, **kwargs: getattr(self.__class__, name)(self, *args, **kwargs)


def _addmm(input, mat1, mat2, *, beta=1, alpha=1):
    return _coo.addmm(input, mat1, mat2, beta, alpha)



def _zeros_like(x, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """torch.zeros_like of a sparse tensor: a sparse tensor of its size with no entries, in its layout or the
    sparse layout asked for."""
    layout = x.layout if layout is None else layout
    dtype, device = dtype or x.dtype, device or x.device
    if layout not in (sparse_coo, sparse_csr, sparse_csc):
        raise RuntimeError(f"empty_like with different sparse layout is not supported (self is "
                           f"{_compressed._LAYOUT_NAMES[x.layout]} but you requested {str(layout).split('.')[1].capitalize()})")
    dense_dims = tuple(x.shape[x.sparse_dim():])
    values = zeros((0, *dense_dims), dtype=dtype, device=device)
    if layout is sparse_coo:
        out = SparseTensor(zeros((x.sparse_dim(), 0), dtype=int64, device=device), values, x.shape, True)
    else:
        n = x.shape[0 if layout is sparse_csr else 1]
        out = CompressedTensor(zeros(n + 1, dtype=int64, device=device), zeros(0, dtype=int64, device=device), values,
                               x.shape, layout)
    out.requires_grad = requires_grad
    return out
