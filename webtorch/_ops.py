"""Tensor operations. Primitives: elementwise (ops_table.ELEMENTWISE), reduce, matmul, and
views; every other op here is written in terms of those.
"""
import builtins
import functools
import itertools
import math
from collections import namedtuple

from . import _dtypes as dt
from . import _buffers, _deferred
from . import _autocast
from ._autocast import autocast_op
from ._tensor import (_TYPE_NAMES, Tensor, Size, _empty, _from_host_values, _transfer, _wrap_dim, backend,
                      check_size, contiguous_strides, device, versions)
from .backend import meta
from .ops_table import ELEMENTWISE
from . import _tape

_default_device = "cpu"
complex_forms = None  # webtorch._complex: the ops' forms for complex operands, attached there


def _is_tensor(x):
    return isinstance(x, Tensor)


def _device_of(operands):
    """The device of the operands: that of the dimensioned tensors (0-d tensors may differ); of 0-d
    tensors alone, webgpu over cpu (like torch, a cpu 0-d tensor acts as a scalar)."""
    found = zero_dim = None
    for x in operands:
        if isinstance(x, Tensor):
            kind = x._storage.device_type
            if x.shape:
                if found is not None and kind != found:
                    raise _mixed_devices(found, kind)
                found = kind
            elif zero_dim is None or zero_dim == "cpu":
                zero_dim = kind
    return found or zero_dim or _default_device


def _mixed_devices(expected, found):
    """torch's error for operands on two devices (device types); a meta one has its own wording."""
    if "meta" in (expected, found):
        return RuntimeError(f"Tensor on device {found} is not on the expected device {expected}!")
    names = sorted((str(device(kind, 0 if kind == "webgpu" else None)) for kind in (expected, found)), reverse=True)
    return RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                        f"{names[0]} and {names[1]}!")


# -- broadcasting ----------------------------------------------------------------------------
def broadcast_shapes(*shapes):
    shapes = [(s,) if isinstance(s, int) else s for s in shapes]  # an int is a 1-D shape
    ndim = builtins.max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, size in enumerate(s, ndim - len(s)):
            if size != 1:
                if out[i] != 1 and out[i] != size:
                    raise RuntimeError(f"The size of tensor a ({out[i]}) must match the size of tensor b ({size}) "
                                       f"at non-singleton dimension {i}")
                out[i] = size
    return Size(out)


def expand(x, *shape, size=None):
    shape = _sized(shape, size)
    if len(shape) < x.dim():
        raise RuntimeError(f"expand: the number of sizes provided ({len(shape)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({x.dim()})")
    lead = len(shape) - x.dim()
    new_shape, new_stride = [], []
    for i, size in enumerate(shape):
        if i < lead:
            if size < 0:
                raise RuntimeError(f"expand: -1 not allowed in leading, non-existing dimension {i}")
            new_shape.append(size)
            new_stride.append(0)
            continue
        old, stride = x.shape[i - lead], x._stride[i - lead]
        if size == -1:
            size = old
        if old == size:
            new_stride.append(stride)
        elif old == 1:
            new_stride.append(0)
        else:
            raise RuntimeError(f"The expanded size of the tensor ({size}) must match the existing size ({old}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(shape)}.  Tensor sizes: "
                               f"{list(x.shape)}")
        new_shape.append(size)
    return _tape.record("expand", x._view(new_shape, new_stride), (x,))


def broadcast_to(x, shape):
    return expand(x, *shape)


def broadcast_tensors(*tensors):
    shape = broadcast_shapes(*[t.shape for t in tensors])
    return tuple(expand(t, *shape) for t in tensors)


# -- the elementwise primitive ---------------------------------------------------------------
def _compute_dtype(op, promoted):
    if op.compute == "float" and not promoted.is_floating_point:
        return dt.default_float
    if op.compute == "bool":
        return dt.bool_
    return promoted


def _as_operand(x, device_type):
    """Tensors stay; Python numbers stay scalars; a 0-d tensor on another device (torch's cpu scalar
    tensor in a CUDA op) is copied to this one: it keeps its dtype's say in type promotion and its
    gradient, and a compiled call reads it from a buffer (webtorch.compile uploads such arguments)."""
    if isinstance(x, Tensor):
        if not x.shape and x._storage.device_type != device_type:
            return to_device(x, device_type)
        return x
    if isinstance(x, (bool, int, float, complex)):
        return x
    number = dt.python_number(x)  # a numpy scalar
    if number is not x:
        return number
    raise TypeError(f"expected Tensor or number as operand, got {type(x).__name__}")


# Ops torch does not implement for some dtype kinds (b bool, i integer, f floating): the error torch
# raises there, rather than a kernel that does not compile or a number torch never gives. Each row:
# name -> (kinds, torch's kernel name for its NotImplementedError, or a RuntimeError's message).
# Elementwise primitives are checked on their promoted dtype (elementwise()), the other ops on their
# input's dtype (check_dtype() in argmax, topk, ..., and nn.functional's activations).
DTYPE_REFUSALS = {
    "bitwise_and": ("f", "bitwise_and_cpu"), "bitwise_or": ("f", "bitwise_or_cpu"),
    "bitwise_xor": ("f", "bitwise_xor_cpu"), "frac": ("bi", "frac_cpu"), "fmod": ("b", "fmod_cpu"),
    "remainder": ("b", "remainder_cpu"), "floor_divide": ("b", "div_floor_cpu"),
    "trunc_divide": ("b", "div_trunc_cpu"), "abs": ("b", "abs_cpu"), "floor": ("b", "floor_vml_cpu"),
    "ceil": ("b", "ceil_vml_cpu"), "trunc": ("b", "trunc_vml_cpu"), "round": ("b", "round_vml_cpu"),
    "gelu": ("bi", "GeluKernelImpl"), "silu": ("bi", "silu_cpu"), "hypot": ("bi", "hypot_cpu"),
    "relu": ("b", RuntimeError("Boolean inputs not supported for relu")),
    "argmax": ("b", RuntimeError("argmax(): does not support bool input")),
    "argmin": ("b", RuntimeError("argmin(): does not support bool input")),
    "topk": ("b", RuntimeError("topk does not support bool dtypes on CPU")),
    "median": ("b", "median_cpu"), "nanmedian": ("b", "median_out"), "kthvalue": ("b", "kthvalue_cpu"),
    "trace": ("b", "trace"), "histc": ("bi", "histogram_cpu"), "bincount": ("bf", "bincount_cpu"),
    # nn.functional
    "elu": ("bi", "elu_cpu"), "selu": ("bi", "elu_cpu"), "celu": ("bi", "elu_cpu"),
    "softplus": ("bi", "softplus_cpu"), "hardswish": ("bi", "hardswish_cpu"),
    "hardsigmoid": ("bi", "hardsigmoid_cpu"), "leaky_relu": ("bi", "leaky_relu_cpu"),
    "logsigmoid": ("bi", "log_sigmoid_cpu"), "mish": ("bi", "mish_cpu"),
    "glu": ("bi", "glu_cpu"),
    "threshold": ("b", "threshold_cpu"),
    "hardtanh": ("b", RuntimeError("Bool inputs not supported for hardtanh")),
    "relu6": ("b", RuntimeError("Bool inputs not supported for hardtanh")),
}
_KIND_LETTER = "bifc"  # by dtype category


def check_dtype(name, dtype):
    """Raise torch's error if op `name` is not implemented for dtype's kind (DTYPE_REFUSALS)."""
    row = DTYPE_REFUSALS.get(name)
    if row is not None and _KIND_LETTER[dtype.category] in row[0]:
        if isinstance(row[1], Exception):
            raise type(row[1])(*row[1].args)
        raise NotImplementedError(f'"{row[1]}" not implemented for \'{_TYPE_NAMES[dtype.name]}\'')


# Eager code repeats elementwise calls on operands of the same layouts: for each signature (op,
# and per operand its device, dtype, shape and strides, or a scalar's type) the result's dtype and
# shape and the prepared kernel (gpu.ElementwiseLaunch) are worked out once, on the webgpu device.
_LAUNCHES = {}
_MAX_LAUNCHES = 4096  # cleared when full: programs with ever-new shapes must not grow it without bound
_PLAIN_SCALARS = (bool, int, float)


