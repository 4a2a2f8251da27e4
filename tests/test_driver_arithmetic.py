"""Arithmetic that a GPU driver may do its own way, done webtorch's way on every adapter.

The host suite run on an NVIDIA H200 through wgpu-native (Vulkan) found two driver behaviours that lavapipe
and SwiftShader never show: f32 division as the dividend times a reciprocal that is flushed to zero when
subnormal (a / b = 0 for |b| > 2^126), and WGSL's signed `%` giving the dividend back for a negative divisor
(naga's SPIR-V there: remainder, fmod, floor division and advanced indexing's negative-index wrap were
wrong). The division test runs the kernels with the driver's division replaced by that GPU's kind.
"""
import re

import pytest
import torch

import webtorch
from webtorch.backend import kernels, webgpu

# WGSL for a driver that divides as NVIDIA's Vulkan driver does: x times 1/y, a subnormal 1/y flushed
RECIPROCAL_TIMES = "x * select(1.0f / y, 0.0f, abs(y) > 8.507059e37f)"


@pytest.fixture
def reciprocal_division(monkeypatch):
    prelude = kernels.wgsl("prelude")
    assert prelude.count("return x / y;") == 1, "wt_div's driver division moved: update this test"
    monkeypatch.setitem(kernels._SOURCES, "prelude", prelude.replace("return x / y;", f"return {RECIPROCAL_TIMES};"))
    monkeypatch.setattr(kernels, "_EW_CACHE", {})
    monkeypatch.setattr(webgpu.runtime(), "_pipelines", {})


def test_huge_divisors_divide_where_the_driver_flushes_their_reciprocal(reciprocal_division):
    a = torch.tensor([-2.1267648e37, 3e38, 1.0, -6.6461e35, 5.0, 1e-30, 7.0, float("inf")])
    b = torch.tensor([1.7014118e38, 3e38, 3e38, 1.7014118e38, -2e38, 2e38, 3.0, 3e38])
    w = lambda t: webtorch.tensor(t.tolist(), device="webgpu")
    for got, want in ((w(a) / w(b), a / b), (webtorch.reciprocal(w(b)), torch.reciprocal(b)),
                      (webtorch.div(w(a), w(b), rounding_mode="trunc"), torch.div(a, b, rounding_mode="trunc"))):
        got = torch.tensor(got.tolist())
        normal = ~(want.abs() < 2.0 ** -126) | (want == 0)  # a GPU may flush subnormal quotients
        torch.testing.assert_close(got[normal], want[normal], rtol=3.6e-7, atol=0)  # 1/y rounded, then x * it


def _functions(source):
    """(signature, body) of each top-level WGSL function of a source (comments dropped)."""
    code = re.sub(r"//[^\n]*", "", source)
    return [tuple(part.split("{", 1)) for part in re.split(r"\nfn ", code)[1:]]


def test_signed_integers_never_meet_wgsl_remainder():
    signed = [(sig, body) for sig, body in _functions(kernels.wgsl("prelude")) if "i32" in sig]
    assert any(sig.startswith("wt_remainder_i") for sig, _ in signed)
    assert [sig for sig, body in signed if "%" in body] == []


@pytest.mark.parametrize("op", ["remainder", "fmod", "floor_divide"])
def test_integer_division_family_matches_torch_for_every_sign(op):
    a = torch.arange(-20, 21).repeat_interleave(10)
    b = torch.tensor([-7, -5, -3, -2, -1, 1, 2, 3, 5, 7]).repeat(41)
    for dtype in (torch.int32, torch.int64):
        got = getattr(webtorch, op)(webtorch.tensor(a.tolist(), dtype=getattr(webtorch, str(dtype)[6:]), device="webgpu"),
                                    webtorch.tensor(b.tolist(), dtype=getattr(webtorch, str(dtype)[6:]), device="webgpu"))
        assert got.tolist() == getattr(torch, op)(a.to(dtype), b.to(dtype)).tolist()
