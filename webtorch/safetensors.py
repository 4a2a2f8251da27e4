"""safetensors, shaped like `safetensors.torch`: load_file, save_file, load, save and a lazy safe_open.

The format: 8 bytes (little-endian u64) N, N bytes of JSON header {name: {"dtype", "shape",
"data_offsets": [begin, end]}, "__metadata__": {str: str}}, then the tensors' raw little-endian
bytes, offsets counted from the end of the header. Headers are checked as the reference
implementation checks them: tensors tile the data exactly (no gap, no overlap, nothing after the
last), each tensor's byte count matches its dtype and shape.

safe_open reads the header only; get_tensor(name) then reads one tensor, so a large checkpoint moves
to the GPU one tensor at a time. On "webgpu" the bytes are uploaded from where they lie (a bytes
object, or in Pyodide a fetched JS ArrayBuffer: from JS memory, no copy through Python); on "cpu" each
tensor gets its own writable copy.
"""
import array
import itertools
import json
import os
import struct

from . import _buffers
from . import _dtypes as dt
from ._tensor import Tensor

__all__ = ["SafetensorError", "load", "load_file", "safe_open", "save", "save_file"]

MAX_HEADER_SIZE = 100_000_000  # the reference implementation's limit
MAX_JSON_DEPTH = 128  # its JSON parser's (serde_json's) recursion limit
# safetensors dtype codes -> webtorch dtype names (codes of dtypes webtorch lacks fail when read)
_DTYPE_NAMES = {"F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16", "I64": "int64",
                "I32": "int32", "I16": "int16", "I8": "int8", "U8": "uint8", "BOOL": "bool"}
_KNOWN_CODES = set(_DTYPE_NAMES) | {"U16", "U32", "U64", "F8_E4M3", "F8_E4M3FNUZ", "F8_E5M2", "F8_E5M2FNUZ",
                                    "F8_E8M0", "F4", "F6_E2M3", "F6_E3M2", "C64"}
_CODES = {name: code for code, name in _DTYPE_NAMES.items()}
_WRITE_ORDER = ["BOOL", "U8", "I8", "I16", "F16", "BF16", "I32", "F32", "F64", "I64"]


class SafetensorError(ValueError):
    """A malformed or unsupported safetensors file (the reference package raises its SafetensorError)."""


def _dtype_of(code, name):
    dtype = dt.BY_NAME.get(_DTYPE_NAMES.get(code, ""))
    if dtype is None:
        if code in _KNOWN_CODES:
            raise SafetensorError(f"tensor {name!r} has safetensors dtype {code}, which webtorch does not support")
        raise SafetensorError(f"tensor {name!r} has an unknown safetensors dtype {code!r}")
    return dtype


# -- sources: where the bytes are --------------------------------------------------------------
class _BufferSource:
    """A Python buffer (bytes, bytearray, memoryview, mmap) or, in Pyodide, a JS buffer (JsBytes)."""

    def __init__(self, data):
        self.view = _buffers._byte_view(data)
        self.nbytes = self.view.nbytes

    def read(self, start, stop):
        return self.view[start:stop]

    def close(self):
        self.view = None  # the bytes can go once the reader is closed, though the reader object lives on


class _FileSource:
    def __init__(self, path):
        self.file = open(path, "rb")
        self.nbytes = os.fstat(self.file.fileno()).st_size

    def read(self, start, stop):
        data = bytearray(stop - start)
        self.file.seek(start)
        if self.file.readinto(data) != len(data):
            raise SafetensorError("the file ended before the tensor's bytes (was it changed while open?)")
        return memoryview(data)

    def close(self):
        self.file.close()


def _source(data):
    if isinstance(data, (str, os.PathLike)):
        return _FileSource(data)
    return _BufferSource(data)


