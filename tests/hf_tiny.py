"""Tiny Llama-family checkpoints saved by real transformers (random weights, seeded), sharded, and the
reference outputs of the same models under real torch: the fixtures of tests/test_hf.py and
tests/browser/test_hf_browser.py. Each is saved once into .cache/models/tiny/<key>/ (served to pages
as /models/tiny/<key>/), the key a hash of this file, transformers' version and the arguments."""
import hashlib
import json
import os
import shutil

import numpy as np

PROMPT = [[5, 17, 33, 2, 41, 9], [60, 11, 7, 25, 3, 88]]
NEW_TOKENS = 5
COMMON = dict(vocab_size=96, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
              num_key_value_heads=2, max_position_embeddings=64)
# family -> (transformers class names, extra config): every switch of webtorch/hf/llama.py is covered
FAMILIES = {
    "llama": ("LlamaConfig", "LlamaForCausalLM",
              dict(rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                 "high_freq_factor": 4.0, "original_max_position_embeddings": 16},
                   mlp_bias=True)),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", dict(rope_theta=1000.0, tie_word_embeddings=True)),
    "qwen3": ("Qwen3Config", "Qwen3ForCausalLM", dict(head_dim=16, attention_bias=True)),
    "mistral": ("MistralConfig", "MistralForCausalLM", dict(sliding_window=None)),
}


def _transformers():
    import torch
    # PyPI's torchvision (imported by transformers) registers fake kernels of ops that only its CUDA
    # build defines (tests/as_torch/run.py): define their schemas first
    for name in ("nms", "qnms"):
        try:
            torch.library.define(f"torchvision::{name}", "(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        except RuntimeError:
            pass  # defined already
    import transformers
    transformers.logging.set_verbosity_error()
    return torch, transformers


CACHE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".cache", "models", "tiny")


def saved(family, max_shard_size="20KB", **overrides):
    """(folder, reference) of the family's tiny model, saved by save_tiny unless the cache has it."""
    import importlib.metadata
    with open(__file__, "rb") as f:
        key = hashlib.sha256(f.read() + repr((importlib.metadata.version("transformers"), family, max_shard_size,
                                              sorted(overrides.items()))).encode()).hexdigest()[:16]
    path = os.path.join(CACHE, f"{family}-{key}")
    if not os.path.exists(os.path.join(path, "reference.npz")):
        tmp = f"{path}.{os.getpid()}"
        save_tiny(family, tmp, max_shard_size, **overrides)
        try:
            os.replace(tmp, path)
        except OSError:  # another test worker saved it meanwhile (the same bytes), maybe reading it now: keep it
            shutil.rmtree(tmp)
    reference = np.load(os.path.join(path, "reference.npz"))
    return path, {k: reference[k] for k in reference.files}


def save_tiny(family, path, max_shard_size="20KB", seed=0, **overrides):
    """Saves the family's tiny model at path (sharded) and returns torch's reference: {"logits": (b, n,
    vocab) float64 array of the prompt, "generated": greedy tokens (b, n + NEW_TOKENS)}."""
    torch, transformers = _transformers()
    config_name, model_name, extra = FAMILIES[family]
    config = getattr(transformers, config_name)(**{**COMMON, **extra, **overrides}, bos_token_id=1, eos_token_id=2,
                                                pad_token_id=0, initializer_range=0.1)
    torch.manual_seed(seed)
    model = getattr(transformers, model_name)(config).eval()
    model.save_pretrained(path, max_shard_size=max_shard_size)
    ids = torch.tensor(PROMPT)
    with torch.no_grad():
        logits = model(input_ids=ids).logits
        generated = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=NEW_TOKENS,
                                   do_sample=False, eos_token_id=None, pad_token_id=0)
    reference = {"logits": logits.double().numpy(), "generated": generated.numpy()}
    np.savez(os.path.join(path, "reference.npz"), **reference)
    with open(os.path.join(path, "reference.json"), "w") as f:
        json.dump({"logits": reference["logits"].tolist(), "generated": reference["generated"].tolist()}, f)
    return reference
