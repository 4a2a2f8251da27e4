"""Decoding with a static KV cache and one captured step: the model's generate() runs here.

Eagerly, a decode step issues every kernel from Python (~60 per layer: ~1000 per token for a 16-layer
model), and the Python costs more than the GPU's work. Here the step is recorded once by
webtorch.compile and replayed for every later token of every generation that fits its cache: nothing
in it is a Python int that changes per token. The position lives on the device (a (1,) float32
buffer the step advances itself), and the kernels derive from it the rotary angles, the cache row the
new key and value go to (a masked write) and the rows attended (a mask over the whole static cache),
so one recording serves every position. The token goes in as a (b, 1) device tensor, the next one
comes out as a (b,) one, picked on the GPU (argmax, or Gumbel-max on uniform draws made before the
step: a replay draws nothing itself); the host reads back that token only, to stream it and test for
end of sequence. The prompt is prefilled in one pass with causal SDPA.

The cache and its step are kept on the model between generate() calls whose batch and capacity (the
prompt plus the new tokens, rounded up to CAPACITY_STEP rows where the model's positions and a
binding allow) match, so a later generation replays
from its first decode step.
"""
import functools

import webtorch as torch

from . import sampling, split

CAPACITY_STEP = 256  # cache rows are allocated in multiples of this: generations of similar lengths share one


class DevicePosition:
    """A decode step's position held on the device, value (1,) float32 (exact up to 2**24), and the
    masks it gives over a static cache's capacity rows: write ((capacity, 1) bool, the row of this
    token) and visible ((capacity,) bool, the rows up to it). A captured step reads it as a tensor, so
    one recording serves every position."""

    def __init__(self, value, rows):
        """rows: (capacity,) float32, 0, 1, 2, ... (made once: an arange in the step would be an upload)."""
        self.value, self.rows = value, rows

    # made where used (the composed path's): on webgpu the step's kernels read the position itself
    @functools.cached_property
    def write(self):
        return (self.rows == self.value)[:, None]

    @functools.cached_property
    def visible(self):
        return self.rows <= self.value


class DecodeStep(torch.nn.Module):
    """The model with its static KV cache: forward(token (b, 1), uniform) -> next token (b,), at the
    position the device holds, which it then advances. The sampling settings are plain attributes (a
    compiled step is guarded on them, and recorded again when they change)."""

    def __init__(self, model, batch, capacity):
        super().__init__()
        self.model, self.batch, self.capacity = model, batch, capacity
        for i, (k, v) in enumerate(model.new_cache(batch, capacity)):
            self.register_buffer(f"key_{i}", k, persistent=False)
            self.register_buffer(f"value_{i}", v, persistent=False)
        weight = model.model.norm.weight
        self.register_buffer("position", torch.zeros(1, device=weight.device), persistent=False)
        self.register_buffer("rows", torch.arange(capacity, dtype=torch.float32, device=weight.device), persistent=False)
        model.model.rotary_frequencies(weight.device)  # state the step reaches, made before it is recorded
        self.sample(sampling.Sampler())

    def sample(self, sampler):
        """The sampler's settings, set where they differ: setting a module's attribute counts as a change
        (nn.module._Changes), which makes the compiled step's next call walk every module (its full guard)."""
        for name in ("do_sample", "temperature", "top_k", "top_p"):
            value = getattr(sampler, name)
            if self.__dict__.get(name, sampler) != value or type(self.__dict__[name]) is not type(value):
                setattr(self, name, value)

    def caches(self):
        layers = range(self.model.config.num_hidden_layers)
        return [(getattr(self, f"key_{i}"), getattr(self, f"value_{i}")) for i in layers]

    def prefill(self, input_ids):
        """The prompt (b, n) through the model in one pass, its keys and values into cache rows [0, n);
        the last position's logits (b, vocab)."""
        logits = self.model(input_ids, self.caches(), 0, last_only=True)
        self.position.fill_(input_ids.shape[1])
        return logits[:, -1]

    def forward(self, token, uniform=None):
        logits = self.model(token, self.caches(), DevicePosition(self.position, self.rows), last_only=True)
        self.position.add_(1)
        return sampling.Sampler(self.do_sample, self.temperature, self.top_k, self.top_p)(logits[:, -1], uniform)


