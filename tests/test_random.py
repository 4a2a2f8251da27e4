"""Random ops: distributions (moments, Kolmogorov-Smirnov) and reproducibility per seed.

Not PyTorch's bits (webtorch's Philox stream is its own): the checks are statistical, with
thresholds that a correct generator fails with probability ~1e-6 or less per check, and the
seeds fixed so a run is deterministic anyway.
"""
import math
import os

import pytest

import webtorch as wt

DEVICES = [d for d in os.environ.get("WEBTORCH_TEST_DEVICES", "webgpu,cpu").split(",") if d]
N = 100_000


def _ks(values, cdf):
    """The Kolmogorov-Smirnov statistic of a sample against a CDF."""
    xs = sorted(values)
    n = len(xs)
    return max(max((i + 1) / n - cdf(x), cdf(x) - i / n) for i, x in enumerate(xs))


KS_LIMIT = 2.6 / math.sqrt(N)  # P(D > limit) ~ 2e-6 for a correct distribution


def _moments(values):
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, var


@pytest.mark.parametrize("device", DEVICES)
def test_rand_uniform(device):
    wt.manual_seed(1)
    x = wt.rand(N, device=device)
    assert x.dtype is wt.float32 and x.shape == (N,) and x.device.type == device
    v = x.tolist()
    assert 0.0 <= min(v) and max(v) < 1.0
    mean, var = _moments(v)
    assert abs(mean - 0.5) < 5 * math.sqrt(1 / 12 / N)
    assert abs(var - 1 / 12) < 0.002
    assert _ks(v, lambda t: min(max(t, 0.0), 1.0)) < KS_LIMIT


@pytest.mark.parametrize("device", DEVICES)
def test_randn_normal(device):
    wt.manual_seed(2)
    v = wt.randn(N, device=device).tolist()
    mean, var = _moments(v)
    assert abs(mean) < 5 / math.sqrt(N)
    assert abs(var - 1) < 0.02
    assert _ks(v, lambda t: 0.5 * (1 + math.erf(t / math.sqrt(2)))) < KS_LIMIT
    assert all(math.isfinite(t) for t in v)


@pytest.mark.parametrize("device", DEVICES)
def test_same_seed_same_values(device):
    wt.manual_seed(123)
    a = [wt.rand(3, 4, device=device), wt.randn(5, device=device), wt.randint(0, 10, (6,), device=device),
         wt.randperm(7, device=device)]
    wt.manual_seed(123)
    b = [wt.rand(3, 4, device=device), wt.randn(5, device=device), wt.randint(0, 10, (6,), device=device),
         wt.randperm(7, device=device)]
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist()
    assert wt.rand(4, device=device).tolist() != a[0][0].tolist()  # the stream advances
    g = wt.Generator().manual_seed(123)
    assert wt.rand(3, 4, generator=g, device=device).tolist() == a[0].tolist()
    assert wt.initial_seed() == 123
    s = wt.seed()
    assert wt.initial_seed() == s and wt.rand(3, device=device).tolist() != wt.manual_seed(123) and True
    wt.manual_seed(123)
    like = [wt.rand_like(a[0]), wt.randn_like(a[0]), wt.randint_like(a[2], 10), wt.randint_like(a[2], 2, 5)]
    assert [t.shape for t in like] == [(3, 4), (3, 4), (6,), (6,)] and like[0].tolist() == a[0].tolist()
    assert like[2].dtype is wt.int64 and set(like[3].tolist()) <= {2, 3, 4}
    r = wt.zeros(1000, device=device).random_(3, 7).tolist()
    assert set(r) == {3.0, 4.0, 5.0, 6.0}
    state = wt.get_rng_state()
    c = wt.rand(5, device=device).tolist()
    wt.set_rng_state(state)
    assert wt.rand(5, device=device).tolist() == c


