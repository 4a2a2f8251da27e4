"""More public PyTorch programs (tests/programs/README.md names each source and license) under torch
2.13 and webtorch, like tests/test_programs_corpus.py: rasbt's LLMs-from-scratch Qwen3 (dense and
mixture-of-experts), HiFi-GAN's generator, Segment Anything's image encoder (windowed attention with
decomposed relative positions) and mask decoder (two-way transformer), egnn's E(n)-equivariant graph
network and improved-diffusion's UNet under its hybrid diffusion loss. Each run
starts from torch's initial weights on deterministic data; losses agree per step (1e-4 relative) and
parameters or outputs after training are close, on webtorch's "webgpu" and "cpu" devices."""
import contextlib
import io
import types

import pytest
import torch

import program_runner
import program_stubs
import webtorch
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


def run_sam(T, device, state):
    """Segment Anything's ImageEncoderViT (patch embedding Conv2d, absolute positions, window blocks
    with F.pad to whole windows and their unpartition, a global block, decomposed relative position
    tables indexed by a cpu long tensor, the LayerNorm2d neck) feeding its MaskDecoder (a
    TwoWayTransformer's token-to-image and image-to-token attention with downsampled projections,
    ConvTranspose2d upscaling, hypernetwork MLPs, the IoU head) at a tiny config, with the prompt
    embeddings and positional encoding given; masks and IoU predictions regressed with mse_loss
    under AdamW, 2 steps; then the masks."""
    sam = program_runner.load_package("sam", ["common", "image_encoder", "transformer", "mask_decoder"], T)
    T.manual_seed(0)
    encoder = sam.image_encoder.ImageEncoderViT(img_size=32, patch_size=8, embed_dim=16, depth=2, num_heads=2,
                                                out_chans=16, use_rel_pos=True, rel_pos_zero_init=False,
                                                window_size=3, global_attn_indexes=(1,))
    decoder = sam.mask_decoder.MaskDecoder(
        transformer_dim=16, transformer=sam.transformer.TwoWayTransformer(depth=2, embedding_dim=16, num_heads=2,
                                                                         mlp_dim=32),
        iou_head_hidden_dim=16)
    model = T.nn.ModuleList([encoder, decoder])
    state = same_weights(model, state)
    model.to(device)
    optimizer = T.optim.AdamW(model.parameters(), lr=1e-3)
    image_pe, dense = series(T, device, (1, 16, 4, 4), 20), series(T, device, (2, 16, 4, 4), 21)

    def masks_of(image, prompts):
        return decoder(encoder(image), image_pe, prompts, dense, multimask_output=True)

    def loss_of(image, prompts, mask_target, iou_target):
        masks, iou_pred = masks_of(image, prompts)
        return T.nn.functional.mse_loss(masks, mask_target) + T.nn.functional.mse_loss(iou_pred, iou_target)

    batches = [(series(T, device, (1, 3, 32, 32), s), series(T, device, (2, 3, 16), s + 10),
                series(T, device, (2, 3, 16, 16), s + 30), series(T, device, (2, 3), s + 40)) for s in range(2)]
    losses = train(T, model, optimizer, batches, loss_of)
    # the outputs, not the parameters: a key projection's bias shifts each query's logits by one
    # constant, which the softmax cancels; Adam turns its rounding-noise gradient into full steps
    with T.no_grad():
        masks, iou_pred = masks_of(series(T, device, (1, 3, 32, 32), 9), series(T, device, (2, 3, 16), 19))
    return losses, masks.flatten().tolist() + iou_pred.flatten().tolist(), state


def run_egnn(T, device, state):
    """egnn's clean EGNN (E(n)-equivariant graph convolutions: edge MLP on h[row], h[col] and squared
    distances, sigmoid attention, normalised coordinate differences, unsorted_segment_sum/mean through
    new_full and scatter_add_, xavier_uniform_ with gain) on two fully connected 4-node graphs from its
    get_edges_batch (LongTensor edges), regressing node features and coordinates, Adam, 3 steps."""
    program = program_runner.load("egnn_clean.py", T)
    T.manual_seed(0)
    model = program.EGNN(in_node_nf=2, hidden_nf=8, out_node_nf=1, in_edge_nf=1, device=device, n_layers=2,
                         attention=True, normalize=True)
    state = same_weights(model, state)
    edges, edge_attr = program.get_edges_batch(4, 2)
    edges, edge_attr = [e.to(device) for e in edges], edge_attr.to(device)
    optimizer = T.optim.Adam(model.parameters(), lr=1e-3)

    def loss_of(h, x, h_target, x_target):
        h_out, x_out = model(h, x, edges, edge_attr)
        return T.nn.functional.mse_loss(h_out, h_target) + T.nn.functional.mse_loss(x_out, x_target)

    batches = [(series(T, device, (8, 2), s), series(T, device, (8, 3), s + 10), series(T, device, (8, 1), s + 20),
                series(T, device, (8, 3), s + 30)) for s in range(3)]
    losses = train(T, model, optimizer, batches, loss_of)
    return losses, parameters(model), state


