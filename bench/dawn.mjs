// The benchmark in Node + Dawn (npm `webgpu`, Google's dawn.node) with Pyodide: the browser code path
// of webtorch on a real GPU. Packed and run by bench/run.py --target dawn (see bench/README.md):
//   source .gpu/gpu-env.sh; node --experimental-wasm-stack-switching bench/dawn.mjs BUNDLE OUT.json [only [sections]]
// only: frameworks, e.g. webtorch,raw; sections: webtorch's workloads, e.g. chain,item (comma-separated).
import {execFileSync} from "child_process";
import {createRequire} from "module";
import fs from "fs";
import path from "path";
import vm from "vm";
import {fileURLToPath} from "url";
import {minilmStandIn, runSuite} from "./suite.mjs";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const [bundle, outPath, only, sections] = process.argv.slice(2);
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
// The toggles make the H200 stand in for a browser with shader-f16 and subgroup matrices:
// allow_unsafe_apis is what Chrome's --enable-unsafe-webgpu turns on (subgroup matrices);
// vulkan_enable_f16_on_nvidia exposes shader-f16 on NVIDIA's Vulkan driver (Chrome on D3D12 has it).
// timestamp_quantization off: Dawn otherwise rounds timestamps to 2^16 ns (the profiler's kernel times
// came out as multiples of 65.5 us).
const DAWN_FLAGS = ["enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia",
                    "disable-dawn-features=timestamp_quantization"];
// Pyodide refuses to start when navigator exists without a userAgent.
Object.defineProperty(globalThis, "navigator", {value: {gpu: create(DAWN_FLAGS), userAgent: "node-dawn"},
                                                configurable: true});

const log = (s) => console.log(s);
const peers = {};
try {
  globalThis.require = require;
  for (const f of ["tf-core.es2017.min.js", "tf-backend-webgpu.es2017.min.js"]) {
    vm.runInThisContext(fs.readFileSync(path.join(bundle, "tfjs", f), "utf8"), {filename: f});
  }
  peers.tf = globalThis.tf;
} catch (e) {
  peers.tf = new Error("tfjs did not load in Node: " + e);
}
try {
  // onnxruntime-web's browser build, as Chromium loads it: it imports its wasm glue next to it and uses
  // navigator.gpu; the wasm comes xz-compressed (carry limit) and is handed over unpacked (runOrt asks for one
  // thread; the proxy worker stays off, its default).
  const dir = path.resolve(bundle, "ort");
  const ort = await import(path.join(dir, "ort.webgpu.min.mjs"));
  ort.env.wasm.wasmBinary = execFileSync("xz", ["-dc", path.join(dir, "ort-wasm-simd-threaded.asyncify.wasm.xz")],
                                         {maxBuffer: 1 << 28});
  peers.ort = ort;
} catch (e) {
  peers.ort = new Error("onnxruntime-web did not load in Node: " + e);
}

const {loadPyodide} = await import(path.resolve(bundle, "pyodide", "pyodide.mjs"));
const pyodide = await loadPyodide({indexURL: path.resolve(bundle, "pyodide") + "/", stdout: log, stderr: log});
const wheelName = fs.readdirSync(bundle).find((f) => f.endsWith(".whl"));
const modulesDir = path.join(bundle, "modules");  // bench/modules.json's files, packed by bench/run.py
const result = await runSuite({
  target: "dawn", pyodide, log, peers, only: only ? only.split(",") : undefined,
  sections: sections ? sections.split(",") : undefined,
  wheel: new Uint8Array(fs.readFileSync(path.join(bundle, wheelName))),
  workloads: fs.readFileSync(path.join(here, "workloads.py"), "utf8"),
  modules: Object.fromEntries(fs.readdirSync(modulesDir).map((f) => [f, fs.readFileSync(path.join(modulesDir, f), "utf8")])),
  weights: minilmStandIn(),
});
result.dawnFlags = DAWN_FLAGS;
fs.writeFileSync(outPath, JSON.stringify(result, null, 1));
log(`bench: wrote ${outPath}`);
process.exit(0);
