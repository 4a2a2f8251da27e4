"""The elementwise kernel's layouts (elementwise.wgsl): contiguous views take ELEMENTWISE_PER indices
per invocation, strided ones (broadcast, sliced) one; sizes around the workgroup and per-invocation
boundaries, float16, float32 and int32, against torch."""
import pytest
import torch

import webtorch
import webtorch._ops as webtorch_ops
from webtorch.backend import kernels

CASES = [  # (shape of a, shape of b, sliced b, contiguous)
    ((1,), (1,), False, True), ((255,), (255,), False, True), ((1025,), (1025,), False, True),
    ((4097,), (4097,), False, True), ((3, 1000), (3, 1000), False, True), ((4097,), (), False, False),
    ((33, 384), (384,), False, False), ((2, 3), (2, 1), False, False), ((3, 1), (1, 4), False, False),
    ((9, 257), (9, 257), True, False),
]


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
@pytest.mark.parametrize("case", CASES, ids=[f"{a}-{b}-{'contiguous' if c else 'strided'}" for a, b, _, c in CASES])
def test_layouts_match_torch(case, dtype):
    shape_a, shape_b, sliced, contiguous = case
    g = torch.Generator().manual_seed(len(shape_a) * 100 + sum(shape_a))
    a = (torch.randn(shape_a, generator=g) * 10).to(getattr(torch, dtype))
    b = (torch.randn(shape_b[:-1] + (shape_b[-1] + 1,) if sliced else shape_b, generator=g) * 10).to(getattr(torch, dtype))
    wa, wb = (webtorch.tensor(t.tolist(), device="webgpu", dtype=getattr(webtorch, dtype)) for t in (a, b))
    if sliced:
        b, wb = b[..., 1:], wb[..., 1:]
    webtorch_ops._LAUNCHES.clear()
    for fn in (lambda T, x, y: x + y, lambda T, x, y: T.where(x > y, y - x, x * 2)):
        got, expected = fn(webtorch, wa, wb), fn(torch, a, b)
        assert torch.equal(torch.tensor(got.tolist(), dtype=expected.dtype), expected), (case, dtype)
    assert ("ew", "add") == next(iter(webtorch_ops._LAUNCHES.values()))[2].kernel[0][:2]
    assert next(iter(webtorch_ops._LAUNCHES.values()))[2].kernel[0][-1] == contiguous
    assert kernels.ELEMENTWISE_PER > 1
