"""torch.nn.parameter: Parameter and Buffer (webtorch.nn.module defines them), and is_lazy for torch's lazy modules
(webtorch has no uninitialized parameters, so nothing is lazy)."""
from .module import Buffer, Parameter

__all__ = ["Buffer", "Parameter", "is_lazy"]


def is_lazy(param):
    return False
