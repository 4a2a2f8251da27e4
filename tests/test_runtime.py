"""The WebGPU runtime on the native driver: batching, buffer pool, memory, errors, readback."""
import gc

from async_run import run as run_async

import pytest
import torch

import webtorch
from webtorch import webgpu


def test_many_small_ops_share_few_command_buffers():
    x = webtorch.ones(1024, device="webgpu")
    webgpu.synchronize()
    submits = webgpu.stats()["submits"]
    for _ in range(1000):
        x = x * 1.0001 + 0.0001
    total = x.sum().item()
    assert webgpu.stats()["submits"] - submits <= 2000 // 64 + 6  # batches of 4, 8, 16, 32, then 64; the readback
    expected = torch.ones(1024)
    for _ in range(1000):
        expected = expected * 1.0001 + 0.0001
    assert total == pytest.approx(expected.sum().item(), rel=1e-5)


def test_native_driver_encodes_through_wgpu_natives_functions():
    """The native driver encodes its batches through wgpu-native's C functions (driver_native's
    _encode_direct), setting a pipeline only when it changes: kernels alternating and repeating in one
    batch compute torch's values."""
    from webtorch.backend.webgpu import runtime
    driver = runtime().driver
    if driver.name != "native":
        pytest.skip("the native driver's encoding")
    assert driver._direct is not None
    x = webtorch.arange(8.0, device="webgpu")
    webgpu.synchronize()
    outs = [x + 1, x + 2, x.exp(), x + 3, x.sin(), x.sin() * 2]
    expected = torch.arange(8.0)
    for got, want in zip(outs, [expected + 1, expected + 2, expected.exp(), expected + 3, expected.sin(),
                                expected.sin() * 2]):
        assert torch.allclose(torch.tensor(got.tolist()), want, rtol=1e-6, atol=1e-6)


def test_a_buffer_bound_writable_twice_is_refused_as_in_the_browser():
    """Dawn (every browser) refuses one buffer at a writable binding and another binding of a dispatch;
    wgpu-native does not, so the native driver checks it: a kernel that did so (layer_norm's absent residual
    sum bound as its output) failed only in the browser suite."""
    from webtorch.backend import kernels
    from webtorch.backend.webgpu import runtime
    from webtorch.errors import ValidationError
    rt = runtime()
    if rt.driver.name != "native":
        pytest.skip("the native driver's check")
    x = webtorch.ones(4, device="webgpu")
    from webtorch.ops_table import ELEMENTWISE
    f32 = webtorch.float32
    kernel = kernels.elementwise(ELEMENTWISE["add"], (f32, f32), (f32, f32), f32, True)
    buf = x._storage.buffer
    with pytest.raises(ValidationError, match="aliasing"):
        rt.run(kernel, [buf, buf, buf], [4] + [0] * 16, 1)
        webgpu.synchronize()


def test_memory_returns_to_start_when_tensors_are_dropped():
    start = webgpu.memory_allocated()
    xs = [webtorch.full((256, 256), float(i), device="webgpu") for i in range(20)]
    ys = [x @ x + 1 for x in xs]
    assert webgpu.memory_allocated() >= start + 40 * 256 * 256 * 4
    del xs, ys
    assert webgpu.memory_allocated() == start
    reserved = webgpu.memory_reserved()
    webgpu.empty_cache()
    assert webgpu.memory_reserved() < reserved
    assert webgpu.memory_reserved() == webgpu.memory_allocated()


def test_cache_reuses_buffers():
    webgpu.empty_cache()
    for _ in range(50):  # (256 elements: one reduction launch on any adapter, reduce_solo's SOLO_CHUNK)
        webtorch.zeros(256, device="webgpu").add(1).sum().item()
    assert webgpu.stats()["cached_bytes"] <= 64 * 1024
    stats = webgpu.memory_stats()
    webtorch.zeros(256, device="webgpu").add(1).sum().item()  # every size class is cached now
    after = webgpu.memory_stats()
    assert after["segment.all.allocated"] == stats["segment.all.allocated"]
    assert after["allocation.all.allocated"] == stats["allocation.all.allocated"] + 3


