"""webtorch.compile's fusion of elementwise chains (backend/fusion.py): a replay runs each chain as one
kernel and gives eager's values bit for bit, and torch's."""
import math
import struct

import pytest
import torch

import training_cases as tc
import webtorch
from test_elementwise_accuracy import BINARY, UNARY
from torch_paths import assert_close_to_either, float64_too
from webtorch.backend.webgpu import runtime


def _w(t, device="webgpu"):
    dtype = getattr(webtorch, str(t.dtype).split(".")[1])
    return webtorch.tensor(t.tolist(), dtype=dtype, device=device).reshape(tuple(t.shape))


def _bits(values):
    """Each float as its bits (every NaN alike), for bit-for-bit comparisons of nested lists."""
    if isinstance(values, list):
        return [_bits(v) for v in values]
    if isinstance(values, float):
        return "nan" if math.isnan(values) else struct.pack("<f", values)
    return values


def _fn(lib, name):
    if name.startswith("special."):
        return getattr(lib.special, name[8:])
    if name in ("gelu", "silu"):
        return getattr(lib.nn.functional, name)
    return getattr(lib, name)


# torch.compile's option that turns fusion off (the user's switch; docs/compile.md)
UNFUSED = {"max_fusion_size": 1}


def _replayed(fn, *args, options=None):
    """fn compiled with options: recorded at a first call on other values, then replayed on args;
    returns the replay's result and the kernels it ran."""
    compiled = webtorch.compile(fn, options=options)
    compiled(*[a * 0.5 + 0.25 if a.dtype.is_floating_point else a for a in args])
    rt = runtime()
    k0 = rt.kernels_dispatched
    out = compiled(*args)
    assert compiled.stats == {"captures": 1, "replays": 1, "eager": 0}, compiled.graph_breaks
    return out, rt.kernels_dispatched - k0


def _compare(fn, torch_args, expect_kernels_below=None, tol=1e-5):
    """fn on webtorch (eager, fused replay, unfused replay) against fn on torch."""
    args = [_w(a) for a in torch_args]
    eager = [t.tolist() for t in fn(webtorch, *args)]
    fused, n_fused = _replayed(lambda *a: fn(webtorch, *a), *args)
    unfused, n_unfused = _replayed(lambda *a: fn(webtorch, *a), *args, options=UNFUSED)
    assert _bits([t.tolist() for t in fused]) == _bits(eager)
    assert _bits([t.tolist() for t in unfused]) == _bits(eager)
    assert n_fused < n_unfused if expect_kernels_below is None else n_fused <= expect_kernels_below
    # torch's float32 at the edges depends on its CPU path (gelu of inf, of 3e38): its value or float64's
    wants64 = float64_too(lambda *a: fn(torch, *a), torch_args) or [None] * len(fused)
    for k, (got, want, want64) in enumerate(zip(fused, fn(torch, *torch_args), wants64)):
        assert tuple(got.shape) == tuple(want.shape)
        assert_close_to_either(got.tolist(), want, want64, tol, tol, f"result {k}")
    return n_fused, n_unfused


# every value class: signed zeros, infinities, NaN, tiny, huge, and ordinary ones
SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-30, -3e38, 3e38, 0.5, -0.75, 2.0, 7.25, -13.5, 0.999]


def test_op_table_chains_fuse_and_equal_eager_and_torch():
    # each float op of the table (and the derived ones of the accuracy sweep) inside a chain of others:
    # one replay fuses them, in kernels of as many results as the adapter's bindings allow
    g = torch.Generator().manual_seed(0)
    x = torch.cat([torch.tensor(SPECIAL), torch.randn(3 * 16 - len(SPECIAL), generator=g) * 3]).view(3, 16)
    y = torch.rand(16, generator=g) + 0.25  # broadcast over x's rows

    def unary(T, x, y):
        return [_fn(T, name)(x * 1.5 - y) * 0.5 for name in UNARY]

    def binary(T, x, y):
        return [_fn(T, name)(x - 0.5, y * 2.0) + 1.0 for name in BINARY]

    # torch's own float32 functions near their poles and in far tails differ by more than a tight
    # tolerance (test_elementwise_accuracy.py holds each op to its own); here values are compared bit
    # for bit with eager's, so torch's are a check of the whole
    n_fused, n_unfused = _compare(unary, [x, y], tol=2e-3)
    assert n_fused * 2 < n_unfused, (n_fused, n_unfused)
    # torch's remainder of 3e38 is NaN (webtorch's eager is not: a known gap, not fusion's)
    _compare(binary, [torch.where((x.abs() > 1e30) & x.isfinite(), 1e20, x), y], tol=2e-3)


def test_a_chain_of_a_thousand_ops_is_one_kernel():
    def chain(T, x):
        for _ in range(500):
            x = x + 1.0
            x = x * 0.5
        return [x]
    _compare(chain, [torch.tensor(SPECIAL)], expect_kernels_below=1)


