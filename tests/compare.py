"""Turn torch/webtorch results into plain JSON-able data and compare them.

Standard library only (runs in Pyodide, where there is no torch and no numpy).

Plain forms:
  tensor  {"kind": "tensor", "shape": [2, 3], "dtype": "float32", "values": [...]}
          values are flat (row-major); non-finite floats are the strings
          "nan", "inf", "-inf" so that the result is strict JSON.
  scalar  {"kind": "bool" | "int" | "float", "value": v}
  seq     {"kind": "seq", "items": [...]}          (tuple, list, torch.Size,
                                                   named tuples such as max's)
  none    {"kind": "none"}
  sparse  {"kind": "sparse", "layout": "sparse_coo" | "sparse_csr" | "sparse_csc", "shape": [4, 4],
           "arrays": [tensor, ...] (COO: indices; CSR: crow_indices, col_indices; CSC: ccol_indices,
           row_indices), "values": tensor}; a COO tensor's entries are its coalesced ones (the tensor it
           stands for: the order and repeats of its entries are not compared)

Run ``python tests/compare.py [OUT.json]`` on the host to compute the expected
results with torch for every case in tests/op_cases.py (also checking that the
error cases raise the declared exception in torch and that torch agrees with
itself after a JSON round trip), and optionally write them to OUT.json.
"""

import math

__all__ = ["to_plain", "assert_close", "either", "differing", "value_difference", "dtype_name", "is_tensor",
           "iter_tensors", "expected_table"]


def is_tensor(x):
    return hasattr(x, "tolist") and hasattr(x, "dtype") and hasattr(x, "shape")


def dtype_name(dtype):
    """torch.float32 / webtorch.float32 -> "float32"."""
    return str(dtype).rsplit(".", 1)[-1]


def _flatten(v, out):
    if isinstance(v, (list, tuple)):
        for x in v:
            _flatten(x, out)
    else:
        out.append(v)
    return out


def _enc_float(x):
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _dec_float(x):
    if isinstance(x, str):
        return float(x)  # float("nan"), float("inf"), float("-inf")
    return float(x)


# the index arrays of each sparse layout's plain form
SPARSE_ARRAYS = {"sparse_coo": ("indices",), "sparse_csr": ("crow_indices", "col_indices"),
                 "sparse_csc": ("ccol_indices", "row_indices")}


def _sparse_plain(t, layout):
    if layout == "sparse_coo":
        t = t.coalesce()
    return {"kind": "sparse", "layout": layout, "shape": [int(s) for s in t.shape],
            "arrays": [to_plain(getattr(t, name)()) for name in SPARSE_ARRAYS[layout]], "values": to_plain(t.values())}


def to_plain(result):
    if is_tensor(result):
        layout = str(getattr(result, "layout", "strided")).rsplit(".", 1)[-1]
        if layout != "strided":
            return _sparse_plain(result, layout)
        vals = _flatten(result.tolist(), [])
        dt = dtype_name(result.dtype)
        if dt == "bool":
            vals = [bool(v) for v in vals]
        elif dt.startswith(("int", "uint")):
            vals = [int(v) for v in vals]
        elif dt.startswith("complex"):  # (real, imaginary) pairs: a last dim of 2, as view_as_real
            vals = [_enc_float(p) for v in vals for p in (complex(v).real, complex(v).imag)]
            return {"kind": "tensor", "shape": [int(s) for s in result.shape] + [2], "dtype": dt, "values": vals}
        else:
            vals = [_enc_float(float(v)) for v in vals]
        return {"kind": "tensor", "shape": [int(s) for s in result.shape],
                "dtype": dt, "values": vals}
    if result is None:
        return {"kind": "none"}
    if isinstance(result, bool):
        return {"kind": "bool", "value": result}
    if isinstance(result, int):
        return {"kind": "int", "value": int(result)}
    if isinstance(result, float):
        return {"kind": "float", "value": _enc_float(result)}
    if isinstance(result, complex):
        return {"kind": "seq", "items": [to_plain(result.real), to_plain(result.imag)]}
    if isinstance(result, (tuple, list)):
        return {"kind": "seq", "items": [to_plain(x) for x in result]}
    raise TypeError("to_plain: unsupported result type %s: %r" % (type(result).__name__, result))


def _close(a, e, atol, rtol):
    if math.isnan(e):
        return math.isnan(a)
    if math.isinf(e) or math.isinf(a) or math.isnan(a):
        return a == e
    return abs(a - e) <= atol + rtol * abs(e)


