"""The op table (tests/op_cases.py) inside Pyodide, against values torch produced on the host.

Each (context, device) runs the whole table in one call; failures come back by case name and
each case is its own pytest test. In Pyodide there is no numpy, so "cpu" exercises webtorch's
pure-Python cpu backend. "webgpu" runs on the page and in the module worker (their drivers read back
differently); "cpu" on the page only: the pure-Python backend calls nothing of the JS context, so a second
run in the worker repeated the same work (about 100 s of CI's browser worker). The worker runs every
third case: its kernels are the page's, what differs there is the driver's readback, which every case
exercises (the whole table there took another 250 s of the browser worker).
"""
import json
import sys
from pathlib import Path

import pytest

import golden

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from op_cases import CASES, ERROR_CASES  # noqa: E402

RUN_TABLE = """
import json, sys
sys.path.insert(0, {dir!r})
import webtorch
from run_table import table_failures
json.dumps(table_failures(webtorch, {dir!r} + "/expected.json", {device!r}, {every}))
"""


@pytest.fixture(scope="session")
def expected_json():
    return golden.get(golden.op_table)


_results = {}


def _table_failures(py, device, expected_json):
    key = (py.mode, device)
    if key not in _results:
        py.put_test_module("op_cases.py")
        py.put_test_module("nn_cases.py")
        py.put_test_module("more_op_cases.py")
        py.put_test_module("api_cases.py")
        py.put_test_module("complex_cases.py")
        py.put_test_module("compare.py")
        py.put_test_module("run_table.py")
        py.put_file("/tmp/webtorch_tests/expected.json", expected_json)
        every = WORKER_EVERY if py.mode == "worker" else 1
        _results[key] = json.loads(py.run(RUN_TABLE.format(dir="/tmp/webtorch_tests", device=device, every=every),
                                          timeout=900))
    return _results[key]


WORKER_EVERY = 3
NAMES = [c.name for c in CASES + ERROR_CASES]
RUNS = [("page", "webgpu", n) for n in NAMES] + [("worker", "webgpu", n) for n in NAMES[::WORKER_EVERY]] + \
    [("page", "cpu", n) for n in NAMES]


@pytest.mark.parametrize("context,device,name", RUNS, ids=[f"{c}-{d}-{n}" for c, d, n in RUNS])
def test_op_in_browser(request, context, device, name, expected_json):
    py = request.getfixturevalue(f"py_{context}")
    failure = _table_failures(py, device, expected_json).get(name)
    assert failure is None, f"{name}[{py.mode}/{device}]:\n{failure}"
