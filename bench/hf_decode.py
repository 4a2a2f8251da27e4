#!/usr/bin/env python3
"""Decode and prefill speed of webtorch.hf's Llama-family model (webtorch/hf/llama.py) at real shapes,
random weights built on the device, on webtorch's native driver (wgpu-py). Not a test.

  python bench/hf_decode.py [--model llama-3.2-1b|qwen2.5-0.5b|tiny] [--dtype float16|float32]
                            [--quant none|int8|int4] [--context 128] [--new 64] [--out OUT.json]

Per run: prefill of --context random tokens in one pass (tokens/s), then --new tokens through
generate()'s static KV cache: greedy (argmax on the GPU) and sampled (temperature 0.8, top-k 40,
top-p 0.95, Gumbel-max on the GPU), one (1,) readback per token; decode tokens/s counts the tokens
after the first (whose time is the prefill's), ms per token, kernels per token, and the weights' bytes.
--quant quantizes every nn.Linear but the tied head with webtorch.ao (int4: group 64). --model tiny: a
2-layer 64-wide model (checks that the script runs, e.g. on lavapipe). On the GPU machine, set it up as
bench/quantized_matmul.py's docstring says, then python3 bench/hf_decode.py --out $OUT/hf_decode.json.
"""
import argparse
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


def timed_generate(model, ids, new, **sampling):
    marks = []
    start = time.perf_counter()
    kernels = torch.backend.webgpu.runtime().kernels_dispatched
    model.generate(ids, max_new_tokens=new, eos_token_id=[], on_token=lambda t: marks.append(time.perf_counter()),
                   **sampling)
    kernels = torch.backend.webgpu.runtime().kernels_dispatched - kernels
    decode = (marks[-1] - marks[0]) / (len(marks) - 1)
    return {"first_token_ms": 1e3 * (marks[0] - start), "decode_ms_per_token": 1e3 * decode,
            "decode_tokens_per_s": 1 / decode, "kernels_per_token": kernels / len(marks)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny", choices=sorted(SHAPES))
    parser.add_argument("--dtype", default="float16", choices=["float16", "float32"])
    parser.add_argument("--quant", default="none", choices=["none", "int8", "int4"])
    parser.add_argument("--context", type=int, default=128)
    parser.add_argument("--new", type=int, default=64)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    dtype = getattr(torch, args.dtype)
    t = time.perf_counter()
    model = build(args.model, dtype, args.quant)
    torch.webgpu.synchronize()
    result = {"model": args.model, "dtype": args.dtype, "quant": args.quant, "context": args.context,
              "new": args.new, "adapter": torch.webgpu.adapter_info(), "build_s": time.perf_counter() - t,
              "weight_bytes": sum(b.numel() * b.element_size() for b in list(model.parameters()) + list(model.buffers()))}
    ids = torch.randint(0, model.config.vocab_size, (1, args.context), device="webgpu")
    with torch.no_grad():
        model(ids, last_only=True).argmax().item()  # compiles the prefill's kernels
        for _ in range(2):  # the second prefill is the timed one
            t = time.perf_counter()
            model(ids, last_only=True).argmax().item()
            result["prefill_tokens_per_s"] = args.context / (time.perf_counter() - t)
    timed_generate(model, ids, 4)  # compiles the decode step's kernels
    result["greedy"] = timed_generate(model, ids, args.new)
    result["sampled"] = timed_generate(model, ids, args.new, do_sample=True, temperature=0.8, top_k=40, top_p=0.95)
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
