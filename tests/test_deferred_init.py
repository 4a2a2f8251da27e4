"""Model building on "cpu" without numpy (Pyodide): whole-storage random and number fills are recorded
(webtorch/_deferred.py) and made when first read, or on the device the tensor moves to. The values
must be the ones the fills would have written at once; nothing else may change."""
import array

import pytest

import webtorch
from webtorch import _deferred, nn
from webtorch.backend import cpu


@pytest.fixture
def pure_python(monkeypatch):
    monkeypatch.setattr(cpu, "USE_NUMPY", False)


def _net(seed):
    webtorch.manual_seed(seed)
    net = nn.Sequential(nn.Linear(64, 64), nn.LayerNorm(64), nn.Embedding(80, 64, padding_idx=3))
    nn.init.trunc_normal_(net[0].weight, std=0.02)  # timm's ViT initialiser
    with webtorch.no_grad():
        net[2].weight[5:7].fill_(0.5)  # a region filled after the draw
    return net


def _values(net):
    return {k: v.tolist() for k, v in net.state_dict().items()}


def test_recorded_fills_give_the_values_of_immediate_fills(pure_python, monkeypatch):
    deferred = _net(1)
    weights = [net_p._storage for net_p in (deferred[0].weight, deferred[2].weight, deferred[1].weight)]
    assert all(s.__class__ is cpu.DeferredStorage for s in weights[:2])
    assert deferred[2].weight._storage.deferred.__class__ is _deferred.Filled
    got = _values(deferred)
    assert all(s.__class__ is cpu.Storage for s in weights)  # read: made, then plain storage
    monkeypatch.setattr(_deferred, "MIN_NUMEL", 1 << 60)  # every fill at once: the old path
    assert got == _values(_net(1))
    emb = got["2.weight"]
    assert emb[3] == [0.0] * 64 and emb[5] == emb[6] == [0.5] * 64 and len(set(emb[4])) == 64


def test_moving_builds_the_values_on_the_device(pure_python):
    deferred, reference = _net(2), _values(_net(2))
    moved = deferred.to("webgpu")
    assert deferred[0].weight.device.type == "webgpu"
    for name, value in moved.state_dict().items():
        ref = webtorch.tensor(reference[name])
        assert value.device.type == "webgpu"
        # normals: float rounding (Box-Muller's cos and log on the GPU)
        assert ((value.cpu() - ref).abs() - 1e-5 * ref.abs()).max().item() <= 1e-6, name


def test_views_version_and_shared_buffers(pure_python):
    x = webtorch.empty(64, 100)
    row = x[1]  # a view taken before the fill sees the values
    version = x._version
    x.uniform_(-1, 1)
    assert x._storage.__class__ is cpu.DeferredStorage and x._version == version + 1
    assert row.tolist() == x[1].tolist() and all(-1 <= v < 1 for v in row.tolist())
    buffer = bytearray(4 * 5000)
    shared = webtorch.frombuffer(buffer, dtype=webtorch.float32)
    shared.fill_(2.0)  # memory shared with a Python buffer: written there at once
    assert array.array("f", bytes(buffer))[4999] == 2.0
    small = webtorch.empty(10).normal_()
    assert small._storage.__class__ is cpu.Storage
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        nn.Parameter(webtorch.empty(5000)).uniform_()
    z = webtorch.zeros(5000, dtype=webtorch.int64)
    z += 3
    assert z.tolist() == [3] * 5000 and z.dtype is webtorch.int64


def test_trunc_normal_and_generators_follow_the_seed():
    def draw(seed, **kw):
        webtorch.manual_seed(seed)
        return nn.init.trunc_normal_(webtorch.empty(4000), mean=0.5, std=2.0, a=-1.0, b=3.0, **kw).tolist()
    first = draw(4)
    assert first == draw(4) and first != draw(5)  # webtorch's stream (it was Python's random module)
    assert min(first) >= -1.0 and max(first) <= 3.0
    import torch  # the distribution: the same truncated normal as torch's
    ref = torch.nn.init.trunc_normal_(torch.empty(200000, dtype=torch.float64), mean=0.5, std=2.0, a=-1.0, b=3.0)
    mean, std = sum(first) / len(first), (sum((v - sum(first) / len(first)) ** 2 for v in first) / len(first)) ** 0.5
    assert abs(mean - ref.mean().item()) < 0.06 and abs(std - ref.std().item()) < 0.06
    gen = webtorch.Generator().manual_seed(9)
    a = nn.init.uniform_(webtorch.empty(50), generator=gen).tolist()
    assert a == nn.init.uniform_(webtorch.empty(50), generator=webtorch.Generator().manual_seed(9)).tolist()
