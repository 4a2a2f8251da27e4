"""Tensor subclasses and __torch_function__ (webtorch/_torch_function.py): each case is one program run
on real torch and on webtorch; what it observes (result classes, values, which functions a handler saw,
errors) must be the same."""
import pickle

import pytest
import torch

import webtorch


def _classes(*xs):
    return [type(x).__name__ for x in xs]


def as_subclass(t):
    class M(t.Tensor):
        pass
    x = t.ones(2, requires_grad=True)
    y = x.as_subclass(M)
    (y * 2).sum().backward()
    z = t.zeros(2).as_subclass(M)
    z.add_(1)  # an alias: the original sees the write
    return _classes(y), y.is_leaf, y.grad_fn is not None, y.requires_grad, x.grad.tolist(), z.tolist()


def make_subclass(t):
    class M(t.Tensor):
        pass
    base = t.zeros(3)
    m = t.Tensor._make_subclass(M, base, True)
    with t.no_grad():
        m[0] = 5.0
    return _classes(m), m.is_leaf, m.requires_grad, base.tolist()


def default_results(t):
    """Tensor's own __torch_function__: tensor results become the subclass (in tuples, namedtuples and
    lists too), other values stay as they are."""
    class M(t.Tensor):
        pass
    y = t.arange(6.0).reshape(2, 3).as_subclass(M)
    values = t.max(y, 1)
    out = [y + 1, 2 * y, -y, y[0], y.sum(), t.add(y, 1), t.cat([t.ones(1, 3), y]), t.nn.functional.relu(y), y.T,
           y.data, *y.chunk(2), values.values, t.linalg.norm(y), t.fft.fft(y).real, t.special.expit(y)]
    return (_classes(*out), type(values).__name__, type(y.tolist()).__name__, type(y.size()).__name__, y.dim(),
            (y + 1).tolist(), y.grad)


