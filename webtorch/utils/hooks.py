"""torch.utils.hooks: RemovableHandle (what register_*_hook returns)."""
from ..autograd import RemovableHandle  # noqa: F401

__all__ = ["RemovableHandle"]
