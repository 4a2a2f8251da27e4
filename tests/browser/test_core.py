"""The core in the browser: webtorch on WebGPU inside Pyodide, in a page and in a module worker."""
SEED_PROGRAM = """
import webtorch as torch
a = torch.tensor([-1.5, 2.7, 1.0, 2.0], device="webgpu")
b = torch.tensor([-1.0, 0.9, 1.1, -2.1], device="webgpu")
result = a + b
assert torch.allclose(result.to("cpu"), torch.tensor([-2.5, 3.6, 2.1, -0.1]))
[result.tolist(), str(result.device), torch.webgpu.get_device_name()]
"""


def test_seed_program(py):
    values, device, name = py.run(SEED_PROGRAM)
    assert device == "webgpu:0"
    assert [round(v, 5) for v in values] == [-2.5, 3.6, 2.1, -0.1]
    assert name


DEVICE_SHIMS = """
import webtorch as torch
dev = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else "cpu"
with torch.device(dev):
    x = torch.ones(3)
[str(dev), x.device.type, torch.cuda.is_available(), torch.backends.mps.is_available(),
 torch.get_default_device().type, torch.distributed.is_available()]
"""


def test_device_shims(py):
    assert py.run(DEVICE_SHIMS) == ["webgpu", "webgpu", False, False, "cpu", False]
