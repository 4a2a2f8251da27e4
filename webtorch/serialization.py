"""torch.save / torch.load in PyTorch's zip checkpoint format (the one torch >= 1.6 writes).

An archive holds `<prefix>/data.pkl` (a protocol-2 pickle of the object), `<prefix>/data/<key>`
(each storage's raw little-endian bytes), `byteorder` and `version`. In the pickle a tensor is
`torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)` and a storage
a persistent id `("storage", torch.<Type>Storage, key, location, numel)`; views of one storage share
its key, so tied weights stay tied.

Writing: an own small pickle emitter for the objects a checkpoint holds (PyTorch's globals are
written by name: torch is not importable in Pyodide). Reading with weights_only=True (the default):
an own opcode loop in which a GLOBAL resolves only through _SAFE_GLOBALS, the counterparts of what
torch's weights-only unpickler allows; nothing is imported or called outside it. weights_only=False
uses Python's pickle (any global: only for files you trust).
"""
import io
import math
import os
import pickle
import reprlib
import struct
import zipfile
from collections import Counter, OrderedDict

from . import _buffers
from . import _checkpoint_zip, _refusals
from . import _dtypes as dt
from ._memory_format import layout as _layout, sparse_coo, sparse_csc, sparse_csr
from ._tensor import Size, Tensor, device as _device
from .nn.module import Parameter
from .sparse import CompressedTensor, SparseTensor, sparse_compressed_tensor, sparse_coo_tensor

# -- storage types -----------------------------------------------------------------------------
_STORAGE_DTYPES = {"FloatStorage": dt.float32, "DoubleStorage": dt.float64, "HalfStorage": dt.float16,
                   "BFloat16Storage": dt.bfloat16, "LongStorage": dt.int64, "IntStorage": dt.int32,
                   "ShortStorage": dt.int16, "CharStorage": dt.int8, "ByteStorage": dt.uint8,
                   "BoolStorage": dt.bool_, "ComplexFloatStorage": dt.complex64,
                   "ComplexDoubleStorage": dt.complex128, "UntypedStorage": dt.uint8}
_STORAGE_NAMES = {d: name for name, d in _STORAGE_DTYPES.items() if name != "UntypedStorage"}


class _StorageType:
    """What `torch.<Type>Storage` unpickles to: the dtype of the storage's elements."""
    __slots__ = ("dtype",)

    def __init__(self, d):
        self.dtype = d


# -- storage level: a storage's bytes <-> a flat tensor over it ------------------------------------
def _storage_tensor(t):
    """A flat tensor over all of t's storage (what an archive's data/<key> record holds)."""
    return Tensor(t._storage, (t._storage.numel,))


def _storage_view(flat, size, stride, offset):
    """A view of the flat storage tensor `flat` (shares it: views and tied weights stay one storage)."""
    return Tensor(flat._storage, tuple(size), tuple(stride), offset)


def _storage_identity(t):
    return id(t._storage)


def _flat_from_record(data, d, numel, device_type):
    """A flat tensor of a storage record's bytes: uploaded straight from them to "webgpu"; on "cpu" over
    a writable copy (the record's bytes are read-only)."""
    return _buffers.tensor_from_bytes(memoryview(bytearray(data) if device_type == "cpu" else data), d, (numel,),
                                      device_type)


# -- save ----------------------------------------------------------------------------------------
def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """torch.save: obj (tensors, Parameters, state_dicts, optimizer state_dicts, nested dict/list/tuple
    of these and of numbers, strings, Size, dtypes) into f (a path or a writable binary file).
    Tensors on "webgpu" are written as "cpu" tensors (PyTorch has no webgpu device)."""
    if pickle_module is not None or pickle_protocol != 2 or not _use_new_zipfile_serialization:
        raise NotImplementedError("webtorch.save writes PyTorch's zip format with pickle protocol 2 only")
    writer = _PickleWriter()
    writer.dump(obj)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        _write_record(archive, "data.pkl", writer.out.getvalue())
        _write_record(archive, ".format_version", b"1")
        _write_record(archive, ".storage_alignment", b"64")
        _write_record(archive, "byteorder", b"little")
        for key, flat in writer.storages:
            _write_record(archive, f"data/{key}", _buffers.tensor_to_bytes(flat))
        _write_record(archive, "version", b"3\n")
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            file.write(out.getbuffer())
    else:
        f.write(out.getbuffer())


_ARCHIVE = "archive"
_ALIGNMENT = 64  # torch aligns each record's data to 64 bytes (mmap-friendly)


