"""Optimizer.state is torch's defaultdict(dict) (issue 22): a custom optimizer written against torch's
API (its own step() writing self.state[p] on first use) trains as under torch, and its state_dict
round-trips with torch's optimizers in both directions."""
import collections
import io

import pytest
import torch

import webtorch


def _custom_optimizer(T):
    class HeavyBall(T.optim.Optimizer):
        """SGD with momentum as tutorials write a custom optimizer."""

        def __init__(self, params, lr=0.1, momentum=0.9):
            super().__init__(params, dict(lr=lr, momentum=momentum))

        @T.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]  # a KeyError with a plain dict
                    if "velocity" not in state:
                        state["velocity"] = T.zeros_like(p)
                        state["step"] = 0
                    state["step"] += 1
                    state["velocity"].mul_(group["momentum"]).add_(p.grad)
                    p.add_(state["velocity"], alpha=-group["lr"])
    return HeavyBall


def _train(T, device, steps=3):
    T.manual_seed(0)
    w = T.tensor([[0.5, -1.0], [2.0, 0.25]], device=device, requires_grad=True)
    b = T.tensor([0.1, -0.2], device=device, requires_grad=True)
    opt = _custom_optimizer(T)([w, b], lr=0.05)
    x = T.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]], device=device)
    for _ in range(steps):
        opt.zero_grad()
        ((x @ w + b) ** 2).sum().backward()
        opt.step()
    sd = opt.state_dict()
    values = [w.tolist(), b.tolist()] + [s["velocity"].tolist() for s in sd["state"].values()]
    return (values, type(opt.state).__name__, opt.state.default_factory is dict,
            {k: sorted(s) + [s["step"]] for k, s in sd["state"].items()}, sd["param_groups"])


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_custom_optimizer_state_matches_torch(device):
    got, want = _train(webtorch, device), _train(torch, "cpu")
    assert got[1:] == want[1:]
    for g, w in zip(got[0], want[0]):  # float32 sums in another order on webgpu: a few units in the last place
        assert torch.allclose(torch.tensor(g), torch.tensor(w), rtol=1e-6, atol=1e-6)


def test_state_is_a_defaultdict_of_dicts():
    p = webtorch.zeros(2, requires_grad=True)
    for opt in (webtorch.optim.SGD([p], lr=0.1, momentum=0.9), webtorch.optim.Adam([p])):
        assert isinstance(opt.state, collections.defaultdict) and opt.state.default_factory is dict
        assert opt.state[p] == {}


def _adam_states(T, device):
    w = T.tensor([1.0, -2.0, 3.0], device=device, requires_grad=True)
    opt = T.optim.AdamW([w], lr=0.1)
    for _ in range(2):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    return w, opt


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_state_dict_round_trips_with_torch(device):
    # webtorch's state into torch's optimizer, and back; a step after each load agrees
    w, opt = _adam_states(webtorch, device)
    buf = io.BytesIO()
    webtorch.save(opt.state_dict(), buf)
    buf.seek(0)
    tw, topt = _adam_states(torch, "cpu")
    topt.load_state_dict(torch.load(buf))
    assert isinstance(topt.state, collections.defaultdict)
    buf = io.BytesIO()
    torch.save(topt.state_dict(), buf)
    buf.seek(0)
    opt.load_state_dict(webtorch.load(buf))
    assert isinstance(opt.state, collections.defaultdict) and opt.state.default_factory is dict
    for T, x, o in ((webtorch, w, opt), (torch, tw, topt)):
        o.zero_grad()
        (x * x).sum().backward()
        o.step()
    assert torch.allclose(torch.tensor(w.tolist()), tw.detach(), rtol=1e-6, atol=1e-6)
    assert opt.state_dict()["state"][0]["step"].item() == topt.state_dict()["state"][0]["step"].item() == 3
