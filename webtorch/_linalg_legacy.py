"""torch's linear-algebra names from before torch.linalg (torch.svd, torch.qr, torch.cholesky, ...) and their
Tensor methods, each torch.linalg's routine with the old signature and result: torch.svd returns V (not
Vh), torch.triangular_solve (solution, a clone of A), torch.logdet NaN for a negative determinant."""
from collections import namedtuple

from . import _ops, linalg

_SVD = namedtuple("svd", ["U", "S", "V"])
_QR = namedtuple("qr", ["Q", "R"])
_TriangularSolve = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])


def svd(input, some=True, compute_uv=True):
    """U S V^H = input; some: the reduced U and V. compute_uv=False: U and V zero-filled (m x m, n x n)."""
    if not compute_uv:
        m, n = input.shape[-2:]
        batch = input.shape[:-2]
        zeros = [_ops.zeros(*batch, k, k, dtype=input.dtype, device=input.device) for k in (m, n)]
        return _SVD(zeros[0], linalg.svdvals(input), zeros[1])
    U, S, Vh = linalg.svd(input, full_matrices=not some)
    return _SVD(U, S, Vh.mH)


def qr(input, some=True):
    return _QR(*linalg.qr(input, "reduced" if some else "complete"))


def cholesky(input, upper=False):
    return linalg.cholesky(input, upper=upper)


def cholesky_solve(input, input2, upper=False):
    """X with A X = input, A = L L^H (input2 = L lower) or U^H U (upper): two triangular solves."""
    L = input2.mH if upper else input2
    return linalg.solve_triangular(L.mH, linalg.solve_triangular(L, input, upper=False), upper=True)


def cholesky_inverse(input, upper=False):
    """A^-1 for A = L L^H (or U^H U) given its factor."""
    n = input.shape[-1]
    eye = _ops.expand(_ops.eye(n, dtype=input.dtype, device=input.device), *input.shape[:-2], n, n)
    return cholesky_solve(eye, input, upper)


def logdet(input):
    """log det: -inf for a singular matrix, NaN for a negative determinant."""
    sign, logabsdet = linalg.slogdet(input)
    return _ops.where(_ops.lt(sign, 0), float("nan"), logabsdet)


def pinverse(input, rcond=1e-15):
    """linalg.pinv with the singular values below rcond * the largest counted as 0."""
    return linalg.pinv(input, rcond)


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    """(X, A's clone) with op(A) X = input, op(A) = A or A^T; batch dims broadcast (and so the clone)."""
    batch = _ops.broadcast_shapes(input.shape[:-2], A.shape[:-2])
    solution = linalg.solve_triangular(A.mT if transpose else A, input, upper=upper != transpose,
                                       unitriangular=unitriangular)
    return _TriangularSolve(solution, _ops.clone(_ops.expand(A, *batch, *A.shape[-2:])))


for _name in ("svd qr cholesky cholesky_solve cholesky_inverse logdet pinverse triangular_solve").split():
    setattr(_ops.Tensor, _name, globals()[_name])
_ops.Tensor.matrix_power, _ops.Tensor.matrix_exp = linalg.matrix_power, linalg.matrix_exp
