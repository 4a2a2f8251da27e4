"""Tensors from memory that is already there: Python buffers, numpy arrays, JS buffers, raw bytes.

On "cpu" a tensor made here shares the memory it came from, as PyTorch's frombuffer/from_numpy do
(except float16, kept as float32 on the host: a converted copy). On "webgpu" the bytes are uploaded
from where they lie: a JS ArrayBuffer's bytes go from JS memory to the GPU without entering Python.
safetensors and torch.load build their tensors through tensor_from_bytes.
"""
import sys
import warnings

from . import _dtypes as dt
from ._tensor import Tensor, _transfer, backend
from .backend import complex as complex_storage, cpu

_warned_read_only = set()


def _warn_read_only(what):
    if what not in _warned_read_only:  # once per program, like PyTorch
        _warned_read_only.add(what)
        warnings.warn(f"The given {what} is not writable, and PyTorch does not support non-writable tensors. This "
                      f"means you can write to the underlying (supposedly non-writable) {what} using the tensor. "
                      f"You may want to copy the {what} to protect its data or make it writable before converting it "
                      "to a tensor.", UserWarning, stacklevel=3)


def tensor_from_bytes(data, dtype, shape, device="cpu"):
    """A contiguous tensor of shape from data, its elements' little-endian bytes in torch's layout: a
    1-byte-format memoryview (shared on "cpu"), or the browser driver's JsBytes (uploaded from JS)."""
    device_type = str(device).split(":")[0]
    if device_type == "cpu" and data.__class__ is not memoryview:
        data = memoryview(bytearray(data.tobytes()))  # from JS memory: the one host copy
    if dtype.is_complex:  # the (real, imaginary) pairs, as a storage of the real dtype
        return Tensor(complex_storage.Storage(backend(device_type).from_bytes(dt.REAL_OF[dtype], data)), tuple(shape))
    return Tensor(backend(device_type).from_bytes(dtype, data), tuple(shape))


def tensor_to_bytes(t):
    """t's elements, row-major, as little-endian bytes in torch's layout (safetensors, torch.save)."""
    t = t.detach().contiguous()
    if t.device.type != "cpu":
        t = _transfer(t, "cpu")
    if t.dtype.is_complex:
        return cpu.to_bytes(t._storage.real, 2 * t._offset, 2 * t.numel())
    return cpu.to_bytes(t._storage, t._offset, t.numel())


def _byte_view(buffer):
    """A flat 1-byte memoryview of a Python buffer, or a JsBytes for a JS ArrayBuffer/TypedArray."""
    from .backend import driver_browser
    if driver_browser.is_js_buffer(buffer):
        return driver_browser.JsBytes(buffer)
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if not view.c_contiguous:
        raise ValueError("frombuffer needs a contiguous buffer")
    return view.cast("B") if view.format != "B" or view.ndim != 1 else view


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """torch.frombuffer: a 1-D cpu tensor over a buffer's bytes, sharing them (a JS ArrayBuffer or
    TypedArray in Pyodide is copied once into Python memory)."""
    dtype = dt.as_dtype(dtype)
    view = _byte_view(buffer)
    length, size = view.nbytes, dtype.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({length} "
                         "bytes) minus 1")
    if count < 0:
        if (length - offset) % size:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must not be "
                         f"greater than actual buffer length ({length} bytes)")
    if view.__class__ is memoryview and view.readonly:
        _warn_read_only("buffer")
    out = tensor_from_bytes(view[offset:offset + count * size], dtype, (count,), "cpu")
    out.requires_grad = requires_grad
    return out


def _numpy():
    if not cpu.USE_NUMPY:
        raise RuntimeError("Numpy is not available")
    import numpy
    return numpy


def _numpy_dtypes(np):
    """numpy dtype -> webtorch dtype, for the webtorch dtypes numpy has (same names)."""
    return {np.dtype(d.name): d for d in dt.ALL + dt.COMPLEX if d.name != "bfloat16"}


def numpy_dtype(array):
    """The webtorch dtype of a numpy array or scalar, or None."""
    return _numpy_dtypes(_numpy()).get(array.dtype)


def asarray(array):
    return _numpy().asarray(array)


