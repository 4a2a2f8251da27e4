"""Two classes of error inputs, each checked row by row against torch:
- Python numbers where torch requires a Tensor: for every op of webtorch/_tensor_args.py's table, torch.X
  and Tensor.X with numbers in each operand position must raise what torch raises (TypeError) or compute
  as torch does; every function of the generated webtorch/_tensor_first.py raises torch's TypeError for a
  float or None as its first argument (and second, where torch's must be a Tensor too);
- dtypes torch does not implement an op for (_ops.DTYPE_REFUSALS): the same exception type as torch,
  on both devices (never a kernel that fails to compile or a number torch does not give)."""
import os
import sys
import warnings

import pytest
import torch

import webtorch
from webtorch import _refusals, _tensor_args, _tensor_first

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
import tensor_first  # noqa: E402

DTYPES = ("float32", "int64", "bool")


def _operand(T, dtype, shape):
    values = [True, False, True] * 6 if dtype == "bool" else list(range(1, 19))
    n = 1
    for s in shape:
        n *= s
    return T.tensor(values[:n], dtype=getattr(T, dtype)).reshape(shape)


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the type is compared
            return type(e).__name__
    return "ok"


# ops whose operands differ in dtype or rank: (dtype, shape) of each Tensor operand
MIXED = {
    "masked_fill": [("float32", (3,)), ("bool", (3,))],
    "mv": [("float32", (3, 3)), ("float32", (3,))],
    "take_along_dim": [("float32", (3,)), ("int64", (3,))],
}


def _form_for(name):
    """(dtype, shape, number of operands) for which torch computes the op on Tensors only."""
    fn = getattr(torch, name)
    for n_args in (2, 3):
        for shape in ((3,), (3, 3), (2, 3, 3)):
            for dtype in DTYPES:
                if _outcome(lambda: fn(*[_operand(torch, dtype, shape)] * n_args)) == "ok":
                    return dtype, shape, n_args
    return None


CALLS = {  # label -> the two leading arguments, from a Tensor maker t
    "t, 2": lambda t: (t(), 2),
    "2, t": lambda t: (2, t()),
    "2, 3": lambda t: (2, 3),
    "t, 1.5": lambda t: (t(), 1.5),
    "t, True": lambda t: (t(), True),
    "t, [1]": lambda t: (t(), [1]),
}


@pytest.mark.parametrize("name", sorted(n for n, kind in _tensor_args.ARGS.items() if kind not in "*[" and n not in MIXED))
def test_ops_take_numbers_where_torch_does(name):
    form = _form_for(name)
    assert form is not None, "torch computes %s on no dtype of %s" % (name, DTYPES)
    dtype, shape, n_args = form
    diffs = []
    for label, lead in CALLS.items():
        def run(T):
            t = lambda: _operand(T, dtype, shape)  # noqa: E731
            return _outcome(lambda: getattr(T, name)(*lead(t), *[t() for _ in range(n_args - 2)]))
        expected, actual = run(torch), run(webtorch)
        if (expected == "TypeError") != (actual == "TypeError"):
            diffs.append("torch.%s(%s): torch %s, webtorch %s" % (name, label, expected, actual))
    if hasattr(torch.Tensor, name) and hasattr(webtorch.Tensor, name):
        for other in (2, 1.5):
            def run(T):
                t = lambda: _operand(T, dtype, shape)  # noqa: E731
                return _outcome(lambda: getattr(t(), name)(other, *[t() for _ in range(n_args - 2)]))
            expected, actual = run(torch), run(webtorch)
            if (expected == "TypeError") != (actual == "TypeError"):
                diffs.append("Tensor.%s(%r): torch %s, webtorch %s" % (name, other, expected, actual))
    assert not diffs, "\n".join(diffs)


@pytest.mark.parametrize("name", sorted(MIXED))
def test_mixed_operand_ops_take_numbers_where_torch_does(name):
    def run(T, position, number):
        args = [_operand(T, dtype, shape) for dtype, shape in MIXED[name]]
        args[position] = number
        return _outcome(lambda: getattr(T, name)(*args, *([0.0] if name == "masked_fill" else [])))
    for position in range(len(MIXED[name])):
        for number in (2, 1.5, True):
            assert run(torch, position, number) == run(webtorch, position, number) == "TypeError"


