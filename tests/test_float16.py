"""float16 beyond the op table: the pure-Python cpu path (Pyodide's, numpy switched off here), which
kernels enable WGSL's f16, and (test_float16_emulated.py) all of it again where the adapter lacks
"shader-f16"."""
import pytest
import torch

import webtorch
from webtorch import _dtypes as dt
from webtorch.backend import cpu, gpu, kernels
from webtorch.backend.webgpu import runtime

from compare import assert_close, to_plain
from op_cases import CASES, FLOAT16_CASES, run_case

F16_CASES = [c for c in CASES if c.name in FLOAT16_CASES]


def test_only_float16_kernels_enable_f16():
    native = "shader-f16" in runtime().features  # lavapipe offers it; test_float16_emulated.py hides it
    assert webtorch.webgpu.has_float16() == native
    assert webtorch.webgpu.adapter_info()["float16"] == ("native" if native else "emulated")
    for d in dt.ALL:
        vec4 = kernels.matmul_vec4(d, gpu._VEC4_TILES[0][0])[1] if d.is_floating_point else ""
        for source in (kernels.matmul(d)[1], vec4, kernels.scan("sum", d)[1] if d is not dt.bool_ else "",
                       kernels.sort(d, False)[1], kernels.take(d)[1], kernels.softmax(False, None, d)[1]):
            assert ("f16>" in source) == (d is dt.float16 and native), (d, source[:200])


def test_float16_relu_decides_on_the_bits():
    # float16 computes in f32, so relu takes float32's bit test (NVIDIA's compiler made max(x, 0) of a
    # compare and select, dropping NaN); f16-unary-edge checks NaN, -0 and -inf on a GPU
    from webtorch.ops_table import ELEMENTWISE
    relu = ELEMENTWISE["relu"]
    source = kernels.elementwise_program([(dt.float16, False), (dt.float16, True)], [0, 1],
                                         [(relu, [("view", 0)], [dt.float16], dt.float16, [1])], True)
    assert "wt_relu(" in source.split("fn main", 1)[-1] and relu.expression(kernels.COMPUTE[dt.float16]) == "wt_relu($a)"


@pytest.mark.parametrize("case", F16_CASES, ids=[c.name for c in F16_CASES])
def test_pure_python_cpu(case, monkeypatch):
    monkeypatch.setattr(cpu, "USE_NUMPY", False)
    expected = to_plain(run_case(torch, case, "cpu"))
    assert_close(to_plain(run_case(webtorch, case, "cpu")), expected, atol=case.atol, rtol=case.rtol,
                 name=case.name + "[cpu, no numpy]")


