# The chat page's Python (web/chat.html runs it in webtorch's worker): load(url, quantize) brings an
# HF-layout folder onto the GPU shard by shard (each nn.Linear quantized as its weight arrives, if asked),
# generate(prompt, ...) streams the continuation token by token (events to the page through
# webtorch_web.emit), each token picked on the GPU.
import json
import time

import webtorch as torch
from webtorch import hf
from webtorch.ao.quantization import Int4WeightOnlyConfig, Int8WeightOnlyConfig
from webtorch_web import emit

state = {}
# The page's "weights" choices: torchao's weight-only configs (int4: groups of 64 along K, as bench/ measures)
QUANTIZATIONS = {"none": None, "int8": Int8WeightOnlyConfig(), "int4": Int4WeightOnlyConfig(group_size=64)}


def load(url, quantize="none"):
    start = time.perf_counter()
    model = hf.from_pretrained(url, device="webgpu", progress=lambda event: emit("load", json.dumps(event)),
                               quantization_config=QUANTIZATIONS[quantize])
    folder = hf.Folder(url)
    state.update(model=model, tokenizer=hf.Tokenizer.from_str(folder.text("tokenizer.json")))
    c = model.config
    return json.dumps({"model_type": c.model_type, "layers": c.num_hidden_layers, "hidden": c.hidden_size,
                       "vocab": c.vocab_size, "parameters": sum(p.numel() for p in model.parameters()),
                       "quantize": quantize,
                       "quantized_linears": sum(type(m).__name__.endswith("WeightOnlyLinear") for m in model.modules()),
                       "bytes": sum(t.numel() * t.element_size() for t in (*model.parameters(), *model.buffers())),
                       "shards": len(folder.shards()), "seconds": time.perf_counter() - start})


def rate(n, times):
    """Decode speed: tokens after the first (whose time is the prompt's prefill) per second."""
    return (n - 1) / (times[-1] - times[0]) if n > 1 and times[-1] > times[0] else 0.0


def generate(prompt, max_new_tokens=60, temperature=0.8, top_k=40, top_p=None):
    model, tokenizer = state["model"], state["tokenizer"]
    ids = tokenizer.encode(prompt) or [model.config.bos_token_id or 0]
    new, shown, times = [], [""], []
    start = time.perf_counter()

    def on_token(tokens):
        times.append(time.perf_counter())
        new.append(tokens[0])
        text = tokenizer.decode(new)
        if not text.endswith("\ufffd"):  # a character's bytes still incomplete: wait for the rest
            emit("token", json.dumps({"text": text[len(shown[0]):], "n": len(new),
                                      "tokens_per_s": rate(len(new), times)}))
            shown[0] = text
    model.generate(torch.tensor([ids], device="webgpu"), max_new_tokens=max_new_tokens, do_sample=temperature > 0,
                   temperature=temperature or 1.0, top_k=top_k, top_p=top_p, on_token=on_token)
    seconds = times[-1] - start
    return json.dumps({"prompt_tokens": len(ids), "tokens": len(new), "seconds": seconds,
                       "first_token_s": times[0] - start, "tokens_per_s": rate(len(new), times),
                       "text": tokenizer.decode(new)})
