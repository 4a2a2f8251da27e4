"""The tape that ops write to: grad mode, and the Node each differentiable primitive records.

The rules that run on the Nodes (BACKWARD) and the engine that runs them live above the ops, in
autograd.py, which fills BACKWARD; the ops import only this module.
"""
import contextlib
import copy

from ._tensor import Tensor, versions

# name -> rule(grad, out, *inputs, **ctx): filled by autograd.py (the one table of backward rules)
BACKWARD = {}
_grad_enabled = True


# -- grad mode -------------------------------------------------------------------------------
class _GradMode(contextlib.ContextDecorator):
    """A context manager and a decorator (with or without parentheses, on functions and methods).
    Each `with` and each decorated call saves the mode it replaces, so nested and recursive uses
    restore correctly."""

    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not isinstance(args[0], bool) and not kwargs:
            return cls()(args[0])  # @torch.no_grad without parentheses
        return super().__new__(cls)

    def __init__(self, enabled):
        self.enabled = enabled
        self._saved = []

    def _recreate_cm(self):  # a fresh one per decorated call
        cm = copy.copy(self)
        cm._saved = []
        return cm

    def __enter__(self):
        global _grad_enabled
        self._saved.append(_grad_enabled)
        _grad_enabled = self.enabled

    def __exit__(self, *exc):
        global _grad_enabled
        _grad_enabled = self._saved.pop()
        return False


class no_grad(_GradMode):
    def __init__(self):
        super().__init__(False)


class enable_grad(_GradMode):
    def __init__(self):
        super().__init__(True)


class set_grad_enabled(_GradMode):
    """Like torch's: calling it sets the mode at once; used with `with`, the mode before the call
    comes back at the end of the block."""

    def __init__(self, mode):
        global _grad_enabled
        super().__init__(bool(mode))
        self._before, _grad_enabled = _grad_enabled, bool(mode)

    def __call__(self, fn):  # as a decorator it changes nothing until the function runs
        global _grad_enabled
        _grad_enabled, self._before = self._before, None
        return super().__call__(fn)

    def __enter__(self):
        global _grad_enabled
        self._saved.append(_grad_enabled if self._before is None else self._before)
        self._before, _grad_enabled = None, self.enabled


class inference_mode(_GradMode):
    def __init__(self, mode=True):
        super().__init__(not mode)


def is_grad_enabled():
    return _grad_enabled


# -- the tape --------------------------------------------------------------------------------
def _saved_version(x):
    """(x's version counter, its count now): the backward compares the counter's count then."""
    counter = versions(x)
    return counter, counter.version


class Node:
    """One recorded primitive.

    inputs  the operands (tensors or scalars) whose values the rule may read
    edges   per operand: (tensor, its grad_fn when recorded), or None when it needs no gradient;
            gradients flow along these, so a later in-place change of an operand's history
            (which replaces its grad_fn) does not reroute this node
    out     a grad-free alias of the result (same storage), so the result and its node form no
            reference cycle and GPU memory frees promptly
    versions  (version counter, count) of the tensor operands and of out when recorded: a rule that
            reads values refuses to run on storage modified in place since
    """
    __slots__ = ("name", "inputs", "edges", "out", "ctx", "rule", "versions", "hooks", "retained")

    def __init__(self, name, inputs, out, ctx, rule):
        self.name, self.inputs, self.ctx, self.rule = name, tuple(inputs), ctx, rule
        self.hooks = self.retained = None  # Tensor.register_hook / retain_grad on the result
        self.edges = [(x, x.grad_fn) if _needs_grad(x) else None for x in inputs]
        self.out = Tensor(out._storage, out.shape, out._stride, out._offset) if out is not None else None
        self.versions = [_saved_version(x) if isinstance(x, Tensor) else None for x in self.inputs]
        self.versions.append(_saved_version(out) if out is not None else None)

    def __repr__(self):
        return f"<{self.name.capitalize()}Backward>"



_TYPE_NAMES = {"complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor",
               "float32": "FloatTensor", "float16": "HalfTensor", "int32": "IntTensor", "int64": "LongTensor",
               "bool": "BoolTensor"}


def _needs_grad(x):
    return isinstance(x, Tensor) and x.requires_grad


def record(name, out, inputs, **ctx):
    """Attaches a Node to `out` when it must carry gradient. Returns out."""
    if not _grad_enabled:
        return out
    for x in inputs:
        if isinstance(x, Tensor) and x._requires_grad:
            break
    else:
        return out
    rule = BACKWARD.get(name)
    if rule is None:
        return out  # not differentiable (comparisons, argmax, ...): out needs no grad
    out.grad_fn = Node(name, inputs, out, ctx, rule)
    out.requires_grad = True
    return out


# -- in-place writes -------------------------------------------------------------------------
def check_inplace(x):
    """PyTorch's refusals for in-place writes while recording gradients."""
    if not _grad_enabled:
        return
    if x.requires_grad and x.is_leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = x._base
    if base is not None and base.requires_grad and base.is_leaf:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def rebase(x, value):
    """x was overwritten in place with value: its history (and its base's, for a view) now ends in
    value. A view's base gets a node that takes the view's region from value, the rest from the
    base's old history."""
    if not _grad_enabled or not (x.requires_grad or _needs_grad(value) or (x._base is not None and
                                                                           x._base.requires_grad)):
        return
    base = x._base
    if base is None:
        x.grad_fn = Node("copy", (value,), x, {}, BACKWARD["copy"])
        x.requires_grad = True
        return
    if not base.is_contiguous():
        raise NotImplementedError("webtorch: an in-place write into a view of a non-contiguous tensor that requires "
                                  "grad is not supported; write out of place (or call .contiguous() first)")
    base.grad_fn = Node("copy_slices", (alias(base), value), base, _geometry(x, base), BACKWARD["copy_slices"])
    base.requires_grad = True
    refresh_view(x)


def _geometry(view, base):
    return dict(shape=tuple(view.shape), stride=view._stride, offset=view._offset - base._offset)


def refresh_view(x):
    """After an in-place write through x's base, x's history is its region of the new base."""
    base = x._base
    if base is None or not _grad_enabled or not base.requires_grad:
        return
    if not base.is_contiguous():
        raise NotImplementedError("webtorch: an in-place write into a view of a non-contiguous tensor that requires "
                                  "grad is not supported; write out of place (or call .contiguous() first)")
    x.grad_fn = Node("view_region", (base,), x, _geometry(x, base), BACKWARD["view_region"])
    x.requires_grad = True


def alias(t):
    """A new Tensor object with t's storage, layout and current history (t's history may change)."""
    a = Tensor(t._storage, t.shape, t._stride, t._offset)
    a.grad_fn, a._requires_grad = t.grad_fn, t.requires_grad
    return a
