"""Modules against PyTorch: the same weights (copied from torch's module), inputs and output
weighting give the same outputs and gradients (inputs and parameters)."""
import pytest
import torch

import webtorch

DEVICES = ["webgpu", "cpu"]


def flat(values):
    return [v for item in values for v in flat(item)] if isinstance(values, list) else [values]


def close(mine, ref, tol=2e-5):
    assert tuple(mine.shape) == tuple(ref.shape)
    assert flat(mine.tolist()) == pytest.approx(flat(ref.detach().tolist()), abs=tol, rel=tol)


def mirror(ref, build, device):
    """A webtorch module like torch module ref, with ref's weights."""
    mine = build(webtorch)
    assert list(mine.state_dict()) == list(ref.state_dict()) and repr(mine) == repr(ref)
    mine.load_state_dict({k: webtorch.tensor(v.tolist()) for k, v in ref.state_dict().items()})
    return mine.to(device)


def leaf(t, device):
    return webtorch.tensor(t.tolist(), device=device, requires_grad=True)


def outputs(out):
    """The tensors of a module's output, in order (a PackedSequence gives its data; None is skipped)."""
    if out is None:
        return []
    if hasattr(out, "batch_sizes"):
        return [out.data]
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in outputs(item)]
    return [out]


def compare(build, make_inputs, device, call=None, train=False):
    torch.manual_seed(0)
    ref = build(torch)
    mine = mirror(ref, build, device)
    ref.train(train)
    mine.train(train)
    inputs = [t.requires_grad_() for t in make_inputs()]
    mine_inputs = [leaf(t, device) for t in inputs]
    call = call or (lambda T, m, *xs: m(*xs))
    ref_out, mine_out = outputs(call(torch, ref, *inputs)), outputs(call(webtorch, mine, *mine_inputs))
    assert len(mine_out) == len(ref_out)
    for a, b in zip(mine_out, ref_out):
        close(a, b)
    weights = [torch.randn(o.shape) for o in ref_out]
    sum((o * w).sum() for o, w in zip(ref_out, weights)).backward()
    sum((o * webtorch.tensor(w.tolist(), device=device)).sum() for o, w in zip(mine_out, weights)).backward()
    for a, b in zip(mine_inputs, inputs):
        close(a.grad, b.grad, 1e-4)
    for (name, a), (_, b) in zip(mine.named_parameters(), ref.named_parameters()):
        assert a.grad is not None, name
        close(a.grad, b.grad, 1e-4)
