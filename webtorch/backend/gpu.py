"""The "webgpu" device: primitives as WGSL kernels on the runtime (webgpu.py).

Elements on the GPU: float32 and bfloat16 as f32, the integers as i32, bool as u32 (4 bytes),
float16 as f16 (2 bytes) where the adapter offers "shader-f16", else as f32 rounded to half after
every op (as bfloat16). float64 becomes float32 (with a warning): WebGPU has no f64. See kernels.STORAGE.
"""
import array
import math
import struct
import sys
import warnings
import weakref

from .. import _dtypes as dt
from . import complex as complex_storage, cpu, kernels
from .webgpu import OWNED, WORKGROUPS_PER_DIM, bucket, grid, on_start, runtime

# array typecodes of the 4-byte GPU layouts (float16 stored as f16: struct's "e")
_GPU_TYPECODE = {**{d: "i" for d in dt.ALL if d.category == 1}, dt.bool_: "I", dt.bfloat16: "f", dt.float32: "f",
                 dt.float64: "f", dt.float16: "f"}
_GPU_ITEMSIZE = {**{d: 4 for d in dt.ALL}, dt.float16: 2}


def _float16_layout(rt):
    """float16's storage follows the adapter: f16 with "shader-f16", else f32 holding halves."""
    native = "shader-f16" in rt.features
    kernels.set_float16_storage(native)
    _GPU_ITEMSIZE[dt.float16] = 2 if native else 4


on_start.append(_float16_layout)


class Storage:
    __slots__ = ("dtype", "numel", "buffer", "runtime", "version", "__weakref__")
    device_type = "webgpu"

    def __init__(self, dtype, numel):
        self.buffer = None  # set last: __del__ must work whatever below raises
        self.version = 0  # bumped by every in-place write (autograd's saved-tensor check)
        self.runtime = runtime()
        if dtype is dt.float64:
            warnings.warn("webtorch: WebGPU has no float64; this float64 tensor is stored as float32 on 'webgpu'",
                          UserWarning)
            dtype = dt.float32
        self.dtype, self.numel, self.buffer = dtype, numel, self.runtime.alloc(_GPU_ITEMSIZE[dtype] * numel)

    @classmethod
    def adopt(cls, dtype, numel, buffer, rt):
        """A storage owning a buffer allocated already (webtorch.compile's replayed outputs)."""
        s = cls.__new__(cls)
        s.buffer, s.version, s.runtime, s.dtype, s.numel = None, 0, rt, dtype, numel
        s.buffer = buffer
        return s

    def __del__(self):
        if self.buffer is not None and not sys.is_finalizing():
            self.runtime.release(self.buffer)
            self.buffer = None


def empty(dtype, numel):
    if dtype.is_complex:  # (complex storages are pairs of f32: backend/complex.py)
        raise complex_storage.no_complex_form(dtype)
    return Storage(dtype, numel)


def check_numel(dtype, numel):
    """OutOfMemoryError before anything is built for a tensor no buffer of this GPU can hold."""
    runtime().check_size(_GPU_ITEMSIZE[dtype] * numel)


def from_host(dtype, values, exact=False):
    """values: an array.array of dtype's host typecode; converted to the 4-byte GPU layout. exact: values
    read from a storage of dtype (float16/bfloat16's rounded already)."""
    if dtype is dt.int64 and values:
        lo, hi = min(values), max(values)
        kernels.check_int64_fits(lo, hi)
    s = empty(dtype, len(values))
    dtype = s.dtype  # float64 is stored as float32
    if dtype in (dt.int32, dt.int64) and values:
        s.buffer.value_range = (min(values), max(values)) if dtype is dt.int32 else (lo, hi)
    if dtype in dt.ROUNDED and not exact:
        values = cpu.rounded(dtype, values)
    if kernels.half_stored(dtype):
        data = cpu.half_bytes(values) + bytes(2 * (len(values) % 2))  # writes are 4-byte multiples
    else:
        if values.typecode != _GPU_TYPECODE[dtype]:
            values = array.array(_GPU_TYPECODE[dtype], values)
        data = memoryview(values).cast("B")
    s.runtime.upload(s.buffer, data)
    return s


def from_bytes(dtype, data):
    """A storage from the elements' little-endian bytes in torch's layout: a memoryview, or the browser
    driver's JsBytes (a range left in JS memory). float32, int32 and float16 (even counts) are laid out
    as on the GPU and uploaded from where they are, with no host copy; the others are converted."""
    numel = data.nbytes // dtype.itemsize
    runtime()  # started: float16's layout is the adapter's
    if dtype in (dt.float32, dt.int32) or (kernels.half_stored(dtype) and numel % 2 == 0):
        s = empty(dtype, numel)
        s.runtime.upload(s.buffer, data)
        return s
    return from_host(dtype, cpu.host_array(dtype, data.tobytes() if data.__class__ is not memoryview else data))


# Readbacks of more float16 elements than this (where they are stored as f16) are widened to f32 by a copy
# kernel in the readback's submission: the host keeps float16 as float32 values, and the GPU converts in bulk
# where the host has only struct's per-element unpacking (no numpy in Pyodide's core).
WIDEN_HALVES_ON_GPU = 1024


