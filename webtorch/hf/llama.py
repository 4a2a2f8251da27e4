"""The Llama family (Llama 2/3, Mistral, Qwen2, Qwen3) as ordinary PyTorch code, with Hugging Face's
parameter names (model.embed_tokens.weight, model.layers.0.self_attn.q_proj.weight, ..., lm_head.weight),
so a transformers checkpoint's state_dict loads into it unchanged and no transformers is needed (Pyodide).

    model = LlamaForCausalLM(LlamaConfig.from_dict(json.load(open("config.json"))), device="webgpu")
    logits = model(ids)                                # (batch, seq, vocab), like transformers' .logits
    tokens = model.generate(ids, max_new_tokens=20)    # greedy; do_sample=True, temperature, top_k, top_p

The families differ only in config switches: Qwen2 has biases on q/k/v, Qwen3 RMS-normalises q and k
per head, Llama's attention_bias and mlp_bias flags, head_dim may differ from hidden/heads. generate()
keeps a static KV cache (one preallocated tensor per layer, written by slice assignment), prefills the
prompt in one pass with causal SDPA and picks each next token on the GPU (webtorch.hf.sampling): one
small readback per token.
"""
import math

import webtorch as torch

from . import _gpu, decoding, split
from .decoding import DevicePosition

nn = torch.nn
F = torch.nn.functional

MODEL_TYPES = ("llama", "mistral", "qwen2", "qwen3")


class LlamaConfig:
    """The fields of transformers' LlamaConfig / MistralConfig / Qwen2Config / Qwen3Config this model reads."""

    def __init__(self, vocab_size=32000, hidden_size=4096, intermediate_size=11008, num_hidden_layers=32,
                 num_attention_heads=32, num_key_value_heads=None, head_dim=None, hidden_act="silu",
                 max_position_embeddings=2048, rms_norm_eps=1e-6, rope_theta=10000.0, rope_scaling=None,
                 attention_bias=False, mlp_bias=False, tie_word_embeddings=False, model_type="llama",
                 bos_token_id=None, eos_token_id=None, pad_token_id=None, **extra):
        self.vocab_size, self.hidden_size, self.intermediate_size = vocab_size, hidden_size, intermediate_size
        self.num_hidden_layers, self.num_attention_heads = num_hidden_layers, num_attention_heads
        self.num_key_value_heads = num_key_value_heads or num_attention_heads
        self.head_dim = head_dim or hidden_size // num_attention_heads
        self.hidden_act, self.max_position_embeddings, self.rms_norm_eps = hidden_act, max_position_embeddings, rms_norm_eps
        rope = dict(extra.get("rope_parameters") or rope_scaling or {})  # transformers 5 names it rope_parameters
        self.rope_theta = float(rope.pop("rope_theta", rope_theta))
        self.rope_scaling = rope
        self.model_type = model_type
        if model_type not in MODEL_TYPES:
            raise NotImplementedError(f"webtorch.hf: model_type {model_type!r} is not in the Llama family this model "
                                      f"file implements ({', '.join(MODEL_TYPES)})")
        if hidden_act != "silu":
            raise NotImplementedError(f"webtorch.hf: hidden_act {hidden_act!r} (the Llama family uses silu)")
        self.qkv_bias = attention_bias or model_type == "qwen2"  # Qwen2: biases on q, k, v only
        self.o_bias = attention_bias and model_type != "qwen2"
        self.mlp_bias = mlp_bias
        self.qk_norm = model_type == "qwen3"
        self.tie_word_embeddings = tie_word_embeddings
        self.bos_token_id, self.eos_token_id, self.pad_token_id = bos_token_id, eos_token_id, pad_token_id

    @classmethod
    def from_dict(cls, d):
        return cls(**d)


def rope_inverse_frequencies(config):
    """The rotary embedding's frequencies as transformers computes them (default, linear, llama3)."""
    dim, base = config.head_dim, config.rope_theta
    inv_freq = [1.0 / base ** (i / dim) for i in range(0, dim, 2)]
    scaling = config.rope_scaling
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind == "default":
        return inv_freq
    if kind == "linear":
        return [f / scaling["factor"] for f in inv_freq]
    if kind == "llama3":  # Llama 3.1+: long wavelengths divided by factor, a smooth blend between
        factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
        old = scaling["original_max_position_embeddings"]
        out = []
        for f in inv_freq:
            wavelen = 2 * math.pi / f
            if wavelen < old / high:
                out.append(f)
            elif wavelen > old / low:
                out.append(f / factor)
            else:
                smooth = (old / wavelen - low) / (high - low)
                out.append((1 - smooth) * f / factor + smooth * f)
        return out
    raise NotImplementedError(f"webtorch.hf: rope_type {kind!r} (default, linear and llama3 are implemented)")


