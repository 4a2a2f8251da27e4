"""Modern public PyTorch programs (2024-2026 code: LLMs, vision, audio, diffusion, graph, state-space;
tests/programs/README.md names each source) under torch and webtorch from the same weights and
synthetic data, like tests/test_programs.py: losses per step within 1e-4 relative, greedy
generations identical, outputs close. Tiny configurations keep each case to seconds on lavapipe."""
import contextlib
import io
import math
import random
import re
import types

import pytest
import torch

import program_runner
import program_stubs
import webtorch
from test_programs import assert_losses_match, images, labels, needs, same_weights, to_webtorch_state, tokens


def run_llama2c(T, device, state):
    """llama2.c's Llama (RMSNorm, real-valued rotary embeddings, grouped-query attention through
    repeat_kv, SwiGLU, tied embeddings): train.py's loop (configure_optimizers' AdamW groups,
    last_loss, clip_grad_norm_) for 4 steps, then generate(temperature=0.0), its greedy path."""
    with contextlib.redirect_stdout(io.StringIO()):
        program = program_runner.load("llama2c_model.py", T)
        T.manual_seed(0)
        args = program.ModelArgs(dim=32, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=48, multiple_of=16,
                                 max_seq_len=16)
        model = program.Transformer(args)
        state = same_weights(model, state)
        model.to(device)
        optimizer = model.configure_optimizers(0.1, 3e-3, (0.9, 0.95), "cpu")
    losses = []
    for step in range(4):
        model(*tokens(T, device, 4, 16, 48, step))
        model.last_loss.backward()
        T.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(model.last_loss.item())
    model.eval()
    generated = model.generate(tokens(T, device, 2, 5, 48, 99)[0], 10, temperature=0.0).tolist()
    return losses, generated, state


@needs("llama2c_model.py")
def test_llama2c_trains_and_generates_like_torch():
    torch_losses, torch_generated, initial = run_llama2c(torch, "cpu", None)
    losses, generated, _ = run_llama2c(webtorch, "webgpu", initial)
    assert_losses_match(losses, torch_losses)
    assert generated == torch_generated


def eager_reference(T):
    """torch's own run of a program that torch.compile's its functions runs them eagerly: inductor's
    C++ compilation takes minutes on CI's two cores, and eager is the numbers compile must keep."""
    return T.compiler.set_stance("force_eager") if T is torch else contextlib.nullcontext()


def run_nanochat(T, device, state):
    """nanochat's GPT (2025: rms_norm without weights, rotary embeddings, QK norm, grouped-query and
    sliding-window attention through SDPA's enable_gqa and a boolean mask, ReLU^2, value embeddings,
    smear/backout scalars, logit softcap) trained as base_train.py does with its MuonAdamW (fused
    AdamW and Muon's polar-express orthogonalisation, torch.compile'd with 0-d cpu tensor
    hyperparameters) for 3 steps, then generate(temperature=0), its greedy path."""
    with contextlib.redirect_stdout(io.StringIO()):
        nanochat = program_runner.load_package("nanochat", ["common", "flash_attention", "optim", "gpt"], T)
        config = nanochat.gpt.GPTConfig(sequence_len=16, vocab_size=48, n_layer=2, n_head=4, n_kv_head=2, n_embd=32,
                                        window_pattern="SL")
        T.manual_seed(0)
        model = nanochat.gpt.GPT(config)
        model.init_weights()
        # init_weights zeroes the output projections, where the loss does not depend on the per-layer
        # scalars (the final norm undoes their scale): their gradients are rounding noise, which AdamW's
        # eps=1e-10 turns into steps of lr * O(1) in whichever direction the noise points (torch's own
        # float32 and float64 runs part there). Trained projections make those gradients real.
        with T.no_grad():
            for block in model.transformer.h:
                block.attn.c_proj.weight.normal_(0, 0.05), block.mlp.c_proj.weight.normal_(0, 0.05)
        state = same_weights(model, state)
        model.to(device)
        optimizer = model.setup_optimizer()
    losses = []
    for step in range(3):
        loss = model(*tokens(T, device, 4, 16, 48, step))
        loss.backward()
        with eager_reference(T):
            optimizer.step()
        model.zero_grad(set_to_none=True)
        losses.append(loss.item())
    model.eval()
    generated = list(model.generate([3, 1, 4, 1, 5], max_tokens=8, temperature=0))
    return losses, generated, state


