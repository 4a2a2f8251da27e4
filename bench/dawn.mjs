// The benchmark in Node + Dawn (npm `webgpu`, Google's dawn.node) with Pyodide: the browser code path
// of webtorch on a real GPU. Packed and run by bench/run.py --target dawn (see bench/README.md):
//   source .gpu/gpu-env.sh; node --experimental-wasm-stack-switching bench/dawn.mjs BUNDLE OUT.json [only [sections]]
// only: frameworks, e.g. webtorch,raw; sections: webtorch's workloads, e.g. chain,item (comma-separated).
import {createRequire} from "module";
import fs from "fs";
import path from "path";
import vm from "vm";
import {fileURLToPath} from "url";
import {runSuite} from "./suite.mjs";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const [bundle, outPath, only, sections] = process.argv.slice(2);
const {create, globals} = require(process.env.DAWN_NODE);
Object.assign(globalThis, globals);
// Pyodide refuses to start when navigator exists without a userAgent.
Object.defineProperty(globalThis, "navigator", {value: {gpu: create([]), userAgent: "node-dawn"}, configurable: true});

const log = (s) => console.log(s);
const peers = {ort: new Error("onnxruntime-web is not carried to the GPU machine (its WebGPU wasm is 24 MB); Chromium only")};
try {
  globalThis.require = require;
  for (const f of ["tf-core.es2017.min.js", "tf-backend-webgpu.es2017.min.js"]) {
    vm.runInThisContext(fs.readFileSync(path.join(bundle, "tfjs", f), "utf8"), {filename: f});
  }
  peers.tf = globalThis.tf;
} catch (e) {
  peers.tf = new Error("tfjs did not load in Node: " + e);
}
const {loadPyodide} = await import(path.resolve(bundle, "pyodide", "pyodide.mjs"));
const pyodide = await loadPyodide({indexURL: path.resolve(bundle, "pyodide") + "/", stdout: log, stderr: log});
const wheelName = fs.readdirSync(bundle).find((f) => f.endsWith(".whl"));
const result = await runSuite({
  target: "dawn", pyodide, log, peers, only: only ? only.split(",") : undefined,
  sections: sections ? sections.split(",") : undefined,
  wheel: new Uint8Array(fs.readFileSync(path.join(bundle, wheelName))),
  workloads: fs.readFileSync(path.join(here, "workloads.py"), "utf8"),
});
fs.writeFileSync(outPath, JSON.stringify(result, null, 1));
log(`bench: wrote ${outPath}`);
process.exit(0);
