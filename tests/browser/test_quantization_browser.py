"""Weight-only quantized Linear layers in Pyodide on "webgpu" (SwiftShader: float16 emulated): torchao's
quantization and the dequantising GEMV / GEMM kernels against the host's float64 reference of torchao's
arithmetic (tests/test_quantization.py holds the references), and a safetensors round trip."""
import pytest
import torch

from test_quantization import Int4WeightOnlyConfig, Int8WeightOnlyConfig, _reference, mslk_int4_row_quantize_zp

pytestmark = pytest.mark.webgpu


def test_quantized_linear_in_the_browser(py):
    g = torch.Generator().manual_seed(0)
    w = torch.randn(24, 64, generator=g) * 0.05
    bias = torch.randn(24, generator=g) * 0.1
    x = torch.randn(40, 64, generator=g)
    configs = {"int8": "Int8WeightOnlyConfig()", "int4": "Int4WeightOnlyConfig(group_size=32)"}
    r = py.run(
        "import webtorch as torch\n"
        "from webtorch import safetensors\n"
        "from webtorch.ao.quantization import quantize_, Int8WeightOnlyConfig, Int4WeightOnlyConfig\n"
        f"w, b, x = torch.tensor({w.tolist()}), torch.tensor({bias.tolist()}), torch.tensor({x.tolist()})\n"
        "out = {}\n"
        f"for name, config in {{'int8': {configs['int8']}, 'int4': {configs['int4']}}}.items():\n"
        "    for dtype in (torch.float32, torch.float16):\n"
        "        lin = torch.nn.Linear(64, 24)\n"
        "        with torch.no_grad():\n"
        "            lin.weight.copy_(w); lin.bias.copy_(b)\n"
        "        lin = quantize_(lin.to(dtype).to('webgpu'), config)\n"
        "        with torch.no_grad():\n"
        "            for rows in (1, 9, 40):\n"  # the GEMV kernel, the tiled GEMM, W dequantized then matmul
        "                out[f'{name}-{dtype}-{rows}'] = lin(x[:rows].to(dtype).to('webgpu')).float().tolist()\n"
        "    out[name + '-q'] = lin.int_data().tolist()\n"
        "    again = quantize_(torch.nn.Linear(64, 24).half(), config)\n"
        "    again.load_state_dict(safetensors.load(safetensors.save(lin.state_dict())))\n"
        "    with torch.no_grad():\n"
        "        out[name + '-again'] = again(x[:1].half()).float().tolist()\n"
        "        out[name + '-direct'] = lin.cpu()(x[:1].half()).float().tolist()\n"
        "out")
    for name, config in (("int8", Int8WeightOnlyConfig()), ("int4", Int4WeightOnlyConfig(group_size=32))):
        if name == "int4":  # (of the float16 weights, the last quantized)
            assert r[name + "-q"] == mslk_int4_row_quantize_zp(w.half(), 32)[0].tolist()
        for dtype, tol in (("float32", 1e-5), ("float16", 4e-3)):
            for rows in (1, 9, 40):
                got = torch.tensor(r[f"{name}-webtorch.{dtype}-{rows}"], dtype=torch.float64)
                xs = x[:rows].to(getattr(torch, dtype))
                wd = w.to(getattr(torch, dtype))
                expected = _reference(wd, config, xs, bias.to(getattr(torch, dtype)))
                torch.testing.assert_close(got, expected, rtol=tol, atol=tol, msg=f"{name} {dtype} {rows}")
        assert r[name + "-again"] == r[name + "-direct"]  # the checkpoint round trip, on "cpu"


def test_norm_folded_into_the_gemv_in_the_browser(py):
    """An RMSNorm computed inside the GEMV after it (gemv_norm.wgsl, as a decode step folds it) equals the
    norm kernel then the GEMV bit for bit under the browser's WGSL compiler (float16 emulated on
    SwiftShader): int4 after a plain norm, int8 after a residual add and norm (whose sum is the add's),
    each within the 8 storage buffers SwiftShader binds."""
    r = py.run(
        "import webtorch as torch\n"
        "from webtorch.ao.quantization import quantize_, Int4WeightOnlyConfig, Int8WeightOnlyConfig, _gpu\n"
        "torch.manual_seed(0)\n"
        "same = []\n"
        "for config, residual in ((Int4WeightOnlyConfig(group_size=32), False), (Int8WeightOnlyConfig(), True)):\n"
        "    for dtype in (torch.float32, torch.float16):\n"
        "        layer = quantize_(torch.nn.Linear(96, 40, bias=False).to(dtype).to('webgpu'), config)\n"
        "        with torch.no_grad():\n"
        "            x, d = (torch.randn(1, 1, 96, device='webgpu').to(dtype) for _ in range(2))\n"
        "            d = d if residual else None\n"
        "            w = (torch.rand(96, device='webgpu') + 0.5).to(dtype)\n"
        "            h = torch._ops._rms_norm(x, 1, w, 1e-6, weight_after_rounding=True, residual=d)\n"
        "            h, s = h if residual else (h, x)\n"
        "            norm = _gpu.RowNorm(w, 1e-6, d)\n"
        "            got = _gpu.parts(x, [layer], norm=norm)\n"
        "            same.append(got is not None and [got[0].tolist() == _gpu.parts(h, [layer])[0].tolist(),\n"
        "                                              norm.sum.tolist() == s.tolist()])\n"
        "same")
    assert r == [[True, True]] * 4
