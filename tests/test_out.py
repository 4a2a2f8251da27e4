"""out= as torch 2.13 has it (webtorch/_out.py), for every function of torch's namespaces that takes it.

test_table_is_torchs derives the list of those functions from torch's own signatures (its
_VariableFunctions.pyi stub, the signatures of its Python-defined functions, the docstrings of the
linalg / special / fft bindings) and compares it with webtorch's table. test_out runs each one webtorch
implements on one sample (OpInfo's first float32 sample, or a case below) with the same out tensors
in both libraries: an out of the result's shape (written, returned, torch's values), an empty out
(resized silently), an out of another shape (resized with torch's warning), an out of a wider dtype and
one of a lower category (accepted or refused as torch), and an input that requires grad (refused).
"""
import ast
import inspect
import json
import os
import re
import sys
import warnings

import pytest
import torch

import webtorch
from webtorch import _out, _refusals

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import assert_close, to_plain  # noqa: E402
from opinfo_run import build  # noqa: E402


def torch_out_names():
    """Every public function of torch's namespaces that takes out=, from torch's own signatures."""
    stub = os.path.join(os.path.dirname(torch._C.__file__), "_C", "_VariableFunctions.pyi")
    names = set()
    with open(stub) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and hasattr(torch, node.name):
            if any(a.arg == "out" for a in node.args.kwonlyargs + node.args.args):
                names.add(node.name)
    for prefix, ns in (("", torch), ("linalg.", torch.linalg), ("special.", torch.special), ("fft.", torch.fft),
                       ("nn.functional.", torch.nn.functional)):
        for n in dir(ns):
            f = getattr(ns, n)
            if n.startswith("_") or not callable(f) or isinstance(f, type) or prefix + n in names:
                continue
            if inspect.isfunction(f):  # defined in Python: its signature
                if "out" in inspect.signature(f).parameters and f.__module__.startswith("torch"):
                    names.add(prefix + n)
            elif prefix and re.search(r"\bout=None", f.__doc__ or ""):  # a C binding outside the stub
                names.add(prefix + n)
    return names


def test_table_is_torchs():
    ours = set(_out.OUT.split())
    theirs = torch_out_names()
    assert not theirs - ours, f"torch functions taking out= missing from webtorch/_out.py OUT: {sorted(theirs - ours)}"
    assert not ours - theirs, f"OUT lists functions torch gives no out=: {sorted(ours - theirs)}"
    for table in (_out.EXACT, _out.CASTING_TUPLES, _out.OUT_DTYPE_COMPUTES, _out.CREATION):
        assert set(table.split()) <= ours


def _resolve(module, path):
    for part in path.split("."):
        module = getattr(module, part, None)
    return module


def _implemented(path):
    fn = _resolve(webtorch, path)
    return fn is not None and not hasattr(fn, _refusals.MARK)


def _t(shape, dtype="float32", low=-2.0, high=2.0, seed=0):
    """A spec tensor with deterministic values in [low, high)."""
    n = 1
    for s in shape:
        n *= s
    vals = [low + (high - low) * (((i * 7919 + seed * 104729) % 997) / 997.0) for i in range(n)]
    if dtype == "int64":
        vals = [int(v) for v in vals]
    return {"tensor": dtype, "shape": list(shape), "values": vals}


# Torch's names that OpInfo gives no out= sample: the sample of the op they alias (an OpInfo name), or
# their own (args, kwargs) in spec form.
ALIAS_OF = {"absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
            "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh", "clip": "clamp", "concat": "cat",
            "concatenate": "cat", "divide": "div", "fix": "trunc", "greater": "gt", "greater_equal": "ge",
            "less": "lt", "less_equal": "le", "multiply": "mul", "negative": "neg", "not_equal": "ne",
            "subtract": "sub", "row_stack": "vstack", "ger": "outer", "inverse": "linalg.inv",
            "special.digamma": "digamma", "special.erf": "erf", "special.erfc": "erfc", "special.erfinv": "erfinv",
            "special.exp2": "exp2", "special.expit": "sigmoid", "special.expm1": "expm1", "special.gammaln": "lgamma",
            "special.i0": "i0", "special.log1p": "log1p", "special.logit": "logit", "special.logsumexp": "logsumexp",
            "special.psi": "digamma", "special.round": "round", "special.sinc": "sinc", "special.xlogy": "xlogy"}
