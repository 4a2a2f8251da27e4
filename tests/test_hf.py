"""webtorch.hf: Hugging Face folders (sharded safetensors saved by real transformers) loaded into the
Llama-family model file, against real transformers' logits and greedy generations; the host memory
while loading; quantize-on-load's hook; sampling's warpers against transformers' and its draws
against softmax's probabilities."""
import os
import tracemalloc

import numpy as np
import pytest

import webtorch
from webtorch import hf

import hf_tiny


saved = hf_tiny.saved


@pytest.mark.parametrize("family", sorted(hf_tiny.FAMILIES))
def test_matches_transformers(family):
    """Logits within 1e-4 of torch's scale and the same greedy tokens (KV cache, prefill, decode)."""
    path, reference = saved(family)
    assert len([f for f in os.listdir(path) if f.endswith(".safetensors")]) > 2  # really sharded
    model = hf.from_pretrained(path, device="webgpu")
    ids = webtorch.tensor(hf_tiny.PROMPT, device="webgpu")
    with webtorch.no_grad():
        logits = np.array(model(ids).tolist())
    expected = reference["logits"]
    assert np.abs(logits - expected).max() <= 1e-4 * np.abs(expected).max()
    generated = model.generate(ids, max_new_tokens=hf_tiny.NEW_TOKENS).tolist()
    assert generated == reference["generated"].tolist()


def test_decode_step_recorded_once_and_replayed():
    """generate() records its decode step once and replays it for every later token, of this generation
    and of the next one (a shorter prompt: the position is a device tensor, not part of the step's
    signature): the tokens are torch's and those of the same step run eagerly (replay=False); a row
    that ends (eos) is padded while the other goes on, also when tokens are read back 3 at a time;
    seeded top-k/top-p sampling draws the same tokens replayed as eagerly. The step's rotary angles, cos
    and sin are one kernel; a later generate() with the same settings changes no module (its steps
    replay under the fast guard)."""
    path, reference = saved("llama")
    expected = reference["generated"].tolist()
    model = hf.from_pretrained(path)
    ids = webtorch.tensor(hf_tiny.PROMPT, device="webgpu")
    new = hf_tiny.NEW_TOKENS
    assert model.generate(ids, max_new_tokens=new, replay=False).tolist() == expected
    shorter = model.generate(ids[:, :4], max_new_tokens=new, replay=False).tolist()
    assert model.generate(ids, max_new_tokens=new).tolist() == expected
    checked = model._decoder.step._compiled_call.checked
    assert model.generate(ids[:, :4], max_new_tokens=new).tolist() == shorter
    assert model._decoder.step._compiled_call.checked is checked  # no module changed: the fast guard throughout
    assert model._decoder.stats == {"captures": 1, "replays": 2 * (new - 1) - 1, "eager": 0}
    steps = model._decoder.step._compiled_call.checked.entry.program.steps  # the rotary angles, cos, sin: one kernel
    assert [["mul", "cos", "sin"] == [m[0] for m in s[1][0][3]] for s in steps if s[0] == "fused"].count(True) == 1
    eos = expected[0][len(hf_tiny.PROMPT[0]) + 1]  # row 0's second new token ends it; row 1 never makes it
    assert eos not in expected[1][len(hf_tiny.PROMPT[1]):]
    ended = expected[0][:len(hf_tiny.PROMPT[0]) + 2] + [0] * (new - 2)
    assert model.generate(ids, max_new_tokens=new, eos_token_id=eos).tolist() == [ended, expected[1]]
    seen = []  # tokens fed on the device, read back 3 at a time: the same tokens and events
    assert model.generate(ids, max_new_tokens=new, readback_every=3, on_token=seen.append).tolist() == expected
    assert seen == [list(column) for column in zip(*(row[-new:] for row in expected))]
    assert model.generate(ids, max_new_tokens=new, eos_token_id=eos, readback_every=3).tolist() == [ended, expected[1]]
    draws = []
    for replay in (True, True, False):
        generator = webtorch.Generator("webgpu").manual_seed(7)
        draws.append(model.generate(ids, max_new_tokens=new, do_sample=True, temperature=0.7, top_k=20, top_p=0.9,
                                    generator=generator, replay=replay).tolist())
        if replay:  # the sampled step is recorded once more (its settings are part of the signature)
            assert model._decoder.stats["captures"] == 2 and model._decoder.stats["eager"] == 0
    assert draws[0] == draws[1] == draws[2]


