"""Real PyTorch programs (tests/programs/, see its README) under torch and webtorch: losses per
step within 1e-4 relative and identical greedy generations, from the same initial weights; scripts
that work at import run with a tiny command line, libraries beside torch replaced by
tests/program_stubs.py."""
import contextlib
import io
import math
import random
import re
import sys
import types

import pytest
import torch

import program_runner
import program_stubs
import webtorch


def needs(name):
    return pytest.mark.skipif(not program_runner.path(name).exists(),
                              reason=f"tests/programs/{name} is not vendored (see tests/programs/README.md)")


def to_webtorch_state(state):
    return {k: webtorch.from_numpy(v.numpy().copy()) for k, v in state.items()}


def same_weights(model, state):
    """Both runs start from torch's initial weights: the torch run (state None) returns them, the
    webtorch run loads them."""
    if state is None:
        return to_webtorch_state(model.state_dict())
    model.load_state_dict(state)
    return state


def tokens(T, device, rows, length, vocab, seed):
    rng = random.Random(seed)
    data = [[rng.randrange(vocab) for _ in range(length + 1)] for _ in range(rows)]
    return (T.tensor([r[:-1] for r in data], device=device), T.tensor([r[1:] for r in data], device=device))


def run_nanogpt(T, device, state):
    """nanoGPT's train.py loop in miniature: configure_optimizers (AdamW, decay groups), forward with
    targets, backward, clip_grad_norm_, step; then generate with top_k=1 (greedy)."""
    with contextlib.redirect_stdout(io.StringIO()):  # the model prints its parameter count
        program = program_runner.load("nanogpt_model.py", T)
        T.manual_seed(0)
        config = program.GPTConfig(block_size=16, vocab_size=48, n_layer=2, n_head=2, n_embd=32, dropout=0.0,
                                   bias=True)
        model = program.GPT(config)
        state = same_weights(model, state)
        model.to(device)  # after construction: the tied wte/lm_head weight must stay one parameter
        optimizer = model.configure_optimizers(0.1, 3e-3, (0.9, 0.95), "cpu")
    assert model.transformer.wte.weight is model.lm_head.weight
    losses = []
    for step in range(6):
        x, y = tokens(T, device, 4, 16, 48, step)
        _, loss = model(x, y)
        loss.backward()
        T.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())
    model.eval()
    start = tokens(T, device, 2, 5, 48, 99)[0]
    generated = model.generate(start, max_new_tokens=14, top_k=1).tolist()
    return losses, generated, state


@needs("nanogpt_model.py")
def test_nanogpt_trains_and_generates_like_torch():
    torch_losses, torch_generated, initial = run_nanogpt(torch, "cpu", None)
    losses, generated, _ = run_nanogpt(webtorch, "webgpu", initial)
    for step, (a, e) in enumerate(zip(losses, torch_losses)):
        assert abs(a - e) <= 1e-4 * abs(e), f"step {step}: loss {a} vs torch {e}"
    assert generated == torch_generated


def run_word_language_model(T, device, model_type, state):
    """pytorch/examples word_language_model/main.py's train() in miniature: bptt batches, hidden state
    carried and detached between batches, NLLLoss, clip_grad_norm_, the manual SGD update
    p.data.add_(p.grad, alpha=-lr)."""
    program = program_runner.load("word_language_model.py", T)
    T.manual_seed(0)
    if model_type == "Transformer":
        model = program.TransformerModel(40, 16, 2, 32, 2, dropout=0.0)
    else:
        model = program.RNNModel(model_type, 40, 16, 16, 2, dropout=0.0, tie_weights=True)
    state = same_weights(model, state)
    model.to(device)
    # nn.Transformer's own dropout (0.1, not the program's argument) draws random masks, which differ
    # between the libraries: the Transformer trains in eval mode (gradients still flow)
    model.train(model_type != "Transformer")
    criterion = T.nn.NLLLoss()
    data = tokens(T, device, 1, 8 * 4 * 3, 40, 7)[0].reshape(4, -1).t().contiguous()  # batchify: (steps, 4)
    hidden = None if model_type == "Transformer" else model.init_hidden(4)
    losses = []
    for i in range(0, data.size(0) - 1, 8):
        seq_len = min(8, len(data) - 1 - i)
        x, targets = data[i:i + seq_len], data[i + 1:i + 1 + seq_len].reshape(-1)
        model.zero_grad()
        if model_type == "Transformer":
            output = model(x).view(-1, 40)
        else:
            hidden = tuple(h.detach() for h in hidden) if isinstance(hidden, tuple) else hidden.detach()
            output, hidden = model(x, hidden)
        loss = criterion(output, targets)
        loss.backward()
        T.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-5.0)
        losses.append(loss.item())
    return losses, state


