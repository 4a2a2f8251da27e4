"""webtorch.compile: replay equals eager and torch, guards record again, graph breaks run eagerly."""
import pytest
import torch

import training_cases as tc
import webtorch
from webtorch._compile import GraphBreakError


def _w(t, device="webgpu"):
    return webtorch.tensor(t.tolist(), dtype=getattr(webtorch, str(t.dtype).split(".")[1]), device=device)


def _close(got, want, tol=1e-5):
    assert torch.allclose(torch.tensor(got.tolist()), want, atol=tol, rtol=tol), (got.tolist(), want)


@pytest.mark.parametrize("name", list(tc.MODELS))
@pytest.mark.parametrize("mode", ["train", "eval"])
def test_replay_matches_torch_for_the_training_parity_models(name, mode):
    build, shape = tc.MODELS[name]
    torch.manual_seed(0)
    expected_model = build(torch)
    model = build(webtorch).to("webgpu")
    model.load_state_dict({k: _w(v, "cpu") for k, v in expected_model.state_dict().items()})
    getattr(expected_model, mode)()
    getattr(model, mode)()
    compiled = webtorch.compile(model)
    g = torch.Generator().manual_seed(1)
    with torch.no_grad(), webtorch.no_grad():
        for _ in range(3):
            x = torch.randn(4, *shape, generator=g)
            _close(compiled(_w(x)), expected_model(x))
    stats = compiled._compiled_call.stats
    if name == "cnn" and mode == "train":  # BatchNorm assigns new running statistics each call: eager
        assert stats["replays"] == 0 and "keeps a tensor it made" in compiled._compiled_call.graph_breaks[0]
        assert torch.allclose(torch.tensor(model[1].running_mean.tolist()), expected_model[1].running_mean)
    else:
        assert stats == {"captures": 1, "replays": 2, "eager": 0}, stats


def test_replay_rebinds_inputs_and_returns_new_tensors():
    w = webtorch.tensor([[1.0, 2.0], [3.0, -1.0]], device="webgpu")

    @webtorch.compile
    def f(x, y, scale):
        h = (x @ w).relu() * scale + y
        return {"h": h, "parts": (h.sum(1), x.t()), "n": 2}

    outs = []
    for i in range(3):
        x = torch.randn(3, 2, generator=torch.Generator().manual_seed(i))
        y = torch.full((3, 2), float(i))
        out = f(_w(x), _w(y), 0.5)
        h = (x @ torch.tensor([[1.0, 2.0], [3.0, -1.0]])).relu() * 0.5 + y
        _close(out["h"], h)
        _close(out["parts"][0], h.sum(1))
        _close(out["parts"][1], x.t())
        assert out["n"] == 2 and isinstance(out["parts"], tuple)
        outs.append(out)
    assert f.stats == {"captures": 1, "replays": 2, "eager": 0}
    assert outs[0]["h"]._storage is not outs[1]["h"]._storage  # each call's results are its own
    _close(outs[0]["parts"][1], torch.randn(3, 2, generator=torch.Generator().manual_seed(0)).t())


def test_guards_record_again():
    model = webtorch.nn.Sequential(webtorch.nn.Linear(4, 3), webtorch.nn.Dropout(0.5)).to("webgpu")
    compiled = webtorch.compile(model, mode="reduce-overhead", dynamic=False, fullgraph=False, backend="inductor")
    calls = compiled._compiled_call
    model.eval()
    with webtorch.no_grad():
        compiled(webtorch.ones(2, 4, device="webgpu"))
        compiled(webtorch.ones(2, 4, device="webgpu"))
        assert calls.stats["captures"] == 1
        compiled(webtorch.ones(5, 4, device="webgpu"))  # new shape
        compiled(webtorch.ones(4, 2, device="webgpu").t())  # new strides
        assert calls.stats["captures"] == 3
        with pytest.raises(RuntimeError):
            compiled(webtorch.ones(2, 4, dtype=webtorch.int64, device="webgpu"))  # new dtype: eager's error
        model[1].p = 0.0  # a plain attribute
        compiled(webtorch.ones(2, 4, device="webgpu"))
        model[0].weight = webtorch.nn.Parameter(webtorch.zeros(3, 4, device="webgpu"))  # a new parameter
        out = compiled(webtorch.ones(2, 4, device="webgpu"))
        assert out.tolist() == [model[0].bias.tolist()] * 2
        assert calls.stats["captures"] == 6 and calls.stats["replays"] == 1
    out = compiled(webtorch.ones(2, 4, device="webgpu"))  # grad mode on, parameters require grad: eager
    assert out.grad_fn is not None and "requires grad" in calls.graph_breaks[-1]
    out.sum().backward()
    assert model[0].weight.grad.tolist() == [[2.0] * 4] * 3


