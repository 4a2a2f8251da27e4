"""OpInfo's sparse samples against torch 2.13 on cpu and webgpu (tests/opinfo_cases.py's sparse_rows): every op
of torch's OpInfo database that supports a sparse layout (COO, CSR) and that webtorch exports, its samples run
as call specs (tests/opinfo_run.py), torch's result computed from the same spec. Each sample must pass: a
sample torch refuses, webtorch refuses with the same exception type; a refusal naming a gap fails the row."""
import pytest

import webtorch
from opinfo_cases import sparse_rows, sparse_samples
from opinfo_run import judge

pytestmark = [pytest.mark.filterwarnings("ignore:Sparse invariant checks"),
              pytest.mark.filterwarnings("ignore:Sparse CSR tensor support")]


@pytest.mark.parametrize("name,layout,device", sparse_rows())
def test_opinfo_sparse_samples(name, layout, device):
    for spec, expected in sparse_samples(name, layout):
        status, detail = judge(webtorch, spec, device, expected)
        assert status == "pass", "%s: %s" % (status, detail)
