#!/usr/bin/env bash
# Packs what the browser tests and bench/ need to run in real headless Chromium on the device tool's GPU
# machine (Ubuntu 24.04, python3.12, no network, no torch), in three carries (one call carries at most 64 MiB,
# the working tree included), into the git-ignored .gpuchrome/:
#   p1/chrome.deb.1     the first 56 MB of Debian's chromium-headless-shell .deb (the version installed here;
#                       64 MB in all: already xz-compressed, so it is carried as it is, in two pieces, split so
#                       that p1 and p3 each leave a few MiB for the working tree)
#   p2/                 the shared libraries the browser links (Debian 12's), the Vulkan loader debs, Pyodide,
#                       python3.12 packages for pytest + playwright (its node apart), .cache's wheels and play,
#                       bench's peers (tfjs, onnxruntime-web), the golden values host torch computed for the
#                       chosen browser tests (tests/browser/golden.py: ~30 MB)
#   p3/                 the .deb's rest, the browser's data files from chromium-common, playwright's node (xz), fonts,
#                       dawn.node (Node + Dawn's bench beside Chrome's, from .gpu/)
# scripts/gpu_chrome_run.sh unpacks them on the device and runs the tests and the benchmark; docs/support.md
# gives the three `run` calls. Usage, from the repository root (minutes; parts already packed are kept):
#   bash scripts/gpu_chrome_pack.sh            (FRESH=1: pack everything again; GOLDEN=1: the golden values again)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
G=$REPO/.gpuchrome
CH=/usr/lib/chromium
[ -x $CH/chromium-headless-shell ] || { echo "no $CH/chromium-headless-shell (apt-get install chromium-headless-shell)" >&2; exit 2; }
[ -n "${FRESH:-}" ] && rm -rf "$G"
[ -n "${GOLDEN:-}" ] && rm -f "$G/p2/golden.tar.xz"
mkdir -p "$G/p1" "$G/p2" "$G/p3" "$G/work"
say() { echo "[gpu_chrome_pack] $*"; }
xzc() { xz -T0 -6 -c; }

