"""0-d cpu tensors in webgpu computations, as torch's cpu scalar tensors in CUDA ops (issue 22): they
keep their dtype's say in type promotion and their gradient, Tensor.to carries autograd across
devices, and webtorch.compile(fullgraph=True) takes them as arguments, reading each call's value."""
import pytest
import torch

import webtorch

# (tensor dtype, scalar tensor dtype, scalar value): torch gives the 0-d tensor's dtype where its
# category is higher, as a 0-d tensor (not a Python number, which would give the default float)
PROMOTIONS = [("int32", "float16", 2.5), ("int64", "float32", 0.5), ("float16", "float32", 3.0),
              ("float32", "int64", 2), ("int32", "int64", 3), ("bool", "int32", 2), ("uint8", "bool", True)]


@pytest.mark.parametrize("dtype,sdtype,value", PROMOTIONS)
def test_cpu_scalar_tensor_promotes_as_a_0d_tensor(dtype, sdtype, value):
    def run(T, device):
        x = T.tensor([1, 0, 3], device=device).to(getattr(T, dtype))
        s = T.tensor(value, dtype=getattr(T, sdtype))
        return [(r.dtype, r.device.type, r.tolist()) for r in (x * s, s + x, T.where(x > 0, x, s), x - s)] \
            if dtype != "bool" and sdtype != "bool" else [(r.dtype, r.device.type, r.tolist()) for r in (x * s, s + x)]
    got, want = run(webtorch, "webgpu"), run(torch, "cpu")
    assert [(str(d).split(".")[-1], v) for d, _, v in got] == [(str(d).split(".")[-1], v) for d, _, v in want]
    assert all(dev == "webgpu" for _, dev, _ in got)


def _grads(T, device):
    w = T.tensor([1.0, -2.0, 0.5], requires_grad=True)
    s = T.tensor(3.0, requires_grad=True)
    x = T.tensor([0.5, 1.5, -1.0], device=device)
    on_device = w.to(device)
    y = (on_device * s * x).to("cpu").sum() + (x.to("cpu") * s).sum()
    y.backward()
    return w.grad.tolist(), s.grad.item(), w.grad.device.type, s.grad.device.type, on_device.requires_grad


def test_gradient_flows_through_device_transfers_and_cpu_scalars():
    got, want = _grads(webtorch, "webgpu"), _grads(torch, "cpu")
    assert got == pytest.approx(want)


def test_compile_fullgraph_takes_cpu_scalar_tensors_and_reads_each_value():
    @webtorch.compile(fullgraph=True)
    def f(x, s, offset=None):
        return x * s + offset

    x = webtorch.arange(4.0, device="webgpu")
    for v in (2.0, 3.0, -1.5, 2.0):  # a stale capture would give the first call's numbers again
        got = f(x, webtorch.tensor(v), offset=webtorch.tensor(v * 10))
        assert got.device.type == "webgpu"
        assert got.tolist() == (torch.arange(4.0) * v + v * 10).tolist()
    assert f.stats == {"captures": 1, "replays": 3, "eager": 0}


def test_compiled_module_takes_a_cpu_scalar_tensor():
    lin = webtorch.nn.Linear(3, 2).to("webgpu").requires_grad_(False)
    step = webtorch.compile(lambda x, t: lin(x) * t, fullgraph=True)
    x = webtorch.ones(2, 3, device="webgpu")
    for t in (0.5, 4.0, 0.5):
        assert webtorch.allclose(step(x, webtorch.tensor(t)), lin(x) * t)
    assert step.stats["replays"] == 2
    with pytest.raises(webtorch._compile.GraphBreakError):  # a dimensioned cpu tensor is still refused
        step(x, webtorch.ones(2, 1))
