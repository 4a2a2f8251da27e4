"""F.fractional_max_pool2d/3d and nn.FractionalMaxPool2d/3d against torch 2.13 (webtorch/nn/_fractional_pool.py):
with the same _random_samples, the same windows (torch's interval rule in the input's float dtype, its
order of a plane's samples), values, indices and input gradients; drawn samples give windows of the
input; torch's errors."""
import numpy as np
import pytest
import torch

import webtorch

CASES = [  # (d, input shape, kernel_size, keywords)
    (2, (2, 3, 9, 11), (3, 2), {"output_size": (4, 5)}),
    (2, (3, 10, 7), 2, {"output_size": (5, 3)}),
    (2, (1, 2, 12, 12), 3, {"output_ratio": (0.5, 0.4)}),
    (2, (1, 1, 5, 5), 2, {"output_size": 4}),
    (3, (2, 2, 7, 8, 9), (2, 3, 2), {"output_size": (3, 4, 5)}),
    (3, (2, 6, 6, 6), 2, {"output_ratio": (0.5, 0.7, 0.6)}),
]


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("d,shape,kernel,kwargs", CASES)
def test_fractional_max_pool_like_torch(d, shape, kernel, kwargs, dtype, device):
    if device == "webgpu" and dtype == "float64":
        pytest.skip("float64 on webgpu is stored as float32 (docs/limits.md)")
    gen = torch.Generator().manual_seed(sum(shape))
    x = torch.randn(*shape, generator=gen, dtype=getattr(torch, dtype))
    batch = shape[0] if len(shape) == d + 2 else 1
    samples = torch.rand(batch, shape[-d - 1], d, generator=gen, dtype=x.dtype)
    name = f"fractional_max_pool{d}d"
    xt = x.clone().requires_grad_()
    out, idx = getattr(torch.nn.functional, name)(xt, kernel, return_indices=True, _random_samples=samples, **kwargs)
    (out * torch.arange(out.numel(), dtype=x.dtype).reshape(out.shape)).sum().backward()
    W = webtorch
    xw = W.tensor(x.numpy(), device=device).requires_grad_()
    wout, widx = getattr(W.nn.functional, name)(xw, kernel, return_indices=True,
                                                _random_samples=W.tensor(samples.numpy(), device=device), **kwargs)
    (wout * W.arange(wout.numel(), dtype=wout.dtype, device=device).reshape(wout.shape)).sum().backward()
    assert tuple(wout.shape) == tuple(out.shape) and str(wout.dtype).split(".")[1] == dtype
    assert widx.tolist() == idx.tolist()
    np.testing.assert_allclose(wout.detach().cpu().numpy(), out.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(xw.grad.cpu().numpy(), xt.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("cls,shape", [("FractionalMaxPool2d", (2, 3, 10, 9)), ("FractionalMaxPool3d", (1, 2, 6, 7, 8))])
def test_module_draws_windows_of_the_input(cls, shape):
    pool = getattr(webtorch.nn, cls)(2, output_ratio=0.5, return_indices=True)
    x = webtorch.randn(*shape)
    out, idx = pool(x)
    d = len(shape) - 2
    assert tuple(out.shape) == tuple(shape[:2]) + tuple(int(s * 0.5) for s in shape[2:])
    flat = x.reshape(shape[0], shape[1], -1)
    assert webtorch.equal(flat.gather(2, idx.reshape(shape[0], shape[1], -1)).reshape(out.shape), out)
    expected = getattr(torch.nn, cls)(2, output_ratio=0.5, return_indices=True)
    assert repr(pool) == repr(expected) and d in (2, 3)


@pytest.mark.parametrize("call,error", [
    (lambda T: T.nn.functional.fractional_max_pool2d(T.ones(1, 1, 4, 4), 3, output_size=3), RuntimeError),
    (lambda T: T.nn.functional.fractional_max_pool2d(T.ones(1, 1, 4, 4), 2), ValueError),
    (lambda T: T.nn.functional.fractional_max_pool3d(T.ones(1, 1, 5, 5, 5), 2, output_size=(2, 4, 2)),
     RuntimeError),  # 3-d: a window must not reach the last element (4 + 2 - 1 == 5), 2-d allows it
    (lambda T: T.nn.FractionalMaxPool2d(2), ValueError),
    (lambda T: T.nn.FractionalMaxPool2d(2, output_ratio=1.5), ValueError),
    (lambda T: T.nn.functional.fractional_max_pool2d(T.ones(1, 1, 4, 4), 2, output_size=2,
                                                     _random_samples=T.rand(1, 2, 2)), RuntimeError),
])
def test_errors_like_torch(call, error):
    for T in (torch, webtorch):
        with pytest.raises(error):
            call(T)
