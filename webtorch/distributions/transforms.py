"""torch.distributions.transforms: the bijections TransformedDistribution pushes a base distribution
through (exp, affine, sigmoid, tanh, and their compositions), each with torch's inverse,
log|det J| and caching (cache_size=1 returns the x that produced y, so tanh's inverse is exact for
a sample, as torch's)."""
import math

from .. import _ops
from ..nn import functional as F
from . import constraints
from .utils import _sum_rightmost

__all__ = ["Transform", "ComposeTransform", "ExpTransform", "AffineTransform", "SigmoidTransform",
           "TanhTransform", "identity_transform"]


class Transform:
    """y = f(x) with inverse and log|df/dx|; elementwise unless event_dim says otherwise."""
    bijective = True
    sign = 1
    domain = codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y = None, None

    @property
    def event_dim(self):
        return self.domain.event_dim

    @property
    def inv(self):
        return _InverseTransform(self)

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else type(self)(cache_size=cache_size)

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform
        self.domain, self.codomain = transform.codomain, transform.domain

    @property
    def inv(self):
        return self._inv

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)


class ComposeTransform(Transform):
    def __init__(self, parts, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.parts = [part.with_cache(cache_size) if cache_size else part for part in parts]

    @property
    def event_dim(self):
        return max((part.event_dim for part in self.parts), default=0)

    @property
    def inv(self):
        return ComposeTransform([part.inv for part in reversed(self.parts)])

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return _ops.zeros_like(x)
        terms = []
        for part in self.parts:
            y_part = part(x)
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(x, y_part), self.event_dim - part.event_dim))
            x = y_part
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total


class ExpTransform(Transform):
    codomain = constraints.positive

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class SigmoidTransform(Transform):
    codomain = constraints.unit_interval

    def _call(self, x):
        return x.sigmoid()

    def _inverse(self, y):
        return y.logit()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(Transform):
    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2), written stably as torch's: 2 (log 2 - x - softplus(-2x))
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AffineTransform(Transform):
    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self):
        return self._event_dim

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else AffineTransform(self.loc, self.scale, self._event_dim,
                                                                           cache_size)

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        scale = self.scale
        result = scale.abs().log() if hasattr(scale, "abs") else _ops.full_like(x, math.log(abs(scale)))
        result = _ops.expand(result, *x.shape) if tuple(result.shape) != tuple(x.shape) else result
        return _sum_rightmost(result, self._event_dim)


identity_transform = ComposeTransform([])