def elementwise(name, *operands, out=None, grad_name=None):
    if out is None:
        key = [name]
        grad = False
        for x in operands:
            if isinstance(x, Tensor):
                key.append((x._storage.device_type, x.dtype, x.shape, x._stride))
                if x._requires_grad:
                    grad = True
            else:
                key.append(x.__class__)
        key = tuple(key)
        launch = _LAUNCHES.get(key)
        if launch is not None:
            shape, stride, launch = launch
            out = Tensor(launch.new(operands), shape, stride)
            # (_tape.record's own test, without its call when no operand requires grad)
            return _tape.record(grad_name or name, out, operands) if grad else out
    op = ELEMENTWISE[name]
    device_type = _device_of(operands) if out is None else out._storage.device_type
    cacheable = out is None and device_type == "webgpu" and builtins.all(
        x._storage.device_type == "webgpu" if isinstance(x, Tensor) else x.__class__ in _PLAIN_SCALARS
        for x in operands)
    operands = [_as_operand(x, device_type) for x in operands]
    inputs = operands
    shapes = [x.shape for x in operands if isinstance(x, Tensor)]
    shape = shapes[0] if shapes and shapes.count(shapes[0]) == len(shapes) else broadcast_shapes(*shapes)
    if name == "where":
        promoted = dt.result_type(*operands[1:])
        if promoted.is_complex:
            return complex_forms.where(*operands)
        computes = [dt.bool_, promoted, promoted]
    else:
        promoted = dt.result_type(*operands)
        if promoted.is_complex:
            return complex_forms.elementwise(name, operands, promoted, out)
        check_dtype(name, promoted)  # after the shapes, as torch
        computes = [_compute_dtype(op, promoted)] * len(operands)
    out_dtype = dt.bool_ if op.out == "bool" else computes[-1]
    if out is not None:
        if out.shape != shape:
            raise RuntimeError(f"output with shape {list(out.shape)} doesn't match the broadcast shape {list(shape)}")
        backend(device_type).elementwise(op, out, [_broadcast_view(x, shape) for x in operands], computes)
        return out
    out = _empty(shape, out_dtype, device_type)
    views = [_broadcast_view(x, shape) for x in operands]
    if cacheable:
        if len(_LAUNCHES) >= _MAX_LAUNCHES:
            _LAUNCHES.clear()
        launch = backend(device_type).ElementwiseLaunch(op, out, views, computes)
        _LAUNCHES[key] = (out.shape, out._stride, launch)
        launch(out, views)
    else:
        backend(device_type).elementwise(op, out, views, computes)
    return _tape.record(grad_name or name, out, inputs)


def _broadcast_view(x, shape):
    """x as a stride-0 view over `shape`, for kernels (no autograd: the caller records)."""
    if not _is_tensor(x) or x.shape == shape:
        return x
    with _tape.no_grad():
        return expand(x, *shape)


def _copy_into(dst, src):
    """dst (a view) = src, broadcast and cast to dst's dtype."""
    if dst.dtype.is_complex or (src.dtype.is_complex if _is_tensor(src) else isinstance(src, complex)):
        return complex_forms.copy_into(dst, src)
    if _deferred.fill(dst, src):  # pure-Python cpu: a number fill is made when first read
        return dst
    src = _as_operand(src, dst._storage.device_type)
    if _is_tensor(src) and src._storage.device_type != dst._storage.device_type:
        src = src.to(dst._storage.device_type)
    if _is_tensor(src):
        src = expand(src, *dst.shape)
    backend(dst._storage.device_type).elementwise(ELEMENTWISE["copy"], dst, [src], [dst.dtype])
    return dst


def check_writable(x, *sources):
    """torch's memory-overlap checks of a write into x: x may not have elements sharing memory (an
    expanded view), and a tensor source may not partly overlap it (it may be x itself)."""
    if builtins.any(st == 0 and n > 1 for n, st in zip(x.shape, x._stride)):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a single "
                           "memory location. Please clone() the tensor before performing the operation.")
    for src in sources:
        if _is_tensor(src) and src._storage is x._storage and _partial_overlap(x, src):
            raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor "
                               "refer to a single memory location. Please clone() the tensor before performing the "
                               "operation.")


def _partial_overlap(a, b):
    """torch's MemOverlapStatus::Partial for two views of one storage: both dense without gaps, their
    element ranges intersect, and they are not the same range with the same strides (other layouts are
    "too hard" for torch, which lets them pass)."""
    spans = [_dense_span(t) for t in (a, b)]
    if not a.numel() or not b.numel() or None in spans:
        return False
    if spans[0] == spans[1]:
        return tuple(a._stride) != tuple(b._stride)
    return spans[0][0] < spans[1][1] and spans[1][0] < spans[0][1]


def _dense_span(t):
    """(first, end) storage offsets of a view whose elements fill them exactly (torch's
    is_non_overlapping_and_dense), else None."""
    expected = 1
    for st, n in sorted((st, n) for n, st in zip(t.shape, t._stride) if n != 1):
        if st != expected:
            return None
        expected *= n
    return t._offset, t._offset + t.numel()


def write_(x, value):
    """A user-visible in-place write (x = value, broadcast and cast): PyTorch's leaf checks, the
    storage's version counter, and x's autograd history rebased onto value."""
    _tape.check_inplace(x)
    _copy_into(x, value)
    versions(x).version += 1
    _tape.rebase(x, value)
    return x


def cast(x, dtype):
    dtype = dt.as_dtype(dtype)
    if dtype is x.dtype:
        return x
    out = _copy_into(_empty(x.shape, dtype, x._storage.device_type), x)
    return _tape.record("copy", out, (x,)) if dtype.category >= 2 else out


def to_device(x, device_type):
    """x copied to another device, its gradient flowing back to x's device."""
    return _tape.record("transfer", _transfer(x, device_type), (x,))


def contiguous(x):
    if x.is_contiguous():
        return x
    return clone(x)


def detach(x):
    # an alias of x's storage outside autograd, not a view of x: torch lets it be written in place
    # even when x is a leaf that requires grad (nn.init's idiom p.detach().zero_())
    return Tensor(x._storage, x.shape, x._stride, x._offset)


def clone(x, *, memory_format=None):
    out = _tape.record("copy", _copy_into(_empty(x.shape, x.dtype, x._storage.device_type), x), (x,))
    # a named format (channels_last): the copy in that layout (_memory_format's Tensor.contiguous)
    return out if memory_format is None or getattr(memory_format, "_order", None) is None else \
        out.contiguous(memory_format=memory_format)


def _unary(name):
    def fn(input):  # noqa: A002  (torch's parameter names: torch.exp(input=t))
        return elementwise(name, input)
    fn.__name__ = name
    return fn


def _binary(name):
    def fn(input, other):  # noqa: A002
        return elementwise(name, input, other)
    fn.__name__ = name
    return fn


abs = _unary("abs")
exp = autocast_op(_unary("exp"))
log = autocast_op(_unary("log"))
sqrt = _unary("sqrt")
rsqrt = autocast_op(_unary("rsqrt"))
sin = _unary("sin")
cos = _unary("cos")
tanh = _unary("tanh")
sigmoid = _unary("sigmoid")
relu = _unary("relu")
silu = _unary("silu")
floor = _unary("floor")
ceil = _unary("ceil")
trunc = _unary("trunc")
sign = _unary("sign")
reciprocal = autocast_op(_unary("reciprocal"))
erf = _unary("erf")
logical_not = _unary("logical_not")
isnan = _unary("isnan")
isinf = _unary("isinf")
maximum = _binary("maximum")
minimum = _binary("minimum")
fmod = _binary("fmod")
remainder = _binary("remainder")
eq = _binary("eq")
ne = _binary("ne")
lt = _binary("lt")
le = _binary("le")
gt = _binary("gt")
ge = _binary("ge")
logical_and = _binary("logical_and")
logical_or = _binary("logical_or")
logical_xor = _binary("logical_xor")
bitwise_and = _binary("bitwise_and")
bitwise_or = _binary("bitwise_or")
bitwise_xor = _binary("bitwise_xor")
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def round(x, decimals=0):
    if decimals:
        scale = 10.0 ** decimals
        return elementwise("round", x * scale) / scale
    return elementwise("round", x)


@functools.partial(autocast_op, name="pow")  # torch's square is pow(x, 2)
def square(x):
    return elementwise("square", cast(x, dt.int64) if x.dtype is dt.bool_ else x)  # torch: pow(bool, 2) is int64


def neg(x):
    if x.dtype is dt.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return elementwise("neg", x)


negative = neg


def _as_scalar_of(dtype, v):
    """A Python scalar cast to dtype's kind, as torch casts alpha/beta/value to the result dtype."""
    if dtype is dt.bool_:
        return builtins.bool(v)
    return v if dtype.category >= 2 else int(v)


def _plus_alpha_times(x, other, alpha, sign=1):
    """x + sign * alpha * other, in their result dtype (torch casts alpha to it), as one fused multiply-add
    (torch's kernel: fma(other, alpha, x)): alpha * other may overflow where the sum does not."""
    dtype = dt.result_type(x, other)
    alpha = dt.python_number(alpha)
    if isinstance(alpha, float) and dtype.category < 2:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, bool) and dtype is not dt.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    alpha = alpha * sign
    if not _is_tensor(other) and dtype.category < 2:
        return elementwise("add", x, _as_scalar_of(dtype, other * alpha))  # True * -1 is -1, not True
    return elementwise("addcmul", x, other, _as_scalar_of(dtype, alpha))


def add(x, other, alpha=1):
    return elementwise("add", x, other) if alpha.__class__ is int and alpha == 1 else \
        _plus_alpha_times(x, other, alpha)


def sub(x, other, alpha=1):
    kinds = [(v.dtype if _is_tensor(v) else dt.scalar_dtype(v)) is dt.bool_ for v in (x, other)]
    if builtins.all(kinds):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if builtins.any(kinds):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return elementwise("sub", x, other) if alpha.__class__ is int and alpha == 1 else \
        _plus_alpha_times(x, other, alpha, -1)


