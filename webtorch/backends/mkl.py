"""torch.backends.mkl without Intel MKL (webtorch's cpu computes with numpy)."""
from .mkldnn import verbose  # noqa: F401  (a no-op as there: nothing to print)

VERBOSE_OFF, VERBOSE_ON = 0, 1


def is_available():
    return False