class RotaryTable:
    """cos and sin of position * frequency, each (n, head_dim), for a (n,) float32 tensor of positions:
    computed where they are used (a decode step's position is a device tensor, not a Python int).
    frequencies: the head_dim/2 inverse frequencies twice over (transformers' cat([freqs, freqs]) of
    the products, taken before the product: the same numbers, and a decode step's angles, cos and sin
    are one fused kernel instead of three)."""

    def __init__(self, config):
        half = rope_inverse_frequencies(config)
        self.frequencies = half + half

    def get(self, positions, frequencies, dtype):
        emb = positions[:, None] * frequencies[None, :]
        return emb.cos().to(dtype), emb.sin().to(dtype)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


def apply_rotary(x, cos, sin):
    return x * cos + rotate_half(x) * sin


class RMSNorm(nn.Module):
    def __init__(self, size, eps, device=None, dtype=None):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size, device=device, dtype=dtype))
        self.eps = eps

    def forward(self, x):
        """transformers' arithmetic: weight * (x.float() * rsqrt(mean(x^2) + eps)).to(x.dtype), as one
        kernel where it can (webgpu, x and weight of one dtype, no gradient)."""
        fused = torch._ops._rms_norm(x, 1, self.weight, self.eps, weight_after_rounding=True)
        if fused is not None:
            return fused
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(x.dtype)

    def add(self, x, delta):
        """(x + delta, self(x + delta)): a residual add and this norm after it, as one kernel where forward
        is one (x itself when delta is None)."""
        if delta is None:
            return x, self(x)
        fused = torch._ops._rms_norm(x, 1, self.weight, self.eps, weight_after_rounding=True, residual=delta)
        if fused is not None:
            return fused[1], fused[0]
        x = x + delta
        return x, self(x)


class NormedInput:
    """norm(x + delta) (norm(x) where delta is None), the input of a layer's projections, computed as they
    read it: a decode step's quantized projections compute it inside their own GEMV (_gpu.fold: no norm
    kernel before them), anything else after RMSNorm.add. sum: x + delta (the residual stream after the
    add), once either has run."""

    def __init__(self, norm, x, delta=None):
        self.norm, self.x, self.delta, self.sum = norm, x, delta, None
        self.shape = x.shape

    def project(self, layers, gated=False):
        """[layer(h) for layer in layers] of h = norm(x + delta), or (gated: an MLP's gate and up)
        silu(first(h)) * second(h); one GEMV kernel where the layers are quantized (webtorch.ao) and few
        rows (a decode step: hf/_gpu.py projections), the norm inside it where it folds (fold)."""
        quantized = hasattr(layers[0], "BITS")
        folded = _gpu.fold(self.norm, self.x, self.delta, layers, gated) if quantized else None
        if folded is not None:
            self.sum, out = folded
            return out
        self.sum, h = self.norm.add(self.x, self.delta)
        out = _gpu.projections(h, layers, gated) if quantized else None
        if out is not None:
            return out
        outs = [layer(h) for layer in layers]  # (gated: both first: a recording fuses silu and * into one kernel)
        return F.silu(outs[0]) * outs[1] if gated else outs


