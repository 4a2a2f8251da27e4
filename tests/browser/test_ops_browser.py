"""The op table (tests/op_cases.py) inside Pyodide, against values torch produced on the host.

Each (context, device) runs the whole table in one call; failures come back by case name and
each case is its own pytest test. In Pyodide there is no numpy, so "cpu" exercises webtorch's
pure-Python cpu backend.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from op_cases import CASES, ERROR_CASES  # noqa: E402

TESTS = Path(__file__).resolve().parents[1]

RUN_TABLE = """
import builtins, json, sys, traceback
sys.path.insert(0, {dir!r})
import webtorch
from op_cases import CASES, ERROR_CASES, expected_refusal, inputs_digest, run_case
from compare import _dec_float, assert_close, to_plain
golden = json.load(open({dir!r} + "/expected.json"))
device = {device!r}
failures = {{}}
for c in CASES + ERROR_CASES:
    try:
        c._values = [[_dec_float(v) if isinstance(v, str) else v for v in vals] for vals in golden["inputs"][c.name]]
        assert inputs_digest(c) == golden["inputs_crc32"][c.name], "inputs changed in transit"
        if c.name in golden["errors"]:
            try:
                run_case(webtorch, c, device)
            except getattr(builtins, golden["errors"][c.name]):
                continue
            raise AssertionError("did not raise " + golden["errors"][c.name])
        refusal = expected_refusal(webtorch, c, device)
        if refusal:
            try:
                run_case(webtorch, c, device)
            except refusal[0] as e:
                assert refusal[1] in str(e), str(e)
                continue
            raise AssertionError("did not raise " + refusal[0].__name__ + " (" + refusal[1] + ")")
        assert_close(to_plain(run_case(webtorch, c, device)), golden["cases"][c.name], c.atol, c.rtol, c.name)
    except Exception as e:
        failures[c.name] = "".join(traceback.format_exception(e)[-3:])
json.dumps(failures)
"""


@pytest.fixture(scope="session")
def expected_json(tmp_path_factory):
    out = tmp_path_factory.mktemp("golden") / "expected.json"
    subprocess.run([sys.executable, str(TESTS / "compare.py"), str(out)], check=True, capture_output=True)
    return out.read_text()


_results = {}


def _table_failures(py, device, expected_json):
    key = (py.mode, device)
    if key not in _results:
        py.put_test_module("op_cases.py")
        py.put_test_module("nn_cases.py")
        py.put_test_module("compare.py")
        py.put_file("/tmp/webtorch_tests/expected.json", expected_json)
        _results[key] = json.loads(py.run(RUN_TABLE.format(dir="/tmp/webtorch_tests", device=device), timeout=900))
    return _results[key]


@pytest.mark.parametrize("device", ["webgpu", "cpu"])
@pytest.mark.parametrize("name", [c.name for c in CASES + ERROR_CASES])
def test_op_in_browser(py, device, name, expected_json):
    failure = _table_failures(py, device, expected_json).get(name)
    assert failure is None, f"{name}[{py.mode}/{device}]:\n{failure}"
