"""torch.distributions.OneHotCategorical: a Categorical whose values are one-hot vectors."""
from .. import _ops
from ..nn import functional as F
from .._tensor import Size
from . import Categorical, Distribution

__all__ = ["OneHotCategorical"]


class OneHotCategorical(Distribution):
    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:], validate_args=False)
        self._validate_args = self._categorical._validate_args

    probs = property(lambda self: self._categorical.probs)
    logits = property(lambda self: self._categorical.logits)
    param_shape = property(lambda self: self._categorical.param_shape)
    mean = property(lambda self: self._categorical.probs)
    variance = property(lambda self: self.probs * (1 - self.probs))

    @property
    def mode(self):
        return F.one_hot(self._categorical.mode, self._event_shape[0]).to(self.probs.dtype)

    def sample(self, sample_shape=Size()):
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, self._event_shape[0]).to(self.probs.dtype)

    def log_prob(self, value):
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self._event_shape[0]
        values = _ops.eye(n, dtype=self.probs.dtype, device=self.probs.device).reshape(
            (n,) + (1,) * len(self._batch_shape) + (n,))
        return _ops.expand(values, n, *self._batch_shape, n) if expand else values