def _write_record(archive, name, data):
    """One stored record, its data starting at a multiple of _ALIGNMENT in the file (padded with an
    extra field as torch's writer does)."""
    info = zipfile.ZipInfo(f"{_ARCHIVE}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
    start = archive.fp.tell() + 30 + len(info.filename.encode())  # local header size without extra
    pad = -(start + 4) % _ALIGNMENT
    info.extra = struct.pack("<HH", 0x4246, pad) + bytes(pad)  # 0x4246 "FB": torch's padding field id
    archive.writestr(info, bytes(data))


class _PickleWriter:
    """Protocol-2 pickle of the objects a checkpoint holds, with PyTorch's globals by name."""

    def __init__(self):
        self.out = io.BytesIO()
        self.memo = {}  # id(obj) -> memo index (objects kept alive in self.kept)
        self.kept = []
        self.globals = {}
        self.storage_keys = {}  # id(storage) -> key
        self.storages = []  # (key, flat tensor)

    def dump(self, obj):
        self.out.write(b"\x80\x02")
        self.save(obj)
        self.out.write(b".")

    def put(self, obj):
        index = self.memo[id(obj)] = len(self.memo)
        self.kept.append(obj)
        self.out.write(b"q" + bytes([index]) if index < 256 else b"r" + struct.pack("<I", index))

    def get(self, obj):
        index = self.memo.get(id(obj))
        if index is None:
            return False
        self.out.write(b"h" + bytes([index]) if index < 256 else b"j" + struct.pack("<I", index))
        return True

    def glob(self, module, name):
        key = (module, name)
        if key in self.globals:
            index = self.globals[key]
            self.out.write(b"h" + bytes([index]) if index < 256 else b"j" + struct.pack("<I", index))
            return
        self.out.write(b"c" + module.encode() + b"\n" + name.encode() + b"\n")
        self.globals[key] = index = len(self.memo)
        self.memo[("global", key)] = index  # a key no id() can be
        self.out.write(b"q" + bytes([index]) if index < 256 else b"r" + struct.pack("<I", index))

    def call(self, module, name, *args):
        """module.name(*args) on load (GLOBAL, args tuple, REDUCE)."""
        self.glob(module, name)
        self.save(tuple(args))
        self.out.write(b"R")

    def save(self, obj):
        w = self.out.write
        kind = type(obj)
        if obj is None:
            w(b"N")
        elif kind is bool:
            w(b"\x88" if obj else b"\x89")
        elif kind is int:
            if 0 <= obj < 256:
                w(b"K" + bytes([obj]))
            elif 0 <= obj < 65536:
                w(b"M" + struct.pack("<H", obj))
            elif -(1 << 31) <= obj < (1 << 31):
                w(b"J" + struct.pack("<i", obj))
            else:
                data = pickle.encode_long(obj)
                w(b"\x8a" + bytes([len(data)]) + data)
        elif kind is float:
            w(b"G" + struct.pack(">d", obj))
        elif kind is str:
            data = obj.encode("utf-8", "surrogatepass")
            w(b"X" + struct.pack("<I", len(data)) + data)
        elif kind is bytes:  # protocol 2 has no bytes opcode: _codecs.encode(latin-1 text)
            self.call("_codecs", "encode", obj.decode("latin-1"), "latin1")
        elif self.get(obj):
            return
        elif kind is tuple:
            if not obj:
                w(b")")
                return
            if len(obj) <= 3:
                for x in obj:
                    self.save(x)
                w(b"\x85\x86\x87"[len(obj) - 1:len(obj)])
            else:
                w(b"(")
                for x in obj:
                    self.save(x)
                w(b"t")
            self.put(obj)
        elif kind is list:
            w(b"]")
            self.put(obj)
            if obj:
                w(b"(")
                for x in obj:
                    self.save(x)
                w(b"e")
        elif kind is dict or kind is OrderedDict:
            if kind is dict:
                w(b"}")
            else:
                self.glob("collections", "OrderedDict")
                w(b")R")
            self.put(obj)
            if obj:
                w(b"(")
                for k, v in obj.items():
                    self.save(k)
                    self.save(v)
                w(b"u")
            state = getattr(obj, "__dict__", None)
            if state:  # a state_dict's _metadata
                self.save(dict(state))
                w(b"b")
        elif kind is set:
            self.call("builtins", "set", list(obj))
            self.put(obj)
        elif kind is Size:
            self.call("torch", "Size", tuple(obj))
            self.put(obj)
        elif kind is dt.dtype:
            self.glob("torch", obj.name)
        elif kind is _device:
            self.call("torch", "device", str(obj))
            self.put(obj)
        elif kind is Parameter:
            self.call("torch._utils", "_rebuild_parameter", obj.detach(), obj.requires_grad, OrderedDict())
            self.put(obj)
        elif kind is Tensor:
            self.save_tensor(obj)
            self.put(obj)
        elif kind is SparseTensor:  # torch's pickle of a sparse COO tensor
            self.call("torch._utils", "_rebuild_sparse_tensor", obj.layout,
                      (obj._indices(), obj._values(), obj.shape, obj.is_coalesced()))
            self.put(obj)
        elif kind is CompressedTensor:  # torch's pickle of a sparse CSR/CSC tensor
            self.call("torch._utils", "_rebuild_sparse_tensor", obj.layout, (
                obj._cs_compressed, obj._cs_plain, obj._cs_values.detach(), obj.shape))
            self.put(obj)
        elif kind is _layout:
            self.call("torch.serialization", "_get_layout", repr(obj))
        else:
            raise TypeError(f"webtorch.save cannot save a {kind.__module__}.{kind.__qualname__}: it saves tensors, "
                            "Parameters, state_dicts and dict/list/tuple/set of these, numbers, strings, bytes, "
                            "None, Size, dtypes and devices (save a model's state_dict(), not the model)")

    def save_tensor(self, t):
        storage = _storage_identity(t)
        key = self.storage_keys.get(storage)
        flat = _storage_tensor(t)
        if key is None:
            key = self.storage_keys[storage] = str(len(self.storage_keys))
            self.storages.append((key, flat))
        self.glob("torch._utils", "_rebuild_tensor_v2")
        w = self.out.write
        w(b"(")
        # the storage as a persistent id: ("storage", torch.<Type>Storage, key, location, numel)
        w(b"(")
        self.save("storage")
        self.glob("torch", _STORAGE_NAMES[t.dtype])
        self.save(key)
        self.save("cpu")
        self.save(flat.numel())
        w(b"tQ")
        self.save(t.storage_offset())
        self.save(tuple(t.shape))
        self.save(tuple(t.stride()))
        self.save(t.requires_grad)
        self.call("collections", "OrderedDict")  # backward hooks: none
        w(b"tR")


# -- load ----------------------------------------------------------------------------------------
def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args):
    """torch.load of a zip checkpoint from a path, a binary file, or bytes/bytearray/memoryview.

    map_location: None (a tensor saved on "cpu" loads on "cpu"; one saved on a GPU, "cuda:N", "mps"
    or "webgpu", on "webgpu"), a device or its name (everything there), a dict {saved location: device},
    or a callable (storage, location) -> tensor, called with each storage as a flat cpu tensor.
    weights_only=True refuses any global outside PyTorch's weights-only allow-list with
    pickle.UnpicklingError; weights_only=False unpickles anything (only for files you trust)."""
    if pickle_module is not None:
        raise NotImplementedError("webtorch.load: pickle_module is not supported")
    if weights_only is None:
        weights_only = True
    opened = open(f, "rb") if isinstance(f, (str, os.PathLike)) else None
    try:
        archive = _checkpoint_zip.Archive(_source(f, opened, mmap))  # _source raised for non-zip data
        return _load_archive(archive, map_location, weights_only, pickle_load_args)
    finally:
        if opened is not None:
            opened.close()


