"""torch.testing.assert_close / assert_allclose against torch 2.13: each case passes or fails alike, with
the same exception type and message (default tolerances per dtype, equal_nan, check_dtype, shapes,
nested containers, msg), on webgpu and cpu."""
import os
import warnings

import numpy as np
import pytest
import torch

import webtorch

DEVICES = [d for d in os.environ.get("WEBTORCH_TEST_DEVICES", "webgpu,cpu").split(",") if d]

CASES = {  # name -> T, device -> (actual, expected, keyword arguments)
    "equal": lambda T, d: (T.tensor([1.0, 2.0], device=d), T.tensor([1.0, 2.0], device=d), {}),
    "float32 within default": lambda T, d: (T.tensor([1.0, 2.0], device=d), T.tensor([1.0, 2.0000021], device=d), {}),
    "float32 beyond default": lambda T, d: (T.tensor([1.0, 2.0, 3.0], device=d), T.tensor([1.0, 2.5, 3.1], device=d),
                                            {}),
    "float64 default": lambda T, d: (T.tensor([1.0, 2.0], dtype=T.float64),  # webgpu keeps float64 as float32
                                     T.tensor([1.0, 2.000001], dtype=T.float64), {}),
    "float16 default": lambda T, d: (T.tensor([1.0, 2.0], dtype=T.float16, device=d),
                                     T.tensor([1.0, 2.001], dtype=T.float16, device=d), {}),
    "int exact": lambda T, d: (T.tensor([[1, 2], [3, 4]], device=d), T.tensor([[1, 2], [3, 7]], device=d), {}),
    "uint8 no wrap": lambda T, d: (T.tensor([1, 200], dtype=T.uint8, device=d),
                                   T.tensor([3, 100], dtype=T.uint8, device=d), {}),
    "rtol atol given": lambda T, d: (T.tensor([1.0, 2.0], device=d), T.tensor([1.0, 2.1], device=d),
                                     dict(rtol=0.1, atol=0.0)),
    "zero tolerances": lambda T, d: (T.tensor([1.0, 2.0], device=d), T.tensor([1.0, 2.1], device=d),
                                     dict(rtol=0, atol=0)),
    "only rtol": lambda T, d: (T.tensor([1.0], device=d), T.tensor([1.0], device=d), dict(rtol=0.1)),
    "only atol": lambda T, d: (T.tensor([1.0], device=d), T.tensor([1.0], device=d), dict(atol=0.1)),
    "nan": lambda T, d: (T.tensor([1.0, float("nan")], device=d), T.tensor([1.0, float("nan")], device=d), {}),
    "nan equal_nan": lambda T, d: (T.tensor([1.0, float("nan")], device=d), T.tensor([1.0, float("nan")], device=d),
                                   dict(equal_nan=True)),
    "inf": lambda T, d: (T.tensor([float("inf")], device=d), T.tensor([float("inf")], device=d), {}),
    "shape": lambda T, d: (T.zeros(2, 3, device=d), T.zeros(3, 2, device=d), {}),
    "dtype": lambda T, d: (T.zeros(2, device=d), T.zeros(2, dtype=T.int64, device=d), {}),
    "dtype unchecked": lambda T, d: (T.tensor([1.0, 2.0], device=d), T.tensor([1, 3], device=d),
                                     dict(check_dtype=False)),
    "0-d": lambda T, d: (T.tensor(1.0, device=d), T.tensor(1.5, device=d), {}),
    "0-d zero expected": lambda T, d: (T.tensor(1.0, device=d), T.tensor(0.0, device=d), {}),
    "stride": lambda T, d: (T.zeros(2, 3, device=d).t(), T.zeros(3, 2, device=d), dict(check_stride=True)),
    "msg string": lambda T, d: (T.tensor([1.0], device=d), T.tensor([2.0], device=d), dict(msg="custom")),
    "msg callable": lambda T, d: (T.tensor([1.0], device=d), T.tensor([2.0], device=d),
                                  dict(msg=lambda m: f"Header\n\n{m}\n\nFooter")),
    "python numbers": lambda T, d: (1.0, 1.0 + 1e-8, {}),
    "python numbers far": lambda T, d: (1.0, 1.5, {}),
    "int vs float": lambda T, d: (1, 1.0, {}),
    "int vs float unchecked": lambda T, d: (1, 1.0, dict(check_dtype=False)),
    "bools": lambda T, d: (True, False, {}),
    "none": lambda T, d: (None, 0, {}),
    "numpy arrays": lambda T, d: (np.array([1.0, 2.0]), np.array([1.0, 2.5]), {}),
    "tensor vs list": lambda T, d: (T.tensor([1.0], device=d), [1.0], {}),
    "nested": lambda T, d: ({"a": [T.ones(2, device=d), 3], "b": T.zeros(1, device=d)},
                            {"a": [T.ones(2, device=d), 3], "b": T.ones(1, device=d)}, {}),
    "nested length": lambda T, d: ([T.ones(1, device=d)], [T.ones(1, device=d)] * 2, {}),
    "nested keys": lambda T, d: ({"a": 1, "b": 2}, {"a": 1, "c": 2}, {}),
}


def _outcome(T, fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as e:  # noqa: BLE001 - compared
        return type(e).__name__, str(e).replace("webtorch._tensor.Tensor", "torch.Tensor").replace("webtorch.", "torch.")
    return "ok", ""


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(CASES))
def test_assert_close_like_torch(name, device):
    a, e, kwargs = CASES[name](torch, "cpu")
    want = _outcome(torch, lambda: torch.testing.assert_close(a, e, **kwargs))
    a, e, kwargs = CASES[name](webtorch, device)
    got = _outcome(webtorch, lambda: webtorch.testing.assert_close(a, e, **kwargs))
    assert got == want


@pytest.mark.parametrize("name", ["float32 beyond default", "float64 default", "int exact", "python numbers far",
                                  "0-d", "nan", "nan equal_nan"])
def test_assert_allclose_like_torch(name):
    a, e, kwargs = CASES[name](torch, "cpu")
    want = _outcome(torch, lambda: torch.testing.assert_allclose(a, e, **kwargs))
    a, e, kwargs = CASES[name](webtorch, "cpu")
    got = _outcome(webtorch, lambda: webtorch.testing.assert_allclose(a, e, **kwargs))
    assert got == want
    with pytest.warns(FutureWarning):
        webtorch.testing.assert_allclose(1.0, 1.0)