subtract = sub


def mul(x, other):
    return elementwise("mul", x, other)


multiply = mul


def div(x, other, rounding_mode=None):
    if rounding_mode is None:
        return elementwise("div", x, other)
    if rounding_mode == "floor":
        return elementwise("floor_divide", x, other)
    if rounding_mode == "trunc":
        return elementwise("trunc_divide", x, other)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


divide = true_divide = div


def floor_divide(x, other):
    # torch.floor_divide has no derivative (div with rounding_mode="floor" has a zero one)
    return elementwise("floor_divide", x, other, grad_name="floor_divide_op")


@autocast_op
def pow(x, exponent):
    if _is_tensor(x) and x.dtype.category <= 1 and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if dt.result_type(x, exponent) is dt.bool_:  # torch has pow(bool tensor, bool scalar) only
        if not _is_tensor(x) or _is_tensor(exponent):
            if _is_tensor(x) and _is_tensor(exponent):
                broadcast_shapes(x.shape, exponent.shape)  # torch checks the shapes first
            raise NotImplementedError('"pow" not implemented for \'Bool\'')
        return elementwise("logical_or", x, not exponent)  # b ** True is b, b ** False is True
    if _is_tensor(x) and isinstance(exponent, float) and exponent in (0.5, -0.5):
        # torch's x ** 0.5 is sqrt(x) and x ** -0.5 rsqrt(x): sqrt(-0) is -0 and sqrt(-inf) NaN, where
        # pow (a tensor exponent) gives +0 and inf
        return (sqrt if exponent > 0 else rsqrt)(x)
    return elementwise("pow", x, exponent)


def bitwise_not(x):
    if x.dtype is dt.bool_:
        return elementwise("logical_not", x)
    if x.dtype.is_floating_point:
        raise NotImplementedError(f'"bitwise_not_cpu" not implemented for \'{x.dtype.name.capitalize()}\'')
    return elementwise("bitwise_xor", x, -1)


def clamp(x, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    min, max = _number_bounds(x, min, max)
    if max is None:  # a NaN bound makes every result NaN, with no gradient (clamp's rule)
        return _one_bound("maximum", x, min, math.inf) if not _is_nan_scalar(min) else elementwise("clamp", x, min, math.inf)
    if min is None:
        return _one_bound("minimum", x, -math.inf, max) if not _is_nan_scalar(max) else elementwise("clamp", x, -math.inf, max)
    if builtins.all(_is_tensor(v) and v.dtype is dt.bool_ for v in (x, min, max)):  # (no bool clamp kernel)
        raise NotImplementedError("\"clamp_cpu\" not implemented for 'Bool'")
    return elementwise("clamp", x, min, max)


def _number_bounds(x, lo, hi):
    """torch's clamp(Tensor, Number?, Number?) overload: where one bound is a Python number, the other
    is taken as one too, a 0-d tensor that needs no gradient by its value (so its dtype promotes as a
    number's: clamp(bool, int32 0-d, 0) is int64), any other tensor a TypeError."""
    if not builtins.any(isinstance(v, (bool, int, float)) for v in (lo, hi)):
        return lo, hi
    for v in (lo, hi):
        if _is_tensor(v) and (v.dim() or v.requires_grad):
            raise TypeError(f"clamp() received an invalid combination of arguments - got (Tensor, "
                            f"{', '.join(type(b).__name__ if not _is_tensor(b) else 'Tensor' for b in (lo, hi))}), "
                            f"but expected one of: (Tensor input, Tensor min, Tensor max), (Tensor input, Number min, "
                            f"Number max)")
    return tuple(v.item() if _is_tensor(v) else v for v in (lo, hi))


def _one_bound(op, x, lo, hi):
    """clamp with one bound: computed as maximum/minimum, differentiated by clamp's rule (as torch's
    clamp_min/clamp_max: a NaN x and a tie x == bound give x's gradient wholly to x or to nothing,
    where maximum's rule passes NaN and splits ties)."""
    with _tape.no_grad():
        out = elementwise(op, x, lo if op == "maximum" else hi)
    return _tape.record("clamp", out, (x, lo, hi))


def _is_nan_scalar(v):
    return isinstance(v, float) and v != v


clip = clamp


def clamp_min(x, min):
    return clamp(x, min=min)


def clamp_max(x, max):
    return clamp(x, max=max)


def where(condition, input=None, other=None):
    if input is None and other is None:
        raise NotImplementedError("where(condition) needs nonzero(), which webtorch does not have yet")
    if _is_tensor(condition) and condition.dtype is not dt.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition.dtype.name.capitalize()}")
    return elementwise("where", condition, input, other)


def gelu(x, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return elementwise("gelu_tanh" if approximate == "tanh" else "gelu", x)


def isfinite(x):
    return logical_not(logical_or(isnan(x), isinf(x)))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    if _is_tensor(a) and _is_tensor(b) and a.dtype is not b.dtype:
        raise RuntimeError(f"{a.dtype.name.capitalize()} did not match {b.dtype.name.capitalize()}")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if tol < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol}")
    close = eq(a, b)
    if equal_nan:
        close = logical_or(close, logical_and(isnan(a), isnan(b)))
    if not (a.dtype.is_floating_point or a.dtype.is_complex if _is_tensor(a) else isinstance(a, (float, complex))):
        return close
    within = le(abs(sub(a, b)), add(abs(b) * rtol, atol))
    return logical_or(close, logical_and(within, isfinite(b)))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return builtins.bool(all(isclose(a, b, rtol, atol, equal_nan)).item())


def equal(a, b):
    if a.is_meta or b.is_meta:
        raise meta.data_dependent("equal")
    if a.shape != b.shape:
        return False
    return builtins.bool(all(eq(a, b)).item())


# -- views -----------------------------------------------------------------------------------
def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        return tuple(shape[0])
    return tuple(int(s) for s in shape)


def _sized(args, given, name="size"):
    """A shape from torch's varargs (zeros(2, 3), zeros((2, 3))) or its keyword (zeros(size=(2, 3)),
    reshape(shape=...), permute(dims=...)): one of the two."""
    if given is None:
        return _shape_arg(args)
    if args:
        raise TypeError(f"got multiple values for argument '{name}'")
    return _shape_arg((given,))


def _infer_size(shape, numel):
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _view_strides(x, shape):
    """Strides that view x with `shape` without a copy, or None (PyTorch's computeStride)."""
    if x.numel() == 0 or x.dim() == 0:
        return contiguous_strides(shape)
    new_strides = [0] * len(shape)
    view_d = len(shape) - 1
    chunk_base_stride = x._stride[-1] if x._stride else 1
    tensor_numel, view_numel = 1, 1
    for tensor_d in range(x.dim() - 1, -1, -1):
        tensor_numel *= x.shape[tensor_d]
        if tensor_d == 0 or (x.shape[tensor_d - 1] != 1 and
                             x._stride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = x._stride[tensor_d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return new_strides


view_as_dtype = None  # Tensor.view(dtype): _storage.view_as_dtype, attached by it (it reads the bytes)


def view(x, *shape, size=None, dtype=None):
    if dtype is not None:
        shape = (dtype,)
    if len(shape) == 1 and isinstance(shape[0], (dt.dtype, type)):
        return view_as_dtype(x, shape[0])
    shape = _infer_size(_sized(shape, size), x.numel())
    strides = _view_strides(x, shape)
    if strides is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    return _tape.record("reshape", x._view(shape, strides), (x,))


def reshape(x, *shape_args, shape=None):
    shape = _infer_size(_sized(shape_args, shape, "shape"), x.numel())
    strides = _view_strides(x, shape)
    if strides is None:
        with _tape.no_grad():
            out = clone(x)._view(shape, contiguous_strides(shape))
    else:
        out = x._view(shape, strides)
    return _tape.record("reshape", out, (x,))


def view_as(x, other):
    return view(x, *other.shape)


def reshape_as(x, other):
    return reshape(x, *other.shape)


def expand_as(x, other):
    return expand(x, *other.shape)


def permute(x, *dims_args, dims=None):
    dims = _sized(dims_args, dims, "dims")
    if len(dims) == x.dim():
        dims = [_wrap_dim(d, x.dim()) for d in dims]
    if sorted(dims) != list(range(x.dim())):
        raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           "of the desired ordering of dimensions i.e. input.dim() = "
                           f"{x.dim()} is not equal to len(dims) = {len(dims)}")
    return _tape.record("permute", x._view([x.shape[d] for d in dims], [x._stride[d] for d in dims]), (x,),
                           dims=dims)


def transpose(x, dim0, dim1):
    if x.dim() == 0:
        _wrap_dim(dim0, 0), _wrap_dim(dim1, 0)
        return x
    d0, d1 = _wrap_dim(dim0, x.dim()), _wrap_dim(dim1, x.dim())
    dims = list(range(x.dim()))
    dims[d0], dims[d1] = dims[d1], dims[d0]
    return permute(x, *dims)


swapaxes = swapdims = transpose


def t(x):
    if x.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.dim()}D")
    return transpose(x, 0, 1) if x.dim() == 2 else x


