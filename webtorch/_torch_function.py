"""Tensor subclasses and the __torch_function__ protocol (torch.overrides), as torch defines them.

A subclass of Tensor (`class Image(torch.Tensor)`) is made from a tensor by `t.as_subclass(cls)` (an
alias: the same storage, and in the autograd graph) or `Tensor._make_subclass(cls, t, requires_grad)` (a
new leaf on the same storage). When such a class has a __torch_function__ of its own (Tensor's default
counts; Parameter's `_disabled_torch_function_impl` does not), every torch function and Tensor method
that receives one of its instances calls `type(arg).__torch_function__(func, types, args, kwargs)`
instead of computing; Tensor's default runs func with dispatch off and turns tensor results into cls
(`get_default_nowrap_functions` excepted).

How it is wired, so that plain tensors pay nothing:
* methods: a subclass is given, in its own class dict, a dispatching form of each Tensor method and of
  the tensor-valued properties it does not define itself (Tensor.__init_subclass__). `func` is then
  Tensor's own function (`torch.Tensor.clone`), the object libraries compare with.
* functions: the public functions of torch, nn.functional, linalg, fft and special are wrapped once at
  import; the wrapper looks at its arguments only after the first dispatching class exists.
* DisableTorchFunctionSubclass / DisableTorchFunction (torch._C) switch dispatch off in a block, as a
  handler does around its own call of func.
torch.overrides' has_torch_function* and handle_torch_function are the same checks, for libraries that
write their own dispatching functions. Modes (TorchFunctionMode) are not implemented.
"""
import functools
import inspect
import sys
import types as _types

from . import _C, _tensor_first
from ._tensor import Tensor, _SLOT


class _State:
    dispatching = False  # a class with a __torch_function__ of its own exists (until then no wrapper looks)
    subclass_off = 0     # depth of DisableTorchFunctionSubclass / DisableTorchFunction blocks


_state = _State()


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """torch._C._disabled_torch_function_impl: `__torch_function__ = _disabled_torch_function_impl` makes a
    subclass (Parameter) compute as a plain tensor does, its results plain tensors."""
    return func(*args, **(kwargs or {}))


class DisableTorchFunctionSubclass:
    """torch._C.DisableTorchFunctionSubclass: inside the block, subclasses' __torch_function__ is not called."""

    def __enter__(self):
        _state.subclass_off += 1
        return self

    def __exit__(self, *exc):
        _state.subclass_off -= 1


DisableTorchFunction = DisableTorchFunctionSubclass  # (no modes here: the same switch)


def _is_torch_function_enabled():
    return _state.subclass_off == 0


_overloads = {}  # class -> whether its instances dispatch


def _dispatches(cls):
    found = _overloads.get(cls)
    if found is None:
        impl = None
        for klass in cls.__mro__:
            if "__torch_function__" in klass.__dict__:
                impl = klass.__dict__["__torch_function__"]
                break
        impl = getattr(impl, "__func__", impl)  # a classmethod / staticmethod's function
        # PyTorch's own tensors (torch.Tensor's default handler) do not dispatch: theirs would call the webtorch
        # function again, forever (webtorch.tensor(a_torch_tensor) once any subclass had turned dispatching on)
        torch_default = getattr(impl, "__module__", None) == "torch._tensor" and \
            getattr(impl, "__qualname__", None) == "Tensor.__torch_function__"
        found = _overloads[cls] = impl is not None and impl is not _disabled_torch_function_impl and \
            cls is not Tensor and not torch_default
    return found


def _overloaded(relevant):
    """torch's order: each dispatching type once, in argument order, a subclass before its bases."""
    found = []
    for a in relevant:
        cls = type(a)
        if not _dispatches(cls) or any(type(f) is cls for f in found):
            continue
        index = len(found)
        for i, f in enumerate(found):
            if issubclass(cls, type(f)):
                index = i
                break
        found.insert(index, a)
    return found


def _any_dispatching(args, kwargs):
    """Whether an argument (or an element of a list or tuple argument) dispatches: the wrappers' quick test."""
    for group in (args, kwargs.values()) if kwargs else (args,):
        for a in group:
            cls = a.__class__
            if cls is Tensor:
                continue
            if cls is list or cls is tuple:
                for b in a:
                    if b.__class__ is not Tensor and _dispatches(b.__class__):
                        return True
            elif _dispatches(cls):
                return True
    return False


