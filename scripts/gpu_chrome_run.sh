#!/usr/bin/env bash
# The browser tests and bench/ in real headless Chromium on the device tool's GPU machine, from the carries
# scripts/gpu_chrome_pack.sh made (three `run` calls within 30 s of each other, the machine kept warm: docs/support.md).
#   bash scripts/gpu_chrome_run.sh 1    carry .gpuchrome/p1: keeps the browser .deb's first piece in $GC
#   bash scripts/gpu_chrome_run.sh 2    carry .gpuchrome/p2: the Vulkan loader debs, the browser's shared libraries,
#                                       Pyodide, the python3.12 packages, bench's peers, the golden values
#   bash scripts/gpu_chrome_run.sh 3    carry .gpuchrome/p3: the .deb's rest, the browser's data files, playwright's
#                                       node, fonts; then the browser's check, the adapter probe, the chosen browser tests
#                                       with and without the f16 toggle (in parallel, each in its own copy of the
#                                       tree), and bench/run.py --target chromium-gpu. What comes back ($OUT: at
#                                       most 8 files): probe.json, browser-tests.md, tests.tar.gz (each run's log
#                                       and junit XML), bench.log, chromium-gpu.json, chromium-gpu-f16.json
#                                       (the bench runs with the f16 toggle), dawn.json (Node + Dawn's run)
# Env: GC (the unpacked state, kept between calls: /tmp/gpuchrome), OUT, PYTHON3 (python3: the device's 3.12),
#      LOCAL=1 (a rehearsal on a CPU machine: no debs, no NVIDIA ICD, SwiftShader's adapter, bench's small sizes),
#      TESTS_T (seconds: 230), BUDGET_T (the whole stage 3: 530), TEST_GROUPS (ops,grads,pages; none: no tests),
#      KSEL (pytest -k for every group, instead of the deselection below), BENCH_PARTS (bench runs, as below; empty:
#      none; a run ending in :f16 has the f16 toggle and writes chromium-gpu-f16, one ending in :dawn runs
#      bench/dawn.mjs instead), PROBE=0 (no adapter probe),
#      GPU_FLAGS_EXTRA (flags added to GPU_FLAGS), DIAG=1 (before the tests,
#      scripts/gpu_chrome_diag.py's matrix of small pages x flag sets, diag.json in $OUT; when the demo pages end the
#      browser under GPU_FLAGS, the tests and bench run with the first flag set under which every page lived),
#      FONTS (a font file or folder in the tree, e.g. carried, instead of p3's fonts.tar.xz).
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
G=$REPO/.gpuchrome
GC=${GC:-/tmp/gpuchrome}
OUT=${OUT:-$GC/out}
PY=${PYTHON3:-python3}
W=$GC/work3   # stage 3's logs and reports, copied to $OUT as each phase ends
mkdir -p "$GC" "$OUT"
T0=$(date +%s)
say() { echo "[gpu_chrome_run $(date +%T)] $*"; }
left() { echo $(( ${BUDGET_T:-530} - ($(date +%s) - T0) )); }  # seconds left of this call's budget
upto() { local l; l=$(left); [ "$1" -lt "$l" ] && echo "$1" || echo $(( l > 5 ? l : 5 )); }
CHROME=$GC/chrome/chromium-headless-shell
# Chromium's WebGPU on the NVIDIA GPU (../shared/gpu/README.md); the f16 variant adds the Dawn toggle stock Chrome
# lacks (shader-f16 on Linux + NVIDIA). The test fixtures add --no-sandbox --enable-unsafe-webgpu. Playwright puts
# its own --enable-features=CDPScreenshotNewSurface,SkipListAccountsWithoutGaiaCookies first and Chromium keeps the
# last value of a switch: ours names them too, or its screenshots would change.
GPU_FLAGS="--headless=new --use-angle=vulkan --enable-features=Vulkan,CDPScreenshotNewSurface,SkipListAccountsWithoutGaiaCookies
  --disable-vulkan-surface --ignore-gpu-blocklist"
F16_FLAGS="--enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia"
[ -n "${LOCAL:-}" ] && GPU_FLAGS=""   # SwiftShader: Chromium's defaults, as the suite runs here
GPU_FLAGS="$GPU_FLAGS ${GPU_FLAGS_EXTRA:-}"
# DIAG=1's flag sets, each GPU_FLAGS plus: name=extra flags, in order of preference (the least taken away first)
DIAG_SETS=("base=" "no2dcanvas=--disable-accelerated-2d-canvas" "noraster=--disable-gpu-rasterization"
  "no2dcanvas_noraster=--disable-accelerated-2d-canvas --disable-gpu-rasterization" "nographite=--disable-skia-graphite"
  "nocompositing=--disable-gpu-compositing" "swangle=--use-angle=swiftshader")

