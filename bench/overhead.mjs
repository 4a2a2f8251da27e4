// Python-side cost of eager ops in Pyodide, without a GPU: Node runs Pyodide with webtorch's browser
// driver bound to a null WebGPU driver (same calls, no work), so what is timed is Python + the FFI.
//   node bench/overhead.mjs [--profile]      (from the repo root; needs node_modules/pyodide)
import path from "path";
import {fileURLToPath} from "url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const {loadPyodide} = await import(path.join(repo, "node_modules", "pyodide", "pyodide.mjs"));
const pyodide = await loadPyodide();
pyodide.FS.mkdirTree("/src/webtorch");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, {root: path.join(repo, "webtorch")}, "/src/webtorch");

let nextId = 1;
globalThis.nullDriver = {
  limits: {max_storage_buffer_binding_size: 1 << 30, max_buffer_size: 1 << 30, max_storage_buffers_per_shader_stage: 10,
           max_compute_workgroup_storage_size: 32768, max_compute_invocations_per_workgroup: 256,
           min_storage_buffer_offset_alignment: 256},
  info: {vendor: "null", architecture: "", device: "", description: "no GPU: Python and FFI cost only"},
  features: [], submitCount: 0,
  createBuffer: () => nextId++, destroyBuffer: () => {}, writeBuffer: () => {},
  createPipeline: () => 0, submit() { this.submitCount++; }, readBuffer: async () => {},
};
try {
  console.log(await pyodide.runPythonAsync(`
import sys, time, io, cProfile, pstats
sys.path.insert(0, "/src")
import js
from webtorch.backend import webgpu, driver_browser
webgpu._runtime = webgpu.Runtime(driver_browser.BrowserDriver(js.nullDriver))
import webtorch as torch

x = torch.full((1024,), 1.0, device="webgpu")
def chain(n):
    y = x
    for _ in range(n // 2):
        y = y + 1.0
        y = y * 0.5
    return y

chain(1000)
runs = []
for _ in range(15):
    t0 = time.perf_counter(); chain(4000); runs.append(time.perf_counter() - t0)
report = f"chain of elementwise ops, Pyodide, null GPU driver: {min(runs) / 4000 * 1e6:.1f} us/op (best of 15)"
if ${process.argv.includes("--profile") ? "True" : "False"}:
    cProfile.run("chain(4000)", "/tmp/prof")
    s = io.StringIO(); pstats.Stats("/tmp/prof", stream=s).sort_stats("tottime").print_stats(25); report += s.getvalue()
report`));
} catch (e) {
  console.log(e.message);  // the Python traceback
  process.exit(1);
}
