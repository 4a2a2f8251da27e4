"""torch.save / torch.load in Pyodide: a checkpoint host torch wrote loads on webgpu and cpu with
torch's values, dtypes, layouts and shared storages; what Pyodide saves loads in host torch; the
hostile and corrupt files of tests/checkpoint_cases.py are refused there too."""
import base64
import io
import json

import torch

from checkpoint_cases import describe

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def _checkpoint():
    g = torch.Generator().manual_seed(0)
    base = torch.randn(4, 6, generator=g)
    emb, head = torch.nn.Embedding(5, 3), torch.nn.Linear(3, 5, bias=False)
    head.weight = emb.weight  # tied
    model = torch.nn.ModuleDict({"emb": emb, "head": head, "norm": torch.nn.LayerNorm(3)})
    tensors = {name: (torch.randn(2, 3, generator=g) * 50).to(getattr(torch, name)) if name != "bool"
               else torch.rand(2, 3, generator=g) > 0.5 for name in DTYPES}
    return {"dtypes": tensors, "t": base.t(), "slice": base[1:, ::2], "row": base[2], "base": base,
            "zero_d": torch.tensor(-1.25), "empty": torch.empty(0, 3), "special": torch.tensor([float("nan"), float("inf")]),
            "param": torch.nn.Parameter(torch.randn(2, generator=g)), "state_dict": model.state_dict(),
            "optim": {"state": {0: {"step": torch.tensor(3.0), "exp_avg": torch.zeros(2)}},
                      "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "params": [0]}]},
            "size": torch.Size([2, 3]), "dtype": torch.bfloat16, "nested": [1, "a", (2.5, None, True)]}


def _torch_describe(obj):
    return describe(obj, lambda t: t.untyped_storage().data_ptr())


def _same(got, want, as_float32=()):
    """describe() outputs equal, except that tensors of the dtypes in as_float32 (converted on webgpu)
    are float32 with values within float32's rounding."""
    if isinstance(want, dict) and want.get("dtype") in as_float32:
        assert got["dtype"] == "float32" and {**got, "dtype": "x", "values": 0} == {**want, "dtype": "x", "values": 0}
        assert all(abs(a - b) <= 1e-6 * abs(b) for a, b in zip(got["values"], want["values"]))
    elif isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), (got, want)
        for k in want:
            _same(got[k], want[k], as_float32)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (got, want)
        for a, b in zip(got, want):
            _same(a, b, as_float32)
    else:
        assert got == want


def test_checkpoints_cross_between_torch_and_pyodide(py_page):
    obj = _checkpoint()
    buf = io.BytesIO()
    torch.save(obj, buf)
    py_page.put_file("/tmp/ckpt/model.pt", buf.getvalue())
    py_page.put_test_module("checkpoint_cases.py")
    got = json.loads(py_page.run("""
import base64, io, json, warnings
import webtorch
from checkpoint_cases import describe
out = {}
for dev in ("webgpu", "cpu"):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        obj = webtorch.load("/tmp/ckpt/model.pt", map_location=dev)
    devices = {obj[k].device.type for k in ("base", "t", "param")} | {t.device.type for t in obj["dtypes"].values()}
    out[dev] = [describe(obj, lambda t: id(t._storage)), sorted(devices), [str(w.message) for w in caught]]
saved = io.BytesIO()
webtorch.save(obj, saved)  # the cpu load
out["saved"] = base64.b64encode(saved.getvalue()).decode()
json.dumps(out)
"""))
    want = _torch_describe(obj)
    _same(got["cpu"][0], want)
    assert got["cpu"][1:] == [["cpu"], []]
    converted = ("float64",)  # float16 stays float16 (emulated where the adapter lacks shader-f16)
    _same(got["webgpu"][0], want, converted)
    assert got["webgpu"][1] == ["webgpu"]
    assert [d for d in converted if any(d in w for w in got["webgpu"][2])] == list(converted)
    back = torch.load(io.BytesIO(base64.b64decode(got["saved"])))
    _same(_torch_describe(back), want)


def test_hostile_and_corrupt_checkpoints_are_refused_in_pyodide(py_page):
    py_page.put_test_module("checkpoint_cases.py")
    failures = py_page.run("""
import os, webtorch
from checkpoint_cases import check_refused, hostile
assert len(hostile("/tmp/canary")) >= 20
failures = check_refused(webtorch.load, "/tmp/canary")
failures + (["canary exists"] if os.path.exists("/tmp/canary") else [])
""")
    assert list(failures) == []


def test_forged_checkpoints_load_as_torch_or_are_refused_in_pyodide(py_page):
    """tests/forged_inputs.py's checkpoints (their torch column is checked on the host): the same values
    as torch on webgpu and cpu, or refused; the pathological pickles refused within the step budget."""
    py_page.put_test_module("checkpoint_cases.py")
    py_page.put_test_module("forged_inputs.py")
    failures = py_page.run("""
import webtorch
from forged_inputs import check_load, checkpoints, pathological
rows = checkpoints()
assert len(rows) >= 20
failures = [f"{name}: {failure}" for name, data, _, want in rows for failure in check_load(webtorch.load, data, want)]
for name, data, text in pathological():  # torch would hash for hours; refused at once
    failures += [f"{name}: {failure}" for failure in check_load(webtorch.load, data, ("UnpicklingError", text), ("cpu",))]
failures
""")
    assert list(failures) == []


def test_forged_safetensors_are_refused_in_pyodide(py_page):
    """tests/forged_inputs.py's safetensors headers (JSON booleans as integers, deep nesting): refused with
    SafetensorError naming the problem, as on the host."""
    py_page.put_test_module("checkpoint_cases.py")
    py_page.put_test_module("forged_inputs.py")
    failures = py_page.run("""
import webtorch.safetensors as st
from forged_inputs import safetensors_files
failures = []
for name, data, text in safetensors_files():
    try:
        st.load(data)
        failures.append(f"{name}: loaded")
    except st.SafetensorError as e:
        if text not in str(e):
            failures.append(f"{name}: {e}")
    except Exception as e:
        failures.append(f"{name}: {type(e).__name__}: {e}")
failures
""")
    assert list(failures) == []
