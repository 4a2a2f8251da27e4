"""Repros of what the fuzzer (tests/fuzz.py) and the OpInfo suite found, each against torch.

A finding in another helper's area is an xfail(strict=True) naming the bug: it starts failing
(XPASS) when the bug is fixed, so that its mark is removed here.
"""
import pytest
import torch

import webtorch


def _ints(T, d):
    return T.tensor([3, -2, 0], device=d)


def _bools(T, d):
    return T.tensor([True, False, True], device=d)


def _floats(T, d):
    return T.tensor([1.5, -2.0, 0.25], device=d)


# (name, fn(T, device), {device: reason it fails} ) - fn's result or exception type must match torch's
FINDINGS = [
    ("bitwise_or-float", lambda T, d: T.bitwise_or(_floats(T, d), 2),
     {}),
    ("relu-bool", lambda T, d: T.relu(_bools(T, d)),
     {}),
    ("sub-bool", lambda T, d: _bools(T, d) - 1,
     {}),
    ("abs-bool", lambda T, d: T.abs(_bools(T, d)),
     {}),
    ("softplus-int", lambda T, d: T.nn.functional.softplus(_ints(T, d)),
     {}),
    ("argmin-bool", lambda T, d: T.argmin(_bools(T, d)),
     {}),
    ("logical_xor-number", lambda T, d: T.logical_xor(_bools(T, d), True),
     {}),
    ("add-int-float-alpha", lambda T, d: T.add(_ints(T, d), 2, alpha=0.5),
     {}),
    ("pow-int-tensor-negative-exponent", lambda T, d: T.pow(T.tensor([1, 1], dtype=T.int32, device=d),
                                                            T.tensor([3, -5], dtype=T.int32, device=d)),
     {}),
    ("expm1-88.5", lambda T, d: T.expm1(T.tensor([88.5, 88.0, -104.0], device=d)),
     {}),
    ("log-subnormal", lambda T, d: T.log(T.tensor([1e-45, 1e-40, 1e-38], device=d)),
     {}),
    # fixed here; kept as repros
    ("narrow-tensor-start", lambda T, d: T.narrow(T.arange(12.0, device=d).reshape(3, 4) * 2, 1,
                                                 T.tensor(1, device=d), 2), {}),
    ("diagonal-tensor-offset", lambda T, d: T.diagonal(T.arange(12.0, device=d).reshape(3, 4) + 1,
                                                      T.tensor(1, device=d)), {}),
    ("var-unbiased-positional", lambda T, d: (T.var(_floats(T, d), False), T.std(_floats(T, d), True)), {}),
    ("tensor_split-0d-sections", lambda T, d: T.tensor_split(T.arange(7.0, device=d), T.tensor(3)), {}),
    ("broadcast_shapes-ints", lambda T, d: tuple(T.broadcast_shapes(3, (2, 1))), {}),
    ("cumprod-grad-zero", lambda T, d: _grad(T, d, lambda x: T.cumprod(x, 0)), {}),
    ("prod-grad-zero", lambda T, d: _grad(T, d, T.prod), {}),
    # the 30-minute fuzz run's WRONG-VALUE on cpu: gelu of a very negative x is +0 in torch (x/2 + x/2 erf,
    # fused), and rsqrt(+0) = inf; webtorch gave -0 and -inf. Signed zeros through elementwise ops:
    # 1/result shows a zero's sign. (Not maximum/minimum of -0 and +0: torch's own answer depends on
    # whether the element falls in its vectorised loop or its scalar tail.)
    ("rsqrt-gelu-log_softmax", lambda T, d: T.rsqrt(T.nn.functional.gelu(
        T.log_softmax(T.tensor([[0.0, -40.0, 3.0]], device=d), -1))), {}),
    ("signed-zeros-unary", lambda T, d: [T.reciprocal(f(T.tensor([-0.0, 0.0, -0.4, -1e-30, -20.0], device=d)))
                                         for f in _SIGNED_ZERO_UNARY(T)], {}),
    ("signed-zeros-binary", lambda T, d: [T.reciprocal(f(T.tensor([-0.0, 0.0, -0.0, 0.0, -0.0], device=d),
                                                         T.tensor([0.0, -0.0, 5.0, -5.0, float("inf")], device=d)))
                                          for f in (T.remainder, T.fmod, T.mul)], {}),
    ("signed-zeros-pow-digamma", lambda T, d: (T.pow(T.tensor([-0.0, -0.0, -0.0, 0.0], device=d),
                                                     T.tensor([0.5, -1.0, -3.0, -2.0], device=d)),
                                               T.digamma(T.tensor([-0.0, 0.0], device=d))), {}),
    # the 30-minute run of the signed-zeros commit (seeds 1000-7204): elu near 0 (e^x - 1 lost it), cpu
    # matmul with 0 * inf (BLAS skips the zero: -inf, torch NaN)
    ("elu-tiny", lambda T, d: T.nn.functional.elu(T.tensor([-1e-30, -1e-7, 1e-30], device=d)) * 1e30, {}),
    ("matmul-zero-times-inf", lambda T, d: T.matmul(T.tensor([[0.0, 1.0], [2.0, 0.0]], device=d),
                                                    T.tensor([[float("inf"), 1.0], [-1.0, 3.0]], device=d)), {}),
]


