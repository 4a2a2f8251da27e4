"""torch.nn.utils.parametrizations: weight_norm."""
from ... import _ops as F
from ..._math_ops import vector_norm
from ..module import Module
from . import parametrize

__all__ = ["weight_norm"]


def _norm_except_dim(v, dim):
    """The 2-norm of v over every dim but `dim` (kept with size 1), or over all of v (dim None)."""
    if dim is None:
        return vector_norm(v)
    dims = [d for d in range(v.dim()) if d != dim % v.dim()]
    return vector_norm(v, 2, dims, True)


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, None if self.dim == -1 else self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, None if self.dim == -1 else self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """weight = g * v / ||v|| with g (original0) and v (original1) the trained parameters."""
    return parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
