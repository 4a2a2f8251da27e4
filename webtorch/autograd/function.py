"""torch.autograd.function: the custom-Function names (Function and FunctionCtx live in autograd
itself), and once_differentiable."""
import functools

from .. import _tape
from . import Function, FunctionCtx  # noqa: F401

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


def once_differentiable(fn):
    """A backward that is not itself differentiated: it runs without recording a graph."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with _tape.no_grad():
            return fn(ctx, *args)
    return wrapper
