"""torch._foreach_*: every form torch 2.13 has, against torch on the same lists (tensors of different
shapes, positive values where the op's domain needs them), on cpu and webgpu: values, dtypes, the
tuple/list that comes back, in-place writes, and the errors for mismatched lists."""
import numpy as np
import pytest
import torch

import webtorch

NAMES = sorted(n for n in dir(torch) if n.startswith("_foreach_"))
SHAPES = [(3,), (2, 4), ()]
# lgamma's float32 kernel is accurate to OpInfo's tolerance (tests/test_elementwise_accuracy.py), not 2e-6
TOLERANCE = {"lgamma": dict(rtol=4e-6, atol=2e-4)}
POSITIVE = {"acos", "asin", "log", "log10", "log1p", "log2", "rsqrt", "sqrt", "lgamma", "reciprocal"}


def lists(rng, base, count=1, positive=False):
    return [[(rng.uniform(0.1, 0.9, s) if positive else rng.uniform(-2, 2, s)).astype("float32") for s in SHAPES]
            for _ in range(count)]


def operands(name):
    """The call's arguments (numpy lists stand for tensor lists) and keywords, per form."""
    rng = np.random.default_rng(abs(hash(name)) % 2 ** 32)
    base = name.removeprefix("_foreach_").rstrip("_")
    positive = base in POSITIVE or base == "pow"
    (a,) = lists(rng, base, 1, positive)
    if base in ("add", "sub"):
        return [a, lists(rng, base)[0]], {"alpha": 0.5}
    if base in ("mul", "div", "maximum", "minimum", "clamp_min", "clamp_max"):
        return [a, [1.5, -0.5, 2.0]], {}
    if base == "pow":
        return [a, lists(rng, base, 1, True)[0]], {}
    if base == "lerp":
        return [a, lists(rng, base)[0], [0.25, 0.5, 0.75]], {}
    if base in ("addcdiv", "addcmul"):
        t1, t2 = lists(rng, base, 2, True)
        return [a, t1, t2, 0.5], {}
    if base == "copy":
        return [a, lists(rng, base)[0]], {}
    if base == "mm":
        return [[rng.uniform(-1, 1, (2, 3)).astype("float32")], [rng.uniform(-1, 1, (3, 4)).astype("float32")]], {}
    if base in ("norm", "powsum"):
        return [a, 3], {}
    return [a], {}


def build(T, device, args):
    return [[T.tensor(x, device=device) for x in arg] if isinstance(arg, list) and isinstance(arg[0], np.ndarray)
            else arg for arg in args]


def as_lists(result):
    return [np.asarray(t.tolist(), dtype="float64") for t in result]


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("name", NAMES)
def test_foreach_like_torch(name, device):
    args, kwargs = operands(name)
    expected_args, actual_args = build(torch, "cpu", args), build(webtorch, device, args)
    expected = getattr(torch, name)(*expected_args, **kwargs)
    actual = getattr(webtorch, name)(*actual_args, **kwargs)
    assert type(actual) is type(expected)
    if name.endswith("_"):  # in place: the list given comes back, its tensors written
        assert actual is actual_args[0]
    for a, e in zip(actual, expected):
        assert str(a.dtype).split(".")[1] == str(e.dtype).split(".")[1] and tuple(a.shape) == tuple(e.shape)
        np.testing.assert_allclose(np.asarray(a.tolist()), np.asarray(e.tolist()), err_msg=name,
                                   **TOLERANCE.get(name.removeprefix("_foreach_").rstrip("_"), dict(rtol=2e-6, atol=2e-6)))


@pytest.mark.parametrize("value", [[0.5, -1.0, 2.0], "tensor"])
def test_foreach_addcdiv_scalar_list_and_tensor_of_scalars(value):
    rng = np.random.default_rng(0)
    a, t1, t2 = lists(rng, "addcdiv", 3, True)
    results = []
    for T in (torch, webtorch):
        v = T.tensor([0.5, -1.0, 2.0]) if value == "tensor" else value
        results.append(as_lists(T._foreach_addcdiv(*build(T, "cpu", [a, t1, t2]), v)))
    for a, e in zip(*results):
        np.testing.assert_allclose(a, e, rtol=1e-6)


def test_foreach_scalar_base_pow_and_shared_tensor_operand():
    for T in (torch, webtorch):
        xs = [T.tensor([1.0, 2.0]), T.tensor([[0.5]])]
        assert [t.tolist() for t in T._foreach_pow(2.0, xs)] == [[2.0, 4.0], [[torch.tensor(2.0 ** 0.5).item()]]]
        assert [t.tolist() for t in T._foreach_mul(xs, T.tensor(3.0))] == [[3.0, 6.0], [[1.5]]]


def test_foreach_gradients_flow_like_the_per_tensor_op():
    grads = []
    for T in (torch, webtorch):
        xs = [T.tensor([1.0, 2.0], requires_grad=True), T.tensor([[3.0]], requires_grad=True)]
        sum(t.sum() for t in T._foreach_mul(T._foreach_exp(xs), [2.0, 3.0])).backward()
        grads.append([x.grad.tolist() for x in xs])
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-6)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-6)


@pytest.mark.parametrize("call, error", [
    (lambda T, xs: T._foreach_add(xs, [xs[0]]), RuntimeError),
    (lambda T, xs: T._foreach_add(xs, [1.0]), RuntimeError),
    (lambda T, xs: T._foreach_add([], 1.0), RuntimeError),
    (lambda T, xs: T._foreach_add(3, 1.0), TypeError),
])
def test_foreach_errors_like_torch(call, error):
    for T in (torch, webtorch):
        with pytest.raises(error):
            call(T, [T.ones(2), T.ones(3)])
