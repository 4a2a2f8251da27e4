"""Which arguments of torch's functions must be Tensors, and the one check that enforces it.

torch's argument parser takes a Python number for a Tensor parameter only in the arithmetic ops
(add, sub, mul, div, floor_divide, true_divide and their aliases); any other op takes a number only
where it has a Scalar overload (eq(Tensor, Scalar), pow(Scalar, Tensor), ...), and none has an
overload of numbers alone: torch.maximum(t, 2), torch.eq(2, t) and torch.pow(2, 3) raise
TypeError. The same holds for the Tensor methods, where self is the first argument. webtorch's op
functions take numbers anywhere (its own code relies on that); the public names (webtorch.X and
Tensor.X) are these functions wrapped by `require_tensors` with their row of ARGS. The functions whose
first argument (and second) torch takes only as a Tensor, whatever the others, are the generated table
webtorch/_tensor_first.py's, checked by _torch_function's wrappers (torch.exp(2), torch.mm(t, 2)).
"""
import functools
import inspect
import numbers

from . import _buffers, _dtypes as dt, _ops
from ._tensor import Tensor

# One letter per leading positional argument:
#   T  a Tensor (torch has no Scalar overload there)
#   o  a Tensor or None (an optional Tensor)
#   n  a Tensor or a number (a Scalar overload), but not every such argument a number
#   i  a Tensor or an int (a dim, or repeats), not a bool
#   l  a Tensor, an int or a list/tuple of ints (indices or sections)
#   *  every positional argument a Tensor
#   [  every positional argument a Tensor, or one list/tuple of Tensors
_ARGS_BY_KIND = {
    "TT": "atan2 arctan2 hypot maximum minimum logical_and logical_or logical_xor gcd lcm heaviside nextafter "
          "logaddexp logaddexp2 isclose allclose equal dist dot matmul mm bmm mv outer ger kron cross "
          "masked_select masked_fill cdist take_along_dim lerp fmax fmin ldexp igamma igammac",
    "TTT": "addcmul addcdiv",
    "Tn": "eq ne lt le gt ge greater greater_equal less less_equal not_equal fmod copysign rsub clamp_min "
          "clamp_max searchsorted",
    "Ti": "max min repeat_interleave",
    "Tl": "tensor_split",
    "nn": "float_power pow remainder bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift xlogy isin",
    "nT": "bucketize",
    "To": "bincount",
    "*": "block_diag broadcast_tensors cartesian_prod",
    "[": "atleast_1d atleast_2d atleast_3d meshgrid",
}
ARGS = {name: kind for kind, names in _ARGS_BY_KIND.items() for name in names.split()}


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


_ACCEPTS = {
    "T": lambda x: isinstance(x, Tensor),
    "o": lambda x: x is None or isinstance(x, Tensor),
    "n": lambda x: isinstance(x, (Tensor, numbers.Number)) or dt.python_number(x) is not x,
    "i": lambda x: isinstance(x, Tensor) or _is_int(x),
    "l": lambda x: isinstance(x, (Tensor, list, tuple)) or _is_int(x),
}


def _type_name(x):
    return "Tensor" if isinstance(x, Tensor) else type(x).__name__


def _check(name, kind, params, args, kwargs):
    if kind in "*[":
        if kind == "[" and len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = args[0]
        for i, x in enumerate(args):
            if not isinstance(x, Tensor):
                raise TypeError(f"{name}(): expected Tensor as element {i}, but got {_type_name(x)}")
        return
    given = list(args[:len(kind)])
    for p in params[len(given):len(kind)]:
        given.append(kwargs.get(p, _MISSING))
    for i, (letter, x) in enumerate(zip(kind, given)):
        if x is _MISSING or _ACCEPTS[letter](x):
            continue
        if letter == "T":
            raise TypeError(f"{name}(): argument '{params[i]}' (position {i + 1}) must be Tensor, not {_type_name(x)}")
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({', '.join(_type_name(v) for v in given if v is not _MISSING)})")
    if "n" in kind and not any(isinstance(x, Tensor) for x in given):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({', '.join(_type_name(x) for x in given if x is not _MISSING)}): one of them must "
                        f"be a Tensor")


_MISSING = object()


def require_tensors(fn, name, kind):
    """fn raising torch's TypeError where an argument that must be a Tensor (per kind) is not."""
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    params += ["input", "other", "arg"][len(params):]

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        _check(name, kind, params, args, kwargs)
        return fn(*args, **kwargs)
    return checked


# Python's binary operators on a Tensor: self op other, other op self (r), self op= other (i).
_OPERATORS = ("add sub mul truediv floordiv mod pow matmul and or xor lshift rshift").split()
_COMPARISONS = "eq ne lt le gt ge".split()
_OPERANDS = {Tensor, bool, int, float, complex}


