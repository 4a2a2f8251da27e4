"""torch.nn.utils.parametrizations: weight_norm and spectral_norm as parametrizations (parametrize.py)."""
from ... import _ops as F
from ..._math_ops import vector_norm
from ...autograd import no_grad
from .. import functional
from ..module import Module
from . import parametrize

__all__ = ["weight_norm", "spectral_norm", "orthogonal"]


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


def _as_matrix(weight, dim):
    """weight with `dim` first, flattened to rows: spectral norm's matrix."""
    if dim != 0:
        weight = weight.permute(dim, *[d for d in range(weight.dim()) if d != dim])
    return weight.reshape(weight.shape[0], -1)


def _power_iterations(matrix, u, v, n, eps, v_first):
    """n steps of the power method on matrix's largest singular vectors, written into u and v in place
    (torch's order: the parametrization updates u then v, the old hook v then u)."""
    with no_grad():
        for _ in range(n):
            if v_first:
                F._copy_into(v, functional.normalize(F.mv(matrix.t(), u), dim=0, eps=eps))
            F._copy_into(u, functional.normalize(F.mv(matrix, v), dim=0, eps=eps))
            if not v_first:
                F._copy_into(v, functional.normalize(F.mv(matrix.t(), u), dim=0, eps=eps))


def _spectral_dim(module, dim):
    from ..layers import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
    return dim if dim is not None else 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) \
        else 0


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim, self.eps = dim % ndim, eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            matrix = _as_matrix(weight, self.dim)
            h, w = matrix.shape
            u = F.empty(h, dtype=matrix.dtype, device=matrix.device).normal_(0, 1)
            v = F.empty(w, dtype=matrix.dtype, device=matrix.device).normal_(0, 1)
            self.register_buffer("_u", functional.normalize(u, dim=0, eps=eps))
            self.register_buffer("_v", functional.normalize(v, dim=0, eps=eps))
            _power_iterations(matrix.detach(), self._u, self._v, 15, eps, v_first=False)

    def forward(self, weight):
        if weight.dim() == 1:
            return functional.normalize(weight, dim=0, eps=self.eps)
        matrix = _as_matrix(weight, self.dim)
        if self.training:
            _power_iterations(matrix.detach(), self._u, self._v, self.n_power_iterations, self.eps, v_first=False)
        sigma = F.dot(self._u.clone(), F.mv(matrix, self._v.clone()))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """weight / sigma, sigma its largest singular value estimated by power iterations (one per training call)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, F.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, _spectral_dim(module, dim), eps))
    return module


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    raise NotImplementedError("webtorch has no torch.nn.utils.parametrizations.orthogonal (it needs "
                              "linalg.matrix_exp and linalg.householder_product, not built yet)")
