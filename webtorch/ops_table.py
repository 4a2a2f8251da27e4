"""The elementwise primitives: one row per op, with its expression on each backend.

  wgsl     WGSL expression over $a, $b, $c (helpers from wgsl/prelude.wgsl); a dict gives one
           expression per compute type ("f32", "i32", "bool"), "*" being the fallback
  numpy    function(np, a, b, ...) on numpy arrays of the compute dtype (cpu device)
  python   function(a, b, ...) on Python scalars (cpu device when numpy is not importable)
  compute  how the compute dtype follows from the operands' promoted dtype:
           "same", "float" (integers and bools compute in float32), "bool"
  out      dtype of the result: "compute" or "bool"
"""
import math
import operator
import struct


class Elementwise:
    __slots__ = ("name", "arity", "wgsl", "numpy", "python", "compute", "out")

    def __init__(self, name, arity, wgsl, numpy, python, compute="same", out="compute"):
        self.name, self.arity, self.wgsl, self.numpy, self.python = name, arity, wgsl, numpy, python
        self.compute, self.out = compute, out

    def expression(self, compute_type):
        if isinstance(self.wgsl, str):
            return self.wgsl
        return self.wgsl.get(compute_type, self.wgsl.get("*"))


# Pure-Python scalar math with IEEE results where `math` raises instead.
def _div(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _exp(a):
    try:
        return math.exp(a)
    except OverflowError:
        return math.inf


def _log(a):
    if a > 0:
        return math.log(a)
    return -math.inf if a == 0 else math.nan


def _sqrt(a):
    return math.sqrt(a) if a >= 0 else math.nan


def _sigmoid(a):
    return 1.0 / (1.0 + _exp(-a)) if a >= 0 else _exp(a) / (1.0 + _exp(a))


def _pow(a, b):
    if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
        return a ** b if b >= 0 else (1 if a == 1 else (-1) ** b if a == -1 else 0)
    try:
        r = math.pow(a, b)
    except OverflowError:
        r = math.inf if a > 0 or float(b) % 2 == 0 else -math.inf
    except (ValueError, ZeroDivisionError):  # 0 to a negative power: -0 keeps its sign for odd integers
        r = (math.copysign(math.inf, a) if float(b) % 2 == 1 else math.inf) if a == 0 else math.nan
    return r


def _remainder(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a % b if b else 0
    try:
        m = math.fmod(a, b)  # torch's: exact fmod, moved to the divisor's sign (a zero keeps a's sign)
    except ValueError:
        return math.nan
    return m + b if m != 0 and (b < 0) != (m < 0) else m


def _np_remainder(np, a, b):
    if a.dtype.kind not in "fc" and np.result_type(a, b).kind not in "fc":
        return np.remainder(a, b)
    m = np.fmod(a, b)
    return np.where((m != 0) & ((b < 0) != (m < 0)), m + b, m)


def _fmod(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return int(math.fmod(a, b)) if b else 0
    try:
        return math.fmod(a, b)
    except ValueError:
        return math.nan


def _floordiv(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a // b if b else 0
    if b == 0:
        return _div(a, b)
    return a // b if not (math.isinf(a) or math.isnan(a) or math.isnan(b)) else math.nan  # // as torch


def _truncdiv(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return int(a / b) if b else 0
    q = _div(a, b)
    return float(math.trunc(q)) if math.isfinite(q) else q


def _round(a):
    return _keep_sign(round, a)


def _keep_sign(fn, a):
    """An integer-valued rounding of a float as a float with a's sign (-0.4 rounds to -0.0, as torch)."""
    return math.copysign(float(fn(a)), a) if isinstance(a, float) and math.isfinite(a) else a


def _sign(a):
    if a != a:
        return 0.0
    return (a > 0) - (a < 0) if isinstance(a, int) else float((a > 0) - (a < 0))


def _gelu_tanh(a):
    return 0.5 * a * (1.0 + math.tanh(0.7978845608028654 * (a + 0.044715 * a * a * a)))


def _np_pow(np, a, b):
    """np.power, with torch's integer powers for negative exponents (numpy raises): 1 and -1 to
    their powers, 0 for every other base."""
    if a.dtype.kind not in "iu" or b.dtype.kind not in "iu" or not (b < 0).any():
        r = np.power(a, b)
        if r.dtype.kind == "f":  # numpy's float32 power gives NaN for -inf to a non-integer power: C's pow
            fractional = np.isneginf(a) & (np.floor(b) != b) & ~np.isnan(b)  # (torch) +inf, or +0 for b < 0
            r = np.where(fractional, np.where(b > 0, np.inf, 0.0), r).astype(r.dtype)
        return r
    negative = b < 0
    small = np.where(a == 1, 1, np.where(a == -1, 1 - 2 * (b & 1), 0))
    return np.where(negative, small, np.power(a, np.where(negative, 0, b))).astype(np.result_type(a, b))


def _np_addcmul(np, a, b, c):
    """a + b c rounded once: exact in float64 (a product of two float32s is), then rounded to a's dtype."""
    if a.dtype == bool:
        return a | (b & c)
    if a.dtype.kind != "f":
        return a + b * c
    return (a.astype(np.float64) + b.astype(np.float64) * c).astype(a.dtype)


def _np_erf(np, a):
    return np.vectorize(math.erf, otypes=[a.dtype])(a) if a.size else a.copy()


def _np_sigmoid(np, a):
    return np.where(a >= 0, 1 / (1 + np.exp(-np.abs(a))), np.exp(-np.abs(a)) / (1 + np.exp(-np.abs(a))))


def _np_truncdiv(np, a, b):
    if a.dtype.kind == "f":
        return np.trunc(a / b)
    return np.where(b == 0, 0, np.trunc(a / np.where(b == 0, 1, b))).astype(a.dtype)


def _isinf_f(a):
    return isinstance(a, float) and math.isinf(a)


def _isnan_f(a):
    return isinstance(a, float) and math.isnan(a)


def _max(a, b):
    return a if _isnan_f(a) else b if _isnan_f(b) else max(a, b)


def _min(a, b):
    return a if _isnan_f(a) else b if _isnan_f(b) else min(a, b)


def _clamp(x, lo, hi):
    return x if _isnan_f(x) else _min(_max(x, lo), hi)


def _domain(fn, below=math.nan):
    """fn where defined; `below` (a value or function of a) where math raises ValueError, and a
    signed infinity where it overflows."""
    def f(a, *rest):
        try:
            return fn(a, *rest)
        except ValueError:
            return below(a) if callable(below) else below
        except OverflowError:
            return math.copysign(math.inf, a) if fn is math.sinh else math.inf
    return f


def _log_base(fn):
    return lambda a: fn(a) if a > 0 and a != math.inf else (a if a == math.inf else -math.inf if a == 0 else math.nan)


def _atanh(a):
    return math.copysign(math.inf, a) if abs(a) == 1 else _domain(math.atanh)(a)


# -- special functions: scalar forms (the cpu device; numpy applies them elementwise) ----------
def _erfinv(x):
    if x != x or abs(x) > 1:
        return math.nan
    if abs(x) == 1:
        return math.copysign(math.inf, x)
    w = -math.log((1.0 - x) * (1.0 + x))
    if w < 5.0:
        w -= 2.5
        coeffs = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941)
    else:
        w = math.sqrt(w) - 3.0
        coeffs = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                  0.00943887047, 1.00167406, 2.83297682)
    p = 0.0
    for c in coeffs:
        p = p * w + c
    y = p * x
    for _ in range(2):  # Newton on erf: double precision
        y -= (math.erf(y) - x) / (1.1283791670955126 * math.exp(-y * y))
    return y


def _lgamma(x):
    if x != x:
        return x
    try:
        return math.lgamma(x)
    except (ValueError, OverflowError):
        return math.inf


def _digamma(x):
    if x != x:
        return x
    if x == 0:
        return math.copysign(math.inf, -x)  # torch: -inf at +0, inf at -0
    if math.isinf(x):
        return x if x > 0 else math.nan
    if x < 0:
        if x == math.floor(x):
            return math.nan
        return _digamma(1.0 - x) - math.pi / math.tan(math.pi * x)
    acc = 0.0
    while x < 6.0:
        acc -= 1.0 / x
        x += 1.0
    r2 = 1.0 / (x * x)
    return acc + math.log(x) - 0.5 / x - r2 * (1 / 12 - r2 * (1 / 120 - r2 * (1 / 252 - r2 * (1 / 240 - r2 / 132))))


def _bessel_i(order):
    """I0 or I1 by their power series (converges for every x; terms peak near k = |x|/2)."""
    def f(x):
        if x != x:
            return x
        if math.isinf(x):  # torch's float32 kernel: e^|x| / sqrt|x| is inf / inf
            return math.nan
        if abs(x) > 88.72283905206835:  # torch's float32 e^|x| overflows first
            return math.copysign(math.inf, x) if order else math.inf
        if x == 0:
            return 1.0 if order == 0 else 0.0  # torch: I1 is +0 at either zero
        q, term = x * x / 4.0, (1.0 if order == 0 else x / 2.0)
        total, k = term, 0
        while True:
            k += 1
            term *= q / (k * (k + order))
            total += term
            if abs(term) <= abs(total) * 1e-17:
                return total
    return f


def _nextafter_f32(a, b):
    if a != a or b != b:
        return math.nan
    if a == b:
        return b
    if a == 0:
        return math.copysign(1.401298464324817e-45, b)
    bits = struct.unpack("<i", struct.pack("<f", a))[0]
    bits += 1 if (a < b) == (a > 0) else -1
    return struct.unpack("<f", struct.pack("<i", bits))[0]


def _np_scalar(fn):
    """numpy form of a scalar function: elementwise, in the array's dtype."""
    return lambda np, a, *rest: np.vectorize(fn, otypes=[a.dtype])(a, *rest) if a.size else a.copy()


def _shift_left(a, b):
    if b < 0 or b >= 64:
        return 0
    r = (a << b) & 0xFFFFFFFFFFFFFFFF
    return r - (1 << 64) if r >> 63 else r


def _shift_right(a, b):
    if b < 0 or b >= 64:
        return -1 if a < 0 else 0
    return a >> b


def _np_shift_left(np, a, b):
    bits = a.dtype.itemsize * 8
    return np.where((b < 0) | (b >= bits), 0, np.left_shift(a, np.clip(b, 0, bits - 1))).astype(a.dtype)


def _np_shift_right(np, a, b):
    bits = a.dtype.itemsize * 8
    return np.where((b < 0) | (b >= bits), np.where(a < 0, -1, 0), np.right_shift(a, np.clip(b, 0, bits - 1))
                    ).astype(a.dtype)


E = Elementwise
ELEMENTWISE = {op.name: op for op in [
    # cast/copy: the output dtype decides the conversion
    E("copy", 1, "$a", lambda np, a: a, lambda a: a),
    E("neg", 1, "-$a", lambda np, a: -a, operator.neg),
    E("abs", 1, {"bool": "$a", "*": "abs($a)"}, lambda np, a: np.abs(a), abs),
    E("exp", 1, "wt_exp($a)", lambda np, a: np.exp(a), _exp, "float"),
    E("log", 1, "wt_log($a)", lambda np, a: np.log(a), _log, "float"),
    E("sqrt", 1, "wt_sqrt($a)", lambda np, a: np.sqrt(a), _sqrt, "float"),
    E("rsqrt", 1, "wt_div(1.0f, wt_sqrt($a))", lambda np, a: 1 / np.sqrt(a), lambda a: _div(1.0, _sqrt(a)), "float"),
    E("sin", 1, "wt_sin($a)", lambda np, a: np.sin(a),
      lambda a: math.nan if _isinf_f(a) else math.sin(a), "float"),
    E("cos", 1, "wt_cos($a)", lambda np, a: np.cos(a),
      lambda a: math.nan if _isinf_f(a) else math.cos(a), "float"),
    E("tanh", 1, "wt_tanh($a)", lambda np, a: np.tanh(a), math.tanh, "float"),
    E("sigmoid", 1, "wt_sigmoid($a)", _np_sigmoid, _sigmoid, "float"),
    # NaN and -0 pass, as torch: decided on the bits (NVIDIA's Vulkan compiler turned a float compare and
    # select into a max, which gave relu(NaN) = 0 and relu(-0) = +0 on the H200)
    E("relu", 1, {"f32": "wt_relu($a)", "*": "max($a, 0)"},
      lambda np, a: np.where(a < 0, np.zeros_like(a), a), lambda a: a if not a < 0 else type(a)(0)),
    # x/2 (1 + erf(x/√2)) (1 + erf is exact near -1: the tail keeps erf's accuracy); a zero result is
    # +0, as torch's vectorised loop gives (x/2 + x/2 erf, fused)
    E("gelu", 1, "wt_gelu($a)",
      lambda np, a: (0.5 * a * (1 + _np_erf(np, a * np.float32(0.7071067811865476))) + np.float32(0)
                     ).astype(a.dtype),
      lambda a: 0.5 * a * (1.0 + math.erf(a * 0.7071067811865476)) + 0.0, "float"),
    E("gelu_tanh", 1, "0.5f * $a * (1.0f + wt_tanh(0.7978845608028654f * ($a + 0.044715f * $a * $a * $a)))",
      lambda np, a: (0.5 * a * (1 + np.tanh(np.float32(0.7978845608028654) * (a + np.float32(0.044715) * a * a * a)))
                     ).astype(a.dtype), _gelu_tanh, "float"),
    E("silu", 1, "$a * wt_sigmoid($a)", lambda np, a: a * _np_sigmoid(np, a), lambda a: a * _sigmoid(a), "float"),
    E("floor", 1, {"f32": "floor($a)", "*": "$a"}, lambda np, a: np.floor(a) if a.dtype.kind == "f" else a,
      lambda a: _keep_sign(math.floor, a)),
    E("ceil", 1, {"f32": "ceil($a)", "*": "$a"}, lambda np, a: np.ceil(a) if a.dtype.kind == "f" else a,
      lambda a: _keep_sign(math.ceil, a)),
    E("trunc", 1, {"f32": "trunc($a)", "*": "$a"}, lambda np, a: np.trunc(a) if a.dtype.kind == "f" else a,
      lambda a: _keep_sign(math.trunc, a)),
    E("round", 1, {"f32": "wt_round($a)", "*": "$a"}, lambda np, a: np.round(a), _round),
    E("sign", 1, {"f32": "wt_sign($a)", "i32": "sign($a)", "bool": "$a"},
      lambda np, a: a.copy() if a.dtype == bool else np.where(a != a, 0, np.sign(a)).astype(a.dtype), _sign),
    E("reciprocal", 1, "wt_div(1.0f, $a)", lambda np, a: 1 / a, lambda a: _div(1.0, a), "float"),
    E("square", 1, "$a * $a", lambda np, a: a * a, lambda a: a * a),
    E("erf", 1, "wt_erf($a)", _np_erf, math.erf, "float"),
    E("erfc", 1, "wt_erfc($a)", _np_scalar(math.erfc), math.erfc, "float"),
    E("logical_not", 1, "!$a", lambda np, a: ~a, operator.not_, "bool"),
    E("isnan", 1, {"f32": "wt_isnan($a)", "*": "false"}, lambda np, a: np.isnan(a), _isnan_f, out="bool"),
    E("isinf", 1, {"f32": "wt_isinf($a)", "*": "false"}, lambda np, a: np.isinf(a), _isinf_f, out="bool"),
    E("add", 2, {"bool": "$a || $b", "*": "$a + $b"}, lambda np, a, b: a | b if a.dtype == bool else a + b,
      lambda a, b: (a or b) if isinstance(a, bool) else a + b),
    E("sub", 2, "$a - $b", lambda np, a, b: a - b, operator.sub),
    E("mul", 2, {"bool": "$a && $b", "*": "$a * $b"}, lambda np, a, b: a & b if a.dtype == bool else a * b,
      lambda a, b: (a and b) if isinstance(a, bool) else a * b),
    E("div", 2, "wt_div($a, $b)", lambda np, a, b: a / b, _div, "float"),
    E("floor_divide", 2, {"f32": "wt_floordiv($a, $b)", "*": "wt_floordiv_i($a, $b)"},
      lambda np, a, b: np.floor_divide(a, b), _floordiv),
    E("trunc_divide", 2, {"f32": "trunc(wt_div($a, $b))", "*": "select($a / $b, 0, $b == 0)"}, _np_truncdiv, _truncdiv),
    E("pow", 2, {"f32": "wt_pow($a, $b)", "*": "wt_pow_i($a, $b)"}, _np_pow, _pow),
    E("maximum", 2, {"f32": "wt_max($a, $b)", "bool": "$a || $b", "*": "max($a, $b)"},
      lambda np, a, b: np.maximum(a, b), _max),
    E("minimum", 2, {"f32": "wt_min($a, $b)", "bool": "$a && $b", "*": "min($a, $b)"},
      lambda np, a, b: np.minimum(a, b), _min),
    E("remainder", 2, {"f32": "wt_remainder($a, $b)", "*": "wt_remainder_i($a, $b)"},
      _np_remainder, _remainder),
    E("fmod", 2, {"f32": "wt_fmod($a, $b)", "*": "wt_fmod_i($a, $b)"}, lambda np, a, b: np.fmod(a, b), _fmod),
    E("eq", 2, {"f32": "$a == $b && !wt_isnan($a)", "*": "$a == $b"}, lambda np, a, b: a == b, operator.eq, out="bool"),
    E("ne", 2, {"f32": "$a != $b || wt_isnan($a) || wt_isnan($b)", "*": "$a != $b"}, lambda np, a, b: a != b, operator.ne, out="bool"),
    E("lt", 2, {"bool": "!$a && $b", "*": "$a < $b"}, lambda np, a, b: a < b, operator.lt, out="bool"),
    E("le", 2, {"bool": "!$a || $b", "*": "$a <= $b"}, lambda np, a, b: a <= b, operator.le, out="bool"),
    E("gt", 2, {"bool": "$a && !$b", "*": "$a > $b"}, lambda np, a, b: a > b, operator.gt, out="bool"),
    E("ge", 2, {"bool": "$a || !$b", "*": "$a >= $b"}, lambda np, a, b: a >= b, operator.ge, out="bool"),
    E("logical_and", 2, "$a && $b", lambda np, a, b: a & b, lambda a, b: bool(a and b), "bool"),
    E("logical_or", 2, "$a || $b", lambda np, a, b: a | b, lambda a, b: bool(a or b), "bool"),
    E("logical_xor", 2, "$a != $b", lambda np, a, b: a ^ b, operator.ne, "bool"),
    E("bitwise_and", 2, {"bool": "$a && $b", "*": "$a & $b"}, lambda np, a, b: a & b, operator.and_),
    E("bitwise_or", 2, {"bool": "$a || $b", "*": "$a | $b"}, lambda np, a, b: a | b, operator.or_),
    E("bitwise_xor", 2, {"bool": "$a != $b", "*": "$a ^ $b"}, lambda np, a, b: a ^ b, operator.xor),
    E("clamp", 3, {"f32": "wt_min(wt_max($a, $b), $c)", "*": "min(max($a, $b), $c)"},
      lambda np, a, lo, hi: np.minimum(np.maximum(a, lo), hi), _clamp),
    E("log1p", 1, "wt_log1p($a)", lambda np, a: np.log1p(a),
      _domain(lambda a: math.log1p(a) if a != math.inf else a, lambda a: -math.inf if a == -1 else math.nan), "float"),
    E("expm1", 1, "wt_expm1($a)", lambda np, a: np.expm1(a), _domain(math.expm1), "float"),
    E("exp2", 1, "wt_exp2($a)", lambda np, a: np.exp2(a), _domain(lambda a: 2.0 ** a), "float"),
    E("log2", 1, "wt_log($a) * 1.4426950408889634f", lambda np, a: np.log2(a), _log_base(math.log2), "float"),
    E("log10", 1, "wt_log($a) * 0.4342944819032518f", lambda np, a: np.log10(a), _log_base(math.log10), "float"),
    E("tan", 1, "wt_tan($a)", lambda np, a: np.tan(a), _domain(math.tan), "float"),
    E("asin", 1, "wt_asin($a)", lambda np, a: np.arcsin(a), _domain(math.asin), "float"),
    E("acos", 1, "wt_acos($a)", lambda np, a: np.arccos(a), _domain(math.acos), "float"),
    E("atan", 1, "wt_atan($a)", lambda np, a: np.arctan(a), math.atan, "float"),
    E("sinh", 1, "wt_sinh($a)", lambda np, a: np.sinh(a), _domain(math.sinh), "float"),
    E("cosh", 1, "wt_cosh($a)", lambda np, a: np.cosh(a), _domain(math.cosh), "float"),
    E("asinh", 1, "wt_asinh($a)", lambda np, a: np.arcsinh(a), math.asinh, "float"),
    E("acosh", 1, "wt_acosh($a)", lambda np, a: np.arccosh(a), _domain(math.acosh), "float"),
    E("atanh", 1, "wt_atanh($a)", lambda np, a: np.arctanh(a), _atanh, "float"),
    E("frac", 1, {"f32": "$a - trunc($a)", "*": "$a - $a"}, lambda np, a: a - np.trunc(a),
      lambda a: a - _keep_sign(math.trunc, a) if isinstance(a, float) and math.isfinite(a) else (a - a)),
    E("atan2", 2, "wt_atan2($a, $b)", lambda np, a, b: np.arctan2(a, b), math.atan2, "float"),
    E("hypot", 2, "wt_hypot($a, $b)", lambda np, a, b: np.hypot(a, b), math.hypot, "float"),
    E("signbit", 1, {"f32": "(bitcast<u32>($a) >> 31u) == 1u", "i32": "$a < 0", "bool": "false"},
      lambda np, a: np.signbit(a) if a.dtype.kind in "fi" else np.zeros(a.shape, bool),
      lambda a: math.copysign(1.0, a) < 0 if isinstance(a, float) else a < 0, out="bool"),
    E("logaddexp", 2, "wt_logaddexp($a, $b)", lambda np, a, b: np.logaddexp(a, b),
      lambda a, b: a if a == b and math.isinf(a) else max(a, b) + math.log1p(math.exp(-abs(a - b)))
      if a == a and b == b else math.nan, "float"),
    E("erfinv", 1, "wt_erfinv($a)", _np_scalar(_erfinv), _erfinv, "float"),
    E("lgamma", 1, "wt_lgamma($a)", _np_scalar(_lgamma), _lgamma, "float"),
    E("digamma", 1, "wt_digamma($a)", _np_scalar(_digamma), _digamma, "float"),
    E("i0", 1, "wt_i0($a)", _np_scalar(_bessel_i(0)), _bessel_i(0), "float"),
    E("i1", 1, "wt_i1($a)", _np_scalar(_bessel_i(1)), _bessel_i(1), "float"),
    E("nextafter", 2, "wt_nextafter($a, $b)", lambda np, a, b: np.nextafter(a, b), _nextafter_f32),
    E("gcd", 2, "wt_gcd($a, $b)", lambda np, a, b: np.gcd(a, b), math.gcd),
    E("bitwise_left_shift", 2, "select($a << u32($b), 0i, $b < 0 || $b >= 32)", _np_shift_left, _shift_left),
    E("bitwise_right_shift", 2, "select($a >> u32($b), select(0i, -1i, $a < 0), $b < 0 || $b >= 32)",
      _np_shift_right, _shift_right),
    # a + b c as one fused multiply-add, as torch's CPU kernels compute add/sub with alpha, addcmul and
    # lerp: b c may overflow where the sum does not (3e38 - 2 * 3e38 is -3e38, not -inf). numpy and
    # Python compute in double, where a product of two float32s is exact.
    E("addcmul", 3, {"f32": "wt_fma($b, $c, $a)", "bool": "$a || ($b && $c)", "*": "$a + $b * $c"},
      _np_addcmul, lambda a, b, c: (a or (b and c)) if isinstance(a, bool) else a + b * c),
    # where(cond, x, y): the condition computes as bool, x and y in the promoted dtype
    E("where", 3, "select($c, $b, $a)", lambda np, c, x, y: np.where(c, x, y), lambda c, x, y: x if c else y),
]}
