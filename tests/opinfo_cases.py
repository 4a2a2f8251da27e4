"""Test cases from PyTorch's own op database (torch.testing._internal.common_methods_invocations.op_db).

Host only (needs torch 2.13, expecttest and hypothesis). For every OpInfo whose name webtorch
exports (torch.X, Tensor.X, torch.nn.functional.X, torch.linalg.X), the first samples OpInfo draws
for float32, int64, int32 and bool (plus the first one again with every tensor strided, and
float32 samples with gradients) become plain call specs (tests/opinfo_run.py); so do its error
inputs. torch computes the expected result of each spec from the spec itself, so both libraries
see the same inputs, and the specs can be shipped to the browser as they are.

Each (op, column, device) gets one status over its samples (see status_of):
  pass         every sample agrees with torch
  partial      the others agree, some raise a clear "not supported" error
  unsupported  every sample raises a clear "not supported" error
  fail         some sample gives a wrong value / dtype / shape, or crashes
  n/a          torch has no such dtype for the op (or no sample could be expressed)
"""

import functools
import itertools
import os
import sys
import zlib
from concurrent.futures import ThreadPoolExecutor

import torch

import webtorch
from webtorch import _refusals

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import SPARSE_ARRAYS  # noqa: E402
from opinfo_run import judge, run_spec  # noqa: E402

DTYPES = {"float32": torch.float32, "int64": torch.int64, "int32": torch.int32, "bool": torch.bool,
          "complex64": torch.complex64}
# The ops whose complex64 samples are compared (issue 24's complex ops; a column the conformance table leaves
# out). The view ops (transpose, reshape, ...) are left out: they read only the layout, as for real dtypes.
COMPLEX_OPS = {
    "abs", "add", "angle", "bmm", "cat", "conj", "conj_physical", "cos", "div.no_rounding_mode", "dot", "einsum",
    "eq", "exp", "imag", "index_select", "isfinite", "isnan", "log", "matmul", "mean", "mm", "mul", "ne", "neg",
    "pow", "prod", "real", "reciprocal", "sgn", "sin", "sqrt", "stack", "sub", "sum", "vdot", "view_as_real",
    "where",
    "fft.fft", "fft.fft2", "fft.fftn", "fft.fftshift", "fft.hfft", "fft.hfft2", "fft.hfftn", "fft.ifft", "fft.ifft2",
    "fft.ifftn", "fft.ifftshift", "fft.irfft", "fft.irfft2", "fft.irfftn",
    # the rest of what takes complex inputs: reflected arithmetic, indexing, products, reductions, signal ops,
    # and the elementwise ops webtorch refuses for complex (their refusal is checked to be clear)
    "resolve_conj", "resolve_neg", "true_divide", "rsub", "__radd__", "__rsub__", "__rmul__", "__rdiv__",
    "__rpow__", "__getitem__", "clone", "contiguous", "flip", "roll", "masked_fill", "square", "rsqrt", "istft",
    "stft", "mv", "outer", "trace", "kron", "tensordot", "diag", "linalg.vector_norm", "isinf", "all", "any",
    "count_nonzero", "nonzero", "masked_select", "gather", "take", "index_add", "scatter", "mH", "H", "addcmul",
    "addcdiv", "isclose", "equal", "allclose", "sinc", "index_put", "index_copy", "index_fill",
    "tanh", "sinh", "cosh", "tan", "sigmoid", "log10", "log2", "expm1", "log1p", "exp2", "cumsum", "cumprod",
    "logical_not", "asin", "acos", "atan", "asinh", "acosh", "atanh", "lerp"}
COLUMNS = ("float32", "int64", "int32", "bool", "grad", "errors")
DEVICES = ("webgpu", "cpu")
MAX_SAMPLES = 3        # per (op, dtype), plus one strided copy of the first
MAX_GRAD_SAMPLES = 2   # float32 samples differentiated
MAX_NUMEL = 1000       # larger sample tensors are left out (time; the browser's golden file)
MAX_ERROR_INPUTS = 4

