"""The "cpu" device: host memory as flat `array.array`s.

With numpy importable, primitives run as numpy operations on strided views of those arrays
(zero-copy). Without numpy (Pyodide's core has none) they run as plain Python loops, so cpu
tensors still compute, slowly: enough for checks such as allclose on results read back.

float16 and bfloat16 elements are kept as float32 values rounded to their dtype (array.array has
no 16-bit float typecode): numpy computes on them in float32 and each result is rounded, like
PyTorch's CPU kernels.
"""
import array
import itertools
import math
import struct

from .. import _dtypes as dt
from . import complex as complex_storage
from ..ops_table import ELEMENTWISE

try:
    import numpy as _np
except ImportError:  # Pyodide without numpy
    _np = None

USE_NUMPY = _np is not None
# numpy has no bfloat16: Tensor.numpy() refuses it, as PyTorch does.
NUMPY_DTYPE = {} if _np is None else {d: _np.dtype(d.name) for d in dt.ALL if d is not dt.bfloat16}
# storage and compute: float16 and bfloat16 in float32
_NP_HOST = {**NUMPY_DTYPE, dt.float16: _np.float32, dt.bfloat16: _np.float32} if _np else {}
_PY_TYPE = dt.TO_ELEMENT
_HOST_ITEMSIZE = {d: array.array(d.typecode).itemsize for d in dt.ALL}
# operands: the 16-bit floats compute in float (a scalar stays unrounded)
_PY_IN = {**_PY_TYPE, dt.float16: float, dt.bfloat16: float}


class Storage:
    """data: an array.array of dtype's host typecode, or a memoryview cast to it that shares memory
    with a buffer the tensor was made from (frombuffer, from_numpy; read-only if that buffer is)."""
    __slots__ = ("dtype", "numel", "data", "version", "__weakref__")
    device_type = "cpu"

    def __init__(self, dtype, data):
        self.dtype, self.numel, self.data = dtype, len(data), data
        self.version = 0  # bumped by every in-place write (autograd's saved-tensor check)


_DATA = Storage.__dict__["data"]  # the slot, beneath DeferredStorage's property


class DeferredStorage(Storage):
    """A storage whose values are not computed yet. Its data slot holds a recipe until the first read:
    recipe.values() gives the array.array then, and the storage becomes a plain Storage again;
    recipe.tensor(device_type) builds the same values on another device with no host work. Without
    numpy, Python computes ~1M random numbers in tens of seconds, and parameters initialised on "cpu"
    are usually moved to "webgpu" before anything reads them (defer)."""
    __slots__ = ()

    @property
    def data(self):
        values = _DATA.__get__(self).values()
        self.__class__ = Storage
        _DATA.__set__(self, values)
        return values

    @data.setter
    def data(self, values):
        self.__class__ = Storage
        _DATA.__set__(self, values)

    @property
    def deferred(self):
        return _DATA.__get__(self)


def defer(storage, recipe):
    """storage's values become recipe's (see DeferredStorage), computed when first read."""
    storage.__class__ = DeferredStorage
    _DATA.__set__(storage, recipe)


# Like torch's allocator error, before anything is built: no host has this much memory, and the
# Python lists that would index it must not be built first.
MAX_ALLOCATION_BYTES = 2 ** 40


def check_numel(dtype, numel):
    if numel * dtype.itemsize > MAX_ALLOCATION_BYTES:
        raise RuntimeError(f"can't allocate memory: you tried to allocate {numel * dtype.itemsize} bytes")


def empty(dtype, numel):
    if dtype.is_complex:  # (complex storages are pairs of the real dtype: backend/complex.py)
        raise complex_storage.no_complex_form(dtype)
    return Storage(dtype, array.array(dtype.typecode, bytes(numel * _HOST_ITEMSIZE[dtype])))


def from_host(dtype, values, exact=False):
    """values: an array.array of dtype's typecode (kept, not copied; float16/bfloat16's rounded unless exact:
    read from a storage of dtype, they are its values already: rounding them again is a Python call per
    element without numpy)."""
    return Storage(dtype, values if exact else rounded(dtype, values))


