"""torch.library and torch.ops: custom operators with Python implementations.

An operator "ns::name" is defined by a schema (Library.define, define, custom_op) and gets Python
kernels (impl / register_kernel, per device type or for all) and optionally an autograd formula
(register_autograd: backward + setup_context, run through autograd.Function). torch.ops.ns.name
calls it; torch.ops.aten.X is webtorch's own function X. Fake (meta) kernels are kept but never
run: webtorch has no fake-tensor tracing, so register_fake also accepts operators defined later
(torch raises there; torchvision registers fakes for its native ops, which webtorch cannot load)."""
import re

from . import _refusals, autograd

__all__ = ["Library", "define", "impl", "register_fake", "register_kernel", "register_autograd", "custom_op",
           "CustomOpDef", "get_ctx", "ops"]


class _Operator:
    def __init__(self, qualname, schema=None):
        self.qualname, self.schema = qualname, schema
        self.kernels = {}  # device type ("cpu", "webgpu", ...) or None (every device) -> function
        self.fake = None
        self.backward = self.setup_context = None

    def _kernel(self, args, kwargs):
        from ._tensor import Tensor
        device = next((a.device.type for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)), None)
        kernel = self.kernels.get(device, self.kernels.get(None))
        if kernel is None:
            raise NotImplementedError(f"webtorch: operator {self.qualname} has no kernel for device type {device} "
                                      f"(registered: {sorted(map(str, self.kernels))})")
        return kernel

    def __call__(self, *args, **kwargs):
        kernel = self._kernel(args, kwargs)
        if self.backward is None:
            return kernel(*args, **kwargs)
        op = self

        class _Function(autograd.Function):
            @staticmethod
            def forward(ctx, *inputs):
                out = kernel(*inputs, **kwargs)
                if op.setup_context is not None:
                    op.setup_context(ctx, inputs, out)
                return out

            @staticmethod
            def backward(ctx, *grads):
                return op.backward(ctx, *grads)
        _Function.__name__ = self.qualname.replace("::", "_")
        return _Function.apply(*args)

    @property
    def default(self):
        return self

    def overloads(self):
        return ["default"]


_OPERATORS = {}
aten_functions = None  # the webtorch package (attached by it): torch.ops.aten.X is webtorch.X


def _qualname(op):
    if isinstance(op, _Operator):
        return op.qualname
    if isinstance(op, CustomOpDef):
        return op._op.qualname
    if not isinstance(op, str) or "::" not in op:
        raise ValueError(f"expected an operator name of the form 'namespace::name', got {op!r}")
    return op.split(".")[0]


def _operator(op, create=True):
    name = _qualname(op)
    if name not in _OPERATORS and create:
        _OPERATORS[name] = _Operator(name)
    return _OPERATORS[name]


def _device_types(types):
    if types is None or types in ("CompositeImplicitAutograd", "CompositeExplicitAutograd", "default", "Autograd"):
        return [None]
    types = [types] if isinstance(types, str) else list(types)
    return [{"CPU": "cpu", "CUDA": "cuda", "Meta": "meta"}.get(t, t.lower()) for t in types]


def define(qualname, schema, *, lib=None, tags=()):
    """torch.library.define("ns::name", "(Tensor x) -> Tensor")."""
    if qualname in _OPERATORS and _OPERATORS[qualname].schema is not None:
        raise RuntimeError(f"Tried to register an operator ({qualname}) with the same name and overload name "
                           "multiple times.")
    _operator(qualname).schema = schema


def impl(qualname, types, func=None, *, lib=None):
    """torch.library.impl(op, device types, fn), or its decorator form."""
    def register(fn):
        if types == "Meta":
            _operator(qualname).fake = fn
        else:
            for device in _device_types(types):
                _operator(qualname).kernels[device] = fn
        return fn
    return register if func is None else register(func)


def register_kernel(op, device_types, func=None, *, lib=None):
    return impl(op, device_types, func)


def register_fake(op, func=None, *, lib=None, _stacklevel=1, allow_override=False):
    def register(fn):
        _operator(op).fake = fn
        return fn
    return register if func is None else register(func)


impl_abstract = register_fake


def register_autograd(op, backward, *, setup_context=None, lib=None):
    operator = _operator(op)
    operator.backward, operator.setup_context = backward, setup_context


def get_ctx():
    raise NotImplementedError("webtorch: torch.library.get_ctx() is for fake kernels, which webtorch never runs")


class Library:
    """torch.library.Library(ns, "DEF" | "FRAGMENT" | "IMPL", dispatch_key)."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key

    def _name(self, name):
        name = getattr(name, "qualname", name)
        return name if "::" in name else f"{self.ns}::{name}"

    def define(self, schema, alias_analysis="", *, tags=()):
        name = re.match(r"\s*([\w.]+)\s*\(", schema)
        if name is None:
            raise RuntimeError(f"webtorch: cannot read the operator name of schema {schema!r}")
        define(self._name(name.group(1).split(".")[0]), schema)
        return name.group(1)

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        impl(self._name(op_name), dispatch_key or self.dispatch_key or None, fn)

    def _destroy(self):
        pass


class CustomOpDef:
    """What torch.library.custom_op returns: callable, with register_kernel / register_fake /
    register_autograd methods."""

    def __init__(self, qualname, fn, device_types):
        self._op = _operator(qualname)
        self._op.schema = self._op.schema or "(custom_op)"
        impl(qualname, device_types, fn)
        self.__name__, self.__doc__, self._init_fn = fn.__name__, fn.__doc__, fn

    def __call__(self, *args, **kwargs):
        return self._op(*args, **kwargs)

    def register_kernel(self, device_types, fn=None):
        return impl(self._op.qualname, device_types, fn)

    def register_fake(self, fn):
        self._op.fake = fn
        return fn

    def register_autograd(self, backward, *, setup_context=None):
        register_autograd(self._op.qualname, backward, setup_context=setup_context)


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    def create(function):
        return CustomOpDef(name, function, device_types)
    return create if fn is None else create(fn)


# aten operators webtorch has no function of that name for: lift_fresh is the identity (torch lifts a
# constant into a tensor it may mutate); the backward kernels and new_empty_strided are refused.
_ATEN = {"lift_fresh": lambda self: self}
_ATEN_REFUSED = "gelu_backward silu_backward threshold_backward new_empty_strided"


class _Namespace:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, op):
        if op.startswith("__"):
            raise AttributeError(op)
        if self._name == "aten":  # torch's own operators: webtorch's functions of the same names
            if op in _ATEN_REFUSED.split():
                return _refusals.stand_in(f"ops.aten.{op}", _refusals.OP_REGISTRY)
            fn = getattr(aten_functions, op, None) or _ATEN.get(op)
            if fn is None:
                raise AttributeError(f"'_OpNamespace' 'aten' object has no attribute '{op}'")
            return fn
        qualname = f"{self._name}::{op}"
        if qualname not in _OPERATORS:
            raise AttributeError(f"'_OpNamespace' '{self._name}' object has no attribute '{op}'")
        return _OPERATORS[qualname]


class _Ops:
    """torch.ops: torch.ops.ns.name is the operator ns::name."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Namespace(name)

    @staticmethod
    def load_library(path):
        raise OSError(f"webtorch cannot load native operator libraries ({path}): it runs in pure Python")

    @property
    def loaded_libraries(self):
        return set()


ops = _Ops()
wrap_triton = _refusals.stand_in("library.wrap_triton", "Triton kernels: webtorch's kernels are WGSL")