def test_casts_ints_bools_and_narrow_dtypes_fuse_exactly():
    def f(T, x, i, b):
        h = (x * 3).to(T.int32) + i  # float to int, then int arithmetic
        h8 = (h * 37).to(T.int8)  # wraps to 8 bits
        u8 = (h + 200).to(T.uint8)
        m = (x > 0) & b
        bf = T.where(m, x.to(T.bfloat16) * 1.1, -x.to(T.bfloat16))  # rounded to bfloat16 at each op
        return [h8, u8, bf, (h8.to(T.float32) / 7).floor(), m.logical_not().int() - h, (x.abs() > 1).float() * x]
    g = torch.Generator().manual_seed(1)
    x = torch.randn(40, generator=g) * 20
    _compare(f, [x, torch.randint(-50, 50, (40,), generator=g, dtype=torch.int32), torch.rand(40, generator=g) > 0.3],
             tol=0)


def test_broadcasts_views_and_in_place_writes_keep_what_other_kernels_read():
    # a broadcast read of an intermediate, a strided view of one, an in-place chain, a reduction of
    # one: each needs the value in memory, and gets it
    def f(T, x, y, z):
        a = (z + 1).exp()  # (4, 1)
        b = x.t() * a - y  # x non-contiguous; a read broadcast: written first
        c = b.relu()[:, ::2]  # a strided view of an intermediate
        d = c * 2 + 1
        e = b * 3
        e.add_(1)
        e[1:].mul_(-2)
        s = x[:4] * 2 + 1  # (4, 4): read again transposed, and one row of it broadcast, at once
        s_t, s_row = s.t() - s, s[1:2].expand(4, 4) * s
        return [d, e, b.sum(0), (b - 1).sigmoid(), s_t, s_row]
    g = torch.Generator().manual_seed(2)
    _compare(f, [torch.randn(6, 4, generator=g), torch.randn(6, generator=g), torch.randn(4, 1, generator=g)])


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3)])
def test_zero_dim_and_empty_chains(shape):
    def f(T, x):
        return [(x * 2 + 1).tanh() - x]
    _compare(f, [torch.randn(shape, generator=torch.Generator().manual_seed(3))],
             expect_kernels_below=1)


@pytest.mark.parametrize("model_name,optimizer_name", [("cnn", "adam"), ("transformer", "sgd_momentum")])
def test_training_steps_fused_equal_unfused_bit_for_bit(model_name, optimizer_name):
    results = {}
    for fuse in (False, True):
        torch.manual_seed(0)
        reference = tc.MODELS[model_name][0](torch)
        model = tc.MODELS[model_name][0](webtorch).to("webgpu")
        model.load_state_dict({k: _w(v, "cpu") for k, v in reference.state_dict().items()})
        made = []
        options = None if fuse else UNFUSED
        results[fuse] = tc.train(webtorch, model, model_name, optimizer_name, "webgpu", steps=4,
                                 compile_step=lambda fn: made.append(webtorch.compile(fn, fullgraph=True,
                                                                                     options=options)) or made[0])
        steps = list(made[0].cache.values())[-1].program.steps
        results[fuse] += (sum(s[0] in ("run", "fused") for s in steps),)
    assert results[True][:2] == results[False][:2]
    assert results[True][2] < 0.85 * results[False][2], (results[True][2], results[False][2])


# Epilogues: an elementwise chain that reads a matmul's C runs in the matmul kernel's store. Each path
# of gpu.matmul on its own: lavapipe takes matmul_small.wgsl / matmul_registers.wgsl; the GPU kernels
# (matmul_vec4.wgsl, matmul.wgsl; their epilogues are off by default, fusion.EPILOGUE_KERNELS) are
# forced as on a GPU adapter (the tensor-core kernel has no epilogue: fusion.MATMUL_HOOKED).
MATMUL_PATHS = {"small": (False, True), "registers": (True, True), "vec4": (True, False), "tiled": (True, False)}


def _matmul_path(monkeypatch, path):
    from webtorch.backend import fusion, gpu
    monkeypatch.setattr(fusion, "EPILOGUE_KERNELS", set(fusion.MATMUL_HOOKED))  # the GPU kernels' epilogues too
    tiled, cpu = MATMUL_PATHS[path]
    if tiled:
        monkeypatch.setattr(gpu, "SMALL_MATMUL_MACS", 0)
    monkeypatch.setattr(gpu, "_on_cpu_adapter", lambda runtime: cpu)


def _fused_matmul_kernels(fn, *args):
    """The matmul kernels of fn's compiled replay whose store runs an epilogue."""
    compiled = webtorch.compile(fn)
    compiled(*args)
    steps = list(compiled.cache.values())[-1].program.steps
    return [s[1][0][1][0] for s in steps if s[0] == "fused" and s[1][0][0] == "fused_matmul"]


