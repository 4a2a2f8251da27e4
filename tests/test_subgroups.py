"""Subgroup shuffles in reductions, softmax and layer_norm (subgroup_shuffle.wgsl) where the adapter
offers `subgroups` (lavapipe does), and the path without them (SwiftShader's), here by hiding the
feature: both against torch, over row lengths that give 1 to 256 threads per row, long rows split
over workgroups, columns, arg-reductions and NaN/inf."""
import pytest
import torch
import torch.nn.functional as torch_F

import webtorch
import webtorch.nn.functional as webtorch_F
from webtorch.backend import gpu, kernels
from webtorch.backend.webgpu import runtime

ROWS = [(5, 1), (7, 3), (4, 17), (3, 255), (2, 1000), (1, 70000), (300, 33)]
OPS = {
    "sum": lambda T, F, x: x.sum(-1),
    "sum_cols": lambda T, F, x: x.sum(0),
    "amax": lambda T, F, x: x.amax(-1),
    "argmax": lambda T, F, x: x.argmax(-1),
    "argmin_cols": lambda T, F, x: x.argmin(0),
    "softmax": lambda T, F, x: x.softmax(-1),
    "log_softmax": lambda T, F, x: x.log_softmax(-1),
    "layer_norm": lambda T, F, x: F.layer_norm(x, x.shape[-1:], x[0].cos(), x[0].sin()),
}


def _input(rows, n, special):
    g = torch.Generator().manual_seed(rows * n)
    x = torch.randn(rows, n, generator=g)
    if special:
        x[0, n // 2] = float("nan")
        x[-1, 0] = float("inf")
        x[-1, -1] = -float("inf")
    return x


def _check(name, shape, special):
    x = _input(*shape, special)
    expected = OPS[name](torch, torch_F, x)
    got = OPS[name](webtorch, webtorch_F, webtorch.tensor(x.tolist(), device="webgpu"))
    got = torch.tensor(got.tolist(), dtype=expected.dtype)
    tol = 1e-5 * max(1, shape[1] ** 0.5) if expected.is_floating_point() else 0
    torch.testing.assert_close(got, expected, rtol=tol, atol=tol, equal_nan=True)


def test_lavapipe_offers_subgroups_and_the_kernels_use_them():
    rt = runtime()
    assert "subgroups" in rt.features and gpu.subgroup_min(rt) >= 2
    for kernel in (kernels.softmax(False, 4), kernels.layer_norm(4),
                   kernels.reduce("sum", webtorch.float32, webtorch.float32, webtorch.float32, False, "contiguous",
                                  False, 4)):
        assert "subgroupShuffleXor" in kernel[1] and "const SG_MIN = 4u" in kernel[1]
    assert "subgroupShuffleXor" not in kernels.softmax(False)[1]


@pytest.mark.parametrize("subgroups", [True, False], ids=["subgroups", "hidden"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_against_torch(name, subgroups, monkeypatch):
    rt = runtime()
    monkeypatch.setattr(gpu, "_on_cpu_adapter", lambda runtime: False)  # reductions join threads as on GPUs
    if not subgroups:
        monkeypatch.setattr(rt, "features", rt.features - {"subgroups"})
    assert (gpu.subgroup_min(rt) is not None) == subgroups
    for i, shape in enumerate(ROWS):
        _check(name, shape, special=i % 2 == 1)
