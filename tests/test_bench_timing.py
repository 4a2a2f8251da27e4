"""The benchmark's timing rule (bench/timing.mjs, and bench/workloads.py's _timed that mirrors it for
webtorch): warm-up call, GPU heat, warm_ms of warm-up calls, timed rounds, the median round with the
fastest and slowest. Checked with fake clocks and frameworks: the same rounds give the same figures in
both, and the heat and warm-up come before the first timed round."""
import importlib.util
import json
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
ROUNDS = [[3.0], [5.0, 1.0], [4.0, 1.0, 9.0], [2.0, 8.0, 6.0, 4.0], [1.0, 1.0, 7.0, 1.0, 2.0]]

# A fake framework on a fake clock: each call of run(reps) advances it by the next round's ms times reps
# (warm-up calls by 100 ms each), and every step is logged.
NODE_SCRIPT = """
const {summary, timeRounds} = await import(process.argv[1]);
const cases = JSON.parse(process.argv[2]);
let clock = 0;
globalThis.performance = {now: () => clock};
const out = [];
for (const rounds of cases) {
  const log = [];
  let next = 0, timed = false;
  const cfg = {rounds: rounds.length, warm_ms: 250, heat: async () => { log.push("heat"); timed = true; }};
  const run = async (reps) => {
    if (timed && log.filter((e) => e === "warm").length >= 3) { log.push("round"); clock += rounds[next++] * reps; }
    else { log.push(timed ? "warm" : "first"); clock += 100; }
  };
  out.push({summary: summary(rounds), timed: await timeRounds(cfg, run, 4), log});
}
console.log(JSON.stringify(out));
"""


def _expected(rounds):
    s = sorted(rounds)
    n = len(s)
    return {"ms": (s[(n - 1) // 2] + s[n // 2]) / 2, "ms_min": s[0], "ms_max": s[-1]}


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_timing_mjs():
    r = subprocess.run(["node", "--input-type=module", "-e", NODE_SCRIPT, str(BENCH / "timing.mjs"),
                        json.dumps(ROUNDS)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    for rounds, got in zip(ROUNDS, json.loads(r.stdout)):
        assert got["summary"] == got["timed"] == _expected(rounds)
        # first call, heat, 250 ms of 100-ms warm-up calls (3), then the rounds
        assert got["log"] == ["first", "heat", "warm", "warm", "warm"] + ["round"] * len(rounds)


def test_workloads_timed(monkeypatch):
    """workloads.py's _timed on the same rounds: the same figures, in ms, after the same steps."""
    spec = importlib.util.spec_from_file_location("bench_workloads_under_test", BENCH / "workloads.py")
    workloads = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(workloads)
    heats = []
    monkeypatch.setitem(sys.modules, "bench_inputs", types.SimpleNamespace(heat=lambda: heats.append(1)))
    ffi = types.SimpleNamespace(run_sync=lambda awaitable: None)
    monkeypatch.setitem(sys.modules, "pyodide", types.SimpleNamespace(ffi=ffi))
    monkeypatch.setitem(sys.modules, "pyodide.ffi", ffi)
    for rounds in ROUNDS:
        clock = [0.0]
        log = []
        steps = iter(rounds)

        def fn():
            if heats and log.count("warm") >= 3:
                log.append("round")
                clock[0] += next(steps) / 1e3
            else:
                log.append("warm" if heats else "first")
                clock[0] += 0.1
        heats.clear()
        monkeypatch.setattr(workloads, "now", lambda: clock[0])
        monkeypatch.setattr(workloads, "sync", lambda: None)
        monkeypatch.setattr(workloads, "_cfg", {"rounds": len(rounds), "heat_ms": 500, "warm_ms": 250})
        assert workloads._timed(fn, 1) == pytest.approx(_expected(rounds))
        assert log == ["first", "warm", "warm", "warm"] + ["round"] * len(rounds) and heats == [1]
