"""More math: the elementwise ops of ops_table's second half, scans (cumsum, cumprod), sorting
(sort, argsort, topk, median), norms and distances, fused multiply-adds (addmm, baddbmm, lerp,
addcmul, addcdiv), nan_to_num.

scan and sort are primitives (backend.scan, backend.sort: a running total and an ordering cannot
be built from elementwise ops and reductions at less than quadratic cost); the rest is derived.
"""
import builtins
import math
from collections import namedtuple

from . import _dtypes as dt
from . import _ops, autograd
from ._indexing import gather
from ._ops import _binary, _is_tensor, _unary, _wrap_dim, add, cast, mul, sub, where
from ._shape_ops import movedim
from ._tensor import Tensor, backend

__all__ = ["log1p", "expm1", "exp2", "log2", "log10", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
           "acosh", "atanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "frac", "atan2",
           "arctan2", "hypot", "cumsum", "cumprod", "sort", "argsort", "topk", "median", "norm", "dist", "cdist",
           "outer", "ger", "addmm", "addmv", "baddbmm", "lerp", "addcmul", "addcdiv", "nan_to_num", "msort"]


log1p, expm1, exp2, log2, log10 = (_unary(n) for n in ("log1p", "expm1", "exp2", "log2", "log10"))
tan, asin, acos, atan = (_unary(n) for n in ("tan", "asin", "acos", "atan"))
sinh, cosh, asinh, acosh, atanh = (_unary(n) for n in ("sinh", "cosh", "asinh", "acosh", "atanh"))
frac = _unary("frac")
atan2, hypot = _binary("atan2"), _binary("hypot")
arcsin, arccos, arctan, arcsinh, arccosh, arctanh, arctan2 = asin, acos, atan, asinh, acosh, atanh, atan2


# -- along one dim: scan and sort ------------------------------------------------------------
def _last_dim_op(x, dim, run):
    """run(x with dim moved last) -> storages shaped like it; results moved back, contiguous."""
    if x.dim() == 0:
        x, dim = _ops.reshape(x, 1), 0
        return [_ops.reshape(r, ()) for r in _last_dim_op(x, dim, run)]
    d = _wrap_dim(dim, x.dim())
    moved = movedim(x, d, -1)
    results = [Tensor(s, moved.shape) for s in run(moved)]
    if d == x.dim() - 1:
        return results
    return [_ops.contiguous(movedim(r, -1, d)) for r in results]


def _scan(op, x, dim, dtype):
    if dtype is not None:
        x = cast(x, dtype)
    elif x.dtype.category < 2:
        x = cast(x, dt.int64)
    return _last_dim_op(x, dim, lambda m: [backend(m.device.type).scan(op, m)])[0]


def cumsum(x, dim, dtype=None):
    return autograd.record("cumsum", _scan("sum", x, dim, dtype), (x,), dim=_wrap_dim(dim, max(x.dim(), 1)))


def cumprod(x, dim, dtype=None):
    return autograd.record("cumprod", _scan("prod", x, dim, dtype), (x,), dim=_wrap_dim(dim, max(x.dim(), 1)))


_Sort = namedtuple("sort", ["values", "indices"])
_TopK = namedtuple("topk", ["values", "indices"])
_Median = namedtuple("median", ["values", "indices"])


def sort(x, dim=-1, descending=False, stable=False):
    """Always stable (ties keep their order), which PyTorch allows for stable=False too."""
    values, indices = _last_dim_op(x, dim, lambda m: backend(m.device.type).sort(m, descending))
    if x.dim():
        autograd.record("sort", values, (x,), dim=_wrap_dim(dim, x.dim()), indices=indices)
    else:
        autograd.record("copy", values, (x,))
    return _Sort(values, indices)


def argsort(x, dim=-1, descending=False, stable=False):
    return sort(x, dim, descending).indices


def msort(x):
    return sort(x, 0).values


def topk(x, k, dim=-1, largest=True, sorted=True):
    d = _wrap_dim(dim, x.dim())
    size = x.shape[d] if x.dim() else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    values, indices = sort(x, d, descending=largest)
    if x.dim() == 0:
        return _TopK(values, indices)
    return _TopK(_ops.narrow(values, d, 0, k), _ops.narrow(indices, d, 0, k))