@needs("nanochat/gpt.py")
def test_nanochat_trains_with_muon_and_generates_like_torch():
    torch_losses, torch_generated, initial = run_nanochat(torch, "cpu", None)
    losses, generated, _ = run_nanochat(webtorch, "webgpu", initial)
    assert_losses_match(losses, torch_losses)
    assert generated == torch_generated


def assert_close_lists(actual, expected, rtol=1e-4, atol=1e-5):
    torch.testing.assert_close(torch.tensor(actual, dtype=torch.float64), torch.tensor(expected, dtype=torch.float64),
                               rtol=rtol, atol=atol)


def series(T, device, shape, seed):
    """Deterministic uniform(-1, 1) values of any shape, the same in both libraries."""
    flat = images(T, "cpu", 1, (1, 1, math.prod(shape)), seed)
    return flat.reshape(shape).to(device)


def run_mamba(T, device, use_pscan, state):
    """mamba.py's Mamba (selective state-space layers: depthwise causal conv1d, softplus dt, the
    parallel scan as a torch.autograd.Function with its own backward, or the sequential scan) regressed
    with AdamW for 3 steps; then its recurrent step() over 4 tokens from empty caches."""
    program = program_runner.load_package("mambapy", ["pscan", "mamba"], T)
    T.manual_seed(0)
    config = program.mamba.MambaConfig(d_model=16, n_layers=2, d_state=4, d_conv=3, pscan=use_pscan)
    model = program.mamba.Mamba(config)
    state = same_weights(model, state)
    model.to(device)
    optimizer = T.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for step in range(3):
        x, target = series(T, device, (2, 8, 16), step), series(T, device, (2, 8, 16), step + 10)
        loss = T.nn.functional.mse_loss(model(x), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    caches = [(None, T.zeros(2, config.d_inner, config.d_conv - 1, device=device)) for _ in model.layers]
    outputs = []
    with T.no_grad():
        for t in range(4):
            y, caches = model.step(series(T, device, (2, 16), 20 + t), caches)
            outputs.append(y.tolist())
    return losses, outputs, state


@needs("mambapy/mamba.py")
@pytest.mark.parametrize("use_pscan", [True, False])
def test_mamba_trains_and_steps_like_torch(use_pscan):
    torch_losses, torch_outputs, initial = run_mamba(torch, "cpu", use_pscan, None)
    losses, outputs, _ = run_mamba(webtorch, "webgpu", use_pscan, initial)
    assert_losses_match(losses, torch_losses)
    assert_close_lists(outputs, torch_outputs)


def run_kan(T, device, state):
    """efficient-kan's KAN (B-spline bases built with comparisons and a Cox-de Boor recursion,
    curve2coeff's torch.linalg.lstsq at construction, update_grid's sort and lstsq refit) trained with
    its regularization_loss for 3 steps of LBFGS-free Adam, the grid updated before the last."""
    program = program_runner.load("efficient_kan_kan.py", T)
    T.manual_seed(0)
    model = program.KAN([4, 6, 3], grid_size=4)
    state = same_weights(model, state)
    model.to(device)
    optimizer = T.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for step in range(3):
        x, y = series(T, device, (16, 4), step), labels(T, device, 16, 3, step)
        output = model(x, update_grid=step == 2)
        loss = T.nn.functional.cross_entropy(output, y) + 1e-3 * model.regularization_loss()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, model(series(T, device, (4, 4), 9)).tolist(), state


@needs("efficient_kan_kan.py")
def test_efficient_kan_trains_like_torch():
    torch_losses, torch_output, initial = run_kan(torch, "cpu", None)
    losses, output, _ = run_kan(webtorch, "webgpu", initial)
    assert_losses_match(losses, torch_losses)
    assert_close_lists(output, torch_output)


def run_forward_forward(T, device, state):
    """pytorch/examples mnist_forward_forward: Hinton's forward-forward layers (each Linear with its
    own Adam and goodness loss, trained layer by layer through Net.train), on synthetic MNIST with
    overlay_y_on_x's labels written into the pixels (fancy-index assignment); Net.predict's error."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        program = program_runner.load("mnist_forward_forward.py", T, stubs=program_stubs.torchvision(T))
        program.args = types.SimpleNamespace(lr=0.03, threshold=2.0, epochs=3, log_interval=1)
        program.device = device
        T.manual_seed(0)
        net = program.Net([784, 32, 32])
        state = same_weights(net, state) if state is None else state
        if isinstance(state, list):
            for layer, weights in zip(net.layers, state):
                layer.load_state_dict(weights)
        else:
            state = [to_webtorch_state(layer.state_dict()) for layer in net.layers]
        x = images(T, device, 8, (1, 28, 28), 0).reshape(8, -1)
        y = labels(T, device, 8, 10, 0)
        x_pos = program.overlay_y_on_x(x, y)
        x_neg = program.overlay_y_on_x(x, (y + 1 + labels(T, device, 8, 9, 1)) % 10)
        net.train(x_pos, x_neg)
        error = 1.0 - net.predict(x).eq(y).float().mean().item()
    return [float(v) for v in re.findall(r"Loss:  ([-0-9.e]+)", printed.getvalue())] + [error], state


@needs("mnist_forward_forward.py")
def test_mnist_forward_forward_trains_like_torch():
    torch_losses, initial = run_forward_forward(torch, "cpu", None)
    losses, _ = run_forward_forward(webtorch, "webgpu", initial)
    assert len(losses) == 7
    assert_losses_match(losses[:-1], torch_losses[:-1])
    assert losses[-1] == torch_losses[-1]


def run_translator(T, device, state):
    """pytorch/examples language_translation's Translator (nn.Transformer encoder-decoder with
    sinusoidal PositionalEncoding, xavier init, causal and key-padding masks as main.py builds them)
    trained for 3 steps, then main.py's greedy_decode through encode()/decode()."""
    program = program_runner.load("language_translation_model.py", T)
    T.manual_seed(0)
    model = program.Translator(2, 2, 16, 2, 30, 30, 32, 0.0)
    state = same_weights(model, state)
    model.to(device)
    model.eval()  # nn.Transformer's layers keep their own dropout draws out of the comparison
    optimizer = T.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
    loss_fn = T.nn.CrossEntropyLoss(ignore_index=1)
    losses = []
    for step in range(3):
        src = tokens(T, device, 3, 7, 30, step)[0].t()  # (sequence, batch) as main.py's collate
        tgt = tokens(T, device, 3, 6, 30, step + 5)[0].t()
        src[-1, 0], tgt[-2:, 1] = 1, 1  # padding
        tgt_input = tgt[:-1, :]
        src_mask = T.zeros((src.shape[0], src.shape[0]), device=device).type(T.bool)
        tgt_mask = (T.triu(T.ones((tgt_input.shape[0], tgt_input.shape[0]), device=device)) == 1).transpose(0, 1)
        tgt_mask = tgt_mask.float().masked_fill(tgt_mask == 0, float("-inf")).masked_fill(tgt_mask == 1, float(0.0))
        src_padding_mask, tgt_padding_mask = (src == 1).transpose(0, 1), (tgt_input == 1).transpose(0, 1)
        logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)
        optimizer.zero_grad()
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt[1:, :].reshape(-1))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    src = tokens(T, device, 1, 6, 30, 50)[0].t()
    with T.no_grad():
        memory = model.encode(src, T.zeros(6, 6, device=device).type(T.bool))
        ys = T.ones(1, 1, dtype=T.long, device=device) * 2
        for _ in range(5):
            size = ys.size(0)
            mask = (T.triu(T.ones((size, size), device=device)) == 1).transpose(0, 1)
            mask = mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, 0.0)
            out = model.decode(ys, memory, mask).transpose(0, 1)
            next_word = T.max(model.ff(out[:, -1]), dim=1)[1].item()
            ys = T.cat([ys, T.ones(1, 1, dtype=T.long, device=device).fill_(next_word)], dim=0)
    return losses, ys.flatten().tolist(), state


