"""The op list of docs/compatibility.md ("What is there") and the tests stay in sync.

* Every op the list names (a backticked name that resolves on webtorch, webtorch.Tensor or a
  dotted path such as nn.functional.pad) is used by at least one op case (recorded while the
  whole table runs on cpu) or, for random ops, called in tests/test_random.py.
* Every public op of the op modules (their __all__) is named in the list.
"""
import functools
import re
from pathlib import Path

import webtorch
from webtorch import _indexing, _inplace, _math_ops, _random, _refusals, _shape_ops

from op_cases import CASES, ERROR_CASES, build_inputs

ROOT = Path(__file__).resolve().parents[1]
# Bullets that list no ops, or APIs with test files of their own (test_autograd.py, test_nn.py,
# test_training.py).
NOT_OPS = ("**Dtypes**", "**Devices**", "**Device shims**", "**Autograd and training utilities**", "**Readback**", "**Device**", "**Autograd**", "**nn**", "**optim**",
           "**Data**", "**float32 matmul precision**")


def _listed_names():
    text = (ROOT / "docs" / "compatibility.md").read_text(encoding="utf-8")
    section = text.split("## What is there", 1)[1].split("\n## ", 1)[0]
    bullets = [b for b in section.split("\n- ")[1:] if not b.startswith(NOT_OPS)]
    names = set()
    for span in re.findall(r"`([^`]+)`", "\n".join(bullets)):
        for token in re.split(r"[\s,]+", span):
            token = token.strip("().")
            # "logical_and/or/xor" names logical_and, logical_or, logical_xor
            head, *alts = token.split("/")
            names.add(head)
            prefix = head.rsplit("_", 1)[0] + "_" if "_" in head else ""
            names.update(prefix + a for a in alts)
    return {n for n in names if _resolves(n)}


def _resolves(name):
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name) or name.startswith("__"):
        return False
    obj = webtorch
    for part in name.split("."):
        if not hasattr(obj, part):
            method = getattr(webtorch.Tensor, name, None) if name.count(".") == 0 else None
            return callable(method) and not hasattr(method, _refusals.MARK)
        obj = getattr(obj, part)
    return callable(obj) and not hasattr(obj, _refusals.MARK)  # a refusal's stand-in is no op


class _Recorder:
    """Stands in for the module T of the cases: records the dotted names they look up."""

    def __init__(self, obj, prefix, seen):
        self._obj, self._prefix, self._seen = obj, prefix, seen

    def __getattr__(self, name):
        self._seen.add(self._prefix + name)
        value = getattr(self._obj, name)
        if name in ("nn", "functional", "linalg", "distributions", "special"):
            return _Recorder(value, self._prefix + name + ".", self._seen)
        return value


def _exercised_by_cases():
    """Names the op table uses: module functions through T, Tensor methods and operators."""
    seen = set()
    originals = {n: v for n, v in vars(webtorch.Tensor).items() if callable(v) and not isinstance(v, type)}

    def recording(name, fn):
        @functools.wraps(fn)
        def method(*args, **kwargs):
            seen.add(name[2:-2] if name.startswith("__") and name.endswith("__") else name)
            return fn(*args, **kwargs)
        return method

    try:
        for n, v in originals.items():
            setattr(webtorch.Tensor, n, recording(n, v))
        module = _Recorder(webtorch, "", seen)
        for case in CASES + ERROR_CASES:
            try:
                case.fn(module, "cpu", *build_inputs(webtorch, case, "cpu"))
            except Exception:  # noqa: BLE001 - error cases raise by design
                pass
    finally:
        for n, v in originals.items():
            setattr(webtorch.Tensor, n, v)
    operators = {"ge": "ge", "gt": "gt", "le": "le", "lt": "lt", "ne": "ne", "eq": "eq", "and": "bitwise_and",
                 "or": "bitwise_or", "xor": "bitwise_xor", "invert": "bitwise_not", "getitem": "getitem"}
    return seen | {operators[n] for n in seen if n in operators} | {n.rsplit(".", 1)[-1] for n in seen}


def test_every_listed_op_has_a_case():
    listed = _listed_names()
    assert len(listed) > 200, "the op list of docs/compatibility.md did not parse"
    # random ops and the sparse tensor's own methods (indices, values) have their tables in these files
    own_tables = "".join((ROOT / "tests" / name).read_text() for name in ("test_random.py", "test_sparse.py"))
    seen = _exercised_by_cases()
    missing = sorted(n for n in listed if n not in seen and n.rsplit(".", 1)[-1] not in seen
                     and not re.search(r"\b" + re.escape(n) + r"\(", own_tables))
    assert not missing, f"ops in docs/compatibility.md without a test case: {missing}"


def test_every_public_op_is_listed():
    listed = {n.rsplit(".", 1)[-1] for n in _listed_names()}
    public = set()
    for module in (_indexing, _shape_ops, _math_ops, _random, _inplace):
        public.update(n for n in module.__all__ if n not in ("default_generator",))
    missing = sorted(public - listed)
    assert not missing, f"public ops missing from the op list of docs/compatibility.md: {missing}"
