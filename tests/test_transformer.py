"""MultiheadAttention's options, TransformerDecoderLayer, TransformerDecoder and Transformer
against PyTorch (weights copied from torch's modules): outputs, attention weights and gradients."""
import pytest
import torch

import webtorch
from module_compare import DEVICES, close, compare

KEY_PAD = [[False, False, True, False, True], [False, True, False, False, False]]


def mask(T, device, values, dtype=None):
    if T is torch:
        return torch.tensor(values, dtype=dtype)
    return webtorch.tensor(values, dtype=getattr(webtorch, str(dtype).split(".")[-1]) if dtype else None,
                           device=device)


def mha_call(device, **kwargs):
    """Calls MultiheadAttention(q, k, v) with masks built for each library."""
    def call(T, m, q, k, v):
        args = {}
        if "key_padding_mask" in kwargs:
            args["key_padding_mask"] = mask(T, device, kwargs["key_padding_mask"])
        if "attn_mask" in kwargs:
            args["attn_mask"] = mask(T, device, kwargs["attn_mask"])
        return m(q, k, v, **args, **{k: v for k, v in kwargs.items() if k not in ("key_padding_mask", "attn_mask")})
    return call


CAUSAL_FLOAT = torch.nn.Transformer.generate_square_subsequent_mask(4)[:, :4].tolist()
CAUSAL_FLOAT = [row + [0.0] for row in CAUSAL_FLOAT]  # 4 queries x 5 keys

MHA = {
    "bias-kv-zero-attn-masks": (lambda T: T.nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True),
                                lambda: [torch.randn(4, 2, 8), torch.randn(5, 2, 8), torch.randn(5, 2, 8)],
                                dict(key_padding_mask=KEY_PAD, attn_mask=CAUSAL_FLOAT)),
    "kdim-vdim-batch-first-per-head": (lambda T: T.nn.MultiheadAttention(8, 4, kdim=3, vdim=5, batch_first=True),
                                       lambda: [torch.randn(2, 4, 8), torch.randn(2, 5, 3), torch.randn(2, 5, 5)],
                                       dict(average_attn_weights=False, key_padding_mask=KEY_PAD)),
    "no-weights-no-bias-bool-mask": (lambda T: T.nn.MultiheadAttention(6, 3, bias=False),
                                     lambda: [torch.randn(4, 2, 6), torch.randn(5, 2, 6), torch.randn(5, 2, 6)],
                                     dict(need_weights=False, attn_mask=[[j > i + 1 for j in range(5)]
                                                                         for i in range(4)])),
    # a query whose every key is masked: torch attends through SDPA when the weights are not asked
    # for, and its fully masked rows are 0s (a decoder step whose target starts with padding)
    "no-weights-fully-masked-row": (lambda T: T.nn.MultiheadAttention(8, 2),
                                    lambda: [torch.randn(4, 2, 8), torch.randn(5, 2, 8), torch.randn(5, 2, 8)],
                                    dict(need_weights=False, key_padding_mask=[[True] * 5, KEY_PAD[1]],
                                         attn_mask=CAUSAL_FLOAT)),
    "unbatched-kdim": (lambda T: T.nn.MultiheadAttention(4, 2, kdim=2, vdim=2, add_zero_attn=True),
                       lambda: [torch.randn(3, 4), torch.randn(5, 2), torch.randn(5, 2)], dict()),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(MHA))
def test_multihead_attention_options_match_torch(name, device):
    build, make_inputs, kwargs = MHA[name]
    compare(build, make_inputs, device, mha_call(device, **kwargs))


def decoder_call(device, masks):
    def call(T, m, tgt, memory):
        extra = {}
        if masks:
            extra = dict(tgt_mask=T.nn.Transformer.generate_square_subsequent_mask(3, device=None if T is torch else device),
                         memory_key_padding_mask=mask(T, device, KEY_PAD), tgt_is_causal=True)
        return m(tgt, memory, **extra)
    return call


DECODERS = {
    "decoder-layer-post-norm-masks": (lambda T: T.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.1), True),
    "decoder-layer-norm-first-gelu": (lambda T: T.nn.TransformerDecoderLayer(8, 2, 16, activation="gelu",
                                                                             norm_first=True), False),
    "decoder-2-layers-norm": (lambda T: T.nn.TransformerDecoder(T.nn.TransformerDecoderLayer(8, 4, 12), 2,
                                                                T.nn.LayerNorm(8)), True),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(DECODERS))
def test_decoder_matches_torch(name, device):
    build, masks = DECODERS[name]
    compare(build, lambda: [torch.randn(3, 2, 8), torch.randn(5, 2, 8)], device, decoder_call(device, masks))


@pytest.mark.parametrize("device", DEVICES)
def test_transformer_matches_torch(device):
    def call(T, m, src, tgt):
        return m(src, tgt, tgt_mask=T.nn.Transformer.generate_square_subsequent_mask(3, device=None if T is torch else device),
                 src_key_padding_mask=mask(T, device, KEY_PAD), memory_key_padding_mask=mask(T, device, KEY_PAD))
    compare(lambda T: T.nn.Transformer(8, 2, 2, 1, 16, batch_first=True, norm_first=True),
            lambda: [torch.randn(2, 5, 8), torch.randn(2, 3, 8)], device, call)


