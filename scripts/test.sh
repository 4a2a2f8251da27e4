#!/usr/bin/env bash
# Run the whole suite: host tests (torch, wgpu) and browser tests (Pyodide in
# Chromium, page + module worker). Run scripts/setup.sh first. Extra arguments
# go to pytest. Exit code is pytest's. Workers: one per core (pytest-xdist; WEBTORCH_TEST_WORKERS=0
# runs in one process); the browser tests stay together on one worker (tests/conftest.py), since each
# worker would otherwise start its own Chromium and Pyodide.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${PYTHON:-python}" -m pytest tests -q -n "${WEBTORCH_TEST_WORKERS:-auto}" --dist loadgroup --durations=40 "$@"
