"""torch.trapezoid / trapz / cumulative_trapezoid and Tensor.fill_diagonal_ against torch 2.13: values
(float64 reference), gradients, dtypes and errors, on cpu and webgpu."""
import numpy as np
import pytest
import torch

import webtorch as wt

CASES = [  # (function, uses x, keyword arguments)
    ("trapezoid", False, {}), ("trapz", False, dict(dx=0.5)), ("trapezoid", True, dict(dim=1)),
    ("trapz", True, {}), ("cumulative_trapezoid", False, dict(dim=0)), ("cumulative_trapezoid", True, {}),
    ("cumulative_trapezoid", False, dict(dx=-2)),
]


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("name,with_x,kwargs", CASES)
def test_trapezoid_values_and_gradients(name, with_x, kwargs, device):
    y = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    x = torch.rand(5, dtype=torch.float64).cumsum(0)
    expected = getattr(torch, name)(y, *([x] if with_x else []), **kwargs)
    grad, = torch.autograd.grad(expected.sum(), y)
    wy = wt.tensor(y.detach().numpy().astype(np.float32), device=device, requires_grad=True)
    wx = wt.tensor(x.numpy().astype(np.float32), device=device)
    got = getattr(wt, name)(wy, *([wx] if with_x else []), **kwargs)
    assert got.dtype is wt.float32 and tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(np.array(got.tolist()), expected.detach().numpy(), rtol=1e-5, atol=1e-6)
    wgrad, = wt.autograd.grad(got.sum(), wy)
    np.testing.assert_allclose(np.array(wgrad.tolist()), grad.numpy(), rtol=1e-5, atol=1e-6)


def test_trapezoid_dtypes_edges_and_errors():
    for lib in (torch, wt):  # integers integrate to float; no samples integrate to 0
        ints = lib.arange(6).reshape(2, 3)
        assert str(lib.trapezoid(ints).dtype).endswith("float32")
        assert lib.trapezoid(ints, lib.tensor([1, 2, 4])).tolist() == [3.5, 12.5]
        assert lib.trapezoid(lib.empty(2, 0)).tolist() == [0.0, 0.0]
        assert lib.trapezoid(ints.float(), lib.tensor([[0.0, 1, 3]])).tolist() == [3.5, 12.5]
        assert lib.cumulative_trapezoid(lib.ones(2, 1)).shape == (2, 0)
    for call, error in [(lambda lib: lib.trapezoid(lib.ones(2, 3), lib.tensor([0.0, 1])), RuntimeError),
                        (lambda lib: lib.cumulative_trapezoid(lib.ones(2, 3), lib.tensor([0.0, 1])), RuntimeError),
                        (lambda lib: lib.trapezoid(lib.ones(2, 3) > 0), RuntimeError),
                        (lambda lib: lib.trapezoid(lib.ones(2, 3), dim=2), IndexError),
                        (lambda lib: lib.trapezoid(lib.ones(2, 3), lib.ones(3), dx=1), TypeError)]:
        for lib in (torch, wt):
            with pytest.raises(error):
                call(lib)


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("shape,wrap", [((3, 4), False), ((7, 3), True), ((7, 3), False), ((3, 3, 3), False),
                                        ((2, 5), True)])
def test_fill_diagonal(shape, wrap, device):
    x = wt.zeros(*shape, device=device)
    assert x.fill_diagonal_(2.5, wrap=wrap) is x
    assert x.tolist() == torch.zeros(*shape).fill_diagonal_(2.5, wrap=wrap).tolist()
    for bad in [(3,), (2, 3, 3)]:
        for lib in (torch, wt):
            with pytest.raises(RuntimeError):
                lib.zeros(*bad).fill_diagonal_(1)
