# Train a small classifier on scikit-learn's 8x8 digits, on WebGPU, with webtorch autograd.
# A two-layer MLP (64 -> 64 -> 10): torch.nn.Linear layers, torch.optim.Adam.
# The demo page plots what `emit` sends; from a plain Pyodide, emit just prints.
# Values come back through the awaited forms (item_async, tolist_async): the same code then runs in
# browsers without JSPI (Safari, older Firefox), where a synchronous .item() cannot wait for the GPU.
import json, time
import webtorch as torch

try:  # in webtorch's worker (web/worker.js): events to the page; elsewhere: nothing
    from webtorch_web import emit
except ImportError:
    def emit(kind, data):
        pass

EPOCHS = globals().get("EPOCHS", 8)      # the demo page sets EPOCHS / BATCH before running
BATCH = globals().get("BATCH", 128)
LR = 0.01
device = "webgpu"

# ---- data: web/data/digits.bin (uint8 pixels 0..16, then labels), 1437 train / 360 test
async def load_digits():
    try:
        import js
        from pyodide.http import pyfetch
    except ImportError:  # CPython: read the file next to this one
        return open(globals().get("DIGITS_PATH", "web/data/digits.bin"), "rb").read()
    url = js.URL.new("data/digits.bin", js.location.href).href
    return await (await pyfetch(url)).bytes()

await torch.webgpu.init_async()  # the device, without JSPI too (a synchronous first use needs it)
raw = await load_digits()
n = len(raw) // 65
pixels, labels = raw[:n * 64], list(raw[n * 64:])
X = torch.tensor(list(pixels), dtype=torch.float32, device=device).reshape(n, 64) / 16.0
Y = torch.tensor(labels, device=device)
n_train = 1437
Xtr, Ytr = X[:n_train], Y[:n_train]
Xte, Yte = X[n_train:], Y[n_train:]

# ---- model: a two-layer MLP, trained with Adam
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10)).to(device)
opt = torch.optim.Adam(model.parameters(), lr=LR)

async def accuracy(x, y):
    with torch.no_grad():
        return await (model(x).argmax(dim=1) == y).float().mean().item_async()

print(f"training a 64-64-10 MLP on {n_train} digits, {EPOCHS} epochs, batch {BATCH}, on {torch.webgpu.get_device_name()}")
t0 = time.perf_counter()
step = 0
for epoch in range(EPOCHS):
    for i in range(0, n_train, BATCH):
        logits = model(Xtr[i:i + BATCH])
        loss = torch.nn.functional.cross_entropy(logits, Ytr[i:i + BATCH])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        emit("step", str(step))  # progress for the page, and where Stop takes effect
    # one readback per epoch: the GPU runs the epoch's kernels without waiting on Python
    train_loss = await loss.item_async()
    test_acc = await accuracy(Xte, Yte)
    emit("metrics", json.dumps({"epoch": epoch + 1, "epochs": EPOCHS, "step": step, "loss": train_loss,
                                "test_acc": test_acc, "seconds": time.perf_counter() - t0}))
    print(f"epoch {epoch + 1}/{EPOCHS}  loss {train_loss:.4f}  test accuracy {test_acc:.3f}")

# ---- predictions on the first 40 test digits, for the page's prediction view
with torch.no_grad():
    probs = torch.softmax(model(Xte[:40]), dim=1)
    conf, pred = probs.max(dim=1)
emit("predictions", json.dumps({"offset": n_train, "pred": await pred.tolist_async(),
                                "conf": await conf.tolist_async(), "label": await Yte[:40].tolist_async()}))
print(f"done in {time.perf_counter() - t0:.1f} s: test accuracy {test_acc:.3f}")
