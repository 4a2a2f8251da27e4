"""PyTorch's own op database (OpInfo) against webtorch, on "webgpu" (lavapipe) and "cpu".

tests/opinfo_cases.py turns the first samples OpInfo draws for every op webtorch exports into
plain call specs; torch runs each spec, webtorch must give the same values (OpInfo's float32
tolerances), dtype, shape and device, and the same gradients; error inputs must raise torch's
exception type. Unsupported samples must raise a clear error; a wrong value without an error, or
a crash, fails. Known failures are xfail(strict=True) with their reason (opinfo_cases.KNOWN_FAILURES).
"""
from pathlib import Path

import pytest

from opinfo_cases import (DEVICES, KNOWN_FAILURES, RANDOM_SAMPLES, TABLE_PAGE, all_keys, cases, outcome, page_table,
                          table)
from opinfo_run import run_spec

# One worker runs this file (pytest-xdist): its cells share one computation of each case (torch's
# results, lru-cached), and the conformance-table check at the end reads the results the cells made
# (it recomputed every cell, 181 s of the suite, on a worker that had not run them).
pytestmark = pytest.mark.xdist_group("opinfo")


def _params():
    for k, column in all_keys():
        for device in DEVICES:
            reason = KNOWN_FAILURES.get((k, column, device)) or KNOWN_FAILURES.get((k, column, None))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(k, column, device, id="%s-%s-%s" % (k, column, device), marks=marks)


@pytest.mark.parametrize("op_key,column,device", list(_params()))
def test_opinfo(op_key, column, device):
    status, detail = outcome(op_key, column, device)
    assert status != "fail", "%s %s on %s:\n%s" % (op_key, column, device, detail)


@pytest.mark.parametrize("op_key", sorted(RANDOM_SAMPLES))
def test_random_ops_specs_fix_their_samples(op_key):
    """A random op's spec carries its random samples: torch's expected result does not depend on the RNG's
    state (without them fractional_max_pool3d's windows were drawn by each library's own generator and the
    OpInfo cells passed or failed by luck)."""
    import torch
    for spec, _ in cases(op_key, "float32"):
        torch.manual_seed(0)
        first = run_spec(torch, spec, "cpu")
        torch.manual_seed(1)
        assert run_spec(torch, spec, "cpu") == first, spec


def test_known_failures_name_real_cases():
    keys = set(all_keys())
    stale = [k for k in KNOWN_FAILURES if (k[0], k[1]) not in keys]
    assert not stale, "KNOWN_FAILURES rows for cases that no longer exist: %s" % stale


def test_docs_conformance_table_is_current():
    """docs/compatibility.md's table is what the cases give now (regenerate: python scripts/conformance.py --write)."""
    current = page_table(Path(TABLE_PAGE).read_text(encoding="utf-8"))
    assert current is not None, "docs/compatibility.md lacks the conformance table markers"
    assert current == table(), ("docs/compatibility.md's conformance table is stale: run "
                                "`python scripts/conformance.py --write`")
