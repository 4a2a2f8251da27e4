"""Torch 2.13's public namespaces, name by name, and where each stands in webtorch: implemented (the
same name reachable at the same path), refused (a stand-in from webtorch/_refusals.py) or missing.

Which names are public:
* a module with __all__ (torch, torch.fft, torch.special, torch.nn.init, torch.optim, torch.utils.data):
  its __all__, less names with a leading underscore;
* a module without (torch.nn, torch.nn.functional, torch.linalg): dir() less leading underscores, keeping
  the callables torch defines (a `__module__` under torch) and the module's own submodules; that drops
  what the module merely imports for its own use (np, math, typing's Optional, doc-string dicts such as
  F.reproducibility_notes) and the few torch helpers in IMPORTED;
* torch.Tensor: dir(torch.Tensor) less leading underscores (dunder operators are tested by the op tables).
A name is callable when torch's object is (a function, method or class); a submodule, dtype, constant or
Tensor property is a value (webtorch/_refusals.py says why the two are refused differently).
"""
import importlib
import inspect

import torch

import webtorch
from webtorch import _refusals

NAMESPACES = ["", "Tensor", "nn", "nn.functional", "linalg", "fft", "special", "nn.init", "optim", "utils.data"]
# What torch.nn.functional imports for its own use: torch.Tensor, the __torch_function__ protocol's helpers
# and a TorchScript dispatch helper; they are torch.Tensor / torch.overrides names, not F's API.
IMPORTED = {"nn.functional": {"Tensor", "handle_torch_function", "has_torch_function", "has_torch_function_unary",
                              "has_torch_function_variadic", "boolean_dispatch"}}


def _torch_object(prefix):
    return torch.Tensor if prefix == "Tensor" else importlib.import_module("torch." + prefix if prefix else "torch")


def public_names(prefix):
    """{name: is_callable} of torch's public names under prefix."""
    owner = _torch_object(prefix)
    if prefix == "Tensor":
        return {n: not isinstance(inspect.getattr_static(owner, n), (property, type(torch.Tensor.dtype)))
                for n in dir(owner) if not n.startswith("_")}
    if hasattr(owner, "__all__"):
        names = [n for n in owner.__all__ if not n.startswith("_")]
    else:
        names = []
        for n in dir(owner):
            if n.startswith("_") or n in IMPORTED.get(prefix, ()):
                continue
            obj = getattr(owner, n)
            if inspect.ismodule(obj):
                if obj.__name__.startswith(owner.__name__ + "."):
                    names.append(n)
            elif callable(obj) and (getattr(obj, "__module__", None) or "").startswith("torch"):
                names.append(n)
    return {n: callable(getattr(owner, n)) and not inspect.ismodule(getattr(owner, n)) for n in names}


def torch_kind(path):
    """True for a callable, False for a value, None where torch 2.13 has no such path (outside the walk)."""
    obj = torch
    for part in path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module(obj.__name__ + "." + part)
            except (ImportError, AttributeError):
                return None
    return callable(obj) and not inspect.ismodule(obj)


def webtorch_object(prefix):
    obj = webtorch
    for part in prefix.split(".") if prefix else []:
        obj = getattr(obj, part)
    return obj


_INSTANCE = webtorch.zeros(1)


def status(path):
    """"implemented", "refused" or "missing" for a path under torch ("linalg.lu", "Tensor.stft")."""
    prefix, _, name = path.rpartition(".")
    try:
        owner = webtorch_object(prefix)
    except NotImplementedError:  # a refused submodule (Refused, or the module's own clear refusal)
        return "refused"
    except AttributeError:
        return "missing"
    if prefix == "Tensor":
        static = inspect.getattr_static(owner, name, None)
        if isinstance(static, property) and static.fget is not None and static.fget.__name__ == "refused":
            return "refused" if _raises_refused(_INSTANCE, name) else "implemented"
        if static is None and not hasattr(_INSTANCE, name):
            return "missing"
        obj = static
    else:
        try:
            obj = getattr(owner, name)
        except NotImplementedError:
            return "refused"
        except AttributeError:
            return "missing"
    return "refused" if _is_stand_in(obj) else "implemented"


def _raises_refused(obj, name):
    try:
        getattr(obj, name)
    except _refusals.Refused:
        return True
    return False


def _is_stand_in(obj):
    """A refused class's subclass inherits the mark; only the stand-in itself carries it in its own dict."""
    return _refusals.MARK in (vars(obj) if isinstance(obj, type) else getattr(obj, "__dict__", {}))


def walk():
    """[(path, is_callable, status)] over every public name of every namespace."""
    rows = []
    for prefix in NAMESPACES:
        for name, is_callable in sorted(public_names(prefix).items()):
            path = f"{prefix}.{name}" if prefix else name
            rows.append((path, is_callable, status(path)))
    return rows
