"""torch.distributions.multivariate_normal: the MultivariateNormal of webtorch/distributions/__init__.py, under its torch module path."""
from . import MultivariateNormal

__all__ = ["MultivariateNormal"]
