"""The browser driver: navigator.gpu through Pyodide's FFI. The only module that imports `js`.

The WebGPU calls live in browser_driver.js; each Python method here is one FFI call into it,
with plain numbers as arguments. Host bytes cross as a PyProxy that JS reads (or, for readback,
fills) through getBuffer: one copy, no intermediate. Kernels cross as one word array per batch.
"""
import contextlib
from importlib import resources

from .. import errors

_NO_JSPI = ("synchronous GPU work in the browser (.item(), .tolist(), .cpu(), first use of the device) needs "
            "Python entered through pyodide.runPythonAsync in a browser with JSPI (Chrome 137+). "
            "Otherwise use the async forms: await webtorch.webgpu.init_async(), await t.tolist_async(), "
            "await t.item_async(), await t.cpu_async().")


def _translate(exc):
    """A JS error from browser_driver.js as the matching webtorch exception."""
    message = str(exc)
    for kind in ("WebGPUUnavailableError", "DeviceLostError", "OutOfMemoryError", "ValidationError"):
        if kind in message:
            if kind == "DeviceLostError":
                from .webgpu import forget_runtime
                forget_runtime()
            return getattr(errors, kind)(message.split(kind + ": ", 1)[-1])
    return errors.WebGPUError(f"WebGPU call failed: {message}")


def _JsException():
    from pyodide.ffi import JsException
    return JsException


@contextlib.contextmanager
def _proxy(obj):
    """A PyProxy that lives until the block ends (JS fills it after an await)."""
    from pyodide.ffi import create_proxy
    proxy = create_proxy(obj)
    try:
        yield proxy
    finally:
        proxy.destroy()


class BrowserDriver:
    name = "browser"

    def __init__(self, js_driver):
        self._js = js_driver
        self.limits = js_driver.limits.to_py()
        self.adapter_info = js_driver.info.to_py()
        self.features = sorted(js_driver.features.to_py())
        # Bound JS methods, looked up once: a call is then one FFI crossing.
        self._create_buffer = js_driver.createBuffer
        self._destroy_buffer = js_driver.destroyBuffer
        self._write_buffer = js_driver.writeBuffer
        self._submit = js_driver.submit
        self.ffi_calls = 0  # Python -> JS crossings of the runtime's calls (bench/ reports calls per op)

    @staticmethod
    def _driver_class():
        from pyodide.code import run_js
        return run_js(resources.files("webtorch.backend").joinpath("browser_driver.js").read_text())

    @classmethod
    def create_sync(cls):
        from pyodide.ffi import JsException, can_run_sync, run_sync
        if not can_run_sync():
            raise errors.WebGPUUnavailableError("cannot initialise WebGPU synchronously: " + _NO_JSPI)
        try:
            return cls(run_sync(cls._driver_class().create()))
        except JsException as e:
            raise _translate(e) from None

    @classmethod
    async def create_async(cls):
        from pyodide.ffi import JsException
        try:
            return cls(await cls._driver_class().create())
        except JsException as e:
            raise _translate(e) from None

    @property
    def submit_count(self):
        return self._js.submitCount

    def _call(self, fn, *args):
        self.ffi_calls += 1
        try:
            return fn(*args)
        except _JsException() as e:
            raise _translate(e) from None

    def create_buffer(self, nbytes):
        return self._call(self._create_buffer, nbytes)

    def destroy_buffer(self, bid):
        self._call(self._destroy_buffer, bid)

    def write_buffer(self, bid, offset, data):
        self._call(self._write_buffer, bid, offset, data)

    def create_pipeline(self, code, access, meta_window):
        return self._call(self._js.createPipeline, code, access, meta_window)

    def submit(self, commands):
        """A batch of recorded kernels (the runtime's command words): one FFI call."""
        self._call(self._submit, commands)

    def read_buffer(self, bid, offset, dest):
        """GPU bytes into dest, a writable Python buffer of the size to read."""
        from pyodide.ffi import JsException, can_run_sync, run_sync
        if not can_run_sync():
            raise RuntimeError(_NO_JSPI)
        self.ffi_calls += 1
        with _proxy(dest) as proxy:
            try:
                run_sync(self._js.readBuffer(bid, offset, memoryview(dest).nbytes, proxy))
            except JsException as e:
                raise _translate(e) from None

    async def read_buffer_async(self, bid, offset, dest):
        from pyodide.ffi import JsException
        with _proxy(dest) as proxy:
            try:
                await self._js.readBuffer(bid, offset, memoryview(dest).nbytes, proxy)
            except JsException as e:
                raise _translate(e) from None
