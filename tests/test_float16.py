"""float16 beyond the op table: the error without "shader-f16", the pure-Python cpu path (Pyodide's,
numpy switched off here), and which kernels enable WGSL's f16."""
import pytest
import torch

import webtorch
from webtorch import _dtypes as dt
from webtorch.backend import cpu, kernels
from webtorch.backend.webgpu import runtime

from compare import assert_close, to_plain
from op_cases import CASES, FLOAT16_CASES, run_case

F16_CASES = [c for c in CASES if c.name in FLOAT16_CASES]


def test_webgpu_without_shader_f16_raises_a_clear_error(monkeypatch):
    rt = runtime()
    monkeypatch.setattr(rt, "features", frozenset())
    assert not webtorch.webgpu.has_float16()
    for make in (lambda: webtorch.ones(3, dtype=webtorch.float16, device="webgpu"),
                 lambda: webtorch.ones(3, device="webgpu").half(),
                 lambda: webtorch.ones(3, dtype=webtorch.half).to("webgpu")):
        with pytest.raises(TypeError, match="shader-f16"):
            make()
    x = webtorch.ones(3, dtype=webtorch.float16)  # cpu float16 still works
    assert x.tolist() == [1.0, 1.0, 1.0]


def test_only_float16_kernels_enable_f16():
    assert webtorch.webgpu.has_float16()  # lavapipe offers shader-f16
    assert "shader-f16" in webtorch.webgpu.features()
    for d in dt.ALL:
        for source in (kernels.matmul(d)[1], kernels.scan("sum", d)[1] if d is not dt.bool_ else "",
                       kernels.sort(d, False)[1], kernels.take(d)[1]):
            assert ("array<f16>" in source) == (d is dt.float16), (d, source[:200])


@pytest.mark.parametrize("case", F16_CASES, ids=[c.name for c in F16_CASES])
def test_pure_python_cpu(case, monkeypatch):
    monkeypatch.setattr(cpu, "USE_NUMPY", False)
    expected = to_plain(run_case(torch, case, "cpu"))
    assert_close(to_plain(run_case(webtorch, case, "cpu")), expected, atol=case.atol, rtol=case.rtol,
                 name=case.name + "[cpu, no numpy]")
