"""Weight-only quantization (webtorch.ao.quantization: torchao's quantize_, Int8WeightOnlyConfig,
Int4WeightOnlyConfig) against torchao's own arithmetic on the host.

int8: torchao 0.18's Int8Tensor.from_hp and its weight-only linear, run on real torch.
int4: torchao's default ("plain") Int4Tensor needs mslk's CUDA build to quantize, so the reference is
the arithmetic of mslk's int4_row_quantize_zp (pytorch/MSLK mslk/quantize/shuffle.py, BSD license),
written below from that source, whose dequantized form q * scale + zero is checked against torchao's
_dequantize_affine_tinygemm (quant_primitives.py) too."""
import io
import math

import numpy as np
import pytest
import torch

import webtorch
from webtorch.ao.quantization import Int4WeightOnlyConfig, Int8WeightOnlyConfig, quantize_
from webtorch.ao.quantization import weight_only

torchao = pytest.importorskip("torchao", reason="scripts/setup.sh installs torchao==0.18.0")
from torchao.quantization.granularity import PerRow  # noqa: E402
from torchao.quantization.quant_primitives import _dequantize_affine_tinygemm  # noqa: E402
from torchao.quantization.quantize_.workflows.int8.int8_tensor import Int8Tensor  # noqa: E402

DTYPES = {"float32": (torch.float32, webtorch.float32), "float16": (torch.float16, webtorch.float16)}


def mslk_int4_row_quantize_zp(x, group_size):
    """mslk's int4_row_quantize_zp (torchao's plain Int4Tensor.from_hp calls it; scale and zero cast to
    x's dtype after, as from_hp does): signed q (N, K) in [-8, 7], scale and zero (K / group_size, N)."""
    to_quant = x.reshape(-1, group_size).to(torch.float)
    max_val = to_quant.amax(dim=1, keepdim=True)
    min_val = to_quant.amin(dim=1, keepdim=True)
    scales = (max_val - min_val).clamp(min=1e-6) / 15
    zeros = min_val + scales * 8
    out = to_quant.sub(min_val).div(scales).round().clamp_(0, 15)
    out = (out - 8).to(dtype=torch.int8).reshape(x.shape)
    scales = scales.view(x.shape[0], -1).t().contiguous()
    zeros = zeros.view(x.shape[0], -1).t().contiguous()
    return out, scales.to(x.dtype), zeros.to(x.dtype)


def _wt(t, device="cpu"):
    return webtorch.tensor(t.float().numpy(), device=device).to(DTYPES[str(t.dtype).split(".")[1]][1])


def _np(t):
    return np.array(t.cpu().float().tolist())


def _weights(dtype, n=24, k=128, seed=0):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(n, k, generator=g) * 0.05
    w[0, :32] = 0.0  # a constant group: scale at its clamp
    w[1] = w[1].abs()  # a row of one sign
    return w.to(dtype)


def _layer(w, config, device, bias=None):
    lin = webtorch.nn.Linear(w.shape[1], w.shape[0], bias=bias is not None)
    with webtorch.no_grad():
        lin.weight.copy_(_wt(w).float())
        if bias is not None:
            lin.bias.copy_(_wt(bias).float())
    lin = lin.to(DTYPES[str(w.dtype).split(".")[1]][1]).to(device)
    return quantize_(lin, config)


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_int8_qparams_are_torchaos(device, dtype):
    w = _weights(DTYPES[dtype][0])
    ref = Int8Tensor.from_hp(w, PerRow())
    lin = _layer(w, Int8WeightOnlyConfig(), device)
    assert lin.weight_scale.dtype is webtorch.float32 and tuple(lin.weight_scale.shape) == (24, 1)
    np.testing.assert_array_equal(_np(lin.int_data()), ref.qdata.numpy())
    np.testing.assert_array_equal(_np(lin.weight_scale), ref.scale.numpy())
    # torchao's qdata bytes are the packed words' bytes
    assert lin.weight_qdata.cpu().view(webtorch.int8).tolist() == ref.qdata.tolist()


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("group_size", [32, 128])
def test_int4_qparams_are_torchaos(device, dtype, group_size):
    w = _weights(DTYPES[dtype][0])
    q, scale, zero = mslk_int4_row_quantize_zp(w, group_size)
    lin = _layer(w, Int4WeightOnlyConfig(group_size=group_size), device)
    np.testing.assert_array_equal(_np(lin.int_data()), q.numpy())
    np.testing.assert_array_equal(_np(lin.weight_scale), scale.float().numpy())
    np.testing.assert_array_equal(_np(lin.weight_zero_point), zero.float().numpy())
    # the words' bytes are torchao's plain Int4Tensor qdata (two nibbles a byte, low first)
    low, high = q[:, ::2] & 0xF, q[:, 1::2] << 4
    assert lin.weight_qdata.cpu().view(webtorch.uint8).tolist() == (low | high).to(torch.uint8).tolist()
    # q * scale + zero is torchao's tinygemm dequantization of u = q + 8
    tinygemm = _dequantize_affine_tinygemm((q.to(torch.int32) + 8), (1, group_size), scale.t().float(),
                                           zero.t().float(), torch.int32, 0, 15)
    np.testing.assert_array_equal(_np(lin.dequantize()), tinygemm.numpy())


