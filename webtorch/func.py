"""torch.func: functional_call (a module run with other tensors in place of its parameters and buffers),
grad and grad_and_value (by reverse-mode autograd). vmap, jvp and the other transforms are refused."""
import contextlib

from . import _refusals
from . import _ops as F
from .autograd import enable_grad, grad as _autograd_grad

__all__ = ["functional_call", "grad", "grad_and_value", "vmap", "jvp", "jacrev", "jacfwd", "hessian", "vjp"]


@contextlib.contextmanager
def _swapped(module, tensors, strict):
    """The module's parameters and buffers named in tensors ("sub.weight") replaced by them within the block."""
    own = dict(module.named_parameters(remove_duplicate=False)) | dict(module.named_buffers(remove_duplicate=False))
    if strict:
        missing, unexpected = sorted(set(own) - set(tensors)), sorted(set(tensors) - set(own))
        if missing or unexpected:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}: missing keys {missing}, "
                               f"unexpected keys {unexpected}")
    saved = []
    for name, value in tensors.items():
        owner_path, _, attr = name.rpartition(".")
        owner = module.get_submodule(owner_path) if owner_path else module
        table = "_parameters" if attr in owner._parameters else "_buffers" if attr in owner._buffers else None
        if table is None:
            saved.append((owner, None, attr, owner.__dict__.get(attr)))
            owner.__dict__[attr] = value
        else:
            saved.append((owner, table, attr, getattr(owner, table)[attr]))
            getattr(owner, table)[attr] = value
    try:
        yield
    finally:
        for owner, table, attr, old in reversed(saved):
            if table is None:
                owner.__dict__.pop(attr, None)
            else:
                getattr(owner, table)[attr] = old


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with the given tensors standing in for its parameters and buffers (one dict,
    or several merged); the module itself is left as it was."""
    dicts = parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, (list, tuple)) else \
        [parameter_and_buffer_dicts]
    tensors = {}
    for d in dicts:
        for key in d:
            if key in tensors:
                raise ValueError(f"{key} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        tensors.update(d)
    if tie_weights:  # a tied parameter given under one name serves all of its names
        groups = {}
        for name, p in module.named_parameters(remove_duplicate=False):
            groups.setdefault(id(p), []).append(name)
        for names in groups.values():
            given = [n for n in names if n in tensors]
            for n in names:
                if given and n not in tensors:
                    tensors[n] = tensors[given[0]]
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _swapped(module, tensors, strict):
        return module(*args, **(kwargs or {}))


def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning (d func / d args[argnums], func(*args)); func returns a 0-d tensor (and aux)."""
    def wrapper(*args, **kwargs):
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        with enable_grad():
            args = list(args)
            for i in nums:
                args[i] = args[i].detach().requires_grad_(True) if not args[i].requires_grad else args[i]
            out = func(*args, **kwargs)
            value, aux = out if has_aux else (out, None)
            if not isinstance(value, F.Tensor) or value.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"{'a tensor with ' + str(value.dim()) + ' dims' if isinstance(value, F.Tensor) else type(value).__name__}")
            grads = _autograd_grad(value, [args[i] for i in nums], create_graph=True, allow_unused=True)
            grads = tuple(F.zeros_like(args[i]) if g is None else g for g, i in zip(grads, nums))
        grads = grads[0] if isinstance(argnums, int) else grads
        return (grads, (value, aux)) if has_aux else (grads, value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """A function returning d func / d args[argnums] (and func's aux output with has_aux)."""
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


vmap, jvp, jacrev, jacfwd, hessian, vjp = (_refusals.stand_in(f"func.{name}", _refusals.SYMBOLIC)
                                          for name in ("vmap", "jvp", "jacrev", "jacfwd", "hessian", "vjp"))
