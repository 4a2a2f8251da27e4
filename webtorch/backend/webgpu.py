"""The WebGPU runtime: buffer pool, pipeline cache, batched submission, over either driver.

Kernels are recorded, not sent: each one appends a few words to the batch's command list
(pipeline, meta offset, workgroups, buffer ids) and its small parameter block ("meta": shapes,
strides, scalars) to one arena. The batch crosses to the driver in one call, which encodes and
submits it: on readback, on upload into pending work, or when the batch is full. So an eager op
costs no driver call of its own (crossing the Pyodide FFI costs 2-4 us each).
"""
import array
import sys

from .. import errors

META_WINDOW = 1024  # bytes of meta one kernel may use
META_ARENA = 256 * 1024  # bytes of meta per batch
# Kernels per submit: the GPU runs a batch while Python records the next. After a readback the GPU
# is idle, so batches start small and double (4, 8, ... 64): the GPU starts after a few kernels
# instead of waiting for Python to record 64 (a loop of 30 matmuls would otherwise run serially).
FIRST_BATCH = 4
MAX_BATCH = 64
WORKGROUPS_PER_DIM = 65535


def _bucket(nbytes):
    """Pool size classes: powers of two up to 1 MiB, then multiples of 1 MiB."""
    nbytes = max(nbytes, 16)
    if nbytes <= 1 << 20:
        return 1 << (nbytes - 1).bit_length()
    return -(-nbytes // (1 << 20)) << 20


class Buffer:
    __slots__ = ("id", "nbytes")

    def __init__(self, bid, nbytes):
        self.id, self.nbytes = bid, nbytes


class Runtime:
    def __init__(self, driver):
        self.driver = driver
        self.limits = driver.limits
        self.features = frozenset(driver.features)  # the device's WebGPU features ("shader-f16": float16)
        self._free = {}  # size class -> [Buffer]
        self.allocated_bytes = 0  # held by live tensors
        self.pooled_bytes = 0  # free in the pool
        self.max_pool_bytes = 512 << 20
        self._pipelines = {}
        self._align = max(256, driver.limits.get("min_storage_buffer_offset_alignment", 256)) // 4
        self._meta = array.array("I")
        self._commands = array.array("I")  # per kernel: pipeline, meta offset, gx, gy, gz, n ids, ids
        self._pad = [bytes(4 * i) for i in range(self._align)]
        self._arena = driver.create_buffer(META_ARENA + META_WINDOW)
        self._pending = 0
        self._batch_limit = FIRST_BATCH
        self._doomed = []  # buffer ids to destroy once the pending kernels are submitted
        self.kernels_dispatched = 0

    # -- memory -------------------------------------------------------------------------------
    def alloc(self, nbytes):
        size = _bucket(nbytes)
        if size > self.limits["max_storage_buffer_binding_size"]:
            raise errors.OutOfMemoryError(
                f"webtorch: a {nbytes}-byte tensor exceeds this GPU's largest buffer "
                f"({self.limits['max_storage_buffer_binding_size']} bytes)")
        free = self._free.get(size)
        if free:
            buf = free.pop()
            self.pooled_bytes -= size
        else:
            buf = Buffer(self.driver.create_buffer(size), size)
        self.allocated_bytes += size
        return buf

    def release(self, buf):
        self.allocated_bytes -= buf.nbytes
        if self.pooled_bytes + buf.nbytes > self.max_pool_bytes:
            # Pending kernels may still use it: destroying before their submit is an error.
            self._doomed.append(buf.id)
            return
        self._free.setdefault(buf.nbytes, []).append(buf)
        self.pooled_bytes += buf.nbytes

    def empty_cache(self):
        self.flush()
        for bid in self._doomed:
            self.driver.destroy_buffer(bid)
        self._doomed.clear()
        for bufs in self._free.values():
            for buf in bufs:
                self.driver.destroy_buffer(buf.id)
        self._free.clear()
        self.pooled_bytes = 0

    # -- transfers ----------------------------------------------------------------------------
    def upload(self, buf, data):
        """Host bytes into a buffer. Queue writes run before pending kernels, so those go first."""
        if self._pending:
            self.flush()
        if len(data):
            self.driver.write_buffer(buf.id, 0, data)

    def download(self, buf, dest, offset=0):
        """A buffer's bytes from offset into dest (a writable host buffer of the size to read); returns dest."""
        self.flush()
        if memoryview(dest).nbytes:
            self.driver.read_buffer(buf.id, offset, dest)
            self._batch_limit = FIRST_BATCH
        return dest

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
            if "array<f16" in source:  # a float16 kernel (f16 only ever in memory): enable WGSL's f16 first
                source = "enable f16;\n" + source
            pid = self._pipelines[key] = self.driver.create_pipeline(source, access, META_WINDOW)
        return pid

    def run(self, kernel, buffers, meta, groups):
        """Records one kernel; groups is (x, y, z) or a flat workgroup count to lay out in 2-D.
        The hot path of every op: words appended to two arrays, no driver call."""
        if groups.__class__ is int:
            if groups <= WORKGROUPS_PER_DIM:
                gx, gy, gz = groups, 1, 1
            else:
                gx, gy, gz = WORKGROUPS_PER_DIM, -(-groups // WORKGROUPS_PER_DIM), 1
        else:
            gx, gy, gz = groups
        if not (gx and gy and gz):
            return
        pid = self._pipelines.get(kernel[0])
        if pid is None:
            pid = self.pipeline(kernel)
        n = len(meta)
        if n > META_WINDOW // 4:
            raise RuntimeError(f"webtorch: tensor rank too large for one kernel ({n} meta words)")
        words = self._meta
        offset = len(words)  # always a multiple of the alignment
        if (offset + n) * 4 > META_ARENA or self._pending >= self._batch_limit:
            self.flush()
            words, offset = self._meta, 0
        words.extend(meta)
        pad = -n % self._align
        if pad:
            words.frombytes(self._pad[pad])
        self._commands.extend((pid, offset * 4, gx, gy, gz, len(buffers) + 1, self._arena, *[b.id for b in buffers]))
        self._pending += 1
        self.kernels_dispatched += 1

    def flush(self):
        if not self._pending:
            return
        self.driver.write_buffer(self._arena, 0, memoryview(self._meta).cast("B"))
        self.driver.submit(memoryview(self._commands))
        self._meta = array.array("I")
        self._commands = array.array("I")
        self._pending = 0
        self._batch_limit = min(2 * self._batch_limit, MAX_BATCH)
        for bid in self._doomed:
            self.driver.destroy_buffer(bid)
        self._doomed.clear()

    def synchronize(self):
        """Submits pending kernels and waits for the GPU (a 4-byte readback)."""
        self.flush()
        self.driver.read_buffer(self._arena, 0, bytearray(4))
        self._batch_limit = FIRST_BATCH

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


def runtime():
    """The process's runtime, created on first use (synchronously: JSPI in the browser)."""
    global _runtime
    if _runtime is None:
        _runtime = Runtime(_make_driver(sync=True))
    return _runtime


async def init_async():
    global _runtime
    if _runtime is None:
        driver = _make_driver(sync=False)
        if hasattr(driver, "__await__"):
            driver = await driver
        _runtime = Runtime(driver)
    return _runtime


def forget_runtime():
    """After a device loss: the next use of the device initialises a new one. Tensors of the lost
    device stay unusable; their storages still release into the runtime they came from."""
    global _runtime
    _runtime = None


def initialized():
    return _runtime is not None
