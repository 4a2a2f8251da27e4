#!/usr/bin/env python3
"""Builds web/chat.html's default model: a tiny Llama trained briefly on Macbeth, in Hugging Face layout.

    python scripts/build_chat_model.py [--steps N] [--out DIR]

Into .cache/models/chat-tiny/ (served as /models/chat-tiny/ by scripts/serve.py): a byte-level BPE
tokenizer.json (512 tokens, trained by `tokenizers` on .cache/text/macbeth.txt, which scripts/setup.sh
unpacks), then transformers' LlamaForCausalLM (2 layers, 64 wide, GQA 4/2) trained with real torch on
the CPU for --steps AdamW steps (150 by default: about a minute on 2 cores), saved by save_pretrained in 100 KB shards with its
config.json and generation_config.json. No pretrained weights exist here to ship; this one writes
Macbeth-flavoured nonsense, which is what the page needs to show loading and streaming.
"""
import argparse
import os
import shutil
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, ".cache", "models", "chat-tiny")
TEXT = os.path.join(REPO, ".cache", "text", "macbeth.txt")


def build(out=OUT, steps=150, seed=0):
    import torch
    for name in ("nms", "qnms"):  # PyPI's torchvision registers fakes of its CUDA build's ops (tests/as_torch/run.py)
        try:
            torch.library.define(f"torchvision::{name}", "(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        except RuntimeError:
            pass
    import tokenizers
    import transformers
    transformers.logging.set_verbosity_error()
    with open(TEXT, encoding="utf-8") as f:
        text = f.read()
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=512, special_tokens=["<|endoftext|>"],
                                             initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([text], trainer)
    ids = torch.tensor(tok.encode(text).ids)
    eos = tok.token_to_id("<|endoftext|>")
    config = transformers.LlamaConfig(vocab_size=tok.get_vocab_size(), hidden_size=64, intermediate_size=192,
                                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                      max_position_embeddings=512, bos_token_id=eos, eos_token_id=eos,
                                      tie_word_embeddings=True)
    torch.manual_seed(seed)
    model = transformers.LlamaForCausalLM(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    context, batch = 64, 16
    for step in range(steps):
        starts = torch.randint(0, len(ids) - context - 1, (batch,))
        x = torch.stack([ids[s:s + context] for s in starts.tolist()])
        loss = model(input_ids=x, labels=x).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0 or step == steps - 1:
            print(f"step {step} loss {loss.item():.3f}", file=sys.stderr)
    tmp = f"{out}.{os.getpid()}"
    model.save_pretrained(tmp, max_shard_size="100KB")
    model.generation_config.save_pretrained(tmp)
    tok.save(os.path.join(tmp, "tokenizer.json"))
    shutil.rmtree(out, ignore_errors=True)
    os.replace(tmp, out)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args(argv)
    print(build(args.out, args.steps))


if __name__ == "__main__":
    main()
