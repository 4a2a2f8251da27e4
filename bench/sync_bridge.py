"""Synchronous readback without JSPI: the SharedArrayBuffer bridge's `.item()` beside JSPI's, in
Pyodide module workers of headless Chromium (not a test; docs/no_jspi.md).

  python bench/sync_bridge.py [--n 200] [--rounds 4]

Two workers of one browser: one with JSPI (Python suspends on the readback's promise), one with JSPI
hidden as in Safari (tests/browser/conftest.py HIDE_JSPI), cross-origin isolated, so webtorch uses the
bridge (a GPU worker owns the device; Python blocks in Atomics.wait). Each times single calls, in
rounds that alternate between the two (the host's load drifts), and reports the median of all:
  item         s.item() of a computed scalar: the readback's round trip alone
  sum().item() x.sum().item(): one kernel, sent in the readback's submission
  tolist 64K   x.tolist() of 16384 float32s (64 KB)
"""
import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SETUP = """
import time, webtorch as torch
from webtorch.backend.driver_browser import prestart
if torch.webgpu.sync_mode() == "bridge":
    await prestart().started
else:
    await torch.webgpu.init_async()
x = torch.rand(16384, device="webgpu")
s = x.sum()
CASES = {"item": lambda: s.item(), "sum().item()": lambda: x.sum().item(), "tolist 64K": lambda: x.tolist()}
for f in CASES.values():
    f(); f()  # compiled, staging buffers made
torch.webgpu.sync_mode()
"""

TIME = """
out = {}
for name, f in CASES.items():
    times = []
    for _ in range(N):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    out[name] = times
json.dumps(out)
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=200, help="calls timed per case (default 200)")
    parser.add_argument("--rounds", type=int, default=4, help="alternations between the two workers")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO / "bench"))
    from readback import served_chromium
    times = {}
    with served_chromium() as (browser, url):
        from conftest import _open_session  # (tests/browser/: on sys.path once served_chromium started)
        sessions = {}
        for jspi in (True, False):
            session = _open_session(browser, url, "worker", jspi=jspi)
            session.run("import webtorch")  # (the bridge's GPU worker starts at import)
            mode = session.run(SETUP, timeout=600)
            assert mode == ("jspi" if jspi else "bridge"), mode
            sessions[mode] = session
        per = max(1, args.n // args.rounds)
        for _ in range(args.rounds):
            for mode, session in sessions.items():
                got = json.loads(session.run(f"import json\nN = {per}\n" + TIME, timeout=600))
                for case, t in got.items():
                    times.setdefault(case, {}).setdefault(mode, []).extend(t)
        version = browser.version
    print(f"Chromium {version}, Pyodide module workers (SwiftShader); median of {per * args.rounds} calls, "
          f"in {args.rounds} alternating rounds\n")
    print("| call | JSPI (us) | bridge (us) | bridge / JSPI |\n|---|---|---|---|")
    for case, by_mode in times.items():
        med = {m: sorted(t)[len(t) // 2] * 1e6 for m, t in by_mode.items()}
        print(f"| `{case}` | {med['jspi']:.0f} | {med['bridge']:.0f} | {med['bridge'] / med['jspi']:.2f} |")


if __name__ == "__main__":
    main()
