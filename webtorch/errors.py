"""Exceptions for WebGPU failures. Each subclasses RuntimeError, as PyTorch's device errors do."""


class WebGPUError(RuntimeError):
    """A WebGPU failure."""


class WebGPUUnavailableError(WebGPUError):
    """No WebGPU: no navigator.gpu, no adapter, or no wgpu-py on CPython."""


class DeviceLostError(WebGPUError):
    """The GPU device was lost (driver reset, tab backgrounded, or device.destroy())."""


class OutOfMemoryError(WebGPUError):
    """A GPU allocation failed (torch.OutOfMemoryError is a RuntimeError too)."""


class ValidationError(WebGPUError):
    """WebGPU rejected a command: a bug in webtorch, please report it with the op that failed."""
