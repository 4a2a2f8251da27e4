"""Every float32 elementwise op over the whole float32 range against torch 2.13 (issue 11).

The sample: each binade from the subnormals to the largest floats (a few mantissas each), both
signs, +-0, +-inf, NaN, and points where ops are delicate (near 1, near multiples of pi/2, huge
arguments of sin/cos/tan). Tolerance: torch's float32 default rtol (1.3e-6, as OpInfo) relative to
the expected value, and an absolute slack only below the smallest normal float (a GPU may flush
subnormal results to zero); the special functions with OpInfo's float32 (atol, rtol) for them. NaN
and the infinities must match exactly.
"""
import math
import os
import struct

import pytest
import torch

import webtorch
from webtorch.ops_table import ELEMENTWISE

DEVICES = [d for d in os.environ.get("WEBTORCH_TEST_DEVICES", "webgpu,cpu").split(",") if d]
RTOL = 1.3e-6
ATOL = 2.0 ** -126


def _f32(bits):
    return struct.unpack("f", struct.pack("I", bits))[0]


def _sample(per_binade):
    values = {0.0, -0.0, math.inf, -math.inf, math.nan}
    for exponent in range(0, 255):  # subnormals (exponent 0) up to the largest binade
        for k in range(per_binade):
            mantissa = (k * 0x2F0F1F + 0x1234) % (1 << 23) if k else 0
            bits = (exponent << 23) | mantissa
            if exponent == 0 and mantissa == 0:
                mantissa = 1 + k
                bits = mantissa
            for sign in (0, 1 << 31):
                values.add(_f32(bits | sign))
    for centre in (1.0, -1.0, math.pi / 2, math.pi, 3 * math.pi / 2, 2 * math.pi, 100 * math.pi, 0.5, 2.0):
        f = torch.tensor(centre, dtype=torch.float32).item()
        values.update(torch.nextafter(torch.full((6,), f), torch.tensor([-1e30, -1e30, -1e30, 1e30, 1e30, 1e30]))
                      .tolist())
    values.update([1e10, -1e10, 3e38, -3e38, 8191.5, 8192.5, 105615.0, 1e6 * math.pi, 88.7, 89.2, -103.9, 0.625,
                   20.0, 44.5, -17.5, 1e-10, -1e-10])
    return sorted(values, key=lambda v: (math.isnan(v), v))


UNARY_VALUES = _sample(6)
BINARY_VALUES = _sample(1)[::5]  # x every value: ~16k pairs

# op name -> torch function (the ops_table primitives with a float32 kernel)
UNARY = {
    "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "sin": torch.sin,
    "cos": torch.cos, "tan": torch.tan, "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu,
    "gelu": torch.nn.functional.gelu, "silu": torch.nn.functional.silu, "floor": torch.floor, "ceil": torch.ceil,
    "trunc": torch.trunc, "round": torch.round, "sign": torch.sign, "reciprocal": torch.reciprocal,
    "square": torch.square, "erf": torch.erf, "abs": torch.abs, "neg": torch.neg, "log1p": torch.log1p,
    "expm1": torch.expm1, "exp2": torch.exp2, "log2": torch.log2, "log10": torch.log10, "asin": torch.asin,
    "acos": torch.acos, "atan": torch.atan, "sinh": torch.sinh, "cosh": torch.cosh, "asinh": torch.asinh,
    "acosh": torch.acosh, "atanh": torch.atanh, "frac": torch.frac,
    # issue 14's special functions (and the derived sinc, logit)
    "digamma": torch.digamma, "erfinv": torch.erfinv, "erfc": torch.erfc, "i0": torch.i0, "special.i1": torch.special.i1,
    "lgamma": torch.lgamma, "sinc": torch.sinc, "logit": torch.logit,
}
BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "maximum": torch.maximum,
    "minimum": torch.minimum, "remainder": torch.remainder, "fmod": torch.fmod, "floor_divide": torch.floor_divide,
    "atan2": torch.atan2, "hypot": torch.hypot, "pow": torch.pow,
    "logaddexp": torch.logaddexp, "nextafter": torch.nextafter, "xlogy": torch.xlogy,
}
# Looser where the float32 algorithm cannot reach 1.3e-6 everywhere, each with the reason.
RTOL_OF = {}
# gelu's negative tail, 0.5 x (1 + erf(x / sqrt 2)), is a multiple of erf's ulp near -1 (6e-8), as
# in torch: an erf one ulp off moves such a value by that much (OpInfo's float32 atol is 1e-5).
ATOL_OF = {"gelu": 1e-6}
# The special functions with OpInfo's float32 tolerances for them (atol, rtol): torch's own kernels
# are accurate to these, not to 1.3e-6 relative near their zeros and poles.
for _name, (_atol, _rtol) in {"digamma": (1e-5, 3.1e-6), "lgamma": (2e-4, 4e-6), "special.i1": (1e-4, 1.3e-6),
                              "erfinv": (1e-5, 1.3e-6), "erfc": (1e-5, 1.3e-6), "i0": (1e-5, 1.3e-6), "sinc": (1e-5, 1.3e-6),
                              "logit": (1e-5, 1.3e-6), "logaddexp": (1e-5, 1.3e-6), "xlogy": (1e-5, 1.3e-6)}.items():
    ATOL_OF[_name], RTOL_OF[_name] = _atol, _rtol


