"""torch.overrides: the __torch_function__ protocol's helpers. webtorch dispatches on nothing: no argument
overrides an op, so has_torch_function answers False and ops run their own code (what torch does for
plain tensors); defining a TorchFunctionMode or calling handle_torch_function is refused."""
from . import _refusals

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic", "handle_torch_function",
           "get_default_nowrap_functions", "TorchFunctionMode", "is_tensor_like"]

_REASON = "the __torch_function__ protocol: webtorch's ops do not dispatch on their arguments' types"


def has_torch_function(relevant_args):
    return False


def has_torch_function_unary(arg):
    return False


def has_torch_function_variadic(*args):
    return False


def get_default_nowrap_functions():
    return set()


def is_tensor_like(inp):
    from ._tensor import Tensor
    return isinstance(inp, Tensor)


handle_torch_function = _refusals.stand_in("overrides.handle_torch_function", _REASON)
TorchFunctionMode = _refusals.stand_in("overrides.TorchFunctionMode", _REASON)