def _parse_header(source):
    """(metadata or None, {name: (dtype, shape, begin, end)} with absolute offsets), checked."""
    if source.nbytes < 8:
        raise SafetensorError(f"header too small: the data has {source.nbytes} bytes, fewer than the 8 of the "
                              "header length")
    (n,) = struct.unpack("<Q", bytes(_tobytes(source.read(0, 8))))
    if n > MAX_HEADER_SIZE:
        raise SafetensorError(f"header too large: {n} bytes (the limit is {MAX_HEADER_SIZE})")
    if 8 + n > source.nbytes:
        raise SafetensorError(f"invalid header length {n}: larger than the {source.nbytes - 8} bytes after it")
    raw = bytes(_tobytes(source.read(8, 8 + n)))
    if not raw.startswith(b"{"):
        raise SafetensorError("invalid header start: the JSON header must begin with '{'")
    if _nesting(raw) > MAX_JSON_DEPTH:  # before json.loads: deep nesting exhausts Pyodide's stack (fatal there)
        raise SafetensorError(f"invalid header: invalid JSON in header: recursion limit exceeded (nested deeper "
                              f"than {MAX_JSON_DEPTH} levels)")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise SafetensorError(f"invalid header: not UTF-8 JSON ({e})") from None
    if not isinstance(header, dict):
        raise SafetensorError("invalid header: not a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict) and
                                     all(isinstance(v, str) for v in metadata.values())):
        raise SafetensorError("invalid header: __metadata__ must map strings to strings")
    entries = {}
    for name, info in header.items():
        try:
            code, shape, (begin, end) = info["dtype"], info["shape"], info["data_offsets"]
        except (TypeError, KeyError, ValueError):
            raise SafetensorError(f"invalid header entry for {name!r}: needs dtype, shape and data_offsets "
                                  "[begin, end]") from None
        if not (isinstance(shape, list) and all(type(s) is int and s >= 0 for s in shape)
                and all(type(o) is int and o >= 0 for o in (begin, end)) and type(code) is str):
            raise SafetensorError(f"invalid header entry for {name!r}: dtype must be a string, shape and offsets "
                                  "non-negative integers (not booleans: JSON true is no usize)")
        entries[name] = (_dtype_of(code, name), tuple(shape), begin, end)
    expected = 0
    for name, (dtype, shape, begin, end) in sorted(entries.items(), key=lambda kv: (kv[1][2], kv[1][3])):
        if begin != expected or end < begin:
            raise SafetensorError(f"invalid offset for tensor {name!r}: data_offsets [{begin}, {end}], expected it "
                                  f"to start at {expected} (tensors must tile the data without gaps or overlaps)")
        numel = 1
        for s in shape:
            numel *= s
        if numel * dtype.itemsize != end - begin:
            raise SafetensorError(f"tensor {name!r}: {shape} of {dtype} is {numel * dtype.itemsize} bytes but its "
                                  f"data_offsets span {end - begin}")
        expected = end
    if 8 + n + expected != source.nbytes:
        raise SafetensorError(f"metadata incomplete buffer: the tensors cover {expected} bytes of data but "
                              f"{source.nbytes - 8 - n} follow the header")
    base = 8 + n
    return metadata, {k: (d, s, base + b, base + e) for k, (d, s, b, e) in entries.items()}


# JSON brackets as signed steps (+1 opening, -1 closing), every other byte deleted
_BRACKET_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def _nesting(raw):
    """How deep the JSON text's arrays and objects nest, brackets inside strings left out; linear, in C
    loops (strings cut out by splitting at their quotes once escapes are gone)."""
    outside = b"".join(raw.replace(b"\\\\", b"").replace(b'\\"', b"").split(b'"')[::2])
    return max(itertools.accumulate(array.array("b", outside.translate(_BRACKET_STEPS, _NOT_BRACKETS))), default=0)


def _tobytes(view):
    return view if view.__class__ is memoryview else view.tobytes()


class safe_open:
    """Lazy reader: `with safe_open(path_or_bytes, framework="pt", device="webgpu") as f:` then
    f.keys(), f.metadata(), f.get_tensor(name) (each tensor read and moved when asked for).
    path_or_bytes: a file path, a bytes-like object, or in Pyodide a JS ArrayBuffer/TypedArray."""

    def __init__(self, filename, framework="pt", device="cpu"):
        if framework not in ("pt", "torch", "pytorch", "webtorch"):
            raise SafetensorError(f"webtorch's safe_open reads framework 'pt', not {framework!r}")
        self.device = str(device) if not isinstance(device, int) else "webgpu"
        self._source = _source(filename)
        try:
            self._metadata, self._entries = _parse_header(self._source)
        except BaseException:
            self._source.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._source.close()

    def keys(self):
        return sorted(self._entries)

    def offset_keys(self):
        """The names in the order of their data in the file."""
        return sorted(self._entries, key=lambda k: self._entries[k][2])

    def metadata(self):
        return self._metadata

    def nbytes(self, name):
        """The tensor's size in the file, in bytes (known from the header: nothing is read)."""
        _, _, begin, end = self._entries[name]
        return end - begin

    def get_tensor(self, name):
        dtype, shape, begin, end = self._entry(name)
        return self._tensor(dtype, shape, begin, end)

    def get_slice(self, name):
        """A lazy slice of one tensor, as the reference's: get_shape(), get_dtype(), and [a:b] reading
        only rows a..b of the first dimension (a big tensor moves to the device in parts)."""
        return _Slice(self, name)

    def _entry(self, name):
        try:
            return self._entries[name]
        except KeyError:
            raise SafetensorError(f"File does not contain tensor {name}") from None

    def _tensor(self, dtype, shape, begin, end):
        view = self._source.read(begin, end)
        device_type = self.device.split(":")[0]
        if device_type == "cpu" and view.__class__ is memoryview and not isinstance(self._source, _FileSource):
            view = memoryview(bytearray(view))  # a writable tensor of its own, as safetensors gives
        return _buffers.tensor_from_bytes(view, dtype, shape, device_type)

    def get_tensors(self):
        return {name: self.get_tensor(name) for name in self.offset_keys()}


