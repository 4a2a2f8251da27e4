"""torch.special: the special functions under their scipy-style names."""
from ._math_ops import _i1 as i1, digamma, erfc, erfinv, i0, lgamma, log1p, logit, sinc, xlogy, expm1, exp2  # noqa: F401
from ._ops import erf, logsumexp, sigmoid as expit, softmax, log_softmax  # noqa: F401

psi = digamma
gammaln = lgamma