def _T(x):
    return permute(x, *reversed(range(x.dim())))


def unsqueeze(x, dim):
    d = _wrap_dim(dim, x.dim() + 1)
    shape, stride = list(x.shape), list(x._stride)
    new_stride = stride[d] * shape[d] if d < x.dim() else 1
    shape.insert(d, 1)
    stride.insert(d, new_stride)
    return _tape.record("reshape", x._view(shape, stride), (x,))


def squeeze(x, dim=None):
    if dim is None:
        dims = [d for d in range(x.dim()) if x.shape[d] == 1]
    else:
        dims = [_wrap_dim(d, x.dim()) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))]
        dims = [d for d in dims if x.dim() and x.shape[d] == 1]
    out = x._view([s for d, s in enumerate(x.shape) if d not in dims],
                  [s for d, s in enumerate(x._stride) if d not in dims])
    return _tape.record("reshape", out, (x,))


def flatten(x, start_dim=0, end_dim=-1):
    if x.dim() == 0:
        return reshape(x, 1)
    s, e = _wrap_dim(start_dim, x.dim()), _wrap_dim(end_dim, x.dim())
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    n = 1
    for size in x.shape[s:e + 1]:
        n *= size
    return reshape(x, *x.shape[:s], n, *x.shape[e + 1:])


def _check_dimensioned(x, name):
    if x.dim() == 0:
        raise RuntimeError(f"{name} cannot be applied to a 0-dim tensor.")


def narrow(x, dim, start, length):
    _check_dimensioned(x, "narrow()")
    d = _wrap_dim(dim, x.dim())
    if isinstance(start, Tensor):  # a 0-d integer tensor (torch reads it)
        if start.dim() or start.dtype.category != 1:
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = start.item()
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -x.shape[d] <= start <= x.shape[d]:
        raise IndexError(f"start out of range (expected to be in range of [{-x.shape[d]}, {x.shape[d]}], but got "
                         f"{start})")
    if start < 0:
        start += x.shape[d]
    if not (0 <= start and start + length <= x.shape[d]):
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({x.shape[d]}).")
    shape = list(x.shape)
    shape[d] = length
    out = x._view(shape, x._stride, x._offset + start * x._stride[d])
    return _tape.record("index", out, (x,), index=(slice(None),) * d + (slice(start, start + length),))


