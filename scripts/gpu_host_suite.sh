#!/usr/bin/env bash
# The host suite (no browser tests) on the device tool's GPU machine, whose torch (2.11, CPU capability
# AVX-512) and NVIDIA Vulkan driver differ from CI's: run through the device tool with carry
# [".gpurun", ".gpu/avx"], where .gpurun is the recipe of ../shared/gpu/README.md (Vulkan loader, wgpu-py)
# and .gpu/avx holds expecttest's wheel (pip download --no-deps expecttest==0.3.0 -d .gpu/avx):
#   bash scripts/gpu_host_suite.sh avx512     (or avx2, default: ATEN_CPU_CAPABILITY)
# The junit XML and log land in $OUT; compare two capabilities' XML test by test.
source .gpurun/env.sh >/dev/null 2>&1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/avx/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site:$PWD
cap=$1; shift
ATEN_CPU_CAPABILITY=$cap timeout "${T:-280}" python3 -m pytest tests -q -n 16 --ignore=tests/browser -p no:cacheprovider \
  --junitxml="$OUT/$cap.xml" -o junit_family=xunit1 "$@" > "$OUT/$cap.log" 2>&1
echo "rc=$?"; tail -5 "$OUT/$cap.log"
