// webtorch-client.js: promises around web/worker.js (Pyodide + webtorch in a module worker).
//
//   import { Webtorch } from "/web/webtorch-client.js";
//   const wt = await Webtorch.create({onProgress: (p) => console.log(p.name, p.status, p.loaded, p.total)});
//   const r = await wt.run("import webtorch as torch\n(torch.ones(3, device='webgpu') * 2).tolist()",
//                          {onStdout: console.log});
//   await wt.cancel();   // KeyboardInterrupt in the running code, else restart the worker
//   In the worker, `from webtorch_web import emit, check_cancelled`: events to the page,
//   and points where cancel() takes effect.
//
// Options (all optional):
//   workerURL        default: worker.js next to this file
//   pyodideIndexURL  default: <origin>/pyodide/
//   indexUrls        package indexes for micropip (default: [<origin>/simple/], the dev server's)
//   packages         what micropip installs (names or wheel URLs; default ["webtorch"])
//   wheels           wheels loaded before micropip (default: the dev server's /wheels/index.json
//                    if there is one, else micropip from the Pyodide lock)
//   gpu, warmup      initialise the GPU / compile common kernels during start-up (default true)
//   asTorch          true: `import torch` in the runs is webtorch (webtorch.install_as_torch())
//   onProgress(p)    {status, name, label, loaded, total, progress} (see worker.js)
//   onStdout(line), onStderr(line), onEvent(kind, data, id)   for every run
// A failed run rejects with a PythonError: .message is the Python traceback, .type its class.

export class PythonError extends Error {
  constructor(message, type) {
    super(message);
    this.name = "PythonError";
    this.type = type || "Error";
  }
}

export class CancelledError extends Error {
  constructor(message = "cancelled: the worker was restarted") {
    super(message);
    this.name = "CancelledError";
  }
}

const HERE = new URL(".", import.meta.url);

async function defaultWheels() {
  try {
    const r = await fetch(new URL("/wheels/index.json", self.location.origin));
    if (!r.ok) return [];
    const names = await r.json();
    // packaging before micropip (micropip imports it).
    names.sort((a, b) => (a.startsWith("micropip") ? 1 : 0) - (b.startsWith("micropip") ? 1 : 0));
    return names.map((n) => new URL(`/wheels/${n}`, self.location.origin).href);
  } catch {
    return [];
  }
}

export class Webtorch {
  /** Start a worker and resolve once Pyodide and webtorch are ready. */
  static async create(options = {}) {
    const wt = new Webtorch(options);
    await wt.start();
    return wt;
  }

  constructor(options = {}) {
    this.options = {gpu: true, warmup: true, ...options};
    this.worker = null;
    this.pending = new Map(); // id -> {resolve, reject, onStdout, onStderr, onEvent}
    this.nextId = 1;
    this.info = null; // the worker's "ready" message
    this.progressLog = []; // every progress event of the current worker, in order
  }

  get version() { return this.info && this.info.version; }
  get adapter() { return this.info && this.info.adapter; }
  get gpuError() { return this.info && this.info.gpuError; }
  get canInterrupt() { return !!(this.info && this.info.interruptBuffer); }
  get busy() { return this.pending.size > 0; }

  async start() {
    const o = this.options;
    const init = {
      type: "init",
      pyodideIndexURL: o.pyodideIndexURL || new URL("/pyodide/", self.location.origin).href,
      indexUrls: o.indexUrls || [new URL("/simple/", self.location.origin).href],
      packages: o.packages || ["webtorch"],
      wheels: o.wheels || (await defaultWheels()),
      gpu: !!o.gpu,
      warmup: !!o.warmup,
      asTorch: !!o.asTorch,
    };
    const worker = new Worker(o.workerURL || new URL("worker.js", HERE), {type: "module"});
    this.worker = worker;
    this.progressLog = [];
    this.info = null;
    this.ready = new Promise((resolve, reject) => {
      worker.onerror = (ev) => reject(new Error(`worker error: ${ev.message || ev}`));
      worker.onmessage = (ev) => this._onMessage(ev.data, resolve, reject);
    });
    worker.postMessage(init);
    return this.ready;
  }

