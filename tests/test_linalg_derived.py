"""torch.linalg's routines derived from the factorizations (webtorch/linalg.py: matmul, diagonal, vecdot, inv_ex,
solve_ex, pinv, matrix_rank, cond, vander, tensorinv, tensorsolve, householder_product) against torch 2.13: values
against torch's float64 result on the same inputs (float32 and float64 on cpu, float32 on webgpu), integer results
(info, rank) exactly, dtypes and shapes as torch's on the input's own dtype; gradients in float64 against torch's;
errors with torch's types and messages."""
import math
import os

import numpy as np
import pytest
import torch

import webtorch

DEVICES = [d for d in os.environ.get("WEBTORCH_TEST_DEVICES", "webgpu,cpu").split(",") if d]


def rand(*shape):
    return lambda rng: rng.standard_normal(shape)


def well_conditioned(*shape):  # random plus a dominant diagonal: an invertible square matrix
    return lambda rng: rng.standard_normal(shape) + 4 * np.eye(shape[-1])


def singular(rng):  # a batch of 3: a repeated row, a zero column, and an invertible one (exact in float32)
    a = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])
    b = np.array([[1.0, 0, 2], [3, 0, 1], [2, 0, 5]])
    return np.stack([a, b, np.eye(3) * 2])


def zero_columns(rng):  # rank 2 of 4 columns: exact zeros, a rank under the default tolerance in any dtype
    a = rng.standard_normal((2, 5, 4))
    a[..., 1] = 0
    a[..., 3] = 0
    return a


def low_rank(rng):  # rank 2 products (the zero singular values are rounding: rtol given)
    return rng.standard_normal((3, 5, 2)) @ rng.standard_normal((3, 2, 4))


def symmetric(rng):
    a = rng.standard_normal((2, 4, 4))
    return a + np.swapaxes(a, -1, -2)


def reflectors(rng):  # geqrf-like input: A (2, 5, 3) and tau in [1, 2] (H_i's of LAPACK's range)
    return rng.standard_normal((2, 5, 3))


def tau(*shape):
    return lambda rng: 1 + rng.random(shape)


