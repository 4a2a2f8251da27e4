"""The runtime through the browser driver: batching, memory, async readback, WebGPU failures."""
import pytest


def test_batching_and_memory(py):
    submits, allocated, total = py.run("""
import webtorch
from webtorch import webgpu
x = webtorch.ones(1024, device="webgpu")
webgpu.synchronize()
start_submits, start_memory = webgpu.stats()["submits"], webgpu.memory_allocated()
for _ in range(1000):
    x = x * 1.0001 + 0.0001
total = x.sum().item()
submits = webgpu.stats()["submits"] - start_submits
del x
[submits, webgpu.memory_allocated() - start_memory + 4096, total]
""")
    assert submits <= 2000 // 64 + 6  # 2000 kernels: batches of 4, 8, 16, 32, then 64; and the readback
    assert allocated == 0
    assert total == pytest.approx(1024 * (2 * 1.0001 ** 1000 - 1), rel=1e-4)


def test_async_readback_without_jspi(py):
    # Called from a JS callback, Python cannot block on a promise: sync readback says what to do,
    # and the async forms work.
    message, values, item, on_cpu = py.run("""
import asyncio, js
from pyodide.ffi import create_once_callable
import webtorch
x = webtorch.arange(6, device="webgpu").reshape(2, 3) * 2
seen = {}
def callback():
    try:
        x.tolist()
    except RuntimeError as e:
        seen["message"] = str(e)
js.setTimeout(create_once_callable(callback), 0)
while "message" not in seen:
    await asyncio.sleep(0.01)
c = await x.cpu_async()
[seen["message"], await x.tolist_async(), await x[1, 2].item_async(), str(c.device)]
""")
    assert "tolist_async" in message and "runPythonAsync" in message
    assert values == [[0, 2, 4], [6, 8, 10]] and item == 10 and on_cpu == "cpu"


def test_readbacks_nudge_where_the_browser_polls(py):
    """Where the browser polls for finished work (Firefox: the driver's nudgeReadbacks), a readback
    submits empty command buffers while it waits, and reads the same values: forced on here."""
    default, values, nudges = py.run("""
import webtorch
from webtorch.backend import webgpu as runtime_module
driver = runtime_module.runtime().driver._js
default, start = driver.nudgeReadbacks, driver.nudges
driver.nudgeReadbacks = True
try:
    x = webtorch.arange(6, device="webgpu") * 2
    values = [x.sum().item(), x.tolist(), await x.tolist_async()]
finally:
    driver.nudgeReadbacks = default
[default, values, driver.nudges - start]
""")
    assert default is False  # Chromium notices finished work without polling
    assert values == [30, [0, 2, 4, 6, 8, 10], [0, 2, 4, 6, 8, 10]] and nudges >= 3


def test_split_column_reductions_match_torch(py):
    # A column reduction splits its rows over workgroups (partials, then a second pass carrying the
    # arg-reductions' indices) only from gpu.COLUMN_SPLIT_MIN elements: forced here on small columns.
    import torch
    values = [(i * 37) % 101 / 10.0 for i in range(1000 * 37)]  # each extreme ~10 times a column: ties
    t = torch.tensor(values).reshape(1000, 37)
    expected = [t.sum(0).tolist(), t.amax(0).tolist(), t.argmax(0).tolist(), t.argmin(0).tolist()]
    got = py.run(f"""
import webtorch
from webtorch.backend import gpu
split_min, gpu.COLUMN_SPLIT_MIN = gpu.COLUMN_SPLIT_MIN, 0
try:
    x = webtorch.tensor({values!r}, device="webgpu").reshape(1000, 37)
    result = [x.sum(0).tolist(), x.amax(0).tolist(), x.argmax(0).tolist(), x.argmin(0).tolist()]
finally:
    gpu.COLUMN_SPLIT_MIN = split_min  # the session's later tests run as users would
result
""")
    assert got[0] == pytest.approx(expected[0], rel=1e-5)
    assert got[1:] == expected[1:]


def test_too_large_allocation(py):
    message = py.run("""
import webtorch
try:
    webtorch.empty(1 << 40, device="webgpu")
except webtorch.webgpu.OutOfMemoryError as e:
    message = str(e)
message
""")
    assert "exceeds" in message


def test_device_lost_raises_then_reinitialises(py):
    message, after = py.run("""
import webtorch
from webtorch import webgpu
from webtorch.backend.webgpu import runtime
x = webtorch.ones(3, device="webgpu")
x.tolist()
runtime().driver._js.device.destroy()
try:
    (x + 1).tolist()
    message = "no error"
except webgpu.DeviceLostError as e:
    message = str(e)
[message, (webtorch.ones(3, device="webgpu") + 1).tolist()]
""")
    assert "lost" in message
    assert after == [2.0, 2.0, 2.0]


