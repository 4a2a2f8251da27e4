"""pytest plugin of scripts/gpu_chrome_run.sh (-p gpu_chrome_deadline): once GPU_CHROME_DEADLINE (epoch seconds)
has passed, start no further test, so that a run on the GPU machine ends with its report and junit XML before
the device call's time is up (the tests left are reported as not run)."""
import os
import time


def pytest_runtest_teardown(item):
    if time.time() > float(os.environ["GPU_CHROME_DEADLINE"]):
        item.session.shouldstop = "GPU_CHROME_DEADLINE passed: the tests left did not run"