def test_graph_breaks_run_eagerly_and_correctly():
    @webtorch.compile
    def branch(x):
        return x * 2 if x.sum().item() > 0 else x - 1  # data-dependent control flow

    for sign in (1.0, -1.0, 1.0):
        x = webtorch.full((3,), sign, device="webgpu")
        assert branch(x).tolist() == ([2.0] * 3 if sign > 0 else [-2.0] * 3)
    assert branch.stats["replays"] == 0 and "reads a value back" in branch.graph_breaks[0]

    drop = webtorch.compile(webtorch.nn.Dropout(0.5))
    with webtorch.no_grad():
        a, b = (drop(webtorch.ones(64, device="webgpu")).tolist() for _ in range(2))
    assert a != b and "random" in drop._compiled_call.graph_breaks[0]

    hidden = webtorch.ones(3, device="webgpu")

    def helper(x):
        return x + hidden

    unreachable = webtorch.compile(lambda x: helper(x) * 2)
    assert unreachable(webtorch.ones(3, device="webgpu")).tolist() == [4.0] * 3
    assert "neither an argument" in unreachable.graph_breaks[0]

    @webtorch.compile(fullgraph=True)
    def strict(x):
        return x.sum().item()

    with pytest.raises(GraphBreakError, match="reads a value back"):
        strict(webtorch.ones(2, device="webgpu"))


def test_in_place_on_an_input_replays():
    @webtorch.compile
    def bump(x):
        x.add_(1)
        return x.view(2, 2) * 2

    for i in range(3):
        x = webtorch.full((4,), float(i), device="webgpu")
        out = bump(x)
        assert x.tolist() == [i + 1.0] * 4 and out.tolist() == [[2 * (i + 1.0)] * 2] * 2
    assert bump.stats["replays"] == 2


def test_compile_accepts_torch_call_forms():
    def f(x):
        return x + 1
    assert webtorch.compile(f, backend="eager")(webtorch.ones(1, device="webgpu")).tolist() == [2.0]
    assert webtorch.compile(disable=True)(f) is f
    with pytest.raises(RuntimeError, match="Unrecognized mode"):
        webtorch.compile(f, mode="fastest")
    model = webtorch.nn.Linear(2, 2)
    compiled = webtorch.compile(model, mode="max-autotune")
    assert compiled.weight is model.weight and list(compiled.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    compiled.eval()
    assert not model.training


def test_compiled_training_step_matches_torch():
    # forward + backward + optimizer step: runs eagerly under compile (autograd), with torch's losses
    losses = {}
    for T in (torch, webtorch):
        torch.manual_seed(0)
        model = tc.mlp(torch)
        if T is webtorch:
            state = {k: _w(v, "cpu") for k, v in model.state_dict().items()}
            model = tc.mlp(webtorch)
            model.load_state_dict(state)
            model = model.to("webgpu")
        opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

        def step(x, y):
            loss = T.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss.detach()
        step = T.compile(step) if T is webtorch else step
        out = []
        for x, y in list(tc.batches("mlp"))[:4]:
            xb, yb = T.tensor(x).reshape(-1, 12), T.tensor(y)
            if T is webtorch:
                xb, yb = xb.to("webgpu"), yb.to("webgpu")
            out.append(step(xb, yb).item())
        losses[T.__name__] = out
    assert losses["webtorch"] == pytest.approx(losses["torch"], rel=1e-4, abs=1e-5)
