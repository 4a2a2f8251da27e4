"""Training parity with PyTorch: an MLP, a CNN and a 2-layer Transformer encoder, initialised
from the same state_dict, trained 50 steps on the same batches with Adam and SGD+momentum."""
import pytest
import torch

import webtorch

from training_cases import CASES, MODELS, train, worst_parameter_differences


@pytest.mark.parametrize("model_name,optimizer_name", CASES, ids=[f"{m}-{o}" for m, o in CASES])
def test_training_matches_torch(model_name, optimizer_name):
    torch.manual_seed(0)
    reference = MODELS[model_name][0](torch)
    model = MODELS[model_name][0](webtorch).to("webgpu")
    model.load_state_dict({k: webtorch.tensor(v.tolist()) for k, v in reference.state_dict().items()})
    expected_losses, expected_params = train(torch, reference, model_name, optimizer_name, "cpu")
    losses, params = train(webtorch, model, model_name, optimizer_name, "webgpu")
    for step, (a, e) in enumerate(zip(losses, expected_losses)):
        assert abs(a - e) <= 1e-4 * abs(e), f"step {step}: loss {a} vs torch {e}"
    for name, worst in worst_parameter_differences(params, expected_params).items():
        assert worst <= 1e-3, f"{name}: max abs difference {worst}"


def test_mlp_training_keeps_gpu_memory_flat():
    model = MODELS["mlp"][0](webtorch).to("webgpu")
    opt = webtorch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = webtorch.ones(8, 12, device="webgpu")
    y = webtorch.zeros(8, dtype=webtorch.int64, device="webgpu")

    def step():
        loss = webtorch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    for _ in range(5):
        step()
    webtorch.webgpu.synchronize()
    start = webtorch.webgpu.memory_allocated()
    for _ in range(1000):
        step()
    webtorch.webgpu.synchronize()
    assert webtorch.webgpu.memory_allocated() == start
