"""Real PyTorch programs (tests/programs/, see its README) under torch and webtorch: losses per
step within 1e-4 relative and identical greedy generations, from the same initial weights."""
import contextlib
import io
import random
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
        if state is None:  # torch: its initialisation is the one both runs start from
            state = to_webtorch_state(model.state_dict())
        else:
            model.load_state_dict(state)
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
    if state is None:
        state = to_webtorch_state(model.state_dict())
    else:
        model.load_state_dict(state)
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
        if state is None:
            state = to_webtorch_state(model.state_dict())
        else:
            model.load_state_dict(state)
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


def assert_losses_match(losses, torch_losses):
    assert len(losses) == len(torch_losses)
    for step, (a, e) in enumerate(zip(losses, torch_losses)):
        assert abs(a - e) <= 1e-4 * abs(e), f"step {step}: loss {a} vs torch {e}"


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
        if state is None:
            state = to_webtorch_state(model.state_dict())
        else:
            model.load_state_dict(state)
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
    if state is None:
        state = to_webtorch_state(model.state_dict())
    else:
        model.load_state_dict(state)
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
