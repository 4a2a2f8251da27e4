"""Pyodide's core has no numpy: every webtorch module must import and work without it (a module-level
`import numpy` stops `import webtorch` in every browser, which the host suite cannot see otherwise)."""
import subprocess
import sys

CODE = """
import sys
sys.modules["numpy"] = None  # import numpy raises ImportError, as in Pyodide
import pkgutil, importlib
import webtorch
for info in pkgutil.walk_packages(webtorch.__path__, "webtorch."):
    if "driver_browser" not in info.name:  # imports Pyodide's js
        importlib.import_module(info.name)
assert webtorch.backend.cpu.USE_NUMPY is False
webtorch.testing.assert_close(webtorch.ones(3) * 2, webtorch.full((3,), 2.0))
print("ok")
"""


def test_every_module_imports_without_numpy():
    result = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stdout.strip().endswith("ok"), result.stderr[-3000:]
