"""Tensor.untyped_storage() and Tensor.data_ptr() (attached to Tensor here), torch.UntypedStorage
(from_file: a file's bytes) and torch.asarray: what code reads to find tensors that share memory
(safetensors' save, transformers' tied-weight checks) and, on the host, to read a tensor's bytes.

Addresses: a cpu storage held in its dtype's own layout (every dtype but float16/bfloat16) gives its
buffer's real address, so ctypes reads of numel * element_size() bytes at data_ptr() see the
tensor's values. Other storages get a virtual address: one range per storage, never overlapping
another's, so sharing is detected exactly as torch's addresses would; on "webgpu" (like a CUDA
pointer) it is not host memory. A cpu float16/bfloat16 tensor's data_ptr() raises: its values are
held as float32, so there are no bytes of its dtype to point at (and a reader would write garbage).
"meta" storages have address 0, as torch's."""
import array
import weakref

from . import _dtypes as dt
from . import _ops
from ._buffers import tensor_from_bytes, tensor_to_bytes as _buffers_bytes
from ._tensor import Tensor
from .backend import cpu

_VIRTUAL_BASE = 1 << 44
_virtual = weakref.WeakKeyDictionary()  # storage -> its virtual base address


def _virtual_address(storage, nbytes):
    base = _virtual.get(storage)
    if base is None:
        global _VIRTUAL_BASE
        base = _VIRTUAL_BASE
        _VIRTUAL_BASE += (nbytes + 127) // 64 * 64  # a 64-byte gap: neighbours never touch
        _virtual[storage] = base
    return base


def _host_address(storage):
    """The address of a cpu storage's elements when they are held in the dtype's own layout, else None."""
    if storage.device_type != "cpu" or storage.dtype in dt.ROUNDED:
        return None
    if isinstance(storage.data, array.array):
        return storage.data.buffer_info()[0]
    if cpu.USE_NUMPY:  # a memoryview over the buffer a tensor was made from (frombuffer, safetensors)
        import numpy
        return numpy.frombuffer(storage.data, numpy.uint8).ctypes.data if storage.numel else 0
    return None


def storage_address(storage):
    if storage.device_type == "meta":
        return 0
    address = _host_address(storage)
    if address is not None:
        return address
    return _virtual_address(storage, storage.numel * storage.dtype.itemsize)


class UntypedStorage:
    """A tensor's storage as bytes: nbytes(), data_ptr(), device (torch.UntypedStorage's questions)."""

    def __init__(self, storage):
        self._storage = storage

    def nbytes(self):
        return self._storage.numel * self._storage.dtype.itemsize

    @classmethod
    def from_file(cls, filename, shared=False, nbytes=0):
        """The file's first nbytes bytes (all of it for 0) as a cpu byte storage: read, not mapped
        (shared=True, writing back to the file, is not supported)."""
        if shared:
            raise NotImplementedError("webtorch: UntypedStorage.from_file(shared=True) is not supported")
        with open(filename, "rb") as f:
            data = f.read(nbytes or -1)
        if nbytes and len(data) < nbytes:
            raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{filename}>: file is {len(data)} bytes")
        return cls(cpu.Storage(dt.uint8, array.array("B", data)))

    def untyped(self):  # a TypedStorage's question; this storage is untyped already
        return self

    _untyped = untyped

    def __getitem__(self, index):
        """A slice: the bytes [start, stop) as a storage of their own (a copy)."""
        if not isinstance(index, slice):
            return self._bytes()[index]
        return UntypedStorage(cpu.Storage(dt.uint8, array.array("B", self._bytes()[index])))

    def _bytes(self):
        return bytes(_buffers_bytes(Tensor(self._storage, (self._storage.numel,))))

    size = __len__ = nbytes

    def data_ptr(self):
        return storage_address(self._storage)

    @property
    def device(self):
        from ._tensor import device
        return device(self._storage.device_type)

    def __eq__(self, other):
        return isinstance(other, UntypedStorage) and other._storage is self._storage

    def __hash__(self):
        return id(self._storage)


def untyped_storage(tensor):
    return UntypedStorage(tensor._storage)


def data_ptr(tensor):
    storage = tensor._storage
    if storage.device_type == "cpu" and _host_address(storage) is None:
        raise NotImplementedError(
            f"webtorch: data_ptr() of a cpu {tensor.dtype.name} tensor"
            + (" (webtorch holds cpu float16/bfloat16 values as float32: there are no bytes of this dtype to point "
               "at; convert with .float() or read .numpy())" if storage.dtype in dt.ROUNDED else
               " that shares memory with a buffer it was made from (frombuffer/from_numpy): read .numpy()"))
    return storage_address(storage) + tensor._offset * tensor.dtype.itemsize


Tensor.untyped_storage = untyped_storage
Tensor.data_ptr = data_ptr


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """torch.asarray: an UntypedStorage's bytes read as dtype (uint8 by default), a tensor (shared unless
    copy or a conversion asks for a new one), or anything torch.as_tensor takes."""
    if isinstance(obj, UntypedStorage):
        dtype = dt.uint8 if dtype is None else dt.as_dtype(dtype)
        raw = Tensor(obj._storage, (obj.nbytes(),)) if obj._storage.dtype is dt.uint8 else None
        if raw is None or dtype is not dt.uint8:
            raw = tensor_from_bytes(memoryview(bytearray(_buffers_bytes(Tensor(obj._storage, (obj._storage.numel,))))),
                                    dtype, (obj.nbytes() // dtype.itemsize,), "cpu")
        out = raw
    else:
        out = _ops.as_tensor(obj, dtype=dtype, device=None)
        if copy and out is obj:
            out = out.clone()
    if device is not None:
        out = out.to(device)
    if requires_grad:
        out.requires_grad_(True)
    return out


def view_as_dtype(x, dtype):
    """Tensor.view(dtype): the same bytes read as dtype (the last dim rescaled when the element sizes
    differ). On "cpu" between dtypes the host keeps in their own layout it shares x's memory, as
    torch's; otherwise (webgpu, float16/bfloat16) it is a copy of those bytes."""
    dtype = dt.as_dtype(dtype)
    if dtype.typecode is None:
        raise NotImplementedError(f"webtorch holds no {dtype.name} tensors")
    old, new, shape = x.dtype.itemsize, dtype.itemsize, list(x.shape)
    if old != new:
        if x.dim() == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to view {x.dtype} as {dtype} (different element sizes)")
        if x.dim() and x.stride(-1) != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {x.dtype} as {dtype} (different element sizes), but "
                               f"got {x.stride(-1)}")
        if shape[-1] * old % new:
            raise RuntimeError(f"self.size(-1) must be divisible by {new // old if new > old else 1} to view {x.dtype} "
                               f"as {dtype} (different element sizes), but got {shape[-1]}")
        shape[-1] = shape[-1] * old // new
    address = _host_address(x._storage)
    if address is not None and x.is_contiguous() and dtype not in dt.ROUNDED:
        data = memoryview(x._storage.data).cast("B")[x._offset * old:(x._offset + x.numel()) * old]
        return tensor_from_bytes(data, dtype, shape, "cpu")
    return tensor_from_bytes(memoryview(bytearray(_buffers_bytes(x))), dtype, shape, x.device.type)


_ops.view_as_dtype = view_as_dtype
