"""Tensor and namespace APIs of issue 14 that are not single ops: gradient hooks, retain_grad,
torch.amp (autocast, GradScaler), torch.utils.checkpoint, finfo/iinfo, sampling from
torch.distributions (log_prob/entropy are in the op table, tests/more_op_cases.py)."""
import math

import pytest
import torch

import webtorch

DEVICES = ["webgpu", "cpu"]


def _hooks_run(T, device):
    x = T.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    seen = []
    x.register_hook(lambda g: g * 2)
    h = x.register_hook(lambda g: seen.append(g.tolist()))
    y = x * 3
    y.retain_grad()
    y.register_hook(lambda g: g + 1)
    w = x * x  # x is used twice: a leaf hook sees the summed gradient once
    z = (y * y).sum() + w.sum()
    z.backward(retain_graph=True)
    first = (x.grad.tolist(), y.grad.tolist(), y.retains_grad, x.retains_grad, w.retains_grad, list(seen))
    h.remove()
    z.backward()
    return first, x.grad.tolist(), y.grad.tolist(), len(seen)


@pytest.mark.parametrize("device", DEVICES)
def test_register_hook_and_retain_grad_match_torch(device):
    assert _hooks_run(webtorch, device) == _hooks_run(torch, "cpu")
    for T in (torch, webtorch):
        with pytest.raises(RuntimeError):
            T.ones(2).register_hook(lambda g: g)
        with pytest.raises(RuntimeError):
            T.ones(2).retain_grad()


def _grad_hook_in_autograd_grad(T, device):
    x = T.tensor([1.0, -2.0], device=device, requires_grad=True)
    x.register_hook(lambda g: g * 10)
    return T.autograd.grad((x * x).sum(), x)[0].tolist()


def test_leaf_hooks_apply_to_autograd_grad():
    assert _grad_hook_in_autograd_grad(webtorch, "webgpu") == _grad_hook_in_autograd_grad(torch, "cpu")


def _scaler_run(T, device, steps):
    """Trains a linear layer with a GradScaler whose scale overflows float16-style on purpose:
    inf gradients skip steps and back the scale off; growth after 2 clean steps."""
    T.manual_seed(0)
    lin = T.nn.Linear(3, 1)
    with T.no_grad():
        lin.weight.copy_(T.tensor([[0.5, -0.25, 0.125]]))
        lin.bias.fill_(0.1)
    lin = lin.to(device)
    opt = T.optim.SGD(lin.parameters(), lr=0.01)
    scaler = T.amp.GradScaler(device if T is webtorch else "cpu", init_scale=2.0 ** 127, growth_interval=2)
    x = T.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], device=device)
    scales = []
    for _ in range(steps):
        opt.zero_grad()
        with T.autocast(device_type=device if T is webtorch else "cpu", enabled=False):
            loss = (lin(x) ** 2).mean() * 10
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    return scales, lin.weight.reshape(-1).tolist(), lin.bias.tolist(), scaler.state_dict()


@pytest.mark.parametrize("device", DEVICES)
def test_grad_scaler_matches_torch(device):
    got, expected = _scaler_run(webtorch, device, 12), _scaler_run(torch, "cpu", 12)
    assert got[0] == expected[0] and got[3] == expected[3]
    assert len(set(got[0])) >= 3 and got[1] != [0.5, -0.25, 0.125]  # skipped, backed off, stepped, grew
    assert got[1] == pytest.approx(expected[1], rel=1e-5) and got[2] == pytest.approx(expected[2], rel=1e-5)


def test_grad_scaler_for_cuda_disables_itself_like_torch():
    for T in (torch, webtorch):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            s = T.amp.GradScaler("cuda")
        assert not s.is_enabled() and s.get_scale() == 1.0 and s.state_dict() == {}
        with pytest.warns(UserWarning):
            assert not T.cuda.amp.GradScaler().is_enabled()
        loss = T.ones(1)
        assert s.scale(loss) is loss


