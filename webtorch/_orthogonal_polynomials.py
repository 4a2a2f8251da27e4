"""torch.special's orthogonal polynomials P_n(x): Chebyshev (T, U, V, W and their shifted forms on [0, 1]),
Hermite (H, He), Laguerre and Legendre, with torch's kernels' rules (aten/src/ATen/native/Math.h).

n is truncated to an integer (a NaN or infinite n counts as negative); a negative n gives 0. Each family
has its closed values (at x = +-1, at n = 0 and 1, the Chebyshev kinds' trigonometric forms for |x| < 1 and
n past a small threshold, Hermite's NaN past n = 128 in float32 and 512 in float64) and otherwise its
three-term recurrence, run for every element at once up to the largest n that needs it, each element
keeping its value once its own n is reached.
"""
import math

from . import _dtypes as dt, _ops, _tape
from ._cephes import multiply_add as _fma  # torch's compiled recurrences contract b c - p to one fused
# multiply-add, which decides where a growing P_n overflows (and so whether it ends inf or NaN)
from ._tensor import _TYPE_NAMES

_CHECK_EVERY = 32       # recurrence steps between checks that some element still needs steps
_MOST_STEPS = 1 << 16   # recurrence steps at most (each a few kernels): beyond, a clear refusal


def _operands(name, x, n):
    """x and n as tensors of the result dtype, broadcast, with n truncated to an integer (-1 where not finite)."""
    kind = dt.result_type(x, n)
    if not kind.is_floating_point:
        kind = dt.default_float if not kind.is_complex else kind
    if kind not in (dt.float32, dt.float64):
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_TYPE_NAMES[kind.name]}'")
    like = x if _ops._is_tensor(x) else n
    x, n = (_ops.cast(v, kind) if _ops._is_tensor(v) else _ops.full((), v, dtype=kind, device=like.device)
            for v in (x, n))
    x, n = _ops.broadcast_tensors(x, n)
    n = _ops.where(_ops.isfinite(n), _ops.trunc(n), -1.0)
    return x, n


def _recurrence(n, needs, first, step):
    """P_n where `needs` holds, from P_0 = 1 and P_1 = first by P_(j+1) = step(j, P_j, P_(j-1)) for j = 1, 2, ...
    while j < n (torch's loops, which also stop at a NaN: a value no later step changes)."""
    if not bool(_ops.any(needs)):
        return first
    most = int(float(_ops.max(_ops.where(needs, n, 0.0))))
    p, q = _ops.full_like(first, 1.0), first
    for j in range(1, most):
        if j % _CHECK_EVERY == 0:
            pending = _ops.logical_and(_ops.logical_and(needs, _ops.gt(n, j)), _ops.logical_not(_ops.isnan(q)))
            if not bool(_ops.any(pending)):
                break
            if j >= _MOST_STEPS:
                raise NotImplementedError(f"webtorch: orthogonal polynomials of degree over {_MOST_STEPS} outside "
                                          "their closed forms (torch runs its recurrence that far)")
        r = step(j, q, p)
        p, q = q, _ops.where(_ops.gt(n, j), r, q)
    return q


def _parity(n, even, odd):
    """even for an even n, else odd."""
    return _ops.where(_ops.eq(_ops.remainder(n, 2.0), 0), even, odd)


# -- Chebyshev: T, U, V, W on [-1, 1]; the shifted ones are the same in y = 2x - 1 -----------------------------
def _chebyshev(name, kind, y, n, beyond):
    """kind's polynomial at y: closed at y = +-1, trigonometric for |y| < 1 and n > beyond, else
    P_(k+1) = 2y P_k - P_(k-1) from P_0 = 1 and kind's P_1 (T: y, U: 2y, V: 2y - 1, W: 2y + 1)."""
    two_y = _ops.add(y, y)
    first = {"t": y, "u": two_y, "v": _ops.sub(two_y, 1.0), "w": _ops.add(two_y, 1.0)}[kind]
    inside = _ops.lt(_ops.abs(y), 1.0)
    by_trig = _ops.logical_and(inside, _ops.gt(n, beyond))
    edge = _ops.eq(_ops.abs(y), 1.0)
    needs = _ops.logical_not(_ops.logical_or(by_trig, _ops.logical_or(edge, _ops.lt(n, 2))))
    value = _recurrence(n, needs, first, lambda j, q, p: _fma(_ops.neg(p), two_y, q))
    value = _ops.where(_ops.eq(n, 1), first, value)
    value = _ops.where(_ops.eq(n, 0), 1.0, value)
    theta = _ops.elementwise("acos", _ops.where(inside, y, 0.0))
    odd_n = _ops.add(_ops.add(n, n), 1.0)  # 2n + 1
    plus = _ops.logical_or(_ops.gt(y, 0), _ops.eq(_ops.remainder(n, 2.0), 0))  # at y = +-1: y > 0 or n even
    if kind == "t":
        trig = _ops.cos(_ops.mul(n, theta))
        at_edge = _ops.where(plus, 1.0, -1.0)
    elif kind == "u":
        sine = _ops.sin(theta)
        m = _ops.add(n, 1.0)
        trig = _ops.where(_ops.ne(sine, 0), _ops.div(_ops.sin(_ops.mul(m, theta)), sine),
                          _ops.div(_ops.mul(m, _ops.cos(_ops.mul(m, theta))), y))
        at_edge = _ops.where(plus, m, _ops.neg(m))
    elif kind == "v":
        half = _ops.div(theta, 2.0)
        trig = _ops.where(_ops.ne(_ops.sin(half), 1.0),
                          _ops.div(_ops.cos(_ops.mul(_ops.add(n, 0.5), theta)), _ops.cos(half)),
                          _parity(n, odd_n, _ops.neg(odd_n)))
        at_edge = _ops.where(_ops.gt(y, 0), 1.0, _parity(n, odd_n, _ops.neg(odd_n)))
    else:
        half = _ops.div(theta, 2.0)
        at_edge = _ops.where(_ops.gt(y, 0), odd_n, _parity(n, 1.0, -1.0))
        trig = _ops.where(_ops.ne(_ops.cos(half), 1.0),
                          _ops.div(_ops.sin(_ops.mul(_ops.add(n, 0.5), theta)), _ops.sin(half)), at_edge)
    value = _ops.where(by_trig, trig, value)
    value = _ops.where(edge, at_edge, value)
    return _ops.where(_ops.lt(n, 0), 0.0, value)


