"""Shared pytest setup for tests/: make tests/op_cases.py and tests/compare.py
importable as top-level modules (they are also loaded that way in Pyodide)."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