# Random or uninitialised results: nothing to compare value by value (tests/test_random.py
# tests the random ops statistically).
NOT_COMPARABLE = {
    "normal", "normal.in_place", "normal.number_mean", "bernoulli", "randn", "randn_like",
    "rand_like", "randint", "randint_like", "multinomial", "empty", "empty_like",
    "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
    "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout.with_train",
    "nn.functional.feature_alpha_dropout.without_train", "nn.functional.rrelu",
    "new_empty", "new_empty_strided", "empty_strided", "empty_permuted",
}

# Ops whose randomness is an argument: {op key: samples per plane}. OpInfo calls them through
# wrapper_set_seed, but a spec carries no RNG state (and webtorch's generator is not torch's), so the spec
# gets the _random_samples torch's function would draw itself: torch.rand(N, C, d) after manual_seed(42).
# Without them each library drew its own samples and the pooling windows differed by luck.
RANDOM_SAMPLES = {"nn.functional.fractional_max_pool2d": 2, "nn.functional.fractional_max_pool3d": 3}

# Ops whose index outputs are implementation-defined among equal values (torch's sort is not stable
# by default): where the input has ties, only their shape and dtype are compared.
TIE_INDICES = {"sort", "argsort", "topk", "kthvalue"}

# Outputs compared as OpInfo's own output_process_fn_grad compares them, where the op's result is
# unique only up to a sign: {op key: indices of the outputs taken by absolute value}. Eigenvectors
# are defined up to sign (sample_inputs_linalg_eigh's out_fn compares |V|).
ABS_OUTPUTS = {"linalg.eigh": [1]}

# OpInfo's default float32 tolerances (torch.testing.assert_close for float32).
DEFAULT_TOL = (1e-5, 1.3e-6)
# Gradients whose float32 value depends on the order of a long sum with cancellation (torch checks
# them by gradcheck in float64, with no float32 tolerance): {op key: (atol, rtol)}. kron's first sample:
# grad[0][2, 1] sums 200 products (sum of |terms| 489) to -1.71498; summed in 3000 random orders in
# float32 it spread over +-3e-5 (std 6.5e-6), so 1e-5 tells one order from another, not right from wrong.
GRAD_TOL = {"kron": (1e-4, 1.3e-6)}
# Complex64 results computed as exp(w log z) in float32: an ulp of the angle Im(w log z) moves the result by
# |w| ulp relative to |result| (webgpu's atan2, log and sin are within about an ulp, as torch's: its own
# float32 __rpow__ is 4e-7 of |result| off the float64 value on OpInfo's sample, webgpu's 1.4e-6). torch's
# OpInfo gives pow's complex64 samples this tolerance (its toleranceOverride, atol 1e-4, rtol 1.3e-5):
COMPLEX_TOL = {"__rpow__": (1e-4, 1.3e-5), "pow": (1e-4, 1.3e-5)}
# Matrix functions whose float32 error is relative to the matrix's largest entry, not to each entry: {op key: the
# atol as a fraction of the largest |expected|} (opinfo_run's "normwise"). matrix_exp's third sample (5x5x5, 1-norms
# to 28.5, entries to 1e5): torch's own float32 result is 3.2e-6 of the largest entry off float64 (2.4e-3 relative
# on an entry that cancels); webtorch's, with torch's algorithm (degree-18 Taylor, scaling and squaring), 1.5e-6
# (cpu) and 2.9e-6 (webgpu); they differ by at most 1.7e-6. Entry by entry only the same matmul summation order
# (one CPU's BLAS) could agree.
NORMWISE = {"matrix_exp": 1e-5}