# Operators whose op is one elementwise kernel (the function's defaults): they launch it directly, so
# the check below costs no Python call per op.
_KERNELS = {"__add__": (_ops.add, "add"), "__mul__": (_ops.mul, "mul"), "__truediv__": (_ops.div, "div"),
            "__and__": (_ops.bitwise_and, "bitwise_and"), "__or__": (_ops.bitwise_or, "bitwise_or"),
            "__xor__": (_ops.bitwise_xor, "bitwise_xor"),
            **{f"__{name}__": (getattr(_ops, name), name) for name in _COMPARISONS}}


def _operator(fn, name):
    """fn as torch's operator: a numpy scalar is read as a Python number; any other operand that is
    neither a Tensor nor a number (a numpy array, a list, a str) gets NotImplemented, so Python
    tries the other side (numpy computes `t + np.array(0.5)` and wraps its result in a tensor,
    `t == "a"` is False). `t == np.array(...)` compares with the array as a tensor, as torch's."""
    def other_operand(x, other):
        number = dt.python_number(other)
        if number is other:
            if name == "__eq__" and _buffers.is_numpy(other):
                return _buffers.from_numpy(_buffers.asarray(other))
            return NotImplemented
        return number

    expected, kernel = _KERNELS.get(name, (None, None))
    if fn is expected:
        def dunder(x, other):
            if other.__class__ not in _OPERANDS and not isinstance(other, Tensor):
                other = other_operand(x, other)
                if other is NotImplemented:
                    return other
            return _ops.elementwise(kernel, x, other)
    else:
        def dunder(x, other):
            if other.__class__ not in _OPERANDS and not isinstance(other, Tensor):
                other = other_operand(x, other)
                if other is NotImplemented:
                    return other
            return fn(x, other)
    return functools.wraps(fn)(dunder)


# torch's deprecated overloads that old code (optimizers written for torch 1.x) still calls: a number
# before the tensors, where torch now takes it as a keyword. torch accepts them with a UserWarning.
_DEPRECATED = {"add": ("alpha", "other"), "sub": ("alpha", "other"),
               "addcmul": ("value", "tensor1", "tensor2"), "addcdiv": ("value", "tensor1", "tensor2")}


def accept_deprecated(fn, name, keyword, tensors):
    """fn also taking (self, number, *tensors): the number moved to its keyword, with torch's warning."""
    n = 2 + len(tensors)

    @functools.wraps(fn)
    def deprecated_too(*args, **kwargs):
        if (len(args) == n and isinstance(args[1], numbers.Number) and not isinstance(args[1], Tensor)
                and all(isinstance(t, Tensor) for t in args[2:])):
            import warnings
            old = ", ".join([f"Number {keyword}"] + [f"Tensor {t}" for t in tensors])
            new = ", ".join(f"Tensor {t}" for t in tensors)
            warnings.warn(f"This overload of {name} is deprecated:\n\t{name}({old})\nConsider using one of the "
                          f"following signatures instead:\n\t{name}({new}, *, Number {keyword} = 1)", UserWarning,
                          stacklevel=2)
            return fn(args[0], *args[2:], **{keyword: args[1]}, **kwargs)
        return fn(*args, **kwargs)
    return deprecated_too


def apply(namespace):
    """Wrap the op functions in namespace (webtorch's) and the Tensor methods of the same names. (A
    function whose first argument alone must be a Tensor, torch.exp(2) refused, is _tensor_first's:
    _torch_function's wrapper checks it; the methods need no check, self is a Tensor.)"""
    for name in _OPERATORS:
        for form in ("__{}__", "__r{}__", "__i{}__"):
            dunder = form.format(name)
            if dunder in Tensor.__dict__ and dunder != "__rtruediv__":  # x.reciprocal() * other: an operator already
                setattr(Tensor, dunder, _operator(Tensor.__dict__[dunder], dunder))
    for name in _COMPARISONS:
        setattr(Tensor, f"__{name}__", _operator(Tensor.__dict__[f"__{name}__"], f"__{name}__"))
    for name, kind in ARGS.items():
        fn = namespace[name]
        namespace[name] = require_tensors(fn, name, kind)
        if len(kind) < 2:   # "T", "*" or "[": self is a Tensor
            continue
        for method in (name, name + "_"):
            bound = Tensor.__dict__.get(method)
            if callable(bound):
                setattr(Tensor, method, require_tensors(bound, method, kind))
    for name, (keyword, *tensors) in _DEPRECATED.items():
        namespace[name] = accept_deprecated(namespace[name], name, keyword, tensors)
        for method in (name, name + "_"):
            setattr(Tensor, method, accept_deprecated(Tensor.__dict__[method], method, keyword, tensors))
