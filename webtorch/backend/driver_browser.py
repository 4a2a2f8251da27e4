"""The browser driver: navigator.gpu through Pyodide's FFI. The only module that imports `js`.

The WebGPU calls live in browser_driver.js; each Python method here is one FFI call into it,
with plain numbers as arguments. Host bytes cross as a PyProxy that JS reads (or, for readback,
fills) through getBuffer: one copy, no intermediate. Kernels cross as one word array per batch.

How a synchronous readback waits is chosen at start-up (sync_mode()): "jspi" (Python suspends on the
readback's promise), else "bridge" in a cross-origin-isolated worker (sab_bridge.js: a GPU worker owns
the device, the same interface proxies it, and a read blocks in Atomics.wait), else "async" (each
synchronous read raises an error naming its awaited form).
"""
import contextlib
import functools
import sys
from importlib import resources

from .. import _dtypes as dt
from .. import errors

# The public calls that read GPU values back synchronously (a frame's co_qualname) -> the awaited form
# that needs no JSPI. A readback without JSPI names the call the user made: the outermost webtorch frame
# on the Python stack, wrappers made inside functions skipped (print(t) reaches .tolist() through
# __repr__: the user wrote print). Ops that read back inside (nonzero, masked_select, unique, bounds
# checks...) have no async twin: the error names the op and the way round.
_ASYNC_FORMS = {
    "Tensor.item": "await t.item_async()",
    "Tensor.tolist": "await t.tolist_async()",
    "Tensor.cpu": "await t.cpu_async()",
    "Tensor.to": "await t.cpu_async()",
    "Tensor.numpy": "await t.numpy_async()",
    "Tensor.__bool__": "bool(await t.item_async())",
    "Tensor.__float__": "float(await t.item_async())",
    "Tensor.__int__": "int(await t.item_async())",
    "Tensor.__index__": "int(await t.item_async())",
    "Tensor.__format__": "format(await t.item_async(), spec)",
    "Tensor.__repr__": "print(await t.cpu_async())",
    "Tensor.__str__": "print(await t.cpu_async())",
    "Tensor.__iter__": "iterate over await t.cpu_async()",
    "Tensor.__reduce_ex__": "pickle await t.cpu_async()",
}


_WHY_NO_JSPI = ("without JSPI (WebAssembly.Suspending: Chrome 137+; not Safari, Firefox before 153) or outside "
                "pyodide.runPythonAsync, and outside a cross-origin-isolated worker (the SharedArrayBuffer bridge)")


def no_jspi_error():
    """The RuntimeError of a synchronous readback where Python cannot suspend on a JS promise: it names
    the call that needed it and the async form to use instead (found on the Python stack: this runs
    only on the error path, so readbacks that work pay nothing for it)."""
    frame, entry = sys._getframe(1), "this call"
    while frame is not None:  # inner to outer: the last named webtorch function is the user's call
        name = frame.f_code.co_qualname
        if frame.f_globals.get("__name__", "").partition(".")[0] == "webtorch" and "<locals>" not in name:
            entry = name  # (a wrapper made in a function, like _with_out's, is not the op's name)
        frame = frame.f_back
    why = "which this browser cannot do " + _WHY_NO_JSPI
    form = _ASYNC_FORMS.get(entry)
    if form is not None:
        return RuntimeError(f"webtorch: {entry.replace('Tensor.', '.')}() needs a synchronous GPU readback, "
                            f"{why}: use `{form}` instead")
    return RuntimeError(f"webtorch: {entry}() reads GPU values back synchronously, {why}. It has no async "
                        f"form: run it on the cpu (`x = await t.cpu_async()`), or in a browser with JSPI")


def _translate(exc):
    """A JS error from browser_driver.js (or its message) as the matching webtorch exception."""
    message = str(exc)
    for kind in ("WebGPUUnavailableError", "DeviceLostError", "OutOfMemoryError", "ValidationError"):
        if kind in message:
            if kind == "DeviceLostError":
                BrowserDriver.losses += 1  # the runtime over a lost driver is replaced at its next use
            text = message.split(kind + ": ", 1)[-1]
            if text.startswith(kind + ": "):  # a rejected promise's JsException: "<name>: <message>"
                text = text[len(kind) + 2:]
            return getattr(errors, kind)(text)
    return errors.WebGPUError(f"WebGPU call failed: {message}")