# (op, column, device or None for both) -> why it fails. Each is an xfail(strict=True) in
# tests/test_opinfo.py: when the bug is fixed the test fails until its row is removed here (and
# the table of docs/compatibility.md regenerated: python scripts/conformance.py --write).
KNOWN_FAILURES = {
    # torch's bug, not webtorch's (docs/limits.md): torch 2.13's backward of as_strided_scatter gives input the
    # gradient at the overwritten elements and zeros elsewhere, the complement of the right one; its own gradcheck
    # fails (numerical d out / d input = diag(0, 1, 1) for as_strided_scatter(x[3], src, (), (), 0), analytical
    # diag(1, 0, 0)) and its OpInfo marks test_fn_grad an expectedFailure. webtorch's is the numerical one.
    ("as_strided_scatter", "grad", None): "torch 2.13's gradient for input is wrong (its own gradcheck fails; "
                                          "OpInfo expects test_fn_grad to fail); webtorch's is right",
    # torch's inaccuracy, not webtorch's (docs/limits.md, "float32 accuracy"): the samples call x.polygamma(1),
    # trigamma, which torch's float32 kernel reflects below 0.5 with pi^2 / sin(pi * x)^2 of the float32 product
    # pi * x, whose rounding the pole magnifies: at x = -7.9505868 torch gives 412.75259, float64 412.74422,
    # webtorch 412.74417 (2e-5 relative from torch; at -3.9730220 7e-6)
    ("polygamma.polygamma_n_0", "float32", None): "torch's float32 trigamma near negative poles is 2e-5 off the "
                                                  "true value (its sin(pi * x) of a rounded pi * x); webtorch's is not",
    ("polygamma.polygamma_n_0", "grad", None): "the forward as above (the gradients, polygamma(2, x), agree)",
}


@functools.lru_cache(maxsize=None)
def op_db():
    from torch.testing._internal.common_methods_invocations import op_db as db
    return db


def _resolve(module, path):
    obj = module
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _exported(obj):
    """A callable webtorch offers: not a refusal's stand-in (webtorch/_refusals.py), which only raises
    NotImplementedError naming the gap."""
    return callable(obj) and not hasattr(obj, _refusals.MARK)


def webtorch_call(op):
    """("func" | "method" | "attr", name) by which webtorch exports the OpInfo's op, or None."""
    name = op.name
    if "." in name:
        return ("func", name) if _exported(_resolve(webtorch, name)) else None
    fn = getattr(webtorch, name, None)
    if _exported(fn) and getattr(torch, name, None) is op.op:
        return "func", name
    attr = getattr(webtorch.Tensor, name, None)
    if isinstance(attr, property):
        return "attr", name
    if _exported(attr):
        return "method", name
    if _exported(fn):
        return "func", name
    return None


