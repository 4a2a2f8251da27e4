"""Gradient cases: every op-table case, differentiated through a fixed weighting of its float
outputs (standard library only, so the browser runs the webtorch side against torch's values)."""
import math

from compare import assert_close, iter_tensors, to_plain
from op_cases import CASES, INT64_BEYOND_INT32, build_inputs

GRAD_CASES = [c for c in CASES if c.name not in INT64_BEYOND_INT32]


def gradients(T, case, device):
    """d(sum(out * weights))/d(inputs) for the case's float inputs; None when nothing to differentiate."""
    inputs = [t.detach().requires_grad_() if "float" in str(t.dtype) else t for t in build_inputs(T, case, device)]
    wrt = [t for t in inputs if "float" in str(t.dtype)]
    if not wrt:
        return None
    result = case.fn(T, device, *inputs)
    outs = [o for o in iter_tensors(result) if "float" in str(o.dtype) and o.requires_grad]
    if not outs:
        return None
    loss = 0
    for o in outs:
        weights = T.tensor([math.cos(1.0 + 0.37 * i) for i in range(o.numel())], device=device).reshape(o.shape)
        loss = loss + (o * weights).sum()
    return T.autograd.grad(loss, wrt, allow_unused=True)


def plain_gradients(T, case, device):
    """gradients() as plain data: None, or one plain tensor (or None) per float input."""
    grads = gradients(T, case, device)
    return None if grads is None else [None if g is None else to_plain(g) for g in grads]


def check_gradients(actual, expected, case, name):
    """Compares plain_gradients() results; raises AssertionError naming the case and input."""
    assert actual is not None, name + ": torch differentiates this case, webtorch produced no graph"
    assert len(actual) == len(expected), name
    for i, (a, e) in enumerate(zip(actual, expected)):
        where = f"grad of {name} input {i}"
        if e is None:
            assert a is None or not any(v != 0 for v in a["values"]), where + ": torch gives no gradient"
        elif a is None:  # webtorch cut the graph where torch propagates zeros (e.g. x.zero_())
            assert not any(v != 0 for v in e["values"]), where + ": no gradient"
        else:
            assert_close(a, e, atol=max(case.atol, 1e-4) * 10, rtol=max(case.rtol, 1e-4) * 10, name=where)
