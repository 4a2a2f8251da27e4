"""torch.special: the special functions under their scipy-style names."""
import math

from ._math_ops import _i1 as i1, digamma, erfc, erfinv, i0, lgamma, log1p, logit, sinc, xlogy, xlog1py, expm1, exp2  # noqa: F401,E501
from ._ops import erf, logsumexp, sigmoid as expit, softmax, log_softmax  # noqa: F401

psi = digamma
gammaln = lgamma


def ndtr(input):
    """The standard normal distribution's CDF, (1 + erf(x / sqrt 2)) / 2 = erfc(-x / sqrt 2) / 2."""
    if not input.dtype.is_floating_point:
        input = _ops.cast(input, _dt.default_float)
    return erfc(input * -math.sqrt(0.5)) * 0.5


# -- the Hurwitz zeta function and what is built on it (cephes' zeta, as torch's kernels) ----------------------
from . import _dtypes as _dt, _inplace as _inplace_forms, _ops, _tape  # noqa: E402
from ._tensor import _TYPE_NAMES, Tensor as _Tensor  # noqa: E402
from ._tensor_args import require_tensors as _require_tensors  # noqa: E402

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


_ZETA_IN_ORDER = 64   # terms of the direct sum added one at a time (q > -55: all of them, as cephes)
_ZETA_BLOCK = 1 << 20  # beyond, terms computed at once (a (..., k) tensor): no launch per term


