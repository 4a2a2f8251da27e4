"""torch.nn.parameter: Parameter (webtorch.nn.module defines it), and is_lazy for torch's lazy modules
(webtorch has no uninitialized parameters, so nothing is lazy)."""
from .module import Parameter

__all__ = ["Parameter", "is_lazy"]


def is_lazy(param):
    return False
