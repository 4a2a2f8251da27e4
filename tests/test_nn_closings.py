"""Issue 22's closings in torch.nn: Hardshrink/Softshrink, SoftMarginLoss, HingeEmbeddingLoss, NLLLoss2d,
PairwiseDistance, UpsamplingNearest2d/UpsamplingBilinear2d, ParameterList/ParameterDict and their
functional forms, against torch: values (edge values: the thresholds themselves, +-0, NaN, inf),
gradients, dtypes, shapes and registration."""
import warnings

import numpy as np
import pytest
import torch

import webtorch

from compare import assert_close, to_plain

DEVICES = ["webgpu", "cpu"]
EDGES = np.array([-2.0, -0.5, -0.3, -0.0, 0.0, 0.5, 0.7, np.nan, np.inf, -np.inf, 3.0, -1.0], dtype=np.float32)
LABELS = np.array([1, -1, 1, -1, 1, -1, 1, -1, 1, -1, -1, 1], dtype=np.float32)


def _run(T, device, fn):
    kw = {"device": device} if T is webtorch else {}
    x = T.tensor(EDGES, requires_grad=True, **kw)
    y = T.tensor(LABELS, **kw)
    out = fn(T, x, y)
    finite = T.isfinite(out) if out.dim() else T.tensor(True, **kw)
    (T.where(finite, out, T.zeros_like(out)).sum()).backward()
    return out, x.grad


CASES = {
    "hardshrink": lambda T, x, y: T.nn.functional.hardshrink(x, 0.5),
    "Hardshrink": lambda T, x, y: T.nn.Hardshrink()(x),
    "softshrink": lambda T, x, y: T.nn.functional.softshrink(x, 0.5),
    "Softshrink(0.3)": lambda T, x, y: T.nn.Softshrink(0.3)(x),
    "soft_margin_loss": lambda T, x, y: T.nn.functional.soft_margin_loss(x, y, reduction="none"),
    "SoftMarginLoss": lambda T, x, y: T.nn.SoftMarginLoss(reduction="sum")(x[:7], y[:7]),
    "hinge_embedding_loss": lambda T, x, y: T.nn.functional.hinge_embedding_loss(x, y, margin=0.6, reduction="none"),
    "HingeEmbeddingLoss": lambda T, x, y: T.nn.HingeEmbeddingLoss()(x[:7], y[:7]),
    "PairwiseDistance": lambda T, x, y: T.nn.PairwiseDistance(p=1.0, keepdim=True)(x[:6].reshape(2, 3),
                                                                                    y[:6].reshape(2, 3)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_value_and_gradient_like_torch(name, device):
    expected, expected_grad = _run(torch, None, CASES[name])
    got, got_grad = _run(webtorch, device, CASES[name])
    assert_close(to_plain(got), to_plain(expected), name=name)
    assert_close(to_plain(got_grad), to_plain(expected_grad), name=name + " grad")


def test_softshrink_rejects_a_negative_lambda():
    for T in (torch, webtorch):
        with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, 3.40282e\+38\] for input dtype "
                                               r"Float, but found -1"):
            T.nn.functional.softshrink(T.zeros(2), -1.0)


@pytest.mark.parametrize("device", DEVICES)
def test_nllloss2d_is_nllloss(device):
    logits = np.linspace(-2, 2, 2 * 3 * 2 * 2, dtype=np.float32).reshape(2, 3, 2, 2)
    target = np.array([[[0, 1], [2, 1]], [[1, 0], [0, 2]]])
    got = webtorch.nn.NLLLoss2d()(webtorch.tensor(logits, device=device), webtorch.tensor(target, device=device))
    assert_close(to_plain(got), to_plain(torch.nn.NLLLoss2d()(torch.tensor(logits), torch.tensor(target))))
    assert issubclass(webtorch.nn.NLLLoss2d, webtorch.nn.NLLLoss)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("make", [
    lambda T: T.nn.UpsamplingNearest2d(scale_factor=2),
    lambda T: T.nn.UpsamplingBilinear2d(size=(5, 3)),
    lambda T: lambda x: T.nn.functional.upsample_nearest(x, size=4),
    lambda T: lambda x: T.nn.functional.upsample_bilinear(x, scale_factor=2),
])
def test_upsampling_like_torch(make, device):
    data = np.linspace(-1, 1, 2 * 2 * 3 * 2, dtype=np.float32).reshape(2, 2, 3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = make(torch)(torch.tensor(data))
        got = make(webtorch)(webtorch.tensor(data, device=device))
    assert_close(to_plain(got), to_plain(expected))


def _containers(T):
    m = T.nn.Module()
    m.pl = T.nn.ParameterList([T.nn.Parameter(T.ones(2)), T.zeros(3)])
    m.pl.append(T.full((1,), 2.0))
    m.pd = T.nn.ParameterDict({"a": T.ones(1)})
    m.pd["b"] = T.zeros(2)
    m.pd.update([("c", T.ones(3))])
    del m.pd["a"]
    return m


def test_parameter_containers_register_like_torch():
    ex, got = _containers(torch), _containers(webtorch)
    assert [(n, tuple(p.shape), type(p).__name__) for n, p in got.named_parameters()] == \
        [(n, tuple(p.shape), type(p).__name__) for n, p in ex.named_parameters()]
    assert list(got.state_dict()) == list(ex.state_dict())
    assert len(got.pl) == len(ex.pl) == 3 and list(got.pd) == list(ex.pd) == ["b", "c"]
    assert "a" not in got.pd and "b" in got.pd and got.pd.get("a") is None
    assert [tuple(p.shape) for p in got.pl[1:]] == [tuple(p.shape) for p in ex.pl[1:]]
    assert got.pl[-1].item() == ex.pl[-1].item() == 2.0
    for m in (ex, got):
        with pytest.raises(IndexError):
            m.pl[3]
        with pytest.raises(AttributeError):
            m.pd["missing"]
