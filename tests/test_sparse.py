"""Sparse COO tensors against torch 2.13 on cpu and webgpu: construction, repr, coalesce, to_dense,
sparse @ dense (torch.sparse.mm, torch.mm, matmul, addmm, spmm, dense @ sparse) with gradients to the
values, the dense operand and a sparse leaf (sparse for torch.sparse.mm, dense for torch.mm), sparse.sum,
sparse.softmax, errors, and save/load both ways with torch."""
import copy
import io
import pickle

import pytest
import torch

import sparse_cases
import webtorch
from compare import SPARSE_ARRAYS

pytestmark = [pytest.mark.filterwarnings("ignore:Sparse invariant checks"),
              pytest.mark.filterwarnings("ignore:log1p_backward"),
              pytest.mark.filterwarnings("ignore:Sparse CSR tensor support")]
DEVICES = ["cpu", "webgpu"]

# (indices, values, size): uncoalesced with a duplicate, coalesced, a hybrid (one dense dim), empty
ENTRIES = {
    "duplicates": ([[1, 0, 1, 2], [2, 1, 2, 0]], [1.5, -2.0, 3.0, 0.25], (3, 3)),
    "coalesced": ([[0, 1, 2], [1, 0, 2]], [1.0, 2.0, -3.0], (3, 4)),
    "hybrid": ([[2, 0, 2]], [[1.0, 2.0], [3.0, 4.0], [5.0, -6.0]], (4, 2)),
    "empty": ([[], []], [], (2, 3)),
}


def both(name, device, requires_grad=False):
    indices, values, size = ENTRIES[name]
    pair = []
    for T in (torch, webtorch):
        v = T.tensor(values, dtype=T.float32).reshape(len(indices[0]), *size[len(indices):])
        v = v.to(device) if T is webtorch else v
        v.requires_grad_(requires_grad)
        pair.append((T.sparse_coo_tensor(T.tensor(indices, dtype=T.int64).reshape(len(indices), -1).to(
            device if T is webtorch else "cpu"), v, size), v))
    return pair


def same_gradient(ours, theirs):
    """A leaf's gradient: its entries and values as torch's (torch flags the masked ones of sparse.mm and
    to_dense uncoalesced although they are sorted and unique: its flag is not compared)."""
    if theirs.is_sparse:
        assert ours.is_sparse
        theirs, ours = theirs.coalesce(), ours.coalesce()
    same(ours, theirs)


def same(ours, theirs, tol=1e-5):
    if isinstance(theirs, torch.Tensor) and theirs.is_sparse:
        assert ours.is_sparse and ours.layout == webtorch.sparse_coo
        assert tuple(ours.shape) == tuple(theirs.shape) and ours.is_coalesced() == theirs.is_coalesced()
        same(ours._indices(), theirs._indices())
        same(ours._values(), theirs._values(), tol)
        return
    assert not getattr(ours, "is_sparse", False)
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.dtype.name == str(theirs.dtype).split(".")[1]
    assert torch.allclose(torch.tensor(ours.cpu().tolist(), dtype=theirs.dtype).reshape(theirs.shape), theirs, rtol=tol, atol=tol,
                          equal_nan=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(ENTRIES))
def test_construction_coalesce_to_dense_and_fields(name, device):
    (ts, _), (ws, _) = both(name, device)
    same(ws, ts)
    assert (ws.sparse_dim(), ws.dense_dim(), ws._nnz(), ws.is_sparse) == (ts.sparse_dim(), ts.dense_dim(),
                                                                            ts._nnz(), True)
    assert ws.layout is webtorch.sparse_coo and webtorch.ones(1).layout is webtorch.strided
    same(ws.coalesce(), ts.coalesce())
    same(ws.coalesce().indices(), ts.coalesce().indices())
    same(ws.coalesce().values(), ts.coalesce().values())
    same(ws.to_dense(), ts.to_dense())
    dense = ts.to_dense()
    for sparse_dim in range(1, dense.dim() + 1):
        same(webtorch.tensor(dense.tolist()).to(device).to_sparse(sparse_dim), dense.to_sparse(sparse_dim))
    same(ws.to("cpu").to(webtorch.float64), ts.to(torch.float64))
    same(copy.deepcopy(ws), ts)
    same(pickle.loads(pickle.dumps(ws.cpu())), ts)
    if ts.sparse_dim() == 2:
        same(ws.t(), ts.t())


