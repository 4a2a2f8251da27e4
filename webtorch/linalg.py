"""torch.linalg: norms, and the decompositions as loops over rows or columns of ordinary tensor ops
(a loop of n steps for an n x n matrix, each a few batched kernels), so they run on every device,
batch over leading dims and are differentiable through the ops they are made of. They suit the
small matrices of distributions and models; n steps of Python per call make large n slow.
"""
from collections import namedtuple

from . import _math_ops, _ops
from ._math_ops import vector_norm  # noqa: F401
from ._ops import cat, narrow, squeeze, stack, unsqueeze


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix without the property the routine needs."""


def norm(x, ord=None, dim=None, keepdim=False, dtype=None):
    if ord is not None and not isinstance(ord, (int, float)):
        raise NotImplementedError(f"webtorch: linalg.norm ord={ord!r} is not supported")
    return vector_norm(x, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def cross(a, b, *, dim=-1):
    if a.dim() != b.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    return _math_ops.cross(a, b, dim)


def _check_square(a, name):
    if a.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_ops._tname(a.dtype).capitalize()}")


def _entry(a, i, j):
    return a[..., i, j]


_CholeskyEx = namedtuple("cholesky_ex", ["L", "info"])


def cholesky_ex(A, *, upper=False, check_errors=False):
    """L with A = L Lᴴ, column by column (Cholesky–Crout), from A's lower triangle; info > 0 where a
    leading minor is not positive-definite (its order)."""
    _check_square(A, "linalg.cholesky")
    n = A.shape[-1]
    # Values from A's lower triangle, gradient symmetric (as torch's: A is taken to be Hermitian).
    lower = _ops.add(A.tril(), A.tril(-1).mT)
    sym = _ops.mul(_ops.add(A, A.mT), 0.5)
    A = _ops.add(sym, _ops.sub(lower, sym).detach())
    cols = []
    for j in range(n):
        if j:
            done = stack(cols, -1)  # (..., n, j): the columns so far
            row = done[..., j, :]
            d = _ops.sqrt(_ops.sub(_entry(A, j, j), _ops.sum(_ops.mul(row, row), -1)))
            below = _ops.sub(A[..., j + 1:, j], squeeze(_ops.matmul(done[..., j + 1:, :], unsqueeze(row, -1)), -1))
        else:
            d = _ops.sqrt(_entry(A, 0, 0))
            below = A[..., 1:, 0]
        d1 = unsqueeze(d, -1)
        cols.append(cat([_ops.zeros(*A.shape[:-2], j, dtype=A.dtype, device=A.device), d1, _ops.div(below, d1)], -1))
    L = stack(cols, -1) if n else _ops.zeros(A.shape, dtype=A.dtype, device=A.device)
    diag = L.diagonal(0, -2, -1)
    bad = _ops.logical_not(_ops.gt(diag, 0))  # NaN from sqrt of a negative, or 0
    order = _ops.arange(1, n + 1, device=A.device)
    info = _ops.amin(_ops.where(bad, order, n + 1), -1) if n else _ops.zeros(A.shape[:-2], dtype=_ops.dt.int32)
    info = _ops.cast(_ops.where(_ops.eq(info, n + 1), 0, info), _ops.dt.int32)
    if check_errors:
        _raise_info(info, "linalg.cholesky")
    return _CholeskyEx(L.mT if upper else L, info)


def _raise_info(info, name):
    first = _ops.amax(info).item() if info.numel() else 0
    if first:
        raise LinAlgError(f"{name}: The factorization could not be completed because the input is not "
                          f"positive-definite (the leading minor of order {first} is not positive-definite).")


def cholesky(A, *, upper=False):
    L, info = cholesky_ex(A, upper=upper)
    _raise_info(info, "linalg.cholesky")
    return L


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """X with A X = B (left) or X A = B, A triangular: substitution one row of X at a time."""
    if not left:  # X A = B  <=>  Aᵀ Xᵀ = Bᵀ
        return solve_triangular(A.mT, B.mT, upper=not upper, unitriangular=unitriangular).mT
    if A.dim() < 2 or B.dim() < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor A must have at least 2 dimensions.")
    n = A.shape[-1]
    batch = _ops.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A = _ops.expand(A, *batch, n, n)
    B = _ops.expand(B, *batch, *B.shape[-2:])
    rows = [None] * n
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:
        known = [k for k in (range(i + 1, n) if upper else range(i))]
        r = B[..., i, :]
        if known:
            coeffs = A[..., i, known[0]:known[-1] + 1]  # (..., m)
            xs = stack([rows[k] for k in known], -2)  # (..., m, k)
            r = _ops.sub(r, squeeze(_ops.matmul(unsqueeze(coeffs, -2), xs), -2))
        rows[i] = r if unitriangular else _ops.div(r, unsqueeze(_entry(A, i, i), -1))
    return stack(rows, -2) if n else _ops.clone(B)
