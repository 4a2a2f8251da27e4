"""F.embedding as a row gather on "webgpu": memory, GPU round trips, index checks (values and
gradients against torch are in the op table, tests/nn_cases.py)."""
import pytest
import torch

import webtorch
from webtorch import webgpu
from webtorch.backend import webgpu as runtime_module
import webtorch.nn.functional as F


def _reads(monkeypatch):
    """A list that collects one entry per GPU readback from now on."""
    rt = runtime_module.runtime()
    reads = []
    real = rt.driver.read_buffer
    monkeypatch.setattr(rt.driver, "read_buffer", lambda *a: (reads.append(a), real(*a))[1])
    return reads


def test_a_bert_sized_lookup_allocates_only_its_output():
    # 64 ids into a 30522x384 table: a one-hot matmul allocated a 64x30522 float buffer here (and
    # did 64*30522*384 multiply-adds); the gather allocates the output alone.
    table = webtorch.arange(30522.0, device="webgpu").unsqueeze(1) + webtorch.arange(384.0, device="webgpu") / 512
    ids = webtorch.tensor([(i * 7919) % 30522 for i in range(64)], device="webgpu").reshape(4, 16)
    webgpu.synchronize()
    webgpu.reset_peak_memory_stats()
    start = webgpu.memory_allocated()
    out = F.embedding(ids, table)
    output_bytes = runtime_module.bucket(64 * 384 * 4)  # the pool's size class
    assert webgpu.max_memory_allocated() - start <= output_bytes
    # backward: the gradient is dense like torch's (the table's size) plus the incoming gradient
    table.requires_grad_()
    webgpu.reset_peak_memory_stats()
    start = webgpu.memory_allocated()
    F.embedding(ids, table).sum().backward()
    assert webgpu.max_memory_allocated() - start <= runtime_module.bucket(30522 * 384 * 4) + 2 * output_bytes + 4096
    rows = [table[int(i)] for i in ids.reshape(-1).tolist()]  # basic indexing: other code, same rows
    assert torch.equal(torch.tensor(out.cpu().tolist()).reshape(64, 384),
                       torch.tensor(webtorch.stack(rows).cpu().tolist()))
    grad_rows = torch.tensor(table.grad[ids[0]].cpu().tolist())
    assert torch.equal(grad_rows, torch.ones(16, 384))


def test_ids_from_the_host_are_checked_without_a_readback(monkeypatch):
    table = webtorch.randn(10, 4, device="webgpu")
    ids = webtorch.tensor([[1, 9], [0, 3]], device="webgpu")
    ids32 = webtorch.tensor([2, 5], dtype=webtorch.int32, device="webgpu")
    positions = webtorch.arange(4, device="webgpu")
    webgpu.synchronize()
    reads = _reads(monkeypatch)
    F.embedding(ids, table), F.embedding(ids32, table), F.embedding(positions, table), table.index_select(0, ids32)
    assert reads == []


@pytest.mark.parametrize("write", [
    lambda ids: ids.__setitem__(0, 10),                     # a kernel writes one element
    lambda ids: ids.add_(7),                                # an in-place op
    lambda ids: ids.copy_(webtorch.tensor([11, 0], device="webgpu")),
])
def test_a_write_into_the_ids_drops_their_known_range(write):
    table = webtorch.randn(10, 4, device="webgpu")
    ids = webtorch.tensor([3, 2], device="webgpu")
    F.embedding(ids, table)
    write(ids)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(ids, table)


def test_computed_ids_are_checked_by_one_readback(monkeypatch):
    table = webtorch.randn(10, 4, device="webgpu")
    ids = webtorch.tensor([1, 2], device="webgpu") * 3
    webgpu.synchronize()
    reads = _reads(monkeypatch)
    out = F.embedding(ids, table)
    assert len(reads) == 1
    assert torch.equal(torch.tensor(out.cpu().tolist()), torch.tensor(table.cpu().tolist())[[3, 6]])
