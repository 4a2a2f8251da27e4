"""The "cpu" device: host memory as flat `array.array`s.

With numpy importable, primitives run as numpy operations on strided views of those arrays
(zero-copy). Without numpy (Pyodide's core has none) they run as plain Python loops, so cpu
tensors still compute, slowly: enough for checks such as allclose on results read back.
"""
import array
import itertools

from .. import _dtypes as dt

try:
    import numpy as _np
except ImportError:  # Pyodide without numpy
    _np = None

USE_NUMPY = _np is not None
NUMPY_DTYPE = {} if _np is None else {dt.bool_: _np.bool_, dt.int32: _np.int32, dt.int64: _np.int64,
                                      dt.float32: _np.float32}
_PY_TYPE = {dt.bool_: bool, dt.int32: int, dt.int64: int, dt.float32: float}


class Storage:
    __slots__ = ("dtype", "numel", "data")
    device_type = "cpu"

    def __init__(self, dtype, data):
        self.dtype, self.numel, self.data = dtype, len(data), data


def empty(dtype, numel):
    return Storage(dtype, array.array(dtype.typecode, bytes(numel * dtype.itemsize)))


def from_host(dtype, values):
    """values: an array.array of dtype's typecode (kept, not copied)."""
    return Storage(dtype, values)


def to_host(storage):
    return storage.data


def _ndarray(t):
    """A numpy view of tensor t's elements (writable, shares memory)."""
    flat = _np.frombuffer(t._storage.data, dtype=NUMPY_DTYPE[t.dtype]) if t._storage.numel else \
        _np.empty(0, NUMPY_DTYPE[t.dtype])
    item = flat.itemsize
    if t.numel() == 0:
        return _np.empty(t.shape, flat.dtype)
    return _np.lib.stride_tricks.as_strided(flat[t._offset:], t.shape, [s * item for s in t._stride])


def _offsets(t):
    """Flat element offsets of tensor t in row-major order of its shape."""
    offs = [t._offset]
    for size, stride in zip(t.shape, t._stride):
        offs = [o + i * stride for o in offs for i in range(size)]
    return offs if t.numel() else []


def _to_python(value, d):
    return _PY_TYPE[d](value)


def elementwise(op, out, operands, computes):
    if USE_NUMPY:
        with _np.errstate(all="ignore"):
            args = [_ndarray(x).astype(NUMPY_DTYPE[c], copy=False) if hasattr(x, "_storage")
                    else _np.array(x, dtype=NUMPY_DTYPE[c]) for x, c in zip(operands, computes)]
            result = op.numpy(_np, *args)
            _ndarray(out)[...] = _np.asarray(result).astype(NUMPY_DTYPE[out.dtype], copy=False)
        return
    columns = []
    for x, c in zip(operands, computes):
        if hasattr(x, "_storage"):
            data = x._storage.data
            columns.append([_to_python(data[o], c) for o in _offsets(x)])
        else:
            columns.append(itertools.repeat(_to_python(x, c)))
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
        a = _ndarray(rows).reshape(n_out, n_red).astype(NUMPY_DTYPE[acc_dtype], copy=False)
        with _np.errstate(all="ignore"):
            if with_index:
                fn = _np.argmax if op == "max" else _np.argmin
                idx = fn(a, axis=1) if n_red else _np.zeros(n_out, _np.int64)
                vals = a[_np.arange(n_out), idx] if n_red else _np.zeros(n_out, a.dtype)
                return (Storage(out_dtype, array.array(out_dtype.typecode, vals.astype(NUMPY_DTYPE[out_dtype]).tobytes())),
                        Storage(dt.int64, array.array("q", idx.astype(_np.int64).tobytes())))
            fn = {"sum": _np.sum, "prod": _np.prod, "max": _np.max, "min": _np.min}[op]
            vals = fn(a, axis=1) if n_red or op in ("sum", "prod") else _np.full(n_out, op == "min", a.dtype)
        return Storage(out_dtype, array.array(out_dtype.typecode, vals.astype(NUMPY_DTYPE[out_dtype]).tobytes())), None
    flat = [_to_python(rows._storage.data[o], acc_dtype) for o in _offsets(rows)]
    vals, idxs = array.array(out_dtype.typecode), array.array("q")
    kind = _PY_TYPE[out_dtype]
    for r in range(n_out):
        row = flat[r * n_red:(r + 1) * n_red]
        if with_index:
            best = 0
            for i, v in enumerate(row):
                b = row[best]
                if b != b:
                    break
                if v != v or (v > b if op == "max" else v < b):
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
        c = _np.matmul(_ndarray(a), _ndarray(b)).astype(NUMPY_DTYPE[out_dtype], copy=False)
        return Storage(out_dtype, array.array(out_dtype.typecode, _np.ascontiguousarray(c).tobytes()))
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    av = [a._storage.data[o] for o in _offsets(a)]
    bv = [b._storage.data[o] for o in _offsets(b)]
    out = array.array(out_dtype.typecode)
    for batch in range(_numel(a.shape[:-2])):
        ab, bb = batch * m * k, batch * k * n
        for i in range(m):
            for j in range(n):
                out.append(sum(av[ab + i * k + p] * bv[bb + p * n + j] for p in range(k)))
    return Storage(out_dtype, out)
