"""Sparse tensors (COO, CSR, CSC): one table of ops on a sparse 4x4 matrix, run with torch or webtorch
into plain results (tests/compare.py's forms): the op's result, the gradients to the values the matrix was built
from and to a dense operand, and the gradient to the matrix as a leaf (compressed or dense, as torch's).

Standard library only: tests/test_sparse.py compares webtorch's results with torch's on the host,
tests/browser/test_sparse_browser.py with torch's golden values (tests/browser/golden.py) inside Pyodide.
"""
from compare import assert_close, is_tensor, to_plain

MATRIX = [[0.0, 2.0, 0.0, -1.5], [3.0, 0.0, 4.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0, 6.0]]
DENSE = [[-1 + 2 * (4 * i + j) / 15 for j in range(4)] for i in range(4)]  # the dense operand: -1 to 1 in 16 steps

OPS = {
    "to_dense": lambda T, x, d: x.to_dense(), "values": lambda T, x, d: x.values() * 1,
    "to_sparse": lambda T, x, d: x.to_sparse(), "to_csr": lambda T, x, d: x.to_sparse_csr(),
    "to_csc": lambda T, x, d: x.to_sparse_csc(), "layout-kwarg": lambda T, x, d: x.to_sparse(layout=T.sparse_csc),
    "t": lambda T, x, d: x.t(), "double": lambda T, x, d: x.double(), "clone": lambda T, x, d: x.clone(),
    "mm": lambda T, x, d: T.mm(x, d), "sparse.mm": lambda T, x, d: T.sparse.mm(x, d), "matmul": lambda T, x, d: x @ d,
    "addmm": lambda T, x, d: T.addmm(d, x, d, beta=0.5, alpha=2.0), "mv": lambda T, x, d: x @ d[:, 0],
    "dense@": lambda T, x, d: d @ x, "sparse@sparse": lambda T, x, d: (x @ x.detach()).to_dense(),
    "mul-number": lambda T, x, d: x * 2.5, "rmul": lambda T, x, d: 3 * x, "neg": lambda T, x, d: -x,
    "sin": lambda T, x, d: x.sin(), "abs": lambda T, x, d: T.abs(x), "relu": lambda T, x, d: T.nn.functional.relu(x),
    "sparse@sparse-layout": lambda T, x, d: (x @ x.detach()).layout is T.sparse_csr,
    "isnan": lambda T, x, d: x.isnan(), "sparse*sparse": lambda T, x, d: x * x.detach(),
    "sparse*dense": lambda T, x, d: x * d, "dense*sparse": lambda T, x, d: d * x,
    "sparse+sparse": lambda T, x, d: x + x.detach(), "sparse+dense": lambda T, x, d: x + d,
    "dense+sparse": lambda T, x, d: d + x, "sum": lambda T, x, d: x.sum(),
    "sum-rows": lambda T, x, d: x.sum(0, keepdim=True), "sum-cols": lambda T, x, d: T.sum(x, 1, keepdim=True),
    "fields": lambda T, x, d: (x.is_sparse, x.is_sparse_csr, x.sparse_dim(), x.dense_dim(), x._nnz(),
                               x.layout is T.sparse_coo, x.shape),
    "is_coalesced": lambda T, x, d: (x.is_coalesced(), x.coalesce().is_coalesced()),
    "spmm": lambda T, x, d: T.spmm(x, d),
    "indices": lambda T, x, d: (x._indices(), x.coalesce().indices(), x._values() * 1),
}
# torch's gradient to the dense operand of sparse * dense is sparse (over the sparse operand's entries), webtorch's
# dense (docs/sparse.md): compared as dense
DENSE_OPERAND_GRADIENT = {"sparse*dense", "dense*sparse"}
# (op, layout, device): every op in each layout on cpu; on webgpu the products, conversions and a reduction
CASES = [(name, layout, "cpu") for name in OPS for layout in ("coo", "csr", "csc")] + \
    [(name, "csr", "webgpu") for name in ("to_dense", "to_csc", "mm", "sparse.mm", "sparse@sparse", "sparse*dense",
                                          "sum-rows")] + [("to_csr", "csc", "webgpu"), ("addmm", "csc", "webgpu")] + \
    [(name, "coo", "webgpu") for name in ("sparse.mm", "spmm", "dense@", "sum-rows", "to_csr")]


