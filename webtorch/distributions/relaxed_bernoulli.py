"""torch.distributions.relaxed_bernoulli: RelaxedBernoulli, refused (not built yet; webtorch/distributions/__init__.py)."""
from . import RelaxedBernoulli

__all__ = ["RelaxedBernoulli"]
