#!/usr/bin/env python3
"""Times weight-only quantized linear layers (webtorch.ao.quantization: int4 group 64 and int8, the
dequantising quantized_gemv.wgsl / quantized_gemm.wgsl) against the float matmul of the same layer, at
Llama-3.2-1B's shapes (hidden 2048, MLP 8192, 128k vocabulary head), on webtorch's native driver
(wgpu-py; on the GPU machine the Vulkan adapter). Not a test.

  python bench/quantized_matmul.py [--out OUT.json] [--rows 1,512] [--small] [--reps 50]

On the GPU machine (python3 3.12 there, no wgpu): carry wheels of wgpu==0.32.0 and rendercanvas (and
cffi / pycparser if its pip list lacks them) in .whl and the Vulkan loader in .gl, as
/work/.library/device/README.md says, then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site;
  for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
  python3 bench/quantized_matmul.py --out $OUT/quantized_matmul.json

Per shape (K in, N out) and rows of x (1: a decode step, through the GEMV kernel; 512: a prefill,
through the tiled GEMM): ms per call (the median of 5 timed rounds of --reps calls, each round closed
by webtorch.webgpu.synchronize()), the weight bytes read per call over that time (GB/s: decode is
bound by them) and TFLOP/s (2 M N K / time). Activations float32, and float16 where the adapter has
shader-f16. --small: shapes / 16 (a check that the script runs, e.g. on lavapipe).
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import webtorch as torch  # noqa: E402
from webtorch.ao.quantization import Int4WeightOnlyConfig, Int8WeightOnlyConfig, quantize_  # noqa: E402

SHAPES = [("attn 2048x2048", 2048, 2048), ("mlp up 2048x8192", 2048, 8192), ("mlp down 8192x2048", 8192, 2048),
          ("lm head 2048x128256", 2048, 128256)]
VARIANTS = [("float", None), ("int8", Int8WeightOnlyConfig()), ("int4 g64", Int4WeightOnlyConfig(group_size=64))]


def weight_bytes(layer, dtype):
    if hasattr(layer, "weight_qdata"):
        return sum(b.numel() * b.element_size() for b in layer.buffers())
    return layer.weight.numel() * (2 if dtype is torch.float16 else 4)


def timed(fn, reps, rounds=5):
    for _ in range(3):
        fn()
    torch.webgpu.synchronize()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        torch.webgpu.synchronize()
        times.append((time.perf_counter() - t0) / reps * 1e3)
    return statistics.median(times), min(times), max(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out")
    parser.add_argument("--rows", default="1,512")
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--small", action="store_true")
    args = parser.parse_args()
    rows = [int(r) for r in args.rows.split(",")]
    dtypes = [torch.float32] + ([torch.float16] if torch.webgpu.has_float16() else [])
    info = torch.webgpu.adapter_info()
    print(f"adapter: {info.get('vendor')} {info.get('device') or info.get('description')} "
          f"float16: {info.get('float16')}", flush=True)
    results = []
    torch.manual_seed(0)
    for name, k, n in SHAPES:
        if args.small:
            k, n = k // 16, n // 16
        float_layer = torch.nn.Linear(k, n, bias=False, device="webgpu")
        for dtype in dtypes:
            baseline = {}
            for variant, config in VARIANTS:
                layer = torch.nn.Linear(k, n, bias=False, device="webgpu").to(dtype)
                with torch.no_grad():
                    layer.weight.copy_(float_layer.weight.to(dtype))
                if config is not None:
                    quantize_(layer, config)
                nbytes = weight_bytes(layer, dtype)
                for m in rows:
                    x = torch.randn(m, k, device="webgpu").to(dtype)
                    with torch.no_grad():
                        ms, lo, hi = timed(lambda: layer(x), max(1, args.reps // (1 + m // 64)))
                    if variant == "float":
                        baseline[m] = ms
                    row = {"shape": name, "k": k, "n": n, "rows": m, "activations": dtype.name if hasattr(dtype, "name")
                           else str(dtype), "weights": variant, "ms": round(ms, 4), "ms_min": round(lo, 4),
                           "ms_max": round(hi, 4), "weight_MB": round(nbytes / 1e6, 2),
                           "GB_s": round(nbytes / ms / 1e6, 1), "TFLOP_s": round(2 * m * n * k / ms / 1e9, 3),
                           "speedup_vs_float": round(baseline[m] / ms, 2)}
                    results.append(row)
                    print(f"{name:22s} M={m:4d} act={row['activations']:8s} {variant:9s} {ms:8.3f} ms "
                          f"({lo:.3f}-{hi:.3f})  {row['GB_s']:8.1f} GB/s  {row['TFLOP_s']:7.3f} TFLOP/s  "
                          f"x{row['speedup_vs_float']:.2f} vs float", flush=True)
                del layer
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"adapter": info, "results": results}, f, indent=1, default=str)


if __name__ == "__main__":
    main()