@pytest.mark.parametrize("name", sorted(n for n, kind in _tensor_args.ARGS.items() if kind in "*["))
def test_tensor_list_ops_reject_numbers(name):
    t = webtorch.ones(2)
    with pytest.raises(TypeError):
        getattr(torch, name)(torch.ones(2), 2)
    with pytest.raises(TypeError, match="expected Tensor as element 1"):
        getattr(webtorch, name)(t, 2)
    getattr(webtorch, name)(t, t)
    lists = _outcome(lambda: getattr(torch, name)([torch.ones(2), torch.ones(2)]))
    assert _outcome(lambda: getattr(webtorch, name)([t, t])) == lists


def _resolve(module, path):
    for part in path.split(".")[1:]:
        module = getattr(module, part, None)
    return module


# torch's functions whose first argument (and second, where named) must be a Tensor (webtorch/_tensor_first.py),
# those webtorch implements
FIRST = [(path, name, params) for path, (name, *params) in _tensor_first.FIRST.items()
         if callable(_resolve(webtorch, path)) and not hasattr(_resolve(webtorch, path), _refusals.MARK)]


def test_tensor_first_table_is_current():
    assert len(FIRST) > 500 and sum(len(params) == 2 for _, _, params in FIRST) > 100
    assert open(tensor_first.MODULE, encoding="utf-8").read() == tensor_first.text(), \
        "run: python scripts/tensor_first.py --write"


@pytest.mark.parametrize("path,name,params", FIRST, ids=[p for p, _, _ in FIRST])
def test_first_arguments_must_be_tensors(path, name, params):
    """A float or None where torch takes only a Tensor: torch's TypeError, before any kernel."""
    for position, param in enumerate(params, 1):
        for bad in (1.5, None):
            lead = lambda T: (T.ones(2, 2),) * (position - 1)  # noqa: E731
            assert _outcome(lambda: _resolve(torch, path)(*lead(torch), bad)) == "TypeError"
            with pytest.raises(TypeError) as info:
                _resolve(webtorch, path)(*lead(webtorch), bad)
            assert str(info.value) == (f"{name}(): argument '{param}' (position {position}) must be Tensor, "
                                       f"not {type(bad).__name__}")


def test_first_argument_checks_keep_what_torch_takes():
    t = webtorch.tensor([1.0, 2.0])
    cond = webtorch.tensor([True, False])
    with pytest.raises(TypeError, match=r"^abs\(\): argument 'input' must be Tensor, not float$"):
        webtorch.abs(input=1.5)
    assert webtorch.abs(input=-t).tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match=r"must be Tensor, not numpy.ndarray|not ndarray"):
        webtorch.sum(__import__("numpy").ones(2))
    # numbers where torch has an overload for them (not in the table)
    assert webtorch.pow(2, t).tolist() == [2.0, 4.0]
    assert webtorch.where(cond, 1.0, t).tolist() == [1.0, 2.0]
    assert webtorch.full((2,), 1.5).tolist() == [1.5, 1.5] and webtorch.tensor(1.5).item() == 1.5
    assert webtorch.clamp(t, 1.5, 3.0).tolist() == [1.5, 2.0]
    assert webtorch.normal(0.0, webtorch.zeros(2)).tolist() == [0.0, 0.0]
    assert webtorch.special.xlogy(0.0, t).tolist() == [0.0, 0.0]
    assert webtorch.add(t, 2).tolist() == [3.0, 4.0] and webtorch.add(1.5, t).tolist() == [2.5, 3.5]
    with pytest.raises(TypeError, match=r"^mm\(\): argument 'mat2' must be Tensor, not int$"):
        webtorch.mm(t.reshape(1, 2), mat2=2)
    assert webtorch.batch_norm(t.reshape(1, 2), None, None, webtorch.zeros(2), webtorch.ones(2), False, 0.1, 0.0,
                               False).tolist() == [[1.0, 2.0]]  # an optional Tensor second
    # Tensor subclasses pass; a class with a __torch_function__ of its own is dispatched on, as torch does
    assert webtorch.exp(webtorch.nn.Parameter(webtorch.zeros(1))).tolist() == [1.0]

    class Wrapper:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "handled", func
    for T in (torch, webtorch):
        assert T.arccos(Wrapper()) == ("handled", T.arccos)
        assert T.special.digamma(Wrapper()) == ("handled", T.special.digamma)