def _flat(args, kwargs):
    """The arguments a function dispatches on: tensors given directly, in a list or tuple, or by keyword."""
    for a in (*args, *kwargs.values()):
        if isinstance(a, (list, tuple)):
            yield from a
        else:
            yield a


def has_torch_function(relevant_args):
    return _state.subclass_off == 0 and any(_dispatches(type(a)) for a in relevant_args)


def has_torch_function_unary(arg):
    return _state.subclass_off == 0 and _dispatches(type(arg))


def has_torch_function_variadic(*args):
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls the __torch_function__ of the dispatching types among relevant_args in torch's order; the
    first result other than NotImplemented is the answer."""
    overloaded = _overloaded(relevant_args)
    types = tuple(type(a) for a in overloaded)
    for a in overloaded:
        result = type(a).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{public_api.__module__}.{public_api.__name__}' on types that "
                    f"implement __torch_function__: {list(types)}")


def _dispatch(func, compute, args, kwargs, where):
    """func's handlers by the dispatching arguments, or compute(*args, **kwargs) when there is none; where
    is func's torch path for the error when every handler declines."""
    overloaded = _overloaded(_flat(args, kwargs))
    if not overloaded:
        return compute(*args, **kwargs)
    types = tuple(type(a) for a in overloaded)
    for a in overloaded:
        result = type(a).__torch_function__(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    if where.startswith("torch.nn.functional."):  # (torch defines these in Python: handle_torch_function's error)
        raise TypeError(f"no implementation found for '{where}' on types that implement __torch_function__: "
                        f"{list(types)}")
    listed = "".join(f"  - tensor subclass {t}\n" for t in types)
    raise TypeError(f"Multiple dispatch failed for '{where}'; all __torch_function__ handlers returned "
                    f"NotImplemented:\n\n{listed}\nFor more information, try re-running with "
                    "TORCH_LOGS=not_implemented")


# -- Tensor's default __torch_function__ and the subclass constructors --------------------------------
def get_default_nowrap_functions():
    """The functions whose results Tensor.__torch_function__ leaves as they are (a tensor's base and grad)."""
    return {Tensor._base.__get__, Tensor.grad.__get__}


def _convert(ret, cls):
    if isinstance(ret, Tensor):
        return ret if isinstance(ret, cls) else ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        items = [_convert(r, cls) for r in ret]
        return type(ret)(*items) if hasattr(ret, "_fields") else type(ret)(items)  # namedtuples: max, sort, ...
    return ret


def _default_torch_function(cls, func, types, args=(), kwargs=None):
    """Tensor.__torch_function__: func computed with dispatch off; tensor results (also in tuples and lists)
    become cls, except func's in get_default_nowrap_functions(). NotImplemented unless cls is a subclass
    of every dispatching type (another type's handler decides then)."""
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        ret = func(*args, **(kwargs or {}))
        return ret if func in get_default_nowrap_functions() else _convert(ret, cls)


def _become(t, cls):
    """The plain tensor t as an instance of cls (t itself where the object layouts agree)."""
    try:
        t.__class__ = cls
        return t
    except TypeError:  # cls adds __slots__ of its own: a new object with t's fields
        out = object.__new__(cls)
        for name, slot in _SLOT.items():
            if name not in ("__dict__", "__weakref__"):
                slot.__set__(out, slot.__get__(t))
        return out


def _check_class(cls, who):
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"{who}: argument 'cls' must be a subclass of Tensor, not {type(cls).__name__}")


def as_subclass(self, cls):
    """Tensor.as_subclass: an instance of cls on the same storage, attached to the autograd graph as an
    alias of self (its gradient flows to self)."""
    _check_class(cls, "as_subclass()")
    plain = _SLOT["shape"].__get__(self)
    if self.requires_grad:
        alias = Tensor.view(self, tuple(plain))
    else:
        alias = Tensor._view(self, plain, _SLOT["_stride"].__get__(self))
    return _become(alias, cls)


def _make_subclass(cls, data, require_grad=False, dispatch_strides=False, dispatch_device=False,
                   device_for_backend_keys=None):
    """Tensor._make_subclass: a new leaf of class cls on data's storage (detached), requiring grad as asked."""
    _check_class(cls, "_make_subclass()")
    if not isinstance(data, Tensor):
        raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, not {type(data).__name__}")
    leaf = Tensor(*(_SLOT[n].__get__(data) for n in ("_storage", "shape", "_stride", "_offset")))
    out = _become(leaf, cls)
    Tensor.requires_grad.__set__(out, require_grad)
    return out