def rounded(dtype, values):
    """values (an array.array("f")) rounded to float16/bfloat16; other dtypes' arrays as they are."""
    if dtype not in dt.ROUNDED:
        return values
    if USE_NUMPY and values:
        return _store(dtype, _np.frombuffer(values, _np.float32)).data
    return array.array("f", map(dt.TO_ELEMENT[dtype], values))


def half_bytes(values):
    """float16 bytes of an array.array("f"), rounded to nearest (beyond the range: +-inf)."""
    if not USE_NUMPY:
        return struct.pack(f"<{len(values)}e", *map(dt.round_half, values))
    with _np.errstate(over="ignore"):
        return _np.frombuffer(values, _np.float32).astype(_np.float16).tobytes()


def _host_array(dtype, a):
    """numpy array a as dtype's host elements (float16/bfloat16 rounded, integers wrapped)."""
    with _np.errstate(all="ignore"):  # beyond half's range: inf, as in PyTorch
        if dtype is dt.bfloat16:
            return _round_bfloat16(_np.asarray(a).astype(_np.float32))
        return _np.asarray(a).astype(NUMPY_DTYPE[dtype], copy=False).astype(_NP_HOST[dtype], copy=False)


def _round_bfloat16(a):
    """float32 array a rounded to the nearest bfloat16 (even on ties; NaN stays NaN)."""
    bits = _np.ascontiguousarray(a).view(_np.uint32).astype(_np.uint64)
    rounded_bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(_np.uint32)
    return _np.where(_np.isnan(a), a, rounded_bits.view(_np.float32))


def _store(dtype, a):
    """A new storage of dtype from numpy array a."""
    return Storage(dtype, array.array(dtype.typecode, _host_array(dtype, a).tobytes()))


def known_range(storage):
    """None: reading host memory costs no GPU round trip, so index checks just read the values."""
    return None


def set_known_range(storage, low, high):
    pass


def from_bytes(dtype, data):
    """A storage over data, the elements' little-endian bytes in torch's layout (a 1-byte-format
    memoryview): shares its memory where the host keeps dtype in torch's layout; float16 and bfloat16
    (kept as float32) become a converted copy."""
    if _HOST_ITEMSIZE[dtype] != dtype.itemsize:
        return Storage(dtype, host_array(dtype, data))
    return Storage(dtype, data.cast(dtype.typecode))


def host_array(dtype, data):
    """An array.array of dtype's host typecode from the elements' bytes in torch's layout (a copy)."""
    if dtype is dt.float16:
        if USE_NUMPY:
            return array.array("f", _np.frombuffer(data, _np.float16).astype(_np.float32).tobytes())
        return array.array("f", struct.unpack(f"<{len(data) // 2}e", data))
    if dtype is dt.bfloat16:  # the upper two bytes of float32s
        raw = bytearray(2 * len(data))
        raw[2::4], raw[3::4] = data[0::2], data[1::2]
        return array.array("f", bytes(raw))
    values = array.array(dtype.typecode)
    values.frombytes(data)
    return values


def to_bytes(storage, offset, numel):
    """Elements [offset, offset + numel) as bytes in torch's layout (float16, bfloat16: 2 bytes each)."""
    values = to_host(storage, offset, numel)
    if storage.dtype is dt.float16:
        return half_bytes(values)
    if storage.dtype is dt.bfloat16:  # the upper two bytes of each (rounded) float32
        raw, out = values.tobytes(), bytearray(2 * numel)
        out[0::2], out[1::2] = raw[2::4], raw[3::4]
        return bytes(out)
    return values.tobytes()


def to_host(storage, offset, numel):
    data = storage.data
    if data.__class__ is array.array:
        return data[offset:offset + numel]
    values = array.array(storage.dtype.typecode)  # a memoryview's slice is another view: copy it
    values.frombytes(data[offset:offset + numel].cast("B"))
    return values


