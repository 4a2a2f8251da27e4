"""A differential fuzzer: random PyTorch programs run on webtorch ("webgpu" and "cpu") and on torch.

A program is a list of Python statements over `torch` (bound to torch or to webtorch) and `dev`:
a few input tensors (0-d, empty, broadcastable shapes; float32 / int64 / int32 / bool; edge values
NaN, ±inf, huge, tiny, subnormal, ±0; strided, transposed, expanded and offset views), then steps
drawn from elementwise ops and operators, reductions, views and shape ops, indexing, matmul,
in-place ops and casts, sometimes with bad arguments. torch runs it on "cpu"; webtorch runs the same
text on each device. After every step its result, and at the end every variable, are compared:

  WRONG-VALUE          a value, dtype or shape differs (tolerance: TOL) and nothing raised
  EXCEPTION-MISMATCH   torch raised and webtorch did not, or raised another exception type
  CRASH                webtorch raised where torch did not, other than a clear refusal
                       ("not supported", NotImplementedError, int64 beyond int32 on the GPU)
  AMPLIFIED            (not a bug) a WRONG-VALUE whose inputs already differed within TOL and
                       that agrees with torch when run on torch's inputs: see amplified()
  ROUNDING             (not a bug) a sum's WRONG-VALUE within float32's error bound: within_rounding()
  ALIASING, UNDEFINED  documented limits (memory layouts, overlapping in-place ops): see triage()
  MIXED                (not a bug) each differing element AMPLIFIED, ROUNDING or a documented limit (docs/limits.md): triage()

A failure is minimised (statements dropped, views made contiguous, inputs shrunk while the same kind
of failure remains) and printed as a Python program.

  python tests/fuzz.py --seed 1 --minutes 30          # seeds 1, 2, 3, ... until 30 minutes pass
  python tests/fuzz.py --seed 17 --count 1 --show     # one program, printed
  python tests/fuzz.py --seed 1 --minutes 30 --wide   # also gather/index_add, conv, conv_transpose, pooling,
                                                      # interpolate, layer_norm, int64 sums/scans, in-place views
  python tests/fuzz.py --seed 1 --minutes 30 --more   # also special.*, nan-reductions, scans, histc, bucketize,
                                                      # scatter_reduce, index_reduce, cov/corrcoef, diff, quantile, ...

tests/test_fuzz.py runs a fixed set of seeds in CI.
"""

import argparse
import math
import os
import random
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from compare import assert_close, differing, to_plain, value_difference  # noqa: E402
from opinfo_run import clear_refusal  # noqa: E402

DEVICES = ("webgpu", "cpu")
TOL = dict(atol=1e-4, rtol=1e-4)
DTYPES = ("float32", "float32", "float32", "int64", "int32", "bool")
EDGE = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3e38, -3e38,
        1e30, -1e-30, 1e-38, 1e-45, -1e-45, 88.5, -104.0, 16777217.0, 1e-7]
EDGE_INTS = [0, 1, -1, 2, -7, 127, 2**31 - 1, -2**31, 65536]

# Findings that are deliberate differences, each an entry of docs/limits.md with a test in
# tests/test_known_limits.py (or, for AMPLIFIED, no bug at all): (kind, device (None: either), regex
# searched in "statement | message", reason[, regex the program must contain]). Runs report them as
# known; any other finding fails tests/test_fuzz.py.
_NEAR_LIMIT = r"3e\+38|1e\+30|16777217|float\('-?inf'\)"  # values whose sums cancel or overflow
KNOWN = [
    ("AMPLIFIED", None, r"", "not a bug: a difference within TOL that an ill-conditioned op amplified (amplified())"),
    ("ROUNDING", None, r"", "not a bug: both sums within float32's error bound of a sum that cancels (within_rounding())"),
    ("MIXED", None, r"", "not a bug: each differing element AMPLIFIED, ROUNDING or a documented limit (docs/limits.md) (counted in the "
     "message; triage())"),
    ("ALIASING", None, r"", "docs/limits.md: memory layouts (a result that is a view in one and a copy in the "
     "other; a later in-place write shows through it)"),
    ("UNDEFINED", None, r"", "docs/limits.md: an in-place op whose operand overlaps the written tensor"),
    ("WRONG-VALUE", "webgpu", r"\.to\(torch\.int(32|64)\).*expected -(2147483648|9223372036854775808)$",
     "docs/limits.md: a float outside the integer range converts by clamping on webgpu"),
    ("WRONG-VALUE", "webgpu", r"dtype float32, expected float64$",
     "docs/limits.md: float64 on webgpu is float32 (WebGPU has no f64): float_power's result, a .double()"),
    ("WRONG-VALUE", None, r"(remainder|fmod| % ).*expected 'nan'",
     "docs/limits.md, float32 accuracy: torch's vectorised fmod/remainder give NaN where a/b overflows"),
    ("WRONG-VALUE", None, r"\b(add|sub|rsub)\(.*alpha=.*: actual -?[0-9][0-9.e+-]*, expected '-?inf'$",
     "docs/limits.md, float32 accuracy: torch's CPU loop rounds alpha * other first for a broadcast other "
     "in part of a row (inf where the fused multiply-add is finite)"),
    ("WRONG-VALUE", None, r"torch\.(sinh|cosh)\(.*expected '-?inf'",
     "docs/limits.md, float32 accuracy: torch's vectorised sinh/cosh overflow above 88.72"),
    ("WRONG-VALUE", None, r"torch\.norm\(.*expected 'inf'",
     "docs/limits.md: norms divide by the largest magnitude first and stay finite where torch overflows"),
    ("WRONG-VALUE", None, r"functional\.(layer_norm|group_norm|batch_norm|instance_norm)\(.*expected 'nan'$",
     "docs/limits.md: normalisations beyond float32's variance (webtorch gives float64's finite values, torch's "
     "float32 NaN)", _NEAR_LIMIT),
    ("WRONG-VALUE", None, r"torch\.(sum|mean|prod|cumsum|cumprod|logsumexp|std|var|norm|nansum|nanmean|std_mean|var_mean|logcumsumexp)\(",
     "docs/limits.md: the order of accumulation (sums that cancel or overflow near the float32 limit)",
     _NEAR_LIMIT),
]