def run_improved_diffusion(T, device, state):
    """improved-diffusion's UNetModel (timestep embeddings, ResBlocks with scale-shift GroupNorm32,
    QKV attention at 2x2, Downsample/Upsample, zero_module'd outputs) trained by GaussianDiffusion's
    hybrid loss (learned-range variance with RESCALED_MSE: q_sample, the frozen-mean variational bound
    through normal_kl and discretized_gaussian_log_likelihood, float64 numpy schedules indexed on the
    device), with the noise and timesteps given (their draws cannot be shared), Adam, 2 steps; then
    its output."""
    package = program_runner.load_package("improved_diffusion", ["nn", "fp16_util", "losses", "gaussian_diffusion",
                                                                 "unet"], T)
    gd, unet = package.gaussian_diffusion, package.unet
    diffusion = gd.GaussianDiffusion(betas=gd.get_named_beta_schedule("cosine", 50),
                                     model_mean_type=gd.ModelMeanType.EPSILON,
                                     model_var_type=gd.ModelVarType.LEARNED_RANGE,
                                     loss_type=gd.LossType.RESCALED_MSE)
    T.manual_seed(0)
    model = unet.UNetModel(in_channels=3, model_channels=32, out_channels=6, num_res_blocks=1,
                           attention_resolutions=(2,), channel_mult=(1, 2), num_heads=2, use_scale_shift_norm=True)
    for p in model.parameters():  # zero_module'd output layers would give the first steps no signal
        p.data.add_(0.01)
    state = same_weights(model, state)
    model.to(device)
    optimizer = T.optim.Adam(model.parameters(), lr=1e-4)

    def loss_of(x, t, noise):
        return diffusion.training_losses(model, x, t, noise=noise)["loss"].mean()

    batches = [(series(T, device, (2, 3, 4, 4), s), T.tensor([3 + s, 40 - s], device=device),
                series(T, device, (2, 3, 4, 4), s + 10)) for s in range(2)]
    losses = train(T, model, optimizer, batches, loss_of)
    # the output, not the parameters: Adam turns the rounding-noise gradients of the biases that the
    # following GroupNorm cancels into full steps (1e-5 apart in both libraries' own float32 runs)
    with T.no_grad():
        output = model(series(T, device, (1, 3, 4, 4), 9), T.tensor([7], device=device)).flatten().tolist()
    return losses, output, state


@pytest.mark.parametrize("device", DEVICES)
def test_torch_utils_flatten_dense_tensors_as_torch(device):
    """torch._utils' helpers that improved-diffusion's fp16_util imports: one flat buffer (a single
    tensor's flat view), and views of it shaped as the tensors, non-contiguous inputs included."""
    results = []
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        tensors = [series(T, dev, (2, 3), 1), series(T, dev, (3, 2), 2).t(), series(T, dev, (1,), 3)]
        flat = T._utils._flatten_dense_tensors(tensors)
        parts = T._utils._unflatten_dense_tensors(flat * 2, tensors)
        alone = T._utils._flatten_dense_tensors(tensors[1:2])
        results.append((flat.tolist(), type(parts), [(p.tolist(), p.shape) for p in parts], alone.tolist()))
    assert results[0] == results[1]


@needs("llms_from_scratch_qwen3.py")
@pytest.mark.parametrize("experts", [False, True], ids=["dense", "moe"])
@pytest.mark.parametrize("device", DEVICES)
def test_llms_from_scratch_qwen3_trains_like_torch(device, experts):
    compare(lambda T, d, s: run_qwen3(T, d, experts, s), device)


@needs("hifigan/models.py")
@pytest.mark.parametrize("device", DEVICES)
def test_hifigan_generator_trains_like_torch(device):
    compare(run_hifigan, device)


@needs("sam/mask_decoder.py")
@pytest.mark.parametrize("device", DEVICES)
def test_sam_image_encoder_and_mask_decoder_train_like_torch(device):
    compare(run_sam, device)


@needs("egnn_clean.py")
@pytest.mark.parametrize("device", DEVICES)
def test_egnn_trains_like_torch(device):
    compare(run_egnn, device)


@needs("improved_diffusion/unet.py")
@pytest.mark.filterwarnings("ignore:webtorch. WebGPU has no float64")  # the schedules, float32 on webgpu
@pytest.mark.parametrize("device", DEVICES)
def test_improved_diffusion_hybrid_loss_trains_like_torch(device):
    compare(run_improved_diffusion, device)
