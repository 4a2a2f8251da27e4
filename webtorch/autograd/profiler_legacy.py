"""torch.autograd.profiler_legacy: the legacy profiler's name for webtorch's profile."""
from ..profiler import profile  # noqa: F401

__all__ = ["profile"]
