"""webtorch vs torch on the shared op table (tests/op_cases.py).

Every case runs with webtorch on each device and with torch on "cpu"; results
must agree in kind, shape, dtype and values (tolerances per case), result
tensors must live on the requested device, and the error cases must raise the
same exception type as torch.

WEBTORCH_TEST_DEVICES=cpu (comma-separated) restricts the devices; the default
is both "webgpu" and "cpu".
"""

import os

import pytest
import torch

import webtorch
from webtorch.backend import gpu as gpu_backend

from compare import assert_close, either, iter_tensors, to_plain
from op_cases import CASES, ERROR_CASES, expected_refusal, run_case, run_in_float64

DEVICES = [d for d in os.environ.get("WEBTORCH_TEST_DEVICES", "webgpu,cpu").split(",") if d]


def device_type(t):
    dev = t.device
    return getattr(dev, "type", None) or str(dev).split(":")[0]


def params(cases):
    return [pytest.param(case, device, id="%s-%s" % (case.name, device))
            for case in cases for device in DEVICES]


@pytest.mark.parametrize("case,device", params(CASES))
def test_op(case, device):
    refusal = expected_refusal(webtorch, case, device)
    if refusal:
        with pytest.raises(refusal[0], match=refusal[1]):
            run_case(webtorch, case, device)
        return
    expected = to_plain(run_case(torch, case, "cpu"))
    result = run_case(webtorch, case, device)
    name = "%s[%s]" % (case.name, device)
    for t in iter_tensors(result):
        assert device_type(t) == device, "%s: result on %s, expected %s" % (name, t.device, device)
    if case.exact:
        expected = either(to_plain(result), expected, to_plain(run_in_float64(torch, case)), case.atol, case.rtol)
    assert_close(to_plain(result), expected, atol=case.atol, rtol=case.rtol, name=name)


# A column reduction splits its reduced dim over workgroups (partials, then a second pass) only from
# gpu.COLUMN_SPLIT_MIN elements; the column cases are smaller, so here the split is forced on them.
@pytest.mark.parametrize("case", [c for c in CASES if "reduce-cols" in c.name], ids=lambda c: c.name)
def test_split_column_reductions(case, monkeypatch):
    if expected_refusal(webtorch, case, "webgpu"):
        pytest.skip("refused on this adapter (the op table checks the error)")
    from webtorch.backend import gpu
    monkeypatch.setattr(gpu, "COLUMN_SPLIT_MIN", 0)
    expected = to_plain(run_case(torch, case, "cpu"))
    assert_close(to_plain(run_case(webtorch, case, "webgpu")), expected, atol=case.atol, rtol=case.rtol,
                 name=case.name + "[split]")


# Reductions run one partial per thread on CPU adapters (lavapipe here; reduce_solo.wgsl: no barriers) and join
# threads through workgroup memory and subgroups on GPUs (reduce_join.wgsl): here each reduction case runs the
# other adapter's scheme, its column cases split as well (a case per path: long rows split in chunks, short rows,
# vec4 tails, columns, NaN, ties, int/bool, float16; the whole table would cost ~30 s of kernel compiles).
OTHER_SCHEME_CASES = {"reduce-long-vec4-tail", "reduce-long-offset", "reduce-long-rows-unaligned", "reduce-long-int-bool",
                      "reduce-short-rows-tail", "reduce-short-rows-ties-int", "reduce-cols-nan", "reduce-cols-ties",
                      "reduce-cols-offset-strided", "f16-reduce-cols"}


@pytest.mark.parametrize("case", [c for c in CASES if c.name in OTHER_SCHEME_CASES], ids=lambda c: c.name)
def test_reductions_other_adapters_scheme(case, monkeypatch):
    if expected_refusal(webtorch, case, "webgpu"):
        pytest.skip("refused on this adapter (the op table checks the error)")
    from webtorch.backend import gpu
    monkeypatch.setattr(gpu, "_on_cpu_adapter", lambda runtime, host=gpu._on_cpu_adapter: not host(runtime))
    if "reduce-cols" in case.name:
        monkeypatch.setattr(gpu, "COLUMN_SPLIT_MIN", 0)
    expected = to_plain(run_case(torch, case, "cpu"))
    assert_close(to_plain(run_case(webtorch, case, "webgpu")), expected, atol=case.atol, rtol=case.rtol,
                 name=case.name + "[other scheme]")