def _zeta(x, q):
    non_positive_integer = _ops.logical_and(_ops.le(q, 0), _ops.eq(q, _ops.floor(q)))
    undefined = _ops.logical_or(_ops.lt(x, 1), _ops.logical_and(_ops.lt(q, 0), _ops.ne(x, _ops.floor(x))))
    # the count from the q whose value is computed: a pole (q = -3e38 is an integer) or NaN needs none
    computed = _ops.logical_not(_ops.logical_or(_ops.logical_or(non_positive_integer, undefined),
                                                _ops.logical_not(_ops.isfinite(_ops.add(q, x)))))
    computed = _ops.broadcast_to(computed, _ops.broadcast_shapes(q.shape, x.shape))
    lowest = float(_ops.min(_ops.broadcast_to(q, computed.shape)[computed])) if bool(_ops.any(computed)) else 0.0
    count = max(9, int(math.ceil(9.0 - lowest)) + 1)
    total = 0
    for k in range(min(count, _ZETA_IN_ORDER)):  # the first terms in order: the large ones cancel exactly first
        total = _ops.add(total, _ops.pow(_ops.add(q, k), _ops.neg(x)))
    q_k, minus_x = _ops.unsqueeze(q, -1), _ops.neg(_ops.unsqueeze(x, -1))
    block = max(1, _ZETA_BLOCK // max(computed.numel(), 1))
    for start in range(_ZETA_IN_ORDER, count, block):  # the rest of Σ_{k < count} (q + k)^-x, a block at a time
        k = _ops.arange(start, min(count, start + block), dtype=q.dtype, device=q.device)
        total = _ops.add(total, _ops.sum(_ops.pow(_ops.add(q_k, k), minus_x), -1))
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
    # cephes' order: x < 1 is NaN, then x = 1 or a pole inf, then a negative q with a non-integer x NaN
    total = _ops.where(_ops.logical_and(_ops.lt(q, 0), _ops.ne(x, _ops.floor(x))), math.nan, total)
    total = _ops.where(_ops.logical_or(_ops.eq(x, 1), non_positive_integer), math.inf, total)
    return _ops.where(_ops.lt(x, 1), math.nan, total)


def polygamma(n, input):
    """ψ⁽ⁿ⁾(x): digamma for n = 0, else (-1)^(n+1) n! ζ(n + 1, x)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return digamma(input)
    out = _ops.mul(zeta(float(n + 1), input), (-1) ** (n + 1) * math.factorial(n))
    if n == 1:  # torch's trigamma kernel, not its zeta: 0 at inf (ζ's NaN), NaN at -inf (a pole's inf)
        out = _ops.where(_ops.eq(input, math.inf), 0.0, _ops.where(_ops.eq(input, -math.inf), math.nan, out))
    return out


def multigammaln(input, p):
    """log Γ_p(x) = p(p-1)/4 log π + Σ_{i<p} lgamma(x - i/2)."""
    if input.dtype is _dt.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
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


# -- the regularised incomplete gamma functions (cephes' igam / igamc, as torch's kernels) ---------------------
_ROUNDS = 16       # iterations between convergence checks (one readback each)
_MOST_ITERATIONS = 4096
_RESCALE = 2.0 ** 32  # the continued fraction's numerators and denominators grow together: divided by it past it


def _iterate(step, state, converged):
    """Runs state = step(state) until converged(state) holds everywhere (checked every _ROUNDS steps)."""
    for _ in range(_MOST_ITERATIONS // _ROUNDS):
        for _ in range(_ROUNDS):
            state = step(state)
        if bool(_ops.all(converged(state))):
            return state
    raise NotImplementedError("webtorch: the incomplete gamma function did not converge in "
                              f"{_MOST_ITERATIONS} terms (a of that size needs torch's asymptotic series)")


def _lower_series(a, x, ax):
    """P(a, x) = x^a e^-x / Γ(a+1) Σ_n x^n / ((a+1)...(a+n)), for x < a + 1 (or x <= 1)."""
    eps = _dt.finfo(a.dtype).eps

    def step(state):
        r, c, total = state
        r = _ops.add(r, 1)
        c = _ops.mul(c, _ops.div(x, r))
        return r, c, _ops.add(total, c)
    _, _, total = _iterate(step, (a, _ops.ones_like(a), _ops.ones_like(a)),
                           lambda s: _ops.logical_not(_ops.gt(_ops.abs(s[1]), _ops.mul(_ops.abs(s[2]), eps))))
    return _ops.div(_ops.mul(total, ax), a)


def _upper_fraction(a, x, ax):
    """Q(a, x) by its continued fraction (Legendre's), for x > a + 1 and x > 1."""
    eps = _dt.finfo(a.dtype).eps
    y, z = _ops.sub(1, a), _ops.add(_ops.sub(x, a), 2)
    p2, q2, p1, q1 = _ops.ones_like(x), x, _ops.add(x, 1), _ops.mul(z, x)
    state = (0, y, z, p2, q2, p1, q1, _ops.div(p1, q1), _ops.ones_like(x))

    def step(s):
        c, y, z, p2, q2, p1, q1, ans, _ = s
        c, y, z = c + 1, _ops.add(y, 1), _ops.add(z, 2)
        yc = _ops.mul(y, c)
        pk, qk = _ops.sub(_ops.mul(p1, z), _ops.mul(p2, yc)), _ops.sub(_ops.mul(q1, z), _ops.mul(q2, yc))
        nonzero = _ops.ne(qk, 0)
        r = _ops.div(pk, _ops.where(nonzero, qk, 1.0))
        t = _ops.where(nonzero, _ops.abs(_ops.div(_ops.sub(ans, r), r)), 1.0)
        ans = _ops.where(nonzero, r, ans)
        big = _ops.gt(_ops.abs(pk), _RESCALE)
        p2, p1, q2, q1 = (_ops.where(big, _ops.div(v, _RESCALE), v) for v in (p1, pk, q1, qk))
        return c, y, z, p2, q2, p1, q1, ans, t
    state = _iterate(step, state, lambda s: _ops.logical_not(_ops.gt(s[8], eps)))
    return _ops.mul(state[7], ax)


_STIRLING_FROM = 10.0  # Stirling's series for log Γ(a), to 1/a^5, is within 1e-12 from here on
_LOG1PMX_TERMS = 26   # log(1 + t) - t's power series to t^26: 0.4^25 / 26 ~ 4e-12 of its t^2 / 2


def _log_power_over_gamma(a, x):
    """log(x^a e^-x / Γ(a)). Directly, a log x and log Γ(a) cancel where x is near a large a (each 6.8e4 at
    a = 7585, where float32 keeps their difference to 4e-3: P(a, x) ~ 0.52 came out 0.5184 for 0.5164);
    there, for |x - a| <= 0.4 a (torch's _igam_helper_fac switches to its Lanczos form there), Stirling's
    a (log(1 + t) - t) + log(a / 2π) / 2 - (1/(12 a) - 1/(360 a^3) + 1/(1260 a^5)) with t = (x - a) / a and
    log(1 + t) - t by its power series, which keeps its relative accuracy near t = 0."""
    direct = _ops.sub(_ops.sub(_ops.mul(a, _ops.log(x)), x), lgamma(a))
    near = _ops.logical_and(_ops.ge(a, _STIRLING_FROM), _ops.le(_ops.abs(_ops.sub(x, a)), _ops.mul(a, 0.4)))
    a = _ops.where(near, a, _STIRLING_FROM)
    t = _ops.where(near, _ops.div(_ops.sub(x, a), a), 0.0)
    series = _ops.zeros_like(t)
    for n in range(_LOG1PMX_TERMS, 1, -1):  # Σ_{n>=2} (-1)^(n+1) t^n / n by Horner's rule in t, times t^2
        series = _ops.add(_ops.mul(series, t), (-1.0) ** (n + 1) / n)
    inv = _ops.reciprocal(a)
    inv2 = _ops.mul(inv, inv)
    correction = _ops.mul(inv, _ops.add(1 / 12, _ops.mul(inv2, _ops.add(-1 / 360, _ops.mul(inv2, 1 / 1260)))))
    stirling = _ops.sub(_ops.add(_ops.mul(a, _ops.mul(series, _ops.mul(t, t))),
                                 _ops.mul(_ops.sub(_ops.log(a), math.log(2 * math.pi)), 0.5)), correction)
    return _ops.where(near, stirling, direct)


def _incomplete_gamma(a, x, upper):
    kind = _dt.result_type(a, x)
    if not kind.is_floating_point:
        raise NotImplementedError(f"\"igamma{'c' if upper else ''}_cpu\" not implemented for "
                                  f"'{_TYPE_NAMES[kind.name]}'")
    a, x = _ops.broadcast_tensors(_ops.cast(a, kind), _ops.cast(x, kind))
    with _tape.no_grad():
        regular = _ops.logical_and(_ops.logical_and(_ops.gt(a, 0), _ops.gt(x, 0)), _ops.isfinite(_ops.add(a, x)))
        a_, x_ = _ops.where(regular, a, 1.0), _ops.where(regular, x, 1.0)
        ax = _ops.exp(_log_power_over_gamma(a_, x_))
        by_fraction = _ops.logical_and(_ops.gt(x_, 1), _ops.gt(x_, a_))
        lower = _lower_series(_ops.where(by_fraction, 1.0, a_), _ops.where(by_fraction, 0.5, x_), ax)
        upper_ = _upper_fraction(_ops.where(by_fraction, a_, 1.0), _ops.where(by_fraction, x_, 2.0), ax)
        # a factor x^a e^-x / Γ(a) that underflows makes either 0, however its sum or fraction overflowed (x = 1e30)
        vanishing = _ops.eq(ax, 0)
        lower, upper_ = _ops.where(vanishing, 0.0, lower), _ops.where(vanishing, 0.0, upper_)
        value = _ops.where(by_fraction, upper_, _ops.sub(1, lower)) if upper else \
            _ops.where(by_fraction, _ops.sub(1, upper_), lower)
        # the edges, in cephes' (torch's) order: P(0, x > 0) = 1, P(a > 0 or NaN, 0) = 0, P(inf, inf) = NaN,
        # P(inf, x >= 0 finite or NaN) = 0, P(a >= 0 finite or NaN, inf) = 1
        a_not_negative = _ops.logical_not(_ops.lt(a, 0))  # NaN passes cephes' a < 0 test
        one_at = _ops.logical_or(_ops.logical_and(_ops.eq(a, 0), _ops.gt(x, 0)),
                                 _ops.logical_and(_ops.logical_and(_ops.eq(x, math.inf), a_not_negative),
                                                  _ops.ne(a, math.inf)))
        zero_at = _ops.logical_or(_ops.logical_and(_ops.logical_and(a_not_negative, _ops.ne(a, 0)), _ops.eq(x, 0)),
                                  _ops.logical_and(_ops.eq(a, math.inf),
                                                   _ops.logical_not(_ops.logical_or(_ops.lt(x, 0), _ops.eq(x, math.inf)))))
        p_edge = _ops.where(one_at, 1.0, _ops.where(zero_at, 0.0, math.nan))
        edge = _ops.where(one_at | zero_at, _ops.sub(1, p_edge) if upper else p_edge, math.nan)
        out = _ops.where(regular, value, edge)
    return _tape.record("igammac" if upper else "igamma", out, (a, x))


def gammainc(input, other):
    """P(a, x), the regularised lower incomplete gamma function."""
    return _incomplete_gamma(input, other, False)


def gammaincc(input, other):
    """Q(a, x) = 1 - P(a, x), computed directly where it is small (the continued fraction)."""
    return _incomplete_gamma(input, other, True)


# torch has no Scalar overload of either (torch.igamma(t, 2) is a TypeError; the names torch.igamma and
# Tensor.igamma are checked by webtorch._tensor_args's table)
gammainc = _require_tensors(gammainc, "special_gammainc", "TT")
gammaincc = _require_tensors(gammaincc, "special_gammaincc", "TT")
xlog1py = _require_tensors(xlog1py, "special_xlog1py", "nn")  # a Scalar overload for either, not both

_Tensor.igamma, _Tensor.igammac = gammainc, gammaincc
_Tensor.igamma_, _Tensor.igammac_ = _inplace_forms._inplace(gammainc), _inplace_forms._inplace(gammaincc)
_Tensor.igamma_.__name__, _Tensor.igammac_.__name__ = "igamma_", "igammac_"


# -- the Bessel, Airy and normal-distribution functions (_cephes) and the orthogonal polynomials ------------------
from . import _cephes  # noqa: E402
from ._orthogonal_polynomials import (  # noqa: E402,F401
    chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v, chebyshev_polynomial_w,
    hermite_polynomial_h, hermite_polynomial_he, laguerre_polynomial_l, legendre_polynomial_p,
    shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u, shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w)


_X_ONLY = {"airy_ai", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0"}  # torch's
# name for their argument; the others take input= and x= alike


def _input_or_x(name, input, x):
    if (input is None) == (x is None):
        raise TypeError(f"special_{name}() takes one argument, input (or x)")
    return x if input is None else input


def _elementwise_special(name, compute, halves=False):
    """torch.special.<name>(input): integers and bools computed in the default float dtype; float16 and
    bfloat16 through float32 where torch's kernel takes them (`halves`), refused as torch's otherwise (and
    complex, which no such kernel takes).
    Recorded as "special_<name>": the functions with a row in autograd.BACKWARD have gradients, the others
    return a tensor that requires none, as torch's."""
    def run(input):
        x = input if input.dtype.is_floating_point or input.dtype.is_complex else _ops.cast(input, _dt.default_float)
        if x.dtype in (_dt.float16, _dt.bfloat16) and halves:
            with _tape.no_grad():
                out = _ops.cast(compute(_ops.cast(x, _dt.float32)), x.dtype)
        elif x.dtype in (_dt.float32, _dt.float64):
            with _tape.no_grad():
                out = compute(x)
        else:
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_TYPE_NAMES[x.dtype.name]}'")
        return _tape.record("special_" + name, out, (x,))

    if name in _X_ONLY:
        def fn(x):
            return run(x)
    else:
        def fn(input=None, *, x=None):
            return run(_input_or_x(name, input, x))
    fn.__name__ = name
    return _require_tensors(fn, "special_" + name, "T")


for _name in ("airy_ai bessel_j0 bessel_j1 bessel_y0 bessel_y1 modified_bessel_i0 modified_bessel_i1 "
              "modified_bessel_k0 modified_bessel_k1 scaled_modified_bessel_k0 scaled_modified_bessel_k1 "
              "spherical_bessel_j0 erfcx log_ndtr ndtri").split():
    globals()[_name] = _elementwise_special(_name, getattr(_cephes, _name))
entr, i0e, i1e = (_elementwise_special(_name, getattr(_cephes, _name), halves=True) for _name in ("entr", "i0e", "i1e"))
for _name in ("chebyshev_polynomial_t chebyshev_polynomial_u chebyshev_polynomial_v chebyshev_polynomial_w "
              "hermite_polynomial_h hermite_polynomial_he laguerre_polynomial_l legendre_polynomial_p "
              "shifted_chebyshev_polynomial_t shifted_chebyshev_polynomial_u shifted_chebyshev_polynomial_v "
              "shifted_chebyshev_polynomial_w").split():  # (x, n): a number for one of them, not both
    globals()[_name] = _require_tensors(globals()[_name], "special_" + _name, "nn")
del _name


def round(input=None, *, x=None, decimals=0):
    """torch.round for floating tensors (torch's special.round has no integer kernel)."""
    input = _input_or_x("round", input, x)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"round_vml_cpu\" not implemented for '{_TYPE_NAMES[input.dtype.name]}'")
    return _ops.round(input, decimals)
