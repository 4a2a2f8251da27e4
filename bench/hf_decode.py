#!/usr/bin/env python3
"""Decode and prefill speed of webtorch.hf's Llama-family model (webtorch/hf/llama.py) at real shapes,
random weights built on the device, on webtorch's native driver (wgpu-py). Not a test.

  python bench/hf_decode.py [--model llama-3.2-1b|qwen2.5-0.5b|medium|tiny] [--dtype float16|float32]
                            [--quant none|int8|int4] [--context 128] [--new 64] [--eager]
                            [--readback-every N] [--heat-s S] [--fold]
                            [--out OUT.json or a folder]

Per run: prefill of --context random tokens in one pass (tokens/s), then --new tokens through
generate()'s static KV cache: greedy (argmax on the GPU) and sampled (temperature 0.8, top-k 40,
top-p 0.95, Gumbel-max on the GPU), one (1,) readback per token; decode tokens/s counts the tokens
after the first (whose time is the prefill's), ms per token, kernels per token (and the replayed
step's kernels by op: kernels_by_op), and the weights' bytes.
The decode step is generate()'s: recorded once, then replayed (webtorch.hf.decoding); --eager also times
it run eagerly (replay=False), --readback-every N with tokens read back N at a time (tokens arrive
in bursts: decode tokens/s counts those made after the first burst), and each mode reports the kernels and the host's milliseconds per token
spent issuing the step. --quant quantizes every nn.Linear but the tied head with webtorch.ao (int4:
group 64). --fold runs each layer's norms inside the quantized GEMVs after them, not as kernels of
their own (webtorch.hf._gpu.FOLD_NORMS): its greedy tokens and one_row_logits_sha256 (of one token's
logits) must be the same. --model tiny (2 layers, 64 wide), deep-tiny (16 layers, 64 wide: a 16-layer model's kernel
count at little compute) and medium (8 layers, 256 wide, 8k vocabulary) run on lavapipe too. On the GPU machine, set it up as
bench/quantized_matmul.py's docstring says, then python3 bench/hf_decode.py --out $OUT/hf_decode.json.
"""
import argparse
import hashlib
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import webtorch as torch  # noqa: E402
from webtorch import hf  # noqa: E402

SHAPES = {  # config.json fields of the published models (weights random here)
    "llama-3.2-1b": dict(model_type="llama", vocab_size=128256, hidden_size=2048, intermediate_size=8192,
                         num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8, head_dim=64,
                         rope_theta=500000.0, tie_word_embeddings=True, max_position_embeddings=131072,
                         rope_scaling={"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                                       "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}),
    "qwen2.5-0.5b": dict(model_type="qwen2", vocab_size=151936, hidden_size=896, intermediate_size=4864,
                         num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2,
                         rope_theta=1000000.0, tie_word_embeddings=True, max_position_embeddings=32768),
    "medium": dict(model_type="qwen2", vocab_size=8192, hidden_size=256, intermediate_size=704, num_hidden_layers=8,
                   num_attention_heads=8, num_key_value_heads=2, tie_word_embeddings=True),
    "deep-tiny": dict(model_type="llama", vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=16,
                      num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=True),
    "tiny": dict(model_type="llama", vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=True),
}


def build(name, dtype, quant):
    config = hf.LlamaConfig.from_dict(SHAPES[name])
    torch.manual_seed(0)
    with torch.no_grad():
        model = hf.LlamaForCausalLM(config, device="webgpu", dtype=dtype).eval()
        for p in model.parameters():  # small weights: activations stay finite through the layers
            p.mul_(0.02 / max(float(p.std().item()), 1e-6) if p.dim() > 1 else 1.0)
    if quant != "none":
        from webtorch.ao.quantization import Int4WeightOnlyConfig, Int8WeightOnlyConfig, quantize_
        cfg = Int8WeightOnlyConfig() if quant == "int8" else Int4WeightOnlyConfig(group_size=64)
        quantize_(model.model, cfg)  # the layers' Linear modules; the head is the embedding (tied)
    return model


def heat(seconds):
    """Keeps the GPU busy for `seconds` (2048^2 matmuls): an idle GPU drops its clock (the H200 to 345 MHz
    within ~3 s) and needs 1-2 s of load to reach full clock again, longer than a 64-token decode lasts."""
    if seconds <= 0:
        return
    a = torch.rand(2048, 2048, device="webgpu")
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        a = (a @ a).clamp_(0, 1)
        torch.webgpu.synchronize()