# Integer-only kernels, and variants swept through another name (gelu_tanh is gelu(approximate="tanh"),
# trunc_divide div(rounding_mode="trunc")): listed here so that the next new kernel cannot slip past the sweep.
NOT_SWEPT = {"copy", "where", "logical_not", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
             "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "gcd", "gelu_tanh", "trunc_divide"}


def test_every_float_kernel_is_swept():
    float_ops = {name for name, op in ELEMENTWISE.items() if op.out != "bool" and op.arity in (1, 2)} - NOT_SWEPT
    swept = {name.split(".")[-1] for name in list(UNARY) + list(BINARY)}
    assert float_ops <= swept, sorted(float_ops - swept)


def _close(actual, expected, rtol, atol=ATOL, exact=None):
    """The indices where actual is close to neither torch's float32 value nor (exact) the float64 one
    rounded to float32: torch's float32 at the edges depends on its CPU path (gelu of 1.7e38..3e38 is inf
    in some, finite in others), the float64 value is what each should round to."""
    bad = []
    for i, (a, e) in enumerate(zip(actual, expected)):
        if not (_close1(a, e, rtol, atol) or (exact is not None and _close1(a, exact[i], rtol, atol))):
            bad.append(i)
    return bad


def _close1(a, e, rtol, atol):
    if math.isnan(e) or math.isnan(a) or math.isinf(e) or math.isinf(a):
        return (math.isnan(a) and math.isnan(e)) or a == e
    return abs(a - e) <= atol + rtol * abs(e) and (e != 0 or a == 0 or abs(a) <= atol)


def resolve(T, name):
    """T.name, T.special.i1 for "special.i1", or T.nn.functional.name."""
    obj = T if hasattr(T, name.split(".")[0]) else T.nn.functional
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _run(T, name, device, *values):
    fn = resolve(T, name)
    tensors = [T.tensor(v, dtype=T.float32, device=device) for v in values]
    return fn(*tensors).tolist()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_over_float32_range(name, device):
    x = UNARY_VALUES
    # sinh and cosh: torch's scalar path is right up to 89.41, its vectorised float32 path (16
    # elements and more) overflows from 88.72; float64 gives the value both should round to
    dtype = torch.float64 if name in ("sinh", "cosh") else torch.float32
    expected = UNARY[name](torch.tensor(x, dtype=torch.float32).to(dtype)).float().tolist()
    exact = UNARY[name](torch.tensor(x, dtype=torch.float32).double()).float().tolist()
    actual = _run(webtorch, name, device, x)
    bad = _close(actual, expected, RTOL_OF.get(name, RTOL), ATOL_OF.get(name, ATOL), exact)
    assert not bad, f"{name}[{device}]: {len(bad)} of {len(x)} differ, e.g. " + ", ".join(
        f"x={x[i]!r}: {actual[i]!r} (torch {expected[i]!r})" for i in bad[:6])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_over_float32_range(name, device):
    a = [u for u in BINARY_VALUES for _ in BINARY_VALUES]
    b = [v for _ in BINARY_VALUES for v in BINARY_VALUES]
    # fmod and remainder are exact: torch's scalar path is, its vectorised float32 path (16 elements
    # and more) gives NaN where a / b overflows; float64 gives the exact value of both
    dtype = torch.float64 if name in ("fmod", "remainder") else torch.float32
    expected = BINARY[name](torch.tensor(a, dtype=torch.float32).to(dtype),
                            torch.tensor(b, dtype=torch.float32).to(dtype)).float().tolist()
    exact = None if name == "nextafter" else BINARY[name](torch.tensor(a, dtype=torch.float32).double(),
                                                          torch.tensor(b, dtype=torch.float32).double()).float().tolist()
    actual = _run(webtorch, name, device, a, b)
    bad = _close(actual, expected, RTOL_OF.get(name, RTOL), ATOL_OF.get(name, ATOL), exact)
    assert not bad, f"{name}[{device}]: {len(bad)} of {len(a)} differ, e.g. " + ", ".join(
        f"({a[i]!r}, {b[i]!r}): {actual[i]!r} (torch {expected[i]!r})" for i in bad[:6])


@pytest.mark.parametrize("device", DEVICES)
def test_clamp_and_softplus_edges(device):
    x = [-math.inf, -3.0, -0.0, 0.0, 0.5, 2.0, math.inf, math.nan]
    for lo, hi in ((0.0, math.nan), (math.nan, 1.0), (-1.0, 1.0), (2.0, 1.0)):
        expected = torch.clamp(torch.tensor(x), lo, hi).tolist()
        actual = webtorch.clamp(webtorch.tensor(x, device=device), lo, hi).tolist()
        assert not _close(actual, expected, RTOL), (lo, hi, actual, expected)
    y = [-100.0, -8.0, -1e-3, 0.0, 3.0, 9.0, 11.0, 50.0]
    for beta, threshold in ((1.0, 20.0), (2.0, 20.0), (0.5, 5.0)):
        expected = torch.nn.functional.softplus(torch.tensor(y), beta, threshold).tolist()
        actual = webtorch.nn.functional.softplus(webtorch.tensor(y, device=device), beta, threshold).tolist()
        assert not _close(actual, expected, RTOL), (beta, threshold, actual, expected)