def _getitem(x, index):
    if not isinstance(index, tuple):
        index = (index,)
    if builtins.any(_is_tensor(i) or isinstance(i, list) for i in index):
        raise NotImplementedError("indexing with tensors or lists is not supported by webtorch yet")
    n_real = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
    if n_real > x.dim():
        raise IndexError(f"too many indices for tensor of dimension {x.dim()}")
    if builtins.sum(1 for i in index if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    expanded = []
    for i in index:
        if i is Ellipsis:
            expanded.extend([slice(None)] * (x.dim() - n_real))
        else:
            expanded.append(i)
    shape, stride, offset, d = [], [], x._offset, 0
    for i in expanded:
        if i is None:  # unsqueeze in front of the next (not yet indexed) dim
            shape.append(1)
            stride.append(x.shape[d] * x._stride[d] if d < x.dim() else 1)
            continue
        size, st = (x.shape[d], x._stride[d]) if d < x.dim() else (1, 0)
        if isinstance(i, slice):
            start, stop, step = i.start, i.stop, i.step
            step = 1 if step is None else int(step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            start, stop, _ = slice(start, stop, step).indices(size)
            length = builtins.max(0, -(-(stop - start) // step))
            offset += start * st if length else 0
            shape.append(length)
            stride.append(st * step)
        else:
            i = int(i)
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
            offset += (i % size) * st
        d += 1
    shape.extend(x.shape[d:])
    stride.extend(x._stride[d:])
    return _tape.record("index", x._view(shape, stride, offset), (x,), index=index)


def _setitem(x, index, value):
    _tape.check_inplace(x)
    with _tape.no_grad():
        region = _getitem(x, index)
    if _is_tensor(value) and value.dim() > region.dim():  # as torch: leading size-1 dims of value drop
        lead = value.dim() - region.dim()
        if builtins.all(s == 1 for s in value.shape[:lead]):
            value = reshape(value, value.shape[lead:])
    check_writable(region, value)
    write_(region, value)
    _tape.refresh_view(x)


@autocast_op
def cat(tensors, dim=0):
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    # Legacy rule kept by PyTorch: 1-D empty tensors are skipped.
    parts = [t for t in tensors if not (t.dim() == 1 and t.shape[0] == 0)] or tensors[:1]
    ref = parts[0]
    if ref.dim() == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _wrap_dim(dim, ref.dim())
    for i, t in enumerate(parts):
        if t.dim() != ref.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.dim()} and {t.dim()}")
        for k in range(ref.dim()):
            if k != d and t.shape[k] != ref.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{ref.shape[k]} but got size {t.shape[k]} for tensor number {i} in the list.")
    dtype = dt.result_type(*tensors)
    shape = list(ref.shape)
    shape[d] = builtins.sum(t.shape[d] for t in parts)
    out = _empty(shape, dtype, _device_of(tensors))
    start = 0
    for t in parts:
        _copy_into(narrow(out, d, start, t.shape[d]), t)
        start += t.shape[d]
    skipped = [t.dim() == 1 and t.shape[0] == 0 and ref.dim() != 1 for t in tensors]
    return _tape.record("cat", out, tensors, dim=d,
                           sizes=[None if s else t.shape[d] for s, t in zip(skipped, tensors)])


concat = concatenate = cat


@autocast_op
def stack(tensors, dim=0):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for t in tensors[1:]:
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                               f"entry 0 and {list(t.shape)} at entry {tensors.index(t)}")
    d = _wrap_dim(dim, tensors[0].dim() + 1)
    return cat([unsqueeze(t, d) for t in tensors], d)


# -- reductions ------------------------------------------------------------------------------
def _reduce_dims(x, dim):
    """The sorted, wrapped dims a reduction reduces. A 0-d tensor accepts dim -1 or 0 (like torch)
    and reduces no dim: the result is its one element."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(x.dim()))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    dims = tuple(_wrap_dim(d, x.dim()) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
    return tuple(sorted(dims)) if x.dim() else ()


# Reductions repeat on inputs of one shape too (a loss's mean per step): per (shape, dim, keepdim)
# the reduced dims and the result's shape and strides are worked out once.
_REDUCED_SHAPES = {}
_MAX_REDUCED_SHAPES = 1024  # cleared when full


def _reduced_shape(x, dim, keepdim):
    """(dims, result shape, result strides, number of elements each result reduces) of reducing x
    over dim."""
    cacheable = dim is None or dim.__class__ is int or (dim.__class__ is tuple and
                                                         builtins.all(d.__class__ is int for d in dim))
    key = (x.shape, dim, keepdim) if cacheable else None  # (a tensor or a numpy int as dim: not kept)
    found = _REDUCED_SHAPES.get(key)
    if found is not None:
        return found
    dims = _reduce_dims(x, dim)
    shape = Size(1 if d in dims else s for d, s in enumerate(x.shape)) if keepdim else \
        Size(s for d, s in enumerate(x.shape) if d not in dims)
    count = 1
    for d in dims:
        count *= x.shape[d]
    found = dims, shape, contiguous_strides(shape), count
    if key is not None:
        if len(_REDUCED_SHAPES) >= _MAX_REDUCED_SHAPES:
            _REDUCED_SHAPES.clear()
        _REDUCED_SHAPES[key] = found
    return found


_INT32_MAX = (1 << 31) - 1


def int64_may_leave_int32(operands, n_terms, op="sum"):
    """Whether an int64 sum (op "sum") or product ("prod") of n_terms values, each a product of one
    element of each operand, could leave int32 on webgpu, where int64 is i32 and a kernel's result
    would wrap silently. The bound comes from what is known without reading the GPU: a bool is 0 or
    1, an int tensor's uploaded values have a known range; anything else may overflow."""
    bound = 1
    for x in operands:
        if x._storage.device_type != "webgpu":
            return False
        if x.dtype is dt.bool_:
            continue
        known = backend(x._storage.device_type).known_range(x._storage) if not x.dtype.is_floating_point else None
        if known is None:
            return True
        bound *= builtins.max(-known[0], known[1])
    if op == "sum":
        return bound * n_terms > _INT32_MAX
    return bound > 1 and (n_terms >= 31 or bound ** n_terms > _INT32_MAX)


def exact_on_host(operands, compute):
    """compute(*operands moved to "cpu"), moved back: an int64 result exact in 64 bits, and moving one
    beyond int32 back raises "does not fit in int32", as creating one does (docs/limits.md)."""
    return compute(*(t.to("cpu") for t in operands)).to(operands[0].device)


def indices_into(indices, size):
    """indices, an int tensor a kernel filled with positions along a dim of size (argmax, sort): their
    range is known, so index checks of them (a gathered token, an embedded argmax) need no readback."""
    if size:
        backend(indices._storage.device_type).set_known_range(indices._storage, 0, size - 1)
    return indices


def _reduce(op, x, dim, keepdim, acc_dtype, out_dtype, with_index=False, grad_name=None):
    if x.dtype.is_complex:
        return complex_forms.reduce(op, x, dim, keepdim, out_dtype)
    if out_dtype is dt.int64 and op in ("sum", "prod") and x._storage.device_type == "webgpu":
        if int64_may_leave_int32((x,), _reduced_shape(x, dim, keepdim)[3], op):
            return exact_on_host((x,), lambda h: _reduce(op, h, dim, keepdim, acc_dtype, out_dtype, with_index, grad_name))
    dims, shape, stride, _ = _reduced_shape(x, dim, keepdim)
    values, indices = backend(x._storage.device_type).reduce(op, x, dims, acc_dtype, out_dtype, with_index)
    values = Tensor(values, shape, stride)
    if with_index:
        indices = indices_into(Tensor(indices, shape), math.prod(x.shape[d] for d in dims))
        if len(dims) == 1:
            _tape.record(op + "_dim", values, (x,), dim=dims[0], indices=indices, keepdim=keepdim)
        elif not dims:  # a 0-d input: the value is the input itself
            _tape.record("copy", values, (x,))
        return values, indices
    if not x._requires_grad:  # (_tape.record's own test, before building its arguments)
        return values
    name = grad_name or {"sum": "sum", "prod": "prod", "max": "amax", "min": "amin"}[op]
    return _tape.record(name, values, (x,), dims=dims, keepdim=keepdim)


def _sum_dtype(x, dtype):
    if dtype is not None:
        return dt.as_dtype(dtype)
    return dt.int64 if x.dtype.category < 2 else x.dtype


@autocast_op
def sum(x, dim=None, keepdim=False, dtype=None):
    if not _is_tensor(x):
        return builtins.sum(x)
    out = _sum_dtype(x, dtype)
    return _reduce("sum", x, dim, keepdim, out, out)


@autocast_op
def prod(x, dim=None, keepdim=False, dtype=None):
    out = _sum_dtype(x, dtype)
    return _reduce("prod", x, dim, keepdim, out, out)


def _check_float(x, name):
    if x.dtype.category < 2:
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {'Long' if x.dtype is dt.int64 else x.dtype.name.capitalize()}")


@autocast_op
def mean(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = cast(x, dtype)
    _check_float(x, "mean")
    n = _reduced_shape(x, dim, keepdim)[3]
    if x.dtype in dt.ROUNDED:  # torch sums float16/bfloat16 in float32 and rounds the mean once: the sum alone
        return cast(div(sum(x, dim, keepdim, dtype=dt.float32), n), x.dtype)  # passes 65504 past ~65k values
    return div(sum(x, dim, keepdim), n)


def _check_nonempty(x, dim, name, unspecified_error=RuntimeError):
    """torch's refusal of a max/min-like reduction over an empty dim: without a dim (None or ()) it asks
    for one (argmax/argmin raise IndexError there, amax/max RuntimeError); with one, IndexError."""
    dims = _reduce_dims(x, dim)
    if builtins.any(x.shape[d] == 0 for d in dims) or (x.numel() == 0 and not dims):
        if dim is None or (isinstance(dim, (tuple, list)) and not dim):
            raise unspecified_error(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                                    "Specify the reduction dim with the 'dim' argument.")
        raise IndexError(f"{name}(): Expected reduction dim {dims[0] if dims else dim} to have non-zero size.")


def amax(x, dim=(), keepdim=False):
    _check_nonempty(x, dim, "amax")
    return _reduce("max", x, dim, keepdim, x.dtype, x.dtype)


def amin(x, dim=(), keepdim=False):
    _check_nonempty(x, dim, "amin")
    return _reduce("min", x, dim, keepdim, x.dtype, x.dtype)


_MinMax = {}


def _values_indices(name):
    if name not in _MinMax:
        _MinMax[name] = namedtuple(name, ["values", "indices"])
    return _MinMax[name]


def _minmax(op, x, dim, keepdim, other):
    if _is_tensor(dim):
        return elementwise("maximum" if op == "max" else "minimum", x, dim)
    if other is not None:
        return elementwise("maximum" if op == "max" else "minimum", x, other)
    if dim is None:
        _check_nonempty(x, None, op)
        return _reduce(op, x, None, False, x.dtype, x.dtype, grad_name=op + "_all")
    d = _wrap_dim(dim, x.dim())
    _check_nonempty(x, d, op)
    values, indices = _reduce(op, x, d if x.dim() else (), keepdim, x.dtype, x.dtype, with_index=True)
    return _values_indices("max" if op == "max" else "min")(values, indices)


def max(x, dim=None, keepdim=False, *, other=None):
    return _minmax("max", x, dim, keepdim, other)


def min(x, dim=None, keepdim=False, *, other=None):
    return _minmax("min", x, dim, keepdim, other)


def _arg_extreme(op, x, dim, keepdim):
    """argmax/argmin: the flat index over all elements when dim is None."""
    name = "arg" + op
    check_dtype(name, x.dtype)
    if dim is None:
        _check_nonempty(x, None, name, IndexError)
        return _reduce(op, reshape(x, -1), 0, False, x.dtype, x.dtype, True)[1].reshape(
            [1] * x.dim() if keepdim else [])
    _check_nonempty(x, dim, name)
    return _reduce(op, x, dim if x.dim() else (), keepdim, x.dtype, x.dtype, True)[1]


def _pool_max(x, dim):
    """max(x, dim) as max pooling takes it (torch's pooling kernels: `val > maxval || isnan(val)` in window
    order): of several NaN the last, of equal maxima the first; (values, indices), differentiated as max."""
    return _reduce("pool_max", x, dim, False, x.dtype, x.dtype, with_index=True)


def argmax(x, dim=None, keepdim=False):
    return _arg_extreme("max", x, dim, keepdim)


def argmin(x, dim=None, keepdim=False):
    return _arg_extreme("min", x, dim, keepdim)


def all(x, dim=None, keepdim=False):
    return _truth_reduce("min", x, dim, keepdim)


def any(x, dim=None, keepdim=False):
    return _truth_reduce("max", x, dim, keepdim)


def _truth_reduce(name, x, dim, keepdim):
    """all (min) or any (max) of x's truth values: bool, a uint8 input's as uint8 0/1 (torch's legacy form)."""
    out = _reduce(name, cast(x, dt.bool_), dim, keepdim, dt.bool_, dt.bool_)
    return cast(out, dt.uint8) if x.dtype is dt.uint8 else out


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def _shifted_mean(x, dims):
    """The mean over dims (keepdim) as s + mean(x - s), s the first element of each reduced slice (a
    constant to autograd): exact for a constant slice, and the digits the values share do not round."""
    if x.numel() == 0:
        return mean(x, dims, keepdim=True)
    with _tape.no_grad():
        shift = x[tuple(slice(0, 1) if d in dims else slice(None) for d in range(x.dim()))]
        shift = where(isfinite(shift), shift, 0.0)  # an inf first value would make inf - inf = NaN of an inf mean
    return add(mean(sub(x, shift), dims, keepdim=True), shift)


def _zero_safe_pow(a, p):
    """a ** p for a >= 0, with a zero gradient where a == 0 (for p < 1 the derivative p * a^(p-1) is
    inf there, and torch's norm and std give 0)."""
    if p >= 1:
        return pow(a, p)
    zero = eq(a, 0)
    return where(zero, 0.0 if p > 0 else math.inf, pow(where(zero, 1.0, a), p))


def _scaled_variance(x, dim, unbiased, correction, keepdim):
    """(q, scales): var = q s1 s1 s2 s2 and std = sqrt(q) s1 s2 (multiplied in this order, so that no
    partial product overflows before the result does): the values divided by their largest magnitude s2
    before centering and the deviations by theirs, s1, before squaring (both constants to autograd), so
    that neither the mean's sum nor a deviation (3e38 - -3e38) nor a square can overflow or underflow."""
    _check_float(x, "var")
    dims = _reduce_dims(x, dim)
    n = 1
    for d in dims:
        n *= x.shape[d]
    with _tape.no_grad():
        size = _nonzero_finite_or_one(amax(abs(x), dims, keepdim=True) if x.numel() else None, x, dims)
    x = div(x, size)
    centered = sub(x, _shifted_mean(x, dims))
    with _tape.no_grad():
        m = _nonzero_finite_or_one(amax(abs(centered), dims, keepdim=True) if x.numel() else None, x, dims)
    scaled = div(centered, m)
    # the sum of squares (up to n) in float32 for float16/bfloat16 (torch's accumulation): float16 overflows past 65504
    acc = dt.float32 if x.dtype in dt.ROUNDED else None
    q = div(sum(mul(scaled, scaled), dims, keepdim, dtype=acc), builtins.max(n - _correction(unbiased, correction), 0))
    q = cast(q, x.dtype) if acc is not None else q
    return q, [s if keepdim else squeeze(s, dims) for s in (m, size)]


def _nonzero_finite_or_one(m, x, dims):
    """A scale per reduced slice: m, or 1 where m is 0 or inf (or every slice is empty)."""
    if m is None:
        return ones_like(sum(x, dims, keepdim=True))
    return where(logical_or(eq(m, 0), isinf(m)), 1.0, m)


def _var_args(dim, unbiased):
    if isinstance(dim, bool):  # torch.var(x, unbiased), PyTorch's other overload
        return None, dim
    if isinstance(unbiased, (int, tuple, list)) and not isinstance(unbiased, bool) and dim is None:
        return unbiased, None
    return dim, unbiased


@autocast_op
def var(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dim, unbiased = _var_args(dim, unbiased)
    with _tape.no_grad():  # one node with torch's rule: the scaled form's graph gave NaN where N - correction <= 0
        q, scales = _scaled_variance(x, dim, unbiased, correction, keepdim)
        for s in scales:
            q = mul(mul(q, s), s)
    return _tape.record("var", q, (x,), dims=_reduce_dims(x, dim), correction=_correction(unbiased, correction),
                        keepdim=keepdim)


@autocast_op
def std(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dim, unbiased = _var_args(dim, unbiased)
    with _tape.no_grad():
        q, scales = _scaled_variance(x, dim, unbiased, correction, keepdim)
        q = _zero_safe_pow(q, 0.5)
        for s in scales:
            q = mul(q, s)
    return _tape.record("std", q, (x,), dims=_reduce_dims(x, dim), correction=_correction(unbiased, correction),
                        keepdim=keepdim)


@autocast_op
def logsumexp(x, dim, keepdim=False):
    if not x.dtype.is_floating_point:
        x = cast(x, dt.default_float)
    dims = _reduce_dims(x, dim)
    if x.numel() == 0:
        return log(sum(exp(x), dims, keepdim))
    m = amax(x, dims, keepdim=True)
    m = where(isinf(m), 0.0, m)  # all -inf rows stay -inf, +inf rows stay +inf
    out = add(log(sum(exp(sub(x, m)), dims, keepdim=True)), m)
    return out if keepdim else squeeze(out, dims)


def _softmax(x, dim, dtype, take_log):
    if dtype is not None:
        x = cast(x, dtype)
    d = _wrap_dim(dim, x.dim())  # before the dtype, as torch
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f'"softmax_lastdim_kernel_impl" not implemented for \'{_TYPE_NAMES[x.dtype.name]}\'')
    if x.dim() == 0:
        return reshape(_softmax(reshape(x, 1), 0, None, take_log), ())
    if x.numel() == 0:
        return clone(x)
    if x._storage.device_type == "webgpu" and x.dtype in (dt.float32, dt.float16):
        # one kernel per call (a primitive for speed: max, sum and outputs in one launch; float16
        # computed in f32 and rounded once, as PyTorch's CUDA half softmax)
        moved = movedim_view(x, d)
        out = Tensor(backend("webgpu").softmax(moved, take_log), moved.shape)
        out = _tape.record("log_softmax" if take_log else "softmax", out, (moved,))
        return contiguous(movedim_view(out, d, back=True))  # contiguous like torch's result
    if x.dtype in dt.ROUNDED:  # in float32, rounded once (torch's accumulation): a float16 sum of exps passes 65504
        return cast(_softmax(cast(x, dt.float32), d, None, take_log), x.dtype)
    shifted = sub(x, amax(x, d, keepdim=True))
    if take_log:
        return sub(shifted, log(sum(exp(shifted), d, keepdim=True)))
    e = exp(shifted)
    return div(e, sum(e, d, keepdim=True))


def movedim_view(x, d, back=False):
    """x with dim d moved last (or, back=True, the last dim moved to d): a permuted view."""
    dims = list(range(x.dim()))
    if back:
        dims.insert(d, dims.pop())
    else:
        dims.append(dims.pop(d))
    return permute(x, *dims) if dims != list(range(x.dim())) else x


@autocast_op
def softmax(x, dim, dtype=None):
    return _softmax(x, dim, dtype, False)


@autocast_op
def log_softmax(x, dim, dtype=None):
    return _softmax(x, dim, dtype, True)


def _layer_norm(x, n_dims, weight, bias, eps):
    """nn.functional.layer_norm over x's last n_dims dims as one primitive (one kernel on webgpu,
    one pass on cpu) for float32 operands on one device, or float16 ones on webgpu (computed in f32,
    rounded once, as PyTorch's CUDA half kernel); None where the composed form applies."""
    operands = [t for t in (x, weight, bias) if t is not None]
    device_type = x._storage.device_type
    fused = (dt.float32, dt.float16) if device_type == "webgpu" else (dt.float32,)
    if not 0 < n_dims <= x.dim() or x.numel() == 0 or x.dtype not in fused or builtins.any(
            t.dtype is not x.dtype or t._storage.device_type != device_type for t in operands):
        return None
    n = math.prod(x.shape[x.dim() - n_dims:])
    rows = reshape(x, (*x.shape[:x.dim() - n_dims], n))
    weight = contiguous(reshape(weight, n)) if weight is not None else None
    bias = contiguous(reshape(bias, n)) if bias is not None else None
    out = Tensor(backend(x._storage.device_type).layer_norm(rows, weight, bias, eps), rows.shape)
    return reshape(_tape.record("layer_norm", out, (rows, weight, bias), eps=eps), x.shape)


def _moments(x, dims):
    """(mean, var, inv) over dims (keepdim) of x * inv: inv a power of two per slice (1 unless its largest |x| is
    4 or more and it is not constant: then into [2, 4), exact), so that no square of a deviation overflows float32 (x of ~1.8e19 and
    more); mean and the biased var as one primitive (one kernel on webgpu; float64 on cpu, as torch's CPU
    batch_norm statistics). float32 results (float64 for float64 x on cpu); inv carries no gradient."""
    device_type = x._storage.device_type
    src = x if device_type == "cpu" or x.dtype is dt.float32 else cast(x, dt.float32)
    stats = Tensor(backend(device_type).moments(src, dims), (3, *[1 if d in dims else x.shape[d] for d in range(x.dim())]))
    stats = _tape.record("moments", stats, (x,), dims=dims)
    return stats[0], stats[1], detach(stats[2])


def _rms_norm_in_one_kernel(x, n_dims, weight, residual=None):
    """Whether _rms_norm computes this norm as one kernel (a GEMV that folds it in computes the same
    arithmetic: ao/quantization/_gpu.py's RowNorm)."""
    operands = [t for t in (x, weight, residual) if t is not None]
    return not (residual is not None and residual.shape != x.shape or x._storage.device_type != "webgpu" or
                _autocast.enabled["webgpu"] or not 0 < n_dims <= x.dim() or x.numel() == 0 or
                x.dtype not in (dt.float32, dt.float16) or builtins.any(
                    t.dtype is not x.dtype or t._storage.device_type != "webgpu" for t in operands) or
                _tape.is_grad_enabled() and builtins.any(t.requires_grad for t in operands))


def _rms_norm(x, n_dims, weight, eps, weight_after_rounding=False, residual=None):
    """rms_norm over x's last n_dims dims as one kernel, on webgpu for float32 or float16 operands of one
    dtype (computed in f32) that need no gradient, outside autocast (whose policies its composed ops
    follow: float16 in, float32 out, as torch's CUDA autocast); weight_after_rounding: the weight
    multiplies the normalised value rounded to x's dtype (transformers' Llama RMSNorm: weight *
    h.to(dtype)), not the f32 one (torch's rms_norm: rounded once); residual (x's shape): the norm of
    s = x + residual (a residual add before the norm, in the same kernel), returned as (norm, s). None
    where the composed form applies."""
    if not _rms_norm_in_one_kernel(x, n_dims, weight, residual):
        return None
    n = math.prod(x.shape[x.dim() - n_dims:])
    if residual is not None and residual._stride != x._stride:
        x, residual = contiguous(x), contiguous(residual)
    rows = reshape(x, (*x.shape[:x.dim() - n_dims], n))
    weight = contiguous(reshape(weight, n)) if weight is not None else None
    storage = backend("webgpu").layer_norm(rows, weight, None, eps, rms=True, weight_after_rounding=weight_after_rounding,
                                           residual=None if residual is None else reshape(residual, rows.shape))
    if residual is None:
        return reshape(Tensor(storage, rows.shape), x.shape)
    return tuple(reshape(Tensor(s, rows.shape), x.shape) for s in storage)


def _conv2d(x, weight, bias, stride, pads, dilation, groups, out_size):
    """nn.functional.conv2d of a batched x as one primitive (an implicit-GEMM kernel on webgpu) for
    float32 operands on one device; pads (top, left), the bottom/right following from out_size.
    None where the composed form applies."""
    operands = [t for t in (x, weight, bias) if t is not None]
    if x.dim() != 4 or x.numel() == 0 or builtins.any(
            t.dtype is not dt.float32 or t._storage.device_type != x._storage.device_type for t in operands):
        return None
    if bias is not None:
        bias = contiguous(bias)  # the kernel reads bias[offset + channel]
    storage = backend(x._storage.device_type).conv2d(x, weight, bias, stride, pads, dilation, groups, out_size)
    out = Tensor(storage, (x.shape[0], weight.shape[0], *out_size))
    return _tape.record("conv2d", out, (x, weight, bias), stride=stride, pads=pads, dilation=dilation,
                           groups=groups)


# -- matmul ----------------------------------------------------------------------------------
@autocast_op
def matmul(a, b):
    if a.dim() == 0 or b.dim() == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a.dim()}D and {b.dim()}D")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_tname(a.dtype)} != "
                           f"{_tname(b.dtype)}")
    if a.dtype is dt.bool_:
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    if a.dtype.is_complex:
        return complex_forms.matmul(a, b)
    squeeze_a, squeeze_b = a.dim() == 1, b.dim() == 1
    a2 = unsqueeze(a, 0) if squeeze_a else a
    b2 = unsqueeze(b, 1) if squeeze_b else b
    *batch_a, m, k = a2.shape  # unpacked: indexing a Size goes through Python (its slices are Sizes)
    *batch_b, k2, n = b2.shape
    if k != k2:
        if a.dim() == 1 and b.dim() == 1:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to "
                               "have the same number of elements, but got "
                               f"{a.shape[0]} and {b.shape[0]} elements respectively")
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m}x{k} and {k2}x{n})")
    if batch_a and not batch_b and k:
        # (*batch, m, k) @ (k, n) as one (batch*m, k) @ (k, n), as torch folds it (a copy of a where its
        # rows do not fold into one view): one product with all rows instead of a batch of small ones
        # sharing B (a linear layer on (batch, tokens, features); the float16 ones take tensor cores
        # where m is whole tiles)
        out = reshape(matmul(reshape(a2, -1, k), b2), *batch_a, m, n)
        return squeeze(out, -1) if squeeze_b else out
    if batch_a == batch_b:
        batch, a3, b3 = batch_a, a2, b2
    else:
        batch = broadcast_shapes(batch_a, batch_b)
        a3 = expand(a2, *batch, m, k)
        b3 = expand(b2, *batch, k, n)
    device_type = a._storage.device_type
    if b._storage.device_type != device_type:
        raise _mixed_devices(device_type, b._storage.device_type)
    if a.dtype is dt.int64 and int64_may_leave_int32((a3, b3), k):
        out = exact_on_host((a3, b3), matmul)
    else:
        out = _tape.record("matmul", Tensor(backend(device_type).matmul(a3, b3, a.dtype), (*batch, m, n)), (a3, b3))
    if squeeze_a:
        out = squeeze(out, -2)
    if squeeze_b:
        out = squeeze(out, -1)
    return out


