"""torch.nn.parameter: Parameter and Buffer (webtorch.nn.module defines them), UninitializedParameter and
UninitializedBuffer (lazy modules', webtorch.nn.lazy), and is_lazy."""
from .lazy import UninitializedBuffer, UninitializedParameter, UninitializedTensorMixin
from .module import Buffer, Parameter

__all__ = ["Buffer", "Parameter", "UninitializedParameter", "UninitializedBuffer", "is_lazy"]


def is_lazy(param):
    return isinstance(param, UninitializedTensorMixin)
