"""Numerical integration over a dimension: torch.trapezoid (alias trapz) and cumulative_trapezoid,
derived from slices, sums and cumsum in the order torch's ATen/native/Integration.cpp computes them
(so the float32 roundings are torch's): with spacing dx, (sum(y) - (y_0 + y_n) / 2) * dx; with sample
points x, sum(dx_i * (y_i + y_i+1)) / 2; cumulatively, cumsum(dx / 2 * (y_i + y_i+1))."""
import numbers

from . import _dtypes as dt
from . import _ops
from ._math_ops import cumsum
from ._ops import _is_tensor, _wrap_dim
from ._shape_ops import select

__all__ = ["trapezoid", "trapz", "cumulative_trapezoid"]


def _pairs(y, dim):
    """y_i + y_i+1 along dim."""
    n = y.shape[dim]
    return _ops.narrow(y, dim, 1, n - 1) + _ops.narrow(y, dim, 0, n - 1)


def _spacing(name, y, x, dim):
    """x's differences along dim, x viewed against y (1-D: along dim; fewer dims: leading ones added)."""
    if x.dtype is dt.bool_:
        raise RuntimeError(f"{name}: received a bool input for `x`, but bool is not supported")
    if x.dim() == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        x = x.view([x.shape[0] if d == dim else 1 for d in range(y.dim())])
    elif x.dim() < y.dim():
        x = x.view([1] * (y.dim() - x.dim()) + list(x.shape))
    n = x.shape[dim]
    return _ops.narrow(x, dim, 1, n - 1) - _ops.narrow(x, dim, 0, n - 1)


def _check(name, y, x, dx, dim):
    if not _is_tensor(y):
        raise TypeError(f"{name}(): argument 'y' (position 1) must be Tensor, not {type(y).__name__}")
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments: x and dx given together")
    if x is not None and not _is_tensor(x):
        raise TypeError(f"{name}(): argument 'x' (position 2) must be Tensor, not {type(x).__name__}")
    if dx is not None and (isinstance(dx, (bool, complex)) or not isinstance(dx, numbers.Real)):
        raise RuntimeError(f"{name}: Currently, we only support dx as a real number.")
    if y.dtype is dt.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    return _wrap_dim(dim, y.dim())


def trapezoid(y, x=None, *, dx=None, dim=-1):
    dim = _check("trapezoid", y, x, dx, dim)
    if y.shape[dim] == 0:  # numpy's answer for no samples: 0
        return _ops.zeros(y.shape[:dim] + y.shape[dim + 1:], dtype=y.dtype, device=y.device)
    if x is None:
        first, last = select(y, dim, 0), select(y, dim, -1)
        return (_ops.sum(y, dim) - (first + last) * 0.5) * (1 if dx is None else dx)
    return _ops.sum(_spacing("trapezoid", y, x, dim) * _pairs(y, dim), dim) / 2.0


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    dim = _check("cumulative_trapezoid", y, x, dx, dim)
    if y.shape[dim] == 0:
        return _ops.zeros_like(y)
    spacing = (1 if dx is None else dx) if x is None else _spacing("cumulative_trapezoid", y, x, dim)
    return cumsum(spacing / 2.0 * _pairs(y, dim), dim)
