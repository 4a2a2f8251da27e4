"""The float32 elementwise sweep (tests/test_elementwise_accuracy.py) inside Pyodide on WebGPU
(SwiftShader here): every unary and binary op over a thinned sample of the whole float32 range,
against values torch produced on the host, with the host test's tolerances.

WGSL lets an adapter flush subnormal floats to zero, and SwiftShader does so with its inputs too
(log(1e-40) is -inf there, sign(1e-40) 0): for an element with a subnormal operand torch's value for
that operand flushed to a signed zero is accepted as well (docs/limits.md). So is the float64
value rounded to float32: torch's float32 at the edges depends on its CPU path (tests/torch_paths.py)."""
import json
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import test_elementwise_accuracy as sweep  # noqa: E402

RUN = """
import json, math
import webtorch
spec = json.loads({spec!r})
dec = lambda v: float(v) if isinstance(v, str) else v
failures = {{}}
def close(a, e, rtol, atol):
    if math.isnan(e) or math.isnan(a) or math.isinf(e) or math.isinf(a):
        return (math.isnan(a) and math.isnan(e)) or a == e
    return abs(a - e) <= atol + rtol * abs(e) and (e != 0 or a == 0 or abs(a) <= atol)
for name, (args, expected, flushed, exact, rtol, atol) in spec.items():
    fn = webtorch if hasattr(webtorch, name.split(".")[0]) else webtorch.nn.functional
    for part in name.split("."):
        fn = getattr(fn, part)
    args = [[dec(v) for v in a] for a in args]
    got = fn(*[webtorch.tensor(a, device="webgpu") for a in args]).tolist()
    bad = []
    for i, (a, e, f, x) in enumerate(zip(got, map(dec, expected), map(dec, flushed), map(dec, exact))):
        if not (close(a, e, rtol, atol) or close(a, f, rtol, atol) or close(a, x, rtol, atol)):
            bad.append("%r: %r (torch %r)" % ([x[i] for x in args], a, e))
    if bad:
        failures[name] = "%d of %d differ, e.g. %s" % (len(bad), len(got), "; ".join(bad[:4]))
json.dumps(failures)
"""


def _flush(t):
    """t with its subnormal values replaced by zeros of their sign."""
    return torch.where(t.abs() < 2.0 ** -126, t * 0, t)


def _enc(values):
    return [v if math_finite(v) else repr(v) for v in values]


def math_finite(v):
    return v == v and v not in (float("inf"), float("-inf"))


@pytest.fixture(scope="module")
def failures(py_page):
    spec = {}
    x = sweep.UNARY_VALUES[::3]
    for name, fn in sweep.UNARY.items():
        dtype = torch.float64 if name in ("sinh", "cosh") else torch.float32
        t = torch.tensor(x, dtype=torch.float32)
        expected, flushed, exact = (fn(v.to(d)).float().tolist() for v, d in ((t, dtype), (_flush(t), dtype),
                                                                              (t, torch.float64)))
        spec[name] = ([_enc(x)], _enc(expected), _enc(flushed), _enc(exact), sweep.RTOL_OF.get(name, sweep.RTOL),
                      sweep.ATOL_OF.get(name, sweep.ATOL))
    values = sweep.BINARY_VALUES[::2]
    a = [u for u in values for _ in values]
    b = [v for _ in values for v in values]
    for name, fn in sweep.BINARY.items():
        dtype = torch.float64 if name in ("fmod", "remainder") else torch.float32
        ta, tb = torch.tensor(a), torch.tensor(b)
        expected = fn(ta.to(dtype), tb.to(dtype)).float().tolist()
        flushed = fn(_flush(ta).to(dtype), _flush(tb).to(dtype)).float().tolist()
        exact = expected if name == "nextafter" else fn(ta.double(), tb.double()).float().tolist()
        spec[name] = ([_enc(a), _enc(b)], _enc(expected), _enc(flushed), _enc(exact), sweep.RTOL_OF.get(name, sweep.RTOL),
                      sweep.ATOL_OF.get(name, sweep.ATOL))
    return json.loads(py_page.run(RUN.format(spec=json.dumps(spec)), timeout=900))


@pytest.mark.parametrize("name", sorted(sweep.UNARY) + sorted(sweep.BINARY))
def test_elementwise_accuracy_in_browser(failures, name):
    assert name not in failures, f"{name}[webgpu in Pyodide]: {failures[name]}"