def _chebyshev_function(kind, shifted):
    name = f"{'shifted_' if shifted else ''}chebyshev_polynomial_{kind}"
    # torch's thresholds for the trigonometric form
    beyond = ({"t": 6, "u": 6, "v": 6, "w": 4} if shifted else {"t": 6, "u": 8, "v": 8, "w": 8})[kind]

    def fn(x, n):
        x, n = _operands(name, x, n)
        with _tape.no_grad():
            return _chebyshev(name, kind, _ops.sub(_ops.add(x, x), 1.0) if shifted else x, n, beyond)
    fn.__name__ = name
    return fn


chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v, chebyshev_polynomial_w = (
    _chebyshev_function(kind, False) for kind in "tuvw")
(shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u, shifted_chebyshev_polynomial_v,
 shifted_chebyshev_polynomial_w) = (_chebyshev_function(kind, True) for kind in "tuvw")


# -- Hermite, Laguerre, Legendre ------------------------------------------------------------------------------
def _hermite(x, n, physicists):
    """H_(j+1) = 2x H_j - 2j H_(j-1) (physicists'), He_(j+1) = x He_j - j He_(j-1); NaN past torch's limit."""
    first = _ops.add(x, x) if physicists else x
    limit = 128 if x.dtype is dt.float32 else 512
    needs = _ops.logical_and(_ops.ge(n, 2), _ops.le(n, limit))
    if physicists:
        value = _recurrence(n, needs, first, lambda j, q, p: _fma(_ops.mul(p, -2.0 * j), first, q))
    else:
        value = _recurrence(n, needs, first, lambda j, q, p: _fma(_ops.mul(p, -float(j)), x, q))
    value = _ops.where(_ops.gt(n, limit), math.nan, value)
    value = _ops.where(_ops.eq(n, 1), first, _ops.where(_ops.eq(n, 0), 1.0, value))
    return _ops.where(_ops.lt(n, 0), 0.0, value)


def _laguerre(x, n):
    """L_(j+1) = ((2j + 1 - x) L_j - j L_(j-1)) / (j + 1); 1 at x = 0."""
    first = _ops.sub(1.0, x)
    value = _recurrence(n, _ops.ge(n, 2), first, lambda j, q, p: _ops.div(
        _fma(_ops.mul(p, -float(j)), _ops.add(first, 2.0 * j), q), j + 1.0))
    value = _ops.where(_ops.eq(n, 1), first, value)
    value = _ops.where(_ops.logical_or(_ops.eq(n, 0), _ops.eq(x, 0)), 1.0, value)
    return _ops.where(_ops.lt(n, 0), 0.0, value)


def _legendre(x, n):
    """P_(j+1) = ((2j + 1) x P_j - j P_(j-1)) / (j + 1); +-1 at x = +-1."""
    edge = _ops.eq(_ops.abs(x), 1.0)
    value = _recurrence(n, _ops.logical_and(_ops.ge(n, 2), _ops.logical_not(edge)), x,
                        lambda j, q, p: _ops.div(_fma(_ops.mul(p, -float(j)), _ops.mul(x, 2.0 * j + 1.0), q),
                                                         j + 1.0))
    value = _ops.where(_ops.eq(n, 1), x, _ops.where(_ops.eq(n, 0), 1.0, value))
    plus = _ops.logical_or(_ops.gt(x, 0), _ops.eq(_ops.remainder(n, 2.0), 0))
    value = _ops.where(edge, _ops.where(plus, 1.0, -1.0), value)
    return _ops.where(_ops.lt(n, 0), 0.0, value)


def _family(name, compute):
    def fn(x, n):
        x, n = _operands(name, x, n)
        with _tape.no_grad():
            return compute(x, n)
    fn.__name__ = name
    return fn


hermite_polynomial_h = _family("hermite_polynomial_h", lambda x, n: _hermite(x, n, True))
hermite_polynomial_he = _family("hermite_polynomial_he", lambda x, n: _hermite(x, n, False))
laguerre_polynomial_l = _family("laguerre_polynomial_l", _laguerre)
legendre_polynomial_p = _family("legendre_polynomial_p", _legendre)