L = "linalg"
# name: (fn(T, *inputs), input makers, gradient?). Inputs are float arrays; each case runs on every dtype/device.
CASES = {
    "matmul": (lambda T, a, b: T.linalg.matmul(a, b), [rand(2, 3, 4), rand(4, 5)], True),
    "matmul-vector": (lambda T, a, b: T.linalg.matmul(a, b), [rand(3, 4), rand(4)], True),
    "diagonal": (lambda T, a: (T.linalg.diagonal(a), T.linalg.diagonal(a, offset=1, dim1=0, dim2=2),
                               T.linalg.diagonal(a, offset=-1)), [rand(3, 4, 5)], True),
    "vecdot": (lambda T, x, y: (T.linalg.vecdot(x, y), T.linalg.vecdot(x, y[:1], dim=0)),
               [rand(3, 4), rand(2, 1, 4)], True),
    "inv_ex": (lambda T, a: T.linalg.inv_ex(a), [well_conditioned(2, 4, 4)], True),
    "inv_ex-singular-info": (lambda T, a: T.linalg.inv_ex(a).info, [singular], False),
    "solve_ex": (lambda T, a, b: (T.linalg.solve_ex(a, b), T.linalg.solve_ex(a[0], b[0, 0, :, 0]),
                                  T.linalg.solve_ex(a, b.mT, left=False)), [well_conditioned(2, 3, 3), rand(4, 2, 3, 3)],
                 True),
    "solve_ex-singular-info": (lambda T, a, b: (T.linalg.solve_ex(a, b).info, T.linalg.solve_ex(a[:2], b[:, :2]).info),
                               [singular, rand(2, 3, 3, 1)], False),
    "pinv": (lambda T, a, b: (T.linalg.pinv(a), T.pinverse(b), T.linalg.pinv(a[..., :1])),  # (a column: no rotation)
             [rand(2, 4, 3), rand(3, 5)], True),
    "pinv-hermitian": (lambda T, s: T.linalg.pinv(s, hermitian=True), [symmetric], True),
    "pinv-rank-deficient": (lambda T, a, b: (T.linalg.pinv(a), T.linalg.pinv(b, rtol=1e-4),
                                             T.linalg.pinv(b, atol=T.tensor([1e-3, 1e-3, 50.0], dtype=b.dtype,
                                                                              device=b.device))),
                            [zero_columns, low_rank], False),
    "pinv-empty": (lambda T, a: T.linalg.pinv(a), [rand(2, 0, 3)], False),
    "matrix_rank": (lambda T, a, b, s: (
        T.linalg.matrix_rank(a), T.linalg.matrix_rank(b, 1e-3),
        T.linalg.matrix_rank(s, hermitian=True, atol=T.tensor([0.1, 50.0], dtype=s.dtype, device=s.device)),
        T.linalg.matrix_rank(a[:, :0])), [zero_columns, low_rank, symmetric], False),
    "cond": (lambda T, a: tuple(T.linalg.cond(a, p) for p in (None, -2)), [well_conditioned(2, 3, 3)], True),
    # (no gradient: torch's own backward fails there, its inverse having been overwritten in place)
    "cond-norms": (lambda T, a: tuple(T.linalg.cond(a, p) for p in (1, -math.inf, "fro", "nuc")),
                   [well_conditioned(2, 3, 3)], False),
    "cond-singular": (lambda T, a: tuple(T.linalg.cond(a[:2], p) for p in (1, -math.inf, "fro")), [singular], False),
    "cond-empty": (lambda T, a: (T.linalg.cond(a), T.linalg.cond(a, 1)), [rand(2, 0, 0)], False),
    "vander": (lambda T, x: (T.linalg.vander(x), T.linalg.vander(x, N=5), T.linalg.vander(x[0, 0], N=3),
                               T.linalg.vander((x * 3).to(T.int32), N=4)),
               [rand(2, 3)], True),
    "tensorinv": (lambda T, a: (T.linalg.tensorinv(a.reshape(2, 3, 6)), T.linalg.tensorinv(a.reshape(6, 2, 3), ind=1)),
                  [well_conditioned(6, 6)], True),
    "tensorsolve": (lambda T, a, b: (T.linalg.tensorsolve(a.reshape(2, 3, 6), b),
                                     T.linalg.tensorsolve(a.reshape(2, 3, 2, 3), b, dims=(0,))),
                    [well_conditioned(6, 6), rand(2, 3)], True),
    "householder_product": (lambda T, a, t: (T.linalg.householder_product(a, t), T.linalg.householder_product(a, t[:, :2]),
                                             T.linalg.householder_product(a[:, :, :0], t[:, :0])),
                            [reflectors, tau(2, 3)], True),
}
DTYPE_DEVICES = [("float64", "cpu")] + [("float32", d) for d in DEVICES]
# Cases of Jacobi SVDs and eigh (a few hundred kernels each): on cpu only (their webgpu kernels compile for
# seconds on lavapipe); tests/test_opinfo.py runs OpInfo's samples of pinv, matrix_rank and cond on webgpu.
JACOBI = {"pinv", "pinv-hermitian", "pinv-rank-deficient", "matrix_rank", "cond", "cond-norms"}


def _value_params():
    for name in sorted(CASES):
        for dtype, device in DTYPE_DEVICES:
            if device == "cpu" or name not in JACOBI:
                yield name, dtype, device


def _arrays(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    return [make(rng) for make in CASES[name][1]]


def _torch(arrays, dtype, grad=False):
    return [torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=grad) for a in arrays]


def _webtorch(arrays, dtype, device, grad=False):
    return [webtorch.from_numpy(a).to(getattr(webtorch, dtype)).to(device).requires_grad_(grad) for a in arrays]