def test_keyword_and_in_place_forms():
    t = webtorch.tensor([1.0, -2.0])
    assert webtorch.eq(t, other=1.0).tolist() == [True, False]
    assert webtorch.pow(2, exponent=webtorch.tensor([3])).tolist() == [8]
    with pytest.raises(TypeError, match="'other'"):
        webtorch.maximum(t, other=1.0)
    with pytest.raises(TypeError):
        t.clone().atan2_(2.0)
    with pytest.raises(TypeError):
        torch.tensor([1.0]).atan2_(2.0)
    assert webtorch.bincount(webtorch.tensor([1]), None).tolist() == [0, 1]  # an optional Tensor takes None
    assert webtorch.clamp(t, None, 0.5).tolist() == [0.5, -2.0]
    # Python's operators take numbers on either side, as torch's do
    assert (2 - t).tolist() == [1.0, 4.0] and (2 ** webtorch.tensor([3])).tolist() == [8]
    assert (2 & webtorch.tensor([3])).tolist() == [2] and (t > 0).tolist() == [True, False]


def test_every_table_name_is_exported():
    assert all(callable(getattr(webtorch, n, None)) for n in _tensor_args.ARGS)


# how to call each DTYPE_REFUSALS row's op on a 1-D operand x (default: fn(x))
_REFUSAL_CALLS = {
    "bitwise_and": lambda T, x: T.bitwise_and(x, x), "bitwise_or": lambda T, x: T.bitwise_or(x, x),
    "bitwise_xor": lambda T, x: T.bitwise_xor(x, x), "fmod": lambda T, x: T.fmod(x, x),
    "hypot": lambda T, x: T.hypot(x, x),
    "remainder": lambda T, x: T.remainder(x, x), "floor_divide": lambda T, x: T.floor_divide(x, x),
    "trunc_divide": lambda T, x: T.div(x, x, rounding_mode="trunc"), "topk": lambda T, x: T.topk(x, 1),
    "kthvalue": lambda T, x: T.kthvalue(x, 1), "trace": lambda T, x: T.trace(x.reshape(2, 2)),
    "threshold": lambda T, x: T.nn.functional.threshold(x, 1, 0),
}
_KIND_VALUES = {"b": ("bool", [True, False, True, True]), "i": ("int64", [3, -2, 0, 1]),
                "f": ("float32", [1.5, -2.0, 0.0, 3.0])}


def _refusal_cases():
    for name, (kinds, _) in sorted(webtorch._ops.DTYPE_REFUSALS.items()):
        for kind in kinds:
            for device in ("cpu", "webgpu"):
                yield pytest.param(name, kind, device, id="%s-%s-%s" % (name, _KIND_VALUES[kind][0], device))


@pytest.mark.parametrize("name,kind,device", list(_refusal_cases()))
def test_dtype_refusals_raise_what_torch_raises(name, kind, device):
    dtype, values = _KIND_VALUES[kind]

    def call(T, d):
        x = T.tensor(values, dtype=getattr(T, dtype), device=d)
        if name in _REFUSAL_CALLS:
            return _REFUSAL_CALLS[name](T, x)
        fn = getattr(T, name, None) or getattr(T.nn.functional, name)
        return fn(x)
    with pytest.raises(Exception) as expected:
        call(torch, "cpu")
    with pytest.raises(Exception) as actual:
        call(webtorch, device)
    assert type(actual.value) is type(expected.value), (actual.value, expected.value)
