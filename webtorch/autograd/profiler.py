"""torch.autograd.profiler: the older home of the profiler (webtorch/profiler.py): profile,
record_function, EventList; emit_nvtx / emit_itt annotate for NVIDIA's and Intel's tools, which do
not see webtorch's work: they are context managers that do nothing."""
import contextlib

from ..profiler import EventList, profile, record_function  # noqa: F401

__all__ = ["profile", "record_function", "EventList", "emit_nvtx", "emit_itt"]


class _NoTool(contextlib.ContextDecorator):
    def __init__(self, enabled=True, record_shapes=False):
        self.enabled, self.record_shapes = enabled, record_shapes

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class emit_nvtx(_NoTool):
    pass


class emit_itt(_NoTool):
    pass
