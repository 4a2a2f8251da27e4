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