_PIVOTS = {"tensor": "int32", "shape": [3], "values": [2, 3, 3]}  # lu_factor's 1-based row interchanges
OWN_CASES = {
    "argsort": ([_t([3, 4])], {"dim": 1, "stable": True}),
    "sum": ([_t([3, 4]), 1], {}),
    "prod": ([_t([3, 4]), 0], {}),
    "median": ([_t([3, 5]), 1], {}),
    "where": ([{"tensor": "bool", "shape": [4], "values": [True, False, True, False]}, _t([4]), _t([4], seed=1)], {}),
    "threshold": ([_t([5]), 0.1, 20.0], {}),
    "hardshrink": ([_t([5])], {}),
    "slogdet": ([_t([3, 3])], {}),
    "linalg.lu": ([_t([3, 3])], {}),
    "linalg.lu_factor": ([_t([3, 3])], {}),
    "linalg.lu_factor_ex": ([_t([3, 3])], {}),
    "linalg.lu_solve": ([_t([3, 3], low=1.0, high=2.0), _PIVOTS, _t([3, 2])], {}),
    "lu_solve": ([_t([3, 2]), _t([3, 3], low=1.0, high=2.0), _PIVOTS], {}),
    "lu_unpack": ([_t([3, 3]), _PIVOTS], {}),
    "view_as_real_copy": ([{"tensor": "complex64", "shape": [2], "values": [[1.0, 2.0], [3.0, -1.0]]}], {}),
    "view_as_complex_copy": ([_t([3, 2])], {}),
    "detach_copy": ([_t([3, 4])], {}),
    "select_copy": ([_t([3, 4]), 1, 2], {}),
    "slice_copy": ([_t([3, 4]), 1, 1, None, 2], {}),
    "fft.fftfreq": ([5], {}),
    "fft.rfftfreq": ([6], {}),
    "chain_matmul": ([_t([2, 3]), _t([3, 4], seed=1), _t([4, 2], seed=2)], {}),
    "linalg.matmul": ([_t([2, 3]), _t([3, 4], seed=1)], {}),
    "linalg.multi_dot": ([[_t([2, 3]), _t([3, 4], seed=1), _t([4], seed=2)]], {}),
    "matrix_power": ([_t([3, 3]), 3], {}),
    # (OpInfo's sample is n = 0, where torch copies into out and so takes an out of a wider dtype; webtorch
    # refuses it as for every n: a known difference of that edge)
    "linalg.matrix_power": ([_t([2, 3, 3]), 3], {}),
    "nanmedian": ([_t([3, 5]), 1], {}),
    "nonzero_static": ([_t([6])], {"size": 4}),
    "slice_scatter": ([_t([4, 3]), _t([2, 3], seed=1)], {"start": 1, "end": 3}),
    "deg2rad": ([_t([5])], {}),
    "rad2deg": ([_t([5])], {}),
    "fmax": ([_t([5]), _t([5], seed=1)], {}),
    "fmin": ([_t([5]), _t([5], seed=1)], {}),
    "float_power": ([_t([5], low=0.5), 1.5], {}),
    "frexp": ([_t([5], high=40.0)], {}),
    "ldexp": ([_t([5]), _t([5], "int64", low=0.0, high=4.0)], {}),
    "logspace": ([0, 2, 5], {}),
    "range": ([1, 4], {}),
    "polygamma": ([1, _t([5], low=0.5, high=9.0)], {}),
    "special.polygamma": ([2, _t([5], low=0.5, high=9.0)], {}),
    "mvlgamma": ([_t([5], low=2.0, high=9.0), 3], {}),
    "special.multigammaln": ([_t([5], low=2.0, high=9.0), 2], {}),
    "special.zeta": ([_t([5], low=1.5, high=5.0), _t([5], low=0.5, high=9.0, seed=1)], {}),
    "igamma": ([_t([5], low=0.5, high=9.0), _t([5], low=0.1, high=12.0, seed=1)], {}),
    "igammac": ([_t([5], low=0.5, high=9.0), _t([5], low=0.1, high=12.0, seed=1)], {}),
    "special.gammainc": ([_t([5], low=0.5, high=9.0), _t([5], low=0.1, high=12.0, seed=1)], {}),
    "special.gammaincc": ([_t([5], low=0.5, high=9.0), _t([5], low=0.1, high=12.0, seed=1)], {}),
}
# Results drawn at random or left uninitialised: their shapes and dtypes are compared, not their values.
RANDOM = {"bernoulli": ([_t([4], low=0.0, high=1.0)], {}), "multinomial": ([_t([4], low=0.1, high=1.0), 2], {}),
          "normal": ([_t([4]), _t([4], low=0.5, high=1.0)], {}), "rand": ([2, 3], {}), "randn": ([2, 3], {}),
          "randint": ([5, (2, 3)], {}), "randperm": ([5], {}), "empty": ([2, 3], {})}