def test_devices_share_the_stream():
    if "webgpu" not in DEVICES:
        pytest.skip("needs webgpu")
    wt.manual_seed(7)
    u_gpu, z_gpu = wt.rand(1000, device="webgpu").tolist(), wt.randn(1000, device="webgpu").tolist()
    wt.manual_seed(7)
    u_cpu, z_cpu = wt.rand(1000).tolist(), wt.randn(1000).tolist()
    assert u_gpu == u_cpu
    assert max(abs(a - b) for a, b in zip(z_gpu, z_cpu)) < 1e-4


@pytest.mark.parametrize("device", DEVICES)
def test_randint_randperm(device):
    wt.manual_seed(3)
    x = wt.randint(-3, 4, (N,), device=device)
    assert x.dtype is wt.int64
    v = x.tolist()
    counts = [v.count(k) for k in range(-3, 4)]
    assert sum(counts) == N
    expected = N / 7
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    assert chi2 < 40  # 6 degrees of freedom: P(chi2 > 40) ~ 5e-7
    assert wt.randint(5, (2, 3), device=device).shape == (2, 3)
    p = wt.randperm(1000, device=device).tolist()
    assert sorted(p) == list(range(1000)) and p != list(range(1000))
    assert wt.randperm(0, device=device).tolist() == []


@pytest.mark.parametrize("device", DEVICES)
def test_bernoulli_and_inplace_fills(device):
    wt.manual_seed(4)
    probs = wt.full((N,), 0.3, device=device)
    v = wt.bernoulli(probs).tolist()
    assert set(v) <= {0.0, 1.0} and abs(sum(v) / N - 0.3) < 5 * math.sqrt(0.21 / N)
    x = wt.empty(N, device=device).uniform_(-2, 3)
    mean, var = _moments(x.tolist())
    assert -2 <= min(x.tolist()) and max(x.tolist()) < 3
    assert abs(mean - 0.5) < 0.05 and abs(var - 25 / 12) < 0.05
    y = wt.zeros(N, device=device).normal_(1.5, 0.5)
    mean, var = _moments(y.tolist())
    assert abs(mean - 1.5) < 0.01 and abs(var - 0.25) < 0.01
    z = wt.normal(wt.zeros(3, device=device), 1.0)
    assert z.shape == (3,) and z.device.type == device
    assert abs(sum(wt.zeros(N, device=device).bernoulli_(0.8).tolist()) / N - 0.8) < 0.01
    e = wt.empty(N, device=device).exponential_(2.0).tolist()
    assert min(e) >= 0 and abs(sum(e) / N - 0.5) < 0.01


@pytest.mark.parametrize("device", DEVICES)
def test_multinomial(device):
    wt.manual_seed(5)
    w = wt.tensor([1.0, 0.0, 3.0, 6.0], device=device)
    s = wt.multinomial(w, 20_000, replacement=True).tolist()
    freq = [s.count(k) / len(s) for k in range(4)]
    assert freq[1] == 0
    for f, p in zip(freq, [0.1, 0.0, 0.3, 0.6]):
        assert abs(f - p) < 0.02
    rows = wt.multinomial(wt.tensor([[1.0, 1.0, 1.0], [0.0, 0.0, 5.0]], device=device), 3)
    assert sorted(rows[0].tolist()) == [0, 1, 2]
    assert rows[1].tolist()[0] == 2
    # without replacement, the first pick follows the weights
    first = [wt.multinomial(w, 2).tolist()[0] for _ in range(300)]
    assert first.count(1) == 0 and abs(first.count(3) / 300 - 0.6) < 0.12
    with pytest.raises(RuntimeError):
        wt.multinomial(w, 5)
    with pytest.raises(RuntimeError):
        wt.multinomial(wt.tensor([1.0, -1.0], device=device), 1)


def test_errors():
    with pytest.raises(RuntimeError):
        wt.randint(5, 5, (2,))
    with pytest.raises(RuntimeError):
        wt.rand(2, dtype=wt.int64)
