"""Shared pytest setup for tests/: make tests/op_cases.py and tests/compare.py
importable as top-level modules (they are also loaded that way in Pyodide), and keep the browser
tests on one pytest-xdist worker, in order (one Chromium, one server, one wheel build: module-scoped pages
carry state from test to test)."""

import os
import sys

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the group marks to schedule
def pytest_collection_modifyitems(items):
    browser = pytest.mark.xdist_group("browser")
    for item in items:
        if os.sep + "browser" + os.sep in str(item.path):
            item.add_marker(browser)