def test_repr_as_torch():
    for name in ENTRIES:
        (ts, _), (ws, _) = both(name, "cpu")
        assert repr(ws) == repr(ts)
        assert repr(ws.coalesce()) == repr(ts.coalesce())
    (ts, _), (ws, _) = both("duplicates", "cpu", requires_grad=True)
    leaf_t = ts.detach().to(torch.float64).requires_grad_()
    leaf_w = ws.detach().to(webtorch.float64).requires_grad_()
    assert repr(leaf_w).replace("webtorch.", "torch.") == repr(leaf_t)
    flags = torch.tensor([[True, False], [False, True]])
    assert repr(webtorch.tensor(flags.tolist()).to_sparse()) == repr(flags.to_sparse())
    assert "device='webgpu:0', size=(3, 3)" in repr(ws.to("webgpu"))


def _products(T, s, d):
    return {"sparse.mm": lambda: T.sparse.mm(s, d), "mm": lambda: T.mm(s, d), "spmm": lambda: T.spmm(s, d),
            "matmul": lambda: s @ d, "method": lambda: s.mm(d), "addmm": lambda: T.addmm(d[:1], s, d, beta=0.5,
                                                                                          alpha=2.0),
            "sparse.addmm": lambda: T.sparse.addmm(d[:1], s, d, beta=0.5, alpha=2.0),
            "dense@sparse": lambda: T.mm(d.t(), s.t()), "vector": lambda: s @ d[:, 0]}


# every product on the cpu; on webgpu (spmm.wgsl, whatever the product's name) the duplicates with the
# products whose gradients take different paths
PRODUCT_CASES = [(name, product, "cpu") for name in ("duplicates", "coalesced") for product in
                 _products(torch, None, None)] + \
    [("duplicates", product, "webgpu") for product in ("sparse.mm", "mm", "addmm", "dense@sparse", "vector")]


@pytest.mark.parametrize("name,product,device", PRODUCT_CASES)
def test_sparse_times_dense_and_gradients(name, product, device):
    (ts, tv), (ws, wv) = both(name, device, requires_grad=True)
    n = ts.shape[1]
    td = torch.linspace(-1, 1, n * 5).reshape(n, 5).requires_grad_()
    wd = webtorch.tensor(td.tolist(), device=device).requires_grad_()
    if product == "dense@sparse":
        td, wd = td.detach()[:, :ts.shape[0]].t().contiguous().t().requires_grad_(), None
    tout = _products(torch, ts, td)[product]()
    if wd is None:
        wd = webtorch.tensor(td.tolist(), device=device).requires_grad_()
    wout = _products(webtorch, ws, wd)[product]()
    same(wout, tout)
    weights = torch.linspace(0.5, 2, tout.numel()).reshape(tout.shape)
    (tout * weights).sum().backward()
    (wout * webtorch.tensor(weights.tolist(), device=device)).sum().backward()
    same(wv.grad, tv.grad)
    same(wd.grad, td.grad)
    # a sparse leaf: torch.sparse.mm gives it a sparse gradient over its entries, torch.mm a dense one
    tleaf, wleaf = ts.detach().requires_grad_(), ws.detach().requires_grad_()
    tout, wout = _products(torch, tleaf, td)[product](), _products(webtorch, wleaf, wd)[product]()
    tout.sum().backward()
    wout.sum().backward()
    same_gradient(wleaf.grad, tleaf.grad)


@pytest.mark.parametrize("name,dim,device", [(name, dim, "cpu") for name in ("duplicates", "hybrid")
                                             for dim in (None, 0, 1, (0, 1), -1)] +
                         [("duplicates", 1, "webgpu"), ("hybrid", -1, "webgpu")])
def test_sparse_sum_and_softmax(name, dim, device):
    (ts, tv), (ws, wv) = both(name, device, requires_grad=True)
    tout, wout = torch.sparse.sum(ts, dim), webtorch.sparse.sum(ws, dim)
    same(wout, tout)
    (tout.to_dense() if tout.is_sparse else tout).pow(2).sum().backward()
    (wout.to_dense() if wout.is_sparse else wout).pow(2).sum().backward()
    same(wv.grad, tv.grad)
    if dim is None or dim == (0, 1):
        return
    for fn in ("softmax", "log_softmax"):
        (ts, tv), (ws, wv) = both(name, device, requires_grad=True)
        tout, wout = getattr(torch.sparse, fn)(ts, dim), getattr(webtorch.sparse, fn)(ws, dim)
        same(wout, tout)
        tvalues, wvalues = tout.coalesce().values(), wout.coalesce().values()
        weights = torch.linspace(0.5, 2, tvalues.numel()).reshape(tvalues.shape)
        (tvalues * weights).sum().backward()
        (wvalues * webtorch.tensor(weights.tolist(), device=device)).sum().backward()
        if dim % ts.dim() < ts.sparse_dim():
            same(wv.grad, tv.grad)
        else:  # torch 2.13's backward along a dense dim is wrong (its gradient does not sum to 0 along dim)
            assert torch.tensor(wv.grad.sum(dim).tolist()).abs().max() < 1e-6


