"""Real PyTorch programs (tests/programs/, see its README) under torch and webtorch: losses per
step within 1e-4 relative and identical greedy generations, from the same initial weights."""
import contextlib
import io
import random

import pytest
import torch

import program_runner
import webtorch


def needs(name):
    return pytest.mark.skipif(not program_runner.path(name).exists(),
                              reason=f"tests/programs/{name} is not vendored (see tests/programs/README.md)")


def to_webtorch_state(state):
    return {k: webtorch.tensor(v.tolist(), dtype=getattr(webtorch, str(v.dtype).split(".")[-1]))
            for k, v in state.items()}


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
    # init_hidden needs Tensor.new_zeros; the same zeros, made directly
    hidden = None if model_type == "Transformer" else (
        (T.zeros(2, 4, 16, device=device), T.zeros(2, 4, 16, device=device)) if model_type == "LSTM"
        else T.zeros(2, 4, 16, device=device))
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
