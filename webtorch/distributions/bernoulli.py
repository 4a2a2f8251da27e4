"""torch.distributions.bernoulli: the Bernoulli of webtorch/distributions/__init__.py, under its torch module path."""
from . import Bernoulli

__all__ = ["Bernoulli"]
