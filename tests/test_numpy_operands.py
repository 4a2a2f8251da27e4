"""numpy scalars and 0-d numpy arrays as operands, against torch 2.13 (issue 22).

torch's argument parser reads a numpy scalar as a Python number of its kind (np.int* as int,
np.float* as float, and np.bool_ as a float: it is neither a Python bool nor a numpy integer), so
it takes part in type promotion as a weak scalar. A numpy array (0-d too) is no Tensor and no
number: torch's binary operators return NotImplemented for it, numpy then computes with the
tensor's __array__ and wraps its result through Tensor.__array_wrap__ (so `t + np.array(0.5)` is
float64, numpy's promotion), and functions raise TypeError. numpy stays optional in webtorch:
these tests run on the host only (Pyodide's test pages have no numpy).
"""
import operator
import warnings

import numpy as np
import pytest
import torch

import webtorch
from compare import assert_close, to_plain

SCALARS = {"f64": np.float64(0.5), "f32": np.float32(1.5), "f16": np.float16(2.0), "i64": np.int64(3),
           "i32": np.int32(2), "u8": np.uint8(2), "b": np.bool_(True), "a0f64": np.array(0.5),
           "a0i64": np.array(3), "a0f32": np.array(1.5, dtype=np.float32), "a0b": np.array(True)}
TENSORS = {"f32": ([1.0, 2.0, 3.0], "float32"), "i64": ([1, 2, 3], "int64"), "f16": ([1.0, 2.0], "float16"),
           "u8": ([1, 2], "uint8"), "b": ([True, False], "bool")}
OPERATORS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "le", "gt", "ge", "eq", "ne",
             "and_", "or_", "xor", "lshift", "rshift"]
