"""Run one OpInfo-derived sample (a plain, JSON-able call spec) with torch or webtorch and judge it.

Standard library only: the same code runs on the host (tests/test_opinfo.py, where torch computes
the expected values from the very same spec) and inside Pyodide (tests/browser/test_opinfo_browser.py,
against golden values host torch produced). tests/opinfo_cases.py builds the specs from torch's
OpInfo database.

A spec:
  {"op": "nn.functional.relu", "call": "func" | "method" | "attr",
   "args": [...], "kwargs": {...},
   "atol": float, "rtol": float,
   "grad": bool                      # differentiate: backward of (first float output * cot).sum()
   "error": "RuntimeError"           # an error input: both libraries must raise this type
   "tied_indices": bool              # sort/topk of an input with ties: index outputs are not
                                     # compared value by value (either order of equal values is right)
   "abs_outputs": [1]                # outputs compared by absolute value (eigenvectors: up to sign)
   "normwise": 1e-5                  # atol at least this times the largest |expected| of each compared result
                                     # (a matrix function's float32 error is relative to the matrix, not entry)
  }
Values inside args/kwargs:
  {"tensor": dtype, "shape": [...], "values": [flat, "nan"/"inf"/"-inf" for non-finite],
   "layout": "contiguous" | "strided", "requires_grad": bool}
  {"dtype": "float32"}   {"tuple": [...]}   {"float": "nan"}   {"slice": [start, stop, step]}
  {"ellipsis": true}     {"device": true} (the device under test)
  {"sparse": "sparse_coo" | "sparse_csr" | "sparse_csc", "shape": [...], "arrays": [index tensors as
   tests/compare.py's SPARSE_ARRAYS names them], "values": tensor, "coalesced": bool (COO),
   "requires_grad": bool}   a sparse tensor built from its arrays
  {"tensor_layout": "sparse_csc"}   a layout (torch.sparse_csc)
  lists, ints, bools, finite floats, strings, None as themselves.

Statuses of a sample: "pass"; "unsupported" (webtorch refused with a clear error: see
clear_refusal); "wrong" (a value, shape, dtype or device differs, or an error input was accepted);
"crash" (any other exception, or an exception of another type than torch's).
"""

import re

from compare import _dec_float, assert_close, dtype_name, iter_tensors, to_plain

__all__ = ["build", "call", "run_spec", "judge", "clear_refusal", "cotangent"]


def _tensor(T, spec, device):
    dtype = getattr(T, spec["tensor"])
    values = [_dec_float(v) if isinstance(v, str) else v for v in spec["values"]]
    shape = list(spec["shape"])
    if spec["tensor"].startswith("complex"):  # (real, imaginary) pairs
        values = [complex(_dec_float(re) if isinstance(re, str) else re, _dec_float(im) if isinstance(im, str) else im)
                  for re, im in values]
    if spec.get("layout") == "strided" and shape:
        # same values, every element of the last dim stored twice: a view with stride 2 there
        doubled = [v for v in values for _ in range(2)]
        base = T.tensor(doubled, dtype=dtype, device=device).reshape(shape[:-1] + [2 * shape[-1]])
        t = base[..., ::2]
    else:
        t = T.tensor(values, dtype=dtype, device=device).reshape(shape)
    if spec.get("requires_grad"):
        t = t.detach().requires_grad_(True)
    return t


def _sparse(T, spec, device, leaves):
    arrays = [build(T, a, device, leaves) for a in spec["arrays"]]
    values = build(T, spec["values"], device, leaves)
    if spec["sparse"] == "sparse_coo":
        t = T.sparse_coo_tensor(arrays[0], values, tuple(spec["shape"]), is_coalesced=spec["coalesced"])
    else:
        t = getattr(T, spec["sparse"] + "_tensor")(*arrays, values, tuple(spec["shape"]))
    if spec.get("requires_grad"):
        t = t.detach().requires_grad_(True)
        leaves.append(t)
    return t


def build(T, obj, device, leaves):
    """The Python value a spec value stands for, with tensors of module T on device; tensors that
    require grad are appended to leaves."""
    if isinstance(obj, list):
        return [build(T, x, device, leaves) for x in obj]
    if not isinstance(obj, dict):
        return obj
    if "tensor" in obj:
        t = _tensor(T, obj, device)
        if obj.get("requires_grad"):
            leaves.append(t)
        return t
    if "sparse" in obj:
        return _sparse(T, obj, device, leaves)
    if "tensor_layout" in obj:
        return getattr(T, obj["tensor_layout"])
    if "tuple" in obj:
        return tuple(build(T, x, device, leaves) for x in obj["tuple"])
    if "dtype" in obj:
        return getattr(T, obj["dtype"])
    if "float" in obj:
        return float(obj["float"])
    if "slice" in obj:
        return slice(*obj["slice"])
    if "ellipsis" in obj:
        return Ellipsis
    if "device" in obj:
        return device
    if "kwargs" in obj:
        return {k: build(T, v, device, leaves) for k, v in obj["kwargs"].items()}
    raise ValueError("unknown spec value %r" % (obj,))


def _resolve(T, path):
    obj = T
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def call(T, spec, device):
    """Run the spec's call with module T on device; returns (result, leaves)."""
    leaves = []
    args = build(T, spec["args"], device, leaves)
    kwargs = build(T, {"kwargs": spec["kwargs"]}, device, leaves)
    if spec["call"] == "func":
        return _resolve(T, spec["op"])(*args, **kwargs), leaves
    if spec["call"] == "method":
        return getattr(args[0], spec["op"])(*args[1:], **kwargs), leaves
    return getattr(args[0], spec["op"]), leaves   # "attr": a property such as .T / .mT