@needs("word_language_model.py")
@pytest.mark.parametrize("model_type", ["LSTM", "GRU", "RNN_TANH", "Transformer"])
def test_word_language_model_trains_like_torch(model_type):
    torch_losses, initial = run_word_language_model(torch, "cpu", model_type, None)
    losses, _ = run_word_language_model(webtorch, "webgpu", model_type, initial)
    for step, (a, e) in enumerate(zip(losses, torch_losses)):
        assert abs(a - e) <= 1e-4 * abs(e), f"step {step}: loss {a} vs torch {e}"


class OneSequence:
    """minGPT's Trainer samples with replacement from its own unseeded RandomSampler: with one
    sample every batch is the same in both libraries."""

    def __init__(self, T):
        x, y = tokens(T, "cpu", 1, 12, 30, 5)
        self.x, self.y = x[0], y[0]

    def __len__(self):
        return 1

    def __getitem__(self, i):
        return self.x, self.y


def run_mingpt(T, device, state):
    """minGPT's GPT trained by its Trainer (DataLoader, configure_optimizers' decay/no-decay sets,
    clip, AdamW) for 6 iterations, then generate(do_sample=False)."""
    with contextlib.redirect_stdout(io.StringIO()):
        mingpt = program_runner.load_package("mingpt", ["utils", "model", "trainer"], T)
        config = mingpt.model.GPT.get_default_config()
        config.model_type, config.n_layer, config.n_head, config.n_embd = None, 2, 2, 32
        config.vocab_size, config.block_size = 30, 12
        config.embd_pdrop = config.resid_pdrop = config.attn_pdrop = 0.0
        T.manual_seed(0)
        model = mingpt.model.GPT(config)
        state = same_weights(model, state)
        train_config = mingpt.trainer.Trainer.get_default_config()
        train_config.device, train_config.num_workers, train_config.max_iters = device, 0, 6
        train_config.batch_size, train_config.learning_rate = 4, 3e-3
        trainer = mingpt.trainer.Trainer(train_config, model, OneSequence(T))
        losses = []
        trainer.add_callback("on_batch_end", lambda t: losses.append(t.loss.item()))
        trainer.run()
    model.eval()
    generated = model.generate(tokens(T, device, 2, 4, 30, 8)[0], 10, do_sample=False).tolist()
    return losses, generated, state


@needs("mingpt/trainer.py")
def test_mingpt_trainer_and_generation_like_torch():
    torch_losses, torch_generated, initial = run_mingpt(torch, "cpu", None)
    losses, generated, _ = run_mingpt(webtorch, "webgpu", initial)
    assert len(losses) == 6
    for step, (a, e) in enumerate(zip(losses, torch_losses)):
        assert abs(a - e) <= 1e-4 * abs(e), f"step {step}: loss {a} vs torch {e}"
    assert generated == torch_generated


def assert_losses_match(losses, torch_losses, rtol=1e-4):
    assert len(losses) == len(torch_losses)
    for step, (a, e) in enumerate(zip(losses, torch_losses)):
        assert abs(a - e) <= rtol * abs(e), f"step {step}: loss {a} vs torch {e}"


def names(count, seed):
    rng = random.Random(seed)
    return ["".join(rng.choice("abcdefgh") for _ in range(rng.randrange(2, 7))) for _ in range(count)]