def test_url_prefix_progress_and_host_peak():
    """A file:// URL prefix (fetched whole, shard by shard, like http) and a directory (read tensor by
    tensor): the Python heap's peak while streaming stays within the largest shard + 10%, progress
    reports every byte, and the logits are the directory's."""
    path, _ = saved("qwen2", max_shard_size="1MB", vocab_size=4096, hidden_size=64)  # 1 MiB embedding
    shards = [os.path.join(path, f) for f in os.listdir(path) if f.endswith(".safetensors")]
    largest = max(os.path.getsize(f) for f in shards)
    events = []

    def progress(event):  # keeps the first and the last events only: a list of all would be measured
        events[min(len(events), 1):] = [event]
    for source in (path, "file://" + path):
        folder = hf.Folder(source)
        for traced in (False, True):  # the first pass imports what reading a source needs (~1 MB of code)
            events.clear()
            with webtorch.device("meta"):
                model = hf.LlamaForCausalLM(hf.LlamaConfig.from_dict(folder.json("config.json")))
            if traced:
                tracemalloc.start()
            try:
                missing, unexpected = hf.checkpoint.stream_weights(model, folder, "webgpu", progress=progress)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
        assert missing == [] and unexpected == []
        assert peak <= 1.1 * largest, (source, peak, largest)
        first, done = events
        assert first["status"] == ("download" if "://" in source else "weights")
        assert done["status"] == "done" and done["loaded"] == done["total"] > 0.9 * sum(map(os.path.getsize, shards))


def test_quantize_on_load_hook_and_dtype():
    """quantization_config (here a callable) sees each nn.Linear once, as soon as its weight is on the
    device, before later shards arrive; dtype casts the weights as they come."""
    path, reference = saved("mistral")
    seen = []

    def quantize(module):
        seen.append((module.weight.device.type, module.weight.dtype))
        module.weight.data.mul_(0)  # visible effect: the logits become zero
    model = hf.from_pretrained(path, quantization_config=quantize, dtype=webtorch.float16)
    assert seen == [("webgpu", webtorch.float16)] * (2 * 7 + 1)  # 7 per layer, the head
    with webtorch.no_grad():
        assert model(webtorch.tensor(hf_tiny.PROMPT, device="webgpu")).abs().max().item() == 0


def test_errors(tmp_path):
    path, _ = saved("llama")
    with pytest.raises(OSError, match="config.json"):
        hf.from_pretrained(str(tmp_path))
    with pytest.raises(NotImplementedError, match="gpt2"):
        hf.LlamaConfig(model_type="gpt2")
    import json
    config = json.load(open(os.path.join(path, "config.json")))
    config["intermediate_size"] = 48
    bad = tmp_path / "bad"
    bad.mkdir()
    for f in os.listdir(path):
        os.symlink(os.path.join(path, f), bad / f)
    os.remove(bad / "config.json")
    (bad / "config.json").write_text(json.dumps(config))
    with pytest.raises(RuntimeError, match="mlp.*shape"):
        hf.from_pretrained(str(bad))


def test_greedy_pick_of_float16_logits_is_that_of_their_float32():
    """The greedy pick reads float16 logits as they are (the decode step widens no vocabulary-long row
    first): the index torch's argmax gives on them widened to float32, with ties (the first), infinities,
    NaN, and a long row whose maximum ties across the reduction's partial blocks."""
    import torch
    from webtorch.hf import sampling
    inf, nan = float("inf"), float("nan")
    rows = [[1.0, 3.0, 3.0, -1.0], [-inf, -2.0, -2.0, -inf], [0.5, nan, 7.0, 7.0], [65504.0, inf, 1.0, inf]]
    long = np.random.default_rng(0).standard_normal((2, 3000)).astype(np.float16)
    long[:, [100, 2900]] = 9.0
    for values in (rows, long.tolist()):
        logits = webtorch.tensor(values, dtype=webtorch.float16, device="webgpu")
        want = torch.tensor(values, dtype=torch.float16).float().argmax(dim=-1).tolist()
        assert sampling.Sampler()(logits).tolist() == want
        rt = webtorch.backend.webgpu.runtime()
        counts = []
        for pick in (sampling.Sampler(), lambda x: x.argmax(dim=-1)):  # no widening copy: argmax's kernels only
            k0 = rt.kernels_dispatched
            pick(logits)
            counts.append(rt.kernels_dispatched - k0)
        assert counts[0] == counts[1]