def _tname(d):
    """torch's C++ name of a dtype, as its dtype-mismatch errors print it."""
    return {"float32": "float", "float16": "c10::Half", "int64": "long int", "int32": "int", "bool": "bool",
            "float64": "double", "bfloat16": "c10::BFloat16", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}[d.name]


@autocast_op
def mm(a, b):
    if a.dim() != 2 or b.dim() != 2:
        raise RuntimeError(f"{'self' if a.dim() != 2 else 'mat2'} must be a matrix")
    return matmul(a, b)


@autocast_op
def bmm(a, b):
    if a.dim() != 3 or b.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if a.dim() != 3 else "batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError("batch1 and batch2 must have same number of batches, got "
                           f"{a.shape[0]} and {b.shape[0]}")
    return matmul(a, b)


@autocast_op
def mv(a, v):
    return matmul(a, v)


@autocast_op
def dot(a, b):
    if a.dim() != 1 or b.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.dim()}D and {b.dim()}D tensors")
    return matmul(a, b)


@autocast_op
def linear(x, weight, bias=None):
    out = matmul(x, t(weight) if weight.dim() == 2 else weight)
    return out if bias is None else add(out, bias)


# -- creation --------------------------------------------------------------------------------
def _device_type(dev):
    return device(dev).type if dev is not None else _default_device


