"""`import torch` that is webtorch: webtorch.install_as_torch() (or WEBTORCH_AS_TORCH=1, see docs/compatibility.md
"import torch"); `import torchao` then is webtorch.ao (its weight-only quantization API).

A meta-path finder, first on sys.meta_path, answers every `torch` / `torch.X` import with webtorch's
module `webtorch.X` itself (the same object: `torch.nn is webtorch.nn`), and importlib.metadata's
distribution lookup with a `torch` distribution made in memory (no files, so it works in Pyodide),
whose version is the torch API webtorch implements (webtorch.version.__version__).

Names: only under the alias do webtorch's classes carry torch's paths. Each class gets the
`torch.*` path of the most specific public webtorch module that exports it (webtorch.nn.modules.
activation's Tanh becomes torch.nn.modules.activation.Tanh; Tensor, dtype, Size: torch), so reprs
built from the class's module (str(torch.float32) == "torch.float32", torch.Size([2])) and pickled
class paths read as torch's, and real torch loads them. Without the alias they stay webtorch.*, so a
webtorch beside real torch (the tests) never writes a path that resolves to real torch's classes;
webtorch.load maps torch.* class paths to webtorch's either way.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import sys
import types

import webtorch

_PACKAGE = "webtorch"
_ALIAS = "torch"


# torchao's API (quantize_ and its configs) is webtorch.ao's: `from torchao.quantization import quantize_`
# gets webtorch.ao.quantization's (docs/quantization.md). A real torchao cannot run on webtorch anyway.
_PACKAGES = {_ALIAS: _PACKAGE, "torchao": _PACKAGE + ".ao"}


def _target(fullname):
    """torch.X -> webtorch.X, torchao.X -> webtorch.ao.X (None for names outside them)."""
    for alias, package in _PACKAGES.items():
        if fullname == alias:
            return package
        if fullname.startswith(alias + "."):
            return package + fullname[len(alias):]
    return None


class _TorchDistribution(importlib.metadata.Distribution):
    """The `torch` distribution importlib.metadata reports: metadata only, no files."""

    def read_text(self, filename):
        if filename == "METADATA":
            return (f"Metadata-Version: 2.1\nName: torch\nVersion: {webtorch.version.__version__}\n"
                    f"Summary: webtorch {webtorch.__webtorch_version__} answering as torch (webtorch.install_as_torch)\n")
        if filename == "top_level.txt":
            return "torch\n"
        return None

    def locate_file(self, path):
        raise FileNotFoundError(f"the torch distribution of webtorch.install_as_torch has no files ({path})")


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # The import system reads sys.modules back after exec_module: the module it returns (and keeps
        # under the torch name) is webtorch's own, whose __spec__ and __name__ stay untouched.
        sys.modules[module.__name__] = self.module


class TorchAliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        name = _target(fullname)
        if name is None:
            return None
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:  # webtorch has no such module: torch.X is not found either
                return None
            raise
        _rename_classes()
        is_package = hasattr(module, "__path__")
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), is_package=is_package)

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        if context.name is None or context.name.lower().replace("-", "_") == _ALIAS:
            return iter([_TorchDistribution()])
        return iter(())


def _public(name):
    """The nearest public package of a webtorch module name (webtorch._tensor -> webtorch)."""
    parts = name.split(".")
    while any(part.startswith("_") for part in parts):
        parts.pop()
    return ".".join(parts)


def _rename_classes():
    """Give webtorch's classes torch's paths: the deepest public module whose __all__ lists the class
    (webtorch.nn.modules.activation's Tanh, webtorch.nn.parameter's Parameter), else its defining
    module's nearest public package (webtorch._tensor's Tensor -> torch.Tensor)."""
    modules = sorted(((name, m) for name, m in list(sys.modules.items())
                      if isinstance(m, types.ModuleType) and name.split(".")[0] == _PACKAGE
                      and _public(name) == name), key=lambda item: -item[0].count("."))
    for name, module in modules:
        for attr in getattr(module, "__all__", ()):
            value = getattr(module, attr, None)
            # a class of a private top-level module (Tensor, dtype, Size) is torch's top-level class, even
            # where a submodule's __all__ re-exports it (torch.fft lists Tensor)
            if isinstance(value, type) and value.__module__.split(".")[0] == _PACKAGE \
                    and _public(value.__module__) != _PACKAGE:
                value.__module__ = _ALIAS + name[len(_PACKAGE):]
    for name, module in modules:
        for value in list(vars(module).values()):
            if isinstance(value, type) and value.__module__.split(".")[0] == _PACKAGE:
                value.__module__ = _ALIAS + _public(value.__module__)[len(_PACKAGE):]


def install_as_torch():
    """Make `import torch` (and torch.X, importlib.metadata's "torch") resolve to webtorch."""
    existing = sys.modules.get(_ALIAS)
    if existing is not None and existing is not webtorch:
        raise RuntimeError("webtorch.install_as_torch: the real torch is already imported in this process "
                           f"({getattr(existing, '__file__', existing)}); call install_as_torch() before anything "
                           "imports torch (or set WEBTORCH_AS_TORCH=1 before starting Python)")
    if any(isinstance(f, TorchAliasFinder) for f in sys.meta_path):
        return webtorch
    webtorch.__webtorch_version__ = webtorch.__version__
    webtorch.__version__ = webtorch.version.__version__
    sys.meta_path.insert(0, TorchAliasFinder())
    _rename_classes()
    sys.modules[_ALIAS] = webtorch
    webtorch.torch = webtorch  # torch.torch is torch (kornia annotates with torch.torch.Tensor)
    return webtorch
