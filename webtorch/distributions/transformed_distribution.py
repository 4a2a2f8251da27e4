"""torch.distributions.TransformedDistribution (a base distribution pushed through transforms: the
tanh-squashed Gaussian of SAC-style policies) and LogNormal, torch's exp of a Normal."""
from .._tensor import Size
from . import Distribution, Normal
from .transforms import ComposeTransform, ExpTransform, Transform, _sum_rightmost

__all__ = ["TransformedDistribution", "LogNormal"]


class TransformedDistribution(Distribution):
    """log_prob(y) = base.log_prob(x) - sum log|det J(x)| along the inverse chain, as torch's."""

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        elif not (isinstance(transforms, list) and all(isinstance(t, Transform) for t in transforms)):
            raise ValueError(f"transforms must be a Transform or a list of Transforms, but was {transforms}")
        self.base_dist, self.transforms = base_distribution, transforms
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = max([len(base_distribution.event_shape)] + [t.event_dim for t in transforms])
        cut = len(shape) - event_dim
        super().__init__(Size(shape[:cut]), Size(shape[cut:]), validate_args=False)
        self._validate_args = base_distribution._validate_args if validate_args is None else validate_args

    has_rsample = property(lambda self: self.base_dist.has_rsample)

    def sample(self, sample_shape=Size()):
        x = self.base_dist.sample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def rsample(self, sample_shape=Size()):
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value):
        event_dim = len(self.event_shape)
        log_prob = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            log_prob = log_prob - _sum_rightmost(transform.log_abs_det_jacobian(x, y), event_dim - transform.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))

    def cdf(self, value):
        for transform in reversed(self.transforms):
            value = transform.inv(value)
        value = self.base_dist.cdf(value)
        sign = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        return value if sign == 1 else 1 - value


class LogNormal(TransformedDistribution):
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(), validate_args=validate_args)

    loc = property(lambda self: self.base_dist.loc)
    scale = property(lambda self: self.base_dist.scale)
    mean = property(lambda self: (self.loc + self.scale.pow(2) / 2).exp())
    mode = property(lambda self: (self.loc - self.scale.pow(2)).exp())
    variance = property(lambda self: self.scale.pow(2).expm1() * (2 * self.loc + self.scale.pow(2)).exp())

    def entropy(self):
        return self.base_dist.entropy() + self.loc
