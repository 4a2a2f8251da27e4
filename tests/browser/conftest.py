"""Browser test fixtures: webtorch inside Pyodide, in Chromium, on WebGPU.

Fixtures
  py_page    session: Pyodide on the main thread of a served harness page
  py_worker  session: Pyodide in a module worker (web/worker.js)
  py         function, parametrised ["page", "worker"]: one of the two above
  py_no_jspi session, parametrised ["page", "worker"]: the same in a browser without JSPI (the page
             cross-origin isolated, the worker's page not: neither can use the SharedArrayBuffer bridge)

Each exposes
  run(code, timeout=...) -> value of the code's last expression (via
      runPythonAsync, so top-level await and pyodide.ffi.run_sync work),
      converted with toJs; raises PyodideError with the Python traceback,
      the Python stderr and any browser console errors.
  put_file(path, data)   write str/bytes into Pyodide's filesystem
  put_test_module(name)  copy tests/<name> into /tmp/webtorch_tests/ and put
                         that directory on sys.path (for golden/op-case runs)
  mode                   "page" or "worker"

Nothing is downloaded here: the wheel is built from the checkout, Pyodide comes
from node_modules/ and micropip/packaging from .cache/wheels/ (scripts/setup.sh).
"""
from __future__ import annotations

import base64
import functools
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from browser_errors import PyodideError

REPO = Path(__file__).resolve().parents[2]
TEST_DIR_IN_PYODIDE = "/tmp/webtorch_tests"

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--enable-unsafe-webgpu",
    "--disable-background-networking",
    "--disable-component-update",
]


