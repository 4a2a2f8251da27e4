// Synchronous readback without JSPI: a SharedArrayBuffer + Atomics.wait bridge to a GPU worker.
// Loaded by driver_browser.py with pyodide.code.run_js; the value of this script is {BridgeClient, serve}.
//
// A thread blocked in Atomics.wait cannot settle its own mapAsync promise, and a GPUDevice cannot move
// between threads: so where Python runs in a cross-origin-isolated worker without JSPI, a second worker
// (the GPU worker, started from a blob of browser_driver.js and this file, running serve) owns the
// device and every buffer. BridgeClient, in Python's worker, has browser_driver.js's interface:
// calls that return nothing or an id it allocates (createBuffer, writeBuffer, createPipeline, submit)
// are queued and posted in batches; a read posts its request with the queue and blocks in Atomics.wait
// until the GPU worker has copied the bytes (or the error's text) into shared memory.
(() => {
  // The control words (an Int32Array over their own SharedArrayBuffer): STATUS, the reply's byte count,
  // and STARTED, set once the GPU worker runs (a worker only starts while its parent's event loop turns).
  const STATUS = 0, LENGTH = 1, STARTED = 2;
  const PENDING = 0, OK = 1, ERROR = 2;
  const HOST_STAGING = 1 << 19;       // as browser_driver.js's: Python copies batches and uploads into it
  const FIRST_DATA = 1 << 16;         // the reply region's first size; a larger read brings a larger one
  const FLUSH_OPS = 64, FLUSH_BYTES = 1 << 20;  // queued calls posted at once past these (or when JS idles)
  const START_WAIT_MS = 1000;         // how long a synchronous start waits for the GPU worker to run

  const encoder = new TextEncoder();
  const fail = (kind, message) => { const e = new Error(`${kind}: ${message}`); e.name = kind; return e; };

  class BridgeClient {
    // Whether the bridge can work here: a worker (Atomics.wait is refused on a page's main thread) that
    // is cross-origin isolated (SharedArrayBuffer) and may start workers of its own.
    static available() {
      return !!globalThis.crossOriginIsolated && typeof SharedArrayBuffer === "function" &&
        typeof WorkerGlobalScope !== "undefined" && typeof Worker === "function";
    }

    // Starts the GPU worker (sources: browser_driver.js's and this file's text), which at once begins
    // creating the device. Nothing waits here; ready() or waitReady() does.
    constructor(driverSource, bridgeSource) {
      const source = `const WebtorchDriver = ${driverSource};\nconst Bridge = ${bridgeSource};\nBridge.serve(WebtorchDriver);\n`;
      const url = URL.createObjectURL(new Blob([source], {type: "text/javascript"}));
      this.worker = new Worker(url);
      URL.revokeObjectURL(url);
      this.ctrl = new Int32Array(new SharedArrayBuffer(16));
      this.data = new Uint8Array(new SharedArrayBuffer(FIRST_DATA));
      this.started = new Promise((resolve) => { this.worker.onmessage = () => resolve(); });
      this.workerError = null;
      this.worker.onerror = (event) => { this.workerError = event.message || "the GPU worker failed to start"; };
      this.worker.postMessage({type: "init", ctrl: this.ctrl.buffer, data: this.data.buffer});
      this.ops = [];
      this.transfer = [];
      this.queuedBytes = 0;
      this.nextId = 1;
      this.nextPipeline = 0;
      this.submitCount = 0;
      this.hostStaging = new Uint8Array(HOST_STAGING);
      this.pendingError = undefined;
      this.result = null;
      this.ready = false;
    }

    // The device's description once the GPU worker created it, awaited (init_async).
    async whenReady() {
      await this.started;  // the GPU worker posts once it has replied to init
      return this.waitReady();
    }

    // The same, blocking; a GPU worker that has not started within START_WAIT_MS (the parent's event
    // loop never turned since it was made) is an error naming the awaited start.
    waitReady() {
      if (!this.ready) {
        if (Atomics.wait(this.ctrl, STARTED, 0, START_WAIT_MS) === "timed-out" && !this.ctrl[STARTED]) {
          throw fail("WebGPUUnavailableError", "the GPU worker of the SharedArrayBuffer bridge has not started: " +
            "a worker starts only once Python yields to the event loop. Run `await webtorch.webgpu.init_async()` " +
            "first (or import webtorch in an earlier run)." + (this.workerError ? ` (${this.workerError})` : ""));
        }
        this.wait();
        if (this.pendingError !== undefined) throw new Error(this.pendingError);
        const description = JSON.parse(this.text());
        Object.assign(this, description);
        this.ready = true;
      }
      return this;
    }

    text() {
      return new TextDecoder().decode(this.result.slice());  // (TextDecoder refuses shared memory)
    }

    // -- calls that need no answer: queued --------------------------------------------------------
    queue(op, bytes) {
      this.ops.push(op);
      if (bytes) {
        this.transfer.push(bytes.buffer);
        this.queuedBytes += bytes.byteLength;
      }
      if (this.ops.length === 1) queueMicrotask(() => this.flush());  // (runs when Python returns to JS)
      if (this.ops.length >= FLUSH_OPS || this.queuedBytes >= FLUSH_BYTES) this.flush();
    }

    flush(request, data) {
      if (!this.ops.length && !request) return;
      this.worker.postMessage({ops: this.ops, request, data}, this.transfer);
      this.ops = [];
      this.transfer = [];
      this.queuedBytes = 0;
    }

    // A copy of the bytes JS can keep: hostStaging's first nbytes (data null), a JS view, or a PyProxy
    // of a Python buffer.
    static owned(data, nbytes, staging) {
      if (!data) return staging.slice(0, nbytes);
      if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
      const view = data.getBuffer("u8");
      try {
        return view.data.slice();
      } finally {
        view.release();
      }
    }

    stagingView(nbytes) {
      return this.hostStaging.subarray(0, nbytes);
    }

    createBuffer(nbytes) {
      const id = this.nextId++;
      this.queue(["createBuffer", nbytes, id]);
      return id;
    }

    destroyBuffer(id) {
      this.queue(["destroyBuffer", id]);
    }

    writeBuffer(id, offset, data, nbytes) {
      const bytes = BridgeClient.owned(data, nbytes, this.hostStaging);
      this.queue(["writeBuffer", id, offset, bytes], bytes);
    }

    createPipeline(code, access, window) {
      const pid = this.nextPipeline++;
      this.queue(["createPipeline", code, access, window, pid]);
      return pid;
    }

    submit(data, nbytes, arena, metaBytes) {
      this.submitBatch("submit", data, nbytes, arena, metaBytes);
    }

    submitTimed(data, nbytes, arena, metaBytes) {
      this.submitBatch("submitTimed", data, nbytes, arena, metaBytes);
    }

    submitBatch(method, data, nbytes, arena, metaBytes) {
      const bytes = BridgeClient.owned(data, nbytes, this.hostStaging);
      if (nbytes > metaBytes) this.submitCount++;
      this.queue([method, bytes, nbytes, arena, metaBytes], bytes);
    }

    // -- calls answered through shared memory: posted with the queue, then wait() ----------------
    request(request, nbytes = 0) {
      let data;
      if (nbytes > this.data.byteLength) {  // a larger reply region, sent with the request
        this.data = new Uint8Array(new SharedArrayBuffer(2 ** Math.ceil(Math.log2(nbytes))));
        data = this.data.buffer;
      }
      this.pendingError = undefined;
      this.result = null;
      Atomics.store(this.ctrl, STATUS, PENDING);
      this.flush(request, data);
    }

    // Blocks until the GPU worker answered: `result` is then a view of the reply in shared memory
    // (valid until the next request), or pendingError the error's text ("<Kind>: message").
    wait() {
      while (Atomics.load(this.ctrl, STATUS) === PENDING) Atomics.wait(this.ctrl, STATUS, PENDING);
      const length = this.ctrl[LENGTH];
      if (this.ctrl[STATUS] === ERROR) {
        this.pendingError = new TextDecoder().decode(this.data.slice(0, length));
      } else {
        this.result = this.data.subarray(0, length);
      }
    }

    // As browser_driver.js's beginRead (the batch, if given, in hostStaging); wait() answers it.
    beginRead(id, offset, nbytes, batchBytes, arena, metaBytes) {
      const batch = batchBytes ? this.hostStaging.slice(0, batchBytes) : null;
      if (batch) this.transfer.push(batch.buffer);
      this.submitCount++;
      this.request({type: "read", id, offset, nbytes, batch, arena, metaBytes}, nbytes);
    }

    createBufferChecked(nbytes) {
      const id = this.nextId++;
      this.request({type: "createBufferChecked", id, nbytes});
      return id;
    }

    readTimings() {
      this.request({type: "readTimings"});
      this.wait();
      if (this.pendingError !== undefined) throw new Error(this.pendingError);
      return JSON.parse(this.text());
    }
  }

  // The GPU worker's side: the real driver; each message's queued calls in order, then its request
  // answered in shared memory. An error of a queued call is the answer of the next request.
  function serve(WebtorchDriver) {
    let driver = null, ctrl = null, data = null, deferred = null;
    let chain = Promise.resolve();

    const answer = (status, bytes) => {
      const n = Math.min(bytes.byteLength, data.byteLength);
      data.set(bytes.subarray(0, n));
      ctrl[LENGTH] = n;
      Atomics.store(ctrl, STATUS, status);
      Atomics.notify(ctrl, STATUS);
    };
    const answerError = (err) => {
      const e = err && err.message !== undefined ? err : new Error(String(err));
      // browser_driver.js's errors carry their kind as name and in the message; others get WebGPUError's text
      const text = /^[A-Za-z]+Error: /.test(e.message) ? e.message : `${e.name || "Error"}: ${e.message}`;
      answer(ERROR, encoder.encode(text));
    };

    async function init(msg) {
      ctrl = new Int32Array(msg.ctrl);
      data = new Uint8Array(msg.data);
      Atomics.store(ctrl, STARTED, 1);
      Atomics.notify(ctrl, STARTED);
      try {
        driver = await WebtorchDriver.create();
        answer(OK, encoder.encode(JSON.stringify({info: driver.info, limits: driver.limits, features: driver.features})));
      } catch (err) {
        answerError(err);
      }
      self.postMessage("started");
    }

    async function respond(request) {
      if (deferred) {
        const err = deferred;
        deferred = null;
        return answerError(err);
      }
      try {
        if (request.type === "read") {
          if (request.batch) driver.hostStaging.set(request.batch);
          const bytes = await driver.readBuffer(request.id, request.offset, request.nbytes, null, true,
            request.batch ? request.batch.byteLength : 0, request.arena, request.metaBytes);
          answer(OK, bytes);
          driver.releaseHeld();
        } else if (request.type === "createBufferChecked") {
          driver.createBufferChecked(request.nbytes, request.id);
          await driver.pending;
          if (driver.pendingError !== undefined) throw new Error(driver.pendingError);
          answer(OK, new Uint8Array(0));
        } else if (request.type === "readTimings") {
          answer(OK, encoder.encode(JSON.stringify(await driver.readTimings())));
        }
      } catch (err) {
        answerError(err);
      }
    }

    async function handle(msg) {
      if (msg.type === "init") return init(msg);
      if (msg.data) data = new Uint8Array(msg.data);
      for (const [method, ...args] of msg.ops) {
        try {
          driver[method](...args);
        } catch (err) {
          deferred = deferred || err;
        }
      }
      if (msg.request) await respond(msg.request);
    }

    // A read's answer is awaited before the next message is handled (messages keep their order).
    self.onmessage = (event) => { chain = chain.then(() => handle(event.data)); };
  }

  return {BridgeClient, serve};
})()