def handler_sees(t):
    """A handler is called with Tensor's own function (torch.Tensor.add), the dispatching types and the
    arguments; inside DisableTorchFunctionSubclass nothing dispatches."""
    seen = []

    class N(t.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append((getattr(func, "__name__", "?"), [c.__name__ for c in types]))
            return super().__torch_function__(func, types, args, kwargs)
    n = t.zeros(2).as_subclass(N)
    r = [n.clone(), t.mul(n, 2), n.to(t.float64), n.add(1, alpha=2)]
    with t._C.DisableTorchFunctionSubclass():
        plain = n + 1
    return seen, _classes(*r), _classes(plain), r[3].tolist()


def func_identity(t):
    """A handler recognises methods by identity with torch.Tensor's attributes (torchvision's
    _FORCE_TORCHFUNCTION_SUBCLASS) and functions with torch's."""
    hits = []

    class K(t.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            hits.append(func in {t.Tensor.clone, t.Tensor.to, t.Tensor.detach, t.cat, t.nn.functional.relu})
            with t._C.DisableTorchFunctionSubclass():
                return func(*args, **(kwargs or {}))
    k = t.ones(2).as_subclass(K)
    k.clone(), k.to(t.float64), k.detach(), k.flip(0), t.cat([k, k]), t.nn.functional.relu(k), t.exp(k)
    return hits


def dispatch_order(t):
    """Subclasses before their bases; NotImplemented from every handler is a TypeError."""
    order = []

    class A(t.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            order.append("A")
            return NotImplemented

    class B(A):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            order.append("B")
            return NotImplemented
    a, b = t.ones(1).as_subclass(A), t.ones(1).as_subclass(B)
    errors = []
    for call in (lambda: t.add(a, b), lambda: a.mul(b), lambda: t.nn.functional.relu(b)):
        with pytest.raises(TypeError) as e:
            call()
        errors.append(str(e.value))
    return order, errors


def overrides_helpers(t):
    """torch.overrides as a library uses it: its own function dispatching through handle_torch_function."""
    def scaled(x, k):
        if t.overrides.has_torch_function_unary(x):
            return t.overrides.handle_torch_function(scaled, (x,), x, k)
        return x * k

    class M(t.Tensor):
        pass
    m = t.ones(2).as_subclass(M)
    p = t.nn.Parameter(t.ones(2))
    return (_classes(scaled(m, 3), scaled(t.ones(2), 3)), t.overrides.has_torch_function((t.ones(1), m)),
            t.overrides.has_torch_function((t.ones(1), p)), t.overrides.has_torch_function_variadic(m, 1),
            t.Tensor.grad.__get__ in t.overrides.get_default_nowrap_functions(),
            t.overrides.is_tensor_like(m), t.overrides.is_tensor_like(1.0))


def built_by_new(t):
    """A subclass made in __new__ with its own arguments and properties read through super(), as
    torchvision's tv_tensors: Tensor.__init__ takes the arguments; requires_grad_ and .data work."""
    class Boxes(t.Tensor):
        def __new__(cls, data, *, fmt, requires_grad=False):
            b = t.as_tensor(data, dtype=t.float32).as_subclass(cls)
            b.fmt = fmt
            return b.requires_grad_(requires_grad)

        @property
        def shape(self):
            with t._C.DisableTorchFunctionSubclass():
                return super().shape

        @property
        def requires_grad(self):
            with t._C.DisableTorchFunctionSubclass():
                return super().requires_grad
    b = Boxes([[1, 2, 3, 4]], fmt="xyxy", requires_grad=True)
    c = b.detach().clone()
    c.data = t.zeros(2, 4)
    return _classes(b, c), b.fmt, tuple(b.shape), b.requires_grad, tuple(c.shape), repr(c.detach()) == "Boxes([[0., 0., 0., 0.],\n       [0., 0., 0., 0.]])"


def parameter_subclass(t):
    """nn.Parameter subclasses made through Parameter.__new__ with arguments of their own; a Parameter
    computes as a plain tensor (its __torch_function__ is the disabled one)."""
    class Tagged(t.nn.Parameter):
        def __new__(cls, data, requires_grad=True, tag=None):
            p = super().__new__(cls, data, requires_grad)
            p.tag = tag
            return p
    p = Tagged(t.ones(2), tag="w")
    lin = t.nn.Linear(2, 1)
    lin.weight = Tagged(t.ones(1, 2), tag="lin")
    out = lin(t.ones(3, 2))
    plain = t.nn.Parameter(t.ones(2))
    return (_classes(p, p * 2, plain + 1, out), p.tag, p.requires_grad, p.is_leaf, list(dict(lin.named_parameters())),
            t.nn.Parameter.__torch_function__ is t._C._disabled_torch_function_impl, repr(plain))


def slotted_subclass(t):
    """A subclass with __slots__ of its own (another object layout than Tensor's)."""
    class S(t.Tensor):
        __slots__ = ("extra",)
    s = t.arange(3.0).as_subclass(S)
    s.extra = 5
    m = t.Tensor._make_subclass(S, t.ones(2), True)
    x = t.ones(2, requires_grad=True)
    (x.as_subclass(S) * 3).sum().backward()
    return _classes(s, s + 1, m), s.extra, (s + 1).tolist(), m.requires_grad, m.is_leaf, x.grad.tolist()


def subclass_pickle(t):
    class_ = globals()["Pickled"] if t is webtorch else PickledTorch
    m = t.arange(3.0).as_subclass(class_)
    m.note = "kept"
    back = pickle.loads(pickle.dumps(m))
    return type(back).__name__, back.note, back.tolist()


class PickledTorch(torch.Tensor):
    pass


class Pickled(webtorch.Tensor):
    pass


PickledTorch.__name__ = PickledTorch.__qualname__ = "Pickled_torch"
Pickled.__name__ = Pickled.__qualname__ = "Pickled"
globals()["Pickled_torch"] = PickledTorch


@pytest.mark.parametrize("program", [as_subclass, make_subclass, default_results, handler_sees, func_identity,
                                     dispatch_order, overrides_helpers, built_by_new, parameter_subclass,
                                     slotted_subclass])
def test_same_as_torch(program):
    assert program(webtorch) == program(torch)


def default_identity(t):
    """Functions bound as defaults name the public function objects (nn.TransformerEncoder's fast path
    checks `activation is F.relu`)."""
    F = t.nn.functional
    return (t.nn.TransformerEncoderLayer(8, 2).activation is F.relu,
            t.nn.Transformer(8, 2, 1, 1, 16).encoder.layers[0].activation is F.relu)


def test_defaults_are_the_public_functions():
    assert default_identity(webtorch) == default_identity(torch) == (True, True)


def test_pickle_keeps_class_and_attributes():
    assert subclass_pickle(webtorch) == ("Pickled", "kept", [0.0, 1.0, 2.0])
    assert subclass_pickle(torch) == ("Pickled_torch", "kept", [0.0, 1.0, 2.0])


def test_plain_tensors_do_not_dispatch():
    """Plain tensors never reach a handler, and Tensor's methods stay Tensor's own functions."""
    x = webtorch.ones(2)
    assert type(x + 1) is webtorch.Tensor and not webtorch.overrides.has_torch_function((x,))
    assert "add" not in vars(webtorch.nn.Parameter) and webtorch.Tensor.add.__name__ == "add"


def test_pytorchs_own_tensors_do_not_dispatch():
    """A PyTorch tensor handed to webtorch (webtorch.tensor(t), an op's operand) is data, not a subclass to
    dispatch to: its default __torch_function__ would call the webtorch function again, forever (it did once
    any subclass had turned dispatching on: test_hf's topk test failed after this file's tests)."""
    class Marked(webtorch.Tensor):  # turns dispatching on, as a program's subclass does
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return super().__torch_function__(func, types, args, kwargs or {})

    Marked(webtorch.ones(1))
    t = torch.arange(6.0).reshape(2, 3)
    assert webtorch.tensor(t).tolist() == t.tolist()
    assert not webtorch.overrides.has_torch_function((t,))
