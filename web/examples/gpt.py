"""A character-level GPT in the style of nanoGPT (https://github.com/karpathy/nanoGPT, MIT), written
for this demo as ordinary PyTorch code: it runs under torch and under webtorch with only the import
line changed. Pre-norm Transformer blocks, learned position
embeddings, the output layer tied to the token embedding, generation with a KV cache."""
import math
from dataclasses import dataclass

import webtorch as torch  # tests/test_gpt_example.py also loads this file with `import torch` here
nn = torch.nn
F = torch.nn.functional


@dataclass
class GPTConfig:
    vocab_size: int = 65
    block_size: int = 64
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64
    dropout: float = 0.0


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.n_head, self.n_embd = config.n_head, config.n_embd
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.dropout = config.dropout

    def forward(self, x, cache=None):
        """cache: None (training: every position attends to those before it), or this layer's
        [keys, values] of the positions generated so far, extended in place."""
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        if cache is not None:
            if cache:
                k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
            cache[:] = [k, v]
        # with a cache the T new positions come last: causal unless there is one query
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0,
                                           is_causal=T > 1)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = nn.Sequential(nn.Linear(config.n_embd, 4 * config.n_embd), nn.GELU(),
                                 nn.Linear(4 * config.n_embd, config.n_embd), nn.Dropout(config.dropout))

    def forward(self, x, cache=None):
        x = x + self.attn(self.ln_1(x), cache)
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.block_size, config.n_embd)
        self.h = nn.ModuleList([Block(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.lm_head.weight = self.wte.weight  # tied, as in GPT-2
        self.apply(self._init_weights)
        for name, p in self.named_parameters():  # GPT-2's scaled init of the residual projections
            if name.endswith("c_proj.weight") or name.endswith("mlp.2.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    @staticmethod
    def _init_weights(module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, idx, targets=None, caches=None, start=0):
        """idx: (B, T) token ids at positions start..start+T-1; returns (logits, loss or None)."""
        T = idx.shape[1]
        if start + T > self.config.block_size:
            raise ValueError(f"sequence of {start + T} tokens, block size is {self.config.block_size}")
        pos = torch.arange(start, start + T, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for i, block in enumerate(self.h):
            x = block(x, None if caches is None else caches[i])
        logits = self.lm_head(self.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None, greedy=False):
        """Appends max_new_tokens ids to idx (B, T): the prompt runs once, then each new token is one
        position through the cached keys and values (a new window once the block is full)."""
        caches, start = None, 0
        for _ in range(max_new_tokens):
            if caches is None or start + 1 > self.config.block_size:
                context = idx[:, -(self.config.block_size - 1):]
                caches, start = [[] for _ in self.h], 0
                logits, _ = self(context, caches=caches, start=start)
                start = context.shape[1]
            else:
                logits, _ = self(idx[:, -1:], caches=caches, start=start)
                start += 1
            logits = logits[:, -1, :]
            if greedy:
                next_id = logits.argmax(dim=-1, keepdim=True)
            else:
                logits = logits / temperature
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.shape[-1]))
                    logits = logits.masked_fill(logits < v[:, [-1]], -float("inf"))
                next_id = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)
            idx = torch.cat((idx, next_id), dim=1)
        return idx


class CharTokenizer:
    """Characters of a text as token ids, in sorted order (nanoGPT's shakespeare_char)."""

    def __init__(self, chars):
        self.chars = sorted(set(chars))
        self.index = {c: i for i, c in enumerate(self.chars)}

    def encode(self, text):
        return [self.index[c] for c in text]

    def decode(self, ids):
        return "".join(self.chars[i] for i in ids)
