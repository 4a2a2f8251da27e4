"""torch.distributions beyond the five base families, as RL and VAE code uses them (cleanrl-style
squashed Gaussians, diagonal Gaussians through Independent, KL terms): Independent, Laplace,
OneHotCategorical, TransformedDistribution with exp/affine/sigmoid/tanh transforms, LogNormal and
kl_divergence, against torch 2.13 (values and parameter gradients), on cpu and webgpu; the names not
built yet raise NotImplementedError naming the gap."""
import math

import numpy as np
import pytest
import torch

import webtorch

LOC = [[0.3, -1.2, 0.5], [1.0, 0.0, -0.4]]
SCALE = [[0.5, 1.5, 0.8], [2.0, 0.3, 1.1]]
VALUE = [[0.1, -0.9, 0.7], [0.4, 0.2, -1.3]]
UNIT = [[0.2, -0.7, 0.5], [0.9, 0.05, -0.3]]
LOGITS = [[0.1, -0.4, 1.2], [2.0, 0.3, -1.0]]


def _normal(D, T, loc, scale):
    return D.Normal(loc, scale)


def _squashed(D, T, loc, scale):
    return D.TransformedDistribution(D.Normal(loc, scale), [D.TanhTransform(cache_size=1)])


def _affine_sigmoid(D, T, loc, scale):
    return D.TransformedDistribution(D.Normal(loc, scale), [D.SigmoidTransform(), D.AffineTransform(-1.0, 2.0)])


# name: (build(D, T, loc, scale), the quantities compared: name -> fn(distribution, T))
CASES = {
    "independent_normal": (lambda D, T, loc, scale: D.Independent(D.Normal(loc, scale), 1),
                           {"log_prob": lambda d, T: d.log_prob(T.tensor(VALUE)), "entropy": lambda d, T: d.entropy(),
                            "mean": lambda d, T: d.mean, "stddev": lambda d, T: d.stddev}),
    "laplace": (lambda D, T, loc, scale: D.Laplace(loc, scale),
                {"log_prob": lambda d, T: d.log_prob(T.tensor(VALUE)), "entropy": lambda d, T: d.entropy(),
                 "cdf": lambda d, T: d.cdf(T.tensor(VALUE)), "variance": lambda d, T: d.variance}),
    "lognormal": (lambda D, T, loc, scale: D.LogNormal(loc, scale),
                  {"log_prob": lambda d, T: d.log_prob(T.tensor(SCALE)), "entropy": lambda d, T: d.entropy(),
                   "mean": lambda d, T: d.mean, "variance": lambda d, T: d.variance}),
    "tanh_normal": (_squashed, {"log_prob": lambda d, T: d.log_prob(T.tensor(UNIT))}),
    "sigmoid_affine_normal": (_affine_sigmoid, {"log_prob": lambda d, T: d.log_prob(T.tensor(UNIT)),
                                                "cdf": lambda d, T: d.cdf(T.tensor(UNIT))}),
    "one_hot_categorical": (lambda D, T, loc, scale: D.OneHotCategorical(logits=loc * scale),
                            {"log_prob": lambda d, T: d.log_prob(T.eye(3)[T.tensor([2, 0])]),
                             "entropy": lambda d, T: d.entropy(), "variance": lambda d, T: d.variance}),
    "kl_normal": (_normal, {"kl": lambda d, T: T.distributions.kl_divergence(d, T.distributions.Normal(
        T.tensor(VALUE), T.tensor(SCALE) * 0.7))}),
    "kl_independent": (lambda D, T, loc, scale: D.Independent(D.Normal(loc, scale), 1),
                       {"kl": lambda d, T: T.distributions.kl_divergence(d, T.distributions.Independent(
                           T.distributions.Normal(T.zeros(2, 3), T.ones(2, 3)), 1))}),
    "kl_categorical": (lambda D, T, loc, scale: D.Categorical(logits=loc * scale),
                       {"kl": lambda d, T: T.distributions.kl_divergence(d, T.distributions.Categorical(
                           logits=T.tensor(LOGITS)))}),
    "kl_bernoulli": (lambda D, T, loc, scale: D.Bernoulli(logits=loc),
                     {"kl": lambda d, T: T.distributions.kl_divergence(d, T.distributions.Bernoulli(
                         probs=T.tensor(UNIT).abs()))}),
    "kl_laplace": (lambda D, T, loc, scale: D.Laplace(loc, scale),
                   {"kl": lambda d, T: T.distributions.kl_divergence(d, T.distributions.Laplace(
                       T.tensor(VALUE), T.tensor(SCALE) * 1.3))}),
}


