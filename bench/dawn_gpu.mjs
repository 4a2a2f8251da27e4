// dawn.node (npm `webgpu`, Google's Dawn) as the page's navigator.gpu in Node on the GPU machine, and
// onnxruntime-web's WebGPU build loaded from a folder packed by bench/run.py (pack_dawn: its "ort" folder):
// shared by bench/dawn.mjs (the suite) and bench/ort_decode.mjs (the decode peer).
import {execFileSync} from "child_process";
import {createRequire} from "module";
import path from "path";

const require = createRequire(import.meta.url);

// The toggles make the H200 stand in for a browser with shader-f16 and subgroup matrices:
// allow_unsafe_apis is what Chrome's --enable-unsafe-webgpu turns on (subgroup matrices);
// vulkan_enable_f16_on_nvidia exposes shader-f16 on NVIDIA's Vulkan driver (Chrome on D3D12 has it).
// timestamp_quantization off: Dawn otherwise rounds timestamps to 2^16 ns (the profiler's kernel times
// came out as multiples of 65.5 us).
export const DAWN_FLAGS = ["enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia",
                           "disable-dawn-features=timestamp_quantization"];

/** Installs dawn.node's globals and a navigator whose gpu is dawn.node's (with DAWN_FLAGS). */
export function installDawn() {
  const {create, globals} = require(process.env.DAWN_NODE);
  Object.assign(globalThis, globals);
  // dawn.node's GPUSupportedFeatures lacks the setlike's forEach, which onnxruntime-web's WebGPU glue calls.
  globals.GPUSupportedFeatures.prototype.forEach ??= function (fn, self) { for (const f of this) fn.call(self, f, f, this); };
  // Its queue.writeBuffer rejects views of a SharedArrayBuffer ("Invalid argument"; the spec allows them), and
  // onnxruntime-web's wasm memory is shared: such a view is copied out first (slice: the view's bytes only).
  const writeBuffer = globals.GPUQueue.prototype.writeBuffer;
  globals.GPUQueue.prototype.writeBuffer = function (buffer, offset, data, ...rest) {
    return writeBuffer.call(this, buffer, offset, data.buffer instanceof SharedArrayBuffer ? data.slice() : data, ...rest);
  };
  // Pyodide refuses to start when navigator exists without a userAgent.
  Object.defineProperty(globalThis, "navigator", {value: {gpu: create(DAWN_FLAGS), userAgent: "node-dawn"},
                                                  configurable: true});
}

/** onnxruntime-web's browser build, as Chromium loads it: it imports its wasm glue next to it and uses
 * navigator.gpu; the wasm comes xz-compressed (carry limit) and is handed over unpacked (the proxy worker
 * stays off, its default). dir: the packed "ort" folder. */
export async function loadOrt(dir) {
  const ort = await import(path.join(path.resolve(dir), "ort.webgpu.min.mjs"));
  ort.env.wasm.wasmBinary = execFileSync("xz", ["-dc", path.join(dir, "ort-wasm-simd-threaded.asyncify.wasm.xz")],
                                         {maxBuffer: 1 << 28});
  return ort;
}
