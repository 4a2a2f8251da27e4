"""In-place ops (add_, mul_, clamp_, zero_, fill_, copy_, masked_fill_, ...).

An in-place op computes its out-of-place result and copies it into the tensor (a view writes
through to its base, as in PyTorch). The result must have the tensor's shape and a dtype that
casts to the tensor's without changing category (no float into an integer tensor), the
tensor must not be a broadcast view whose elements share memory, and an input may not partly
overlap it (torch's memory-overlap checks).
"""
import math
from . import _complex, _indexing, _math_ops, _ops, _shape_ops, _tape
from ._ops import _is_tensor, check_writable
from . import _dtypes as dt
from ._tensor import _TYPE_NAMES, Tensor

__all__ = []  # the in-place methods attach to Tensor


def _check_castable(result, target):
    _check_castable_dtype(result.dtype, target)


def _check_castable_dtype(dtype, target):
    if dtype.category > target.dtype.category:
        raise RuntimeError(f"result type {_TYPE_NAMES[dtype.name]} can't be cast to the desired output type "
                           f"{_TYPE_NAMES[target.dtype.name]}")


# Binary ops whose in-place form checks its operands' promoted dtype against self's before the op's
# own dtype checks, as torch (int_tensor &= 0.5 is the cast's RuntimeError, not bitwise_and's refusal).
_PROMOTING = set("add sub mul div pow fmod remainder floor_divide bitwise_and bitwise_or bitwise_xor atan2 "
                 "hypot".split())


def _inplace(fn):
    promoting = fn.__name__ in _PROMOTING

    def method(x, *args, **kwargs):
        if promoting and args:
            _check_castable_dtype(dt.result_type(x, args[0]), x)
        check_writable(x, *args, *kwargs.values())
        source = x
        if _tape.is_grad_enabled() and (x.requires_grad or any(_is_tensor(a) and a.requires_grad for a in args)):
            _tape.check_inplace(x)
            source = _ops.clone(x)  # the op's backward reads this snapshot; x's storage is overwritten
        result = fn(source, *args, **kwargs)
        _check_castable(result, x)
        if tuple(result.shape) != tuple(x.shape):
            raise RuntimeError(f"output with shape {list(x.shape)} doesn't match the broadcast shape "
                               f"{list(result.shape)}")
        _ops.write_(x, result)
        return x
    method.__name__ = fn.__name__ + "_"
    return method


_FROM = {}
for _module, _names in [
    (_ops, "abs neg exp log sqrt rsqrt sin cos tanh sigmoid relu floor ceil trunc round sign reciprocal square erf "
           "logical_not add sub mul div pow fmod remainder floor_divide clamp clamp_min clamp_max clip bitwise_and "
           "bitwise_or bitwise_xor bitwise_not logical_and logical_or logical_xor eq ne lt le gt ge"),
    (_math_ops, "log1p expm1 exp2 log2 log10 tan asin acos atan sinh cosh asinh acosh atanh frac atan2 hypot lerp "
                "addcmul addcdiv nan_to_num addmm baddbmm addmv erfc erfinv lgamma digamma i0 logit sinc xlogy "
                "copysign heaviside nextafter gcd lcm bitwise_left_shift bitwise_right_shift addbmm addr renorm "
                "deg2rad rad2deg ldexp"),
    (_complex, "sgn"),
    (_shape_ops, "tril triu"),
    (_indexing, "masked_fill masked_scatter index_reduce"),
]:
    for _name in _names.split():
        _FROM[_name] = getattr(_module, _name)
for _name, _fn in _FROM.items():
    setattr(Tensor, _name + "_", _inplace(_fn))
_float_power_ = _inplace(_math_ops.float_power)


def cumsum(x, dim, *, dtype=None):
    """x.cumsum_(dim): the scan in x's own dtype (torch's cumsum(dtype=self.dtype): none for bool)."""
    return _math_ops.cumsum(x, dim, dtype or x.dtype)


def cumprod(x, dim, *, dtype=None):
    return _math_ops.cumprod(x, dim, dtype or x.dtype)


Tensor.cumsum_, Tensor.cumprod_ = _inplace(cumsum), _inplace(cumprod)


def float_power_(x, exponent):
    """In place only into a tensor of the result's dtype (float64, or complex128), as torch; float64 on "webgpu"
    is stored as float32 (with a warning), so there a float32 tensor counts as float64."""
    result = dt.complex128 if x.dtype.is_complex or (_is_tensor(exponent) and exponent.dtype.is_complex) \
        else dt.float64
    stored = _ops.empty(0, dtype=result, device=x.device).dtype  # float64 on "webgpu": float32
    if x.dtype is not result and x.dtype is not stored:
        raise RuntimeError(f"the base given to float_power_ has dtype {_TYPE_NAMES[x.dtype.name]} but the "
                           f"operation's result requires dtype {_TYPE_NAMES[result.name]}")
    return _float_power_(x, exponent)


