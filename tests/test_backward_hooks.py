"""Module.register_full_backward_hook / register_full_backward_pre_hook against torch 2.13
(webtorch/nn/_backward_hooks.py): the grads each hook sees, a hook's replacement of grad_input (and a
pre-hook's of grad_output) reaching the earlier layers and parameters, the hook firing with grad_input
None when no input requires grad (and torch's warning), and the deprecated register_backward_hook refused."""
import warnings

import pytest
import torch

import webtorch
from compare import assert_close, to_plain


def _plain(grads):
    return [None if g is None else to_plain(g) for g in grads]


def _run(T, device, input_grad, replace):
    lin = T.nn.Linear(3, 2)
    head = T.nn.Linear(2, 1)
    with T.no_grad():
        lin.weight.copy_(T.tensor([[0.1, -0.2, 0.3], [0.5, 0.4, -0.6]]))
        lin.bias.copy_(T.tensor([0.1, 0.2]))
        head.weight.copy_(T.tensor([[1.5, -0.7]]))
        head.bias.zero_()
    net = T.nn.Sequential(lin, T.nn.Tanh(), head).to(device)
    seen = []
    net[1].register_full_backward_hook(lambda m, gi, go: seen.append(("tanh", _plain(gi), _plain(go))))
    net[0].register_full_backward_hook(lambda m, gi, go: seen.append(("linear", _plain(gi), _plain(go))))
    net[2].register_full_backward_pre_hook(lambda m, go: seen.append(("pre", _plain(go))))
    if replace:
        net[2].register_full_backward_hook(lambda m, gi, go: (gi[0] * 2,))
        net[2].register_full_backward_pre_hook(lambda m, go: (go[0] * -3,))
    x = T.tensor([[1.0, 2.0, -1.0], [0.5, -0.3, 0.2]], device=device).requires_grad_(input_grad)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        net(x).sum().backward()
    seen.append(("weight", to_plain(lin.weight.grad)))
    if input_grad:
        seen.append(("x", to_plain(x.grad)))
    seen.append(("warned", sorted({str(w.message)[:40] for w in caught if "backward hook" in str(w.message)})))
    return seen


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("input_grad", [False, True])
@pytest.mark.parametrize("replace", [False, True])
def test_full_backward_hooks_like_torch(device, input_grad, replace):
    expected = _run(torch, "cpu", input_grad, replace)
    actual = _run(webtorch, device, input_grad, replace)
    assert [e[0] for e in actual] == [e[0] for e in expected]
    for a, e in zip(actual, expected):
        assert a[0] == e[0]
        for x, y in zip(a[1:], e[1:]):
            if isinstance(y, list) and y and isinstance(y[0], str):
                assert x == y, a[0]
            elif isinstance(y, list):
                assert len(x) == len(y), a[0]
                for u, v in zip(x, y):
                    assert (u is None) == (v is None), a[0]
                    if v is not None:
                        assert_close(u, v, 1e-5, 1e-5, a[0])
            else:
                assert_close(x, y, 1e-5, 1e-5, a[0])


def test_removed_hook_does_not_fire():
    seen = []
    m = webtorch.nn.Linear(2, 2)
    handle = m.register_full_backward_hook(lambda *a: seen.append(1))
    handle.remove()
    m(webtorch.ones(1, 2, requires_grad=True)).sum().backward()
    assert seen == []


def test_register_backward_hook_is_refused():
    with pytest.raises(NotImplementedError, match="register_full_backward_hook"):
        webtorch.nn.Linear(2, 2).register_backward_hook(lambda *a: None)