def set_default_device(dev):
    """The device of new tensors made without device= (torch.set_default_device; None: cpu)."""
    global _default_device
    kind = "cpu" if dev is None else device(dev).type
    backend(kind)  # an unsupported device raises here, like torch
    _default_device = kind


def get_default_device():
    return device(_default_device, 0 if _default_device == "webgpu" else None)


_default_device_stack = []  # the defaults `with device(...)` blocks replaced


def _enter_device(self):  # `with torch.device("webgpu"):` makes it the default device in the block
    _default_device_stack.append(get_default_device())
    set_default_device(self)
    return self


def _exit_device(self, *exc):
    set_default_device(_default_device_stack.pop())
    return False


device.__enter__, device.__exit__ = _enter_device, _exit_device


def _flatten_data(data, infer=True, dim=0):
    """Nested sequences -> (flat list, shape, dtype): the dtype torch.tensor infers, the promotion of its
    elements' types (a Python bool, int, float: bool, int64, the default float; a tensor, a numpy array
    or scalar: its own dtype), None where there are no elements. A sequence's length is its __len__ and
    its items what iterating it gives (torch's PySequence_Fast); where the two disagree torch raises:
    IndexError from its dtype inference (infer: no dtype given), which indexes up to __len__, else
    ValueError."""
    if _is_tensor(data):
        values = data._host_values()
        if data.dtype.is_complex:
            values = list(map(complex, values[::2], values[1::2]))
        return list(values), tuple(data.shape), data.dtype
    if hasattr(data, "tolist") and hasattr(data, "shape"):  # numpy
        values, _, inferred = _flatten_data(data.tolist() if data.shape else [data.item()], infer, dim)
        # the array's own shape: its nested lists lose the dims after a zero-length one ((2, 0, 3) -> [[], []])
        return values, tuple(data.shape), _buffers.numpy_dtype(data) or inferred
    if isinstance(data, (list, tuple)) or _is_sequence(data):
        n = len(data)
        items = data if type(data) in (list, tuple) else list(itertools.islice(data, n + 1))  # n: no hang
        if len(items) != n:
            if infer and n > len(items):
                raise IndexError(f"{type(data).__name__} index out of range (its __len__ says {n}, iterating it gives "
                                 f"{len(items)} items)")
            raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(items)})")
        if n == 0:
            return [], (0,), None
        kinds = set(map(type, items))
        if len(kinds) == 1 and kinds <= _PLAIN_SCALARS and (
                kinds != {int} or -2 ** 63 <= builtins.min(items) and builtins.max(items) < 2 ** 63):
            return list(items), (n,), dt.scalar_dtype(items[0])  # a row of one Python scalar type, as below
        parts = [_flatten_data(d, infer, dim + 1) for d in items]
        shape = parts[0][1]
        for p in parts:
            if p[1] != shape:
                raise ValueError(f"expected sequence of length {shape[0] if shape else 0} at dim {dim + 1} (got "
                                 f"{p[1][0] if p[1] else 0})")
        kinds = [p[2] for p in parts if p[2] is not None]
        return [v for p in parts for v in p[0]], (n,) + shape, functools.reduce(dt.promote, kinds) \
            if kinds else None
    if isinstance(data, (bool, int, float, complex)):
        if isinstance(data, int) and not -2 ** 63 <= data < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
        return [data], (), dt.scalar_dtype(data)
    if hasattr(data, "item"):
        return [data.item()], (), None
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


_PLAIN_SCALARS = {bool, int, float, complex}  # exactly these types (not numpy's float64, a float subclass)


def _is_sequence(data):
    """What torch.tensor takes as a sequence besides lists and tuples (range, a collections.abc.Sequence):
    indexable with a length; not text, bytes or a mapping."""
    kind = type(data)
    return (hasattr(kind, "__getitem__") and hasattr(kind, "__len__") and not hasattr(data, "keys")
            and not isinstance(data, (str, bytes, bytearray)))


def tensor(data, dtype=None, device=None, requires_grad=False):
    values, shape, inferred = _flatten_data(data, infer=dtype is None)
    dtype = dt.as_dtype(dtype) if dtype is not None else inferred or dt.default_float
    check_size(shape, dtype, _device_type(device))  # (a dtype without storage: NotImplementedError naming it)
    if dtype.category == 1:
        high = dt.iinfo(dtype).max
        low = -high if dtype is dt.uint8 else -high - 1  # PyTorch lets -255..-1 wrap into uint8
        for v in values:
            if isinstance(v, float) and not math.isfinite(v) or not low <= v <= high:
                raise dt.overflow_error(dtype)
        values = [dt.TO_ELEMENT[dtype](v) for v in values]
    elif dtype is dt.bool_:
        values = [builtins.bool(v) for v in values]
    out = _from_host_values(_host(values, dtype), shape, dtype, _device_type(device))
    out.requires_grad = requires_grad
    return out


def _host(values, dtype):
    """values as an array.array of dtype's host elements (a complex dtype's: the real dtype's, interleaved)."""
    import array
    if dtype.is_complex:
        values = [part for v in values for part in (complex(v).real, complex(v).imag)]
        dtype = dt.REAL_OF[dtype]
    elif builtins.any(isinstance(v, complex) for v in values):
        raise TypeError(f"can't convert complex to {dtype.name}")
    return array.array(dtype.typecode, values)