SCALINGS = {"add": lambda T, s: s + s.detach().coalesce() * 2, "sub": lambda T, s: T.sub(s, s.t(), alpha=0.5),
            "mul": lambda T, s: s * 2.5, "rmul": lambda T, s: 3 * s, "div": lambda T, s: s / 4,
            "mul-0d": lambda T, s: T.mul(s, T.tensor(-1.5)), "neg": lambda T, s: -s}
VALUEWISE = {**{name: (lambda n: lambda T, s: getattr(T, n)(s))(name) for name in webtorch.sparse._coo.VALUEWISE
                if not hasattr(getattr(webtorch, name), webtorch._refusals.MARK)},
             **{name: (lambda n: lambda T, s: getattr(s, n)())(name) for name in ("fix",)},
             **SCALINGS}


@pytest.mark.parametrize("name", list(VALUEWISE))
def test_elementwise_ops_that_map_zero_to_zero(name):
    """torch's sparse kernels of the zero-preserving elementwise ops (the ones torch's OpInfo marks
    supports_sparse) and scaling: values, layout, coalescing and gradients to the values."""
    (ts, tv), (ws, wv) = both("duplicates", "cpu", requires_grad=True)
    tout, wout = VALUEWISE[name](torch, ts), VALUEWISE[name](webtorch, ws)
    assert wout.is_sparse and (wout.is_coalesced() == tout.is_coalesced() or name in ("add", "sub"))
    same(wout.coalesce(), tout.coalesce())
    if not tout.dtype.is_floating_point:
        return
    weights = torch.linspace(0.5, 2, 9).reshape(3, 3)
    try:
        (tout.to_dense() * weights).sum().backward()
    except (RuntimeError, NotImplementedError):  # torch has no sparse backward for it
        return
    (wout.to_dense() * webtorch.tensor(weights.tolist())).sum().backward()
    torch.testing.assert_close(torch.tensor(wv.grad.tolist()), tv.grad, equal_nan=True)


# binary arithmetic with a sparse operand (a uncoalesced with a duplicate, b uncoalesced with fewer entries,
# d dense): torch's layouts (dense + sparse is dense, every product sparse), entry order and coalesced flag
SECOND = ([[2, 1, 0], [0, 2, 2]], [0.5, -4.0, 2.0])
BINARY = {
    "dense+sparse": lambda T, a, b, d: d + a, "add-alpha": lambda T, a, b, d: T.add(d, a, alpha=2),
    "dense-sparse": lambda T, a, b, d: d - a, "sub-method": lambda T, a, b, d: d.sub(b, alpha=0.5),
    "iadd": lambda T, a, b, d: d.clone().__iadd__(a), "sub_": lambda T, a, b, d: d.clone().sub_(b),
    "coalesced+coalesced": lambda T, a, b, d: T.add(a.coalesce(), b.coalesce(), alpha=-1),
    "sparse*dense": lambda T, a, b, d: a * d, "dense*sparse": lambda T, a, b, d: T.mul(d, b.coalesce()),
    "sparse*row": lambda T, a, b, d: a * d[1], "mul_": lambda T, a, b, d: d.clone().mul_(a),
    "sparse*sparse": lambda T, a, b, d: a * b, "sparse*sparse-swapped": lambda T, a, b, d: b * a,
    "coalesced*uncoalesced": lambda T, a, b, d: T.mul(a.coalesce(), b),
    "coalesced*coalesced": lambda T, a, b, d: a.coalesce() * b.coalesce(),
    "sparse.mm": lambda T, a, b, d: T.sparse.mm(a, b), "mm": lambda T, a, b, d: T.mm(a, b.t()),
    "matmul": lambda T, a, b, d: b @ a,
}
# sums and products of two sparse tensors: torch's gradient to a sparse leaf is the unmasked one (a sum's
# over both operands' entries, a product's over the other operand's, sparse @ sparse's over G Bᵀ's),
# webtorch's lies over the leaf's own entries
UNMASKED = ("coalesced+coalesced", "sparse*sparse", "sparse*sparse-swapped", "coalesced*uncoalesced",
            "coalesced*coalesced", "sparse.mm", "mm", "matmul")
BINARY_CASES = [(name, "cpu") for name in BINARY] + \
    [(name, "webgpu") for name in ("add-alpha", "sparse*dense", "sparse*sparse", "coalesced*coalesced", "sparse.mm")]


