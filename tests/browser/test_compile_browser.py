"""webtorch.compile inside Pyodide: the MLP of the training-parity cases, replayed, against torch."""
import json


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