@needs("language_translation_model.py")
def test_language_translation_trains_and_decodes_like_torch():
    torch_losses, torch_decoded, initial = run_translator(torch, "cpu", None)
    losses, decoded, _ = run_translator(webtorch, "webgpu", initial)
    assert_losses_match(losses, torch_losses)
    assert decoded == torch_decoded


def graph(T, device, nodes, features, seed):
    """Node features, a symmetric normalised adjacency with self loops D^-1/2 (A + I) D^-1/2 (dense:
    what the examples' load_cora builds for Cora, as sparse tensors), labels and a training mask."""
    rng = random.Random(seed)
    edges = {(i, (i + 1) % nodes) for i in range(nodes)} | {(rng.randrange(nodes), rng.randrange(nodes))
                                                            for _ in range(nodes)}
    adjacency = [[1.0 if i == j or (i, j) in edges or (j, i) in edges else 0.0 for j in range(nodes)]
                 for i in range(nodes)]
    degree = [sum(row) ** -0.5 for row in adjacency]
    normalised = [[degree[i] * a * degree[j] for j, a in enumerate(row)] for i, row in enumerate(adjacency)]
    return (series(T, device, (nodes, features), seed), T.tensor(normalised, device=device),
            labels(T, device, nodes, 3, seed), T.tensor([i % 3 != 2 for i in range(nodes)], device=device))


