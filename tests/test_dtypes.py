"""The dtypes beyond float32/float16/int32/int64/bool: uint8, int8, int16, bfloat16, float64, against
torch on "cpu" (numpy and pure Python) and "webgpu" (narrow dtypes kept logically, stored in 4 bytes;
float64 becomes float32 with a warning): creation, casts, promotion, wrapping/rounding arithmetic,
reductions, scans, matmul, sort, accumulating puts, tolist/item/repr, finfo/iinfo."""
import itertools
import math
import random
import warnings

import pytest
import torch

import webtorch
from webtorch.backend import cpu

NEW = ["uint8", "int8", "int16", "bfloat16", "float64"]
ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
DEVICES = ["cpu", "cpu-python", "webgpu"]


@pytest.fixture(params=DEVICES)
def device(request, monkeypatch):
    if request.param == "cpu-python":
        monkeypatch.setattr(cpu, "USE_NUMPY", False)
        return "cpu"
    return request.param


def _values(name, n=12, seed=0):
    rng = random.Random(seed)
    if name == "bool":
        return [rng.random() < 0.5 for _ in range(n)]
    if name.startswith(("int", "uint")):
        lo, hi = (0, 255) if name == "uint8" else (-128, 127)
        return [rng.randint(lo, hi) for _ in range(n)]
    return [rng.uniform(-100, 100) for _ in range(n)]


def _webgpu_dtype(name, device):
    """The dtype webtorch holds on device: float64 on webgpu is float32."""
    return "float32" if device == "webgpu" and name == "float64" else name


def _check(got, want, device):
    """got (webtorch) equals want (torch) in dtype, shape and values; float64 on webgpu: as float32."""
    got_dtype = str(got.dtype).rsplit(".", 1)[-1]
    want_name = str(want.dtype).rsplit(".", 1)[-1]
    assert got_dtype == _webgpu_dtype(want_name, device), (got_dtype, want_name)
    assert tuple(got.shape) == tuple(want.shape)
    expected = want.flatten().tolist()
    actual = got.cpu().reshape(-1).tolist()
    if want.dtype.is_floating_point:
        rtol = {torch.bfloat16: 8e-3, torch.float16: 1e-3, torch.float32: 1e-6}.get(
            want.dtype, 1e-5 if got_dtype != want_name else 1e-12)  # float64 on webgpu computes in float32
        for a, e in zip(actual, expected):
            assert (math.isnan(a) and math.isnan(e)) or a == pytest.approx(e, rel=rtol, abs=1e-6), (actual, expected)
    else:
        assert actual == expected


def _pair(name, device, n=12, seed=0, shape=None):
    values = _values(name, n, seed)
    t = torch.tensor(values, dtype=getattr(torch, name))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = webtorch.tensor(values, dtype=getattr(webtorch, name), device=device)
    if shape:
        t, w = t.reshape(shape), w.reshape(shape)
    return t, w


