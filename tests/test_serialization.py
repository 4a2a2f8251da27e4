"""webtorch.save / webtorch.load against real torch 2.13, both directions: every dtype, every object
kind of a checkpoint, strides and storage offsets, shared storages (tied weights), every form of f,
map_location; the hostile-pickle corpus and the corrupt files (tests/checkpoint_cases.py)."""
import io
import os
import pickle
import tempfile
import warnings
import zipfile
from collections import OrderedDict

import pytest
import torch

import webtorch
from checkpoint_cases import corrupt, hostile

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def _sample(name, shape=(3, 4), seed=0):
    g = torch.Generator().manual_seed(seed)
    if name == "bool":
        return torch.rand(shape, generator=g) > 0.5
    if name == "uint8":
        return torch.randint(0, 256, shape, generator=g, dtype=torch.uint8)
    if name in ("int8", "int16", "int32", "int64"):
        lo, hi = (-128, 128) if name == "int8" else (-30000, 30000)
        return torch.randint(lo, hi, shape, generator=g, dtype=getattr(torch, name))
    return (torch.randn(shape, generator=g) * 100).to(getattr(torch, name))


def _torch_bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def _webtorch_bytes(obj):
    buf = io.BytesIO()
    webtorch.save(obj, buf)
    return buf.getvalue()


def _same_tensor(w, t):
    """webtorch tensor w equals torch tensor t: dtype, shape, strides, offset, values (bitwise)."""
    assert isinstance(w, webtorch.Tensor) and isinstance(t, torch.Tensor), (type(w), type(t))
    assert str(w.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(w.shape) == tuple(t.shape) and tuple(w.stride()) == tuple(t.stride())
    assert w.storage_offset() == t.storage_offset()
    assert w.requires_grad == t.requires_grad
    expected = t.detach().float().tolist() if t.dtype in (torch.bfloat16, torch.float16) else t.detach().tolist()
    actual = w.detach().float().tolist() if t.dtype in (torch.bfloat16, torch.float16) else w.detach().tolist()
    assert _nan_equal(actual, expected), (actual, expected)


def _nan_equal(a, b):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_nan_equal(x, y) for x, y in zip(a, b))
    return a == b or (a != a and b != b)


def _same(w, t):
    """Structural equality of a webtorch object and a torch object."""
    if isinstance(t, torch.nn.Parameter):
        assert isinstance(w, webtorch.nn.Parameter)
        _same_tensor(w, t)
    elif isinstance(t, torch.Tensor):
        assert type(w) is webtorch.Tensor
        _same_tensor(w, t)
    elif isinstance(t, torch.Size):
        assert isinstance(w, webtorch.Size) and tuple(w) == tuple(t)
    elif isinstance(t, torch.dtype):
        assert w is getattr(webtorch, str(t).split(".")[-1])
    elif isinstance(t, (dict, OrderedDict)):
        assert type(w) is type(t) and list(w) == list(t)
        for k in t:
            _same(w[k], t[k])
        assert getattr(w, "_metadata", None) == getattr(t, "_metadata", None)
    elif isinstance(t, (list, tuple, set)):
        assert type(w) is type(t) and len(w) == len(t)
        for x, y in zip(sorted(w) if isinstance(t, set) else w, sorted(t) if isinstance(t, set) else t):
            _same(x, y)
    else:
        assert type(w) is type(t) and (w == t or (w != w and t != t)), (w, t)


def _every_kind():
    """One torch object of every kind a checkpoint holds."""
    base = torch.arange(24.0).reshape(4, 6)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.LayerNorm(4))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    model(torch.randn(2, 3)).sum().backward()
    opt.step()
    return {
        "tensors": {name: _sample(name, seed=i) for i, name in enumerate(DTYPES)},
        "special": torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 1e-40]),
        "transposed": base.t(), "strided": base[1:, ::2], "offset": base[2], "base": base,
        "zero_d": torch.tensor(2.5), "empty": torch.empty(0, 3), "empty_int": torch.zeros(2, 0, dtype=torch.int64),
        "expanded": torch.tensor([1.0, 2.0]).expand(3, 2),
        "param": torch.nn.Parameter(torch.randn(2, 2)), "frozen": torch.nn.Parameter(torch.ones(2), requires_grad=False),
        "requires_grad": torch.ones(3).requires_grad_(),
        "state_dict": model.state_dict(), "optimizer": opt.state_dict(),
        "nested": [1, 2.5, "text", None, True, (3, [4, {"k": torch.ones(1)}]), {5, 6}, b"bytes", 1 << 70, -7],
        "size": torch.Size([2, 3]), "dtypes": [torch.float32, torch.bfloat16, torch.uint8],
    }