def test_readback_routes_and_their_errors(py):
    # Each way a synchronous readback can suspend (the socket hook, the promise as a future,
    # run_sync's Task) gives the same values (one element after pending kernels, which go in the
    # readback's submission; 12 KB, beyond the small sizes; awaited forms, which suspend the same way)
    # and raises a lost device's error; the first two work in Pyodide 314 (page and worker) and one
    # of them is what webtorch picked.
    got = py.run("""
import webtorch
from webtorch import webgpu
from webtorch.backend.webgpu import runtime
x = webtorch.arange(5, device="webgpu") * 1.5
x.tolist()
picked = runtime().driver.wait_route
result = {"picked": picked}
for route in ("run_sync", "future", "socket"):
    x = webtorch.arange(5, device="webgpu") * 1.5
    big = webtorch.arange(3000, device="webgpu")  # 12 KB: beyond a small transfer's sizes
    driver = runtime().driver
    works = driver.use_wait_route(route)
    values = [x.tolist(), (x[3] + 1).item(), x.sum().item(), await (x[4] * 2).item_async(),
              (big * 2).tolist() == list(range(0, 6000, 2)), await (big + 1).tolist_async() == list(range(1, 3001)),
              [(x * k).sum().item() for k in range(3)]] if works else None
    driver._js.device.destroy()
    try:
        (x + 1).tolist()
        lost = "no error"
    except webgpu.DeviceLostError as e:
        lost = "lost" in str(e)
    result[route] = [works, values, lost]
result["after"] = (webtorch.ones(2, device="webgpu") * 3).tolist()
result
""")
    assert got["picked"] == "socket", got
    for route in ("run_sync", "future", "socket"):
        assert got[route] == [True, [[0.0, 1.5, 3.0, 4.5, 6.0], 5.5, 15.0, 12.0, True, True, [0.0, 15.0, 30.0]],
                              True], (route, got)
    assert got["after"] == [3.0, 3.0]


def test_caching_allocator(py):
    # A 64 MiB buffer is created with its out-of-memory scope awaited (the check passes); it is then
    # cached and reused; a memory limit frees the cache, retries, then raises OutOfMemoryError.
    got = py.run("""
import webtorch
from webtorch import webgpu
webgpu.empty_cache()
big = webtorch.full((1 << 24,), 0.5, device="webgpu")
total = (big + big).sum().item()
segments = webgpu.memory_stats()["segment.all.allocated"]
again = (big * 4).sum().item()
reused = webgpu.memory_stats()["segment.all.allocated"] - segments
del big
cached = webgpu.memory_reserved() - webgpu.memory_allocated()
webgpu.set_memory_limit(webgpu.memory_allocated() + (8 << 20))
try:
    small = webtorch.ones(1 << 20, device="webgpu")  # 4 MiB: fits only once the 128 MiB cache is freed
    retries = webgpu.memory_stats()["num_alloc_retries"]
    try:
        webtorch.ones(3 << 20, device="webgpu")
        message = "no error"
    except webtorch.OutOfMemoryError as e:
        message = str(e)
finally:
    webgpu.set_memory_limit(None)
[total, again, reused, cached >= 2 * (64 << 20), retries, message, small.sum().item()]
""")
    total, again, reused, cached, retries, message, small = got
    assert (total, again) == (1 << 24, 2.0 * (1 << 24)), got
    assert reused == 0 and cached, got  # big * 4 and its sum reuse (big + big)'s buffers
    assert retries >= 1 and "Tried to allocate 12.00 MiB" in message, message
    assert small == float(1 << 20)


def test_embedding_is_a_gather_checked_without_a_readback(py):
    # 64 ids into a 30522x384 table (a one-hot matmul allocated 64x30522 floats): the lookup allocates
    # only its output and, with ids uploaded from the host, reads nothing back from the GPU.
    grew, reads, row = py.run("""
import webtorch
import webtorch.nn.functional as F
from webtorch import webgpu
from webtorch.backend import webgpu as rt
table = webtorch.arange(30522.0, device="webgpu").unsqueeze(1) + webtorch.arange(384.0, device="webgpu") / 512
ids = webtorch.tensor([(i * 7919) % 30522 for i in range(64)], device="webgpu").reshape(4, 16)
webgpu.synchronize()
driver = rt.runtime().driver
seen = []
real_read = driver.read_buffer
driver.read_buffer = lambda *a: (seen.append(a), real_read(*a))[1]
webgpu.reset_peak_memory_stats()
start = webgpu.memory_allocated()
out = F.embedding(ids, table)
grew = webgpu.max_memory_allocated() - start
reads = len(seen)
del driver.read_buffer
[grew, reads, out[1, 2, :3].tolist()]
""")
    assert grew <= 131072  # the output, 64*384 floats, in its pool size class
    assert reads == 0
    assert row == [(18 * 7919) % 30522 + k / 512 for k in range(3)]


def test_validation_error_reaches_python(py):
    # WebGPU reports a rejected command asynchronously (error scopes around each pipeline creation
    # and each submitted batch): it reaches Python at the next readback, sync or async, as
    # webtorch.webgpu.ValidationError (a RuntimeError) with WebGPU's diagnosis, once (the next
    # readback is clean); the device stays usable. The trigger is a kernel whose WGSL does not
    # compile, recorded like any op's: nothing fails when it is recorded.
    got = py.run("""
import webtorch
from webtorch import webgpu
from webtorch.backend.webgpu import runtime
result = []
for form in ("sync", "async"):
    bad = ("test: WGSL that does not compile " + form, "@compute @workgroup_size(64) fn main() { let v: u32 = 1.5; }",
           "w")
    x = webtorch.ones(4, device="webgpu")
    x.tolist()
    runtime().run(bad, [x._storage.buffer], [0], 1)
    try:
        await x.tolist_async() if form == "async" else x.tolist()
        result.append("no error")
    except webgpu.ValidationError as e:
        result.append([isinstance(e, RuntimeError), str(e)])
    result.append((webtorch.ones(3, device="webgpu") + 1).tolist())
result
""")
    for error, after in (got[0:2], got[2:4]):
        assert error != "no error", got
        is_runtime_error, message = error
        assert is_runtime_error and message.startswith("WebGPU rejected a command: "), message
        assert "WGSL" in message and "'u32'" in message, message   # the compiler's diagnosis comes first
        assert after == [2.0, 2.0, 2.0]
