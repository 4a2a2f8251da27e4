"""float16 on an adapter without "shader-f16" (stock Chrome on Linux + NVIDIA, SwiftShader, some
Windows setups): stored as f32 holding half values, rounded to half after every op as bfloat16 is.
The float16 tests run again in a process whose runtime hides the feature
(WEBTORCH_WEBGPU_HIDE_FEATURES), so every value is checked against torch's float16 both ways."""
import os
import pathlib
import subprocess
import sys

import pytest

TESTS = pathlib.Path(__file__).parent

# the op table's float16 cases, the float16 kernels (softmax, layer_norm, reductions, views), dtype
# promotion and casts, autocast to float16 against torch's, checkpoints, readback of half views
SELECTION = [
    ("test_ops.py", "f16-"),
    ("test_float16.py", "not pure_python and not dim0"),
    ("test_dtypes.py", "float16"),
    ("test_autocast.py", "webgpu"),
    ("test_serialization.py", "float16"),
    ("test_runtime.py", "readback_of_a_view"),
]


def test_without_shader_f16():
    """Every selection in one pytest process (one start of Python, torch, webtorch and lavapipe, not six): a
    file's selector applies to its own tests only (pytest -k matches the module's file name too)."""
    env = {**os.environ, "WEBTORCH_WEBGPU_HIDE_FEATURES": "shader-f16"}
    selector = " or ".join(f"({path} and {selector})" for path, selector in SELECTION)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               *(str(TESTS / path) for path, _ in SELECTION), "-k", selector]
    result = subprocess.run(command, env=env, cwd=TESTS.parent, capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert " passed" in result.stdout.splitlines()[-1], result.stdout[-2000:]


def test_the_hidden_feature_is_gone():
    code = ("import webtorch\n"
            "assert 'shader-f16' not in webtorch.webgpu.features() and not webtorch.webgpu.has_float16()\n"
            "assert webtorch.webgpu.adapter_info()['float16'] == 'emulated'\n"
            "x = webtorch.tensor([1.0, 65519.0, 65520.0, 1e-8, 3e-8, 0.1], device='webgpu').half()\n"
            "assert x.dtype is webtorch.float16 and x.element_size() == 2\n"
            "print(x.tolist())\n")
    env = {**os.environ, "WEBTORCH_WEBGPU_HIDE_FEATURES": "shader-f16"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    import torch
    expected = torch.tensor([1.0, 65519.0, 65520.0, 1e-8, 3e-8, 0.1]).half().tolist()
    assert out.stdout.strip() == str(expected)
