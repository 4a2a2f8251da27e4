"""torch.cpu: the host device's module (amp.autocast, synchronize, device_count); the cpu is always here."""
from . import amp  # noqa: F401


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    """cpu work is done when its call returns."""