def run_makemore(T, device, model_type, state, tmp_path):
    """makemore.py's main in miniature: its CharDataset, model, AdamW as main sets it up, the training
    step, evaluate(), generate() greedy and with top_k, print_samples(), InfiniteDataLoader and
    create_datasets (these two draw from the library's generator, so only their shapes are compared)."""
    with contextlib.redirect_stdout(io.StringIO()):
        program = program_runner.load("makemore.py", T, stubs=program_stubs.others(T))
        words = names(24, 3)
        chars = sorted(set("".join(words)))
        longest = max(len(w) for w in words)
        train, test = program.CharDataset(words[:20], chars, longest), program.CharDataset(words[20:], chars, longest)
        config = program.ModelConfig(vocab_size=train.get_vocab_size(), block_size=train.get_output_length(),
                                     n_layer=2, n_head=2, n_embd=16, n_embd2=16)
        T.manual_seed(0)
        model = {"transformer": lambda: program.Transformer(config), "bigram": lambda: program.Bigram(config),
                 "mlp": lambda: program.MLP(config), "rnn": lambda: program.RNN(config, cell_type="rnn"),
                 "gru": lambda: program.RNN(config, cell_type="gru"), "bow": lambda: program.BoW(config)}[model_type]()
        state = same_weights(model, state)
        model.to(device)
        # the globals main() sets, which evaluate() and print_samples() read
        program.args = types.SimpleNamespace(device=device, top_k=3)
        program.model, program.train_dataset, program.test_dataset = model, train, test
        optimizer = T.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01, betas=(0.9, 0.99), eps=1e-8)
        losses = []
        for X, Y in T.utils.data.DataLoader(train, batch_size=5):  # batches in order: the same in both runs
            logits, loss = model(X.to(device), Y.to(device))
            model.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        losses.append(program.evaluate(model, test, batch_size=len(test)))  # one batch: its shuffle is moot
        assert model.training
        start = T.zeros(3, 1, dtype=T.long).to(device)
        generated = [program.generate(model, start, train.get_output_length() - 1, top_k=top_k).tolist()
                     for top_k in (None, 3)]
        program.print_samples(num=2)
        X, Y = program.InfiniteDataLoader(train, batch_size=4, pin_memory=True, num_workers=0).next()
        assert X.shape == Y.shape == (4, longest + 1)
        (tmp_path / "names.txt").write_text("\n".join(names(30, 4)))
        shapes = [len(d) for d in program.create_datasets(str(tmp_path / "names.txt"))]
    return losses, generated, shapes, state


@needs("makemore.py")
@pytest.mark.parametrize("model_type", ["transformer", "bigram", "mlp", "rnn", "gru", "bow"])
def test_makemore_trains_and_generates_like_torch(model_type, tmp_path):
    torch_losses, torch_generated, torch_shapes, initial = run_makemore(torch, "cpu", model_type, None, tmp_path)
    losses, generated, shapes, _ = run_makemore(webtorch, "webgpu", model_type, initial, tmp_path)
    assert_losses_match(losses, torch_losses)
    assert generated == torch_generated
    assert shapes == torch_shapes == [27, 3]


def images(T, device, count, shape, seed):
    rng = random.Random(seed)
    return T.tensor([[[[rng.uniform(-1, 1) for _ in range(shape[2])] for _ in range(shape[1])]
                      for _ in range(shape[0])] for _ in range(count)], device=device)


def labels(T, device, count, classes, seed):
    rng = random.Random(seed)
    return T.tensor([rng.randrange(classes) for _ in range(count)], device=device)


