"""torch.special: the special functions under their scipy-style names."""
import math

from ._math_ops import _i1 as i1, digamma, erfc, erfinv, i0, lgamma, log1p, logit, sinc, xlogy, expm1, exp2  # noqa: F401
from ._ops import erf, logsumexp, sigmoid as expit, softmax, log_softmax  # noqa: F401

psi = digamma
gammaln = lgamma


# -- the Hurwitz zeta function and what is built on it (cephes' zeta, as torch's kernels) ----------------------
from . import _dtypes as _dt, _inplace as _inplace_forms, _ops, _tape  # noqa: E402
from ._tensor import Tensor as _Tensor  # noqa: E402

# (2j)! / B_2j for j = 1..12: the Euler-Maclaurin correction terms of cephes' zeta
_EULER_MACLAURIN = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
                    -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
                    1.8152105401943546773e17, -7.1661652561756670113e18)


def _floating(x, like):
    if _ops._is_tensor(x):
        return x if x.dtype.is_floating_point else _ops.cast(x, _dt.default_float)
    return _ops.full((), float(x), dtype=like.dtype if like.dtype.is_floating_point else _dt.default_float,
                     device=like.device)


def zeta(input, other):
    """The Hurwitz zeta function ζ(x, q) = Σ_k (q + k)^-x: the first terms summed until q + k passes 9 (the
    count read from q's smallest value), then the Euler-Maclaurin tail. inf at x = 1 and at q a non-positive
    integer, NaN for x < 1 and for q < 0 with a non-integer x (cephes' domain, as torch's)."""
    if not (_ops._is_tensor(input) or _ops._is_tensor(other)):
        raise TypeError("zeta() received an invalid combination of arguments - got (number, number)")
    x = _floating(input, other if _ops._is_tensor(other) else input)
    q = _floating(other, x)
    kind = _dt.result_type(x, q)
    x, q = _ops.cast(x, kind), _ops.cast(q, kind)
    with _tape.no_grad():
        out = _zeta(x, q)
    return _tape.record("zeta", out, (x, q))


def _zeta(x, q):
    finite = q[_ops.isfinite(q)] if q.numel() else q
    lowest = float(_ops.min(finite)) if finite.numel() else 0.0
    count = max(9, int(math.ceil(9.0 - lowest)) + 1) if math.isfinite(lowest) else 9
    total = 0
    for k in range(count):
        total = _ops.add(total, _ops.pow(_ops.add(q, k), _ops.neg(x)))
    w = _ops.add(q, count)
    b = _ops.pow(w, _ops.neg(x))
    total = _ops.add(total, b)  # the last term summed is the first of the tail's (trapezoid: - b/2 below)
    total = _ops.add(total, _ops.sub(_ops.div(_ops.mul(b, w), _ops.sub(x, 1)), _ops.mul(b, 0.5)))
    term, k = b, 0.0
    for a in _EULER_MACLAURIN:  # term: x(x+1)...(x+2j-2) w^(-x-2j+1), grown one factor at a time
        term = _ops.div(_ops.mul(term, _ops.add(x, k)), w)
        total = _ops.add(total, _ops.div(term, a))
        term = _ops.div(_ops.mul(term, _ops.add(x, k + 1)), w)
        k += 2
    non_positive_integer = _ops.logical_and(_ops.le(q, 0), _ops.eq(q, _ops.floor(q)))
    undefined = _ops.logical_or(_ops.lt(x, 1), _ops.logical_and(_ops.lt(q, 0), _ops.ne(x, _ops.floor(x))))
    total = _ops.where(_ops.logical_or(_ops.eq(x, 1), non_positive_integer), math.inf, total)
    return _ops.where(undefined, math.nan, total)


def polygamma(n, input):
    """ψ⁽ⁿ⁾(x): digamma for n = 0, else (-1)^(n+1) n! ζ(n + 1, x)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return digamma(input)
    return _ops.mul(zeta(float(n + 1), input), (-1) ** (n + 1) * math.factorial(n))


def multigammaln(input, p):
    """log Γ_p(x) = p(p-1)/4 log π + Σ_{i<p} lgamma(x - i/2)."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = _floating(input, input)
    total = p * (p - 1) / 4 * math.log(math.pi)
    for i in range(p):
        total = _ops.add(lgamma(_ops.sub(x, i / 2)), total)
    return total


def _flipped(fn):
    """fn(input, n) for the in-place wrapper, which passes self first."""
    def method(self, n):
        return fn(n, self)
    method.__name__ = fn.__name__
    return method


_Tensor.polygamma, _Tensor.mvlgamma = _flipped(polygamma), multigammaln
_Tensor.polygamma_ = _inplace_forms._inplace(_flipped(polygamma))
_Tensor.mvlgamma_ = _inplace_forms._inplace(multigammaln)
_Tensor.mvlgamma_.__name__ = "mvlgamma_"
