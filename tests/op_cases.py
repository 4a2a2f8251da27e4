"""The op-case table shared by the host tests and the in-browser (Pyodide) tests.

Standard library only: no torch, no numpy, no pytest.  The same table runs

* on the host (tests/test_ops.py): webtorch on "webgpu" and "cpu" against torch;
* in Pyodide: webtorch against expected values that torch produced on the host
  (see ``python tests/compare.py OUT.json``).

Conventions
-----------
Every case function has the signature ``fn(T, dev, *tensors)``:

* ``T`` is the module: ``torch`` or ``webtorch`` (read it as ``torch``);
* ``dev`` is the device string ("cpu", "webgpu"); the inputs are already on it,
  so only creation ops (``T.zeros(..., device=dev)``) need it;
* ``tensors`` are built from the case's ``inputs`` with ``build``.

It returns a tensor, a (named)tuple/list of results (each compared), a Python
bool/int/float, or None.

Inputs are ``Input(shape, dtype="float32", kind=..., layout="contiguous")``:

* dtype: "float32", "float16", "int32", "int64", "bool" (no float64: WebGPU has no f64;
  float16 cases are listed in FLOAT16_CASES; on a GPU without "shader-f16" float16 is emulated);
* kind (default: "randn" for floats, "int" for ints, "bool" for bool):
    "randn"     gauss(0, 1)
    "uniform"   uniform(low, high), default [-1, 1]
    "positive"  uniform(low, high), default [0.1, 10]  (log, sqrt, rsqrt, ...)
    "int"       randint(low, high), default [-5, 5]
    "nonzero"   like "int" without 0 (integer divisors)
    "unique"    distinct values (no ties, for argmax/max indices), shuffled
    "halves"    multiples of 0.5 in [low, high], default [-4, 4] (round/floor)
    "bool"      random True/False
    "edge"      NaN, +inf, -inf, 0, -0, +-1e30, +-1e-30, 1, -1, 0.5, -2.5, ...
    "values"    the explicit ``values`` list, cycled to fill the shape
* layout (same logical values, different memory layout):
    "contiguous" plain
    "transposed" stored with reversed dims, then ``.permute`` back
    "strided"    stored in a tensor twice as large in every dim, sliced ``::2``
    "offset"     stored with one extra leading row, sliced ``[1:]`` (offset != 0)
    "expanded"   stored with shape[0] == 1, then ``.expand`` (stride 0); all
                 rows along dim 0 are therefore equal

Values are drawn from ``random.Random(crc32(case name))``, input after input,
so they are identical on every machine and Python version.
"""

import random
import zlib

__all__ = ["Input", "OpCase", "ErrorCase", "CASES", "ERROR_CASES", "build",
           "build_inputs", "run_case", "inputs_digest", "DTYPES", "FLOAT16_CASES"]

DTYPES = ("float32", "float16", "int32", "int64", "bool")
LAYOUTS = ("contiguous", "transposed", "strided", "offset", "expanded")
NAN = float("nan")
INF = float("inf")

EDGE_FLOATS = [NAN, INF, -INF, 0.0, -0.0, 1e30, -1e30, 1e-30, -1e-30,
               1.0, -1.0, 0.5, -0.5, 2.5, -3.5, 100.0]


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class Input:
    def __init__(self, shape, dtype="float32", kind=None, layout="contiguous",
                 low=None, high=None, values=None):
        assert dtype in DTYPES, dtype
        assert layout in LAYOUTS, layout
        if kind is None:
            kind = {"float32": "randn", "float16": "randn", "bool": "bool"}.get(dtype, "int")
        if values is not None:
            kind = "values"
        self.shape = tuple(shape)
        self.dtype = dtype
        self.kind = kind
        self.layout = layout
        self.low = low
        self.high = high
        self.values = None if values is None else list(values)
        if layout in ("expanded", "offset"):
            assert len(self.shape) >= 1, "layout %r needs at least one dim" % layout

    def __repr__(self):
        return "Input(%r, %r, kind=%r, layout=%r)" % (
            self.shape, self.dtype, self.kind, self.layout)

    # -- value generation ---------------------------------------------------
    def _draw(self, rng, n):
        k, lo, hi = self.kind, self.low, self.high
        if k == "randn":
            return [rng.gauss(0.0, 1.0) for _ in range(n)]
        if k == "uniform":
            lo, hi = (-1.0 if lo is None else lo), (1.0 if hi is None else hi)
            return [rng.uniform(lo, hi) for _ in range(n)]
        if k == "positive":
            lo, hi = (0.1 if lo is None else lo), (10.0 if hi is None else hi)
            return [rng.uniform(lo, hi) for _ in range(n)]
        if k in ("int", "nonzero"):
            lo, hi = (-5 if lo is None else lo), (5 if hi is None else hi)
            out = []
            while len(out) < n:
                v = rng.randint(lo, hi)
                if k == "int" or v != 0:
                    out.append(v)
            return out
        if k == "unique":
            lo = -(n // 2) if lo is None else lo
            out = list(range(lo, lo + n))
            rng.shuffle(out)
            if self.dtype.startswith("float"):
                out = [v * 0.25 for v in out]
            return out
        if k == "halves":
            lo, hi = (-4.0 if lo is None else lo), (4.0 if hi is None else hi)
            return [rng.randint(int(lo * 2), int(hi * 2)) / 2.0 for _ in range(n)]
        if k == "bool":
            return [rng.random() < 0.5 for _ in range(n)]
        if k == "edge":
            out = [EDGE_FLOATS[i % len(EDGE_FLOATS)] for i in range(n)]
            rng.shuffle(out)
            return out
        if k == "values":
            vs = self.values
            return [vs[i % len(vs)] for i in range(n)]
        raise ValueError("unknown kind %r" % k)

    def _cast(self, vals):
        if self.dtype == "bool":
            return [bool(v) for v in vals]
        if self.dtype in ("int32", "int64"):
            return [int(v) for v in vals]
        return [float(v) for v in vals]

    def storage_shape(self):
        """Shape of the tensor that is built before the layout transform."""
        s, lay = self.shape, self.layout
        if lay == "transposed":
            return s[::-1]
        if lay == "strided":
            return tuple(2 * d for d in s)
        if lay == "offset":
            return (s[0] + 1,) + s[1:] if s else s
        if lay == "expanded":
            return (1,) + s[1:]
        return s

    def generate(self, rng):
        """Flat storage values (Python list) for ``storage_shape()``."""
        if self.layout == "contiguous":
            return self._cast(self._draw(rng, _numel(self.shape)))
        if self.layout == "expanded":
            return self._cast(self._draw(rng, _numel(self.storage_shape())))
        logical = self._cast(self._draw(rng, _numel(self.shape)))
        shape = self.shape
        if self.layout == "transposed":
            # storage[j_{n-1}, ..., j_0] = logical[j_0, ..., j_{n-1}]
            rshape = shape[::-1]
            out = []
            for flat in range(len(logical)):
                idx = _unravel(flat, rshape)[::-1]
                out.append(logical[_ravel(idx, shape)])
            return out
        sshape = self.storage_shape()
        filler = self._cast(self._draw(rng, _numel(sshape)))
        out = list(filler)
        for flat in range(len(logical)):
            idx = _unravel(flat, shape)
            if self.layout == "strided":
                sidx = tuple(2 * i for i in idx)
            else:  # offset
                sidx = (idx[0] + 1,) + idx[1:]
            out[_ravel(sidx, sshape)] = logical[flat]
        return out


def _unravel(flat, shape):
    idx = []
    for d in reversed(shape):
        idx.append(flat % d)
        flat //= d
    return tuple(reversed(idx))


def _ravel(idx, shape):
    flat = 0
    for i, d in zip(idx, shape):
        flat = flat * d + i
    return flat


def build(T, spec, device, values):
    """Build one input tensor on ``device`` from its flat storage ``values``."""
    t = T.tensor(values, dtype=getattr(T, spec.dtype)).reshape(spec.storage_shape())
    t = t.to(device)
    n = len(spec.shape)
    if spec.layout == "transposed" and n >= 2:
        t = t.permute(*range(n - 1, -1, -1))
    elif spec.layout == "strided" and n >= 1:
        t = t[(slice(None, None, 2),) * n]
    elif spec.layout == "offset":
        t = t[1:]
    elif spec.layout == "expanded":
        t = t.expand(*spec.shape)
    return t


class _Case:
    def __init__(self, name, fn, inputs):
        self.name = name
        self.fn = fn
        self.inputs = tuple(inputs)
        self._values = None

    def input_values(self):
        """Flat storage values for each input; deterministic per case name."""
        if self._values is None:
            rng = random.Random(zlib.crc32(self.name.encode("utf-8")))
            self._values = [spec.generate(rng) for spec in self.inputs]
        return self._values

    def __repr__(self):
        return "%s(%r)" % (type(self).__name__, self.name)


class OpCase(_Case):
    """exact: torch's float32 result depends on its CPU path (fma in AVX2/AVX512, not under
    ATEN_CPU_CAPABILITY=default): torch in float64, rounded to float32, is accepted too (run_in_float64)."""
    def __init__(self, name, fn, inputs=(), atol=1e-5, rtol=1e-5, exact=False):
        _Case.__init__(self, name, fn, inputs)
        self.atol = atol
        self.rtol = rtol
        self.exact = exact


class ErrorCase(_Case):
    def __init__(self, name, fn, inputs=(), exc=RuntimeError):
        _Case.__init__(self, name, fn, inputs)
        self.exc = exc


def inputs_digest(case):
    """A checksum of the case's generated input values (to verify that another
    Python, e.g. Pyodide's, generates exactly the same inputs)."""
    return zlib.crc32(repr(case.input_values()).encode("utf-8"))


def build_inputs(T, case, device):
    return [build(T, spec, device, vals)
            for spec, vals in zip(case.inputs, case.input_values())]


def run_case(T, case, device):
    """Run ``case`` with module ``T`` on ``device``; returns the raw result."""
    return case.fn(T, device, *build_inputs(T, case, device))


def run_in_float64(torch, case):
    """torch's result for an exact ``case`` in float64, rounded to float32: the value each of torch's CPU
    paths should round to; accepted beside its float32 result, element by element (compare.either)."""
    inputs = [x.double() if x.dtype == torch.float32 else x for x in build_inputs(torch, case, "cpu")]
    return _float64_to_float32(torch, case.fn(torch, "cpu", *inputs))


def _float64_to_float32(torch, result):
    if isinstance(result, (tuple, list)):
        return type(result)(_float64_to_float32(torch, r) for r in result)
    return result.float() if getattr(result, "dtype", None) == torch.float64 else result


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------
CASES = []
ERROR_CASES = []
# int64 is stored as 32 bits on the GPU: these cases' values do not fit, so on "webgpu" they
# must raise RuntimeError ("does not fit in int32") instead of wrapping.
INT64_BEYOND_INT32 = {"add-int64-large", "tensor-int64-large"}
# float16 cases (f16_case below): on "webgpu" native where the adapter offers "shader-f16", emulated
# (stored as f32, rounded to half) elsewhere, with the same values either way.
FLOAT16_CASES = set()


def expected_refusal(T, case, device):
    """(exception type, part of its message) where webtorch must refuse a case by design, else None."""
    if device == "webgpu" and case.name in INT64_BEYOND_INT32:
        return RuntimeError, "does not fit in int32"
    return None


def case(name, fn, *inputs, **tol):
    CASES.append(OpCase(name, fn, inputs, **tol))


def error(name, fn, *inputs, exc=RuntimeError):
    ERROR_CASES.append(ErrorCase(name, fn, inputs, exc=exc))


I = Input
F32, F16, I32, I64, BOOL = "float32", "float16", "int32", "int64", "bool"
TRANS = dict(atol=1e-5, rtol=1e-4)      # transcendental elementwise ops
RED = dict(atol=1e-4, rtol=1e-4)        # reductions over up to ~1000 elements
MM = dict(atol=1e-4, rtol=1e-4)         # matmul with K up to ~40
SIN_VALUES = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 10.0, 0.25, -6.5]
FINITE_EDGE = [0.0, -0.0, 1e30, -1e30, 1e-30, -1e-30, 1.0, -1.0, 0.5, -2.5, 8.0, -8.0]

# -- unary ------------------------------------------------------------------
case("abs", lambda T, d, a: T.abs(a), I((3, 4)))
case("abs-method-int", lambda T, d, a: a.abs(), I((7,), I64))
case("abs-edge", lambda T, d, a: T.abs(a), I((16,), kind="edge"))
case("abs-builtin-transposed", lambda T, d, a: abs(a), I((3, 5), layout="transposed"))
case("neg", lambda T, d, a: T.neg(a), I((2, 3, 4)))
case("neg-int32-method", lambda T, d, a: a.neg(), I((5,), I32))
case("neg-operator-edge", lambda T, d, a: -a, I((16,), kind="edge"))
case("exp", lambda T, d, a: T.exp(a), I((4, 5)), **TRANS)
case("exp-method-strided", lambda T, d, a: a.exp(), I((3, 4), layout="strided"), **TRANS)
case("exp-edge", lambda T, d, a: T.exp(a), I((16,), kind="edge"), **TRANS)
case("exp-int-to-float", lambda T, d, a: T.exp(a), I((6,), I64), **TRANS)
case("log", lambda T, d, a: T.log(a), I((4, 5), kind="positive"), **TRANS)
case("log-method-transposed", lambda T, d, a: a.log(),
     I((5, 3), kind="positive", layout="transposed"), **TRANS)
case("log-edge", lambda T, d, a: T.log(a), I((16,), kind="edge"), **TRANS)
case("sqrt", lambda T, d, a: T.sqrt(a), I((4, 5), kind="positive"), **TRANS)
case("sqrt-edge", lambda T, d, a: a.sqrt(), I((16,), kind="edge"), **TRANS)
case("sqrt-int", lambda T, d, a: T.sqrt(a), I((6,), I32, low=0, high=20), **TRANS)
case("rsqrt", lambda T, d, a: T.rsqrt(a), I((4, 5), kind="positive"), **TRANS)
case("rsqrt-edge", lambda T, d, a: a.rsqrt(), I((16,), kind="edge"), **TRANS)
case("sin", lambda T, d, a: T.sin(a), I((4, 5)), **TRANS)
case("sin-special", lambda T, d, a: a.sin(), I((12,), values=SIN_VALUES), **TRANS)
case("cos", lambda T, d, a: T.cos(a), I((4, 5)), **TRANS)
case("cos-special-offset", lambda T, d, a: a.cos(),
     I((3, 4), values=SIN_VALUES, layout="offset"), **TRANS)
case("tanh", lambda T, d, a: T.tanh(a), I((4, 5), kind="uniform", low=-6, high=6), **TRANS)
case("tanh-edge", lambda T, d, a: a.tanh(), I((16,), kind="edge"), **TRANS)
case("sigmoid", lambda T, d, a: T.sigmoid(a), I((4, 5), kind="uniform", low=-8, high=8), **TRANS)
case("sigmoid-edge-method", lambda T, d, a: a.sigmoid(), I((16,), kind="edge"), **TRANS)
case("sigmoid-F", lambda T, d, a: T.nn.functional.sigmoid(a), I((2, 3)), **TRANS)
case("relu", lambda T, d, a: T.relu(a), I((4, 5)))
case("relu-method-edge", lambda T, d, a: a.relu(), I((16,), kind="edge"))
case("relu-F-int", lambda T, d, a: T.nn.functional.relu(a), I((8,), I64))
case("gelu", lambda T, d, a: T.nn.functional.gelu(a), I((4, 5), kind="uniform", low=-5, high=5), **TRANS)
case("gelu-finite-edge", lambda T, d, a: T.nn.functional.gelu(a), I((12,), values=FINITE_EDGE), **TRANS)
case("gelu-tanh", lambda T, d, a: T.nn.functional.gelu(a, approximate="tanh"),
     I((4, 5), kind="uniform", low=-5, high=5), **TRANS)
case("gelu-tanh-edge", lambda T, d, a: T.nn.functional.gelu(a, approximate="tanh"),
     I((16,), kind="edge"), **TRANS)
case("silu", lambda T, d, a: T.nn.functional.silu(a), I((4, 5), kind="uniform", low=-8, high=8), **TRANS)
case("silu-edge", lambda T, d, a: T.nn.functional.silu(a), I((16,), kind="edge"), **TRANS)
case("floor", lambda T, d, a: T.floor(a), I((20,), kind="halves"))
case("floor-method-edge", lambda T, d, a: a.floor(), I((16,), kind="edge"))
case("floor-int", lambda T, d, a: T.floor(a), I((5,), I64))
case("ceil", lambda T, d, a: T.ceil(a), I((4, 5)))
case("ceil-halves-method", lambda T, d, a: a.ceil(), I((20,), kind="halves"))
case("round-half-even", lambda T, d, a: T.round(a), I((20,), kind="halves"))
case("round-randn-method", lambda T, d, a: a.round(), I((3, 7), kind="uniform", low=-10, high=10))
case("round-edge", lambda T, d, a: T.round(a), I((16,), kind="edge"))
case("round-decimals", lambda T, d, a: T.round(a, decimals=2), I((10,), kind="uniform", low=-3, high=3))
case("sign", lambda T, d, a: T.sign(a), I((16,), kind="edge"))
case("sign-int-method", lambda T, d, a: a.sign(), I((9,), I32))
case("reciprocal", lambda T, d, a: T.reciprocal(a), I((4, 5), kind="positive"))
case("reciprocal-edge", lambda T, d, a: a.reciprocal(), I((16,), kind="edge"))
case("reciprocal-int", lambda T, d, a: T.reciprocal(a), I((6,), I64, kind="nonzero"))
case("square", lambda T, d, a: T.square(a), I((4, 5)))
case("square-int-method", lambda T, d, a: a.square(), I((6,), I64))
case("erf", lambda T, d, a: T.erf(a), I((4, 5), kind="uniform", low=-3, high=3), **TRANS)
case("erf-edge-method", lambda T, d, a: a.erf(), I((16,), kind="edge"), **TRANS)
case("clamp-both", lambda T, d, a: T.clamp(a, min=-0.5, max=0.5), I((4, 5)))
case("clamp-min-method", lambda T, d, a: a.clamp(min=0.0), I((4, 5)))
case("clamp-max", lambda T, d, a: T.clamp(a, max=0.1), I((4, 5), layout="transposed"))
case("clamp-positional", lambda T, d, a: T.clamp(a, -1, 1), I((16,), kind="edge"))
case("clamp-int", lambda T, d, a: a.clamp(-2, 3), I((10,), I64))
case("clamp-int-float-bound", lambda T, d, a: T.clamp(a, min=0.5), I((6,), I32))
case("clamp-tensor-bounds", lambda T, d, a, lo, hi: T.clamp(a, min=lo, max=hi),
     I((3, 4)), I((4,), kind="uniform", low=-1, high=0), I((3, 1), kind="uniform", low=0, high=1))
case("logical_not", lambda T, d, a: T.logical_not(a), I((3, 4), BOOL))
case("logical_not-float-method", lambda T, d, a: a.logical_not(), I((16,), kind="edge"))
case("logical_not-int", lambda T, d, a: T.logical_not(a), I((8,), I64, low=-1, high=1))
case("isnan", lambda T, d, a: T.isnan(a), I((16,), kind="edge"))
case("isnan-int", lambda T, d, a: a.isnan(), I((4,), I64))
case("isinf", lambda T, d, a: T.isinf(a), I((16,), kind="edge"))
case("isinf-method-strided", lambda T, d, a: a.isinf(), I((4, 4), kind="edge", layout="strided"))
case("unary-0d", lambda T, d, a: T.exp(a), I(()), **TRANS)
case("unary-0d-method", lambda T, d, a: a.neg().abs(), I((), I64))
case("unary-empty", lambda T, d, a: T.sqrt(a), I((0, 3)))
case("unary-expanded", lambda T, d, a: T.tanh(a), I((4, 3), layout="expanded"), **TRANS)
case("unary-chain-4d", lambda T, d, a: T.sigmoid(T.relu(a) * 2.0 - 1.0),
     I((2, 3, 2, 5), layout="transposed"), **TRANS)

# -- binary arithmetic -----------------------------------------------------
case("add", lambda T, d, a, b: T.add(a, b), I((3, 4)), I((3, 4)))
case("add-broadcast", lambda T, d, a, b: a + b, I((3, 1, 4)), I((5, 1)))
case("add-broadcast-4d", lambda T, d, a, b: T.add(a, b), I((2, 1, 3, 1)), I((1, 4, 1, 5)))
case("add-alpha", lambda T, d, a, b: T.add(a, b, alpha=2.5), I((3, 4)), I((4,)))
case("add-alpha-int", lambda T, d, a, b: T.add(a, b, alpha=3), I((5,), I64), I((5,), I64))
case("add-method-alpha", lambda T, d, a, b: a.add(b, alpha=-1), I((2, 3)), I((2, 3)))
case("add-scalar-right", lambda T, d, a: a + 2.5, I((3, 4)))
case("add-scalar-left", lambda T, d, a: 3 + a, I((3, 4)))
case("add-noncontig", lambda T, d, a, b: a + b,
     I((4, 6), layout="transposed"), I((4, 6), layout="strided"))
case("add-offset-expanded", lambda T, d, a, b: a + b,
     I((3, 5), layout="offset"), I((3, 5), layout="expanded"))
case("add-0d-and-vector", lambda T, d, a, b: a + b, I(()), I((5,)))
case("add-0d-0d", lambda T, d, a, b: T.add(a, b), I(()), I(()))
case("add-empty-broadcast", lambda T, d, a, b: a + b, I((0, 3)), I((1, 3)))
case("add-edge", lambda T, d, a, b: a + b, I((16,), kind="edge"), I((16,), kind="edge"))
case("add-int64-large", lambda T, d, a, b: a + b,
     I((4,), I64, values=[2 ** 40, -2 ** 40, 2 ** 31, -(2 ** 31) - 7]),
     I((4,), I64, values=[3, 2 ** 33, 2 ** 31, -5]))
