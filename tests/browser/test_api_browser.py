"""Issue 14's device shims, torch.utils.data pieces, Tensor/namespace API and distributions inside
Pyodide (module worker, webgpu and pure-Python cpu): each expression, evaluated under webtorch in the
browser, gives what it gives under torch on the host (tests/test_device_shims.py, test_data.py,
test_tensor_api.py have the full host checks)."""
import json

import pytest

SETUP = """
data = T.utils.data
class Stream(data.IterableDataset):
    def __iter__(self):
        return iter(range(5))
def hooked(device):
    x = T.tensor([1.0, 2.0], device=device, requires_grad=True)
    y = x * 3
    y.retain_grad()
    x.register_hook(lambda g: g * 2)
    (y * y).sum().backward()
    return [x.grad.tolist(), y.grad.tolist()]
def vector_round_trip(device):
    m = T.nn.Linear(2, 2).to(device)
    T.nn.utils.vector_to_parameters(T.arange(6.0, device=device), m.parameters())
    return [T.nn.utils.parameters_to_vector(m.parameters()).tolist(), m.weight.tolist()]
def autocast_matmul(device):
    a = T.ones(2, 2, device=device)
    with T.autocast(device_type="cpu", dtype=T.bfloat16):
        b = a.cpu() @ a.cpu()
    return [str(b.dtype), b.float().tolist(), T.is_autocast_enabled()]
def default_dtype_float64():
    T.set_default_dtype(T.float64)
    try:
        return [str(T.tensor([1.5]).dtype), str(T.zeros(2).dtype), str(T.get_default_dtype())]
    finally:
        T.set_default_dtype(T.float32)
"""

# (expression over T and device): its value, made JSON-able, must equal torch's
EXPRESSIONS = [
    "[T.cuda.is_available(), T.backends.mps.is_available()]",
    "[T.backends.cudnn.enabled is not None, hasattr(T.backends.cuda.matmul, 'allow_tf32')]",
    "[T.ones(1, device=device).is_cuda, T.ones(1, device=device).is_xpu, T.ones(1, device=device).is_mps]",
    "[T.finfo(T.float32).eps, T.finfo(T.float16).max, T.finfo(T.bfloat16).tiny, T.iinfo(T.int16).max, T.iinfo(T.uint8).min]",
    "default_dtype_float64()",
    "[str(T.ones(2, dtype=T.float64).dtype), T.ones(2, dtype=T.int8).mul(100).mul(3).tolist()]",
    "[str(T.get_default_device()), callable(T.set_default_device)]",
    "[list(t.shape) + [str(t.dtype)] for t in (T.ones(2, 3, device=device).new_zeros(4), "
    "T.ones(2, dtype=T.int32, device=device).new_ones((2, 2)), T.ones(1, device=device).new_full((3,), 7), "
    "T.ones(1, device=device).new_empty(2, 1), T.ones(1, dtype=T.int32, device=device).new_tensor([1, 2]))]",
    "hooked(device)",
    "[T.LongTensor([1, 2]).tolist(), list(T.FloatTensor(2, 3).shape), isinstance(T.zeros(2), T.FloatTensor)]",
    "list(data.BatchSampler(data.SequentialSampler(range(7)), 3, drop_last=False))",
    "list(data.BatchSampler(range(7), 3, drop_last=True))",
    "[len(data.RandomSampler(range(5), replacement=True, num_samples=9)), sorted(data.RandomSampler(range(5)))]",
    "[sorted(data.SubsetRandomSampler([4, 1, 3])), list(data.WeightedRandomSampler([0.0, 0.0, 1.0], 4))]",
    "[data.Subset(list('abcde'), [3, 1])[1], len(data.ConcatDataset([range(3), range(4)])), "
    "data.ConcatDataset([range(3), range(4)])[4]]",
    "[len(s) for s in data.random_split(range(5), [0.6, 0.4])]",
    "[b.tolist() for b in data.DataLoader(Stream(), batch_size=2)]",
    "[[list(v.shape), str(v.dtype)] for v in data.default_collate([(T.zeros(2), 1, 0.5), (T.ones(2), 2, 1.5)])]",
    "T.nn.utils.rnn.pad_sequence([T.ones(2, device=device), T.ones(3, device=device) * 2], batch_first=True).tolist()",
    "[T.distributions.Normal(T.tensor(0.5, device=device), T.tensor(2.0, device=device)).log_prob("
    "T.tensor(1.0, device=device)).item(), T.distributions.Normal(0.0, 2.0).entropy().item()]",
    "[T.distributions.Categorical(probs=T.tensor([0.2, 0.3, 0.5], device=device)).log_prob("
    "T.tensor(2, device=device)).item(), T.distributions.Categorical(logits=T.tensor([1.0, 2.0])).entropy().item()]",
    "[T.distributions.Bernoulli(T.tensor(0.3)).entropy().item(), "
    "T.distributions.Uniform(T.tensor(0.0), T.tensor(2.0)).log_prob(T.tensor(1.0)).item()]",
    "T.distributions.MultivariateNormal(T.zeros(2, device=device), T.tensor([[2.0, 0.5], [0.5, 1.0]], "
    "device=device)).log_prob(T.tensor([0.3, -0.2], device=device)).item()",
    "[type(T.manual_seed(0)).__name__, T.no_grad()(lambda: T.ones(1, requires_grad=True) * 2)().requires_grad]",
    "[hasattr(T.nn.parallel, 'DistributedDataParallel'), callable(T.nn.parallel.data_parallel)]",
    "[str(p.dtype) for m in (T.nn.Linear(2, 2).double(), T.nn.Linear(2, 2).bfloat16(), T.nn.Linear(2, 2).half().float()) "
    "for p in m.parameters()]",
    "T.utils.checkpoint.checkpoint(lambda x: (x * 2).sin(), T.ones(2, device=device), use_reentrant=False).tolist()",
    "vector_round_trip(device)",
    "autocast_matmul(device)",
    "[T.amp.GradScaler('cpu').scale(T.tensor(2.0)).item(), T.amp.GradScaler(enabled=False).scale(T.tensor(2.0)).item()]",
    "[T.nn.Dropout1d(0.3).eval()(T.ones(2, 3, device=device)).tolist(), "
    "T.nn.AlphaDropout(0.3).eval()(T.ones(2, device=device)).tolist()]",
]

PROGRAM = """
import json
import webtorch as T
{setup}
result = {{}}
for device in ("webgpu", "cpu"):
    for expression in {expressions!r}:
        result[f"{{device}} {{expression}}"] = json.loads(json.dumps(eval(expression)))
result
"""


def torch_values():
    import torch
    namespace = {"T": torch}
    exec(SETUP, namespace)
    return {expression: json.loads(json.dumps(eval(expression, {**namespace, "device": "cpu"})))
            for expression in EXPRESSIONS}


def same(actual, expected):
    """Equal as JSON values, floats within 1e-5, dtypes by name ('webtorch.float32' is 'torch.float32')."""
    if isinstance(expected, str) and expected.startswith("torch."):
        return actual == "webtorch." + expected[len("torch."):]
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(map(same, actual, expected))
    if isinstance(expected, float):
        return actual == pytest.approx(expected, rel=1e-5, abs=1e-6)
    return actual == expected and type(actual) is type(expected)


def test_api_in_browser(py_worker):
    expected = torch_values()
    result = py_worker.run(PROGRAM.format(setup=SETUP, expressions=EXPRESSIONS))
    for device in ("webgpu", "cpu"):
        for expression in EXPRESSIONS:
            actual = result[f"{device} {expression}"]
            assert same(actual, expected[expression]), (device, expression, actual, expected[expression])
