#!/usr/bin/env python3
"""onnxruntime-web's peer for bench/hf_decode.py: the same decoder as an ONNX graph laid out the way
onnxruntime-genai's model builder lays out Llama/Qwen2 for its WebGPU EP (src/python/py/models/builders/
base.py), with bench/hf_decode.py's random weights. Not a test.

The graph (opset 17 + com.microsoft), per layer: SimplifiedLayerNormalization (the first) or
SkipSimplifiedLayerNormalization (the residual add inside the next norm), one MatMulNBits for q/k/v packed
(+ Add of Qwen2's bias), GroupQueryAttention with the packed q/k/v, rotary inside (do_rotary, cos/sin
caches from webtorch.hf's own frequencies) and past/present KV cache (batch, kv_heads, length, head_dim),
MatMulNBits o_proj, MatMulNBits gate and up, SiLU as Sigmoid * x, MatMulNBits down; the final norm, the
last position's hidden state (Slice), the float16 head (MatMul with the embedding's transpose: the head is
tied and not quantized, as in webtorch's bench) and ArgMax: outputs next_token (1, 1) int64, logits (1, 1,
vocab) and present.N.key/value. Inputs: input_ids, seqlens_k (total length - 1) and total_sequence_length,
which genai computes from attention_mask in the graph, and past_key_values.N.key/value.
MatMulNBits: 4 bits, block --block (64, webtorch's group size), uint8 zero points (the WebGPU EP takes
no others), accuracy_level 4 (genai's default for webgpu); the blocks quantized as onnxruntime's
asymmetric blockwise quantizer does it (range widened to include 0, scale = range / 15, zero point =
round(-min / scale)), from the same float16 weights webtorch quantizes its own way (torchao's int4).

  python bench/ort_decode.py graph --model qwen2.5-0.5b --out DIR    (here: needs the onnx package)
      DIR/model.onnx (the graph; every weight external, in weights.bin), DIR/model_logits.onnx (the same
      without the ArgMax) and DIR/manifest.json
  python bench/ort_decode.py weights --model qwen2.5-0.5b --dir DIR  (on the GPU machine: webtorch)
      DIR/weights.bin from bench/hf_decode.py's build() (torch.manual_seed(0) on "webgpu")
  python bench/ort_decode.py check                                   (here: onnxruntime on the CPU)
      the tiny model's ONNX decode against webtorch's model holding the same (dequantized) weights
Then on the GPU machine: node bench/ort_decode.mjs ORT_DIR DIR OUT.json (bench/ort_decode.mjs).
"""
import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_decode  # noqa: E402  (SHAPES, build; imports webtorch)
from webtorch import hf  # noqa: E402
from webtorch.hf.llama import rope_inverse_frequencies  # noqa: E402

ROPE_CACHE = 4096  # rows of the cos/sin caches: positions the graph can reach


def config_of(name):
    return hf.LlamaConfig.from_dict(hf_decode.SHAPES[name])


def quantize_blockwise(w, block):
    """(B uint8 (N, K / block, block / 2), scales float16 (N * K / block,), zero points uint8 packed two a
    byte (N * ceil(K / block / 2),)) of a float weight (N, K): onnxruntime's asymmetric 4-bit blockwise
    quantization (MatMulNBits' layout: element k in the low nibble for even k)."""
    n, k = w.shape
    blocks = k // block
    g = w.astype(np.float32).reshape(n, blocks, block)
    lo, hi = np.minimum(g.min(-1), 0), np.maximum(g.max(-1), 0)
    scale = (hi - lo) / 15
    scale = np.where(scale == 0, 1, scale).astype(np.float16)
    s32 = scale.astype(np.float32)
    zero = np.clip(np.round(-lo / s32), 0, 15)
    q = np.clip(np.round(g / s32[..., None]) + zero[..., None], 0, 15).astype(np.uint8)
    zero = zero.astype(np.uint8)
    if blocks % 2:
        zero = np.concatenate([zero, np.zeros((n, 1), np.uint8)], 1)
    return (q[..., 0::2] | (q[..., 1::2] << 4), scale.reshape(-1), (zero[:, 0::2] | (zero[:, 1::2] << 4)).reshape(-1))


