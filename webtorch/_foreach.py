"""torch._foreach_*: one op over each tensor of a list, the form torch's multi-tensor optimizers and
fused training code (nanochat's Muon, modded-nanogpt) call. Each applies the tensor's own op per
tensor, so values, dtypes and gradients are the single-tensor op's. The forms follow torch's schemas:
an operand that is a list or tuple is zipped with the tensors (its length must match), anything else
(a scalar, one tensor) is shared; out-of-place forms return a tuple, in-place forms (trailing _) the
list they were given."""
import builtins
import math
import numbers

from ._tensor import Tensor
from .linalg import vector_norm

__all__ = []

_UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac", "lgamma",
          "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh",
          "sqrt", "tan", "tanh", "trunc"]
_BINARY = ["add", "sub", "mul", "div", "pow", "clamp_min", "clamp_max", "lerp"]  # lerp: 2 lists + weight
_EXTREMES = {"maximum": "clamp_min", "minimum": "clamp_max"}  # against a scalar, as torch's Scalar forms


def _powsum(t, ord=2, dtype=None):
    """sum |x|^ord: a vector norm before its root (ord 0 counts the non-zeros, +-inf is the largest/smallest |x|)."""
    x = t.abs() if dtype is None else t.abs().to(dtype)
    if ord == 0:
        return (x != 0).sum().to(x.dtype)
    if math.isinf(ord):
        return x.amax() if ord > 0 else x.amin()
    return x.pow(ord).sum()


# the forms beside the unary and binary tables: (name, what it does to one tensor, in place)
_OTHERS = [
    ("_foreach_addcdiv", lambda t, t1, t2, value: t.addcdiv(t1, t2, value=value), False),
    ("_foreach_addcdiv_", lambda t, t1, t2, value: t.addcdiv_(t1, t2, value=value), True),
    ("_foreach_addcmul", lambda t, t1, t2, value: t.addcmul(t1, t2, value=value), False),
    ("_foreach_addcmul_", lambda t, t1, t2, value: t.addcmul_(t1, t2, value=value), True),
    ("_foreach_zero_", lambda t: t.zero_(), True),
    ("_foreach_copy_", lambda t, src, non_blocking=False: t.copy_(src, non_blocking), True),
    ("_foreach_clone", lambda t, memory_format=None: t.clone(), False),
    ("_foreach_mm", lambda t, mat2: t.mm(mat2), False),
    ("_foreach_max", lambda t: t.max(), False),
    ("_foreach_norm", lambda t, ord=2, dtype=None: vector_norm(t, ord, dtype=dtype), False),
    ("_foreach_powsum", _powsum, False),
]


def _per_tensor(operand, count):
    """The operand of each of `count` tensors: a list or tuple is zipped, anything else is shared; a
    1-d tensor given as addcdiv/addcmul's `value` holds one scalar per tensor (torch's Tensor scalars)."""
    if isinstance(operand, (list, tuple)):
        if len(operand) != count:
            if builtins.all(isinstance(o, Tensor) for o in operand):
                raise RuntimeError(f"Tensor lists must have the same number of tensors, got {count} and {len(operand)}")
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")
        return list(operand)
    return [operand] * count


def _define(public, apply, inplace):
    def foreach(tensors, *operands, **kwargs):
        if public == "_foreach_pow" and isinstance(tensors, numbers.Number):  # a scalar base, a list of exponents
            return tuple(tensors ** t for t in _tensor_list(operands[0], public))
        tensors = _tensor_list(tensors, public)
        if public.startswith(("_foreach_addcdiv", "_foreach_addcmul")):
            operands, value = operands[:2], kwargs.pop("value", operands[2] if len(operands) > 2 else 1)
            operands += (value.tolist() if isinstance(value, Tensor) else value,)
        per = [_per_tensor(o, len(tensors)) for o in operands]
        results = tuple(apply(t, *(p[i] for p in per), **kwargs) for i, t in enumerate(tensors))
        return tensors if inplace else results

    foreach.__name__ = foreach.__qualname__ = public
    globals()[public] = foreach
    __all__.append(public)


def _tensor_list(tensors, name):
    if not isinstance(tensors, (list, tuple)) or not builtins.all(isinstance(t, Tensor) for t in tensors):
        raise TypeError(f"{name}(): argument 'self' must be a list or tuple of Tensors, not {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return tensors


def _method(name):
    return lambda t, *operands, **kwargs: getattr(t, name)(*operands, **kwargs)


for _name in _UNARY + _BINARY:
    _define(f"_foreach_{_name}", _method(_name), False)
    _define(f"_foreach_{_name}_", _method(_name + "_"), True)
for _name, _clamp in _EXTREMES.items():
    for _suffix in ("", "_"):
        _define(f"_foreach_{_name}{_suffix}", (lambda name, clamp: lambda t, other: getattr(
            t, name if isinstance(other, Tensor) else clamp)(other))(_name + _suffix, _clamp + _suffix), _suffix == "_")
for _public, _apply, _inplace in _OTHERS:
    _define(_public, _apply, _inplace)
