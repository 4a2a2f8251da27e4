"""torch's other factories, derived from the core ones of _ops (full, empty, tensor): logspace, the
deprecated inclusive range, scalar_tensor, fill (fill_ out of place), and empty_strided /
Tensor.new_empty_strided (uninitialised memory viewed with the strides asked for)."""
import builtins
import math
import warnings

from . import _dtypes as dt
from . import _ops
from ._ops import _device_type, _shape_arg
from ._tensor import Tensor

__all__ = ["logspace", "range", "scalar_tensor", "fill", "empty_strided"]


def _created(values, dtype, device, requires_grad):
    """A 1-d tensor of host values (Python floats: rounded once, to dtype; truncated for an integer one)."""
    dtype = dt.as_dtype(dtype) if dtype is not None else dt.default_float
    if not dtype.is_floating_point and not dtype.is_complex:
        values = [int(v) for v in values]
    return _ops.tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)


def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False):
    """base ** linspace(start, end, steps), each power computed in float64 (the second half counted back from
    end, as torch's linspace and logspace do)."""
    start, end, base = (float(dt.python_number(v)) for v in (start, end, base))
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    step = (end - start) / (steps - 1) if steps > 1 else 0.0
    half = steps // 2
    exponents = [start + i * step if i < half or steps == 1 else end - (steps - 1 - i) * step
                 for i in builtins.range(steps)]
    return _created([base ** e for e in exponents], dtype, device, requires_grad)


def range(start=0, end=None, step=1, dtype=None, device=None, requires_grad=False):  # noqa: A001 (torch's name)
    """Deprecated in torch: start, start + step, ... up to end inclusive, of the default float dtype."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    start, end, step = (dt.python_number(v) for v in (start, end, step))
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not all(math.isfinite(v) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = int(math.floor((end - start) / step)) + 1
    return _created([start + i * step for i in builtins.range(count)], dtype, device, requires_grad)


def scalar_tensor(s, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor of s, of the default float dtype whatever s's type."""
    return _ops.full((), dt.python_number(s), dtype=dtype or dt.default_float, device=device,
                     requires_grad=requires_grad)


def fill(input, value):
    """A new tensor of input's shape and dtype, every element value (a number or a 0-d tensor, whose
    gradient is the sum of the result's); input's gradient is zeros (where reads none of its values)."""
    if isinstance(value, Tensor):
        if value.dim():
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} "
                               "dimensions.")
        return _ops.where(False, input, _ops.cast(value, input.dtype))
    if input.requires_grad:
        return _ops.where(False, input, _ops.full((), value, dtype=input.dtype, device=input.device))
    return _ops.full_like(input, value)


def empty_strided(size, stride, dtype=None, device=None, requires_grad=False):
    """Uninitialised memory for the largest offset the strides reach, viewed with them."""
    size, stride = _shape_arg((size,)), _shape_arg((stride,))
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and "
                           f"strides={list(stride)}")
    extent = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    memory = _ops.empty(extent, dtype=dtype or dt.default_float, device=_device_type(device))
    out = Tensor(memory._storage, size, stride, 0)
    out.requires_grad = requires_grad
    return out


def new_empty_strided(x, size, stride, dtype=None, device=None, requires_grad=False):
    return empty_strided(size, stride, dtype=dtype or x.dtype, device=device or x.device, requires_grad=requires_grad)


Tensor.new_empty_strided = new_empty_strided
