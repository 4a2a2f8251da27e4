"""torch.autograd.variable: Variable, the pre-0.4 wrapper. Since torch 0.4 every Tensor is a Variable:
Variable(t, requires_grad=...) is t made to require grad (or not), isinstance(t, Variable) holds for
any tensor."""
from .. import _ops as F

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, F.Tensor)


class Variable(metaclass=_VariableMeta):
    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            return F.tensor([])
        if not isinstance(data, F.Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)