def _load_serve():
    spec = importlib.util.spec_from_file_location("webtorch_serve", REPO / "scripts" / "serve.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _chromium() -> str:
    for cand in (os.environ.get("WEBTORCH_CHROMIUM"), shutil.which("chromium-headless-shell"),
                 "/usr/bin/chromium-headless-shell", shutil.which("chromium")):
        if cand and Path(cand).exists():
            return cand
    pytest.exit("no Chromium found: run scripts/setup.sh (apt-get install chromium-headless-shell) "
                "or set WEBTORCH_CHROMIUM", returncode=3)


# ---- pytest-playwright overrides -----------------------------------------------
@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    args = list(CHROMIUM_ARGS) + os.environ.get("WEBTORCH_CHROMIUM_ARGS", "").split()
    return {**browser_type_launch_args, "executable_path": _chromium(), "args": args}


# ---- wheel + server -------------------------------------------------------------
@pytest.fixture(scope="session")
def webtorch_wheel() -> Path:
    """Build dist/webtorch-*.whl once per session (no network: --no-isolation)."""
    r = subprocess.run(["bash", str(REPO / "scripts" / "build_wheel.sh")], cwd=REPO,
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{r.stdout}\n{r.stderr}", pytrace=False)
    return Path(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def server_url(webtorch_wheel) -> str:
    wheels = REPO / ".cache" / "wheels"
    missing = [n for n in ("micropip", "packaging") if not list(wheels.glob(f"{n}-*.whl"))]
    if missing:
        pytest.fail(f"{missing} wheels missing from {wheels}: run scripts/setup.sh", pytrace=False)
    if not (REPO / "node_modules" / "pyodide" / "pyodide.mjs").exists():
        pytest.fail("node_modules/pyodide missing: run scripts/setup.sh (npm ci)", pytrace=False)
    serve = _load_serve()
    server, url = serve.start_server(0)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def project_version() -> str:
    import tomllib
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


# ---- pages of web/ --------------------------------------------------------------
def open_app_page(browser, server_url, path, timeout_ms, viewport):
    """A page of web/ opened and started: page.errors collects page errors, page.foreign every
    request beyond the server's origin (there must be none); fails unless it reaches the ready state."""
    from urllib.parse import urlsplit
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.errors, page.foreign = [], []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    origin = urlsplit(server_url).netloc
    page.on("request", lambda r: page.foreign.append(r.url)
            if not r.url.startswith(("data:", "blob:")) and urlsplit(r.url).netloc != origin else None)
    page.set_default_timeout(timeout_ms)
    page.goto(f"{server_url}{path}")
    page.wait_for_selector("body[data-state=ready], body[data-state=error], body[data-state=nogpu]")
    state = page.evaluate("document.body.dataset.state")
    assert state == "ready", page.inner_text("#status") + "\n" + page.inner_text("#console")
    return page


def page_adapter(page) -> dict:
    """The page's WebGPU adapter as the page itself finds it: vendor, architecture, shader-f16, and whether it is
    a software one (SwiftShader, llvmpipe: the GPU emulated on the CPU) -- what a demo page must show and size by."""
    return page.evaluate("""async () => {
      const a = await navigator.gpu.requestAdapter(), i = a.info;
      return {vendor: i.vendor, architecture: i.architecture, f16: a.features.has("shader-f16"),
              software: !!i.isFallbackAdapter || /swiftshader|llvmpipe/i.test(`${i.architecture} ${i.device}`)};
    }""")


# ---- Pyodide sessions -----------------------------------------------------------
class PyodideSession:
    def __init__(self, page, mode: str):
        self.page = page
        self.mode = mode
        self.console: list[str] = []  # browser console errors since the last call
        page.on("console", self._on_console)
        page.on("pageerror", lambda exc: self.console.append(f"pageerror: {exc}"))
        page.on("crash", lambda *_: self.console.append("page crashed"))

    def _on_console(self, msg):
        if msg.type in ("error", "warning"):
            loc = msg.location or {}
            self.console.append(f"console.{msg.type}: {msg.text} ({loc.get('url', '')}:{loc.get('lineNumber', '')})")

    def _take(self):
        out = self.page.evaluate("webtorchHarness.takeOutput()")
        console, self.console = self.console, []
        return out, console

    def _report(self, error: str, out, console) -> str:
        parts = [f"[{self.mode}] {error.rstrip()}"]
        stderr = [o["line"] for o in out if o["stream"] != "stdout"]
        stdout = [o["line"] for o in out if o["stream"] == "stdout"]
        if stderr:
            parts.append("--- Python stderr / worker errors ---\n" + "\n".join(stderr[-50:]))
        if stdout:
            parts.append("--- Python stdout (last 30 lines) ---\n" + "\n".join(stdout[-30:]))
        if console:
            parts.append("--- browser console errors/warnings ---\n" + "\n".join(console[-50:]))
        return "\n".join(parts)

    def _call(self, kind: str, payload: dict, timeout: float):
        self.page.set_default_timeout(timeout * 1000 + 5000)
        r = self.page.evaluate(
            "([mode, kind, payload, ms]) => webtorchHarness.call(mode, kind, payload, ms)",
            [self.mode, kind, payload, int(timeout * 1000)],
        )
        out, console = self._take()
        self.last_output = out
        if not r["ok"]:
            raise PyodideError(self._report(r["error"], out, console))
        return r.get("result")

    def run(self, code: str, timeout: float = 300.0):
        """Run code with runPythonAsync; return its last expression's value."""
        return self._call("run", {"code": code}, timeout)

    def put_file(self, path: str, data: str | bytes) -> None:
        """Write a file into Pyodide's filesystem (parent dirs are created)."""
        if isinstance(data, (bytes, bytearray, memoryview)):
            data = {"b64": base64.b64encode(bytes(data)).decode()}
        self._call("put_file", {"path": path, "data": data}, 120.0)

    def put_test_module(self, name: str, dest: str = TEST_DIR_IN_PYODIDE) -> str:
        """Copy tests/<name> (e.g. 'op_cases.py') into Pyodide at dest/ and
        make dest importable. Returns the path in Pyodide."""
        path = f"{dest}/{Path(name).name}"
        self.put_file(path, (REPO / "tests" / name).read_bytes())
        self.run(f"import sys, importlib\n"
                 f"sys.path.insert(0, {dest!r}) if {dest!r} not in sys.path else None\n"
                 f"importlib.invalidate_caches()")
        return path

    def stdout(self) -> str:
        """stdout printed during the last call."""
        return "\n".join(o["line"] for o in getattr(self, "last_output", []) if o["stream"] == "stdout")


# A browser without JSPI (Safari; Firefox before 153), as Pyodide sees one: no WebAssembly.Suspending.
# Chromium 156 ships JSPI with no switch left to turn it off (--js-flags=--no-experimental-wasm-jspi and
# --disable-features / --disable-blink-features=WebAssemblyJSPromiseIntegration leave it there), so the
# no-JSPI sessions delete it before Pyodide loads: on the page by an init script, in the worker by
# serving web/worker.js with the same line in front.
HIDE_JSPI = "delete WebAssembly.Suspending; delete WebAssembly.promising;\n"


def _hide_jspi(context):
    context.add_init_script(HIDE_JSPI)

    def worker_script(route):
        response = route.fetch()
        route.fulfill(response=response, body=HIDE_JSPI + response.text())
    context.route("**/web/worker.js", worker_script)


def _not_isolated(context):
    """The harness page served without COOP/COEP: neither it nor its worker is cross-origin isolated
    (no SharedArrayBuffer), as on a server that does not send them."""
    def page(route):
        response = route.fetch()
        headers = {k: v for k, v in response.headers.items() if not k.lower().startswith("cross-origin-")}
        route.fulfill(response=response, headers=headers)
    context.route("**/tests/browser/harness.html", page)


def _open_session(browser, server_url: str, mode: str, jspi: bool = True, isolated: bool = True) -> PyodideSession:
    context = browser.new_context()
    if not jspi:
        _hide_jspi(context)
    if not isolated:
        _not_isolated(context)
    page = context.new_page()
    session = PyodideSession(page, mode)
    page.goto(f"{server_url}/tests/browser/harness.html")
    page.wait_for_function("window.harnessLoaded === true")
    init = "initPage" if mode == "page" else "initWorker"
    error = None
    try:
        page.evaluate(f"{init}()")
    except Exception as e:  # noqa: BLE001 - report JS + console context
        error = str(e)
    if error is not None:
        try:
            out = page.evaluate("webtorchHarness.takeOutput()")
        except Exception:  # noqa: BLE001
            out = []
        pytest.fail(session._report(f"Pyodide {mode} init failed: {error}", out, session.console), pytrace=False)
    session._take()
    return session


@pytest.fixture(scope="session")
def py_page(browser, server_url) -> PyodideSession:
    s = _open_session(browser, server_url, "page")
    yield s
    s.page.context.close()


@pytest.fixture(scope="session")
def py_worker(browser, server_url) -> PyodideSession:
    s = _open_session(browser, server_url, "worker")
    yield s
    s.page.context.close()


@pytest.fixture(scope="session", params=["page", "worker"])
def py_no_jspi(request, browser, server_url) -> PyodideSession:
    """Pyodide on the page and in the worker of a browser without JSPI (see HIDE_JSPI), where
    synchronous reads cannot wait: the page's main thread (cross-origin isolated, but Atomics.wait is
    refused there), a worker of a page that is not isolated."""
    s = _open_session(browser, server_url, request.param, jspi=False, isolated=request.param == "page")
    yield s
    s.page.context.close()


@pytest.fixture(params=["page", "worker"])
def py(request) -> PyodideSession:
    """Parametrised: the test runs once on the main thread and once in the worker."""
    return request.getfixturevalue(f"py_{request.param}")


def pytest_configure(config):
    config.addinivalue_line("markers", "webgpu: needs navigator.gpu and a WebGPU adapter in Chromium")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    """Run browser tests after all host tests. Playwright's sync API keeps an
    asyncio loop marked as running in the main thread from the first browser
    test to the end of the session, so a host test that calls asyncio.run()
    after it would fail with 'cannot be called from a running event loop'."""
    here = Path(__file__).resolve().parent

    @functools.cache  # per file: resolving each of the suite's 21k items took every xdist worker 9-17 s
    def in_browser_dir(path: str) -> bool:
        return here in Path(path).resolve().parents

    items.sort(key=lambda item: in_browser_dir(str(item.path)))  # stable: host tests keep their order, then browser
