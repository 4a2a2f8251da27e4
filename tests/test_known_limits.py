"""Each entry of docs/limits.md ("Known limits") is a deliberate difference from PyTorch: these tests
assert the documented behaviour (so the page cannot drift from the code)."""
import math

import pytest
import torch

import webtorch
import webtorch.nn as nn


def test_int64_is_32_bits_on_the_gpu():
    with pytest.raises(RuntimeError, match="does not fit in int32"):
        webtorch.tensor([2**40], dtype=webtorch.int64, device="webgpu")
    with pytest.raises(RuntimeError, match="does not fit in int32"):
        webtorch.tensor([2**31], dtype=webtorch.int64).to("webgpu")
    big = webtorch.tensor([2**31 - 1], dtype=webtorch.int64, device="webgpu")
    assert (big + 1).item() == -2**31                       # wraps at 32 bits
    assert (big.cpu() + 1).item() == 2**31 == (torch.tensor([2**31 - 1]) + 1).item()  # 64 bits on cpu



# A scalar beyond int32 used with an int64 tensor: on the GPU only its low 32 bits would reach the
# kernel (x + 2**40 was x + 0), so it raises as creating such a tensor does; cpu computes as torch.
SCALAR_BEYOND_INT32 = {
    "add": lambda m, x: x + 2**40,
    "lt": lambda m, x: x < -2**40,
    "full": lambda m, x: m.full((2,), 2**40, device=x.device),
    "fill_": lambda m, x: x.clone().fill_(2**40),
    "masked_fill": lambda m, x: x.masked_fill(x == 1, 2**31),
    "index_fill_": lambda m, x: x.clone().index_fill_(0, m.tensor([0], device=x.device), 2**40),
    "clamp": lambda m, x: x.clamp(max=2**40),
    "where": lambda m, x: m.where(x == 1, 2**40, x),
}


@pytest.mark.parametrize("op", SCALAR_BEYOND_INT32)
def test_int64_scalar_beyond_int32_raises_on_the_gpu(op):
    f = SCALAR_BEYOND_INT32[op]
    expected = f(torch, torch.arange(3))
    assert f(webtorch, webtorch.arange(3)).tolist() == expected.tolist()
    with pytest.raises(RuntimeError, match="does not fit in int32"):
        f(webtorch, webtorch.arange(3, device="webgpu"))

def test_out_of_range_float_to_int_clamps_on_the_gpu():
    values = [3e38, -3e38, float("inf"), 2.5e9, -1.5, 7.9]
    assert torch.tensor(values).to(torch.int32).tolist() == [-2**31] * 4 + [-1, 7]
    assert webtorch.tensor(values).to(webtorch.int32).tolist() == [-2**31] * 4 + [-1, 7]
    top = 2147483520  # the largest float32 below 2**31
    assert webtorch.tensor(values, device="webgpu").to(webtorch.int32).tolist() == [top, -2**31, top, top, -1, 7]


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_at_most_64_dims(device):
    assert torch.zeros([1] * 65).dim() == 65   # torch creates them; webtorch refuses
    with pytest.raises(RuntimeError, match="up to 64 dims"):
        webtorch.zeros([1] * 65, device=device)
    with pytest.raises(RuntimeError, match="up to 64 dims"):
        webtorch.zeros(1, device=device).reshape([1] * 65)
    assert webtorch.zeros([1] * 64, device=device).sum(0).dim() == 63


def test_float64_on_webgpu_is_float32():
    with pytest.warns(UserWarning, match="no float64"):
        x = webtorch.tensor([1.0, 1e-300], dtype=webtorch.float64, device="webgpu")
    assert x.dtype == webtorch.float32 and x.tolist() == [1.0, 0.0]
    assert webtorch.tensor([1e-300], dtype=webtorch.float64).tolist() == [1e-300]  # float64 on cpu