def from_numpy(ndarray):
    """torch.from_numpy: a cpu tensor sharing the array's memory, with its strides."""
    np = _numpy()
    if not isinstance(ndarray, np.ndarray):
        kind = type(ndarray)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"expected np.ndarray (got {name})")
    if not ndarray.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. Conversion between "
                         "byte orders is currently not supported.")
    dtype = _numpy_dtypes(np).get(ndarray.dtype)
    if dtype is None:
        raise TypeError(f"can't convert np.ndarray of type {ndarray.dtype.type.__module__}.{ndarray.dtype.type.__name__}. "
                        "The only supported types are: " + ", ".join(d.name for d in dt.ALL) + ".")
    item = ndarray.itemsize
    if any(s < 0 for s in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative strides "
                         "are not currently supported. (You can probably work around this by making a copy of your "
                         "array  with array.copy().) ")
    if any(s % item for s in ndarray.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. Copy the numpy array to "
                         "reallocate the memory.")
    if not ndarray.flags.writeable:
        _warn_read_only("NumPy array")
    shape = ndarray.shape
    if dtype.is_complex:  # the (real, imaginary) pairs' memory as the real dtype, read as complex
        pairs = from_numpy(np.lib.stride_tricks.as_strided(ndarray.real, shape + (2,), ndarray.strides + (item // 2,),
                                                           writeable=ndarray.flags.writeable))
        return Tensor(complex_storage.Storage(pairs._storage), shape, tuple(s // 2 for s in pairs._stride[:-1]),
                      pairs._offset // 2)
    if dtype is dt.float16:  # kept as float32 on the host: a converted copy
        return Tensor(cpu.from_bytes(dtype, memoryview(np.ascontiguousarray(ndarray)).cast("B")), shape)
    if ndarray.size == 0:
        return Tensor(cpu.empty(dtype, 0), shape)
    strides = tuple(s // item for s in ndarray.strides)
    span = 1 + sum((n - 1) * s for n, s in zip(shape, strides))  # elements from the first to the last
    flat = np.lib.stride_tricks.as_strided(ndarray, (span,), (item,), writeable=ndarray.flags.writeable)
    return Tensor(cpu.from_bytes(dtype, memoryview(flat).cast("B")), shape, strides)


def is_numpy(data):
    """Whether data is a numpy array or scalar (without importing numpy)."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(data, (np.ndarray, np.generic))


def from_js(obj, dtype=None, *, device="webgpu"):
    """A 1-D tensor from a JS ArrayBuffer, TypedArray or DataView, in Pyodide. On "webgpu" its bytes go
    from JS memory straight to the GPU (no copy through Python); on "cpu" they are copied once.
    dtype defaults to the TypedArray's (Float32Array: float32, Int32Array: int32, ...)."""
    from .backend import driver_browser
    if not driver_browser.is_js_buffer(obj):
        raise TypeError(f"from_js expects a JS ArrayBuffer, TypedArray or DataView (in Pyodide), got "
                        f"{type(obj).__name__}; use torch.frombuffer for Python buffers")
    view = driver_browser.JsBytes(obj)
    if dtype is None:
        dtype = view.element_dtype
        if dtype is None:
            raise TypeError(f"from_js: pass dtype= for a JS {view.kind}")
    dtype = dt.as_dtype(dtype)
    if view.nbytes % dtype.itemsize:
        raise ValueError(f"from_js: {view.nbytes} bytes is not a multiple of the element size of {dtype} "
                         f"({dtype.itemsize})")
    return tensor_from_bytes(view, dtype, (view.nbytes // dtype.itemsize,), device)


def _array_wrap(x, array, context=None, return_scalar=False):
    """numpy's result of a ufunc or operator over tensor x (`t + np.array(0.5)`: the tensor's operator
    declines an array, numpy computes) back as a tensor, as torch's (bool results as uint8), on x's
    device (torch's CUDA tensors refuse __array__; webtorch's webgpu ones are read back)."""
    if array.dtype == bool:
        array = array.astype("uint8")
    out = from_numpy(array)
    return out if x._storage.device_type == "cpu" else _transfer(out, x._storage.device_type)


Tensor.__array_wrap__ = _array_wrap
