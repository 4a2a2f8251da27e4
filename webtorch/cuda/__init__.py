"""torch.cuda as PyTorch's CPU-only build has it: no CUDA device here (webtorch's GPU is "webgpu",
see webtorch.accelerator). Queries answer like torch without CUDA; calls that need a CUDA device
raise torch's AssertionError."""
from .._tensor import _unsupported_device
from . import amp  # noqa: F401  (torch.cuda.amp.autocast, GradScaler)


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def is_bf16_supported(including_emulation=True):
    return False


def manual_seed(seed):
    """A no-op without CUDA, as in torch (the CPU generator is torch.manual_seed's)."""


def manual_seed_all(seed):
    """A no-op without CUDA, as in torch."""


def seed():
    """A no-op without CUDA, as in torch."""


seed_all = seed


def empty_cache():
    """A no-op without CUDA, as in torch."""


def memory_allocated(device=None):
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def _needs_cuda(*args, **kwargs):
    raise _unsupported_device("cuda")


synchronize = current_device = set_device = get_device_name = get_device_capability = get_device_properties = \
    get_rng_state = set_rng_state = get_rng_state_all = set_rng_state_all = reset_peak_memory_stats = _needs_cuda



class _NeedsCuda:
    """torch's CPU build keeps these classes (code names them at import time); making one raises its
    RuntimeError."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError(f"Tried to instantiate dummy base class {type(self).__name__}")


class CUDAGraph(_NeedsCuda):
    pass


class Event(_NeedsCuda):
    pass


class Stream:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class graph(Stream):  # torch's graph() makes a side Stream first
    pass


def graph_pool_handle():
    raise RuntimeError("Tried to instantiate dummy base class _graph_pool_handle")


class MemPool(_NeedsCuda):
    pass


class StreamContext:
    """torch.cuda.stream(s): a no-op for None (what CPU code passes); a real stream cannot exist here."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


stream = StreamContext


def is_current_stream_capturing():
    return False
