"""`import torch` = webtorch in Pyodide (issue 25): the alias, and einops installed offline from its pure
wheel (.cache/as_torch_wheels, scripts/setup.sh) running unmodified on webgpu, against golden values
computed here with real torch and einops. The page session is shared with other test files, so the
alias is removed again afterwards (the classes' torch.* paths and the finder). transformers cannot be
installed offline in Pyodide (numpy, tokenizers, safetensors, regex, pyyaml have no Pyodide wheels on
PyPI; docs/compatibility.md's library table)."""
from pathlib import Path

import pytest

WHEEL = Path(__file__).resolve().parents[2] / ".cache" / "as_torch_wheels" / "einops-0.8.2-py3-none-any.whl"

PROGRAM = r"""
import micropip, sys, webtorch
await micropip.install("emfs:/tmp/as_torch/einops-0.8.2-py3-none-any.whl", deps=False)
paths = {c: c.__module__ for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith("webtorch")
         for c in vars(m).values() if isinstance(c, type) and c.__module__.startswith("webtorch")}
version = webtorch.__version__
webtorch.install_as_torch()
try:
    import importlib.metadata, torch, torch.nn.functional as F
    from torch.nn.modules.activation import Tanh
    import einops
    from einops.layers.torch import Rearrange, Reduce
    alias = [torch is webtorch, F is webtorch.nn.functional, Tanh is webtorch.nn.Tanh, str(torch.float32),
             importlib.metadata.version("torch"), torch.nn.Linear.__module__]
    x = torch.arange(24.0, device="webgpu").reshape(2, 3, 4).requires_grad_()
    y = einops.rearrange(x, "b c (h w) -> b (c h) w", h=2)
    pooled = einops.reduce(x, "b c (h w) -> b h", "max", h=2)
    tiled = einops.repeat(x[0, 0], "w -> w k", k=2)
    model = torch.nn.Sequential(Rearrange("b c w -> b (c w)"), torch.nn.Linear(12, 2), Reduce("b k -> k", "mean")).to("webgpu")
    with torch.no_grad():
        model[1].weight.copy_(torch.linspace(-1, 1, 24).reshape(2, 12))
        model[1].bias.fill_(0.5)
    out = model(x)
    (out.sum() + y.square().mean() + pooled.sum()).backward()
    result = {"alias": alias, "rearrange": y.tolist(), "reduce": pooled.tolist(), "repeat": tiled.tolist(),
              "layers": out.tolist(), "grad": x.grad.tolist(), "einops": einops.__version__}
finally:  # (the session's other tests expect webtorch's own names)
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "TorchAliasFinder"]
    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        del sys.modules[name]
    for cls, module in paths.items():
        cls.__module__ = module
    webtorch.__version__ = version
result
"""


def _golden():
    import einops
    import torch
    from einops.layers.torch import Rearrange, Reduce
    x = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
    y = einops.rearrange(x, "b c (h w) -> b (c h) w", h=2)
    pooled = einops.reduce(x, "b c (h w) -> b h", "max", h=2)
    tiled = einops.repeat(x[0, 0], "w -> w k", k=2)
    model = torch.nn.Sequential(Rearrange("b c w -> b (c w)"), torch.nn.Linear(12, 2), Reduce("b k -> k", "mean"))
    with torch.no_grad():
        model[1].weight.copy_(torch.linspace(-1, 1, 24).reshape(2, 12))
        model[1].bias.fill_(0.5)
    out = model(x)
    (out.sum() + y.square().mean() + pooled.sum()).backward()
    return {"rearrange": y.tolist(), "reduce": pooled.tolist(), "repeat": tiled.tolist(), "layers": out.tolist(),
            "grad": x.grad.tolist()}


def _flat(v):
    return [x for item in v for x in _flat(item)] if isinstance(v, list) else [v]


def test_alias_and_einops_in_pyodide(py_page):
    if not WHEEL.exists():
        pytest.fail(f"{WHEEL} missing: run scripts/setup.sh", pytrace=False)
    py_page.put_file(f"/tmp/as_torch/{WHEEL.name}", WHEEL.read_bytes())
    got = py_page.run(PROGRAM, timeout=120)
    assert got["alias"] == [True, True, True, "torch.float32", "2.13.0", "torch.nn.modules.linear"]
    assert got["einops"] == "0.8.2"
    for key, want in _golden().items():
        a, b = _flat(got[key]), _flat(want)
        assert len(a) == len(b) and all(abs(p - q) <= 1e-5 * max(1.0, abs(q)) for p, q in zip(a, b)), key
    assert py_page.run("import webtorch, sys; (str(webtorch.float32), 'torch' in sys.modules)") == \
        ["webtorch.float32", False]
