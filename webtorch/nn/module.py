"""nn.Module and nn.Parameter with PyTorch's protocol."""
import functools
import warnings
from collections import OrderedDict
from collections.abc import Mapping

from .. import _ops as F, _refusals
from . import _backward_hooks
from ..backend import meta as _meta
from .._tensor import Tensor
from ..autograd import RemovableHandle as _Handle, no_grad


class Parameter(Tensor):
    """A Tensor that a Module registers as a parameter: a leaf on the data's storage. Made in __new__, as
    torch's, so that a subclass's __new__ can call super().__new__(cls, data, requires_grad)."""
    _repr_as_tensor = True  # its repr's tensor part reads "tensor(", a subclass's its own name

    def __new__(cls, data=None, requires_grad=True):
        return Tensor._make_subclass(cls, F.empty(0) if data is None else data, requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def __reduce_ex__(self, proto):
        return Parameter, (Tensor(self._storage, self.shape, self._stride, self._offset), self.requires_grad)


# A module's hook tables (OrderedDicts of handle id -> hook), made by Module.__init__.
_HOOK_TABLES = ("_forward_hooks", "_forward_pre_hooks", "_state_dict_hooks", "_state_dict_pre_hooks",
                "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks", "_backward_hooks", "_backward_pre_hooks")


_EXTRA_STATE_KEY_SUFFIX = "_extra_state"  # torch's state_dict key of get_extra_state()'s value


class _Changes:
    """A count of the changes made to any module's attributes, parameters, buffers or submodules (set,
    deleted, registered) and training flags: webtorch.compile replays a call without walking the
    modules again while it has not moved (_compile.CompiledFunction's fast guard)."""
    count = 0


def _changed():
    _Changes.count += 1


class _Store(OrderedDict):
    """A module's _parameters, _buffers or _modules: an OrderedDict whose changes are counted (_Changes),
    also those made to it directly (m._buffers[name] = t)."""

    def __setitem__(self, key, value):
        _Changes.count += 1
        super().__setitem__(key, value)

    def __delitem__(self, key):
        _Changes.count += 1
        super().__delitem__(key)

    def pop(self, *args):
        _Changes.count += 1
        return super().pop(*args)

    def popitem(self, last=True):
        _Changes.count += 1
        return super().popitem(last)

    def clear(self):
        _Changes.count += 1
        super().clear()

    def update(self, *args, **kwargs):
        _Changes.count += 1
        super().update(*args, **kwargs)

    def setdefault(self, key, default=None):
        _Changes.count += 1
        return super().setdefault(key, default)

    def move_to_end(self, key, last=True):
        _Changes.count += 1
        super().move_to_end(key, last)


class _BufferMeta(type):
    def __instancecheck__(cls, instance):  # as torch: a tensor made by Buffer(...) is one, whatever its class
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """nn.Buffer(data, persistent=True): assigned to a Module attribute, it registers as a buffer (left out
    of state_dict when not persistent). It is the data's tensor (detached, sharing storage), marked."""

    def __new__(cls, data=None, *, persistent=True):
        data = F.empty(0) if data is None else data
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent, t._is_buffer = persistent, True
        return t


class Module:
    training = True
    _version = 1  # torch's: saved in a state_dict's _metadata, read back by _load_from_state_dict overrides

    def __init__(self, *args, **kwargs):
        object.__setattr__(self, "_parameters", _Store())
        object.__setattr__(self, "_buffers", _Store())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", _Store())
        for table in _HOOK_TABLES:
            object.__setattr__(self, table, OrderedDict())
        object.__setattr__(self, "training", True)

    # -- attributes ---------------------------------------------------------------------------
    def __setattr__(self, name, value):
        _changed()
        params, modules, buffers = self.__dict__.get("_parameters"), self.__dict__.get("_modules"), \
            self.__dict__.get("_buffers")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self.__dict__.pop(name, None)
            modules.pop(name, None)
            params[name] = value
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self.__dict__.pop(name, None)
            params.pop(name, None)
            modules[name] = value
        elif isinstance(value, Buffer) or buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            persistent = value.persistent if isinstance(value, Buffer) else \
                name not in self._non_persistent_buffers_set
            self.__dict__.pop(name, None)
            self.register_buffer(name, value, persistent)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        _changed()
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_module(self, name, module):
        self._modules[name] = module

    add_module = register_module

    def get_submodule(self, target):
        mod = self
        for part in target.split(".") if target else []:
            if not hasattr(mod, part):
                raise AttributeError(f"{mod._get_name()} has no attribute `{part}`")
            mod = getattr(mod, part)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{part}` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        if not target:
            raise ValueError("Cannot set the submodule without a target name!")
        parent, _, name = target.rpartition(".")
        parent = self.get_submodule(parent)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        setattr(parent, name, module)

    def _get_member(self, target, store, kind):
        """get_parameter / get_buffer: the tensor at a dotted path, with torch's errors."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        if name not in getattr(mod, store):
            raise AttributeError(f"`{name}` is not {kind}")
        return getattr(mod, name)

    def get_parameter(self, target):
        return self._get_member(target, "_parameters", "an nn.Parameter")

    def get_buffer(self, target):
        return self._get_member(target, "_buffers", "a buffer")

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. Please file "
                           "an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to "
                           "report this bug.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. Please file "
                           "an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to "
                           "report this bug.")

    def _get_name(self):
        return type(self).__name__

    dump_patches = False
    call_super_init = False

    def share_memory(self):
        return self  # one process: nothing to share

    # -- traversal ----------------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        memo = set() if memo is None else memo
        if remove_duplicate and id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, store, prefix, recurse, remove_duplicate=True):
        seen = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mod_prefix, mod in modules:
            for name, value in getattr(mod, store).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # -- modes, devices, gradients ------------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        _changed()
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad = F.zeros_like(p.grad)

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply(self, convert, recurse=True):
        """Converts parameters, their grads and buffers. A parameter keeps its identity (its data is
        replaced, like PyTorch's `param.data = ...`): tied weights stay tied and optimizers built
        before a move keep updating the model (torch too, except from "meta", where it makes new
        Parameters and ties must be made again)."""
        for m in self.modules() if recurse else [self]:
            for name, t in m._buffers.items():
                if t is not None:
                    m._buffers[name] = convert(t)
            for p in m._parameters.values():
                if p is None:
                    continue
                with no_grad():
                    new = convert(p)
                    if new is not p:
                        p.data = new
                    if p.grad is not None:
                        grad = convert(p.grad)
                        if grad is not p.grad:
                            p.grad.data = grad
        return self

    def to(self, *args, **kwargs):
        """Moves every parameter and buffer to a device; a dtype converts the floating ones only."""
        from .. import _dtypes as dt
        device, dtype = None, None
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, dt.dtype):
                dtype = a
            elif a is not None:
                device = a

        def convert(t):
            try:
                t = t.to(device) if device is not None else t
            except NotImplementedError as e:
                if str(e) == _meta.NO_DATA:
                    raise NotImplementedError(f"{e} Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() "
                                              "when moving module from meta to a different device.") from None
                raise
            return t.to(dtype) if dtype is not None and t.is_floating_point() else t
        return self._apply(convert)

    def to_empty(self, *, device, recurse=True):
        """Parameters and buffers (of submodules too, with recurse) replaced by uninitialised tensors of
        their shapes and dtypes on device: how a model built on "meta" gets real storage."""
        return self._apply(lambda t: F.empty_like(t, device=device), recurse)

    def cpu(self):
        return self.to("cpu")

    def webgpu(self):
        return self.to("webgpu")

    def cuda(self, device=None):
        """As torch's CPU build: the first parameter or buffer to move raises its error (a module with
        none returns itself)."""
        return self._apply(lambda t: t.cuda(device))

    def _floats_to(self, name):
        """The floating parameters and buffers (and their gradients) converted to dtype `name`."""
        from .. import _dtypes as dt
        dtype = dt.BY_NAME.get(name)
        if dtype is None:
            raise TypeError(f"webtorch has no {name} dtype yet")
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self):
        return self._floats_to("float32")

    def half(self):
        return self._floats_to("float16")

    def double(self):
        return self._floats_to("float64")

    def bfloat16(self):
        return self._floats_to("bfloat16")

    # -- state: torch's protocol (per module _save_to_state_dict / _load_from_state_dict, and hooks) ---
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:  # torch's deprecated positional form: (destination, prefix, keep_vars)
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars][len(args):])[:3]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                destination = result
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        """This module's own parameters and persistent buffers from state_dict (keys under prefix); its
        load pre-hooks run first. assign (local_metadata["assign_to_params_buffers"]): the given tensors
        become the parameters (wrapped as Parameter, keeping the module's requires_grad) and buffers."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        local_state.update((k, v) for k, v in self._buffers.items()
                           if v is not None and k not in self._non_persistent_buffers_set)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            src = state_dict[key]
            if not isinstance(src, Tensor):
                if not hasattr(src, "detach"):  # torch's is_tensor_like; a torch.Tensor loads its values
                    error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                      f"Tensor-like object from checkpoint but received {type(src)}")
                    continue
                src = F.tensor(src.detach().cpu().tolist(), dtype=param.dtype)
            if param.dim() == 0 and tuple(src.shape) == (1,):  # torch's allowance for old checkpoints
                src = src[0]
            if tuple(src.shape) != tuple(param.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape torch.Size({list(src.shape)}) "
                                  f"from checkpoint, the shape in current model is torch.Size({list(param.shape)}).")
                continue
            if param.is_meta and not src.is_meta and not assign:
                warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a meta parameter in "
                              "the current model, which is a no-op. (Did you mean to pass `assign=True` to assign items "
                              "in the state dictionary to their corresponding key in the module instead of copying "
                              "them in place?)", stacklevel=3)
            try:
                with no_grad():
                    if not assign:
                        F._copy_into(param, src.to(param.device.type))
                    elif name in self._parameters:
                        if not isinstance(src, Parameter):
                            src = Parameter(src, requires_grad=param.requires_grad)
                        else:
                            src.requires_grad_(param.requires_grad)
                        self._parameters[name] = src
                    else:
                        self._buffers[name] = src
            except Exception as ex:  # noqa: BLE001 (torch reports any failure of the copy as this error)
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.size()} and whose dimensions in the checkpoint are {src.size()}, an "
                                  f"exception occurred : {ex.args}.")
        if strict:
            for key in state_dict:
                if key.startswith(prefix):
                    first, *rest = key[len(prefix):].split(".", 1)
                    if (first not in self._modules) if rest else (first not in local_state):
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """torch's: every entry that can be loaded is, then the problems of the others (not a tensor, size
        mismatch; with strict, missing and unexpected keys) are raised together as one RuntimeError."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)  # the pre-hooks may edit it: the caller's stays as it was
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                         child_prefix)
            keys = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, keys) is not None:
                    raise RuntimeError("Hooks registered with ``register_load_state_dict_post_hook`` are not expected "
                                       "to return new values, if incompatible_keys need to be modified, it should be "
                                       "done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    def _register_hook(self, table, hook):
        handle = _Handle(getattr(self, table))
        getattr(self, table)[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars), before the module's state_dict."""
        return self._register_hook("_state_dict_pre_hooks", hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) -> None, after the module's state_dict."""
        hook._from_public_api = True
        return self._register_hook("_state_dict_hooks", hook)

    def _register_state_dict_hook(self, hook):
        """As register_state_dict_post_hook, but the hook may return the state_dict to use instead."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook that was previously "
                               "registered via register_state_dict_post_hook")
        return self._register_hook("_state_dict_hooks", hook)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs), with
        the module first if with_module, before the module loads its own entries (it may edit state_dict)."""
        return self._register_hook("_load_state_dict_pre_hooks",
                                   functools.partial(hook, self) if with_module else hook)

    def register_load_state_dict_pre_hook(self, hook):
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) -> None, after the module and its children loaded; it may edit
        incompatible_keys in place (before strict's check)."""
        return self._register_hook("_load_state_dict_post_hooks", hook)

    # -- calling ------------------------------------------------------------------------------
    def register_forward_hook(self, hook):
        return self._register_hook("_forward_hooks", hook)

    def register_forward_pre_hook(self, hook):
        return self._register_hook("_forward_pre_hooks", hook)

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) -> None or a new grad_input (webtorch/nn/_backward_hooks.py)."""
        return self._register_hook("_backward_hooks", hook)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) -> None or a new grad_output, before the module's backward."""
        return self._register_hook("_backward_pre_hooks", hook)

    # torch's deprecated hook sees the grads of the module's last autograd node only, which depend on how
    # forward is built: refused (naming the gap) rather than given register_full_backward_hook's values
    register_backward_hook = _refusals.stand_in(
        "nn.Module.register_backward_hook", "the deprecated hook on the module's last autograd node: use "
        "register_full_backward_hook")

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        compiled = self.__dict__.get("_compiled_call_impl")  # set by Module.compile (webtorch/_compile.py)
        return compiled(*args, **kwargs) if compiled is not None else self._call_impl(*args, **kwargs)

    def _call_impl(self, *args, **kwargs):
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        backward_hook = None
        if self.__dict__.get("_backward_hooks") or self.__dict__.get("_backward_pre_hooks"):
            backward_hook = _backward_hooks.BackwardHook(self, self._backward_hooks, self._backward_pre_hooks)
            args = backward_hook.setup_inputs(args)
        out = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, out)
            if result is not None:
                out = result
        return out if backward_hook is None else backward_hook.setup_outputs(out)

    # -- repr like PyTorch's ------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [line for line in self.extra_repr().split("\n") if line]
        for name, m in self._modules.items():
            body = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {body}")
        main = type(self).__name__ + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                return main + lines[0] + ")"
            main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __dir__(self):
        return list(object.__dir__(self)) + list(self._parameters) + list(self._modules) + list(self._buffers)


class _IncompatibleKeys(tuple):
    def __new__(cls, missing_keys, unexpected_keys):
        t = tuple.__new__(cls, (missing_keys, unexpected_keys))
        t.missing_keys, t.unexpected_keys = missing_keys, unexpected_keys
        return t

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"