def dequantize_blockwise(b, scale, zero, n, k, block):
    """quantize_blockwise's weight as MatMulNBits reads it: (q - zero point) * scale, float32 (N, K)."""
    blocks = k // block
    q = np.stack([b & 15, b >> 4], -1).reshape(n, blocks, block).astype(np.float32)
    z = np.stack([zero & 15, zero >> 4], -1).reshape(n, -1)[:, :blocks].astype(np.float32)
    return ((q - z[..., None]) * scale.astype(np.float32).reshape(n, blocks, 1)).reshape(n, k)


def rope_caches(config):
    """cos and sin (ROPE_CACHE, head_dim / 2) float16 of position * webtorch.hf's frequencies."""
    freqs = np.outer(np.arange(ROPE_CACHE, dtype=np.float64), np.array(rope_inverse_frequencies(config)))
    return np.cos(freqs).astype(np.float16), np.sin(freqs).astype(np.float16)


def linears(c):
    """The quantized layers of layer i: (initializer prefix, the HF weights it packs)."""
    for i in range(c.num_hidden_layers):
        a, m = f"model.layers.{i}.self_attn.", f"model.layers.{i}.mlp."
        yield i, "qkv", [a + "q_proj", a + "k_proj", a + "v_proj"]
        yield i, "o", [a + "o_proj"]
        yield i, "gate", [m + "gate_proj"]
        yield i, "up", [m + "up_proj"]
        yield i, "down", [m + "down_proj"]


