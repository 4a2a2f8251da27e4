#!/usr/bin/env python3
"""GPU time of one decode kernel at a time, at Llama-3.2-1B's decode shapes (one row of x, float16
activations, int4 group 64 weights): each case calls its op REPS times inside one webtorch.compile
recording (mode="reduce-overhead": one pass, one submission per replay), the recording replayed
ROUNDS times between two synchronize()s. gpu_us: the GPU time per call, from a begin and an end timestamp
around each replay's compute pass (the native driver's time_passes; needs "timestamp-query"), over the
REPS calls in it; wall_us: the wall time over ROUNDS x REPS calls (the CPU's encoding of each replay
included: bounded by it where the kernels are short). Not a test.

  python bench/decode_kernels_replay.py [--reps 100] [--rounds 10] [--small] [--out OUT.json]

Cases: int4 GEMV o_proj (2048 -> 2048) and down_proj (8192 -> 2048), the gated gate/up GEMV
(2048 -> 8192 twice), the q/k/v parts GEMV (2048 -> 2048 + 512 + 512), int8 GEMV 2048 -> 2048, RMSNorm
of one 2048 row (with the residual add), the float16 head GEMV (2048 -> 128256). GB/s: the bytes the
kernel must read (weights, scales, zero points) over its time.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import webtorch as torch  # noqa: E402
from webtorch.ao.quantization import Int4WeightOnlyConfig, Int8WeightOnlyConfig, quantize_  # noqa: E402
from webtorch.ao.quantization import _gpu as quantized  # noqa: E402


def _linear(k, n, config, dtype):
    layer = torch.nn.Linear(k, n, bias=False, device="webgpu").to(dtype)
    return quantize_(layer, config) if config is not None else layer


def _bytes(*layers):
    return sum(b.numel() * b.element_size() for layer in layers for b in
               (layer.buffers() if hasattr(layer, "weight_qdata") else [layer.weight]))


def cases(scale, dtype):
    h, f, kv, vocab = 2048 // scale, 8192 // scale, 512 // scale, 128256 // scale
    g64 = Int4WeightOnlyConfig(group_size=64)
    x = torch.randn(1, 1, h, device="webgpu").to(dtype)
    xf = torch.randn(1, 1, f, device="webgpu").to(dtype)
    o, down = _linear(h, h, g64, dtype), _linear(f, h, g64, dtype)
    gate, up = _linear(h, f, g64, dtype), _linear(h, f, g64, dtype)
    qkv = [_linear(h, n, g64, dtype) for n in (h, kv, kv)]
    o8 = _linear(h, h, Int8WeightOnlyConfig(), dtype)
    head = _linear(h, vocab, None, dtype)
    norm = torch.nn.RMSNorm(h, eps=1e-5, device="webgpu").to(dtype)
    res = torch.randn(1, 1, h, device="webgpu").to(dtype)
    yield "int4 o_proj 2048->2048", lambda: o(x), _bytes(o)
    yield "int4 down_proj 8192->2048", lambda: down(xf), _bytes(down)
    yield "int4 gate/up gated 2048->2x8192", lambda: quantized.gated(x, gate, up), _bytes(gate, up)
    yield "int4 q/k/v parts 2048->3072", lambda: quantized.parts(x, qkv)[0], _bytes(*qkv)
    yield "int8 o_proj 2048->2048", lambda: o8(x), _bytes(o8)
    yield "f16 head 2048->128256", lambda: head(x), _bytes(head)
    yield "rms_norm 1x2048 (+residual)", lambda: norm(x + res), 4 * h


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--small", action="store_true", help="shapes / 16 (a check that it runs, e.g. on lavapipe)")
    parser.add_argument("--only", help="run the cases whose name contains this")
    parser.add_argument("--out")
    args = parser.parse_args()
    dtype = torch.float16 if torch.webgpu.has_float16() else torch.float32
    info = torch.webgpu.adapter_info()
    print(f"adapter: {info.get('vendor')} {info.get('device') or info.get('description')} "
          f"activations {dtype}", flush=True)
    results = []
    driver = torch.backend.webgpu.runtime().driver
    timed = "timestamp-query" in torch.backend.webgpu.runtime().features and hasattr(driver, "time_passes")
    with torch.no_grad():
        for name, fn, nbytes in cases(16 if args.small else 1, dtype):
            if args.only and args.only not in name:
                continue

            def many(fn=fn):
                for _ in range(args.reps - 1):
                    fn()
                return fn()
            step = torch.compile(many, mode="reduce-overhead")
            for _ in range(3):
                step()
            torch.webgpu.synchronize()
            best, gpu = None, []
            driver.time_passes = timed
            for _ in range(3):
                t0 = time.perf_counter()
                for _ in range(args.rounds):
                    step()
                torch.webgpu.synchronize()
                us = (time.perf_counter() - t0) / (args.rounds * args.reps) * 1e6
                best = us if best is None else min(best, us)
            driver.time_passes = False
            if timed:
                stamps = driver.read_timings()
                gpu = sorted((end - begin) / 1e3 / args.reps for begin, end in zip(stamps[::2], stamps[1::2]))
            gpu_us = gpu[len(gpu) // 2] if gpu else None
            row = {"case": name, "gpu_us": gpu_us and round(gpu_us, 2), "wall_us": round(best, 2), "bytes": nbytes,
                   "GB_s": gpu_us and round(nbytes / gpu_us / 1e3, 1)}
            results.append(row)
            print(f"{name:34s} gpu {gpu_us or 0:9.2f} us  wall {best:9.2f} us  {row['GB_s'] or 0:8.1f} GB/s", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"adapter": info, "reps": args.reps, "rounds": args.rounds, "results": results}, f, indent=1,
                      default=str)


if __name__ == "__main__":
    main()