SAMPLES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out_cases.json")


def _numel(spec):
    if isinstance(spec, dict) and "tensor" in spec:
        return len(spec["values"])
    if isinstance(spec, dict):
        return sum(_numel(v) for v in spec.values())
    return sum(_numel(v) for v in spec) if isinstance(spec, list) else 0


def _shorten(args, n=16):
    """Elementwise operands of one shape cut to their first n values (OpInfo draws 20x20 and more)."""
    tensors = [a for a in args if isinstance(a, dict) and "tensor" in a]
    if tensors and len({tuple(t["shape"]) for t in tensors}) == 1 and len(tensors[0]["values"]) > n:
        for t in tensors:
            t["shape"], t["values"] = [n], t["values"][:n]


def _rounded(spec):
    """float32 values to 4 decimals (a smaller file; both libraries read the same values)."""
    if isinstance(spec, list):
        return [_rounded(v) for v in spec]
    if isinstance(spec, dict) and spec.get("tensor") == "float32":
        return dict(spec, values=[round(v, 4) if isinstance(v, float) else v for v in spec["values"]])
    if isinstance(spec, dict):
        return {k: _rounded(v) for k, v in spec.items()}
    return spec


def opinfo_samples():  # (run as a script: needs opinfo_cases, imported there)
    """{torch path: [args spec, kwargs spec]}: for each OpInfo with out= that webtorch implements, the smallest
    (of more than one element) of the first samples OpInfo draws for the first of float32, int64, bool the op supports. Slow (OpInfo's
    sample generators): `python tests/test_out.py` writes them to out_cases.json, which the test reads."""
    found = {}
    for op in opinfo_cases.ops().values():
        if not op.supports_out or op.name in found or not _implemented(op.name):
            continue
        dtypes = [d for d in ("float32", "int64", "bool") if d in opinfo_cases.columns_of(op)]
        specs = []
        for sample in opinfo_cases._draw(op, opinfo_cases.DTYPES[dtypes[0]], False, 12) if dtypes else []:
            try:
                spec = opinfo_cases._spec(op, sample)
            except opinfo_cases.Unexpressible:
                continue
            if spec["call"] == "func" and "error" not in opinfo_cases._expected(spec):
                specs.append(spec)
        specs = [sp for sp in specs if _numel(sp["args"]) > 1] or specs  # a result with values, where one is drawn
        if specs:
            spec = min(specs, key=lambda sp: _numel(sp["args"]) + _numel(sp["kwargs"]))
            if isinstance(op, (UnaryUfuncInfo, BinaryUfuncInfo)):
                _shorten(spec["args"])
            found[op.name] = _rounded([spec["args"], spec["kwargs"]])
    return found


