#!/usr/bin/env bash
# Build the webtorch wheel into dist/ (py3-none-any; installable by micropip).
# --no-isolation: use the installed hatchling instead of downloading one into a
# fresh build env (tests must not touch the network).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -f README.md ]]; then
  echo "build_wheel.sh: README.md is missing but pyproject.toml names it as the readme; hatchling will refuse to build" >&2
  exit 1
fi
mkdir -p dist
rm -f dist/webtorch-*.whl
python -m build --wheel --no-isolation --outdir dist . >&2
ls dist/webtorch-*.whl