def test_warpers_match_transformers():
    """temperature, top-k, top-p as transformers' logits warpers (same -inf set, same values)."""
    torch, transformers = hf_tiny._transformers()
    from transformers.generation import logits_process as lp
    rng = np.random.default_rng(0)
    scores = rng.standard_normal((3, 50)).astype(np.float32) * 3
    for temperature, top_k, top_p in [(0.7, None, None), (1.0, 5, None), (1.0, None, 0.8), (1.3, 10, 0.5)]:
        expected = torch.tensor(scores)
        for warper in ([lp.TemperatureLogitsWarper(temperature)] + ([lp.TopKLogitsWarper(top_k)] if top_k else [])
                       + ([lp.TopPLogitsWarper(top_p)] if top_p else [])):
            expected = warper(None, expected)
        got = hf.sampling.warp(webtorch.tensor(scores, device="webgpu"), temperature, top_k, top_p)
        np.testing.assert_allclose(np.array(got.tolist()), expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize("largest", [True, False])
def test_topk_of_long_rows_by_chunks(largest, monkeypatch):
    """topk over a vocabulary-long row (sampling's top-k) goes by chunks of TOPK_CHUNK (_topk_by_chunks,
    not one sort of the whole row): torch's values, and the indices of torch's stable sort, with ties
    across chunks, infinities and NaNs, a row length no multiple of the chunk, k from 1 to a chunk's
    quarter of the row; on the autograd tape as sort's."""
    import torch
    from webtorch import _math_ops

    g = torch.Generator().manual_seed(0)
    n = 5 * _math_ops.TOPK_CHUNK + 37
    x = (torch.randn(2, n, generator=g) * 4).round() / 4  # many ties
    x[0, 17], x[0, 3000], x[1, 4000], x[1, 9] = torch.inf, -torch.inf, torch.nan, torch.nan
    sorted_rows, sort = [], webtorch.backend.gpu.sort
    monkeypatch.setattr(webtorch.backend.gpu, "sort", lambda m, d: sorted_rows.append(m.shape[-1]) or sort(m, d))
    for k in (1, 40, n // 24):
        order = torch.sort(x, stable=True, dim=-1, descending=largest).indices[:, :k]
        got = webtorch.tensor(x, device="webgpu").topk(k, largest=largest)
        assert torch.equal(torch.tensor(got.indices.tolist()), order)
        torch.testing.assert_close(torch.tensor(got.values.tolist()), x.gather(-1, order), equal_nan=True)
    assert max(sorted_rows) < n // 4  # no sort of a whole row
    w = webtorch.tensor(x[:, :4 * _math_ops.TOPK_CHUNK].nan_to_num(), device="webgpu", requires_grad=True)
    w.topk(3, largest=largest).values.sum().backward()
    assert w.grad.sum().item() == 6 and w.grad.abs().max().item() == 1


def test_top_p_after_top_k_without_the_sort(monkeypatch):
    """warp's top-p after top-k (sampling.top_p_of_top_k: no sort of the vocabulary) removes the tokens
    the sort-based TopPLogitsWarper removes, ties by index as a stable ascending sort: rows with ties at
    and above the k-th value, every kept token tied, top_p 0 (only the last token stays) and 1e-9."""
    import torch
    rng = np.random.default_rng(1)
    scores = np.round(rng.standard_normal((4, 300)) * 2).astype(np.float32) / 2
    scores[3] = 1.0
    sorts, sort = [], webtorch.backend.gpu.sort
    monkeypatch.setattr(webtorch.backend.gpu, "sort", lambda m, d: sorts.append(m.shape) or sort(m, d))
    for top_k, top_p in [(10, 0.5), (25, 0.9), (3, 0.0), (40, 1e-9), (299, 0.7)]:
        x = torch.tensor(scores)
        x = x.masked_fill(x < x.topk(top_k).values[..., -1:], -torch.inf)
        ordered, order = x.sort(stable=True, dim=-1)
        remove = ordered.softmax(-1).cumsum(-1) <= 1 - top_p
        remove[..., -1] = False
        expected = x.masked_fill(remove.scatter(-1, order, remove), -torch.inf)
        got = hf.sampling.warp(webtorch.tensor(scores, device="webgpu"), 1.0, top_k, top_p)
        assert torch.equal(torch.tensor(got.tolist()).isinf(), expected.isinf()), (top_k, top_p)
    assert len(sorts) == 5  # top-k's only

def test_gumbel_draws_follow_softmax():
    """Sampling draws each token with softmax's probability (after the warpers): 20000 draws, each
    frequency within 5 standard deviations; top-k's removed tokens never drawn."""
    logits = webtorch.tensor([[2.0, 1.0, 0.0, -1.0, 0.5]] * 20000, device="webgpu")
    draws = np.array(hf.sampling.Sampler(True, temperature=1.0)(logits).tolist())
    p = np.exp([2.0, 1.0, 0.0, -1.0, 0.5])
    p /= p.sum()
    freq = np.bincount(draws, minlength=5) / len(draws)
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / len(draws))), (freq, p)
    draws = hf.sampling.Sampler(True, temperature=0.5, top_k=2)(logits).tolist()
    assert set(draws) == {0, 1}
    with pytest.raises(ValueError, match="temperature"):
        hf.sampling.Sampler(True, temperature=0.0)


