#!/usr/bin/env bash
# Run the whole suite: host tests (torch, wgpu) and browser tests (Pyodide in
# Chromium, page + module worker). Run scripts/setup.sh first. Extra arguments
# go to pytest. Exit code is pytest's.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${PYTHON:-python}" -m pytest tests -q "$@"
