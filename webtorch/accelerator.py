"""torch.accelerator: the current accelerator is "webgpu" when a WebGPU adapter is there."""
from . import _refusals, webgpu as _webgpu
from ._tensor import device as _device


def is_available():
    return _webgpu.is_available()


def current_accelerator(check_available=False):
    return _device("webgpu") if _webgpu.is_available() else None


def device_count():
    return 1 if _webgpu.is_available() else 0


def _require():
    if not _webgpu.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def current_device_index():
    _require()
    return 0


current_device_idx = current_device_index


def set_device_index(device):
    _require()
    index = _device(device).index if isinstance(device, (str, _device)) else device
    if index not in (None, 0, -1):
        raise RuntimeError(f"Invalid device index {index}: webgpu has one device (index 0)")


set_device_idx = set_device_index


def synchronize(device=None):
    _require()
    _webgpu.synchronize()


class device_index:
    """Within the block the accelerator's current device is this index (webgpu has one: 0); None changes
    nothing."""

    def __init__(self, device, /):
        self.idx = device

    def __enter__(self):
        if self.idx is not None:
            set_device_index(self.idx)
        return self

    def __exit__(self, *exc):
        return False


current_stream = _refusals.stand_in("accelerator.current_stream", _refusals.STREAMS)