def test_tokenizer_matches_the_tokenizers_library():
    """webtorch.hf.Tokenizer (plain Python, for Pyodide) gives the ids of the Rust `tokenizers` library for
    a byte-level BPE trained here (merges, a special token, non-ASCII text), and decodes them back."""
    import tokenizers
    text = ("Is this a dagger which I see before me, the handle toward my hand? Come, let me clutch thee. "
            "I have thee not, and yet I see thee still. 1606: Ünïcödé — ça va? 日本語 don't we'll\n\n  end")
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = tokenizers.decoders.ByteLevel()
    tok.train_from_iterator([text] * 3, tokenizers.trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<|endoftext|>"], initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet()))
    ours = hf.Tokenizer.from_str(tok.to_str())
    for sample in (text, "<|endoftext|>thee, dagger!<|endoftext|> 42 x", "still  hand\tme"):
        ids = tok.encode(sample).ids
        assert ours.encode(sample) == ids, sample
        assert ours.decode(ids) == tok.decode(ids, skip_special_tokens=False)
        assert ours.decode(ids, skip_special_tokens=True) == tok.decode(ids, skip_special_tokens=True)


def test_quantize_on_load_equals_quantize_after():
    """from_pretrained(quantization_config=Int8WeightOnlyConfig()) gives the logits of the float model
    quantized afterwards by quantize_: the same arithmetic, layer by layer while loading."""
    from webtorch.ao.quantization import Int8WeightOnlyConfig, quantize_
    path, _ = saved("qwen3")
    ids = webtorch.tensor(hf_tiny.PROMPT, device="webgpu")
    on_load = hf.from_pretrained(path, quantization_config=Int8WeightOnlyConfig())
    after = quantize_(hf.from_pretrained(path), Int8WeightOnlyConfig())
    assert type(on_load.model.layers[0].mlp.up_proj) is type(after.model.layers[0].mlp.up_proj) \
        is not webtorch.nn.Linear
    with webtorch.no_grad():
        assert on_load(ids).tolist() == after(ids).tolist()


@pytest.mark.parametrize("family", ["llama", "qwen2"])
def test_weights_above_a_lowered_binding_limit(family):
    """With the binding limit lowered to 8 KiB, the 12 KiB embedding and output layer (untied in llama,
    tied in qwen2) load in row blocks (read from the shard by row range) and the logits and greedy
    tokens are still torch's; a whole 12 KiB tensor cannot be made there."""
    path, reference = saved(family)
    limits = webtorch.backend.webgpu.runtime().limits
    saved_limit = limits["max_storage_buffer_binding_size"]
    limits["max_storage_buffer_binding_size"] = 8192
    try:
        with pytest.raises(webtorch.OutOfMemoryError, match="maxStorageBufferBindingSize"):
            webtorch.empty(96, 32, device="webgpu")
        model = hf.from_pretrained(path)
        assert isinstance(model.model.embed_tokens, hf.split.SplitEmbedding)
        assert [p.shape[0] for p in model.lm_head.parts] == [64, 32]
        ids = webtorch.tensor(hf_tiny.PROMPT, device="webgpu")
        with webtorch.no_grad():
            logits = np.array(model(ids).tolist())
        expected = reference["logits"]
        assert np.abs(logits - expected).max() <= 1e-4 * np.abs(expected).max()
        assert model.generate(ids, max_new_tokens=hf_tiny.NEW_TOKENS).tolist() == reference["generated"].tolist()
    finally:
        limits["max_storage_buffer_binding_size"] = saved_limit


# (family, activations, bits, the adapter's storage buffers per stage lowered to (None: as it is), norms
# folded per layer, generate() too): qwen2's q/k/v projections have biases (15 bindings at int4), so at 15
# only the post-attention norm folds (into the gate/up GEMV: 9 bindings + its weight, residual and sum);
# llama's MLP has biases too (mlp_bias: the parts GEMV, then silu *)
FOLD_CASES = [("llama", "float32", 4, None, 2, True), ("llama", "float16", 8, None, 2, False),
              ("qwen2", "float16", 4, None, 2, False), ("qwen2", "float32", 8, None, 2, False),
              ("qwen2", "float32", 4, 15, 1, False)]


@pytest.mark.parametrize("family,dtype,bits,storage_buffers,folded,generate", FOLD_CASES)
def test_norms_folded_into_the_projections_change_no_bit(family, dtype, bits, storage_buffers, folded, generate,
                                                        monkeypatch):
    """A quantized model's RMSNorms computed inside the GEMVs after them (hf/_gpu.py fold, gemv_norm.wgsl)
    give the logits of the norm kernels bit for bit: a 3-token prompt (3 rows of x), then one token at a
    time through the KV cache (one row: a decode step), and generate()'s replayed steps the same tokens;
    two norm kernels fewer per layer, fewer where the bindings do not fit (the norm kernel then)."""
    from webtorch.ao.quantization import Int4WeightOnlyConfig, Int8WeightOnlyConfig
    path, _ = saved(family)
    rt = webtorch.backend.webgpu.runtime()
    if storage_buffers:
        monkeypatch.setitem(rt.limits, "max_storage_buffers_per_shader_stage", storage_buffers)
    ids = webtorch.tensor(hf_tiny.PROMPT[:1], device="webgpu")
    results = {}
    for fold in (True, False):
        monkeypatch.setattr(hf._gpu, "FOLD_NORMS", fold)
        model = hf.from_pretrained(path, quantization_config=Int4WeightOnlyConfig(group_size=32) if bits == 4 else
                                   Int8WeightOnlyConfig(), dtype=getattr(webtorch, dtype))
        with webtorch.no_grad():
            before = rt.kernels_dispatched
            logits = [model(ids[:, :3]).tolist()]
            kernels = rt.kernels_dispatched - before
            caches = model.new_cache(1, 8)
            logits += [model(ids[:, i:i + 1], caches, start=i).tolist() for i in range(4)]
        tokens = model.generate(ids, max_new_tokens=3).tolist() if generate else None
        results[fold] = logits, tokens, kernels
    assert results[True][:2] == results[False][:2]
    assert results[False][2] - results[True][2] == folded * model.config.num_hidden_layers


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_rotary_and_cache_row_kernels(dtype):
    """hf/_gpu.py's rotary.wgsl against torch's composed rotary (x * cos + rotate_half(x) * sin, each op
    rounded to the dtype), on random inputs: a new tensor for q, and k (rotated) and v (as is) written
    in place (one kernel) into their static caches' rows at the device's position, the other rows untouched. float16 rounds
    each product, so it is exact; float32's sum may be contracted into an fma by a GPU's compiler."""
    import torch
    from webtorch.hf import _gpu

    g = torch.Generator().manual_seed(0)
    td, wd = getattr(torch, dtype), getattr(webtorch, dtype)
    x = torch.randn(2, 3, 1, 8, generator=g).to(td)
    cos, sin = torch.randn(1, 8, generator=g).to(td), torch.randn(1, 8, generator=g).to(td)
    cache = torch.randn(2, 3, 5, 8, generator=g).to(td)
    expected = x * cos + torch.cat([-x[..., 4:], x[..., :4]], -1) * sin

    def on_gpu(t):
        return webtorch.tensor(t.float().tolist(), device="webgpu").to(wd)

    def back(t):
        return torch.tensor(t.float().tolist()).to(td)

    def check(got, want):
        tolerance = 0 if dtype == "float16" else 1e-6
        torch.testing.assert_close(back(got), want, rtol=tolerance, atol=tolerance)
    check(_gpu.rotary(on_gpu(x), on_gpu(cos), on_gpu(sin)), expected)
    position = webtorch.tensor([3.0], device="webgpu")
    keys, values = on_gpu(cache), on_gpu(cache)
    v = torch.randn(2, 3, 1, 8, generator=g).to(td)
    _gpu.write_rows(keys, on_gpu(x), values, on_gpu(v), position, on_gpu(cos), on_gpu(sin))
    for got, row in ((keys, expected), (values, v)):
        want = cache.clone()
        want[:, :, 3:4] = row
        check(got, want)


@pytest.mark.parametrize("dtype,capacity,position,key_offset", [("float32", 300, 280, 0), ("float16", 300, 280, 0),
                                                                  ("float16", 2100, 2060, 0), ("float32", 40, 30, 2)])
def test_decode_attention_kernel(dtype, capacity, position, key_offset, monkeypatch):
    """hf/_gpu.py's decode_attention.wgsl (one kernel: q rotated, scores over the cache rows up to the
    device's position, softmax, weights @ v, query heads grouped onto their key/value head; at capacity
    300 split into chunks of rows and their combine) against torch's composed ops rounding where they
    round, at a position past a workgroup's 256-row passes (2060, in one workgroup per head: past the 2048
    rows whose scores it keeps), keys read as vec4s or (a cache at offset 2) one by one; within float
    rounding (its sums run in another order)."""
    import torch
    from webtorch.hf import _gpu

    if capacity > 2048:  # one workgroup per head over all rows (the split's chunks at most 1), past those kept
        monkeypatch.setattr(_gpu, "MAX_CHUNKS", 1)
    g = torch.Generator().manual_seed(1)
    td, wd = getattr(torch, dtype), getattr(webtorch, dtype)
    b, heads, kv_heads, d = 2, 4, 2, 16
    q = torch.randn(b, heads, 1, d, generator=g).to(td)
    cos, sin = torch.randn(1, d, generator=g).to(td), torch.randn(1, d, generator=g).to(td)
    keys, values = (torch.randn(b, kv_heads, capacity, d, generator=g).to(td) for _ in range(2))
    rotated = q * cos + torch.cat([-q[..., d // 2:], q[..., :d // 2]], -1) * sin
    scores = (rotated.reshape(b, kv_heads, heads // kv_heads, d) @ keys.transpose(-2, -1)) * d ** -0.5
    scores[..., position + 1:] = -torch.inf
    expected = (scores.softmax(-1) @ values).reshape(b, heads, 1, d)

    def on_gpu(t):
        return webtorch.tensor(t.float().tolist(), device="webgpu").to(wd)
    cache_k = on_gpu(torch.cat([torch.zeros(key_offset, dtype=td), keys.flatten()]))[key_offset:].view(keys.shape)
    at = webtorch.tensor([float(position)], device="webgpu")
    got = _gpu.decode_attention(on_gpu(q), on_gpu(cos), on_gpu(sin), cache_k, on_gpu(values), at, d ** -0.5)
    tolerance = 2e-3 if dtype == "float16" else 1e-5
    torch.testing.assert_close(torch.tensor(got.float().tolist()).to(td), expected, rtol=tolerance, atol=tolerance)
    # the token's key and value written by the kernel itself: write_rows + the kernel's bits, rows and output
    k, v = (on_gpu(torch.randn(b, kv_heads, 1, d, generator=g).to(td)) for _ in range(2))
    caches = [(cache_k, on_gpu(values)), (on_gpu(torch.cat([torch.zeros(key_offset, dtype=td), keys.flatten()]))
                                           [key_offset:].view(keys.shape), on_gpu(values))]
    _gpu.write_rows(caches[0][0], k, caches[0][1], v, at, on_gpu(cos), on_gpu(sin))
    two_kernels = _gpu.decode_attention(on_gpu(q), on_gpu(cos), on_gpu(sin), *caches[0], at, d ** -0.5)
    one_kernel = _gpu.decode_attention(on_gpu(q), on_gpu(cos), on_gpu(sin), *caches[1], at, d ** -0.5, k, v)
    assert one_kernel.tolist() == two_kernels.tolist()
    assert [t.tolist() for t in caches[1]] == [t.tolist() for t in caches[0]]


@pytest.mark.parametrize("family,dtype,quantized,binding_limit", [
    ("llama", "float32", False, None), ("llama", "float16", True, None), ("qwen2", "float32", True, None),
    ("qwen2", "float16", False, None), ("qwen2", "float32", False, 8)])
def test_decode_attention_writes_the_cache_row(family, dtype, quantized, binding_limit, monkeypatch):
    """A decode step's attention writes the token's key (rotated) and value into the static cache itself,
    one kernel per layer instead of write_rows' and the attention's: the logits of every position, 0 to
    the cache's last row, and the caches are bit for bit those of the two kernels (hf/_gpu.py's
    WRITES_IN_ATTENTION off), for the tiny Llama and a Qwen2 (q/k/v biases, two query heads per key/value
    head), float32 and float16, float and int4 layers (whose q, k and v are views of one buffer). Where the
    adapter cannot bind the kernel's 10 buffers (8 storage buffers per stage) the step keeps the two kernels."""
    from webtorch.ao.quantization import Int4WeightOnlyConfig, quantize_
    from webtorch.hf import _gpu
    from webtorch.hf.decoding import DevicePosition

    config = hf.LlamaConfig.from_dict(dict(hf_tiny.COMMON, model_type=family, **hf_tiny.FAMILIES[family][2]))
    webtorch.manual_seed(0)
    with webtorch.no_grad():
        model = hf.LlamaForCausalLM(config, device="webgpu", dtype=getattr(webtorch, dtype))
        for p in model.parameters():
            p.normal_(0, 0.3)
        if quantized:
            quantize_(model.model, Int4WeightOnlyConfig(group_size=32))
    runtime = webtorch.backend.webgpu.runtime()
    if binding_limit:
        monkeypatch.setitem(runtime.limits, "max_storage_buffers_per_shader_stage", binding_limit)
    capacity = 5

    def steps(writes):
        monkeypatch.setattr(_gpu, "WRITES_IN_ATTENTION", writes)
        caches = model.new_cache(2, capacity)
        rows = webtorch.arange(capacity, dtype=webtorch.float32, device="webgpu")
        token, logits = webtorch.tensor([[3], [7]], device="webgpu"), []
        kernels = runtime.kernels_dispatched
        with webtorch.no_grad():
            for position in range(capacity):
                at = DevicePosition(webtorch.tensor([float(position)], device="webgpu"), rows)
                out = model(token, caches, at, last_only=True)
                logits.append(out.tolist())
                token = out.argmax(-1)
        return logits, [t.tolist() for kv in caches for t in kv], runtime.kernels_dispatched - kernels
    one, two = steps(True), steps(False)
    assert one[:2] == two[:2]
    assert two[2] - one[2] == (0 if binding_limit else capacity * config.num_hidden_layers)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_decode_attention_split_over_rows(dtype, monkeypatch):
    """decode_attention over a cache of more than _gpu.CHUNK_ROWS rows: one workgroup per chunk of rows and
    head, joined by decode_attention_combine.wgsl (a cache that fits one chunk: one kernel as before), against
    torch's scaled_dot_product_attention in float64 of the query as the kernel rotates it, three query heads to
    a key/value head; capacities of 1, 2 and 5 chunks of 256 rows and (MAX_CHUNKS lowered) 2 of 768, at
    position 0, the last row of a chunk and the first of the next, and the cache's last row (the chunks
    are fixed by the capacity: those past the position are empty); every other call writes the token's
    key (rotated) and value into the cache row itself (chunk 0 stores them, the chunk holding the row
    attends them)."""
    import torch
    from webtorch.hf import _gpu

    g = torch.Generator().manual_seed(2)
    td, wd = getattr(torch, dtype), getattr(webtorch, dtype)
    b, heads, kv_heads, d = 2, 6, 2, 16
    q = torch.randn(b, heads, 1, d, generator=g).to(td)
    cos, sin = torch.randn(1, d, generator=g).to(td), torch.randn(1, d, generator=g).to(td)
    rotated = (q * cos + torch.cat([-q[..., d // 2:], q[..., :d // 2]], -1) * sin).double()

    def on_gpu(t):
        return webtorch.tensor(t.float().tolist(), device="webgpu").to(wd)
    q_gpu, cos_gpu, sin_gpu = on_gpu(q), on_gpu(cos), on_gpu(sin)
    launched = []
    runtime = q_gpu._storage.runtime
    run = runtime.run
    monkeypatch.setattr(runtime, "run", lambda kernel, *args: launched.append((kernel[0][0], args[-1])) or run(kernel, *args))
    tolerance = 2e-3 if dtype == "float16" else 1e-5
    exact = 0 if dtype == "float16" else 1e-6  # the rows written: float32's rotation may be contracted into an fma
    for capacity, max_chunks, chunks, positions in [(200, 64, 1, [0, 199]), (300, 64, 2, [0, 255, 256, 299]),
                                                    (1100, 64, 5, [0, 511, 512, 1099]), (1100, 2, 2, [767, 768, 1099])]:
        monkeypatch.setattr(_gpu, "MAX_CHUNKS", max_chunks)
        keys, values = (torch.randn(b, kv_heads, capacity, d, generator=g).to(td) for _ in range(2))
        cache_k, cache_v = on_gpu(keys), on_gpu(values)
        for i, position in enumerate(positions):
            new = {}
            if i % 2:  # this call writes the token's row: the reference's row is it
                k, v = (torch.randn(b, kv_heads, 1, d, generator=g).to(td) for _ in range(2))
                keys[:, :, position:position + 1] = k * cos + torch.cat([-k[..., d // 2:], k[..., :d // 2]], -1) * sin
                values[:, :, position:position + 1] = v
                new = dict(k=on_gpu(k), v=on_gpu(v))
            launched.clear()
            got = _gpu.decode_attention(q_gpu, cos_gpu, sin_gpu, cache_k, cache_v,
                                        webtorch.tensor([float(position)], device="webgpu"), d ** -0.5, **new)
            for cache, want in ((cache_k, keys), (cache_v, values)):
                torch.testing.assert_close(torch.tensor(cache[:, :, position].float().tolist()).to(td), want[:, :, position],
                                           rtol=exact, atol=exact)
            split = [("decode_attention_combine", (heads, b, 1))] if chunks > 1 else []
            assert [k for k in launched if k[0].startswith("decode_attention")] == [("decode_attention", (heads, b, chunks))] + split
            rows = slice(0, position + 1)
            expected = torch.nn.functional.scaled_dot_product_attention(
                rotated, keys[:, :, rows].double(), values[:, :, rows].double(), scale=d ** -0.5, enable_gqa=True)
            torch.testing.assert_close(torch.tensor(got.float().tolist()).double(), expected, rtol=tolerance, atol=tolerance)


def test_generate_with_attention_split_over_rows(monkeypatch):
    """generate()'s recorded decode step with the cache's rows split into chunks (CHUNK_ROWS lowered to 4:
    16 chunks of the 64-row cache, the positions crossing chunk boundaries while chunks past them stay
    empty) makes transformers' greedy tokens, replayed as eagerly; the step launches the chunks' kernel and
    the combine."""
    from webtorch.hf import _gpu

    monkeypatch.setattr(_gpu, "CHUNK_ROWS", 4)
    path, reference = saved("llama")
    model = hf.from_pretrained(path)
    ids = webtorch.tensor(hf_tiny.PROMPT, device="webgpu")
    launched = []
    runtime = ids._storage.runtime
    run = runtime.run
    monkeypatch.setattr(runtime, "run", lambda kernel, *args: launched.append((kernel[0][0], args[-1])) or run(kernel, *args))
    for replay in (True, False):
        assert model.generate(ids, max_new_tokens=hf_tiny.NEW_TOKENS, replay=replay).tolist() == reference["generated"].tolist()
    heads = model.config.num_attention_heads
    assert ("decode_attention", (heads, 2, 16)) in launched and ("decode_attention_combine", (heads, 2, 1)) in launched
