"""nn.init against torch 2.13: the initialisers draw from webtorch's generator (not torch's numbers),
so each is compared by what torch's guarantees: gains, fans and bounds exactly, sample moments
within sampling error, orthogonality, errors."""
import math

import pytest
import torch

import webtorch

GAINS = [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
         ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)]


@pytest.mark.parametrize("nonlinearity, param", GAINS)
def test_calculate_gain_matches_torch(nonlinearity, param):
    assert webtorch.nn.init.calculate_gain(nonlinearity, param) == torch.nn.init.calculate_gain(nonlinearity, param)


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("shape, gain", [((3, 5), 1.0), ((5, 3), math.sqrt(2)), ((4, 2, 3, 3), 2.0), ((6, 6), 1.0)])
def test_orthogonal_is_semi_orthogonal_like_torch(shape, gain, device):
    weight = webtorch.empty(*shape, device=device)
    assert webtorch.nn.init.orthogonal_(weight, gain) is weight
    expected = torch.nn.init.orthogonal_(torch.empty(*shape), gain)
    for m in (torch.tensor(weight.tolist()).reshape(shape[0], -1), expected.reshape(shape[0], -1)):
        gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
        torch.testing.assert_close(gram, gain ** 2 * torch.eye(gram.shape[0]), atol=1e-4, rtol=0)
    # uniformly distributed, not a fixed matrix: two draws differ
    assert weight.tolist() != webtorch.nn.init.orthogonal_(webtorch.empty(*shape, device=device), gain).tolist()


def test_orthogonal_errors_and_empty_like_torch():
    for T in (torch, webtorch):
        with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
            T.nn.init.orthogonal_(T.empty(3))
        assert tuple(T.nn.init.orthogonal_(T.empty(0, 3)).shape) == (0, 3)


@pytest.mark.parametrize("init, kwargs", [
    ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_uniform_", {"a": math.sqrt(5)}),
    ("xavier_normal_", {"gain": 2.0}),
    ("xavier_uniform_", {}),
])
def test_fan_based_initialisers_have_torchs_spread(init, kwargs):
    shape = (64, 32, 3, 3)
    expected = getattr(torch.nn.init, init)(torch.empty(*shape), **kwargs).std().item()
    actual = torch.tensor(getattr(webtorch.nn.init, init)(webtorch.empty(*shape), **kwargs).tolist()).std().item()
    assert abs(actual - expected) <= 0.03 * expected  # 18k samples each: sampling error ~1%