def _ndarray(t):
    """A numpy view of tensor t's elements (writable, shares memory)."""
    flat = _np.frombuffer(t._storage.data, dtype=_NP_HOST[t.dtype]) if t._storage.numel else \
        _np.empty(0, _NP_HOST[t.dtype])
    item = flat.itemsize
    if t.numel() == 0:
        return _np.empty(t.shape, flat.dtype)
    return _np.lib.stride_tricks.as_strided(flat[t._offset:], t.shape, [s * item for s in t._stride])


def _offsets(t):
    """Flat element offsets of tensor t in row-major order of its shape."""
    return _view_offsets(t._offset, t.shape, t._stride)


def _view_offsets(offset, shape, strides):
    """Flat element offsets of the view (offset, shape, strides) in row-major order of its shape."""
    offs = [offset]
    for size, stride in zip(shape, strides):
        offs = [o + i * stride for o in offs for i in range(size)]
    return offs if math.prod(shape) else []


def _to_python(value, d):
    return _PY_IN[d](value)


def _scalar_to_python(value, d):
    """A Python scalar operand as the compute dtype holds it: rounded to float32 like torch's (and
    numpy's) float32 kernels, where -0.8 is -0.800000011920929."""
    value = _to_python(value, d)
    if d is dt.float32 and math.isfinite(value):
        try:
            return struct.unpack("f", struct.pack("f", value))[0]
        except OverflowError:
            return math.copysign(math.inf, value)
    return value


def elementwise(op, out, operands, computes):
    if USE_NUMPY:
        with _np.errstate(all="ignore"):
            args = [_ndarray(x).astype(_NP_HOST[c], copy=False) if hasattr(x, "_storage")
                    else _np.array(_to_python(x, c), dtype=_NP_HOST[c]) for x, c in zip(operands, computes)]
            result = op.numpy(_np, *args)
            _ndarray(out)[...] = _host_array(out.dtype, result)
        return
    columns = []
    for x, c in zip(operands, computes):
        if hasattr(x, "_storage"):
            data = x._storage.data
            columns.append([_to_python(data[o], c) for o in _offsets(x)])
        else:
            columns.append(itertools.repeat(_scalar_to_python(x, c)))
    kind = _PY_TYPE[out.dtype]
    data = out._storage.data
    for o, args in zip(_offsets(out), zip(*columns)):
        data[o] = kind(op.python(*args))


def _rows(x, dims):
    """x's elements as rows: one per kept index (row-major), each over the reduced dims."""
    kept = [d for d in range(x.dim()) if d not in dims]
    return x.permute(kept + list(dims))


