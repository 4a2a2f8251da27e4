"""webtorch in a browser without JSPI (Safari, Firefox before 153), on the page and in the worker:
every synchronous readback raises a RuntimeError naming its awaited form, at once (no hang, no
busy-wait); the awaited forms work; the training demo (web/examples/train_digits.py) trains through them.
In a cross-origin-isolated worker the SharedArrayBuffer bridge makes synchronous reads work."""
from pathlib import Path

import pytest

pytestmark = pytest.mark.webgpu

REPO = Path(__file__).resolve().parents[2]

SETUP = """
import json, time, webtorch as torch
from pyodide.ffi import can_run_sync
import js
try:  # the session's first use of the device: WebGPU cannot start synchronously
    torch.ones(1, device="webgpu")
    init_error = "no error"
except torch.webgpu.WebGPUUnavailableError as e:
    init_error = str(e)
await torch.webgpu.init_async()
t = torch.tensor([[1.5, -2.0], [0.0, 4.0]], device="webgpu")
s = t.sum()
"""

# (the synchronous read, the awaited form its error must name)
SYNC_READS = [
    ("s.item()", "await t.item_async()"),
    ("t.tolist()", "await t.tolist_async()"),
    ("t.cpu()", "await t.cpu_async()"),
    ("t.to('cpu')", "await t.cpu_async()"),
    ("print(t)", "print(await t.cpu_async())"),
    ("bool(s)", "bool(await t.item_async())"),
    ("float(s)", "float(await t.item_async())"),
    ("f'{s:.2f}'", "format(await t.item_async(), spec)"),
    ("torch.nonzero(t)", "await t.cpu_async()"),  # reads its count back inside: no async twin
]

PROBE = """
errors = {}
for code, _ in json.loads(CASES):
    start = time.perf_counter()
    try:
        eval(code)
        errors[code] = ["no error", 0]
    except RuntimeError as e:
        errors[code] = [str(e), time.perf_counter() - start]
json.dumps({"init_error": init_error, "mode": torch.webgpu.sync_mode(), "jspi": hasattr(js.WebAssembly, "Suspending"), "can_run_sync": can_run_sync(), "errors": errors,
            "item": await s.item_async(), "list": await t.tolist_async(),
            "cpu": (await t.cpu_async()).tolist(), "nonzero": torch.nonzero(await t.cpu_async()).tolist()})
"""


def test_sync_reads_name_their_async_form(py_no_jspi):
    import json
    r = json.loads(py_no_jspi.run(SETUP + f"CASES = {json.dumps(json.dumps(SYNC_READS))}\n" + PROBE))
    assert r["jspi"] is False and r["can_run_sync"] is False and r["mode"] == "async", r
    if py_no_jspi.mode == "page":  # (web/worker.js initialises WebGPU at start-up, awaited)
        assert "run `await webtorch.webgpu.init_async()` first" in r["init_error"], r["init_error"]

    for code, form in SYNC_READS:
        message, seconds = r["errors"][code]
        assert f"use `{form}`" in message or (form in message and "no async form" in message), (code, message)
        assert "JSPI" in message, message
        assert seconds < 1.0, (code, seconds)  # raised at once: no waiting for a promise that cannot settle
    assert "nonzero" in r["errors"]["torch.nonzero(t)"][0], r["errors"]  # the op the user called
    assert r["item"] == 3.5 and r["list"] == [[1.5, -2.0], [0.0, 4.0]] and r["cpu"] == r["list"], r
    assert r["nonzero"] == [[0, 0], [0, 1], [1, 1]], r


@pytest.mark.parametrize("py_no_jspi", ["worker"], indirect=True)  # where the demo page runs it
def test_training_demo_through_async_forms(py_no_jspi):
    py_no_jspi.put_file("/tmp/digits.bin", (REPO / "web" / "data" / "digits.bin").read_bytes())
    code = (REPO / "web" / "examples" / "train_digits.py").read_text()
    assert "raw = await load_digits()" in code
    code = code.replace("raw = await load_digits()", "raw = open('/tmp/digits.bin', 'rb').read()")
    py_no_jspi.run("EPOCHS, BATCH = 1, 256\n" + code, timeout=300)
    out = py_no_jspi.stdout()
    assert "epoch 1/1" in out and "done in" in out, out
    accuracy = float(out.rsplit("test accuracy ", 1)[1].split()[0])
    assert accuracy > 0.3, out  # six steps of Adam (chance: 0.1)


# -- the SharedArrayBuffer bridge: a cross-origin-isolated worker without JSPI ------------------------
EARLY_USE = """
import webtorch
try:
    webtorch.ones(1, device="webgpu")
    early = "no error"
except webtorch.webgpu.WebGPUUnavailableError as e:
    early = str(e)
early
"""


