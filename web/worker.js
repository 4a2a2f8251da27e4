// webtorch Pyodide module worker: Pyodide + webtorch off the main thread, behind a small RPC.
// Pages normally use it through web/webtorch-client.js (promises, progress, cancel).
//
// Start it as a MODULE worker (Pyodide 314 cannot run in classic workers):
//   const w = new Worker("/web/worker.js", {type: "module"});
//   w.postMessage({type: "init", indexUrls: ["http://127.0.0.1:PORT/simple/"],
//                  wheels: [".../packaging-X.whl", ".../micropip-Y.whl"]});
//
// Messages in:
//   {type: "init", pyodideIndexURL?, indexUrls?, wheels?, packages?, gpu?, warmup?, asTorch?}
//       pyodideIndexURL: where pyodide.mjs & co live (default: <origin>/pyodide/)
//       wheels:   wheel URLs loaded with pyodide.loadPackage(url) before micropip
//                 is imported (default: none; then micropip comes from the lock)
//       indexUrls: package indexes for micropip (default: PyPI per micropip)
//       packages: names or wheel URLs to micropip.install (default ["webtorch"]; [] = none)
//       gpu:      true: `await webtorch.webgpu.init_async()` during init and report the
//                 adapter (default false; the first GPU op initialises it otherwise)
//       warmup:   true: compile the common kernels during init (implies gpu)
//       asTorch:  true: webtorch.install_as_torch() after the installs (`import torch` is webtorch)
//   {id, type: "run", code}        run code with runPythonAsync (JSPI: sync readback works; without
//                                  JSPI it works too when cross-origin isolated: webtorch's
//                                  SharedArrayBuffer bridge, docs/no_jspi.md); runs are queued, one at a time
//   {id, type: "put_file", path, data}  write a file (string or Uint8Array)
//   {type: "cancel"}               ask the running code to stop at its next cancellation point
//                                  (webtorch_web.emit / check_cancelled raise KeyboardInterrupt);
//                                  while Python is busy, write 1 into the shared cancelBuffer instead
//   {type: "interrupt"}            raise KeyboardInterrupt in the running code. Works while
//                                  Python is busy only through the shared interrupt buffer
//                                  (sent with "ready"; needs cross-origin isolation, i.e.
//                                  COOP/COEP headers, which scripts/serve.py sends): write 2
//                                  into it. Without isolation, terminate the worker instead.
// Messages out:
//   {type: "progress", status, name, label, loaded, total}   while initialising, in order:
//       name "pyodide" (loading Pyodide), "packages" (loading wheels, micropip installs),
//       "gpu" (webtorch.webgpu.init_async), "kernels" (compiling kernels); status
//       "initiate" -> "progress"* -> "done" per stage, then {status: "ready"}
//       (shaped like transformers.js progress callbacks: status, name, loaded, total)
//       and during runs, per file that webtorch.hub downloads: name = the file name, status
//       "initiate" -> "progress"* -> "done" (or one "done" with cached: true from Cache Storage)
//   {type: "ready", version, interruptBuffer, cancelBuffer, crossOriginIsolated, adapter, gpuError}
//   {type: "init_error", error}
//   {id, ok: true, result}  |  {id, ok: false, error, errorType}  (error: Python traceback)
//   {type: "stdout" | "stderr", line, id}   id: the run that printed it (null outside runs)
//   {type: "event", kind, data, id}  from Python: `from webtorch_web import emit; emit(kind, str)`
//   {type: "console_error", error}   (uncaught JS errors in the worker)
// Caveat (Pyodide 314): an interrupt can land in Pyodide's own callback that resumes an awaited
// JS promise (e.g. a GPU readback); it is then printed as "Unexpected error" and the run never
// resumes. So webtorch-client.js cancels in three steps: the cooperative flag, the interrupt,
// then terminating and restarting the worker.

import {errorText, toPlain} from "./pyodide-values.js";

// webtorch.hub's downloads report here (browser_driver.js fetchCached): progress events named by the file
self.webtorchProgress = (p) => progress(p.status, p.name, `Downloading ${p.name}`, p.loaded, p.total,
                                        {cached: !!p.cached});

let pyodide = null;
let ready = null; // Promise resolving when init is done
let queue = Promise.resolve(); // runs one at a time
let currentId = null; // id of the request being served
let interruptBuffer = null; // Int32Array over a SharedArrayBuffer, when cross-origin isolated
let cancelFlag = null; // Int32Array: nonzero = the page asked the current run to stop (cooperative)

function post(msg) {
  self.postMessage(msg);
}

