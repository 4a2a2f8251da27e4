"""torch.distributions.utils: the helpers distributions (webtorch's, and libraries' own: zuko) are written
with: broadcasting parameters, probabilities <-> logits, lazily computed properties, and lower triangles as
vectors."""
import functools

from .. import _ops
from .._dtypes import finfo, get_default_dtype
from .._math_ops import log1p
from .._tensor import Size, Tensor
from ..autograd import enable_grad
from ..nn import functional as F

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix", "euler_constant"]

euler_constant = 0.57721566490153286060  # Euler Mascheroni constant


def broadcast_all(*values):
    """The values broadcast together; numbers become tensors of the first tensor's dtype and device (the
    default dtype where there is none)."""
    if not all(isinstance(v, (Tensor, int, float, complex)) or hasattr(v, "__torch_function__") for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects implementing "
                         "__torch_function__.")
    ref = next((v for v in values if isinstance(v, Tensor)), None)
    options = dict(dtype=ref.dtype, device=ref.device) if ref is not None else dict(dtype=get_default_dtype())
    return _ops.broadcast_tensors(*[v if isinstance(v, Tensor) else _ops.tensor(v, **options) for v in values])


def _standard_normal(shape, dtype, device):
    return _ops.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """value summed over its dim rightmost dims."""
    return value.reshape(value.shape[:value.dim() - dim] + (-1,)).sum(-1) if dim > 0 else value


def logits_to_probs(logits, is_binary=False):
    return _ops.sigmoid(logits) if is_binary else F.softmax(logits, dim=-1)


def clamp_probs(probs):
    eps = finfo(probs.dtype).eps
    return _ops.clamp(probs, min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    clamped = clamp_probs(probs)
    return _ops.log(clamped) - log1p(-clamped) if is_binary else _ops.log(clamped)


class lazy_property:
    """A property computed (with grad enabled) at its first read, then stored on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n, diag, device):
    arange = _ops.arange(n, device=device)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag, mat.device)]


def vec_to_tril_matrix(vec, diag=0):
    # the positive root of D**2 + (1 + 2 diag) D - |diag| (diag + 1) - 2 vec.shape[-1] = 0
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as the lower "
                         "triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + Size((n, n)))
    mat[..., _tril_mask(n, diag, vec.device)] = vec
    return mat