def key(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


@functools.lru_cache(maxsize=None)
def ops():
    """{key: OpInfo} for every comparable OpInfo that webtorch exports."""
    out = {}
    for op in op_db():
        k = key(op)
        if k not in NOT_COMPARABLE and webtorch_call(op) is not None and k not in out:
            out[k] = op
    return out


def columns_of(op):
    """The columns that apply to an op (dtypes torch supports for it, grad if differentiable)."""
    have = set(op.supported_dtypes("cpu"))
    cols = [n for n, d in DTYPES.items() if d in have and (n != "complex64" or key(op) in COMPLEX_OPS)]
    if "float32" in cols and op.supports_autograd:
        cols.append("grad")
    cols.append("errors")
    return cols


def tolerance(op):
    """(atol, rtol) for float32: the largest of OpInfo's defaults and its float32 overrides."""
    from torch.testing._internal.common_device_type import toleranceOverride
    atol, rtol = DEFAULT_TOL
    for info in op.decorators:
        decs = getattr(info, "decorators", info)
        for d in decs if isinstance(decs, (list, tuple)) else [decs]:
            if isinstance(d, toleranceOverride) and torch.float32 in d.d:
                atol, rtol = max(atol, d.d[torch.float32].atol), max(rtol, d.d[torch.float32].rtol)
    return atol, rtol


class Unexpressible(Exception):
    """A sample uses something a spec cannot carry (float64, a callable, a memory format...)."""


_ENC_DTYPES = {v: k for k, v in DTYPES.items()}


def _enc_float(x):
    return x if x == x and abs(x) != float("inf") else {"float": repr(x)}


def encode(x, strided=False, sparse=False):
    """The spec of a sample's value (tests/opinfo_run.py); sparse tensors only where sparse is set (the sparse
    samples of tests/test_sparse_opinfo.py: the dense samples' columns leave them out)."""
    if isinstance(x, torch.Tensor):
        if x.dtype not in _ENC_DTYPES:
            raise Unexpressible(str(x.dtype))
        if x.layout != torch.strided:
            if not sparse:
                raise Unexpressible(str(x.layout))
            return _encode_sparse(x)
        if x.numel() > MAX_NUMEL:
            raise Unexpressible("%d elements" % x.numel())
        if x.is_meta:  # (gradient's error samples: a meta spacing tensor)
            raise Unexpressible("a meta tensor")
        vals = x.detach().flatten().tolist()
        if x.dtype == torch.float32:
            vals = [v if v == v and abs(v) != float("inf") else repr(v) for v in vals]
        elif x.dtype == torch.complex64:
            vals = [[p if p == p and abs(p) != float("inf") else repr(p) for p in (v.real, v.imag)] for v in vals]
        spec = {"tensor": _ENC_DTYPES[x.dtype], "shape": list(x.shape), "values": vals}
        if strided and x.dim() and x.numel():
            spec["layout"] = "strided"
        if x.requires_grad:
            spec["requires_grad"] = True
        return spec
    if isinstance(x, torch.dtype):
        if x not in _ENC_DTYPES and not sparse:  # (a sparse sample's dtype=float64: float32 on webgpu, as judged)
            raise Unexpressible(str(x))
        return {"dtype": str(x).split(".")[1]}
    if isinstance(x, torch.layout) and sparse:
        return {"tensor_layout": str(x).split(".")[1]}
    if isinstance(x, tuple):        # torch.Size too
        return {"tuple": [encode(v, strided, sparse) for v in x]}
    if isinstance(x, list):
        return [encode(v, strided, sparse) for v in x]
    if isinstance(x, float):
        return _enc_float(x)
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if isinstance(x, slice):
        return {"slice": [encode(x.start), encode(x.stop), encode(x.step)]}
    if x is Ellipsis:
        return {"ellipsis": True}
    if isinstance(x, torch.device):
        return {"device": True}
    raise Unexpressible(type(x).__name__)


def _encode_sparse(x):
    layout = str(x.layout).split(".")[1]
    if layout not in SPARSE_ARRAYS or x.requires_grad:
        raise Unexpressible(layout)
    if layout == "sparse_coo":  # its entries as they are, uncoalesced ones too
        return {"sparse": layout, "shape": list(x.shape), "arrays": [encode(x._indices())],
                "values": encode(x._values()), "coalesced": x.is_coalesced()}
    return {"sparse": layout, "shape": list(x.shape), "values": encode(x.values()),
            "arrays": [encode(getattr(x, name)()) for name in SPARSE_ARRAYS[layout]]}


def _spec(op, sample, strided=False, grad=False):
    kind, name = webtorch_call(op)
    kwargs = dict(sample.kwargs)
    d = RANDOM_SAMPLES.get(key(op))
    if d and sample.input.dim() in (d + 1, d + 2) and "_random_samples" not in kwargs:
        n = sample.input.shape[0] if sample.input.dim() == d + 2 else 1
        kwargs["_random_samples"] = torch.rand(n, sample.input.shape[-d - 1], d, dtype=sample.input.dtype,
                                               generator=torch.Generator().manual_seed(42))
    if kwargs.get("device") is not None:
        kwargs["device"] = torch.device("cpu")
    if _dropout(op, sample):
        raise Unexpressible("random dropout")
    atol, rtol = GRAD_TOL.get(key(op), tolerance(op)) if grad else tolerance(op)
    if getattr(sample.input, "dtype", None) == torch.complex64:
        atol, rtol = COMPLEX_TOL.get(key(op), (atol, rtol))
    spec = {"op": name, "call": kind, "args": encode([sample.input, *sample.args], strided),
            "kwargs": {k: encode(v, strided) for k, v in kwargs.items()}, "atol": atol, "rtol": rtol}
    if grad:
        spec["grad"] = True
    if key(op) in NORMWISE:
        spec["normwise"] = NORMWISE[key(op)]
    if key(op) in ABS_OUTPUTS:
        spec["abs_outputs"] = ABS_OUTPUTS[key(op)]
    if op.name in TIE_INDICES and sample.input.unique().numel() < sample.input.numel():
        spec["tied_indices"] = True
    return spec


def _dropout(op, sample):
    """Whether the sample drops out at random (a dropout_p > 0 while training)."""
    import inspect
    bound = dict(sample.kwargs)
    try:
        fn = _resolve(torch, op.name) or op.op   # op.op may be a (*args, **kwargs) wrapper
        bound.update(inspect.signature(fn).bind(sample.input, *sample.args, **sample.kwargs).arguments)
    except (TypeError, ValueError):   # a builtin without a signature: its kwargs only
        pass
    return bool(bound.get("dropout_p")) and bound.get("training", True) is not False


def _on_a_fresh_stack(fn, *args):
    """fn(*args), run on a thread of its own: the same result (torch's, random's and numpy's RNGs are the process's),
    but the stack under it is a few frames deep instead of pytest-xdist's ~60. OpInfo's sample and error iterators
    walk the whole stack, with source lines, at every step: they look for a running unittest test (inspect.stack())
    and re-seed torch before each sample (torch.manual_seed queues a traceback.format_stack() for each of CUDA, XPU
    and MTIA while they are not initialised). Under pytest golden() took 115 s instead of 9 s on a fresh stack."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(fn, *args).result()


def _draw(op, dtype, requires_grad, n):
    def draw():
        torch.manual_seed(zlib.crc32(key(op).encode()))
        try:
            return list(itertools.islice(op.sample_inputs("cpu", dtype, requires_grad=requires_grad), n))
        except Exception:  # noqa: BLE001 - a generator that needs CUDA etc.: no samples
            return []
    return _on_a_fresh_stack(draw)


def _error_inputs(op):
    try:
        return list(itertools.islice(op.error_inputs("cpu"), MAX_ERROR_INPUTS))
    except Exception:  # noqa: BLE001
        return []


def _expected(spec):
    """torch's result for the spec (run from the spec itself), {"error": type} if torch raises."""
    try:
        return run_spec(torch, spec, "cpu")
    except Exception as e:  # noqa: BLE001
        return {"error": type(e).__name__}


@functools.lru_cache(maxsize=None)
def cases(op_key, column):
    """[(spec, expected)] for one op and column."""
    return list(_cases(op_key, column))


def _cases(op_key, column, first_only=False):
    """cases(op_key, column) one at a time. first_only: its first case, then (a dtype column) the strided copy
    of the first sample, torch's results computed for those alone (golden's picks: the rest cost the browser
    worker minutes)."""
    op = ops()[op_key]

    def made(make):
        try:
            spec = make()
        except Unexpressible:
            return None
        expected = _expected(spec)
        if column == "errors":
            return (spec, expected) if "error" in expected else None
        return None if "error" in expected else (spec, expected)   # a sample torch itself rejects once re-built: dropped

    if column in DTYPES:
        samples = _draw(op, DTYPES[column], False, MAX_SAMPLES)
        makes = [lambda s=s: _spec(op, s) for s in samples]
        strided = [lambda: _spec(op, samples[0], strided=True)] if samples else []
    elif column == "grad":
        makes, strided = [lambda s=s: _spec(op, s, grad=True) for s in _draw(op, torch.float32, True, MAX_GRAD_SAMPLES)], []
    else:
        makes, strided = [lambda e=e: _spec(op, e.sample_input) for e in _on_a_fresh_stack(_error_inputs, op)], []
    for make in makes:
        case = made(make)
        if case:
            yield case
            if first_only:
                break
    for make in strided:
        case = made(make)
        if case:
            yield case


def status_of(results):
    """One status for a list of (status, detail) sample results."""
    statuses = [s for s, _ in results]
    if not statuses:
        return "n/a"
    if any(s in ("wrong", "crash") for s in statuses):
        return "fail"
    if all(s == "unsupported" for s in statuses):
        return "unsupported"
    return "partial" if "unsupported" in statuses else "pass"


@functools.lru_cache(maxsize=None)
def results(op_key, column, device):
    """[(status, detail, spec)] of webtorch on device for every case of (op, column)."""
    out = []
    for spec, expected in cases(op_key, column):
        status, detail = judge(webtorch, spec, device, expected)
        out.append((status, detail, spec))
    return out


def outcome(op_key, column, device):
    """(status, first failure or refusal detail)."""
    res = results(op_key, column, device)
    status = status_of([(s, d) for s, d, _ in res])
    for s, d, spec in res:
        if s in ("wrong", "crash") or (status == "unsupported" and s == "unsupported"):
            return status, "%s: %s\n  spec: %s" % (s, d, _short(spec))
    return status, ""


def _short(spec, n=400):
    import json
    text = json.dumps(spec)
    return text if len(text) <= n else text[:n] + "..."


def all_keys():
    """[(op key, column)] in table order."""
    return [(k, c) for k in sorted(ops()) for c in columns_of(ops()[k])]


# -- the conformance table (docs/compatibility.md "Conformance", scripts/conformance.py) ---------------------------
SYMBOLS = {"pass": "✓", "partial": "◐", "unsupported": "—", "fail": "✗", "n/a": ""}
TABLE_START = "<!-- conformance table: generated by scripts/conformance.py -->"
TABLE_END = "<!-- end of conformance table -->"
TABLE_PAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "compatibility.md")


