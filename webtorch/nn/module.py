"""nn.Module and nn.Parameter with PyTorch's protocol."""
import warnings
from collections import OrderedDict
from collections.abc import Mapping

from .. import _ops as F
from ..backend import meta as _meta
from .._tensor import Tensor
from ..autograd import RemovableHandle as _Handle, no_grad


class Parameter(Tensor):
    """A Tensor that a Module registers as a parameter. Shares the data's storage."""

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = F.empty(0)
        Tensor.__init__(self, data._storage, data.shape, data._stride, data._offset)
        self.requires_grad = requires_grad

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    def __reduce_ex__(self, proto):
        return Parameter, (Tensor(self._storage, self.shape, self._stride, self._offset), self.requires_grad)


class Module:
    training = True

    def __init__(self, *args, **kwargs):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "training", True)

    # -- attributes ---------------------------------------------------------------------------
    def __setattr__(self, name, value):
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
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
        elif buffers is not None and name in buffers:
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
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
        if not persistent:
            self._non_persistent.add(name)

    def register_module(self, name, module):
        self._modules[name] = module

    add_module = register_module

    def get_submodule(self, target):
        mod = self
        for part in target.split(".") if target else []:
            mod = getattr(mod, part)
        return mod

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

    # -- state --------------------------------------------------------------------------------
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        out = OrderedDict() if destination is None else destination
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent:
                out[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(out, prefix + name + ".", keep_vars)
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """torch's: every entry that can be loaded is, then the problems of the others (not a tensor, size
        mismatch; with strict, missing and unexpected keys) are raised together as one RuntimeError."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for k, target in own.items():
            if k not in state_dict:
                continue
            src = state_dict[k]
            if not isinstance(src, Tensor):
                if not hasattr(src, "detach"):  # torch's is_tensor_like; a torch.Tensor loads its values
                    errors.append(f'While copying the parameter named "{k}", expected torch.Tensor or Tensor-like '
                                  f"object from checkpoint but received {type(src)}")
                    continue
                src = F.tensor(src.detach().cpu().tolist(), dtype=target.dtype)
            if target.dim() == 0 and tuple(src.shape) == (1,):  # torch's allowance for old checkpoints
                src = src[0]
            if tuple(src.shape) != tuple(target.shape):
                errors.append(f"size mismatch for {k}: copying a param with shape torch.Size({list(src.shape)}) from "
                              f"checkpoint, the shape in current model is torch.Size({list(target.shape)}).")
                continue
            if assign:  # the loaded tensor itself becomes the parameter or buffer (no copy)
                path, _, name = k.rpartition(".")
                owner = self.get_submodule(path) if path else self
                if name in owner._parameters:
                    owner._parameters[name] = Parameter(src, requires_grad=target.requires_grad)
                else:
                    owner._buffers[name] = src
                continue
            if target.is_meta and not src.is_meta:
                warnings.warn(f"for {k}: copying from a non-meta parameter in the checkpoint to a meta parameter in the "
                              "current model, which is a no-op. (Did you mean to pass `assign=True` to assign items in "
                              "the state dictionary to their corresponding key in the module instead of copying them in "
                              "place?)", stacklevel=2)
            with no_grad():
                F._copy_into(target, src.to(target.device.type))
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    # -- calling ------------------------------------------------------------------------------
    def register_forward_hook(self, hook):
        handle = _Handle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    def register_forward_pre_hook(self, hook):
        handle = _Handle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        out = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, out)
            if result is not None:
                out = result
        return out

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
