"""torch.backends.mkldnn without oneDNN: webtorch's cpu computes with numpy, so is_available() answers
False (libraries then take their portable paths, as on a torch built without oneDNN); the flags keep
torch's defaults and change nothing."""
from ._flags import set_flags as _set, temporarily

VERBOSE_OFF, VERBOSE_ON, VERBOSE_ON_CREATION = 0, 1, 2
enabled = True
deterministic = False
allow_tf32 = True


def is_available():
    return False


def is_acl_available():
    return False


class verbose:
    """oneDNN's verbose messages: there are none to print."""
    def __init__(self, level):
        self.level = level

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    return _set(__name__, enabled=_enabled, deterministic=_deterministic, allow_tf32=_allow_tf32)


def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    return temporarily(__name__, enabled=enabled, deterministic=deterministic, allow_tf32=allow_tf32)
