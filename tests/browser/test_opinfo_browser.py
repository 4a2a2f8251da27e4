"""OpInfo samples (tests/opinfo_cases.py) inside Pyodide, against golden values host torch produced.

The host serialises, for every op and column (float32, int64, bool, gradients) without a known
failure, its first OpInfo sample (and the strided copy of the first float32 one): the call spec and
torch's result. In Pyodide (page; "webgpu" on SwiftShader and the pure-Python "cpu") each sample must
pass (the values agree) or be refused with a clear error, as on the host; a wrong value or a crash
fails.
"""
import json
import sys
from pathlib import Path

import pytest

import golden

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DIR = "/tmp/webtorch_tests"

RUN = """
import json, sys
sys.path.insert(0, {dir!r})
import webtorch
from opinfo_run import judge
device = {device!r}
mismatches = {{}}
for entry in json.load(open({dir!r} + "/opinfo_golden.json")):
    status, detail = judge(webtorch, entry["spec"], device, entry["expected"])
    if status not in ("pass", "unsupported"):
        mismatches[entry["id"]] = "%s: %s" % (status, detail)
json.dumps(mismatches)
"""


@pytest.fixture(scope="session")
def opinfo_golden():
    return golden.get(golden.opinfo)


_results = {}


@pytest.mark.parametrize("device", ["webgpu", "cpu"])
def test_opinfo_samples_in_browser(py_page, device, opinfo_golden):
    if device not in _results:
        for module in ("compare.py", "opinfo_run.py"):
            py_page.put_test_module(module)
        py_page.put_file(DIR + "/opinfo_golden.json", opinfo_golden)
        _results[device] = json.loads(py_page.run(RUN.format(dir=DIR, device=device), timeout=900))
    mismatches = _results[device]
    assert not mismatches, "%d OpInfo samples fail on %s in Pyodide:\n%s" % (
        len(mismatches), device, "\n".join("%s: %s" % kv for kv in sorted(mismatches.items())[:40]))
