"""OpInfo's sparse samples against torch 2.13 on cpu and webgpu: every op of torch's OpInfo database that
supports a sparse layout (supports_sparse: COO, supports_sparse_csr: CSR) and that webtorch exports. Where
OpInfo has a sparse sample generator (sample_inputs_sparse_coo / _csr: mul, sum, ...) its samples are used;
for the elementwise ops, whose sparse tests build sparse inputs from the dense samples, the dense samples
made sparse (as torch's test_sparse_unary_ufuncs does). A sample webtorch cannot build (batch dims, more
than MAX_NUMEL elements) is left out; a sample webtorch refuses must be one torch refuses too, or raise
NotImplementedError naming the gap, which fails the row."""
import functools
import warnings

import pytest
import torch

import webtorch

from test_sparse import same_layout

pytestmark = [pytest.mark.filterwarnings("ignore:Sparse invariant checks"),
              pytest.mark.filterwarnings("ignore:Sparse CSR tensor support")]
LAYOUTS = {"coo": ("supports_sparse", torch.sparse_coo), "csr": ("supports_sparse_csr", torch.sparse_csr)}
MAX_SAMPLES, MAX_NUMEL = 3, 300
UNCOMPARABLE = {"randn_like"}  # random values


@functools.lru_cache(maxsize=None)
def _ops():
    from torch.testing._internal.common_methods_invocations import op_db
    out = {}
    for op in op_db:
        name = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
        fn = _resolve(webtorch, op.name)
        if name not in UNCOMPARABLE and fn is not None and not hasattr(fn, webtorch._refusals.MARK):
            out[name] = op
    return out


def _resolve(module, path):
    for part in path.split("."):
        module = getattr(module, part, None)
    return module


def _sparse_layout(x):
    return isinstance(x, torch.Tensor) and x.layout in (torch.sparse_coo, torch.sparse_csr)


def _expressible(x):
    if not isinstance(x, torch.Tensor):
        return True
    if x.numel() > MAX_NUMEL or x.dtype != torch.float32 and x.dtype != torch.bool:
        return False
    return x.layout != torch.sparse_csr or x.dim() - x.dense_dim() == 2  # (no batch dims)


@functools.lru_cache(maxsize=None)
def samples(name, layout):
    """OpInfo's first MAX_SAMPLES sparse samples for the op in layout (float32) that webtorch can build:
    [(input, args, kwargs)]; drawn lazily (mul's generator goes on to large tensors)."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in _drawn(_ops()[name], layout):
            parts = [s.input, *s.args, *s.kwargs.values()]
            if _sparse_layout(s.input) and all(_expressible(p) for p in parts):
                out.append((s.input, tuple(s.args), dict(s.kwargs)))
                if len(out) == MAX_SAMPLES:
                    break
    return out


def _drawn(op, layout):
    try:
        yield from getattr(op, f"sample_inputs_sparse_{layout}")("cpu", torch.float32)
    except NotImplementedError:  # no generator: the dense samples, made sparse
        for s in op.sample_inputs("cpu", torch.float32):
            x = s.input
            if isinstance(x, torch.Tensor) and x.dim() >= (2 if layout == "csr" else 1):
                x = x[tuple(slice(0, 4) for _ in range(x.dim()))]  # a corner, a third of it made 0
                x = x * (torch.arange(x.numel()).reshape(x.shape) % 3 != 0)
                sparse = x.to_sparse() if layout == "coo" else x.to_sparse_csr() if x.dim() == 2 else None
                if sparse is not None:
                    yield s.__class__(sparse, args=s.args, kwargs=s.kwargs)


# on webgpu the ops whose samples go beyond the values (products, reductions, layouts) and a few elementwise ones
WEBGPU_OPS = {"mul", "sum", "zeros_like", "abs", "sin", "sqrt", "isnan", "nn.functional.relu"}


def _cases():
    for name, op in sorted(_ops().items()):
        for layout, (flag, _) in LAYOUTS.items():
            if getattr(op, flag) and samples(name, layout):
                yield name, layout, "cpu"
                if name in WEBGPU_OPS:
                    yield name, layout, "webgpu"


def _to_webtorch(x, device):
    """The same tensor in webtorch (a sparse one from its arrays)."""
    if isinstance(x, torch.dtype):
        return getattr(webtorch, str(x).split(".")[1])
    if isinstance(x, torch.layout):
        return getattr(webtorch, str(x).split(".")[1])
    if not isinstance(x, torch.Tensor):
        return x
    def mine(t):
        return webtorch.tensor(t.tolist(), dtype=getattr(webtorch, str(t.dtype).split(".")[1]), device=device).reshape(
            tuple(t.shape))
    if x.layout == torch.sparse_coo:
        out = webtorch.sparse_coo_tensor(mine(x._indices()), mine(x._values()), tuple(x.shape),
                                         is_coalesced=x.is_coalesced())
        return out
    if x.layout == torch.sparse_csr:
        return webtorch.sparse_csr_tensor(mine(x.crow_indices()), mine(x.col_indices()), mine(x.values()),
                                          tuple(x.shape))
    return mine(x)


@pytest.mark.parametrize("name,layout,device", list(_cases()))
def test_opinfo_sparse_samples(name, layout, device):
    op = _ops()[name]
    fn = _resolve(webtorch, op.name)
    for x, args, kwargs in samples(name, layout):
        if device == "webgpu" and kwargs.get("dtype") == torch.float64:  # float32 there (docs/limits.md)
            continue
        wargs = [_to_webtorch(a, device) for a in (x, *args)]
        wkwargs = {k: _to_webtorch(v, device) if k != "device" else device for k, v in kwargs.items()}
        try:
            expected = op.op(x, *args, **kwargs)
        except (RuntimeError, NotImplementedError, TypeError, ValueError) as e:
            with pytest.raises(type(e)):
                fn(*wargs, **wkwargs)
            continue
        got = fn(*wargs, **wkwargs)
        if isinstance(expected, torch.Tensor) and expected.layout == torch.sparse_coo:
            assert got.layout is webtorch.sparse_coo
            expected, got = expected.coalesce(), got.coalesce()
        same_layout(got, expected, tol=1e-5)