@pytest.mark.parametrize("name,device", BINARY_CASES)
def test_binary_arithmetic_with_a_sparse_operand(name, device):
    (ta, tav), (wa, wav) = both("duplicates", device, requires_grad=True)
    tbv = torch.tensor(SECOND[1], requires_grad=True)
    wbv = webtorch.tensor(SECOND[1], device=device, requires_grad=True)
    tb = torch.sparse_coo_tensor(torch.tensor(SECOND[0]), tbv, (3, 3))
    wb = webtorch.sparse_coo_tensor(webtorch.tensor(SECOND[0], device=device), wbv, (3, 3))
    td = torch.linspace(-2, 2, 9).reshape(3, 3).requires_grad_()
    wd = webtorch.tensor(td.tolist(), device=device, requires_grad=True)
    tout, wout = BINARY[name](torch, ta, tb, td), BINARY[name](webtorch, wa, wb, wd)
    same(wout, tout)
    weights = torch.linspace(0.5, 2, 9).reshape(3, 3)
    try:
        (tout.to_dense() if tout.is_sparse else tout).mul(weights).sum().backward()
    except NotImplementedError:  # torch has no backward for it (a product by a broadcast dense operand)
        return
    (wout.to_dense() if wout.is_sparse else wout).mul(webtorch.tensor(weights.tolist(), device=device)).sum().backward()
    for ours, theirs in ((wav, tav), (wbv, tbv), (wd, td)):  # (torch's gradient to d of a product is sparse)
        assert (ours.grad is None) == (theirs.grad is None)
        if theirs.grad is not None:
            same(ours.grad, theirs.grad.to_dense() if theirs.grad.is_sparse else theirs.grad)
    # sparse leaves: a sparse gradient over their entries (a dense one from dense + sparse)
    tleaves, wleaves = [x.detach().requires_grad_() for x in (ta, tb)], [x.detach().requires_grad_() for x in (wa, wb)]
    BINARY[name](torch, *tleaves, td.detach()).to_dense().sum().backward() if tout.is_sparse else \
        BINARY[name](torch, *tleaves, td.detach()).sum().backward()
    BINARY[name](webtorch, *wleaves, wd.detach()).to_dense().sum().backward() if wout.is_sparse else \
        BINARY[name](webtorch, *wleaves, wd.detach()).sum().backward()
    if name in UNMASKED:  # torch's sparse leaf gradient lies over the other operand's entries too (docs/sparse.md)
        return
    for ours, theirs in zip(wleaves, tleaves):
        assert (ours.grad is None) == (theirs.grad is None)
        if theirs.grad is not None:
            same_gradient(ours.grad, theirs.grad)


def test_sparse_times_sparse_on_a_larger_random_product():
    """sparse @ sparse over random entries (rows of b met by several, by none) against the dense product."""
    g = torch.Generator().manual_seed(1)
    x = torch.randn(30, 40, generator=g, dtype=torch.float64) * (torch.rand(30, 40, generator=g) < 0.1)
    y = torch.randn(40, 20, generator=g, dtype=torch.float64) * (torch.rand(40, 20, generator=g) < 0.1)
    for device in DEVICES:
        got = webtorch.sparse.mm(webtorch.tensor(x.tolist(), device=device).to_sparse(),
                                 webtorch.tensor(y.tolist(), device=device).to_sparse())
        same(got, torch.sparse.mm(x.to_sparse(), y.to_sparse()).float(), tol=1e-6)
    empty = webtorch.zeros(3, 4).to_sparse()
    same(webtorch.sparse.mm(empty, webtorch.ones(4, 2).to_sparse()), torch.sparse.mm(torch.zeros(3, 4).to_sparse(),
                                                                                    torch.ones(4, 2).to_sparse()))


@pytest.mark.parametrize("device", DEVICES)
def test_to_dense_and_to_sparse_gradients(device):
    (ts, tv), (ws, wv) = both("duplicates", device, requires_grad=True)
    weights = torch.linspace(1, 2, 9).reshape(3, 3)
    (ts.to_dense() * weights).sum().backward()
    (ws.to_dense() * webtorch.tensor(weights.tolist(), device=device)).sum().backward()
    same(wv.grad, tv.grad)
    tleaf, wleaf = ts.detach().requires_grad_(), ws.detach().requires_grad_()
    tleaf.to_dense().sum().backward()
    wleaf.to_dense().sum().backward()
    same_gradient(wleaf.grad, tleaf.grad)  # sparse: ones at its entries
    tx = torch.tensor([[0.0, 1.5], [-2.0, 0.0]], requires_grad=True)
    wx = webtorch.tensor(tx.tolist(), device=device, requires_grad=True)
    torch.sparse.mm(tx.to_sparse(), tx).sum().backward()
    webtorch.sparse.mm(wx.to_sparse(), wx).sum().backward()
    same(wx.grad, tx.grad)