def _leaves(result):
    if isinstance(result, (tuple, list)):
        for r in result:
            yield from _leaves(r)
    else:
        yield result


def _close(ours, ref, dtype, what):
    """Within a few thousand ulps of the dtype, relative to the reference's largest entry (these are products of
    eliminations and rotations: errors are normwise)."""
    assert tuple(ours.shape) == tuple(ref.shape), what
    got = np.array(ours.detach().cpu().tolist() if hasattr(ours, "cpu") else ours.tolist(), dtype=np.float64)
    want = ref.detach().double().numpy()
    scale = max(1.0, float(np.abs(want[np.isfinite(want)]).max(initial=0)))
    tol = (2e-4 if dtype == "float32" else 1e-10) * scale
    np.testing.assert_allclose(got, want, atol=tol, rtol=0, err_msg=what)


@pytest.mark.parametrize("name,dtype,device", list(_value_params()))
def test_values(name, dtype, device):
    fn, _, _ = CASES[name]
    arrays = _arrays(name)
    reference = list(_leaves(fn(torch, *_torch(arrays, "float64"))))
    same_dtype = list(_leaves(fn(torch, *_torch(arrays, dtype))))
    ours = list(_leaves(fn(webtorch, *_webtorch(arrays, dtype, device))))
    assert len(ours) == len(reference)
    for i, (o, r, s) in enumerate(zip(ours, reference, same_dtype)):
        what = f"{name} result {i}"
        assert str(o.dtype).rsplit(".", 1)[-1] == str(s.dtype).rsplit(".", 1)[-1], what
        assert o.device.type == device, what
        if r.dtype.is_floating_point:
            _close(o, r, dtype, what)
        else:
            assert o.tolist() == s.tolist(), what


@pytest.mark.parametrize("name", sorted(n for n, case in CASES.items() if case[2]))
def test_gradients(name):
    """float64 on cpu: webtorch's gradients of Σ w * result (w fixed random weights) equal torch's."""
    fn, _, _ = CASES[name]
    arrays = _arrays(name)
    grads = []
    for T, inputs in ((torch, _torch(arrays, "float64", True)), (webtorch, _webtorch(arrays, "float64", "cpu", True))):
        rng = np.random.default_rng(7)
        total = 0
        for r in _leaves(fn(T, *inputs)):
            if r.dtype.is_floating_point and r.numel():
                w = T.tensor(rng.standard_normal(tuple(r.shape)).tolist(), dtype=T.float64)
                total = total + (r * w).sum()
        total.backward()
        grads.append([x.grad for x in inputs])
    for i, (ours, theirs) in enumerate(zip(grads[1], grads[0])):
        if theirs is None:
            assert ours is None or not bool((ours != 0).any()), f"{name} input {i}"
        else:
            _close(ours, theirs, "float64", f"{name} gradient of input {i}")


def _raises(T, fn):
    try:
        fn(T)
    except Exception as e:  # noqa: BLE001 (the type is compared)
        return e
    raise AssertionError("no exception")


