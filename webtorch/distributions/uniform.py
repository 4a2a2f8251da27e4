"""torch.distributions.uniform: the Uniform of webtorch/distributions/__init__.py, under its torch module path."""
from . import Uniform

__all__ = ["Uniform"]
