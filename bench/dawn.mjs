// The benchmark in Node + Dawn (npm `webgpu`, Google's dawn.node) with Pyodide: the browser code path
// of webtorch on a real GPU. Packed and run by bench/run.py --target dawn (see bench/README.md):
//   source .gpu/gpu-env.sh; node --experimental-wasm-stack-switching bench/dawn.mjs BUNDLE OUT.json [only [sections]]
// only: frameworks, e.g. webtorch,raw; sections: webtorch's workloads, e.g. chain,item (comma-separated).
import {createRequire} from "module";
import fs from "fs";
import path from "path";
import vm from "vm";
import {fileURLToPath} from "url";
import {DAWN_FLAGS, installDawn, loadOrt} from "./dawn_gpu.mjs";
import {minilmStandIn, runSuite} from "./suite.mjs";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const [bundle, outPath, only, sections] = process.argv.slice(2);
installDawn();

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
  peers.ort = await loadOrt(path.resolve(bundle, "ort"));  // runOrt asks for one thread
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
