"""torch.distributions.wishart: Wishart, refused (not built yet; webtorch/distributions/__init__.py)."""
from . import Wishart

__all__ = ["Wishart"]