def _fmt_index(flat, shape):
    if not shape:
        return "()"
    idx = []
    for d in reversed(shape):
        idx.append(flat % d if d else 0)
        flat = flat // d if d else 0
    return "(" + ", ".join(str(i) for i in reversed(idx)) + ("," if len(idx) == 1 else "") + ")"


def _fail(name, path, msg):
    raise AssertionError("%s%s: %s" % (name, path, msg))


def assert_close(actual, expected, atol=1e-5, rtol=1e-5, name="", path=""):
    """Compare two plain results; raises AssertionError naming case and index."""
    ka, ke = actual.get("kind"), expected.get("kind")
    if ka != ke:
        _fail(name, path, "result kind %s, expected %s (actual %r)" % (ka, ke, actual))
    if ke == "none":
        return
    if ke == "seq":
        ia, ie = actual["items"], expected["items"]
        if len(ia) != len(ie):
            _fail(name, path, "sequence of length %d, expected %d" % (len(ia), len(ie)))
        for i, (a, e) in enumerate(zip(ia, ie)):
            assert_close(a, e, atol, rtol, name, "%s[%d]" % (path, i))
        return
    if ke == "sparse":
        if (actual["layout"], actual["shape"]) != (expected["layout"], expected["shape"]):
            _fail(name, path, "%s of shape %s, expected %s of shape %s" % (
                actual["layout"], tuple(actual["shape"]), expected["layout"], tuple(expected["shape"])))
        for i, (a, e) in enumerate(zip(actual["arrays"], expected["arrays"])):
            assert_close(a, e, atol, rtol, name, "%s.%s" % (path, SPARSE_ARRAYS[expected["layout"]][i]))
        assert_close(actual["values"], expected["values"], atol, rtol, name, path + ".values")
        return
    if ke in ("bool", "int"):
        if actual["value"] != expected["value"]:
            _fail(name, path, "%s %r, expected %r" % (ke, actual["value"], expected["value"]))
        return
    if ke == "float":
        a, e = _dec_float(actual["value"]), _dec_float(expected["value"])
        if not _close(a, e, atol, rtol):
            _fail(name, path, "float %r, expected %r (atol=%g, rtol=%g)" % (a, e, atol, rtol))
        return
    assert ke == "tensor", ke
    if list(actual["shape"]) != list(expected["shape"]):
        _fail(name, path, "shape %s, expected %s" % (tuple(actual["shape"]), tuple(expected["shape"])))
    if actual["dtype"] != expected["dtype"]:
        _fail(name, path, "dtype %s, expected %s" % (actual["dtype"], expected["dtype"]))
    va, ve = actual["values"], expected["values"]
    if len(va) != len(ve):
        _fail(name, path, "%d values, expected %d" % (len(va), len(ve)))
    bad = differing(actual, expected, atol, rtol)
    if bad:
        _fail(name, path, value_difference(actual, expected, bad[0], len(bad), atol, rtol)
              + "\n  actual:   %s\n  expected: %s" % (_preview(va), _preview(ve)))


def either(actual, expected, alternative, atol, rtol):
    """expected (plain) with each float element that actual matches in alternative (a second reference)
    replaced by alternative's: for torch's float32 results that depend on its CPU path, the float64
    value rounded to float32 is accepted too (op_cases.run_reference)."""
    if alternative is None or expected.get("kind") != alternative.get("kind"):
        return expected
    if expected["kind"] == "seq" and len(expected["items"]) == len(alternative["items"]) and actual.get("kind") == "seq":
        return dict(expected, items=[either(a, e, x, atol, rtol) for a, e, x in
                                     zip(actual["items"], expected["items"], alternative["items"])])
    if expected["kind"] != "tensor" or actual.get("kind") != "tensor" or len(actual["values"]) != len(
            expected["values"]) or len(alternative["values"]) != len(expected["values"]):
        return expected
    values = [x if _close(_dec_float(a), _dec_float(x), atol, rtol) and not _close(_dec_float(a), _dec_float(e), atol, rtol)
              else e for a, e, x in zip(actual["values"], expected["values"], alternative["values"])]
    return dict(expected, values=values)


