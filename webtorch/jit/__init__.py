"""torch.jit: webtorch runs eagerly and has no TorchScript compiler. script() and trace() return
the function or module they are given, unchanged (it runs eagerly, with the same results);
saving and loading TorchScript raise. The typing names TorchScript reads (Final, annotations'
BroadcastingList2, ...) are the plain Python ones."""
import collections
import warnings
from typing import Final  # noqa: F401  (torch.jit.Final)

from . import annotations  # noqa: F401


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    return func


def ignore(drop=False, **kwargs):
    if callable(drop):  # @torch.jit.ignore without arguments
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def _overload(fn):
    return fn


_overload_method = _script_if_tracing = script_if_tracing = _overload


def annotate(the_type, the_value):
    return the_value


class ScriptModule:
    """isinstance(m, torch.jit.ScriptModule) is False for every webtorch module."""


class ScriptFunction:
    pass


Attribute = collections.namedtuple("Attribute", ["value", "type"])  # a TorchScript attribute's declared type


class TracerWarning(Warning):
    """torch.jit.trace's warnings' category (code filters them)."""

    @staticmethod
    def ignore_lib_warnings():
        warnings.filterwarnings("ignore", category=TracerWarning, module="torch.(?!jit)")


class TracedModule(ScriptModule):
    """isinstance(m, torch.jit.TracedModule) is False for every webtorch module, as for ScriptModule."""


def script_method(fn):
    """A method of a ScriptModule subclass: here it stays a Python method."""
    return fn


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """The module as it is, like script() and trace() return it (freezing inlines TorchScript's attributes)."""
    return mod


def is_scripting():
    return False


def is_tracing():
    return False


def _no_torchscript(*args, **kwargs):
    raise RuntimeError("webtorch has no TorchScript: torch.jit.save/load are not supported (use torch.save of a "
                       "state_dict)")


save = load = _no_torchscript