def test_webgpu_kernel_matches_torch_on_a_larger_product():
    g = torch.Generator().manual_seed(0)
    dense = torch.randn(70, 90, generator=g) * (torch.rand(70, 90, generator=g) < 0.05)
    other = torch.randn(90, 33, generator=g, dtype=torch.float64)
    s = webtorch.tensor(dense.tolist(), device="webgpu").to_sparse().requires_grad_()
    mine = webtorch.tensor(other.float().tolist(), device="webgpu")
    for width in (1, 2, 3, 4, 6):  # spmm.wgsl's threads take 4 adjacent columns: a last quad of 1, 2, 3 or 4
        same(webtorch.sparse.mm(s.detach(), mine[:, :width].contiguous()), (dense.double() @ other[:, :width]).float(),
             tol=1e-4)
    got = webtorch.sparse.mm(s, mine)
    same(got, (dense.double() @ other).float(), tol=1e-4)
    # the sparse gradient (sddmm.wgsl): G Otherᵀ sampled at the entries
    cotangent = torch.randn(70, 33, generator=g, dtype=torch.float64)
    got.backward(webtorch.tensor(cotangent.float().tolist(), device="webgpu"))
    expected = (cotangent @ other.t()).float().to_sparse().sparse_mask(dense.to_sparse())
    same(s.grad, expected, tol=1e-4)


def test_webgpu_product_after_the_indices_change_in_place():
    """The row pointers of spmm.wgsl are kept with the sparse matrix: made again when its indices change."""
    results = []
    for T, device in ((torch, "cpu"), (webtorch, "webgpu")):
        s = T.sparse_coo_tensor(T.tensor([[0, 1, 1], [2, 0, 1]]), T.tensor([1.0, 2.0, 3.0]), (3, 3))
        s = s.coalesce().to(device)
        d = T.arange(6.0).reshape(3, 2).to(device)
        first = T.sparse.mm(s, d)
        s._indices()[0].copy_(T.tensor([0, 2, 2], device=device))  # row 1's entries move to row 2: still sorted
        results.append((first, T.sparse.mm(s, d)))
    for theirs, ours in zip(*results):
        same(ours, theirs)