INPLACE = ["iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "iand", "ior", "ixor"]


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn()
    except Exception as e:  # noqa: BLE001 (the exception's type is the outcome)
        return ("raises", type(e).__name__)
    if isinstance(r, (torch.Tensor, webtorch.Tensor)):
        return ("tensor", to_plain(r.cpu()))
    if isinstance(r, tuple):
        return ("seq", [to_plain(x.cpu()) if hasattr(x, "cpu") else x for x in r])
    return ("value", repr(r))


def _same(got, want, what, device="cpu"):
    if device == "webgpu":  # float64 has no GPU form: float32 there (docs/compatibility.md "Dtypes on webgpu")
        want = _as_float32(want)
    if want == ("raises", "RuntimeError") and got[0] == "tensor" and "floordiv" in what or "mod" in what:
        return  # integer division by zero: 0 on both devices (docs/limits.md), torch's cpu raises
    assert got[0] == want[0], f"{what}: webtorch {got}, torch {want}"
    if got[0] in ("tensor", "seq"):
        pairs = zip(got[1], want[1]) if got[0] == "seq" else [(got[1], want[1])]
        for g, w in pairs:
            try:
                assert_close(g, w, atol=1e-6, rtol=1e-6) if isinstance(w, dict) else None
            except AssertionError as e:
                raise AssertionError(f"{what}: {e}") from None
            assert isinstance(w, dict) or g == w, what
    else:
        assert got == want, what


def _as_float32(outcome):
    plain = lambda p: dict(p, dtype="float32") if isinstance(p, dict) and p.get("dtype") == "float64" else p  # noqa
    if outcome[0] == "tensor":
        return ("tensor", plain(outcome[1]))
    return (outcome[0], [plain(p) for p in outcome[1]]) if outcome[0] == "seq" else outcome


def _tensor(T, name, device):
    values, dtype = TENSORS[name]
    return T.tensor(values, dtype=getattr(T, dtype), device=device) if T is webtorch else \
        torch.tensor(values, dtype=getattr(torch, dtype))


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("tname", list(TENSORS))
@pytest.mark.parametrize("sname", list(SCALARS))
def test_operators_with_numpy_operands(device, tname, sname):
    s = SCALARS[sname]
    for opname in OPERATORS:
        op = getattr(operator, opname)
        for side in ("tensor op numpy", "numpy op tensor"):
            def run(T, d):
                t = _tensor(T, tname, d)
                return op(t, s) if side == "tensor op numpy" else op(s, t)
            _same(_outcome(lambda: run(webtorch, device)), _outcome(lambda: run(torch, "cpu")),
                  f"{tname} {opname} {sname} ({side})", device)
    for opname in INPLACE:
        op = getattr(operator, opname)

        def run_inplace(T, d):
            t = _tensor(T, tname, d)
            r = op(t, s)
            return (r, "the same object" if r is t else "a new object")
        _same(_outcome(lambda: run_inplace(webtorch, device)), _outcome(lambda: run_inplace(torch, "cpu")),
              f"{tname} {opname} {sname}", device)


# Functions taking a number where torch takes a Scalar, each with a numpy scalar (or 0-d array).
FUNCTIONS = {
    "add": lambda T, t, s: T.add(t, s), "add-left": lambda T, t, s: T.add(s, t),
    "add-alpha": lambda T, t, s: T.add(t, t, alpha=s), "sub": lambda T, t, s: T.sub(t, s),
    "mul": lambda T, t, s: T.mul(t, s), "mul-left": lambda T, t, s: T.mul(s, t), "div": lambda T, t, s: T.div(t, s),
    "true_divide": lambda T, t, s: T.true_divide(t, s), "floor_divide": lambda T, t, s: T.floor_divide(t, s),
    "remainder": lambda T, t, s: T.remainder(t, s), "fmod": lambda T, t, s: T.fmod(t, s),
    "pow": lambda T, t, s: T.pow(t, s), "pow-left": lambda T, t, s: T.pow(s, t),
    "eq": lambda T, t, s: T.eq(t, s), "lt": lambda T, t, s: T.lt(t, s), "ge": lambda T, t, s: t.ge(s),
    "maximum": lambda T, t, s: T.maximum(t, s), "where": lambda T, t, s: T.where(t > 1, t, s),
    "where-left": lambda T, t, s: T.where(t > 1, s, t), "clamp": lambda T, t, s: T.clamp(t, min=s),
    "clamp-max": lambda T, t, s: T.clamp(t, max=s), "clamp_min": lambda T, t, s: T.clamp_min(t, s),
    "full": lambda T, t, s: T.full((2,), s, device=t.device), "full-dtype": lambda T, t, s: T.full((2,), s, dtype=T.float32, device=t.device),
    "full_like": lambda T, t, s: T.full_like(t, s), "fill_": lambda T, t, s: t.clone().fill_(s),
    "tensor": lambda T, t, s: T.tensor(s, device=t.device), "tensor-list": lambda T, t, s: T.tensor([s, s], device=t.device),
    "as_tensor": lambda T, t, s: T.as_tensor(s, device=t.device), "mul_": lambda T, t, s: t.clone().mul_(s),
    "add_": lambda T, t, s: t.clone().add_(s), "masked_fill": lambda T, t, s: t.masked_fill(t > 1, s),
    "lerp": lambda T, t, s: T.lerp(t, t * 2, s), "addcmul": lambda T, t, s: T.addcmul(t, t, t, value=s),
    "mul-method": lambda T, t, s: t.mul(s), "rsub": lambda T, t, s: T.rsub(t, s),
    "isclose": lambda T, t, s: T.isclose(t, t + s), "arange": lambda T, t, s: T.arange(s, 4 * s, s, device=t.device),
    "linspace": lambda T, t, s: T.linspace(0, s, 3, device=t.device), "setitem": lambda T, t, s: _setitem(t, s),
    "index_put": lambda T, t, s: t.clone().index_fill_(0, T.tensor([0], device=t.device), s),
    "nan_to_num": lambda T, t, s: T.nan_to_num(t, nan=s), "threshold": lambda T, t, s: T.nn.functional.threshold(t, s, s),
    "leaky_relu": lambda T, t, s: T.nn.functional.leaky_relu(t, s), "dropout-p0": lambda T, t, s: T.nn.functional.dropout(t, s * 0),
    "softmax-scaled": lambda T, t, s: T.softmax(t * s, 0), "item-add": lambda T, t, s: t.sum().item() + s,
}


def _setitem(t, s):
    t = t.clone()
    t[0] = s
    return t


# Functions that read a 0-d numpy array as its number where torch's Scalar parameter refuses it
# (TypeError): webtorch is more permissive there; a program that runs under torch is unchanged.
TAKES_0D_ARRAY = {"nan_to_num", "masked_fill", "linspace", "leaky_relu", "arange", "addcmul", "add-alpha", "lerp",
                  "tensor-list"}


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("fname", list(FUNCTIONS))
def test_functions_with_numpy_scalars(device, fname):
    fn = FUNCTIONS[fname]
    for sname, s in SCALARS.items():
        for tname in ("f32", "i64"):
            if device == "webgpu" and fname == "isclose" and sname in ("a0f64", "a0i64"):
                continue  # torch refuses float32 against float64; webgpu has no float64
            if fname in TAKES_0D_ARRAY and sname.startswith("a0"):
                assert _outcome(lambda: fn(torch, _tensor(torch, tname, "cpu"), s)) == ("raises", "TypeError")
                continue
            _same(_outcome(lambda: fn(webtorch, _tensor(webtorch, tname, device), s)),
                  _outcome(lambda: fn(torch, _tensor(torch, tname, "cpu"), s)), f"{fname}({tname}, {sname})",
                  device)
