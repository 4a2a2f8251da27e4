"""torch.sparse: sparse COO tensors (their class and arithmetic: _coo.py) and the functions of torch's
sparse namespace that webtorch offers; its other public names are refused (webtorch/_refusals.py)."""
import functools
import types

from .._tensor import Tensor
from . import _coo
from ._coo import SparseTensor, sparse_coo_tensor

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax"]


def mm(mat1, mat2, reduce=None):
    """torch.sparse.mm: sparse @ dense (or dense @ sparse); the sparse operand's gradient is sparse, over
    its entries (torch's masked gradient)."""
    if reduce is not None and reduce != "sum":
        raise _coo._refusal(f"torch.sparse.mm(reduce={reduce!r})")
    if not isinstance(mat1, SparseTensor) and not isinstance(mat2, SparseTensor):
        return mat1.mm(mat2)
    return _coo.mm(mat1, mat2, masked=True, name="torch.sparse.mm")


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """torch.sparse.addmm: beta * mat + alpha * (mat1 @ mat2), mat1 sparse (its gradient sparse)."""
    return _coo.addmm(mat, mat1, mat2, beta, alpha, masked=True)


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
        raise _coo._refusal(f"Tensor.{name}")
    refused.__name__ = name
    return refused


def _sparse_first(dense_fn, sparse_fn, positions):
    """dense_fn, or sparse_fn where an argument at one of positions is a SparseTensor."""
    @functools.wraps(dense_fn)
    def op(*args, **kwargs):  # (on the dense ops' hot path: a class check per position, no generator)
        n = len(args)
        for i in positions:
            if i < n and args[i].__class__ is SparseTensor:
                return sparse_fn(*args, **kwargs)
        return dense_fn(*args, **kwargs)
    return op


def attach(package):
    """Installs sparse tensors into the package (after every dense name is defined): torch.sparse_coo_tensor,
    the dense Tensor's sparse methods, sparse operands for mm/matmul/addmm/spmm and @, and a refusal on
    SparseTensor for every Tensor method it does not implement."""
    package.sparse_coo_tensor = sparse_coo_tensor
    for name, positions, sparse_fn in (("mm", (0, 1), _coo.mm), ("matmul", (0, 1), _coo.matmul),
                                       ("addmm", (0, 1, 2), _addmm)):
        setattr(package, name, _sparse_first(getattr(package, name), sparse_fn, positions))
        setattr(Tensor, name, _sparse_first(getattr(Tensor, name), sparse_fn, positions))
    package.spmm = package.mm  # torch.spmm: torch.mm with a sparse (or dense) first operand
    wrapped = {}  # dense function -> its sparse-aware form
    for name in _coo.VALUEWISE:
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
    Tensor.__matmul__ = _sparse_first(Tensor.__matmul__, _coo.matmul, (1,))
    Tensor.to_sparse = Tensor.to_sparse_coo = _coo.to_sparse
    Tensor.to_dense = lambda self, dtype=None, *, masked_grad=None: self if dtype is None else self.to(dtype)
    Tensor.sparse_dim = lambda self: 0
    Tensor.dense_dim = lambda self: self.dim()
    for name in ("coalesce", "is_coalesced", "indices"):
        setattr(Tensor, name, _dense_only(name, f"{name} expected sparse coordinate tensor layout but got Strided"))
    Tensor.values = _dense_only("values", "values expected sparse tensor layout but got Strided")
    own = set(vars(SparseTensor))
    for name, attr in list(vars(Tensor).items()):
        if callable(attr) and not isinstance(attr, type) and name not in own and name not in _INHERITED \
                and name not in ("__init__", "__slots__"):
            setattr(SparseTensor, name, _sparse_refusal(name))


# the binary arithmetic that takes a sparse operand on either side (the sign of a sum's second operand)
_BINARY = {"add": 1, "sub": -1, "subtract": -1, "mul": 0, "multiply": 0, "div": 0, "divide": 0, "true_divide": 0}
_INPLACE = ("add", "sub", "mul", "div")


def _binary(name, inplace=False):
    """torch.<name>(a, b) (or a.<name>_(b)) where a or b is sparse: SparseTensor's method for a sparse a;
    for a dense a, a dense sum (torch's add(dense, sparse)), a sparse product over b's entries (in place:
    a times b's dense form), or torch's division error."""
    sign = _BINARY[name]

    def op(a, b, *args, **kwargs):
        if a.__class__ is SparseTensor:
            if inplace:
                raise _coo._refusal(f"Tensor.{name}_")
            return getattr(SparseTensor, name)(a, b, *args, **kwargs)
        if sign:
            alpha = kwargs.get("alpha", args[0] if args else 1)
            return _coo.dense_plus_sparse(a, b, sign * alpha, inplace)
        if name.startswith("mul"):
            return a.mul_(_coo.densified(b)) if inplace else b.mul(a)
        raise _coo._division_error(b)
    op.__name__ = name + "_" if inplace else name
    return op


def _method(name):
    return lambda self, *args, **kwargs: getattr(SparseTensor, name)(self, *args, **kwargs)


def _addmm(input, mat1, mat2, *, beta=1, alpha=1):
    return _coo.addmm(input, mat1, mat2, beta, alpha)

