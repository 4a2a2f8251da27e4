"""More public PyTorch programs (tests/programs/README.md names each source and license) under torch
2.13 and webtorch, like tests/test_programs_corpus.py: rasbt's LLMs-from-scratch Qwen3 (dense and
mixture-of-experts), HiFi-GAN's generator, and
Segment Anything's image encoder (windowed attention with decomposed relative positions). Each run
starts from torch's initial weights on deterministic data; losses agree per step (1e-4 relative) and
parameters or outputs after training are close, on webtorch's "webgpu" and "cpu" devices."""
import contextlib
import io
import types

import pytest
import torch

import program_runner
import program_stubs
from test_programs import needs, same_weights, tokens
from test_programs_corpus import DEVICES, compare, parameters, train
from test_programs_modern import series


def run_qwen3(T, device, experts, state):
    """LLMs-from-scratch's Qwen3Model (grouped-query attention with q/k RMSNorm, rotate-half RoPE from
    its cos/sin buffers, a bool triu mask through masked_fill(-inf), SwiGLU; with experts, its
    MoEFeedForward: topk routing, softmax over the chosen scores, unique experts, index_select and
    index_add_) at a tiny float32 config, next-token cross-entropy, AdamW, 3 steps."""
    program = program_runner.load("llms_from_scratch_qwen3.py", T, stubs={"requests": program_stubs._module("requests")})
    cfg = {"vocab_size": 40, "context_length": 16, "emb_dim": 16, "n_heads": 4, "n_layers": 2, "hidden_dim": 32,
           "head_dim": 8, "qk_norm": True, "n_kv_groups": 2, "rope_base": 1_000_000.0, "dtype": T.float32}
    if experts:
        cfg.update(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=8)
    T.manual_seed(0)
    model = program.Qwen3Model(cfg)
    state = same_weights(model, state)
    model.to(device)
    optimizer = T.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    batches = [tokens(T, device, 2, 8, 40, s) for s in range(3)]
    losses = train(T, model, optimizer, batches,
                   lambda x, y: T.nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten()))
    return losses, parameters(model), state


def run_hifigan(T, device, state):
    """HiFi-GAN's Generator (weight_norm'd Conv1d and ConvTranspose1d upsampling, ResBlock1's dilated
    convolutions, init_weights' normal_ through .data, leaky_relu, tanh) at a tiny config, regressed
    with train.py's L1 term under its AdamW betas, 3 steps; then remove_weight_norm and its output.
    (Its discriminators are fixed at 1024 channels: minutes on lavapipe, so they are left out.)"""
    hifigan_utils = program_runner.load("hifigan/utils.py", T, stubs={
        **program_stubs.others(T), "matplotlib.pylab": program_stubs._module("matplotlib.pylab")})
    program = program_runner.load("hifigan/models.py", T, stubs={"utils": hifigan_utils})
    h = types.SimpleNamespace(resblock="1", upsample_rates=[2, 2], upsample_kernel_sizes=[4, 4],
                              upsample_initial_channel=16, resblock_kernel_sizes=[3, 5],
                              resblock_dilation_sizes=[[1, 3, 5], [1, 3, 5]])
    T.manual_seed(0)
    generator = program.Generator(h)
    state = same_weights(generator, state)
    generator.to(device)
    optimizer = T.optim.AdamW(generator.parameters(), 2e-4, betas=(0.8, 0.99))
    batches = [(series(T, device, (1, 80, 5), s), series(T, device, (1, 1, 20), s + 10)) for s in range(3)]
    losses = train(T, generator, optimizer, batches, lambda mel, y: T.nn.functional.l1_loss(y, generator(mel)) * 45)
    generator.eval()
    with contextlib.redirect_stdout(io.StringIO()):
        generator.remove_weight_norm()
    with T.no_grad():
        audio = generator(series(T, device, (1, 80, 5), 9)).flatten().tolist()
    return losses, parameters(generator), audio, state


def run_sam_image_encoder(T, device, state):
    """Segment Anything's ImageEncoderViT (patch embedding Conv2d, absolute positions, window blocks
    with F.pad to whole windows and their unpartition, a global block, decomposed relative position
    tables indexed by a cpu long tensor, the LayerNorm2d neck) at a tiny config, regressed with
    mse_loss under AdamW, 2 steps; then its output."""
    sam = program_runner.load_package("sam", ["common", "image_encoder"], T)
    T.manual_seed(0)
    model = sam.image_encoder.ImageEncoderViT(img_size=32, patch_size=8, embed_dim=16, depth=2, num_heads=2,
                                              out_chans=8, use_rel_pos=True, rel_pos_zero_init=False,
                                              window_size=3, global_attn_indexes=(1,))
    state = same_weights(model, state)
    model.to(device)
    optimizer = T.optim.AdamW(model.parameters(), lr=1e-3)
    batches = [(series(T, device, (2, 3, 32, 32), s), series(T, device, (2, 8, 4, 4), s + 10)) for s in range(2)]
    losses = train(T, model, optimizer, batches, lambda x, y: T.nn.functional.mse_loss(model(x), y))
    with T.no_grad():
        output = model(series(T, device, (1, 3, 32, 32), 9)).flatten().tolist()
    return losses, parameters(model), output, state


@needs("llms_from_scratch_qwen3.py")
@pytest.mark.parametrize("experts", [False, True], ids=["dense", "moe"])
@pytest.mark.parametrize("device", DEVICES)
def test_llms_from_scratch_qwen3_trains_like_torch(device, experts):
    compare(lambda T, d, s: run_qwen3(T, d, experts, s), device)


@needs("hifigan/models.py")
@pytest.mark.parametrize("device", DEVICES)
def test_hifigan_generator_trains_like_torch(device):
    compare(run_hifigan, device)


@needs("sam/image_encoder.py")
@pytest.mark.parametrize("device", DEVICES)
def test_sam_image_encoder_trains_like_torch(device):
    compare(run_sam_image_encoder, device)
