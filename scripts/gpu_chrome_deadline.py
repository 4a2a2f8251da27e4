"""pytest plugin of scripts/gpu_chrome_run.sh (-p gpu_chrome_deadline), for a run on the GPU machine that must end
within the device call: once GPU_CHROME_DEADLINE (epoch seconds) has passed it starts no further test (the run ends
with its report and junit XML; the tests left are counted as not run), and each failure's traceback goes to the log
at once, so that a run cut short still shows why its tests failed."""
import os
import sys
import time


def pytest_runtest_teardown(item):
    if time.time() > float(os.environ["GPU_CHROME_DEADLINE"]):
        item.session.shouldstop = "GPU_CHROME_DEADLINE passed: the tests left did not run"


def pytest_runtest_logreport(report):
    if report.failed:
        sys.__stderr__.write(f"\n--- {report.nodeid} failed ({report.when}):\n{report.longreprtext[-6000:]}\n---\n")
        sys.__stderr__.flush()