def _cell(statuses):
    """One table cell from {device: status}."""
    if len(set(statuses.values())) == 1:
        return SYMBOLS[next(iter(statuses.values()))]
    return " ".join("%s %s" % (d, SYMBOLS[s] or "n/a") for d, s in statuses.items())


def table():
    """The conformance table of docs/compatibility.md (markdown, between TABLE_START and TABLE_END)."""
    counts = {s: 0 for s in SYMBOLS}
    rows = []
    for k in sorted(ops()):
        cols = columns_of(ops()[k])
        cells = []
        for c in COLUMNS:
            if c not in cols:
                cells.append("")
                continue
            statuses = {d: outcome(k, c, d)[0] for d in DEVICES}
            for s in statuses.values():
                counts[s] += 1
            cells.append(_cell(statuses))
        rows.append("| `%s` | %s |" % (k, " | ".join(cells)))
    summary = ", ".join("%s %s %d" % (SYMBOLS[s] or "", s, n) for s, n in counts.items() if s != "n/a")
    return "\n".join([
        TABLE_START,
        "%d OpInfo entries × (webgpu, cpu) cells: %s." % (len(rows), summary),
        "",
        "| op | float32 | int64 | int32 | bool | grad | errors |",
        "|---|---|---|---|---|---|---|",
        *rows,
        TABLE_END,
    ])