def run_resnet(T, device, arch, state):
    """torchvision's ResNet trained as its reference script does (SGD with momentum and weight decay,
    cross entropy; BatchNorm in training mode) for 2 steps on small images, and evaluated (running
    statistics) between them: resnet18() itself, and a resnet50-style network of Bottleneck blocks (grouped
    convolutions as in resnext, zero_init_residual) with one block per stage. Two steps: from the
    third on, resnet18's losses depend on float rounding (its last stage normalises 1x1 maps over a
    batch of 8: torch's own float32 and float64 runs differ by 2e-4 at step 3, 7e-3 with a batch of 4)."""
    resnet = program_runner.load("resnet.py", T, stubs=program_stubs.torchvision(T), package="torchvision.models")
    T.manual_seed(0)
    if arch == "resnet18":
        model = resnet.resnet18(num_classes=10)
    else:
        model = resnet.ResNet(resnet.Bottleneck, [1, 1, 1, 1], num_classes=10, groups=2, width_per_group=16,
                              zero_init_residual=True)
    state = same_weights(model, state)
    model.to(device)
    criterion = T.nn.CrossEntropyLoss()
    optimizer = T.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    batch, side = (8, 32) if arch == "resnet18" else (4, 16)
    losses = []
    for step in range(2):
        loss = criterion(model(images(T, device, batch, (3, side, side), step)), labels(T, device, batch, 10, step))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step == 0:  # evaluated after one update (the second's gradients are the ill-conditioned ones)
            model.eval()
            with T.no_grad():
                logits = model(images(T, device, 2, (3, side, side), 9))
            model.train()
    return losses, logits.tolist(), state


@needs("resnet.py")
@pytest.mark.parametrize("arch", ["resnet18", "bottleneck"])
def test_torchvision_resnet_trains_and_evaluates_like_torch(arch):
    # on webtorch's cpu device: on lavapipe (2 loaded cores) the 4M-parameter Bottleneck network's two
    # steps at 16x16 take 100 s, resnet18's minutes; the smaller convolutional programs below run there
    torch_losses, torch_logits, initial = run_resnet(torch, "cpu", arch, None)
    losses, logits, _ = run_resnet(webtorch, "cpu", arch, initial)
    assert_losses_match(losses, torch_losses)
    assert torch.allclose(torch.tensor(logits), torch.tensor(torch_logits), rtol=1e-3, atol=1e-4)


def examples_mnist_loaders(T, batch_size):
    """The MNIST loaders pytorch/examples' mnist and mnist_rnn build (synthetic MNIST, unshuffled)."""
    vision = program_stubs.torchvision(T)
    transforms = vision["torchvision.transforms"]
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    return [T.utils.data.DataLoader(vision["torchvision.datasets"].MNIST("../data", train=train, transform=transform),
                                    batch_size=batch_size) for train in (True, False)]


def printed_losses(printed):
    """The per-batch training losses and the test (average loss, correct) that train()/test() print."""
    return ([float(v) for v in re.findall(r"Loss: ([-0-9.]+)", printed)],
            [(float(a), int(c)) for a, c in re.findall(r"Average loss: ([-0-9.]+), Accuracy: (\d+)/", printed)])


def run_mnist_example(T, device, name, state):
    """pytorch/examples mnist (CNN) or mnist_rnn (LSTM, BatchNorm1d): main()'s loop of train() and test()
    over 2 epochs, Adadelta and StepLR, with dropout off (its masks come from each library's
    generator); the losses are the ones train() and test() print."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        program = program_runner.load(name, T, stubs=program_stubs.torchvision(T))
        T.manual_seed(0)
        model = program.Net()
        state = same_weights(model, state)
        model.to(device)
        for module in model.modules():
            if "Dropout" in type(module).__name__:
                module.p = 0.0
        train_loader, test_loader = examples_mnist_loaders(T, 4)
        optimizer = T.optim.Adadelta(model.parameters(), lr=1.0 if name == "mnist.py" else 0.1)
        scheduler = program.StepLR(optimizer, step_size=1, gamma=0.7)
        args = types.SimpleNamespace(log_interval=1, dry_run=False)
        for epoch in (1, 2):
            program.train(args, model, device, train_loader, optimizer, epoch)
            program.test(model, device, test_loader) if name == "mnist.py" else program.test(args, model, device,
                                                                                            test_loader)
            scheduler.step()
    return printed_losses(printed.getvalue()), state


def run_main(T, name, argv, **stubs):
    """A script's main() (or its import, for scripts that work at import) with a tiny command line; what it printed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        program = program_runner.load(name, T, stubs={**program_stubs.torchvision(T), **program_stubs.others(T)},
                                      argv=argv)
        if hasattr(program, "main"):
            saved, sys.argv = sys.argv, [name] + argv
            try:
                program.main()
            finally:
                sys.argv = saved
    return program, printed.getvalue()