def test_bind_group_index_forgets_destroyed_groups():
    """The native driver finds a destroyed buffer's bind groups by a per-buffer index; a long-lived buffer's
    entry (a weight, the meta arena) loses the keys of groups dropped through their other buffers."""
    from webtorch.backend.webgpu import runtime
    driver = runtime().driver
    if driver.name != "native":
        pytest.skip("the native driver's index")
    w = webtorch.ones(64, device="webgpu")
    for n in range(65, 97):  # each a new size class: new buffers, new bind groups naming w's
        (w.sum() + webtorch.ones(n, device="webgpu")).sum().item()
    webgpu.empty_cache()
    index = driver._groups_of_buffer
    assert all(key in driver._bind_groups for keys in index.values() for key in keys)
    assert sum(map(len, index.values())) == sum(len(set(bids)) for _, bids in driver._bind_groups)


def test_cache_keeps_large_buffers():
    # No cap on the cache: a loop over 96 MiB tensors creates its buffers once (the old pool kept
    # at most 512 MiB, so a 256 MiB pair was destroyed and created again each iteration).
    webgpu.empty_cache()
    a = webtorch.ones(3 << 23, device="webgpu")  # 96 MiB: within lavapipe's 128 MiB binding limit
    segments = webgpu.memory_stats()["segment.all.allocated"]
    for _ in range(3):
        b = a + 1
        c = b * 2
        del b, c
    stats = webgpu.memory_stats()
    assert stats["segment.all.allocated"] == segments + 2
    assert webgpu.memory_reserved() == webgpu.memory_allocated() + 2 * (96 << 20)
    assert webgpu.max_memory_allocated() >= 3 * (96 << 20)
    del a
    webgpu.empty_cache()
    assert webgpu.memory_reserved() == webgpu.memory_allocated()


class _SmallDevice:
    """The runtime's driver with a fixed amount of memory: create_buffer fails beyond it."""

    def __init__(self, driver, capacity):
        self.driver, self.capacity, self.used, self.sizes, self.checked = driver, capacity, 0, {}, []

    def __getattr__(self, name):
        return getattr(self.driver, name)

    def create_buffer(self, nbytes, checked=False):
        self.checked.append(checked)
        if self.used + nbytes > self.capacity:
            raise webgpu.OutOfMemoryError("the device has no memory left (simulated)")
        bid = self.driver.create_buffer(nbytes)
        self.used += nbytes
        self.sizes[bid] = nbytes
        return bid

    def destroy_buffer(self, bid):
        self.used -= self.sizes.pop(bid)
        self.driver.destroy_buffer(bid)


@pytest.fixture
def small_device():
    from webtorch.backend.webgpu import runtime
    rt = runtime()
    webgpu.empty_cache()
    device = _SmallDevice(rt.driver, capacity=8 << 20)
    rt.driver = device
    try:
        yield rt
    finally:
        rt.driver = device.driver
        webgpu.empty_cache()


def test_out_of_memory_frees_the_cache_and_retries(small_device):
    stats = webgpu.memory_stats()
    xs = [webtorch.zeros(1 << 20, device="webgpu") for _ in range(2)]  # 2 x 4 MiB: the device is full
    del xs  # cached
    assert small_device.driver.used == 8 << 20 and webgpu.memory_reserved() >= 8 << 20
    y = webtorch.full((3 << 18,), 2.0, device="webgpu")  # 3 MiB: another size class; fits once the cache is freed
    assert y.sum().item() == 2.0 * (3 << 18)
    after = webgpu.memory_stats()
    assert after["num_alloc_retries"] == stats["num_alloc_retries"] + 1
    assert after["num_ooms"] == stats["num_ooms"]
    with pytest.raises(webtorch.OutOfMemoryError, match=r"Tried to allocate 6\.00 MiB.*retried") as e:
        webtorch.zeros(3 << 19, device="webgpu")  # 6 MiB more than the 5 MiB left
    assert isinstance(e.value, RuntimeError)
    assert webgpu.memory_stats()["num_ooms"] == stats["num_ooms"] + 1
    del y
    z = webtorch.zeros(3 << 19, device="webgpu")  # fits now
    assert z.shape == (3 << 19,) and not any(small_device.driver.checked)  # small buffers: unchecked