def run_graph_network(T, device, name, state):
    """pytorch/examples gcn (GraphConv: torch.spmm of the adjacency) and gat (GraphAttentionLayer:
    per-head attention scores, -9e16 masking by torch.where, softmax, ELU) trained as their
    train_iter does (Adam with weight decay, NLLLoss on the training mask) for 3 steps; test()'s loss."""
    program = program_runner.load(f"{name}.py", T)
    T.manual_seed(0)
    model = (program.GCN(6, 8, 3, dropout_p=0.0) if name == "gcn" else
             program.GAT(in_features=6, n_hidden=8, n_heads=2, num_classes=3, dropout=0.0))
    state = same_weights(model, state)
    model.to(device)
    features, adjacency, target, mask = graph(T, device, 10, 6, 4)
    optimizer = T.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    criterion = T.nn.NLLLoss()
    losses = []
    with contextlib.redirect_stdout(io.StringIO()):
        for epoch in range(3):
            program.train_iter(epoch + 1, model, optimizer, criterion, (features, adjacency), target, mask, ~mask,
                               print_every=1)
            loss, accuracy = program.test(model, criterion, (features, adjacency), target, ~mask)
            losses.append(loss)
    return losses, state


@pytest.mark.parametrize("name", ["gcn", "gat"])
def test_graph_networks_train_like_torch(name):
    if not program_runner.path(f"{name}.py").exists():
        pytest.skip(f"tests/programs/{name}.py is not vendored")
    torch_losses, initial = run_graph_network(torch, "cpu", name, None)
    losses, _ = run_graph_network(webtorch, "webgpu", name, initial)
    assert_losses_match(losses, torch_losses)


def torchvision_models(T):
    """The stand-ins of tests/program_stubs.torchvision with torchvision's own ops.misc
    (Conv2dNormActivation, MLP, Permute, SqueezeExcitation) and ops.stochastic_depth (vendored), for
    the model files of tests/programs/torchvision_*.py."""
    stubs = program_stubs.torchvision(T)
    stubs["torchvision.utils"]._make_ntuple = lambda x, n: tuple(x) if isinstance(x, (list, tuple)) else (x,) * n
    stubs["torchvision.transforms._presets"].InterpolationMode = types.SimpleNamespace(BILINEAR="bilinear",
                                                                                      BICUBIC="bicubic")
    stubs["torchvision.models._utils"]._make_divisible = program_stubs.make_divisible
    ops = stubs["torchvision.ops"] = types.ModuleType("torchvision.ops")
    ops.__path__ = []
    stubs["torchvision"].ops = ops
    for name, file in (("misc", "torchvision_ops_misc.py"), ("stochastic_depth", "torchvision_stochastic_depth.py")):
        module = program_runner.load(file, T, f"torchvision.ops.{name}", stubs=stubs, package="torchvision.ops")
        stubs[f"torchvision.ops.{name}"] = module
        setattr(ops, name, module)
    ops.StochasticDepth = ops.stochastic_depth.StochasticDepth
    return stubs


def vision_model(T, name):
    file = program_runner.load(f"torchvision_{name}.py", T, stubs=torchvision_models(T), package="torchvision.models")
    T.manual_seed(0)
    return {
        "vision_transformer": lambda: file.VisionTransformer(image_size=16, patch_size=8, num_layers=2, num_heads=2,
                                                             hidden_dim=16, mlp_dim=32, num_classes=5),
        "convnext": lambda: file.ConvNeXt([file.CNBlockConfig(8, 16, 1), file.CNBlockConfig(16, None, 1)],
                                          stochastic_depth_prob=0.1, num_classes=5),
        "swin_transformer": lambda: file.SwinTransformer(patch_size=[2, 2], embed_dim=8, depths=[2, 2],
                                                         num_heads=[1, 2], window_size=[2, 2],
                                                         stochastic_depth_prob=0.0, num_classes=5),
        "mobilenetv2": lambda: file.MobileNetV2(num_classes=5, dropout=0.0, inverted_residual_setting=[
            [1, 8, 1, 1], [6, 12, 2, 2], [6, 16, 1, 2]]),
        "efficientnet": lambda: file.EfficientNet(file._efficientnet_conf("efficientnet_b0", width_mult=0.25,
                                                                          depth_mult=0.25)[0],
                                                  dropout=0.0, stochastic_depth_prob=0.0, num_classes=5),
    }[name]()