def _epilogue_cases(n):
    """(fn, torch args) over matmuls of n x n weights (rows of C n elements long)."""
    g = torch.Generator().manual_seed(n)
    x, w = torch.randn(2, 8, n, generator=g), torch.randn(n, n, generator=g)
    b, r, u = torch.randn(2 * n, generator=g), torch.randn(2, 8, n, generator=g), torch.randn(n // 2, 2, generator=g)
    x[0, 0, :3] = torch.tensor([math.nan, math.inf, -math.inf])  # a row of NaN
    return [
        # a linear layer: bias (a strided view: every other element) + activation, scaling, residual
        (lambda T, x, w, b, r: [T.nn.functional.gelu(T.nn.functional.linear(x, w, b[::2])) * 0.5 + r], [x, w, b, r]),
        (lambda T, x, w, b: [T.relu(x @ w.t() + b[:n]).tanh() - 1], [x, w, b]),
        # C also a result (kept in memory), and a batched matmul's chain that broadcasts over the batch
        (lambda T, x, w, r: [x @ w, (T.bmm(x, w.t().expand(2, n, n)) * r[:1]).sigmoid()], [x, w, r]),
        # addmm, and a residual that is the matmul's own input A
        (lambda T, x, w, b: [T.addmm(b[:n], x[0], w.t()) + x[0]], [x, w, b]),
        # float16: C rounded to half before the bias add, as its store would
        (lambda T, x, w, b: [T.nn.functional.linear(x.half(), w.half(), b[:n].half()).relu() * 3], [x, w, b]),
        # a view that does not keep C's rows (its last dim half a row): the element's index in C unravelled
        (lambda T, x, w, u: [(x @ w).view(2, 8, 2, n // 2) * u.t() - 1], [x, w, u]),
    ]


@pytest.mark.parametrize("path", list(MATMUL_PATHS))
@pytest.mark.parametrize("case", range(6))
def test_matmul_epilogues_equal_eager_and_torch(monkeypatch, path, case):
    n = 30 if path == "tiled" else 32  # rows of multiples of 4 take the vec4 kernels
    fn, args = _epilogue_cases(n)[case]
    _matmul_path(monkeypatch, path)
    _compare(fn, args, tol=1e-2 if case == 4 else 1e-4)
    kernel = {"small": "matmul_small", "registers": "matmul_registers", "vec4": "matmul_vec4", "tiled": "matmul"}[path]
    assert set(_fused_matmul_kernels(lambda *a: fn(webtorch, *a), *[_w(a) for a in args])) == {kernel}


def test_gpu_matmul_kernels_keep_their_own_store_by_default(monkeypatch):
    # fusion.EPILOGUE_KERNELS: the H200 ran matmul_vec4's epilogues slower
    from webtorch.backend import gpu
    monkeypatch.setattr(gpu, "_on_cpu_adapter", lambda runtime: False)
    monkeypatch.setattr(gpu, "SMALL_MATMUL_MACS", 0)
    fn, args = _epilogue_cases(32)[0]
    assert _fused_matmul_kernels(lambda *a: fn(webtorch, *a), *[_w(a) for a in args]) == []
    monkeypatch.setattr(gpu, "_on_cpu_adapter", lambda runtime: True)
    assert set(_fused_matmul_kernels(lambda *a: fn(webtorch, *a), *[_w(a) for a in args])) == {"matmul_registers"}


def test_in_place_updates_of_state_fuse_in_place():
    """An in-place update of a tensor the call reaches (x.add_(y): an op into a new buffer, then its copy
    into x; a decode step's position) fuses into one kernel reading and writing x's elements in place;
    a write through another view than the one the chain reads x through (x[1:] from x[:-1]: elements
    another invocation reads) is not fused in place. Replays give eager's results and state."""
    def run(shifted, options=None):
        state = webtorch.tensor([1.0, 2.0, 3.0, 4.0], device="webgpu")

        def f(x):
            state.add_(x)
            if shifted:
                state[1:].copy_(state[:-1] * 3)
            return state * 2
        compiled = webtorch.compile(f, options=options) if options != "eager" else f
        x = webtorch.tensor([0.5], device="webgpu")
        outs = [compiled(x).tolist()]
        k0 = runtime().kernels_dispatched
        outs.append(compiled(x).tolist())
        return outs, state.tolist(), runtime().kernels_dispatched - k0

    for shifted in (False, True):
        eager, fused, unfused = run(shifted, "eager"), run(shifted), run(shifted, UNFUSED)
        assert fused[:2] == unfused[:2] == eager[:2]
        assert fused[2] == (4 if shifted else 1) < unfused[2]  # shifted: add+copy, then each op alone
