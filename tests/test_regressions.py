"""Repros of issue 11 that do not fit the op tables: module state, gradients that must be zeros
(not None), exception types. Each compares webtorch (webgpu on lavapipe, and cpu) with torch 2.13."""
import math
import os

import pytest
import torch

import webtorch

DEVICES = [d for d in os.environ.get("WEBTORCH_TEST_DEVICES", "webgpu,cpu").split(",") if d]


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


def test_module_to_keeps_parameter_identity(device):
    nn = webtorch.nn
    emb, head = nn.Embedding(5, 3), nn.Linear(3, 5, bias=False)
    emb.weight = head.weight  # tied, like nanoGPT's wte / lm_head
    model = nn.ModuleDict(dict(e=emb, h=head))
    optimizer = webtorch.optim.SGD(model.parameters(), lr=0.1)
    weight = head.weight
    weight.grad = webtorch.ones(5, 3)
    model.to(device)
    assert emb.weight is head.weight is weight
    assert optimizer.param_groups[0]["params"][0] is weight
    assert weight.device.type == device and weight.grad.device.type == device
    optimizer.step()
    assert weight is model["e"].weight and abs(weight.grad.sum().item() - 15) < 1e-6
    model.to(webtorch.float32)
    assert emb.weight is weight


def test_module_to_moves_buffers(device):
    bn = webtorch.nn.BatchNorm1d(3).to(device)
    assert bn.running_mean.device.type == device and bn.weight.device.type == device


@pytest.mark.parametrize("name", ["addmm-beta0", "cat-empty", "max-0d", "min-0d", "lerp-0d"])
def test_gradient_is_zeros_not_none(name, device):
    """Inputs that take part with a zero gradient get zeros, as in torch (not None, no NaN)."""
    def run(T, dev):
        if name == "addmm-beta0":
            inp = T.full((2, 2), float("nan"), device=dev, requires_grad=True)
            a = T.ones(2, 2, device=dev, requires_grad=True)
            T.addmm(inp, a, a, beta=0).sum().backward()
            return inp.grad, a.grad
        if name == "cat-empty":
            e = T.ones(0, device=dev, requires_grad=True)
            a = T.ones(2, 3, device=dev, requires_grad=True)
            (T.cat([e, a, e]) * 2).sum().backward()
            return e.grad, a.grad
        if name in ("max-0d", "min-0d"):
            x = T.tensor(1.5, device=dev, requires_grad=True)
            out = getattr(T, name[:3])(x, 0)
            assert out.values.grad_fn is not None
            (out.values * 3).backward()
            return x.grad, out.indices
        x, y, w = (T.tensor(v, device=dev, requires_grad=True) for v in (1.0, 3.0, 0.25))
        out = T.lerp(x, y, w)
        assert out.grad_fn is not None
        out.backward()
        return x.grad, y.grad, w.grad

    for got, want in zip(run(webtorch, device), run(torch, "cpu")):
        assert got is not None, name
        assert got.tolist() == want.tolist(), (name, got, want)


def test_norms_scale_before_powering(device):
    """A deliberate difference (docs/limits.md): norms, std and cosine_similarity scale by the
    largest magnitude first, so they stay finite where torch's float32 CPU kernels overflow."""
    x = webtorch.tensor([1e20, 1e20, -2e20], device=device)
    assert abs(webtorch.norm(x).item() / 2.449489742783178e20 - 1) < 1e-6
    assert abs(webtorch.linalg.vector_norm(x, 3).item() / 2.1544346900318838e20 - 1) < 1e-6
    assert abs(webtorch.std(x).item() / 1.7320508075688772e20 - 1) < 1e-6
    assert abs(webtorch.nn.functional.cosine_similarity(x, x * 2, dim=0).item() - 1) < 1e-6
    assert torch.norm(torch.tensor([1e20, 1e20, -2e20])).item() == float("inf")  # torch's float32 overflow


@pytest.mark.parametrize("case", ["inf-in-other-rows", "out-of-range"])
def test_embedding_repros(case, device):
    weight = [[1.0, 2.0], [float("inf"), -float("inf")], [3.0, 4.0]]
    if case == "inf-in-other-rows":
        got = webtorch.nn.functional.embedding(webtorch.tensor([0, 2], device=device),
                                                webtorch.tensor(weight, device=device))
        assert got.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    else:
        with pytest.raises(IndexError):
            webtorch.nn.functional.embedding(webtorch.tensor([3], device=device),
                                             webtorch.tensor(weight, device=device)).tolist()


def test_numpy_array_of_a_tensor_that_requires_grad_raises(device):
    import numpy as np
    message = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        t = T.ones(2, device=dev, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            np.asarray(t)
        assert str(info.value) == message
        assert np.asarray(t.detach()).tolist() == [1.0, 1.0]


def test_index_fill_with_an_index_on_another_device_raises_like_torch():
    """torch (cuda self, cpu index) raises RuntimeError naming both devices before writing anything."""
    if "webgpu" not in DEVICES:
        pytest.skip("needs webgpu")
    x = webtorch.zeros(3, 4, device="webgpu")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        x.index_fill_(1, webtorch.tensor([0, 2]), 5.0)
    assert x.sum().item() == 0
    got = x.index_fill(1, webtorch.tensor([0, 2], device="webgpu"), 5.0)
    assert got.cpu().tolist() == torch.zeros(3, 4).index_fill(1, torch.tensor([0, 2]), 5.0).tolist()


@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_x_log_y_at_x_zero(name):
    """special.xlogy / xlog1py at x = 0: value 0 (unless y is NaN), and torch's gradients: to x log(y), but 0
    where log(y) is NaN or -inf (was NaN: 0 * NaN through the masking where); to y x / y (NaN at 0 / 0).
    (x = 0, y = inf: torch's gradient to x is inf, webtorch's NaN: not covered.)"""
    x, y = [0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 0.0, 0.5, 0.0], [0.0, -1.0, 2.0, 0.0, -1.0, 3.0, math.nan, -0.5, -3.0]
    got = []
    for T in (torch, webtorch):
        a, b = T.tensor(x, requires_grad=True), T.tensor(y, requires_grad=True)
        out = getattr(T.special, name)(a, b)
        out.sum().backward()
        got.append([torch.tensor(t.tolist()) for t in (out, a.grad, b.grad)])
    for w, t in zip(*got):
        torch.testing.assert_close(w, t, equal_nan=True)
