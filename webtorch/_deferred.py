"""Fills of "cpu" tensors recorded instead of run, where Python would run them slowly.

Without numpy (Pyodide's core has none) the cpu device computes in Python loops, ~1M elements in
seconds to tens of seconds, and every PyTorch script builds its model on "cpu" (random initialisers,
zeros and ones) before `.to(device)`. So a whole storage filled with a number or a random draw keeps
a recipe (backend.cpu.DeferredStorage): its values are made when first read, or made straight on the
device the tensor is copied to (_tensor._transfer), where they cost a kernel. A recipe is an object
with tensor(device_type) -> a new flat tensor of the values, and values() -> the cpu array.array.
Later number fills of a region (Embedding's padding row, `.zero_()` of a slice) add to the recipe.
"""
import array

from . import _tape
from ._tensor import Tensor, _empty, backend
from .backend import cpu
from .ops_table import ELEMENTWISE

# smaller storages are filled at once (and a recipe's own cpu work never defers again)
MIN_NUMEL = 4096


def deferrable(x):
    """x's storage may take a recipe for all its elements: pure-Python cpu, held in its own array (not
    memory shared with a buffer it was made from), x spanning it, and no autograd history to rebase."""
    s = x._storage
    return (s.device_type == "cpu" and not cpu.USE_NUMPY and s.numel >= MIN_NUMEL
            and (s.__class__ is cpu.DeferredStorage or s.data.__class__ is array.array)
            and _spans(x) and not (_tape.is_grad_enabled() and (x.requires_grad or x._base is not None)))


def _spans(x):
    return x._offset == 0 and x.numel() == x._storage.numel and x.is_contiguous()


def fill(dst, value):
    """dst = value (a Python number) recorded rather than run; False where it is not (then run it)."""
    if value.__class__ not in (bool, int, float):
        return False
    s = dst._storage
    if deferrable(dst):
        cpu.defer(s, Constant(value, s.dtype, s.numel))
        return True
    if s.__class__ is cpu.DeferredStorage and not (_tape.is_grad_enabled() and dst.requires_grad):
        cpu.defer(s, Filled(s.deferred, dst, value))
        return True
    return False


def _write(t, shape, stride, offset, value):
    backend(t._storage.device_type).elementwise(ELEMENTWISE["copy"], Tensor(t._storage, shape, stride, offset),
                                                [value], [t.dtype])


class Constant:
    """Every element one number."""
    __slots__ = ("value", "dtype", "n")

    def __init__(self, value, dtype, n):
        self.value, self.dtype, self.n = value, dtype, n

    def tensor(self, device_type):
        t = _empty((self.n,), self.dtype, device_type)
        _write(t, (self.n,), (1,), 0, self.value)
        return t

    def values(self):
        one = _empty((1,), self.dtype, "cpu")
        _write(one, (1,), (1,), 0, self.value)  # the number in the dtype, as a fill rounds it
        return one._storage.data * self.n


class Filled:
    """An earlier recipe's values, then one region (a view's geometry) set to a number."""
    __slots__ = ("before", "geometry", "value")

    def __init__(self, before, view, value):
        self.before, self.geometry, self.value = before, (tuple(view.shape), tuple(view._stride), view._offset), value

    def tensor(self, device_type):
        t = self.before.tensor(device_type)
        _write(t, *self.geometry, self.value)
        return t

    def values(self):
        return self.tensor("cpu")._storage.data
