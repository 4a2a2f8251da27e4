"""torch.distributions: Normal, Uniform, Bernoulli, Categorical and MultivariateNormal here, Laplace,
OneHotCategorical, Independent, TransformedDistribution (with transforms.py's bijections) and LogNormal
in their own modules, kl_divergence in kl.py; with torch's
parameterisations and formulas (sample, rsample where torch has it, log_prob, entropy, mean,
variance, stddev), written with webtorch ops, so they run on either device and log_prob, entropy
and rsample are differentiable. Samples come from webtorch's generator (Philox), so they are not
torch's numbers, only the same distribution.
"""
import math

from .. import _ops, linalg
from .. import nn as _nn
from .._math_ops import log1p
from .._shape_ops import flip
from .. import _random
from .._random import multinomial, rand, randn
from .._tensor import Size, Tensor
from .._dtypes import finfo
from ..autograd import no_grad
from . import utils  # noqa: F401  (torch.distributions.utils)
from .utils import broadcast_all as _as_tensors, clamp_probs as _clamp_probs

__all__ = ["Distribution", "Normal", "Uniform", "Bernoulli", "Categorical", "MultivariateNormal", "Laplace",
           "OneHotCategorical", "LogNormal", "Independent", "TransformedDistribution", "Transform",
           "ComposeTransform", "ExpTransform", "AffineTransform", "SigmoidTransform", "TanhTransform",
           "kl_divergence", "register_kl"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)




