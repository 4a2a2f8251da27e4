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
    """The adapter's vendor, architecture, device and description, its subgroup sizes, and the
    subgroup-matrix (tensor core) configurations it offers: dicts of component_type,
    result_component_type, M, N, K (empty where the adapter has none)."""
    return dict(_rt.runtime().driver.adapter_info)


def features():
    """The WebGPU features webtorch requested for its device: those of "shader-f16" (float16),
    "subgroups", "chromium-experimental-subgroup-matrix" and "timestamp-query" the adapter offers."""
    return sorted(_rt.runtime().features)


def has_float16():
    """Whether float16 tensors can live on "webgpu" here (the adapter offers "shader-f16")."""
    return "shader-f16" in _rt.runtime().features


def get_device_name():
    info = adapter_info()
    return info.get("description") or info.get("device") or info.get("vendor") or "WebGPU device"


def synchronize():
    """Submits pending work and waits until the GPU has finished it."""
    _rt.runtime().synchronize()


def memory_allocated():
    """Bytes of GPU memory held by live tensors."""
    return _rt.runtime().allocated_bytes if _rt.initialized() else 0


def memory_reserved():
    """Bytes held by live tensors plus the free buffers kept in the pool."""
    rt = _rt.runtime() if _rt.initialized() else None
    return rt.allocated_bytes + rt.pooled_bytes if rt else 0


def empty_cache():
    """Frees the pooled buffers that no tensor uses."""
    if _rt.initialized():
        _rt.runtime().empty_cache()


def set_pool_limit(nbytes):
    """Upper bound on bytes kept in the free-buffer pool (default 512 MiB)."""
    _rt.runtime().max_pool_bytes = nbytes


def stats():
    """Counters: kernels dispatched, command buffers submitted, pipelines compiled; and how a
    synchronous readback suspends in the browser (None before the first one, and on CPython)."""
    rt = _rt.runtime()
    return {"kernels": rt.kernels_dispatched, "submits": rt.submit_count, "pipelines": len(rt._pipelines),
            "allocated_bytes": rt.allocated_bytes, "pooled_bytes": rt.pooled_bytes,
            "readback_route": getattr(rt.driver, "wait_route", None)}
