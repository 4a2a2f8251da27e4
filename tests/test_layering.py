"""webtorch's modules import downward only: every import (at module level or inside a function) of a
webtorch module names one of the same layer or a lower one, and the imports form no cycle.

A new module gets its place in LAYERS; an op that needs something above it (the Tensor class from the
backend, autograd's rules from an op) takes it as an argument or is attached from above, as the ops
attach Tensor's methods."""
import ast
import importlib
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "webtorch"

# Bottom to top; a module's layer is that of the longest prefix listed.
LAYERS = [
    ("base", ["_dtypes", "errors", "ops_table", "_tensor_first", "_checkpoint_zip", "_refusals", "_C", "_memory_format"]),
    ("drivers", ["backend.kernels", "backend.driver_browser", "backend.driver_native"]),
    ("runtime", ["backend.webgpu"]),
    ("kernel sequence", ["backend.recording", "backend.fusion"]),
    ("device primitives", ["backend.cpu", "backend.gpu", "backend.meta", "backend"]),
    ("tensor", ["_tensor", "_buffers"]),
    ("tape", ["_tape", "_autocast", "_deferred"]),
    ("ops", ["_ops", "_complex", "_indexing", "_shape_ops", "_math_ops", "_inplace", "_random", "_factories", "_conv_ops", "_tensor_types",
             "_tensor_args", "special", "_cephes", "_orthogonal_polynomials", "_storage", "sparse",
             "_torch_function"]),
    ("autograd", ["autograd"]),
    ("libraries", ["linalg", "_linalg_legacy", "random", "_foreach", "fft", "_spectral", "nn", "optim", "amp", "cuda", "cpu", "distributions", "utils", "serialization", "safetensors",
                   "hub", "webgpu", "accelerator", "backends", "jit", "distributed", "library", "fx", "ao", "onnx",
                   "multiprocessing", "compiler", "_dynamo", "_utils", "version", "torch_version", "testing", "func", "futures", "overrides"]),
    ("tools", ["_compile", "profiler", "_forms", "_nn_forms", "_settings", "autograd.profiler", "autograd.profiler_legacy"]),
    ("package", [""]),
]


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _layer(name):
    best = None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if name == prefix or name.startswith(prefix + ".") or prefix == "":
                if best is None or len(prefix) > best[1]:
                    best = (rank, len(prefix))
    return best[0]


def _imports():
    """{module: {imported webtorch module: line}} over every import statement, nested ones too."""
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    found = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        out = found[name] = {}
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - node.level + 1] if node.level > 1 else package
                    target = ".".join(base + ([node.module] if node.module else []))
                elif node.module.startswith("webtorch"):
                    target = node.module[len("webtorch."):] if node.module != "webtorch" else ""
                else:
                    continue
                for alias in node.names:  # `from . import x` imports module x when there is one
                    sub = f"{target}.{alias.name}" if target else alias.name
                    out[sub if sub in modules else target] = node.lineno
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == "webtorch" or alias.name.startswith("webtorch."):
                        out[alias.name[len("webtorch."):] if alias.name != "webtorch" else ""] = node.lineno
    return found


IMPORTS = _imports()


def test_every_module_has_a_layer():
    assert all(_layer(m) is not None for m in IMPORTS)
    assert _layer("backend.recording") < _layer("backend.gpu") < _layer("_tensor") < _layer("_ops") \
        < _layer("autograd") < _layer("nn")


@pytest.mark.parametrize("module", sorted(IMPORTS))
def test_imports_go_downward(module):
    upward = [f"{module} (layer {LAYERS[_layer(module)][0]!r}) imports {target or 'webtorch'} (layer "
              f"{LAYERS[_layer(target)][0]!r}) at line {line}"
              for target, line in IMPORTS[module].items() if target != module and _layer(target) > _layer(module)]
    assert not upward, upward


def test_no_import_cycles():
    state = {}

    def visit(module, path):
        state[module] = "open"
        for target in IMPORTS.get(module, ()):
            if target == module or (module.startswith(target + ".") if target else True):
                continue  # a package's own __init__ runs before its submodules: not an edge back
            if state.get(target) == "open":
                raise AssertionError("import cycle: " + " -> ".join(path + [target]))
            if target not in state:
                visit(target, path + [target])
        state[module] = "done"

    for module in sorted(IMPORTS):
        if module not in state:
            visit(module, [module])


@pytest.mark.parametrize("module", sorted(m for m in IMPORTS if m))
def test_import_as_reaches_each_module(module):
    # `import webtorch.a.b as m` binds m by attribute lookup from webtorch down, so a name in a package's
    # namespace that is not its submodule (once: webtorch.backend, a function the star import of _ops
    # brought in) breaks it even though the module itself imports.
    namespace = {}
    exec(f"import webtorch.{module} as m", namespace)
    assert namespace["m"] is sys.modules[f"webtorch.{module}"] is importlib.import_module(f"webtorch.{module}")