case("sub", lambda T, d, a, b: T.sub(a, b), I((3, 4)), I((1, 4)))
case("sub-alpha", lambda T, d, a, b: T.sub(a, b, alpha=0.5), I((3, 4)), I((3, 4)))
case("sub-scalar-left", lambda T, d, a: 2.5 - a, I((3, 4)))
case("sub-method-int", lambda T, d, a, b: a.sub(b), I((6,), I32), I((6,), I32))
case("mul", lambda T, d, a, b: T.mul(a, b), I((3, 4)), I((3, 4)))
case("mul-scalar", lambda T, d, a: a * 3, I((3, 4)))
case("mul-scalar-beyond-float32", lambda T, d, a: (a * 1e300, a - 1e39), I((3, 4)))  # the scalar rounds to +-inf
case("mul-scalar-left-transposed", lambda T, d, a: 0.5 * a, I((3, 4), layout="transposed"))
case("mul-broadcast-method", lambda T, d, a, b: a.mul(b), I((2, 3, 4)), I((3, 1)))
case("mul-edge", lambda T, d, a, b: a * b, I((16,), kind="edge"), I((16,), kind="edge"))
case("div", lambda T, d, a, b: T.div(a, b), I((3, 4)), I((3, 4), kind="positive"))
case("div-scalar-left", lambda T, d, a: 1.0 / a, I((3, 4), kind="positive"))
case("div-scalar-right", lambda T, d, a: a / 4, I((3, 4)))
case("div-edge", lambda T, d, a, b: a / b, I((16,), kind="edge"), I((16,), kind="edge"))
case("div-int-true", lambda T, d, a, b: a / b, I((8,), I64), I((8,), I64, kind="nonzero"))
case("div-int32-method", lambda T, d, a, b: a.div(b), I((8,), I32), I((8,), I32, kind="nonzero"))
case("div-by-zero", lambda T, d, a: a / 0.0, I((12,), values=[1.0, -1.0, 0.0, NAN, INF, -2.5]))
case("div-floor", lambda T, d, a, b: T.div(a, b, rounding_mode="floor"),
     I((4, 5), kind="uniform", low=-10, high=10), I((4, 5), kind="uniform", low=0.5, high=3))
case("div-floor-neg", lambda T, d, a, b: T.div(a, b, rounding_mode="floor"),
     I((10,), kind="halves"), I((10,), values=[-1.5, 2.0, -0.5, 1.0, 3.0]))
case("div-trunc", lambda T, d, a, b: T.div(a, b, rounding_mode="trunc"),
     I((4, 5), kind="uniform", low=-10, high=10), I((4, 5), kind="uniform", low=-3, high=3))
case("div-floor-int", lambda T, d, a, b: a.div(b, rounding_mode="floor"),
     I((12,), I64, low=-20, high=20), I((12,), I64, kind="nonzero"))
case("div-trunc-int", lambda T, d, a, b: T.div(a, b, rounding_mode="trunc"),
     I((12,), I64, low=-20, high=20), I((12,), I64, kind="nonzero"))
case("pow-scalar-2", lambda T, d, a: a ** 2, I((3, 4)))
case("pow-scalar-3-negative-base", lambda T, d, a: T.pow(a, 3), I((3, 4)), **TRANS)
case("pow-scalar-half", lambda T, d, a: a ** 0.5, I((3, 4), kind="positive"), **TRANS)
case("pow-scalar-neg1", lambda T, d, a: a.pow(-1), I((3, 4), kind="positive"), **TRANS)
case("pow-scalar-0-edge", lambda T, d, a: a ** 0, I((16,), kind="edge"))
case("pow-scalar-2-edge", lambda T, d, a: T.pow(a, 2), I((16,), kind="edge"), **TRANS)
case("pow-scalar-base", lambda T, d, a: 2 ** a, I((3, 4)), **TRANS)
case("pow-scalar-base-fn", lambda T, d, a: T.pow(0.5, a), I((3, 4)), **TRANS)
case("pow-tensor-tensor", lambda T, d, a, b: T.pow(a, b),
     I((3, 4), kind="positive"), I((3, 4), kind="uniform", low=-2, high=2), **TRANS)
case("pow-tensor-broadcast", lambda T, d, a, b: a ** b,
     I((3, 1), kind="positive"), I((4,), kind="uniform", low=-2, high=2), **TRANS)
# an integer exponent gives the exact value where it is a float (3^6 = 729, not e^(6 log 3) = 729.00006)
case("pow-integer-exponent-exact", lambda T, d, a, b: (T.pow(a, b) - T.round(T.pow(a, b)), a ** 6 - T.round(a ** 6)),
     I((6,), kind="values", values=[3.0, 7.0, -3.0, 10.0, 2.0, -5.0]),
     I((6,), kind="values", values=[6.0, 6.0, 3.0, 5.0, 10.0, 4.0]))
case("pow-int", lambda T, d, a: a ** 2, I((8,), I64))
case("pow-int-tensor", lambda T, d, a, b: T.pow(a, b), I((8,), I64), I((8,), I64, low=0, high=4))
case("pow-int-float-exponent", lambda T, d, a: a ** 0.5, I((6,), I64, low=0, high=30), **TRANS)
case("maximum", lambda T, d, a, b: T.maximum(a, b), I((3, 4)), I((4,)))
case("maximum-edge", lambda T, d, a, b: T.maximum(a, b), I((16,), kind="edge"), I((16,), kind="edge"))
case("maximum-int-method", lambda T, d, a, b: a.maximum(b), I((8,), I64), I((8,), I64))
case("minimum", lambda T, d, a, b: T.minimum(a, b), I((3, 1)), I((3, 4), layout="transposed"))
case("minimum-edge", lambda T, d, a, b: T.minimum(a, b), I((16,), kind="edge"), I((16,), kind="edge"))
case("minimum-int32-int64", lambda T, d, a, b: T.minimum(a, b), I((8,), I32), I((8,), I64))
case("remainder", lambda T, d, a, b: T.remainder(a, b),
     I((4, 5), kind="uniform", low=-10, high=10), I((4, 5), values=[3.0, -3.0, 1.5, -0.7]))
case("remainder-operator-scalar", lambda T, d, a: a % 2.5, I((4, 5), kind="uniform", low=-10, high=10))
case("remainder-int", lambda T, d, a, b: a % b, I((12,), I64, low=-20, high=20), I((12,), I64, kind="nonzero"))
case("fmod", lambda T, d, a, b: T.fmod(a, b),
     I((4, 5), kind="uniform", low=-10, high=10), I((4, 5), values=[3.0, -3.0, 1.5, -0.7]))
case("fmod-int-method", lambda T, d, a, b: a.fmod(b), I((12,), I64, low=-20, high=20), I((12,), I64, kind="nonzero"))
case("fmod-scalar", lambda T, d, a: T.fmod(a, -2), I((10,), kind="uniform", low=-10, high=10))
case("floordiv-operator", lambda T, d, a, b: a // b, I((4, 5), kind="uniform", low=-10, high=10),
     I((5,), values=[3.0, -3.0, 1.5, -0.7, 2.0]))