def _JsException():
    from pyodide.ffi import JsException
    return JsException


def _can_run_sync():
    """Whether Python can suspend here until a JS promise settles (JSPI, entered through runPythonAsync)."""
    global _can_run_sync
    from pyodide.ffi import can_run_sync
    _can_run_sync = can_run_sync  # looked up once
    return can_run_sync()


# Async readbacks up to this size come back as a copy in JS memory (then one assign into Python's);
# larger ones are copied straight into Python's buffer through a PyProxy of it (75-100 us to make).
_SMALL_READ = 64 * 1024


@contextlib.contextmanager
def _proxy(obj):
    """A PyProxy that lives until the block ends (JS fills it after an await)."""
    from pyodide.ffi import create_proxy
    proxy = create_proxy(obj)
    try:
        yield proxy
    finally:
        proxy.destroy()


def is_js_buffer(obj):
    """Whether obj is a JS ArrayBuffer, TypedArray or DataView (a Pyodide JsBuffer proxy)."""
    ffi = sys.modules.get("pyodide.ffi")
    return ffi is not None and isinstance(obj, ffi.JsBuffer)


# TypedArray -> the dtype of its elements (webtorch's dtypes that a TypedArray holds)
_TYPED_ARRAY_DTYPES = {"Float32Array": "float32", "Int32Array": "int32", "Float16Array": "float16",
                       "BigInt64Array": "int64"}


class JsBytes:
    """A byte range of a JS ArrayBuffer/TypedArray/DataView, left in JS memory. The GPU upload reads it
    there (queue.writeBuffer from the JS view: no copy into Python); tobytes() is the one explicit copy
    into Python memory. Slicing gives a sub-range, as a memoryview's does."""
    __slots__ = ("view", "nbytes", "kind", "element_dtype")

    def __init__(self, obj):
        import js
        self.kind = obj.constructor.name
        dtype = _TYPED_ARRAY_DTYPES.get(self.kind)
        self.element_dtype = None if dtype is None else dt.BY_NAME[dtype]
        self.view = js.Uint8Array.new(obj) if self.kind in ("ArrayBuffer", "SharedArrayBuffer") else \
            js.Uint8Array.new(obj.buffer, obj.byteOffset, obj.byteLength)
        self.nbytes = self.view.byteLength

    def __len__(self):
        return self.nbytes

    def __getitem__(self, item):
        start, stop, step = item.indices(self.nbytes)
        if step != 1:
            raise ValueError("JsBytes slices take a step of 1")
        part = JsBytes.__new__(JsBytes)
        part.kind, part.element_dtype = "Uint8Array", None
        part.view = self.view.subarray(start, max(start, stop))
        part.nbytes = part.view.byteLength
        return part

    def tobytes(self):
        return self.view.to_bytes()

    __bytes__ = tobytes  # bytes(data), as the compile recorder takes an upload's bytes


def _fetch_promise(url, cache_name, name, hash_prefix, progress):
    return BrowserDriver._driver_class().fetchCached(url, cache_name, name, hash_prefix or "", bool(progress))


def _fetch_error(url, exc):
    kind = RuntimeError if "invalid hash value" in str(exc) else OSError  # torch.hub's exception types
    return kind(f"downloading {url} failed: {exc}")


def fetch_cached(url, cache_name, name, hash_prefix=None, progress=True):
    """A URL's bytes as a JS ArrayBuffer (left in JS memory): from Cache Storage when there, else fetched,
    streamed, checked against the sha256 prefix and stored. Blocks Python through JSPI."""
    from pyodide.ffi import JsException, can_run_sync, run_sync
    if not can_run_sync():
        raise RuntimeError(f"webtorch: downloading {url} waits for fetch() synchronously, which this browser "
                           f"cannot do {_WHY_NO_JSPI}: use `await webtorch.hub.load_state_dict_from_url_async(...)`")
    try:
        return run_sync(_fetch_promise(url, cache_name, name, hash_prefix, progress))
    except JsException as e:
        raise _fetch_error(url, e) from None


async def fetch_cached_async(url, cache_name, name, hash_prefix=None, progress=True):
    from pyodide.ffi import JsException
    try:
        return await _fetch_promise(url, cache_name, name, hash_prefix, progress)
    except JsException as e:
        raise _fetch_error(url, e) from None


def _js_value(name):
    """The value of one of this package's JS files (run once: its classes)."""
    from pyodide.code import run_js
    return run_js(resources.files("webtorch.backend").joinpath(name).read_text())


