"""torch.distributions.normal: the Normal of webtorch/distributions/__init__.py, under its torch module path."""
from . import Normal

__all__ = ["Normal"]
