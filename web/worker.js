// webtorch Pyodide module worker.
//
// Start it as a MODULE worker (Pyodide 314 cannot run in classic workers):
//   const w = new Worker("/web/worker.js", {type: "module"});
//   w.postMessage({type: "init", indexUrls: ["http://127.0.0.1:PORT/simple/"],
//                  wheels: [".../packaging-X.whl", ".../micropip-Y.whl"]});
//
// Messages in:
//   {type: "init", pyodideIndexURL?, indexUrls?, wheels?, packages?}
//       pyodideIndexURL: where pyodide.mjs & co live (default: <origin>/pyodide/)
//       wheels:   wheel URLs loaded with pyodide.loadPackage(url) before micropip
//                 is imported (default: none; then micropip comes from the lock)
//       indexUrls: package indexes for micropip (default: PyPI per micropip)
//       packages: names to micropip.install (default ["webtorch"]; [] = none)
//   {id, type: "run", code}        run code with runPythonAsync (JSPI allowed)
//   {id, type: "put_file", path, data}  write a file (string or Uint8Array)
// Messages out:
//   {type: "ready", version}  |  {type: "init_error", error}
//   {id, ok: true, result}    |  {id, ok: false, error}   (error: Python traceback)
//   {type: "stdout" | "stderr", line}
//   {type: "console_error", error}   (uncaught JS errors in the worker)

let pyodide = null;
let ready = null; // Promise resolving when init is done

function post(msg) {
  self.postMessage(msg);
}

function errorText(e) {
  if (e == null) return String(e);
  // PythonError.message is the formatted Python traceback.
  return e.message ? (e.type ? e.message : `${e.name || "Error"}: ${e.message}\n${e.stack || ""}`) : String(e);
}

// Convert a runPythonAsync result into something structured-clonable.
function toPlain(value) {
  if (value && typeof value === "object" && typeof value.toJs === "function") {
    try {
      return value.toJs({dict_converter: Object.fromEntries, create_pyproxies: false});
    } finally {
      value.destroy();
    }
  }
  return value;
}

async function init(msg) {
  const here = new URL(".", self.location.href);
  const indexURL = msg.pyodideIndexURL || new URL("/pyodide/", self.location.origin).href;
  const {loadPyodide} = await import(new URL("pyodide.mjs", indexURL).href);
  pyodide = await loadPyodide({
    indexURL,
    stdout: (line) => post({type: "stdout", line}),
    stderr: (line) => post({type: "stderr", line}),
  });
  const wheels = msg.wheels || [];
  // Load in the given order (packaging before micropip).
  for (const url of wheels) await pyodide.loadPackage(new URL(url, here).href);
  if (!wheels.length) await pyodide.loadPackage("micropip");
  const packages = msg.packages || ["webtorch"];
  if (packages.length) {
    const micropip = pyodide.pyimport("micropip");
    const kwargs = msg.indexUrls ? {index_urls: msg.indexUrls} : {};
    try {
      await micropip.install.callKwargs(packages, kwargs);
    } finally {
      micropip.destroy();
    }
  }
  return pyodide.version;
}

async function run(code) {
  return toPlain(await pyodide.runPythonAsync(code));
}

function putFile(path, data) {
  const dir = path.substring(0, path.lastIndexOf("/"));
  if (dir) pyodide.FS.mkdirTree(dir);
  pyodide.FS.writeFile(path, data);
}

self.addEventListener("error", (ev) => post({type: "console_error", error: String(ev.message || ev)}));
self.addEventListener("unhandledrejection", (ev) => post({type: "console_error", error: errorText(ev.reason)}));

self.onmessage = async (ev) => {
  const msg = ev.data || {};
  if (msg.type === "init") {
    if (!ready) ready = init(msg);
    try {
      post({type: "ready", version: await ready});
    } catch (e) {
      post({type: "init_error", error: errorText(e)});
    }
    return;
  }
  const {id} = msg;
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
    post({id, ok: false, error: errorText(e)});
  }
};