def known_reason(finding):
    text = "%s | %s" % (finding["statement"], finding["message"])
    for kind, device, pattern, reason, *program in KNOWN:
        if kind == finding["kind"] and device in (None, finding["device"]) and re.search(pattern, text) and (
                not program or re.search(program[0], finding.get("program", ""))):
            return reason
    return None


# -- generation ------------------------------------------------------------------------------------
class Var:
    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype

    @property
    def is_float(self):
        return self.dtype == "float32"


def _shape(rng):
    r = rng.random()
    if r < 0.1:
        return ()
    if r < 0.17:
        return tuple(rng.choice([0, 2, 3]) if i == 0 else rng.randint(1, 3) for i in range(rng.randint(1, 3)))
    return tuple(rng.randint(1, 5) for _ in range(rng.randint(1, 4)))


def _values(rng, n, dtype):
    mode = rng.random()
    if dtype == "bool":
        return [rng.random() < 0.5 for _ in range(n)]
    if dtype.startswith("int"):
        if mode < 0.2:
            return [rng.choice(EDGE_INTS) for _ in range(n)]
        return [rng.randint(-6, 6) for _ in range(n)]
    if mode < 0.25:
        return [rng.choice(EDGE) for _ in range(n)]
    if mode < 0.35:
        return [rng.choice([-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0]) for _ in range(n)]   # ties
    if mode < 0.45:
        return [rng.uniform(-1e4, 1e4) for _ in range(n)]
    return [round(rng.gauss(0, 2), 4) for _ in range(n)]


def _lit(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "float(%r)" % str(v)
    return repr(v)


def _input_source(rng, name, shape, dtype):
    """Statements building an input with the given logical shape, in a random memory layout."""
    layout = rng.choice(["contiguous"] * 3 + ["transposed", "strided", "expanded", "offset"])
    if len(shape) < 1 or 0 in shape:
        layout = "contiguous"
    if layout == "transposed" and len(shape) < 2:
        layout = "strided"
    if layout == "contiguous":
        store = shape
    elif layout == "transposed":
        store = shape[::-1]
    elif layout == "strided":
        store = shape[:-1] + (2 * shape[-1],)
    elif layout == "expanded":
        store = (1,) + shape[1:]
    else:
        store = (shape[0] + 1,) + shape[1:]
    n = 1
    for s in store:
        n *= s
    vals = ", ".join(_lit(v) for v in _values(rng, n, dtype))
    src = "%s = torch.tensor([%s], dtype=torch.%s, device=dev).reshape(%r)" % (name, vals, dtype, store)
    view = {"contiguous": "", "transposed": ".permute(%r)" % (tuple(range(len(shape) - 1, -1, -1)),),
            "strided": "[..., ::2]", "expanded": ".expand(%r)" % (shape,), "offset": "[1:]"}[layout]
    return src + view


def _dim(rng, v, bad):
    nd = max(len(v.shape), 1)
    if bad:
        return rng.choice([nd, -nd - 1, nd + 2])
    return rng.randrange(-nd, nd)


UNARY_ANY = ["abs", "neg", "sign", "square", "clone", "isnan", "isinf", "isfinite", "logical_not",
             "floor", "ceil", "trunc", "round"]
UNARY_FLOAT = ["exp", "log", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "erf",
               "log1p", "expm1", "exp2", "log2", "reciprocal", "frac", "asin", "atan", "sinh", "cosh",
               "nn.functional.gelu", "nn.functional.silu", "nn.functional.softplus", "nn.functional.elu",
               "nan_to_num"]
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
          "remainder", "fmod", "floor_divide", "pow", "atan2", "logical_and", "logical_xor",
          "bitwise_and", "bitwise_or", "bitwise_xor", "hypot"]
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "==", "<", ">=", "&", "|", "^"]
REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "all", "any", "var", "std",
              "logsumexp", "softmax", "log_softmax", "cumsum", "cumprod", "max", "min", "norm"]


def _pick(rng, pool, pred=lambda v: True):
    cands = [v for v in pool if pred(v)]
    return rng.choice(cands) if cands else None


def _step(rng, pool, wide=False, more=False):
    """One statement's right-hand side over variables in pool (or None)."""
    bad = rng.random() < 0.06
    if more and rng.random() < 0.4:
        return _more_step(rng, pool, bad)
    if wide and rng.random() < 0.3:
        return _wide_step(rng, rng.choice(pool), bad)
    kind = rng.random()
    a = rng.choice(pool)
    nd = len(a.shape)
    if kind < 0.22:
        op = rng.choice(UNARY_ANY + UNARY_FLOAT)
        if op in UNARY_FLOAT and not a.is_float and not bad and rng.random() < 0.7:
            a = _pick(rng, pool, lambda v: v.is_float) or a
        return "torch.%s(%s)" % (op, a.name)
    if kind < 0.45:
        b = _pick(rng, pool, lambda v: v is not a and (bad or _broadcastable(a.shape, v.shape)))
        rhs = b.name if b is not None and rng.random() < 0.75 else _lit(
            rng.choice([2, -1, 0, 0.5, -3.25, True, float("inf"), float("nan"), 1e30]))
        if rng.random() < 0.5:
            return "%s %s %s" % (a.name, rng.choice(OPERATORS), rhs)
        op = rng.choice(BINARY)
        extra = ""
        if op == "div" and rng.random() < 0.4:
            extra = ", rounding_mode=%r" % rng.choice(["trunc", "floor"])
        if op in ("add", "sub") and rng.random() < 0.3:
            extra = ", alpha=%s" % rng.choice(["2", "-1", "0.5"])
        return "torch.%s(%s, %s%s)" % (op, a.name, rhs, extra)
    if kind < 0.6:
        op = rng.choice(REDUCTIONS)
        if op in ("softmax", "log_softmax", "cumsum", "cumprod"):
            return "torch.%s(%s, %d)" % (op, a.name, _dim(rng, a, bad))
        if op == "norm":
            return "torch.norm(%s, p=%s)" % (a.name, rng.choice(["1", "2", "3", "float('inf')", "0"]))
        if rng.random() < 0.3 and op not in ("max", "min"):
            return "torch.%s(%s)" % (op, a.name)
        keep = rng.random() < 0.3
        return "torch.%s(%s, %d%s)" % (op, a.name, _dim(rng, a, bad), ", keepdim=True" if keep else "")
    if kind < 0.8:
        return _shape_step(rng, a, pool, bad)
    if kind < 0.88:
        return _index_step(rng, a, pool, bad)
    if kind < 0.94:
        return _inplace_step(rng, a, pool, bad)
    b = _pick(rng, pool, lambda v: v is not a and v.dtype == a.dtype and len(v.shape) >= 1 and nd >= 1
              and (bad or v.shape[0 if len(v.shape) == 1 else -2] == a.shape[-1]))
    if b is not None and a.is_float:
        return "torch.matmul(%s, %s)" % (a.name, b.name)
    return "%s.to(torch.%s)" % (a.name, rng.choice(["float32", "int32", "int64", "bool"]))