def timed_generate(model, ids, new, replay=True, readback_every=1, heat_s=0.0, **sampling):
    """Times generate(); kernels per token and the host's milliseconds per token issuing the decode
    step (issue: the step call, kernels recorded or replayed and submitted, not waited for; python:
    the same less the driver's submit calls, in which lavapipe runs the kernels) count the decode
    steps only (the tokens after the first)."""
    marks, issue = [], []
    rt = torch.backend.webgpu.runtime()
    start = time.perf_counter()
    model.generate(ids, max_new_tokens=1, eos_token_id=[], replay=replay, **sampling)  # the decoder exists now
    decoder = model._decoder
    step = decoder.step

    submitting = [0.0]
    submit = rt._submit

    def timed_submit(*args):  # the driver's encoding and submission (lavapipe runs the kernels in it)
        t = time.perf_counter()
        submit(*args)
        submitting[0] += time.perf_counter() - t

    def timed_step(*args):
        t, s = time.perf_counter(), submitting[0]
        kernels = rt.kernels_dispatched
        out = step(*args)
        issue.append((time.perf_counter() - t, submitting[0] - s, rt.kernels_dispatched - kernels))
        return out
    decoder.step = timed_step
    rt._submit = rt._driver_submit = timed_submit  # both: a readback still goes with the pending batch
    heat(heat_s)
    start = time.perf_counter()
    try:
        tokens = model.generate(ids, max_new_tokens=new, eos_token_id=[], replay=replay, readback_every=readback_every,
                                on_token=lambda t: marks.append(time.perf_counter()), **sampling)
    finally:
        decoder.step = step
        rt._submit = rt._driver_submit = submit
    decode = (marks[-1] - marks[0]) / (len(marks) - readback_every)  # the tokens made after the first burst
    n = len(issue)
    return {"first_token_ms": 1e3 * (marks[0] - start), "decode_ms_per_token": 1e3 * decode,
            "decode_tokens_per_s": 1 / decode, "kernels_per_token": sum(k for *_, k in issue) / n,
            "issue_ms_per_token": 1e3 * sum(t for t, *_ in issue) / n,
            "python_ms_per_token": 1e3 * sum(t - s for t, s, _ in issue) / n,
            # the compiled step's calls so far ({"captures", "replays", "eager"}) and why any ran eagerly
            "decode_step": decoder.stats, "graph_breaks": decoder.step._compiled_call.graph_breaks if replay else None,
            "kernels_by_op": kernels_by_op(decoder) if replay else None,
            # greedy: the tokens made (--fold's must be the same)
            "tokens": None if sampling.get("do_sample") else tokens[0, ids.shape[1]:].tolist()}


def kernels_by_op(decoder):
    """The replayed decode step's kernels counted by what they are (a fused elementwise chain by its ops,
    a matmul epilogue by its matmul and ops, any other kernel by its key's name), most first: the
    recording the last call replayed (webtorch.compile's fast guard holds it)."""
    counts = {}
    checked = decoder.step._compiled_call.checked
    for step in checked.entry.program.steps if checked is not None else ():
        if step[0] in ("run", "fused"):
            key = step[1][0]
            name = "fused " + "+".join(m[0] for m in key[3]) if key[0] == "fused" else \
                f"{key[1][0]} + " + "+".join(m[0] for m in key[5]) if key[0] == "fused_matmul" else \
                f"{key[0]} {key[1]}" if key[0] == "ew" else key[0]
            counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def weight_bytes(model):
    """The bytes of the model's parameters and buffers (quantized layers': packed weights, scales, zero points)."""
    return sum(b.numel() * b.element_size() for b in list(model.parameters()) + list(model.buffers()))


def gpu_memory(model):
    """What the GPU holds after the decode runs, against the target "GPU memory <= 1.15x the weights + KV
    cache": the bytes of live tensors (weights, KV cache, the replayed step's own buffers, inputs) and
    reserved (those + the caching allocator's free buffers), dropping the prompt's and benchmark's
    buffers first (the allocator's cache of the build and of prefill's intermediates is emptied: a
    loader does the same)."""
    torch.webgpu.empty_cache()
    rt = torch.backend.webgpu.runtime()
    weights = weight_bytes(model)
    cache = sum(b.numel() * b.element_size() for b in model._decoder.module.buffers(recurse=False))
    return {"weights_bytes": weights, "kv_cache_bytes": cache, "allocated_bytes": rt.allocated_bytes,
            "reserved_bytes": rt.reserved_bytes, "allocated_ratio": rt.allocated_bytes / (weights + cache)}