class Distribution:
    """validate_args (default True, as torch's under `python` without -O): parameters and the values
    given to log_prob are checked, one readback each, raising torch's ValueError."""
    has_rsample = False
    _validate_default = True

    @staticmethod
    def set_default_validate_args(value):
        Distribution._validate_default = bool(value)

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape, self._event_shape = Size(batch_shape), Size(event_shape)
        self._validate_args = Distribution._validate_default if validate_args is None else validate_args
        if self._validate_args:
            for name, ok in self._param_checks():
                if not bool(_ops.all(ok).item()):
                    raise ValueError(f"Expected parameter {name} of distribution {self!r} to satisfy its "
                                     f"constraint, but found invalid values:\n{getattr(self, name)}")

    def _param_checks(self):
        return []

    def _support(self, value):
        return _ops.eq(value, value)  # real: anything but NaN

    def _validate_sample(self, value):
        if self._validate_args and not bool(_ops.all(self._support(value)).item()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to "
                             f"be within the support of the distribution {self!r}, but found invalid values:\n"
                             f"{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=Size()):
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    @property
    def stddev(self):
        return _ops.sqrt(self.variance)

    def sample(self, sample_shape=Size()):
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError(f"{type(self).__name__} has no reparameterized sampling (rsample)")

    has_enumerate_support = False

    def _abstract(self, *args, **kwargs):
        """torch's base class: a subclass defines it (libraries' own distributions subclass this one)."""
        raise NotImplementedError

    log_prob = cdf = icdf = entropy = enumerate_support = _abstract

    _batch_params = ()  # the parameter tensors, of the batch shape: expand() broadcasts them

    def expand(self, batch_shape, _instance=None):
        """The distribution with its parameters broadcast (as views) to batch_shape."""
        if not self._batch_params:
            raise NotImplementedError(f"webtorch: {type(self).__name__}.expand (torch.distributions' batch "
                                      "expansion) is not implemented")
        owner = next(c for c in type(self).__mro__ if "_batch_params" in vars(c))
        new = self._get_checked_instance(owner, _instance)
        batch_shape = Size(batch_shape)
        for name in self._batch_params:
            setattr(new, name, getattr(self, name).expand(batch_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls, _instance=None):
        """The instance a subclass's expand() fills: a new one of type(self) where its __init__ is cls's."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def sample_n(self, n):
        return self.sample(Size((n,)))

    def perplexity(self):
        return _ops.exp(self.entropy())

    def __repr__(self):
        return type(self).__name__ + "()"


class _LocationScale(Distribution):
    """A real loc and a positive scale (Normal, Laplace)."""
    has_rsample = True
    _batch_params = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _as_tensors(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def _param_checks(self):
        return [("loc", _ops.eq(self.loc, self.loc)), ("scale", _ops.gt(self.scale, 0))]


class Normal(_LocationScale):
    mean = mode = property(lambda self: self.loc)
    stddev = property(lambda self: self.scale)
    variance = property(lambda self: _ops.pow(self.scale, 2))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = randn(*shape, dtype=self.loc.dtype, device=self.loc.device)
        return _ops.add(self.loc, _ops.mul(eps, self.scale))

    def log_prob(self, value):
        self._validate_sample(value)
        var = _ops.pow(self.scale, 2)
        return _ops.sub(_ops.sub(_ops.div(_ops.neg(_ops.pow(_ops.sub(value, self.loc), 2)), _ops.mul(var, 2)),
                                 _ops.log(self.scale)), _LOG_SQRT_2PI)

    def entropy(self):
        return _ops.add(_ops.log(self.scale), 0.5 + _LOG_SQRT_2PI)

    def cdf(self, value):
        return _ops.mul(_ops.add(_ops.erf(_ops.div(_ops.sub(value, self.loc), _ops.mul(self.scale, math.sqrt(2)))),
                                 1), 0.5)


class Uniform(Distribution):
    has_rsample = True
    _batch_params = ("low", "high")

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = _as_tensors(low, high)
        super().__init__(self.low.shape, validate_args=validate_args)

    def _param_checks(self):
        return [("low", _ops.lt(self.low, self.high))]

    def _support(self, value):
        return _ops.logical_and(_ops.le(self.low, value), _ops.gt(self.high, value))

    mean = property(lambda self: _ops.div(_ops.add(self.high, self.low), 2))
    variance = property(lambda self: _ops.div(_ops.pow(_ops.sub(self.high, self.low), 2), 12))

    def rsample(self, sample_shape=Size()):
        u = rand(*self._extended_shape(sample_shape), dtype=self.low.dtype, device=self.low.device)
        return _ops.add(self.low, _ops.mul(u, _ops.sub(self.high, self.low)))

    def log_prob(self, value):
        self._validate_sample(value)
        inside = _ops.cast(_ops.logical_and(_ops.le(self.low, value), _ops.gt(self.high, value)), self.low.dtype)
        return _ops.sub(_ops.log(inside), _ops.log(_ops.sub(self.high, self.low)))

    def cdf(self, value):
        return _ops.clamp(_ops.div(_ops.sub(value, self.low), _ops.sub(self.high, self.low)), 0, 1)

    def entropy(self):
        return _ops.log(_ops.sub(self.high, self.low))


class Bernoulli(Distribution):
    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.probs, = _as_tensors(probs)
            clamped = _clamp_probs(self.probs)
            self.logits = _ops.sub(_ops.log(clamped), log1p(_ops.neg(clamped)))
        else:
            self.logits, = _as_tensors(logits)
            self.probs = _ops.sigmoid(self.logits)
        self._given = "probs" if probs is not None else "logits"
        super().__init__(self.probs.shape, validate_args=validate_args)

    def _param_checks(self):
        if self._given == "probs":
            return [("probs", _ops.logical_and(_ops.ge(self.probs, 0), _ops.le(self.probs, 1)))]
        return [("logits", _ops.eq(self.logits, self.logits))]

    def _support(self, value):
        return _ops.logical_or(_ops.eq(value, 0), _ops.eq(value, 1))

    mean = property(lambda self: self.probs)
    variance = property(lambda self: _ops.mul(self.probs, _ops.sub(1, self.probs)))

    @property
    def mode(self):
        m = _ops.cast(_ops.ge(self.probs, 0.5), self.probs.dtype)
        return _ops.where(_ops.eq(self.probs, 0.5), math.nan, m)

    def sample(self, sample_shape=Size()):
        with no_grad():
            # _random's: a name bernoulli here becomes the submodule once distributions.bernoulli is imported
            return _random.bernoulli(_ops.expand(self.probs, *self._extended_shape(sample_shape)))

    def log_prob(self, value):
        self._validate_sample(value)
        logits, value = _ops.broadcast_tensors(self.logits, value)
        return _ops.neg(_nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none"))

    def entropy(self):
        return _nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


class Categorical(Distribution):
    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = _ops.div(probs, _ops.sum(probs, -1, keepdim=True))
            self.logits = _ops.log(_clamp_probs(self.probs))
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = _ops.sub(logits, _ops.logsumexp(logits, -1, keepdim=True))
            self.probs = _ops.softmax(self.logits, -1)
        self._num_events = self.probs.shape[-1]
        self._given = "probs" if probs is not None else "logits"
        super().__init__(self.probs.shape[:-1], validate_args=validate_args)

    def _param_checks(self):
        if self._given == "probs":
            return [("probs", _ops.ge(self.probs, 0)),
                    ("probs", _ops.lt(_ops.abs(_ops.sub(_ops.sum(self.probs, -1), 1)), 1e-6))]
        return [("logits", _ops.eq(self.logits, self.logits))]

    def _support(self, value):
        return _ops.logical_and(_ops.eq(value, _ops.floor(value)),
                                _ops.logical_and(_ops.ge(value, 0), _ops.lt(value, self._num_events)))

    @property
    def param_shape(self):
        return self.probs.shape

    mean = property(lambda self: _ops.full(self._extended_shape(), math.nan, dtype=self.probs.dtype,
                                           device=self.probs.device))
    variance = mean
    mode = property(lambda self: _ops.argmax(self.probs, -1))

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            probs_2d = _ops.reshape(self.probs, -1, self._num_events)
            samples_2d = multinomial(probs_2d, Size(sample_shape).numel(), True).T
            return _ops.reshape(samples_2d, shape)

    def log_prob(self, value):
        self._validate_sample(value)
        value = _long_last(value)
        value, log_pmf = _ops.broadcast_tensors(value, self.logits)
        return _ops.squeeze(_ops.contiguous(log_pmf).gather(-1, value[..., :1]), -1)

    def entropy(self):
        logits = _ops.clamp(self.logits, min=finfo(self.logits.dtype).min)
        return _ops.neg(_ops.sum(_ops.mul(logits, self.probs), -1))

    def enumerate_support(self, expand=True):
        values = _ops.arange(self._num_events, device=self.probs.device).reshape(
            (-1,) + (1,) * len(self._batch_shape))
        return _ops.expand(values, -1, *self._batch_shape) if expand else values


def _long_last(value):
    return _ops.unsqueeze(value.long(), -1)


class MultivariateNormal(Distribution):
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if scale_tril is not None:
            matrix = scale_tril
        elif covariance_matrix is not None:
            matrix = covariance_matrix
        else:
            matrix = precision_matrix
        if matrix.dim() < 2:
            raise ValueError("matrix must be at least two-dimensional, with optional leading batch dimensions")
        batch = _ops.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        n = loc.shape[-1]
        self.loc = _ops.expand(loc, *batch, n)
        matrix = _ops.expand(matrix, *batch, n, n)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:  # L of P⁻¹ from the Cholesky factor of P (torch's _precision_to_scale_tril)
            lf = linalg.cholesky(flip(precision_matrix, (-2, -1)))
            l_inv = flip(lf, (-2, -1)).mT
            eye = _ops.eye(n, dtype=loc.dtype, device=loc.device)
            self._unbroadcasted_scale_tril = linalg.solve_triangular(l_inv, eye, upper=False)
        super().__init__(batch, (n,), validate_args=validate_args)

    def _support(self, value):
        return _ops.all(_ops.eq(value, value), -1)

    @property
    def scale_tril(self):
        return _ops.expand(self._unbroadcasted_scale_tril, *self._batch_shape, *self._event_shape,
                           *self._event_shape)

    @property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return _ops.expand(_ops.matmul(L, L.mT), *self._batch_shape, *self._event_shape, *self._event_shape)

    mean = mode = property(lambda self: self.loc)

    @property
    def variance(self):
        return _ops.expand(_ops.sum(_ops.pow(self._unbroadcasted_scale_tril, 2), -1),
                           *self._batch_shape, *self._event_shape)

    def rsample(self, sample_shape=Size()):
        eps = randn(*self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return _ops.add(self.loc, _ops.squeeze(_ops.matmul(self._unbroadcasted_scale_tril, _ops.unsqueeze(eps, -1)),
                                               -1))

    def _half_log_det(self):
        return _ops.sum(_ops.log(self._unbroadcasted_scale_tril.diagonal(0, -2, -1)), -1)

    def log_prob(self, value):
        self._validate_sample(value)
        diff = _ops.sub(value, self.loc)
        L = self._unbroadcasted_scale_tril
        z = linalg.solve_triangular(L, _ops.unsqueeze(diff, -1), upper=False)
        m = _ops.sum(_ops.pow(_ops.squeeze(z, -1), 2), -1)
        n = self._event_shape[0]
        return _ops.sub(_ops.mul(_ops.add(m, n * math.log(2 * math.pi)), -0.5), self._half_log_det())

    def entropy(self):
        n = self._event_shape[0]
        h = _ops.add(self._half_log_det(), 0.5 * n * (1.0 + math.log(2 * math.pi)))
        return _ops.expand(h, *self._batch_shape) if self._batch_shape else h
from . import constraints  # noqa: E402,F401  (torch.distributions.constraints)
from .. import _refusals  # noqa: E402

_NOT_BUILT = "a distribution not built yet: webtorch has Normal, Uniform, Bernoulli, Categorical, " \
             "MultivariateNormal, Laplace, OneHotCategorical, LogNormal, Independent and TransformedDistribution"
_REFUSED = ("Beta", "Gamma", "Geometric", "RelaxedBernoulli", "RelaxedOneHotCategorical", "Wishart", "Binomial",
            "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet", "Exponential", "ExponentialFamily",
            "FisherSnedecor", "GeneralizedPareto", "Gumbel", "HalfCauchy", "HalfNormal", "InverseGamma",
            "Kumaraswamy", "LKJCholesky", "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily",
            "Multinomial", "NegativeBinomial", "OneHotCategoricalStraightThrough", "Pareto", "Poisson", "StudentT",
            "VonMises", "Weibull", "AbsTransform", "CatTransform", "CorrCholeskyTransform",
            "CumulativeDistributionTransform", "IndependentTransform", "LowerCholeskyTransform",
            "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SoftmaxTransform",
            "SoftplusTransform", "StackTransform", "StickBreakingTransform", "biject_to", "transform_to")
globals().update({name: _refusals.stand_in(f"distributions.{name}", _NOT_BUILT) for name in _REFUSED})
from . import transforms  # noqa: E402
from .transforms import (AffineTransform, ComposeTransform, ExpTransform, SigmoidTransform,  # noqa: E402,F401
                         TanhTransform, Transform, identity_transform)
from .independent import Independent  # noqa: E402
from .laplace import Laplace  # noqa: E402
from .one_hot_categorical import OneHotCategorical  # noqa: E402
from .transformed_distribution import LogNormal, TransformedDistribution  # noqa: E402
from .kl import kl_divergence, register_kl  # noqa: E402
from . import bernoulli, categorical, gamma, multivariate_normal, normal, relaxed_bernoulli, uniform, wishart  # noqa: E402,F401
from . import kl, independent, laplace, one_hot_categorical, transformed_distribution  # noqa: E402,F401
