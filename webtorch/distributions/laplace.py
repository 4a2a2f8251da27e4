"""torch.distributions.Laplace: loc and scale, torch's formulas (rsample by the inverse cdf of a
uniform draw in (-1, 1), as torch's)."""
import math

from .._random import rand
from .._tensor import Size
from .._dtypes import finfo
from . import _LocationScale

__all__ = ["Laplace"]


class Laplace(_LocationScale):
    mean = mode = property(lambda self: self.loc)
    variance = property(lambda self: 2 * self.scale.pow(2))
    stddev = property(lambda self: math.sqrt(2) * self.scale)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = finfo(self.loc.dtype).eps
        u = rand(*shape, dtype=self.loc.dtype, device=self.loc.device) * (2 - 2 * eps) - (1 - eps)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        return 0.5 - 0.5 * (value - self.loc).sign() * (-(value - self.loc).abs() / self.scale).expm1()

    def entropy(self):
        return 1 + (2 * self.scale).log()
