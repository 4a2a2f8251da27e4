"""The WebGPU runtime: buffer pool, pipeline cache, batched submission, over either driver.

Kernels are recorded, not sent: each one appends a few words to the batch's command list
(pipeline, meta offset, workgroups, buffer ids) and its small parameter block ("meta": shapes,
strides, scalars) to one arena. The batch crosses to the driver in one call, which encodes and
submits it: on readback, on upload into pending work, or when the batch is full. So an eager op
costs no driver call of its own (crossing the Pyodide FFI costs 2-4 us each).
"""
import array
import functools
import os
import sys

from .. import errors

META_WINDOW = 1024  # bytes of meta one kernel may use
META_ARENA = 256 * 1024  # bytes of meta per batch
META_WINDOW_WORDS, META_ARENA_WORDS = META_WINDOW // 4, META_ARENA // 4
# Kernels per submit: the GPU runs a batch while Python records the next. After a readback the GPU
# is idle, so batches start small and double (4, 8, ... 64): the GPU starts after a few kernels
# instead of waiting for Python to record 64 (a loop of 30 matmuls would otherwise run serially).
FIRST_BATCH = 4
MAX_BATCH = 64
WORKGROUPS_PER_DIM = 65535


# A new buffer at least this large is created with its out-of-memory error scope awaited: a failure
# there is likely, and worth the wait (a JSPI suspension in the browser), so that the allocator can
# free its cache and retry. Smaller ones are not checked; their errors surface at the next readback.
CHECKED_ALLOC = 64 << 20