@pytest.mark.parametrize("name", NEW)
def test_creation_readback_and_arithmetic(name, device):
    t, w = _pair(name, device)
    _check(w, t, device)
    assert w.tolist() == pytest.approx(t.tolist()) if name != "float64" or device != "webgpu" else True
    assert w[3].item() == pytest.approx(t[3].item(), rel=1e-6 if device != "webgpu" else 1e-6)
    for fn in (lambda T, x: x + x, lambda T, x: x * 3, lambda T, x: x - 100, lambda T, x: -x,
               lambda T, x: x * x, lambda T, x: T.maximum(x, x.flip(0)), lambda T, x: x.abs(),
               lambda T, x: x // 7 if not x.is_floating_point() else x / 7, lambda T, x: x > 5):
        _check(fn(webtorch, w), fn(torch, t), device)


@pytest.mark.parametrize("name", NEW)
def test_reductions_scans_matmul_sort(name, device):
    t, w = _pair(name, device, n=12, shape=(3, 4))
    ops = [lambda x: x.sum(), lambda x: x.sum(1), lambda x: x.amax(0), lambda x: x.min(1).values,
           lambda x: x.argmax(1), lambda x: x.cumsum(1), lambda x: x.sort(1).values, lambda x: x.sort(1).indices,
           lambda x: x.t().contiguous(), lambda x: x[:, 1::2] * 2]
    if name in ("bfloat16", "float64"):
        ops += [lambda x: x.mean(0), lambda x: x @ x.t(), lambda x: x.softmax(1) if name == "float64" else x.exp()]
    else:
        ops += [lambda x: x @ x.t()]
    for op in ops:
        _check(op(w), op(t), device)


@pytest.mark.parametrize("name", NEW)
def test_index_add_wraps_and_rounds(name, device):
    t, w = _pair(name, device, n=6)
    idx = [0, 0, 1, 1, 0, 2]
    for dst_t, dst_w in ((t.clone(), w.clone()),):
        src_t, src_w = _pair(name, device, n=6, seed=1)
        dst_t.index_add_(0, torch.tensor([0, 1, 0, 2, 0, 3]), src_t)
        dst_w.index_add_(0, webtorch.tensor([0, 1, 0, 2, 0, 3], device=device), src_w)
        _check(dst_w, dst_t, device)
    _check(w[webtorch.tensor(idx, device=device)], t[torch.tensor(idx)], device)


@pytest.mark.parametrize("a,b", list(itertools.combinations_with_replacement(ALL, 2)))
def test_promotion_and_casts(a, b, device):
    assert webtorch.promote_types(getattr(webtorch, a), getattr(webtorch, b)).name == \
        str(torch.promote_types(getattr(torch, a), getattr(torch, b))).rsplit(".", 1)[-1]
    ta, wa = _pair(a, device, n=6)
    tb, wb = _pair(b, device, n=6, seed=1)
    if "bool" not in (a, b):
        _check(wa + wb, ta + tb, device)
    _check(wa == wb, ta == tb, device)
    if device == "webgpu" and b == "float64":
        return  # float64 on webgpu is float32: the cast is checked as float32 below
    small = [0, 1, 5, 100, -3, 77] if a != "bool" else [True, False] * 3  # in every dtype's range but uint8's
    if "uint8" in (a, b):
        small = [abs(v) for v in small]
    tc = torch.tensor(small, dtype=getattr(torch, a))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wc = webtorch.tensor(small, dtype=getattr(webtorch, a), device=device)
    _check(wc.to(getattr(webtorch, b)), tc.to(getattr(torch, b)), device)


def test_float64_on_webgpu_is_float32_with_a_warning():
    with pytest.warns(UserWarning, match="float64"):
        x = webtorch.tensor([1.0, 2.0], dtype=webtorch.float64, device="webgpu")
    assert x.dtype is webtorch.float32
    with pytest.warns(UserWarning, match="float64"):
        y = webtorch.tensor([0.1], dtype=webtorch.float64).to("webgpu")
    assert y.dtype is webtorch.float32 and y.item() == pytest.approx(0.1, rel=1e-7)
    with pytest.warns(UserWarning, match="float64"):
        assert webtorch.ones(2, device="webgpu").double().dtype is webtorch.float32


def test_values_beyond_the_dtype_raise_like_torch():
    assert webtorch.tensor([-1, -255], dtype=webtorch.uint8).tolist() == torch.tensor([-1, -255], dtype=torch.uint8).tolist()
    for name, bad in (("uint8", -256), ("uint8", 256), ("int8", 128), ("int16", -40000), ("int32", 1 << 31)):
        with pytest.raises(RuntimeError, match="overflow"):
            torch.tensor([bad], dtype=getattr(torch, name))
        with pytest.raises(RuntimeError, match="overflow"):
            webtorch.tensor([bad], dtype=getattr(webtorch, name))


def test_repr_type_methods_and_limits():
    for name in NEW:
        t = torch.tensor([1.5, -2.25, 3.0] if name in ("bfloat16", "float64") else [1, 2, 3], dtype=getattr(torch, name))
        w = webtorch.tensor(t.tolist(), dtype=getattr(webtorch, name))
        assert repr(w).replace("webtorch", "torch") == repr(t)
        assert w.type() == t.type()
        assert w.element_size() == t.element_size()
        assert getattr(webtorch, name).is_signed == getattr(torch, name).is_signed
    x = webtorch.tensor([1.1, 2.5])
    for method in ("double", "bfloat16", "short", "char", "byte"):
        assert getattr(x, method)().dtype.name == str(getattr(torch.tensor([1.1, 2.5]), method)().dtype)[6:]
    assert webtorch.double is webtorch.float64 and webtorch.short is webtorch.int16
    for name in ("float16", "bfloat16", "float32", "float64"):
        f, g = webtorch.finfo(getattr(webtorch, name)), torch.finfo(getattr(torch, name))
        assert (f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution) == \
            (g.bits, g.eps, g.max, g.min, g.tiny, g.smallest_normal, g.resolution)
    for name in ("uint8", "int8", "int16", "int32", "int64"):
        f, g = webtorch.iinfo(getattr(webtorch, name)), torch.iinfo(getattr(torch, name))
        assert (f.bits, f.min, f.max) == (g.bits, g.min, g.max)
    with pytest.raises(TypeError):
        webtorch.tensor([1.0], dtype=webtorch.bfloat16).numpy()
    assert webtorch.tensor([1, 2], dtype=webtorch.uint8).numpy().dtype.name == "uint8"


def test_bfloat16_rounds_like_torch_at_edges(device):
    values = [1.00390625, 1.01171875, -1.00390625, 3.4e38, -3.4e38, 1e-40, float("inf"), float("nan"), 0.1, 65505.0]
    t = torch.tensor(values, dtype=torch.bfloat16)
    w = webtorch.tensor(values, dtype=webtorch.bfloat16, device=device)
    _check(w, t, device)
    _check(w * 1.01, t * 1.01, device)
    _check(webtorch.tensor(values, device=device).bfloat16(), torch.tensor(values).bfloat16(), device)