def _rebuild_subclass(cls, rebuild, args, state):
    """pickle / copy.deepcopy of a subclass instance: the plain tensor rebuilt, then its class and __dict__."""
    plain = rebuild(*args)
    out = _make_subclass(cls, plain, plain.requires_grad)
    out.grad = plain.grad
    if state:
        out.__dict__.update(state)
    return out


# -- dispatching forms ------------------------------------------------------------------------------
# Tensor's dunders that are tensor operations (dispatched as torch does); the others (__repr__, __len__,
# __bool__, pickling, attribute access) are the object's own.
_OPERATOR_DUNDERS = {f"__{form.format(op)}__" for op in (
    "add sub mul truediv floordiv mod pow matmul and or xor lshift rshift div".split())
    for form in ("{}", "r{}", "i{}")} | {f"__{op}__" for op in "eq ne lt le gt ge neg pos abs invert getitem "
                                                               "setitem".split()}
_NOT_DISPATCHED = {"as_subclass"}
_TENSOR_PROPERTIES = ("T", "mT", "H", "mH", "real", "imag", "data")  # properties whose value is a tensor


def _method(func, name):
    where = f"torch.Tensor.{name}"

    @functools.wraps(func)
    def method(*args, **kwargs):
        if _state.subclass_off:
            return func(*args, **kwargs)
        return _dispatch(func, func, args, kwargs, where)
    return method


def _property(prop, name):
    getter, where = prop.__get__, f"torch.Tensor.{name}.__get__"

    def get(self):
        if _state.subclass_off:
            return getter(self)
        return _dispatch(getter, getter, (self,), {}, where)
    return property(get, prop.__set__ if prop.fset is not None else None, doc=prop.__doc__)


@functools.cache
def _tensor_members():
    """{name: dispatching form} of Tensor's methods and tensor-valued properties (read once, after every
    method is attached)."""
    forms = {}
    for name, value in vars(Tensor).items():
        if name in _NOT_DISPATCHED or (name.startswith("_") and name not in _OPERATOR_DUNDERS):
            continue
        if isinstance(value, _types.FunctionType) and not inspect.iscoroutinefunction(value):
            forms[name] = _method(value, name)
        elif isinstance(value, property) and name in _TENSOR_PROPERTIES:
            forms[name] = _property(value, name)
    return forms


def _init_made_by_new(self, *args, **kwargs):
    """__init__ of a subclass whose __new__ makes the instance (torch's Tensor.__init__ takes any
    arguments then): nothing to do once the instance has its storage."""
    try:
        _SLOT["_storage"].__get__(self)
    except AttributeError:
        Tensor.__init__(self, *args, **kwargs)


def _fit_init(cls):
    if "__new__" in cls.__dict__ and "__init__" not in cls.__dict__ and cls.__init__ is Tensor.__init__:
        cls.__init__ = _init_made_by_new


def _init_subclass(cls, **kwargs):
    super(Tensor, cls).__init_subclass__(**kwargs)
    _fit_init(cls)
    if not _dispatches(cls):
        return
    _state.dispatching = True
    for name, form in _tensor_members().items():
        owner = next(k for k in cls.__mro__ if name in k.__dict__)
        if owner is Tensor:
            setattr(cls, name, form)


def _function(func, where):
    @functools.wraps(func)
    def function(*args, **kwargs):
        if _state.dispatching and not _state.subclass_off and _any_dispatching(args, kwargs):
            return _dispatch(function, func, args, kwargs, where)
        return func(*args, **kwargs)
    return function


def _tensor_first_function(func, where, name, *params):
    """_function's form for torch's functions whose first argument (and second, where params names two)
    must be a Tensor (_tensor_first.FIRST): anything else there, unless it dispatches, is torch's TypeError
    (torch.arccos(1.5), F.relu(None), torch.mm(t, 2))."""
    both = len(params) == 2

    @functools.wraps(func)
    def function(*args, **kwargs):
        if _state.dispatching and not _state.subclass_off and _any_dispatching(args, kwargs):
            return _dispatch(function, func, args, kwargs, where)
        if args and isinstance(args[0], Tensor) and (not both or len(args) > 1 and isinstance(args[1], Tensor)):
            return func(*args, **kwargs)  # (the usual call: tensors given by position)
        for i, param in enumerate(params):
            if i < len(args):
                if not isinstance(args[i], Tensor):
                    return _not_a_tensor(function, func, args, kwargs, where,
                                         f"{name}(): argument '{param}' (position {i + 1})", args[i])
            elif param in kwargs and not isinstance(kwargs[param], Tensor):
                return _not_a_tensor(function, func, args, kwargs, where, f"{name}(): argument '{param}'",
                                     kwargs[param])
        return func(*args, **kwargs)
    return function