  _onMessage(m, resolve, reject) {
    const o = this.options;
    const p = m.id != null ? this.pending.get(m.id) : null;
    switch (m.type) {
      case "progress":
        this.progressLog.push(m);
        if (o.onProgress) o.onProgress(m);
        return;
      case "ready":
        this.info = m;
        this.interruptView = m.interruptBuffer ? new Int32Array(m.interruptBuffer) : null;
        this.cancelView = m.cancelBuffer ? new Int32Array(m.cancelBuffer) : null;
        resolve(this);
        return;
      case "init_error":
        reject(new PythonError(m.error, "InitError"));
        return;
      case "stdout":
      case "stderr": {
        const cb = (p && (m.type === "stdout" ? p.onStdout : p.onStderr)) || (m.type === "stdout" ? o.onStdout : o.onStderr);
        if (cb) cb(m.line);
        return;
      }
      case "event": {
        if (p && p.onEvent) p.onEvent(m.kind, m.data, m.id);
        if (o.onEvent) o.onEvent(m.kind, m.data, m.id);
        return;
      }
      case "console_error":
        if (o.onStderr) o.onStderr(`[worker] ${m.error}`);
        return;
      default:
        if (p) {
          this.pending.delete(m.id);
          if (m.ok) p.resolve(m.result);
          else p.reject(new PythonError(m.error, m.errorType));
        }
    }
  }

  _request(msg, handlers = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, {resolve, reject, ...handlers});
      this.worker.postMessage({id, ...msg});
    });
  }

  /** Run Python (top-level await allowed); resolves to the last expression's value. */
  async run(code, {onStdout, onStderr, onEvent} = {}) {
    await this.ready;
    return this._request({type: "run", code}, {onStdout, onStderr, onEvent});
  }

  /** Write a string or bytes into Pyodide's filesystem. */
  async putFile(path, data) {
    await this.ready;
    return this._request({type: "put_file", path, data});
  }

  /** Ask the running code to stop (KeyboardInterrupt). Returns false when the worker is not
   *  cross-origin isolated (no shared interrupt buffer): use cancel() to restart it instead. */
  interrupt() {
    if (!this.interruptView) return false;
    Atomics.store(this.interruptView, 0, 2); // 2 = SIGINT
    return true;
  }

  /** Stop what runs, in three steps, each given graceMs to end the run:
   *  1. "cancelled": set the cooperative flag: the code's next webtorch_web.emit() or
   *     check_cancelled() raises KeyboardInterrupt (the demo's training loop emits every step);
   *  2. "interrupted": Pyodide's interrupt buffer: KeyboardInterrupt at the next bytecode (can be
   *     lost while Python waits on a GPU promise; see worker.js);
   *  3. "restarted": terminate the worker, reject what was pending with CancelledError and start
   *     a fresh one (Python state is lost).
   *  Steps 1-2 need cross-origin isolation (COOP/COEP); without it cancel goes to step 3. */
  async cancel({graceMs = 2000} = {}) {
    if (!this.pending.size) return "idle";
    const waiting = Promise.all([...this.pending.values()].map((p) => new Promise((res) => {
      const {resolve, reject} = p;
      p.resolve = (v) => { res(); resolve(v); };
      p.reject = (e) => { res(); reject(e); };
    })));
    const ended = () => Promise.race([waiting.then(() => true),
                                      new Promise((res) => setTimeout(() => res(false), graceMs))]);
    if (this.cancelView) {
      Atomics.store(this.cancelView, 0, 1);
      if (await ended()) return "cancelled";
    }
    if (this.interrupt() && (await ended())) return "interrupted";
    await this.restart();
    return "restarted";
  }

  /** Terminate the worker and start a new one with the same options. */
  async restart() {
    this.terminate();
    return this.start();
  }

  terminate() {
    if (this.worker) this.worker.terminate();
    this.worker = null;
    for (const p of this.pending.values()) p.reject(new CancelledError());
    this.pending.clear();
  }
}