def page_table(page_text):
    """The table as the page has it (None if the markers are missing)."""
    start, end = page_text.find(TABLE_START), page_text.find(TABLE_END)
    if start < 0 or end < 0:
        return None
    return page_text[start:end + len(TABLE_END)]


# -- golden values for the browser (tests/browser/test_opinfo_browser.py) ------------------------------
BROWSER_COLUMNS = ("float32", "int64", "bool", "grad")


def golden():
    """[{"id", "spec", "expected"}] for the browser: of every (op, column) without a known failure,
    the first case (and, for float32, the strided copy of the first sample). On the host each of them passes or is
    refused clearly (a failing sample fails its (op, column, device) test)."""
    out = []
    for k, column in all_keys():
        if column not in BROWSER_COLUMNS or any((k, column, d) in KNOWN_FAILURES for d in (None,) + DEVICES):
            continue
        picks = list(itertools.islice(_cases(k, column, first_only=True), 2 if column == "float32" else 1))
        for name, (spec, expected) in zip(["0", "strided"] if column == "float32" else ["0"], picks):
            out.append({"id": "%s/%s/%s" % (k, column, name), "spec": spec, "expected": expected})
    return out


# -- sparse samples (tests/test_sparse_opinfo.py, tests/browser/test_sparse_browser.py) ----------------------
# Every op of OpInfo that supports a sparse layout (supports_sparse: COO, supports_sparse_csr: CSR) and that
# webtorch exports. Where OpInfo has a sparse sample generator (sample_inputs_sparse_coo / _csr: mul, sum, ...)
# its samples are used; for the elementwise ops, whose sparse tests build sparse inputs from the dense samples,
# the dense samples made sparse (as torch's test_sparse_unary_ufuncs does). A sample webtorch cannot build
# (batch dims, more than SPARSE_MAX_NUMEL elements) is left out.
SPARSE_LAYOUTS = {"coo": "supports_sparse", "csr": "supports_sparse_csr"}
SPARSE_MAX_SAMPLES, SPARSE_MAX_NUMEL = 3, 300
# on webgpu: the ops whose samples go beyond the values (products, reductions, layouts) and a few elementwise ones
SPARSE_WEBGPU_OPS = {"mul", "sum", "zeros_like", "abs", "sin", "sqrt", "isnan", "nn.functional.relu"}