# f32 matmuls take matmul_registers.wgsl on CPU adapters (lavapipe here) and workgroup tiles
# (matmul_vec4.wgsl) on GPUs: here the tiles are forced on the tiled cases, each tile shape in turn.
@pytest.mark.parametrize("tile", [t for t, _ in gpu_backend._VEC4_TILES], ids=lambda t: "x".join(map(str, t)))
@pytest.mark.parametrize("case", [c for c in CASES if "-tiled-" in c.name], ids=lambda c: c.name)
def test_matmul_gpu_tiles(case, tile, monkeypatch):
    from webtorch.backend import gpu
    monkeypatch.setattr(gpu, "_on_cpu_adapter", lambda runtime: False)
    monkeypatch.setattr(gpu, "_VEC4_TILES", ((tile, 0),))
    expected = to_plain(run_case(torch, case, "cpu"))
    assert_close(to_plain(run_case(webtorch, case, "webgpu")), expected, atol=case.atol, rtol=case.rtol,
                 name=case.name + "[tiles]")


@pytest.mark.parametrize("case,device", params(ERROR_CASES))
def test_error(case, device):
    with pytest.raises(case.exc) as torch_info:
        run_case(torch, case, "cpu")
    assert type(torch_info.value) is case.exc, (
        "%s: torch raised %s, the table expects %s"
        % (case.name, type(torch_info.value).__name__, case.exc.__name__))
    with pytest.raises(case.exc):
        run_case(webtorch, case, device)


# A reduction's launches are kept per signature and replayed, a split's chain of two included (the second
# reads the first's partials): repeated calls give torch's values, through the kept plan.
@pytest.mark.parametrize("expr,split_columns", [("x.sum()", False), ("x.view(-1, 64).sum(0)", True),
                                                ("x.view(2, -1).mean(1)", False), ("x.argmax()", False)])
def test_repeated_reductions_replay_their_launches(expr, split_columns, monkeypatch):
    from webtorch.backend import gpu
    if split_columns:
        monkeypatch.setattr(gpu, "COLUMN_SPLIT_MIN", 0)
    x = torch.randn(40960, generator=torch.Generator().manual_seed(0))  # rows of 20480: split (gpu._reduce_chunk)
    w = webtorch.tensor(x.tolist(), device="webgpu")
    want = eval(expr, {"x": x.double()})
    gpu._REDUCE_PLANS.clear()
    for _ in range(3):
        got = eval(expr, {"x": w})
        assert torch.allclose(torch.tensor(got.tolist(), dtype=want.dtype), want, rtol=1e-4, atol=1e-3), expr
    steps = [len(steps) for _, steps in gpu._REDUCE_PLANS.values()]
    assert steps == ([] if expr == "x.argmax()" else [2]), steps  # an arg-reduction's split passes indices: not kept


# On GPUs a long row split over workgroups folds its float32 partials in the same launch, in the workgroup
# that finishes last (reduce_fold_last.wgsl, through the runtime's fold scratch, which each launch leaves
# as it found it): one launch per reduction, torch's values when calls of different shapes and ops follow
# one another and repeat (kept plans replayed), NaN partials included, float16 results rounded once.
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_split_rows_fold_their_partials_in_one_launch(dtype, monkeypatch):
    from webtorch.backend import gpu
    from webtorch.backend.webgpu import runtime
    monkeypatch.setattr(gpu, "_on_cpu_adapter", lambda runtime: False)  # (CPU adapters fold 256 per thread)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(3 * 20000, generator=g).to(getattr(torch, dtype))  # rows of 20000: 3 chunks each
    x[35000] = float("nan")  # one chunk's partial is NaN: the middle row's
    w = webtorch.tensor(x.tolist(), dtype=getattr(webtorch, dtype), device="webgpu")
    cases = [("x.sum()", 1), ("x.view(3, -1).amax(1)", 1), ("x[:20000].sum()", 1), ("x.view(3, -1).sum(1)", 1),
             ("x.view(3, -1)[::2].amin(1)", 1), ("x[20000:].abs().sum()", 2), ("x.view(30, -1).sum(1)", 1)]
    gpu._REDUCE_PLANS.clear()
    rt = runtime()
    for _ in range(2):
        for expr, launches in cases:
            k0 = rt.kernels_dispatched
            got = eval(expr, {"x": w})
            assert rt.kernels_dispatched - k0 == launches, expr
            want = eval(expr, {"x": x.double()}).to(getattr(torch, dtype))
            assert torch.allclose(torch.tensor(got.float().tolist()), want.float(), rtol=2e-3 if dtype == "float16" else
                                  1e-5, atol=1e-2, equal_nan=True), expr