# p1 + p3: the browser's .deb in two pieces
if [ ! -s "$G/p3/chrome.deb.2" ] || [ "$(stat -c %s "$G/p1/chrome.deb.1" 2>/dev/null)" != 56000000 ]; then
  version=$(dpkg-query -W -f='${Version}' chromium-headless-shell)
  deb=/var/cache/apt/archives/chromium-headless-shell_${version//:/%3a}_amd64.deb
  [ -s "$deb" ] || { (cd "$G/work" && apt-get download "chromium-headless-shell=$version"); deb=$(ls "$G"/work/chromium-headless-shell_*.deb); }
  head -c 56000000 "$deb" > "$G/p1/chrome.deb.1"
  tail -c +56000001 "$deb" > "$G/p3/chrome.deb.2"
fi
# p3: the data files the browser finds next to it (chromium-common's: ICU, V8 snapshots, SwiftShader, ANGLE)
[ -s "$G/p3/chrome_files.tar.xz" ] || tar -C $CH -cf - headless_lib_data.pak headless_lib_strings.pak \
    headless_command_resources.pak icudtl.dat v8_context_snapshot.bin snapshot_blob.bin libvulkan.so.1 \
    libvk_swiftshader.so vk_swiftshader_icd.json libEGL.so libGLESv2.so | xzc > "$G/p3/chrome_files.tar.xz"
# p3: fonts (DejaVu's, Debian's fonts-dejavu-core): the GPU machine has none, and there Chromium aborts in Skia
# (SkFontMgr_FontConfigInterface.cpp: "Not implemented.") at the first page whose CSS names a font family
[ -s "$G/p3/fonts.tar.xz" ] || tar -C /usr/share/fonts/truetype/dejavu -cf - DejaVuSans.ttf DejaVuSans-Bold.ttf \
    DejaVuSansMono.ttf DejaVuSansMono-Bold.ttf DejaVuSerif.ttf DejaVuSerif-Bold.ttf | xzc > "$G/p3/fonts.tar.xz"
# p3: Dawn's Node binding (../shared/gpu/pack.sh's), so that bench/dawn.mjs runs beside Chrome in the same call
if [ ! -s "$G/p3/dawn.node.xz" ]; then
  for d in .gpu .gpurun; do [ -s "$d/dawn.node.xz" ] && { cp "$d/dawn.node.xz" "$G/p3/"; break; }; done
  [ -s "$G/p3/dawn.node.xz" ] || say "no .gpu/dawn.node.xz (bash ../shared/gpu/pack.sh): no Node + Dawn run"
fi
# p2: the shared libraries the browser links, but libc's and the compiler's
if [ ! -s "$G/p2/libs.tar.xz" ]; then
  t=$(mktemp -d)
  for f in $(ldd $CH/chromium-headless-shell | awk '$3 ~ /^\// {print $3}' |
             grep -v -E "/(libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+)\.so"); do cp -L "$f" "$t/"; done
  tar -C "$t" -cf - . | xzc > "$G/p2/libs.tar.xz"; rm -rf "$t"
fi
# the Vulkan loader and GL dispatch libraries the NVIDIA ICD needs (../shared/gpu/README.md)
mkdir -p "$G/p2/gl"
if ! ls "$G"/p2/gl/*.deb >/dev/null 2>&1; then
  if ls "$REPO"/.gpurun/gl/*.deb >/dev/null 2>&1; then cp "$REPO"/.gpurun/gl/*.deb "$G/p2/gl/"
  else (cd "$G/p2/gl" && apt-get download libvulkan1 libglvnd0 libegl1 libgl1 libglx0 libgles2 libopengl0); fi
fi
# Pyodide (what the harness loads); .cache's micropip/packaging wheels, the play web/gpt.html learns, MiniLM's
# vocabulary and configs (bench/modules.json) but not its 91 MB weights (bench.html makes a stand-in)
[ -s "$G/p2/pyodide.tar.xz" ] || tar -C node_modules -cf - --exclude="*.map" --exclude="*.html" --exclude="*.d.ts" \
    --exclude=README.md pyodide | xzc > "$G/p2/pyodide.tar.xz"
[ -s "$G/p2/cache.tar.xz" ] || tar -C .cache -cf - wheels text --exclude=model.safetensors minilm | xzc > "$G/p2/cache.tar.xz"
# bench/'s peers: the files bench/bench.html loads (bench/run.py --target dawn --pack takes the same)
if [ ! -s "$G/p2/peers.tar.xz" ]; then
  [ -d bench/peers/node_modules/@tensorflow/tfjs-core ] || (cd bench/peers && npm ci --no-audit --no-fund)
  tar -C bench/peers -cf - node_modules/@tensorflow/tfjs-core/dist/tf-core.es2017.min.js \
      node_modules/@tensorflow/tfjs-backend-webgpu/dist/tf-backend-webgpu.es2017.min.js \
      node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs \
      node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.mjs \
      node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.wasm | xzc > "$G/p2/peers.tar.xz"
fi
# python3.12 packages: pytest, pytest-playwright, playwright (its driver's node goes to p3), build + hatchling
# (conftest builds the wheel with scripts/build_wheel.sh)
if [ ! -s "$G/p2/site.tar.xz" ] || [ ! -s "$G/p3/node.xz" ]; then
  PLAT="--only-binary=:all: --python-version 3.12 --implementation cp --platform manylinux2014_x86_64
        --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64"
  PKGS="pytest pytest-playwright playwright build hatchling"
  python -m pip download -q -d "$G/work/wheels" $PLAT $PKGS
  rm -rf "$G/work/site"
  python -m pip install -q --no-index --find-links "$G/work/wheels" $PLAT --no-compile --target "$G/work/site" $PKGS
  mv "$G/work/site/playwright/driver/node" "$G/work/node"
  tar -C "$G/work/site" -cf - . | xzc > "$G/p2/site.tar.xz"
  xz -T0 -9 -c "$G/work/node" > "$G/p3/node.xz.part" && mv "$G/p3/node.xz.part" "$G/p3/node.xz"
fi
# the golden values (host torch: minutes)
if [ ! -s "$G/p2/golden.tar.xz" ]; then
  say "golden values (host torch: minutes)"
  rm -rf "$G/work/golden"; python tests/browser/golden.py "$G/work/golden"
  tar -C "$G/work/golden" -cf - . | xzc > "$G/p2/golden.tar.xz.part" && mv "$G/p2/golden.tar.xz.part" "$G/p2/golden.tar.xz"
fi
# each call carries its part and the working tree (what git tracks or does not ignore): at most 64 MiB
tree=$(git ls-files -co --exclude-standard -z | xargs -0 stat -c %s | awk '{s += $1} END {print s}')
for p in p1 p2 p3; do
  size=$(( $(du -sb "$G/$p" | cut -f1) + tree ))
  say "$p with the working tree: $(( size / 1048576 )) MiB"
  [ "$size" -lt $(( 62 * 1048576 )) ] || { say "$p is too large for one call's carry (64 MiB, 2 kept spare)"; exit 1; }
done
say "done: carry .gpuchrome/p1, .gpuchrome/p2, .gpuchrome/p3 in three calls (docs/support.md)"