def median(x, dim=None, keepdim=False):
    """The lower median; NaN (the first one) if the row has any."""
    if dim is None:
        if x.numel() == 0:
            return _ops.full((), math.nan, dtype=x.dtype, device=x.device)
        with autograd.no_grad():
            value = median(_ops.reshape(x, -1), 0).values
        # as torch: the gradient is shared by every element equal to the median
        return autograd.record("median_all", value, (x,), dims=tuple(range(x.dim())), keepdim=False)
    d = _wrap_dim(dim, x.dim())
    if x.dim() == 0:
        return _Median(*sort(x))
    if x.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    values, indices = sort(x, d)
    n = x.shape[d]
    nans = _ops.sum(_ops.isnan(x), d, keepdim=True)
    pos = where(_ops.gt(nans, 0), sub(n, nans), (n - 1) // 2)  # NaNs sort last
    values, indices = gather(values, d, pos), gather(indices, d, pos)
    if not keepdim:
        values, indices = _ops.squeeze(values, d), _ops.squeeze(indices, d)
    return _Median(values, indices)


# -- norms and distances ---------------------------------------------------------------------
def vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = cast(x, dtype)
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{'Long' if x.dtype is dt.int64 else x.dtype.name.capitalize()}")
    a = _ops.abs(x)
    if ord == math.inf:
        return _ops.amax(a, dim if dim is not None else (), keepdim)
    if ord == -math.inf:
        return _ops.amin(a, dim if dim is not None else (), keepdim)
    if ord == 0:
        return _ops.sum(cast(_ops.ne(x, 0), x.dtype), dim, keepdim)
    if ord == 1:
        return _ops.sum(a, dim, keepdim)
    if ord == 2:
        return _ops.sqrt(_ops.sum(mul(x, x), dim, keepdim))
    return _ops.pow(_ops.sum(_ops.pow(a, ord), dim, keepdim), 1.0 / ord)


def norm(x, p="fro", dim=None, keepdim=False, dtype=None):
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"webtorch: norm p={p!r} is not supported")
    return vector_norm(x, p, dim, keepdim, dtype=dtype)


def dist(a, b, p=2):
    return vector_norm(sub(a, b), p)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Euclidean distances of more than 25 rows on either side go through a matmul, as torch's
    default compute_mode does (‖a‖² + ‖b‖² - 2ab, no P×R×M difference tensor)."""
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or compute_mode ==
                         "use_mm_for_euclid_dist_if_necessary" and (x1.shape[-2] > 25 or x2.shape[-2] > 25))
    if not use_mm:
        return vector_norm(sub(_ops.unsqueeze(x1, -2), _ops.unsqueeze(x2, -3)), p, -1)
    sq1 = _ops.sum(mul(x1, x1), -1, keepdim=True)
    sq2 = _ops.sum(mul(x2, x2), -1, keepdim=True)
    squared = add(sub(sq1, mul(_ops.matmul(x1, _ops.transpose(x2, -2, -1)), 2)), _ops.transpose(sq2, -2, -1))
    return _ops.sqrt(_ops.clamp_min(squared, 0))


# -- products and fused forms ----------------------------------------------------------------
def outer(a, b):
    return mul(_ops.unsqueeze(a, 1), _ops.unsqueeze(b, 0))


ger = outer


def _scaled_sum(input, product, beta, alpha):
    product = product if alpha == 1 else mul(product, alpha)
    if beta == 0:  # input is ignored, NaN and all (only its shape broadcasts)
        return add(product, _ops.zeros_like(input))
    return add(input if beta == 1 else mul(input, beta), product)


def addmm(input, mat1, mat2, beta=1, alpha=1):
    return _scaled_sum(input, _ops.mm(mat1, mat2), beta, alpha)


def addmv(input, mat, vec, beta=1, alpha=1):
    return _scaled_sum(input, _ops.mv(mat, vec), beta, alpha)


def baddbmm(input, batch1, batch2, beta=1, alpha=1):
    return _scaled_sum(input, _ops.bmm(batch1, batch2), beta, alpha)


def lerp(start, end, weight):
    """PyTorch's two-sided formula: exact at weight 0 and 1."""
    diff = sub(end, start)
    return where(_ops.lt(_ops.abs(weight) if _is_tensor(weight) else builtins.abs(weight), 0.5),
                 add(start, mul(weight, diff)), sub(end, mul(diff, sub(1, weight))))


def addcmul(input, tensor1, tensor2, value=1):
    return add(input, mul(mul(tensor1, tensor2), value) if value != 1 else mul(tensor1, tensor2))


def addcdiv(input, tensor1, tensor2, value=1):
    if not (tensor1.dtype.is_floating_point or tensor2.dtype.is_floating_point):
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                           "will perform a true division of tensor1 and tensor2.")
    return add(input, mul(_ops.div(tensor1, tensor2), value))


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    if not x.dtype.is_floating_point:
        return _ops.clone(x)
    big = dt.finfo(x.dtype).max
    out = where(_ops.isnan(x), nan, x)
    out = where(_ops.eq(x, math.inf), big if posinf is None else posinf, out)
    return where(_ops.eq(x, -math.inf), -big if neginf is None else neginf, out)


for _name in __all__:
    setattr(Tensor, _name, globals()[_name])
