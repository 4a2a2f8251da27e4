"""torch.testing: assert_close (and the deprecated assert_allclose) with torch 2.13's semantics: the same
default tolerances per dtype, the same attribute checks (shape, device, dtype, stride), nested sequences
and mappings compared item by item, and the same exception types and messages."""
import cmath
import collections.abc
import warnings

try:
    import numpy as np
    _NP_BOOL, _NP_NUMBER = (np.bool_,), (np.number,)
except ImportError:  # Pyodide without numpy
    _NP_BOOL = _NP_NUMBER = ()

from . import _dtypes as dt
from . import _ops as F
from ._tensor import Tensor

__all__ = ["assert_close", "assert_allclose"]

# {dtype: (rtol, atol)}; any other dtype compares exactly
PRECISIONS = {dt.float16: (0.001, 1e-5), dt.bfloat16: (0.016, 1e-5), dt.float32: (1.3e-6, 1e-5),
              dt.float64: (1e-7, 1e-7), dt.complex32: (0.001, 1e-5), dt.complex64: (1.3e-6, 1e-5),
              dt.complex128: (1e-7, 1e-7)}
NUMBER_DTYPES = {int: dt.int64, float: dt.float64, complex: dt.complex128}


class _Mismatch(Exception):
    """A failed comparison: the exception type to raise, its message and the item's path in the inputs."""

    def __init__(self, kind, text, path=()):
        super().__init__(text)
        self.kind, self.text, self.path = kind, text, path

    def error(self, msg=None):
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.text
        if self.path:
            text += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.path)}"
        return self.kind(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    """This kind of pair cannot compare these inputs: try the next kind."""


def _tolerances(dtypes, rtol, atol, precisions=PRECISIONS):
    if (rtol is None) != (atol is None):
        raise _Mismatch(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                    f"{'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*[precisions.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _mismatch_text(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0
    lines = [f"{identifier} are not {'equal' if equality else 'close'}!", "", extra]
    for kind, diff, idx, tol in (("absolute", abs_diff, abs_idx, atol), ("relative", rel_diff, rel_idx, rtol)):
        line = f"{kind.title()} difference: {diff}" if idx is None else f"Greatest {kind} difference: {diff} at index {idx}"
        lines.append(line + ("" if equality else f" (up to {tol} allowed)"))
    return "\n".join(lines)


def _scalar_text(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_text("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol, rel_diff, None,
                          rtol)


def _compare_none(actual, expected, path, options):
    if not (actual is None or expected is None):
        raise _Unsupported
    if not (actual is None and expected is None):
        raise _Mismatch(AssertionError, f"None mismatch: {actual} is not {expected}", path)


def _compare_bool(actual, expected, path, options):
    if not all(isinstance(v, (bool, *_NP_BOOL)) for v in (actual, expected)):
        raise _Unsupported
    actual, expected = bool(actual), bool(expected)
    if actual is not expected:
        raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}", path)


def _compare_number(actual, expected, path, options):
    if not all(isinstance(v, (int, float, complex, *_NP_NUMBER)) for v in (actual, expected)):
        raise _Unsupported
    actual, expected = (v.item() if isinstance(v, _NP_NUMBER) else v for v in (actual, expected))
    rtol, atol = _tolerances([NUMBER_DTYPES[type(v)] for v in (actual, expected)], options["rtol"], options["atol"])
    if options["check_dtype"] and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.", path)
    if actual == expected:
        return
    if options["equal_nan"] and cmath.isnan(actual) and cmath.isnan(expected):
        return
    abs_diff = abs(actual - expected)
    if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
        return
    raise _Mismatch(AssertionError, _scalar_text(actual, expected, rtol, atol), path)


def _compare_tensors(actual, expected, path, options):
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not options["allow_subclasses"] and type(actual) is not type(expected):
        raise _Unsupported
    try:
        actual, expected = (v if isinstance(v, Tensor) else F.as_tensor(v) for v in (actual, expected))
    except Exception:  # noqa: BLE001 - not tensor-like: the next kind of pair
        raise _Unsupported from None
    rtol, atol = _tolerances([actual.dtype, expected.dtype], options["rtol"], options["atol"])

    def differ(attribute, a, e):
        raise _Mismatch(AssertionError, f"The values for attribute '{attribute}' do not match: {a} != {e}.", path)
    if actual.shape != expected.shape:
        differ("shape", actual.shape, expected.shape)
    if options["check_stride"] and actual.stride() != expected.stride():
        differ("stride()", actual.stride(), expected.stride())
    if options["check_device"] and actual.device != expected.device:
        differ("device", actual.device, expected.device)
    if options["check_dtype"] and actual.dtype != expected.dtype:
        differ("dtype", actual.dtype, expected.dtype)
    if "meta" in (actual.device.type, expected.device.type):
        return
    actual, expected = actual.detach().cpu(), expected.detach().cpu()
    if actual.dtype != expected.dtype:
        common = dt.promote(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    matches = F.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=options["equal_nan"])
    if bool(F.all(matches)):
        return
    if actual.dim() == 0:
        raise _Mismatch(AssertionError, _scalar_text(actual.item(), expected.item(), rtol, atol), path)
    raise _Mismatch(AssertionError, _tensor_text(actual, expected, matches, rtol, atol), path)


def _tensor_text(actual, expected, matches, rtol, atol):
    n = matches.numel()
    wrong = n - int(F.sum(matches))
    extra = f"Mismatched elements: {wrong} / {n} ({wrong / n:.1%})"
    a, e, ok = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point:  # integers subtract without wrapping
        a, e = a.to(dt.int64), e.to(dt.int64)
    abs_diff = F.abs(F.sub(a, e))
    abs_diff[ok] = 0
    rel_diff = F.div(abs_diff, F.abs(e))
    rel_diff[ok] = 0

    def greatest(diff):
        value, flat = F.max(diff, 0)
        index, flat = [], int(flat)
        for size in reversed(matches.shape):
            flat, mod = divmod(flat, size)
            index.append(mod)
        return value.item(), tuple(reversed(index))
    (abs_value, abs_idx), (rel_value, rel_idx) = greatest(abs_diff), greatest(rel_diff)
    return _mismatch_text("Tensor-likes", extra, abs_value, abs_idx, atol, rel_value, rel_idx, rtol)


PAIRS = (_compare_none, _compare_bool, _compare_number, _compare_tensors)


def _compare(actual, expected, path, options):
    """Raises _Mismatch for the first item (depth first, mapping keys sorted) that is not close."""
    def is_sequence(v):
        return isinstance(v, collections.abc.Sequence) and not isinstance(v, str)
    if is_sequence(actual) and is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                            path)
        pairs = [(i, actual[i], expected[i]) for i in range(len(actual))]
    elif isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        keys = set(actual.keys())
        if keys != set(expected.keys()):
            raise _Mismatch(AssertionError, "The keys of the mappings do not match:\n"
                            f"Missing keys in the actual mapping: {sorted(set(expected.keys()) - keys)}\n"
                            f"Additional keys in the actual mapping: {sorted(keys - set(expected.keys()))}", path)
        try:
            keys = sorted(keys)
        except TypeError:
            pass
        pairs = [(k, actual[k], expected[k]) for k in keys]
    else:
        for pair in PAIRS:
            try:
                return pair(actual, expected, path, options)
            except _Unsupported:
                continue
        raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and "
                                   f"{type(expected)}.", path)
    for key, a, e in pairs:
        _compare(a, e, (*path, key), options)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False, check_device=True,
                 check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raises AssertionError (torch's message) where actual and expected are not close:
    |actual - expected| <= atol + rtol * |expected| elementwise, with per-dtype defaults (PRECISIONS)."""
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_stride=check_stride)
    try:
        _compare(actual, expected, (), options)
    except _Mismatch as mismatch:
        raise mismatch.error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated in torch (a FutureWarning): assert_close with looser defaults and no dtype check."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = F.tensor(actual)
    if not isinstance(expected, Tensor):
        expected = F.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _tolerances([actual.dtype, expected.dtype], None, None,
                                 {dt.float16: (1e-3, 1e-3), dt.float32: (1e-4, 1e-5), dt.float64: (1e-5, 1e-8)})
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True, check_dtype=False,
                 check_stride=False, msg=msg or None)