def _readback(storage, offset, numel):
    """(the storage to read, where the readback starts in it (bytes), the host buffer it fills, how many
    leading elements to skip): copies are 4-byte aligned, so halves start at an even one."""
    if kernels.half_stored(storage.dtype):
        if numel > WIDEN_HALVES_ON_GPU:
            return _widened(storage, offset, numel), 0, array.array("f", [0]) * numel, 0
        skip = offset % 2
        return storage, (offset - skip) * 2, bytearray(-(-(numel + skip) // 2) * 4), skip
    return storage, offset * 4, array.array(_GPU_TYPECODE[storage.dtype], [0]) * numel, 0


class _Range:
    """Elements [offset, offset + numel) of a storage, as the flat view an ElementwiseLaunch reads."""
    __slots__ = ("_storage", "shape", "_stride", "_offset", "dtype")

    def __init__(self, storage, offset, numel):
        self._storage, self.shape, self._stride, self._offset, self.dtype = storage, (numel,), (1,), offset, storage.dtype


def _widened(storage, offset, numel):
    """A new float32 storage of f16-stored elements [offset, offset + numel), converted by a copy kernel."""
    from ..ops_table import ELEMENTWISE
    out, src = _Range(empty(dt.float32, numel), 0, numel), _Range(storage, offset, numel)
    ElementwiseLaunch(ELEMENTWISE["copy"], out, [src], [dt.float32])(out, [src])
    return out._storage


_NONZERO = bytes([0] + [1] * 255)  # bytes.translate: a byte as 0 or 1
_SIGN = bytes([0] * 128 + [255] * 128)  # bytes.translate: a word's top byte as the bytes that extend its sign


def _host(dtype, raw, skip, numel):
    """An array.array of dtype's host typecode from the GPU-layout readback. The narrow integers, int64 and
    bool are converted in bulk, from the words' byte planes (every 4th byte: one slice each) by slicing,
    bytes.translate and big-int or: no Python object per element."""
    if raw.__class__ is bytearray:  # a few f16 halves
        return array.array("f", struct.unpack_from(f"<{numel}e", raw, 2 * skip))
    if raw.typecode == dtype.typecode:
        return raw
    words = raw.tobytes()
    planes = [words[k::4] for k in range(4)]  # little-endian words: plane 0 holds the low bytes
    if dtype is dt.bool_:  # stored as u32: any nonzero word (an uninitialised empty()) is True
        word = 0
        for plane in planes:
            word |= int.from_bytes(plane, "little")
        host = word.to_bytes(numel, "little").translate(_NONZERO)
    else:  # uint8, int8, int16: the low bytes (the GPU keeps their values wrapped); int64: the word, then its sign
        width = dtype.itemsize
        host = bytearray(width * numel)
        sign = planes[3].translate(_SIGN) if width > 4 else None
        for k in range(width):
            host[k::width] = planes[k] if k < 4 else sign
    values = array.array(dtype.typecode)
    values.frombytes(host)
    return values


def known_range(storage):
    """(low, high) bounding an int storage's values when known without reading the GPU, else None."""
    return storage.buffer.value_range


def set_known_range(storage, low, high):
    """After a kernel filled an int storage with values in [low, high] (full(): one constant)."""
    storage.buffer.value_range = (low, high)


def to_host(storage, offset, numel):
    """Elements [offset, offset + numel) of a storage, as an array.array of the host typecode."""
    source, start, raw, skip = _readback(storage, offset, numel)
    return _host(storage.dtype, storage.runtime.download(source.buffer, raw, start), skip, numel)


async def to_host_async(storage, offset, numel):
    source, start, raw, skip = _readback(storage, offset, numel)
    return _host(storage.dtype, await storage.runtime.download_async(source.buffer, raw, start), skip, numel)


def _is_contiguous_over(t, shape):
    expected = 1
    for size, stride in zip(reversed(shape), reversed(t._stride)):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


# Tensors here are strided views (_storage, shape, _stride, _offset, dtype), told from scalars by their
# storage; the views this module makes are of its operands' class (Tensor sits above the backend).


def elementwise(op, out, operands, computes):
    """out: a (possibly strided) view; operands: tensors broadcast to out.shape, or scalars."""
    operands = [x.clone() if getattr(x, "_storage", None) is out._storage else x  # bound read-only and
                for x in operands]                                                     # writable at once: invalid
    ElementwiseLaunch(op, out, operands, computes)(out, operands)


class ElementwiseLaunch:
    """An elementwise kernel prepared for operands of given layouts (dtypes, shapes, strides): a call
    fills in only what may differ between calls with those layouts (storages, offsets, scalars).
    Eager ops cache one per layout signature (_ops.elementwise), so this runs once per signature."""
    __slots__ = ("kernel", "meta", "out_slot", "views", "scalars", "groups", "dtype", "numel", "nbytes", "size_class",
                 "runtime", "pipeline", "tail", "span")

    def __init__(self, op, out, operands, computes):
        shape = out.shape
        self.numel = n = math.prod(shape)
        self.dtype = out.dtype
        self.nbytes = _GPU_ITEMSIZE[out.dtype] * n
        self.size_class = bucket(self.nbytes)
        tensors = [x for x in operands if hasattr(x, "_storage")]
        contiguous = _is_contiguous_over(out, shape) and all(
            x._stride == out._stride or _is_contiguous_over(x, shape) for x in tensors)
        if contiguous:  # the kernel reads only the offsets: one flat dimension
            shape, strides = (n,), lambda x: (1,)
        else:
            strides = lambda x: x._stride
        self.out_slot = 2 + len(shape)
        meta = [n, len(shape), *shape, 0, *strides(out)]
        scalar_words = len(meta) + (1 + len(shape)) * len(tensors)  # the scalars' bits come after the views
        # Per tensor operand (its index, its offset word); per scalar [its index, its word, compute
        # dtype, the last scalar object written there]: a loop's constant (y * 0.5) is converted once.
        self.views, self.scalars = [], []
        for i, (x, c) in enumerate(zip(operands, computes)):
            if hasattr(x, "_storage"):
                self.views.append((i, len(meta)))
                meta += [0, *strides(x)]
            else:
                self.scalars.append([i, scalar_words, c, None])
                scalar_words += 1
        meta += [0] * (scalar_words - len(meta))
        # The offsets and scalars are written per call, in place: the runtime copies the words into
        # its batch when it records the kernel (and a recorder of webtorch.compile keeps its own copy).
        self.meta = array.array("I", meta)
        dtypes = tuple(x.dtype if hasattr(x, "_storage") else None for x in operands)
        self.kernel = kernels.elementwise(op, dtypes, tuple(computes), out.dtype, contiguous)
        self.groups = grid(-(-n // (256 * (kernels.ELEMENTWISE_PER if contiguous else 1))))
        # The runtime that compiled the kernel, and for its record(): the pipeline id, the command
        # words after the meta offset, and the meta's span
        self.runtime = self.pipeline = self.tail = self.span = None

    def __call__(self, out, operands):
        """The kernel recorded, writing into out (a view of these layouts)."""
        meta = self.meta
        meta[self.out_slot] = out._offset
        buffers = [out._storage.buffer] + self._fill(meta, operands)
        out._storage.runtime.run(self.kernel, buffers, meta, self.groups)

    def new(self, operands):
        """The kernel recorded, writing into a new storage (returned): Storage(dtype, numel) without
        the checks the launch's first output passed. The hot path of an eager elementwise op: while
        no hook watches the runtime (webtorch.compile's recorder, a profiler), its buffer comes from
        take() and its command words go to record() directly, the pipeline found once per runtime."""
        rt = runtime()
        direct = self.runtime is rt and not rt.hooks
        buf = rt.take(self.size_class, self.nbytes) if direct else rt.alloc(self.nbytes)
        s = _new_storage(Storage)
        s.buffer, s.version, s.dtype, s.numel, s.runtime = buf, 0, self.dtype, self.numel, rt
        meta = self.meta
        meta[self.out_slot] = 0
        if direct:
            ids = [buf.id]
            for b in self._fill(meta, operands):
                ids.append(b.id)
            rt.record(self.pipeline, self.tail, self.span, ids, meta)
            return s
        rt.run(self.kernel, [buf] + self._fill(meta, operands), meta, self.groups)
        if self.numel and not rt.hooks:  # (an empty launch records nothing)
            self.runtime, self.pipeline = rt, rt.pipeline(self.kernel)
            self.tail, self.span = rt.placement(self.groups, 1 + len(self.views), len(meta))
        return s

    def _fill(self, meta, operands):
        """The operands' offsets and scalars into meta; returns the tensor operands' buffers."""
        buffers = []
        for i, word in self.views:
            x = operands[i]
            meta[word] = x._offset
            buffers.append(x._storage.buffer)
        for slot in self.scalars:
            x = operands[slot[0]]
            if x is not slot[3]:  # a new scalar (the same object: its bits are in meta already)
                meta[slot[1]] = kernels.scalar_bits(x, slot[2])
                slot[3] = x
        return buffers


_new_storage = object.__new__


# Eager code repeats reductions over tensors of one layout (a loss's sum, a mean per step): the launches of a
# reduction (kernel, parameters, workgroups: one, or a split's chain, each reading the one before) are kept per
# signature (op, dtypes, x's shape, strides and offset, dims), so a repeated call only allocates and records
# them (planning a split sum cost more Python than the GPU's time for it up to ~16M elements).
_REDUCE_PLANS = {}
_MAX_REDUCE_PLANS = 1024  # cleared when full
_launched = []  # the launches of the reduction being worked out: (kernel, meta, groups, n, src, src_indices, out)


def reduce(op, x, dims, acc_dtype, out_dtype, with_index):
    rt = runtime()  # (the choice also depends on the adapter's features and the split threshold)
    key = (op, x.dtype, x.shape, x._stride, x._offset, tuple(dims), acc_dtype, out_dtype, with_index, rt.features,
           COLUMN_SPLIT_MIN, _on_cpu_adapter(rt))
    plan = _REDUCE_PLANS.get(key)
    if plan is not None and plan[0] is rt:
        return _replay(rt, plan[1], x._storage.buffer, with_index)
    _launched.clear()
    result = _reduce(op, x, dims, acc_dtype, out_dtype, with_index)
    steps = _plan(x._storage.buffer, with_index)
    if steps:
        if len(_REDUCE_PLANS) >= _MAX_REDUCE_PLANS:
            _REDUCE_PLANS.clear()
        _REDUCE_PLANS[key] = (result[0].runtime, steps)
    _launched.clear()
    return result


def _plan(src, with_index):
    """The launches just recorded, as steps to replay, where they are a chain from src (each reading the values
    of the one before; an arg-reduction's split, which also passes indices, is not kept); else None."""
    if not _launched or with_index and len(_launched) > 1:
        return None
    steps = []
    for kernel, meta, groups, n, launch_src, src_indices, out, owned in _launched:
        groups = grid(groups) if groups.__class__ is int else groups
        if launch_src is not src or src_indices is not None or not all(groups):  # (no workgroups: nothing recorded)
            return None
        rt = out.runtime
        steps.append((kernel, array.array("I", meta), groups, out.dtype, n, owned, rt.pipeline(kernel),
                      *rt.placement(groups, 2 + with_index + len(owned), len(meta))))
        src = out.buffer
    return steps


def _replay(rt, steps, src, with_index):
    """A kept reduction's launches recorded again from buffer src: returns the last one's values and indices.
    Every launch's values stay alive until the chain is recorded: a recording (webtorch.compile) takes a
    buffer released before the launch that reads it for one from outside the call."""
    chain = []
    for kernel, meta, groups, out_dtype, n, owned, pid, tail, span in steps:
        values = empty(out_dtype, n)
        indices = empty(dt.int64, n) if with_index else None
        buffers = [values.buffer, chain[-1].buffer if chain else src] + ([indices.buffer] if with_index else []) + owned
        if rt.hooks:  # (see ElementwiseLaunch.new)
            rt.run(kernel, buffers, meta, groups)
        else:
            rt.record(pid, tail, span, [b.id for b in buffers], meta)
        chain.append(values)
    return values, indices


def _reduce(op, x, dims, acc_dtype, out_dtype, with_index):
    """Chooses the kernel by x's layout, once size-1 dims are dropped and dims that step evenly into
    the next are merged: columns (reduce_by_cols.wgsl) or rows over threads (reduce_by_rows.wgsl)."""
    kept = _collapse([(x.shape[d], x._stride[d]) for d in range(x.dim()) if d not in dims])
    red = [(x.shape[d], x._stride[d]) for d in dims]
    if not with_index:  # order-free: walk the reduced dims in memory order (a permuted view reads contiguously)
        red.sort(key=lambda p: -p[1])
    red = _collapse(red)
    n_out = math.prod(s for s, _ in kept)
    row_len = math.prod(s for s, _ in red)
    meta = [n_out, row_len, len(kept), len(red), x._offset]
    meta += [s for s, _ in kept] + [st for _, st in kept] + [s for s, _ in red] + [st for _, st in red]
    args = op, x._storage.buffer, x.dtype, acc_dtype, out_dtype, with_index
    if len(red) == 1 and red[0][1] != 1 and kept and kept[-1][1] == 1:
        # Each row runs across memory but neighbouring rows are neighbours (x.sum(0) of a matrix)
        return _reduce_columns(*args, meta, split=True)
    layout = "strided"
    if not red or len(red) == 1 and red[0][1] == 1:
        # vec4 needs every row to start at a multiple of 4 elements (float16: 8-byte vec4<f16> loads)
        aligned = x._offset % 4 == 0 and all(st % 4 == 0 for _, st in kept)
        layout = "vec4" if aligned and row_len >= 16 else "contiguous"
    return _reduce_rows(*args, meta, layout)


def _collapse(dims):
    """(size, stride) pairs, outermost first, without size-1 dims and with each dim that steps evenly
    into the next merged with it (the row-major index over them stays the same)."""
    out = []
    for size, stride in dims:
        if size == 1:
            continue
        if out and out[-1][1] == stride * size:
            out[-1] = (out[-1][0] * size, stride)
        else:
            out.append((size, stride))
    return out


def _reduce_rows(op, src, in_dtype, acc_dtype, out_dtype, with_index, meta, layout, src_indices=None):
    """reduce_by_rows.wgsl: threads along each row (_threads_per_row), several short rows per workgroup;
    on CPU adapters one thread per row or chunk of a row (SOLO_CHUNK)."""
    n_out, row_len = meta[0], meta[1]
    chunk = min(row_len, SOLO_CHUNK) if _on_cpu_adapter(runtime()) else _reduce_chunk(n_out, row_len)
    if chunk == row_len:
        return _launch_reduce(op, src, in_dtype, acc_dtype, out_dtype, with_index, layout, meta, row_len, n_out,
                              src_indices)
    # Long rows: split each over many workgroups into partials, then reduce the partials as rows again
    # (an arg-reduction's partials carry their row indices into the next pass), or, for float32
    # partials that fit the fold scratch, fold them in the same launch (reduce_fold_last.wgsl).
    n_chunks = -(-row_len // chunk)
    acc_dtype = dt.float32 if acc_dtype in dt.ROUNDED else acc_dtype  # 16-bit float partials stay f32
    if (acc_dtype is dt.float32 and not with_index and src_indices is None and n_out <= kernels.FOLD_ROWS
            and n_out * n_chunks <= kernels.FOLD_PARTIALS and _threads_per_row(chunk, 32) == 256):
        return _launch_reduce(op, src, in_dtype, acc_dtype, out_dtype, False, layout,
                              [n_out * n_chunks] + meta[1:], chunk, n_out, groups=n_out * n_chunks,
                              scratch=runtime().owned("fold scratch"))
    values, indices = _launch_reduce(op, src, in_dtype, acc_dtype, acc_dtype, with_index, layout,
                                     [n_out * n_chunks] + meta[1:], chunk, n_out * n_chunks, src_indices)
    return _reduce_rows(op, values.buffer, acc_dtype, acc_dtype, out_dtype, with_index,
                        [n_out, n_chunks, 1, 1, 0, n_out, n_chunks, n_chunks, 1], "contiguous", indices)


# A split costs a second launch (~20-30 us of Python in Pyodide): smaller inputs take one pass.
COLUMN_SPLIT_MIN = 1 << 22


def _reduce_columns(op, src, in_dtype, acc_dtype, out_dtype, with_index, meta, split, src_indices=None):
    """reduce_by_cols.wgsl: workgroups of tx rows x ty lanes along them. tx is at least 32 rows (one
    128-byte read per 32 threads) or all of them, ty no more lanes than elements. With few rows the
    reduced dim splits for about 2048 workgroups (at least 16 elements per thread), into partials that
    a second launch reduces as columns again. On CPU adapters one thread per column (ty 1: no joins,
    reduce_solo.wgsl), split into chunks of at most SOLO_CHUNK elements, folded by further passes."""
    n_out, row_len = meta[0], meta[1]
    solo = _on_cpu_adapter(runtime())
    ty = 1 if solo else min(256 // min(32, _pow2(n_out)), _pow2(row_len))
    tx = 256 // ty
    n_groups = -(-n_out // tx)
    if solo:
        n_chunks = max(1, -(-row_len // SOLO_CHUNK))
    elif split and n_out * row_len >= COLUMN_SPLIT_MIN:
        n_chunks = max(1, min(-(-2048 // n_groups), row_len // (16 * ty)))
    else:
        n_chunks = 1
    chunk = max(1, -(-row_len // n_chunks))
    n_chunks = max(1, -(-row_len // chunk))
    if n_chunks == 1:
        return _launch_reduce(op, src, in_dtype, acc_dtype, out_dtype, with_index, "columns", meta, chunk,
                              n_out, src_indices, [tx], n_groups)
    acc_dtype = dt.float32 if acc_dtype in dt.ROUNDED else acc_dtype  # 16-bit float partials stay f32
    values, indices = _launch_reduce(op, src, in_dtype, acc_dtype, acc_dtype, with_index, "columns", meta, chunk,
                                     n_chunks * n_out, src_indices, [tx], n_groups * n_chunks)
    return _reduce_columns(op, values.buffer, acc_dtype, acc_dtype, out_dtype, with_index,
                           [n_out, n_chunks, 1, 1, 0, n_out, 1, n_chunks, n_out], False, indices)


def _pow2(n):
    """The least power of two >= n (1 for n <= 1)."""
    return 1 << max(0, n - 1).bit_length()


def _launch_reduce(op, src, in_dtype, acc_dtype, out_dtype, with_index, layout, meta, chunk, n, src_indices=None,
                   extra=None, groups=None, scratch=None):
    """One reduce launch writing n results (and indices): meta, then the chunk, then the scheme's own
    words (columns: extra, over groups workgroups; rows: tpr, as many workgroups as the rows need, or
    groups). src_indices: the row indices of a split arg-reduction's partials. scratch: the fold
    scratch (a row split over workgroups folded in this launch: reduce_fold_last.wgsl)."""
    solo = _on_cpu_adapter(runtime())
    if extra is None:
        tpr = 1 if solo else _threads_per_row(chunk, 32)
        extra, groups = [tpr], groups or -(-n // (256 // tpr))
    values = empty(out_dtype, n)
    indices = empty(dt.int64, n) if with_index else None
    owned = [scratch] if scratch is not None else []  # the runtime's own: the same buffer on replay
    buffers = [values.buffer, src] + ([indices.buffer] if with_index else []) + owned
    if src_indices is not None:
        buffers.append(src_indices.buffer)
    kernel = kernels.reduce(op, in_dtype, acc_dtype, out_dtype, with_index, layout, src_indices is not None,
                            None if solo else subgroup_min(values.runtime), solo, scratch is not None)
    meta = meta + [max(chunk, 1)] + extra
    _launched.append((kernel, meta, groups, n, src, src_indices, values, owned))
    values.runtime.run(kernel, buffers, meta, groups)
    return values, indices


def _fold_scratch_bytes():
    """The fold scratch of reduce_fold_last.wgsl as it starts and as every fold launch leaves it (launches
    run in queue order, one at a time): FOLD_ROWS zero counters, then FOLD_PARTIALS empty partials."""
    words = array.array("I", [0]) * kernels.FOLD_ROWS + array.array("I", [kernels.FOLD_EMPTY]) * kernels.FOLD_PARTIALS
    return memoryview(words).cast("B")


OWNED["fold scratch"] = _fold_scratch_bytes
# Bound where a kernel's optional writable output is absent (layer_norm's residual sum): WebGPU refuses one
# buffer at two writable bindings of a dispatch (Dawn: "writable storage buffer binding aliasing"), so the
# output cannot stand in for it; never read, and its words are whatever a launch left.
OWNED["unused output"] = lambda: bytes(16)


# Elements of a row one thread folds on a CPU adapter (reduce_solo.wgsl: into four accumulators, 64
# terms each; a multiple of 4, so vec4 reads stay aligned). Longer rows split into partials that the
# next pass folds the same way, a tree of fan-out 256: a float32 sum of n terms in sequence errs by up
# to ~n/2 ulps (torch sums pairwise), and 4096 in sequence put a mean's gradient 6e-5 off.
SOLO_CHUNK = 256


def _reduce_chunk(n_out, row_len):
    """Row elements per workgroup: whole rows when there are enough of them to fill the GPU, else
    chunks (multiples of 1024, so vec4 reads stay aligned) for about 2048 workgroups in all."""
    if n_out >= 1024 or row_len < 16384 or n_out == 0:
        return row_len
    chunk = -(-row_len // -(-2048 // n_out))
    return max(8192, -(-chunk // 1024) * 1024)


# Up to here one output per invocation (matmul_small.wgsl) beats tiling: SwiftShader ran a
# Transformer encoder layer (2x16x64) in 25-30 ms this way, 340 ms in 64x64 tiles. Long K stays
# tiled: one invocation walking it alone would be latency-bound on a real GPU.
SMALL_MATMUL_MACS = 1 << 20
SMALL_MATMUL_MAX_K = 256
# Rows of A up to which x @ W.T reads W once per row along K (matmul_gemv.wgsl) rather than in tiles:
# a 64-row tile holding one row of A read W at 7.8-57 GB/s on an H200 (bench/results/h200-native).
GEMV_MAX_M = 4


# torch.set_float32_matmul_precision: "highest" keeps float32 matmuls in the fp32 kernels; "high"
# runs them on tensor cores as split f16 (hi + lo parts, ~22 significant bits), "medium" as f16
# inputs (11 bits), both with f32 accumulation, where the adapter offers subgroup matrices.
float32_matmul_precision = "highest"


def matmul(a, b, out_dtype):
    """a: (*batch, M, K), b: (*batch, K, N) with equal batch dims; returns a contiguous storage."""
    if out_dtype is dt.float16 and kernels.STORAGE[dt.float16] == "f32":
        # emulated float16 (no "shader-f16": stored as f32 holding half values): the float32 kernels (the same
        # f32 loads) store unrounded, then one pass rounds to half. With the rounding store inside the
        # register-tiled kernel, Chrome 156 on the H200 ran float16 matmuls 18x slower than float32
        # (bench/results/chromium-gpu/README.md); the values are the same (one rounding of the f32 sums).
        from ..ops_table import ELEMENTWISE
        wide = matmul(a, b, dt.float32)
        c = empty(dt.float16, wide.numel)
        elementwise(ELEMENTWISE["copy"], type(a)(c, (c.numel,)), [type(a)(wide, (c.numel,))], [dt.float16])
        return c
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    batch = a.shape[:-2]
    n_batch = 1
    for s in batch:
        n_batch *= s
    c = empty(out_dtype, n_batch * m * n)
    meta = [m, n, k, len(batch), a._offset, a._stride[-2], a._stride[-1], b._offset, b._stride[-2], b._stride[-1]]
    meta += list(batch) + list(a._stride[:-2]) + list(b._stride[:-2])
    buffers = [c.buffer, a._storage.buffer, b._storage.buffer]
    if (a.dtype is dt.float16 or a.dtype is dt.float32 and float32_matmul_precision != "highest") \
            and _matmul_on_tensor_cores(c, a, b, m, n, k, meta, buffers, n_batch):
        return c
    cpu_adapter = _on_cpu_adapter(c.runtime)
    small_groups = -(-m * n // 64)
    if m * n * k * n_batch <= SMALL_MATMUL_MACS and k <= SMALL_MATMUL_MAX_K:
        c.runtime.run(kernels.matmul_small(out_dtype), buffers, meta, (small_groups, 1, n_batch))
        return c
    b_transposed = b._stride[-1] != 1 and b._stride[-2] == 1  # x @ W.T: B read along K
    if m <= GEMV_MAX_M and b_transposed and -(-n // 8) <= 65535 and not cpu_adapter:
        # vec4: every row of A and B starts at a multiple of 4 elements (float16: 8-byte vec4<f16> loads)
        vec4 = out_dtype.is_floating_point and a._stride[-1] == 1 and not any(
            w % 4 for w in [k, a._offset, a._stride[-2] if m > 1 else 0, b._offset, b._stride[-1]] +
            list(a._stride[:-2]) + list(b._stride[:-2]))
        c.runtime.run(kernels.matmul_gemv(out_dtype, vec4), buffers, meta, (-(-n // 8), m, n_batch))
        return c
    if (out_dtype.is_floating_point and a._stride[-1] == 1 and (b._stride[-1] == 1 or b_transposed) and k % 4 == 0
            and n % 4 == 0 and not any(w % 4 for w in meta[4:6] + [meta[7], meta[9] if b_transposed else meta[8]]
                                       + meta[10 + len(batch):])):
        groups = -(-(n // 4) * -(-m // 8) // 64)  # matmul_registers.wgsl: 8 rows x vec4 per invocation
        if cpu_adapter and groups <= 65535:
            c.runtime.run(kernels.matmul_registers(out_dtype, b_transposed), buffers, meta, (groups, 1, n_batch))
            return c
        # vec4 fast path: the first tile of which there are enough workgroups
        for tile, min_groups in _VEC4_TILES:
            wx, wy, tm, tn4, _ = tile
            grid = (-(-n // (4 * wx * tn4)), -(-m // (wy * tm)), n_batch)
            if grid[0] * grid[1] * n_batch >= min_groups:
                break
        c.runtime.run(kernels.matmul_vec4(out_dtype, tile, b_transposed), buffers, meta, grid)
        return c
    if cpu_adapter and small_groups <= 65535:  # CPU adapters: no barriers here either (MiniLM's attention
        # scores of 23-token sentences, 96 x 23x32x23, ran in 64x64 tiles, 8/9 of them padding)
        c.runtime.run(kernels.matmul_small(out_dtype), buffers, meta, (small_groups, 1, n_batch))
        return c
    c.runtime.run(kernels.matmul(out_dtype), buffers, meta, (-(-n // 64), -(-m // 64), n_batch))
    return c


# Tile shapes of the tensor-core kernel, biggest first: (TM, TN, WM, WN, BK) = fragments per subgroup,
# subgroups per workgroup, K step. Timed on an H200 (bench/results/matmul_tc.json, f16): 256x128 tiles
# 230 TFLOP/s at 4096^3 (229 with a transposed B, where 128x128 ran at 134), 128x128 205-252 at
# 2048^3-8192^3; the smaller ones where the big ones give too few workgroups (1024^3: 64x128 90,
# 128x128 63).
_TENSOR_CORE_TILES = ((4, 4, 4, 2, 32), (4, 4, 2, 2, 32), (2, 4, 2, 2, 32), (2, 2, 2, 2, 32))
# float32 inputs ("high" / "medium"): not 4x4 fragments per subgroup, whose checks with f32 staging
# crashed dawn.node on the H200 in every run (the others pass; 4096^3 "medium" 139 TFLOP/s in
# 128x128 tiles against 101 in 64x128, "high" 62 against 40)
_TENSOR_CORE_TILES_F32 = _TENSOR_CORE_TILES[2:]


def _matmul_on_tensor_cores(c, a, b, m, n, k, meta, buffers, n_batch):
    """float16 (or float32, rounded or split to f16) matmul through subgroup matrices, where the
    adapter offers an f16 -> f32 configuration and the shapes are whole tiles with offsets and strides
    that are multiples of the kernel's loads (16 bytes where they can be); False where it does not run."""
    rt = c.runtime
    if "chromium-experimental-subgroup-matrix" not in rt.features or "shader-f16" not in rt.features:
        return False
    info = rt.driver.adapter_info
    fragment = next(((f["M"], f["N"], f["K"]) for f in info.get("subgroup_matrix_configs", ())
                     if f["component_type"] == "f16" and f["result_component_type"] == "f32"), None)
    a_col, b_col = a._stride[-2] == 1 and a._stride[-1] != 1, b._stride[-2] == 1 and b._stride[-1] != 1
    if fragment is None or not (a_col or a._stride[-1] == 1) or not (b_col or b._stride[-1] == 1):
        return False
    f32_inputs = a.dtype is dt.float32
    # the kernel loads vec elements at a time: offsets and the strides between tile rows and batches
    # multiples of it
    row_strides = [a._stride[-1] if a_col else a._stride[-2], b._stride[-1] if b_col else b._stride[-2]]
    words = [a._offset, b._offset] + row_strides + list(a._stride[:-2]) + list(b._stride[:-2])
    vec = next((v for v in kernels.SUBGROUP_MATRIX_VECS[f32_inputs] if not any(w % v for w in words)), None)
    if vec is None:
        return False
    sm, sn, sk = fragment
    sg = info["subgroup_max_size"]
    split = f32_inputs and float32_matmul_precision == "high"
    fitting = []  # (tiles, grid)
    for tiles in _TENSOR_CORE_TILES_F32 if f32_inputs else _TENSOR_CORE_TILES:
        tm, tn, wm, wn, bk = tiles
        bm, bn, inv = wm * tm * sm, wn * tn * sn, wm * wn * sg
        memory = kernels.matmul_subgroup_matrix_bytes(c.dtype, fragment, tiles, split)
        if (m % bm == 0 and n % bn == 0 and k % bk == 0 and bk % sk == 0 and (bm * bk // vec) % inv == 0
                and (bn * bk // vec) % inv == 0 and memory <= rt.limits["max_compute_workgroup_storage_size"]):
            fitting.append((tiles, (n // bn, m // bm, n_batch)))
    if not fitting:
        return False
    # the biggest tile that still gives about a workgroup per SM, else the one that gives the most
    tiles, grid = next((f for f in fitting if f[1][0] * f[1][1] * n_batch >= MATMUL_MIN_GROUPS), fitting[-1])
    rt.run(kernels.matmul_subgroup_matrix(c.dtype, fragment, sg, tiles, a_col, b_col, f32_inputs, split, vec), buffers,
           meta, grid)
    return True


# Workgroups a matmul tile size must give to be chosen: about one per SM of a large GPU (an H200 has
# 132; timed there, 1024^3 ran at 19 TFLOP/s in 128x128 tiles, 27 in 64x64).
MATMUL_MIN_GROUPS = 128
# Tiles of the vec4 fast path, (WX, WY, TM, TN4, BK4) of matmul_vec4.wgsl (a (WY*TM) x (4*WX*TN4) tile of
# C per WX x WY workgroup), each with the fewest workgroups it must give; the first that does is
# chosen. Timed on an H200 at 4096^3 / 2048^3 / 1024^3 / 4096x384x1536 / 4096x1536x384 (m x k x n;
# TFLOP/s, bench/results/matmul_fp32.md): 64x128 tiles of 128 invocations 41.1 / 32.1 / 28.3 / 37.7 /
# 27.6, 128x128 of 256 39.8 / 39.2 / 18.5 / 36.1 / 28.6, 64x64 of 128 36.8 / 33.6 / 28.8 / 31.6 / 32.9
# (of 256, the tile before: 31.8 / 30.7 / 25.8 / 29.7 / 30.0). 64x128 tiles ran at about three
# workgroups per SM there (their figures fit 396 at once on 132 SMs): they pay only with about two
# waves or more (2048^3's 512 workgroups ran as one wave and a small second one).
_VEC4_TILES = (((16, 8, 8, 2, 4), 6 * MATMUL_MIN_GROUPS), ((16, 16, 8, 2, 4), MATMUL_MIN_GROUPS),
               ((8, 16, 4, 2, 4), MATMUL_MIN_GROUPS), ((16, 16, 2, 1, 8), 0))
_CPU_ADAPTER = weakref.WeakKeyDictionary()  # runtime -> whether its adapter is a CPU rasteriser


def _on_cpu_adapter(runtime):
    """Whether the adapter runs shaders on the CPU (SwiftShader, lavapipe): there barriers and workgroup
    memory cost more than they save, and float matmuls take matmul_registers.wgsl."""
    cpu = _CPU_ADAPTER.get(runtime)
    if cpu is None:
        info = runtime.driver.adapter_info
        name = " ".join(str(info.get(k, "")) for k in ("vendor", "architecture", "device")).lower()
        cpu = _CPU_ADAPTER[runtime] = "swiftshader" in name or "llvmpipe" in name
    return cpu


def _flat(t):
    """A tensor's element offset in its storage, after making it contiguous."""
    t = t.contiguous()
    return t, t._offset


def take(x, offsets):
    """A new storage: x's storage elements at the (int) offsets, in offsets' row-major order."""
    offsets, o_off = _flat(offsets)
    n = offsets.numel()
    out = empty(x.dtype, n)
    out.runtime.run(kernels.take(x.dtype), [out.buffer, x._storage.buffer, offsets._storage.buffer],
                    [n, o_off], -(-n // 256))
    return out


def spmm(starts, cols, values, dense, n_rows):
    """A new float32 storage: the (n_rows, N) product of the sparse matrix of entries (cols, values), row r's
    at [starts[r], starts[r + 1]), with the (K, N) float32 dense: per 4 adjacent outputs of a row, a gather and
    a sum (spmm.wgsl)."""
    (starts, s_off), (cols, c_off), (values, v_off), (dense, d_off) = map(_flat, (starts, cols, values, dense))
    threads = n_rows * -(-dense.shape[1] // 4)  # one per 4 adjacent outputs of a row
    out = empty(dt.float32, n_rows * dense.shape[1])
    out.runtime.run(kernels.spmm(), [out.buffer, starts._storage.buffer, cols._storage.buffer,
                                     values._storage.buffer, dense._storage.buffer],
                    [threads, dense.shape[1], s_off, c_off, v_off, d_off], -(-threads // 64))
    return out


COMPLEX_PAIR_OPS = {"mul": 0, "add": 1, "sub": 2, "abs": 3}


def complex_pairs(name, a, b=None):
    """A new float32 storage: a * b, a + b or a - b as interleaved pairs, or abs(a), of contiguous complex64
    tensors of one shape (their storages' real float32 buffers), in one kernel (complex_pairs.wgsl)."""
    n = a.numel()
    out = empty(dt.float32, n if name == "abs" else 2 * n)
    other = a if b is None else b
    out.runtime.run(kernels.complex_pairs(), [out.buffer, a._storage.real.buffer, other._storage.real.buffer],
                    [n, COMPLEX_PAIR_OPS[name], a._offset, other._offset], -(-n // 256))
    return out


def fft_pow2(pairs, n, table, sign):
    """A new float32 storage: the DFT with exp(sign 2 pi i j k / n) of every row of n complex points in the
    contiguous float32 (rows, n, 2) pairs, in natural order, by Stockham's autosort passes (radix 4 while 4
    divides what is left of n, then radix 2; fft_stockham.wgsl) ping-ponging between two storages. table:
    float32 (n, 2), exp(sign 2 pi i m / n)."""
    (pairs, offset), (table, t_off) = _flat(pairs), _flat(table)
    total = pairs.numel() // 2
    src, src_off, p = pairs._storage, offset // 2, 1
    spare = None
    while p < n:
        radix = 4 if (n // p) % 4 == 0 else 2
        dst = spare if spare is not None else empty(dt.float32, 2 * total)
        threads = total // radix
        dst.runtime.run(kernels.fft_stockham(), [dst.buffer, src.buffer, table._storage.buffer],
                        [threads, n // radix, p, src_off, n // (radix * p), t_off // 2, 1 if sign > 0 else 0, radix],
                        -(-threads // 256))
        spare = src if src is not pairs._storage else None
        src, src_off, p = dst, 0, p * radix
    return src


def sddmm(rows, cols, a, b):
    """A new float32 storage: per entry k, the dot product of row rows[k] of a and row cols[k] of b (float32,
    N columns each): A Bᵀ sampled at the entries (sddmm.wgsl)."""
    (rows, r_off), (cols, c_off), (a, a_off), (b, b_off) = map(_flat, (rows, cols, a, b))
    n = rows.numel()
    out = empty(dt.float32, n)
    out.runtime.run(kernels.sddmm(), [out.buffer, rows._storage.buffer, cols._storage.buffer, a._storage.buffer,
                                      b._storage.buffer], [n, a.shape[1], r_off, c_off, a_off, b_off], -(-n // 256))
    return out


def along_layout(x, dim):
    """along.wgsl's words for x (after n_idx): inner size, offset and the outer, dim and inner strides;
    None when the dims before or after dim do not merge into one each."""
    outer = _collapse([(x.shape[d], x._stride[d]) for d in range(dim)]) or [(1, 0)]
    inner = _collapse([(x.shape[d], x._stride[d]) for d in range(dim + 1, x.dim())]) or [(1, 0)]
    if len(outer) > 1 or len(inner) > 1:
        return None
    return [inner[0][0], x._offset, outer[0][1], x._stride[dim], inner[0][1]]


def take_along(x, dim, index):
    """A new storage: x's slices along dim at the (in-range, non-negative) 1-D int index, row-major
    over x's shape with dim's size replaced by the index's: one kernel, no offsets tensor."""
    if x.numel() == 0:  # (so is the result: a zero-size dim, or an empty index into one; no layout to merge)
        return empty(x.dtype, 0)
    layout = along_layout(x, dim)
    if layout is None:
        x = x.contiguous()
        layout = along_layout(x, dim)
    index, i_off = _flat(index)
    n = math.prod(x.shape[:dim]) * index.numel() * layout[0]
    out = empty(x.dtype, n)
    out.runtime.run(kernels.take(x.dtype, "along"), [out.buffer, x._storage.buffer, index._storage.buffer],
                    [n, i_off, index.numel(), *layout], -(-n // 256))
    return out


def put_along(dst, dim, index, src, accumulate):
    """dst's slices along dim at the (in-range, non-negative) 1-D int index = (or +=) src's, src shaped
    like take_along's result and of dst's dtype. dst's dims before and after dim must each merge
    into one (along_layout)."""
    if accumulate and kernels.half_stored(dst.dtype):
        return _through_float32(dst, src, lambda wide, wide_src: put_along(wide, dim, index, wide_src, True))
    layout = along_layout(dst, dim)
    index, i_off = _flat(index)
    if src._storage is dst._storage:  # bound read-only and writable at once otherwise
        src = src.clone()
    src, s_off = _flat(src)
    n = src.numel()
    dst._storage.runtime.run(kernels.put(dst.dtype, accumulate, "along"),
                             [dst._storage.buffer, src._storage.buffer, index._storage.buffer],
                             [n, i_off, s_off, index.numel(), *layout], -(-n // 256))
    if accumulate:
        _narrow_sums(dst)


def put(dst, offsets, src, accumulate):
    """dst's storage elements at offsets = src's, or reduced with them: accumulate True or "sum"
    (+=), "prod", "amax", "amin" (src: dst's dtype, offsets' numel)."""
    if accumulate and kernels.half_stored(dst.dtype):
        return _through_float32(dst, src, lambda wide, wide_src: put(wide, offsets, wide_src, accumulate))
    offsets, o_off = _flat(offsets)
    if src._storage is dst._storage:  # bound read-only and writable at once otherwise
        src = src.clone()
    src, s_off = _flat(src)
    n = offsets.numel()
    dst._storage.runtime.run(kernels.put(dst.dtype, accumulate),
                             [dst._storage.buffer, src._storage.buffer, offsets._storage.buffer],
                             [n, o_off, s_off], -(-n // 256))
    if accumulate:
        _narrow_sums(dst)


def _narrow_sums(dst):
    """After an accumulating put into int8/int16/uint8/bfloat16 (or float16 stored as f32), whose atomic
    adds ran at 32 bits:
    the storage's elements wrapped or rounded to the dtype."""
    if dst.dtype in kernels.NARROW:
        from ..ops_table import ELEMENTWISE
        whole = type(dst)(dst._storage, (dst._storage.numel,))
        elementwise(ELEMENTWISE["copy"], whole, [whole], [dst.dtype])


def _through_float32(dst, src, put_wide):
    """A reducing put into f16-stored float16: WGSL has no f16 atomics, so dst's whole storage goes to f32, takes
    the reductions (put_wide(dst's view of the f32 copy, src in f32)), and comes back rounded to half."""
    from ..ops_table import ELEMENTWISE
    view = type(dst)
    whole = view(dst._storage, (dst._storage.numel,))
    wide = view(empty(dt.float32, whole.numel()), whole.shape)
    src_wide = view(empty(dt.float32, src.numel()), src.shape)
    elementwise(ELEMENTWISE["copy"], wide, [whole], [dt.float32])
    elementwise(ELEMENTWISE["copy"], src_wide, [src], [dt.float32])
    put_wide(view(wide._storage, dst.shape, dst._stride, dst._offset), src_wide)
    elementwise(ELEMENTWISE["copy"], whole, [wide], [dt.float16])


def _packed(x):
    """x contiguous and starting at element 0 of its storage (the row kernels index from 0)."""
    x = x.contiguous()
    return x.clone() if x._offset else x


def scan(op, x):
    """Inclusive scan along the last dim of x; a new storage."""
    x = _packed(x)
    row_len = x.shape[-1] if x.dim() else 1
    n_rows = x.numel() // row_len if row_len else 0
    out = empty(x.dtype, x.numel())
    out.runtime.run(kernels.scan(op, x.dtype), [out.buffer, x._storage.buffer], [n_rows, row_len], n_rows)
    return out


def sort(x, descending):
    """Sorts the last dim of x: new (values, int64 indices) storages."""
    x = _packed(x)
    row_len = x.shape[-1] if x.dim() else 1
    n_rows = x.numel() // row_len if row_len else 0
    padded = 1 << (row_len - 1).bit_length() if row_len > 1 else 1
    values, indices = empty(x.dtype, x.numel()), empty(dt.int64, x.numel())
    rt = values.runtime
    if padded <= kernels.SORT_IN_WORKGROUP:
        rt.run(kernels.sort(x.dtype, descending), [values.buffer, indices.buffer, x._storage.buffer],
               [n_rows, row_len, padded], n_rows)
        return values, indices
    keys, idx = empty(kernels.sort_key_dtype(x.dtype), n_rows * padded), empty(dt.int32, n_rows * padded)
    kernel, buffers = kernels.sort(x.dtype, descending, stages=True), \
        [values.buffer, indices.buffer, x._storage.buffer, keys.buffer, idx.buffer]
    rt.run(kernel, buffers, [n_rows, row_len, padded, 0, 0, 0], grid(-(-n_rows * padded // 256)))
    k = 2
    while k <= padded:  # the bitonic network's steps, one dispatch each
        j = k // 2
        while j:
            rt.run(kernel, buffers, [n_rows, row_len, padded, k, j, 1], grid(-(-n_rows * padded // 512)))
            j //= 2
        k *= 2
    rt.run(kernel, buffers, [n_rows, row_len, padded, 0, 0, 2], grid(-(-n_rows * row_len // 256)))
    return values, indices


def random(kind, n, seed, offset):
    """n Philox numbers for (seed, offset): "uniform" [0, 1) / "normal" float32, "bits" int32."""
    out = empty(dt.int32 if kind == "bits" else dt.float32, n)
    out.runtime.run(kernels.philox(kind), [out.buffer],
                    [n, seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF, offset & 0xFFFFFFFF,
                     (offset >> 32) & 0xFFFFFFFF], -(-n // 256))
    return out


def optimizer_step(kernel, param, grad, states, scalars):
    """One fused optimizer update (kernels.optimizer_step) of contiguous float32 tensors, in place.
    scalars() gives the update's scalars and advances the step count: called now, and again by each
    replay of a compiled training step (whose learning rate a scheduler may have changed)."""
    n = param.numel()
    param._storage.runtime.run_dynamic(kernel, [param._storage.buffer, grad._storage.buffer] +
                                       [s._storage.buffer for s in states],
                                       lambda: [n] + [kernels.scalar_bits(v, dt.float32) for v in scalars()],
                                       -(-n // 256))


def _last_dim_rows(x):
    """For softmax.wgsl / layer_norm.wgsl over x's last dim (row_threads.wgsl): an output storage of
    x's shape and dtype, the params words up to tpr, and the workgroup count."""
    row_len = x.shape[-1]
    n_rows = math.prod(x.shape[:-1])
    tpr = row_threads(n_rows, row_len)
    meta = [n_rows, row_len, x.dim() - 1, 1, x._offset, *x.shape[:-1], *x._stride[:-1], row_len, x._stride[-1], tpr]
    return empty(x.dtype, n_rows * row_len), meta, -(-n_rows // (256 // tpr)) if row_len else 0


def row_threads(n_rows, row_len):
    """The threads per row (tpr) softmax.wgsl / layer_norm.wgsl give n_rows rows of row_len (a GEMV that
    folds a norm in computes it with the same lanes: gemv_norm.wgsl)."""
    tpr = _threads_per_row(row_len)
    if 0 < n_rows * tpr < 256:  # the rows fit in one workgroup: over all of its threads, each loading fewer (a decode
        # step's one-row norm: one workgroup, bound by its threads' loads one after another)
        tpr = min(1 << ((256 // n_rows).bit_length() - 1), 1 << (row_len - 1).bit_length())
    return tpr


def softmax(x, log):
    """softmax (or log_softmax) over x's last dim, float32 or float16 (computed in f32); returns a
    contiguous storage of x's shape and dtype."""
    out, meta, groups = _last_dim_rows(x)
    out.runtime.run(kernels.softmax(log, subgroup_min(out.runtime), x.dtype), [out.buffer, x._storage.buffer], meta,
                    groups)
    return out


def layer_norm(x, weight, bias, eps, rms=False, weight_after_rounding=False, residual=None):
    """layer_norm over x's last dim, float32 or float16 (computed in f32); weight, bias: None or
    contiguous tensors of that length and x's dtype. rms: rms_norm instead (no mean subtracted);
    weight_after_rounding: the weight multiplies the normalised value rounded to x's dtype (two
    roundings, as transformers' RMSNorm), not the f32 one. Returns a contiguous storage of x's shape;
    residual (x's dtype, shape and strides): the norm of x + residual instead, and the storages (norm,
    sum), the sum contiguous too (one kernel for a residual add and the norm after it)."""
    out, meta, groups = _last_dim_rows(x)
    flags = (1 if weight is not None else 0) | (2 if bias is not None else 0) | (4 if rms else 0) | \
        (8 if weight_after_rounding else 0) | (16 if residual is not None else 0)
    meta += [kernels.scalar_bits(eps, dt.float32), flags, weight._offset if weight is not None else 0,
             bias._offset if bias is not None else 0,
             (residual._offset - x._offset) % (1 << 32) if residual is not None else 0]
    src = x._storage.buffer  # stands in for an absent weight, bias or residual (never read)
    total = empty(x.dtype, out.numel) if residual is not None else None
    out.runtime.run(kernels.layer_norm(subgroup_min(out.runtime), x.dtype),
                    [out.buffer, src, weight._storage.buffer if weight is not None else src,
                     bias._storage.buffer if bias is not None else src,
                     total.buffer if total is not None else out.runtime.owned("unused output"),
                     residual._storage.buffer if residual is not None else src], meta, groups)
    return out if residual is None else (out, total)


def moments(x, dims):
    """Per row of float32 x (the index over its other dims, row-major) over dims: its mean, biased variance
    and scale (moments.wgsl). Returns a float32 storage of 3 * rows: the means, then the variances, then
    the scales."""
    kept = _collapse([(x.shape[d], x._stride[d]) for d in range(x.dim()) if d not in dims])
    red = _collapse(sorted(((x.shape[d], x._stride[d]) for d in dims), key=lambda p: -p[1]))
    n_out = math.prod(s for s, _ in kept)
    meta = [n_out, math.prod(s for s, _ in red), len(kept), len(red), x._offset]
    meta += [s for s, _ in kept] + [st for _, st in kept] + [s for s, _ in red] + [st for _, st in red]
    out = empty(dt.float32, 3 * n_out)
    out.runtime.run(kernels.moments(), [out.buffer, x._storage.buffer], meta, n_out)
    return out


def subgroup_min(rt):
    """The adapter's least subgroup size where it offers `subgroups` (reductions, softmax and
    layer_norm then join threads by shuffles: subgroup_shuffle.wgsl), else None."""
    if "subgroups" not in rt.features:
        return None
    size = rt.driver.adapter_info.get("subgroup_min_size") or 0
    return size if size >= 2 and size & (size - 1) == 0 else None


def _threads_per_row(row_len, per_thread=16):
    """Threads per row for softmax.wgsl / layer_norm.wgsl (a row in 16 registers each) and
    reduce_by_rows.wgsl (32 elements to fold each; timed on the H200 with rows of 33 to 1024, 32 ran
    at up to 1.7x the speed of 16 and as fast as 64): the power of two that gives each thread at most
    per_thread elements, at most the 256 of a workgroup."""
    return min(256, 1 << (max(1, -(-row_len // per_thread)) - 1).bit_length())


# Tiles of conv2d.wgsl by output channels per group (tx, tm, ty, tn, bk): columns sized to the
# channels (a 64-wide tile over 8 channels would idle 7/8 of its invocations), rows filling the rest.
# Over 32 channels: 256x64 tiles where there are enough of them to fill a large GPU, else 64x64
# (timed on the H200, 32x64x56x56 -> 64, 3x3: 19.5 TFLOP/s in 256x64 tiles, 13.5 in 64x64,
# 16-17 in 128x64 with bk 8 or 16).
_CONV_TILES = ((8, (128, 2, 2, 4, 8)), (16, (64, 4, 4, 4, 8)), (32, (32, 4, 8, 4, 8)),
               (None, (64, 4, 4, 16, 8)), (None, (16, 4, 16, 4, 8)))


def conv2d(x, weight, bias, stride, pads, dilation, groups, out_size):
    """x (N, C, H, W), weight (O, C/groups, KH, KW): any float32 views; bias: None or (O,); pads:
    (top, left), may be negative (the bottom/right follow from out_size). A contiguous storage of
    (N, O, *out_size)."""
    n, c, h, w = x.shape
    o, cg, kh, kw = weight.shape
    cog = o // groups
    m = n * out_size[0] * out_size[1]
    for limit, (tx, tm, ty, tn, bk) in _CONV_TILES:
        m_tiles, n_tiles = -(-m // (tx * tm)), -(-cog // (ty * tn))
        if limit is not None and cog <= limit or limit is None and m_tiles * n_tiles * groups >= 128:
            break
    k = cg * kh * kw
    # Few output tiles over a long K (the weight gradient: K = N*OH*OW): split K over workgroups
    # for about 256 of them in all, into partial outputs summed after.
    tiles = m_tiles * n_tiles * groups
    splits = max(1, min(256 // tiles, k // 512)) if tiles < 128 else 1
    k_chunk = -(-k // splits // bk) * bk
    splits = -(-k // k_chunk)
    numel = n * o * out_size[0] * out_size[1]
    out = empty(dt.float32, splits * numel)
    meta = [n, c, h, w, o, *out_size, kh, kw, *stride, pads[0] & 0xFFFFFFFF, pads[1] & 0xFFFFFFFF, *dilation,
            groups, x._offset, *x._stride, weight._offset, *weight._stride, int(bias is not None),
            bias._offset if bias is not None else 0, k_chunk, m_tiles, n_tiles]
    flat = m_tiles * n_tiles
    grid = (min(flat, 65535), -(-flat // 65535), groups * splits)
    out.runtime.run(kernels.conv2d(tx, tm, ty, tn, bk), [out.buffer, x._storage.buffer, weight._storage.buffer,
                                                         (bias if bias is not None else weight)._storage.buffer],
                    meta, grid)
    if splits == 1:
        return out
    total, _ = reduce("sum", type(x)(out, (splits, numel)), [0], dt.float32, dt.float32, False)
    return total