# x @ W.T for up to gpu.GEMV_MAX_M rows of x takes matmul_gemv.wgsl on GPUs (not on CPU adapters, nor
# for small products: forced here): batches, a strided x, K shorter than a workgroup's lanes, N not a multiple of its columns;
# read in vec4s where x's rows are contiguous and K a multiple of 4 (K = 1028: four vec4s a trip, then one)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("m,k,n,batch,x_step", [(1, 300, 70, (), 1), (3, 31, 9, (), 2), (4, 5, 17, (), 1),
                                                 (2, 64, 33, (3,), 1), (1, 2048, 5, (), 3), (3, 1028, 40, (), 1)])
def test_matmul_gemv(m, k, n, batch, x_step, dtype, monkeypatch):
    from webtorch.backend import gpu, kernels
    monkeypatch.setattr(gpu, "_on_cpu_adapter", lambda runtime: False)
    monkeypatch.setattr(gpu, "SMALL_MATMUL_MACS", 0)  # small products take matmul_small.wgsl first
    launched = []
    monkeypatch.setattr(kernels, "matmul_gemv",
                        lambda d, vec4=False, make=kernels.matmul_gemv: launched.append(vec4) or make(d, vec4))
    g = torch.Generator().manual_seed(m * 1000 + k + n)
    x_full = torch.randn(*batch, m, k * x_step, generator=g).to(getattr(torch, dtype))
    x = x_full[..., ::x_step]
    w = torch.randn(*batch, n, k, generator=g).to(getattr(torch, dtype))
    wt = getattr(webtorch, dtype)
    got = webtorch.tensor(x_full.tolist(), dtype=wt, device="webgpu")[..., ::x_step] @ \
        webtorch.tensor(w.tolist(), dtype=wt, device="webgpu").transpose(-1, -2)
    assert launched == [x_step == 1 and k % 4 == 0]
    assert got.dtype is getattr(webtorch, dtype) and tuple(got.shape) == (*batch, m, n)
    exact = x.double() @ w.double().transpose(-1, -2)
    tol = 1e-3 if dtype == "float16" else 1e-5  # f16: C rounded to half once; f32: the order of the sums
    assert torch.allclose(torch.tensor(got.float().tolist(), dtype=torch.float64), exact, rtol=tol, atol=tol * k ** 0.5)


# Rows longer than sort.wgsl's workgroup (2048 padded) sort by one dispatch per bitonic step: a 65537-long
# row sorted in one workgroup's loop over storage memory came back mostly zeros on lavapipe (so did
# median, quantile and kthvalue of such rows). Ties and NaNs, both directions, values and indices.
@pytest.mark.parametrize("rows,n", [(3, 2049), (1, 65537)])
def test_long_rows_sort_like_torch(rows, n):
    x = torch.rand(rows, n, generator=torch.Generator().manual_seed(n))
    x[:, ::3] = x[:, 1::3][:, :x[:, ::3].shape[1]]  # ties
    x[0, 5] = x[-1, 7] = float("nan")
    ours = webtorch.tensor(x.numpy(), device="webgpu")
    for descending in (False, True):
        values, indices = ours.sort(descending=descending, stable=True)
        expected = x.sort(descending=descending, stable=True)
        assert torch.equal(torch.tensor(indices.cpu().tolist()), expected.indices)
        assert torch.equal(torch.tensor(values.cpu().tolist()).nan_to_num(-1), expected.values.nan_to_num(-1))
    y, z = ours.nan_to_num(0.5), x.nan_to_num(0.5)
    assert y.median(-1).values.cpu().tolist() == z.median(-1).values.tolist()
    assert y.kthvalue(n // 3, -1).values.cpu().tolist() == z.kthvalue(n // 3, -1).values.tolist()
