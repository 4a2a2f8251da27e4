"""torch.overrides: the __torch_function__ protocol's helpers (webtorch/_torch_function.py implements the
protocol: Tensor subclasses, dispatch of torch functions and Tensor methods). Modes are not implemented:
defining a TorchFunctionMode is refused."""
from . import _refusals
from ._torch_function import (get_default_nowrap_functions, handle_torch_function, has_torch_function,
                              has_torch_function_unary, has_torch_function_variadic)

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic", "handle_torch_function",
           "get_default_nowrap_functions", "TorchFunctionMode", "is_tensor_like"]


def is_tensor_like(inp):
    """A Tensor, or an object whose type defines __torch_function__ (a tensor-like duck type)."""
    from ._tensor import Tensor
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


TorchFunctionMode = _refusals.stand_in("overrides.TorchFunctionMode",
                                       "torch function modes: webtorch dispatches __torch_function__ on its "
                                       "arguments' types only")
