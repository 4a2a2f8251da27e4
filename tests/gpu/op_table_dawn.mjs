// The op table on a real GPU through webtorch's browser code path: Pyodide on Node + Dawn (Chrome's
// WebGPU engine), against the values torch produced on the host. With Dawn's toggles the H200 offers
// shader-f16 and subgroup matrices, so the float16 cases and the tensor-core matmul run there.
//   here:     python bench/run.py --target dawn --pack && python tests/compare.py bench/results/tmp/dawn/expected.json
//             (xz it to expected.json.xz if the carry limit needs)
//   GPU host: source .gpu/gpu-env.sh; node --experimental-wasm-stack-switching tests/gpu/op_table_dawn.mjs \
//                 bench/results/tmp/dawn $OUT/op_table_dawn.json
//   OP_TABLE_DAWN_FLAGS="" (no toggles): the adapter stock Chrome on Linux + NVIDIA gives, without
//   shader-f16, so float16 runs emulated (stored as f32, rounded to half). OP_TABLE_DEVICES=webgpu
//   skips the pure-Python cpu device (default: webgpu,cpu).
// Writes {adapter, features, failures: {device: {case: traceback}}} and exits 1 if any case failed.
import {execFileSync} from "child_process";
import {createRequire} from "module";
import fs from "fs";
import path from "path";
import {fileURLToPath} from "url";

const require = createRequire(import.meta.url);
const tests = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const [bundle, outPath] = process.argv.slice(2);
const {create, globals} = require(process.env.DAWN_NODE);
Object.assign(globalThis, globals);
// by default the flags of bench/dawn.mjs: shader-f16 and subgroup matrices on NVIDIA's Vulkan driver
const flags = process.env.OP_TABLE_DAWN_FLAGS ?? "enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia";
const gpu = create(flags ? [flags] : []);
// Pyodide refuses to start when navigator exists without a userAgent.
Object.defineProperty(globalThis, "navigator", {value: {gpu, userAgent: "node-dawn"}, configurable: true});

const {loadPyodide} = await import(path.resolve(bundle, "pyodide", "pyodide.mjs"));
const pyodide = await loadPyodide({indexURL: path.resolve(bundle, "pyodide") + "/"});
const wheel = fs.readdirSync(bundle).find((f) => f.endsWith(".whl"));
pyodide.unpackArchive(new Uint8Array(fs.readFileSync(path.join(bundle, wheel))), "wheel");
pyodide.FS.mkdirTree("/tests");
for (const f of ["op_cases.py", "nn_cases.py", "more_op_cases.py", "api_cases.py", "complex_cases.py", "compare.py", "run_table.py"]) {
  pyodide.FS.writeFile(`/tests/${f}`, fs.readFileSync(path.join(tests, f)));
}
// expected.json may come xz-compressed (the carry limit of the device tool)
const golden = path.join(bundle, "expected.json");
pyodide.FS.writeFile("/tests/expected.json", fs.existsSync(golden) ? fs.readFileSync(golden)
  : execFileSync("xz", ["-dc", golden + ".xz"], {maxBuffer: 1 << 30}));
pyodide.globals.set("devices", (process.env.OP_TABLE_DEVICES ?? "webgpu,cpu").split(","));
const result = JSON.parse(await pyodide.runPythonAsync(`
import json, sys
sys.path.insert(0, "/tests")
import webtorch
from run_table import table_failures
json.dumps({"adapter": webtorch.webgpu.adapter_info(), "features": webtorch.webgpu.features(),
            "failures": {d: table_failures(webtorch, "/tests/expected.json", d) for d in devices}})
`));
fs.writeFileSync(outPath, JSON.stringify(result, null, 1));
const failed = Object.entries(result.failures).flatMap(([d, f]) => Object.keys(f).map((n) => `${n}[${d}]`));
console.log(`${result.adapter.device}: features ${result.features.join(", ")}; ${failed.length} failed ${failed.join(" ")}`);
process.exit(failed.length ? 1 : 0);
