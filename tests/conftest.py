"""Shared pytest setup for tests/: make tests/op_cases.py and tests/compare.py
importable as top-level modules (they are also loaded that way in Pyodide), and keep the browser
tests on one pytest-xdist worker (one Chromium and one Pyodide page + worker for all of them)."""

import os
import sys

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


def pytest_collection_modifyitems(items):
    browser = pytest.mark.xdist_group("browser")
    for item in items:
        if os.sep + "browser" + os.sep in str(item.path):
            item.add_marker(browser)