def _buildable(x):
    if not isinstance(x, torch.Tensor):
        return True
    if x.numel() > SPARSE_MAX_NUMEL or x.dtype != torch.float32 and x.dtype != torch.bool:
        return False
    return x.layout != torch.sparse_csr or x.dim() - x.dense_dim() == 2  # (no batch dims)


def _sparse_drawn(op, layout):
    try:
        yield from getattr(op, f"sample_inputs_sparse_{layout}")("cpu", torch.float32)
    except NotImplementedError:  # no generator: the dense samples, made sparse
        for s in op.sample_inputs("cpu", torch.float32):
            x = s.input
            if isinstance(x, torch.Tensor) and x.dim() >= (2 if layout == "csr" else 1):
                x = x[tuple(slice(0, 4) for _ in range(x.dim()))]  # a corner, a third of it made 0
                x = x * (torch.arange(x.numel()).reshape(x.shape) % 3 != 0)
                sparse = x.to_sparse() if layout == "coo" else x.to_sparse_csr() if x.dim() == 2 else None
                if sparse is not None:
                    yield s.__class__(sparse, args=s.args, kwargs=s.kwargs)


@functools.lru_cache(maxsize=None)
def sparse_samples(op_key, layout):
    """[(spec, expected)] of OpInfo's first SPARSE_MAX_SAMPLES sparse samples of the op in layout ("coo", "csr"),
    float32, that webtorch can build; drawn lazily (mul's generator goes on to large tensors)."""
    return _on_a_fresh_stack(_sparse_samples, op_key, layout)


def _sparse_samples(op_key, layout):
    import warnings
    op = ops()[op_key]
    kind, name = webtorch_call(op)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in _sparse_drawn(op, layout):
            parts = [s.input, *s.args, *s.kwargs.values()]
            if isinstance(s.input, torch.Tensor) and s.input.layout != torch.strided and all(map(_buildable, parts)):
                # a device argument: the device under test
                kwargs = dict(s.kwargs, **({"device": torch.device("cpu")} if "device" in s.kwargs else {}))
                spec = {"op": name, "call": kind, "args": encode([s.input, *s.args], sparse=True),
                        "kwargs": {k: encode(v, sparse=True) for k, v in kwargs.items()}, "atol": 1e-5, "rtol": 1e-5}
                out.append((spec, _expected(spec)))
                if len(out) == SPARSE_MAX_SAMPLES:
                    break
    return out


@functools.lru_cache(maxsize=None)
def sparse_rows():
    """[(op key, layout, device)]: every op and layout with samples on cpu, SPARSE_WEBGPU_OPS on webgpu too."""
    out = []
    for k, op in sorted(ops().items()):
        for layout, flag in SPARSE_LAYOUTS.items():
            if getattr(op, flag) and sparse_samples(k, layout):
                out += [(k, layout, d) for d in ("cpu", "webgpu") if d == "cpu" or k in SPARSE_WEBGPU_OPS]
    return out