@functools.lru_cache(maxsize=4096)  # every eager op allocates: a C-level lookup instead of the arithmetic
def bucket(nbytes):
    """Size classes of the caching allocator: powers of two up to 4 KiB, then eight classes per doubling
    up to 8 MiB, then whole MiBs (a buffer is bound whole, so a block serves only requests of its own
    class). A buffer has at most 1/8 of it unused: with powers of two up to 1 MiB, Qwen2.5-0.5B's int4
    weights (layers of 0.4 and 2.2 MB) took 1.22x their bytes on the GPU."""
    nbytes = max(nbytes, 16)
    if nbytes <= 4096:
        return 1 << (nbytes - 1).bit_length()
    step = min(1 << ((nbytes - 1).bit_length() - 4), 1 << 20)
    return -(-nbytes // step) * step


def grid(groups):
    """A flat workgroup count laid out as (x, y, z) within the per-dimension limit."""
    if groups <= WORKGROUPS_PER_DIM:
        return groups, 1, 1
    return WORKGROUPS_PER_DIM, -(-groups // WORKGROUPS_PER_DIM), 1


def _mib(nbytes):
    return f"{nbytes / 2**30:.2f} GiB" if nbytes >= 1 << 30 else f"{nbytes / 2**20:.2f} MiB"


class Buffer:
    """value_range: (low, high) of the int values uploaded into it, until a kernel writes it (index
    checks use it instead of reading the GPU); None when unknown."""
    __slots__ = ("id", "nbytes", "value_range")

    def __init__(self, bid, nbytes):
        self.id, self.nbytes, self.value_range = bid, nbytes, None


# Buffers a runtime keeps for its lifetime, outside the pool, which kernels find as they left them (gpu.py's
# fold scratch): OWNED[name]() gives one's initial bytes; Runtime.owned(name) creates it on first use, and a
# recording binds it by name (a replay on another runtime binds that runtime's).
OWNED = {}


class Runtime:
    def __init__(self, driver):
        self.driver = driver
        # WEBTORCH_WEBGPU_MAX_BINDING_SIZE (bytes) lowers the largest buffer a kernel may bind below the
        # adapter's: how a test or a user sees on a desktop GPU what a phone's 128 MiB limit does
        self.limits = dict(driver.limits)
        lowered = os.environ.get("WEBTORCH_WEBGPU_MAX_BINDING_SIZE")
        if lowered:
            self.limits["max_storage_buffer_binding_size"] = min(int(lowered),
                                                                 driver.limits["max_storage_buffer_binding_size"])
        # the device's WebGPU features ("shader-f16": float16 stored as f16), less those hidden by
        # WEBTORCH_WEBGPU_HIDE_FEATURES (comma-separated): how a test or a user sees what webtorch does
        # on adapters without them
        self.features = frozenset(driver.features) - hidden_features()
        # The caching allocator, like PyTorch's: a dropped tensor's buffer stays cached under its size
        # class, with no cap; when the device (or memory_limit) refuses a new buffer, the cache is
        # freed and the allocation retried once, then OutOfMemoryError.
        self._free = {}  # size class -> [Buffer]
        self._owned = {}  # name -> Buffer (OWNED)
        self.allocated_bytes = 0  # held by live tensors
        self.memory_limit = None  # most bytes reserved (allocated + cached); None: as much as the device gives
        # Counters every allocation updates are attributes (an eager op allocates one buffer, and an
        # attribute costs less than a keyed dict entry); the others are under memory_stats' names.
        self.allocations = self.frees = self.allocated_total = self.allocated_peak = 0
        self.counts = dict.fromkeys((
            "reserved_bytes.peak", "reserved_bytes.allocated", "reserved_bytes.freed", "segment.allocated",
            "segment.freed", "num_alloc_retries", "num_ooms"), 0)
        # Hooks on run or alloc (webtorch.compile's recorder, a profiler) installed now: while there
        # are none, ElementwiseLaunch records its kernels through take() and record() directly.
        self.hooks = 0
        self._pipelines = {}
        self._align = max(256, driver.limits.get("min_storage_buffer_offset_alignment", 256)) // 4
        # The batch's meta words: _meta[:_meta_used], each kernel's block starting at a multiple of the
        # alignment (its dynamic offset). Allocated once at full size: a kernel's block is copied in
        # by one slice assignment, and its padding is whatever stale words lie there (never read).
        self._meta = array.array("I", bytes(META_ARENA + META_WINDOW))
        self._meta_used = 0
        self._commands = []  # per kernel: pipeline, meta offset, gx, gy, gz, n ids, ids (an array at flush)
        self._arena = driver.create_buffer(META_ARENA + META_WINDOW)
        self._driver_submit = self._submit = driver.submit  # webtorch.profiler swaps in the driver's submit_timed
        self._pending = 0  # kernels in the batch
        self._batch_limit = FIRST_BATCH
        self._flushed_kernels = 0  # kernels of the batches before

    # -- memory -------------------------------------------------------------------------------
    @property
    def cached_bytes(self):
        """Bytes of the free buffers kept for reuse."""
        return sum(size * len(bufs) for size, bufs in self._free.items())

    @property
    def reserved_bytes(self):
        return self.allocated_bytes + self.cached_bytes

    def alloc(self, nbytes):
        return self.take(bucket(nbytes), nbytes)

    def owned(self, name):
        """The runtime's own buffer `name` (OWNED), made with its initial bytes on first use."""
        buf = self._owned.get(name)
        if buf is None:
            data = OWNED[name]()
            buf = self._owned[name] = Buffer(self.driver.create_buffer(len(data)), len(data))
            self.upload(buf, data)
        return buf

    def owned_name(self, buf):
        """The name of the runtime's own buffer buf, or None."""
        return next((name for name, b in self._owned.items() if b is buf), None)

    def take(self, size, nbytes):
        """alloc of nbytes whose size class (bucket) the caller knows already."""
        free = self._free.get(size)
        if free:
            buf = free.pop()
            buf.value_range = None
        else:
            buf = self._new_buffer(size, nbytes)
        self.allocated_bytes = allocated = self.allocated_bytes + size
        self.allocations += 1
        self.allocated_total += size
        if allocated > self.allocated_peak:
            self.allocated_peak = allocated
        return buf

    def release(self, buf):
        """A dropped tensor's buffer, into the cache (pending kernels may still use it: reusing it
        is in queue order, destroying it waits for empty_cache's flush)."""
        size = buf.nbytes
        self.allocated_bytes -= size
        self.frees += 1
        free = self._free.get(size)
        if free is None:
            free = self._free[size] = []
        free.append(buf)

    def check_size(self, nbytes):
        limit = self.limits["max_storage_buffer_binding_size"]
        if bucket(nbytes) > limit:
            raise errors.OutOfMemoryError(
                f"webtorch: a tensor of {_mib(nbytes)} ({nbytes} bytes) exceeds the largest buffer a WebGPU kernel "
                f"may bind on this device (maxStorageBufferBindingSize: {_mib(limit)}); {_mib(self.allocated_bytes)} "
                f"is allocated by live tensors. webtorch keeps each tensor in one buffer: split it (e.g. an "
                f"embedding's rows into several tensors) or use a smaller dtype.")

    def _new_buffer(self, size, nbytes):
        self.check_size(nbytes)
        counts = self.counts
        for retry in (False, True):
            if retry:
                if not self.cached_bytes:
                    break
                counts["num_alloc_retries"] += 1
                self.empty_cache()
            if self.memory_limit is not None and self.reserved_bytes + size > self.memory_limit:
                continue
            try:
                bid = self.driver.create_buffer(size, checked=size >= CHECKED_ALLOC)
            except errors.OutOfMemoryError:
                continue
            counts["segment.allocated"] += 1
            counts["reserved_bytes.allocated"] += size
            reserved = self.reserved_bytes + size
            if reserved > counts["reserved_bytes.peak"]:
                counts["reserved_bytes.peak"] = reserved
            return Buffer(bid, size)
        counts["num_ooms"] += 1
        limit = "" if self.memory_limit is None else \
            f" (webtorch.webgpu.set_memory_limit: {_mib(self.memory_limit)})"
        raise errors.OutOfMemoryError(
            f"webgpu out of memory. Tried to allocate {_mib(size)}. {_mib(self.allocated_bytes)} is allocated "
            f"by live tensors and {_mib(self.cached_bytes)} is cached{limit}; the cache was freed and the "
            "allocation retried. Free tensors (del, or leave the scope holding them), or use smaller batches.")

    def empty_cache(self):
        """Destroys the cached buffers (after submitting the pending kernels, which may use them)."""
        self.flush()
        for bufs in self._free.values():
            for buf in bufs:
                self.driver.destroy_buffer(buf.id)
                self.counts["segment.freed"] += 1
                self.counts["reserved_bytes.freed"] += buf.nbytes
        self._free.clear()

    def memory_stats(self):
        """PyTorch's torch.cuda.memory_stats() keys, for the counters webtorch keeps."""
        c = self.counts
        stats = {
            "allocated_bytes.all.current": self.allocated_bytes,
            "allocated_bytes.all.peak": self.allocated_peak,
            "allocated_bytes.all.allocated": self.allocated_total,
            "allocated_bytes.all.freed": self.allocated_total - self.allocated_bytes,
            "allocation.all.current": self.allocations - self.frees,
            "allocation.all.allocated": self.allocations,
            "allocation.all.freed": self.frees,
            "reserved_bytes.all.current": self.reserved_bytes,
            "reserved_bytes.all.peak": c["reserved_bytes.peak"],
            "reserved_bytes.all.allocated": c["reserved_bytes.allocated"],
            "reserved_bytes.all.freed": c["reserved_bytes.freed"],
            "segment.all.current": c["segment.allocated"] - c["segment.freed"],
            "segment.all.allocated": c["segment.allocated"],
            "segment.all.freed": c["segment.freed"],
            "num_alloc_retries": c["num_alloc_retries"],
            "num_ooms": c["num_ooms"],
        }
        return dict(sorted(stats.items()))

    def reset_peak_memory_stats(self):
        self.allocated_peak = self.allocated_bytes
        self.counts["reserved_bytes.peak"] = self.reserved_bytes

    # -- transfers ----------------------------------------------------------------------------
    def upload(self, buf, data):
        """Host bytes into a buffer. Queue writes run before pending kernels, so those go first."""
        if self._pending:
            self.flush()
        if len(data):
            self.driver.write_buffer(buf.id, 0, data)

    def download(self, buf, dest, offset=0):
        """A buffer's bytes from offset into dest (a writable host buffer of the size to read); returns dest."""
        if memoryview(dest).nbytes:
            self._read(buf.id, offset, dest)
        else:
            self.flush()
        return dest

    def _read(self, bid, offset, dest):
        """The pending kernels and the readback go to the driver in one call (one submission)."""
        batch = None
        if self._pending:
            if self._submit is self._driver_submit:
                batch = self._batch()
                self._new_batch()
            else:  # a profiler's timed submit
                self.flush()
        self.driver.read_buffer(bid, offset, dest, batch)
        self._batch_limit = FIRST_BATCH

    async def download_async(self, buf, dest, offset=0):
        self.flush()
        if memoryview(dest).nbytes:
            await self.driver.read_buffer_async(buf.id, offset, dest)
            self._batch_limit = FIRST_BATCH
        return dest

    # -- kernels ------------------------------------------------------------------------------
    def pipeline(self, kernel):
        key, source, access = kernel
        pid = self._pipelines.get(key)
        if pid is None:
            if "subgroupShuffleXor(" in source and self.driver.WGSL_ENABLES_SUBGROUPS:  # subgroup_shuffle.wgsl
                source = "enable subgroups;\n" + source
            if "f16>" in source:  # a float16 kernel (array<f16>, array<vec4<f16>>): enable WGSL's f16 first
                source = "enable f16;\n" + source
            pid = self._pipelines[key] = self.driver.create_pipeline(source, access, META_WINDOW)
        return pid

    def run(self, kernel, buffers, meta, groups):
        """Records one kernel; groups is (x, y, z) or a flat workgroup count to lay out in 2-D; meta
        a list of ints or an array.array("I"). buffers[0] is the one a kernel may write into an
        existing tensor (in-place ops, put): its values change."""
        buffers[0].value_range = None
        if groups.__class__ is int:
            groups = grid(groups)
        if not (groups[0] and groups[1] and groups[2]):
            return
        pid = self._pipelines.get(kernel[0])
        if pid is None:
            pid = self.pipeline(kernel)
        if meta.__class__ is not array.array:
            meta = array.array("I", meta)  # before the offset is taken: a word may be a tensor, read back (a flush)
        n = len(meta)
        if n > META_WINDOW_WORDS:
            raise RuntimeError(f"webtorch: tensor rank too large for one kernel ({n} meta words)")
        self.record(pid, *self.placement(groups, len(buffers), n), [b.id for b in buffers], meta)

    def placement(self, groups, n_buffers, n_meta):
        """What record() takes besides a kernel's pipeline, buffers and meta: the command words after
        the meta offset (workgroups x, y, z, the number of bindings, the meta arena), and the words
        its meta takes in the arena (n_meta rounded up to the dynamic offsets' alignment)."""
        return (*groups, n_buffers + 1, self._arena), n_meta + (-n_meta % self._align)

    def record(self, pid, tail, span, ids, meta):
        """Appends a kernel to the batch: its command words (pipeline pid, meta offset, then tail:
        workgroups x, y, z, number of bindings, the meta arena's id; then ids, its buffers' ids) and
        its meta (an array.array("I") of at most META_WINDOW_WORDS, copied in at C speed, taking
        span words: its length rounded up to the offset alignment). The hot path of every op: words
        copied into two arrays, no driver call. run() checks and converts; ElementwiseLaunch.new
        calls this directly while no hook wraps run."""
        offset = self._meta_used
        if self._pending >= self._batch_limit or offset + span > META_ARENA_WORDS:
            self.flush()
            offset = 0
        self._meta[offset:offset + len(meta)] = meta
        self._meta_used = offset + span
        commands = self._commands
        commands.append(pid)
        commands.append(offset * 4)
        commands += tail
        commands += ids
        self._pending += 1

    def run_dynamic(self, kernel, buffers, meta_fn, groups):
        """A kernel whose parameters meta_fn() computes: now, and again at each replay of a compiled
        call that recorded it (an optimizer's step count and learning rate change between steps)."""
        self.run(kernel, buffers, meta_fn(), groups)

    def flush(self):
        if self._pending:
            self._submit(*self._batch())  # (a profiler's submit reads _pending)
            self._new_batch()

    def _batch(self):
        """The pending kernels as the driver's submit takes them: (meta arena, meta bytes, command words)."""
        return self._arena, memoryview(self._meta)[:self._meta_used].cast("B"), array.array("I", self._commands)

    def _new_batch(self):
        self._meta_used = 0
        self._commands = []
        self._flushed_kernels += self._pending
        self._pending = 0
        self._batch_limit = min(2 * self._batch_limit, MAX_BATCH)

    def synchronize(self):
        """Submits pending kernels and waits for the GPU (a 4-byte readback)."""
        self._read(self._arena, 0, bytearray(4))

    @property
    def kernels_dispatched(self):
        return self._flushed_kernels + self._pending

    @property
    def submit_count(self):
        return self.driver.submit_count


_runtime = None


def _make_driver(sync):
    if sys.platform == "emscripten":
        from .driver_browser import BrowserDriver
        return BrowserDriver.create_sync() if sync else BrowserDriver.create_async()
    from .driver_native import NativeDriver
    return NativeDriver()


def sync_mode():
    """How a synchronous readback waits: "native" (wgpu-py on the host); in the browser "jspi", "bridge"
    (the SharedArrayBuffer bridge of a cross-origin-isolated worker) or "async" (it raises: awaited forms)."""
    if sys.platform == "emscripten":
        from .driver_browser import sync_mode
        return sync_mode()
    return "native"


def hidden_features():
    return frozenset(f.strip() for f in os.environ.get("WEBTORCH_WEBGPU_HIDE_FEATURES", "").split(",") if f.strip())


# called with each new runtime before it runs anything (gpu.py: float16's layout follows its features)
on_start = []


def _start(driver):
    global _runtime
    _runtime = Runtime(driver)
    for hook in on_start:
        hook(_runtime)
    return _runtime


def runtime():
    """The process's runtime, created on first use (synchronously: JSPI in the browser) and again
    after its device was lost (tensors of the lost device stay unusable; their storages still
    release into the runtime they came from)."""
    if _runtime is None or _runtime.driver.lost:
        return _start(_make_driver(sync=True))
    return _runtime


async def init_async():
    global _runtime
    if _runtime is None or _runtime.driver.lost:
        driver = _make_driver(sync=False)
        if hasattr(driver, "__await__"):
            driver = await driver
        _start(driver)
    return _runtime


def initialized():
    return _runtime is not None and not _runtime.driver.lost


if sys.platform == "emscripten":  # the bridge's GPU worker starts at import, to run by the device's first use
    from .driver_browser import prestart
    try:
        prestart()
    except Exception:  # noqa: BLE001 -- the device's first use starts it again and reports why it cannot
        pass