def _SIGNED_ZERO_UNARY(T):
    F = T.nn.functional
    return (T.sin, T.tan, T.tanh, T.sinh, T.asin, T.atan, T.asinh, T.atanh, T.round, T.floor, T.ceil, T.trunc,
            T.frac, T.relu, F.gelu, T.special.i1, T.sign, T.abs, T.neg)


def test_signed_zeros_pure_python(monkeypatch):
    """The cpu device without numpy (Pyodide) gives the same signed zeros."""
    from webtorch.backend import cpu
    monkeypatch.setattr(cpu, "USE_NUMPY", False)
    for name, fn, _ in FINDINGS:
        if name.startswith(("signed-zeros", "rsqrt-gelu")):
            actual, expected = _plain(fn(webtorch, "cpu")), _plain(fn(torch, "cpu"))
            assert _close(actual, expected), (name, actual, expected)


def _grad(T, d, fn):
    x = T.tensor([2.0, 0.0, 3.0, 0.5], device=d, requires_grad=True)
    (fn(x) * T.tensor([1.0, -1.0, 2.0, 0.5], device=d)[: fn(x).numel()].reshape(fn(x).shape)).sum().backward()
    return x.grad


def _params():
    for name, fn, failing in FINDINGS:
        for device in ("webgpu", "cpu"):
            marks = [pytest.mark.xfail(strict=True, reason=failing[device])] if device in failing else []
            yield pytest.param(fn, device, id="%s-%s" % (name, device), marks=marks)


def _plain(result):
    if isinstance(result, (tuple, list)):
        return [_plain(r) for r in result]
    if hasattr(result, "tolist"):
        return (str(result.dtype).split(".")[-1], tuple(result.shape), result.tolist())
    return result


@pytest.mark.parametrize("fn,device", list(_params()))
def test_finding(fn, device):
    try:
        expected = _plain(fn(torch, "cpu"))
    except Exception as e:  # noqa: BLE001
        with pytest.raises(Exception) as info:
            fn(webtorch, device)
        assert type(info.value) is type(e), "torch raises %s, webtorch %r" % (type(e).__name__, info.value)
        return
    actual = _plain(fn(webtorch, device))
    assert repr(actual) == repr(expected) or _close(actual, expected), (actual, expected)


def _close(a, e):
    if isinstance(e, list) and isinstance(a, list) and len(a) == len(e):
        return all(_close(x, y) for x, y in zip(a, e))
    if isinstance(e, tuple) and len(e) == 3 and isinstance(a, tuple):
        return a[:2] == e[:2] and _close(a[2], e[2])
    if isinstance(e, float) and isinstance(a, float):
        if abs(e) == float("inf") or abs(a) == float("inf"):  # the tolerance below would be inf
            return a == e
        return a == e or abs(a - e) <= 1e-5 + 1.3e-6 * abs(e) or (a != a and e != e)
    return a == e