def test_construction_and_errors_match_torch():
    for build in (lambda T: T.nn.Transformer(8, 2, 1, 1, 16), lambda T: T.nn.MultiheadAttention(8, 2, kdim=3),
                  lambda T: T.nn.MultiheadAttention(8, 2, add_bias_kv=True, bias=False)):
        ref, mine = build(torch), build(webtorch)
        assert repr(mine) == repr(ref)
        assert [(n, tuple(p.shape)) for n, p in mine.named_parameters()] == \
            [(n, tuple(p.shape)) for n, p in ref.named_parameters()]
    assert webtorch.nn.Transformer.generate_square_subsequent_mask(4).tolist() == \
        torch.nn.Transformer.generate_square_subsequent_mask(4).tolist()
    x = torch.zeros(3, 1, 8)
    for T in (torch, webtorch):
        xs = x if T is torch else webtorch.zeros(3, 1, 8)
        with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
            T.nn.MultiheadAttention(8, 2)(xs, xs, xs, is_causal=True)
        with pytest.raises(RuntimeError, match="The shape of the 2D attn_mask is"):
            T.nn.MultiheadAttention(8, 2)(xs, xs, xs, attn_mask=T.zeros(2, 3))
        with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
            T.nn.TransformerDecoderLayer(8, 2, activation="tanh")
        with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
            T.nn.Transformer(8, 2, 1, 1, 16)(xs, T.zeros(3, 1, 4))


def test_encoder_inference_zeroes_padding_like_torch():
    """torch's nested-tensor fast path (eval, no grad, left-aligned key padding) outputs 0 at padded
    positions (before the final norm); with gradients or other masks it computes them."""
    torch.manual_seed(0)
    ref = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 1,
                                      torch.nn.LayerNorm(8)).eval()
    mine = webtorch.nn.TransformerEncoder(webtorch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0,
                                                                              batch_first=True), 1,
                                          webtorch.nn.LayerNorm(8)).eval()
    mine.load_state_dict({k: webtorch.tensor(v.tolist()) for k, v in ref.state_dict().items()})
    x = torch.randn(2, 3, 8)
    for padding in ([[False, False, True], [False, False, False]], [[False, True, False], [False, False, False]]):
        for grad in (False, True):
            with torch.set_grad_enabled(grad), webtorch.set_grad_enabled(grad):
                expected = ref(x, src_key_padding_mask=torch.tensor(padding))
                actual = mine(webtorch.tensor(x.tolist()), src_key_padding_mask=webtorch.tensor(padding))
            close(actual, expected, 1e-5)


MASK_3D = torch.randn(2 * 4, 5, 5).tolist()  # (N * heads, L, S)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("batch_first", [True, False])
def test_self_attention_one_in_projection_with_3d_mask_matches_torch(batch_first, device):
    """query is key is value: one product with the whole in-projection, read in the input's memory order."""
    def call(T, m, x):
        return m(x, x, x, attn_mask=mask(T, device, MASK_3D), key_padding_mask=mask(T, device, KEY_PAD),
                 average_attn_weights=False)
    compare(lambda T: T.nn.MultiheadAttention(8, 4, batch_first=batch_first),
            lambda: [torch.randn(2, 5, 8) if batch_first else torch.randn(5, 2, 8)], device, call)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("boolean", [True, False])
def test_sdpa_fully_masked_rows_give_zeros_and_zero_gradients(boolean, device):
    """A query row whose keys are all masked (bool False or float -inf): torch's _safe_softmax gives 0s
    and passes back 0 gradients (a softmax of -inf alone is NaN, and so was its derivative)."""
    allowed = [[True, True, True], [False, True, False], [False, False, False]]
    grads = []
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        torch.manual_seed(0)
        q, k, v = (T.tensor(torch.randn(1, 2, 3, 4).tolist(), device=dev, requires_grad=True) for _ in range(3))
        m = T.tensor(allowed, device=dev)
        m = m if boolean else T.zeros(3, 3, device=dev).masked_fill(~m, float("-inf"))
        out = T.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m)
        (out * T.arange(4.0, device=dev)).sum().backward()
        grads.append([out.tolist()] + [t.grad.tolist() for t in (q, k, v)])
    for a, e in zip(*grads):
        assert torch.tensor(a).isfinite().all()
        torch.testing.assert_close(torch.tensor(a), torch.tensor(e), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", ["causal", "bool rows", "float broadcast", "causal L < S", "gqa"])
def test_sdpa_in_chunks_of_query_rows(case, device, monkeypatch):
    """scaled_dot_product_attention whose scores pass its budget (lowered here to 1 KiB; 32 MiB: a long
    prefill's scores would not fit one WebGPU buffer) runs a few query rows at a time: outputs and
    gradients equal torch's, with the causal mask and an attn_mask's rows sliced to each chunk."""
    from webtorch.nn import functional as wF
    monkeypatch.setattr(wF, "_SDPA_SCORES_BYTES", 1024)
    L, S = (7, 11) if case == "causal L < S" else (9, 9)
    g = torch.Generator().manual_seed(1)
    qkv = [torch.randn(2, 4, L, 8, generator=g), torch.randn(2, 2 if case == "gqa" else 4, S, 8, generator=g),
           torch.randn(2, 2 if case == "gqa" else 4, S, 8, generator=g)]
    masks = {"bool rows": torch.rand(L, S, generator=g) > 0.3, "float broadcast": torch.randn(2, 1, 1, S, generator=g)}
    results = []
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        q, k, v = (T.tensor(t.tolist(), device=dev, requires_grad=True) for t in qkv)
        m = masks.get(case)
        m = None if m is None else T.tensor(m.tolist(), device=dev)
        out = T.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=case.startswith("causal"),
                                                           enable_gqa=case == "gqa")
        (out * T.arange(8.0, device=dev)).sum().backward()
        results.append([out.tolist()] + [t.grad.tolist() for t in (q, k, v)])
    for a, e in zip(*results):
        torch.testing.assert_close(torch.tensor(a), torch.tensor(e), rtol=1e-4, atol=1e-5)