def step_kernels(model, steps):
    """The GPU time per token by kernel of the model's replayed decode step (a generate() made it), over
    `steps` steps after 3 untimed ones, under webtorch.profiler (timestamp queries where the adapter has
    them, each kernel in a pass of its own: short kernels look longer than inside the step's one pass)."""
    step = model._decoder.step
    token = torch.zeros(1, 1, dtype=torch.int64, device="webgpu")
    with torch.no_grad():
        for _ in range(3):
            token = step(token)[:, None]
        torch.webgpu.synchronize()
        with torch.profiler.profile() as prof:
            for _ in range(steps):
                token = step(token)[:, None]
            torch.webgpu.synchronize()
    kernels = sorted((a for a in prof.key_averages() if a.is_kernel), key=lambda a: -a.gpu_time_total)
    return {"gpu_timing": prof.gpu_timing, "gpu_ms_per_token": sum(a.gpu_time_total for a in kernels) / steps / 1e3,
            "kernels_per_token": [(a.key, a.count // steps, round(a.gpu_time_total / steps / 1e3, 4)) for a in kernels]}


MODES = {"greedy": {}, "sampled": dict(do_sample=True, temperature=0.8, top_k=40, top_p=0.95)}


def measure(model, context, new, readback_every=1, eager=False, heat_s=0.0, modes=tuple(MODES)):
    """Prefill tokens/s of a `context`-token random prompt (the second of two timed prefills), then each of
    `modes`' timed_generate of `new` tokens (also read back `readback_every` at a time, also eagerly), and
    the GPU memory after: main's figures, and bench/workloads.py's decode section's in the browser."""
    result = {}
    ids = torch.randint(0, model.config.vocab_size, (1, context), device="webgpu")
    with torch.no_grad():
        model(ids, last_only=True).argmax().item()  # compiles the prefill's kernels
        for _ in range(2):  # the second prefill is the timed one
            heat(heat_s)
            t = time.perf_counter()
            model(ids, last_only=True).argmax().item()
            result["prefill_tokens_per_s"] = context / (time.perf_counter() - t)
    for name in modes:
        sampling = MODES[name]
        timed_generate(model, ids, 4, **sampling)  # compiles the kernels, records the decode step
        result[name] = timed_generate(model, ids, new, heat_s=heat_s, **sampling)
        if readback_every > 1:
            result[f"{name}_readback_every_{readback_every}"] = timed_generate(
                model, ids, new, readback_every=readback_every, heat_s=heat_s, **sampling)
        if eager:
            result[name + "_eager"] = timed_generate(model, ids, new, replay=False, heat_s=heat_s, **sampling)
    result["gpu_memory"] = gpu_memory(model)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny", choices=sorted(SHAPES))
    parser.add_argument("--dtype", default="float16", choices=["float16", "float32"])
    parser.add_argument("--quant", default="none", choices=["none", "int8", "int4"])
    parser.add_argument("--context", type=int, default=128)
    parser.add_argument("--new", type=int, default=64)
    parser.add_argument("--readback-every", type=int, default=1,
                        help="also time generate(readback_every=N): tokens read back N at a time")
    parser.add_argument("--eager", action="store_true", help="also time the decode step run eagerly (replay=False)")
    parser.add_argument("--heat-s", type=float, default=0.0,
                        help="seconds of matmuls before each timed run, so that the GPU is at full clock")
    parser.add_argument("--fold", action="store_true",
                        help="each layer's norms inside the quantized GEMVs after them (webtorch.hf._gpu.FOLD_NORMS)")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    hf._gpu.FOLD_NORMS = args.fold
    dtype = getattr(torch, args.dtype)
    t = time.perf_counter()
    model = build(args.model, dtype, args.quant)
    torch.webgpu.synchronize()
    result = {"model": args.model, "dtype": args.dtype, "quant": args.quant, "fold": args.fold,
              "context": args.context, "new": args.new, "adapter": torch.webgpu.adapter_info(),
              "build_s": time.perf_counter() - t,
              "weight_bytes": weight_bytes(model)}
    result.update(measure(model, args.context, args.new, readback_every=args.readback_every, eager=args.eager,
                          heat_s=args.heat_s))
    with torch.no_grad():  # one token's logits (one row: the decode step's kernels), --fold's the same bits
        logits = model(torch.ones(1, 1, dtype=torch.int64, device="webgpu")).float().tolist()
    result["one_row_logits_sha256"] = hashlib.sha256(repr(logits).encode()).hexdigest()
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        out = args.out
        if os.path.isdir(out) or out.endswith("/"):  # a folder: one file per configuration
            os.makedirs(out, exist_ok=True)
            out = os.path.join(out, f"hf_decode-{args.model}-{args.dtype}-{args.quant}-{args.context}.json")
        with open(out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
