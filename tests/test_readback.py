"""Readback on the native driver (wgpu-py): .item(), tolist(), .cpu(), numpy() of every dtype equal to torch's,
through the bulk conversions of gpu._host and the GPU's widening of float16 (docs/readback.md)."""
from async_run import run as run_async

import pytest
import torch

import webtorch
from webtorch import webgpu
from webtorch.backend import gpu
from webtorch.backend.webgpu import runtime

DTYPES = ["float32", "float16", "bfloat16", "int32", "int64", "int16", "int8", "uint8", "bool"]
# (numel, view of the flat tensor): empty, one element, odd counts (not a multiple of 4 bytes for the
# narrow dtypes), odd offsets, steps, and more halves than the host converts itself (widened on the GPU)
SIZES = [0, 1, 3, 7, gpu.WIDEN_HALVES_ON_GPU + 3]
VIEWS = {"whole": "t", "offset": "t[1:]", "step": "t[::3]", "2-d": "t[: t.numel() // 2 * 2].view(-1, 2).t()"}


def _values(dtype, numel):
    g = torch.Generator().manual_seed(numel)
    if dtype == "bool":
        return torch.rand(numel, generator=g) < 0.5
    if dtype.startswith(("float", "bfloat")):
        special = torch.tensor([float("inf"), -float("inf"), 0.0, -0.0, 65504.0, 6e-8, 1e-30, 3.0e38][:numel])
        return torch.cat([special, torch.randn(numel - special.numel(), generator=g) * 100]).to(getattr(torch, dtype))
    info = torch.iinfo(getattr(torch, dtype))
    low, high = max(info.min, -2 ** 31), min(info.max, 2 ** 31 - 1)
    edges = torch.tensor([low, high, -1, 0, 1][:numel] if low < 0 else [low, high, 1][:numel])
    return torch.cat([edges, torch.randint(low, high, (numel - edges.numel(),), generator=g)]).to(getattr(torch, dtype))


@pytest.mark.parametrize("numel", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_readback_equals_torch(dtype, numel):
    want = _values(dtype, numel)
    w = webtorch.tensor(want.tolist(), dtype=getattr(webtorch, dtype), device="webgpu")
    for name, view in VIEWS.items():
        got, expected = eval(view, {"t": w}), eval(view, {"t": want})
        assert got.tolist() == expected.tolist(), (name, got.tolist()[:8], expected.tolist()[:8])
        host = got.cpu()
        assert host.dtype == got.dtype and host.shape == got.shape
        assert host.tolist() == expected.tolist(), name
        if dtype != "bfloat16":  # numpy has none (torch refuses it too)
            assert (host.numpy() == expected.numpy()).all(), name
        assert run_async(got.tolist_async()) == expected.tolist(), name
    if numel:
        assert w[-1].item() == want[-1].item() and type(w[-1].item()) is type(want[-1].item())


def test_float16_nan_and_subnormals_survive_the_gpu_widening():
    bits = torch.arange(0, 1 << 16, 7, dtype=torch.int32).to(torch.int16).view(torch.float16)  # halves of every kind
    w = webtorch.tensor(bits.float().tolist(), dtype=webtorch.float16, device="webgpu")
    got = torch.tensor(w.cpu().float().tolist())
    assert torch.equal(got.isnan(), bits.float().isnan())
    keep = ~bits.isnan()
    assert torch.equal(got[keep], bits.float()[keep])


def test_bool_of_words_other_than_0_and_1():
    # an uninitialised bool tensor holds whatever its recycled buffer held: any nonzero word is True
    words = webtorch.tensor([0, 1, 256, 65536, 1 << 24, -1, 0, 2] * 300, dtype=webtorch.int32, device="webgpu")
    del words
    b = webtorch.empty(2400, dtype=webtorch.bool, device="webgpu")
    assert b.tolist() == [False, True, True, True, True, True, False, True] * 300


def test_readback_sends_pending_kernels_and_the_copy_in_one_submission(monkeypatch):
    x = webtorch.ones(1024, device="webgpu")
    webgpu.synchronize()
    queue = runtime().driver.device.queue
    submitted = []
    monkeypatch.setattr(queue, "submit", lambda buffers, submit=queue.submit: submitted.append(submit(buffers)))
    assert (x * 2).sum().item() == 2048.0
    assert len(submitted) == 1  # the old driver: the batch, then the copy (and an empty one before the map)
    assert x.tolist() == [1.0] * 1024
    assert len(submitted) == 2


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_moving_16_bit_floats_does_not_round_them_again(dtype, monkeypatch):
    # values read from a float16/bfloat16 storage are of that dtype already: rounding them again was a Python
    # call per element without numpy (5 s for .cpu() of 1M float16s in Pyodide)
    from webtorch.backend import cpu
    w = webtorch.tensor([1.5, -2.25, 65504.0], dtype=getattr(webtorch, dtype), device="webgpu")
    host = w.cpu()
    monkeypatch.setattr(cpu, "rounded", lambda d, values: pytest.fail("rounded again"))
    assert w.cpu().tolist() == [1.5, -2.25, float(torch.tensor(65504.0, dtype=getattr(torch, dtype)))]
    assert run_async(w.cpu_async()).tolist() == host.tolist()
    assert host.to("webgpu").tolist() == host.tolist()
