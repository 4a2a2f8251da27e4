"""F.grid_sample, F.affine_grid and F.interpolate(antialias=True; bilinear, bicubic, lanczos) against torch 2.13: values and the
gradients for input and grid, every mode x padding x align_corners, on cpu (float64: to rounding) and
webgpu (float32 against torch's float64)."""
import itertools
import warnings

import numpy as np
import pytest
import torch

import webtorch

DEVICES = [("cpu", 1e-12), ("webgpu", 5e-6)]  # (device, error bound relative to the result's scale)


def _close(got, expected, bound, what):
    got, expected = np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    assert got.shape == expected.shape, what
    scale = max(float(np.abs(expected).max(initial=0.0)), 1.0)
    assert float(np.abs(got - expected).max(initial=0.0)) <= bound * scale, what


def _grid_case(lib, device, mode, padding, align):
    rng = np.random.default_rng(0)
    image = rng.standard_normal((2, 3, 5, 6))
    grid = rng.uniform(-1.3, 1.3, (2, 4, 3, 2))
    grid[0, 0, 0], grid[0, 0, 1] = [1.0, -1.0], [0.2, 0.6]  # on the border, and on pixel centres / edges
    dtype = lib.float64 if device == "cpu" else lib.float32
    x = lib.tensor(image, dtype=dtype, device=device, requires_grad=True)
    g = lib.tensor(grid, dtype=dtype, device=device, requires_grad=True)
    out = lib.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=align)
    weights = lib.tensor(np.arange(out.numel()).reshape(tuple(out.shape)) % 7 - 3.0, dtype=dtype, device=device)
    (out * weights).sum().backward()
    return [t.detach().cpu().tolist() for t in (out, x.grad, g.grad)]


EVERY_MODE = list(itertools.product(("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"), (False, True)))
# on webgpu (lavapipe: seconds a case) the two interpolating kernels, two paddings, both align_corners
ON_GPU = [("bilinear", "reflection", True), ("bicubic", "border", False)]


@pytest.mark.parametrize("device,bound,cases", [(d, b, EVERY_MODE if d == "cpu" else ON_GPU) for d, b in DEVICES])
def test_grid_sample_every_mode(device, bound, cases):
    for mode, padding, align in cases:
        expected = _grid_case(torch, "cpu", mode, padding, align)
        for name, got, want in zip(("values", "input grad", "grid grad"),
                                   _grid_case(webtorch, device, mode, padding, align), expected):
            _close(got, want, bound, f"{mode} {padding} align_corners={align}: {name}")


@pytest.mark.parametrize("device,bound", DEVICES)
def test_affine_grid(device, bound):
    rng = np.random.default_rng(1)
    for align, size in itertools.product((False, True), ((2, 3, 4, 5), (2, 1, 1, 3), (2, 1, 2, 3, 4))):
        theta = rng.standard_normal((2, len(size) - 2, len(size) - 1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch's warning for unit-size grids with align_corners)
            expected = torch.nn.functional.affine_grid(torch.tensor(theta), size, align_corners=align)
            got = webtorch.nn.functional.affine_grid(webtorch.tensor(theta, device=device), size, align_corners=align)
        _close(got.cpu().tolist(), expected.tolist(), bound, f"{size} align_corners={align}")


@pytest.mark.parametrize("device,bound", DEVICES)
def test_interpolate_antialias(device, bound):
    """Down- and upsampling, sizes and scale factors, align_corners."""
    x = np.random.default_rng(2).standard_normal((2, 3, 9, 11))
    cases = [dict(size=s, align_corners=a) for s, a in itertools.product(((4, 5), (3, 11), (13, 16), (1, 1), (5, 20)),
                                                                          (False, True))]
    cases += [dict(scale_factor=f) for f in (0.3, 0.5, 1.7)]
    for mode, kwargs in itertools.product(("bilinear", "bicubic", "lanczos"), cases):
        if mode == "lanczos" and kwargs.get("align_corners"):
            continue  # (torch refuses it: test_errors)
        expected = torch.nn.functional.interpolate(torch.tensor(x), mode=mode, antialias=True, **kwargs)
        image = webtorch.tensor(x if device == "cpu" else x.astype(np.float32), device=device)
        got = webtorch.nn.functional.interpolate(image, mode=mode, antialias=True, **kwargs)
        _close(got.cpu().tolist(), expected.tolist(), bound, f"{mode} {kwargs}")


@pytest.mark.parametrize("call,error", [
    (lambda F, t: F.grid_sample(t.ones(1, 1, 2, 2), t.zeros(1, 1, 1, 2), mode="area", align_corners=False), ValueError),
    (lambda F, t: F.grid_sample(t.ones(1, 1, 2, 2), t.zeros(1, 1, 1, 2), padding_mode="wrap", align_corners=False),
     ValueError),
    (lambda F, t: F.grid_sample(t.ones(1, 1, 2, 2), t.zeros(2, 1, 1, 2), align_corners=False), RuntimeError),
    (lambda F, t: F.affine_grid(t.zeros(1, 2, 2), (1, 1, 2, 2), align_corners=False), ValueError),
    (lambda F, t: F.interpolate(t.ones(1, 1, 4), size=2, mode="linear", antialias=True), ValueError),
    (lambda F, t: F.interpolate(t.ones(1, 1, 4, 4), size=2, mode="nearest", antialias=True), ValueError),
    (lambda F, t: F.interpolate(t.ones(1, 1, 4, 4), size=2, mode="lanczos"), ValueError),
    (lambda F, t: F.interpolate(t.ones(1, 1, 4), size=2, mode="lanczos", antialias=True), ValueError),
    (lambda F, t: F.interpolate(t.ones(1, 1, 4, 4), size=2, mode="lanczos", antialias=True, align_corners=True),
     ValueError),
])
def test_errors(call, error):
    for lib in (torch, webtorch):
        with pytest.raises(error):
            call(lib.nn.functional, lib)


def test_align_corners_default_warns():
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        webtorch.nn.functional.grid_sample(webtorch.ones(1, 1, 2, 2), webtorch.zeros(1, 1, 1, 2))
