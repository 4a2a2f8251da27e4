"""The demo's character GPT (web/examples/gpt.py) under webtorch against the same file under torch:
logits, loss and gradients with the same weights, a few AdamW steps, and greedy generation through
the KV cache equal to generation without it."""
import types
from pathlib import Path

import pytest
import torch

import webtorch

from compare import assert_close, to_plain

SOURCE = (Path(__file__).resolve().parents[1] / "web" / "examples" / "gpt.py").read_text()


def load(library):
    module = types.ModuleType(f"gpt_{library}")
    exec(compile(SOURCE.replace("import webtorch as torch", f"import {library} as torch"), "gpt.py", "exec"),
         module.__dict__)
    return module


@pytest.fixture(scope="module")
def gpts():
    return load("torch"), load("webtorch")


def twin_models(gpts, device, **config):
    tg, wg = gpts
    torch.manual_seed(0)
    tm = tg.GPT(tg.GPTConfig(**config))
    wm = wg.GPT(wg.GPTConfig(**config)).to(device)
    wm.load_state_dict({k: webtorch.tensor(v.tolist(), device=device) for k, v in tm.state_dict().items()})
    assert wm.lm_head.weight is wm.wte.weight
    return tm, wm


@pytest.mark.parametrize("device", ["webgpu", "cpu"])
def test_training_steps_match_torch(gpts, device):
    tm, wm = twin_models(gpts, device, vocab_size=11, block_size=16, n_layer=2, n_head=2, n_embd=16)
    g = torch.Generator().manual_seed(1)
    topt = torch.optim.AdamW(tm.parameters(), lr=3e-3)
    wopt = webtorch.optim.AdamW(wm.parameters(), lr=3e-3)
    for step in range(4):
        x = torch.randint(0, 11, (3, 16), generator=g)
        y = torch.randint(0, 11, (3, 16), generator=g)
        tl, wl = tm(x, y)[1], wm(webtorch.tensor(x.tolist(), device=device), webtorch.tensor(y.tolist(), device=device))[1]
        assert abs(tl.item() - wl.item()) <= 1e-4 * abs(tl.item()), step
        for loss, opt in ((tl, topt), (wl, wopt)):
            opt.zero_grad()
            loss.backward()
            opt.step()
    assert_close(to_plain(wm.wte.weight), to_plain(tm.wte.weight), 1e-4, 1e-4, "wte after 4 steps")


@pytest.mark.parametrize("device", ["webgpu", "cpu"])
def test_greedy_generation_with_kv_cache(gpts, device):
    tm, wm = twin_models(gpts, device, vocab_size=13, block_size=8, n_layer=2, n_head=2, n_embd=16)
    prompt = [[1, 5, 2]]
    # the cache wraps around once the block is full (3 + 12 > 8)
    ours = wm.generate(webtorch.tensor(prompt, device=device), 12, greedy=True).tolist()
    theirs = tm.generate(torch.tensor(prompt), 12, greedy=True).tolist()
    assert ours == theirs
    # and without a cache: each step runs the whole (windowed) context
    idx = torch.tensor(prompt)
    for _ in range(12):
        logits, _ = tm(idx[:, -(8 - 1):] if idx.shape[1] >= 8 else idx)
        idx = torch.cat([idx, logits[:, -1].argmax(-1, keepdim=True)], 1)
    assert theirs == idx.tolist()


def test_sampling_respects_top_k(gpts):
    _, wm = twin_models(gpts, "webgpu", vocab_size=13, block_size=8, n_layer=1, n_head=2, n_embd=8)
    webtorch.manual_seed(0)
    out = wm.generate(webtorch.tensor([[1, 2]], device="webgpu"), 6, temperature=0.8, top_k=1)
    greedy = wm.generate(webtorch.tensor([[1, 2]], device="webgpu"), 6, greedy=True)
    assert out.tolist() == greedy.tolist()  # top_k=1 leaves one choice
    tok = gpts[1].CharTokenizer("hello world")
    assert tok.decode(tok.encode("hold")) == "hold" and len(tok.chars) == 8