def _broadcastable(s1, s2):
    for x, y in zip(s1[::-1], s2[::-1]):
        if x != y and x != 1 and y != 1:
            return False
    return True


def _shape_step(rng, a, pool, bad):
    nd = len(a.shape)
    r = rng.randrange(12)
    if r == 0 and nd >= 2:
        return "%s.transpose(%d, %d)" % (a.name, _dim(rng, a, bad), _dim(rng, a, False))
    if r == 1:
        perm = list(range(nd))
        rng.shuffle(perm)
        if bad:
            perm = perm + [0]
        return "%s.permute(%r)" % (a.name, tuple(perm))
    if r == 2:
        n = 1
        for s in a.shape:
            n *= s
        target = rng.choice([(-1,), (n,), (1, n), (n, 1)] + ([(n // 2, 2)] if n % 2 == 0 else []))
        if bad:
            target = (n + 1,)
        return "%s.reshape(%r)" % (a.name, target)
    if r == 3:
        return "%s.unsqueeze(%d)" % (a.name, rng.randint(-nd - 1, nd))
    if r == 4:
        return "%s.squeeze()" % a.name if rng.random() < 0.5 else "%s.flatten()" % a.name
    if r == 5 and nd >= 1:
        return "%s.flip(%d)" % (a.name, _dim(rng, a, bad))
    if r == 6 and nd >= 1:
        return "torch.roll(%s, %d, %d)" % (a.name, rng.randint(-3, 3), _dim(rng, a, bad))
    if r == 7:
        b = _pick(rng, [v for v in rng.sample(pool, len(pool))],
                  lambda v: v is not a and (bad or (len(v.shape) == nd and nd >= 1 and v.shape[1:] == a.shape[1:])))
        if b is not None:
            fn = rng.choice(["cat", "stack"]) if b.shape == a.shape else "cat"
            return "torch.%s([%s, %s], %d)" % (fn, a.name, b.name, 0)
        return "%s.contiguous()" % a.name
    if r == 8 and nd >= 1:
        return "%s.repeat(%r)" % (a.name, tuple(rng.randint(1, 2) for _ in range(nd)))
    if r == 9 and nd >= 2:
        return "torch.%s(%s, %d)" % (rng.choice(["tril", "triu"]), a.name, rng.randint(-1, 1))
    if r == 10 and nd >= 1:
        k = rng.randint(0, max(a.shape[-1], 0) + (2 if bad else 0))
        return "torch.topk(%s, %d).values" % (a.name, min(k, a.shape[-1]) if not bad else k) if a.dtype != "bool" \
            else "%s.expand(%r)" % (a.name, (2,) + a.shape)
    if r == 11 and nd >= 1:
        return "torch.sort(%s, %d, descending=%r).values" % (a.name, _dim(rng, a, bad), rng.random() < 0.5)
    return "%s.expand(%r)" % (a.name, (rng.randint(1, 3),) + a.shape)


def _index_step(rng, a, pool, bad):
    nd = len(a.shape)
    r = rng.randrange(6)
    if nd == 0 or r == 0:
        if nd == 0 or (a.shape[0] == 0 and not bad):
            return "%s[None]" % a.name
        return "%s[%d]" % (a.name, rng.randint(-a.shape[0] - bad, a.shape[0] - 1 + bad))
    if r == 1:
        return "%s[..., %d:]" % (a.name, rng.randint(0, a.shape[-1]))
    if r == 2:
        return "%s[::%d]" % (a.name, rng.randint(1, 3))
    if r == 3:
        hi = a.shape[0] + (3 if bad else 0)
        idx = [rng.randrange(-a.shape[0], hi) for _ in range(rng.randint(0, 4))] if hi > 0 else []
        return "%s[torch.tensor(%r, dtype=torch.int64, device=dev)]" % (a.name, idx) if idx else "%s[:0]" % a.name
    if r == 4:
        m = _pick(rng, pool, lambda v: v.dtype == "bool" and (bad or _broadcastable(a.shape, v.shape)))
        if m is not None:
            return "torch.where(%s, %s, %s)" % (m.name, a.name, _lit(rng.choice([0, -1.5, float("nan")])))
        return "%s > 0" % a.name
    return "torch.masked_fill(%s, %s > 0, %s)" % (a.name, a.name, _lit(rng.choice([0, 7, -2.5])))


def _inplace_step(rng, a, pool, bad):
    r = rng.randrange(5)
    b = _pick(rng, pool, lambda v: v is not a and _broadcastable(a.shape, v.shape)
              and len(v.shape) <= len(a.shape) and all(x == 1 or x == y for x, y in zip(v.shape[::-1], a.shape[::-1])))
    if r == 0 and b is not None:
        return "%s.add_(%s)" % (a.name, b.name)
    if r == 1:
        return "%s.mul_(%s)" % (a.name, _lit(rng.choice([2, -1, 0.5])))
    if r == 2 and a.dtype != "bool":
        return "%s.clamp_(%s, %s)" % (a.name, _lit(rng.choice([-1, 0])), _lit(rng.choice([1, 3])))
    if r == 3 and len(a.shape) >= 1 and a.shape[0] > 0:
        return "%s.__setitem__(%d, %s) or %s" % (a.name, rng.randrange(a.shape[0]), _lit(rng.choice([5, -1, 0])), a.name)
    return "%s.zero_()" % a.name


def _wide_step(rng, a, bad):
    """--wide: the families the steps above never draw: gather/index_add with repeated indices,
    convolution, transposed convolution, pooling, interpolation, layer_norm (floats reshaped to 4-d),
    int64 sums and scans, in-place writes through a strided view of a copy."""
    nd, n = len(a.shape), math.prod(a.shape)
    d = _dim(rng, a, bad)
    r = rng.randrange(8)
    if r == 0 and nd and a.shape[d % nd] > 0:
        idx = [rng.randrange(a.shape[d % nd]) for _ in range(rng.randint(1, 4))]
        shape = list(a.shape)
        shape[d % nd] = len(idx)
        index = [idx[(k // math.prod(shape[d % nd + 1:])) % len(idx)] for k in range(math.prod(shape))]
        return "torch.gather(%s, %d, torch.tensor(%r, dtype=torch.int64, device=dev).reshape(%r))" % (a.name, d, index, tuple(shape))
    if r == 1 and nd and a.shape[d % nd] > 0:
        idx = [rng.randrange(a.shape[d % nd]) for _ in range(a.shape[d % nd])]
        return "%s.index_add(%d, torch.tensor(%r, dtype=torch.int64, device=dev), %s)" % (a.name, d, idx, a.name)
    if r == 2:
        return "torch.%s(%s.to(torch.int64) * 1000003, %d)" % (rng.choice(["sum", "cumsum", "prod", "amax"]), a.name, d)
    if r == 3 and nd:
        return "(lambda t: (t[..., ::2].%s_(%s), t)[1])(%s.clone())" % (
            rng.choice(["mul", "add", "sub"]), _lit(rng.choice([2, -1, 0.5, float("inf")])), a.name)
    if not a.is_float or n == 0:
        return "%s.clone()" % a.name
    rows, cols = (n // a.shape[-1], a.shape[-1]) if nd else (1, 1)
    x4 = "%s.reshape(1, 1, %d, %d)" % (a.name, rows, cols)
    k = rng.randint(1, 3)
    w = ", ".join(_lit(v) for v in _values(rng, k * k, "float32"))
    weight = "torch.tensor([%s], device=dev).reshape(1, 1, %d, %d)" % (w, k, k)
    if r == 4:
        return "torch.nn.functional.conv2d(%s, %s, padding=%d, stride=%d)" % (x4, weight, rng.randint(0, k - 1 if k > 1 else 0),
                                                                             rng.randint(1, 2))
    if r == 5:
        return "torch.nn.functional.conv_transpose2d(%s, %s, stride=%d, padding=%d)" % (x4, weight, rng.randint(1, 2),
                                                                                       rng.randint(0, k - 1))
    if r == 6:
        pool = rng.choice(["max_pool2d", "avg_pool2d"])
        return "torch.nn.functional.%s(%s, %d, ceil_mode=%r)" % (pool, x4, min(k, rows, cols), rng.random() < 0.5)
    mode = rng.choice(["nearest", "bilinear", "bicubic", "area", "layer_norm"])
    if mode == "layer_norm":
        return "torch.nn.functional.layer_norm(%s, (%d,))" % (a.name, a.shape[-1]) if nd else "%s.clone()" % a.name
    return "torch.nn.functional.interpolate(%s, size=(%d, %d), mode=%r)" % (x4, rng.randint(1, 5), rng.randint(1, 5), mode)


MORE_UNARY = ["deg2rad", "rad2deg", "lgamma", "digamma", "erfc", "erfinv", "i0", "sinc", "logit", "log10", "sgn",
              "fix", "signbit", "isneginf", "isposinf", "positive", "asinh", "acosh", "atanh", "acos",
              "special.expit", "special.i1", "special.gammaln", "special.psi",
              "nn.functional.mish", "nn.functional.hardswish", "nn.functional.hardsigmoid", "nn.functional.selu",
              "nn.functional.celu", "nn.functional.logsigmoid", "nn.functional.softsign",
              "nn.functional.tanhshrink", "nn.functional.relu6", "nn.functional.leaky_relu"]
MORE_BINARY = ["xlogy", "special.xlogy", "special.zeta", "logaddexp", "logaddexp2", "copysign", "nextafter",
               "heaviside", "fmax", "fmin", "float_power", "true_divide", "ldexp", "igamma", "igammac", "isclose"]
MORE_INTEGER = ["gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift"]  # drawn over integer operands
MORE_DIM = ["nansum", "nanmean", "logcumsumexp", "count_nonzero", "cumulative_trapezoid", "trapezoid"]
MORE_DIM_TUPLE = ["cummax", "cummin", "nanmedian", "median", "mode", "std_mean", "var_mean", "aminmax"]


def _more_step(rng, pool, bad):
    """--more: ops the steps above never draw (special functions, nan-reductions, scans, histograms and
    buckets, scatter_reduce/index_reduce, cov/corrcoef, diff, lerp/addcdiv, polygamma), over any input
    dtype (torch's refusals of int or bool inputs must be webtorch's too)."""
    a = rng.choice(pool)
    if rng.random() < 0.75:
        a = _pick(rng, pool, lambda v: v.is_float) or a
    nd, n = len(a.shape), math.prod(a.shape)
    d = _dim(rng, a, bad)
    r = rng.randrange(14)
    if r < 3:
        return "torch.%s(%s)" % (rng.choice(MORE_UNARY), a.name)
    if r < 5:
        op = rng.choice(MORE_BINARY + MORE_INTEGER)
        if op in MORE_INTEGER and not bad:
            a = _pick(rng, pool, lambda v: v.dtype in ("int64", "int32", "bool")) or a
        b = _pick(rng, pool, lambda v: v is not a and (bad or _broadcastable(a.shape, v.shape)))
        rhs = b.name if b is not None and rng.random() < 0.75 else _lit(rng.choice([2, -1, 0, 0.5, 3, float("inf")]))
        if op == "ldexp" and rng.random() < 0.7:
            rhs = "torch.tensor(%s, device=dev)" % _lit(rng.choice([2, -3, 10, 130, -150]))
        return "torch.%s(%s, %s)" % (op, a.name, rhs)
    if r == 5:
        op = rng.choice(MORE_DIM)
        if op == "count_nonzero" and rng.random() < 0.3:
            return "torch.count_nonzero(%s)" % a.name
        return "torch.%s(%s, dim=%d)" % (op, a.name, d)
    if r == 6:
        op = rng.choice(MORE_DIM_TUPLE)
        part = rng.randrange(2)
        if op == "aminmax":
            return "torch.aminmax(%s%s)[%d]" % (a.name, ", dim=%d" % d if rng.random() < 0.6 else "", part)
        if op in ("std_mean", "var_mean"):
            return "torch.%s(%s, %d, correction=%d)[%d]" % (op, a.name, d, rng.choice([0, 1, 2]), part)
        if op in ("nanmedian", "median") and rng.random() < 0.3:
            return "torch.%s(%s)" % (op, a.name)
        return "torch.%s(%s, %d)[%d]" % (op, a.name, d, part)
    if r == 7:
        q = rng.choice(["0.5", "0.0", "1.0", "0.3", "torch.tensor([0.25, 0.75], device=dev)", "1.5" if bad else "0.9"])
        return "torch.%s(%s, %s, dim=%d, interpolation=%r)" % (rng.choice(["quantile", "nanquantile"]), a.name, q, d, rng.choice(
            ["linear", "lower", "higher", "midpoint", "nearest"]))
    if r == 8:
        k = rng.randint(1, 3)
        extra = ""
        if nd and a.shape[d % nd] and rng.random() < 0.3:
            extra = ", prepend=%s.narrow(%d, 0, 1)" % (a.name, d)
        return "torch.diff(%s, n=%d, dim=%d%s)" % (a.name, k, d, extra)
    if r == 9:
        bounds = sorted(_values(rng, rng.randint(0, 5), "float32" if a.is_float or rng.random() < 0.5 else a.dtype),
                        key=lambda v: (v != v, v))
        dtype = "float32" if any(isinstance(v, float) for v in bounds) else "int64"
        seq = "torch.tensor([%s], dtype=torch.%s, device=dev)" % (", ".join(_lit(v) for v in bounds), dtype)
        right = rng.random() < 0.5
        if rng.random() < 0.5:
            return "torch.bucketize(%s, %s, right=%r)" % (a.name, seq, right)
        return "torch.searchsorted(%s, %s, right=%r)" % (seq, a.name, right)
    if r == 10:
        lo, hi = rng.choice([(0, 0), (-1, 1), (0, 3), (-2.5, 1e4), (1, 1), (2, -2) if bad else (0, 1)])
        return "torch.histc(%s, bins=%d, min=%s, max=%s)" % (a.name, rng.randint(1, 6), _lit(lo), _lit(hi))
    if r == 11 and nd and a.shape[d % nd] > 0:
        size = a.shape[d % nd]
        include = rng.random() < 0.5
        if rng.random() < 0.5:
            idx = [rng.randrange(size) for _ in range(n)]
            return ("torch.scatter_reduce(%s, %d, torch.tensor(%r, dtype=torch.int64, device=dev).reshape(%r), %s, %r, "
                    "include_self=%r)") % (a.name, d, idx, a.shape, a.name, rng.choice(["sum", "prod", "mean", "amax", "amin"]),
                                           include)
        idx = [rng.randrange(size) for _ in range(size)]
        return "%s.index_reduce(%d, torch.tensor(%r, dtype=torch.int64, device=dev), %s, %r, include_self=%r)" % (
            a.name, d, idx, a.name, rng.choice(["prod", "mean", "amax", "amin"]), include)
    if r == 12:
        op = rng.choice(["cov", "corrcoef"])
        x = a.name if nd <= 2 else "%s.reshape(%d, -1)" % (a.name, a.shape[0])
        if op == "cov" and rng.random() < 0.5:
            return "torch.cov(%s, correction=%d)" % (x, rng.choice([0, 1, 2]))
        return "torch.%s(%s)" % (op, x)
    b = _pick(rng, pool, lambda v: v is not a and (bad or _broadcastable(a.shape, v.shape)))
    other = b.name if b is not None else _lit(rng.choice([2.0, -0.5]))
    op = rng.choice(["lerp", "addcdiv", "addcmul", "polygamma", "mvlgamma", "clamp"])
    if op == "lerp":
        return "torch.lerp(%s, %s, %s)" % (a.name, other if b is not None else a.name, _lit(rng.choice([0.5, 2.0, -1.0])))
    if op in ("addcdiv", "addcmul"):
        return "torch.%s(%s, %s, %s, value=%s)" % (op, a.name, a.name, other, _lit(rng.choice([1, 0.5, -2])))
    if op == "polygamma":
        return "torch.polygamma(%d, %s)" % (rng.choice([0, 1, 2, 3]), a.name)
    if op == "mvlgamma":
        return "torch.mvlgamma(%s, p=%d)" % (a.name, rng.choice([1, 2, 3]))
    return "torch.clamp(%s, min=%s, max=%s)" % (a.name, other, _lit(rng.choice([0.0, 1.0, float("nan")])))


def generate(seed, n_steps=None, wide=False, more=False):
    """A program (list of statements) for a seed; runs torch while drawing it to know the shapes."""
    import torch
    rng = random.Random(seed)
    lines, pool = [], []
    env = {"torch": torch, "dev": "cpu"}
    base = _shape(rng)
    for i in range(rng.randint(1, 3)):
        shape = base if rng.random() < 0.6 else (_shape(rng) if rng.random() < 0.5 else base[rng.randint(0, len(base)):])
        dtype = rng.choice(DTYPES)
        line = _input_source(rng, "x%d" % i, shape, dtype)
        exec(line, env)
        lines.append(line)
        pool.append(Var("x%d" % i, shape, dtype))
    for i in range(n_steps or rng.randint(1, 7)):
        rhs = _step(rng, pool, wide, more)
        name = "v%d" % i
        line = "%s = %s" % (name, rhs)
        try:
            exec(line, env)
        except Exception:  # noqa: BLE001 - a bad input: it ends the program (webtorch must raise too)
            lines.append(line)
            break
        lines.append(line)
        val = env[name]
        if isinstance(val, torch.Tensor) and val.numel() <= 4096:
            pool.append(Var(name, val.shape, str(val.dtype).split(".")[-1]))
        elif isinstance(val, torch.Tensor):
            break
    return lines


# -- running and comparing ------------------------------------------------------------------------
class Outcome:
    """What running a program gave: per statement a plain result or an exception."""

    def __init__(self):
        self.steps = []        # (line index, plain or None)
        self.error = None      # (line index, exception)
        self.final = {}
        self.env = None        # the variables after the run


def run(T, lines, device, env=None):
    env = {"torch": T, "dev": device} if env is None else env
    out = Outcome()
    out.env = env
    for i, line in enumerate(lines):
        try:
            exec(line, env)
            name = line.split(" = ", 1)[0]
            out.steps.append((i, _plain(env[name])))
        except Exception as e:  # noqa: BLE001
            out.error = (i, e)
            return out
    try:
        out.final = {k: _plain(v) for k, v in env.items() if k[0] in "xv" and k[1:].isdigit()}
    except Exception as e:  # noqa: BLE001
        out.error = (len(lines), e)
    return out


def _plain(v):
    if hasattr(v, "tolist") and hasattr(v, "dtype"):
        return to_plain(v)
    if isinstance(v, (bool, int, float, type(None))):
        return to_plain(v)
    return {"kind": "none"}


def compare(expected, actual, device):
    """None, or (kind, line index, message)."""
    if expected.error is not None:
        i, e = expected.error
        if actual.error is None:
            if str(e) == "ZeroDivisionError":
                return None  # docs/limits.md: integer division by zero gives 0
            return "EXCEPTION-MISMATCH", i, "torch raises %s: %s; webtorch on %s does not" % (
                type(e).__name__, _msg(e), device)
        j, a = actual.error
        if j < i:
            return _crash_or_refusal(a, j, device)
        if type(a) is not type(e):
            return "EXCEPTION-MISMATCH", i, "torch raises %s: %s; webtorch on %s raises %s: %s" % (
                type(e).__name__, _msg(e), device, type(a).__name__, _msg(a))
    elif actual.error is not None:
        j, a = actual.error
        return _crash_or_refusal(a, j, device)
    for (i, e), (_, a) in zip(expected.steps, actual.steps):
        if device == "webgpu" and _beyond_int32(e):
            return None  # docs/limits.md: int64 is 32 bits on the GPU (wraps)
        msg = _mismatch(a, e)
        if msg:
            return "WRONG-VALUE", i, msg
    for k, e in expected.final.items():
        msg = _mismatch(actual.final.get(k, {"kind": "none"}), e)
        if msg:
            return "WRONG-VALUE", len(expected.steps) - 1, "final value of %s: %s" % (k, msg)
    return None


def _beyond_int32(plain):
    return plain.get("dtype") == "int64" and any(not -2**31 <= v < 2**31 for v in plain["values"])


def _crash_or_refusal(exc, i, device):
    if clear_refusal(exc):
        return None
    return "CRASH", i, "webtorch on %s raises %s: %s (torch computes)" % (device, type(exc).__name__, _msg(exc))


def _msg(e):
    s = str(e).strip().splitlines()
    return s[0][:200] if s else ""


def _mismatch(a, e):
    try:
        assert_close(a, e, name="value", **TOL)
    except AssertionError as err:
        return str(err).splitlines()[0][:300]
    return None


def check(lines, devices=DEVICES):
    """[(device, kind, line index, message)] for a program."""
    import torch
    import webtorch
    expected = run(torch, lines, "cpu")
    found = []
    for d in devices:
        actual = run(webtorch, lines, d)
        r = compare(expected, actual, d)
        if r and r[0] == "WRONG-VALUE":
            r = triage(lines, r[1], d, expected, actual, r[2])
        if r:
            found.append((d,) + r)
    return found


_INPLACE = re.compile(r"\.\w+_\(|__setitem__")


def triage(lines, i, device, expected, actual, message):
    """(kind, line index, message) of a WRONG-VALUE at statement i (message "final value of ...": in a
    variable's value at the end) by its cause:
      ALIASING     the variables share memory differently in torch and webtorch (a result that is a
                   view in one and a copy in the other: docs/limits.md, memory layouts) and an
                   in-place write went through one of them
      UNDEFINED    statement i writes in place into a tensor that one of its operands overlaps (not
                   the tensor itself): torch's result follows its loop order (docs/limits.md)
    or else element by element (each differing element of statement i's tensor needs a cause):
      AMPLIFIED    see amplified()
      ROUNDING     see within_rounding()
      WRONG-VALUE  (kept with its message for known_reason) each element a documented limit (docs/limits.md) of KNOWN
      MIXED        (not a bug) each element one of these, not all the same (the causes are counted)
      WRONG-VALUE  some element none of these: the message names the first such"""
    import torch
    import webtorch
    final = message.startswith("final value")
    if final:
        env_t, env_w, upto = expected.env, actual.env, len(lines)
    else:
        env_t, env_w, upto = run(torch, lines[:i], "cpu").env, run(webtorch, lines[:i], device).env, i
    if any(_INPLACE.search(l) for l in lines[:upto]) and _alias_groups(env_t, torch) != _alias_groups(env_w, webtorch):
        return "ALIASING", i, message
    if final:  # each differing element a documented limit (docs/limits.md), else the message names one that is not
        name = message[len("final value of "):].split(":", 1)[0]
        want, got = expected.final[name], actual.final.get(name, {"kind": "none"})
        differ = differing(got, want, **TOL) if _same_layout(got, want) else []
        for k in differ:
            reason, element = _known_element(lines, i, device, got, want, k, len(differ))
            if not reason:
                return "WRONG-VALUE", i, "final value of %s: %s" % (name, element)
        return "WRONG-VALUE", i, message
    names = _names(lines[i])
    target = lines[i].split(" = ", 1)[1].split(".", 1)[0]
    if _INPLACE.search(lines[i]) and target in env_t and any(
            _overlaps(env_t[target], env_t[n]) for n in names if n != target and isinstance(env_t.get(n), torch.Tensor)):
        return "UNDEFINED", i, message
    want, got = dict(expected.steps)[i], dict(actual.steps)[i]
    if not _same_layout(got, want):  # no elements to pair: the whole result
        return ("AMPLIFIED" if amplified(lines, i, device, want, env_t, env_w) else "WRONG-VALUE"), i, message
    causes, unexplained = element_causes(lines, i, device, want, got, env_t, env_w)
    if unexplained:
        return "WRONG-VALUE", i, unexplained + (" (%d explained: %s)" % (len(causes), _count(causes.values()))
                                                if causes else "")
    kinds = set(causes.values())
    if len(kinds) > 1:
        return "MIXED", i, "%s (%s)" % (message, _count(causes.values()))
    return ("WRONG-VALUE" if kinds == {"KNOWN"} else kinds.pop()), i, message


def element_causes(lines, i, device, want, got, env_t, env_w):
    """({flat index: "AMPLIFIED" | "ROUNDING" | "KNOWN"}, message naming an unexplained element or None)
    for statement i's result got, which differs from torch's (want) in some elements (plain tensors of
    one shape and dtype). An element is AMPLIFIED where statement i on torch's inputs agrees with torch;
    where that run differs from torch in an element the program got right, the element needs a cause too."""
    def rounding(values):
        return set(within_rounding(lines[i], env_t, want, values)) if _SUMS.search(lines[i]) else set()

    differ = differing(got, want, **TOL)
    causes = {}
    synced = amplified_values(lines, i, device, env_t, env_w)
    if synced is not None and _same_layout(synced, want):
        synced_differ = differing(synced, want, **TOL)
        causes.update((k, "AMPLIFIED") for k in set(differ) - set(synced_differ))
        for k in sorted(set(synced_differ) - set(differ) - rounding(synced)):
            reason, message = _known_element(lines, i, device, synced, want, k, len(synced_differ))
            if not reason:
                return causes, message + " on torch's inputs"
    causes.update((k, "ROUNDING") for k in rounding(got) if k in differ and k not in causes)
    for k in differ:
        if k not in causes:
            reason, message = _known_element(lines, i, device, got, want, k, len(differ))
            if not reason:
                return causes, message
            causes[k] = "KNOWN"
    return causes, None


def _known_element(lines, i, device, got, want, k, count):
    """(the KNOWN reason or None, the message) of element k of got differing from want at statement i."""
    message = "value: " + value_difference(got, want, k, count, **TOL)
    return known_reason({"kind": "WRONG-VALUE", "device": device, "statement": lines[i], "message": message,
                         "program": "\n".join(lines)}), message


def _same_layout(a, b):
    return a.get("kind") == b.get("kind") == "tensor" and a["shape"] == b["shape"] and a["dtype"] == b["dtype"]


def _count(kinds):
    counts = {}
    for k in kinds:
        counts[k] = counts.get(k, 0) + 1
    return ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items()))


_SUMS = re.compile(r"torch\.(matmul|sum|mean|cumsum)\(")


def within_rounding(line, env_t, want, got):
    """The flat indices where a sum's two results (torch's, webtorch's) both lie within float32's error
    bound of it, n 2^-24 sum|terms| (the statement run in float64 on |inputs| gives sum|terms|): a sum
    that cancels (1e4-sized terms summing to 4347) is only that accurate, whatever the order of its additions."""
    import torch
    names = _names(line)
    if not all(isinstance(env_t.get(n), torch.Tensor) and env_t[n].is_floating_point() for n in names) or \
            not _same_layout(want, got):
        return []
    env = {"torch": torch, "dev": "cpu"}
    env.update({n: env_t[n].abs().double() for n in names})
    step = run(torch, [line], "cpu", env)
    if step.error or step.steps[0][1].get("kind") != "tensor" or step.steps[0][1]["shape"] != want["shape"]:
        return []
    terms = _dec(step.steps[0][1]["values"])
    n = max(env_t[n].numel() for n in names)
    return [k for k, (a, e, t) in enumerate(zip(_dec(got["values"]), _dec(want["values"]), terms))
            if abs(a - e) <= 2 * n * 2.0 ** -24 * t + TOL["atol"]]


def _dec(values):
    return [float(v) for v in values]


def _names(line):
    return sorted(set(re.findall(r"\b[xv]\d+\b", line.split(" = ", 1)[1])))


def _alias_groups(env, T):
    """Which variables share memory: a set of sets of names (empty tensors left out)."""
    groups = {}
    for k, v in env.items():
        if isinstance(v, T.Tensor) and v.numel():
            key = v.untyped_storage().data_ptr() if T.__name__ == "torch" else id(v._storage)
            groups.setdefault(key, set()).add(k)
    return {frozenset(g) for g in groups.values()}


def _overlaps(a, b):
    """Whether torch tensor b shares a's memory without being a itself."""
    same = (a.data_ptr(), a.shape, a.stride()) == (b.data_ptr(), b.shape, b.stride())
    return a.numel() and b.numel() and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr() and not same


def amplified(lines, i, device, want, env_t, env_w):
    """Whether the WRONG-VALUE of statement i is its inputs' doing: they already differ from torch's
    (each earlier step agreed within TOL: an ulp, a zero's sign, a subnormal), and statement i run on
    torch's exact input values agrees with torch. E.g. x / gelu(x) near gelu's zero, or sin(std(x))
    of a large std: the difference an ill-conditioned op amplifies is no wrong value of that op."""
    synced = amplified_values(lines, i, device, env_t, env_w)
    return synced is not None and _mismatch(synced, want) is None


def amplified_values(lines, i, device, env_t, env_w):
    """Statement i's plain result on webtorch from torch's exact input values, where its inputs differ
    from torch's (else None: the same inputs, so statement i itself is wrong; or it raised)."""
    import torch
    import webtorch
    names = _names(lines[i])
    if not all(isinstance(env_t.get(n), torch.Tensor) and n in env_w for n in names):
        return None
    if all(_same_bits(env_t[n].tolist(), env_w[n].tolist()) for n in names):
        return None
    env = {"torch": webtorch, "dev": device}
    for n in names:
        t = env_t[n]
        env[n] = webtorch.tensor(t.tolist(), dtype=getattr(webtorch, str(t.dtype).split(".")[-1]), device=device)
    synced = run(webtorch, [lines[i]], device, env)
    return None if synced.error is not None else synced.steps[0][1]


def _same_bits(a, b):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same_bits(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return (a != a and b != b) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return type(a) is type(b) and a == b


# -- minimising ----------------------------------------------------------------------------------
def minimise(lines, device, kind):
    """A shorter program that still fails with the same kind on device."""
    def fails(cand):
        try:
            return any(k == kind for _, k, _, _ in check(cand, (device,)))
        except Exception:  # noqa: BLE001
            return False

    changed = True
    while changed:
        changed = False
        for i in range(len(lines) - 1, -1, -1):
            cand = _drop(lines, i)
            if cand is not None and fails(cand):
                lines, changed = cand, True
        for i, line in enumerate(lines):
            for simpler in _simplify(line):
                cand = lines[:i] + [simpler] + lines[i + 1:]
                if fails(cand):
                    lines, changed = cand, True
                    break
    return lines


def _drop(lines, i):
    """lines without statement i (None if a later statement uses its variable and cannot do without)."""
    name = lines[i].split(" = ", 1)[0]
    rest = lines[:i] + lines[i + 1:]
    uses = re.compile(r"\b%s\b" % re.escape(name))
    if any(uses.search(l.split(" = ", 1)[1]) for l in lines[i + 1:]):
        return None
    return rest


def _simplify(line):
    """Simpler variants of an input statement: a contiguous layout, fewer distinct values."""
    out = []
    if line.startswith("x") and "torch.tensor(" in line:
        head, _, view = line.partition(".reshape(")
        shape, _, tail = view.partition(")")
        if tail:
            out.append(head + ".reshape(" + shape + ")")
    return out


def repro(lines, device):
    body = "\n".join(lines)
    return ("import webtorch as torch   # and `import torch` gives the expected values\n"
            "dev = %r\n%s\nprint(%s)" % (device, body, lines[-1].split(" = ", 1)[0]))


def fuzz(seeds, deadline=None, verbose=True, known=known_reason, wide=False, more=False):
    """Run the programs of seeds (until deadline); returns (programs run, findings). A finding is a
    dict: seed, device, kind, statement, message, repro (minimised unless known(finding) names it)."""
    findings, ran = [], 0
    for seed in seeds:
        if deadline is not None and time.time() > deadline:
            break
        ran += 1
        lines = generate(seed, wide=wide, more=more)
        for device, kind, i, msg in check(lines):
            f = {"seed": seed, "device": device, "kind": kind, "message": msg, "program": "\n".join(lines),
                 "statement": lines[i] if i < len(lines) else "(the end)"}
            f["known"] = known(f)
            f["repro"] = repro(lines if f["known"] else minimise(lines, device, kind), device)
            findings.append(f)
            if verbose:
                print("seed %d [%s] %s at `%s`%s\n  %s\n%s\n" % (
                    seed, device, kind, f["statement"], " (known: %s)" % f["known"] if f["known"] else "",
                    msg, _indent(f["repro"])), flush=True)
    return ran, findings


def _indent(text):
    return "\n".join("    " + l for l in text.splitlines())


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    p.add_argument("--count", type=int, default=None, help="programs to run")
    p.add_argument("--minutes", type=float, default=None, help="stop after this long")
    p.add_argument("--show", action="store_true", help="print each program")
    p.add_argument("--wide", action="store_true", help="also draw the families of _wide_step (not in tests/test_fuzz.py's seeds)")
    p.add_argument("--more", action="store_true", help="also draw the ops of _more_step (special functions, nan-reductions, "
                   "scans, histc/bucketize, scatter_reduce/index_reduce, cov/corrcoef, diff, ...)")
    args = p.parse_args(argv)
    start = time.time()
    deadline = start + 60 * args.minutes if args.minutes else None
    count = args.count if args.count is not None else (10**9 if deadline else 100)
    seeds = range(args.seed, args.seed + count)
    if args.show:
        for s in seeds:
            print("# seed %d\n%s\n" % (s, "\n".join(generate(s, wide=args.wide, more=args.more))))
    ran, findings = fuzz(seeds, deadline, wide=args.wide, more=args.more)
    kinds = {}
    for f in findings:
        kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
    print("%d programs (seeds %d..%d) in %.0f s: %s (%d of them known: documented limits (docs/limits.md), or no bug)" % (ran, args.seed, args.seed + ran - 1, time.time() - start,
          ", ".join("%d %s" % (v, k) for k, v in sorted(kinds.items())) or "no failures",
          sum(1 for f in findings if f["known"])))
    return 1 if any(not f["known"] for f in findings) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
