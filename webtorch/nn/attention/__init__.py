"""torch.nn.attention: SDPBackend and the sdpa_kernel context manager that picks which
scaled-dot-product-attention backends may run. webtorch has one scaled_dot_product_attention (the math
form, on either device), which serves any of them; with none enabled it refuses to run, as torch."""
import contextlib

from . import flex_attention  # noqa: F401
from ...backends import cuda as _cuda

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


SDPBackend = _cuda.SDPBackend


# SDPBackend -> torch.backends.cuda's flag name (ERROR and OVERRIDEABLE have none)
_FLAGS = {SDPBackend.MATH: "math", SDPBackend.FLASH_ATTENTION: "flash", SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
          SDPBackend.CUDNN_ATTENTION: "cudnn"}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(f"Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    with _cuda.sdp_backends_set({_FLAGS[b] for b in backends if b in _FLAGS}):
        yield {}