def _checkpointed(T, device):
    from importlib import import_module
    cp = import_module(T.__name__ + ".utils.checkpoint")
    T.manual_seed(0)
    seq = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2))
    with T.no_grad():
        for i, p in enumerate(seq.parameters()):
            p.copy_(T.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1))
    seq = seq.to(device)
    x = T.tensor([[0.5, -1.0, 2.0]], device=device, requires_grad=True)
    out = cp.checkpoint(seq, x, use_reentrant=False) + cp.checkpoint_sequential(seq, 2, x, use_reentrant=False)
    out.sum().backward()
    return out.tolist(), x.grad.tolist(), [p.grad.tolist() for p in seq.parameters()]


@pytest.mark.parametrize("device", DEVICES)
def test_checkpoint_values_and_gradients(device):
    got, expected = _checkpointed(webtorch, device), _checkpointed(torch, "cpu")
    assert torch.allclose(torch.tensor(got[0]), torch.tensor(expected[0]), rtol=1e-4, atol=1e-5)
    assert torch.allclose(torch.tensor(got[1]), torch.tensor(expected[1]), rtol=1e-4, atol=1e-5)
    for g, e in zip(got[2], expected[2]):
        assert torch.allclose(torch.tensor(g), torch.tensor(e), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["float32", "float16", "float64", "bfloat16"])
def test_finfo(name):
    if not hasattr(webtorch, name):
        pytest.skip(f"webtorch has no {name}")
    f, e = webtorch.finfo(getattr(webtorch, name)), torch.finfo(getattr(torch, name))
    assert repr(f) == repr(e)
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(f, attr) == getattr(e, attr), attr
    assert f.dtype == str(e.dtype).split(".")[-1]


@pytest.mark.parametrize("name", ["int64", "int32", "int16", "int8", "uint8"])
def test_iinfo(name):
    if not hasattr(webtorch, name):
        pytest.skip(f"webtorch has no {name}")
    f, e = webtorch.iinfo(getattr(webtorch, name)), torch.iinfo(getattr(torch, name))
    assert (repr(f), f.bits, f.min, f.max) == (repr(e), e.bits, e.min, e.max)


def test_info_errors_and_default():
    assert repr(webtorch.finfo()) == repr(torch.finfo())
    for T in (torch, webtorch):
        for call in (lambda: T.iinfo(T.float32), lambda: T.finfo(T.int32), lambda: T.iinfo(T.bool)):
            with pytest.raises(TypeError):
                call()


# -- sampling: moments of many draws (webtorch's generator is not torch's) ---------------------
N = 20000


def _moments(x):
    x = torch.tensor(x.tolist(), dtype=torch.float64)
    return x.mean(0), x.var(0)


@pytest.mark.parametrize("device", DEVICES)
def test_normal_and_uniform_samples(device):
    D = webtorch.distributions
    loc = webtorch.tensor([0.5, -2.0], device=device, requires_grad=True)
    scale = webtorch.tensor([1.0, 3.0], device=device, requires_grad=True)
    normal = D.Normal(loc, scale)
    s = normal.rsample((N,))
    assert s.shape == (N, 2) and s.requires_grad and not normal.sample((3,)).requires_grad
    mean, var = _moments(s)
    sem = torch.tensor([1.0, 3.0]) / math.sqrt(N)
    assert torch.all((mean - torch.tensor([0.5, -2.0])).abs() < 5 * sem)
    assert torch.all((var / torch.tensor([1.0, 9.0]) - 1).abs() < 0.05)
    s.mean(0).sum().backward()  # d mean(loc + eps*scale)/d loc = 1; d/d scale = mean(eps)
    assert loc.grad.tolist() == pytest.approx([1.0, 1.0], abs=1e-5)
    u = D.Uniform(webtorch.tensor([0.0, -1.0], device=device), webtorch.tensor([1.0, 3.0], device=device)).sample((N,))
    mean, var = _moments(u)
    assert torch.allclose(mean, torch.tensor([0.5, 1.0], dtype=torch.float64), atol=0.05)
    assert torch.allclose(var, torch.tensor([1 / 12, 16 / 12], dtype=torch.float64), rtol=0.05)
    assert u.min().item() >= -1.0 and (u[:, 0] < 1.0).all().item()