case("floordiv-operator-int", lambda T, d, a: a // 3, I((12,), I64, low=-20, high=20))
case("floordiv-scalar-left", lambda T, d, a: 7 // a, I((12,), I64, kind="nonzero"))

# -- comparisons / logical -------------------------------------------------
for _op in ("eq", "ne", "lt", "le", "gt", "ge"):
    case("%s-halves" % _op, (lambda op: lambda T, d, a, b: getattr(T, op)(a, b))(_op),
         I((4, 5), kind="halves", low=-2, high=2), I((5,), kind="halves", low=-2, high=2))
    case("%s-method-scalar" % _op, (lambda op: lambda T, d, a: getattr(a, op)(0.5))(_op),
         I((4, 5), kind="halves", low=-2, high=2))
case("eq-edge", lambda T, d, a, b: T.eq(a, b), I((16,), kind="edge"), I((16,), kind="edge"))
case("ne-nan-self", lambda T, d, a: a != a, I((16,), kind="edge"))
case("lt-int-float", lambda T, d, a, b: T.lt(a, b), I((3, 4), I64), I((3, 4)))
case("cmp-operators", lambda T, d, a, b: (a == b, a != b, a < b, a <= b, a > b, a >= b),
     I((3, 4), I64, low=-2, high=2), I((4,), I64, low=-2, high=2))
case("cmp-reflected-scalar", lambda T, d, a: (0 < a, 1.0 >= a, 2 == a), I((3, 4), kind="halves"))
case("cmp-bool-tensors", lambda T, d, a, b: (a == b, a < b), I((6,), BOOL), I((6,), BOOL))
case("cmp-noncontig", lambda T, d, a, b: a > b,
     I((4, 3), layout="transposed"), I((4, 3), layout="strided"))
case("logical_and", lambda T, d, a, b: T.logical_and(a, b), I((3, 4), BOOL), I((4,), BOOL))
case("logical_or", lambda T, d, a, b: T.logical_or(a, b), I((3, 4), BOOL), I((3, 1), BOOL))
case("logical_xor", lambda T, d, a, b: T.logical_xor(a, b), I((3, 4), BOOL), I((3, 4), BOOL))
case("logical_and-float-int", lambda T, d, a, b: T.logical_and(a, b),
     I((16,), kind="edge"), I((16,), I64, low=-1, high=1))
case("logical_or-method", lambda T, d, a, b: a.logical_or(b), I((8,), I64, low=0, high=1), I((8,)))
case("logical_xor-float", lambda T, d, a, b: T.logical_xor(a, b),
     I((6,), values=[0.0, 1.0, NAN, -0.0]), I((6,), values=[0.0, 0.0, 2.0]))
case("bitwise-ops-bool", lambda T, d, a, b: (a & b, a | b, a ^ b, ~a), I((3, 4), BOOL), I((4,), BOOL))
case("bitwise-ops-int64", lambda T, d, a, b: (a & b, a | b, a ^ b, ~a),
     I((10,), I64, low=-100, high=100), I((10,), I64, low=-100, high=100))
case("bitwise-ops-int32", lambda T, d, a, b: (a & b, a | b, a ^ b, ~a),
     I((10,), I32, low=-100, high=100), I((10,), I32, low=0, high=255))
case("where", lambda T, d, c, a, b: T.where(c, a, b), I((3, 4), BOOL), I((3, 4)), I((3, 4)))
case("where-broadcast", lambda T, d, c, a, b: T.where(c, a, b), I((3, 1), BOOL), I((1, 4)), I((2, 1, 1)))
case("where-scalar-other", lambda T, d, c, a: T.where(c, a, 0.0), I((3, 4), BOOL), I((3, 4)))
case("where-scalar-both", lambda T, d, c: T.where(c, 1.0, -1.0), I((3, 4), BOOL))
case("where-scalar-int-branches", lambda T, d, c: T.where(c, 1, 0), I((5,), BOOL))
case("where-cond-from-compare", lambda T, d, a: T.where(a > 0, a, a * 0.1), I((4, 5), layout="transposed"))
case("where-int-float-promote", lambda T, d, c, a, b: T.where(c, a, b), I((6,), BOOL), I((6,), I64), I((6,)))
case("where-method", lambda T, d, c, a: a.where(c, 2.5), I((6,), BOOL), I((6,)))
case("where-edge", lambda T, d, a: T.where(T.isnan(a), 0.0, a), I((16,), kind="edge"))

# -- type promotion --------------------------------------------------------
case("promote-int-div-int", lambda T, d, a, b: a / b, I((5,), I32), I((5,), I32, kind="nonzero"))
case("promote-bool-plus-bool", lambda T, d, a, b: a + b, I((6,), BOOL), I((6,), BOOL))
case("promote-bool-times-bool", lambda T, d, a, b: a * b, I((6,), BOOL), I((6,), BOOL))
case("promote-bool-plus-int-scalar", lambda T, d, a: a + 1, I((6,), BOOL))
case("promote-bool-times-float-scalar", lambda T, d, a: a * 1.5, I((6,), BOOL))
case("promote-bool-plus-int32", lambda T, d, a, b: a + b, I((6,), BOOL), I((6,), I32))
case("promote-int32-plus-int64", lambda T, d, a, b: a + b, I((6,), I32), I((6,), I64))
case("promote-int32-times-int-scalar", lambda T, d, a: a * 3, I((6,), I32))
case("promote-int64-plus-float-scalar", lambda T, d, a: a + 0.5, I((6,), I64))
case("promote-int32-minus-float-scalar-left", lambda T, d, a: 1.5 - a, I((6,), I32))
case("promote-int-plus-float-tensor", lambda T, d, a, b: a + b, I((2, 3), I64), I((3,)))
case("promote-int32-vec-int64-0d", lambda T, d, a, b: a + b, I((5,), I32), I((), I64))
case("promote-int-vec-float-0d", lambda T, d, a, b: a * b, I((5,), I64), I(()))
case("promote-float-0d-int-0d", lambda T, d, a, b: a - b, I(()), I((), I64))
case("promote-bool-vec-int-0d", lambda T, d, a, b: a + b, I((5,), BOOL), I((), I64))
case("promote-float-vec-bool", lambda T, d, a, b: T.mul(a, b), I((5,)), I((5,), BOOL))
case("promote-int-maximum-float", lambda T, d, a, b: T.maximum(a, b), I((5,), I32), I((5,)))
case("promote-int-pow-float-tensor", lambda T, d, a, b: a ** b,
     I((5,), I64, low=1, high=5), I((5,), kind="uniform", low=0, high=2), **TRANS)

# -- casts -----------------------------------------------------------------
case("cast-float-to-int64-trunc", lambda T, d, a: a.to(T.int64), I((10,), kind="uniform", low=-10, high=10))
case("cast-float-to-int32", lambda T, d, a: a.int(), I((10,), kind="halves"))
case("cast-int-to-float", lambda T, d, a: a.float(), I((10,), I64, low=-1000, high=1000))
case("cast-int32-to-int64", lambda T, d, a: a.long(), I((10,), I32))
case("cast-to-bool", lambda T, d, a: a.bool(), I((16,), kind="edge"))
case("cast-bool-to-float-dtype-kw", lambda T, d, a: a.to(dtype=T.float32), I((6,), BOOL))
case("cast-transposed-to-int", lambda T, d, a: a.to(T.int32), I((3, 4), I64, layout="transposed"))

# -- reductions ------------------------------------------------------------
case("sum-full", lambda T, d, a: T.sum(a), I((13, 17)), **RED)
case("sum-method-full-large", lambda T, d, a: a.sum(), I((1000,)), **RED)
case("sum-dim", lambda T, d, a: T.sum(a, dim=1), I((5, 7, 3)), **RED)
case("sum-dim-neg-keepdim", lambda T, d, a: a.sum(-1, keepdim=True), I((5, 7, 3)), **RED)
case("sum-dims-tuple", lambda T, d, a: T.sum(a, dim=(0, 2)), I((4, 5, 6)), **RED)
case("sum-dims-neg-keepdim", lambda T, d, a: T.sum(a, dim=(-1, -3), keepdim=True), I((4, 5, 6)), **RED)
case("sum-transposed", lambda T, d, a: a.sum(0), I((6, 9), layout="transposed"), **RED)
case("sum-strided", lambda T, d, a: a.sum(1), I((5, 7), layout="strided"), **RED)
case("sum-expanded", lambda T, d, a: a.sum(0), I((4, 6), layout="expanded"), **RED)
case("sum-empty-full", lambda T, d, a: T.sum(a), I((0, 3)))
case("sum-empty-dim", lambda T, d, a: a.sum(0), I((0, 3)))
case("sum-0d", lambda T, d, a: T.sum(a), I(()))
case("sum-int32-gives-int64", lambda T, d, a: T.sum(a), I((20,), I32))
case("sum-int-dim", lambda T, d, a: a.sum(dim=0), I((4, 5), I64))
case("sum-bool-gives-int64", lambda T, d, a: a.sum(), I((30,), BOOL))
case("sum-bool-dim", lambda T, d, a: T.sum(a, 1), I((3, 10), BOOL))
case("sum-edge", lambda T, d, a: T.sum(a, 1), I((4, 4), values=[1.0, INF, -2.0, 3.0, INF, -INF, 0.0, 0.0,
                                                                  NAN, 1.0, 1.0, 1.0, 1e30, 1e30, -1.0, 0.5]))
case("mean-full", lambda T, d, a: T.mean(a), I((13, 17)), **RED)
case("mean-dim", lambda T, d, a: a.mean(dim=0), I((5, 7)), **RED)
case("mean-dims-keepdim", lambda T, d, a: T.mean(a, (1, 2), keepdim=True), I((3, 4, 5)), **RED)
case("mean-empty", lambda T, d, a: T.mean(a), I((0,)))
case("prod-full", lambda T, d, a: T.prod(a), I((12,), kind="uniform", low=0.5, high=1.5), **RED)
case("prod-dim", lambda T, d, a: a.prod(1), I((4, 6), kind="uniform", low=-2, high=2), **RED)
case("prod-dim-keepdim", lambda T, d, a: T.prod(a, 0, keepdim=True), I((3, 5)), **RED)
case("prod-int", lambda T, d, a: a.prod(), I((8,), I32, low=-3, high=3))
case("prod-empty", lambda T, d, a: T.prod(a), I((0,)))
case("max-full", lambda T, d, a: T.max(a), I((5, 7)))
case("max-full-method-int", lambda T, d, a: a.max(), I((20,), I64, low=-100, high=100))
case("max-full-nan", lambda T, d, a: T.max(a), I((16,), kind="edge"))
case("max-dim", lambda T, d, a: T.max(a, dim=1), I((4, 6), kind="unique"))
case("max-dim-keepdim-neg", lambda T, d, a: a.max(-2, keepdim=True), I((3, 5, 4), kind="unique"))
case("max-dim-transposed", lambda T, d, a: T.max(a, 0), I((5, 3), kind="unique", layout="transposed"))
case("max-dim-int", lambda T, d, a: T.max(a, 1), I((3, 7), I64, kind="unique"))
case("max-dim-fields", lambda T, d, a: (T.max(a, 1).values, T.max(a, 1).indices), I((3, 7), kind="unique"))
case("max-binary", lambda T, d, a, b: T.max(a, b), I((3, 4)), I((4,)))
case("min-full", lambda T, d, a: T.min(a), I((5, 7)))
case("min-dim", lambda T, d, a: T.min(a, dim=0), I((4, 6), kind="unique"))
case("min-dim-keepdim", lambda T, d, a: a.min(1, keepdim=True), I((4, 6), kind="unique", layout="strided"))
case("min-full-inf", lambda T, d, a: a.min(), I((5,), values=[INF, 2.0, -INF, 0.0, 1.0]))
case("amax-dim", lambda T, d, a: T.amax(a, dim=1), I((4, 6, 3)))
case("amax-dims-tuple", lambda T, d, a: T.amax(a, dim=(0, 2)), I((4, 6, 3)))
case("amax-dims-neg-keepdim", lambda T, d, a: a.amax((-1, -2), keepdim=True), I((4, 6, 3)))
case("amax-nan", lambda T, d, a: T.amax(a, 1), I((4, 4), kind="edge"))
case("amax-full", lambda T, d, a: T.amax(a), I((3, 5)))
case("amin-dims", lambda T, d, a: T.amin(a, (0, 1)), I((4, 6, 3), I64, low=-50, high=50))
case("amin-dim-transposed", lambda T, d, a: a.amin(0), I((3, 5), layout="transposed"))
case("argmax-full", lambda T, d, a: T.argmax(a), I((5, 7), kind="unique"))
case("argmax-dim", lambda T, d, a: T.argmax(a, dim=1), I((5, 7), kind="unique"))
case("argmax-dim-keepdim-neg", lambda T, d, a: a.argmax(-1, keepdim=True), I((2, 3, 4), kind="unique"))
case("argmax-int-transposed", lambda T, d, a: T.argmax(a, 0), I((4, 3), I64, kind="unique", layout="transposed"))
case("argmin-full", lambda T, d, a: T.argmin(a), I((5, 7), kind="unique"))
case("argmin-dim", lambda T, d, a: a.argmin(dim=0), I((5, 7), kind="unique"))
case("argmax-1-elem", lambda T, d, a: T.argmax(a), I((1,)))
case("var-full", lambda T, d, a: T.var(a), I((6, 7)), **RED)
case("var-correction0", lambda T, d, a: T.var(a, correction=0), I((6, 7)), **RED)
case("var-dim", lambda T, d, a: a.var(1), I((6, 7)), **RED)
case("var-dim-correction0-keepdim", lambda T, d, a: T.var(a, dim=0, correction=0, keepdim=True), I((6, 7)), **RED)
case("var-dims-tuple", lambda T, d, a: T.var(a, dim=(0, -1)), I((3, 4, 5)), **RED)
case("var-single-elem-dim", lambda T, d, a: T.var(a, dim=0), I((1, 3)), **RED)
case("std-full", lambda T, d, a: T.std(a), I((6, 7)), **RED)
case("std-dim-correction0", lambda T, d, a: a.std(dim=1, correction=0), I((6, 7)), **RED)
case("std-dims-keepdim", lambda T, d, a: T.std(a, dim=(1, 2), keepdim=True), I((3, 4, 5), layout="transposed"), **RED)
case("std-offset-mean", lambda T, d, a: T.std(a + 1000.0), I((50,)), atol=1e-3, rtol=1e-3)
case("all-full", lambda T, d, a: T.all(a), I((3, 4), BOOL))
case("all-true", lambda T, d, a: a.all(), I((3, 4), BOOL, values=[True]))
case("all-dim", lambda T, d, a: T.all(a, dim=1), I((5, 3), BOOL))
case("all-float", lambda T, d, a: T.all(a), I((6,), values=[1.0, NAN, -0.5]))
case("all-empty", lambda T, d, a: T.all(a), I((0,), BOOL))
case("any-full", lambda T, d, a: T.any(a), I((3, 4), BOOL))
case("any-false", lambda T, d, a: a.any(), I((3, 4), BOOL, values=[False]))
case("any-dim-keepdim", lambda T, d, a: T.any(a, dim=0, keepdim=True), I((5, 3), BOOL))
case("any-float-edge", lambda T, d, a: T.any(a, 1), I((4, 4), values=[0.0, -0.0, 0.0, 0.0, 0.0, NAN, 0.0, 0.0,
                                                                      1e-30, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, 2.0]))
case("any-int-method", lambda T, d, a: a.any(-1), I((4, 3), I64, low=0, high=1))
case("any-empty", lambda T, d, a: T.any(a), I((0, 2), BOOL))
case("logsumexp-dim", lambda T, d, a: T.logsumexp(a, dim=1), I((4, 9)), **TRANS)
case("logsumexp-dims-keepdim", lambda T, d, a: T.logsumexp(a, dim=(0, 2), keepdim=True), I((3, 4, 5)), **TRANS)
case("logsumexp-large", lambda T, d, a: a.logsumexp(-1), I((3, 4), kind="uniform", low=80, high=100), **TRANS)
case("logsumexp-neg-inf", lambda T, d, a: T.logsumexp(a, 1),
     I((3, 3), values=[-INF, -INF, -INF, -INF, 0.0, 1.0, INF, 0.0, -INF]), **TRANS)
case("reduce-4d-middle-dims", lambda T, d, a: (a.sum((1, 2)), a.amax((1, 2)), a.mean((1, 2))),
     I((2, 3, 4, 5), layout="transposed"), **RED)
# Long rows: on webgpu these split over many workgroups (vec4 reads with a 3-element tail, unaligned
# contiguous and strided reads), and arg-reductions carry indices and first-index ties across chunks.
case("reduce-long-vec4-tail", lambda T, d, a: (a.sum(), a.mean(), a.amax(), a.argmin(), a.var()),
     I((20003,), kind="unique"), atol=1e-3, rtol=1e-4)
case("reduce-long-offset", lambda T, d, a: (a.sum(), a.max(), a.argmax()), I((20001,), kind="unique",
                                                                            layout="offset"), **RED)
case("reduce-long-strided", lambda T, d, a: (a.sum(), a.min(), a.argmin()), I((20000,), kind="unique",
                                                                             layout="strided"), **RED)
case("reduce-long-rows", lambda T, d, a: (a.sum(-1), a.max(1), a.prod(1), a.mean(0)),
     I((3, 4100), values=[1.0, -1.0, 0.5, 2.0, 1.0]), **RED)
case("reduce-long-rows-unaligned", lambda T, d, a: (a.sum(-1), a.argmax(-1)), I((3, 1030), kind="unique"), **RED)
case("max-long-ties", lambda T, d, a: T.max(a, 1), I((2, 30000), values=[1.0, 5.0, 2.0, 5.0, -3.0, 5.0, 4.0]))
case("max-long-nan-late", lambda T, d, a: (lambda x: (x.max(), x.argmax(), x.amin()))(
    T.cat([a, T.tensor([NAN], device=d), a])), I((20000,), kind="unique"))
case("reduce-long-int-bool", lambda T, d, a: (a.sum(), a.max(), a.argmin(), (a > 4).any(), (a > -6).all(),
                                              T.cat([a > -6, a > 4]).all()), I((20000,), I32))
# Columns (a reduced dim of stride != 1 next to a kept dim of stride 1): on webgpu adjacent threads
# take adjacent outputs; odd sizes leave threads idle, more rows split over workgroups (partials,
# then a second pass), few outputs put many lanes on each; arg-reductions keep first-index ties and
# the first NaN across those splits.
case("reduce-cols-odd", lambda T, d, a: (a.sum(0), a.amax(0), a.argmin(0), a.mean(0, keepdim=True)), I((5, 37)),
     **RED)
case("reduce-cols-split", lambda T, d, a: (a.sum(0), a.mean(0), a.var(0), a.amin(0), a.argmax(0), a.prod(0)),
     I((1000, 37), kind="uniform", low=0.99, high=1.01), atol=1e-3, rtol=1e-4)
case("reduce-cols-few", lambda T, d, a: (a.sum(0), T.max(a, 0), a.std(0)), I((5000, 3)), atol=1e-3, rtol=1e-4)
case("reduce-cols-ties", lambda T, d, a: (T.max(a, 0), T.min(a, 0), a.argmax(0)),
     I((1000, 37), values=[(i * 37) % 101 / 10.0 for i in range(499)]))  # each extreme ~10 times a column
case("reduce-cols-nan", lambda T, d, a: (lambda x: (T.max(x, 0), x.argmin(0), x.amax(0), x.sum(0)))(
    a.masked_fill(a > 2.8, NAN)), I((1000, 37)), atol=1e-3, rtol=1e-4)
case("reduce-cols-transposed", lambda T, d, a: (a.sum(1), a.argmax(1), a.amax(-1)), I((37, 1000), layout="transposed"),
     atol=1e-3, rtol=1e-4)
case("reduce-cols-offset-strided", lambda T, d, a, b: (a.sum(0), a.argmax(0), b.sum(0), b.argmin(0)),
     I((1000, 37), layout="offset"), I((300, 40), layout="strided"), atol=1e-3, rtol=1e-4)
case("reduce-cols-3d", lambda T, d, a: (a.sum(1), a.argmax(1), a.mean((0, 1)), a.var((0, 1)), a.sum((0, 2))),
     I((4, 300, 33)), atol=1e-3, rtol=1e-4)
case("reduce-cols-int-bool", lambda T, d, a, b: (a.sum(0), a.amax(0), a.argmin(0), b.sum(0), (a > 3).any(0),
                                                 (a > -5).all(0), (b != 0).all(0)),
     I((1000, 37), I32), I((700, 33), I64, kind="nonzero"))
# Short rows: several per workgroup on webgpu (one thread per row for the shortest), vec4 reads with
# a tail shorter than the row's threads, a partial last workgroup, ties to the first index.
case("reduce-short-rows", lambda T, d, a, b: (a.sum(1), a.mean(-1), a.amax(1), a.argmin(1), b.sum(1), b.argmax(1)),
     I((3000, 32)), I((500, 5)), **RED)
case("reduce-short-rows-tail", lambda T, d, a: (lambda x: (x.sum(1), x.argmax(1), x.amin(1)))(a[:, :19]),
     I((400, 20)), **RED)
case("reduce-short-rows-256-33", lambda T, d, a, b: (a.mean(1), a.var(1), b.sum(1), b.max(1)), I((300, 256)),
     I((700, 33)), atol=1e-3, rtol=1e-4)
case("reduce-short-rows-ties-int", lambda T, d, a, b: (a.argmax(1), T.min(a, 1), b.sum(1), b.amax(1), (b > 2).any(1)),
     I((500, 12), values=[1.0, 5.0, 2.0, 5.0, -3.0, 5.0, 4.0, -3.0, 0.0]), I((600, 7), I64))
case("reduce-short-rows-strided", lambda T, d, a: (a.sum(1), a.argmax(1), a.sum(0)), I((300, 8), layout="strided"),
     **RED)

# -- softmax ---------------------------------------------------------------
case("softmax-last", lambda T, d, a: T.softmax(a, dim=-1), I((4, 9)), **TRANS)
case("softmax-dim0", lambda T, d, a: T.softmax(a, 0), I((4, 9)), **TRANS)
case("softmax-F-3d", lambda T, d, a: T.nn.functional.softmax(a, dim=1), I((2, 5, 3)), **TRANS)
case("softmax-method-transposed", lambda T, d, a: a.softmax(-1), I((6, 5), layout="transposed"), **TRANS)
case("softmax-neg-inf", lambda T, d, a: T.softmax(a, dim=-1),
     I((3, 3), values=[-INF, 0.0, 1.0, -INF, -INF, -INF, 1e30, 0.0, -1e30]), **TRANS)
case("softmax-large-values", lambda T, d, a: T.softmax(a, -1), I((3, 8), kind="uniform", low=50, high=100), **TRANS)
case("softmax-wide-row", lambda T, d, a: T.softmax(a, -1), I((2, 1000)), **TRANS)
case("log_softmax-last", lambda T, d, a: T.log_softmax(a, dim=-1), I((4, 9)), **TRANS)
case("log_softmax-F-dim0", lambda T, d, a: T.nn.functional.log_softmax(a, dim=0), I((4, 9)), **TRANS)
case("log_softmax-method", lambda T, d, a: a.log_softmax(1), I((2, 5, 3), layout="strided"), **TRANS)
case("log_softmax-neg-inf", lambda T, d, a: T.log_softmax(a, dim=-1),
     I((3, 3), values=[-INF, 0.0, 1.0, -INF, -INF, -INF, 1e30, 0.0, -1e30]), **TRANS)
# webgpu: many short rows per workgroup (a partial last one), rows in registers over several threads,
# and rows longer than the registers hold (a running max and sum; leading -inf must not poison it).
case("softmax-short-rows", lambda T, d, a: (T.softmax(a, -1), T.log_softmax(a, -1)), I((300, 5)), **TRANS)
case("softmax-rows-33", lambda T, d, a: (T.softmax(a, -1), T.log_softmax(a, 1)), I((20, 33)), **TRANS)
case("softmax-long-rows", lambda T, d, a: (T.softmax(a, -1), T.log_softmax(a, -1)), I((2, 5000)), **TRANS)
case("softmax-long-rows-transposed", lambda T, d, a: T.softmax(a, -1), I((3, 4100), layout="transposed"),
     **TRANS)
case("softmax-long-rows-inf", lambda T, d, a: (T.softmax(a, -1), T.log_softmax(a, -1)),
     I((3, 4500), values=[-INF] * 5 + [1.0, 2.0, -INF, 0.5, 3.0]), **TRANS)
case("softmax-long-rows-all-neg-inf", lambda T, d, a: T.softmax(a, -1), I((2, 4500), values=[-INF]))

# -- matmul ----------------------------------------------------------------
case("matmul-1x1", lambda T, d, a, b: T.matmul(a, b), I((1, 1)), I((1, 1)))
case("matmul-7x13x5", lambda T, d, a, b: T.matmul(a, b), I((7, 13)), I((13, 5)), **MM)
case("matmul-65x33x17", lambda T, d, a, b: a @ b, I((65, 33)), I((33, 17)), **MM)
case("matmul-64x64x64", lambda T, d, a, b: a @ b, I((64, 64)), I((64, 64)), **MM)
# Above gpu.SMALL_MATMUL_MACS (2**20) or SMALL_MATMUL_MAX_K: the tiled kernels (the cases above run
# one output per invocation)
case("matmul-tiled-vec4", lambda T, d, a, b: a @ b, I((136, 96)), I((96, 128)), **MM)
case("matmul-tiled-batched", lambda T, d, a, b: a @ b, I((3, 72, 64)), I((3, 64, 80)), **MM)
case("matmul-tiled-general", lambda T, d, a, b: a @ b, I((130, 70)), I((70, 120), layout="transposed"), **MM)
# vec4 kernels with B transposed (a linear layer's x @ W.T), rows not a multiple of the tiles
case("matmul-tiled-transposed-rhs", lambda T, d, a, b: a @ b, I((130, 72)), I((72, 120), layout="transposed"),
     **MM)
case("matmul-tiled-batched-transposed-rhs", lambda T, d, a, b: a @ b.mT, I((3, 67, 64)), I((3, 96, 64)), **MM)
# (batch, tokens, features) @ W.T folds into one (batch*tokens, features) product
case("linear-tiled-3d-input", lambda T, d, x, w, b: T.nn.functional.linear(x, w, b),
     I((2, 3, 21, 96)), I((136, 96)), I((136,)), **MM)
case("matmul-tiled-3d-2d", lambda T, d, a, b: a @ b, I((3, 45, 96)), I((96, 84)), **MM)
case("matmul-tiled-long-k", lambda T, d, a, b: a @ b, I((3, 300)), I((300, 5)), atol=3e-4, rtol=1e-4)
case("matmul-1d-1d", lambda T, d, a, b: T.matmul(a, b), I((13,)), I((13,)), **MM)
case("matmul-1d-2d", lambda T, d, a, b: T.matmul(a, b), I((13,)), I((13, 5)), **MM)
case("matmul-2d-1d", lambda T, d, a, b: a @ b, I((7, 13)), I((13,)), **MM)
case("matmul-1d-3d", lambda T, d, a, b: a @ b, I((4,)), I((3, 4, 2)), **MM)
case("matmul-3d-1d", lambda T, d, a, b: a @ b, I((3, 2, 4)), I((4,)), **MM)
case("matmul-batch-broadcast", lambda T, d, a, b: T.matmul(a, b), I((2, 1, 3, 4)), I((5, 4, 2)), **MM)
case("matmul-batch-2d-rhs", lambda T, d, a, b: a @ b, I((3, 5, 6)), I((6, 7)), **MM)
case("matmul-transposed-lhs", lambda T, d, a, b: a @ b, I((9, 17), layout="transposed"), I((17, 6)), **MM)
case("matmul-transposed-both", lambda T, d, a, b: T.matmul(a, b),
     I((9, 17), layout="transposed"), I((17, 6), layout="transposed"), **MM)
case("matmul-t-method", lambda T, d, a, b: a.matmul(b.t()), I((5, 8)), I((3, 8)), **MM)
case("matmul-strided", lambda T, d, a, b: a @ b, I((6, 5), layout="strided"), I((5, 4), layout="offset"), **MM)
case("matmul-expanded-batch", lambda T, d, a, b: a @ b, I((3, 4, 5), layout="expanded"), I((3, 5, 2)), **MM)
case("matmul-empty-k", lambda T, d, a, b: a @ b, I((3, 0)), I((0, 4)))
case("matmul-empty-m", lambda T, d, a, b: a @ b, I((0, 5)), I((5, 4)))
case("matmul-int64", lambda T, d, a, b: a @ b, I((3, 4), I64), I((4, 2), I64))
case("matmul-edge", lambda T, d, a, b: a @ b,
     I((2, 3), values=[1.0, NAN, 0.0, INF, 1.0, 2.0]), I((3, 2), values=[1.0, 0.0, 1.0, 1.0, 0.0, 1.0]))
case("mm", lambda T, d, a, b: T.mm(a, b), I((7, 13)), I((13, 5)), **MM)
case("mm-method-transposed", lambda T, d, a, b: a.mm(b), I((7, 13)), I((13, 5), layout="transposed"), **MM)
case("bmm", lambda T, d, a, b: T.bmm(a, b), I((3, 4, 5)), I((3, 5, 6)), **MM)
case("bmm-method-noncontig", lambda T, d, a, b: a.bmm(b),
     I((3, 4, 5), layout="transposed"), I((3, 5, 6), layout="strided"), **MM)
case("linear-bias", lambda T, d, x, w, b: T.nn.functional.linear(x, w, b), I((4, 7)), I((5, 7)), I((5,)), **MM)
case("linear-no-bias", lambda T, d, x, w: T.nn.functional.linear(x, w), I((4, 7)), I((5, 7)), **MM)
case("linear-3d-input", lambda T, d, x, w, b: T.nn.functional.linear(x, w, b),
     I((2, 3, 33)), I((17, 33)), I((17,)), **MM)
case("linear-1d-input", lambda T, d, x, w, b: T.nn.functional.linear(x, w, bias=b), I((7,)), I((5, 7)), I((5,)), **MM)

# -- cat / stack -----------------------------------------------------------
case("cat-dim0", lambda T, d, a, b: T.cat([a, b]), I((2, 3)), I((4, 3)))
case("cat-dim1-three", lambda T, d, a, b, c: T.cat((a, b, c), dim=1), I((2, 3)), I((2, 1)), I((2, 5)))
case("cat-neg-dim", lambda T, d, a, b: T.cat([a, b], dim=-1), I((2, 3, 2)), I((2, 3, 4)))
case("cat-mixed-dtype", lambda T, d, a, b: T.cat([a, b]), I((2, 3), I64), I((1, 3)))
case("cat-int32-int64", lambda T, d, a, b: T.cat([a, b], 0), I((3,), I32), I((2,), I64))
case("cat-bool", lambda T, d, a, b: T.cat([a, b]), I((3,), BOOL), I((2,), BOOL))
case("cat-noncontig", lambda T, d, a, b: T.cat([a, b], 1), I((3, 4), layout="transposed"), I((3, 2), layout="strided"))
case("cat-with-empty", lambda T, d, a, b: T.cat([a, b]), I((0, 3)), I((2, 3)))
case("cat-single", lambda T, d, a: T.cat([a], 0), I((2, 3)))
case("stack-dim0", lambda T, d, a, b: T.stack([a, b]), I((2, 3)), I((2, 3)))
case("stack-dim1", lambda T, d, a, b, c: T.stack((a, b, c), dim=1), I((2, 3)), I((2, 3)), I((2, 3)))
case("stack-neg-dim", lambda T, d, a, b: T.stack([a, b], dim=-1), I((2, 3)), I((2, 3), layout="transposed"))
case("stack-mixed-dtype", lambda T, d, a, b: T.stack([a, b]), I((4,), BOOL), I((4,), I32))
case("stack-0d", lambda T, d, a, b: T.stack([a, b]), I(()), I(()))

# -- allclose / equal ------------------------------------------------------
case("allclose-true", lambda T, d, a: T.allclose(a, a + 1e-7), I((3, 4)))
case("allclose-false", lambda T, d, a: T.allclose(a, a + 1e-3), I((3, 4)))
case("allclose-tol-kwargs", lambda T, d, a: T.allclose(a, a + 1e-3, rtol=0.0, atol=1e-2), I((3, 4)))
case("allclose-nan", lambda T, d, a: (T.allclose(a, a), T.allclose(a, a, equal_nan=True)), I((16,), kind="edge"))
case("allclose-broadcast-method", lambda T, d, a, b: a.allclose(b), I((3, 4), values=[1.0]), I((4,), values=[1.0]))
case("equal-true", lambda T, d, a: T.equal(a, a.clone()), I((3, 4)))
case("equal-false-value", lambda T, d, a: T.equal(a, a + 1), I((3, 4), I64))
case("equal-false-shape", lambda T, d, a, b: T.equal(a, b), I((3, 4), values=[1.0]), I((4,), values=[1.0]))
case("equal-noncontig", lambda T, d, a: a.equal(a.contiguous()), I((3, 4), layout="transposed"))


# -- views -----------------------------------------------------------------
def _view_info(v):
    return (v, tuple(v.shape), tuple(v.stride()), v.is_contiguous())


case("view", lambda T, d, a: _view_info(a.view(6, 4)), I((2, 3, 4)))
case("view-tuple-neg1", lambda T, d, a: _view_info(a.view((-1,))), I((2, 3, 4)))
case("view-split-dim", lambda T, d, a: _view_info(a.view(2, -1, 2, 3)), I((4, 6)))
case("view-0d", lambda T, d, a: _view_info(a.view(1, 1)), I(()))
case("view-to-0d", lambda T, d, a: _view_info(a.view(())), I((1,)))
case("view-empty", lambda T, d, a: _view_info(a.view(3, 0, 2)), I((0, 6)))
case("view-op-view", lambda T, d, a: (a.view(-1) * 2).view(3, 4), I((3, 4)))
case("reshape-contig", lambda T, d, a: _view_info(T.reshape(a, (4, 6))), I((2, 3, 4)))
case("reshape-transposed-copies", lambda T, d, a: (a.reshape(-1), a.reshape(3, 4).is_contiguous()),
     I((4, 3), layout="transposed"))
case("reshape-strided", lambda T, d, a: a.reshape(2, 10), I((4, 5), layout="strided"))
case("reshape-method-varargs", lambda T, d, a: _view_info(a.reshape(3, 2, 2)), I((12,), I64))
case("permute", lambda T, d, a: _view_info(a.permute(2, 0, 1)), I((2, 3, 4)))
case("permute-tuple", lambda T, d, a: _view_info(T.permute(a, (1, 2, 0))), I((2, 3, 4)))
case("permute-neg", lambda T, d, a: _view_info(a.permute(-1, 0, 1)), I((2, 3, 4)))
case("permute-then-op", lambda T, d, a: a.permute(1, 0, 2) * 2 + 1, I((2, 3, 4)))
case("transpose", lambda T, d, a: _view_info(T.transpose(a, 0, 1)), I((3, 5)))
case("transpose-neg-3d", lambda T, d, a: _view_info(a.transpose(-1, -3)), I((2, 3, 4)))
case("transpose-of-transposed", lambda T, d, a: _view_info(a.transpose(0, 1)), I((3, 4), layout="transposed"))
case("t", lambda T, d, a: _view_info(a.t()), I((3, 5)))
case("t-1d", lambda T, d, a: _view_info(T.t(a)), I((5,)))
case("expand", lambda T, d, a: _view_info(a.expand(4, 3)), I((1, 3)))
case("expand-neg1-new-dims", lambda T, d, a: _view_info(a.expand(2, -1, 3)), I((4, 1)))
case("expand-tuple-then-op", lambda T, d, a: a.expand((3, 4)) + 1, I((3, 1)))
case("expand-0d", lambda T, d, a: _view_info(a.expand(2, 3)), I(()))
case("squeeze-all", lambda T, d, a: _view_info(a.squeeze()), I((1, 3, 1, 4)))
case("squeeze-dim", lambda T, d, a: _view_info(T.squeeze(a, 2)), I((1, 3, 1, 4)))
case("squeeze-dim-not-1", lambda T, d, a: _view_info(a.squeeze(1)), I((1, 3, 1, 4)))
case("squeeze-neg", lambda T, d, a: _view_info(a.squeeze(-2)), I((1, 3, 1, 4)))
case("unsqueeze", lambda T, d, a: _view_info(T.unsqueeze(a, 0)), I((3, 4)))
case("unsqueeze-neg", lambda T, d, a: _view_info(a.unsqueeze(-1)), I((3, 4)))
case("unsqueeze-middle-transposed", lambda T, d, a: _view_info(a.unsqueeze(1)), I((3, 4), layout="transposed"))
case("unsqueeze-0d", lambda T, d, a: _view_info(a.unsqueeze(0)), I(()))
case("flatten", lambda T, d, a: _view_info(T.flatten(a)), I((2, 3, 4)))
case("flatten-start", lambda T, d, a: _view_info(a.flatten(1)), I((2, 3, 4)))
case("flatten-start-end", lambda T, d, a: _view_info(a.flatten(0, 1)), I((2, 3, 4, 5)))
case("flatten-transposed", lambda T, d, a: a.flatten(), I((3, 4), layout="transposed"))
case("flatten-0d", lambda T, d, a: _view_info(a.flatten()), I(()))
case("contiguous-transposed", lambda T, d, a: (a.is_contiguous(), _view_info(a.contiguous())),
     I((3, 4, 2), layout="transposed"))
case("contiguous-strided", lambda T, d, a: (a.is_contiguous(), _view_info(a.contiguous())),
     I((3, 4), layout="strided"))
case("contiguous-expanded", lambda T, d, a: _view_info(a.contiguous()), I((3, 4), layout="expanded"))
case("contiguous-noop", lambda T, d, a: _view_info(a.contiguous()), I((3, 4)))
case("layout-strides", lambda T, d, a, b, c, e: [(tuple(x.stride()), x.is_contiguous(), x.storage_offset())
                                                 for x in (a, b, c, e)],
     I((2, 3, 4), layout="transposed"), I((2, 3, 4), layout="strided"),
     I((2, 3, 4), layout="offset"), I((2, 3, 4), layout="expanded"))
case("getitem-int", lambda T, d, a: _view_info(a[1]), I((3, 4)))
case("getitem-neg-int", lambda T, d, a: _view_info(a[-1]), I((3, 4)))
case("getitem-int-int", lambda T, d, a: a[1, -2], I((3, 4)))
case("getitem-slice", lambda T, d, a: _view_info(a[:, 1:3]), I((3, 4)))
case("getitem-slice-step", lambda T, d, a: _view_info(a[::2]), I((7, 3)))
case("getitem-slice-step-start", lambda T, d, a: _view_info(a[1:-1, ::3]), I((5, 7)))
case("getitem-slice-neg-bounds", lambda T, d, a: _view_info(a[-3:, :-1]), I((5, 4)))
case("getitem-slice-out-of-range", lambda T, d, a: _view_info(a[2:100]), I((5, 2)))
case("getitem-slice-empty", lambda T, d, a: _view_info(a[3:1]), I((5, 2)))
case("getitem-none", lambda T, d, a: _view_info(a[None]), I((3, 4)))
case("getitem-none-middle", lambda T, d, a: _view_info(a[:, None, 2:]), I((3, 4)))
case("getitem-ellipsis", lambda T, d, a: _view_info(a[..., 1]), I((2, 3, 4)))
case("getitem-ellipsis-none", lambda T, d, a: _view_info(a[..., None]), I((2, 3)))
case("getitem-int-ellipsis-slice", lambda T, d, a: _view_info(a[0, ..., ::2]), I((2, 3, 4, 5)))
case("getitem-mixed", lambda T, d, a: _view_info(a[1, None, ::2, -1]), I((3, 5, 4)))
case("getitem-transposed", lambda T, d, a: _view_info(a[1:, ::2]), I((4, 6), layout="transposed"))
case("getitem-strided", lambda T, d, a: _view_info(a[-1]), I((4, 6), layout="strided"))
case("getitem-1d-int-0d", lambda T, d, a: _view_info(a[2]), I((5,), I64))
case("getitem-then-op", lambda T, d, a: a[1:, ::2] * 10 + a[:-1, 1::2], I((4, 6)))
case("getitem-chain", lambda T, d, a: a[1][::2][None, 1:], I((3, 8)))
case("item-float", lambda T, d, a: a.sum().item(), I((4,), values=[0.5, 1.25, -2.0, 3.0]))
case("item-int", lambda T, d, a: a[1].item(), I((3,), I64))
case("item-bool", lambda T, d, a: a.item(), I((), BOOL))
case("tolist", lambda T, d, a: a.tolist(), I((2, 3), I64))
case("shape-size-ndim-numel", lambda T, d, a: (tuple(a.shape), tuple(a.size()), a.size(1), a.dim(), a.ndim, a.numel()),
     I((2, 3, 4)))
case("clone-detach", lambda T, d, a: (a.clone(), a.detach()), I((3, 4), layout="transposed"))

# -- creation (no inputs; use the device argument) -------------------------
case("tensor-int-nested", lambda T, d: T.tensor([[1, 2, 3], [4, 5, 6]], device=d))
case("tensor-float-inference", lambda T, d: T.tensor([1.0, 2, -3.5], device=d))
case("tensor-bool-inference", lambda T, d: T.tensor([[True, False], [False, True]], device=d))
case("tensor-bool-int-mix", lambda T, d: T.tensor([True, 2, 3], device=d))
case("tensor-scalar-int", lambda T, d: T.tensor(3, device=d))
case("tensor-scalar-float", lambda T, d: T.tensor(-2.5, device=d))
case("tensor-empty-list", lambda T, d: T.tensor([], device=d))
case("tensor-dtype-kw", lambda T, d: T.tensor([1, 2, 3], dtype=T.float32, device=d))
case("tensor-dtype-int32", lambda T, d: T.tensor([[1.7, -2.7]], dtype=T.int32, device=d))
case("tensor-special-floats", lambda T, d: T.tensor([float("nan"), float("inf"), -float("inf"), -0.0], device=d))
case("tensor-int64-large", lambda T, d: T.tensor([2 ** 40, -2 ** 50, 2 ** 62], device=d))
case("zeros", lambda T, d: T.zeros(2, 3, device=d))
case("zeros-tuple-dtype", lambda T, d: T.zeros((2, 3), dtype=T.int64, device=d))
case("zeros-0d", lambda T, d: T.zeros((), device=d))
case("zeros-empty", lambda T, d: T.zeros(0, 4, device=d))
case("ones", lambda T, d: T.ones(4, device=d))
case("ones-bool", lambda T, d: T.ones((2, 2), dtype=T.bool, device=d))
case("full-float", lambda T, d: T.full((2, 3), 1.5, device=d))
case("full-int-inferred", lambda T, d: T.full((3,), 7, device=d))
case("full-bool-inferred", lambda T, d: T.full((2,), True, device=d))
case("full-dtype", lambda T, d: T.full((2, 2), 3, dtype=T.float32, device=d))
case("full-inf", lambda T, d: T.full((2,), float("-inf"), device=d))
case("empty-shape-dtype", lambda T, d: (tuple(T.empty(2, 3, device=d).shape),
                                        T.zeros_like(T.empty((4,), dtype=T.int32, device=d))))
case("zeros_like", lambda T, d, a: T.zeros_like(a), I((3, 4), layout="transposed"))
case("ones_like-int", lambda T, d, a: T.ones_like(a), I((3,), I64))
case("ones_like-dtype", lambda T, d, a: T.ones_like(a, dtype=T.int32), I((2, 3)))
case("full_like", lambda T, d, a: T.full_like(a, 2.5), I((2, 3)))
case("full_like-int-truncates", lambda T, d, a: T.full_like(a, 2.7), I((4,), I64))
case("like-0d", lambda T, d, a: (T.zeros_like(a), T.ones_like(a)), I(()))
case("arange-int", lambda T, d: T.arange(5, device=d))
case("arange-start-end-step", lambda T, d: T.arange(1, 10, 3, device=d))
case("arange-negative-step", lambda T, d: T.arange(10, 0, -2, device=d))
case("arange-float", lambda T, d: T.arange(0, 1, 0.1, device=d))
case("arange-float-end", lambda T, d: T.arange(5.0, device=d))
case("arange-float-step-neg-start", lambda T, d: T.arange(-3, 3, 0.5, device=d))
case("arange-dtype", lambda T, d: T.arange(4, dtype=T.float32, device=d))
case("arange-empty", lambda T, d: T.arange(3, 3, device=d))
case("linspace", lambda T, d: T.linspace(0, 1, 5, device=d))
case("linspace-neg", lambda T, d: T.linspace(-1, 1, 7, device=d))
case("linspace-one-step", lambda T, d: T.linspace(2, 3, 1, device=d))
case("linspace-many", lambda T, d: T.linspace(-10, 10, 101, device=d))
case("eye", lambda T, d: T.eye(3, device=d))
case("eye-rect", lambda T, d: T.eye(2, 4, device=d))
case("eye-tall-dtype", lambda T, d: T.eye(4, 2, dtype=T.int64, device=d))
case("creation-then-op", lambda T, d: T.arange(6, device=d).reshape(2, 3) * T.ones(3, device=d) + T.eye(2, 3, device=d))

# -- error cases -----------------------------------------------------------
error("add-shape-mismatch", lambda T, d, a, b: a + b, I((2, 3)), I((4, 3)))
error("mul-shape-mismatch-broadcast", lambda T, d, a, b: T.mul(a, b), I((2, 3, 4)), I((3, 5)))
error("matmul-shape-mismatch", lambda T, d, a, b: a @ b, I((3, 4)), I((5, 2)))
error("matmul-1d-mismatch", lambda T, d, a, b: T.matmul(a, b), I((3,)), I((4,)))
error("mm-not-2d", lambda T, d, a, b: T.mm(a, b), I((2, 3, 4)), I((4, 2)))
error("bmm-batch-mismatch", lambda T, d, a, b: T.bmm(a, b), I((2, 3, 4)), I((3, 4, 2)))
error("view-incompatible-size", lambda T, d, a: a.view(5, 2), I((3, 4)))
error("view-noncontig", lambda T, d, a: a.view(-1), I((3, 4), layout="transposed"))
error("reshape-incompatible-size", lambda T, d, a: a.reshape(7), I((3, 4)))
error("getitem-out-of-range", lambda T, d, a: a[3], I((3, 4)), exc=IndexError)
error("getitem-neg-out-of-range", lambda T, d, a: a[:, -5], I((3, 4)), exc=IndexError)
error("getitem-too-many-indices", lambda T, d, a: a[0, 0, 0], I((3, 4)), exc=IndexError)
error("getitem-negative-step", lambda T, d, a: a[::-1], I((3, 4)), exc=ValueError)
error("item-multi-element", lambda T, d, a: a.item(), I((3, 4)))
error("cat-different-ranks", lambda T, d, a, b: T.cat([a, b]), I((2, 3)), I((3,)))
error("cat-shape-mismatch", lambda T, d, a, b: T.cat([a, b], dim=0), I((2, 3)), I((2, 4)))
error("stack-shape-mismatch", lambda T, d, a, b: T.stack([a, b]), I((2, 3)), I((3, 2)))
error("squeeze-dim-out-of-range", lambda T, d, a: a.squeeze(3), I((1, 3)), exc=IndexError)
error("unsqueeze-dim-out-of-range", lambda T, d, a: a.unsqueeze(4), I((1, 3)), exc=IndexError)
error("transpose-dim-out-of-range", lambda T, d, a: a.transpose(0, 2), I((2, 3)), exc=IndexError)
error("sum-dim-out-of-range", lambda T, d, a: a.sum(2), I((2, 3)), exc=IndexError)
error("permute-wrong-length", lambda T, d, a: a.permute(1, 0), I((2, 3, 4)))
error("expand-bad-size", lambda T, d, a: a.expand(3, 4), I((2, 4)))
error("mean-of-int", lambda T, d, a: T.mean(a), I((4,), I64))
error("max-of-empty", lambda T, d, a: T.max(a), I((0,)))
error("amax-empty-dim", lambda T, d, a: T.amax(a, dim=0), I((0, 3)), exc=IndexError)
error("where-cond-not-bool", lambda T, d, c, a, b: T.where(c, a, b), I((3,)), I((3,)), I((3,)))
error("softmax-dim-out-of-range", lambda T, d, a: T.softmax(a, dim=2), I((2, 3)), exc=IndexError)
error("linear-shape-mismatch", lambda T, d, x, w: T.nn.functional.linear(x, w), I((4, 6)), I((5, 7)))


# -- advanced indexing (webtorch/_indexing.py) --------------------------------
IDX = dict(kind="int", low=-3, high=2)  # in range for a dim of size 3, negatives included
case("getitem-int-tensor", lambda T, d, a, i: a[i], I((3, 4)), I((5,), I64, **IDX))
case("getitem-int32-tensor-2d", lambda T, d, a, i: a[i], I((3, 4), layout="transposed"), I((2, 2), I32, **IDX))
case("getitem-list", lambda T, d, a: a[[0, 2, -1]], I((3, 4)))
case("getitem-list-bool", lambda T, d, a: a[[True, False, True]], I((3, 4)))
case("getitem-tensor-slice", lambda T, d, a, i: a[i, 1:], I((3, 4), layout="strided"), I((4,), I64, **IDX))
case("getitem-slice-tensor", lambda T, d, a, i: a[:, i], I((4, 3)), I((2, 5), I64, **IDX))
case("getitem-two-tensors-broadcast", lambda T, d, a, i, j: a[i, :, j],
     I((3, 2, 3)), I((4, 1), I64, **IDX), I((5,), I64, **IDX))
case("getitem-adjacent-tensors", lambda T, d, a, i, j: a[:, i, j], I((2, 3, 3)), I((4,), I64, **IDX), I((4,), I64, **IDX))
case("getitem-int-slice-tensor", lambda T, d, a, i: a[0, :, i], I((2, 3, 3), layout="offset"), I((2,), I64, **IDX))
case("getitem-tensor-none-ellipsis", lambda T, d, a, i: a[None, ..., i], I((2, 3, 3)), I((2,), I64, **IDX))
case("getitem-0d-index", lambda T, d, a, i: a[i], I((3, 4)), I((), I64, low=0, high=2))
case("getitem-empty-index", lambda T, d, a: a[T.tensor([], dtype=T.int64, device=d)], I((3, 4)))
case("getitem-bool-mask", lambda T, d, a: a[a > 0], I((4, 5)))
case("getitem-bool-mask-rows", lambda T, d, a, m: a[m], I((4, 3), layout="transposed"), I((4,), BOOL))
case("getitem-bool-mask-none", lambda T, d, a: a[a > 100], I((3, 4)))
case("getitem-bool-mask-then-slice", lambda T, d, a, m: a[m, ::2], I((3, 4)), I((3,), BOOL))
case("getitem-bool-0d", lambda T, d, a: (a[T.tensor(True, device=d)], a[T.tensor(False, device=d)]), I((2, 3)))
case("getitem-mask-int-mix", lambda T, d, a, m, i: a[m, i], I((3, 3)), I((3,), BOOL, values=[True, False, True]),
     I((2,), I64, **IDX))
case("getitem-adv-int-dtype", lambda T, d, a, i: a[i], I((5,), I64), I((6,), I64, low=-5, high=4))
case("getitem-adv-bool-dtype", lambda T, d, a, i: a[i], I((5,), BOOL), I((6,), I64, low=-5, high=4))


def _setitem(index_fn, value_fn=None):
    def fn(T, d, a, *rest):
        a = a.clone()
        index = index_fn(T, d, a, *rest)
        a[index] = value_fn(T, d, a, *rest) if value_fn else -7.0
        return a
    return fn


case("setitem-int-tensor-scalar", _setitem(lambda T, d, a, i: i), I((3, 4)), I((2,), I64, values=[0, -1]))
case("setitem-list-tensor-broadcast", _setitem(lambda T, d, a, v: [2, 0], lambda T, d, a, v: v), I((3, 4)), I((4,)))
case("setitem-mask-scalar", _setitem(lambda T, d, a: a > 0), I((3, 4), layout="transposed"))
case("setitem-mask-rows-tensor", _setitem(lambda T, d, a, m, v: m, lambda T, d, a, m, v: v),
     I((4, 3)), I((4,), BOOL, values=[True, False, True, True]), I((3, 3)))
case("setitem-two-tensors", _setitem(lambda T, d, a, i, j, v: (i, j), lambda T, d, a, i, j, v: v),
     I((3, 3)), I((3,), I64, values=[0, 1, 2]), I((3,), I64, values=[2, 0, 1]), I((3,)))
case("setitem-slice-tensor-int-value", _setitem(lambda T, d, a, i: (slice(None), i), lambda T, d, a, i: 5),
     I((2, 5), I64), I((2,), I64, values=[4, 1]))
case("setitem-mask-0d-tensor", _setitem(lambda T, d, a, v: a < 0, lambda T, d, a, v: v), I((5,)), I(()))
case("setitem-view-writes-base", lambda T, d, a: (lambda b: (b.__setitem__((slice(None), T.tensor([0, 2], device=d)),
                                                                           0.0), b)[1])(a.clone()[1:]), I((3, 4)))
case("index_put", lambda T, d, a, i, v: a.index_put((i,), v), I((4, 2)), I((2,), I64, values=[3, 0]), I((2,)))
case("index_put-accumulate", lambda T, d, a, i, v: T.index_put(a, (i,), v, accumulate=True),
     I((4, 2)), I((6,), I64, values=[3, 0, 3, 3, 1, 0]), I((6, 2)))
case("index_put-accumulate-int", lambda T, d, a, i, v: a.index_put((i,), v, accumulate=True),
     I((4,), I64), I((6,), I64, values=[3, 0, 3, 3, 1, 0]), I((6,), I64))
case("index_put_-inplace", lambda T, d, a, i: (lambda b: (b.index_put_((i,), T.tensor(9.0, device=d)), b)[1])(
    a.clone()), I((4,)), I((2,), I64, values=[1, -1]))
case("index_select", lambda T, d, a, i: T.index_select(a, 1, i), I((3, 4)), I((5,), I64, low=0, high=3))
case("index_select-method-transposed", lambda T, d, a, i: a.index_select(0, i),
     I((3, 4), layout="transposed"), I((2,), I32, low=0, high=2))
case("index_select-0d-index", lambda T, d, a, i: a.index_select(-1, i), I((2, 3)), I((), I64, low=0, high=2))
# One gather kernel reading the index directly: a middle dim of a strided 3-D view with int32
# repeats, and a dim whose outer dims do not merge into one stride (the input is copied first).
case("index_select-middle-strided", lambda T, d, a, i: a.index_select(1, i), I((3, 4, 5), layout="strided"),
     I((6,), I32, low=0, high=3))
case("index_select-permuted-outer", lambda T, d, a, i: T.index_select(a, 2, i), I((2, 3, 4, 5), layout="transposed"),
     I((3,), I64, low=0, high=3))
case("index_select-empty", lambda T, d, a, i: a.index_select(0, i), I((3, 2)), I((0,), I64))
case("gather", lambda T, d, a, i: T.gather(a, 1, i), I((3, 4)), I((3, 6), I64, low=0, high=3))
case("gather-dim0-smaller-index", lambda T, d, a, i: a.gather(0, i), I((4, 5), layout="strided"),
     I((2, 3), I64, low=0, high=3))
case("gather-3d-neg-dim", lambda T, d, a, i: a.gather(-1, i), I((2, 3, 4)), I((2, 3, 2), I64, low=0, high=3))
case("gather-0d", lambda T, d, a, i: a.gather(0, i), I(()), I((), I64, values=[0]))
case("gather-int", lambda T, d, a, i: a.gather(0, i), I((5,), I64), I((7,), I64, low=0, high=4))
case("take_along_dim", lambda T, d, a: T.take_along_dim(a, a.argsort(dim=1), dim=1), I((3, 4), kind="unique"))
case("take_along_dim-broadcast", lambda T, d, a, i: T.take_along_dim(a, i, 1), I((3, 4)), I((1, 2), I64, low=-4, high=3))
case("take_along_dim-flat", lambda T, d, a, i: a.take_along_dim(i), I((3, 4)), I((5,), I64, low=0, high=11))
case("scatter", lambda T, d, a, i, s: T.scatter(a, 1, i, s), I((3, 5)),
     I((3, 2), I64, values=[0, 4, 1, 3, 2, 1]), I((3, 4)))
case("scatter-value", lambda T, d, a, i: a.scatter(0, i, 2.5), I((3, 4)), I((1, 4), I64, values=[2, 0, 1, 2]))
case("scatter_-inplace", lambda T, d, a, i, s: (lambda b: (b.scatter_(0, i, s), b)[1])(a.clone()),
     I((3,), I64), I((2,), I64, values=[2, 0]), I((2,), I64))
case("scatter_add", lambda T, d, a, i, s: T.scatter_add(a, 0, i, s), I((3, 4)),
     I((5, 4), I64, low=0, high=2), I((5, 4)))
case("scatter_add-int-noncontig", lambda T, d, a, i, s: a.scatter_add(1, i, s), I((2, 3), I64),
     I((2, 6), I64, low=0, high=2), I((2, 6), I64, layout="transposed"))
case("scatter-reduce-add", lambda T, d, a, i, s: a.scatter(1, i, s, reduce="add"), I((2, 3)),
     I((2, 4), I64, low=0, high=2), I((2, 4)))
case("index_add", lambda T, d, a, i, s: T.index_add(a, 0, i, s), I((4, 3)),
     I((6,), I64, values=[0, 3, 3, 1, 2, 0]), I((6, 3)))
case("index_add-alpha-dim1", lambda T, d, a, i, s: a.index_add(1, i, s, alpha=2), I((2, 4)),
     I((3,), I64, values=[1, 1, 2]), I((2, 3), layout="transposed"))
case("index_add_-int", lambda T, d, a, i, s: (lambda b: (b.index_add_(0, i, s), b)[1])(a.clone()),
     I((3,), I64), I((4,), I64, values=[0, 2, 0, 0]), I((4,), I64))
case("masked_fill", lambda T, d, a, m: T.masked_fill(a, m, -1.5), I((3, 4)), I((3, 4), BOOL))
case("masked_fill-broadcast-mask", lambda T, d, a, m: a.masked_fill(m, float("inf")), I((3, 4), layout="transposed"),
     I((4,), BOOL))
case("masked_fill-0d-value-int", lambda T, d, a, m, v: a.masked_fill(m, v), I((2, 3), I64), I((2, 3), BOOL), I(()))
case("masked_select", lambda T, d, a, m: T.masked_select(a, m), I((3, 4)), I((3, 4), BOOL))
case("masked_select-broadcast", lambda T, d, a, m: a.masked_select(m), I((3, 4), layout="strided"), I((4,), BOOL))
case("masked_select-empty", lambda T, d, a: a.masked_select(a > 1e9), I((2, 3)))
case("nonzero", lambda T, d, a: T.nonzero(a), I((3, 4), I64, low=-1, high=1))
case("nonzero-float-nan", lambda T, d, a: a.nonzero(), I((16,), kind="edge"))
case("nonzero-as-tuple-transposed", lambda T, d, a: T.nonzero(a, as_tuple=True), I((3, 4, 2), BOOL, layout="transposed"))
case("nonzero-0d-and-empty", lambda T, d, a, b: (T.nonzero(a), T.nonzero(b)), I((), I64, values=[3]), I((0, 2)))
case("nonzero-none", lambda T, d, a: T.nonzero(a > 1e9), I((2, 3)))
case("argwhere", lambda T, d, a: T.argwhere(a), I((2, 3), BOOL))
case("where-one-arg", lambda T, d, a: T.where(a > 0), I((3, 4)))
error("getitem-tensor-out-of-range", lambda T, d, a: a[T.tensor([0, 3], device=d)], I((3, 4)), exc=IndexError)
error("getitem-tensor-neg-out-of-range", lambda T, d, a: a[:, T.tensor([-5], device=d)], I((3, 4)), exc=IndexError)
error("getitem-float-index", lambda T, d, a: a[T.tensor([0.0], device=d)], I((3, 4)), exc=IndexError)
error("getitem-mask-shape", lambda T, d, a, m: a[m], I((3, 4)), I((4,), BOOL), exc=IndexError)
error("getitem-index-broadcast", lambda T, d, a: a[T.tensor([0, 1], device=d), T.tensor([0, 1, 2], device=d)],
      I((3, 4)), exc=IndexError)
error("setitem-tensor-out-of-range", lambda T, d, a: a.__setitem__(T.tensor([7], device=d), 1.0), I((3, 4)),
      exc=IndexError)
error("index_select-out-of-range", lambda T, d, a: a.index_select(0, T.tensor([3], device=d)), I((3, 4)),
      exc=IndexError)
error("gather-out-of-range", lambda T, d, a: a.gather(1, T.tensor([[4]], device=d)), I((3, 4)))
error("gather-float-index", lambda T, d, a: a.gather(1, T.tensor([[0.0]], device=d)), I((3, 4)))
error("gather-negative-index", lambda T, d, a: a.gather(1, T.tensor([[-1]], device=d)), I((3, 4)))
error("index_select-negative-index", lambda T, d, a: a.index_select(0, T.tensor([-1], device=d)), I((3, 4)),
      exc=IndexError)
error("gather-rank-mismatch", lambda T, d, a: a.gather(1, T.tensor([0], device=d)), I((3, 4)))
error("scatter-out-of-range", lambda T, d, a: a.scatter(0, T.tensor([[5]], device=d), 1.0), I((3, 4)))
error("index_add-out-of-range", lambda T, d, a: a.index_add(0, T.tensor([3], device=d), T.ones(1, 4, device=d)),
      I((3, 4)))
error("masked_fill-float-mask", lambda T, d, a, m: a.masked_fill(m, 0.0), I((3, 4)), I((4,)))
error("masked_fill-1d-value", lambda T, d, a, m, v: a.masked_fill(m, v), I((3, 4)), I((4,), BOOL), I((4,)))

# -- shape ops (webtorch/_shape_ops.py) ----------------------------------------
case("split-size", lambda T, d, a: T.split(a, 2, 1), I((3, 5)))
case("split-sections-method", lambda T, d, a: a.split([1, 0, 3], dim=-1), I((2, 4), layout="transposed"))
case("split-empty-dim", lambda T, d, a: a.split(2), I((0, 3)))
case("chunk", lambda T, d, a: T.chunk(a, 3, 1), I((2, 7)))
case("chunk-more-than-size", lambda T, d, a: a.chunk(5), I((3, 2), layout="strided"))
case("tensor_split", lambda T, d, a: (T.tensor_split(a, 3), a.tensor_split([1, 4], dim=1)), I((7, 5)))
case("unbind", lambda T, d, a: T.unbind(a, 1), I((2, 3, 2)))
case("unbind-method-0", lambda T, d, a: a.unbind(), I((3, 2), layout="transposed"))
case("select", lambda T, d, a: a.select(1, -1), I((2, 3, 4)))
case("narrow-method", lambda T, d, a: a.narrow(1, 1, 2), I((3, 4)))
case("flip", lambda T, d, a: T.flip(a, [0, 2]), I((2, 3, 4)))
case("flip-method-varargs-transposed", lambda T, d, a: a.flip(-1), I((3, 4), layout="transposed"))
case("flip-0d-and-empty", lambda T, d, a, b: (a.flip(()), b.flip(0)), I(()), I((0, 2)))
case("fliplr-flipud", lambda T, d, a: (T.fliplr(a), T.flipud(a)), I((3, 4), I64))
case("roll", lambda T, d, a: T.roll(a, 1, 0), I((4, 3)))
case("roll-multi-neg", lambda T, d, a: a.roll((-1, 5), (1, 0)), I((3, 4), layout="strided"))
case("roll-flat", lambda T, d, a: T.roll(a, 5), I((3, 4)))
case("repeat", lambda T, d, a: a.repeat(2, 3), I((2, 3)))
case("repeat-new-dims", lambda T, d, a: a.repeat(2, 1, 2), I((3,), I64))
case("repeat-expanded-zero", lambda T, d, a: (a.repeat((1, 2)), a.repeat(0, 1)), I((3, 2), layout="expanded"))
case("tile", lambda T, d, a: (T.tile(a, (2,)), a.tile(2, 1, 1)), I((2, 3)))
case("repeat_interleave-int", lambda T, d, a: T.repeat_interleave(a, 2), I((2, 3)))
case("repeat_interleave-dim", lambda T, d, a: a.repeat_interleave(3, dim=0), I((2, 3), BOOL))
case("repeat_interleave-tensor", lambda T, d, a, r: a.repeat_interleave(r, dim=1), I((2, 3)),
     I((3,), I64, values=[2, 0, 1]))
case("repeat_interleave-counts", lambda T, d, r: T.repeat_interleave(r), I((4,), I64, values=[1, 0, 3, 2]))
case("movedim", lambda T, d, a: T.movedim(a, 0, -1), I((2, 3, 4)))
case("movedim-multi", lambda T, d, a: (a.movedim((0, 1), (2, 0)), T.moveaxis(a, -1, 0).shape), I((2, 3, 4)))
case("unflatten", lambda T, d, a: (a.unflatten(1, (2, -1)), T.unflatten(a, -1, (3, 2, 1))), I((2, 6)))
case("tril", lambda T, d, a: T.tril(a), I((4, 5)))
case("tril-diag-batch", lambda T, d, a: a.tril(-1), I((2, 3, 4), layout="transposed"))
case("triu", lambda T, d, a: (T.triu(a, 1), a.triu(-2)), I((5, 3)))
case("triu-int-bool", lambda T, d, a, b: (a.triu(), b.tril(1)), I((3, 3), I64), I((3, 4), BOOL))
case("diag-1d", lambda T, d, a: (T.diag(a), T.diag(a, -2), a.diag(1)), I((3,)))
case("diag-2d", lambda T, d, a: (T.diag(a), a.diag(2), a.diag(-1)), I((3, 4), layout="transposed"))
case("diagonal", lambda T, d, a: _view_info(T.diagonal(a)), I((3, 4)))
case("diagonal-offset-dims", lambda T, d, a: (a.diagonal(1, 0, 2), a.diagonal(-1, -1, 0), a.diagonal(5)),
     I((3, 2, 4)))
case("diag_embed", lambda T, d, a: T.diag_embed(a), I((2, 3)))
case("pad-constant", lambda T, d, a: T.nn.functional.pad(a, (1, 2)), I((2, 3)))
case("pad-constant-value-2d", lambda T, d, a: T.nn.functional.pad(a, (0, 1, 2, 0), value=-1.5),
     I((2, 3, 2), layout="transposed"))
case("pad-constant-negative", lambda T, d, a: T.nn.functional.pad(a, (-1, 2, 1, -1)), I((3, 4), I64))
case("pad-reflect", lambda T, d, a: T.nn.functional.pad(a, (2, 1), mode="reflect"), I((2, 4)))
case("pad-reflect-2d", lambda T, d, a: T.nn.functional.pad(a, (1, 1, 2, 0), mode="reflect"), I((1, 3, 4)))
case("pad-replicate", lambda T, d, a: T.nn.functional.pad(a, (3, 1, 0, 2), mode="replicate"), I((1, 2, 3)))
case("pad-circular", lambda T, d, a: T.nn.functional.pad(a, (1, 2), mode="circular"), I((1, 2, 3)))
case("broadcast_to", lambda T, d, a: (T.broadcast_to(a, (2, 3, 4)), a.broadcast_to((3, 4))), I((3, 1)))
case("meshgrid-ij", lambda T, d, a, b: T.meshgrid(a, b, indexing="ij"), I((3,)), I((4,)))
case("meshgrid-xy-three", lambda T, d, a, b, c: T.meshgrid([a, b, c], indexing="xy"), I((3,)), I((2,)), I((4,)))
case("einsum-bmm", lambda T, d, a, b: T.einsum("bij,bjk->bik", a, b), I((2, 3, 4)), I((2, 4, 5)), **MM)
case("einsum-transpose-trace-diag", lambda T, d, a: (T.einsum("ij->ji", a), T.einsum("ii", a), T.einsum("ii->i", a)),
     I((3, 3)), **MM)
case("einsum-outer-dot-sum", lambda T, d, a, b: (T.einsum("i,j->ij", a, b), T.einsum("i,i->", a, a),
                                                 T.einsum("i->", b)), I((3,)), I((4,)), **MM)
case("einsum-ellipsis-broadcast", lambda T, d, a, b: T.einsum("...ij,...jk->...ik", a, b),
     I((2, 1, 3, 4)), I((3, 4, 2), layout="transposed"), **MM)
case("einsum-implicit-three", lambda T, d, a, b, c: T.einsum("ijk,jl,l", a, b, c), I((2, 3, 4)), I((3, 5)), I((5,)), **MM)
case("einsum-attention", lambda T, d, q, k: T.einsum("bhqd,bhkd->bhqk", q, k), I((1, 2, 3, 4)), I((1, 2, 5, 4)), **MM)
case("einsum-list-int", lambda T, d, a, b: T.einsum("ij,jk", [a, b]), I((2, 3), I64), I((3, 2), I64))
error("split-bad-sections", lambda T, d, a: a.split([1, 1], 0), I((3, 4)))
error("chunk-zero", lambda T, d, a: a.chunk(0), I((3, 4)))
error("repeat-too-few-dims", lambda T, d, a: a.repeat(2), I((3, 4)))
error("tril-1d", lambda T, d, a: T.tril(a), I((3,)))
error("diag-3d", lambda T, d, a: T.diag(a), I((2, 2, 2)))
error("diagonal-same-dims", lambda T, d, a: a.diagonal(0, 1, 1), I((3, 4)))
error("movedim-length-mismatch", lambda T, d, a: a.movedim((0, 1), (2,)), I((2, 3, 4)))
error("meshgrid-dtype-mismatch", lambda T, d, a, b: T.meshgrid(a, b, indexing="ij"), I((3,)), I((2,), I64))
error("unflatten-bad-sizes", lambda T, d, a: a.unflatten(1, (4, 2)), I((2, 6)))
error("flip-dim-out-of-range", lambda T, d, a: a.flip(2), I((3, 4)), exc=IndexError)
error("pad-reflect-too-large", lambda T, d, a: T.nn.functional.pad(a, (3, 0), mode="reflect"), I((1, 3)))
error("einsum-operand-count", lambda T, d, a: T.einsum("ij,jk->ik", a), I((2, 2)))
error("einsum-subscript-count", lambda T, d, a: T.einsum("ijk->i", a), I((2, 2)))


# -- more math (webtorch/_math_ops.py) -----------------------------------------
for _name, _kind in [("log1p", dict(kind="uniform", low=-0.99, high=3)), ("expm1", dict(kind="uniform", low=-5, high=5)),
                     ("exp2", dict(kind="uniform", low=-10, high=10)), ("log2", dict(kind="positive")),
                     ("log10", dict(kind="positive")), ("tan", dict(kind="uniform", low=-1.5, high=1.5)),
                     ("asin", dict(kind="uniform")), ("acos", dict(kind="uniform")), ("atan", dict()),
                     ("sinh", dict(kind="uniform", low=-5, high=5)), ("cosh", dict(kind="uniform", low=-5, high=5)),
                     ("asinh", dict()), ("acosh", dict(kind="positive", low=1, high=10)),
                     ("atanh", dict(kind="uniform", low=-0.99, high=0.99)), ("frac", dict(kind="uniform", low=-5, high=5))]:
    case(_name, lambda T, d, a, _n=_name: getattr(T, _n)(a), I((3, 4), **_kind), **TRANS)
    case(_name + "-edge-method", lambda T, d, a, _n=_name: getattr(a, _n)(),
         I((12,), values=SIN_VALUES) if _name == "tan" else I((16,), kind="edge"), **TRANS)
case("math-unary-small-args", lambda T, d, a: (T.log1p(a), T.expm1(a), T.sinh(a), T.asinh(a), T.atanh(a)),
     I((6,), values=[1e-7, -1e-7, 1e-4, -3e-4, 0.0, -0.0]), atol=1e-12, rtol=1e-4)
case("math-unary-int-and-noncontig", lambda T, d, a, b: (T.log2(a), T.exp2(a), b.tan(), T.arcsinh(b)),
     I((5,), I64, low=1, high=9), I((3, 4), layout="transposed", kind="uniform"), **TRANS)
case("math-unary-0d-empty", lambda T, d, a, b: (T.log10(a), T.cosh(b)), I((), kind="positive"), I((0, 2)), **TRANS)
case("atan2", lambda T, d, a, b: T.atan2(a, b), I((3, 4)), I((4,)), **TRANS)
case("atan2-method-zeros", lambda T, d, a, b: a.arctan2(b), I((4,), values=[0.0, 1.0, -1.0, 0.0]),
     I((4,), values=[1.0, 0.0, 0.0, -1.0]), **TRANS)
case("hypot", lambda T, d, a, b: T.hypot(a, b), I((3, 4)), I((3, 1)), **TRANS)
case("hypot-edge", lambda T, d, a, b: a.hypot(b), I((16,), kind="edge"), I((16,), kind="edge"), **TRANS)
case("cumsum", lambda T, d, a: T.cumsum(a, 1), I((3, 5)), **RED)
case("cumsum-dim0-transposed", lambda T, d, a: a.cumsum(0), I((4, 3), layout="transposed"), **RED)
case("cumsum-int-bool-dtype", lambda T, d, a, b: (a.cumsum(-1), T.cumsum(b, 0), a.cumsum(0, dtype=T.float32)),
     I((3, 4), I32), I((5,), BOOL))
case("cumsum-long-row", lambda T, d, a: T.cumsum(a, 0), I((1000,), kind="uniform"), atol=1e-3, rtol=1e-4)
case("cumsum-edge-0d-empty", lambda T, d, a, b, c: (a.cumsum(0), b.cumsum(0), c.cumsum(1)),
     I((16,), kind="edge"), I(()), I((2, 0)))
case("cumprod", lambda T, d, a: T.cumprod(a, -1), I((3, 6), kind="uniform", low=0.5, high=1.5), **RED)
case("cumprod-int-strided", lambda T, d, a: a.cumprod(1), I((2, 5), I64, low=-3, high=3, layout="strided"))
# zeros: one, two and none per row (the gradients divide by the input only where it has no zero)
ZEROS_BY_ROW = [0.0, 2.0, 0.0, 3.0, 1.5, 0.0, -1.0, 2.0, 4.0, 0.5, 2.0, -1.0]
case("cumprod-zeros", lambda T, d, a: T.cumprod(a, 1), I((3, 4), values=ZEROS_BY_ROW), **RED)
case("prod-dim-zeros", lambda T, d, a: T.prod(a, 1), I((3, 4), values=ZEROS_BY_ROW), **RED)
case("prod-full-zero", lambda T, d, a: T.prod(a), I((4,), values=[2.0, 0.0, -1.5, 3.0]), **RED)
case("sort", lambda T, d, a: T.sort(a), I((3, 7), kind="unique"))
case("sort-desc-dim0", lambda T, d, a: a.sort(0, descending=True), I((5, 3), kind="unique", layout="transposed"))
case("sort-stable-ties", lambda T, d, a: (T.sort(a, stable=True), a.sort(descending=True, stable=True)),
     I((3, 9), I64, low=0, high=3))
case("sort-nan-inf", lambda T, d, a: (a.sort(), a.sort(descending=True)), I((16,), kind="edge"))
case("sort-long-row", lambda T, d, a: a.sort(), I((1000,), kind="unique"))
case("sort-bool-0d-empty", lambda T, d, a, b, c: (a.sort(), b.sort(), c.sort(0)), I((6,), BOOL), I(()), I((0, 3)))
case("argsort", lambda T, d, a: (T.argsort(a), a.argsort(dim=0, descending=True)), I((4, 5), kind="unique"))
case("msort", lambda T, d, a: T.msort(a), I((4, 3), kind="unique"))
case("topk", lambda T, d, a: T.topk(a, 3), I((4, 6), kind="unique"))
case("topk-smallest-dim0", lambda T, d, a: a.topk(2, dim=0, largest=False), I((5, 3), I64, kind="unique"))
case("topk-all-and-zero", lambda T, d, a: (a.topk(4), a.topk(0)), I((2, 4), kind="unique", layout="strided"))
case("median", lambda T, d, a: T.median(a), I((3, 5), kind="unique"))
case("median-dim", lambda T, d, a: (T.median(a, 1), a.median(0, keepdim=True)), I((4, 6), kind="unique"))
case("median-nan", lambda T, d, a: (a.median(), a.median(0)), I((7,), values=[1.0, NAN, 3.0, -1.0, NAN, 2.0, 0.5]))
case("median-int-0d", lambda T, d, a, b: (a.median(), b.median(0)), I((6,), I64, kind="unique"), I(()))
case("norm", lambda T, d, a: (T.norm(a), a.norm(dim=1), a.norm(p=1, dim=0, keepdim=True)), I((3, 4)), **RED)
case("vector_norm", lambda T, d, a: (T.linalg.vector_norm(a), T.linalg.vector_norm(a, ord=3, dim=(0, 1)),
                                     T.linalg.vector_norm(a, float("inf"), -1), T.linalg.vector_norm(a, 0),
                                     T.linalg.vector_norm(a, float("-inf")), T.linalg.norm(a)), I((2, 3, 4)), **RED)
case("norm-empty-transposed", lambda T, d, a, b: (T.norm(a), b.norm(dim=0)), I((0,)), I((4, 3), layout="transposed"),
     **RED)
case("dist", lambda T, d, a, b: (T.dist(a, b), a.dist(b, 1), T.dist(a, b, float("inf"))), I((3, 4)), I((4,)), **RED)
case("cdist", lambda T, d, a, b: T.cdist(a, b), I((5, 3)), I((4, 3)), **RED)
case("cdist-batch-p1", lambda T, d, a, b: T.cdist(a, b, p=1.0), I((2, 3, 4)), I((2, 5, 4)), **RED)
# over 25 rows: ‖a‖² + ‖b‖² - 2ab through a matmul, as torch (no P×R×M difference tensor)
case("cdist-matmul-form", lambda T, d, a, b: T.cdist(a, b), I((2, 30, 6), kind="uniform"), I((2, 7, 6), kind="uniform"),
     atol=1e-4, rtol=1e-4)
case("outer", lambda T, d, a, b: (T.outer(a, b), a.ger(b)), I((3,)), I((4,), I64))
case("addmm", lambda T, d, c, a, b: (T.addmm(c, a, b), c.addmm(a, b, beta=0.5, alpha=2)),
     I((3, 5)), I((3, 4)), I((4, 5)), **MM)
case("addmm-broadcast-beta0-nan", lambda T, d, c, a, b: T.addmm(c, a, b, beta=0), I((5,), values=[NAN]), I((3, 4)),
     I((4, 5), layout="transposed"), **MM)
case("addmv", lambda T, d, c, a, b: T.addmv(c, a, b, alpha=-1), I((3,)), I((3, 4)), I((4,)), **MM)
case("baddbmm", lambda T, d, c, a, b: (T.baddbmm(c, a, b), c.baddbmm(a, b, beta=2, alpha=0.5)),
     I((2, 3, 5)), I((2, 3, 4)), I((2, 4, 5)), **MM)
case("lerp", lambda T, d, a, b: (T.lerp(a, b, 0.3), a.lerp(b, 0.9), T.lerp(a, b, 1.0)), I((3, 4)), I((4,)))
case("lerp-tensor-weight", lambda T, d, a, b, w: T.lerp(a, b, w), I((3, 4)), I((3, 4), layout="strided"),
     I((3, 1), kind="uniform", low=-0.5, high=1.5))
case("addcmul", lambda T, d, a, b, c: (T.addcmul(a, b, c), a.addcmul(b, c, value=-0.5)), I((3, 4)), I((4,)), I((3, 1)))
case("addcdiv", lambda T, d, a, b, c: (T.addcdiv(a, b, c), a.addcdiv(b, c, value=2)), I((3, 4)), I((3, 4)),
     I((3, 4), kind="positive"))
# torch computes a + alpha b (add, sub, rsub), input + value t1 t2 (addcmul) and lerp as one fused
# multiply-add: the product may overflow where the result does not (fuzz seeds 98060, 107630). A broadcast
# other of add/sub is left out where its row passes 8 elements: docs/limits.md (torch rounds first there)
FMA_A = [-3e38, 3e38, -3e38, 3e38, 1.0, -2.5, NAN, INF, -INF, 0.0, -0.0, 1e-45]
FMA_B = [-3e38, 3e38, 2e38, -1e38, 2.0, 1e30, 1.0, 1.0, INF, -0.0, 0.0, -1e-45]
case("fused-multiply-add-overflow", lambda T, d, a, b, c: (
    T.sub(a, b, alpha=2), T.add(a, b, alpha=-2), a.add(b, alpha=0.5), T.sub(a[0], -3e38, alpha=2), T.rsub(b, a, alpha=0.5),
    T.addcmul(a, b, c), T.addcmul(a, b, T.ones_like(c), value=-2), a.clone().sub_(b, alpha=2)),
    I((3, 4), values=FMA_A), I((3, 4), values=FMA_B, layout="transposed"), I((4,), values=[2.0, -2.0, 0.5, -1.0]),
    exact=True)
# lerp's large-weight side end - (end - start)(1 - w): (1 - w)(end - start) = 5e38, the result 2e38
case("lerp-fused-overflow", lambda T, d, a, b, w: (T.lerp(a, b, w), T.lerp(a, b, 13.5), T.lerp(b, a, -12.5)),
     I((4,), values=[-3.4e38, 1.0, NAN, -3.4e38]), I((4,), values=[-3e38, 2.0, 1.0, -3e38], layout="strided"),
     I((4,), values=[13.5, 0.25, 0.5, 0.75]), exact=True)
case("nan_to_num", lambda T, d, a: (T.nan_to_num(a), a.nan_to_num(nan=1.5, posinf=9.0, neginf=-9.0)),
     I((16,), kind="edge"))
case("nan_to_num-int", lambda T, d, a: T.nan_to_num(a), I((4,), I64))
case("softplus-F", lambda T, d, a: (T.nn.functional.softplus(a), T.nn.functional.softplus(a, beta=2, threshold=5)),
     I((4, 5), kind="uniform", low=-30, high=30), **TRANS)
case("elu-leaky_relu-F", lambda T, d, a: (T.nn.functional.elu(a), T.nn.functional.elu(a, alpha=0.5),
                                          T.nn.functional.leaky_relu(a), T.nn.functional.leaky_relu(a, 0.2)),
     I((4, 5), kind="uniform", low=-5, high=5), **TRANS)
case("hardtanh-hardswish-mish-F", lambda T, d, a: (T.nn.functional.hardtanh(a), T.nn.functional.hardtanh(a, -2, 0.5),
                                                   T.nn.functional.hardswish(a), T.nn.functional.mish(a)),
     I((4, 5), kind="uniform", low=-6, high=6), **TRANS)
case("clamp-tensor-bounds-int", lambda T, d, a, lo, hi: (T.clamp(a, lo, hi), a.clamp(min=lo), a.clamp(max=hi)),
     I((3, 4), I64), I((4,), I64, low=-3, high=0), I((3, 1), I64, low=0, high=3))
case("int-floor-divide-bitwise-int32", lambda T, d, a, b: (a // b, T.floor_divide(a, -3), a & b, a | b, a ^ b, ~a),
     I((12,), I32, low=-20, high=20), I((12,), I32, kind="nonzero"))
case("isfinite-edge", lambda T, d, a: T.isfinite(a), I((16,), kind="edge"))
error("topk-k-too-large", lambda T, d, a: a.topk(5), I((4,)))
error("median-empty-dim", lambda T, d, a: a.median(1), I((3, 0)), exc=IndexError)
error("cumsum-dim-out-of-range", lambda T, d, a: a.cumsum(2), I((3, 4)), exc=IndexError)
error("sort-dim-out-of-range", lambda T, d, a: a.sort(-3), I((3, 4)), exc=IndexError)
error("vector_norm-int", lambda T, d, a: T.linalg.vector_norm(a), I((3,), I64))
error("cdist-columns-mismatch", lambda T, d, a, b: T.cdist(a, b), I((3, 4)), I((3, 5)))
error("addmm-shape-mismatch", lambda T, d, c, a, b: T.addmm(c, a, b), I((3, 5)), I((3, 4)), I((5, 5)))
error("addcdiv-int", lambda T, d, a, b, c: T.addcdiv(a, b, c), I((3,), I64), I((3,), I64), I((3,), I64, kind="nonzero"))


# statistics, products, splits and scatters built from existing ops (_math_ops.py, _shape_ops.py)
case("nanmedian", lambda T, d, a: (T.nanmedian(a, 1), a.nanmedian(0, keepdim=True), T.nanmedian(a)),
     I((4, 5), values=[NAN, 3.0, -1.0, NAN, 2.5, 0.5, 7.0, NAN, -2.0, 1.0, 4.0, -3.0]))
case("nanmedian-all-nan-int-0d", lambda T, d, a, b, c: (T.nanmedian(a, 1).values, T.nanmedian(a), b.nanmedian(),
                                                       T.nanmedian(c, 0)), I((2, 3), values=[NAN]), I((5,), I64),
     I(()))
case("cov", lambda T, d, a: (T.cov(a), a.cov(correction=0), T.cov(a[0])), I((3, 6)), **RED)
case("cov-weights-int", lambda T, d, a, f, w, n: (T.cov(a, fweights=f, aweights=w), T.cov(a, correction=2, aweights=w),
                                                 T.cov(n), T.cov(a, fweights=f)),
     I((2, 5)), I((5,), I64, low=0, high=3), I((5,), kind="positive"), I((3, 4), I64), **RED)
case("corrcoef", lambda T, d, a, b: (T.corrcoef(a), b.corrcoef()), I((3, 6)), I((1, 4), layout="offset"), **RED)
case("pdist", lambda T, d, a: (T.pdist(a), T.pdist(a, 1), T.pdist(a, 3.5), T.pdist(a, float("inf"))), I((4, 3)), **RED)
case("renorm", lambda T, d, a: (T.renorm(a, 2, 0, 1.5), a.renorm(1, -1, 2.0), a.renorm(3, 1, 100.0)), I((3, 4)), **RED)
case("inner", lambda T, d, a, b, s: (T.inner(a, b), a[0].inner(b[1]), T.inner(s, a)), I((2, 3, 4)), I((5, 4)), I(()),
     **MM)
case("addr", lambda T, d, c, u, v: (T.addr(c, u, v), c.addr(u, v, beta=0.5, alpha=2), T.addr(c[0], u, v, beta=0)),
     I((3, 4)), I((3,)), I((4,)), **MM)
case("addr-int-bool", lambda T, d, c, u, v, b: (T.addr(c, u, v, beta=2, alpha=3), T.addr(b, b[:, 0], b[0])),
     I((3, 4), I64), I((3,), I64), I((4,), I64), I((3, 4), BOOL))
case("addbmm", lambda T, d, c, a, b: (T.addbmm(c, a, b), c.addbmm(a, b, beta=0.5, alpha=-1)), I((3, 5)), I((4, 3, 2)),
     I((4, 2, 5)), **MM)
case("chain_matmul", lambda T, d, a, b, c: (T.chain_matmul(a, b, c), T.chain_matmul(a)), I((2, 3)), I((3, 4)),
     I((4, 2)), **MM)
case("addr_-addbmm_-renorm_", lambda T, d, c, u, v, a, b: (c.clone().addr_(u, v, alpha=2), c.clone().addbmm_(a, b),
                                                          c.clone().renorm_(2, 1, 1.0)),
     I((3, 4)), I((3,)), I((4,)), I((2, 3, 5)), I((2, 5, 4)), **MM)
case("vsplit-hsplit-dsplit", lambda T, d, a: (T.vsplit(a, 2), a.vsplit([1, 3]), T.hsplit(a, [2]), a.hsplit(3),
                                              T.dsplit(a, 2), a.dsplit([1]), T.hsplit(a[0, 0], 2)), I((4, 3, 2)))
case("unsafe-split-chunk", lambda T, d, a: (T.unsafe_chunk(a, 2, 1), a.unsafe_split(2), T.unsafe_split_with_sizes(a, [1, 2]),
                                            a.unsafe_split_with_sizes([3, 2], 1)), I((3, 5)))
case("diagflat", lambda T, d, a, b: (T.diagflat(a), a.diagflat(1), T.diagflat(b, -2)), I((2, 2)), I((3,)))
case("tril-triu-indices", lambda T, d: (T.tril_indices(3, 4, device=d), T.triu_indices(4, 3, -1, device=d),
                                        T.tril_indices(3, 3, 1, dtype=T.int32, device=d), T.triu_indices(0, 3, device=d)))
case("unravel_index", lambda T, d, a: (T.unravel_index(a, (3, 4)), T.unravel_index(a[0], T.Size([12])),
                                       T.unravel_index(a, (2, 1, 6))), I((2, 3), I64, low=-20, high=20))
case("sum_to_size", lambda T, d, a: (a.sum_to_size(1, 4), a.sum_to_size(3, 1), a.sum_to_size([4]), a.sum_to_size(3, 4)),
     I((3, 4)), **RED)
case("select-slice-diagonal-scatter", lambda T, d, a, r, c, dg: (T.select_scatter(a, r, 0, 1), a.select_scatter(c, 1, -1),
                                                               T.slice_scatter(a, a[:, ::2], 1, 0, None, 2),
                                                               a.slice_scatter(a[1:], start=1),
                                                               T.diagonal_scatter(a, dg), a.diagonal_scatter(dg[:2], 2)),
     I((3, 4)), I((4,)), I((3,)), I((3,)))
case("as_strided", lambda T, d, a: (T.as_strided(a, (3, 3), (1, 2)), a.as_strided((2, 2), (4, 1), 5),
                                    T.as_strided(a, (0, 3), (1, 1)), a[1:].as_strided((2,), (3,))), I((3, 4)))
# input detached: torch 2.13's gradient for as_strided_scatter's input goes to the overwritten elements
case("as_strided_", lambda T, d, a: (a.clone().as_strided_((2, 3), (1, 2), 1), T.as_strided_(a.clone(), (4,), (3,))),
     I((3, 4)))
case("as_strided_scatter", lambda T, d, a, s: (T.as_strided_scatter(a.detach(), s, (2, 2), (1, 4), 1),
                                               a.detach().as_strided_scatter(s.reshape(4), (4,), (3,))),
     I((3, 4)), I((2, 2)))
case("masked_scatter", lambda T, d, x, m, s: (T.masked_scatter(x, m, s), x.masked_scatter(m[0], s),
                                             x.clone().masked_scatter_(m, s), T.masked_scatter(x[0], m, s)),
     I((2, 3)), I((2, 3), BOOL), I((8,)))
case("nonzero_static", lambda T, d, a: (T.nonzero_static(a, size=3), a.nonzero_static(size=9, fill_value=7),
                                        T.nonzero_static(a, size=0), T.nonzero_static(a[0, 0], size=2)), I((2, 3), I64))
error("masked_scatter-float-mask", lambda T, d, x, m, s: T.masked_scatter(x, m, s), I((3,)), I((3,)), I((3,)))
error("masked_scatter-short-source", lambda T, d, x, s: T.masked_scatter(x, T.ones(3, dtype=T.bool, device=d), s),
      I((3,)), I((2,)))
case("histogram", lambda T, d, a, w, e: (T.histogram(a, 4), a.histogram(3, range=(-1.0, 2.0), weight=w),
                                        T.histogram(a, e, density=True), T.histogram(a, 5, weight=w, density=True),
                                        T.histogram(a[:0], 2), T.histogram(a[:1], 2)),
     I((3, 5)), I((3, 5), kind="positive"), I((4,), values=[-1.5, -0.25, 0.5, 1.75]), **RED)
case("histogramdd", lambda T, d, a, w: (T.histogramdd(a, [2, 3]),
                                        T.histogramdd(a, 2, range=[-1.0, 1.0, 0.0, 2.0], weight=w),
                                        T.histogramdd(a, [T.tensor([-2.0, 0.0, 0.5, 2.0], device=d),
                                                         T.tensor([-1.0, 1.0], device=d)], density=True),
                                        T.histogramdd(a.reshape(2, 4, 2), 3, weight=w.reshape(2, 4), density=True)),
     I((8, 2)), I((8,), kind="positive"), **RED)
case("gradient", lambda T, d, a, x, n: (T.gradient(a), T.gradient(a, spacing=2.0, dim=1, edge_order=2),
                                        T.gradient(a, spacing=[x, T.tensor([0.0, 1, 1.5, 4, 4.5], device=d)]),
                                        T.gradient(a, spacing=[x], dim=0, edge_order=2), T.gradient(n, spacing=(2,))),
     I((3, 5)), I((3,), values=[0.0, 1.0, 3.0]), I((4,), I64), **RED)
error("histogram-int", lambda T, d, a: T.histogram(a, 2), I((3,), I64), exc=NotImplementedError)
error("histogram-bad-range", lambda T, d, a: T.histogram(a, 2, range=(3.0, 1.0)), I((3,)))
error("histogramdd-bins-count", lambda T, d, a: T.histogramdd(a, [2, 2, 2]), I((4, 2)))
error("gradient-too-short", lambda T, d, a: T.gradient(a, edge_order=2), I((2,)))
error("gradient-edge-order", lambda T, d, a: T.gradient(a, edge_order=3), I((5,)))
case("index_reduce", lambda T, d, x, i, s, j: (T.index_reduce(x, 0, i, s, "mean"), x.index_reduce(0, i, s, "amax"),
                                               x.index_reduce(0, i, s, "amin", include_self=False),
                                               x.index_reduce(1, j, x[:, :4], "mean", include_self=False),
                                               x.clone().index_reduce_(0, i, s, "amin")),
     I((4, 3), kind="halves"), I((5,), I64, low=0, high=3), I((5, 3), kind="halves"), I((3,), I64, low=0, high=2))
case("index_reduce-prod-int", lambda T, d, x, i, s: (T.index_reduce(x, 0, i, s, "prod"),
                                                     x.index_reduce(0, i, s, "prod", include_self=False),
                                                     x.index_reduce(0, i, s, "mean")),
     I((4, 3), I64), I((5,), I64, low=0, high=3), I((5, 3), I64))
error("index_reduce-sum", lambda T, d, x, i: T.index_reduce(x, 0, i, x, "sum"), I((3,)), I((3,), I64, low=0, high=2))
error("index_reduce-out-of-range", lambda T, d, x, i: x.index_reduce(0, i, x, "amax"), I((3,)),
      I((3,), I64, low=3, high=4), exc=IndexError)
error("vsplit-1d", lambda T, d, a: T.vsplit(a, 1), I((3,)))
error("hsplit-indivisible", lambda T, d, a: T.hsplit(a, 2), I((2, 3)))
error("nanmedian-empty-dim", lambda T, d, a: a.nanmedian(1), I((3, 0)), exc=IndexError)
error("cov-3d", lambda T, d, a: T.cov(a), I((2, 2, 2)))
error("cov-float-fweights", lambda T, d, a, f: T.cov(a, fweights=f), I((2, 3)), I((3,)))
error("pdist-1d", lambda T, d, a: T.pdist(a), I((3,)))
error("renorm-1d", lambda T, d, a: T.renorm(a, 2, 0, 1.0), I((3,)))
error("inner-mismatch", lambda T, d, a, b: T.inner(a, b), I((2, 3)), I((2,)))
error("addr-2d-vec", lambda T, d, c, u, v: T.addr(c, u, v), I((2, 3)), I((2, 2)), I((3,)))
error("addbmm-2d", lambda T, d, c, a, b: T.addbmm(c, a, b), I((2, 2)), I((2, 2)), I((2, 2)), exc=IndexError)
error("select_scatter-shape", lambda T, d, a, s: T.slice_scatter(a, s, 0, 0, 3), I((3, 4)), I((2, 4)))
error("sum_to_size-not-expandable", lambda T, d, a: a.sum_to_size(2, 4), I((3, 4)))
error("as_strided-out-of-bounds", lambda T, d, a: a.as_strided((5, 5), (5, 1)), I((3, 4)))
error("unravel_index-float", lambda T, d, a: T.unravel_index(a, (2, 2)), I((2,)), exc=TypeError)


# -- in-place and out= forms (webtorch/_inplace.py) ----------------------------
def _inplace_on(fn):
    """fn(T, d, x, *rest) mutates x, a clone of the first input; returns (x, its return value is x)."""
    def run(T, d, a, *rest):
        x = a.clone()
        r = fn(T, d, x, *rest)
        return x, r is x
    return run


case("add_-sub_-mul_-div_", _inplace_on(lambda T, d, x, b: x.add_(b).sub_(0.5, alpha=2).mul_(b).div_(3.0)),
     I((3, 4)), I((4,)))
case("add_-int-scalar", _inplace_on(lambda T, d, x: x.add_(3).mul_(2).floor_divide_(4)), I((5,), I64))
case("inplace-unary-chain", _inplace_on(lambda T, d, x: x.abs_().sqrt_().exp_().log_().neg_().sigmoid_().tanh_()),
     I((3, 4)), **TRANS)
case("inplace-math-chain", _inplace_on(lambda T, d, x: x.clamp_(-0.9, 0.9).atanh_().sinh_().frac_().log1p_()),
     I((3, 4)), **TRANS)
case("clamp_-tensor", _inplace_on(lambda T, d, x, lo, hi: x.clamp_(min=lo, max=hi)), I((3, 4)), I((4,), kind="uniform"),
     I((3, 1), kind="uniform", low=0, high=1))
case("clamp_min_-clip_", _inplace_on(lambda T, d, x: x.clamp_min_(0.0).clip_(max=0.7)), I((3, 4)))
case("pow_-remainder_-fmod_", _inplace_on(lambda T, d, x: x.pow_(2).remainder_(1.5).fmod_(-0.7)), I((3, 4)))
case("zero_-fill_", lambda T, d, a, b, v: (a.clone().zero_(), b.clone().fill_(2.5), b.clone().fill_(v), a.clone().fill_(True)),
     I((2, 3), I64), I((3,)), I(()))
case("copy_-broadcast-cast", _inplace_on(lambda T, d, x, s: x.copy_(s)), I((3, 4)), I((4,), I64))
case("copy_-noncontig-src-dst", lambda T, d, a, b: (lambda x: (x.t().copy_(b), x)[1])(a.clone()),
     I((4, 3)), I((3, 4), layout="transposed"))
case("inplace-view-writes-base", lambda T, d, a: (lambda base: (base[1].add_(10), base[:, ::2].mul_(-1),
                                                                base.diagonal().zero_(), base)[-1])(a.clone()),
     I((3, 4)))
case("inplace-transposed-view", lambda T, d, a: (lambda base: (base.t().add_(T.arange(3.0, device=d)), base)[1])(a.clone()),
     I((3, 4)))
case("inplace-self-overlap", _inplace_on(lambda T, d, x: x.add_(x.flip(0)).mul_(x)), I((3, 3)))
case("masked_fill_", _inplace_on(lambda T, d, x, m: x.masked_fill_(m, -1.0)), I((3, 4)), I((4,), BOOL))
case("lerp_-addcmul_-addcdiv_", _inplace_on(lambda T, d, x, b, c: x.lerp_(b, 0.25).addcmul_(b, c, value=0.5)
                                            .addcdiv_(b, c, value=-0.1)), I((3, 4)), I((3, 4)), I((4,), kind="positive"))
case("tril_-triu_", lambda T, d, a: (a.clone().tril_(), a.clone().triu_(1)), I((3, 4)))
case("nan_to_num_", _inplace_on(lambda T, d, x: x.nan_to_num_(nan=0.5)), I((16,), kind="edge"))
case("logical-bitwise_", lambda T, d, a, b: (a.clone().bitwise_and_(b), a.clone().bitwise_xor_(3),
                                             a.clone().bitwise_not_()), I((6,), I64), I((6,), I64))
case("cmp_-in-float", _inplace_on(lambda T, d, x, b: x.lt_(b)), I((3, 4)), I((3, 4)))
case("augmented-assign", lambda T, d, a, b: (lambda x: (x.__iadd__(b), x.__imul__(2), x.__isub__(1.0),
                                                         x.__itruediv__(4), x)[-1])(a.clone()), I((3, 4)), I((4,)))
case("augmented-assign-python", lambda T, d, a, b: _aug(a.clone(), b), I((2, 3)), I((3,)))
case("cumsum_-0d", lambda T, d, a, b: (a.clone().cumsum_(1), b.clone().exp_()), I((2, 3)), I(()), **TRANS)
case("inplace-view-ops", lambda T, d, a: (lambda x: (x.unsqueeze_(0), x.transpose_(1, 2), x.squeeze_(0), x.t_(),
                                                     _view_info(x))[-1])(a.clone()), I((3, 4)))
case("addmm_-baddbmm_", lambda T, d, c, a, b, c3: (c.clone().addmm_(a, b, beta=0.5), c3.clone().baddbmm_(
    a.unsqueeze(0), b.unsqueeze(0))), I((3, 5)), I((3, 4)), I((4, 5)), I((1, 3, 5)), **MM)
case("out-forms", lambda T, d, a, b: _outs(T, d, a, b), I((3, 4)), I((4,)))
case("out-resize-and-cast", lambda T, d, a: (T.add(a, 1, out=T.empty(0, device=d)),
                                             T.mul(a, 2, out=T.zeros(2, 3, device=d)),
                                             T.add(a.long(), 1, out=T.zeros(3, 4, device=d))), I((3, 4)))
case("out-sort-topk", lambda T, d, a: (T.sort(a, out=(T.empty(3, 4, device=d), T.empty(3, 4, dtype=T.int64, device=d))),
                                       T.topk(a, 2, out=(T.empty(0, device=d), T.empty(0, dtype=T.int64, device=d)))),
     I((3, 4), kind="unique"))


def _aug(x, b):
    x += b
    x *= 3
    x -= 1
    x /= 2
    y = x[0]
    y += 100  # a view: writes through to x
    return x


def _outs(T, d, a, b):
    o1, o2, o3, o4 = (T.empty(3, 4, device=d) for _ in range(4))
    r1 = T.add(a, b, alpha=2, out=o1)
    T.mul(a, b, out=o2)
    T.matmul(a, T.ones(4, 4, device=d), out=o3)
    T.where(a > 0, a, b, out=o4)
    o5 = T.empty(4, device=d)
    T.sum(a, 0, out=o5)
    return o1, o2, o3, o4, o5, r1 is o1, T.cat([a, a], out=T.empty(6, 4, device=d))


case("arc-aliases", lambda T, d, a: (T.arcsin(a), T.arccos(a), T.arctan(a), T.arcsinh(a), T.arccosh(a + 2),
                                     T.arctanh(a * 0.5), a.arctan2(a + 1)), I((3, 4), kind="uniform"), **TRANS)
case("scatter_add_-inplace", lambda T, d, a, i, s: (lambda b: (b.scatter_add_(1, i, s), b)[1])(a.clone()),
     I((2, 3)), I((2, 4), I64, low=0, high=2), I((2, 4)))
case("trunc", lambda T, d, a, b: (T.trunc(a), b.trunc()), I((16,), kind="edge"), I((3, 4), kind="halves"))
case("dot-mv", lambda T, d, a, b, m: (T.dot(a, b), a.dot(b), T.mv(m, a), m.mv(b)), I((4,)), I((4,)), I((3, 4)), **MM)
case("isclose", lambda T, d, a, b: (T.isclose(a, b), a.isclose(b, rtol=0.1, atol=0.5), T.isclose(a, a, equal_nan=True)),
     I((16,), kind="edge"), I((16,), kind="edge"))
case("as_tensor", lambda T, d, a: (T.as_tensor([[1, 2], [3, 4]], device=d), T.as_tensor(a), T.as_tensor(a, dtype=T.int64),
                                   T.as_tensor(2.5, device=d)), I((3,)))
error("add_-float-into-int", lambda T, d, a: a.add_(1.5), I((3,), I64))
error("add_-broadcast-grows", lambda T, d, a, b: a.add_(b), I((3,)), I((2, 3)))
error("add_-expanded-self", lambda T, d, a: a.add_(1), I((2, 3), layout="expanded"))
error("fill_-1d-value", lambda T, d, a, b: a.fill_(b), I((3,)), I((3,)))
error("div_-int-true-division", lambda T, d, a: a.div_(2), I((3,), I64))
error("out-float-into-int", lambda T, d, a: T.add(a, 1, out=T.empty(3, dtype=T.int64, device=d)), I((3,)))

# -- torch's remaining elementwise, creation and predicate names (webtorch/_math_ops.py, _factories.py, _forms.py) --
NAN_MIX = [NAN, 1.0, -2.0, NAN, 0.5, 3.0, -0.0, INF]
case("deg2rad-rad2deg", lambda T, d, a, b, c: (T.deg2rad(a), a.rad2deg(), T.rad2deg(b), c.deg2rad()),
     I((3, 4), layout="transposed"), I((16,), kind="edge"), I((5,), I64), **TRANS)
case("fmax-fmin", lambda T, d, a, b: (T.fmax(a, b), a.fmin(b), T.fmin(b, a)),
     I((2, 8), values=NAN_MIX), I((8,), values=NAN_MIX[::-1]))
case("fmax-fmin-ties-broadcast", lambda T, d, a, b: (T.fmax(a, b), T.fmin(a, b)),  # ties: the gradient goes to a
     I((3, 4), kind="halves", low=-1, high=1), I((4,), kind="halves", low=-1, high=1))
case("fmax-fmin-int-promotion", lambda T, d, a, b, c: (T.fmax(a, b), T.fmin(a, c), T.fmax(c, b)),
     I((6,), I64), I((6,), I32), I((6,)))
case("float_power", lambda T, d, a, b, c: (T.float_power(a, b).float(), a.float_power(2).float(),
                                           T.float_power(2, c).float(), T.float_power(c, 0.5).float()),
     I((3, 4), kind="positive"), I((4,)), I((5,), I64, low=0, high=6), **TRANS)
case("frexp", lambda T, d, a, b, c, e: (T.frexp(a), b.frexp(), T.frexp(c), T.frexp(e)),
     I((16,), kind="edge"), I((3, 4), kind="uniform", low=-1e6, high=1e6), I(()), I((0, 2)))
case("frexp-powers-of-two", lambda T, d, a: T.frexp(a),
     I((10,), values=[1.0, 2.0, 0.5, 0.25, 1024.0, -4.0, 2.0 ** -100, 2.0 ** 100, 3.0 * 2.0 ** 60, 0.75]))
# exponents >= 0: torch's gradient of ldexp takes 2**other in integer arithmetic (0 for a negative int exponent)
case("ldexp", lambda T, d, a, b, c: (T.ldexp(a, b), c.ldexp(b), T.ldexp(a, c)),
     I((3, 4)), I((4,), I64, low=0, high=4), I((3, 1), I32, low=0, high=5))
case("ldexp-negative-exponent", lambda T, d, a, b: T.ldexp(a, b).detach(), I((3, 4)), I((4,), I64, low=-6, high=0))
case("positive-isreal", lambda T, d, a, b: (T.positive(a), b.positive(), T.isreal(a), b.isreal(), T.positive(a) is a),
     I((3, 4)), I((5,), I64))
case("logspace-range-scalar_tensor", lambda T, d: (T.logspace(0, 2, 5, device=d), T.logspace(-1, 1, 4, base=2, device=d),
                                                   T.logspace(0, 3, 4, base=2, dtype=T.int64, device=d),
                                                   T.logspace(0, 1, 0, device=d), T.logspace(1, 2, 1, device=d),
                                                   T.range(1, 4, device=d), T.range(0, 1, 0.1, device=d),
                                                   T.range(5, 1, -2, dtype=T.int64, device=d),
                                                   T.scalar_tensor(3, device=d), T.scalar_tensor(True, device=d),
                                                   T.scalar_tensor(2.5, dtype=T.int32, device=d)), **TRANS)
case("fill", lambda T, d, a, b, v: (T.fill(a, 2.5), T.fill(b, 2.7), T.fill(a, v), T.fill(b, v)),
     I((3, 4), layout="strided"), I((5,), I64), I(()))
case("empty_strided-new", lambda T, d, a: (
    T.empty_strided((2, 3), (1, 2), device=d).stride(), T.empty_strided((2, 0), (1, 2), device=d).shape,
    a.new_empty_strided((3, 2), (1, 3)).stride(), a.new_empty_strided((4,), (2,), dtype=T.int64).dtype == T.int64,
    a.new(2, 3).shape, a.new().shape, a.new(T.Size([4])).shape, a.new([1, 2]), a.new((2.5, 3)), a.new(a) is a,
    a.new(2).dtype == a.dtype, a.new(1).device == a.device), I((3,), I64))
case("predicates", lambda T, d, a, b, c: (
    T.is_nonzero(b), c.is_nonzero(), T.is_same_size(a, a), a.is_same_size(b), a.is_signed(), T.is_signed(c),
    T.is_inference(a), a.get_device() >= -1, T.can_cast(T.float32, T.int32), T.can_cast(T.int64, T.float16),
    T.can_cast(T.int32, T.bool), T.can_cast(T.bool, T.int8), T.can_cast(T.int8, T.int64)),
    I((3, 4)), I((1, 1), values=[0.5]), I((), BOOL))
case("swapaxes_-swapdims_-sgn_", lambda T, d, a, b: (lambda x, y: (x.swapaxes_(0, 2), x.swapdims_(1, 0).shape,
                                                                   y.sgn_(), x.contiguous()))(a.clone(), b.clone()),
     I((2, 3, 4)), I((5,), I64))
case("inplace-forms-elementwise", _inplace_on(lambda T, d, x, i: (
    x.deg2rad_(), x.rad2deg_(), x.ldexp_(i), T.deg2rad_(x), T.rad2deg_(x), T.ldexp_(x, i), T.fix_(x), T.erfc_(x),
    T.logit_(x, 0.1), T.sinc_(x), T.i0_(x), T.xlogy_(x, 2.0), T.celu_(x), T.selu_(x), T.threshold_(x, 1.5, 0.0))[0]),
     I((3, 4), kind="uniform", low=-1, high=1), I((4,), I64, low=-2, high=3), **TRANS)
case("inplace-forms-integer", _inplace_on(lambda T, d, x, y: (T.gcd_(x, y), T.lcm_(x, y))[0]),
     I((6,), I64, low=-12, high=12), I((6,), I64, low=-8, high=8))
case("float_power_-float64", lambda T, d, a: (lambda x: (x.float_power_(1.5), x.float_power_(a.double())[0]))(
    a.double())[0].float(), I((4,), kind="positive"), **TRANS)
error("frexp-int", lambda T, d, a: T.frexp(a), I((3,), I64))
error("positive-bool", lambda T, d, a: T.positive(a), I((3,), BOOL))
error("fmax-scalar", lambda T, d, a: T.fmax(a, 2), I((3,)), exc=TypeError)
error("ldexp-scalar", lambda T, d, a: T.ldexp(a, 2), I((3,)), exc=TypeError)
error("ldexp_-into-int", lambda T, d, a, b: a.ldexp_(b), I((3,), I64), I((3,), I64))
error("range-zero-step", lambda T, d: T.range(1, 4, 0, device=d))
error("range-wrong-direction", lambda T, d: T.range(4, 1, device=d))
error("is_nonzero-empty", lambda T, d, a: T.is_nonzero(a), I((0,)))
error("is_nonzero-many", lambda T, d, a: a.is_nonzero(), I((2,)))
error("fill-1d-value", lambda T, d, a, b: T.fill(a, b), I((3,)), I((3,)))
error("empty_strided-rank-mismatch", lambda T, d: T.empty_strided((2,), (1, 2), device=d))
error("new-number", lambda T, d, a: a.new(2.5), I((3,)), exc=TypeError)
error("new-other-dtype", lambda T, d, a, b: a.new(b), I((3,)), I((3,), I64), exc=TypeError)
case("polygamma", lambda T, d, a, b, c: (T.polygamma(1, a), T.special.polygamma(2, a), a.polygamma(3), T.polygamma(0, a),
                                         T.polygamma(1, b), T.polygamma(2, c), a.clone().polygamma_(1)),
     I((3, 4), kind="positive", low=0.05, high=30), I((6,), values=[-0.5, -1.25, -2.7, -7.5, 0.0, NAN]),
     I((5,), I64, low=1, high=9), rtol=1e-4, atol=1e-4)
case("special-zeta", lambda T, d, q, s, q2: (T.special.zeta(s, q), T.special.zeta(3.0, q), T.special.zeta(s, q2),
                                              T.special.zeta(s, 2.5)),
     I((2, 5), kind="positive", low=0.1, high=20), I((5,), I64, low=0, high=6),
     I((5,), values=[-1.5, -3.0, 0.0, -0.25, INF]), rtol=1e-4, atol=1e-4)
case("mvlgamma-multigammaln", lambda T, d, a, b: (T.mvlgamma(a, 1), a.mvlgamma(3), T.special.multigammaln(a, 4),
                                                  T.mvlgamma(b, 2), a.clone().mvlgamma_(2)),
     I((3, 4), kind="positive", low=1.6, high=20), I((5,), I64, low=1, high=9), rtol=1e-4, atol=1e-4)
error("polygamma-negative-n", lambda T, d, a: T.polygamma(-1, a), I((3,)))
error("mvlgamma-p-0", lambda T, d, a: T.mvlgamma(a, 0), I((3,), kind="positive"))
IGAMMA_A = [0.0, 0.0, 1.0, 2.5, 100.0, 0.5, -1.0, 3.0, INF, 2.0, 1e-3, 50.0, 0.3, 7.0, NAN, 1.0]
IGAMMA_X = [0.0, 1.0, 0.0, 2.0, 90.0, 30.0, 1.0, -1.0, 1.0, INF, 5.0, 70.0, 0.01, 7.5, 1.0, NAN]
case("igamma-igammac", lambda T, d, a, x, ea, ex: (T.igamma(a.detach(), x), T.igammac(a.detach(), x),  # no ∂a in torch
                                                   T.special.gammainc(ea.detach(), ex.detach()), a.detach().igammac(x),
                                                   T.special.gammaincc(ea.detach(), ex.detach()),
                                                   a.detach().clone().igamma_(x)),
     I((3, 4), kind="positive", low=0.2, high=12), I((4,), kind="positive", low=0.05, high=20),
     I((16,), values=IGAMMA_A), I((16,), values=IGAMMA_X), rtol=1e-4, atol=1e-5)
error("igamma-int", lambda T, d, a, b: T.igamma(a, b), I((3,), I64), I((3,), I64), exc=NotImplementedError)


# -- issue 11: silently wrong results and crashes found by real and random programs -------------
# dtypes: integer/bool results keep their dtype, float scalars are cast to it like torch
case("add-bool-alpha", lambda T, d, a: (T.add(a, False, alpha=2), T.add(a, a, alpha=3), T.add(a.int(), a, alpha=2)),
     I((5,), BOOL))
case("square-bool", lambda T, d, a: T.square(a), I((5,), BOOL))
case("addcmul-int-float-value", lambda T, d, a, b, c: T.addcmul(a, b, c, value=2.5), I((4,), I64), I((4,), I64),
     I((4,), I64))
case("addmm-addmv-baddbmm-int-float-beta", lambda T, d, m, v, b: (
    T.addmm(m, m, m, beta=2.5, alpha=1.5), T.addmv(v, m, v, beta=0.5), T.baddbmm(b, b, b, beta=2.5)),
     I((3, 3), I64), I((3,), I64), I((2, 3, 3), I64))
case("addmm-beta0-ignores-nan", lambda T, d, a, b, c: T.addmm(a, b, c, beta=0), I((2, 3), kind="edge"), I((2, 4)),
     I((4, 3)))
# a dim on a 0-d tensor: -1 and 0 name its one (virtual) dim, like torch
case("reduce-0d-dim", lambda T, d, a: (T.sum(a, 0), T.mean(a, -1), T.prod(a, 0, keepdim=True), T.amax(a, 0),
                                       T.amin(a, (-1,)), T.all(a, 0), T.any(a, -1), T.argmax(a, 0),
                                       T.argmin(a, -1, keepdim=True), T.logsumexp(a, 0), T.max(a, 0), T.min(a, -1),
                                       T.var(a, 0, correction=0), T.std(a, -1, correction=0), T.norm(a, dim=0),
                                       T.linalg.vector_norm(a, 3, dim=-1), T.nn.functional.cosine_similarity(a, a, 0),
                                       T.movedim(a, 0, -1), a.mT, T.softmax(a, 0), T.cumsum(a, -1)), I(()),
     **TRANS)
case("var-std-0d-and-one-element", lambda T, d, a, b: (T.var(a), T.std(a, 0), T.var(b), T.std(b, correction=0)),
     I(()), I((1,)))
case("dim-ops-0d", lambda T, d, a: (a.cumsum(0), a.cumprod(-1), a.flip(0), a.sort(0).values, a.topk(1, 0).values,
                                    a.unsqueeze(-1), a.squeeze(0), a.flatten(0, -1), a.median(0).values,
                                    a.log_softmax(-1), a.gather(0, T.tensor(0, device=d)), a.transpose(0, -1),
                                    a.index_select(0, T.tensor([0], device=d)), T.stack([a, a], 0),
                                    a.scatter(0, T.tensor(0, device=d), 2.0), T.movedim(a, (0,), (-1,))), I(()))
error("roll-0d-dim", lambda T, d, a: a.roll(1, 0), I(()), exc=IndexError)
error("take_along_dim-0d", lambda T, d, a: T.take_along_dim(a, T.tensor(0, device=d), 0), I(()), exc=IndexError)
error("unflatten-0d", lambda T, d, a: a.unflatten(0, (1,)), I(()))
error("index_select-0d-two-indices", lambda T, d, a: a.index_select(0, T.tensor([0, 0], device=d)), I(()))
error("narrow-0d", lambda T, d, a: a.narrow(0, 0, 1), I(()))
error("split-0d", lambda T, d, a: a.split(1, 0), I(()))
error("chunk-0d", lambda T, d, a: a.chunk(1, 0), I(()))
error("tensor_split-0d", lambda T, d, a: a.tensor_split(1, 0), I(()))
error("select-0d", lambda T, d, a: a.select(0, 0), I(()), exc=IndexError)
error("unbind-0d", lambda T, d, a: a.unbind(0), I(()), exc=IndexError)
error("reduce-0d-dim-out-of-range", lambda T, d, a: T.sum(a, 1), I(()), exc=IndexError)
error("reduce-0d-dim-repeated", lambda T, d, a: T.sum(a, (0, -1)), I(()))
error("mT-1d", lambda T, d, a: a.mT, I((3,)))
error("narrow-negative-length", lambda T, d, a: a.narrow(0, 0, -1), I((3,)))
error("cat-empty-list", lambda T, d: T.cat([]), exc=ValueError)
error("index_add-1d-out-of-range", lambda T, d, a, i, s: a.index_add(0, i, s), I((3,)), I((1,), I64, values=[5]),
      I((1,)), exc=IndexError)
# reductions and norms: no overflow or underflow in the squares and powers, constant rows exact
# (torch's own gradient of the 6.7e29 norm overflows to NaN: that input is detached)
case("norm-large-and-tiny", lambda T, d, a, b: (T.norm(a.detach(), 3), T.norm(a.detach()), T.linalg.vector_norm(b, 2.5),
                                                T.linalg.vector_norm(b, 0.5), T.norm(b * 0.0, 3), T.dist(b, b),
                                                T.dist(b, b * 2, 3)),
     I((1,), values=[6.7e29]), I((3,), values=[1e-3, 2e-3, -3e-3]), **RED)
case("std-var-huge", lambda T, d, a: (T.std(a), T.var(a * 1e-20), T.std(a * 1e-30, 0, keepdim=True)),
     I((3,), values=[1e29, 2e29, 3e29]), **RED)
# float32 elementwise accuracy (the whole-range sweep is tests/test_elementwise_accuracy.py)
case("elementwise-hard-arguments", lambda T, d, big, small, a, b: (
    T.sin(big), T.cos(big), T.tan(big), T.tanh(small), T.sinh(-a), T.cosh(a), T.expm1(a * 7.0), T.log1p(big * big),
    T.atan2(small * 0, b), T.atan2(-small * 0, b), T.pow(T.full_like(b, -INF), -0.4), T.pow(-INF, b),
    T.remainder(T.full_like(b, 16777216.0), -0.8), T.floor_divide(T.ones_like(b), -INF), T.fmod(big, b + 0.5)),
     I((4,), values=[1e10, 3e38, -105615.0, 8192.5]), I((4,), values=[1e-10, -3e-20, 1e-40, 5e-8]),
     I((4,), values=[12.0, 0.5, 2400.0 / 27, 3.25]), I((4,), values=[0.0, -0.0, 1.0, -1.0]), **TRANS)
case("clamp-nan-bounds", lambda T, d, a: (T.clamp(a, 0.0, NAN), T.clamp(a, NAN, 1.0), T.clamp(a, min=NAN),
                                          T.clamp(a, -1, 1)), I((16,), kind="edge"))
case("softmax-dim0-contiguous", lambda T, d, a: (T.softmax(a, 0).view(-1), T.log_softmax(a, 0).is_contiguous(),
                                                 T.softmax(a[:0], 1), T.log_softmax(a[:, :0], 1)),
     I((3, 4)), **TRANS)
case("einsum-zero-size", lambda T, d, a, b: (T.einsum("ij,jk->ik", a, b), T.einsum("ij->j", a.t())), I((2, 0)),
     I((0, 3)))
case("setitem-one-element-tensor", lambda T, d, a, v: (a.__setitem__(2, v), a)[1], I((3, 2)), I((1,)))
case("setitem-one-element-into-0d-slot", lambda T, d, a, v: (a.__setitem__(1, v), a)[1], I((3,)), I((1, 1)))
case("format-0d", lambda T, d, a: (f"{a[1]:.4f}" == f"{a[1].item():.4f}", f"{a.sum():+.2e}" == f"{a.sum().item():+.2e}"),
     I((2,)))
case("tolist-empty-bool", lambda T, d: (len(T.empty(8, 6, dtype=T.bool, device=d).tolist()),
                                        T.zeros(3, dtype=T.bool, device=d).tolist()))
case("embedding-int32-indices", lambda T, d, i, w: T.nn.functional.embedding(i, w), I((2, 3), I32, low=0, high=4),
     I((5, 2)))
case("median-kl-empty", lambda T, d, a: (T.median(a[:0, 0]), T.median(a[:, :0], 0),
                                         T.nn.functional.kl_div(a[:0], a[:0], reduction="none")), I((2, 3)))
error("bitwise-on-float", lambda T, d, a, b: T.bitwise_and(a, b), I((3,)), I((3,)), exc=NotImplementedError)
error("bitwise-xor-int-float-scalar", lambda T, d, a: a ^ 1.5, I((3,), I64), exc=NotImplementedError)
error("bitwise_not-float", lambda T, d, a: T.bitwise_not(a), I((3,)), exc=NotImplementedError)
error("frac-bool", lambda T, d, a: T.frac(a), I((3,), BOOL), exc=NotImplementedError)
error("fmod-bool", lambda T, d, a: T.fmod(a, a), I((3,), BOOL), exc=NotImplementedError)
error("remainder-bool", lambda T, d, a: T.remainder(a, True), I((3,), BOOL), exc=NotImplementedError)
error("floor_divide-bool", lambda T, d, a: T.floor_divide(a, a), I((3,), BOOL), exc=NotImplementedError)
error("softmax-int", lambda T, d, a: T.softmax(a, 0), I((3,), I64), exc=NotImplementedError)
error("tensor-int-overflow", lambda T, d: T.tensor(2 ** 70), exc=ValueError)
error("tensor-none-element", lambda T, d: T.tensor([1.0, None]))
error("arange-nan", lambda T, d: T.arange(0, float("nan"), device=d))
error("arange-huge", lambda T, d: T.arange(0, 2 ** 62, device=d))
error("repeat-huge", lambda T, d, a: a.repeat(2 ** 30, 2 ** 30), I((2,)))
error("repeat-negative", lambda T, d, a: a.repeat(-1), I((3,)))
error("empty-huge", lambda T, d: T.empty(2 ** 62, device=d))
error("permute-too-many-dims", lambda T, d, a: a.permute(0, 1, 2), I((2, 3)))
error("pow-int-negative-scalar", lambda T, d, a: a ** -1, I((2,), I64, kind="nonzero"))
error("full-int-overflow", lambda T, d: T.full((2,), 3e38, dtype=T.int32, device=d))
error("full-int64-inf", lambda T, d: T.full((2,), float("inf"), dtype=T.int64, device=d))
case("cat-skips-empty-1d", lambda T, d, e, a: T.cat([e, a, e], 0), I((0,)), I((2, 3)))


import nn_cases  # noqa: E402,F401  (nn.functional cases join the table)
import more_op_cases  # noqa: E402,F401  (issue 14's ops and APIs join the table)
import api_cases  # noqa: E402,F401  (issue 22's API classes join the table)


def _check_table():
    for table in (CASES, ERROR_CASES):
        names = [c.name for c in table]
        dup = sorted(set(n for n in names if names.count(n) > 1))
        assert not dup, "duplicate case names: %s" % dup


_check_table()


# -- torch.X forms of nn ops (webtorch/_nn_forms.py): torch's C++ argument order, reduction as an int -------
case("nnform-dropout-eval-p0", lambda T, d, a: (T.dropout(a, 0.5, False), T.dropout(a, 0.0, True),
                                                T.feature_dropout(a, 0.5, False), T.alpha_dropout(a, 0.3, False),
                                                T.feature_alpha_dropout(a, 0.0, True)), I((2, 3, 4)))
case("nnform-dropout-p1", lambda T, d, a: (T.dropout(a, 1.0, True), T.feature_dropout(a, 1.0, True),
                                           T.alpha_dropout(a, 1.0, True), T.feature_alpha_dropout(a, 1.0, True)),
     I((2, 3, 4)))
case("nnform-dropout-inplace", lambda T, d, a: (T.dropout_(a.clone(), 0.5, False), T.dropout_(a.clone(), 1.0, True),
                                                T.feature_dropout_(a.clone(), 1.0, True),
                                                T.alpha_dropout_(a.clone(), 0.2, False),
                                                T.feature_alpha_dropout_(a.clone(), 0.2, False)), I((2, 3, 4)))
# training: each (sample, channel) slice all kept (scaled by 1/(1-p)) or all zero
case("nnform-feature-dropout-slices",
     lambda T, d, a: [(s == 0).all() | (s == 2 * a[0, 0]).all()
                      for s in T.feature_dropout(a.expand(3, 5, 4), 0.5, True).reshape(15, 4)], I((1, 1, 4), kind="positive"))
case("nnform-rrelu", lambda T, d, a: (T.rrelu(a), T.rrelu(a, 0.1, 0.3), T.rrelu_(a.clone(), 0.2, 0.4, False)),
     I((3, 5)))
case("nnform-rrelu-train-bounds",
     lambda T, d, a: ((T.rrelu(-a, 0.1, 0.3, True) / -a >= 0.1 - 1e-6).all(),
                      (T.rrelu(-a, 0.1, 0.3, True) / -a <= 0.3 + 1e-6).all(), T.rrelu(a, 0.1, 0.3, True)),
     I((40,), kind="positive"))
case("nnform-batch-norm", lambda T, d, x, w, b, m, v: (
    T.batch_norm(x, w, b, m, v, False, 0.1, 1e-5, False), T.batch_norm(x, None, None, None, None, True, 0.1, 1e-3, True)),
     I((4, 3, 5)), I((3,)), I((3,)), I((3,)), I((3,), kind="positive"), **RED)
case("nnform-instance-norm", lambda T, d, x, w, b: (T.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False),),
     I((2, 3, 6)), I((3,)), I((3,)), **RED)
case("nnform-embedding", lambda T, d, w: (T.embedding(w, T.tensor([[1, 2], [0, 6]], device=d)),
                                          T.embedding(w, T.tensor([3, 3, 0], device=d), 3),
                                          T.embedding(w, T.tensor([1], device=d), -1, True, False)), I((7, 4)))
case("nnform-losses", lambda T, d, a, b, t: [
    f for r in (0, 1, 2) for f in (
        T.kl_div(a, b, r), T.kl_div(a, a, r, log_target=True),
        T.poisson_nll_loss(a, b, True, False, 1e-8, r), T.poisson_nll_loss(b, b, False, True, 1e-6, r),
        T.binary_cross_entropy_with_logits(a, b, None, None, r),
        T.binary_cross_entropy_with_logits(a, b, b[0], b[1] + 1, r),
        T.margin_ranking_loss(a[0], a[1], t, 0.2, r), T.hinge_embedding_loss(a, t.expand(3, 6), 0.5, r),
        T.cosine_embedding_loss(a, b, t[:3], 0.1, r), T.triplet_margin_loss(a, b, a * 2, 1.0, 2.0, 1e-6, True, r))],
     I((3, 6)), I((3, 6), kind="uniform", low=0.05, high=1), I((6,), kind="values", values=[1.0, -1.0, -1.0, 1.0]),
     **RED)
case("nnform-loss-defaults", lambda T, d, a, b, t: (
    T.kl_div(a, b), T.binary_cross_entropy_with_logits(a, b), T.margin_ranking_loss(a[0], a[1], t),
    T.hinge_embedding_loss(a, t.expand(3, 6)), T.cosine_embedding_loss(a, b, t[:3]), T.triplet_margin_loss(a, b, -a)),
     I((3, 6)), I((3, 6), kind="uniform", low=0.05, high=1), I((6,), kind="values", values=[1.0, -1.0]), **RED)
case("nnform-convolution", lambda T, d, x, w, b, x2, w2: (
    T.convolution(x, w, b, [2], [1], [1], False, [0], 1), T.convolution(x, w.transpose(0, 1), None, [2], [1], [1], True, [1], 1),
    T.conv_transpose1d(x, w.transpose(0, 1), b[:3], 1, 0, 0, 1, 2),
    T.convolution(x2, w2, None, [1, 2], [1, 0], [1, 1], False, [0, 0], 1),
    T.convolution(x2, w2.transpose(0, 1), None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1)),
     I((2, 4, 9)), I((3, 4, 3)), I((3,)), I((1, 2, 5, 6)), I((3, 2, 3, 2)), **MM)
case("nnform-convolution-3d", lambda T, d, x, w: (T.convolution(x, w, None, [1, 1, 1], [1, 0, 0], [1, 1, 1], False, [0, 0, 0], 1),
                                                T.convolution(x, w.transpose(0, 1), None, [2, 1, 1], [0, 0, 0], [1, 1, 1],
                                                              True, [1, 0, 0], 1)),
     I((1, 2, 3, 3, 4)), I((2, 2, 2, 2, 2)), **MM)
case("nnform-constant-pad-nd", lambda T, d, a, i: (T.constant_pad_nd(a, [1, 2]), T.constant_pad_nd(a, [0, 1, 2, 0], 2.5),
                                                   T.constant_pad_nd(a, [-1, 1]), T.constant_pad_nd(i, [1, 1], 7)),
     I((2, 3, 4)), I((3, 4), I64))
case("nnform-max-pool1d-with-indices", lambda T, d, a: (T.max_pool1d_with_indices(a, 3), T.max_pool1d_with_indices(a, 2, 1, 1),
                                                        T.max_pool1d_with_indices(a, 3, [2], [1], [2], True)),
     I((2, 3, 9), kind="unique"))
case("nnform-adaptive-max-pool1d", lambda T, d, a: (T.adaptive_max_pool1d(a, 4), T.adaptive_max_pool1d(a, 9),
                                                    T.nn.functional.adaptive_max_pool1d_with_indices(a[0], 2),
                                                    T.nn.functional.adaptive_max_pool1d(a, 3, True)),
     I((2, 3, 9), kind="unique"))
case("nnform-adaptive-max-pool-indices-edge", lambda T, d, a, b: (
    T.nn.functional.adaptive_max_pool2d_with_indices(a, (3, 2)), T.nn.functional.adaptive_max_pool2d(a, 4, True),
    T.nn.functional.adaptive_max_pool3d(b, (2, 1, 3), return_indices=True), T.adaptive_max_pool1d(a[0], 3)),
     I((2, 7, 5), kind="values", values=[1.0, NAN, 1.0, 2.0, 2.0, -INF, 0.5]), I((1, 3, 4, 5), kind="unique"))
case("nnform-rnn-cells", lambda T, d, x, h, c, w_ih, w_hh, b_ih, b_hh: (
    T.rnn_tanh_cell(x, h, w_ih[:5], w_hh[:5], b_ih[:5], b_hh[:5]), T.rnn_relu_cell(x, h, w_ih[:5], w_hh[:5]),
    T.lstm_cell(x, (h, c), w_ih[:20], w_hh[:20], b_ih[:20], b_hh[:20]), T.lstm_cell(x, [h, c], w_ih[:20], w_hh[:20]),
    T.gru_cell(x, h, w_ih[:15], w_hh[:15], b_ih[:15], b_hh[:15]), T.gru_cell(x, h, w_ih[:15], w_hh[:15])),
     I((3, 4)), I((3, 5)), I((3, 5)), I((20, 4)), I((20, 5)), I((20,)), I((20,)), **MM)
case("nnform-prelu-method", lambda T, d, a, w: (a.prelu(w), a.prelu(w[:1])), I((2, 3, 4)), I((3,)))
error("nnform-feature-dropout-1d", lambda T, d, a: T.feature_dropout(a, 0.5, True), I((4,)))
error("nnform-dropout-p", lambda T, d, a: T.dropout(a, 1.5, True), I((4,)))
error("nnform-dropout-p-eval", lambda T, d, a: T.alpha_dropout_(a, -0.5, False), I((4,)))
error("nnform-feature-dropout-p", lambda T, d, a: T.feature_alpha_dropout(a, 2.0, True), I((2, 4)))
error("nnform-lstm-cell-shape", lambda T, d, x, h, w: T.lstm_cell(x, (h, h), w, w), I((3, 4)), I((3, 5)), I((20, 7)))

# -- torch's linear-algebra names from before torch.linalg (webtorch/_linalg_legacy.py), linalg.matrix_power/exp ----
case("legacy-cholesky-solve-inverse", lambda T, d, a, b: (lambda s: (lambda L: (
    T.cholesky(s), s.cholesky(True), T.cholesky_solve(b, L), b.cholesky_solve(L.mT, True), T.cholesky_solve(b[0], L),
    T.cholesky_inverse(L[0]), L.mT.cholesky_inverse(upper=True)))(T.linalg.cholesky(s)))(
    a @ a.mT + 0.5 * T.eye(4, device=d)), I((2, 4, 4)), I((2, 4, 3)), atol=1e-3, rtol=1e-3)
case("legacy-logdet", lambda T, d, a: (T.logdet(a), a[0].logdet(), T.logdet(T.tensor([[-1.0, 0.0], [0.0, 2.0]], device=d)),
                                       T.logdet(T.zeros(2, 2, device=d))), I((3, 4, 4)), atol=1e-4, rtol=1e-3)
case("legacy-triangular-solve", lambda T, d, a, b: (lambda u, l: (
    T.triangular_solve(b, u), T.triangular_solve(b, l, upper=False), T.triangular_solve(b, u, True, True),
    b.triangular_solve(l, False, True), T.triangular_solve(b, u[0]), T.triangular_solve(b, a, unitriangular=True),
    T.triangular_solve(b, l, False, False, True).solution))(T.triu(a) + 3 * T.eye(4, device=d), T.tril(a) + 3 * T.eye(4, device=d)),
     I((2, 4, 4)), I((2, 4, 3)), **MM)
case("legacy-qr", lambda T, d, a, b: (T.qr(a), a.qr(), T.qr(b, some=False), T.qr(a.mT, False)), I((5, 3)), I((2, 3, 3)), **MM)
case("legacy-svd-pinverse", lambda T, d, a, b: (
    T.svd(a.detach()).S, T.svd(a.detach()).U.abs(), T.svd(a.detach()).V.abs(), b.detach().svd().V.abs(),
    T.svd(a.detach(), compute_uv=False), T.svd(b.detach(), some=False, compute_uv=False),
    T.pinverse(a.detach()), b.detach().pinverse(), T.pinverse(a.detach().mT, 0.5), T.pinverse(T.zeros(0, 3, device=d)),
    T.pinverse(T.ones(3, 4, device=d), 1e-5)),
     I((5, 3)), I((2, 3, 3)), atol=1e-4, rtol=1e-3)
case("legacy-matrix-power", lambda T, d, a, i: (
    T.matrix_power(a, 0), T.matrix_power(a, 1), a.matrix_power(2), T.matrix_power(a, 5), T.matrix_power(a, -1),
    T.linalg.matrix_power(a[0], -3), T.matrix_power(i, 3), T.matrix_power(i, 0)),
     I((2, 3, 3), kind="uniform", low=-1, high=1), I((3, 3), I64, low=-3, high=3), atol=1e-3, rtol=1e-3)
case("legacy-matrix-exp", lambda T, d, a: (T.matrix_exp(a * 0.01), T.matrix_exp(a), (a * 4).matrix_exp(),
                                           T.linalg.matrix_exp(a[0]), T.matrix_exp(T.zeros(3, 3, device=d))),
     I((2, 4, 4)), atol=1e-4, rtol=1e-3)
# torch's algorithm (degree 1..18 Taylor by the 1-norm, then scaling and squaring; a batch: degree 18, s per
# matrix) over each degree's band of norms (the input's 1-norm is 2.7): each result over its largest entry, so one
# atol is a normwise bound. float32 error against float64: <= 3.8e-7 (torch's own: 3.5e-7); the 14-term Taylor of
# A / 2^s with s from the batch's largest norm it replaced: 5.2e-6 at the scale 8.
case("matrix_exp-norm-bands", lambda T, d, a: [
    (lambda m: m / m.abs().amax((-2, -1), keepdim=True))(T.linalg.matrix_exp(x))
    for x in [a * s for s in (1e-8, 1e-4, 1e-2, 0.1, 0.35, 0.7, 8.0)] + [T.stack([a * 0.01, a * 8, a, a * 0.3])]],
     I((4, 4)), atol=1.5e-6, rtol=0, exact=True)
error("legacy-matrix-power-not-square", lambda T, d, a: T.matrix_power(a, 2), I((3, 4)))
error("legacy-matrix-exp-not-square", lambda T, d, a: T.matrix_exp(a), I((3, 4)))
error("legacy-cholesky-not-square", lambda T, d, a: T.cholesky(a), I((3, 4)))

# -- poisson (webtorch/_random.py): statistics of a seeded draw, reproducibility, errors ----------------------
def _poisson_checks(T, d):
    T.manual_seed(3)
    rates = T.tensor([0.0, 0.5, 4.0, 30.0], device=d)
    s = T.poisson(rates.repeat(500, 1))
    mean, var = s.mean(0), s.var(0)
    T.manual_seed(5)
    a = T.poisson(rates)
    T.manual_seed(5)
    return ((s == s.floor()).all(), (s[:, 0] == 0).all(), ((mean - rates).abs() <= 5 * (rates / 500) ** 0.5).all(),
            ((var - rates).abs() <= 0.25 * rates + 1e-6).all(), s.dtype == T.float32, tuple(s.shape),
            (a == T.poisson(rates)).all(), tuple(T.poisson(T.zeros(0, 3, device=d)).shape))


case("poisson-statistics", lambda T, d: _poisson_checks(T, d))
error("poisson-negative-rate", lambda T, d, a: T.poisson(a), I((3,), kind="uniform", low=-2, high=-1))
error("poisson-int", lambda T, d, a: T.poisson(a), I((3,), I64, low=0, high=3), exc=NotImplementedError)

def _binomial_checks(T, d):
    T.manual_seed(4)
    n = T.tensor([0.0, 5.0, 20.0, 20.0, 100.0, 7.0], device=d)
    p = T.tensor([0.3, 0.0, 0.1, 0.9, 0.5, 1.0], device=d)
    s = T.binomial(n.repeat(400, 1), p.repeat(400, 1))
    mean, var, expected_var = s.mean(0), s.var(0), n * p * (1 - p)
    return ((s == s.floor()).all(), (s >= 0).all(), (s <= n).all(), ((mean - n * p).abs() <= 5 * (expected_var / 400) ** 0.5).all(),
            ((var - expected_var).abs() <= 0.3 * expected_var + 1e-6).all(), s.dtype == T.float32,
            T.binomial(n, T.full_like(p, float("nan"))).isnan(), T.binomial(n, p[5:]).shape == n.shape)


case("binomial-statistics", lambda T, d: _binomial_checks(T, d))
error("binomial-int", lambda T, d, a: T.binomial(a, a.float()), I((3,), I64, low=0, high=3), exc=ValueError)
error("binomial-int-prob", lambda T, d, a: T.binomial(a.float(), a), I((3,), I64, low=0, high=3), exc=ValueError)

# -- float16 ------------------------------------------------------------------
# Half precision: one ulp is ~1e-3 relative; PyTorch's CPU half kernels compute in float and
# round each result (reductions and matmul accumulate in float), as webtorch does.
HALF = dict(atol=1e-3, rtol=2e-3)


def f16_case(name, fn, *inputs, **tol):
    FLOAT16_CASES.add(name)
    case(name, fn, *inputs, **dict(HALF, **tol))


f16_case("f16-tensor-repr", lambda T, d: (T.tensor([1.0, 2.5, 1e-4, 65504.0, 1e5, -1e-8], dtype=T.float16, device=d),
                                          T.ones(2, 3, dtype=T.half, device=d).dtype == T.float16,
                                          T.zeros(2, device=d).half().element_size(),
                                          repr(T.tensor([1.5, -2.0], dtype=T.float16)).replace("webtorch.", "torch.")
                                          == "tensor([ 1.5000, -2.0000], dtype=torch.float16)"))
f16_case("f16-cast-round-trip", lambda T, d, a: (a.half(), a.half().float(), a.to(T.float16).to(T.float32),
                                                 a.half().int(), a.half().tolist(), a[0, 0].half().item()),
         I((3, 4), kind="uniform", low=-100, high=100))
f16_case("f16-cast-edge", lambda T, d, a: (a.half(), a.half().float(), a.half().bool()), I((16,), kind="edge"))
f16_case("f16-add-sub-mul-div", lambda T, d, a, b: (a + b, a - b, a * b, a / b), I((3, 4), F16),
         I((3, 4), F16, kind="positive"))
f16_case("f16-binary-strided", lambda T, d, a, b: (T.maximum(a, b), a * b, T.where(a > b, a, b)),
         I((3, 4), F16, layout="strided"), I((4,), F16))
f16_case("f16-promotion", lambda T, d, a, b, i: (a + b, b * a, a + i, i * a, a * 0.1, 2.5 - a, a + 3, a / 3,
                                                 a + T.tensor(0.5, device=d), (a > 0).dtype == T.bool,
                                                 T.result_type(a, b) == T.float32,
                                                 T.promote_types(T.float16, T.int64) == T.float16),
         I((3, 4), F16), I((3, 4)), I((3, 4), I64))
f16_case("f16-unary", lambda T, d, a: (T.exp(a), T.sigmoid(a), T.tanh(a), a.abs(), -a, T.nn.functional.gelu(a),
                                       T.relu(a), a.floor(), a.sin(), a.sqrt(), a.isnan()),
         I((4, 5), F16, kind="uniform", low=-4, high=4))
# relu of NaN, -0 and -inf on the bits, as float32's (the H200's compiler turned a compare and select into a max)
f16_case("f16-unary-edge", lambda T, d, a: (T.exp(a), a.abs(), a.isinf(), T.nan_to_num(a), T.relu(a), a.relu()),
         I((16,), F16, kind="edge"))
f16_case("f16-reductions", lambda T, d, a: (a.sum(), a.sum(1), a.mean(0), a.amax(1), a.max(0), a.argmin(),
                                            a.var(1), a.prod(1), T.logsumexp(a, 1)),
         I((6, 40), F16, kind="uniform", low=-1, high=1), atol=2e-3, rtol=4e-3)
f16_case("f16-sum-long-row", lambda T, d, a: (a.sum(), a.mean()), I((20000,), F16, kind="uniform", low=0, high=1),
         atol=1e-2, rtol=4e-3)
f16_case("f16-reduce-cols", lambda T, d, a: (a.sum(0), a.mean(0), a.amax(0), a.argmax(0)),
         I((2000, 37), F16, kind="uniform", low=0, high=1), atol=1e-2, rtol=4e-3)
f16_case("f16-matmul", lambda T, d, a, b, c: (a @ b, T.bmm(c, c.transpose(1, 2)), T.nn.functional.linear(a, b.t())),
         I((5, 24), F16, kind="uniform"), I((24, 7), F16, kind="uniform", layout="transposed"),
         I((2, 3, 8), F16, kind="uniform"), atol=5e-3, rtol=4e-3)
# whole tiles of the tensor-core kernel where the adapter has subgroup matrices (128x128, 64x128 and
# 64x64 tiles; row- and column-major operands, batches), the tiled kernels elsewhere
f16_case("f16-matmul-tensor-core-tiles", lambda T, d, a, b, w, c: (a @ b, T.nn.functional.linear(a, w), b.t() @ a.t(),
                                                                  T.bmm(c, c.transpose(1, 2)), c.transpose(1, 2) @ c),
         I((128, 64), F16, kind="uniform"), I((64, 128), F16, kind="uniform"), I((128, 64), F16, kind="uniform"),
         I((2, 64, 32), F16, kind="uniform"), atol=5e-3, rtol=4e-3)
f16_case("f16-softmax", lambda T, d, a: (T.softmax(a, 1), T.log_softmax(a, -1), T.nn.functional.softmax(a, 0)),
         I((4, 10), F16), atol=2e-3, rtol=4e-3)
f16_case("f16-cumsum-sort", lambda T, d, a: (a.cumsum(1), a.sort(1), a.sort(1, descending=True).values,
                                             T.topk(a, 3).values), I((3, 12), F16, kind="unique"))
f16_case("f16-indexing", lambda T, d, a, i: (a[i], a[:, 1:3], T.gather(a, 1, i[:, None].expand(4, 2)),
                                             T.zeros(5, 3, dtype=T.float16, device=d).index_add_(0, i, a),
                                             T.cat([a, a], 0), a.masked_fill(a > 0, 1.5)),
         I((4, 3), F16), I((4,), I64, low=0, high=2))
import complex_cases  # noqa: E402,F401  (issue 24: complex numbers)
