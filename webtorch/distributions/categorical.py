"""torch.distributions.categorical: the Categorical of webtorch/distributions/__init__.py, under its torch module path."""
from . import Categorical

__all__ = ["Categorical"]
