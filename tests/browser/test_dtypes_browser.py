"""The narrow and wide dtypes in Pyodide on webgpu and cpu (pure Python): values torch computed on
the host. On webgpu int8/int16/uint8/bfloat16 keep their dtype (wrapped/rounded results) and float64
becomes float32 with a warning."""
import json

import torch

EXPRS = ["x", "x * 3", "x + x.flip(0)", "x.sum(0)", "x.cumsum(1)", "x.sort(1).values", "x @ x.t()",
         "x.to(T.float32)", "x.amax(1)"]
VALUES = [[100, -100, 50, 7], [-3, 127, -128, 1], [0, 9, -9, 64]]


def _golden():
    out = {}
    for name in ("uint8", "int8", "int16", "bfloat16", "float64"):
        values = [[abs(v) for v in row] for row in VALUES] if name == "uint8" else VALUES
        if name in ("bfloat16", "float64"):
            values = [[v * 1.0078125 for v in row] for row in values]
        x, T = torch.tensor(values, dtype=getattr(torch, name)), torch
        out[name] = [values, [[str(r.dtype)[6:], r.flatten().tolist()] for r in (eval(e, {"x": x, "T": T}) for e in EXPRS)]]
    return out


def test_dtypes_on_webgpu_and_cpu(py_page):
    golden = _golden()
    got = py_page.run(f"""
import json, warnings
import webtorch as T
golden = json.loads({json.dumps(json.dumps(golden))})
got = {{}}
for device in ("webgpu", "cpu"):
    for name, (values, _) in golden.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            x = T.tensor(values, dtype=getattr(T, name), device=device)
        rows = [[r.dtype.name, r.cpu().reshape(-1).tolist()] for r in (eval(e, {{"x": x, "T": T}}) for e in {EXPRS!r})]
        got[device + "-" + name] = [rows, [str(w.message) for w in caught]]
json.dumps(got)
""")
    got = json.loads(got)
    for device in ("webgpu", "cpu"):
        for name, (_, expected) in golden.items():
            rows, warned = got[f"{device}-{name}"]
            on_f32 = device == "webgpu" and name == "float64"
            assert bool(warned) == on_f32 and all("float64" in w for w in warned), (device, name, warned)
            for expr, (dtype, values), (want_dtype, want) in zip(EXPRS, rows, expected):
                assert dtype == ("float32" if on_f32 and want_dtype == "float64" else want_dtype), (device, name, expr)
                tol = 1e-6 if on_f32 else 0
                assert all(abs(a - b) <= tol * max(1, abs(b)) for a, b in zip(values, want)) and \
                    len(values) == len(want), (device, name, expr, values, want)
