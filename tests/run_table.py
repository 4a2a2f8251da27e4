"""The op table against the values torch produced on the host (tests/compare.py writes them), where
no torch is at hand: in Pyodide (tests/browser/test_ops_browser.py) and on Node + Dawn, a real GPU
(tests/gpu/op_table_dawn.mjs)."""
import builtins
import json
import traceback

from compare import _dec_float, assert_close, either, to_plain
from op_cases import CASES, ERROR_CASES, expected_refusal, inputs_digest, run_case


def table_failures(webtorch, golden_path, device, every=1):
    """{case name: the end of its traceback} for every case (every `every`-th) of the table that fails on device."""
    with open(golden_path) as f:
        golden = json.load(f)
    failures = {}
    for c in (CASES + ERROR_CASES)[::every]:
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
            actual = to_plain(run_case(webtorch, c, device))
            expected = either(actual, golden["cases"][c.name], golden.get("alternatives", {}).get(c.name), c.atol, c.rtol)
            assert_close(actual, expected, c.atol, c.rtol, c.name)
        except Exception as e:
            failures[c.name] = "".join(traceback.format_exception(e)[-3:])
    return failures
