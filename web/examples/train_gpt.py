# "Train a GPT in your tab" (web/gpt.html): a character-level GPT (web/examples/gpt.py, nanoGPT's
# model written as ordinary PyTorch code) learns a Shakespeare play on WebGPU. The page runs this file
# once, then calls train(), sample_text(), save_checkpoint() and load_checkpoint() in the same
# Python session: the model and optimizer live on between calls, so Stop then Train resumes.
import io, json, math, time
import webtorch as torch
from gpt import GPT, GPTConfig, CharTokenizer

try:  # in webtorch's worker (web/worker.js): events to the page, where Stop takes effect
    from webtorch_web import emit
except ImportError:
    def emit(kind, data):
        pass

device = "webgpu"
SIZE = globals().get("SIZE", "small")  # the page picks "small" on a software adapter (SwiftShader)
CONFIGS = {"small": dict(n_layer=2, n_head=4, n_embd=32, block_size=32, batch=4, lr=1e-2),
           "large": dict(n_layer=4, n_head=4, n_embd=128, block_size=128, batch=32, lr=1e-3)}


async def load_text():
    try:
        import js
        from pyodide.http import pyfetch
    except ImportError:  # CPython: the file scripts/setup.sh unpacked
        return open(globals().get("TEXT_PATH", ".cache/text/macbeth.txt")).read()
    if "TEXT_PATH" in globals():  # Pyodide outside a page (the benchmark in Node + Dawn)
        return open(TEXT_PATH).read()
    return await (await pyfetch(js.URL.new("/text/macbeth.txt", js.location.href).href)).string()


text = await load_text()
tokenizer = CharTokenizer(text)
data = torch.tensor(tokenizer.encode(text), device=device)
split = int(0.9 * len(data))
train_data, val_data = data[:split], data[split:]
hparams = dict(CONFIGS[SIZE])
batch, lr = hparams.pop("batch"), hparams.pop("lr")
torch.manual_seed(1337)
model = GPT(GPTConfig(vocab_size=len(tokenizer.chars), **hparams)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1, betas=(0.9, 0.95))
step = 0
n_params = sum(p.numel() for p in model.parameters())
print(f"{n_params / 1e3:.0f}k parameters, {len(text)} characters of Macbeth, vocabulary {len(tokenizer.chars)}, "
      f"context {hparams['block_size']}, batch {batch}, on {torch.webgpu.get_device_name()}")


def get_batch(source):
    ix = torch.randint(len(source) - model.config.block_size - 1, (batch,), device=device)
    offsets = torch.arange(model.config.block_size, device=device)
    x = source[ix[:, None] + offsets]
    return x, source[ix[:, None] + offsets + 1]


@torch.no_grad()
def val_loss(batches=4):
    model.eval()
    losses = [model(*get_batch(val_data))[1] for _ in range(batches)]
    model.train()
    return (sum(losses) / len(losses)).item()


def sample_text(n_chars=200, temperature=0.8, top_k=20, prompt="\n"):
    model.eval()
    idx = torch.tensor([tokenizer.encode(prompt)], device=device)
    out = tokenizer.decode(model.generate(idx, n_chars, temperature=temperature, top_k=top_k)[0].tolist())
    model.train()
    return out


emit("loss", json.dumps({"step": 0, "loss": val_loss(), "val_loss": val_loss(), "steps_per_s": 0, "tokens_per_s": 0}))


def train(steps, report_every=10, sample_every=200):
    """steps more optimisation steps; a loss event every report_every steps (one readback), a
    sample every sample_every steps."""
    global step
    model.train()
    t0, done = time.perf_counter(), 0
    for _ in range(steps):
        _, loss = model(*get_batch(train_data))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        step, done = step + 1, done + 1
        if step % report_every == 0:
            seconds = time.perf_counter() - t0
            emit("loss", json.dumps({"step": step, "loss": loss.item(), "steps_per_s": done / seconds,
                                     "tokens_per_s": done * batch * model.config.block_size / seconds}))
        else:
            emit("step", str(step))  # where Stop takes effect
        if step % sample_every == 0:
            emit("sample", json.dumps({"step": step, "text": sample_text()}))
    result = {"step": step, "loss": loss.item(), "val_loss": val_loss(), "seconds": time.perf_counter() - t0}
    emit("loss", json.dumps({**result, "steps_per_s": done / result["seconds"],
                             "tokens_per_s": done * batch * model.config.block_size / result["seconds"]}))
    return result


def save_checkpoint():
    """The model, optimizer, config and vocabulary as torch.save bytes (real PyTorch loads them)."""
    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step,
                "config": vars(model.config), "chars": "".join(tokenizer.chars)}, buffer)
    return buffer.getvalue()


def load_checkpoint(path):
    global step
    checkpoint = torch.load(path, map_location=device)
    if "".join(tokenizer.chars) != checkpoint["chars"] or vars(model.config) != checkpoint["config"]:
        raise ValueError("this checkpoint is of another model or text: "
                         f"config {checkpoint['config']}, here {vars(model.config)}")
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    step = checkpoint["step"]
    return step
