"""webtorch.webgpu: the WebGPU device (like torch.cuda for CUDA)."""
from .backend import webgpu as _rt
from .errors import (DeviceLostError, OutOfMemoryError, ValidationError, WebGPUError,  # noqa: F401
                     WebGPUUnavailableError)


async def init_async():
    """Initialise the device explicitly; needed in the browser when Python is not entered through
    runPythonAsync (then synchronous initialisation through JSPI is unavailable)."""
    await _rt.init_async()


def is_available():
    try:
        _rt.runtime()
    except WebGPUError:
        return False
    return True


def adapter_info():
    """The adapter's vendor, architecture, device and description, its subgroup sizes, the
    subgroup-matrix (tensor core) configurations it offers (dicts of component_type,
    result_component_type, M, N, K; empty where the adapter has none), and "float16": "native" (stored
    as f16: the adapter offers "shader-f16") or "emulated" (stored as f32, rounded to half after
    every op: same values, float32's speed and memory)."""
    return {**_rt.runtime().driver.adapter_info, "float16": "native" if has_float16() else "emulated"}


def sync_mode():
    """How synchronous readbacks (.item(), .tolist(), print(t)) wait for the GPU: "native" (the host),
    "jspi" (the browser suspends Python: Chrome, Edge, Firefox 153+), "bridge" (no JSPI, in a
    cross-origin-isolated worker: a second worker owns the GPU and Python blocks in Atomics.wait) or
    "async" (neither: synchronous reads raise an error naming their awaited form)."""
    return _rt.sync_mode()


def features():
    """The WebGPU features webtorch requested for its device: those of "shader-f16" (float16),
    "subgroups", "chromium-experimental-subgroup-matrix" and "timestamp-query" the adapter offers."""
    return sorted(_rt.runtime().features)


def has_float16():
    """Whether float16 is native on "webgpu" here (the adapter offers "shader-f16": 2-byte storage).
    float16 tensors work either way: without it they are emulated (adapter_info()["float16"])."""
    return "shader-f16" in _rt.runtime().features


def get_device_name():
    info = adapter_info()
    return info.get("description") or info.get("device") or info.get("vendor") or "WebGPU device"


def synchronize():
    """Submits pending work and waits until the GPU has finished it."""
    _rt.runtime().synchronize()


# -- memory: the caching allocator (backend/webgpu.py), with torch.cuda's names ----------------------
def _runtime_if_initialized():
    return _rt.runtime() if _rt.initialized() else None


def memory_allocated():
    """Bytes of GPU memory held by live tensors (rounded up to the allocator's size classes)."""
    rt = _runtime_if_initialized()
    return rt.allocated_bytes if rt else 0


def max_memory_allocated():
    """The most bytes live tensors held at once (since start or reset_peak_memory_stats())."""
    rt = _runtime_if_initialized()
    return rt.allocated_peak if rt else 0


def memory_reserved():
    """Bytes of GPU buffers webtorch holds: live tensors' plus the cached free ones."""
    rt = _runtime_if_initialized()
    return rt.reserved_bytes if rt else 0


def max_memory_reserved():
    rt = _runtime_if_initialized()
    return rt.counts["reserved_bytes.peak"] if rt else 0


def reset_peak_memory_stats():
    rt = _runtime_if_initialized()
    if rt:
        rt.reset_peak_memory_stats()


def memory_stats():
    """The allocator's counters under torch.cuda.memory_stats()'s keys ("allocated_bytes.all.current",
    "reserved_bytes.all.peak", "num_alloc_retries", "num_ooms", ...)."""
    rt = _runtime_if_initialized()
    return rt.memory_stats() if rt else {}


def empty_cache():
    """Frees the cached buffers that no tensor uses (memory_reserved() drops to memory_allocated())."""
    rt = _runtime_if_initialized()
    if rt:
        rt.empty_cache()


def set_memory_limit(nbytes):
    """Caps the bytes webtorch reserves (live tensors plus cache); None removes the cap. An allocation
    beyond it frees the cache and retries, then raises OutOfMemoryError, as one the device refuses.
    (torch.cuda.set_per_process_memory_fraction's role: WebGPU does not report a device's memory, so
    the limit is in bytes.)"""
    if nbytes is not None and (not isinstance(nbytes, int) or nbytes < 0):
        raise ValueError(f"set_memory_limit expects a byte count >= 0 or None, got {nbytes!r}")
    _rt.runtime().memory_limit = nbytes


def get_memory_limit():
    return _rt.runtime().memory_limit


def stats():
    """Counters: kernels dispatched, command buffers submitted, pipelines compiled; and how a
    synchronous readback suspends in the browser (None before the first one, and on CPython)."""
    rt = _rt.runtime()
    return {"kernels": rt.kernels_dispatched, "submits": rt.submit_count, "pipelines": len(rt._pipelines),
            "allocated_bytes": rt.allocated_bytes, "cached_bytes": rt.cached_bytes,
            "readback_route": getattr(rt.driver, "wait_route", None)}