class _Slice:
    def __init__(self, reader, name):
        self.reader, self.name = reader, name
        self.dtype, self.shape, self.begin, self.end = reader._entry(name)

    def get_shape(self):
        return list(self.shape)

    def get_dtype(self):
        return _CODES[self.dtype.name]

    def __getitem__(self, rows):
        if not isinstance(rows, slice) or not self.shape:
            raise SafetensorError("webtorch's get_slice reads ranges of the first dimension only: f.get_slice(name)[a:b]")
        start, stop, step = rows.indices(self.shape[0])
        if step != 1:
            raise SafetensorError("webtorch's get_slice reads ranges with a step of 1")
        stop = max(start, stop)
        row = (self.end - self.begin) // self.shape[0] if self.shape[0] else 0
        return self.reader._tensor(self.dtype, (stop - start, *self.shape[1:]), self.begin + start * row,
                                   self.begin + stop * row)


def load_file(filename, device="cpu"):
    with safe_open(filename, framework="pt", device=device) as f:
        return f.get_tensors()


def load(data, device="cpu"):
    """The tensors of a safetensors file's bytes (bytes-like, or a JS ArrayBuffer/TypedArray in Pyodide)."""
    with safe_open(data, framework="pt", device=device) as f:
        return f.get_tensors()


def _check_for_save(tensors, metadata):
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    storages = {}
    for k, v in tensors.items():
        if not isinstance(v, Tensor):
            raise ValueError(f"Key `{k}` is invalid, expected torch.Tensor but received {type(v)}")
        if v.numel():
            storages.setdefault(id(v._storage), []).append(k)
    shared = [set(names) for names in storages.values() if len(names) > 1]
    if shared:
        raise RuntimeError(f"Some tensors share memory, this will lead to duplicate memory on disk and potential "
                           f"differences when loading them again: {shared}.")
    for k, v in tensors.items():
        if not v.is_contiguous():
            raise ValueError(f"You are trying to save a non contiguous tensor: `{k}` which is not allowed. Call "
                             "`.contiguous()` on your tensor to pack it before saving.")
        if v.dtype.name not in _CODES:
            raise ValueError(f"tensor `{k}` has dtype {v.dtype}, which safetensors cannot store")
    if metadata is not None and not (isinstance(metadata, dict) and
                                     all(isinstance(a, str) and isinstance(b, str) for a, b in metadata.items())):
        raise ValueError("metadata must be a dict of str to str")


def _header(tensors, metadata):
    """The file's first bytes (header length + header) and the tensors' names in the order of their data."""
    _check_for_save(tensors, metadata)
    # the reference writer's order (its dtype order descending, then by name): the widest elements come
    # first, so every tensor stays aligned, and the bytes equal the reference's
    names = sorted(tensors, key=lambda k: (-_WRITE_ORDER.index(_CODES[tensors[k].dtype.name]), k))
    header = {"__metadata__": metadata} if metadata is not None else {}
    offset = 0
    for k in names:
        t = tensors[k]
        nbytes = t.numel() * t.dtype.itemsize
        header[k] = {"dtype": _CODES[t.dtype.name], "shape": list(t.shape), "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw, names


def save(tensors, metadata=None):
    """The safetensors bytes of a dict of tensors (contiguous, not sharing memory)."""
    head, names = _header(tensors, metadata)
    return b"".join([head] + [_buffers.tensor_to_bytes(tensors[k]) for k in names])


def save_file(tensors, filename, metadata=None):
    head, names = _header(tensors, metadata)
    with open(filename, "wb") as f:
        f.write(head)
        for k in names:
            f.write(_buffers.tensor_to_bytes(tensors[k]))