def run_vision_model(T, device, name, state):
    """torchvision's classification models at tiny sizes, trained as its reference script does (SGD
    with momentum, label-smoothed cross entropy; BatchNorm/LayerNorm/StochasticDepth in train mode)
    for 2 steps, then evaluated."""
    model = vision_model(T, name)
    state = same_weights(model, state)
    model.to(device)
    side = 32 if name in ("convnext", "mobilenetv2", "efficientnet") else 16
    criterion = T.nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    if name == "convnext":
        model.eval()  # StochasticDepth's row masks are each library's own random draws
    losses = []
    for step in range(2):
        loss = criterion(model(images(T, device, 4, (3, side, side), step)), labels(T, device, 4, 5, step))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with T.no_grad():
        logits = model(images(T, device, 2, (3, side, side), 9)).tolist()
    return losses, logits, state


VISION = ["vision_transformer", "convnext", "swin_transformer", "mobilenetv2", "efficientnet"]


@pytest.mark.parametrize("name", VISION)
def test_torchvision_models_train_like_torch(name):
    if not program_runner.path(f"torchvision_{name}.py").exists():
        pytest.skip(f"tests/programs/torchvision_{name}.py is not vendored")
    torch_losses, torch_logits, initial = run_vision_model(torch, "cpu", name, None)
    # the two BatchNorm networks on webtorch's cpu device: on lavapipe (2 loaded cores) their two steps
    # take 40 s (MobileNetV2) and 80 s (EfficientNet); tests/test_model_gradients.py checks such networks on webgpu
    cpu = name in ("mobilenetv2", "efficientnet")
    losses, logits, _ = run_vision_model(webtorch, "cpu" if cpu else "webgpu", name, initial)
    if name == "efficientnet":
        # its last stage normalises 1x1 maps over a batch of 4: after the first step the loss depends on
        # float rounding (torch's own float32 and float64 second losses differ by 1.5e-4 relative)
        assert_losses_match(losses[:1], torch_losses[:1])
        assert abs(losses[1] - torch_losses[1]) <= 1e-3 * torch_losses[1]
        return
    assert_losses_match(losses, torch_losses)
    assert_close_lists(logits, torch_logits, rtol=1e-3, atol=1e-4)


COMPLEX = pytest.mark.xfail(strict=True, raises=NotImplementedError,
                            reason="complex tensors (torch.polar, view_as_complex) are issue 24")


def run_gpt_fast(T, device, state):
    """gpt-fast's Transformer (Llama: RMSNorm, SwiGLU, grouped-query attention, rotary embeddings as
    complex numbers from torch.polar, a static KV cache written with index_put at input_pos):
    setup_caches, a prefill and 6 greedy decode steps, as generate.py's prefill/decode_one_token."""
    program = program_runner.load("gpt_fast_model.py", T)
    T.manual_seed(0)
    model = program.Transformer(program.ModelArgs(block_size=16, vocab_size=48, n_layer=2, n_head=4,
                                                  n_local_heads=2, dim=32, intermediate_size=64))
    state = same_weights(model, state)
    model.to(device)
    with T.no_grad():
        with T.device(device):  # as generate.py: freqs_cis and the caches are made on the model's device
            model.setup_caches(max_batch_size=1, max_seq_length=16)
        prompt = tokens(T, device, 1, 5, 48, 3)[0]
        logits = model(prompt, T.arange(5, device=device))
        generated = [logits[0, -1].argmax().item()]
        for position in range(5, 11):
            logits = model(T.tensor([[generated[-1]]], device=device), T.tensor([position], device=device))
            generated.append(logits[0, -1].argmax().item())
    return generated, state


@needs("gpt_fast_model.py")
def test_gpt_fast_decodes_with_kv_cache_like_torch():
    torch_generated, initial = run_gpt_fast(torch, "cpu", None)
    generated, _ = run_gpt_fast(webtorch, "webgpu", initial)
    assert generated == torch_generated