def arrays(layout):
    """MATRIX's arrays in layout: "csr" (by rows) or "csc" (by columns): compressed indices, plain indices, values;
    "coo": row indices, column indices, values, uncoalesced (its (0, 1) entry split in two, the second part last)."""
    if layout == "coo":
        entries = [(i, j, v) for i, line in enumerate(MATRIX) for j, v in enumerate(line) if v]
        rows, cols, values = (list(part) for part in zip(*entries))
        values[0] = 0.5  # + 1.5 = MATRIX[0][1]
        return rows + [0], cols + [1], values + [1.5]
    lines = MATRIX if layout == "csr" else [list(column) for column in zip(*MATRIX)]
    pointers, indices, values = [0], [], []
    for line in lines:
        for j, v in enumerate(line):
            if v:
                indices.append(j)
                values.append(v)
        pointers.append(len(indices))
    return pointers, indices, values


def matrix(T, layout, device, requires_grad):
    """MATRIX in layout, built from its arrays with module T, and the values it was built from."""
    first, second, values = arrays(layout)
    v = T.tensor(values, device=device).requires_grad_(requires_grad)
    if layout == "coo":
        return T.sparse_coo_tensor(T.tensor([first, second], device=device), v, (4, 4)), v
    build = getattr(T, f"sparse_{layout}_tensor")
    return build(T.tensor(first, device=device), T.tensor(second, device=device), v, (4, 4)), v


def saved(T):
    """The tensors whose saved files cross between torch and webtorch: MATRIX in each sparse layout, and complex64."""
    out = {layout: matrix(T, layout, "cpu", False)[0] for layout in ("coo", "csr", "csc")}
    out["complex"] = T.complex(T.tensor(MATRIX[0]), T.tensor(MATRIX[1]))
    return out


def reloaded(T, data):
    """The tensor module T loads from the bytes data, and the bytes T saves it as."""
    import io
    x = T.load(io.BytesIO(data))
    out = io.BytesIO()
    T.save(x, out)
    return x, out.getvalue()


def _weights(n):
    return [0.5 + 1.5 * i / max(n - 1, 1) for i in range(n)]  # 0.5 to 2 in n steps


def run(T, name, layout, device):
    """Module T's plain results of one case: {"forward", "grads" (values, dense operand), "leaf"} (the last two
    where T differentiates the op), or {"error": the exception's type} where T refuses the op."""
    x, v = matrix(T, layout, device, True)
    d = T.tensor(DENSE, device=device).requires_grad_()
    try:
        out = OPS[name](T, x, d)
    except RuntimeError as e:  # torch has no such op for this layout
        return {"error": type(e).__name__}
    result = {"forward": to_plain(out)}
    if not is_tensor(out) or not out.dtype.is_floating_point:
        return result
    weights = T.tensor(_weights(out.numel()), device=device).reshape(tuple(out.shape))
    try:
        (out.to_dense() * weights).sum().backward()
    except (RuntimeError, NotImplementedError):  # no backward for it
        return result
    result["grads"] = to_plain([v.grad, d.grad.to_dense() if name in DENSE_OPERAND_GRADIENT and d.grad is not None
                                else d.grad])
    if name.startswith("sparse@sparse"):  # torch's leaf gradient is the unmasked one there (docs/sparse.md)
        return result
    leaf = x.detach().requires_grad_()
    try:
        OPS[name](T, leaf, d.detach()).to_dense().sum().backward()
    except (RuntimeError, NotImplementedError):
        return result
    result["leaf"] = to_plain(leaf.grad)
    return result


def check(actual, expected, case):
    """Raise AssertionError where webtorch's plain results differ from torch's: every result torch has, equal
    within 1e-5; where torch raises RuntimeError, webtorch raises it too (or NotImplementedError, one)."""
    if "error" in expected:
        assert actual.get("error") in (expected["error"], "NotImplementedError"), \
            "%s: torch raises %s, webtorch gives %r" % (case, expected["error"], actual)
        return
    assert "error" not in actual, "%s: webtorch raises %s" % (case, actual["error"])
    for part in expected:
        assert part in actual, "%s: no %s" % (case, part)
        assert_close(actual[part], expected[part], 1e-5, 1e-5, case, "." + part)