def test_torch_checkpoint_loads_in_webtorch():
    obj = _every_kind()
    loaded = webtorch.load(_torch_bytes(obj))
    _same(loaded, obj)
    # views of one storage load as views of one storage
    assert loaded["transposed"]._storage is loaded["base"]._storage is loaded["offset"]._storage
    loaded["base"][2, 0] = 100.0
    assert loaded["offset"][0].item() == 100.0 and loaded["transposed"][0, 2].item() == 100.0


def test_webtorch_checkpoint_loads_in_torch():
    obj = _every_kind()
    mirror = webtorch.load(_torch_bytes(obj))  # the same objects, built by webtorch
    back = torch.load(io.BytesIO(_webtorch_bytes(mirror)))  # weights_only=True: torch's allow-list accepts it
    _same(mirror, back)
    _same(webtorch.load(_webtorch_bytes(mirror)), back)
    assert back["transposed"].untyped_storage().data_ptr() == back["base"].untyped_storage().data_ptr()
    assert back["strided"].storage_offset() == 6 and back["strided"].stride() == (6, 2)


def test_webtorch_models_and_optimizers_round_trip_with_torch():
    wmodel = webtorch.nn.Sequential(webtorch.nn.Linear(3, 4), webtorch.nn.ReLU(), webtorch.nn.Linear(4, 2))
    wopt = webtorch.optim.SGD(wmodel.parameters(), lr=0.1, momentum=0.9)
    wmodel(webtorch.randn(5, 3)).sum().backward()
    wopt.step()
    tmodel = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    tmodel.load_state_dict(torch.load(io.BytesIO(_webtorch_bytes(wmodel.state_dict()))))
    x = [[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]]
    assert torch.allclose(tmodel(torch.tensor(x)), torch.tensor(wmodel(webtorch.tensor(x)).tolist()), atol=1e-6)
    opt_state = torch.load(io.BytesIO(_webtorch_bytes(wopt.state_dict())))
    assert opt_state["param_groups"][0]["lr"] == 0.1 and opt_state["param_groups"][0]["momentum"] == 0.9
    assert set(opt_state["state"]) == set(range(4))
    torch.optim.SGD(tmodel.parameters(), lr=0.1, momentum=0.9).load_state_dict(opt_state)
    # and back: torch's state_dict into a webtorch model
    w2 = webtorch.nn.Sequential(webtorch.nn.Linear(3, 4), webtorch.nn.ReLU(), webtorch.nn.Linear(4, 2))
    w2.load_state_dict(webtorch.load(_torch_bytes(tmodel.state_dict())))
    assert torch.allclose(torch.tensor(w2(webtorch.tensor(x)).tolist()), tmodel(torch.tensor(x)), atol=1e-6)


def test_tied_weights_stay_tied():
    emb = torch.nn.Embedding(5, 3)
    head = torch.nn.Linear(3, 5, bias=False)
    head.weight = emb.weight
    model = torch.nn.ModuleDict({"emb": emb, "head": head})
    loaded = webtorch.load(_torch_bytes(model.state_dict()))
    assert loaded["emb.weight"]._storage is loaded["head.weight"]._storage
    back = torch.load(io.BytesIO(_webtorch_bytes(loaded)))
    assert back["emb.weight"].untyped_storage().data_ptr() == back["head.weight"].untyped_storage().data_ptr()
    # the same Parameter object twice stays one object
    p = webtorch.nn.Parameter(webtorch.ones(2))
    again = webtorch.load(_webtorch_bytes([p, p]))
    assert again[0] is again[1] and isinstance(again[0], webtorch.nn.Parameter)


def test_every_dtype_bitwise_both_ways(tmp_path):
    for name in DTYPES:
        t = _sample(name, (5, 7), seed=3)
        w = webtorch.load(_torch_bytes(t))
        _same_tensor(w, t)
        raw = _webtorch_bytes(w)
        t2 = torch.load(io.BytesIO(raw))
        assert t2.dtype == t.dtype and torch.equal(t2.view(torch.uint8) if name != "bool" else t2, t.view(torch.uint8)
                                                   if name != "bool" else t), name


def test_file_forms(tmp_path):
    obj = {"w": torch.randn(3, 2), "n": 7}
    raw = _torch_bytes(obj)
    path = tmp_path / "model.pt"
    path.write_bytes(raw)
    for source in (str(path), path, io.BytesIO(raw), raw, bytearray(raw), memoryview(raw)):
        _same(webtorch.load(source), obj)
    _same(webtorch.load(str(path), mmap=True), obj)
    with open(path, "rb") as f:
        _same(webtorch.load(f), obj)
    with pytest.raises(ValueError, match="mmap"):
        webtorch.load(raw, mmap=True)
    w = webtorch.load(raw)
    out = tmp_path / "out.pt"
    webtorch.save(w, str(out))
    webtorch.save(w, out.with_suffix(".pt2"))
    with open(tmp_path / "out3.pt", "wb") as f:
        webtorch.save(w, f)
    for p in (out, out.with_suffix(".pt2"), tmp_path / "out3.pt"):
        _same(w, torch.load(p))


