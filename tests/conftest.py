"""Shared pytest setup for tests/: make tests/op_cases.py and tests/compare.py
importable as top-level modules (they are also loaded that way in Pyodide), and keep the browser
tests on one pytest-xdist worker, in order (one Chromium, one server, one wheel build: module-scoped pages
carry state from test to test). torch computes on one thread in every test process (and the subprocesses
they start): the workers share CI's 2 cores with each other, Chromium and lavapipe, and torch's OpenMP team
of 2 waits for a thread that is not running (OpInfo's torch references took 2.4x the wall time and 1.7x the
CPU time on this busy host)."""

import os
import sys

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")  # read when torch is imported, here and in subprocesses
if "torch" in sys.modules:  # imported before this file (a plugin): too late for the variable
    sys.modules["torch"].set_num_threads(int(os.environ["OMP_NUM_THREADS"]))

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the group marks to schedule
def pytest_collection_modifyitems(items):
    browser = pytest.mark.xdist_group("browser")
    for item in items:
        if os.sep + "browser" + os.sep in str(item.path):
            item.add_marker(browser)
