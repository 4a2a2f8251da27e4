"""Forged inputs (tests/forged_inputs.py) against torch 2.13: each row's torch column is what torch does
with the input, and webtorch does the same or refuses with a clear error, never reads other data."""
import io
import pickle
import time
import warnings
import zipfile

import pytest
import torch

import webtorch
from forged_inputs import (MODULE_STATES, ONE_TO_FOUR, OPTIMIZER_STATES, OPTIMIZERS, SEQUENCES, check_load,
                           checkpoints, long_pickle, module_and_state, pathological, plain, safetensors_files)

CHECKPOINTS = checkpoints()


def _torch_load(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return plain(torch.load(io.BytesIO(data), weights_only=True))
        except Exception:  # noqa: BLE001 - any refusal
            return None


@pytest.mark.parametrize("name,data,torch_loads,want", CHECKPOINTS, ids=[c[0] for c in CHECKPOINTS])
def test_forged_checkpoint_loads_what_torch_loads_or_is_refused(name, data, torch_loads, want):
    got = _torch_load(data)
    assert got is not None if torch_loads == "other" else got == torch_loads
    assert not isinstance(want, list) or want == torch_loads  # never other values than torch's
    assert check_load(webtorch.load, data, want) == []


def test_legacy_checkpoint_with_an_archive_appended_is_refused():
    """torch reads the legacy pickle at the front; Python's zipfile would find the archive at the end."""
    legacy = io.BytesIO()
    torch.save(torch.tensor([9.0, 9.0]), legacy, _use_new_zipfile_serialization=False)
    appended = io.BytesIO()
    torch.save(torch.tensor(ONE_TO_FOUR), appended)
    data = legacy.getvalue() + appended.getvalue()
    assert _torch_load(data) == [9.0, 9.0]
    with pytest.raises(RuntimeError, match="legacy"):
        webtorch.load(data)


@pytest.mark.parametrize("make", [lambda: torch._neg_view(torch.tensor([1.0, -2.0, 3.0])),
                                  lambda: torch.tensor([1 + 2j, 3 - 4j]).conj().imag,
                                  lambda: torch.nn.Parameter(torch._neg_view(torch.arange(6.0).reshape(2, 3)).t())],
                         ids=["neg_view", "conj_imag", "neg_parameter"])
def test_tensors_torch_saves_with_the_negative_bit(make):
    t = make()
    buf = io.BytesIO()
    torch.save({"t": t}, buf)
    for device in ("cpu", "webgpu"):
        w = webtorch.load(buf.getvalue(), map_location=device)["t"]
        assert w.tolist() == t.tolist() and w.shape == t.shape and type(w).__name__ == type(t).__name__


def test_conjugated_complex_tensor_loads_conjugated():
    """torch saves a conjugate view with its "conj" metadata bit: webtorch (complex tensors since 96e2492)
    loads the conjugated values, as torch does (it was refused before there were complex tensors)."""
    buf = io.BytesIO()
    torch.save(torch.tensor([1 + 2j, -3.5 - 0.5j]).conj(), buf)
    got = webtorch.load(buf.getvalue())
    assert got.dtype is webtorch.complex64 and got.tolist() == [1 - 2j, -3.5 + 0.5j]


def test_real_checkpoints_read_through_the_zip_reader():
    """torch's own archives (data descriptors, alignment padding, a serialization id) read as before;
    zip64 archives (Python's writer: a forced zip64 record; 65537 records) read too."""
    buf = io.BytesIO()
    torch.save({"a": torch.arange(10.0), "b": torch.ones(3, dtype=torch.int64)}, buf)
    got = webtorch.load(buf.getvalue())
    assert got["a"].tolist() == list(range(10)) and got["b"].tolist() == [1, 1, 1]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        with z.open("archive/data.pkl", "w", force_zip64=True) as f:
            f.write(b"\x80\x02K\x07.")
    assert webtorch.load(out.getvalue()) == 7
    out = io.BytesIO()  # more than 65535 records: zip64 end records
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("archive/data.pkl", b"\x80\x02K\x07.")
        for i in range(1 << 16):
            z.writestr(f"archive/r/{i}", b"")
    assert b"PK\x06\x06" in out.getvalue() and webtorch.load(out.getvalue()) == 7


# -- Optimizer.load_state_dict -------------------------------------------------------------------------
VALUES = ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], [0.3, -0.2, 0.1])


def _optimizer(lib, name, kwargs, device="cpu"):
    params = [lib.nn.Parameter(lib.tensor(v, device=device)) for v in VALUES]
    groups = [{"params": params}] if name == "LBFGS" else [{"params": params[:1]}, {"params": params[1:], "lr": 0.05}]
    opt = getattr(lib.optim, name)(groups, **kwargs)
    _step(lib, opt, params)
    return opt, params


def _step(lib, opt, params):
    def closure():
        opt.zero_grad()
        loss = (params[0] ** 2).sum() * 0.5 + (params[1] * lib.tensor([1.0, -2.0, 3.0], device=params[1].device)).sum()
        loss.backward()
        return loss
    opt.step(closure)


def _summary(opt, params):
    """The optimizer's groups and state as plain data (parameters by index, tensors by dtype and shape)."""
    index = {id(p): i for i, p in enumerate(params)}

    def plain(v):
        if hasattr(v, "shape"):
            return ("tensor", str(v.dtype).split(".")[-1], list(v.shape))
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return v
    groups = [{k: [index[id(p)] for p in v] if k == "params" else plain(v) for k, v in g.items()}
              for g in opt.param_groups]
    state = {index.get(id(k), k): {key: plain(v) for key, v in s.items()} if isinstance(s, dict) else s
             for k, s in opt.state.items()}
    return groups, state