def reduce(op, x, dims, acc_dtype, out_dtype, with_index):
    """Returns (values storage, indices storage or None), contiguous over the kept dims."""
    rows = _rows(x, dims)
    n_red = _numel(x.shape[d] for d in dims)
    n_out = _numel(rows.shape[:rows.dim() - len(dims)])
    if USE_NUMPY:
        a = _ndarray(rows).reshape(n_out, n_red).astype(_NP_HOST[acc_dtype], copy=False)
        with _np.errstate(all="ignore"):
            if with_index:
                fn = _np.argmin if op == "min" else _np.argmax
                idx = fn(a, axis=1) if n_red else _np.zeros(n_out, _np.int64)
                if op == "pool_max" and n_red:  # a window's last NaN (kernels._TAKES)
                    nan = _np.isnan(a) if a.dtype.kind == "f" else _np.zeros(a.shape, bool)
                    idx = _np.where(nan.any(axis=1), n_red - 1 - _np.argmax(nan[:, ::-1], axis=1), idx)
                vals = a[_np.arange(n_out), idx] if n_red else _np.zeros(n_out, a.dtype)
                return (_store(out_dtype, vals), Storage(dt.int64, array.array("q", idx.astype(_np.int64).tobytes())))
            fn = {"sum": _np.sum, "prod": _np.prod, "max": _np.max, "min": _np.min}[op]
            vals = fn(a, axis=1) if n_red or op in ("sum", "prod") else _np.full(n_out, op == "min", a.dtype)
        return _store(out_dtype, vals), None
    flat = [_to_python(rows._storage.data[o], acc_dtype) for o in _offsets(rows)]
    vals, idxs = array.array(out_dtype.typecode), array.array("q")
    kind = _PY_TYPE[out_dtype]
    for r in range(n_out):
        row = flat[r * n_red:(r + 1) * n_red]
        if with_index:
            best = 0
            for i, v in enumerate(row):
                b = row[best]
                if b != b and op != "pool_max":  # the first NaN; pool_max's the last (kernels._TAKES)
                    break
                if v != v or b == b and (v < b if op == "min" else v > b):
                    best = i
            idxs.append(best)
            vals.append(kind(row[best]))
        elif op == "sum":
            vals.append(kind(sum(row)))
        elif op == "prod":
            p = kind(1)
            for v in row:
                p = p * v
            vals.append(kind(p))
        else:
            nan = [v for v in row if v != v]
            vals.append(kind(nan[0] if nan else (max if op == "max" else min)(row, default=op == "min")))
    return Storage(out_dtype, vals), (Storage(dt.int64, idxs) if with_index else None)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def matmul(a, b, out_dtype):
    """a: (*batch, M, K), b: (*batch, K, N), batch dims already broadcast; returns contiguous."""
    if USE_NUMPY:
        x, y = _ndarray(a), _ndarray(b)
        with _np.errstate(all="ignore"):
            r = _np.matmul(x, y)
            if x.dtype.kind == "f" and not (_np.isfinite(x).all() and _np.isfinite(y).all() and _np.isfinite(r).all()):
                # BLAS skips zero operands (0 * inf gives no NaN there) and fuses multiply-adds (1e30 * 1e30
                # - inf is -inf there, inf - inf NaN in torch): every product, summed, as torch
                r = (x[..., :, :, None] * y[..., None, :, :]).sum(-2)
        return _store(out_dtype, _np.ascontiguousarray(r))
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    av = [a._storage.data[o] for o in _offsets(a)]
    bv = [b._storage.data[o] for o in _offsets(b)]
    out, kind = array.array(out_dtype.typecode), _PY_TYPE[out_dtype]
    for batch in range(_numel(a.shape[:-2])):
        ab, bb = batch * m * k, batch * k * n
        for i in range(m):
            for j in range(n):
                out.append(kind(sum(av[ab + i * k + p] * bv[bb + p * n + j] for p in range(k))))
    return Storage(out_dtype, out)


def _flat_values(t):
    """t's elements in row-major order: a numpy array, or a list without numpy."""
    if USE_NUMPY:
        return _ndarray(t).reshape(-1)
    return [t._storage.data[o] for o in _offsets(t)]


def take(x, offsets):
    return _take_at(x, _flat_values(offsets))


def _take_at(x, offs):
    """A new storage of x's storage elements at offs (host offsets: a numpy array or a list)."""
    if USE_NUMPY:
        flat = _np.frombuffer(x._storage.data, dtype=_NP_HOST[x.dtype]) if x._storage.numel else \
            _np.empty(0, _NP_HOST[x.dtype])
        return Storage(x.dtype, array.array(x.dtype.typecode, flat[offs].tobytes()))
    data = x._storage.data
    return Storage(x.dtype, array.array(x.dtype.typecode, [data[o] for o in offs]))


def put(dst, offsets, src, accumulate):
    _put_at(dst, _flat_values(offsets), src, accumulate)


