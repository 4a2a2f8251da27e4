"""Hugging Face checkpoints without transformers: webtorch.hf.from_pretrained(folder or URL prefix).

    import webtorch as torch
    from webtorch import hf
    model = hf.from_pretrained("https://example.org/models/tiny-llama/", device="webgpu",
                               progress=lambda e: print(e["status"], e["loaded"], e["total"]))
    tokens = model.generate(torch.tensor([[1, 2, 3]], device="webgpu"), max_new_tokens=8)

The model is built on the meta device (no memory), then each shard's tensors go straight to their
GPU buffers (webtorch.hf.checkpoint). Models: the Llama family (webtorch/hf/llama.py: Llama, Mistral,
Qwen2, Qwen3). With real transformers code on webtorch (webtorch.install_as_torch()), transformers'
own from_pretrained works too. See docs/hf_models.md.
"""
import webtorch as torch

from . import checkpoint, llama, sampling  # noqa: F401
from .checkpoint import Folder
from .llama import LlamaConfig, LlamaForCausalLM
from .tokenizer import Tokenizer

__all__ = ["Folder", "LlamaConfig", "LlamaForCausalLM", "Tokenizer", "from_pretrained"]


def _quantizer(config):
    """quantization_config as a hook on each loaded nn.Linear: a callable(module), or a torchao-style
    config for webtorch.ao.quantization.quantize_."""
    if config is None:
        return None
    if callable(config):
        quantize = config
    else:
        from ..ao.quantization import quantize_

        def quantize(module):
            quantize_(module, config)

    def on_module_loaded(name, module):
        if isinstance(module, torch.nn.Linear):
            quantize(module)
    return on_module_loaded


def from_pretrained(source, device="webgpu", dtype=None, progress=None, quantization_config=None):
    """The causal LM of a Hugging Face folder (a directory or URL prefix) on device, in eval mode.

    dtype: cast floating weights to it as they arrive (default: the checkpoint's dtype). progress:
    called with {"status", "file", "loaded", "total"} dicts (webtorch.hf.checkpoint.stream_weights).
    quantization_config: a torchao-style config (webtorch.ao's Int8WeightOnlyConfig, ...) or a callable,
    applied to each nn.Linear as soon as its weight has arrived, so that full-precision weights of the
    whole model never coexist. model.config is the LlamaConfig, model.generation_config the
    generation_config.json's dict ({} when absent)."""
    folder = Folder(source)
    config = LlamaConfig.from_dict(folder.json("config.json"))
    with torch.device("meta"):
        model = LlamaForCausalLM(config, dtype=dtype)
    missing, unexpected = checkpoint.stream_weights(model, folder, device, dtype, progress,
                                                    _quantizer(quantization_config))
    if config.tie_word_embeddings:
        model.tie_weights()
        missing = [m for m in missing if m != "lm_head.weight"]
    if missing or unexpected:
        raise RuntimeError(f"webtorch.hf: the checkpoint at {source} does not match the {config.model_type} "
                           f"model: missing {missing[:8]}{'...' if len(missing) > 8 else ''}, unexpected "
                           f"{unexpected[:8]}{'...' if len(unexpected) > 8 else ''}")
    model.generation_config = folder.json("generation_config.json", default={})
    return model.eval()
