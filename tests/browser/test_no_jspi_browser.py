"""webtorch in a browser without JSPI (Safari, Firefox before 153), on the page and in the worker:
every synchronous readback raises a RuntimeError naming its awaited form, at once (no hang, no
busy-wait); the awaited forms work; the training demo (web/examples/train_digits.py) trains through them."""
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
json.dumps({"init_error": init_error, "jspi": hasattr(js.WebAssembly, "Suspending"), "can_run_sync": can_run_sync(), "errors": errors,
            "item": await s.item_async(), "list": await t.tolist_async(),
            "cpu": (await t.cpu_async()).tolist(), "nonzero": torch.nonzero(await t.cpu_async()).tolist()})
"""


def test_sync_reads_name_their_async_form(py_no_jspi):
    import json
    r = json.loads(py_no_jspi.run(SETUP + f"CASES = {json.dumps(json.dumps(SYNC_READS))}\n" + PROBE))
    assert r["jspi"] is False and r["can_run_sync"] is False, r
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