def _put_at(dst, offs, src, accumulate):
    """dst's elements at offs = src's, or reduced with them: accumulate True or "sum" (+=), "prod",
    "amax", "amin"."""
    reduce = "sum" if accumulate is True else accumulate or None
    vals = _flat_values(src)
    if USE_NUMPY:
        flat = _np.frombuffer(dst._storage.data, dtype=_NP_HOST[dst.dtype])
        if not reduce:
            flat[offs] = vals
            return
        if dst.dtype is dt.bool_:
            ufunc = _np.logical_and if reduce in ("prod", "amin") else _np.logical_or
        else:
            ufunc = {"sum": _np.add, "prod": _np.multiply, "amax": _np.maximum, "amin": _np.minimum}[reduce]
        with _np.errstate(all="ignore"):
            ufunc.at(flat, offs, vals)
        if dst.dtype in dt.ROUNDED:
            flat[offs] = _host_array(dst.dtype, flat[offs])
        return
    data = dst._storage.data
    combine = _PUT_COMBINE[reduce] if reduce else None
    for o, v in zip(offs, list(vals)):
        if combine is None:
            data[o] = v
        elif dst.dtype is dt.bool_:
            data[o] = (data[o] and v) if reduce in ("prod", "amin") else (data[o] or v)
        else:
            data[o] = _PY_TYPE[dst.dtype](combine(data[o], v))


_PUT_COMBINE = {"sum": lambda a, b: a + b, "prod": lambda a, b: a * b, "amax": ELEMENTWISE["maximum"].python,
                "amin": ELEMENTWISE["minimum"].python}


def _along_offsets(x, dim, index):
    """Storage offsets of x's slices along dim at the 1-D index, row-major (gpu.take_along's order)."""
    def offsets(dims, base):
        offs = [base]
        for d in dims:
            offs = [o + i * x._stride[d] for o in offs for i in range(x.shape[d])]
        return offs
    outer, inner = offsets(range(dim), x._offset), offsets(range(dim + 1, x.dim()), 0)
    picked = _flat_values(index)
    if USE_NUMPY:
        return (_np.array(outer, _np.int64)[:, None, None] + picked.astype(_np.int64)[None, :, None] * x._stride[dim]
                + _np.array(inner, _np.int64)[None, None, :]).reshape(-1)
    return [o + v * x._stride[dim] + i for o in outer for v in picked for i in inner]


def take_along(x, dim, index):
    return _take_at(x, _along_offsets(x, dim, index))


def put_along(dst, dim, index, src, accumulate):
    _put_at(dst, _along_offsets(dst, dim, index), src, accumulate)


