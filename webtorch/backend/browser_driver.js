// webtorch's browser driver: navigator.gpu behind the few calls the runtime needs.
// Loaded by driver_browser.py with pyodide.code.run_js; the value of this script is the class.
// Buffers and pipelines are integer ids so that a dispatch crosses the FFI with plain numbers.
(() => {
  const LIMITS = ["maxStorageBufferBindingSize", "maxBufferSize", "maxStorageBuffersPerShaderStage",
                  "maxComputeWorkgroupStorageSize", "maxComputeInvocationsPerWorkgroup"];
  const WANTED_FEATURES = ["shader-f16", "subgroups", "chromium-experimental-subgroup-matrix", "timestamp-query"];
  // The tensor-core kernel (matmul_subgroup_matrix.wgsl) writes the subgroup-matrix builtins' current form
  // (the layout as a template argument); a browser that has the feature but only the first form (a bool
  // argument) gets the portable kernels instead: the feature is dropped when this does not compile.
  const SUBGROUP_MATRIX = "chromium-experimental-subgroup-matrix";
  const SUBGROUP_MATRIX_PROBE = `enable chromium_experimental_subgroup_matrix;
@group(0) @binding(0) var<storage, read_write> b: array<f32>;
@compute @workgroup_size(64) fn main() {
  subgroupMatrixStore<row_major>(&b, 0u, subgroupMatrixLoad<subgroup_matrix_left<f32, 8, 8>, col_major>(&b, 0u, 8u), 8u);
}`;
  const snake = (s) => s.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());
  // Uploads and batches up to this many bytes go through the driver's own array, hostStaging, which
  // Python copies into in one call (through views of its first 4 KB, 8 KB, ...: stagingView): a PyProxy
  // of Python's buffer, made and destroyed per transfer, costs more than the GPU's round trip (75-100 us
  // measured in Chromium). A full batch (256 KB of meta and its command words) fits.
  const HOST_STAGING = 1 << 19;
  const fail = (kind, message) => { const e = new Error(`${kind}: ${message}`); e.name = kind; return e; };

  class WebtorchDriver {
    static async create() {
      const gpu = globalThis.navigator && globalThis.navigator.gpu;
      if (!gpu) {
        throw fail("WebGPUUnavailableError", "navigator.gpu is missing: this browser or context has no WebGPU. " +
          "Use a recent Chrome/Edge (or Firefox/Safari with WebGPU enabled), serve the page over https or " +
          "http://localhost (a secure context), and for headless Chromium pass --enable-unsafe-webgpu.");
      }
      const adapter = await gpu.requestAdapter({powerPreference: "high-performance"});
      if (!adapter) {
        throw fail("WebGPUUnavailableError", "navigator.gpu.requestAdapter() returned null: no usable GPU. " +
          "In Chromium try --enable-unsafe-webgpu (and --enable-features=Vulkan on Linux); check chrome://gpu.");
      }
      const requiredLimits = {};
      for (const name of LIMITS) requiredLimits[name] = adapter.limits[name];
      // Every feature a kernel can use is requested whenever the adapter offers it: "shader-f16"
      // (float16 tensors), "subgroups", and the subgroup matrices (tensor cores) that Chromium exposes
      // behind --enable-unsafe-webgpu.
      const requiredFeatures = WANTED_FEATURES.filter((f) => adapter.features.has(f));
      const device = await adapter.requestDevice({requiredLimits, requiredFeatures});
      const unusable = device.features.has(SUBGROUP_MATRIX) && !await WebtorchDriver.compiles(device, SUBGROUP_MATRIX_PROBE)
        ? [SUBGROUP_MATRIX] : [];
      return new WebtorchDriver(adapter, device, unusable);
    }

    // Whether WGSL code compiles on device (no error in its compilation info).
    static async compiles(device, code) {
      const info = await device.createShaderModule({code}).getCompilationInfo();
      return !info.messages.some((m) => m.type === "error");
    }

    // A URL's bytes as an ArrayBuffer, from Cache Storage (cacheName) when there; else fetched, streamed
    // into one buffer (progress to globalThis.webtorchProgress if defined: {status, name, loaded, total}),
    // checked against the sha256 hex prefix (if given) and stored in the cache for later page loads.
    static async fetchCached(url, cacheName, name, hashPrefix, progress) {
      const report = (progress && globalThis.webtorchProgress) || (() => {});
      const cacheable = /^https?:$/.test(new URL(url, globalThis.location.href).protocol);  // not data:, blob:
      const cache = cacheable && globalThis.caches ? await caches.open(cacheName) : null;
      const hit = cache && await cache.match(url);
      if (hit) {
        const cached = await hit.arrayBuffer();
        report({status: "done", name, loaded: cached.byteLength, total: cached.byteLength, cached: true});
        return cached;
      }
      const response = await fetch(url);
      if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
      const total = Number(response.headers.get("Content-Length")) || 0;
      report({status: "initiate", name, loaded: 0, total});
      const reader = response.body.getReader();
      let bytes = new Uint8Array(total || 1 << 20), loaded = 0, reported = 0;
      for (;;) {
        const {done, value} = await reader.read();
        if (done) break;
        if (loaded + value.length > bytes.length) {  // no or a wrong Content-Length: grow
          const grown = new Uint8Array(Math.max(2 * bytes.length, loaded + value.length));
          grown.set(bytes.subarray(0, loaded));
          bytes = grown;
        }
        bytes.set(value, loaded);
        loaded += value.length;
        if (loaded - reported >= Math.max(total / 100, 1 << 20)) {
          report({status: "progress", name, loaded, total});
          reported = loaded;
        }
      }
      if (loaded !== bytes.length) bytes = bytes.slice(0, loaded);
      if (hashPrefix) {
        const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
        const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
        if (!hex.startsWith(hashPrefix)) throw new Error(`invalid hash value (expected "${hashPrefix}", got "${hex}")`);
      }
      report({status: "done", name, loaded, total: loaded});
      if (cache) {
        await cache.put(url, new Response(bytes, {headers: {"Content-Type": "application/octet-stream"}}));
      }
      return bytes.buffer;
    }

    constructor(adapter, device, unusable = []) {
      this.device = device;
      this.queue = device.queue;
      const info = adapter.info || {};
      this.info = {vendor: info.vendor || "", architecture: info.architecture || "", device: info.device || "",
                   description: info.description || "",
                   subgroup_min_size: info.subgroupMinSize || 0, subgroup_max_size: info.subgroupMaxSize || 0,
                   // each config's fields are getters (the objects print as {}): read them one by one
                   subgroup_matrix_configs: [...(info.subgroupMatrixConfigs || [])].map((c) => ({
                     component_type: c.componentType, result_component_type: c.resultComponentType,
                     M: c.M, N: c.N, K: c.K}))};
      this.features = WANTED_FEATURES.filter((f) => device.features.has(f) && !unusable.includes(f));
      this.limits = {};
      for (const name of LIMITS) this.limits[snake(name)] = device.limits[name];
      this.limits.min_storage_buffer_offset_alignment = device.limits.minStorageBufferOffsetAlignment;
      this.buffers = new Map();
      this.pipelines = [];
      this.bindGroups = new Map();
      this.groupsOfBuffer = new Map();  // buffer id -> keys of the live bind groups naming it
      this.staging = new Map();
      this.nextId = 1;
      this.submitCount = 0;
      // Firefox's WebGPU notices finished work by polling, on a ~100 ms timer while nothing new is
      // submitted: a readback would wait that long for microseconds of GPU work. A submission makes it
      // poll at once, so readbacks there submit empty command buffers while they wait (mapForRead).
      this.nudgeReadbacks = typeof navigator !== "undefined" && /Firefox\//.test(navigator.userAgent || "");
      this.nudges = 0;
      this.timings = [];  // submitTimed's [querySet, buffer, staging] triples, until readTimings
      this.scopes = [];   // popErrorScope promises of submitted batches
      this.errors = [];   // errors no scope caught
      this.lost = null;
      this.pending = null;   // the synchronous readback in flight (beginRead)
      this.result = null;    // its bytes once it settled (a view of mapped staging memory)
      this.hostStaging = new Uint8Array(HOST_STAGING);  // uploads' and batches' bytes (writeBuffer, submit)
      this.held = null;      // [pool, staging buffer] of the last synchronous readback, mapped until the next
      this.pendingError = undefined;
      this.socketWaits = 0;
      this.marks = null;     // an Array: each synchronous readback's hops go there as label, performance.now() (bench/readback.py)
      device.lost.then((info) => { this.lost = info.message || info.reason || "unknown reason"; });
      device.addEventListener("uncapturederror", (event) => this.errors.push(event.error));
    }

    check() {
      if (this.lost) {
        throw fail("DeviceLostError", `the WebGPU device was lost (${this.lost}). Reload the page, or create ` +
          "new tensors after webtorch re-initialises.");
      }
    }

    // id: given by the SharedArrayBuffer bridge's proxy (sab_bridge.js), which allocates ids itself.
    createBuffer(nbytes, id = this.nextId++) {
      this.check();
      this.buffers.set(id, this.device.createBuffer({
        size: nbytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST}));
      return id;
    }

    // createBuffer whose out-of-memory error scope's promise is parked for Python to wait on
    // (driver_browser.py; for large buffers, where a failure is likely). On failure the id is freed.
    createBufferChecked(nbytes, id) {
      this.check();
      this.device.pushErrorScope("out-of-memory");
      id = this.createBuffer(nbytes, id);
      this.pendingError = undefined;
      this.pending = this.device.popErrorScope().then((e) => {
        if (e) {
          this.pendingError = `OutOfMemoryError: ${e.message}`;
          this.destroyBuffer(id);
        }
        return 0;
      }, (err) => { this.pendingError = String(err && err.message || err); return 0; });
      return id;
    }

    destroyBuffer(id) {
      const buffer = this.buffers.get(id);
      this.buffers.delete(id);
      // by its own set of keys (a scan of every cached group per destroyed buffer made emptying a cache
      // of thousands of buffers cost minutes), each key dropped from its other buffers' sets too (the
      // meta arena and long-lived weights are in every key: their sets would only grow)
      for (const key of this.groupsOfBuffer.get(id) || []) {
        this.bindGroups.delete(key);
        for (const other of key.split(",").slice(1).map(Number)) {
          if (other !== id) this.groupsOfBuffer.get(other).delete(key);
        }
      }
      this.groupsOfBuffer.delete(id);
      buffer.destroy();
    }

    // The first nbytes of hostStaging (a power of two): Python copies into it with one assign.
    stagingView(nbytes) {
      return this.hostStaging.subarray(0, nbytes);
    }

    // data: a PyProxy of a Python buffer (bytes, memoryview): read through getBuffer, no copy into JS;
    // or a Uint8Array of JS memory (webtorch.from_js, safetensors from a fetched ArrayBuffer);
    // or null: hostStaging's first nbytes.
    writeBuffer(id, offset, data, nbytes) {
      this.check();
      if (!data) data = this.hostStaging.subarray(0, nbytes);
      if (ArrayBuffer.isView(data)) {
        this.queue.writeBuffer(this.buffers.get(id), offset, data);
        return;
      }
      const view = data.getBuffer("u8");
      try {
        this.queue.writeBuffer(this.buffers.get(id), offset, view.data);
      } finally {
        view.release();
      }
    }

    // A kernel that does not compile is reported (its WGSL diagnosis) at the next synchronisation
    // point, ahead of the errors of the batches that use it: its error scope joins the batches'.
    createPipeline(code, access, window, pid = this.pipelines.length) {
      this.check();
      const entries = [{binding: 0, visibility: GPUShaderStage.COMPUTE,
                        buffer: {type: "read-only-storage", hasDynamicOffset: true}}];
      for (let i = 0; i < access.length; i++) {
        entries.push({binding: i + 1, visibility: GPUShaderStage.COMPUTE,
                      buffer: {type: access[i] === "w" ? "storage" : "read-only-storage"}});
      }
      this.device.pushErrorScope("validation");
      try {
        const layout = this.device.createBindGroupLayout({entries});
        const module = this.device.createShaderModule({code});
        const pipeline = this.device.createComputePipeline({
          layout: this.device.createPipelineLayout({bindGroupLayouts: [layout]}),
          compute: {module, entryPoint: "main"}});
        this.pipelines[pid] = {pipeline, layout, window};
        return pid;
      } finally {
        this.scopes.push(this.device.popErrorScope());
      }
    }

    // A batch of kernels as one compute pass, submitted. data: the batch's bytes, a PyProxy of a Python
    // buffer, a Uint8Array (the bridge's GPU worker) or null (hostStaging's): metaBytes of the kernels' parameters, written into the meta arena
    // (buffer `arena`) first, then the command words up to nbytes, per kernel: pipeline, meta offset,
    // workgroups x, y, z, buffer count, buffer ids (the meta arena first, bound with a dynamic offset).
    // One FFI call per batch.
    submit(data, nbytes, arena, metaBytes) {
      this.check();
      this.withBatch(data, nbytes, arena, metaBytes, (words) => this.encodeAndSubmit(words, false));
    }

    // submit, with each kernel in a compute pass of its own that writes its begin and end timestamps
    // (webtorch.profiler; needs "timestamp-query"). readTimings returns them.
    submitTimed(data, nbytes, arena, metaBytes) {
      this.check();
      this.withBatch(data, nbytes, arena, metaBytes, (words) => this.encodeAndSubmit(words, true));
    }

    // Writes a batch's meta into the arena and calls use(its command words), reading data in place.
    withBatch(data, nbytes, arena, metaBytes, use) {
      const view = data && !ArrayBuffer.isView(data) ? data.getBuffer("u8") : null;
      try {
        const bytes = view ? view.data : data || this.hostStaging;
        if (metaBytes) this.queue.writeBuffer(this.buffers.get(arena), 0, bytes.subarray(0, metaBytes));
        return use(new Uint32Array(bytes.buffer, bytes.byteOffset + metaBytes, (nbytes - metaBytes) / 4));
      } finally {
        if (view) view.release();
      }
    }

    // The kernels of words encoded and submitted, inside error scopes that the next synchronisation
    // point awaits; then(encoder), if given, records more commands into the same submission.
    encodeAndSubmit(words, timed, then) {
      const kernels = [];
      for (let i = 0; i < words.length; i += 6 + words[i + 5]) kernels.push(i);
      if (!kernels.length && !then) return;
      this.device.pushErrorScope("validation");
      this.device.pushErrorScope("out-of-memory");
      const encoder = this.device.createCommandEncoder();
      if (kernels.length) {
        const querySet = timed ? this.device.createQuerySet({type: "timestamp", count: 2 * kernels.length}) : null;
        let pass = timed ? null : encoder.beginComputePass();
        kernels.forEach((i, k) => {
          if (timed) {
            pass = encoder.beginComputePass({timestampWrites: {
              querySet, beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1}});
          }
          const pid = words[i];
          pass.setPipeline(this.pipelines[pid].pipeline);
          pass.setBindGroup(0, this.bindGroup(pid, words, i + 6, words[i + 5]), [words[i + 1]]);
          pass.dispatchWorkgroups(words[i + 2], words[i + 3], words[i + 4]);
          if (timed) pass.end();
        });
        if (!timed) pass.end();
        if (timed) {
          const stamps = this.device.createBuffer({
            size: 16 * kernels.length, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC});
          const staging = this.device.createBuffer({
            size: 16 * kernels.length, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST});
          encoder.resolveQuerySet(querySet, 0, 2 * kernels.length, stamps, 0);
          encoder.copyBufferToBuffer(stamps, 0, staging, 0, 16 * kernels.length);
          this.timings.push([querySet, stamps, staging]);
        }
      }
      if (then) then(encoder);
      this.queue.submit([encoder.finish()]);
      this.submitCount++;
      this.scopes.push(this.device.popErrorScope(), this.device.popErrorScope());
    }

    // staging.mapAsync(READ); where the browser polls for finished work (this.nudgeReadbacks), an empty
    // submission each millisecond while it waits.
    async mapForRead(staging) {
      const mapped = staging.mapAsync(GPUMapMode.READ);
      if (!this.nudgeReadbacks) return mapped;
      let waiting = true;
      const nudge = () => {
        if (!waiting) return;
        this.queue.submit([]);
        this.nudges++;
        setTimeout(nudge, 1);
      };
      nudge();
      try {
        await mapped;
      } finally {
        waiting = false;
      }
    }

    // The timestamps (ns) of the kernels submitTimed sent since the last call: begin, end per kernel.
    async readTimings() {
      const out = [];
      for (const [querySet, stamps, staging] of this.timings.splice(0)) {
        await this.mapForRead(staging);
        for (const t of new BigUint64Array(staging.getMappedRange())) out.push(Number(t));
        staging.destroy();
        stamps.destroy();
        querySet.destroy();
      }
      await this.raiseErrors();
      return out;
    }

    // Bind groups are cached per (pipeline, buffers: the n ids in words from start); destroyBuffer
    // drops those of a buffer.
    bindGroup(pid, words, start, n) {
      let key = "" + pid;
      for (let j = start; j < start + n; j++) key += "," + words[j];
      let group = this.bindGroups.get(key);
      if (!group) {
        const ids = words.subarray(start, start + n);
        const p = this.pipelines[pid];
        const entries = Array.from(ids, (id, i) => ({binding: i, resource: {buffer: this.buffers.get(id)}}));
        entries[0].resource.size = p.window;
        group = this.device.createBindGroup({layout: p.layout, entries});
        this.bindGroups.set(key, group);
        for (const id of ids) {
          const keys = this.groupsOfBuffer.get(id);
          if (keys) keys.add(key); else this.groupsOfBuffer.set(id, new Set([key]));
        }
      }
      return group;
    }

    // Errors of the work submitted so far (or of scopes, their error scopes taken already), raised at
    // this synchronisation point.
    async raiseErrors(scopes) {
      const found = (await (scopes || Promise.all(this.scopes.splice(0)))).filter((e) => e);
      found.push(...this.errors.splice(0));
      this.check();
      if (found.length) {
        const e = found[0];
        const kind = e.constructor && e.constructor.name === "GPUOutOfMemoryError" ? "OutOfMemoryError"
          : "ValidationError";
        throw fail(kind, kind === "OutOfMemoryError"
          ? `WebGPU ran out of memory (${e.message}). Free tensors or call webtorch.webgpu.empty_cache().`
          : `WebGPU rejected a command: ${e.message}`);
      }
    }

    // nbytes of a buffer from offset: copied into dest (a PyProxy of a writable Python buffer: one copy,
    // mapped memory into Python's; returns nbytes), or returned as a view of the mapped staging memory
    // (hold: valid until the next read, which unmaps it) or as a copy. If the batch in hostStaging is
    // given (batchBytes, arena, metaBytes: submit's arguments), its kernels and the copy go in one
    // submission. The copy is awaited together with the error scopes of the work before it.
    async readBuffer(id, offset, nbytes, dest, hold, batchBytes, arena, metaBytes) {
      this.check();
      this.mark("readBuffer");
      this.releaseHeld();
      const size = Math.max(16, 2 ** Math.ceil(Math.log2(nbytes)));
      const free = this.staging.get(size) || [];
      this.staging.set(size, free);
      const staging = free.pop() || this.device.createBuffer({
        size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST});
      const copy = (encoder) => encoder.copyBufferToBuffer(this.buffers.get(id), offset, staging, 0,
                                                           Math.ceil(nbytes / 4) * 4);
      if (batchBytes) {
        this.withBatch(null, batchBytes, arena, metaBytes, (words) => this.encodeAndSubmit(words, false, copy));
      } else {
        const encoder = this.device.createCommandEncoder();
        copy(encoder);
        this.queue.submit([encoder.finish()]);
        this.submitCount++;
      }
      this.mark("submitted");
      const scopes = Promise.all(this.scopes.splice(0));
      try {
        await this.mapForRead(staging);
      } catch (err) {
        free.push(staging);
        await this.raiseErrors(scopes);
        throw err;
      }
      this.mark("mapped");
      const bytes = new Uint8Array(staging.getMappedRange(0, nbytes));
      if (hold) {
        this.held = [free, staging];
      } else {
        let view;
        try {
          await this.raiseErrors(scopes);
          if (!dest) return bytes.slice();
          view = dest.getBuffer("u8");  // (dest may be gone: Python interrupted while this was in flight)
          view.data.set(bytes);
          return nbytes;
        } finally {
          if (view) view.release();
          staging.unmap();
          free.push(staging);
        }
      }
      await this.raiseErrors(scopes);
      this.mark("checked");
      return bytes;
    }

    mark(label) {
      if (this.marks) this.marks.push(label, performance.now());
    }

    // The staging buffer a held readback left mapped, unmapped and back in its pool.
    releaseHeld() {
      if (this.held) {
        const [free, staging] = this.held;
        this.held = null;
        staging.unmap();
        free.push(staging);
      }
    }

    // Synchronous readback (driver_browser.py): beginRead parks the readback's promise in `pending`,
    // where Python suspends on it directly. A parked promise never rejects (a rejection could not
    // cross a socket's recv): it settles to the bytes (a held view, also kept in `result`), or to -5
    // (EIO) with the error in pendingError for Python to raise.
    beginRead(id, offset, nbytes, batchBytes, arena, metaBytes) {
      this.pendingError = undefined;
      this.result = null;
      this.pending = this.readBuffer(id, offset, nbytes, null, true, batchBytes, arena, metaBytes).then(
        (bytes) => { this.mark("settled"); return (this.result = bytes); },
        (err) => { this.pendingError = String(err && err.message || err); return -5; });
    }

    // The parked promise, returned from a call: Pyodide gives Python an asyncio Future of it (run_sync's input).
    pendingPromise() {
      return this.pending;
    }

    // Parks an already settled promise: driver_browser.py's probes of the ways to suspend.
    parkSettled() {
      this.pendingError = undefined;
      this.pending = Promise.resolve(0);
    }

    // Suspension through a socket: Pyodide 314 sends recvfrom on a socket whose SOCKFS sock_ops have
    // recvmsgAsync to that hook and suspends the caller (JSPI) until its promise settles. Bytes settle
    // it by being copied into recv's buffer (a readback: one copy, mapped memory into Python's); a
    // number is recv's result (0: a wait with no bytes; negative: an errno, raised as OSError).
    hookSocket(sockfs, fd) {
      const sock = sockfs.getSocket(fd);
      const ops = Object.create(sock.sock_ops);
      ops.recvmsgAsync = () => {
        this.mark("suspend");
        const pending = this.pending || Promise.resolve(0);
        this.pending = null;
        this.socketWaits++;
        return pending;
      };
      sock.sock_ops = ops;
      this.socketWaits = 0;
    }
  }
  return WebtorchDriver;
})()
