# The chat page's Python (web/chat.html runs it in webtorch's worker): load(url) brings an HF-layout
# folder onto the GPU shard by shard, generate(prompt, ...) streams the continuation token by token
# (events to the page through webtorch_web.emit), each token picked on the GPU.
import json
import time

import webtorch as torch
from webtorch import hf
from webtorch_web import emit

state = {}


def load(url):
    start = time.perf_counter()
    model = hf.from_pretrained(url, device="webgpu", progress=lambda event: emit("load", json.dumps(event)))
    folder = hf.Folder(url)
    state.update(model=model, tokenizer=hf.Tokenizer.from_str(folder.text("tokenizer.json")))
    c = model.config
    return json.dumps({"model_type": c.model_type, "layers": c.num_hidden_layers, "hidden": c.hidden_size,
                       "vocab": c.vocab_size, "parameters": sum(p.numel() for p in model.parameters()),
                       "bytes": sum(p.numel() * p.element_size() for p in model.parameters()),
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
