"""torch.nn.utils.parametrize: a tensor attribute computed by modules from "original" parameters.

As in PyTorch, registering a parametrization moves the parameter (or buffer) into
`module.parametrizations[name]` (a ParametrizationList holding `original`, the same Parameter object,
or `original0`, `original1`, ... when right_inverse returns several tensors) and swaps the module's
class for a subclass whose `name` property evaluates the parametrizations on every access (once per
`cached()` block) and whose setter runs right_inverse. Unless unsafe=True, registering evaluates the
parametrization once and checks it keeps the tensor's shape and dtype, as torch does."""
import collections.abc
import contextlib

from ... import _ops as F
from ...autograd import no_grad
from ..layers import ModuleDict, ModuleList
from ..module import Module, Parameter

__all__ = ["register_parametrization", "is_parametrized", "remove_parametrizations", "ParametrizationList",
           "cached", "type_before_parametrizations", "transfer_parametrizations_and_params"]

_cache = {}  # (id(module), name) -> value, while a cached() block is open
_cache_depth = 0


@contextlib.contextmanager
def cached():
    """Within the block each parametrized tensor is computed once, at its first use."""
    global _cache_depth
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache.clear()


def _register(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set(dest, src):
    """dest takes src's values keeping its identity (an optimizer holding it keeps training it)."""
    dest.data = src.detach()


def _check_same(flag, before, after, labels):
    """Registering may not change the tensor's dtype or shape: torch's ValueError (labels name the two)."""
    if not isinstance(after, F.Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(after).__name__}.")
    for attribute in ("dtype", "shape"):
        old, new = before[attribute], getattr(after, attribute)
        if old != new:
            raise ValueError(f"Registering a parametrization may not change the {attribute} of the tensor, unless "
                             f"{flag} flag is enabled.\n{labels[0].format(attribute)}: {old}\n"
                             f"{labels[1].format(attribute)}: {new}")


class ParametrizationList(ModuleList):
    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        before = {"dtype": original.dtype, "shape": original.shape}
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (F.Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, F.Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            if new is not original:
                with no_grad():
                    _set(original, new)
            _register(self, "original", original)
        else:
            for i, t in enumerate(new):
                if not isinstance(t, F.Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(t).__name__}.")
                t = Parameter(t.detach(), original.requires_grad) if isinstance(original, Parameter) else t
                _register(self, f"original{i}", t)
        if not unsafe:
            _check_same("`unsafe`", before, self(), ("unparametrized {}", "parametrized {}"))

    def right_inverse(self, value):
        """Sets the originals so that the parametrization gives value (right_inverse in reverse order)."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                _set(self.original, value)
            else:
                if len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                     f"Got a sequence of length {len(value)}.")
                for i, t in enumerate(value):
                    _set(getattr(self, f"original{i}"), t)

    def forward(self):
        first, *rest = list(self)
        x = first(self.original) if self.is_tensor else first(*(getattr(self, f"original{i}")
                                                                  for i in range(self.ntensors)))
        for module in rest:
            x = module(x)
        return x


def is_parametrized(module, tensor_name=None):
    lists = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(lists, ModuleDict):
        return False
    return len(lists) > 0 if tensor_name is None else tensor_name in lists


def _property(tensor_name):
    def get(self):
        plist = self.parametrizations[tensor_name]
        if not _cache_depth:
            return plist()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = plist()
        return _cache[key]

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)
    return property(get, set_original)


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            value = getattr(module, tensor_name)
            _check_same("the `unsafe`", {"dtype": value.dtype, "shape": value.shape}, parametrization(value),
                        (f"module.{tensor_name}.{{}}", f"parametrization(module.{tensor_name}).{{}}"))
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    plist = ParametrizationList([parametrization], getattr(module, tensor_name), unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        cls = type(module)
        module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {})
        module.parametrizations = ModuleDict()
    setattr(type(module), tensor_name, _property(tensor_name))
    module.parametrizations[tensor_name] = plist
    return module


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                _set(original, getattr(module, tensor_name))
    elif leave_parametrized:
        t = getattr(module, tensor_name)
        original = Parameter(t) if t.requires_grad else t
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in "
                         "terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register(module, tensor_name, original)
    if not is_parametrized(module):
        del module.parametrizations
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module):
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """to_module gets from_module's parametrizations (the same parametrization modules) and originals."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in from_module.parametrizations[name]:
            register_parametrization(to_module, name, parametrization)
        source, target = from_module.parametrizations[name], to_module.parametrizations[name]
        with no_grad():
            for key, value in source.named_parameters(recurse=False):
                _set(getattr(target, key), value)
    return to_module