def evaluate(T, device, name):
    """Each quantity's values and the gradients of its sum with respect to loc and scale."""
    build, quantities = CASES[name]
    results = {}
    for label, quantity in quantities.items():
        loc = T.tensor(LOC, device=device, requires_grad=True)
        scale = T.tensor(SCALE, device=device, requires_grad=True)
        with T.device(device):
            value = quantity(build(T.distributions, T, loc, scale), T)
        value.sum().backward()
        results[label] = [value.detach().cpu().tolist()] + [
            (g.grad if g.grad is not None else T.zeros(2, 3)).cpu().tolist() for g in (loc, scale)]
    return results


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("name", CASES)
def test_distribution_matches_torch(name, device):
    expected, got = evaluate(torch, "cpu", name), evaluate(webtorch, device, name)
    for label in expected:
        for a, e in zip(got[label], expected[label]):
            np.testing.assert_allclose(np.array(a, np.float64), np.array(e, np.float64), rtol=2e-5, atol=2e-6,
                                       err_msg=f"{name} {label}")


def test_squashed_gaussian_policy_as_sac_writes_it():
    """cleanrl's SAC actor: rsample through tanh, log_prob with the cached pre-tanh sample (exact even
    where tanh saturates), gradients reaching loc and scale; shapes and events as torch's."""
    D = webtorch.distributions
    loc = webtorch.zeros(4, 2, requires_grad=True)
    scale = webtorch.full((4, 2), 3.0, requires_grad=True)
    dist = D.TransformedDistribution(D.Normal(loc, scale), [D.TanhTransform(cache_size=1)])
    y = dist.rsample()
    log_prob = dist.log_prob(y)
    x = dist.transforms[0].inv(y)
    assert x is dist.transforms[0]._cached_x_y[0]
    expected = D.Normal(loc, scale).log_prob(x) - 2.0 * (math.log(2.0) - x - webtorch.nn.functional.softplus(-2.0 * x))
    assert webtorch.allclose(log_prob, expected)
    log_prob.sum().backward()
    assert loc.grad.shape == (4, 2) and scale.grad.shape == (4, 2)
    assert dist.batch_shape == (4, 2) and dist.event_shape == ()
    independent = D.Independent(D.Normal(loc, scale), 1)
    assert independent.batch_shape == (4,) and independent.event_shape == (2,) and independent.has_rsample


def test_samples_follow_the_distribution():
    webtorch.manual_seed(0)
    D = webtorch.distributions
    laplace = D.Laplace(webtorch.tensor(1.0), webtorch.tensor(2.0)).sample((20000,))
    assert abs(laplace.mean().item() - 1.0) < 0.06 and abs(laplace.var().item() - 8.0) < 0.4
    lognormal = D.LogNormal(webtorch.tensor(0.0), webtorch.tensor(0.5)).sample((20000,))
    assert abs(lognormal.mean().item() - math.exp(0.125)) < 0.02
    one_hot = D.OneHotCategorical(probs=webtorch.tensor([0.2, 0.8])).sample((5000,))
    assert one_hot.shape == (5000, 2) and one_hot.sum(-1).eq(1).all() and abs(one_hot[:, 1].mean().item() - 0.8) < 0.03


def test_unregistered_kl_and_unbuilt_families_raise():
    D = webtorch.distributions
    with pytest.raises(NotImplementedError, match="No KL"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Laplace(0.0, 1.0))
    for name in ("Beta", "Gamma", "Dirichlet", "Poisson", "MixtureSameFamily"):
        with pytest.raises(NotImplementedError, match=f"distributions.{name}"):
            getattr(D, name)(webtorch.ones(2), webtorch.ones(2))
    assert sorted(set(torch.distributions.__all__) - set(dir(D))) == []