def tensors(c, block, get):
    """The graph's initializers: {name: (shape, numpy dtype, a function computing the array)}. get(name)
    is the float16 state_dict entry of that HF name (called only when an array is computed)."""
    h, v, hd = c.hidden_size, c.vocab_size, c.head_dim
    out = {"model.embed_tokens.weight": ((v, h), np.float16, lambda: get("model.embed_tokens.weight")),
           "lm_head.weight_T": ((h, v), np.float16, lambda: np.ascontiguousarray(get("model.embed_tokens.weight").T)),
           "model.norm.weight": ((h,), np.float16, lambda: get("model.norm.weight"))}
    cos_sin = {}
    for j, name in enumerate(["cos_cache", "sin_cache"]):
        out[name] = ((ROPE_CACHE, hd // 2), np.float16, lambda j=j: cos_sin.setdefault(0, rope_caches(c))[j])
    quantized = {}
    widths = {"q_proj": c.num_attention_heads * hd, "k_proj": c.num_key_value_heads * hd,
              "v_proj": c.num_key_value_heads * hd, "o_proj": h, "gate_proj": c.intermediate_size,
              "up_proj": c.intermediate_size, "down_proj": h}
    for i, short, hf_names in linears(c):
        for norm in ("input_layernorm", "post_attention_layernorm"):
            name = f"model.layers.{i}.{norm}.weight"
            out[name] = ((h,), np.float16, lambda name=name: get(name))
        n = sum(widths[x.rsplit(".", 1)[1]] for x in hf_names)
        k = c.intermediate_size if short == "down" else c.num_attention_heads * hd if short == "o" else h
        blocks = k // block
        prefix = f"model.layers.{i}.{short}."

        def q(j, hf_names=hf_names, prefix=prefix):
            if prefix not in quantized:
                quantized.clear()  # one layer's arrays at a time
                quantized[prefix] = quantize_blockwise(np.concatenate([get(x + ".weight") for x in hf_names]), block)
            return quantized[prefix][j]
        out[prefix + "weight_Q4"] = ((n, blocks, block // 2), np.uint8, lambda q=q: q(0))
        out[prefix + "weight_scales"] = ((n * blocks,), np.float16, lambda q=q: q(1))
        out[prefix + "weight_zp"] = ((n * ((blocks + 1) // 2),), np.uint8, lambda q=q: q(2))
        if short == "qkv" and c.qkv_bias:
            out[prefix + "bias"] = ((n,), np.float16,
                                    lambda hf_names=hf_names: np.concatenate([get(x + ".bias") for x in hf_names]))
    return out


def layout(specs, align=64):
    """{name: [offset, nbytes]} of each initializer in weights.bin, in order, aligned."""
    at, table = 0, {}
    for name, (shape, dtype, _) in specs.items():
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        table[name] = [at, nbytes]
        at += -(-nbytes // align) * align
    return table


def graph(c, block, specs, offsets, argmax=True):
    """The ONNX model (onnx.ModelProto) reading its initializers from weights.bin at offsets; without argmax
    its outputs are the logits and presents (the host picks the token, as transformers.js does)."""
    import onnx
    from onnx import TensorProto, helper
    f16, i64, i32 = TensorProto.FLOAT16, TensorProto.INT64, TensorProto.INT32
    elem = {np.float16: f16, np.uint8: TensorProto.UINT8}
    inits = []
    for name, (shape, dtype, _) in specs.items():
        t = TensorProto(name=name, data_type=elem[dtype], dims=shape, data_location=TensorProto.EXTERNAL)
        offset, nbytes = offsets[name]
        for key, value in (("location", "weights.bin"), ("offset", str(offset)), ("length", str(nbytes))):
            t.external_data.add(key=key, value=value)
        inits.append(t)
    inits += [helper.make_tensor("last_start", i64, [1], [-1]), helper.make_tensor("last_end", i64, [1], [2**62]),
              helper.make_tensor("seq_axis", i64, [1], [1])]
    nodes = []

    def node(op, ins, n_out=1, ms=False, **attrs):
        name = f"/{op}_{len(nodes)}"
        outs = [f"{name}/output_{j}" if j is not None else "" for j in (range(n_out) if isinstance(n_out, int) else n_out)]
        nodes.append(helper.make_node(op, ins, outs, name=name, domain="com.microsoft" if ms else "", **attrs))
        named = [o for o in outs if o]
        return named if len(named) > 1 else named[0]

    h, hd, kvh = c.hidden_size, c.head_dim, c.num_key_value_heads
    eps = c.rms_norm_eps

    def matmul4(x, prefix, k, n):
        y = node("MatMulNBits", [x, prefix + "weight_Q4", prefix + "weight_scales", prefix + "weight_zp"], ms=True,
                 K=k, N=n, bits=4, block_size=block, accuracy_level=4)
        return node("Add", [y, prefix + "bias"]) if prefix + "bias" in specs else y

    inputs = [helper.make_tensor_value_info("input_ids", i64, [1, "sequence_length"]),
              helper.make_tensor_value_info("seqlens_k", i32, [1]),
              helper.make_tensor_value_info("total_sequence_length", i32, [])]
    outputs = []
    x = node("Gather", ["model.embed_tokens.weight", "input_ids"])
    residual, delta = x, None
    q_width, kv_width = c.num_attention_heads * hd, kvh * hd
    for i in range(c.num_hidden_layers):
        p = f"model.layers.{i}."
        for kind, name in (("key", "past_key_values"), ("value", "past_key_values")):
            inputs.append(helper.make_tensor_value_info(f"{name}.{i}.{kind}", f16, [1, kvh, "past_sequence_length", hd]))
        if delta is None:
            hn = node("SimplifiedLayerNormalization", [x, p + "input_layernorm.weight"], axis=-1, epsilon=eps, stash_type=1)
        else:
            hn, residual = node("SkipSimplifiedLayerNormalization", [residual, delta, p + "input_layernorm.weight"],
                                n_out=[0, None, None, 3], ms=True, epsilon=eps)
        qkv = matmul4(hn, p + "qkv.", h, q_width + 2 * kv_width)
        attn = f"/attn_{i}/output_0"
        nodes.append(helper.make_node(
            "GroupQueryAttention", [qkv, "", "", f"past_key_values.{i}.key", f"past_key_values.{i}.value", "seqlens_k",
                                    "total_sequence_length", "cos_cache", "sin_cache"],
            [attn, f"present.{i}.key", f"present.{i}.value"], name=f"/attn_{i}", domain="com.microsoft",
            num_heads=c.num_attention_heads, kv_num_heads=kvh, do_rotary=1, rotary_interleaved=0, scale=1 / math.sqrt(hd)))
        for kind in ("key", "value"):
            outputs.append(helper.make_tensor_value_info(f"present.{i}.{kind}", f16, [1, kvh, "total_sequence_length", hd]))
        o = matmul4(attn, p + "o.", q_width, h)
        hn, residual = node("SkipSimplifiedLayerNormalization", [residual, o, p + "post_attention_layernorm.weight"],
                            n_out=[0, None, None, 3], ms=True, epsilon=eps)
        gate = matmul4(hn, p + "gate.", h, c.intermediate_size)
        up = matmul4(hn, p + "up.", h, c.intermediate_size)
        act = node("Mul", [node("Mul", [gate, node("Sigmoid", [gate])]), up])
        delta = matmul4(act, p + "down.", c.intermediate_size, h)
    hn, _ = node("SkipSimplifiedLayerNormalization", [residual, delta, "model.norm.weight"], n_out=[0, None, None, 3],
                 ms=True, epsilon=eps)
    last = node("Slice", [hn, "last_start", "last_end", "seq_axis"])
    nodes.append(helper.make_node("MatMul", [last, "lm_head.weight_T"], ["logits"], name="/lm_head/MatMul"))
    head = [helper.make_tensor_value_info("logits", f16, [1, 1, c.vocab_size])]
    if argmax:
        nodes.append(helper.make_node("ArgMax", ["logits"], ["next_token"], name="/argmax", axis=-1, keepdims=0))
        head.insert(0, helper.make_tensor_value_info("next_token", i64, [1, 1]))
    outputs = head + outputs
    g = helper.make_graph(nodes, "decoder", inputs, outputs, inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                              producer_name="webtorch bench/ort_decode.py")
    model.ir_version = 8
    return model


def write_graph(name, block, out):
    """out/model.onnx and out/manifest.json (the initializers' offsets, shapes and dtypes)."""
    c = config_of(name)
    specs = tensors(c, block, None)
    offsets = layout(specs)
    os.makedirs(out, exist_ok=True)
    for file, argmax in (("model.onnx", True), ("model_logits.onnx", False)):
        with open(os.path.join(out, file), "wb") as f:
            f.write(graph(c, block, specs, offsets, argmax).SerializeToString())
    manifest = {"model": name, "block": block, "offsets": offsets,
                "config": {"layers": c.num_hidden_layers, "kv_heads": c.num_key_value_heads, "head_dim": c.head_dim,
                           "vocab": c.vocab_size}}
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f)
    return manifest


def write_weights(state, directory):
    """directory/weights.bin from a state dict {HF name: float16 numpy array}, laid out as the manifest says."""
    manifest = json.load(open(os.path.join(directory, "manifest.json")))
    c = config_of(manifest["model"])
    specs = tensors(c, manifest["block"], lambda name: state[name])
    with open(os.path.join(directory, "weights.bin"), "wb") as f:
        for name, (shape, dtype, make) in specs.items():
            a = np.ascontiguousarray(make())
            offset, nbytes = manifest["offsets"][name]
            assert a.shape == tuple(shape) and a.dtype == dtype and a.nbytes == nbytes, (name, a.shape, a.dtype)
            f.seek(offset)
            f.write(a.tobytes())
    return specs


def webtorch_state(model):
    """model's float16 state dict as numpy arrays (the tied head is the embedding)."""
    return {k: v.detach().cpu().numpy().astype(np.float16) for k, v in model.state_dict().items()}


def check(name="tiny", block=16, prompt=8, new=8):
    """The ONNX decode (onnxruntime, CPU) against webtorch's LlamaForCausalLM (float32, CPU) holding the
    weights the graph's MatMulNBits compute with (dequantized): the greedy tokens equal, the logits close."""
    import tempfile

    import onnxruntime as ort
    import webtorch as torch
    model = hf_decode.build(name, torch.float32, "none")
    state = webtorch_state(model)
    c = model.config
    with tempfile.TemporaryDirectory() as d:
        write_graph(name, block, d)
        specs = write_weights(state, d)
        session = ort.InferenceSession(os.path.join(d, "model.onnx"), providers=["CPUExecutionProvider"])
        # webtorch's model with the weights as MatMulNBits reads them, on the CPU in float32
        sizes = {"q_proj": c.num_attention_heads * c.head_dim, "k_proj": c.num_key_value_heads * c.head_dim,
                 "v_proj": c.num_key_value_heads * c.head_dim}
        ref = {k: torch.tensor(v.astype(np.float32)) for k, v in state.items()}
        for i, short, hf_names in linears(c):
            p = f"model.layers.{i}.{short}."
            n = int(specs[p + "weight_Q4"][0][0])
            k = specs[p + "weight_Q4"][0][1] * block
            w = dequantize_blockwise(*(specs[p + s][2]() for s in ("weight_Q4", "weight_scales", "weight_zp")), n, k, block)
            at = 0
            for x in hf_names:
                rows = sizes.get(x.rsplit(".", 1)[1], n)
                ref[x + ".weight"] = torch.tensor(w[at:at + rows])
                at += rows
        cpu = hf.LlamaForCausalLM(c, device="cpu", dtype=torch.float32)
        cpu.load_state_dict(ref, strict=False)
        rng = np.random.default_rng(0)
        ids = rng.integers(0, c.vocab_size, (1, prompt))
        kv = {f"past_key_values.{i}.{kind}": np.zeros((1, c.num_key_value_heads, 0, c.head_dim), np.float16)
              for i in range(c.num_hidden_layers) for kind in ("key", "value")}
        tokens, step, worst = [], ids, 0.0
        for t in range(new):
            total = prompt + t
            out = session.run(None, {"input_ids": step, "seqlens_k": np.array([total - 1], np.int32),
                                     "total_sequence_length": np.array(total, np.int32), **kv})
            named = dict(zip([o.name for o in session.get_outputs()], out))
            kv = {k.replace("present", "past_key_values"): v for k, v in named.items() if k.startswith("present")}
            with torch.no_grad():
                expected = cpu(torch.tensor(np.concatenate([ids, np.array([tokens], np.int64).reshape(1, -1)], 1)),
                               last_only=True).numpy()[0, -1]
            got = named["logits"][0, -1].astype(np.float32)
            worst = max(worst, float(np.abs(got - expected).max() / np.abs(expected).max()))
            tokens.append(int(named["next_token"][0, 0]))
            assert tokens[-1] == int(expected.argmax()) or np.sort(expected)[-2] > expected.max() - 1e-2 * np.abs(expected).max(), \
                (t, tokens, expected.argmax())
            step = np.array([[tokens[-1]]], np.int64)
        print(json.dumps({"check": name, "block": block, "tokens": tokens, "max_logit_error_relative": worst}))
        assert worst < 2e-2, worst


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["graph", "weights", "check"])
    parser.add_argument("--model", default="qwen2.5-0.5b", choices=sorted(hf_decode.SHAPES))
    parser.add_argument("--block", type=int, default=64)
    parser.add_argument("--out", help="graph: the folder for model.onnx and manifest.json")
    parser.add_argument("--dir", help="weights: the folder holding manifest.json, for weights.bin")
    args = parser.parse_args(argv)
    if args.what == "graph":
        print(json.dumps({k: v for k, v in write_graph(args.model, args.block, args.out).items() if k != "offsets"}))
    elif args.what == "weights":
        import time

        import webtorch as torch
        t = time.perf_counter()
        model = hf_decode.build(json.load(open(os.path.join(args.dir, "manifest.json")))["model"], torch.float16, "none")
        state = webtorch_state(model)
        del model
        built = time.perf_counter() - t
        write_weights(state, args.dir)
        probe = ("model.embed_tokens.weight", "model.layers.0.self_attn.q_proj.weight", "model.norm.weight")
        print(json.dumps({"build_s": built, "write_s": time.perf_counter() - t - built,
                          "bytes": os.path.getsize(os.path.join(args.dir, "weights.bin")),
                          "mean_abs": {k: float(np.abs(state[k].astype(np.float32)).mean()) for k in probe}}))
    else:
        check()  # llama-shaped, GQA 4/2
        check("medium", block=64)  # qwen2-shaped: q/k/v biases, 8 layers


if __name__ == "__main__":
    main()