def test_memory_limit():
    gc.collect()  # an earlier test's tensors held in reference cycles would otherwise free mid-test, moving base
    webgpu.empty_cache()
    base = webgpu.memory_reserved()
    webgpu.set_memory_limit(base + (4 << 20))
    try:
        assert webgpu.get_memory_limit() == base + (4 << 20)
        x = webtorch.zeros(1 << 19, device="webgpu")  # 2 MiB
        del x  # cached: 2 MiB
        y = webtorch.ones(3 << 18, device="webgpu")  # 3 MiB: only after freeing the cache
        assert webgpu.memory_reserved() == base + (3 << 20)
        with pytest.raises(webgpu.OutOfMemoryError, match="set_memory_limit"):
            webtorch.zeros(1 << 19, device="webgpu")
        del y
    finally:
        webgpu.set_memory_limit(None)
    assert webtorch.zeros(1 << 20, device="webgpu").sum().item() == 0.0
    with pytest.raises(ValueError):
        webgpu.set_memory_limit(-1)


def test_too_large_allocation_raises_out_of_memory():
    with pytest.raises(webgpu.OutOfMemoryError, match="exceeds"):
        webtorch.empty(1 << 40, device="webgpu")
    assert isinstance(webgpu.OutOfMemoryError("x"), RuntimeError)


LOWERED_LIMIT_AND_DEVICE_LOSS = r"""
import os, webtorch, pytest
from webtorch.backend import webgpu
from webtorch.errors import DeviceLostError
assert webgpu.runtime().limits["max_storage_buffer_binding_size"] == 1 << 20
kept = webtorch.ones(1000, device="webgpu")
with pytest.raises(webtorch.OutOfMemoryError, match=r"a tensor of 4.00 MiB .*maxStorageBufferBindingSize: 1.00 MiB.*"
                   r"0.00 MiB is allocated"):
    webtorch.zeros(1 << 20, device="webgpu")
x = webtorch.ones(4, device="webgpu")
lost = webgpu.runtime()
lost.driver.device.destroy()
for use in (lambda: (x * 2).tolist(), lambda: x.tolist()):  # the lost device's tensors stay unusable
    with pytest.raises(DeviceLostError, match="device was lost .*new device at the next use"):
        use()
assert (webtorch.arange(3.0, device="webgpu") * 2).tolist() == [0, 2, 4]  # a new device
assert webgpu.runtime() is not lost
print("ok")
"""