ERRORS = {
    "inv_ex-non-square": lambda T: T.linalg.inv_ex(T.ones(2, 3)),
    "inv_ex-integer": lambda T: T.linalg.inv_ex(T.ones(3, 3, dtype=T.int64)),
    "inv_ex-check": lambda T: T.linalg.inv_ex(T.tensor([[1.0, 2], [2, 4]]), check_errors=True),
    "inv_ex-check-batch": lambda T: T.linalg.inv_ex(T.stack([T.eye(3), T.zeros(3, 3)]), check_errors=True),
    "solve_ex-check": lambda T: T.linalg.solve_ex(T.zeros(2, 3, 3), T.ones(3), check_errors=True),
    "solve_ex-non-square": lambda T: T.linalg.solve_ex(T.ones(2, 3), T.ones(2)),
    "solve_ex-shapes": lambda T: T.linalg.solve_ex(T.eye(3), T.ones(2, 3)),
    "solve_ex-shapes-right": lambda T: T.linalg.solve_ex(T.eye(3), T.ones(2, 2), left=False),
    "solve_ex-vector-right": lambda T: T.linalg.solve_ex(T.eye(3), T.ones(3), left=False),
    "solve-vector-shape": lambda T: T.linalg.solve(T.eye(3), T.ones(2)),
    "solve_ex-right-vectors": lambda T: T.linalg.solve_ex(T.eye(3).expand(3, 3, 3), T.ones(3, 3), left=False),
    "inv-batch": lambda T: T.linalg.inv(T.stack([T.eye(2), T.tensor([[1.0, 2], [2, 4]])])),
    "vecdot-dtypes": lambda T: T.linalg.vecdot(T.ones(3), T.ones(3, dtype=T.float64)),
    "vecdot-integer": lambda T: T.linalg.vecdot(T.ones(3, dtype=T.int64), T.ones(3, dtype=T.int64)),
    "pinv-vector": lambda T: T.linalg.pinv(T.ones(3)),
    "pinv-integer": lambda T: T.linalg.pinv(T.ones(1, 3, dtype=T.int64)),
    "matrix_rank-vector": lambda T: T.linalg.matrix_rank(T.ones(3)),
    "cond-order": lambda T: T.linalg.cond(T.eye(3), 3),
    "cond-vector": lambda T: T.linalg.cond(T.ones(3)),
    "cond-non-square-1": lambda T: T.linalg.cond(T.ones(2, 3), 1),
    "cond-non-square-inf": lambda T: T.linalg.cond(T.ones(2, 3), -math.inf),
    "cond-non-square-fro": lambda T: T.linalg.cond(T.ones(2, 3), "fro"),
    "vander-bool": lambda T: T.linalg.vander(T.ones(3, dtype=T.bool)),
    "vander-N": lambda T: T.linalg.vander(T.ones(3), N=1),
    "tensorinv-ind": lambda T: T.linalg.tensorinv(T.ones(2, 3, 6), ind=0),
    "tensorinv-shape": lambda T: T.linalg.tensorinv(T.ones(2, 3, 6), ind=1),
    "tensorinv-singular": lambda T: T.linalg.tensorinv(T.zeros(2, 2, 4)),
    "tensorsolve-shape": lambda T: T.linalg.tensorsolve(T.ones(2, 3, 6), T.ones(5)),
    "tensorsolve-singular": lambda T: T.linalg.tensorsolve(T.zeros(6, 2, 3), T.ones(6)),
    "householder-wide": lambda T: T.linalg.householder_product(T.ones(2, 3), T.ones(1)),
    "householder-tau-long": lambda T: T.linalg.householder_product(T.ones(3, 2), T.ones(3)),
    "householder-tau-dims": lambda T: T.linalg.householder_product(T.ones(3, 2), T.ones(1, 1)),
    "householder-batch": lambda T: T.linalg.householder_product(T.ones(2, 3, 2), T.ones(3, 1)),
    "householder-dtype": lambda T: T.linalg.householder_product(T.ones(3, 2), T.ones(1, dtype=T.float64)),
    "householder-vector": lambda T: T.linalg.householder_product(T.ones(3), T.ones(1)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    theirs, ours = _raises(torch, ERRORS[name]), _raises(webtorch, ERRORS[name])
    assert isinstance(ours, type(theirs).__mro__[1] if type(theirs).__name__ == "_LinAlgError" else type(theirs))
    assert isinstance(ours, webtorch.linalg.LinAlgError) == isinstance(theirs, torch.linalg.LinAlgError), name
    assert str(ours) == str(theirs)


def test_ldl_is_refused_with_its_reason():
    with pytest.raises(NotImplementedError, match="sytrf"):
        webtorch.linalg.ldl_factor(webtorch.eye(3))