ERRORS = [
    ("exp", lambda T, s, d: s.exp(), NotImplementedError, None),
    ("view", lambda T, s, d: s.view(9), NotImplementedError, None),
    ("values-uncoalesced", lambda T, s, d: s.values(), RuntimeError, "Cannot get values on an uncoalesced tensor"),
    ("indices-uncoalesced", lambda T, s, d: s.indices(), RuntimeError, "Cannot get indices on an uncoalesced"),
    ("shape", lambda T, s, d: T.sparse.mm(s, d[:2]), RuntimeError, "Expected dim 0 size 3, got 2"),
    ("dtype", lambda T, s, d: T.sparse.mm(s, d.double()), RuntimeError, "expected scalar type Float but found Double"),
    ("nnz", lambda T, s, d: T.sparse_coo_tensor(T.tensor([[0, 1]]), T.tensor([1.0, 2.0, 3.0]), (3,)), RuntimeError,
     "indices and values must have same nnz"),
    ("sparse+dense", lambda T, s, d: s + d[:, :3], RuntimeError, "add\\(sparse, dense\\) is not supported"),
    ("sparse-number", lambda T, s, d: s - 1, RuntimeError, "add\\(sparse, dense\\) is not supported"),
    ("dense-coalesce", lambda T, s, d: d.coalesce(), RuntimeError,
     "coalesce expected sparse coordinate tensor layout but got Strided"),
    ("dense-values", lambda T, s, d: d.values(), RuntimeError, "values expected sparse tensor layout but got Strided"),
    ("to-sparse-dim", lambda T, s, d: d.to_sparse(3), RuntimeError, "sparse_dim argument must be in \\[0,2\\] range"),
    ("to-sparse-zero", lambda T, s, d: d.to_sparse(0), RuntimeError, "must be in >0 when self.dim\\(\\)>0"),
    ("resparse", lambda T, s, d: s.to_sparse(1), RuntimeError, "with sparse_dim argument !=self.sparse_dim()"),
    ("number+sparse", lambda T, s, d: 2 + s, RuntimeError, "add\\(sparse, dense\\) is not supported"),
    ("number-sparse", lambda T, s, d: 2 - s, RuntimeError, "self has size \\[\\] while other has size \\[3, 3\\]"),
    ("dense+sparse-broadcast", lambda T, s, d: d[:, :3][0] + s, RuntimeError,
     "same size, but self has size \\[3\\] .*does not currently support broadcasting"),
    ("sparse+sparse-size", lambda T, s, d: s + T.sparse_coo_tensor(T.tensor([[0], [0]]), T.tensor([1.0]), (3, 4)),
     RuntimeError, "expected sizes of 'self' and 'other' to match, but \\[3, 3\\] != \\[3, 4\\]"),
    ("sparse+sparse-density", lambda T, s, d: s + d[:, :3].to_sparse(1), RuntimeError, "to have same density"),
    ("sparse/dense", lambda T, s, d: s / d[:, :3], RuntimeError, "Sparse division requires a scalar or zero-dim"),
    ("dense/sparse", lambda T, s, d: d[:, :3] / s, RuntimeError, "got shape \\[3, 3\\] for divisor"),
    ("sparse*dense-shape", lambda T, s, d: s * d[:2, :2], RuntimeError, "must match the size of tensor b"),
    ("sparse*sparse-shape", lambda T, s, d: s * d[:2, :2].to_sparse(), RuntimeError,
     "expects sparse inputs with equal dimensionality"),
    ("sparse@sparse-shape", lambda T, s, d: T.sparse.mm(s, d[:2, :2].to_sparse()), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied \\(3x3 and 2x2\\)"),
    ("sparse@sparse-dtype", lambda T, s, d: s @ s.double(), RuntimeError, "mat1 dtype Float does not match mat2 dtype"),
    ("sparse@sparse-hybrid", lambda T, s, d: T.sparse.mm(s, d[:, :3].to_sparse(1)), RuntimeError,
     "scalar values expected, got 1D values"),
    ("addmm-sparse-sparse", lambda T, s, d: T.addmm(d[:, :3], s, s), RuntimeError, "'mat2' with layout Sparse"),
    ("to_dense-dtype", lambda T, s, d: s.to_dense(T.float64), RuntimeError, "dtype argument is not supported"),
]


@pytest.mark.parametrize("name,op,exc,text", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_as_torch(name, op, exc, text):
    for T in (torch, webtorch):
        s = T.sparse_coo_tensor(T.tensor(ENTRIES["duplicates"][0]), T.tensor(ENTRIES["duplicates"][1]), (3, 3))
        with pytest.raises(exc, match=text):
            op(T, s, T.ones(3, 4))
    assert webtorch.ones(2, 2).to_dense().is_sparse is False and webtorch.ones(2, 2).sparse_dim() == 0


def test_unsupported_ops_name_the_gap():
    s = webtorch.ones(2, 2).to_sparse()
    for op in (lambda: s[0], lambda: webtorch.cos(s), lambda: s.exp(), lambda: s.cumsum(0), lambda: s.view(4),
               lambda: s * webtorch.ones(2, 2, 2)):
        with pytest.raises(NotImplementedError, match="sparse COO"):
            op()
    with pytest.raises(NotImplementedError, match="BSR"):
        webtorch.ones(2, 2).to_sparse(layout=webtorch.sparse_bsr, blocksize=(1, 1))
    c = webtorch.ones(2, 2).to_sparse_csr()
    for op in (lambda: c.exp(), lambda: c.view(4), lambda: c.cumsum(0), lambda: webtorch.ones(2, 2, 2).to_sparse_csr()):
        with pytest.raises(NotImplementedError, match="CSR"):
            op()


@pytest.mark.parametrize("name", ["duplicates", "coalesced", "hybrid"])
def test_save_and_load_both_ways_with_torch(name):
    (ts, _), (ws, _) = both(name, "cpu")
    buffer = io.BytesIO()
    torch.save({"a": ts, "b": ts.coalesce()}, buffer)
    for device in DEVICES:
        loaded = webtorch.load(io.BytesIO(buffer.getvalue()), map_location="cpu")
        same(loaded["a"].to(device), ts)
        same(loaded["b"].to(device), ts.coalesce())
    mine = io.BytesIO()
    webtorch.save({"a": ws, "b": ws.coalesce()}, mine)
    back = torch.load(io.BytesIO(mine.getvalue()))
    assert back["a"].is_sparse and torch.equal(back["a"].to_dense(), ts.to_dense())
    assert back["b"].is_coalesced() and torch.equal(back["b"]._indices(), ts.coalesce()._indices())


def test_load_to_webgpu_of_int64_storages_with_values_beyond_int32_outside_the_tensors():
    """torch's coalesce leaves an uninitialised tail in a sparse tensor's indices storage, which torch.save
    writes whole: a tail beyond int32 (webgpu's int64 is 32-bit) stopped map_location="webgpu". Each
    tensor viewing such a storage now moves alone; a viewed value beyond int32 still raises."""
    tail = 2 ** 40
    storage = torch.tensor([[0, 1, 2, tail], [2, 0, 1, tail]])
    s = torch.sparse_coo_tensor(storage[:, :3], torch.tensor([1.0, 2.0, 3.0]), (3, 3))
    buffer = io.BytesIO()
    torch.save({"sparse": s, "view": storage[1, :3], "whole": storage}, buffer)
    with pytest.raises(RuntimeError, match="does not fit in int32"):
        webtorch.load(io.BytesIO(buffer.getvalue()), map_location="webgpu")
    buffer = io.BytesIO()
    torch.save({"sparse": s, "view": storage[1, :3]}, buffer)
    loaded = webtorch.load(io.BytesIO(buffer.getvalue()), map_location="webgpu")
    assert loaded["sparse"].device.type == "webgpu" and loaded["view"].device.type == "webgpu"
    same(loaded["sparse"], s)
    assert loaded["view"].tolist() == [2, 0, 1]


def test_load_refuses_a_sparse_tensor_with_an_entry_outside_its_size():
    buffer = io.BytesIO()
    torch.save(torch.sparse_coo_tensor(torch.tensor([[0, 2]]), torch.tensor([1.0, 2.0]), (3,)), buffer)
    # the same file with size 2: entry 2 lies outside
    forged = buffer.getvalue()
    forged_buffer = io.BytesIO()
    import zipfile
    with zipfile.ZipFile(io.BytesIO(forged)) as src, zipfile.ZipFile(forged_buffer, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith("data.pkl"):
                data = data.replace(b"K\x03\x85", b"K\x02\x85")  # Size((3,)) -> Size((2,))
            dst.writestr(info, data)
    # torch loads it unchecked (its invariant checks are off by default); webtorch checks, as to_dense would
    # otherwise write outside the tensor
    assert torch.load(io.BytesIO(forged_buffer.getvalue())).shape == (2,)
    with pytest.raises(pickle.UnpicklingError, match="size is inconsistent with indices"):
        webtorch.load(io.BytesIO(forged_buffer.getvalue()))


# -- sparse compressed tensors (CSR, CSC) ------------------------------------------------------------
MATRIX = sparse_cases.MATRIX


def same_layout(ours, theirs, tol=1e-5):
    """Any layout: compressed tensors array by array, COO and dense as same() compares them."""
    if isinstance(theirs, torch.Tensor) and theirs.layout in (torch.sparse_csr, torch.sparse_csc):
        name = str(theirs.layout).split(".")[1]
        assert ours.layout is getattr(webtorch, name) and tuple(ours.shape) == tuple(theirs.shape)
        for array in SPARSE_ARRAYS[name]:
            same(getattr(ours, array)(), getattr(theirs, array)())
        same(ours.values(), theirs.values(), tol)
        return
    same(ours, theirs, tol)


@pytest.mark.parametrize("name,layout,device", sparse_cases.CASES)
def test_sparse_layouts_as_torch(name, layout, device):
    """COO, CSR and CSC tensors (tests/sparse_cases.py): values, layouts, arrays and dtypes of each op's result,
    the gradient to the values they were built from, to a dense operand, and to a sparse leaf (sparse or dense, as
    torch's); where torch has no such op for the layout, webtorch refuses it with torch's type."""
    sparse_cases.check(sparse_cases.run(webtorch, name, layout, device), sparse_cases.run(torch, name, layout, "cpu"),
                       f"{name}-{layout}-{device}")


def _coo_of(T, device):
    return T.tensor(MATRIX, device=device if T is webtorch else "cpu").to_sparse()


# in-place ops torch has for sparse tensors (COO and CSR): the tensor takes the result's entries
INPLACE = {"mul_": lambda T, x: x.mul_(2.5), "mul_-sparse": lambda T, x: x.mul_(x.clone()), "add_": lambda T, x: x.add_(
    x.clone()), "zero_": lambda T, x: x.zero_(), "neg_": lambda T, x: x.neg_(), "abs_": lambda T, x: x.abs_(),
    "sin_": lambda T, x: x.sin_(), "div_": lambda T, x: x.div_(4), "sub_": lambda T, x: x.sub_(x.clone())}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_ops_on_sparse_tensors(name, layout, device):
    make = {"coo": lambda T: _coo_of(T, device), "csr": lambda T: _coo_of(T, device).to_sparse_csr()}[layout]
    tx, wx = make(torch), make(webtorch)
    try:
        tout = INPLACE[name](torch, tx)
    except RuntimeError:
        with pytest.raises((RuntimeError, NotImplementedError)):
            INPLACE[name](webtorch, wx)
        return
    wout = INPLACE[name](webtorch, wx)
    assert wout is wx
    same_layout(wx.coalesce() if layout == "coo" else wx, tx.coalesce() if layout == "coo" else tx)


COMPRESSED_ERRORS = [
    ("crow-length", ([0, 1, 3], [1, 0, 2], [1.0, 2.0, 3.0], (3, 3)), "must be equal to the number of rows \\+ 1"),
    ("nnz", ([0, 1, 3, 3], [1, 0], [1.0, 2.0, 3.0], (3, 3)), "col_indices.shape\\[-1\\] must be equal to nnz \\(=3\\)"),
    ("first", ([1, 1, 3, 3], [1, 0, 2], [1.0, 2.0, 3.0], (3, 3)), "`crow_indices\\[..., 0\\] == 0` is not satisfied"),
    ("last", ([0, 1, 2, 2], [1, 0, 2], [1.0, 2.0, 3.0], (3, 3)), "`crow_indices\\[..., -1\\] == nnz` is not satisfied"),
    ("column", ([0, 1, 3, 3], [1, 0, 5], [1.0, 2.0, 3.0], (3, 3)), "`0 <= col_indices < ncols` is not satisfied"),
    ("negative", ([0, 1, 3, 3], [1, 0, -1], [1.0, 2.0, 3.0], (3, 3)), "`0 <= col_indices < ncols` is not satisfied"),
    ("unsorted", ([0, 1, 3, 3], [1, 2, 0], [1.0, 2.0, 3.0], (3, 3)), "are sorted and distinct"),
    ("dims", ([0, 1, 3, 3], [1, 0, 2], [1.0, 2.0, 3.0], (3,)), "must be sum of batch, base, and dense"),
    ("dtypes", ([0, 1, 3, 3], "int32", [1.0, 2.0, 3.0], (3, 3)), "must have the same dtype"),
]


@pytest.mark.parametrize("name,args,text", COMPRESSED_ERRORS, ids=[e[0] for e in COMPRESSED_ERRORS])
def test_sparse_csr_tensor_checks_as_torch(name, args, text):
    """torch's invariant checks (torch.sparse.check_sparse_tensor_invariants): webtorch always checks."""
    for T in (torch, webtorch):
        crow, col, values, size = args
        col = T.tensor([1, 0, 2], dtype=T.int32) if col == "int32" else T.tensor(col)
        with torch.sparse.check_sparse_tensor_invariants(), pytest.raises(RuntimeError, match=text):
            T.sparse_csr_tensor(T.tensor(crow), col, T.tensor(values), size)


def test_compressed_repr_fields_errors_and_save_load_as_torch():
    dense = torch.tensor(MATRIX)
    for layout in ("csr", "csc"):
        t = getattr(dense, f"to_sparse_{layout}")()
        w = getattr(webtorch.tensor(MATRIX), f"to_sparse_{layout}")()
        assert repr(w) == repr(t) and repr(w.double()).replace("webtorch.", "torch.") == repr(t.double())
        assert (w.is_sparse, w.is_sparse_csr, w.sparse_dim(), w.dense_dim(), w._nnz()) == (
            t.is_sparse, t.is_sparse_csr, t.sparse_dim(), t.dense_dim(), t._nnz())
        for name in (*SPARSE_ARRAYS["sparse_csc" if layout == "csr" else "sparse_csr"], "stride", "is_contiguous",
                     "coalesce", "indices"):
            with pytest.raises(RuntimeError) as theirs:
                getattr(t, name)()
            with pytest.raises(RuntimeError, match=str(theirs.value).replace("[", "\\[")):
                getattr(w, name)()
        buffer = io.BytesIO()
        torch.save(t, buffer)
        for device in DEVICES:
            same_layout(webtorch.load(io.BytesIO(buffer.getvalue()), map_location=device), t)
        mine = io.BytesIO()
        webtorch.save(w, mine)
        same_layout(w, torch.load(io.BytesIO(mine.getvalue())))
        same_layout(copy.deepcopy(w), t)
    hybrid = torch.arange(12.0).reshape(2, 3, 2) * torch.tensor([1.0, 0.0, 1.0]).reshape(1, 3, 1)
    same_layout(webtorch.tensor(hybrid.tolist()).to_sparse_csr(dense_dim=1), hybrid.to_sparse_csr(dense_dim=1))
    same_layout(webtorch.tensor(MATRIX).to_sparse().to_sparse_csc(), dense.to_sparse().to_sparse_csc())
    for T in (torch, webtorch):
        with pytest.raises(RuntimeError, match="expected sparse compressed tensor layout but got none"):
            T.sparse_compressed_tensor(T.tensor([0, 1]), T.tensor([0]), T.tensor([1.0]), (1, 1))
        with pytest.raises(RuntimeError, match="with keepdim=False is unsupported"):
            T.tensor(MATRIX).to_sparse_csr().sum(0)
        with pytest.raises(RuntimeError, match="dense_dim argument must be in \\[0,0\\] range"):
            T.tensor(MATRIX).to_sparse_csr(dense_dim=1)