def _outcome(lib, opt, params, state_dict):
    """"loads", ("load", exception name) or ("step", exception name), and the optimizer's summary after
    the load (or the attempt)."""
    before = _summary(opt, params)
    try:
        opt.load_state_dict(state_dict)
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return ("load", type(e).__name__), before, _summary(opt, params)
    after = _summary(opt, params)
    try:
        _step(lib, opt, params)
    except Exception as e:  # noqa: BLE001
        return ("step", type(e).__name__), before, after
    return "loads", before, after


# every forgery on cpu; on webgpu those where state is cast and moved
FORGERIES = [(f, "cpu") for f in OPTIMIZER_STATES] + \
    [(f, "webgpu") for f in OPTIMIZER_STATES if f[0] in ("as-saved", "float64-state", "wrong-shaped-state")]


@pytest.mark.parametrize("forgery,device", FORGERIES, ids=[f"{f[0]}-{d}" for f, d in FORGERIES])
@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_optimizer_load_state_dict_is_torchs_and_atomic(name, kwargs, forgery, device):
    _, forge, torch_does, webtorch_does = forgery
    if name == "LBFGS" and forgery[0] in ("wrong-shaped-state", "int64-state"):
        pytest.skip("LBFGS's state is not per element")
    topt, tparams = _optimizer(torch, name, kwargs)
    saved = topt.state_dict()
    t_out, _, t_after = _outcome(torch, *_optimizer(torch, name, kwargs), forge(saved))
    assert torch_does == "varies" or t_out == torch_does
    wopt, wparams = _optimizer(webtorch, name, kwargs, device)
    w_out, w_before, w_after = _outcome(webtorch, wopt, wparams, forge(webtorch.load(_torch_bytes(saved))))
    assert w_out == webtorch_does
    if w_out == "loads":  # the state torch built, on the parameters' device, and the same step from it
        assert w_after == t_after
        assert {v.device.type for p in wparams for k, v in wopt.state[p].items()
                if k != "step" and isinstance(v, webtorch.Tensor)} <= {device}
        topt2, tparams2 = _optimizer(torch, name, kwargs)
        topt2.load_state_dict(forge(saved))
        _step(torch, topt2, tparams2)
        for w, t in zip(wparams, tparams2):
            assert torch.allclose(torch.tensor(w.tolist()), t.detach(), rtol=1e-5, atol=1e-6)
    elif w_out[0] == "load":  # nothing changed
        assert w_after == w_before


def _torch_bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


# -- Module.load_state_dict --------------------------------------------------------------------------------
def _module_outcome(lib, forge, **kwargs):
    model, state = module_and_state(lib)
    try:
        result = model.load_state_dict(forge(lib, state), **kwargs)
        outcome = ("loads", sorted(result.missing_keys), sorted(result.unexpected_keys))
    except Exception as e:  # noqa: BLE001 - compared with torch's
        outcome = (type(e).__name__, str(e))
    return outcome, {k: v.tolist() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("name,forge", MODULE_STATES, ids=[m[0] for m in MODULE_STATES])
def test_module_load_state_dict_loads_the_rest_then_reports_as_torch(name, forge, strict):
    assert _module_outcome(webtorch, forge, strict=strict) == _module_outcome(torch, forge, strict=strict)


# -- torch.tensor of lying sequences ----------------------------------------------------------------------
def _tensor_outcome(lib, data, dtype):
    try:
        t = lib.tensor(data) if dtype is None else lib.tensor(data, dtype=getattr(lib, dtype))
    except Exception as e:  # noqa: BLE001 - compared with torch's
        return type(e).__name__
    return t.tolist(), list(t.shape), str(t.dtype).split(".")[-1]


@pytest.mark.parametrize("dtype", [None, "float32"])
@pytest.mark.parametrize("name,make,stricter", SEQUENCES, ids=[s[0] for s in SEQUENCES])
def test_tensor_of_a_sequence_whose_len_lies(name, make, stricter, dtype):
    want, given = _tensor_outcome(torch, make(), dtype), dtype is not None
    if given in stricter:
        assert want != stricter[given]  # torch does otherwise (returns, or fails to allocate)
        want = stricter[given]
    assert _tensor_outcome(webtorch, make(), dtype) == want


# -- safetensors headers --------------------------------------------------------------------------------
SAFETENSORS = safetensors_files()


@pytest.mark.parametrize("name,data,text", SAFETENSORS, ids=[s[0] for s in SAFETENSORS])
def test_forged_safetensors_are_refused_as_the_safetensors_package_refuses_them(name, data, text):
    import safetensors.torch
    with pytest.raises(Exception, match="Error while deserializing"):
        safetensors.torch.load(data)
    with pytest.raises(webtorch.safetensors.SafetensorError, match=text):
        webtorch.safetensors.load(data)


# -- the unpickler's step budget ----------------------------------------------------------------------------
PATHOLOGICAL = pathological()


@pytest.mark.parametrize("name,data,text", PATHOLOGICAL, ids=[p[0] for p in PATHOLOGICAL])
def test_pickle_that_would_hash_for_hours_is_refused_at_once(name, data, text):
    start = time.perf_counter()
    with pytest.raises(pickle.UnpicklingError, match=text):
        webtorch.load(data)
    assert time.perf_counter() - start < 5


def test_step_budget(monkeypatch):
    assert webtorch.load(long_pickle(10_000)) is None
    monkeypatch.setattr(webtorch.serialization, "MAX_UNPICKLE_STEPS", 5_000)
    with pytest.raises(pickle.UnpicklingError, match="more than 5000 steps"):
        webtorch.load(long_pickle(10_000))
    assert webtorch.load(long_pickle(4_000)) is None