@pytest.fixture(scope="module")
def py_bridge(browser, server_url):
    from conftest import _open_session
    s = _open_session(browser, server_url, "worker", jspi=False)
    # The bridge's GPU worker starts at import and runs once Python has yielded to the event loop for a
    # while (~0.1 s): a first use before that names the awaited start; after it, the device's first use
    # is synchronous (as in later runs of a page).
    early = s.run(EARLY_USE)
    assert "await webtorch.webgpu.init_async()" in early, early
    s.run("from webtorch.backend.driver_browser import prestart\nawait prestart().started")
    yield s
    s.page.context.close()


# A small MLP trained with SGD, every step's loss read with .item(): its golden values are torch's
# (few kinds of kernel: each costs a compile, ~0.5 s on SwiftShader)
TRAIN = """
import json, webtorch as torch
import webtorch.nn.functional as F
mode = torch.webgpu.sync_mode()
w1, w2, x, y = (torch.tensor(v, device="webgpu") for v in json.loads(DATA))  # the device starts here
opt = torch.optim.SGD([w1.requires_grad_(), w2.requires_grad_()], lr=0.1)
losses = []
for step in range(8):
    loss = F.mse_loss(torch.relu(x @ w1.T) @ w2.T, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
print(loss)
big = torch.arange(100_000, device="webgpu")  # 800 KB: larger than the bridge's first reply region
json.dumps({"mode": mode, "route": torch.webgpu.stats()["readback_route"], "losses": losses, "w2": w2.tolist(),
            "float": float(loss), "awaited": await loss.item_async(), "big": big.tolist() == list(range(100_000))})
"""


def _torch_training(data):
    import torch
    w1, w2, x, y = (torch.tensor(v) for v in data)
    opt = torch.optim.SGD([w1.requires_grad_(), w2.requires_grad_()], lr=0.1)
    losses = []
    for _ in range(8):
        loss = torch.nn.functional.mse_loss(torch.relu(x @ w1.T) @ w2.T, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, w2.tolist()


def test_bridge_trains_with_synchronous_reads(py_bridge):
    import json
    import random
    rng = random.Random(0)
    rand = lambda rows, cols: [[rng.uniform(-1, 1) for _ in range(cols)] for _ in range(rows)]  # noqa: E731
    data = [rand(16, 8), rand(3, 16), rand(32, 8), rand(32, 3)]
    r = json.loads(py_bridge.run(f"DATA = {json.dumps(json.dumps(data))}\n" + TRAIN, timeout=120))
    assert r["mode"] == "bridge" and r["route"] == "bridge", r
    losses, w2 = _torch_training(data)
    assert r["losses"] == pytest.approx(losses, rel=1e-4), (r["losses"], losses)
    assert losses[-1] < losses[0] * 0.9, losses  # it learns
    assert all(a == pytest.approx(b, abs=1e-4) for a, b in zip(r["w2"], w2)), (r["w2"], w2)
    assert r["float"] == r["losses"][-1] and r["awaited"] == r["float"] and r["big"] is True, r
    assert f"tensor({r['losses'][-1]:.4f}" in py_bridge.stdout(), py_bridge.stdout()  # print(t)


ERRORS = """
import webtorch as torch
from webtorch.backend.webgpu import runtime
x = torch.ones(4, device="webgpu")
x.tolist()  # (its fill's batch done: the rejected kernel's batch fails as a whole)
bad = ("test: WGSL that does not compile", "@compute @workgroup_size(64) fn main() { let v: u32 = 1.5; }", "w")
runtime().run(bad, [x._storage.buffer], [0], 1)  # rejected in the GPU worker, reported at the next read
try:
    x.tolist()
    error = "no error"
except torch.webgpu.ValidationError as e:
    error = str(e)
try:
    torch.empty(1 << 40, device="webgpu")
    too_large = "no error"
except torch.webgpu.OutOfMemoryError as e:
    too_large = str(e)
large = torch.empty(17 << 20, device="webgpu")  # 68 MB: its allocation waits for the device's OOM verdict
large[:2] = 5.0
[error, too_large, (torch.ones(4, device="webgpu") * 3).sum().item(), large[:3].tolist()[:2]]  # the bridge still answers after the error
"""


def test_bridge_raises_the_gpu_workers_errors(py_bridge):
    error, too_large, after, large = py_bridge.run(ERRORS, timeout=60)
    assert error.startswith("WebGPU rejected a command: "), error
    assert "exceeds" in too_large, too_large
    assert after == 12.0 and large == [5.0, 5.0]