@pytest.mark.parametrize("device", ["webgpu", "cpu"])
def test_integer_division_by_zero_gives_zero(device):
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        torch.tensor([5]) // 0
    a = webtorch.tensor([5, -3], device=device)
    zero = webtorch.tensor([0, 0], device=device)
    assert (a // 0).tolist() == [0, 0]
    assert (a % zero).tolist() == [0, 0]
    assert webtorch.div(a, zero, rounding_mode="trunc").tolist() == [0, 0]


def test_gradient_through_zero_is_none_where_torch_gives_zeros():
    grads = []
    for T in (torch, webtorch):
        a = T.ones(3, requires_grad=True)
        b = a * 2
        b.zero_()
        b.sum().backward()
        grads.append(a.grad)
    assert grads[0].tolist() == [0.0, 0.0, 0.0] and grads[1] is None


@pytest.mark.parametrize("make", [
    lambda: nn.CTCLoss()(webtorch.randn(5, 2, 4).log_softmax(2), webtorch.tensor([[1, 2], [1, 1]]),
                         webtorch.tensor([5, 5]), webtorch.tensor([2, 2])),
], ids=["ctc-loss"])  # (AdaptiveMaxPool's return_indices: built, 2ca2353; EmbeddingBag's options: built)
def test_nn_options_not_supported_raise(make):
    with pytest.raises(NotImplementedError, match="not supported"):
        make()


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_gelu_zero_is_positive_and_log1p_keeps_the_smallest_subnormal(device):
    x = [-0.0, -20.0, -0.0, 1.0]
    strided = torch.nn.functional.gelu(torch.tensor(x)[::2]).tolist()
    # 64 elements: all in torch's vectorised loop whatever its width (a short tensor's path depends on it)
    contiguous = torch.nn.functional.gelu(torch.tensor(x * 16)).tolist()
    assert [math.copysign(1, v) for v in strided] == [-1, -1]           # torch's scalar loop
    assert [math.copysign(1, v) for v in contiguous[:3]] == [1, 1, 1]  # its vectorised loop
    for t in (webtorch.tensor(x, device=device)[::2], webtorch.tensor(x, device=device)):
        assert all(math.copysign(1, v) == 1 for v in webtorch.nn.functional.gelu(t).tolist()[:2])
    # the 30-minute fuzz run's WRONG-VALUE on cpu: webtorch gave -0 (rsqrt: -inf) where torch's vectorised +0
    assert webtorch.rsqrt(webtorch.nn.functional.gelu(webtorch.log_softmax(
        webtorch.tensor([[0.0, -40.0, 3.0]], device=device), -1))).tolist()[0][1] == math.inf
    tiny = [1.401298464324817e-45, -1.401298464324817e-45]
    # torch's vectorised log1p (AVX2, AVX512) gives 0, its scalar one (ATEN_CPU_CAPABILITY=default) x itself
    assert torch.log1p(torch.tensor(tiny)).tolist() in ([0.0, 0.0], tiny)
    assert webtorch.log1p(webtorch.tensor(tiny, device=device)).tolist() == tiny


def test_scans_accumulate_float32_on_the_gpu_and_double_on_cpu():
    x = [3e38, 3e38, -3e38]
    expected = torch.cumsum(torch.tensor(x), 0).tolist()
    assert expected == [pytest.approx(3e38), math.inf, pytest.approx(3e38)]   # torch's CPU: in double
    assert webtorch.cumsum(webtorch.tensor(x), 0).tolist() == expected
    assert webtorch.cumsum(webtorch.tensor(x, device="webgpu"), 0).tolist()[1] == math.inf


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_elementwise_results_are_contiguous(device):
    results = []
    for T in (torch, webtorch):
        y = T.arange(6.0, device=device if T is webtorch else "cpu").reshape(2, 3).t() + 1
        flat = y.reshape(-1)
        flat[0] = 50.0   # a view of y where y is contiguous, a copy where it is not
        results.append((y.is_contiguous(), y[0, 0].item()))
    assert results == [(False, 1.0), (True, 50.0)]


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_in_place_op_with_an_overlapping_strided_operand(device):
    x = torch.arange(24, dtype=torch.int32).reshape(2, 3, 4)
    v = x[..., 1:]
    out_of_place = (v + v[0]).tolist()
    v.add_(v[0])
    assert v.tolist() != out_of_place            # torch: its loop order (v[0] doubles before v[1] reads it)
    w = webtorch.arange(24, dtype=webtorch.int32, device=device).reshape(2, 3, 4)[..., 1:]
    assert w.add_(w[0]).tolist() == out_of_place  # webtorch reads every operand first
    y = webtorch.arange(10.0, device=device)
    with pytest.raises(RuntimeError, match="some elements of the input tensor"):  # dense: both raise
        y.view(5, 2).add_(y.view(5, 2)[2])


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_add_alpha_is_one_fused_multiply_add(device):
    # torch: fma(other, alpha, x), except its CPU loop rounds alpha * other first for a broadcast other in up
    # to 8 elements of a row's remainder past a multiple of 16 (docs/limits.md, float32 accuracy);
    # webtorch fuses everywhere
    fused = 3.0000000054977558e+38
    x = torch.full((12,), -3e38)
    # which elements torch rounds alpha * other in first depends on its CPU path (AVX2: none for a tensor
    # other, the 8 after the first for a broadcast one; ATEN_CPU_CAPABILITY=default, no fma: all): each is
    # the fused value or that path's inf
    assert set(torch.sub(x, x, alpha=2).tolist()) <= {fused, math.inf}
    assert set(torch.sub(x, -3e38, alpha=2).tolist()) <= {fused, math.inf}
    w = webtorch.full((12,), -3e38, device=device)
    assert webtorch.sub(w, -3e38, alpha=2).tolist() == webtorch.sub(w, w[:1].expand(12), alpha=2).tolist() == [fused] * 12
    # index_add rounds alpha * source first: as torch for a 1-dim input (torch's rows of a 2-dim one fuse)
    i = [0, 2]
    assert torch.index_add(torch.full((3,), -3e38), 0, torch.tensor(i), torch.full((2,), 3e38), alpha=2).tolist() == [
        math.inf, -fused, math.inf] == webtorch.index_add(webtorch.full((3,), -3e38, device=device), 0, webtorch.tensor(
            i, device=device), webtorch.full((2,), 3e38, device=device), alpha=2).tolist()
    # (rows of a 2-dim one: fused where torch's CPU path has fma, AVX2; inf under ATEN_CPU_CAPABILITY=default)
    assert torch.index_add(torch.full((3, 2), -3e38), 0, torch.tensor(i), torch.full((2, 2), 3e38), alpha=2)[0].tolist() in (
        [fused, fused], [math.inf, math.inf])


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_scales_gradients_by_frequency_as_embedding_does(mode):
    """scale_grad_by_freq divides a row's gradient by its index's count in the input (docs/limits.md: torch 2.13's
    CPU embedding_bag scales by another index's count)."""
    ids, offsets = webtorch.tensor([2, 0, 1, 1, 3, 1]), webtorch.tensor([0, 2, 5])
    w = webtorch.randn(4, 3, requires_grad=True)
    out = webtorch.nn.functional.embedding_bag(ids, w, offsets, mode=mode, scale_grad_by_freq=True)
    out.backward(webtorch.ones_like(out))
    size = [2, 3, 1] if mode == "mean" else [1, 1, 1]
    share = [1 / size[b] for b in (0, 0, 1, 1, 1, 2)]  # each index's share of its bag's output
    expected = [[sum(s for i, s in zip(ids.tolist(), share) if i == r) / max(ids.tolist().count(r), 1)] * 3
                for r in range(4)]
    assert webtorch.allclose(w.grad, webtorch.tensor(expected))