def as_tensor(data, dtype=None, device=None):
    if _buffers.is_numpy(data) and _buffers.numpy_dtype(data) is not None:
        data = _buffers.from_numpy(_buffers.asarray(data))  # shares the array's memory, as PyTorch's does
    if _is_tensor(data):
        return data.to(*[a for a in (device, dtype) if a is not None])
    return tensor(data, dtype=dtype, device=device)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    shape = _shape_arg(size if isinstance(size, (tuple, list, Size)) else (size,))
    dtype = dt.scalar_dtype(fill_value) if dtype is None else dt.as_dtype(dtype)
    if isinstance(fill_value, complex):  # of a real dtype: its imaginary part must be 0 (torch's checked_convert)
        fill_value = dt.checked_convert(fill_value, dtype)
    if dtype.category == 1 and isinstance(fill_value, (int, float)):
        info = dt.iinfo(dtype)
        if not (math.isfinite(fill_value) and info.min <= fill_value < info.max + 1):
            raise dt.overflow_error(dtype)
    out = _empty(shape, dtype, _device_type(device))
    _copy_into(out, fill_value)
    if dtype.category == 1 and isinstance(fill_value, (int, float)):  # index checks of it need no readback
        backend(out._storage.device_type).set_known_range(out._storage, int(fill_value), int(fill_value))
    out.requires_grad = requires_grad
    return out


def zeros(*sizes, size=None, dtype=None, device=None, requires_grad=False):
    return full(_sized(sizes, size), 0, dtype=dtype or dt.default_float, device=device, requires_grad=requires_grad)


def ones(*sizes, size=None, dtype=None, device=None, requires_grad=False):
    return full(_sized(sizes, size), 1, dtype=dtype or dt.default_float, device=device, requires_grad=requires_grad)


def empty(*sizes, size=None, dtype=None, device=None, requires_grad=False):
    out = _empty(_sized(sizes, size), dt.as_dtype(dtype or dt.default_float), _device_type(device))
    out.requires_grad = requires_grad
    return out


def _like(x, dtype, device):
    return dict(dtype=dtype or x.dtype, device=device or x.device)


def zeros_like(input, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
    return full(input.shape, 0, **_like(input, dtype, device), requires_grad=requires_grad)


def ones_like(input, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
    return full(input.shape, 1, **_like(input, dtype, device), requires_grad=requires_grad)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
    return full(input.shape, fill_value, **_like(input, dtype, device), requires_grad=requires_grad)


def empty_like(input, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
    return empty(*input.shape, **_like(input, dtype, device), requires_grad=requires_grad)


def arange(start=0, end=None, step=1, dtype=None, device=None, requires_grad=False):
    start, end, step = (dt.python_number(v) for v in (start, end, step))
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not builtins.all(math.isfinite(v) for v in (start, end, step)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    is_float = builtins.any(isinstance(v, float) for v in (start, end, step))
    dtype = dt.as_dtype(dtype) if dtype is not None else (dt.default_float if is_float else dt.int64)
    n = builtins.max(0, math.ceil((end - start) / step))
    check_size((n,), dtype, _device_type(device))
    values = [start + i * step for i in range(n)]
    values = [float(v) for v in values] if dtype.is_floating_point else [int(v) for v in values]
    out = _from_host_values(_host(values, dtype), (n,), dtype, _device_type(device))
    out.requires_grad = requires_grad
    return out


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = dt.as_dtype(dtype) if dtype is not None else dt.default_float
    if steps == 1:
        values = [float(start)]
    else:
        step = (end - start) / (steps - 1)
        half = steps // 2
        values = [start + i * step if i < half else end - (steps - 1 - i) * step for i in range(steps)]
    if not dtype.is_floating_point:
        values = [int(v) for v in values]
    out = _from_host_values(_host(values, dtype), (steps,), dtype, _device_type(device))
    out.requires_grad = requires_grad
    return out


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    m = n if m is None else m
    for name, size in (("n", n), ("m", m)):
        if size < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {size}")
    dtype = dt.as_dtype(dtype) if dtype is not None else dt.default_float
    values = [1 if i == j else 0 for i in range(n) for j in range(m)]
    out = _from_host_values(_host(values, dtype), (n, m), dtype, _device_type(device))
    out.requires_grad = requires_grad
    return out


def new_tensor(x, data, dtype=None, device=None, requires_grad=False):
    return tensor(data, **_like(x, dtype, device), requires_grad=requires_grad)


def new_full(x, size, fill_value, dtype=None, device=None, requires_grad=False):
    return full(size, fill_value, **_like(x, dtype, device), requires_grad=requires_grad)


def new_zeros(x, *sizes, size=None, dtype=None, device=None, requires_grad=False):
    return full(_sized(sizes, size), 0, **_like(x, dtype, device), requires_grad=requires_grad)


def new_ones(x, *sizes, size=None, dtype=None, device=None, requires_grad=False):
    return full(_sized(sizes, size), 1, **_like(x, dtype, device), requires_grad=requires_grad)


def new_empty(x, *sizes, size=None, dtype=None, device=None, requires_grad=False):
    return empty(*_sized(sizes, size), **_like(x, dtype, device), requires_grad=requires_grad)


# -- Tensor methods and operators ------------------------------------------------------------
def _reflected(fn):
    return lambda x, other: fn(other, x)


_METHODS = [
    "abs", "neg", "negative", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "floor",
    "ceil", "trunc", "round", "sign", "reciprocal", "square", "erf", "logical_not", "isnan", "isinf", "isfinite",
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide", "pow", "maximum",
    "minimum", "fmod", "remainder", "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less",
    "less_equal", "not_equal", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "clamp", "clip", "clamp_min", "clamp_max", "allclose", "detach", "isclose",
    "equal", "view", "reshape", "view_as", "reshape_as", "expand", "expand_as", "broadcast_to", "permute",
    "transpose", "swapaxes", "swapdims", "t", "unsqueeze", "squeeze", "flatten", "narrow", "contiguous", "clone",
    "sum", "prod", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "all", "any", "var", "std",
    "logsumexp", "softmax", "log_softmax", "matmul", "mm", "bmm", "mv", "dot", "new_tensor", "new_full",
    "new_zeros", "new_ones", "new_empty",
]
for _name in _METHODS:
    setattr(Tensor, _name, globals()[_name])
Tensor._cast = cast  # Tensor.to's dtype conversion (_tensor.py sits below the ops)
Tensor._move = to_device  # and its device transfer

Tensor.where = lambda x, condition, other: where(condition, x, other)
Tensor.T = property(_T)
def _matrix_transpose(name):
    """x.mT, x.mH, x.adjoint(): the last two dims swapped (mH, adjoint: and conjugated)."""
    def fn(x):
        if x.dim() == 1:
            raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got 1-D tensor.")
        out = transpose(x, -2, -1) if x.dim() else x  # torch: the identity on 0-d tensors
        return complex_forms.conj(out) if name != "mT" and x.dtype.is_complex else out
    return fn


def _H(x):
    if x.dim() not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {x.dim()}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH" if x.dim() > 2 else ""))
    out = transpose(x, 0, 1) if x.dim() else x
    return complex_forms.conj(out) if x.dtype.is_complex else out


adjoint = _matrix_transpose("adjoint()")
Tensor.mT, Tensor.mH, Tensor.H = property(_matrix_transpose("mT")), property(_matrix_transpose("mH")), property(_H)
Tensor.adjoint = adjoint
Tensor.__getitem__ = _getitem
Tensor.__setitem__ = _setitem
# Python's operators; each binary arithmetic one also in its reflected form (2 - t is t.__rsub__(2)).
_BINARY_OPERATORS = {"add": add, "sub": sub, "mul": mul, "truediv": div, "floordiv": floor_divide,
                     "mod": remainder, "pow": pow, "matmul": matmul, "and": bitwise_and, "or": bitwise_or,
                     "xor": bitwise_xor}
for _name, _fn in _BINARY_OPERATORS.items():
    setattr(Tensor, f"__{_name}__", _fn)
    setattr(Tensor, f"__r{_name}__", _reflected(_fn))


def _rtruediv(x, other):
    """number / x as torch computes it: x's reciprocal times the number (not one rounded division: 3.0 / t
    differs from div(3.0, t) in the last bit for a third of floats), through the `*` operator, so that
    numpy computes np.array(0.5) / t as torch's does."""
    return reciprocal(x) * other


Tensor.__rtruediv__ = Tensor.__rdiv__ = _rtruediv  # __rdiv__: Python 2's name, which torch keeps
for _name, _fn in {"eq": eq, "ne": ne, "lt": lt, "le": le, "gt": gt, "ge": ge, "neg": neg, "abs": abs,
                   "invert": bitwise_not}.items():
    setattr(Tensor, f"__{_name}__", _fn)

# What `from ._ops import *` (webtorch/__init__.py) exports: the ops defined here, not the helpers this
# module imports (its `backend` would hide the webtorch.backend package: `import webtorch.backend.gpu`).
__all__ = [_name for _name, _value in globals().items()
           if not _name.startswith("_") and getattr(_value, "__module__", None) == __name__]
