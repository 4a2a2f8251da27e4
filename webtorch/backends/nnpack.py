"""torch.backends.nnpack without NNPACK: the switch (torch keeps it in torch._C, not here) keeps torch's
default and changes nothing."""
from ._flags import set_flags as _set, temporarily

_enabled = True


def is_available():
    return False


def set_flags(_enabled):
    return _set(__name__, _enabled=_enabled)


def flags(enabled=False):
    return temporarily(__name__, _enabled=enabled)
