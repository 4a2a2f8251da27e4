"""Sparse tensors in Pyodide: COO tensors (in the module worker) built, coalesced and multiplied on "webgpu"
(spmm.wgsl on SwiftShader) with gradients to the values and the dense operand, and to_dense, sparse.sum
and repr on the plain-Python "cpu" device, against torch 2.13 on the host; OpInfo's sparse samples and the
COO/CSR/CSC table (page) against golden values host torch computed, and saved files both ways with torch."""
import base64
import io
import json

import pytest
import torch

import golden
import sparse_cases
from compare import assert_close, to_plain
from opinfo_cases import sparse_rows

pytestmark = [pytest.mark.webgpu, pytest.mark.filterwarnings("ignore:Sparse invariant checks")]

INDICES = [[1, 0, 1, 2, 3], [2, 1, 2, 0, 3]]
VALUES = [1.5, -2.0, 3.0, 0.25, 4.0]


def test_sparse_in_the_browser(py_worker):
    """In the module worker (the page runs the tables below)."""
    py = py_worker
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


# -- the sparse tables: OpInfo's sparse samples and the COO/CSR/CSC cases, against golden values ---------------------
DIR = "/tmp/webtorch_tests"
TABLES = """
import base64, json
import webtorch
import sparse_cases
from compare import assert_close, to_plain
from opinfo_run import judge
golden = json.load(open({dir!r} + "/sparse_golden.json"))
failures = {{}}
for row in golden["opinfo"]:
    for spec, expected in row["cases"]:
        status, detail = judge(webtorch, spec, row["device"], expected)
        if status != "pass":
            failures[row["id"]] = "%s: %s" % (status, detail)
for case in golden["table"]:
    try:
        sparse_cases.check(sparse_cases.run(webtorch, *case["case"]), case["expected"], case["id"])
    except Exception as e:
        failures[case["id"]] = "%s: %s" % (type(e).__name__, str(e)[:600])
saved = {{}}
for name, entry in golden["saved"].items():
    try:
        x, data = sparse_cases.reloaded(webtorch, base64.b64decode(entry["bytes"]))
        assert_close(to_plain(x), entry["expected"], 0, 0, "saved/" + name)
        saved[name] = base64.b64encode(data).decode()
    except Exception as e:
        failures["saved/" + name] = "%s: %s" % (type(e).__name__, str(e)[:600])
json.dumps({{"ran": [r["id"] for r in golden["opinfo"] + golden["table"]], "failures": failures, "saved": saved}})
"""
ROWS = ["/".join(("opinfo",) + row) for row in sparse_rows()] + \
    ["/".join(("table",) + case) for case in sparse_cases.CASES]


@pytest.fixture(scope="module")
def sparse_tables(py_page):
    """Every row of both tables run in one evaluation on the page: {"ran": ids, "failures": {id: why}}."""
    for module in ("compare.py", "opinfo_run.py", "sparse_cases.py"):
        py_page.put_test_module(module)
    py_page.put_file(DIR + "/sparse_golden.json", golden.get(golden.sparse))
    return json.loads(py_page.run(TABLES.format(dir=DIR), timeout=600))


@pytest.mark.parametrize("name", ["coo", "csr", "csc", "complex"])
def test_saved_files_load_both_ways_in_browser(sparse_tables, name):
    """A file torch saved of a sparse (COO, CSR, CSC) or complex64 tensor loads in Pyodide as the same tensor, and
    the file webtorch saves of it there loads in torch as that tensor again."""
    assert "saved/" + name not in sparse_tables["failures"], sparse_tables["failures"]["saved/" + name]
    x = torch.load(io.BytesIO(base64.b64decode(sparse_tables["saved"][name])))
    assert_close(to_plain(x), to_plain(sparse_cases.saved(torch)[name]), 0, 0, name)


@pytest.mark.parametrize("row", ROWS)
def test_sparse_tables_in_browser(sparse_tables, row):
    """OpInfo's sparse samples of each (op, layout, device) row (tests/opinfo_cases.py) and each sparse table case
    (tests/sparse_cases.py) in Pyodide on the page ("webgpu" on SwiftShader, the plain-Python "cpu"), against the
    values torch computed on the host."""
    assert row in sparse_tables["ran"], "no golden values for " + row
    failure = sparse_tables["failures"].get(row)
    assert failure is None, failure
