#!/usr/bin/env python3
"""Where a prefill's time goes: webtorch.hf's Llama-family model (bench/hf_decode.py's shapes, random
weights) run on --context random tokens in one pass (the logits of the last position, as generate()
prefills), timed, then once under webtorch.profiler (kernel times by timestamp queries where the
adapter has them). Not a test.

  python bench/hf_prefill_profile.py [--model llama-3.2-1b] [--dtype float16] [--quant int4]
                                     [--context 128 512] [--out OUT.json]

Per context: tokens/s of the plain pass (best of 3), the profiled pass's GPU kernel time and host time,
and the kernels by name (count, GPU ms), the most GPU time first; the ops by host time likewise.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import webtorch as torch  # noqa: E402
from hf_decode import SHAPES, build  # noqa: E402


def profile_prefill(model, n):
    ids = torch.randint(0, model.config.vocab_size, (1, n), device="webgpu")
    with torch.no_grad():
        model(ids, last_only=True).argmax().item()  # the kernels compiled
        times = []
        for _ in range(3):
            t = time.perf_counter()
            model(ids, last_only=True).argmax().item()
            times.append(time.perf_counter() - t)
        t = time.perf_counter()
        with torch.profiler.profile() as prof:
            model(ids, last_only=True).argmax().item()
        profiled = time.perf_counter() - t
    averages = prof.key_averages()
    kernels = sorted((a for a in averages if a.is_kernel), key=lambda a: -a.gpu_time_total)
    ops = sorted((a for a in averages if not a.is_kernel), key=lambda a: -a.self_cpu_time_total)
    return {"context": n, "tokens_per_s": n / min(times), "ms": 1e3 * min(times), "gpu_timing": prof.gpu_timing,
            "profiled_wall_ms": 1e3 * profiled, "kernels": sum(a.count for a in kernels),
            "kernel_gpu_ms": sum(a.gpu_time_total for a in kernels) / 1e3,
            "kernels_by_gpu_ms": [(a.key, a.count, round(a.gpu_time_total / 1e3, 3)) for a in kernels[:20]],
            "ops_by_host_ms": [(a.key, a.count, round(a.self_cpu_time_total / 1e3, 3)) for a in ops[:20]]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny", choices=sorted(SHAPES))
    parser.add_argument("--dtype", default="float16", choices=["float16", "float32"])
    parser.add_argument("--quant", default="int4", choices=["none", "int8", "int4"])
    parser.add_argument("--context", type=int, nargs="+", default=[128, 512])
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    model = build(args.model, getattr(torch, args.dtype), args.quant)
    result = {"model": args.model, "dtype": args.dtype, "quant": args.quant, "adapter": torch.webgpu.adapter_info(),
              "runs": [profile_prefill(model, n) for n in args.context]}
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