def _source(f, opened, mmap):
    """A seekable binary file over the checkpoint; raises for data that is not a zip archive.
    A path is read whole, or with mmap=True record by record as the load needs them."""
    if opened is not None:
        source = opened if mmap else io.BytesIO(opened.read())
    elif mmap:
        raise ValueError("f must be a file path in order to use the mmap argument")
    elif isinstance(f, (bytes, bytearray, memoryview)):
        source = io.BytesIO(f)
    elif hasattr(f, "read"):
        source = f if hasattr(f, "seek") and getattr(f, "seekable", lambda: True)() else io.BytesIO(f.read())
    else:
        raise TypeError(f"webtorch.load: expected a path, a binary file or bytes, got {type(f).__name__}")
    start = source.tell()
    head = source.read(16)
    source.seek(start)
    if not _checkpoint_zip.starts_as_zip(head):  # torch takes such a file for a legacy checkpoint
        if not head:
            raise EOFError("Ran out of input")
        if head[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05"):
            raise RuntimeError("webtorch.load reads the zip checkpoint format of torch >= 1.6; this file is in the "
                               "legacy (pre-1.6) format: load it in PyTorch and save it again with torch.save")
        raise RuntimeError("webtorch.load: not a PyTorch checkpoint (it does not begin as a zip archive nor as a "
                           "legacy pickle; torch reads neither bytes before an archive nor an empty one)")
    return source


def _load_archive(archive, map_location, weights_only, pickle_load_args):
    names = archive.names()
    if not names:
        raise RuntimeError("webtorch.load: the checkpoint archive is empty")
    prefix = names[0].split("/", 1)[0]
    records = archive.records
    if f"{prefix}/constants.pkl" in records or any(n.startswith(f"{prefix}/code/") for n in names):
        raise RuntimeError("webtorch.load: this is a TorchScript archive (torch.jit.save), which webtorch cannot "
                           "run; save the model's state_dict() with torch.save instead")
    if f"{prefix}/data.pkl" not in records:
        raise RuntimeError(f"webtorch.load: the archive has no {prefix}/data.pkl record: not a torch.save checkpoint")
    byteorder = archive.read(f"{prefix}/byteorder") if f"{prefix}/byteorder" in records else b"little"
    if byteorder != b"little":
        raise RuntimeError(f"webtorch.load: the checkpoint's data is {byteorder.decode(errors='replace')}-endian; "
                           "webtorch reads little-endian checkpoints only (load and save it again on a "
                           "little-endian machine)")
    storages = _StorageLoader(archive, prefix, records, map_location)
    data = archive.read(f"{prefix}/data.pkl")
    if weights_only:
        return _SafeUnpickler(data, storages.load).load()
    return _FullUnpickler(io.BytesIO(data), storages.load, **pickle_load_args).load()


_GPU_LOCATIONS = ("cuda", "mps", "xpu", "webgpu", "hpu", "npu", "privateuseone")


class _StorageLoader:
    """persistent_load: each data/<key> record once, as a flat tensor on its target device."""

    def __init__(self, archive, prefix, records, map_location):
        self.archive, self.prefix, self.records, self.map_location = archive, prefix, records, map_location
        self.loaded = {}  # key -> (dtype, flat tensor)

    def load(self, pid):
        if type(pid) is not tuple or len(pid) != 5 or _ascii(pid[0]) != "storage":
            raise pickle.UnpicklingError(f"persistent id {_short(pid)} is not a storage of this archive")
        _, storage_type, key, location, numel = pid
        if not isinstance(storage_type, _StorageType):
            raise pickle.UnpicklingError(f"unknown storage type {_short(storage_type)}")
        key, location = _ascii(key), _ascii(location)
        if type(numel) is not int or numel < 0 or not isinstance(key, str) or not isinstance(location, str):
            raise pickle.UnpicklingError(f"malformed storage persistent id {_short(pid)}")
        d = storage_type.dtype
        if key in self.loaded:
            loaded_dtype, flat = self.loaded[key]
            if loaded_dtype is not d:
                raise pickle.UnpicklingError(f"storage {key!r} is loaded as two dtypes")
            return flat
        name = f"{self.prefix}/data/{key}"
        if name not in self.records:
            raise pickle.UnpicklingError(f"storage {key!r} refers to a record that is not in the archive")
        nbytes = numel * d.itemsize
        size = self.records[name].size
        if size != nbytes:  # torch's check, before any byte is read
            raise RuntimeError(f"record size ({size} bytes) does not match expected size ({nbytes} bytes = "
                               f"{numel} elements * {d.itemsize} bytes/element) for dtype {d} (storage {key!r})")
        data = self.archive.read(name)
        flat = self.place(data, d, numel, location)
        self.loaded[key] = (d, flat)
        return flat

    def place(self, data, d, numel, location):
        target = self.map_location
        if callable(target) and not isinstance(target, (str, _device)):
            return target(_flat_from_record(data, d, numel, "cpu"), location)
        if isinstance(target, dict):
            target = target.get(location, location)
        name = str(location if target is None else target)
        kind = name.split(":", 1)[0]
        if kind in _GPU_LOCATIONS:
            kind = "webgpu"
        elif kind not in ("cpu", "meta"):  # "meta": the tensors' shapes and dtypes only, as torch's
            raise RuntimeError(f"webtorch.load: don't know how to restore data location {name!r}: use "
                               "map_location='cpu', 'webgpu' or 'meta'")
        try:
            return _flat_from_record(data, d, numel, kind)
        except RuntimeError:  # int64 beyond int32 on webgpu: perhaps in a part no tensor views (_HostInt64)
            if kind != "webgpu" or d is not dt.int64:
                raise
            return _HostInt64(_flat_from_record(data, d, numel, "cpu"))


class _HostInt64:
    """An int64 storage bound for webgpu (whose int64 is 32-bit) holding values beyond int32, kept on the
    host: each tensor viewing it moves to webgpu alone, so values it does not view (torch's coalesce leaves
    an uninitialised tail in a sparse tensor's indices storage) cannot stop the load; a viewed value beyond
    int32 raises, as any upload of one does. Such views no longer share their storage."""
    __slots__ = ("host",)

    def __init__(self, host):
        self.host = host


def _ascii(x):
    return x.decode("ascii") if isinstance(x, bytes) else x


def _short(x):
    return reprlib.repr(x)


# -- what the globals of a checkpoint become -------------------------------------------------------
def _check_view(flat, offset, size, stride):
    """A view of flat's storage, checked to stay inside it (a hostile file cannot read out of it)."""
    if flat.__class__ is _HostInt64:
        return _check_view(flat.host, offset, size, stride).to("webgpu")
    if flat.__class__ is not Tensor or flat.dim() != 1:
        raise pickle.UnpicklingError("a tensor's storage must come from the archive")
    if type(offset) is not int or not all(type(v) is int for v in (*size, *stride)) or len(size) != len(stride):
        raise pickle.UnpicklingError("malformed tensor layout")
    if offset < 0 or any(v < 0 for v in (*size, *stride)):
        raise pickle.UnpicklingError("negative tensor size, stride or offset")
    if offset >= 1 << 63 or any(v >= 1 << 63 for v in (*size, *stride)):  # torch's int64; nor slow big-int math
        raise pickle.UnpicklingError("tensor size, stride or offset beyond int64")
    if math.prod(size) and offset + sum((n - 1) * s for n, s in zip(size, stride)) >= flat.numel():
        raise pickle.UnpicklingError(f"tensor of size {list(size)}, stride {list(stride)} and offset {offset} "
                                     f"reaches beyond its storage of {flat.numel()} elements")
    # An empty view past its storage's end: torch keeps it, but no slicing makes one and the GPU kernels
    # hold offsets in 32 bits (its clone() raised OverflowError on webgpu): refused.
    if offset > flat.numel():
        raise pickle.UnpicklingError(f"empty tensor at offset {offset}, beyond the end of its storage of "
                                     f"{flat.numel()} elements")
    return _storage_view(flat, size, stride, offset)


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _check_view(storage, storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    t = _with_metadata(_check_view(storage, storage_offset, size, stride), metadata)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _with_metadata(t, metadata):
    """The tensor torch rebuilds with set_tensor_metadata: the only keys torch writes are "neg" and "conj",
    each True when that bit is set. webtorch has neither bit, so a negated (conjugated) view loads as a
    negated (conjugated) copy: its values are torch's; it no longer shares the storage."""
    if metadata is None or (type(metadata) is dict and not metadata):
        return t
    if type(metadata) is not dict or not all(type(k) is str and v is True for k, v in metadata.items()):
        raise pickle.UnpicklingError(f"malformed tensor metadata {_short(metadata)}: torch writes {{'neg': True}} "
                                     "and {'conj': True} only")
    for key in metadata:
        if key == "neg" and t.dtype is not dt.bool_:
            t = t.neg()
        elif key == "conj" and t.dtype.is_complex:  # (a copy: webtorch has no conjugate bit either)
            t = t.conj()
        else:
            raise pickle.UnpicklingError(f"webtorch.load: tensor metadata {key!r} on a {t.dtype} tensor is not "
                                         "supported")
    return t


def _get_layout(name):
    """torch.serialization._get_layout: a layout by its repr ("torch.sparse_coo")."""
    from . import _memory_format
    found = getattr(_memory_format, name[len("torch."):], None) if type(name) is str and \
        name.startswith("torch.") else None
    if type(found) is not _layout:
        raise pickle.UnpicklingError(f"webtorch.load: unknown layout {_short(name)}")
    return found


def _rebuild_sparse_tensor(layout, data):
    """A sparse COO tensor from (indices, values, size[, is_coalesced]), checked as torch's
    sparse_coo_tensor(check_invariants=True) checks it: a file cannot make an entry point outside the size.
    A CSR/CSC tensor from (compressed indices, plain indices, values, size), checked as torch.sparse_csr_tensor's
    invariants."""
    if layout in (sparse_csr, sparse_csc):
        if type(data) is not tuple or len(data) != 4 or not all(isinstance(t, Tensor) for t in data[:3]):
            raise pickle.UnpicklingError(f"malformed sparse compressed tensor {_short(data)}: torch writes "
                                         "(compressed_indices, plain_indices, values, size)")
        try:
            return sparse_compressed_tensor(*data, layout=layout)
        except (RuntimeError, NotImplementedError) as e:
            raise pickle.UnpicklingError(f"webtorch.load: invalid sparse tensor: {e}") from None
    if layout is not sparse_coo:
        raise pickle.UnpicklingError(f"webtorch.load: {_short(layout)} tensors are not supported by webtorch (sparse "
                                     "COO only)")
    if type(data) is not tuple or len(data) not in (3, 4) or not all(isinstance(t, Tensor) for t in data[:2]) or \
            not isinstance(data[2], tuple) or len(data) == 4 and type(data[3]) is not bool:
        raise pickle.UnpicklingError(f"malformed sparse tensor {_short(data)}: torch writes (indices, values, size, "
                                     "is_coalesced)")
    indices, values, size = data[:3]
    if indices.dtype is not dt.int64:
        raise pickle.UnpicklingError(f"a sparse tensor's indices must be int64, not {indices.dtype}")
    try:
        return sparse_coo_tensor(indices, values, size, is_coalesced=data[3] if len(data) == 4 else None)
    except RuntimeError as e:
        raise pickle.UnpicklingError(f"webtorch.load: invalid sparse tensor: {e}") from None


def _rebuild_parameter(data, requires_grad, backward_hooks):
    if not isinstance(data, Tensor):
        raise pickle.UnpicklingError("a Parameter's data must be a tensor")
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    if state:
        raise pickle.UnpicklingError("webtorch.load: Parameters with extra attributes are not supported")
    return _rebuild_parameter(data, requires_grad, backward_hooks)


class _TensorType:
    """What torch.Tensor unpickles to (only as _rebuild_from_type_v2's new type)."""


def _rebuild_from_type_v2(func, new_type, args, state):
    if new_type is not _TensorType or func not in (_rebuild_tensor_v2, _rebuild_tensor) or state:
        raise pickle.UnpicklingError("webtorch.load: tensor subclasses and tensor attributes are not supported")
    return func(*args)


def _size(sizes=()):
    """torch.Size as a checkpoint rebuilds it: torch's constructor checks, ints only (a bool is 0 or 1),
    each within int64 (webtorch.Size itself, built on every tensor, does not check)."""
    items = []
    for i, s in enumerate(sizes):
        if type(s) not in (int, bool):
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(s).__name__}')")
        if not -2 ** 63 <= s < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
        items.append(int(s))
    return Size(items)


def _encode(text, encoding="latin1"):
    """_codecs.encode as protocol 2 pickles bytes: latin-1 text to bytes (nothing else)."""
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError("_codecs.encode is allowed only to rebuild bytes from latin-1 text")
    return text.encode("latin-1")


def _bytearray(*args):
    """bytearray from bytes or latin-1 text only (bytearray(n) would allocate n bytes on the file's say)."""
    if args and type(args[0]) not in (bytes, str):
        raise pickle.UnpicklingError("bytearray is allowed only from bytes or text")
    return bytearray(*args)


def _unsupported(what):
    def refuse(*args):
        raise pickle.UnpicklingError(f"webtorch.load: {what} is not supported by webtorch")
    return refuse


_UNSUPPORTED_TORCH = {
    f"torch._utils.{name}": _unsupported(f"torch._utils.{name} ({kind} tensors)")
    for name, kind in (("_rebuild_qtensor", "quantized"),
                       ("_rebuild_nested_tensor", "nested"), ("_rebuild_meta_tensor_no_storage", "meta"),
                       ("_rebuild_wrapper_subclass", "subclass"), ("_rebuild_tensor_v3", "tensor_v3"),
                       ("_rebuild_device_tensor_from_numpy", "numpy-backed"),
                       ("_rebuild_device_tensor_from_cpu_tensor", "device"))}
_TORCH_DTYPE_NAMES = ("complex32", "uint16", "uint32", "uint64", "float8_e4m3fn",
                      "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2",
                      "qint8", "quint8", "qint32", "quint4x2", "quint2x4", "chalf")

# Module.name -> what it unpickles to: the counterparts of torch's weights-only allow-list.
_SAFE_GLOBALS = {
    "collections.OrderedDict": OrderedDict,
    "collections.Counter": Counter,
    "torch._utils._rebuild_tensor": _rebuild_tensor,
    "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
    "torch._utils._rebuild_parameter": _rebuild_parameter,
    "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
    "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
    "torch._utils._rebuild_sparse_tensor": _rebuild_sparse_tensor,
    "torch.serialization._get_layout": _get_layout,
    "torch.nn.parameter.Parameter": Parameter,
    "torch.Tensor": _TensorType,
    "torch.Size": _size,
    "torch.device": _device,
    "_codecs.encode": _encode,
    "builtins.set": set,
    "builtins.bytearray": _bytearray,
    "builtins.complex": complex,
    **{f"torch.{d.name}": d for d in dt.ALL + dt.COMPLEX},
    "torch.cfloat": dt.complex64, "torch.cdouble": dt.complex128,
    **{f"torch.{name}": _StorageType(d) for name, d in _STORAGE_DTYPES.items()},
    **_UNSUPPORTED_TORCH,
}
# The work one weights-only load may do: opcodes, and the tuple nodes Python's hash visits in dict keys
# and set items. torch has no limit; a pickle that would loop longer (a few seconds; in a browser tab a
# freeze) is refused. A checkpoint's pickle takes about one step per byte: 10 MB of pickle, not weights.
MAX_UNPICKLE_STEPS = 10_000_000
# What REDUCE may call that hashes the items of its first argument
_HASHING_CONSTRUCTORS = (set, OrderedDict, Counter)
# Classes a NEWOBJ may instantiate (cls.__new__(cls, *args)); a Parameter and a Size are built whole.
_NEWOBJ_CLASSES = (OrderedDict, Counter, set, complex)
# pickle's Python 2 names, as torch maps them
_RENAMED_MODULES = {"__builtin__": "builtins", "copy_reg": "copyreg"}


def _resolve(module, name):
    module = _RENAMED_MODULES.get(module, module)
    path = f"{module}.{name}"
    found = _SAFE_GLOBALS.get(path, _user_globals().get(path))
    if found is not None:
        return found
    if module == "torch" and name in _TORCH_DTYPE_NAMES:
        raise pickle.UnpicklingError(f"webtorch.load: the checkpoint holds dtype torch.{name}, which webtorch does "
                                     "not support")
    if module == "torch" and name.startswith("Complex") and name.endswith("Storage"):
        raise pickle.UnpicklingError(f"webtorch.load: the checkpoint holds a complex tensor (torch.{name}) of a "
                                     "dtype webtorch does not hold (complex64 and complex128 load)")
    if module == "torch" and name.endswith("Storage"):
        raise pickle.UnpicklingError(f"webtorch.load: unknown storage type torch.{name}")
    raise pickle.UnpicklingError(f"Unsupported global: GLOBAL {path} was not an allowed global by default "
                                 "(weights_only=True loads only tensors, containers and PyTorch's rebuild "
                                 "functions; pass weights_only=False only for a file you trust)")


class _SafeUnpickler:
    """The weights-only unpickler: an opcode loop whose globals come only from _SAFE_GLOBALS, whose
    REDUCE calls only those, whose BUILD sets only an OrderedDict's attributes (a state_dict's
    _metadata) and whose persistent ids are only this archive's storages."""

    def __init__(self, data, persistent_load):
        self.data, self.pos, self.persistent_load = data, 0, persistent_load

    def read(self, n):
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise pickle.UnpicklingError("pickle data was truncated")
        chunk = self.data[self.pos:end]
        self.pos = end
        return chunk

    def readline(self):
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            raise pickle.UnpicklingError("pickle data was truncated")
        line = self.data[self.pos:end]
        self.pos = end + 1
        return line

    def load(self):
        try:
            return self._load()
        except pickle.UnpicklingError:
            raise
        except (IndexError, KeyError, TypeError, ValueError, AttributeError, struct.error, UnicodeDecodeError,
                RecursionError) as e:
            raise pickle.UnpicklingError(f"malformed checkpoint pickle: {type(e).__name__}: {e}") from None

    def _load(self):
        stack, marks, memo = [], [], {}
        read, unpack = self.read, struct.unpack
        safe_values = list(_SAFE_GLOBALS.values()) + list(_user_globals().values())
        user_classes = tuple(v for v in _user_globals().values() if isinstance(v, type))

        def pop_mark():
            nonlocal stack
            items, stack = stack, marks.pop()
            return items

        def check_callable(func):
            if not any(func is v for v in safe_values):
                raise pickle.UnpicklingError(f"REDUCE of {_short(func)}, which is not an allowed global")

        def set_target():
            target = stack[-1]
            if type(target) not in (dict, OrderedDict, Counter):
                raise pickle.UnpicklingError(f"SETITEM(S) on a {type(target).__name__}, not a dict")
            return target

        def hashed(items):
            """items, about to be hashed (dict keys, set items): the tuple nodes Python's hash will visit,
            again for every reference (a tuple of two references to the one below, 40 deep, is a few bytes
            and 2**40 visits), are charged to the budget first."""
            nonlocal steps
            for x in items:
                if type(x) is tuple:
                    steps += _tuple_nodes(x, tuple_nodes)
                    if steps > budget:
                        over_budget()
            return items

        def over_budget():
            raise pickle.UnpicklingError(f"pathological pickle: loading it takes more than {budget} steps "
                                         "(webtorch.serialization.MAX_UNPICKLE_STEPS; torch has no limit and would "
                                         "spend as long)")

        steps, budget, tuple_nodes = 0, MAX_UNPICKLE_STEPS, {}
        while True:
            steps += 1
            if steps > budget:
                over_budget()
            op = read(1)
            if op == b"q":
                memo[read(1)[0]] = stack[-1]
            elif op == b"h":
                stack.append(memo[read(1)[0]])
            elif op == b"X":
                stack.append(str(read(unpack("<I", read(4))[0]), "utf-8", "surrogatepass"))
            elif op == b"K":
                stack.append(read(1)[0])
            elif op == b"(":
                marks.append(stack)
                stack = []
            elif op == b"t":
                items = pop_mark()
                stack.append(tuple(items))
            elif op == b"R":
                args = stack.pop()
                func = stack[-1]
                check_callable(func)
                if type(args) is not tuple:
                    raise pickle.UnpicklingError("REDUCE arguments must be a tuple")
                if func in _HASHING_CONSTRUCTORS and args and type(args[0]) in (list, tuple):
                    hashed(args[0])
                stack[-1] = func(*args)
            elif op == b"c":
                module, name = self.readline().decode("utf-8"), self.readline().decode("utf-8")
                stack.append(_resolve(module, name))
            elif op == b"\x93":  # STACK_GLOBAL
                name, module = stack.pop(), stack.pop()
                if type(module) is not str or type(name) is not str:
                    raise pickle.UnpicklingError("STACK_GLOBAL needs two strings")
                stack.append(_resolve(module, name))
            elif op == b"Q":
                stack.append(self.persistent_load(stack.pop()))
            elif op in (b"\x85", b"\x86", b"\x87"):
                n = op[0] - 0x84
                items = tuple(stack[-n:]) if len(stack) >= n else None
                if items is None:
                    raise pickle.UnpicklingError("stack underflow")
                del stack[-n:]
                stack.append(items)
            elif op == b"\x89":
                stack.append(False)
            elif op == b"\x88":
                stack.append(True)
            elif op == b"N":
                stack.append(None)
            elif op == b")":
                stack.append(())
            elif op == b"]":
                stack.append([])
            elif op == b"}":
                stack.append({})
            elif op == b"\x8f":
                stack.append(set())
            elif op == b"s":
                value, key = stack.pop(), stack.pop()
                set_target()[hashed((key,))[0]] = value
            elif op == b"u":
                items = pop_mark()
                target = set_target()
                if len(items) % 2:
                    raise pickle.UnpicklingError("SETITEMS with an odd number of items")
                hashed(items[::2])
                for i in range(0, len(items), 2):
                    target[items[i]] = items[i + 1]
            elif op == b"a":
                item = stack.pop()
                if type(stack[-1]) is not list:
                    raise pickle.UnpicklingError("APPEND to a non-list")
                stack[-1].append(item)
            elif op == b"e":
                items = pop_mark()
                if type(stack[-1]) is not list:
                    raise pickle.UnpicklingError("APPENDS to a non-list")
                stack[-1].extend(items)
            elif op == b"\x90":  # ADDITEMS
                items = pop_mark()
                if type(stack[-1]) is not set:
                    raise pickle.UnpicklingError("ADDITEMS to a non-set")
                stack[-1].update(hashed(items))
            elif op == b"b":
                state = stack.pop()
                target = stack[-1]
                if type(target) in user_classes:  # an instance of a class add_safe_globals allowed
                    if hasattr(target, "__setstate__") and not isinstance(target, (list, dict, set)):
                        target.__setstate__(state)
                    elif type(state) is dict:
                        target.__dict__.update(state)
                    else:
                        raise pickle.UnpicklingError(f"BUILD on a {type(target).__name__} with a {type(state).__name__} "
                                                     "state")
                    continue
                if type(target) is not OrderedDict or type(state) is not dict or \
                        not all(type(k) is str and not k.startswith("__") for k in state):
                    raise pickle.UnpicklingError(f"BUILD on a {type(target).__name__} (only an OrderedDict's "
                                                 "attributes, such as a state_dict's _metadata, may be set)")
                target.__dict__.update(state)
            elif op == b"\x81":  # NEWOBJ
                args, cls = stack.pop(), stack.pop()
                if type(args) is not tuple:
                    raise pickle.UnpicklingError("NEWOBJ arguments must be a tuple")
                if cls is Parameter or cls is _size:
                    stack.append(cls(*args))
                elif any(cls is c for c in _NEWOBJ_CLASSES + user_classes):
                    stack.append(cls.__new__(cls, *args))
                else:
                    raise pickle.UnpicklingError(f"NEWOBJ of {_short(cls)}, which is not an allowed class")
            elif op == b"J":
                stack.append(unpack("<i", read(4))[0])
            elif op == b"M":
                stack.append(unpack("<H", read(2))[0])
            elif op == b"G":
                stack.append(unpack(">d", read(8))[0])
            elif op == b"\x8a":
                stack.append(pickle.decode_long(read(read(1)[0])))
            elif op == b"\x8b":
                stack.append(pickle.decode_long(read(unpack("<i", read(4))[0])))
            elif op == b"\x8c":
                stack.append(str(read(read(1)[0]), "utf-8", "surrogatepass"))
            elif op == b"U":  # SHORT_BINSTRING: a Python 2 str, decoded as torch.load does (utf-8)
                stack.append(read(read(1)[0]).decode("utf-8"))
            elif op == b"C":
                stack.append(read(read(1)[0]))
            elif op == b"B":
                stack.append(read(unpack("<I", read(4))[0]))
            elif op == b"r":
                memo[unpack("<I", read(4))[0]] = stack[-1]
            elif op == b"j":
                stack.append(memo[unpack("<I", read(4))[0]])
            elif op == b"\x94":  # MEMOIZE
                memo[len(memo)] = stack[-1]
            elif op == b"\x80":
                proto = read(1)[0]
                if proto > 5:
                    raise pickle.UnpicklingError(f"unsupported pickle protocol: {proto}")
            elif op == b"\x95":  # FRAME: a length; the data follows inline
                read(8)
            elif op == b"0":
                stack.pop()
            elif op == b"1":
                pop_mark()
            elif op == b"2":
                stack.append(stack[-1])
            elif op == b".":
                if len(stack) != 1 or marks:
                    raise pickle.UnpicklingError("malformed pickle: STOP with a stack of "
                                                 f"{len(stack)} items")
                return stack[0]
            elif not op:
                raise pickle.UnpicklingError("pickle data was truncated")
            else:
                raise pickle.UnpicklingError(f"Unsupported operand {op[0]} ({op!r}) in a weights-only load")


def _tuple_nodes(root, known):
    """The tuple nodes of root counted as a walk visits them (each reference again), in time linear in
    the distinct tuples; known: {id: (count, tuple)} shared by one load (the tuple kept: its id stays)."""
    pending = [root]
    while pending:
        t = pending[-1]
        if id(t) in known:
            pending.pop()
            continue
        inner = [x for x in t if type(x) is tuple and id(x) not in known]
        if inner:
            pending += inner
            continue
        known[id(t)] = (1 + sum(known[id(x)][0] for x in t if type(x) is tuple), t)
        pending.pop()
    return known[id(root)][0]


class _FullUnpickler(pickle.Unpickler):
    """weights_only=False: Python's unpickler (any importable global, as torch's), with PyTorch's
    globals mapped to webtorch's."""

    def __init__(self, file, persistent_load, **kwargs):
        super().__init__(file, **kwargs)
        self._persistent = persistent_load

    def persistent_load(self, pid):
        return self._persistent(pid)

    def find_class(self, module, name):
        if module.split(".", 1)[0] == "torch" or f"{module}.{name}" in _SAFE_GLOBALS:
            try:
                return _resolve(module, name)
            except pickle.UnpicklingError:
                raise pickle.UnpicklingError(f"webtorch has no counterpart of {module}.{name} (save a model's "
                                             "state_dict() rather than the model)") from None
        return super().find_class(module, name)



# -- the weights-only allow-list's user part (torch.serialization.add_safe_globals & co.) -------------
_added_globals = {}  # "module.name" -> the global, for every load
_scoped_globals = []  # the same within safe_globals() blocks, innermost last


def _global_path(entry):
    if isinstance(entry, tuple):
        obj, path = entry
        return path, obj
    return f"{entry.__module__}.{entry.__qualname__}", entry


def _user_globals():
    merged = dict(_added_globals)
    for scope in _scoped_globals:
        merged.update(scope)
    return merged


def add_safe_globals(safe_globals):
    """weights_only loads may also use these globals (functions or classes; (obj, "module.name") names one
    saved under another path): REDUCE may call them, NEWOBJ build the classes, BUILD set their state."""
    _added_globals.update(_global_path(entry) for entry in safe_globals)


def get_safe_globals():
    return list(_added_globals.values())


def clear_safe_globals():
    _added_globals.clear()


class safe_globals:
    """Within the block weights_only loads may also use these globals."""

    def __init__(self, safe_globals):
        self.globals = dict(_global_path(entry) for entry in safe_globals)

    def __enter__(self):
        _scoped_globals.append(self.globals)

    def __exit__(self, *exc):
        _scoped_globals.remove(self.globals)
        return False


def get_unsafe_globals_in_checkpoint(f):
    """The "module.name" of every global the checkpoint's pickle names that a weights_only load refuses."""
    import pickletools
    with zipfile.ZipFile(f) as archive:
        data = archive.read(next(n for n in archive.namelist() if n.endswith("data.pkl")))
    found, strings = set(), []
    for opcode, arg, _ in pickletools.genops(data):
        if opcode.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE"):
            strings.append(arg)
        elif opcode.name == "GLOBAL":
            found.add(tuple(arg.split(" ", 1)))
        elif opcode.name == "STACK_GLOBAL" and len(strings) >= 2:
            found.add((strings[-2], strings[-1]))

    def refused(module, name):
        try:
            _resolve(module, name)
        except pickle.UnpicklingError:
            return True
        return False
    return sorted(f"{module}.{name}" for module, name in found if refused(module, name))


# -- storages and the rest of torch.serialization's names ---------------------------------------------
skip_data = _refusals.stand_in("serialization.skip_data", _refusals.STORAGE)
normalize_storage_type = _refusals.stand_in("serialization.normalize_storage_type", _refusals.STORAGE)
location_tag = _refusals.stand_in("serialization.location_tag", _refusals.STORAGE)
default_restore_location = _refusals.stand_in("serialization.default_restore_location", _refusals.STORAGE)


class set_default_mmap_options:
    """torch's flag for mmap=True loads (mmap.MAP_PRIVATE or MAP_SHARED), as a setting or a context manager;
    webtorch's mmap=True reads each record from the file as the load needs it, so the flag is kept only."""
    flags = None

    def __init__(self, flags):
        import mmap
        allowed = {getattr(mmap, name) for name in ("MAP_PRIVATE", "MAP_SHARED") if hasattr(mmap, name)}
        if flags not in allowed:
            raise ValueError("Invalid argument in function set_default_mmap_options, expected mmap.MAP_PRIVATE or "
                             f"mmap.MAP_SHARED, but got {flags}")
        self.previous, set_default_mmap_options.flags = set_default_mmap_options.flags, flags

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        set_default_mmap_options.flags = self.previous
        return False
