"""torch.special's Bessel, Airy, normal-distribution functions and orthogonal polynomials against torch 2.13.

Inputs: random values over each function's range plus the edges (0, -0, +-1, the range switches, 1e4, 1e30,
+-inf, NaN); for the polynomials every x against n from -3 to past Hermite's limit (and NaN, inf, 2.7).
float32 (cpu and webgpu) must be within 4x torch's own float32 error (both against torch's float64) plus
4 ulps, and 1e-6 for the bounded oscillating functions (their zeros cancel terms ~0.3); float64 (cpu)
within 1e-12 of torch's float64. NaN and the infinities must match exactly, except where torch's kernel
reads an uninitialised value (a NaN x with n >= 2 in the polynomials' recurrences).
"""
import math

import numpy as np
import pytest
import torch

import webtorch

DEVICES = ["cpu", "webgpu"]
EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 2.09, -2.09, 5.0, 8.0, -8.0, 9.0, -9.0, 26.0, -26.0, 50.0, 103.9,
         1e-6, 1e-30, 0.01, 0.99, 1e4, -1e4, 1e30, -1e30, math.inf, -math.inf, math.nan]
UNARY = {  # name: the random inputs' range
    "airy_ai": (-30, 30), "bessel_j0": (-60, 60), "bessel_j1": (-60, 60), "bessel_y0": (0, 60),
    "bessel_y1": (0, 60), "modified_bessel_i0": (-90, 90), "modified_bessel_i1": (-90, 90),
    "modified_bessel_k0": (0, 90), "modified_bessel_k1": (0, 90), "scaled_modified_bessel_k0": (0, 90),
    "scaled_modified_bessel_k1": (0, 90), "spherical_bessel_j0": (-40, 40), "entr": (-1, 10), "erfcx": (-12, 60),
    "i0e": (-100, 100), "i1e": (-100, 100), "log_ndtr": (-40, 10), "ndtri": (0, 1), "round": (-100, 100)}
WAVES = {"airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "spherical_bessel_j0"}
POLYNOMIALS = [f"{s}chebyshev_polynomial_{k}" for s in ("", "shifted_") for k in "tuvw"] + [
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]
CASES = [(d, t) for d in DEVICES for t in ("float32", "float64") if (d, t) != ("webgpu", "float64")]


def _check(name, dtype, got, expected, reference, tolerance_floor=0.0, skip=None):
    got, e, ref = (np.asarray(v, dtype=np.float64) for v in (got, expected, reference))
    skip = np.zeros(e.shape, bool) if skip is None else skip
    assert ((np.isnan(got) == np.isnan(e)) | skip).all(), (name, dtype, "NaN", got[np.isnan(got) != np.isnan(e)])
    infinite = (np.isinf(e) | np.isinf(got)) & ~skip
    assert (got[infinite] == e[infinite]).all(), (name, dtype, "inf")
    finite = np.isfinite(e) & np.isfinite(got) & np.isfinite(ref) & ~skip
    with np.errstate(all="ignore"):
        if dtype == "float32":
            ulp = np.spacing(np.abs(ref[finite]).astype(np.float32)).astype(np.float64)
            floor = tolerance_floor[finite] if np.ndim(tolerance_floor) else tolerance_floor
            tol = 4 * np.abs(e[finite] - ref[finite]) + 4 * ulp + floor + 1e-45
            err = np.abs(got[finite] - ref[finite])
        else:
            tol, err = 1e-12 * np.abs(e[finite]) + 1e-15, np.abs(got[finite] - e[finite])
    bad = err > tol
    assert not bad.any(), (name, dtype, got[finite][bad][:5], e[finite][bad][:5], ref[finite][bad][:5])


@pytest.mark.parametrize("device,dtype", CASES)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary(name, device, dtype):
    lo, hi = UNARY[name]
    xs = np.concatenate([np.random.default_rng(0).uniform(lo, hi, 100), EDGES]).astype(np.float32)
    x = torch.tensor(xs, dtype=getattr(torch, dtype))
    expected = getattr(torch.special, name)(x)
    reference = getattr(torch.special, name)(x.double())
    got = getattr(webtorch.special, name)(webtorch.tensor(xs, dtype=getattr(webtorch, dtype), device=device))
    assert got.dtype is getattr(webtorch, dtype) and got.device.type == device
    _check(name, dtype, got.cpu().numpy(), expected.numpy(), reference.numpy(), 1e-6 if name in WAVES else 0.0)


@pytest.mark.parametrize("device,dtype", CASES)
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials(name, device, dtype):
    xs = np.concatenate([np.random.default_rng(1).uniform(-1.2, 1.2, 16),
                         [0., -0., 1., -1., 0.5, 2., -3., 1e4, math.inf, -math.inf, math.nan, 1.0000001]])
    ns = [-3, -1, 0, 1, 2, 3, 5, 6, 7, 8, 9, 30, 129, 2.7, math.nan, math.inf]
    x, n = (v.ravel().astype(np.float32) for v in np.meshgrid(xs, ns))
    expected = getattr(torch.special, name)(torch.tensor(x, dtype=getattr(torch, dtype)), torch.tensor(n, dtype=getattr(torch, dtype)))
    reference = getattr(torch.special, name)(torch.tensor(x, dtype=torch.float64), torch.tensor(n, dtype=torch.float64))
    wt = getattr(webtorch, dtype)
    got = getattr(webtorch.special, name)(webtorch.tensor(x, dtype=wt, device=device),
                                          webtorch.tensor(n, dtype=wt, device=device))
    # webgpu's acos and fused multiply-add round less tightly: the trigonometric forms and recurrences
    # magnify that n-fold
    floor = 1e-6 + (2e-7 * np.abs(np.nan_to_num(n, posinf=0)) * np.maximum(1, np.abs(reference.numpy()))
                    if device == "webgpu" else 0)
    _check(name, dtype, got.cpu().numpy(), expected.numpy(), reference.numpy(), floor, skip=np.isnan(x) & (n >= 2))


@pytest.mark.parametrize("device", DEVICES)
def test_polynomial_forms(device):
    """Broadcasting (x, n), a number for either, dtype promotion, out=, and no gradient (as torch)."""
    x = [[0.3], [-0.7], [1.5]]
    n = [0, 2, 5, 11]
    for name in POLYNOMIALS:
        t_fn, w_fn = getattr(torch.special, name), getattr(webtorch.special, name)
        for a, b in [(torch.tensor(x), torch.tensor(n)), (torch.tensor(x, dtype=torch.float64), 3),
                     (0.25, torch.tensor(n)), (torch.tensor([1, 2]), torch.tensor([3, 4]))][:4 if device == "cpu" else 1]:
            wa, wb = (webtorch.tensor(v.tolist(), dtype=getattr(webtorch, str(v.dtype)[6:]), device=device)
                      if isinstance(v, torch.Tensor) else v for v in (a, b))
            expected, got = t_fn(a, b), w_fn(wa, wb)
            assert str(got.dtype) == str(expected.dtype).replace("torch", "webtorch")
            np.testing.assert_allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
        if device == "webgpu":
            continue  # the rest is the wrappers' own logic, the same on either device
        out = webtorch.empty(0)
        assert w_fn(webtorch.tensor(x), 4, out=out) is out and list(out.shape) == [3, 1]
        assert not w_fn(webtorch.tensor([0.5], requires_grad=True), 3).requires_grad
        with pytest.raises(TypeError):
            w_fn(0.5, 3)
        for refused in (webtorch.tensor([0.5], dtype=webtorch.float16), webtorch.tensor([1j])):
            with pytest.raises(NotImplementedError):
                w_fn(refused, 3)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(UNARY))