function progress(status, name, label, loaded, total, extra = {}) {
  post({type: "progress", status, name, label, loaded, total,
        progress: total ? (100 * loaded) / total : 0, ...extra});
}

// `import webtorch_web` in the worker: events to the page, and cooperative cancellation.
const WEBTORCH_WEB_PY = `"""Helpers for code that runs in webtorch's worker (web/worker.js)."""
from _webtorch_web_js import emit as _emit, cancel_requested


def check_cancelled():
    """Raise KeyboardInterrupt if the page asked to stop this run (client.cancel())."""
    if cancel_requested():
        raise KeyboardInterrupt("cancelled by the page")


def emit(kind, data=None):
    """Send {type: "event", kind, data} to the page (data: a str, e.g. JSON). Also a
    cancellation point: raises KeyboardInterrupt once the page has asked to stop."""
    _emit(kind, data)
    check_cancelled()
`;

// Kernels compiled by `warmup`: the ops a first program (and the demo's training) meets.
const WARMUP = `
import webtorch as _t
_x = _t.ones(8, 8, device="webgpu")
_WARMUP = [
    lambda: _x + _x, lambda: _x * 2.0, lambda: _x - 1.0, lambda: _x / 3.0, lambda: _x @ _x,
    lambda: _t.relu(_x), lambda: _t.exp(_x), lambda: _t.sqrt(_x), lambda: _x.sum(),
    lambda: _x.sum(dim=1), lambda: _x.mean(), lambda: _t.log_softmax(_x, dim=1),
    lambda: _x.argmax(dim=1), lambda: _x == _x, lambda: _x.t().contiguous(),
]
`;

async function init(msg) {
  const here = new URL(".", self.location.href);
  const indexURL = msg.pyodideIndexURL || new URL("/pyodide/", self.location.origin).href;

  progress("initiate", "pyodide", "Loading Pyodide", 0, 1);
  const {loadPyodide} = await import(new URL("pyodide.mjs", indexURL).href);
  pyodide = await loadPyodide({
    indexURL,
    stdout: (line) => post({type: "stdout", line, id: currentId}),
    stderr: (line) => post({type: "stderr", line, id: currentId}),
  });
  if (self.crossOriginIsolated && typeof SharedArrayBuffer !== "undefined") {
    interruptBuffer = new Int32Array(new SharedArrayBuffer(4));
    pyodide.setInterruptBuffer(interruptBuffer);
    cancelFlag = new Int32Array(new SharedArrayBuffer(4));
  } else {
    cancelFlag = new Int32Array(1); // set by a {type: "cancel"} message (lands only during awaits)
  }
  pyodide.registerJsModule("_webtorch_web_js", {
    emit: (kind, data) => post({type: "event", kind: String(kind), data: data == null ? null : String(data), id: currentId}),
    cancel_requested: () => Atomics.load(cancelFlag, 0) !== 0,
  });
  const purelib = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  pyodide.FS.writeFile(`${purelib}/webtorch_web.py`, WEBTORCH_WEB_PY);
  progress("done", "pyodide", "Loading Pyodide", 1, 1, {version: pyodide.version});

  const wheels = msg.wheels || [];
  const packages = msg.packages || ["webtorch"];
  const total = (wheels.length || 1) + packages.length;
  let loaded = 0;
  progress("initiate", "packages", "Installing packages", loaded, total);
  // Load in the given order (packaging before micropip).
  for (const url of wheels) {
    const file = new URL(url, here).href;
    // Its "Loading x / Loaded x" messages would go to stdout: the progress events say it.
    await pyodide.loadPackage(file, {messageCallback: () => {}});
    progress("progress", "packages", "Installing packages", ++loaded, total, {file: file.split("/").pop()});
  }
  if (!wheels.length) {
    await pyodide.loadPackage("micropip", {messageCallback: () => {}});
    progress("progress", "packages", "Installing packages", ++loaded, total, {file: "micropip"});
  }
  if (packages.length) {
    const micropip = pyodide.pyimport("micropip");
    const kwargs = msg.indexUrls ? {index_urls: msg.indexUrls} : {};
    try {
      for (const p of packages) {
        await micropip.install.callKwargs([p], kwargs);
        progress("progress", "packages", "Installing packages", ++loaded, total, {file: p});
      }
    } finally {
      micropip.destroy();
    }
  }
  progress("done", "packages", "Installing packages", total, total);
  if (msg.asTorch) {
    await pyodide.runPythonAsync("import webtorch\nwebtorch.install_as_torch()");
  }

  let adapter = null;
  let gpuError = null;
  if (msg.gpu || msg.warmup) {
    progress("initiate", "gpu", "Initialising the GPU", 0, 1);
    try {
      const info = await pyodide.runPythonAsync(
        "import json, webtorch\nawait webtorch.webgpu.init_async()\njson.dumps(webtorch.webgpu.adapter_info())");
      adapter = JSON.parse(info);
      progress("done", "gpu", "Initialising the GPU", 1, 1, {adapter});
    } catch (e) {
      gpuError = errorText(e);
      progress("done", "gpu", "Initialising the GPU", 0, 1, {error: gpuError});
    }
  }
  if (msg.warmup && !gpuError) {
    await pyodide.runPythonAsync(WARMUP);
    const n = pyodide.runPython("len(_WARMUP)");
    progress("initiate", "kernels", "Compiling kernels", 0, n);
    for (let i = 0; i < n; i++) {
      // Read each result back: the driver compiles a pipeline when it first runs, so this
      // progress follows the real compile work (and a compile error surfaces here).
      await pyodide.runPythonAsync(`await _WARMUP[${i}]().cpu_async()`);
      progress("progress", "kernels", "Compiling kernels", i + 1, n);
    }
    const pipelines = pyodide.runPython("_p = _t.webgpu.stats()['pipelines']\ndel _t, _x, _WARMUP\n_p");
    progress("done", "kernels", "Compiling kernels", n, n, {pipelines});
  }
  progress("ready", "webtorch", "Ready", 1, 1);
  return {version: pyodide.version, adapter, gpuError};
}