Tensor.float_power_ = float_power_
Tensor.subtract_, Tensor.multiply_, Tensor.divide_, Tensor.true_divide_, Tensor.negative_ = \
    Tensor.sub_, Tensor.mul_, Tensor.div_, Tensor.div_, Tensor.neg_
Tensor.arcsin_, Tensor.arccos_, Tensor.arctan_, Tensor.arctan2_ = Tensor.asin_, Tensor.acos_, Tensor.atan_, \
    Tensor.atan2_
Tensor.arcsinh_, Tensor.arccosh_, Tensor.arctanh_ = Tensor.asinh_, Tensor.acosh_, Tensor.atanh_
Tensor.greater_, Tensor.greater_equal_, Tensor.less_, Tensor.less_equal_, Tensor.not_equal_ = \
    Tensor.gt_, Tensor.ge_, Tensor.lt_, Tensor.le_, Tensor.ne_
Tensor.__iadd__, Tensor.__isub__, Tensor.__imul__, Tensor.__itruediv__, Tensor.__ifloordiv__ = \
    Tensor.add_, Tensor.sub_, Tensor.mul_, Tensor.div_, Tensor.floor_divide_
Tensor.__imod__, Tensor.__ipow__, Tensor.__iand__, Tensor.__ior__, Tensor.__ixor__ = \
    Tensor.remainder_, Tensor.pow_, Tensor.bitwise_and_, Tensor.bitwise_or_, Tensor.bitwise_xor_


def fill_(x, value):
    if _is_tensor(value) and value.dim():
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} "
                           "dimensions.")
    if isinstance(value, complex):  # into a real x: its imaginary part must be 0 (torch's checked_convert)
        value = dt.checked_convert(value, x.dtype)
    _ops.write_(x, value)
    return x


def zero_(x):
    return fill_(x, 0)


def copy_(x, src, non_blocking=False):
    check_writable(x, src)
    _ops.write_(x, src)  # broadcasts src, casts to x's dtype, moves it across devices
    return x


def fill_diagonal_(x, fill_value, wrap=False):
    """The main diagonal (every index equal) set to fill_value; a 2-D matrix taller than wide with wrap
    continues every width + 1 flat positions, leaving a row out between blocks (numpy's fill_diagonal)."""
    if x.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if x.dim() > 2 and len(set(x.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = x.numel()  # (plain Python: webtorch runs without numpy, as in Pyodide)
    if x.dim() == 2 and wrap:
        flags = [i % (x.shape[1] + 1) == 0 for i in range(n)]
    else:  # flat positions k * (1 + d1 + d1 d2 + ...) of the contiguous layout
        step = sum(math.prod(x.shape[d + 1:]) for d in range(x.dim()))
        diagonal = set(range(0, step * min(x.shape), step)) if n else set()
        flags = [i in diagonal for i in range(n)]
    return x.masked_fill_(_ops.tensor(flags, dtype=dt.bool_, device=x.device).reshape(x.shape), fill_value)


def _relayout(x, view_op, *args):
    """In-place view ops: x takes the shape and strides (same storage) of view_op(x, *args), and its history
    (the view op's node leads back to x's old one: x.t_() is TBackward, as torch's). The op is recorded on an
    alias of x, so its backward rule reads x's layout from before."""
    view = view_op(_tape.alias(x), *args)
    if view.grad_fn is not None:
        _tape.check_inplace(x)
        x.grad_fn = view.grad_fn
    x.shape, x._stride, x._offset = view.shape, view._stride, view._offset
    return x


Tensor.fill_, Tensor.zero_, Tensor.copy_, Tensor.fill_diagonal_ = fill_, zero_, copy_, fill_diagonal_
Tensor.unsqueeze_ = lambda x, dim: _relayout(x, _ops.unsqueeze, dim)
Tensor.squeeze_ = lambda x, dim=None: _relayout(x, _ops.squeeze, dim)
Tensor.transpose_ = lambda x, dim0, dim1: _relayout(x, _ops.transpose, dim0, dim1)
Tensor.t_ = lambda x: _relayout(x, _ops.t)
Tensor.as_strided_ = lambda x, size, stride, storage_offset=None: _relayout(x, _shape_ops.as_strided, size, stride,
                                                                            storage_offset)
Tensor.swapaxes_ = Tensor.swapdims_ = Tensor.transpose_