def _rows_of(x):
    row_len = x.shape[-1] if x.dim() else 1
    return row_len, (x.numel() // row_len if row_len else 0)


def scan(op, x):
    """Inclusive scan along the last dim: op "sum", "prod", "max", "min" (NaN propagates) or
    "logaddexp"."""
    row_len, n_rows = _rows_of(x)
    if USE_NUMPY:
        a = _flat_values(x).reshape(n_rows, row_len)
        ufunc = {"sum": _np.add, "prod": _np.multiply, "max": _np.maximum, "min": _np.minimum,
                 "logaddexp": _np.logaddexp}[op]
        # float32 sums and products accumulate in float64, as torch's CPU (its acc_type): a running
        # sum may pass 3.4e38 and come back
        acc = _np.float64 if a.dtype == _np.float32 and op in ("sum", "prod", "logaddexp") else a.dtype
        with _np.errstate(all="ignore"):
            r = ufunc.accumulate(a, axis=1, dtype=acc).astype(a.dtype) if a.size else a.copy()
        return _store(x.dtype, r)
    vals, out = _flat_values(x), array.array(x.dtype.typecode)
    kind = _PY_TYPE[x.dtype]
    combine = _SCAN_COMBINE[op]
    for r in range(n_rows):  # the 16-bit floats accumulate unrounded, as numpy's float32 and PyTorch
        acc = None
        for v in vals[r * row_len:(r + 1) * row_len]:
            acc = v if acc is None else combine(acc, v)
            out.append(kind(acc))
    return Storage(x.dtype, out)


_SCAN_COMBINE = {"sum": lambda a, b: a + b, "prod": lambda a, b: a * b, "max": ELEMENTWISE["maximum"].python,
                 "min": ELEMENTWISE["minimum"].python, "logaddexp": ELEMENTWISE["logaddexp"].python}


def _sort_key(v, descending):
    """Stable-sort key: NaN is the largest value, as in torch.sort."""
    nan = v != v
    if descending:
        return (not nan, -v if not nan else 0)
    return (nan, v if not nan else 0)


def sort(x, descending):
    row_len, n_rows = _rows_of(x)
    if USE_NUMPY:
        a = _flat_values(x).reshape(n_rows, row_len)
        if a.dtype == _np.bool_:
            a = a.astype(_np.int64)
        if descending:
            nan = _np.isnan(a) if a.dtype.kind == "f" else _np.zeros(a.shape, bool)
            # lexsort: last key is primary; NaN first, then larger values first, stable (~v orders
            # integers backwards without -v's overflow at the most negative one)
            key = -a.astype(_np.float64) if a.dtype.kind == "f" else ~a.astype(_np.int64)
            idx = _np.lexsort((key, ~nan), axis=1) if a.size else _np.zeros(a.shape, _np.int64)
        else:
            idx = _np.argsort(a, axis=1, kind="stable")
        vals = _np.take_along_axis(_flat_values(x).reshape(n_rows, row_len), idx, axis=1)
        return (Storage(x.dtype, array.array(x.dtype.typecode, vals.tobytes())),
                Storage(dt.int64, array.array("q", idx.astype(_np.int64).tobytes())))
    vals, out, out_idx = _flat_values(x), array.array(x.dtype.typecode), array.array("q")
    for r in range(n_rows):
        row = vals[r * row_len:(r + 1) * row_len]
        order = sorted(range(row_len), key=lambda i: _sort_key(row[i], descending))
        out.extend(row[i] for i in order)
        out_idx.extend(order)
    return Storage(x.dtype, out), Storage(dt.int64, out_idx)


# Philox4x32-10, the same stream as wgsl/philox.wgsl (see there).
_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_MASK32 = 0xFFFFFFFF


def _philox_numpy(n, seed, offset):
    u64 = _np.uint64
    counter = _np.arange(n, dtype=u64) + u64(offset)
    c = [counter & u64(_MASK32), counter >> u64(32), _np.zeros(n, u64), _np.zeros(n, u64)]
    k0, k1 = seed & _MASK32, (seed >> 32) & _MASK32
    for _ in range(10):
        p0, p1 = u64(_PHILOX_M[0]) * c[0], u64(_PHILOX_M[1]) * c[2]
        c = [(p1 >> u64(32)) ^ c[1] ^ u64(k0), p1 & u64(_MASK32), (p0 >> u64(32)) ^ c[3] ^ u64(k1), p0 & u64(_MASK32)]
        k0, k1 = (k0 + _PHILOX_W[0]) & _MASK32, (k1 + _PHILOX_W[1]) & _MASK32
    return c[0].astype(_np.uint32), c[1].astype(_np.uint32)


def _philox_python(i, seed, offset):
    counter = offset + i
    c0, c1, c2, c3 = counter & _MASK32, (counter >> 32) & _MASK32, 0, 0
    k0, k1 = seed & _MASK32, (seed >> 32) & _MASK32
    for _ in range(10):
        p0, p1 = _PHILOX_M[0] * c0, _PHILOX_M[1] * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & _MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & _MASK32
        k0, k1 = (k0 + _PHILOX_W[0]) & _MASK32, (k1 + _PHILOX_W[1]) & _MASK32
    return c0, c1


def random(kind, n, seed, offset):
    scale = 2.0 ** -24
    if USE_NUMPY:
        w0, w1 = _philox_numpy(n, seed, offset)
        if kind == "bits":
            return Storage(dt.int32, array.array("i", w0.view(_np.int32).tobytes()))
        if kind == "uniform":
            r = (w0 >> 8).astype(_np.float32) * _np.float32(scale)
        else:
            u1 = ((w0 >> 8).astype(_np.float32) + 1) * _np.float32(scale)
            u2 = (w1 >> 8).astype(_np.float32) * _np.float32(scale)
            r = _np.sqrt(-2 * _np.log(u1)) * _np.cos(_np.float32(6.283185307179586) * u2)
        return Storage(dt.float32, array.array("f", r.astype(_np.float32).tobytes()))
    import math
    out = array.array("i" if kind == "bits" else "f")
    for i in range(n):
        w0, w1 = _philox_python(i, seed, offset)
        if kind == "bits":
            out.append(w0 - (1 << 32) if w0 >= 1 << 31 else w0)
        elif kind == "uniform":
            out.append((w0 >> 8) * scale)
        else:
            u1, u2 = ((w0 >> 8) + 1) * scale, (w1 >> 8) * scale
            out.append(math.sqrt(-2 * math.log(u1)) * math.cos(6.283185307179586 * u2))
    return Storage(dt.int32 if kind == "bits" else dt.float32, out)


def layer_norm(x, weight, bias, eps):
    """layer_norm over x's last dim, float32 (as webgpu's kernel: the mean as the first value plus the
    mean of the differences from it, then the mean of squared deviations); weight, bias: None or
    float32 tensors of that length. Returns a contiguous storage."""
    n = x.shape[-1] if x.dim() else 1
    if USE_NUMPY:
        a = _ndarray(x).reshape(-1, n)
        with _np.errstate(all="ignore"):
            # rows whose largest |x| is 2^50 or more: x * inv, eps * inv^2 (layer_norm.wgsl's row_scale)
            largest = _np.abs(a).max(axis=1, keepdims=True) if n else _np.zeros((a.shape[0], 1), _np.float32)
            huge = (largest >= _np.float32(2.0 ** 50)) & _np.isfinite(largest)
            inv = _np.where(huge, _np.ldexp(_np.float32(1), 1 - _np.frexp(largest)[1]), 1).astype(_np.float32)
            a = a * inv
            first = a[:, :1]
            centered = (a - first) - (a - first).mean(axis=1, keepdims=True)  # the mean in two parts, as the kernel
            y = centered / _np.sqrt((centered * centered).mean(axis=1, keepdims=True) + _np.float32(eps) * inv * inv)
            if weight is not None:
                y = y * _ndarray(weight)
            if bias is not None:
                y = y + _ndarray(bias)
        return _store(dt.float32, y)
    data = x._storage.data
    flat = [data[o] for o in _offsets(x)]
    w = [weight._storage.data[o] for o in _offsets(weight)] if weight is not None else None
    b = [bias._storage.data[o] for o in _offsets(bias)] if bias is not None else None
    out = array.array("f")
    for start in range(0, len(flat), n):
        row = flat[start:start + n]
        mean = row[0] + sum(v - row[0] for v in row) / n
        var = sum((v - mean) * (v - mean) for v in row) / n
        rstd = 1 / math.sqrt(var + eps) if var + eps > 0 else math.inf
        for i, v in enumerate(row):
            y = (v - mean) * rstd
            out.append(y * (w[i] if w else 1.0) + (b[i] if b else 0.0))
    return Storage(dt.float32, out)


def moments(x, dims):
    """As gpu.moments (the same scales: moments.wgsl's row_scale), of any float x, computed in float64 as
    torch's CPU batch_norm statistics are: a float32 storage of 3 * rows (float64 for float64 x)."""
    kept = [d for d in range(x.dim()) if d not in dims]
    n_out, row_len = math.prod(x.shape[d] for d in kept), math.prod(x.shape[d] for d in dims)
    out_dtype = dt.float64 if x.dtype is dt.float64 else dt.float32
    if USE_NUMPY:
        a = _np.ascontiguousarray(_ndarray(x).transpose(kept + list(dims))).reshape(n_out, row_len).astype(
            _np.float64)
        with _np.errstate(all="ignore"):
            largest = _np.abs(a).max(axis=1) if row_len else _np.zeros(n_out)
            huge = (largest >= 4) & _np.isfinite(largest)
            inv = _np.where(huge, _np.ldexp(1.0, 2 - _np.frexp(_np.where(huge, largest, 1.0))[1]), 1.0)
            scaled = a * inv[:, None]
            mean = scaled.mean(axis=1) if row_len else _np.full(n_out, _np.nan)
            centered = scaled - mean[:, None]
            var = (centered * centered).mean(axis=1) if row_len else _np.full(n_out, _np.nan)
            constant = var == 0  # unscaled, as moments.wgsl's
            mean, inv = _np.where(constant, mean / inv, mean), _np.where(constant, 1.0, inv)
        return _store(out_dtype, _np.concatenate([mean, var, inv]))
    data = x._storage.data
    order = kept + list(dims)
    offsets = _view_offsets(x._offset, [x.shape[d] for d in order], [x._stride[d] for d in order])
    means, variances, scales = [], [], []
    for o in range(n_out):
        row = [data[i] for i in offsets[o * row_len:(o + 1) * row_len]]
        largest = max((abs(v) for v in row), default=0.0)
        inv = 2.0 ** (2 - math.frexp(largest)[1]) if 4 <= largest < math.inf else 1.0
        row = [v * inv for v in row]
        mean = sum(row) / row_len if row_len else math.nan
        var = sum((v - mean) * (v - mean) for v in row) / row_len if row_len else math.nan
        if var == 0:
            mean, inv = mean / inv, 1.0
        means.append(mean)
        variances.append(var)
        scales.append(inv)
    return Storage(out_dtype, array.array(out_dtype.typecode, means + variances + scales))


def conv2d(x, weight, bias, stride, pads, dilation, groups, out_size):
    """As gpu.conv2d: float32 views x (N, C, H, W), weight (O, C/groups, KH, KW), bias None or (O,);
    pads (top, left), may be negative. A contiguous storage of (N, O, *out_size)."""
    n, c, h, w = x.shape
    o, cg, kh, kw = weight.shape
    (sh, sw), (dh, dw), (oh, ow) = stride, dilation, out_size
    cog = o // groups
    if USE_NUMPY:
        # x zero-padded (or cropped) to the rows and columns the windows reach, then windows as a view
        hp, wp = (oh - 1) * sh + (kh - 1) * dh + 1, (ow - 1) * sw + (kw - 1) * dw + 1
        xp = _np.zeros((n, c, hp, wp), _np.float32)
        src = _ndarray(x)
        r0, c0 = max(0, pads[0]), max(0, pads[1])  # where x's first kept row and column land in xp
        r1, c1 = min(hp, h + pads[0]), min(wp, w + pads[1])
        if r1 > r0 and c1 > c0:
            xp[:, :, r0:r1, c0:c1] = src[:, :, r0 - pads[0]:r1 - pads[0], c0 - pads[1]:c1 - pads[1]]
        s = xp.strides
        win = _np.lib.stride_tricks.as_strided(
            xp, (n, groups, cg, oh, ow, kh, kw),
            (s[0], cg * s[1], s[1], sh * s[2], sw * s[3], dh * s[2], dw * s[3]))
        wg = _ndarray(weight).reshape(groups, cog, cg, kh, kw)
        y = _np.einsum("ngcyxij,gocij->ngoyx", win, wg, optimize=True).reshape(n, o, oh, ow)
        if bias is not None:
            y = y + _ndarray(bias).reshape(1, o, 1, 1)
        return _store(dt.float32, y)
    xs = [x._storage.data[i] for i in _offsets(x)]
    ws = [weight._storage.data[i] for i in _offsets(weight)]
    bs = [bias._storage.data[i] for i in _offsets(bias)] if bias is not None else [0.0] * o
    taps = [(ci, i, j) for ci in range(cg) for i in range(kh) for j in range(kw)]
    out = array.array("f")
    for b in range(n):
        for co in range(o):
            g = co // cog
            wrow = ws[co * cg * kh * kw:(co + 1) * cg * kh * kw]
            for y in range(oh):
                for xo in range(ow):
                    acc = bs[co]
                    for t, (ci, i, j) in enumerate(taps):
                        r, q = y * sh - pads[0] + i * dh, xo * sw - pads[1] + j * dw
                        if 0 <= r < h and 0 <= q < w:
                            acc += xs[((b * c + g * cg + ci) * h + r) * w + q] * wrow[t]
                    out.append(acc)
    return Storage(dt.float32, out)