def cases():
    """[(path, args spec, kwargs spec, random)] for every OUT function webtorch implements."""
    with open(SAMPLES_FILE) as f:
        samples = json.load(f)
    out = []
    for path in sorted(set(_out.OUT.split())):
        if not _implemented(path):
            continue
        if path in RANDOM:
            out.append((path, *RANDOM[path], True))
        elif path in OWN_CASES:
            out.append((path, *OWN_CASES[path], False))
        elif path in samples or ALIAS_OF.get(path) in samples:
            out.append((path, *(samples.get(path) or samples[ALIAS_OF[path]]), False))
        else:
            out.append((path, None, None, False))  # fails below: give it a case
    return out


CASES = cases() if __name__ != "__main__" else []


def _call(T, path, args_spec, kwargs_spec, out, grad=False):
    """(result, resize warnings, exception type) of T's function called with out."""
    leaves = []
    args = build(T, args_spec, "cpu", leaves)
    kwargs = build(T, {"kwargs": kwargs_spec}, "cpu", leaves)
    if grad:
        floats = [a for a in args if isinstance(a, T.Tensor) and a.dtype == T.float32]
        if not floats:
            return None, [], "no float input"
        floats[0].requires_grad_(True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = _resolve(T, path)(*args, **kwargs, out=out)
        except Exception as e:  # noqa: BLE001 - compared with torch's
            return None, [], type(e).__name__
    return result, [str(w.message) for w in caught if "resized" in str(w.message)], None


def _outs(T, shapes_dtypes):
    made = [T.empty(shape, dtype=getattr(T, dtype)) for shape, dtype in shapes_dtypes]
    return made[0] if len(made) == 1 else tuple(made)


def _is_out(result, out):
    outs = out if isinstance(out, tuple) else (out,)
    results = tuple(result) if isinstance(result, tuple) else (result,)
    return len(outs) == len(results) and all(r is o for r, o in zip(results, outs))


# torch's own out= forms that write wrong values: webtorch's out is compared with torch's plain result
TORCH_OUT_BUGS = {"fft.ihfftn": "torch 2.13 leaves garbage in out (1e34 where the result is 0.1); resizing raises"}
# (variant, path): torch's error comes from the function's own dtype check, webtorch's differs
KNOWN = {("lower", "nansum"): "nansum(float, out=int64) sums in int64: torch's NotImplementedError, webtorch casts",
         ("lower", "nanmean"): "nanmean(float, out=int64): torch's NotImplementedError, webtorch's RuntimeError"}
_LOWER = {"float32": "int64", "float64": "int64", "int64": "bool", "int32": "bool", "complex64": "float32"}


@pytest.mark.parametrize("path,args,kwargs,random", CASES, ids=[c[0] for c in CASES])
def test_out(path, args, kwargs, random):
    assert args is not None, f"torch.{path} takes out= and webtorch implements it: give it a case in test_out.py"
    plain = torch.empty(0)
    expected = build(torch, args, "cpu", [])
    fn = _resolve(torch, path)
    reference = fn(*expected, **build(torch, {"kwargs": kwargs}, "cpu", []))
    results = list(reference) if isinstance(reference, tuple) else [reference]
    shapes = [(list(r.shape), str(r.dtype).split(".")[1]) for r in results]
    variants = {"same": shapes, "empty": [([0], d) for _, d in shapes],
                "reshaped": [([r.numel() + 1], d) for r, (_, d) in zip(results, shapes)]}
    if shapes[0][1] == "float32":
        variants["wider"] = [(s, "float64" if d == "float32" else d) for s, d in shapes]
    if shapes[0][1] in _LOWER and not random:  # (random functions' dtype errors are their own)
        variants["lower"] = [(s, _LOWER[d] if i == 0 else d) for i, (s, d) in enumerate(shapes)]
    for variant, layout in variants.items():
        if (variant, path) in KNOWN or (path in TORCH_OUT_BUGS and variant != "same"):
            continue
        t_out, w_out = _outs(torch, layout), _outs(webtorch, layout)
        t_res, t_warn, t_err = _call(torch, path, args, kwargs, t_out)
        w_res, w_warn, w_err = _call(webtorch, path, args, kwargs, w_out)
        where = f"torch.{path}(out=<{variant}: {layout}>)"
        assert w_err == t_err, f"{where}: webtorch raised {w_err}, torch {t_err}"
        if t_err:
            continue
        assert _is_out(w_res, w_out), f"{where}: the result is not out"
        assert bool(w_warn) == bool(t_warn), f"{where}: resize warning {w_warn} (torch: {t_warn})"
        if random or path == "empty":
            got = [(list(o.shape), str(o.dtype)) for o in (w_out if isinstance(w_out, tuple) else (w_out,))]
            want = [(list(o.shape), str(o.dtype).replace("torch.", "webtorch.")) for o in
                    (t_out if isinstance(t_out, tuple) else (t_out,))]
            assert got == want, where
        elif path in TORCH_OUT_BUGS:
            assert variant != "same" or assert_close(to_plain(w_out), to_plain(reference), 1e-4, 1e-4, where) is None
        else:
            w_plain, t_plain = to_plain(w_out), to_plain(t_out)
            if path == "linalg.eigh":  # eigenvectors: defined up to sign
                w_plain, t_plain = to_plain(abs(w_out[1])), to_plain(abs(t_out[1]))
            assert_close(w_plain, t_plain, 1e-4, 1e-4, where)
    del plain
    t_res, _, t_err = _call(torch, path, args, kwargs, _outs(torch, shapes), grad=True)
    w_res, _, w_err = _call(webtorch, path, args, kwargs, _outs(webtorch, shapes), grad=True)
    assert w_err == t_err, f"torch.{path}(out=...) with an input requiring grad: webtorch {w_err}, torch {t_err}"


def test_out_keeps_strides_and_writes_through_views():
    """An out view of the right shape is written through (its base sees the values), as torch."""
    for T in (torch, webtorch):
        base = T.zeros(3, 2)
        r = T.add(T.ones(3), 1, out=base[:, 1])
        assert r.stride() == (2,)
        assert base.tolist() == [[0.0, 2.0], [0.0, 2.0], [0.0, 2.0]]


def test_out_partial_overlap_is_refused():
    for T in (torch, webtorch):
        x = T.arange(6.0)
        with pytest.raises(RuntimeError, match="single memory location"):
            T.exp(x[:4], out=x[2:])


def test_creation_out_dtype_and_device():
    o = webtorch.empty(0, dtype=webtorch.float64)
    assert webtorch.arange(3, out=o) is o and o.dtype is webtorch.float64 and o.tolist() == [0.0, 1.0, 2.0]
    for T in (torch, webtorch):
        with pytest.raises(RuntimeError, match="does not match dtype of out"):
            T.zeros(2, dtype=T.float32, out=T.empty(2, dtype=T.float64))


def test_reduction_computes_in_out_dtype():
    """sum(float32, out=float64) sums in float64 (torch infers the dtype from out)."""
    for T in (torch, webtorch):
        o = T.empty((), dtype=T.float64)
        T.sum(T.tensor([16777216.0, 1.0, 1.0]), 0, out=o)
        assert o.item() == 16777218.0


def test_out_on_webgpu():
    a = webtorch.tensor([1.0, -2.0, 3.0], device="webgpu")
    o = webtorch.empty(0, device="webgpu")
    assert webtorch.mul(a, 2, out=o) is o and o.tolist() == [2.0, -4.0, 6.0]
    v, i = webtorch.empty(0, device="webgpu"), webtorch.empty(0, dtype=webtorch.int64, device="webgpu")
    r = webtorch.sort(a, out=(v, i))
    assert r.values is v and v.tolist() == [-2.0, 1.0, 3.0] and i.tolist() == [1, 0, 2]
    with pytest.raises(RuntimeError, match="device"):
        webtorch.mul(a, 2, out=webtorch.empty(3))


if __name__ == "__main__":
    import opinfo_cases
    from torch.testing._internal.opinfo.core import BinaryUfuncInfo, UnaryUfuncInfo
    with open(SAMPLES_FILE, "w") as f:
        json.dump(opinfo_samples(), f, separators=(",", ":"), sort_keys=True)