class Decoder:
    """A DecodeStep and its compiled form (replay=False: the same step run eagerly)."""

    def __init__(self, model, batch, capacity, replay=True):
        self.module = DecodeStep(model, batch, capacity)
        self.replay = replay
        # reduce-overhead: the step's intermediates keep their buffers between replays (webtorch.compile)
        self.step = torch.compile(self.module, mode="reduce-overhead") if replay else self.module

    @property
    def stats(self):
        """webtorch.compile's counts of the step's calls: {"captures", "replays", "eager"} (None: replay=False)."""
        return self.step._compiled_call.stats if self.replay else None

    @staticmethod
    def capacity(model, batch, tokens):
        """tokens rounded up to CAPACITY_STEP rows, but not beyond the model's max_position_embeddings or
        what one binding holds (a layer's keys are one tensor), unless tokens itself is."""
        c, weight = model.config, model.model.norm.weight
        rounded = min(-(-tokens // CAPACITY_STEP) * CAPACITY_STEP, c.max_position_embeddings)
        fits = split.rows_per_part((rounded, batch * c.num_key_value_heads * c.head_dim), weight.dtype, weight.device)
        return max(tokens, rounded if fits is None else min(rounded, fits))

    @classmethod
    def for_model(cls, model, batch, tokens, replay=True):
        """The model's decoder for batch rows of up to tokens positions: the one kept from an earlier
        call when it fits, else a new one (which replaces it: one cache is kept per model)."""
        capacity = cls.capacity(model, batch, tokens)
        kept = model.__dict__.get("_decoder")
        if kept is not None and (kept.module.batch, kept.module.capacity, kept.replay) == (batch, capacity, replay) \
                and kept.module.position.device == model.model.norm.weight.device:
            return kept
        model.__dict__["_decoder"] = None  # the old cache goes before the new one is allocated
        decoder = model.__dict__["_decoder"] = cls(model, batch, capacity, replay)
        return decoder


def generate(model, input_ids, max_new_tokens=20, do_sample=False, temperature=1.0, top_k=None, top_p=None,
             eos_token_id=None, generator=None, on_token=None, replay=True, readback_every=1):
    """LlamaForCausalLM.generate's body (see there)."""
    b, n = input_ids.shape
    if readback_every < 1:
        raise ValueError(f"readback_every must be at least 1, got {readback_every}")
    if max_new_tokens <= 0:
        return input_ids
    eos = model.config.eos_token_id if eos_token_id is None else eos_token_id
    eos = set(eos if isinstance(eos, (list, tuple)) else [] if eos is None else [eos])
    pad = model.config.pad_token_id or 0
    pick = sampling.Sampler(do_sample, temperature, top_k, top_p, generator)
    decoder = Decoder.for_model(model, b, n + max_new_tokens, replay)
    decoder.module.sample(pick)
    token = pick(decoder.module.prefill(input_ids))  # (b,) int64 on the model's device
    finished, new, pending = [False] * b, [], []
    vocab, device = model.config.vocab_size, input_ids.device
    for step in range(max_new_tokens):
        pending.append(token)
        last = step == max_new_tokens - 1
        ended = None  # the last read tokens, when a row has ended: the next step gets them, pad for ended rows
        if len(pending) == readback_every or last:  # one readback for the pending tokens
            rows = [[t] for t in token.tolist()] if len(pending) == 1 else torch.stack(pending, dim=1).tolist()
            pending = []
            for column in zip(*rows):
                ids = [pad if done else t for t, done in zip(column, finished)]
                finished = [done or t in eos for t, done in zip(ids, finished)]
                new.append(ids)
                if on_token is not None:
                    on_token(ids)
                if all(finished):
                    break
            if all(finished):
                break
            ended = ids if any(finished) else None
        if not last:  # rows are independent: a row that ended within unread tokens changes no other row
            feed = token[:, None] if ended is None else torch.tensor(ended, device=device)[:, None]
            token = decoder.step(feed, pick.uniform((b, vocab), device))
    return torch.cat([input_ids, torch.tensor(new, dtype=torch.int64, device=device).t()], dim=1)
