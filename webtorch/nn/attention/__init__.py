"""torch.nn.attention: SDPBackend and sdpa_kernel. webtorch has one scaled_dot_product_attention (the
math form, on either device), so choosing a backend changes nothing."""
import contextlib
import enum

from . import flex_attention  # noqa: F401

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    backends = [backends] if isinstance(backends, SDPBackend) else list(backends)
    if not all(isinstance(b, SDPBackend) for b in backends):
        raise TypeError("sdpa_kernel: backends must be SDPBackend values")
    yield {}