def run_min_rf(T, device, state):
    """minRF's DiT_Llama (patchify, adaLN modulation, rotary attention through view_as_complex and
    torch.polar, SwiGLU) trained on rectified flow's velocity objective at fixed times and noise (RF.forward
    draws them from the library's generator), then RF.sample's Euler steps with classifier-free guidance."""
    rf = program_runner.load_package("minrf", ["dit", "rf"], T)
    T.manual_seed(0)
    model = rf.dit.DiT_Llama(in_channels=1, input_size=8, patch_size=2, dim=64, n_layers=2, n_heads=4, multiple_of=8,
                             class_dropout_prob=0.0, num_classes=3)
    state = same_weights(model, state)
    model.to(device)
    optimizer = T.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for step in range(2):
        x, cond = images(T, device, 2, (1, 8, 8), step), labels(T, device, 2, 3, step)
        t = T.tensor([0.25, 0.75], device=device)
        z1 = images(T, device, 2, (1, 8, 8), step + 10)
        zt = (1 - t.view(2, 1, 1, 1)) * x + t.view(2, 1, 1, 1) * z1
        loss = ((z1 - x - model(zt, t, cond)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with T.no_grad():
        samples = rf.rf.RF(model).sample(images(T, device, 2, (1, 8, 8), 20), labels(T, device, 2, 3, 21),
                                         T.tensor([2, 2], device=device), sample_steps=3)
    return losses, samples[-1].tolist(), state


@needs("minrf/dit.py")
def test_min_rf_trains_and_samples_like_torch():
    torch_losses, torch_sample, initial = run_min_rf(torch, "cpu", None)
    losses, sample, _ = run_min_rf(webtorch, "webgpu", initial)
    assert_losses_match(losses, torch_losses)
    assert_close_lists(sample, torch_sample)


def run_whisper(T, device, state):
    """whisper's model.py (conv1d front end with GELU, sinusoidal audio positions, pre-norm residual
    attention blocks with cross attention, float32 LayerNorm/Linear casts, SDPA): trained on log-mel
    frames for 2 steps, then decoded greedily through install_kv_cache_hooks' forward hooks."""
    package = types.ModuleType("whisper")
    package.__path__ = []
    stubs = {"whisper": package,
             "whisper.decoding": types.SimpleNamespace(decode=None, detect_language=None),
             "whisper.transcribe": types.SimpleNamespace(transcribe=None)}
    program = program_runner.load("whisper/model.py", T, "whisper.model", stubs=stubs, package="whisper")
    T.manual_seed(0)
    model = program.Whisper(program.ModelDimensions(n_mels=8, n_audio_ctx=8, n_audio_state=16, n_audio_head=2,
                                                    n_audio_layer=1, n_vocab=40, n_text_ctx=8, n_text_state=16,
                                                    n_text_head=2, n_text_layer=2))
    # whisper makes the text positions with torch.empty (its checkpoints fill them): give them values here,
    # or torch's run starts from whatever memory held (NaN at times, after other tests)
    T.nn.init.normal_(model.decoder.positional_embedding, std=0.02)
    state = same_weights(model, state)
    model.to(device)
    optimizer = T.optim.AdamW(model.parameters(), lr=1e-3)
    losses = []
    for step in range(2):
        mel = series(T, device, (2, 8, 16), step)
        text = tokens(T, device, 2, 6, 40, step)
        loss = T.nn.functional.cross_entropy(model(mel, text[0]).transpose(1, 2), text[1])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    cache, hooks = model.install_kv_cache_hooks()
    with T.no_grad():
        audio = model.embed_audio(series(T, device, (1, 8, 16), 7))
        generated = [1]
        for _ in range(6):
            step_tokens = T.tensor([generated if not cache else generated[-1:]], device=device)
            generated.append(model.decoder(step_tokens, audio, kv_cache=cache)[0, -1].argmax().item())
    for hook in hooks:
        hook.remove()
    return losses, generated, state


@needs("whisper/model.py")
def test_whisper_trains_and_decodes_with_kv_cache_like_torch():
    torch_losses, torch_generated, initial = run_whisper(torch, "cpu", None)
    losses, generated, _ = run_whisper(webtorch, "webgpu", initial)
    assert_losses_match(losses, torch_losses)
    assert generated == torch_generated