def differing(actual, expected, atol, rtol):
    """Flat indices where two plain tensors of one shape and dtype differ (floats beyond atol + rtol |e|)."""
    exact = expected["dtype"] == "bool" or expected["dtype"].startswith(("int", "uint"))
    if expected["dtype"].startswith("complex"):
        return _differing_complex(actual["values"], expected["values"], atol, rtol)
    bad = []
    for i, (a, e) in enumerate(zip(actual["values"], expected["values"])):
        if exact:
            ok = a == e and type(a) is type(e)
        else:
            ok = _close(_dec_float(a), _dec_float(e), atol, rtol)
        if not ok:
            bad.append(i)
    return bad


def _differing_complex(actual, expected, atol, rtol):
    """The flat indices (of the (re, im) pairs' parts) where two complex tensors differ as torch.isclose and
    torch.testing.assert_close judge complex values: |a - e| <= atol + rtol |e|, magnitudes of complex numbers
    (a part's rounding is relative to the number, not to the part); non-finite numbers part by part."""
    bad = []
    for i in range(0, len(expected) - 1, 2):
        a, e = complex(*map(_dec_float, actual[i:i + 2])), complex(*map(_dec_float, expected[i:i + 2]))
        if all(map(math.isfinite, (a.real, a.imag, e.real, e.imag))):
            if abs(a - e) > atol + rtol * abs(e):
                bad.append(i + (abs(a.real - e.real) <= abs(a.imag - e.imag)))
        else:
            bad += [i + k for k in (0, 1) if not _close(_dec_float(actual[i + k]), _dec_float(expected[i + k]), atol, rtol)]
    return bad


def value_difference(actual, expected, i, count, atol, rtol):
    """The one-line report of differing values, naming element i (flat) of two plain tensors."""
    shape = tuple(expected["shape"])
    return ("%d of %d values differ (dtype %s, shape %s, atol=%g, rtol=%g); first at index %s: actual %r, expected %r"
            % (count, len(expected["values"]), expected["dtype"], shape, atol, rtol, _fmt_index(i, shape),
               actual["values"][i], expected["values"][i]))


def _preview(vals, n=12):
    s = ", ".join(repr(v) for v in vals[:n])
    return "[" + s + (", ...]" if len(vals) > n else "]")


def iter_tensors(result):
    """Yield every tensor inside a (possibly nested) result."""
    if is_tensor(result):
        yield result
    elif isinstance(result, (tuple, list)):
        for x in result:
            for t in iter_tensors(x):
                yield t


def expected_table(T, device="cpu"):
    """{case name: plain result} for every op case, computed with module T."""
    from op_cases import CASES, run_case
    return {c.name: to_plain(run_case(T, c, device)) for c in CASES}


def alternative_table(T):
    """{case name: plain result} in float64 for the cases whose float32 result depends on torch's CPU path."""
    from op_cases import CASES, run_in_float64
    return {c.name: to_plain(run_in_float64(T, c)) for c in CASES if c.exact}


def _main(argv):
    import json
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch
    from op_cases import CASES, ERROR_CASES, inputs_digest, run_case

    table = json.loads(json.dumps(expected_table(torch), allow_nan=False))
    for c in CASES:
        assert_close(to_plain(run_case(torch, c, "cpu")), table[c.name], c.atol, c.rtol, c.name)
    errors = {}
    for c in ERROR_CASES:
        try:
            run_case(torch, c, "cpu")
        except Exception as e:  # noqa: BLE001
            assert type(e) is c.exc, "%s: torch raised %s, table says %s" % (
                c.name, type(e).__name__, c.exc.__name__)
            errors[c.name] = c.exc.__name__
        else:
            raise AssertionError("%s: torch did not raise" % c.name)
    print("%d op cases, %d error cases: torch agrees with the table" % (len(CASES), len(ERROR_CASES)))
    if len(argv) > 1:
        with open(argv[1], "w") as f:
            digests = {c.name: inputs_digest(c) for c in CASES + ERROR_CASES}
            # Pyodide's Python may draw other random numbers: ship the host's inputs too.
            inputs = {c.name: [[_enc_float(v) if isinstance(v, float) else v for v in vals]
                               for vals in c.input_values()] for c in CASES + ERROR_CASES}
            alternatives = json.loads(json.dumps(alternative_table(torch), allow_nan=False))
            json.dump({"torch": torch.__version__, "cases": table, "alternatives": alternatives, "errors": errors,
                       "inputs_crc32": digests, "inputs": inputs},
                      f, allow_nan=False, separators=(",", ":"))
        print("wrote", argv[1])


if __name__ == "__main__":
    import sys
    _main(sys.argv)