class Attention(nn.Module):
    def __init__(self, c, device=None, dtype=None):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        kw = dict(device=device, dtype=dtype)
        self.q_proj = nn.Linear(c.hidden_size, self.heads * self.head_dim, bias=c.qkv_bias, **kw)
        self.k_proj = nn.Linear(c.hidden_size, self.kv_heads * self.head_dim, bias=c.qkv_bias, **kw)
        self.v_proj = nn.Linear(c.hidden_size, self.kv_heads * self.head_dim, bias=c.qkv_bias, **kw)
        self.o_proj = nn.Linear(self.heads * self.head_dim, c.hidden_size, bias=c.o_bias, **kw)
        if c.qk_norm:
            self.q_norm = RMSNorm(self.head_dim, c.rms_norm_eps, **kw)
            self.k_norm = RMSNorm(self.head_dim, c.rms_norm_eps, **kw)

    def forward(self, x, cos, sin, cache=None, start=0):
        """x: a NormedInput (b, n, hidden); cos, sin: (n, head_dim) of positions start..start+n; cache: (k, v)
        tensors (b, kv_heads, capacity, head_dim) written at [start, start+n) and attended up to start+n;
        start an int, or a DevicePosition (one token at a position the device holds: see decode_attention)."""
        b, n, _ = x.shape
        q, k, v = x.project((self.q_proj, self.k_proj, self.v_proj))
        q = q.view(b, n, self.heads, self.head_dim)
        k = k.view(b, n, self.kv_heads, self.head_dim)
        v = v.view(b, n, self.kv_heads, self.head_dim).transpose(1, 2)
        if hasattr(self, "q_norm"):
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)
        if isinstance(start, DevicePosition):
            out = self.decode_attention(q, k, v, cos, sin, cache, start)
        else:
            q, k = apply_rotary(q, cos, sin), apply_rotary(k, cos, sin)
            mask, causal = None, n > 1
            if cache is not None:
                cache_k, cache_v = cache
                cache_k[:, :, start:start + n] = k
                cache_v[:, :, start:start + n] = v
                k, v = cache_k[:, :, :start + n], cache_v[:, :, :start + n]
                if start and n > 1:  # a chunk after earlier tokens: row i sees columns <= start + i
                    mask = torch.ones(n, start + n, dtype=torch.bool, device=q.device).tril(start)
                    causal = False
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal, enable_gqa=True)
        return self.o_proj(out.transpose(1, 2).reshape(b, n, self.heads * self.head_dim))

    def decode_attention(self, q, k, v, cos, sin, cache, position):
        """One token (q, k, v: (b, heads or kv_heads, 1, head_dim), q and k not yet rotated) against the
        whole static cache, with no Python int in it: k and v go to the cache row at the device's
        position and the rows up to it (position.visible) are attended (on webgpu one kernel for both,
        rotating q and k on the way, or where the adapter cannot bind its buffers one writing the row and
        one attending: hf/_gpu.py; elsewhere masked where()s),
        the rest masked out. The query heads sharing a key/value head are that head's query rows ((b, kv_heads,
        group, head_dim): heads are grouped in order), so the cache is read as it is, not repeated per
        query head. scaled_dot_product_attention's arithmetic, less its guard for rows with nothing
        visible (three kernels): row 0 is always visible here."""
        cache_k, cache_v = cache
        if q.device.type == "webgpu":
            attends, scale = _gpu.attends(self.head_dim), 1.0 / math.sqrt(self.head_dim)
            if attends and _gpu.WRITES_IN_ATTENTION:
                out = _gpu.decode_attention(q, cos, sin, cache_k, cache_v, position.value, scale, k, v)
                if out is not None:
                    return out
            _gpu.write_rows(cache_k, k, cache_v, v, position.value, cos, sin)
            if attends:
                return _gpu.decode_attention(q, cos, sin, cache_k, cache_v, position.value, scale)
            q = _gpu.rotary(q, cos, sin)
        else:
            q = apply_rotary(q, cos, sin)
            cache_k.copy_(torch.where(position.write, apply_rotary(k, cos, sin), cache_k))
            cache_v.copy_(torch.where(position.write, v, cache_v))
        b = q.shape[0]
        grouped = q.reshape(b, self.kv_heads, self.heads // self.kv_heads, self.head_dim)
        scores = torch.matmul(grouped, cache_k.transpose(-2, -1)) * (1.0 / math.sqrt(self.head_dim))
        weights = torch.where(position.visible, scores, -math.inf).softmax(dim=-1)
        return torch.matmul(weights, cache_v).reshape(b, self.heads, 1, self.head_dim)


class MLP(nn.Module):
    def __init__(self, c, device=None, dtype=None):
        super().__init__()
        kw = dict(bias=c.mlp_bias, device=device, dtype=dtype)
        self.gate_proj = nn.Linear(c.hidden_size, c.intermediate_size, **kw)
        self.up_proj = nn.Linear(c.hidden_size, c.intermediate_size, **kw)
        self.down_proj = nn.Linear(c.intermediate_size, c.hidden_size, **kw)

    def forward(self, x):
        """x: a NormedInput."""
        return self.down_proj(x.project((self.gate_proj, self.up_proj), gated=True))


class DecoderLayer(nn.Module):
    def __init__(self, c, device=None, dtype=None):
        super().__init__()
        self.self_attn = Attention(c, device, dtype)
        self.mlp = MLP(c, device, dtype)
        self.input_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps, device, dtype)
        self.post_attention_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps, device, dtype)

    def forward(self, x, cos, sin, cache=None, start=0, delta=None):
        """x: the residual stream, delta: what the layer before adds to it (None: nothing); returns this
        layer's (x, delta). Each add is done by the norm after it (RMSNorm.add: one kernel for both), and
        the norm by the projections after it where they can (NormedInput)."""
        h = NormedInput(self.input_layernorm, x, delta)
        attended = self.self_attn(h, cos, sin, cache, start)
        h = NormedInput(self.post_attention_layernorm, h.sum, attended)
        out = self.mlp(h)
        return h.sum, out


