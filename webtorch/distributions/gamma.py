"""torch.distributions.gamma: Gamma, refused (not built yet; webtorch/distributions/__init__.py)."""
from . import Gamma

__all__ = ["Gamma"]