# float16 softmax, layer_norm and reductions on "webgpu": one kernel each, f16 loads (reductions read
# vec4<f16>), f32 accumulation and one rounding to half, as PyTorch's half kernels (torch's CPU ones,
# the reference here, also compute in float). Odd and long rows, non-contiguous views, an offset that
# breaks vec4 alignment, reductions over non-last dims, NaN/inf and empty inputs.
def _half_input(shape, seed, special=False):
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(seed)) * 3
    if special and x.numel() > 2:
        flat = x.view(-1)
        flat[1], flat[-1], flat[x.numel() // 2] = float("nan"), float("inf"), -float("inf")
    return x.half()


def _views(x):
    """name -> a view of x (any float16 tensor, torch or webtorch)"""
    return {"contiguous": x, "transposed": x.transpose(-1, -2), "sliced": x[..., 1:], "stepped": x[::2, ::3]}


F16_ROW_OPS = {
    "softmax": lambda T, F, x: x.softmax(-1),
    "log_softmax": lambda T, F, x: F.log_softmax(x, -1),
    "softmax_dim0": lambda T, F, x: x.softmax(0),
    "layer_norm": lambda T, F, x: F.layer_norm(x, x.shape[-1:], x[0].cos(), x[0].sin() * 2, eps=1e-3),
    "layer_norm_plain": lambda T, F, x: F.layer_norm(x, x.shape[-1:]),
    "rms_norm": lambda T, F, x: F.rms_norm(x, x.shape[-1:], x[0].cos(), eps=1e-3),
    "sum": lambda T, F, x: x.sum(-1),
    "sum_all": lambda T, F, x: x.sum(),
    "sum_dim0": lambda T, F, x: x.sum(0),
    "mean_dim0_keepdim": lambda T, F, x: x.mean(0, keepdim=True),
    "amax": lambda T, F, x: x.amax(-1),
    "amin_dim0": lambda T, F, x: x.amin(0),
}
F16_SHAPES = [(6, 1), (5, 3), (4, 17), (3, 255), (9, 1000), (2, 5001), (300, 33), (64, 4096)]


@pytest.mark.parametrize("name", sorted(F16_ROW_OPS))
def test_float16_rows_against_torch(name):
    import torch.nn.functional as torch_F
    import webtorch.nn.functional as webtorch_F
    fn = F16_ROW_OPS[name]
    for i, shape in enumerate(F16_SHAPES):
        x = _half_input(shape, i, special=i % 3 == 1 and not name.endswith(("norm", "norm_plain")))
        for view, tx in _views(x).items():
            if 0 in tx.shape or name.startswith(("layer_norm", "rms_norm")) and view == "stepped" and tx.shape[0] < 2:
                continue
            wx = _views(webtorch.tensor(x.float().tolist(), device="webgpu").half())[view]
            expected = fn(torch, torch_F, tx)
            got = fn(webtorch, webtorch_F, wx)
            assert got.dtype == webtorch.float16, (name, view, got.dtype)
            torch.testing.assert_close(torch.tensor(got.float().tolist()).reshape(expected.shape),
                                       expected.float(), rtol=2e-3, atol=1e-3, equal_nan=True,
                                       msg=lambda m: f"{name} {shape} {view}: {m}")


# float16 (and bfloat16) matmuls take the vec4 kernels as float32 does: matmul_vec4.wgsl on GPUs,
# matmul_registers.wgsl on CPU adapters, loading f16 where it is stored so, summing in f32 as torch's
# half GEMMs do, C rounded once: torch's float32 product of the same values, rounded, within a rounding
# of C (summation order) plus float32's accumulation error. Shapes: whole tiles, ragged M and N with a
# batch, B transposed (x @ W.T).
@pytest.mark.parametrize("cpu_adapter", [False, True], ids=["vec4", "registers"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_matmuls_take_the_vec4_kernels(cpu_adapter, dtype, monkeypatch):
    rt = runtime()
    monkeypatch.setattr(gpu, "_on_cpu_adapter", lambda runtime: cpu_adapter)
    monkeypatch.setattr(gpu, "SMALL_MATMUL_MACS", 0)
    launched = []
    monkeypatch.setattr(rt, "run", lambda kernel, *args, run=rt.run: (launched.append(kernel[0]), run(kernel, *args))[1])
    g = torch.Generator().manual_seed(3)
    for a_shape, b_shape, transposed in [((64, 32), (32, 128), False), ((2, 37, 24), (24, 52), False),
                                         ((70, 96), (44, 96), True)]:
        a = torch.randn(a_shape, generator=g).to(getattr(torch, dtype))
        stored_b = torch.randn(b_shape, generator=g).to(getattr(torch, dtype))  # W of x @ W.T where transposed
        b = stored_b.t() if transposed else stored_b
        wa, wb = (webtorch.tensor(t.float().tolist(), device="webgpu").to(getattr(webtorch, dtype)) for t in (a, stored_b))
        got = wa @ (wb.t() if transposed else wb)
        launched_here, launched[:] = launched[:], []
        # (emulated float16: the float32 kernel, then a rounding pass)
        emulated = dtype == "float16" and kernels.STORAGE[webtorch.float16] == "f32"
        assert [k[:2] for k in launched_here if k[0].startswith("matmul")] == \
            [("matmul_registers" if cpu_adapter else "matmul_vec4", "float32" if emulated else dtype)], launched_here
        exact = a.double() @ b.double()
        expected = (a.float() @ b.float()).to(a.dtype).double()
        bound = exact.abs() * 2.0 ** -(8 if dtype == "bfloat16" else 11) * 2 + (a.double().abs() @ b.double().abs()) * 1e-6
        diff = (torch.tensor(got.float().tolist(), dtype=torch.float64) - expected).abs()
        assert got.dtype == getattr(webtorch, dtype) and (diff <= bound).all(), (a_shape, diff.max())


def test_float16_softmax_and_layer_norm_are_one_kernel_each():
    rt = runtime()
    x = webtorch.randn(8, 100, device="webgpu").half()
    w, b = webtorch.ones(100, device="webgpu").half(), webtorch.zeros(100, device="webgpu").half()
    for fn in (lambda: x.softmax(-1), lambda: webtorch.nn.functional.layer_norm(x, (100,), w, b),
               lambda: webtorch.nn.functional.rms_norm(x, (100,), w)):
        before = rt.kernels_dispatched
        fn()
        assert rt.kernels_dispatched - before == 1
    assert webtorch.nn.functional.layer_norm(webtorch.zeros(0, 4, device="webgpu").half(), (4,)).shape == (0, 4)
    assert webtorch.zeros(0, 4, device="webgpu").half().softmax(-1).shape == (0, 4)


def test_rms_norm_weight_after_rounding_is_transformers_arithmetic():
    """webtorch.hf's RMSNorm kernel (_rms_norm(weight_after_rounding=True)) rounds x * rstd to float16
    before the weight, as transformers' weight * h.to(dtype): equal to that, not to torch's rms_norm
    (rounded once), which differs in a good share of elements here."""
    g = torch.Generator().manual_seed(0)
    x, w = torch.randn(16, 256, generator=g).half(), (torch.randn(256, generator=g) * 3).half()
    h = x.float()
    transformers = w * (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)).half()
    once = torch.nn.functional.rms_norm(x, (256,), w, eps=1e-6)
    got = webtorch._ops._rms_norm(webtorch.tensor(x.float().tolist(), device="webgpu").half(), 1,
                                  webtorch.tensor(w.float().tolist(), device="webgpu").half(), 1e-6,
                                  weight_after_rounding=True)
    got = torch.tensor(got.float().tolist())
    assert (got == transformers.float()).float().mean() > 0.99  # the f32 sum's order may move a rounding
    assert (once.float() != transformers.float()).float().mean() > 0.05
    torch.testing.assert_close(got, transformers.float(), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype, n", [("float16", 256), ("float32", 256), ("float16", 5000)])
def test_rms_norm_with_a_residual_add(dtype, n):
    """_rms_norm(residual=r) (webtorch.hf's RMSNorm.add: a residual add and the norm after it in one
    kernel) returns (norm of s, s) with s = x + r rounded as the add stores it: s equal to torch's add,
    the norm to transformers' arithmetic on s; rows in registers (256) and longer than they hold (5000);
    r laid out otherwise than x (a transposed view) is made contiguous first."""
    g = torch.Generator().manual_seed(0)
    td, wd = getattr(torch, dtype), getattr(webtorch, dtype)
    x, r = (torch.randn(3, n, generator=g).to(td) for _ in range(2))
    w = (torch.randn(n, generator=g) * 3).to(td)
    s = x + r
    h = s.float()
    want = w * (h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)).to(td)

    def on_gpu(t):
        return webtorch.tensor(t.float().tolist(), device="webgpu").to(wd)
    for residual in (on_gpu(r), on_gpu(r.t().contiguous()).t()):
        norm, total = webtorch._ops._rms_norm(on_gpu(x), 1, on_gpu(w), 1e-6, weight_after_rounding=True,
                                              residual=residual)
        assert torch.equal(torch.tensor(total.float().tolist()).to(td), s)
        torch.testing.assert_close(torch.tensor(norm.float().tolist()).to(td), want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("name", ["mean", "var", "std_mean", "norm", "cosine_similarity", "softmax",
                                  "adaptive_avg_pool1d", "avg_pool1d", "nanmean"])
def test_float16_statistics_whose_sums_pass_the_float16_range(name, device):
    """Rows of 200k float16 values near 1: their sum (and the sum of squares behind var) passes float16's
    65504. torch accumulates float16 in float32 and rounds the statistic once; webtorch returned inf (which
    zeroed bench/hf_decode.py's float16 weights: p.mul_(0.02 / p.std()))."""
    g = torch.Generator().manual_seed(0)
    x = (torch.rand(2, 200_000, generator=g) + 0.5).half()
    w = webtorch.tensor(x.float().numpy(), device=device).half()
    # (norm, cosine_similarity: the sum of squares; softmax: of exps, scaled to compare; the pool: a window's
    # sum and length)
    calls = {"cosine_similarity": lambda T, a, *d: T.nn.functional.cosine_similarity(a, a.flip(-1), *d or (-1,)),
             "softmax": lambda T, a, *d: T.softmax(a, *d or (-1,)) * 1e5,
             "adaptive_avg_pool1d": lambda T, a, *d: T.nn.functional.adaptive_avg_pool1d(a[None], 2 if d else 1),
             "avg_pool1d": lambda T, a, *d: T.nn.functional.avg_pool1d(a[None], 100_000 if d else 200_000),
             # (torch's own cpu float16 nanmean is NaN past 65504: its float32 mean, rounded, is the reference)
             "nanmean": lambda T, a, *d: T.nanmean(a.float() if T is torch else a, *d).half()}
    call = calls.get(name, lambda T, a, *d: getattr(T, name)(a, *d))
    for args in ((), (1,)):
        want = call(torch, x, *args)
        got = call(webtorch, w, *args)
        for a, e in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            assert a.dtype is webtorch.float16
            torch.testing.assert_close(torch.tensor(a.float().tolist()).half(), e, rtol=2e-3, atol=0)