@functools.cache
def _bridge():
    return _js_value("sab_bridge.js")


@functools.cache
def sync_mode():
    """How synchronous readbacks wait here: "jspi", "bridge" (a cross-origin-isolated worker without
    JSPI: the SharedArrayBuffer bridge) or "async" (they raise; the awaited forms work)."""
    import js
    if hasattr(js.WebAssembly, "Suspending"):
        return "jspi"
    return "bridge" if _bridge().BridgeClient.available() else "async"


_bridge_client = None  # the GPU worker's proxy (sab_bridge.js BridgeClient), started by prestart()
_bridge_losses = 0     # BrowserDriver.losses when it was started


def prestart():
    """Starts the bridge's GPU worker (where sync_mode() is "bridge"), which creates the device on its
    own: a worker starts only once its parent's event loop turns, so the synchronous first use of the
    device needs it started in an earlier turn (called at import, and again after a device loss)."""
    global _bridge_client, _bridge_losses
    if sync_mode() != "bridge" or (_bridge_client is not None and _bridge_losses == BrowserDriver.losses):
        return _bridge_client
    if _bridge_client is not None:
        _bridge_client.worker.terminate()
    backend = resources.files("webtorch.backend")
    _bridge_client = _bridge().BridgeClient.new(backend.joinpath("browser_driver.js").read_text(),
                                                backend.joinpath("sab_bridge.js").read_text())
    _bridge_losses = BrowserDriver.losses
    return _bridge_client