def _not_a_tensor(function, func, args, kwargs, where, argument, value):
    """An object with a __torch_function__ of its own is dispatched on (torch does, before any class of
    webtorch's has turned dispatching on); anything else is refused."""
    if not _state.subclass_off and _any_dispatching(args, kwargs):
        return _dispatch(function, func, args, kwargs, where)
    cls = type(value)
    named = cls.__name__ if cls.__name__ != "Tensor" else f"{cls.__module__}.{cls.__qualname__}"  # torch's own
    raise TypeError(f"{argument} must be Tensor, not {named}")


# torch functions that take tensors but are not dispatched (torch.overrides.get_ignored_functions)
_IGNORED = {"is_tensor", "is_storage", "save", "load", "typename", "compile", "install_as_torch"}


def attach(namespaces, plain_subclasses):
    """Gives Tensor the protocol (its default __torch_function__, as_subclass, _make_subclass, the subclass
    hook) and wraps the public functions of each namespace module; plain_subclasses (webtorch's own Tensor
    subclasses: Parameter, sparse tensors) compute as plain tensors."""
    for name in ("DisableTorchFunctionSubclass", "DisableTorchFunction", "_disabled_torch_function_impl",
                 "_is_torch_function_enabled"):
        setattr(_C, name, globals()[name])
    Tensor.__torch_function__ = classmethod(_default_torch_function)
    Tensor.as_subclass = as_subclass
    Tensor._make_subclass = staticmethod(_make_subclass)
    Tensor.__init_subclass__ = classmethod(_init_subclass)
    plain_reduce = Tensor.__reduce_ex__

    def __reduce_ex__(self, proto):
        rebuild, args = plain_reduce(self, proto)
        if type(self) is Tensor:
            return rebuild, args
        return _rebuild_subclass, (type(self), rebuild, args, self.__dict__)
    Tensor.__reduce_ex__ = __reduce_ex__
    for cls in plain_subclasses:
        cls.__torch_function__ = _disabled_torch_function_impl
        _fit_init(cls)
    wrapped = {}  # (function, its _tensor_first row) -> its dispatching form (aliases stay one object)
    for module in namespaces:
        prefix = "torch" + module.__name__[len("webtorch"):] + "."
        for name, value in list(vars(module).items()):
            if isinstance(value, _types.FunctionType) and not name.startswith("_") and name not in _IGNORED \
                    and not inspect.iscoroutinefunction(value):
                first = _tensor_first.FIRST.get(prefix + name)
                if (value, first) not in wrapped:
                    wrapped[value, first] = _function(value, prefix + name) if first is None else \
                        _tensor_first_function(value, prefix + name, *first)
                setattr(module, name, wrapped[value, first])
    _rebind_defaults(wrapped)


def _rebind_defaults(wrapped):
    """Default arguments bound before the wrapping (TransformerEncoderLayer's activation=F.relu) take the
    wrapped forms, so `layer.activation is F.relu` holds as in torch (nn.TransformerEncoder's fast-path
    check reads it)."""
    public = {}  # each function under a public form (through functools.wraps layers: sparse's F.relu) -> that form
    for (inner, _), outer in wrapped.items():
        while isinstance(inner, _types.FunctionType):
            public.setdefault(inner, outer)
            inner = getattr(inner, "__wrapped__", None)

    def rebind(defaults):
        return tuple(public.get(d, d) if isinstance(d, _types.FunctionType) else d for d in defaults)
    for name, module in list(sys.modules.items()):
        if name != "webtorch" and not name.startswith("webtorch."):
            continue
        for value in list(vars(module).values()):
            members = vars(value).values() if isinstance(value, type) else (value,)
            for f in members:
                if isinstance(f, _types.FunctionType) and f.__defaults__:
                    f.__defaults__ = rebind(f.__defaults__)
                if isinstance(f, _types.FunctionType) and f.__kwdefaults__:
                    f.__kwdefaults__ = dict(zip(f.__kwdefaults__, rebind(f.__kwdefaults__.values())))