def test_gradients(name, device):
    """The six with a derivative in torch (and round's zero) match its gradient; the rest return a tensor
    that requires no grad, as torch's."""
    values = [0.0, 0.2, 0.7, 1.5, 3.0] if name in ("ndtri", "entr") else [-3.0, -0.5, 0.0, 0.2, 1.5, 9.0]
    values = [v for v in values if not (name == "ndtri" and v > 1)]
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    wx = webtorch.tensor(values, dtype=webtorch.float32 if device == "webgpu" else webtorch.float64,
                         requires_grad=True, device=device)
    y, wy = getattr(torch.special, name)(x), getattr(webtorch.special, name)(wx)
    assert wy.requires_grad == y.requires_grad
    if not y.requires_grad:
        return
    y.sum().backward()
    wy.sum().backward()
    np.testing.assert_allclose(wx.grad.cpu().numpy(), x.grad.numpy(), rtol=1e-5 if device == "webgpu" else 1e-10,
                               atol=1e-6)


def _takes(fn, tensor, keyword):
    try:
        fn(**{keyword: tensor})
        return True
    except TypeError:
        return False


def test_unary_dtypes_and_out():
    for name in UNARY:
        fn = getattr(webtorch.special, name)
        for keyword in ("input", "x"):  # torch names four of them x alone, the rest input or x
            assert _takes(fn, webtorch.tensor([0.5]), keyword) == _takes(getattr(torch.special, name),
                                                                        torch.tensor([0.5]), keyword), (name, keyword)
        if name == "round":
            with pytest.raises(NotImplementedError):
                fn(webtorch.tensor([1, 2]))
            assert webtorch.special.round(webtorch.tensor([1.26]), decimals=1).tolist() == pytest.approx([1.3])
            continue
        assert fn(webtorch.tensor([1, 2])).dtype is webtorch.float32
        half = webtorch.tensor([0.5], dtype=webtorch.float16)
        if name in ("entr", "i0e", "i1e"):
            assert fn(half).dtype is webtorch.float16
            assert fn(half).item() == pytest.approx(  # torch's Half kernel rounds within: one half ulp apart
                getattr(torch.special, name)(torch.tensor([0.5], dtype=torch.float16)).item(), rel=2e-3)
        else:
            with pytest.raises(NotImplementedError):
                fn(half)
        with pytest.raises(NotImplementedError):
            fn(webtorch.tensor([1j]))
        out = webtorch.empty(2, dtype=webtorch.float64)
        assert fn(webtorch.tensor([0.25, 0.5]), out=out) is out and out.dtype is webtorch.float64
        with pytest.raises(TypeError):
            fn(0.5)