async function run(code) {
  // An interrupt or cancel that came between runs is stale.
  if (interruptBuffer) interruptBuffer[0] = 0;
  Atomics.store(cancelFlag, 0, 0);
  return toPlain(await pyodide.runPythonAsync(code));
}

function putFile(path, data) {
  const dir = path.substring(0, path.lastIndexOf("/"));
  if (dir) pyodide.FS.mkdirTree(dir);
  pyodide.FS.writeFile(path, data);
}

self.addEventListener("error", (ev) => {
  // asyncio re-raises KeyboardInterrupt out of the event loop after the run's task has failed
  // with it, i.e. after the run's reply already carried it: drop that duplicate.
  if (/KeyboardInterrupt/.test(String(ev.message))) {
    ev.preventDefault();
    return;
  }
  post({type: "console_error", error: String(ev.message || ev)});
});
self.addEventListener("unhandledrejection", (ev) => {
  if (/KeyboardInterrupt/.test(errorText(ev.reason))) { // the same duplicate, as a rejection
    ev.preventDefault();
    return;
  }
  post({type: "console_error", error: errorText(ev.reason)});
});

async function serve(msg) {
  const {id} = msg;
  currentId = id ?? null;
  try {
    if (!ready) throw new Error("worker not initialised: send {type: 'init'} first");
    await ready;
    let result;
    if (msg.type === "run") result = await run(msg.code);
    else if (msg.type === "put_file") result = putFile(msg.path, msg.data);
    else throw new Error(`unknown message type ${JSON.stringify(msg.type)}`);
    try {
      post({id, ok: true, result});
    } catch (e) {
      // Not structured-clonable (e.g. a JS object proxy): send its repr.
      post({id, ok: true, result: String(result)});
    }
  } catch (e) {
    post({id, ok: false, error: errorText(e), errorType: e && e.type ? e.type : (e && e.name) || "Error"});
  } finally {
    currentId = null;
  }
}

self.onmessage = async (ev) => {
  const msg = ev.data || {};
  if (msg.type === "init") {
    if (!ready) ready = init(msg);
    try {
      const r = await ready;
      post({type: "ready", version: r.version, adapter: r.adapter, gpuError: r.gpuError,
            interruptBuffer: interruptBuffer ? interruptBuffer.buffer : null,
            cancelBuffer: interruptBuffer ? cancelFlag.buffer : null,
            crossOriginIsolated: !!self.crossOriginIsolated});
    } catch (e) {
      post({type: "init_error", error: errorText(e)});
    }
    return;
  }
  if (msg.type === "interrupt") {
    // Only reached while Python waits on a promise (or between runs); see the header.
    if (interruptBuffer) interruptBuffer[0] = 2;
    return;
  }
  if (msg.type === "cancel") {
    if (cancelFlag) Atomics.store(cancelFlag, 0, 1);
    return;
  }
  const job = queue.then(() => serve(msg));
  queue = job.catch(() => {});
  await job;
};