@needs("mnist.py")
@needs("mnist_rnn.py")
@pytest.mark.parametrize("name", ["mnist.py", "mnist_rnn.py"])
def test_examples_mnist_trains_like_torch(name):
    # the CNN compared on the cpu device (on lavapipe, loaded, one of its steps takes 10 s), run on
    # webgpu by its main() below
    (torch_losses, torch_tests), initial = run_mnist_example(torch, "cpu", name, None)
    (losses, tests), _ = run_mnist_example(webtorch, "cpu" if name == "mnist.py" else "webgpu", name, initial)
    assert len(losses) == 4 and len(tests) == 2
    assert_losses_match(losses, torch_losses)
    for (loss, correct), (torch_loss, torch_correct) in zip(tests, torch_tests):
        assert abs(loss - torch_loss) <= 2e-4 * abs(torch_loss) + 1e-4 and correct == torch_correct
    # the script itself, on webgpu through torch.accelerator, with its DataLoader options (workers,
    # pinned memory, shuffling) and dropout on
    accelerator = ["--accel"] if name == "mnist_rnn.py" else []
    _, printed = run_main(webtorch, name, ["--epochs", "1", "--batch-size", "4", "--test-batch-size", "4",
                                           "--dry-run"] + accelerator)
    losses, tests = printed_losses(printed)
    assert len(losses) == 1 and len(tests) == 1 and all(math.isfinite(v) for v in losses + [tests[0][0]])


