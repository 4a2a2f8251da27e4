"""Sparse COO tensors in Pyodide (page and worker): built, coalesced and multiplied on "webgpu"
(spmm.wgsl on SwiftShader) with gradients to the values and the dense operand, and to_dense, sparse.sum
and repr on the plain-Python "cpu" device, against torch 2.13 on the host."""
import pytest
import torch

pytestmark = [pytest.mark.webgpu, pytest.mark.filterwarnings("ignore:Sparse invariant checks")]

INDICES = [[1, 0, 1, 2, 3], [2, 1, 2, 0, 3]]
VALUES = [1.5, -2.0, 3.0, 0.25, 4.0]


def test_sparse_in_the_browser(py):
    dense = torch.linspace(-1, 1, 20).reshape(4, 5)
    r = py.run(
        "import webtorch as torch\n"
        f"v = torch.tensor({VALUES}, device='webgpu', requires_grad=True)\n"
        f"d = torch.tensor({dense.tolist()}, device='webgpu', requires_grad=True)\n"
        f"s = torch.sparse_coo_tensor(torch.tensor({INDICES}, device='webgpu'), v, (4, 4))\n"
        "out = torch.sparse.mm(s, d)\n"
        "(out * out).sum().backward()\n"
        f"c = torch.sparse_coo_tensor(torch.tensor({INDICES}), torch.tensor({VALUES}), (4, 4))\n"
        "{'out': out.tolist(), 'v': v.grad.tolist(), 'd': d.grad.tolist(), 'layout': repr(s.layout),\n"
        " 'coalesced': s.coalesce().indices().tolist(), 'values': s.coalesce().values().tolist(),\n"
        " 'dense': c.to_dense().tolist(), 'sum': torch.sparse.sum(c, 0).to_dense().tolist(), 'repr': repr(c),\n"
        " 'mm_cpu': (c @ torch.ones(4, 2)).tolist()}")
    v = torch.tensor(VALUES, requires_grad=True)
    d = dense.clone().requires_grad_()
    s = torch.sparse_coo_tensor(torch.tensor(INDICES), v, (4, 4))
    out = torch.sparse.mm(s, d)
    (out * out).sum().backward()
    for name, expected in (("out", out), ("v", v.grad), ("d", d.grad)):
        torch.testing.assert_close(torch.tensor(r[name]), expected.detach(), rtol=1e-5, atol=1e-5)
    assert r["layout"] == "torch.sparse_coo"
    assert r["coalesced"] == s.coalesce().indices().tolist() and r["values"] == s.coalesce().values().tolist()
    plain = s.detach()
    assert r["dense"] == plain.to_dense().tolist() and r["repr"] == repr(plain)
    assert r["sum"] == torch.sparse.sum(plain, 0).to_dense().tolist()
    assert r["mm_cpu"] == (plain @ torch.ones(4, 2)).tolist()
