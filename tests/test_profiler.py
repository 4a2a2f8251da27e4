"""webtorch.profiler on the native driver: op names and counts, GPU times, memory, Chrome trace."""
import json

import pytest

import webtorch
import webtorch.nn.functional as F
from webtorch import webgpu
from webtorch.backend import webgpu as runtime_module
from webtorch.profiler import ProfilerActivity, profile, record_function


def _workload():
    a = webtorch.ones(64, 64, device="webgpu")
    table = webtorch.ones(50, 8, device="webgpu")
    ids = webtorch.tensor([[1, 2], [3, 4]], device="webgpu")
    webgpu.synchronize()
    return a, table, ids


def _run(a, table, ids):
    with record_function("block"):
        for _ in range(3):
            b = a + 1
        c = webtorch.matmul(b, b)
        c = webtorch.matmul(c, a)
    e = F.embedding(ids, table)
    return c.sum().item() + e.sum().item()


def _rows(prof):
    return {(r.key, r.is_kernel): r for r in prof.key_averages()}


def test_counts_names_memory_and_gpu_times():
    inputs = _workload()
    if "timestamp-query" not in runtime_module.runtime().features:
        pytest.skip("this adapter has no timestamp-query: GPU times are measured by synchronising "
                    "(test_gpu_time_by_synchronising)")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True) as prof:
        _run(*inputs)
    rows = _rows(prof)
    assert prof.gpu_timing == "timestamp-query"
    assert rows[("add", False)].count == 3 and rows[("matmul", False)].count == 2
    assert rows[("embedding", False)].count == 1 and rows[("block", False)].count == 1
    assert rows[("item", False)].count == 2 and rows[("sum", False)].count == 2
    assert rows[("ew add", True)].count == 3 and rows[("take f32", True)].count == 1
    # every kernel has a GPU time, and it is attributed to the op that recorded it
    kernels = [e for e in prof.events() if e.kind == "kernel"]
    assert kernels and all(k.gpu_us > 0 for k in kernels)
    assert all(k.parent is not None for k in kernels)
    assert rows[("add", False)].self_gpu_time_total == pytest.approx(rows[("ew add", True)].self_gpu_time_total)
    assert rows[("block", False)].gpu_time_total >= rows[("matmul", False)].gpu_time_total > 0
    total_gpu = sum(k.gpu_us for k in kernels)
    assert sum(r.self_gpu_time_total for r in prof.key_averages() if not r.is_kernel) == pytest.approx(total_gpu)
    # memory: each add leaves its 64x64 float result allocated (until the next one replaces it)
    assert rows[("embedding", False)].gpu_memory_usage == runtime_module.bucket(2 * 2 * 8 * 4)
    table = prof.key_averages().table(sort_by="self_gpu_time_total", row_limit=5)
    assert "Self GPU" in table and "GPU Mem" in table and "timestamp-query" in table
    assert len([line for line in table.splitlines() if line and not line.startswith(("-", "Self", "Name"))]) == 5


def test_gpu_time_by_synchronising(monkeypatch):
    inputs = _workload()
    rt = runtime_module.runtime()
    monkeypatch.setattr(rt, "features", rt.features - {"timestamp-query"})
    with profile() as prof:
        _run(*inputs)
    rows = _rows(prof)
    assert prof.gpu_timing == "synchronized"
    assert rows[("matmul", False)].count == 2 and rows[("ew add", True)].count == 3
    assert "waited for alone" in prof.key_averages().table()
    # the waits are not host time: an op's host time stays below the wall time of the whole run
    assert all(e.cpu_total_us >= 0 for e in prof.events() if e.kind != "kernel")


def test_chrome_trace_and_nothing_left_behind(tmp_path):
    inputs = _workload()
    rt = runtime_module.runtime()
    add, tensor_add, run = webtorch.add, webtorch.Tensor.__add__, rt.run
    with profile() as prof:
        _run(*inputs)
    assert webtorch.add is add and webtorch.Tensor.__add__ is tensor_add and rt.run == run
    assert "run" not in vars(rt) and rt._submit == rt.driver.submit
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert {e["name"] for e in spans} >= {"add", "matmul", "embedding", "block", "ew add"}
    assert all(isinstance(e["ts"], (int, float)) and e["dur"] >= 0 and e["pid"] in (0, 1) for e in spans)
    assert {e["pid"] for e in spans if e["cat"] == "kernel"} == {1}
    with pytest.raises(ValueError, match="sort_by"):
        prof.key_averages().table(sort_by="bogus")


def test_record_function_outside_a_profile_and_as_decorator():
    @record_function("decorated")
    def f(x):
        return x * 2
    x = webtorch.ones(3, device="webgpu")
    assert f(x).tolist() == [2.0, 2.0, 2.0]  # no profile: nothing recorded, nothing raised
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        f(x)
        with pytest.raises(RuntimeError, match="already running"):
            profile().start()
    rows = _rows(prof)
    assert rows[("decorated", False)].count == 1 and rows[("mul", False)].count == 1
    assert prof.gpu_timing is None and not any(k for k, kernel in rows if kernel)