def _grad_target(result):
    """The first float output (a sparse one made dense)."""
    for t in iter_tensors(result):
        if dtype_name(t.dtype).startswith("float"):
            return t if str(t.layout).endswith("strided") else t.to_dense()
    return None


def cotangent(shape, seed):
    """Deterministic cotangent values in [-1, 1) (a small LCG: identical in every Python)."""
    n = 1
    for s in shape:
        n *= s
    x, out = seed & 0x7FFFFFFF, []
    for _ in range(n):
        x = (1103515245 * x + 12345) & 0x7FFFFFFF
        out.append(round((x / 0x40000000) - 1.0, 6))
    return out


def run_spec(T, spec, device):
    """Run a spec with module T: the plain forward result and, for a grad spec, the plain
    gradients of its leaves (zeros for an unused leaf, as torch.autograd.grad(..., allow_unused)
    materialised)."""
    result, leaves = call(T, spec, device)
    if spec.get("abs_outputs"):
        result = tuple(T.abs(r) if i in spec["abs_outputs"] else r for i, r in enumerate(result))
    out = {"forward": to_plain(result),
           "devices": [str(t.device).split(":")[0] for t in iter_tensors(result)]}
    if spec.get("grad"):
        target = _grad_target(result)
        if target is None or not leaves:
            return out
        if not target.requires_grad:
            raise _NoGradError("the output has no grad_fn")
        cot = T.tensor(cotangent(list(target.shape), len(leaves)), dtype=target.dtype,
                       device=device).reshape(list(target.shape))
        (target * cot).sum().backward()
        out["grads"] = [to_plain(x.grad if x.grad is not None else T.zeros_like(x)) for x in leaves]
    return out


class _NoGradError(Exception):
    pass


# A refusal that names the gap (webtorch's documented limits, an argument webtorch does not take):
# the sample counts as "unsupported", not as a failure. Any other exception is a crash.
_REFUSAL = re.compile(
    r"not (yet )?(supported|implemented)|unsupported|does not support|no support|"
    r"unexpected keyword argument|positional argument|does not fit in int32|"
    r"has no attribute '\w+'$", re.I)


def clear_refusal(exc):
    if isinstance(exc, NotImplementedError):
        return True
    if isinstance(exc, _NoGradError):
        return False
    if isinstance(exc, (TypeError, ValueError, RuntimeError, AttributeError)):
        return bool(_REFUSAL.search(str(exc)))
    return False


def _first_line(exc):
    msg = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, msg[0][:200] if msg else "")


def judge(T, spec, device, expected):
    """(status, detail) of webtorch (module T) on spec against expected, which is either
    run_spec's output from torch or {"error": "TypeName"} for an error input."""
    try:
        actual = run_spec(T, spec, device)
    except Exception as e:  # noqa: BLE001 - classified below
        if "error" in expected:
            if type(e).__name__ == expected["error"]:
                return "pass", ""
            return "crash", "raised %s, torch raises %s" % (_first_line(e), expected["error"])
        if clear_refusal(e):
            return "unsupported", _first_line(e)
        return "crash", _first_line(e)
    if "error" in expected:
        return "wrong", "accepted an input torch rejects with %s" % expected["error"]
    if device == "webgpu":  # docs/limits.md: float64 on webgpu is stored as float32
        expected = dict(expected, forward=_float64_as_float32(expected["forward"]))
    if spec.get("tied_indices"):
        actual["forward"], expected["forward"] = _without_indices(actual["forward"]), _without_indices(expected["forward"])
    def atol(plain):
        return max(spec["atol"], spec.get("normwise", 0) * _largest(plain))
    try:
        assert_close(actual["forward"], expected["forward"], atol(expected["forward"]), spec["rtol"], "forward")
        if any(d != device for d in actual["devices"]):
            return "wrong", "a result on %s, expected %s" % (actual["devices"], device)
        if "grads" in expected:
            if "grads" not in actual:
                return "wrong", "no gradient"
            for i, (a, e) in enumerate(zip(actual["grads"], expected["grads"])):
                assert_close(a, e, atol(e), spec["rtol"], "grad[%d]" % i)
    except AssertionError as e:
        return "wrong", str(e).splitlines()[0][:300]
    return "pass", ""


def _largest(plain):
    """The largest finite |value| of a plain result's float tensors (0 if none)."""
    if plain["kind"] == "seq":
        return max([_largest(p) for p in plain["items"]] + [0])
    if plain["kind"] != "tensor" or not plain["dtype"].startswith("float"):
        return 0
    values = [abs(_dec_float(v)) for v in plain["values"]]
    return max([v for v in values if v != float("inf")] + [0])


def _without_indices(plain):
    """sort/topk's (values, indices) or argsort's indices with the indices reduced to shape and dtype."""
    if plain["kind"] == "seq":
        return dict(plain, items=[plain["items"][0], _without_indices(plain["items"][1])])
    return dict(plain, values=[])


def _float64_as_float32(plain):
    if plain["kind"] == "seq":
        return dict(plain, items=[_float64_as_float32(p) for p in plain["items"]])
    if plain["kind"] == "sparse":
        return dict(plain, values=_float64_as_float32(plain["values"]))
    if plain["kind"] == "tensor" and plain["dtype"] in ("float64", "complex128"):
        return dict(plain, dtype=plain["dtype"].replace("float64", "float32").replace("complex128", "complex64"))
    return plain
