"""Readback in Pyodide (JSPI through the socket route, and awaited): .item(), tolist(), .cpu() of every dtype,
views and sizes against torch's values computed on the host (tests/test_readback.py's table)."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_readback import DTYPES, VIEWS, _values  # noqa: E402

SIZES = [0, 3, 1027]  # 1027 float16s: more than gpu.WIDEN_HALVES_ON_GPU (widened by a kernel)


def test_readback_of_every_dtype_and_view(py_page):
    cases = {f"{d}-{n}": [d, _values(d, n).tolist()] for d in DTYPES for n in SIZES}
    golden = {key: {name: eval(expr, {"t": _values(d, len(v))}).tolist() for name, expr in VIEWS.items()}
              for key, (d, v) in cases.items()}
    got = json.loads(py_page.run(f"""
import json
import webtorch as T
from webtorch.backend import webgpu
driver = webgpu.runtime().driver
out = {{}}
for key, (dtype, values) in json.loads({json.dumps(json.dumps(cases))}).items():
    w = T.tensor(values, dtype=getattr(T, dtype), device="webgpu")
    for name, expr in {VIEWS!r}.items():
        v = eval(expr, {{"t": w}})
        host = v.cpu()
        out[key + " " + name] = [v.tolist(), host.tolist(), host.dtype == v.dtype, await v.tolist_async(),
                                 w[-1].item() if values else None]
# an uninitialised bool tensor over a recycled buffer: any nonzero word is True
words = T.tensor([0, 1, 256, 65536, 1 << 24, -1, 0, 2] * 300, dtype=T.int32, device="webgpu")
del words
out["recycled bool"] = T.empty(2400, dtype=T.bool, device="webgpu").tolist() == [False, True, True, True, True, True, False,
                                                                                  True] * 300
# browser_driver.js's profile flag: the hops of one synchronous readback, in order
import js
driver._js.marks = js.Array.new()
(T.ones(4, device="webgpu") * 2).sum().item()
marks = driver._js.marks.to_py()[0::2]
driver._js.marks = None
out["marks"] = [driver.wait_route, marks]
json.dumps(out)
"""))
    for key, (dtype, values) in cases.items():
        for name in VIEWS:
            want = golden[key][name]
            tolist, cpu, same_dtype, awaited, last = got[f"{key} {name}"]
            assert tolist == want and cpu == want and awaited == want and same_dtype, (key, name, tolist[:6], want[:6])
            if values:
                assert last == values[-1], (key, last, values[-1])
    assert got["recycled bool"]
    route, marks = got["marks"]
    assert marks[:3] == ["readBuffer", "submitted", "suspend"] if route == "socket" else marks[:2] == [
        "readBuffer", "submitted"], marks
    assert marks[-3:] == ["mapped", "checked", "settled"], marks