def run_time_sequence_prediction(T, state):
    """time_sequence_prediction/train.py's main in miniature: its sine-wave data (generate_sine_wave.py,
    5 waves of 10 points), the Sequence of two LSTMCells in float64 (seq.double(): on the cpu device,
    where float64 is native), an LBFGS step of its closure, prediction of the future under no_grad."""
    import numpy as np
    with contextlib.redirect_stdout(io.StringIO()):
        program = program_runner.load("time_sequence_prediction.py", T, stubs=program_stubs.others(T))
    rng = np.random.RandomState(2)
    x = np.empty((5, 10), "int64")
    x[:] = np.array(range(10)) + rng.randint(-4 * 20, 4 * 20, 5).reshape(5, 1)
    data = np.sin(x / 1.0 / 20).astype("float64")
    input, target = T.from_numpy(data[3:, :-1]), T.from_numpy(data[3:, 1:])
    test_input, test_target = T.from_numpy(data[:3, :-1]), T.from_numpy(data[:3, 1:])
    T.manual_seed(0)
    seq = program.Sequence()
    seq.double()
    state = same_weights(seq, state)
    criterion = T.nn.MSELoss()
    optimizer = T.optim.LBFGS(seq.parameters(), lr=0.8, max_iter=5)
    losses = []
    for i in range(1):
        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            losses.append(loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        with T.no_grad():
            future = 4
            pred = seq(test_input, future=future)
            losses.append(criterion(pred[:, :-future], test_target).item())
            assert pred.dtype == T.float64 and tuple(pred.shape) == (3, 9 + future)
    return losses, state


@needs("time_sequence_prediction.py")
def test_time_sequence_prediction_trains_like_torch():
    torch_losses, initial = run_time_sequence_prediction(torch, None)
    losses, _ = run_time_sequence_prediction(webtorch, initial)
    assert len(losses) > 3
    assert_losses_match(losses, torch_losses)


def run_super_resolution(T, device, state):
    """super_resolution: model.py's Net (orthogonal init, PixelShuffle) trained as main.py does
    (MSELoss, Adam) for 2 steps on 8x8 -> 16x16 images, then its test PSNR."""
    program = program_runner.load("super_resolution_model.py", T)
    T.manual_seed(0)
    model = program.Net(upscale_factor=2)
    state = same_weights(model, state)
    model.to(device)
    criterion = T.nn.MSELoss()
    optimizer = T.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for step in range(2):
        input, target = images(T, device, 2, (1, 8, 8), step), images(T, device, 2, (1, 16, 16), step + 10)
        optimizer.zero_grad()
        loss = criterion(model(input), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with T.no_grad():
        mse = criterion(model(images(T, device, 2, (1, 8, 8), 20)), images(T, device, 2, (1, 16, 16), 21))
        losses.append(10 * math.log10(1 / mse.item()))
    return losses, state


@needs("super_resolution_model.py")
def test_super_resolution_trains_like_torch():
    torch_losses, initial = run_super_resolution(torch, "cpu", None)
    losses, _ = run_super_resolution(webtorch, "webgpu", initial)
    assert_losses_match(losses, torch_losses)


def run_fast_neural_style(T, device, state, steps=2):
    """fast_neural_style's TransformerNet (reflection padding, InstanceNorm2d, nearest upsampling)
    trained as neural_style.py's train() does, with the images themselves in place of VGG-16's
    features (its weights would be a download): utils.normalize_batch (new_tensor, in-place div_ of
    the network's output), content MSE, style MSE of utils.gram_matrix, Adam; before that, stylise an
    image in eval mode (after Adam's first steps, which move every weight by about lr whatever the
    size of its gradient, the outputs of the two libraries differ by rounding of tiny gradients)."""
    style_utils = program_runner.load("fast_neural_style_utils.py", T, stubs=program_stubs.others(T))
    program = program_runner.load("fast_neural_style_transformer_net.py", T)
    T.manual_seed(0)
    transformer = program.TransformerNet()
    state = same_weights(transformer, state)
    transformer.to(device)
    transformer.eval()
    with T.no_grad():
        output = transformer((images(T, device, 1, (3, 12, 12), 40) + 1) * 127.5)
    transformer.train()
    optimizer = T.optim.Adam(transformer.parameters(), 1e-3)
    mse_loss = T.nn.MSELoss()
    style = (images(T, device, 1, (3, 8, 8), 30) + 1) * 127.5
    gram_style = style_utils.gram_matrix(style_utils.normalize_batch(style))
    losses = []
    for step in range(steps):
        x = (images(T, device, 2, (3, 8, 8), step) + 1) * 127.5  # transforms.Lambda(lambda x: x.mul(255))
        optimizer.zero_grad()
        y = transformer(x)
        y = style_utils.normalize_batch(y)
        x = style_utils.normalize_batch(x)
        content_loss = 1e5 * mse_loss(y, x)
        style_loss = 1e10 * mse_loss(style_utils.gram_matrix(y), gram_style.expand(2, -1, -1))
        total_loss = content_loss + style_loss
        total_loss.backward()
        optimizer.step()
        losses += [content_loss.item(), style_loss.item()]
    return losses, output.clamp(0, 255).tolist(), state


@needs("fast_neural_style_transformer_net.py")
@needs("fast_neural_style_utils.py")
def test_fast_neural_style_trains_like_torch():
    # trained on the cpu device (on lavapipe, loaded, a step of its 1.7M-parameter network takes 30 s);
    # its forward on webgpu too
    torch_losses, torch_output, initial = run_fast_neural_style(torch, "cpu", None)
    losses, output, _ = run_fast_neural_style(webtorch, "cpu", initial)
    assert_losses_match(losses, torch_losses)
    _, webgpu_output, _ = run_fast_neural_style(webtorch, "webgpu", initial, steps=0)
    for out in (output, webgpu_output):
        assert torch.allclose(torch.tensor(out), torch.tensor(torch_output), rtol=1e-4, atol=1e-3)


def vae_forward(T, program, state, x):
    """VAE's encode/decode and loss_function on the same weights, without the reparameterisation's noise."""
    program.model.load_state_dict(state)
    with T.no_grad():
        mu, logvar = program.model.encode(x.view(-1, 784))
        recon = program.model.decode(mu)
        return [mu.tolist(), logvar.tolist(), recon.tolist()], program.loss_function(recon, x, mu, logvar).item()


@needs("vae.py")
def test_vae_runs_and_computes_like_torch():
    """pytorch/examples vae/main.py works at import (arguments, loaders, model, optimizer on the
    accelerator); its train() and test() epochs run under webtorch on webgpu; its model and loss
    function give torch's numbers on the same weights."""
    reference, _ = run_main(torch, "vae.py", ["--batch-size", "4"])
    program, printed = run_main(webtorch, "vae.py", ["--batch-size", "4"])
    assert "Using device: webgpu" in printed
    with contextlib.redirect_stdout(io.StringIO()) as out:
        program.train(1)
        program.test(1)
    assert re.search(r"Epoch: 1 Average loss: \d", out.getvalue()) and re.search(r"Test set loss: \d", out.getvalue())
    state = to_webtorch_state(reference.model.state_dict())
    x = images(torch, "cpu", 4, (1, 28, 28), 0).sigmoid()
    expected, expected_loss = vae_forward(torch, reference, reference.model.state_dict(), x)
    actual, loss = vae_forward(webtorch, program, state, webtorch.tensor(x.tolist(), device="webgpu"))
    for a, e in zip(actual, expected):
        torch.testing.assert_close(torch.tensor(a), torch.tensor(e), rtol=1e-4, atol=1e-5)
    assert abs(loss - expected_loss) <= 1e-4 * abs(expected_loss)


@needs("dcgan.py")
def test_dcgan_runs_and_its_checkpoints_load_in_torch(tmp_path):
    """pytorch/examples dcgan/main.py at import with --dataset fake --dry-run: one discriminator and
    one generator step on the accelerator (cudnn.benchmark, is_cuda/is_xpu, nn.parallel, BCELoss,
    ConvTranspose2d, BatchNorm2d, LeakyReLU, weights_init through Module.apply); the checkpoints it
    saves with torch.save load into torch's Generator and Discriminator and give webtorch's outputs."""
    argv = ["--dataset", "fake", "--dry-run", "--accel", "--manualSeed", "1", "--workers", "0", "--batchSize", "4",
            "--nz", "8", "--ngf", "4", "--ndf", "4"]
    program, printed = run_main(webtorch, "dcgan.py", argv + ["--outf", str(tmp_path / "webtorch")])
    losses = re.findall(r"Loss_D: ([-0-9.naif]+) Loss_G: ([-0-9.naif]+)", printed)
    assert "Using device: webgpu" in printed and len(losses) == 1 and all(math.isfinite(float(v)) for v in losses[0])
    # torch's OpInfo helpers (tests/test_opinfo.py, same process) freeze torch's cudnn flags; the
    # program sets cudnn.benchmark, which torch then allows only inside its flags() context
    with torch.backends.__allow_nonbracketed_mutation():
        reference, _ = run_main(torch, "dcgan.py", argv + ["--outf", str(tmp_path / "torch")])
    noise = images(torch, "cpu", 2, (8, 1, 1), 3)
    for net, name in ((reference.netG, "netG_epoch_0.pth"), (reference.netD, "netD_epoch_0.pth")):
        net.load_state_dict(torch.load(tmp_path / "webtorch" / name))
    reference.netG.eval(), reference.netD.eval(), program.netG.eval(), program.netD.eval()
    with torch.no_grad(), webtorch.no_grad():
        expected = reference.netD(reference.netG(noise))
        actual = program.netD(program.netG(webtorch.tensor(noise.tolist(), device="webgpu")))
    torch.testing.assert_close(torch.tensor(actual.tolist()), expected, rtol=1e-4, atol=1e-5)
