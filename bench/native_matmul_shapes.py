#!/usr/bin/env python3
"""Matmul speed on webtorch's native driver (wgpu-py) for square and prefill-shaped products, float16 and
float32, x @ W.T (a Linear's form) and x @ B. Not a test.

  python bench/native_matmul_shapes.py OUT.json [--shapes MxKxN ...] [--forms x@W.T x@B]

Each product: one call to compile, then as many calls as make ~0.2 TFLOP (3 to 200), one synchronize;
the GPU heated first (2 s of 2048^2 matmuls: an idle H200 drops to 345 MHz). On the GPU machine:
source .gpurun/env.sh; PYTHONPATH=/tmp/site:$PWD python3 bench/native_matmul_shapes.py $OUT/mm.json
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import webtorch as torch  # noqa: E402
from hf_decode import heat  # noqa: E402

SHAPES = ["4096x4096x4096", "512x2048x8192", "512x8192x2048", "512x2048x2048", "128x2048x8192", "128x2048x2048",
          "512x2048x512"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--shapes", nargs="+", default=SHAPES)
    parser.add_argument("--forms", nargs="+", default=["x@W.T", "x@B"], choices=["x@W.T", "x@B"])
    args = parser.parse_args(argv)
    heat(2)
    out = []
    for dtype in (torch.float16, torch.float32):
        for m, k, n in (map(int, s.split("x")) for s in args.shapes):
            for form in args.forms:
                x = torch.randn(1, m, k, device="webgpu", dtype=dtype)
                w = torch.randn(*((n, k) if form == "x@W.T" else (k, n)), device="webgpu", dtype=dtype)
                w = w.T if form == "x@W.T" else w
                (x @ w).sum().item()
                reps = min(200, max(3, int(2e11 / (2 * m * k * n))))
                t = time.perf_counter()
                for _ in range(reps):
                    x @ w
                torch.webgpu.synchronize()
                s = (time.perf_counter() - t) / reps
                rec = dict(dtype=str(dtype), m=m, k=k, n=n, form=form, ms=s * 1e3, tflops=2 * m * k * n / s / 1e12)
                print(rec, flush=True)
                out.append(rec)
    with open(args.out, "w") as f:
        json.dump({"adapter": torch.webgpu.adapter_info(), "runs": out}, f, indent=1)


if __name__ == "__main__":
    main()