@pytest.mark.parametrize("device", DEVICES)
def test_bernoulli_and_categorical_samples(device):
    import webtorch.distributions.bernoulli  # noqa: F401  (binds the package's name bernoulli to the submodule)
    D = webtorch.distributions
    p = webtorch.tensor([0.1, 0.5, 0.9], device=device)
    b = D.Bernoulli(probs=p).sample((N,))
    assert b.dtype == webtorch.float32 and set(b.reshape(-1).tolist()) <= {0.0, 1.0}
    assert torch.allclose(_moments(b)[0], torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64), atol=0.015)
    probs = [[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]]
    c = D.Categorical(probs=webtorch.tensor(probs, device=device)).sample((N,))
    assert c.shape == (N, 2) and c.dtype == webtorch.int64
    counts = torch.stack([torch.bincount(torch.tensor(c[:, i].tolist()), minlength=3) for i in range(2)]) / N
    assert torch.allclose(counts.double(), torch.tensor(probs, dtype=torch.float64), atol=0.015)


@pytest.mark.parametrize("device", DEVICES)
def test_multivariate_normal_samples(device):
    cov = [[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]]
    m = webtorch.distributions.MultivariateNormal(webtorch.tensor([1.0, 0.0, -1.0], device=device),
                                                  covariance_matrix=webtorch.tensor(cov, device=device))
    s = torch.tensor(m.sample((N,)).tolist(), dtype=torch.float64)
    assert torch.allclose(s.mean(0), torch.tensor([1.0, 0.0, -1.0], dtype=torch.float64), atol=0.05)
    assert torch.allclose(torch.cov(s.T), torch.tensor(cov, dtype=torch.float64), atol=0.06)


def _module_dtypes(T, method):
    T.manual_seed(0)
    m = T.nn.Sequential(T.nn.Linear(3, 2), T.nn.BatchNorm1d(2))
    with T.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(T.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1))
    weight = m[0].weight
    out = getattr(m, method)()
    x = T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]]).to(m[0].weight.dtype)
    y = m.eval()(x)
    return (out is m, m[0].weight is weight, [str(p.dtype).split(".")[-1] for p in m.parameters()],
            [str(b.dtype).split(".")[-1] for b in m.buffers()], y.float().tolist())


@pytest.mark.parametrize("method", ["half", "float", "double", "bfloat16"])
def test_module_dtype_conversions(method):
    dtype = {"half": "float16", "float": "float32", "double": "float64", "bfloat16": "bfloat16"}[method]
    if not hasattr(webtorch, dtype):
        with pytest.raises(TypeError, match=dtype):
            getattr(webtorch.nn.Linear(2, 2), method)()
        return
    got, expected = _module_dtypes(webtorch, method), _module_dtypes(torch, method)
    assert got[:4] == expected[:4]
    assert torch.allclose(torch.tensor(got[4]), torch.tensor(expected[4]), rtol=1e-2, atol=1e-2)


def _index_forms(T, device):
    import numpy as np
    a = T.arange(12.0, device=device).reshape(3, 4)
    out = [a[range(1, 3)], a[:, range(0, 4, 2)], a[range(0)], a[[]], a[np.array([0, 2])],
           a[np.array([True, False, True])], a[np.array([[0], [2]]), range(2)]]
    for index, value in [((range(3), T.tensor([0, 1, 2], device=device)), -1.0), ((np.array([2, 0]), slice(None)), 5.0)]:
        b = a.clone()
        b[index] = value
        out.append(b)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_range_and_numpy_array_indices_like_torch(device):
    """A range or numpy array as an index is the tensor torch makes of it (mnist_forward_forward's
    x_[range(n), y] = ...); an empty one is int64."""
    for a, e in zip(_index_forms(webtorch, device), _index_forms(torch, "cpu")):
        assert a.tolist() == e.tolist() and tuple(a.shape) == tuple(e.shape)


def test_lstsq_of_a_rank_deficient_matrix_is_refused():
    """torch's gelsy solves it with a column-pivoted QR (not built): an unpivoted QR would give another X."""
    with pytest.raises(NotImplementedError, match="rank-deficient"):
        webtorch.linalg.lstsq(webtorch.tensor([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), webtorch.ones(3, 1))