class BrowserDriver:
    WGSL_ENABLES_SUBGROUPS = True  # WGSL needs `enable subgroups;` for the subgroup builtins
    name = "browser"
    losses = 0  # device losses seen so far (by any driver: only one device is in use at a time)

    def __init__(self, js_driver):
        self._losses_before = BrowserDriver.losses
        self._js = js_driver
        self.limits = js_driver.limits.to_py()
        self.adapter_info = js_driver.info.to_py()
        self.features = sorted(js_driver.features.to_py())
        # Bound JS methods, looked up once: a call is then one FFI crossing.
        self._create_buffer = js_driver.createBuffer
        self._destroy_buffer = js_driver.destroyBuffer
        self._write_buffer = js_driver.writeBuffer
        self._submit = js_driver.submit
        self._begin_read = js_driver.beginRead
        # Uploads and batches go through the driver's hostStaging array, copied into in one call (a
        # memcpy) through a view of its first 4 KB, 8 KB, ... (at most twice the bytes): no PyProxy of
        # Python's buffer per transfer. Readbacks come back through the socket's recv (or `result`).
        self._host_staging = bytearray(js_driver.hostStaging.byteLength)
        self._staging_views = {}  # nbytes -> the JsProxy of hostStaging's first nbytes
        self.wait_route = None  # how synchronous readbacks suspend, chosen at the first one
        self._wait = None
        self._socket = None
        self._bridged = False  # waits through the SharedArrayBuffer bridge (from_bridge)
        self.ffi_calls = 0  # Python -> JS crossings of the runtime's calls (bench/ reports calls per op)

    @staticmethod
    @functools.cache
    def _driver_class():
        return _js_value("browser_driver.js")

    @classmethod
    def from_bridge(cls, client):
        """A driver over the bridge's proxy of the GPU worker's driver: it waits in Atomics.wait."""
        driver = cls(client)
        driver._bridged = True
        driver.wait_route, driver._wait = "bridge", client.wait
        return driver

    @classmethod
    def create_sync(cls):
        from pyodide.ffi import JsException, can_run_sync, run_sync
        if sync_mode() == "bridge":
            try:
                return cls.from_bridge(prestart().waitReady())
            except JsException as e:
                raise _translate(e) from None
        if not can_run_sync():
            raise errors.WebGPUUnavailableError(
                "webtorch: the first use of the device initialises WebGPU synchronously, which this browser "
                f"cannot do {_WHY_NO_JSPI}: run `await webtorch.webgpu.init_async()` first")
        try:
            return cls(run_sync(cls._driver_class().create()))
        except JsException as e:
            raise _translate(e) from None

    @classmethod
    async def create_async(cls):
        from pyodide.ffi import JsException
        try:
            if sync_mode() == "bridge":
                return cls.from_bridge(await prestart().whenReady())
            return cls(await cls._driver_class().create())
        except JsException as e:
            raise _translate(e) from None

    @property
    def lost(self):
        return BrowserDriver.losses != self._losses_before

    @property
    def submit_count(self):
        return self._js.submitCount

    def _can_wait(self):
        """Whether Python can wait here for a GPU answer (JSPI from runPythonAsync, or the bridge)."""
        return self._bridged or _can_run_sync()

    def _call(self, fn, *args):
        self.ffi_calls += 1
        try:
            return fn(*args)
        except _JsException() as e:
            raise _translate(e) from None

    def create_buffer(self, nbytes, checked=False):
        """checked: wait for the device's out-of-memory verdict (OutOfMemoryError), where Python can
        suspend; otherwise a failure surfaces at the next readback."""
        if not (checked and self._can_wait()):
            return self._call(self._create_buffer, nbytes)
        wait = self._wait or self._choose_wait()
        bid = self._call(self._js.createBufferChecked, nbytes)
        wait()
        self._raise_pending_error()
        return bid

    def destroy_buffer(self, bid):
        self._call(self._destroy_buffer, bid)

    def write_buffer(self, bid, offset, data):
        """data: a Python buffer (JS reads it in place) or a JsBytes (JS memory, uploaded from there)."""
        if data.__class__ is JsBytes:
            self._call(self._write_buffer, bid, offset, data.view)
        else:
            nbytes = memoryview(data).nbytes
            self._call(self._write_buffer, bid, offset, self._staged(nbytes, data), nbytes)

    def _staged(self, nbytes, *parts):
        """None once the parts' bytes (nbytes in all) are in the driver's hostStaging, one after the other
        (JS reads them there); or, when they do not fit, one Python buffer of them (JS reads it through
        a PyProxy)."""
        if nbytes > len(self._host_staging):
            return parts[0] if len(parts) == 1 else b"".join(parts)
        staging = memoryview(self._host_staging)
        start = 0
        for part in parts:
            part = memoryview(part).cast("B")
            staging[start:start + part.nbytes] = part
            start += part.nbytes
        size = 1 << max(12, (nbytes - 1).bit_length())  # 4 KB, 8 KB, ...
        view = self._staging_views.get(size)
        if view is None:
            view = self._staging_views[size] = self._js.stagingView(size)
        view.assign(staging[:size])
        return None

    def create_pipeline(self, code, access, meta_window):
        return self._call(self._js.createPipeline, code, access, meta_window)

    def submit(self, arena, meta, commands):
        """A batch of recorded kernels: meta (bytes) written into the arena buffer, then the kernels of
        the runtime's command words (a u32 array) encoded and submitted. One FFI call."""
        self._call(self._submit, *self._batch(arena, meta, commands))

    def submit_timed(self, arena, meta, commands):
        """submit, each kernel timed (webtorch.profiler; the device has "timestamp-query")."""
        self._call(self._js.submitTimed, *self._batch(arena, meta, commands))

    def _batch(self, arena, meta, commands):
        """submit's arguments to the JS driver: data (None: in hostStaging), nbytes, arena, meta bytes."""
        meta_bytes = memoryview(meta).nbytes
        nbytes = meta_bytes + memoryview(commands).nbytes
        return self._staged(nbytes, meta, commands), nbytes, arena, meta_bytes

    def read_timings(self):
        """Begin and end timestamps (ns) per kernel sent by submit_timed since the last call."""
        from pyodide.ffi import JsException, can_run_sync, run_sync
        if self._bridged:
            return self._call(self._js.readTimings).to_py()
        if not can_run_sync():
            raise no_jspi_error()
        try:
            return run_sync(self._js.readTimings()).to_py()
        except JsException as e:
            raise _translate(e) from None

    def read_buffer(self, bid, offset, dest, batch=None):
        """GPU bytes into dest, a writable Python buffer of the size to read: Python suspends until they
        are there (JSPI), on the readback's own promise where it can (see _wait_routes), or blocks in
        Atomics.wait until the bridge's GPU worker copied them into shared memory. batch: the
        runtime's pending kernels (submit's arguments), sent in the same submission as the copy."""
        if not self._can_wait():
            if batch is not None:
                self.submit(*batch)  # the kernels still run: an awaited readback may follow
            raise no_jspi_error()
        wait = self._wait or self._choose_wait()
        out = memoryview(dest).cast("B")
        args = (0, 0, 0)
        if batch is not None:
            data, nbytes, arena, meta_bytes = self._batch(*batch)
            if data is None:
                args = (nbytes, arena, meta_bytes)
            else:  # too large for hostStaging: submitted on its own
                self._call(self._submit, data, nbytes, arena, meta_bytes)
        self._call(self._begin_read, bid, offset, out.nbytes, *args)
        if self.wait_route == "socket":
            try:  # the settled promise's bytes land in out (one copy)
                if self._socket.recv_into(out) == out.nbytes:
                    return
            except OSError:
                pass
            self._raise_pending_error()
            raise errors.WebGPUError("webtorch: a readback returned no data")
        wait()
        self._raise_pending_error()
        self._js.result.assign_to(out)

    def _raise_pending_error(self):
        """The error of the parked promise Python waited on (browser_driver.js keeps it)."""
        error = self._js.pendingError
        if error is not None:
            raise _translate(error)

    # -- how Python suspends on a JS promise -------------------------------------------------------
    # pyodide.ffi.run_sync(future) costs ~200 us (Node 26, Chromium): it wraps the promise in an
    # asyncio Task, and each event-loop callback that schedules is a new suspendable JSPI call. Two
    # routes suspend on the JS promise itself (~2-10 us); both lean on Pyodide 314's internals, so
    # each is probed once (with a settled promise) and the first that works is used:
    #   "socket": recv on a socket whose SOCKFS hook returns the promise (Pyodide's syscall suspension);
    #   "future": the promise's JsProxy passes asyncio.isfuture for one run_sync call, so run_sync
    #             hands the promise itself to JSPI instead of a Task;
    #   "run_sync": run_sync on the Future that calling the JS function gives (always works).
    def _wait_socket(self):
        self._socket.recv_into(self._recv_byte)

    def _wait_future(self):
        from pyodide.ffi import run_sync
        promise = self._js.pending
        promise_type = type(promise)
        promise_type._asyncio_future_blocking = False  # asyncio.isfuture: True
        try:
            run_sync(promise)
        finally:
            del promise_type._asyncio_future_blocking

    def _wait_run_sync(self):
        from pyodide.ffi import run_sync
        run_sync(self._js.pendingPromise())

    def _use_socket(self):
        import socket

        import pyodide_js
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.setblocking(False)  # a Pyodide without the hook then fails at once (ENOTCONN)
            self._js.hookSocket(pyodide_js._module.SOCKFS, sock.fileno())
            self._socket, self._recv_byte = sock, bytearray(1)
            self._js.parkSettled()
            self._wait_socket()
            if self._js.socketWaits == 1:
                return True
        except Exception:  # noqa: BLE001 -- any failure means: not this route
            pass
        sock.close()
        self._socket = None
        return False

    def _use_future(self):
        import asyncio
        try:
            self._js.parkSettled()
            promise_type = type(self._js.pending)
            promise_type._asyncio_future_blocking = False
            try:
                direct = asyncio.isfuture(self._js.pending)
            finally:
                del promise_type._asyncio_future_blocking
            if direct:
                self._wait_future()
            return direct
        except Exception:  # noqa: BLE001
            return False

    def use_wait_route(self, route):
        """Suspends synchronous readbacks through route ("socket", "future" or "run_sync");
        returns whether it works here (then it is used)."""
        if route == "socket" and not (self._socket is not None or self._use_socket()):
            return False
        if route == "future" and not self._use_future():
            return False
        self.wait_route = route
        self._wait = getattr(self, "_wait_" + route)
        return True

    def _choose_wait(self):
        for route in ("socket", "future", "run_sync"):
            if self.use_wait_route(route):
                return self._wait

    async def read_buffer_async(self, bid, offset, dest):
        """read_buffer, awaited. Where Python can suspend synchronously, that is what it does: the
        readback's promise directly, instead of asyncio's scheduling (each step a macrotask)."""
        if self._wait is not None and self._can_wait():
            return self.read_buffer(bid, offset, dest)
        from pyodide.ffi import JsException
        out = memoryview(dest).cast("B")
        try:
            if out.nbytes <= _SMALL_READ:
                (await self._js.readBuffer(bid, offset, out.nbytes, None, False)).assign_to(out)
            else:
                with _proxy(dest) as proxy:
                    await self._js.readBuffer(bid, offset, out.nbytes, proxy, False)
        except JsException as e:
            raise _translate(e) from None
