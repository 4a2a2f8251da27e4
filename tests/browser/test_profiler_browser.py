"""webtorch.profiler through the browser driver (page and module worker)."""
import json


def test_profiler_counts_gpu_times_and_trace(py):
    result = json.loads(py.run("""
import json
import webtorch
import webtorch.nn.functional as F
from webtorch.backend import webgpu as rt
from webtorch.profiler import ProfilerActivity, profile, record_function
a = webtorch.ones(32, 32, device="webgpu")
table = webtorch.ones(40, 8, device="webgpu")
ids = webtorch.tensor([[1, 2], [3, 4]], device="webgpu")
webtorch.webgpu.synchronize()
add_before = webtorch.Tensor.__add__
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.WEBGPU], profile_memory=True) as prof:
    with record_function("block"):
        for _ in range(3):
            b = a + 1
        c = webtorch.matmul(b, b)
    e = F.embedding(ids, table)
    total = c.sum().item() + e.sum().item()
rows = {(r.key, r.is_kernel): r for r in prof.key_averages()}
kernels = [e for e in prof.events() if e.kind == "kernel"]
prof.export_chrome_trace("/tmp/trace.json")
json.dumps({
    "timing": prof.gpu_timing,
    "features": sorted(rt.runtime().features),
    "counts": {k: rows[(k, False)].count for k in ("add", "matmul", "embedding", "block", "item")},
    "ew_add": rows[("ew add", True)].count,
    "kernel_times": [k.gpu_us for k in kernels],
    "attributed": all(k.parent is not None for k in kernels),
    "op_gpu": sum(r.self_gpu_time_total for r in prof.key_averages() if not r.is_kernel),
    "trace": json.load(open("/tmp/trace.json")),
    "table": prof.key_averages().table(sort_by="self_gpu_time_total", row_limit=8),
    "restored": webtorch.Tensor.__add__ is add_before and "run" not in vars(rt.runtime()),
    "total": total,
})
"""))
    print(result["table"])
    assert result["counts"] == {"add": 3, "matmul": 1, "embedding": 1, "block": 1, "item": 2}
    assert result["ew_add"] == 3 and result["attributed"] and result["restored"]
    assert result["total"] == 32 * 32 * (2 * 2 * 32) + 4 * 8
    times = result["kernel_times"]
    if "timestamp-query" in result["features"]:
        assert result["timing"] == "timestamp-query" and "timestamp-query" in result["table"]
        # Chrome may quantise timestamps (100 us without its WebGPU developer features): some kernels
        # can read 0, but not all of them
        assert any(t > 0 for t in times) and all(t >= 0 for t in times)
    else:
        print("this adapter has no timestamp-query: GPU times measured by synchronising")
        assert result["timing"] == "synchronized" and "waited for alone" in result["table"]
        assert all(t >= 0 for t in times)
    assert abs(result["op_gpu"] - sum(times)) <= 1e-6 * max(1.0, sum(times))
    spans = [e for e in result["trace"]["traceEvents"] if e["ph"] == "X"]
    assert {"add", "matmul", "embedding", "block", "ew add"} <= {e["name"] for e in spans}
    assert all(e["dur"] >= 0 and e["pid"] in (0, 1) for e in spans)
