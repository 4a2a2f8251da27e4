"""webtorch.compile inside Pyodide: the MLP of the training-parity cases, replayed, against torch."""
import json
import math

import pytest


def test_compiled_mlp_replays_torch_values(py):
    import torch
    py.put_test_module("training_cases.py")
    torch.manual_seed(0)
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import training_cases as tc
    model = tc.mlp(torch)
    state = {k: v.tolist() for k, v in model.state_dict().items()}
    g = torch.Generator().manual_seed(3)
    xs = [torch.randn(4, 12, generator=g) for _ in range(3)]
    with torch.no_grad():
        expected = [model(x).tolist() for x in xs]
    got = py.run(f"""
import json
import webtorch
import training_cases as tc
model = tc.mlp(webtorch)
model.load_state_dict({{k: webtorch.tensor(v) for k, v in json.loads({json.dumps(json.dumps(state))}).items()}})
compiled = webtorch.compile(model.to("webgpu"))
out = []
with webtorch.no_grad():
    for x in json.loads({json.dumps(json.dumps([x.tolist() for x in xs]))}):
        out.append(compiled(webtorch.tensor(x, device="webgpu")).tolist())
[out, compiled._compiled_call.stats]
""")
    values, stats = got
    assert stats == {"captures": 1, "replays": 2, "eager": 0}
    for g_, e in zip(values, expected):
        assert torch.allclose(torch.tensor(g_), torch.tensor(e), atol=1e-5)


def test_compiled_training_step_replays_torch_losses(py):
    # forward, zero_grad, backward, Adam step through webtorch.compile: replayed from the third step
    import torch
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import training_cases as tc
    py.put_test_module("training_cases.py")
    torch.manual_seed(0)
    reference = tc.mlp(torch)
    state = {k: v.tolist() for k, v in reference.state_dict().items()}
    expected, _ = tc.train(torch, reference, "mlp", "adam", "cpu", steps=5)
    losses, stats = py.run(f"""
import json
import webtorch
import training_cases as tc
model = tc.mlp(webtorch)
model.load_state_dict({{k: webtorch.tensor(v) for k, v in json.loads({json.dumps(json.dumps(state))}).items()}})
made = []
losses, _ = tc.train(webtorch, model.to("webgpu"), "mlp", "adam", "webgpu", steps=5,
                     compile_step=lambda fn: made.append(webtorch.compile(fn, fullgraph=True)) or made[0])
[losses, made[0].stats]
""")
    assert stats["eager"] == 0 and stats["replays"] >= 2, stats
    for got, want in zip(losses, expected):
        assert abs(got - want) <= 1e-4 * abs(want), (losses, expected)


# f(T, x, y) on torch and on webtorch: broadcasting, a transposed input, casts to int8 and bfloat16
CHAINS = """
def f(T, x, y):
    x = x.t()
    h = (x * 1.5 - y).tanh() * 2 + x.sigmoid()
    e = (h.exp() - 1).clamp(-5, 5)
    return [h, e.to(T.int8) * 3, (x * y).to(T.bfloat16) + 1, T.where(x > y, e, -e).abs().sqrt()]
"""


# f(T, x, y) of linear layers: a matmul's chain (bias, gelu, scaling, a residual of its input A; relu,
# tanh) runs in the matmul kernel's store
EPILOGUES = """
def f(T, x, y):
    h = T.nn.functional.linear(x, y, y[0])
    return [T.nn.functional.gelu(h) * 0.5 + x, (x @ y).relu().tanh()]
"""
SPECIAL_ROWS = [[0.0, -0.0, math.inf, -math.inf, math.nan, 1e-30, 3e38, -2.5],
                [0.5, -0.75, 2.0, 7.25, -13.5, 0.999, 40.0, -1.0]]
CASES = {"chains": (CHAINS, SPECIAL_ROWS, [0.5, 1.5]),
         "epilogues": (EPILOGUES, [row[i:i + 4] for row in SPECIAL_ROWS for i in (0, 4)] * 2,
                       [[0.5, -1.0, 2.0, 0.25], [1.5, 0.75, -0.5, 3.0], [-2.0, 0.125, 1.0, -0.75],
                        [0.3, 0.6, -0.9, 1.2]])}


@pytest.mark.parametrize("case", list(CASES))
def test_fused_chains_replay_torch_values(py, case):
    # a replay fuses the chains (fewer kernels than the eager call) and gives eager's values bit for
    # bit, and torch's, NaN and infinities included
    import sys
    from pathlib import Path
    import torch
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from torch_paths import assert_close_to_either, float64_too
    source, x, y = CASES[case]
    namespace = {}
    exec(source, namespace)
    wants = namespace["f"](torch, torch.tensor(x), torch.tensor(y))
    # torch's float32 at the edges depends on its CPU path (gelu of inf, of 3e38): its value or float64's
    wants64 = float64_too(lambda a, b: namespace["f"](torch, a, b), [torch.tensor(x), torch.tensor(y)]) or [None] * len(wants)
    got, eager, kernels = py.run(source + f"""
import json
import webtorch
from webtorch.backend.webgpu import runtime
x = webtorch.tensor(json.loads({json.dumps(json.dumps(x))}), device="webgpu")
y = webtorch.tensor(json.loads({json.dumps(json.dumps(y))}), device="webgpu")
rt = runtime()
k0 = rt.kernels_dispatched
eager = [t.tolist() for t in f(webtorch, x, y)]
k1 = rt.kernels_dispatched
compiled = webtorch.compile(lambda x, y: f(webtorch, x, y))
compiled(x * 2, y)
k2 = rt.kernels_dispatched
got = [t.tolist() for t in compiled(x, y)]
[got, eager, [k1 - k0, rt.kernels_dispatched - k2, compiled.stats]]
""")
    assert repr(got) == repr(eager)  # bit for bit (NaN != NaN: compared as text)
    assert kernels[1] < kernels[0] and kernels[2] == {"captures": 1, "replays": 1, "eager": 0}, kernels
    assert case != "epilogues" or kernels[1] == 2, kernels  # one kernel per matmul
    for k, (g, want, want64) in enumerate(zip(got, wants, wants64)):
        assert_close_to_either(torch.tensor(g, dtype=torch.float32), want.float(),
                               want64.float() if want64 is not None else None, 1e-5, 1e-5, f"result {k}")
