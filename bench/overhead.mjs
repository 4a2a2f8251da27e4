// Python-side cost of eager ops in Pyodide, without a GPU: Node runs Pyodide with webtorch's browser
// driver bound to a null WebGPU driver (same calls, no work), so what is timed is Python + the FFI.
//   node bench/overhead.mjs [--profile [chain|mlp]]      (from the repo root; needs node_modules/pyodide)
import path from "path";
import {fileURLToPath} from "url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const {loadPyodide} = await import(path.join(repo, "node_modules", "pyodide", "pyodide.mjs"));
const pyodide = await loadPyodide();
pyodide.FS.mkdirTree("/src/webtorch");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, {root: path.join(repo, "webtorch")}, "/src/webtorch");

// The null driver is webtorch's own JS driver class with its GPU calls replaced by no-ops: the
// readback machinery (beginRead's parked promise, the socket hook, hostStaging) is the real one.
globalThis.makeNullDriver = (DriverClass) => {
  let nextId = 1;
  return Object.assign(Object.create(DriverClass.prototype), {
    limits: {max_storage_buffer_binding_size: 1 << 30, max_buffer_size: 1 << 30, max_storage_buffers_per_shader_stage: 10,
             max_compute_workgroup_storage_size: 32768, max_compute_invocations_per_workgroup: 256,
             min_storage_buffer_offset_alignment: 256},
    info: {vendor: "null", architecture: "", device: "", description: "no GPU: Python and FFI cost only"},
    features: [], submitCount: 0, pending: null, pendingError: undefined, socketWaits: 0,
    hostStaging: new Uint8Array(4096), lost: null,
    createBuffer: () => nextId++, destroyBuffer: () => {}, writeBuffer: () => {},
    createPipeline: () => 0, submit() { this.submitCount++; },
    readBuffer: async (id, offset, nbytes, dest) => (dest ? nbytes : new Uint8Array(nbytes)),
  });
};
try {
  console.log(await pyodide.runPythonAsync(`
import sys, time, io, cProfile, pstats
sys.path.insert(0, "/src")
import js
from webtorch.backend import webgpu, driver_browser
webgpu._runtime = webgpu.Runtime(driver_browser.BrowserDriver(js.makeNullDriver(driver_browser.BrowserDriver._driver_class())))
import webtorch as torch

x = torch.full((1024,), 1.0, device="webgpu")
def chain(n):
    y = x
    for _ in range(n // 2):
        y = y + 1.0
        y = y * 0.5
    return y

def cpu_seconds():  # this process's CPU time: steadier than the clock on a loaded machine
    used = js.process.cpuUsage()
    return (used.user + used.system) / 1e6

chain(1000)
runs, cpu_runs = [], []
for _ in range(15):
    t0, c0 = time.perf_counter(), cpu_seconds()
    chain(4000)
    runs.append(time.perf_counter() - t0)
    cpu_runs.append(cpu_seconds() - c0)
report = (f"chain of elementwise ops, Pyodide, null GPU driver: {min(runs) / 4000 * 1e6:.1f} us/op (best of 15; "
          f"CPU time {min(cpu_runs) / 4000 * 1e6:.1f})\\n")
x2 = torch.full((64, 256), 1.0, device="webgpu")
for label, reduction in (("x.sum()", lambda: x.sum()), ("x.mean()", lambda: x.mean()),
                         ("x.sum(1) (64x256)", lambda: x2.sum(1))):
    reduction()
    cpu_runs = []
    for _ in range(15):
        c0 = cpu_seconds()
        for _ in range(1000):
            reduction()
        cpu_runs.append(cpu_seconds() - c0)
    report += f"{label}: {min(cpu_runs) / 1000 * 1e6:.1f} us CPU time (best of 15)\\n"

net = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)).to("webgpu")
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
xb, yb = torch.full((64, 784), 0.5, device="webgpu"), torch.zeros(64, dtype=torch.int64, device="webgpu")
def step():
    loss = torch.nn.functional.cross_entropy(net(xb), yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
step()
k0 = webgpu.runtime().kernels_dispatched
runs = []
for _ in range(10):
    t0 = time.perf_counter(); step(); runs.append(time.perf_counter() - t0)
kernels = (webgpu.runtime().kernels_dispatched - k0) / 10
report += (f"MLP 784-256-10 Adam training step: {min(runs) * 1e3:.2f} ms, {kernels:.0f} kernels, "
           f"{min(runs) / kernels * 1e6:.1f} us/kernel")
workload = "[step() for _ in range(20)]" if "${process.argv[3] || ""}" == "mlp" else "chain(4000)"
if ${process.argv.includes("--profile") ? "True" : "False"}:
    cProfile.run(workload, "/tmp/prof")
    s = io.StringIO(); pstats.Stats("/tmp/prof", stream=s).sort_stats("${process.env.SORT || "tottime"}").print_stats(40); report += s.getvalue()
report`));
} catch (e) {
  console.log(e.message);  // the Python traceback
  process.exit(1);
}