# (config, rows of x): the GEMV kernel up to GEMV_MAX_ROWS rows, the tiled GEMM above (ragged tiles), the
# dequantized weight's float matmul from DEQUANTIZED_ROWS
CASES = [(Int8WeightOnlyConfig(), 1), (Int8WeightOnlyConfig(), 12), (Int8WeightOnlyConfig(), 70),
         (Int4WeightOnlyConfig(group_size=32), 1), (Int4WeightOnlyConfig(group_size=64), 3),
         (Int4WeightOnlyConfig(group_size=64), 20), (Int4WeightOnlyConfig(group_size=128), 70)]


def _reference(w, config, x, bias):
    """torchao's output arithmetic in float64: int8 (x @ q.T) * scale; int4 x @ (q * scale + zero).T."""
    if config.BITS == 8:
        ref = Int8Tensor.from_hp(w, PerRow())
        y = x.double() @ ref.qdata.double().t() * ref.scale.double().reshape(-1)
    else:
        q, scale, zero = mslk_int4_row_quantize_zp(w, config.group_size)
        g = config.group_size
        deq = q.double().reshape(w.shape[0], -1, g) * scale.t().double().unsqueeze(-1) + zero.t().double().unsqueeze(-1)
        y = x.double() @ deq.reshape(w.shape).t()
    return y + bias.double()


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("config,rows", CASES, ids=[f"{type(c).__name__[:4]}-{r}" for c, r in CASES])
def test_linear_matches_torchaos_arithmetic(device, dtype, config, rows):
    tdtype = DTYPES[dtype][0]
    w = _weights(tdtype, n=40)
    bias = (torch.randn(40, generator=torch.Generator().manual_seed(2)) * 0.1).to(tdtype)
    x = torch.randn(rows, 128, generator=torch.Generator().manual_seed(1)).to(tdtype)
    lin = _layer(w, config, device, bias)
    xin = _wt(x, device).reshape(1, rows, 128)
    with webtorch.no_grad():
        from webtorch.ao.quantization import _gpu
        if device == "webgpu" and rows < _gpu.DEQUANTIZED_ROWS:
            rt = webtorch.backend.webgpu.runtime()
            before = rt.kernels_dispatched
            y = lin(xin)
            assert rt.kernels_dispatched - before == 1  # the bias added in the matmul's kernel
        y = lin(xin)
    assert y.dtype is DTYPES[dtype][1] and tuple(y.shape) == (1, rows, 40) and y.device.type == device
    ref = _reference(w, config, x, bias).numpy()
    # float32: the sums' rounding (K = 128); float16: the output's rounding, and torchao's own
    tol = 1e-5 if dtype == "float32" else 4e-3
    np.testing.assert_allclose(_np(y)[0], ref, rtol=tol, atol=tol)
    if config.BITS == 8 and device == "cpu":  # the same ops as torchao's weight-only linear
        quantized = torch.nn.Linear(128, 40).to(tdtype)
        with torch.no_grad():
            quantized.weight.copy_(w)
            quantized.bias.copy_(bias)
        torchao.quantization.quantize_(quantized, torchao.quantization.Int8WeightOnlyConfig())
        with torch.no_grad():
            expected = quantized(x).float().numpy()
        np.testing.assert_allclose(_np(y)[0], expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("config,k", [(Int8WeightOnlyConfig(), 130), (Int4WeightOnlyConfig(group_size=32), 96),
                                      (Int4WeightOnlyConfig(group_size=64), 192)])
def test_prefill_dequantizes_w_in_one_kernel(dtype, config, k):
    """From DEQUANTIZED_ROWS rows of x, W reaches the float matmul through one dequantizing kernel: equal
    to the reference's ops (int4: dequantize() rounded to x's dtype; int8: q in x's dtype), int8 with K
    not a multiple of 4 (a padded last word), weights in every float dtype (x's dtype)."""
    wdtype = getattr(webtorch, dtype)
    lin = _layer(_weights(torch.float32, n=37, k=k), config, "webgpu")
    with webtorch.no_grad():
        rt = webtorch.backend.webgpu.runtime()
        before = rt.kernels_dispatched
        ours = lin._dequantized(wdtype)
        assert rt.kernels_dispatched - before == 1
        expected = lin.dequantize().to(wdtype) if config.BITS == 4 else lin.int_data().to(wdtype)
    assert ours.dtype is wdtype and tuple(ours.shape) == (37, k)
    np.testing.assert_array_equal(_np(ours), _np(expected))


@pytest.mark.parametrize("config,bound", [(Int8WeightOnlyConfig(), 0.006), (Int4WeightOnlyConfig(group_size=32), 0.08),
                                          (Int4WeightOnlyConfig(group_size=128), 0.09)])
def test_error_against_the_float_layer(config, bound):
    """docs/quantization.md's table: relative error (Frobenius norm) of a random layer's output (nn.Linear's
    uniform init, 256 -> 64, x standard normal)."""
    webtorch.manual_seed(0)
    lin = webtorch.nn.Linear(256, 64)
    x = webtorch.randn(8, 256)
    with webtorch.no_grad():
        y = lin(x)
        y_q = quantize_(lin, config)(x)
    err = ((y_q - y).norm() / y.norm()).item()
    assert 0 < err < bound


@pytest.mark.parametrize("config", [Int8WeightOnlyConfig(), Int4WeightOnlyConfig(group_size=32)])
def test_state_dict_round_trip(config, tmp_path):
    model = webtorch.nn.Sequential(webtorch.nn.Linear(64, 32), webtorch.nn.ReLU(), webtorch.nn.Linear(32, 8, bias=False))
    float_state = {k: v.clone() for k, v in model.state_dict().items()}
    quantize_(model, config)
    state = model.state_dict()
    expected = {"0.weight_qdata", "0.weight_scale", "0.bias", "2.weight_qdata", "2.weight_scale"}
    if config.BITS == 4:
        expected |= {"0.weight_zero_point", "2.weight_zero_point"}
    assert set(state) == expected
    x = webtorch.randn(2, 64)
    with webtorch.no_grad():
        y = model(x)
    webtorch.save(state, tmp_path / "q.pt")
    # a checkpoint quantized already loads into a model quantized the same way (weights not yet right)
    fresh = quantize_(webtorch.nn.Sequential(webtorch.nn.Linear(64, 32), webtorch.nn.ReLU(),
                                             webtorch.nn.Linear(32, 8, bias=False)), config)
    fresh.load_state_dict(webtorch.load(tmp_path / "q.pt"))
    # a float checkpoint loading into a quantized model is quantized as it loads
    from_float = quantize_(webtorch.nn.Sequential(webtorch.nn.Linear(64, 32), webtorch.nn.ReLU(),
                                                  webtorch.nn.Linear(32, 8, bias=False)), config)
    from_float.load_state_dict(float_state)
    with webtorch.no_grad():
        assert fresh(x).tolist() == y.tolist()
        assert from_float(x).tolist() == y.tolist()
        # and on webgpu, from the same checkpoint
        assert np.allclose(_np(fresh.to("webgpu")(x.to("webgpu"))), _np(y), rtol=1e-5, atol=1e-5)
    # safetensors: plain int32 / float tensors
    from webtorch import safetensors
    data = safetensors.save(state)
    again = quantize_(webtorch.nn.Sequential(webtorch.nn.Linear(64, 32), webtorch.nn.ReLU(),
                                             webtorch.nn.Linear(32, 8, bias=False)), config)
    again.load_state_dict(safetensors.load(data))
    with webtorch.no_grad():
        assert again(x).tolist() == y.tolist()


def test_quantize_at_load_time_on_meta():
    """quantize_ on a model built on "meta" gives buffers of the packed shapes; load_state_dict(assign=True)
    of a float checkpoint quantizes each weight as it arrives."""
    ref = webtorch.nn.Linear(64, 16)
    with webtorch.device("meta"):
        model = webtorch.nn.Linear(64, 16)
    quantize_(model, Int4WeightOnlyConfig(group_size=32))
    assert model.weight_qdata.is_meta and tuple(model.weight_qdata.shape) == (16, 8)
    assert tuple(model.weight_scale.shape) == (2, 16)
    model.load_state_dict(ref.state_dict(), assign=True)
    x = webtorch.randn(3, 64)
    with webtorch.no_grad():
        assert model(x).tolist() == quantize_(ref, Int4WeightOnlyConfig(group_size=32))(x).tolist()


def test_which_layers_and_what_they_answer():
    # the last in_features is not a multiple of 32: it stays float, as in torchao
    model = webtorch.nn.Sequential(webtorch.nn.Linear(64, 32), webtorch.nn.Linear(32, 8), webtorch.nn.Linear(40, 8))
    quantize_(model, Int4WeightOnlyConfig(group_size=32), filter_fn=lambda m, fqn: isinstance(m, webtorch.nn.Linear) and fqn != "1")
    assert isinstance(model[0], weight_only.Int4WeightOnlyLinear) and isinstance(model[0], webtorch.nn.Linear)
    assert type(model[1]) is webtorch.nn.Linear and type(model[2]) is webtorch.nn.Linear
    assert tuple(model[0].weight.shape) == (32, 64) and model[0].weight.dtype is webtorch.float32
    assert "int4 group_size=32" in repr(model)
    assert math.isclose(model[0].weight.dequantize().float().abs().mean().item(), 0.07, rel_tol=0.3)
    with pytest.raises(NotImplementedError, match="no gradients"):
        model[0](webtorch.randn(1, 64, requires_grad=True))


@pytest.mark.parametrize("make,error", [
    (lambda: Int4WeightOnlyConfig(group_size=16), NotImplementedError),
    (lambda: Int4WeightOnlyConfig(int4_packing_format="tile_packed_to_4d"), NotImplementedError),
    (lambda: Int8WeightOnlyConfig(group_size=32), AssertionError),
    (lambda: quantize_(webtorch.nn.Linear(4, 4), object()), NotImplementedError),
    (lambda: quantize_(webtorch.nn.Sequential(webtorch.nn.Linear(32, 4)), Int8WeightOnlyConfig(), lambda m, fqn: True),
     NotImplementedError),
])
def test_unsupported_configs_raise(make, error):
    with pytest.raises(error):
        make()


def test_compiled_replay():
    """A quantized layer's kernel is captured and replayed by webtorch.compile like any other."""
    model = quantize_(webtorch.nn.Sequential(webtorch.nn.Linear(64, 64), webtorch.nn.ReLU(),
                                             webtorch.nn.Linear(64, 32)).to("webgpu"), Int4WeightOnlyConfig(group_size=32))
    step = webtorch.compile(lambda x: model(x) * 2)
    with webtorch.no_grad():
        for _ in range(3):
            x = webtorch.randn(1, 64, device="webgpu")
            assert step(x).tolist() == (model(x) * 2).tolist()


TORCHAO_ALIAS = r"""
import sys
sys.path.insert(0, "tests/as_torch")
from run import HideRealTorch
sys.meta_path.insert(0, HideRealTorch())
sys.modules.pop("torchao")  # (HideRealTorch hides the installed torchao; the alias answers instead)
import webtorch
webtorch.install_as_torch()
import torch
from torchao.quantization import quantize_, Int4WeightOnlyConfig, Int8WeightOnlyConfig
assert quantize_ is webtorch.ao.quantization.quantize_
model = torch.nn.Sequential(torch.nn.Linear(64, 16), torch.nn.Linear(16, 4))
quantize_(model, Int8WeightOnlyConfig())
print(model(torch.ones(1, 64)).shape, type(model[0]).__module__)
"""


def test_import_torchao_under_the_alias():
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    result = subprocess.run([sys.executable, "-c", TORCHAO_ALIAS], env=dict(os.environ, PYTHONPATH=root), cwd=root,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["torch.Size([1,", "4])", "torch.ao.quantization"]


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("bits", [8, 4])
def test_torchaos_safetensors_checkpoints_load(device, bits):
    """A torchao model saved with torchao's flatten_tensor_state_dict (Int8Tensor from torchao's quantize_;
    Int4Tensor built from mslk's arithmetic: its from_hp needs CUDA) loads into a webtorch model quantized
    with the same config, and computes torchao's numbers."""
    import safetensors.torch
    from torchao.prototype.safetensors.safetensors_support import flatten_tensor_state_dict
    from torchao.quantization.quantize_.workflows.int4.int4_tensor import Int4Tensor
    g = torch.Generator().manual_seed(3)
    w, bias, x = torch.randn(24, 64, generator=g) * 0.05, torch.randn(24, generator=g), torch.randn(2, 64, generator=g)
    if bits == 8:
        config = Int8WeightOnlyConfig()
        layer = torch.nn.Linear(64, 24)
        with torch.no_grad():
            layer.weight.copy_(w)
            layer.bias.copy_(bias)
        torchao.quantization.quantize_(layer, torchao.quantization.Int8WeightOnlyConfig())
        state = {"0." + k: v for k, v in layer.state_dict().items()}
    else:
        config = Int4WeightOnlyConfig(group_size=32)
        q, scale, zero = mslk_int4_row_quantize_zp(w, 32)
        qdata = (q[:, ::2] & 0xF) | (q[:, 1::2] << 4)
        state = {"0.weight": Int4Tensor(qdata, scale, zero, [1, 32], w.shape), "0.bias": bias}
    tensors, metadata = flatten_tensor_state_dict(state)
    assert "0._weight_qdata" in tensors and "0.weight" not in tensors
    data = safetensors.torch.save(tensors, metadata)
    model = quantize_(webtorch.nn.Sequential(webtorch.nn.Linear(64, 24)), config).to(device)
    model.load_state_dict(webtorch.safetensors.load(data))
    with webtorch.no_grad():
        y = model(_wt(x, device))
    np.testing.assert_allclose(_np(y), _reference(w, config, x, bias).numpy(), rtol=1e-5, atol=1e-5)


def test_asymmetric_int8_checkpoints_are_refused():
    model = quantize_(webtorch.nn.Linear(8, 2, bias=False), Int8WeightOnlyConfig())
    state = {"_weight_qdata": webtorch.zeros(2, 8, dtype=webtorch.int8), "_weight_scale": webtorch.ones(2, 1),
             "_weight_zero_point": webtorch.ones(2, 1, dtype=webtorch.int8)}
    with pytest.raises(NotImplementedError, match="nonzero zero points"):
        model.load_state_dict(state)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_gated_gemv_is_silu_of_gate_times_up(dtype):
    """_gpu.gated (a decode step's MLP: silu(gate(x)) * up(x) for two int4 layers, one kernel) equals the
    composed layers and ops (each rounding where it stores; the sums' order is the GEMV's own)."""
    from webtorch.ao.quantization import _gpu
    tdtype = DTYPES[dtype][0]
    config = Int4WeightOnlyConfig(group_size=32)
    gate, up = (_layer(_weights(tdtype, n=40, seed=s), config, "webgpu") for s in (3, 4))
    x = _wt(torch.randn(2, 128, generator=torch.Generator().manual_seed(1)).to(tdtype), "webgpu").reshape(1, 2, 128)
    with webtorch.no_grad():
        rt = webtorch.backend.webgpu.runtime()
        before = rt.kernels_dispatched
        got = _gpu.gated(x, gate, up)
        assert rt.kernels_dispatched - before == 1
        want = webtorch.nn.functional.silu(gate(x)) * up(x)
    tol = 1e-6 if dtype == "float32" else 1e-3
    np.testing.assert_allclose(_np(got), _np(want), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_parts_gemv_is_each_layer(dtype):
    """_gpu.parts (a decode step's q, k and v projections: three int4 layers of one input, one kernel, their
    outputs side by side) equals each layer's own output, with and without biases, outputs of unequal sizes."""
    from webtorch.ao.quantization import _gpu
    tdtype = DTYPES[dtype][0]
    config = Int4WeightOnlyConfig(group_size=32)
    bias = (torch.randn(24, generator=torch.Generator().manual_seed(2)) * 0.1).to(tdtype)
    layers = [_layer(_weights(tdtype, n=n, seed=n), config, "webgpu", b) for n, b in ((40, None), (24, bias), (16, None))]
    x = _wt(torch.randn(2, 128, generator=torch.Generator().manual_seed(1)).to(tdtype), "webgpu").reshape(1, 2, 128)
    with webtorch.no_grad():
        rt = webtorch.backend.webgpu.runtime()
        before = rt.kernels_dispatched
        got = _gpu.parts(x, layers)
        assert rt.kernels_dispatched - before == 1
        for out, layer in zip(got, layers):
            np.testing.assert_array_equal(_np(out), _np(layer(x)))


def test_parts_gemv_fits_the_binding_limit_exactly():
    """The q/k/v GEMV with biases binds params, out, x and per int4 layer its words, scales, zero points
    and bias: 15 storage buffers. An adapter allowing exactly 15 (Chrome's on an H200 allows fewer than
    17, which the old count asked for: Qwen2's q/k/v then took three kernels) gets the one kernel; one
    allowing 14 gets None (the caller's per-layer kernels)."""
    from webtorch.ao.quantization import _gpu
    config = Int4WeightOnlyConfig(group_size=32)
    layers = [_layer(_weights(torch.float32, n=n, seed=n), config, "webgpu", torch.randn(n) * 0.1) for n in (32, 16, 16)]
    x = _wt(torch.randn(1, 128, generator=torch.Generator().manual_seed(1)), "webgpu")
    limits = webtorch.backend.webgpu.runtime().limits
    saved = limits["max_storage_buffers_per_shader_stage"]
    try:
        with webtorch.no_grad():
            limits["max_storage_buffers_per_shader_stage"] = 15
            got = _gpu.parts(x, layers)
            assert got is not None
            for out, layer in zip(got, layers):
                np.testing.assert_array_equal(_np(out), _np(layer(x)))
            limits["max_storage_buffers_per_shader_stage"] = 14
            assert _gpu.parts(x, layers) is None
    finally:
        limits["max_storage_buffers_per_shader_stage"] = saved


# The GEMV kernels' layouts (webtorch/ao/quantization/_gpu.py's _gemv): (bits, group size, K, rows of x, x's
# offset): W read as vec4 loads of words where K allows (int4 always; int8 K a multiple of 16), else word
# by word (int8 K = 100: the row's last word padded); x read as vec4s where its rows start at multiples of
# 4 elements (offset 2 and K = 100 rows: element by element)
GEMV_LAYOUTS = [(4, 32, 96, 1, 0), (4, 64, 128, 2, 2), (4, 128, 256, 4, 0), (4, 256, 256, 3, 1),
                (8, None, 128, 1, 0), (8, None, 100, 2, 0), (8, None, 100, 4, 2), (8, None, 48, 3, 1)]


@pytest.mark.parametrize("bits,group_size,k,rows,offset", GEMV_LAYOUTS)
def test_gemv_layouts_match_torchaos_arithmetic(bits, group_size, k, rows, offset):
    """Each GEMV layout, plain and fused (parts: q/k/v-like layers side by side, the middle one with a bias;
    gated: silu(gate) * up, int8 too), against torchao's arithmetic in float64 (float32 activations)."""
    from webtorch.ao.quantization import _gpu
    config = Int4WeightOnlyConfig(group_size=group_size) if bits == 4 else Int8WeightOnlyConfig()
    ws = [_weights(torch.float32, n=n, k=k, seed=n) for n in (40, 24, 40)]
    bias = torch.randn(24, generator=torch.Generator().manual_seed(2)) * 0.1
    layers = [_layer(w, config, "webgpu", b) for w, b in zip(ws, (None, bias, None))]
    x = torch.randn(rows * k + offset, generator=torch.Generator().manual_seed(1))
    xin = _wt(x, "webgpu")[offset:].reshape(1, rows, k)
    assert xin.is_contiguous() and xin._offset == offset
    x = x[offset:].reshape(rows, k)
    refs = [_reference(w, config, x, b if b is not None else torch.zeros(w.shape[0])).numpy()
            for w, b in zip(ws, (None, bias, None))]
    with webtorch.no_grad():
        rt = webtorch.backend.webgpu.runtime()
        before = rt.kernels_dispatched
        outs = _gpu.parts(xin, layers)
        gated = _gpu.gated(xin, layers[0], layers[2])
        assert rt.kernels_dispatched - before == 2
        plain = [layer(xin) for layer in layers]
    for out, one, ref in zip(outs, plain, refs):
        np.testing.assert_allclose(_np(out)[0], ref, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(_np(one), _np(out))  # one kernel, one order of the sums
    g = torch.tensor(refs[0])
    np.testing.assert_allclose(_np(gated)[0], (torch.nn.functional.silu(g) * torch.tensor(refs[2])).numpy(),
                               rtol=1e-5, atol=1e-5)