def test_lowered_binding_limit_and_device_loss():
    """WEBTORCH_WEBGPU_MAX_BINDING_SIZE lowers the binding limit (a 4 MiB tensor then raises OutOfMemoryError
    naming its size, the limit and what is in use); a destroyed device raises DeviceLostError on every
    use of its tensors, and the next new tensor starts a new device. In a process of its own: destroying
    the device would take every tensor of this one with it."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, WEBTORCH_WEBGPU_MAX_BINDING_SIZE=str(1 << 20), PYTHONPATH=root)
    r = subprocess.run([sys.executable, "-c", LOWERED_LIMIT_AND_DEVICE_LOSS], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]


def test_adapter_info():
    assert webgpu.is_available()
    info = webgpu.adapter_info()
    assert set(info) == {"vendor", "architecture", "device", "description", "subgroup_min_size",
                         "subgroup_max_size", "subgroup_matrix_configs", "float16"}
    assert info["float16"] == ("native" if "shader-f16" in webgpu.features() else "emulated")
    assert isinstance(webgpu.get_device_name(), str) and webgpu.get_device_name()
    assert webgpu.sync_mode() == "native"  # (the browser's "jspi", "bridge", "async": tests/browser/test_no_jspi_browser.py)


def test_features_requested_when_offered():
    import wgpu
    offered = wgpu.gpu.request_adapter_sync(power_preference="high-performance").features
    wanted = {"shader-f16": "shader-f16", "subgroup": "subgroups", "timestamp-query": "timestamp-query"}
    assert set(webgpu.features()) == {ours for theirs, ours in wanted.items() if theirs in offered}


def test_async_readback():
    x = webtorch.arange(6, device="webgpu").reshape(2, 3) * 2
    assert run_async(x.tolist_async()) == [[0, 2, 4], [6, 8, 10]]
    assert run_async(x[1, 2].item_async()) == 10
    c = run_async(x.cpu_async())
    assert c.device.type == "cpu" and c.tolist() == [[0, 2, 4], [6, 8, 10]]


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "bool"])
def test_readback_of_a_view_reads_its_elements(dtype):
    # only the view's range is copied back; float16 ranges start at an even element (4-byte copies)
    expected = (torch.arange(2 * 7 * 3) % 5 - 2).to(getattr(torch, dtype)).reshape(2, 7, 3)
    x = webtorch.tensor(expected.tolist(), dtype=getattr(webtorch, dtype), device="webgpu")
    for view in (lambda t: t[1, 3], lambda t: t[0, 5, 1], lambda t: t[1, 2:5], lambda t: t[:, 1]):
        assert view(x).tolist() == view(expected).tolist()
        assert run_async(view(x).tolist_async()) == view(expected).tolist()
    assert x[1, 6, 2].item() == expected[1, 6, 2].item()


@pytest.mark.parametrize("shape", [(), (0,), (5,), (4, 1), (1, 4), (2, 3, 4), (3, 0, 2), (2, 1, 1, 3)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_tolist_matches_torch(shape, dtype, device):
    # nested like torch, with Python's bool/int/float elements; NaN and infinities kept
    g = torch.Generator().manual_seed(len(shape) * 7 + sum(shape))
    expected = torch.randn(shape, generator=g).mul(3)
    if expected.numel() > 2:
        expected.view(-1)[:3] = torch.tensor([float("nan"), float("inf"), -float("inf")])
    expected = expected.to(getattr(torch, dtype)) if dtype == "float32" else \
        expected.nan_to_num(0.0, 7.0, -7.0).round().to(getattr(torch, dtype))
    got = webtorch.tensor(expected.tolist(), dtype=getattr(webtorch, dtype), device=device).tolist()
    want = expected.tolist()
    assert repr(got) == repr(want)  # also the element types (True, 2, 2.0) and nan's position


def test_numpy_interop():
    x = webtorch.tensor([[1.5, 2.0], [3.0, -1.0]], device="webgpu")
    a = x.cpu().numpy()
    assert a.dtype.name == "float32" and a.tolist() == [[1.5, 2.0], [3.0, -1.0]]
    with pytest.raises(TypeError, match="cpu"):
        x.numpy()


@pytest.mark.parametrize("data", [
    [1.5, -2.25, 3.0], [[1, 2], [3, 40]], [True, False], [[0.0001, 123456.0]], 3.5, [[]], [float("nan"), 1.0],
])
@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_repr_matches_torch(data, device):
    expected = repr(torch.tensor(data))
    actual = repr(webtorch.tensor(data, device=device))
    if device == "webgpu":  # the device comes first among the suffixes, as torch's for cuda:0
        assert actual.count(", device='webgpu:0'") == 1 and ", dtype=" not in actual.split(", device=")[0]
        actual = actual.replace(", device='webgpu:0'", "")
    assert actual == expected


@pytest.mark.parametrize("n", [70_000, 1 << 20])
def test_long_row_reductions_match_torch(n):
    # long rows are split over many workgroups; arg-reductions carry indices through both passes
    t = torch.randn(3, n)
    t[0, n // 3] = t[0, 2 * n // 3] = 50.0  # tie: the first index wins
    t[1, n // 2] = t[1, n - 1] = float("nan")  # NaN wins, the first one
    x = webtorch.tensor(t.tolist(), device="webgpu")
    assert x.argmax(1).tolist() == t.argmax(1).tolist()
    assert x.argmin(1).tolist() == t.argmin(1).tolist()
    assert x.max(1).indices.tolist() == t.max(1).indices.tolist()
    assert x[2].argmax().item() == t[2].argmax().item()
    assert x[2].sum().item() == pytest.approx(t[2].sum().item(), rel=1e-4, abs=1e-2)


def test_a_kernel_parameter_read_back_while_recording():
    """A view offset given as a 0-d GPU tensor is read back (a flush) while its kernel's parameters
    are being recorded; the kernel must still get them (it used to get an empty parameter block:
    wgpu's "Invalid data_offset", and every later readback failed too)."""
    x = webtorch.arange(12.0, device="webgpu").reshape(3, 4) * 2  # pending work before the readback
    offset = webtorch.tensor(1, device="webgpu")
    assert webtorch.diagonal(x, offset).tolist() == [2.0, 12.0, 22.0]
    assert webtorch.narrow(x * 1, 1, offset, 2).tolist() == [[2.0, 4.0], [10.0, 12.0], [18.0, 20.0]]
    assert (x + 1).sum().item() == 144.0


def test_direct_recording_respects_hooks_and_offsets():
    """Cached elementwise launches and reductions record their kernels without Runtime.run while no
    hook watches the runtime: a profiler and webtorch.compile still see each kernel (and put
    Runtime.hooks back), and offsets and scalars are written per call."""
    from webtorch.backend import webgpu as runtime_module
    from webtorch.profiler import profile
    rt = runtime_module.runtime()
    x = webtorch.arange(256, dtype=webtorch.float32, device="webgpu")  # a sum of one launch on any adapter
    for _ in range(3):  # cached at the first call, recording directly from the third
        total = (x * 3.0 + 1).sum()
    assert total.item() == 98176.0
    with profile() as prof:
        total = (x * 3.0 + 1).sum()
    assert sum(r.count for r in prof.key_averages() if r.is_kernel) == 3 and rt.hooks == 0
    compiled = webtorch.compile(lambda t: (t * 3.0 + 1).sum())
    assert [compiled(x).item() for _ in range(3)] == [98176.0] * 3 and rt.hooks == 0
    # one launch (same shapes and strides) over views at other offsets, with other scalars (-0.0 == 0.0)
    base = torch.arange(1000, dtype=torch.float32)
    for start, k in ((1, 1000), (2, 1000), (5, 1001), (6, 1000), (5, -0.0), (6, 0.0), (7, -0.0), (3, 0.0)):
        got = x[start:start + 4] * k
        assert torch.equal(torch.tensor(got.tolist()), base[start:start + 4] * k)
        assert str(got.tolist()) == str((base[start:start + 4] * k).tolist())  # the sign of zeros too


def test_shader_modules_keep_bounds_checks_without_loop_bounding(monkeypatch):
    """naga's default loop bounding (a counter in every loop) cost NVIDIA's driver 20x on the matmul
    kernels; webtorch's modules keep the bounds checks only, as browsers' WebGPU does."""
    from wgpu.backends.wgpu_native import _api
    seen, create = [], _api.libf.wgpuDeviceCreateShaderModuleTrusted
    monkeypatch.setattr(_api.libf, "wgpuDeviceCreateShaderModuleTrusted",
                        lambda device, descriptor, checks: seen.append(checks) or create(device, descriptor, checks))
    code = ("@group(0) @binding(0) var<storage, read> params: array<u32>;\n"
            "@group(0) @binding(1) var<storage, read_write> out: array<u32>;\n"
            "@compute @workgroup_size(1) fn main() { for (var i = 0u; i < params[0]; i++) { out[i] = i; } }")
    webtorch.backend.webgpu.runtime().driver.create_pipeline(code, "w", 0)
    assert seen == [_api.lib.WGPUShaderRuntimeChecks_BoundsChecks]


@pytest.mark.parametrize("nbytes", [4097, 401_408, 2_179_072, (8 << 20) + 4, 100_000_004])
def test_size_classes_leave_at_most_an_eighth_unused(nbytes):
    """A tensor holds a buffer of its size class: at most 1/8 more than its bytes past 4 KiB (Qwen2.5-0.5B's
    int4 layers, 0.4 and 2.2 MB, took 1.22x their bytes under powers of two to 1 MiB, then whole MiBs)."""
    start = webgpu.memory_allocated()
    t = webtorch.empty(nbytes // 4, dtype=webtorch.int32, device="webgpu")
    held = webgpu.memory_allocated() - start
    assert nbytes // 4 * 4 <= held <= 1.125 * nbytes
    del t
