"""Training-parity cases: the same model and batches in torch and webtorch (standard library only,
so the browser can run the webtorch side against torch's recorded losses).

Each case builds its model with `T` (torch or webtorch), trains `STEPS` steps on deterministic
batches and returns the per-step losses and the final parameters as plain lists.
"""
import math
import random

STEPS = 50


def mlp(T):
    return T.nn.Sequential(T.nn.Linear(12, 32), T.nn.ReLU(), T.nn.Linear(32, 32), T.nn.GELU(), T.nn.Linear(32, 5))


def cnn(T):
    return T.nn.Sequential(
        T.nn.Conv2d(1, 4, 3, padding=1, bias=False), T.nn.BatchNorm2d(4), T.nn.ReLU(), T.nn.MaxPool2d(2),
        T.nn.Conv2d(4, 6, 3), T.nn.ReLU(), T.nn.Flatten(), T.nn.Linear(6 * 2 * 2, 5))


class TinyTransformer:
    """Built per library: embedding-free (inputs are vectors), 2 encoder layers, mean pool, head."""

    @staticmethod
    def build(T):
        class Model(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.inp = T.nn.Linear(6, 16)
                layer = T.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
                self.encoder = T.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
                self.head = T.nn.Linear(16, 5)

            def forward(self, x):
                return self.head(self.encoder(self.inp(x)).mean(1))
        return Model()


MODELS = {"mlp": (mlp, (12,)), "cnn": (cnn, (1, 8, 8)), "transformer": (TinyTransformer.build, (5, 6))}
OPTIMIZERS = {
    "adam": lambda T, params: T.optim.Adam(params, lr=3e-3),
    "sgd_momentum": lambda T, params: T.optim.SGD(params, lr=0.05, momentum=0.9),
}
CASES = [(m, o) for m in MODELS for o in OPTIMIZERS]


def batches(model_name, batch=8):
    rng = random.Random(f"{model_name}-batches")
    shape = MODELS[model_name][1]
    n = batch * math.prod(shape)
    for _ in range(STEPS):
        yield [rng.gauss(0, 1) for _ in range(n)], [rng.randrange(5) for _ in range(batch)]


def train(T, model, model_name, optimizer_name, device, compile_step=None, steps=STEPS):
    """Trains in place; returns (losses, {name: flat values}). compile_step: applied to the training
    step function (forward, zero_grad, backward, optimizer step), e.g. webtorch.compile."""
    shape = MODELS[model_name][1]
    opt = OPTIMIZERS[optimizer_name](T, model.parameters())

    def step(xb, yb):
        loss = T.nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    if compile_step is not None:
        step = compile_step(step)
    losses = []
    for x, y in list(batches(model_name))[:steps]:
        xb = T.tensor(x, device=device).reshape(-1, *shape)
        yb = T.tensor(y, device=device)
        losses.append(step(xb, yb).item())
    params = {k: [float(v) for v in _flat(p.detach().cpu().tolist())] for k, p in model.state_dict().items()}
    return losses, params


def worst_parameter_differences(params, expected):
    """{name: max abs difference} over the final parameters, leaving out the attention key bias (the
    middle third of in_proj_bias): its true gradient is zero (softmax ignores a constant shift), so
    Adam, which divides by the gradient's running RMS, moves it by float noise alone, in torch as here."""
    worst = {}
    for name, values in expected.items():
        keep = range(len(values))
        if name.endswith("self_attn.in_proj_bias"):
            third = len(values) // 3
            keep = [i for i in keep if not third <= i < 2 * third]
        worst[name] = max((abs(params[name][i] - values[i]) for i in keep), default=0.0)
    return worst


def _flat(x):
    if isinstance(x, list):
        return [v for item in x for v in _flat(item)]
    return [x]
