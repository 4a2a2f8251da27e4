"""The differential fuzzer (tests/fuzz.py) for a fixed budget: seeds 1.. (a fixed list), webtorch on
"webgpu" and "cpu" against torch. A finding that is not a known bug (fuzz.KNOWN) fails, with its
minimised repro. Longer runs: `python tests/fuzz.py --seed 1000 --minutes 30`."""
import time

import fuzz

SEEDS = range(1, 81)
BUDGET_S = 60  # a slower machine runs fewer of the seeds, never longer


def test_fuzz_fixed_seeds():
    ran, findings = fuzz.fuzz(SEEDS, deadline=time.time() + BUDGET_S, verbose=False)
    assert ran >= 10, "only %d programs ran in %d s" % (ran, BUDGET_S)
    new = [f for f in findings if not f["known"]]
    assert not new, "%d new fuzz findings (of %d programs):\n\n%s" % (len(new), ran, "\n\n".join(
        "seed %(seed)d [%(device)s] %(kind)s at `%(statement)s`\n  %(message)s\n%(repro)s" % f for f in new))


def test_known_patterns_match_their_kind():
    finding = {"kind": "WRONG-VALUE", "device": "webgpu", "statement": "v0 = x0 % x1",
               "message": "value: 1 of 3 values differ (...); first at index (0,): actual 0.0, expected 'nan'"}
    assert fuzz.known_reason(finding)
    assert fuzz.known_reason(dict(finding, kind="CRASH")) is None
    assert fuzz.known_reason(dict(finding, message="value: 1 of 3 values differ; actual 0.0, expected 1.5")) is None
    assert fuzz.known_reason(dict(finding, statement="v0 = torch.exp(x0)")) is None
    summed = dict(finding, statement="v0 = torch.sum(x0, 1)", program="x0 = torch.tensor([3e+38, 1.0])")
    assert fuzz.known_reason(summed)
    assert fuzz.known_reason(dict(summed, program="x0 = torch.tensor([2.5, 1.0])")) is None
    assert fuzz.known_reason(dict(finding, kind="AMPLIFIED"))
