"""Numerical integration and differentiation over a dimension: torch.trapezoid (alias trapz),
cumulative_trapezoid and gradient (ATen's gradient_helper: central differences inside, one-sided
first- or second-order ones at the ends, with uniform spacing or sample coordinates). The integrals are
derived from slices, sums and cumsum in the order torch's ATen/native/Integration.cpp computes them
(so the float32 roundings are torch's): with spacing dx, (sum(y) - (y_0 + y_n) / 2) * dx; with sample
points x, sum(dx_i * (y_i + y_i+1)) / 2; cumulatively, cumsum(dx / 2 * (y_i + y_i+1))."""
import numbers

from . import _dtypes as dt
from . import _ops
from ._math_ops import cumsum
from ._ops import _is_tensor, _wrap_dim
from ._shape_ops import select

__all__ = ["trapezoid", "trapz", "cumulative_trapezoid", "gradient"]


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
    if name == "trapezoid":  # torch's order: trapezoid wraps dim first, its cumulative form after the dtype check
        if y.dim() == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        _wrap_dim(dim, y.dim())
    if y.dtype is dt.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    if y.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
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
    if y.shape[dim] == 0:  # float, as its sum (trapezoid's keeps an integer dtype)
        return _ops.zeros_like(y, dtype=y.dtype if y.dtype.is_floating_point or y.dtype.is_complex else dt.default_float)
    spacing = (1 if dx is None else dx) if x is None else _spacing("cumulative_trapezoid", y, x, dim)
    return cumsum(spacing / 2.0 * _pairs(y, dim), dim)


def _slice(y, dim, start, stop=None):
    n = y.shape[dim]
    start, stop = start % n if start < 0 else start, n if stop is None else (stop % n if stop < 0 else stop)
    return _ops.narrow(y, dim, start, stop - start)


def _uniform_derivative(y, dim, h, edge_order):
    center = (_slice(y, dim, 2) - _slice(y, dim, 0, -2)) / h
    if edge_order == 1:
        first = (_slice(y, dim, 1, 2) - _slice(y, dim, 0, 1)) / h
        last = (_slice(y, dim, -1) - _slice(y, dim, -2, -1)) / h
    else:
        first = (_slice(y, dim, 0, 1) * -1.5 + _slice(y, dim, 1, 2) * 2 - _slice(y, dim, 2, 3) * 0.5) / h
        last = (_slice(y, dim, -3, -2) * 0.5 + _slice(y, dim, -2, -1) * -2 + _slice(y, dim, -1) * 1.5) / h
    return _ops.cat([first, center / 2, last], dim)


def _coordinate_derivative(y, dim, x, edge_order):
    """Second-order differences for unevenly spaced samples x (1-D, one per sample along dim)."""
    shape = [-1 if d == dim else 1 for d in range(y.dim())]
    dx = x[1:] - x[:-1]
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _slice(y, dim, 0, -2) + b * _slice(y, dim, 1, -1) + c * _slice(y, dim, 2)
    if edge_order == 1:
        first = (_slice(y, dim, 1, 2) - _slice(y, dim, 0, 1)) / dx[0]
        last = (_slice(y, dim, -1) - _slice(y, dim, -2, -1)) / dx[-1]
    else:
        a = -(2.0 * dx[0] + dx[1]) / (dx[0] * (dx[0] + dx[1]))
        b = (dx[0] + dx[1]) / (dx[0] * dx[1])
        c = -dx[0] / (dx[1] * (dx[0] + dx[1]))
        first = a * _slice(y, dim, 0, 1) + b * _slice(y, dim, 1, 2) + c * _slice(y, dim, 2, 3)
        a = dx[-1] / (dx[-2] * (dx[-1] + dx[-2]))
        b = -(dx[-1] + dx[-2]) / (dx[-1] * dx[-2])
        c = (2 * dx[-1] + dx[-2]) / (dx[-1] * (dx[-1] + dx[-2]))
        last = a * _slice(y, dim, -3, -2) + b * _slice(y, dim, -2, -1) + c * _slice(y, dim, -1)
    return _ops.cat([first, center, last], dim)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative estimates of input along each dim (a tuple): spacing is a number, one number per
    dim, or one tensor of sample coordinates per dim."""
    dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [_wrap_dim(d, input.dim()) for d in dims]
    for i, d in enumerate(dims):
        if d in dims[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if input.dtype is dt.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    spacings = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(spacings) != len(dims) and dim is None:
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
                           f"to 'self.dim() = {input.dim()}', since dim argument was not given, but got a list of "
                           f"length {len(spacings)}")
    if len(spacings) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length "
                           f"{len(spacings)} and a dim argument of length {len(dims)}.")
    out = []
    for d, h in zip(dims, spacings):
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
        if _is_tensor(h) and h.dim() == 0:
            h = h.item()
        if _is_tensor(h):
            if h.dim() != 1 or h.shape[0] != input.shape[d]:
                raise RuntimeError(f"torch.gradient expected each tensor to be on the same device, and each "
                                   f"coordinate tensor to have as many elements as input's dim {d}")
            out.append(_coordinate_derivative(input, d, h, edge_order))
        else:
            out.append(_uniform_derivative(input, d, h, edge_order))
    return tuple(out)
