"""torch's traceable assertions (torch._check*, torch._assert*): libraries state shape and value
conditions with them so that compilers can keep them. Here nothing traces: each is checked at once and
raises the exception type torch's does."""
import builtins
import warnings

from . import _dtypes as dt
from ._tensor import Tensor

_NO_MESSAGE = ("Expected cond to be True, but got False. (Could this error message be improved? If so, please "
               "report an enhancement request to PyTorch.)")


def _check_with(error_type, cond, message=None):
    if not isinstance(cond, builtins.bool):
        if isinstance(cond, Tensor):
            raise TypeError("cond must be a bool, but got a Tensor. For tensor conditions, use "
                            "torch._check_tensor_all() to assert that all elements are true.")
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if not issubclass(error_type, Exception) or issubclass(error_type, Warning):
        raise AssertionError(f"error_type must be a subclass of Exception but not Warning, got {error_type}")
    if message is not None and not callable(message):
        raise TypeError("message must be a callable")
    raise error_type(_NO_MESSAGE if message is None else str(message()))


def _check(cond, message=None):
    _check_with(RuntimeError, cond, message)


def _check_index(cond, message=None):
    _check_with(IndexError, cond, message)


def _check_value(cond, message=None):
    _check_with(ValueError, cond, message)


def _check_type(cond, message=None):
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond, message=None):
    _check_with(NotImplementedError, cond, message)


def _check_is_size(i, message=None, *, max=None):
    warnings.warn("_check_is_size will be removed in a future PyTorch release along with guard_size_oblivious.     "
                  "Use _check(i >= 0) instead.", FutureWarning, stacklevel=2)
    _check(i >= 0, message)
    if max is not None:
        _check(i <= max, message)


def _check_tensor_all_with(error_type, cond, message=None):
    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if cond.dtype != dt.bool_:
        raise TypeError(f"cond tensor must have dtype torch.bool, but got torch.{cond.dtype.name}")
    _check_with(error_type, builtins.bool(cond.all().item()), message)


def _check_tensor_all(cond, message=None):
    _check_tensor_all_with(RuntimeError, cond, message)


def _assert(condition, message):
    """torch._assert: a traceable assert (an AssertionError with message where condition is false)."""
    assert condition, message


def _assert_async(tensor, assert_msg=None):
    """A one-element tensor that must be nonzero (torch checks it on the device, later; here at once)."""
    if not builtins.bool(tensor):
        raise RuntimeError(assert_msg or "Expected Tensor with single nonzero value, but got zero")


def _assert_scalar(condition, assert_msg):
    if not condition:
        raise RuntimeError(assert_msg)
