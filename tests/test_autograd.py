"""Autograd vs torch.autograd: gradients of every differentiable case in the op table, and the
engine's behaviour (accumulation, retain_graph, no_grad, autograd.grad, Function, errors)."""
import os

import pytest
import torch

import webtorch
from webtorch import autograd
from webtorch.ops_table import ELEMENTWISE

from grad_cases import GRAD_CASES, check_gradients, plain_gradients

DEVICES = [d for d in os.environ.get("WEBTORCH_TEST_DEVICES", "webgpu,cpu").split(",") if d]




@pytest.mark.parametrize("case", GRAD_CASES, ids=[c.name for c in GRAD_CASES])
@pytest.mark.parametrize("device", DEVICES)
def test_gradients_match_torch(case, device):
    try:
        expected = plain_gradients(torch, case, "cpu")
    except (RuntimeError, NotImplementedError) as e:
        pytest.skip("torch computes no gradient here: " + str(e).split(".")[0])
    if expected is None:
        pytest.skip("no float input reaches a float output")
    check_gradients(plain_gradients(webtorch, case, device), expected, case, f"{case.name}[{device}]")


def test_every_elementwise_op_has_a_backward_rule_or_is_marked_non_differentiable():
    missing = set(ELEMENTWISE) - set(autograd.BACKWARD) - autograd.NON_DIFFERENTIABLE
    assert not missing
    assert not (set(autograd.BACKWARD) & autograd.NON_DIFFERENTIABLE)


@pytest.mark.parametrize("device", DEVICES)
def test_grad_accumulates_and_graph_is_freed(device):
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        x = T.tensor([1.0, 2.0, 3.0], device=dev, requires_grad=True)
        y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        assert x.grad.tolist() == [4.0, 8.0, 12.0]
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.backward()


@pytest.mark.parametrize("device", DEVICES)
def test_no_grad_and_detach(device):
    x = webtorch.ones(3, device=device, requires_grad=True)
    with webtorch.no_grad():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert not x.detach().requires_grad
    z = x * 2
    assert z.requires_grad and not z.is_leaf and x.is_leaf
    with webtorch.set_grad_enabled(False):
        assert not (x + 1).requires_grad
    with webtorch.inference_mode():
        assert not (x + 1).requires_grad

    @webtorch.no_grad()
    def f(t):
        return t * 3
    assert not f(x).requires_grad


@pytest.mark.parametrize("device", DEVICES)
def test_detached_alias_of_a_leaf_is_written_in_place_as_torch(device):
    """detach() shares the storage but is no autograd view: writing it in place is allowed for a leaf
    that requires grad (improved-diffusion's zero_module: p.detach().zero_()), and the leaf sees it."""
    results = []
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        p = T.nn.Parameter(T.arange(6.0, device=dev).reshape(2, 3))
        p.detach().mul_(2)
        p[1].detach().zero_()
        (p * p).sum().backward()
        results.append((p.tolist(), p.grad.tolist(), p.requires_grad, p.is_leaf))
        with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
            p[0].zero_()
    assert results[0] == results[1]


@pytest.mark.parametrize("device", DEVICES)
def test_backward_with_gradient_argument(device):
    x = webtorch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device, requires_grad=True)
    (x * x).backward(gradient=webtorch.tensor([[1.0, 0.0], [0.5, 2.0]], device=device))
    assert x.grad.tolist() == [[2.0, 0.0], [3.0, 16.0]]


def test_errors_match_torch():
    for T in (torch, webtorch):
        with pytest.raises(RuntimeError, match="floating point"):
            T.tensor([1, 2], requires_grad=True)
        x = T.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="only be implicitly created for scalar outputs|implicitly created"):
            (x * 2).backward()
        with pytest.raises(RuntimeError, match="does not require grad"):
            T.ones(2).sum().backward()


def test_autograd_function():
    class Cube(webtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

    x = webtorch.tensor([1.0, -2.0], device="webgpu", requires_grad=True)
    Cube.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]


def test_second_order_with_create_graph():
    x = webtorch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = webtorch.autograd.grad((x * x * x).sum(), x, create_graph=True)
    (h,) = webtorch.autograd.grad(g.sum(), x)
    assert h.tolist() == [6.0, 12.0]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kw", [{"stride": 2, "padding": 1}, {"padding": 1, "groups": 2}])
def test_conv2d_second_order_matches_torch(device, kw):
    """The conv2d primitive's backward is made of differentiable ops (conv2d itself included)."""
    torch.manual_seed(1)
    x, w = torch.randn(2, 4, 7, 7), torch.randn(6, 4 // kw.get("groups", 1), 3, 3)
    results = []
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        xt = T.tensor(x.tolist(), device=dev, requires_grad=True)
        wt = T.tensor(w.tolist(), device=dev, requires_grad=True)
        y = T.nn.functional.conv2d(xt, wt, **kw)
        gx, gw = T.autograd.grad((y * y).sum(), (xt, wt), create_graph=True)
        results.append([g.tolist() for g in T.autograd.grad((gx * gx).sum() + (gw * gw).sum(), (xt, wt))])
    for mine, ref in zip(results[1], results[0]):
        ref = torch.tensor(ref)
        assert torch.allclose(torch.tensor(mine), ref, rtol=1e-4, atol=1e-5 * ref.abs().max().item())


@pytest.mark.parametrize("device", DEVICES)
def test_backward_inputs_accumulates_only_there(device):
    grads = []
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        a = T.tensor([1.0, 2.0], device=dev, requires_grad=True)
        b = T.tensor([3.0, 4.0], device=dev, requires_grad=True)
        h = a * b
        (h * h).sum().backward(inputs=[b])
        grads.append((a.grad, b.grad.tolist()))
    assert grads[0][0] is None and grads[1][0] is None
    assert grads[1][1] == grads[0][1]


@pytest.mark.parametrize("size,stride,offset,n", [((), (), 0, 3), ((2,), (1,), 0, 4), ((2,), (2,), 1, 5)])
def test_as_strided_scatter_gradient_is_the_numerical_one(size, stride, offset, n):
    """d out / d input is 1 on the elements src leaves and 0 on those it overwrites (torch 2.13's backward
    gives the complement: its gradcheck fails, docs/limits.md); d out / d src picks the overwritten ones."""
    x = webtorch.arange(1.0, n + 1).requires_grad_()
    src = webtorch.zeros(size, requires_grad=True)
    g = webtorch.arange(10.0, 10 + n)
    webtorch.as_strided_scatter(x, src, size, stride, offset).backward(g)
    kept = torch.as_strided_scatter(torch.ones(n), torch.zeros(size), size, stride, offset)  # 1 where x survives
    assert x.grad.tolist() == (torch.arange(10.0, 10 + n) * kept).tolist()
    assert src.grad.tolist() == torch.arange(10.0, 10 + n).as_strided(size, stride, offset).tolist()