class LlamaModel(nn.Module):
    def __init__(self, c, device=None, dtype=None):
        super().__init__()
        self.embed_tokens = nn.Embedding(c.vocab_size, c.hidden_size, device=device, dtype=dtype)
        self.layers = nn.ModuleList(DecoderLayer(c, device, dtype) for _ in range(c.num_hidden_layers))
        self.norm = RMSNorm(c.hidden_size, c.rms_norm_eps, device, dtype)
        self.rotary = RotaryTable(c)

    def rotary_frequencies(self, device):
        """The rotary frequencies (RotaryTable.frequencies, head_dim of them) as a float32 tensor on device,
        made on first use (the model may be built on the meta device), kept as a tensor attribute: state a
        compiled step reaches."""
        freqs = self.__dict__.get("inv_freq")
        if freqs is None or freqs.device != torch.device(device):
            freqs = self.inv_freq = torch.tensor(self.rotary.frequencies, dtype=torch.float32, device=device)
        return freqs

    def forward(self, input_ids, caches=None, start=0):
        """start: the first token's position, an int, or a DevicePosition (one token per row, caches given)."""
        x = self.embed_tokens(input_ids)
        n = input_ids.shape[1]
        if isinstance(start, DevicePosition):
            positions = start.value
        else:
            positions = torch.arange(start, start + n, dtype=torch.float32, device=x.device)
        cos, sin = self.rotary.get(positions, self.rotary_frequencies(x.device), x.dtype)
        delta = None
        for i, layer in enumerate(self.layers):
            x, delta = layer(x, cos, sin, None if caches is None else caches[i], start, delta)
        return self.norm.add(x, delta)[1]


class LlamaForCausalLM(nn.Module):
    def __init__(self, config, device=None, dtype=None):
        super().__init__()
        self.config = config
        self.model = LlamaModel(config, device, dtype)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False, device=device, dtype=dtype)
        if config.tie_word_embeddings:
            self.tie_weights()

    def tie_weights(self):
        embed = self.model.embed_tokens
        if isinstance(embed, split.SplitEmbedding):  # an embedding too large for one binding: its row blocks
            self.lm_head = split.SplitLinear(list(embed.parts))
        else:
            self.lm_head.weight = embed.weight

    def forward(self, input_ids, caches=None, start=0, last_only=False):
        """Logits (b, n, vocab); last_only: of the last position only (b, 1, vocab), as decoding needs."""
        h = self.model(input_ids, caches, start)
        return self.lm_head(h[:, -1:] if last_only else h)

    def new_cache(self, batch, capacity):
        """The static KV cache: per layer (k, v), each (batch, kv_heads, capacity, head_dim), zeros."""
        c, weight = self.config, self.model.norm.weight
        shape = (batch, c.num_key_value_heads, capacity, c.head_dim)
        return [(torch.zeros(shape, device=weight.device, dtype=weight.dtype),
                 torch.zeros(shape, device=weight.device, dtype=weight.dtype)) for _ in range(c.num_hidden_layers)]

    @torch.no_grad()
    def generate(self, input_ids, max_new_tokens=20, do_sample=False, temperature=1.0, top_k=None, top_p=None,
                 eos_token_id=None, generator=None, on_token=None, replay=True, readback_every=1):
        """input_ids (b, n) -> (b, n + new) like transformers' generate (greedy by default). The prompt is
        prefilled in one pass; each step feeds one token through the static cache, a step recorded once
        and replayed for every token (webtorch.hf.decoding; replay=False runs it eagerly). on_token(tokens)
        is called with each step's list of b token ids (a streaming display); generation stops when every
        row has produced eos_token_id (a list or an int; default: the config's). readback_every: the
        tokens read back at once (each step's token feeds the next on the device; on_token still sees
        each step, a few at a time; the result is the same)."""
        return decoding.generate(self, input_ids, max_new_tokens, do_sample, temperature, top_k, top_p,
                                 eos_token_id, generator, on_token, replay, readback_every)