def test_map_location():
    obj = {"a": torch.arange(6.0).reshape(2, 3).t(), "b": torch.tensor([1, 2], dtype=torch.int8)}
    raw = _torch_bytes(obj)
    on_gpu = webtorch.load(raw, map_location="webgpu")
    assert on_gpu["a"].device.type == "webgpu" and on_gpu["b"].dtype is webtorch.int8
    _same(webtorch.load(_webtorch_bytes(on_gpu)), obj)  # saved from webgpu, as cpu tensors
    assert webtorch.load(raw, map_location={"cpu": "webgpu"})["a"].device.type == "webgpu"
    assert webtorch.load(raw, map_location=webtorch.device("cpu"))["a"].device.type == "cpu"
    seen = []
    loaded = webtorch.load(raw, map_location=lambda storage, loc: seen.append(loc) or storage.to("webgpu"))
    assert seen == ["cpu", "cpu"] and loaded["a"].device.type == "webgpu"
    assert loaded["a"].tolist() == obj["a"].tolist()
    with pytest.warns(UserWarning, match="float64"):
        d = webtorch.load(_torch_bytes(torch.tensor([0.1, 0.2], dtype=torch.float64)), map_location="webgpu")
    assert d.dtype is webtorch.float32 and d.tolist() == pytest.approx([0.1, 0.2], rel=1e-7)
    with pytest.raises(RuntimeError, match="data location"):
        webtorch.load(raw, map_location="tpu")


def test_gpu_saved_locations_load_on_webgpu():
    records = zipfile.ZipFile(io.BytesIO(_torch_bytes(torch.ones(2))))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name in records.namelist():  # the storage's location as torch writes a CUDA tensor's
            data = records.read(name)
            z.writestr(name, data.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
                       if name.endswith("data.pkl") else data)
    raw = out.getvalue()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = webtorch.load(raw)
    assert t.device.type == "webgpu" and t.tolist() == [1.0, 1.0]


def test_weights_only_false_and_unsupported_objects():
    w = webtorch.load(_torch_bytes({"x": torch.ones(2), "od": OrderedDict(a=1)}), weights_only=False)
    assert w["x"].tolist() == [1.0, 1.0] and w["od"] == OrderedDict(a=1)
    with pytest.raises(pickle.UnpicklingError, match="no counterpart of torch.nn.modules.linear.Linear"):
        webtorch.load(_torch_bytes(torch.nn.Linear(2, 2)), weights_only=False)
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.linear.Linear"):
        webtorch.load(_torch_bytes(torch.nn.Linear(2, 2)))
    with pytest.raises(TypeError, match="state_dict"):
        webtorch.save(webtorch.nn.Linear(2, 2), io.BytesIO())


CANARY = os.path.join(tempfile.gettempdir(), "webtorch-test-canary")
HOSTILE = hostile(CANARY)


@pytest.mark.parametrize("name,data,text", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_hostile_pickle_is_refused_and_executes_nothing(name, data, text):
    if os.path.exists(CANARY):
        os.remove(CANARY)
    with pytest.raises(pickle.UnpicklingError) as info:
        webtorch.load(data)
    assert text in str(info.value)
    assert not os.path.exists(CANARY)


def test_real_torch_legacy_and_torchscript_files():
    buf = io.BytesIO()
    torch.save({"x": torch.ones(2)}, buf, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="legacy"):
        webtorch.load(buf.getvalue())
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), buf)
    with pytest.raises(RuntimeError, match="TorchScript"):
        webtorch.load(buf.getvalue())
    with pytest.raises(pickle.UnpicklingError, match="UntypedStorage"):  # how torch writes complex32 (complex64 loads)
        webtorch.load(_torch_bytes(torch.ones(2, dtype=torch.float8_e4m3fn)))


@pytest.mark.parametrize("name,data,exc,text", corrupt(), ids=[c[0] for c in corrupt()])
def test_corrupt_files_give_clear_errors(name, data, exc, text):
    with pytest.raises(Exception) as info:
        webtorch.load(data)
    assert type(info.value).__name__ == exc and text in str(info.value)


def test_float16_loads_as_float16_on_webgpu():
    # native or emulated (test_float16_emulated.py runs this where the adapter hides shader-f16)
    values = torch.tensor([0.1, -2.0, 65504.0, 6e-8], dtype=torch.float16)
    t = webtorch.load(_torch_bytes(values), map_location="webgpu")
    assert t.dtype is webtorch.float16 and t.tolist() == values.tolist()
    back = torch.load(io.BytesIO(_webtorch_bytes(t)))
    assert back.dtype is torch.float16 and torch.equal(back, values)