stage1() {
  cp "$G/p1/chrome.deb.1" "$GC/"
  { uname -a; head -2 /etc/os-release; command -v nvidia-smi >/dev/null &&
      nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv; "$PY" --version; } > "$OUT/device.txt" 2>&1
  cat "$OUT/device.txt"; ls -la "$GC"
}

stage2() {
  [ -s "$GC/chrome.deb.1" ] || { say "FATAL: no $GC/chrome.deb.1: call 1 did not run on this machine (given back in between?)"; exit 3; }
  if [ -z "${LOCAL:-}" ]; then
    for f in "$G"/p2/gl/*.deb; do dpkg -x "$f" / || say "dpkg -x $f failed"; done
    ldconfig
  fi
  # the browser's shared libraries, all on LD_LIBRARY_PATH as in the recipe's run that worked on the H200
  rm -rf "$GC/lib"; mkdir -p "$GC/lib"; tar -xJf "$G/p2/libs.tar.xz" -C "$GC/lib"
  local lacking="" known; known=$(ldconfig -p)
  for f in "$GC"/lib/*; do n=$(basename "$f"); grep -q -F "	$n " <<< "$known" || lacking="$lacking $n"; done
  say "shared libraries the system lacks (Debian 12's, carried):$lacking"
  mkdir -p "$GC/node_modules" "$GC/cache" "$GC/peers" "$GC/site" "$GC/golden"
  tar -xJf "$G/p2/pyodide.tar.xz" -C "$GC/node_modules"
  tar -xJf "$G/p2/cache.tar.xz" -C "$GC/cache"
  tar -xJf "$G/p2/peers.tar.xz" -C "$GC/peers"
  tar -xJf "$G/p2/site.tar.xz" -C "$GC/site"
  tar -xJf "$G/p2/golden.tar.xz" -C "$GC/golden"
  du -sh "$GC"/* | tr '\n' ' '; echo
}

unpack_browser() {  # stage 3: the .deb's two pieces, the data files next to the binary, playwright's node
  cat "$GC/chrome.deb.1" "$G/p3/chrome.deb.2" > "$GC/chrome.deb"
  rm -rf "$GC/debroot" "$GC/chrome"; dpkg -x "$GC/chrome.deb" "$GC/debroot" && mv "$GC/debroot/usr/lib/chromium" "$GC/chrome"
  tar -xJf "$G/p3/chrome_files.tar.xz" -C "$GC/chrome"
  xz -T0 -dc "$G/p3/node.xz" > "$GC/node.part" && chmod +x "$GC/node.part" && mv "$GC/node.part" "$GC/node"
  rm -rf "$GC/fonts"; mkdir -p "$GC/fonts"
  if [ -n "${FONTS:-}" ]; then cp -r "$REPO/$FONTS" "$GC/fonts/"; else tar -xJf "$G/p3/fonts.tar.xz" -C "$GC/fonts"; fi
  printf '<?xml version="1.0"?>\n<fontconfig><dir>%s</dir><cachedir>%s</cachedir></fontconfig>\n' \
    "$GC/fonts" "$GC/fontcache" > "$GC/fonts/fonts.conf"
  # a machine with no fontconfig of its own gets this one as its default too
  [ -n "${LOCAL:-}" ] || [ -e /etc/fonts/fonts.conf ] || { mkdir -p /etc/fonts && cp "$GC/fonts/fonts.conf" /etc/fonts/; }
  ls "$GC/fonts" | tr '\n' ' '; "$PY" -c 'import ctypes  # the fonts fontconfig finds, through the browser own libfontconfig
fc = ctypes.CDLL("libfontconfig.so.1"); fc.FcInitLoadConfigAndFonts.restype = fc.FcConfigGetFonts.restype = ctypes.c_void_p
fonts = fc.FcConfigGetFonts(ctypes.c_void_p(fc.FcInitLoadConfigAndFonts()), 0)
print("fontconfig finds", ctypes.c_int.from_address(fonts).value if fonts else 0, "fonts")'
  ldd "$CHROME" | grep "not found" && say "the browser still lacks the libraries above"
  "$CHROME" --version
}

env_setup() {  # the environment of every browser run; python resolves to the device's python3 (scripts/build_wheel.sh)
  mkdir -p "$GC/bin"
  printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v "$PY")" > "$GC/bin/python"; chmod +x "$GC/bin/python"
  cp "$GC/bin/python" "$GC/bin/python3"
  export PATH=$GC/bin:$PATH PYTHONPATH=$GC/site PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
  export LD_LIBRARY_PATH=$GC/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PLAYWRIGHT_NODEJS_PATH=$GC/node WEBTORCH_CHROMIUM=$CHROME WEBTORCH_GOLDEN=$GC/golden
  # the carried fonts (unpack_browser): without any, Chromium aborts at a page whose CSS names a font family
  export FONTCONFIG_FILE=$GC/fonts/fonts.conf
  if [ -z "${LOCAL:-}" ]; then
    local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  fi
}

tree_copy() {  # a copy of the working tree at $1 with the carried node_modules/pyodide, .cache and bench's peers
  rm -rf "$1"; mkdir -p "$1"
  tar -C "$REPO" -cf - --exclude=./.git --exclude=./.gpuchrome --exclude=./node_modules --exclude=./.cache --exclude=./dist \
      --exclude=./bench/peers/node_modules . | tar -C "$1" -xf -
  ln -s "$GC/node_modules" "$1/node_modules"; ln -s "$GC/cache" "$1/.cache"
  ln -s "$GC/peers/node_modules" "$1/bench/peers/node_modules"
}

# The browser tests that run without host torch: the op table, OpInfo samples, gradients and training parity
# against golden values (tests/browser/golden.py), and the suites and demo pages that need no torch.
# Left out: the pure-Python "cpu" device's halves of the tables (no GPU in them), the two tests that call torch
# on the host (split column reductions, the GPT checkpoint loaded in PyTorch).
# Three groups, each a pytest process of its own per variant (the GPU machine has 16 cores):
declare -A GROUP_TESTS
GROUP_TESTS[ops]="tests/browser/test_ops_browser.py"
GROUP_TESTS[grads]="tests/browser/test_opinfo_browser.py tests/browser/test_autograd_browser.py"
GROUP_TESTS[pages]="tests/browser/test_core.py tests/browser/test_smoke.py tests/browser/test_web_worker.py
  tests/browser/test_random_browser.py tests/browser/test_no_jspi_browser.py tests/browser/test_profiler_browser.py
  tests/browser/test_runtime_browser.py tests/browser/test_web_demo.py tests/browser/test_gpt_page.py"
DESELECT="not (in_browser and cpu) and not split_column_reductions and not checkpoint_loads_in_pytorch"

run_tests() {  # variant (gpu|f16) group (ops|grads|pages) seconds
  local variant=$1 group=$2 t=$3 dir=$GC/tree-$1-$2 files=${GROUP_TESTS[$2]}
  tree_copy "$dir"
  local flags=$GPU_FLAGS
  [ "$variant" = f16 ] && flags="$GPU_FLAGS $F16_FLAGS"
  # the deadline plugin ends the run between tests 25 s before the timeout, with its report and junit XML; a test
  # still running at the timeout gets SIGINT (pytest alone: it closes the browser, reports, writes its XML), then KILL
  # in a session of its own (setsid), whose processes left behind (the browser, playwright's driver) end with it
  local log=$W/tests-$variant-$group.log pid
  cd "$dir"
  WEBTORCH_CHROMIUM_ARGS="$flags" GPU_CHROME_DEADLINE=$(( $(date +%s) + t - 25 )) PYTHONPATH="$PYTHONPATH:$dir/scripts" \
    setsid timeout --foreground -s INT -k 20 "$t" "$PY" -m pytest $files -k "${KSEL:-$DESELECT}" -p gpu_chrome_deadline \
    -p no:cacheprovider -v --durations=15 --junitxml="$W/tests-$variant-$group.xml" > "$log" 2>&1 &
  pid=$!
  wait $pid; echo "exit $?" >> "$log"
  kill -9 -- -$pid 2>/dev/null
}

probe() {  # the adapter under both flag sets: probe.json
  say "adapter probe"
  GPU_CHROME_FLAGSETS=$("$PY" -c 'import json,sys; print(json.dumps({"gpu": sys.argv[1], "f16": sys.argv[1] + " " + sys.argv[2]}))' \
      "$GPU_FLAGS --enable-webgpu-developer-features" "$F16_FLAGS") timeout 60 "$PY" scripts/gpu_chrome_probe.py "$OUT/probe.json"
  grep -q -i '"vendor": "nvidia"' "$OUT/probe.json" 2>/dev/null || say "WARNING: the probe found no NVIDIA adapter: what follows runs on $(
      grep -o '"description": "[^"]*"' "$OUT/probe.json" 2>/dev/null | head -n 1)"
}

diagnose() {  # DIAG=1: the page x flags matrix (diag.json); GPU_FLAGS gains the first set under which every page lived
  say "diagnosis: small pages x flag sets"
  local sets=() entry
  for entry in "${DIAG_SETS[@]}"; do sets+=("${entry%%=*}=$GPU_FLAGS ${entry#*=}"); done
  timeout 170 "$PY" scripts/gpu_chrome_diag.py "$W/diag.json" "${sets[@]}"
  cp "$W/diag.json" "$OUT/" 2>/dev/null
  local chosen
  chosen=$("$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(next((n for n in sys.argv[2:] if n in d and d[n]["survived"] and d[n]["pages"] and
            all(v == "ok" for v in d[n]["pages"].values())), ""))' "$W/diag.json" "${DIAG_SETS[@]%%=*}" 2>/dev/null)
  for entry in "${DIAG_SETS[@]}"; do
    [ "${entry%%=*}" = "$chosen" ] && { GPU_FLAGS="$GPU_FLAGS ${entry#*=}"; say "every page lived under '$chosen': GPU_FLAGS=$GPU_FLAGS"; return; }
  done
  say "no flag set kept every page alive: the tests run with GPU_FLAGS as they are"
}

stage3() {
  [ -s "$GC/chrome.deb.1" ] && [ -d "$GC/site/playwright" ] || { say "FATAL: calls 1 and 2 did not run on this machine"; exit 3; }
  env_setup
  unpack_browser
  rm -rf "$W"; mkdir -p "$W"
  [ "${PROBE:-1}" = 0 ] || probe
  [ -n "${DIAG:-}" ] && diagnose
  if [ "${TEST_GROUPS:-}" = none ]; then say "TEST_GROUPS=none: no browser tests"; else
  local t; t=$(upto "${TESTS_T:-230}")
  say "browser tests, $t s at most: with and without $F16_FLAGS, groups ${TEST_GROUPS:-ops,grads,pages}, in parallel"
  local pids=""
  for variant in gpu f16; do
    for group in $(echo "${TEST_GROUPS:-ops,grads,pages}" | tr , ' '); do run_tests $variant $group "$t" & pids="$pids $!"; done
  done
  wait $pids
  grep -h -E "^(FAILED|ERROR)|passed|failed|^exit" "$W"/tests-*.log | tail -n 60
  summarise_tests
  (cd "$W" && tar -czf "$OUT/tests.tar.gz" tests-* $(ls diag-* 2>/dev/null))
  fi
  # bench/: Chrome on the GPU beside Node + Dawn (bench/results/dawn.md), heated; runs (frameworks:sections:seconds,
  # :f16 for a run with the f16 toggle, written as target chromium-gpu-f16, :dawn for one in Node + Dawn) merged into
  # one result per target, so that a run cut short loses only its own sections. Without the toggle float16 is
  # emulated: matmul_f16 and float16_speed time it against float32 (issue 26); decode times issue 27's Llama-3.2-1B
  # int4 decode (float32 activations there, float16 with the toggle and in Node + Dawn)
  local target=chromium-gpu
  local parts="webtorch,raw:matmul,chain,bandwidth,transfer,item:80 webtorch:matmul_f16,float16_speed:45 webtorch:decode:80
    webtorch:decode,float16_speed:70:f16 webtorch:decode,float16_speed,matmul_f16:80:dawn
    webtorch,tfjs,ort:models,minilm,weights,demos:130 webtorch:build:60"
  [ -n "${LOCAL:-}" ] && { target=chromium; parts="webtorch,raw:item:300"; }
  parts=${BENCH_PARTS-$parts}
  tree_copy "$GC/tree-bench"
  for part in $parts; do
    IFS=: read -r only sections seconds variant <<< "$part"
    t=$(upto "$seconds")
    say "bench $only: $sections${variant:+ ($variant)}, $t s at most"
    if [ "$variant" = dawn ]; then dawn_bench "$only" "$sections" "$t"; continue; fi
    local flags="$GPU_FLAGS --enable-webgpu-developer-features" into=$target
    [ "$variant" = f16 ] && { flags="$flags $F16_FLAGS"; [ -n "${LOCAL:-}" ] || into=$target-f16; }
    (cd "$GC/tree-bench" && WEBTORCH_CHROMIUM_ARGS="$flags" timeout -k 10 "$t" \
       "$PY" bench/run.py --target "$into" --only "$only" --sections "$sections" --write --timeout $((t - 5)) \
       >> "$OUT/bench.log" 2>&1; echo "exit $?" >> "$OUT/bench.log")
    tail -n 3 "$OUT/bench.log"
    cp "$GC/tree-bench/bench/results/$into.json" "$OUT/" 2>/dev/null  # (.md, .svg: --collect writes them)
  done
  say "done in $(( $(date +%s) - T0 )) s; \$OUT: $(ls "$OUT" | tr '\n' ' ')"
}

dawn_bench() {  # frameworks sections seconds: bench/dawn.mjs, Node + Dawn on the same GPU in the same call, beside
  # Chrome's figures: playwright's Node 26 (JSPI on by default) with p3's dawn.node (Dawn's toggles as bench/dawn.mjs
  # sets them: shader-f16, subgroup matrices), the webtorch wheel, the carried Pyodide and bench/hf_decode.py as the
  # only module (no peers); dawn.json in $OUT (python bench/run.py --target dawn --sections ... --collect)
  local b=$GC/dawnbundle
  [ -s "$G/p3/dawn.node.xz" ] || { say "no dawn.node in p3: no Node + Dawn run"; return 0; }
  [ -n "${LOCAL:-}" ] && { say "LOCAL: no Node + Dawn run (Dawn finds no adapter on a CPU machine)"; return 0; }
  xz -dc "$G/p3/dawn.node.xz" > "$GC/dawn.node"
  rm -rf "$b"; mkdir -p "$b/modules"
  ln -s "$GC/node_modules/pyodide" "$b/pyodide"
  (cd "$GC/tree-bench" && { ls dist/webtorch-*.whl >/dev/null 2>&1 || bash scripts/build_wheel.sh >/dev/null; } &&
     cp dist/webtorch-*.whl "$b/" && cp bench/hf_decode.py "$b/modules/")
  (cd "$GC/tree-bench" && DAWN_NODE=$GC/dawn.node timeout -k 10 "$3" "$GC/node" bench/dawn.mjs "$b" "$OUT/dawn.json" \
     "$1" "$2" > "$W/dawn.log" 2>&1; echo "exit $?" >> "$W/dawn.log")
  grep -v "^ " "$W/dawn.log" | tail -n 5; cat "$W/dawn.log" >> "$OUT/bench.log"
}

summarise_tests() {  # $W/browser-tests.md (and $OUT's): each run's counts and every failing test
  "$PY" - "$W" <<'PY'
import glob, os, re, sys, xml.etree.ElementTree as ET
out = sys.argv[1]
lines = ["| run | passed | failed | errors | skipped | not run (time) | seconds |", "|---|---|---|---|---|---|---|"]
failing = []
for log in sorted(glob.glob(os.path.join(out, "tests-*.log"))):
    if not os.path.exists(log[:-4] + ".xml"):  # killed before pytest wrote its report: the log has what ran
        lines.append(f"| {os.path.basename(log)[6:-4]} | no report: see the log | | | | | |")
for path in sorted(glob.glob(os.path.join(out, "tests-*.xml"))):
    s = ET.parse(path).getroot()
    s = s if s.tag == "testsuite" else s.find("testsuite")
    n, f, e, k = (int(s.get(a, 0)) for a in ("tests", "failures", "errors", "skipped"))
    run = os.path.basename(path)[6:-4]
    log = open(path[:-4] + ".log").read()
    selected = re.search(r"(\d+) selected", log) or re.search(r"collected (\d+) item", log)
    not_run = int(selected.group(1)) - n if selected else "?"
    lines.append(f"| {run} | {n - f - e - k} | {f} | {e} | {k} | {not_run} | {float(s.get('time', 0)):.0f} |")
    for c in s.iter("testcase"):
        bad = c.find("failure") if c.find("failure") is not None else c.find("error")
        if bad is not None:
            failing.append(f"- {run}: {c.get('classname')}::{c.get('name')}: {(bad.get('message') or '')[:300]}")
text = "\n".join(lines + ["", f"{len(failing)} failing:"] + failing) + "\n"
open(os.path.join(out, "browser-tests.md"), "w").write(text)
print(text[:6000])
PY
  cp "$W/browser-tests.md" "$OUT/"
}

case "${1:-}" in
  1) stage1 ;;
  2) stage2 ;;
  3) stage3 ;;
  *) echo "usage: bash scripts/gpu_chrome_run.sh 1|2|3 (docs/support.md)" >&2; exit 2 ;;
esac
