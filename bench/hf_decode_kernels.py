#!/usr/bin/env python3
"""GPU time per decode token by kernel: webtorch.hf's replayed decode step (bench/hf_decode.py's model
shapes, float16 + int4, random weights, 128-token prompt) run 8 times under webtorch.profiler (timestamp
queries where the adapter has them, each kernel in a pass of its own), then 8 more with one timestamp pair
around each step's one pass (gpu_ms_per_token_one_pass, on the native driver). Not a test.

  python bench/hf_decode_kernels.py --model llama-3.2-1b [--fold] --out OUT.json
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import webtorch as torch  # noqa: E402
from hf_decode import SHAPES, build, step_kernels  # noqa: E402

STEPS = 8


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny", choices=sorted(SHAPES))
    parser.add_argument("--fold", action="store_true",
                        help="each layer's norms inside the quantized GEMVs after them (webtorch.hf._gpu.FOLD_NORMS)")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    torch.hf._gpu.FOLD_NORMS = args.fold
    model = build(args.model, torch.float16, "int4")
    ids = torch.randint(0, model.config.vocab_size, (1, 128), device="webgpu")
    with torch.no_grad():
        model.generate(ids, max_new_tokens=8, eos_token_id=[])  # the step recorded and replayed
        result = {"model": args.model, **step_kernels(model, STEPS)}
        # the step's kernels in its one pass, timed by one timestamp pair around it (the native driver's
        # time_passes): the per-kernel figures above each have a pass of their own, which inflates short ones
        driver = torch.backend.webgpu.runtime().driver
        pass_ms = None
        if hasattr(driver, "time_passes") and result["gpu_timing"] == "timestamp-query":
            step = model._decoder.step
            token = torch.zeros(1, 1, dtype=torch.int64, device="webgpu")
            driver.read_timings()
            driver.time_passes = True
            for _ in range(STEPS):
                token = step(token)[:, None]
            torch.webgpu.synchronize()
            driver.time_passes = False
            stamps = driver.read_timings()
            pass_ms = sum(end - begin for begin, end in zip(stamps[::2], stamps[1::2])) / STEPS / 1e6
    result["gpu_ms_per_token_one_pass"] = pass_ms
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
