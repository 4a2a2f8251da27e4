"""torch.linalg: norms, and the decompositions as loops over rows or columns of ordinary tensor ops
(a loop of n steps for an n x n matrix, each a few batched kernels), so they run on every device,
batch over leading dims and are differentiable through the ops they are made of (eigh by torch's
analytic rule; svd has no gradient). They suit the small matrices of distributions and models:
n steps of Python per call (eigh and svd: 10 Jacobi sweeps of n - 1 rounds) make large n slow.
"""
import functools
import math
from collections import namedtuple

from . import _math_ops, _ops, _shape_ops
from ._autocast import autocast_op
from . import autograd as _autograd
from ._math_ops import vector_norm  # noqa: F401
from ._ops import cat, narrow, squeeze, stack, unsqueeze
from ._shape_ops import tril, triu
from ._tensor import _TYPE_NAMES


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix without the property the routine needs."""


@autocast_op
def norm(x, ord=None, dim=None, keepdim=False, dtype=None):
    if isinstance(ord, str) or (ord is not None and (dim is None and x.dim() == 2 or
                                                     isinstance(dim, (tuple, list)) and len(dim) == 2)):
        return matrix_norm(x, ord, dim if dim is not None else (-2, -1), keepdim, dtype=dtype)
    return vector_norm(x, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


@autocast_op
def cross(a, b, *, dim=-1):
    return _math_ops.cross(a, b, dim)


def _check_square(a, name):
    if a.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")
    if not a.dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_TYPE_NAMES[a.dtype.name]}")


def _entry(a, i, j):
    return a[..., i, j]


_CholeskyEx = namedtuple("cholesky_ex", ["L", "info"])


def _on_empty(out, *inputs):
    """out (computed from no element: the inputs are empty) on the inputs' graph with a zero gradient, as
    torch's outputs of an empty matrix are: + 0 * sum(x), exactly 0, for each input that requires grad."""
    for x in inputs:
        if x.requires_grad:
            out = _ops.add(out, _ops.mul(_ops.sum(x), 0))
    return out


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
    L = stack(cols, -1) if n else _on_empty(_ops.zeros(A.shape, dtype=A.dtype, device=A.device), A)
    diag = L.diagonal(0, -2, -1)
    bad = _ops.logical_not(_ops.gt(diag, 0))  # NaN from sqrt of a negative, or 0
    order = _ops.arange(1, n + 1, device=A.device)
    info = _ops.amin(_ops.where(bad, order, n + 1), -1) if n else _ops.zeros(A.shape[:-2], dtype=_ops.dt.int32,
                                                                                 device=A.device)
    info = _ops.cast(_ops.where(_ops.eq(info, n + 1), 0, info), _ops.dt.int32)
    if check_errors:
        _raise_info(info, "linalg.cholesky")
    return _CholeskyEx(L.mT if upper else L, info)


def _raise_info(info, name):
    first = _ops.amax(info).item() if info.numel() else 0
    if first:
        raise LinAlgError(f"{name}: The factorization could not be completed because the input is not "
                          f"positive-definite (the leading minor of order {first} is not positive-definite).")


@autocast_op
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
    return stack(rows, -2) if n else _on_empty(_ops.clone(B), A)


# -- elimination: solve, inv, det, slogdet ----------------------------------------------------
def _eliminate(A, B=None):
    """Gauss-Jordan with partial pivoting on [A | B], one pivot column per step (batched):
    (A⁻¹B or None, det sign from the row swaps, pivots (..., n))."""
    n = A.shape[-1]
    batch = A.shape[:-2]
    M = A if B is None else cat([A, B], -1)
    width = M.shape[-1]
    rows = _ops.arange(n, device=A.device)
    col_rows = rows.reshape(n, 1)
    swaps = _ops.zeros(batch, dtype=_ops.dt.int64, device=A.device)
    pivots = []
    for j in range(n):
        below = _ops.abs(M[..., j:, j]).detach()
        p = _ops.add(_ops.argmax(below, -1), j)  # (...): the pivot row
        swaps = _ops.add(swaps, _ops.cast(_ops.ne(p, j), _ops.dt.int64))
        p1 = unsqueeze(p, -1)
        perm = _ops.where(_ops.eq(rows, j), p1, _ops.where(_ops.eq(rows, p1), j, rows))  # (..., n)
        M = M.gather(-2, _ops.expand(unsqueeze(perm, -1), *batch, n, width))
        pivot = M[..., j, j]
        pivots.append(pivot)
        safe = _ops.where(_ops.eq(pivot, 0), 1.0, pivot)
        row = _ops.div(M[..., j, :], unsqueeze(safe, -1))
        factor = _ops.where(_ops.eq(col_rows, j), 0.0, M[..., :, j:j + 1])
        M = _ops.sub(M, _ops.mul(factor, unsqueeze(row, -2)))
        M = _ops.where(_ops.eq(col_rows, j), unsqueeze(row, -2), M)
    sign = _ops.sub(1, _ops.mul(_ops.remainder(swaps, 2), 2))
    piv = stack(pivots, -1) if n else A.diagonal(0, -2, -1)  # empty, and on A's graph (det 1, zero gradient)
    return (M[..., n:] if B is not None else None), sign, piv


def _pivot_info(pivots):
    """LAPACK getrf's info from the pivots (..., n) of an elimination: the 1-based index of the first zero pivot
    (a zero on U's diagonal), 0 where there is none; int32 of the batch shape."""
    if not pivots.shape[-1]:
        return _ops.zeros(pivots.shape[:-1], dtype=_ops.dt.int32, device=pivots.device)
    zero = _ops.eq(pivots, 0)
    first = _ops.add(_ops.argmax(_ops.cast(zero, _ops.dt.int32), -1), 1)
    return _ops.cast(_ops.where(_ops.any(zero, -1), first, 0), _ops.dt.int32)


def _raise_singular(info, name, batched):
    """torch's LinAlgError for the first nonzero info of an inversion ("linalg.inv...") or a solve: the batch
    element named where A is a batch."""
    if not info.numel() or not bool(_ops.any(_ops.ne(info, 0)).item()):
        return
    flat = info.reshape(-1)
    element = int(_ops.argmax(_ops.cast(_ops.ne(flat, 0), _ops.dt.int32), -1).item())
    where = f"(Batch element {element}): " if batched else ""
    if "inv" in name:
        raise LinAlgError(f"{name}: {where}The diagonal element {int(flat[element].item())} is zero, the inversion "
                          "could not be completed because the input matrix is singular.")
    raise LinAlgError(f"{name}: {where}The solver failed because the input matrix is singular.")


def _own_batch(t, batch):
    """t (*broadcast, k), computed on a batch broadcast from `batch`: the entries of batch's own elements (one of
    each broadcast copy)."""
    extra = t.dim() - 1 - len(batch)
    if extra:
        t = t[(0,) * extra]
    for d, size in enumerate(batch):
        if size == 1 and t.shape[d] != 1:
            t = narrow(t, d, 0, 1)
    return t


_SolveEx = namedtuple("linalg_solve_ex", ["result", "info"])
_InvEx = namedtuple("linalg_inv_ex", ["inverse", "info"])


def solve_ex(A, B, *, left=True, check_errors=False):
    """X with A X = B (left) or X A = B, and getrf's info of A (nonzero where A is singular; of A's own batch
    shape, as torch's); X's values are undefined where info is nonzero."""
    _check_square(A, "linalg.solve")
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and B.shape == A.shape[:-1])  # (torch's rule, for XA = B too)
    rhs = unsqueeze(B, -1) if vector else B
    n = A.shape[-1]
    if rhs.shape[-2 if left else -1] != n:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation {'AX' if left else 'XA'} = B "
                           f"({n}x{n} and {rhs.shape[-2]}x{rhs.shape[-1]})")
    if not left:  # X A = B  <=>  Aᵀ Xᵀ = Bᵀ
        A, rhs = A.mT, rhs.mT
    batch = _ops.broadcast_shapes(A.shape[:-2], rhs.shape[:-2])
    X, _, pivots = _eliminate(_ops.expand(A, *batch, n, n), _ops.expand(rhs, *batch, *rhs.shape[-2:]))
    info = _pivot_info(_own_batch(pivots, A.shape[:-2]))
    if check_errors:
        _raise_singular(info, "torch.linalg.solve_ex", A.dim() > 2)
    return _SolveEx(squeeze(X, -1) if vector else X if left else X.mT, info)


@autocast_op
def solve(A, B, *, left=True):
    X, info = solve_ex(A, B, left=left)
    _raise_singular(info, "torch.linalg.solve", A.dim() > 2)
    return X


@functools.partial(autocast_op, name="inv")
def inv_ex(A, *, check_errors=False):
    """A⁻¹ and getrf's info (nonzero where A is singular; the inverse's values are undefined there)."""
    _check_square(A, "linalg.inv")
    eye = _ops.expand(_ops.eye(A.shape[-1], dtype=A.dtype, device=A.device), *A.shape)
    X, _, pivots = _eliminate(A, eye)
    info = _pivot_info(pivots)
    if check_errors:
        _raise_singular(info, "linalg.inv_ex", A.dim() > 2)
    return _InvEx(X, info)


@autocast_op
def inv(A):
    X, info = inv_ex(A)
    _raise_singular(info, "linalg.inv", A.dim() > 2)
    return X


@autocast_op
def det(A):
    _check_square(A, "linalg.det")
    _, sign, pivots = _eliminate(A)
    return _ops.mul(_ops.prod(pivots, -1), sign)


_SlogDet = namedtuple("slogdet", ["sign", "logabsdet"])


@autocast_op
def slogdet(A):
    _check_square(A, "linalg.slogdet")
    _, sign, pivots = _eliminate(A)
    s = _ops.mul(_ops.prod(_ops.sign(pivots), -1), sign)
    return _SlogDet(s, _ops.sum(_ops.log(_ops.abs(pivots)), -1))


# -- matrix functions -------------------------------------------------------------------------
def matrix_power(A, n):
    """A^n by repeated squaring (log2 n matmuls); A^0 the identity, A^-n inv(A)^n."""
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.dim() >= 2 else 1} by {A.shape[-1] if A.dim() else 1} matrices")
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:  # the identity, on A's graph with a zero gradient (as torch's); where reads none of A's values
        return _ops.where(False, A, _ops.eye(A.shape[-1], dtype=A.dtype, device=A.device))
    base, result = (inv(A) if n < 0 else A), None
    n = abs(n)
    while True:
        if n & 1:
            result = base if result is None else _ops.matmul(result, base)
        n >>= 1
        if not n:
            return _ops.clone(result) if result is A else result
        base = _ops.matmul(base, base)


def multi_dot(tensors):
    """The product of 2-D matrices (the first may be a row, the last a column vector) in the order of fewest
    multiplications: torch's (two orders compared for 3, the matrix-chain dynamic programme beyond, the first
    best split on ties)."""
    if isinstance(tensors, _ops.Tensor):
        raise TypeError("linalg_multi_dot(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors):
        end = "first" if i == 0 else "last" if i == len(tensors) - 1 else None
        if end and t.dim() not in (1, 2):
            raise RuntimeError(f"multi_dot(): the {end} tensor must be 1D or 2D but got {t.dim()}D")
        if not end and t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_ops._tname(tensors[0].dtype)} and tensor {i} {_ops._tname(t.dtype)}")
    row, column = tensors[0].dim() == 1, tensors[-1].dim() == 1
    mats = [unsqueeze(tensors[0], 0) if row else tensors[0]] + tensors[1:-1] + \
        [unsqueeze(tensors[-1], 1) if column else tensors[-1]]
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            shape = lambda k: list(tensors[k].shape)  # noqa: E731
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {shape(i)} and {shape(i + 1)} "
                               "cannot be multiplied")
    dims = [m.shape[0] for m in mats] + [mats[-1].shape[1]]
    split = _chain_order(dims)

    def product(i, j):
        return mats[i] if i == j else _ops.mm(product(i, split[i][j]), product(split[i][j] + 1, j))
    result = product(0, len(mats) - 1)
    if row:
        result = squeeze(result, 0)
    if column:
        result = squeeze(result, -1)
    return result


def _chain_order(dims):
    """split[i][j]: where the product of matrices i..j (matrix k is dims[k] x dims[k+1]) splits in the order of
    fewest scalar multiplications (torch's matrix_chain_order; for 3 matrices its two costs compared)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    if n == 3:  # torch's own comparison: (AB)C unless A(BC) costs strictly less
        a, b, c, d = dims
        split[0][1], split[1][2], split[0][2] = 0, 1, 0 if a * c * (b + d) > b * d * (a + c) else 1
        return split
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


# torch's matrix exponential (ATen's mexp, after Bader, Blanes and Casas, "Computing the matrix exponential with an
# optimized Taylor polynomial approximation", 2019): Taylor polynomials of degree 1, 2, 4, 8, 12 or 18, each
# evaluated in few products, the degree picked by the 1-norm (the largest within which its error is below the
# dtype's rounding), and beyond degree 12's bound, degree 18 on A / 2^s, squared s times. The same algorithm, not
# merely an accurate one: in float32 its rounding is what torch's results carry.
_EXP_THETAS = {  # the largest 1-norm for degrees 1, 2, 4, 8, 12, 18
    "float32": (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02, 5.800524627688768e-01,
                1.461661507209034e+00, 3.010066362817634e+00),
    "float64": (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04, 4.991228871115323e-02,
                2.996158913811580e-01, 1.090863719290036e+00)}
_SQRT_177 = 0.1330413469565007072504e+2
_T8_X3 = 2.0 / 3.0
_T8 = dict(x1=_T8_X3 * ((1 + _SQRT_177) / 88), x2=_T8_X3 * ((1 + _SQRT_177) / 352),
           x4=(-271 + 29 * _SQRT_177) / (315 * _T8_X3), x5=(-11 + 11 * _SQRT_177) / (1260 * _T8_X3),
           x6=(-99 + 11 * _SQRT_177) / (5040 * _T8_X3), x7=(89 - _SQRT_177) / (5040 * _T8_X3),
           y2=(857 - 58 * _SQRT_177) / 630)
# B_i = sum_j b[i][j] P_j over the powers P = (I, A, A^2, A^3); A6 = B2 + B3^2; T12 = B0 + (B1 + A6) A6
_T12_B = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
          (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989),
          (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230),
          (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359))
# over P = (I, A, A^2, A^3, A^6): A9 = B0 B4 + B3; T18 = B1 + (B2 + A9) A9
_T18_B = ((0.0, -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045924219800e-04, 0.0),
          (0.0, 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
           -6.37898194594723280150e-04),
          (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
           -6.98210122488052056106e-03, 3.34975017086070470649e-05),
          (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
           2.95552570429315521194e-02, -1.39180257516060693404e-05),
          (0.0, 0.0, -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05))


def _combination(coeffs, powers):
    """sum_j coeffs[j] * powers[j], in order, powers[0] the identity (a 2-D eye, broadcast)."""
    out = None
    for c, p in zip(coeffs, powers):
        if c:
            term = _ops.mul(p, float(c))
            out = term if out is None else _ops.add(out, term)
    return out


def _exp_taylor(A, degree):
    """ATen's evaluation of the degree-`degree` Taylor polynomial of exp at A (..., n, n)."""
    mm = _ops.matmul
    eye = _ops.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    if degree == 1:
        return _ops.add(eye, A)
    A2 = mm(A, A)
    if degree == 2:
        return _combination((1.0, 1.0, 0.5), (eye, A, A2))
    if degree == 4:   # I + A + A2 (I/2 + A/6 + A2/24)
        return _ops.add(_combination((1.0, 1.0), (eye, A)), mm(A2, _combination((0.5, 1 / 6, 1 / 24), (eye, A, A2))))
    if degree == 8:
        x = _T8
        A4 = mm(A2, _combination((x["x1"], x["x2"]), (A, A2)))
        A8 = mm(_combination((_T8_X3, 1.0), (A2, A4)), _combination((x["x4"], x["x5"], x["x6"], x["x7"]), (eye, A, A2, A4)))
        return _combination((1.0, 1.0, x["y2"], 1.0), (eye, A, A2, A8))
    A3 = mm(A2, A)
    if degree == 12:
        B = [_combination(row, (eye, A, A2, A3)) for row in _T12_B]
        A6 = _ops.add(B[2], mm(B[3], B[3]))
        return _ops.add(B[0], mm(_ops.add(B[1], A6), A6))
    B = [_combination(row, (eye, A, A2, A3, mm(A3, A3))) for row in _T18_B]
    A9 = _ops.add(B[3], mm(B[0], B[4]))
    return _ops.add(B[1], mm(_ops.add(B[2], A9), A9))


def matrix_exp(A):
    """exp(A), as torch computes it (see _EXP_THETAS): a single matrix by the lowest degree its 1-norm allows; a
    batch by degree 18 with each matrix's own s (norms read back once), the squarings of those that need fewer
    masked off. A matrix with a NaN or infinite 1-norm gives NaN, as torch's."""
    _check_square(A, "linalg.matrix_exp")
    n = A.shape[-1]
    if n == 0:
        return _ops.clone(A)
    if n == 1:
        return _ops.exp(A)
    thetas = _EXP_THETAS["float64" if A.dtype is _ops.dt.float64 else "float32"]
    with _autograd.no_grad():
        norms = _ops.amax(_ops.sum(_ops.abs(A.detach()), -2), -1).reshape(-1).tolist()
    finite = all(math.isfinite(v) for v in norms)
    if len(norms) == 1 and finite and norms[0] < thetas[4]:
        return _exp_taylor(A, next(d for d, t in zip((1, 2, 4, 8, 12), thetas) if norms[0] <= t))
    # s per matrix, from the norm in A's dtype, as torch's ceil(log2(norm / theta))
    steps = [max(0, math.ceil(math.log2(_ops.dt.TO_ELEMENT[A.dtype](v / thetas[5])))) if math.isfinite(v) and v else 0
             for v in norms]
    batch = A.shape[:-2]
    s = _ops.tensor(steps, dtype=A.dtype, device=A.device).reshape(*batch, 1, 1)
    result = _exp_taylor(_ops.div(A, _ops.pow(2.0, s)), 18)
    for i in range(max(steps)):
        squared = _ops.matmul(result, result)
        result = squared if min(steps) > i else _ops.where(_ops.gt(s, i), squared, result)
    if not finite:
        ok = _ops.tensor([math.isfinite(v) for v in norms], device=A.device).reshape(*batch, 1, 1)
        result = _ops.where(ok, result, math.nan)
    return result


# -- orthogonal decompositions ----------------------------------------------------------------
_QR = namedtuple("qr", ["Q", "R"])


@autocast_op
def qr(A, mode="reduced"):
    """Householder reflections with LAPACK's signs (R's diagonal is -sign(a) |x|), so Q and R
    are torch's."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    batch = A.shape[:-2]
    R = A
    Q = _ops.expand(_ops.eye(m, dtype=A.dtype, device=A.device), *batch, m, m)
    rows = _ops.arange(m, device=A.device)
    for j in range(k):
        x = _ops.where(_ops.lt(rows, j), 0.0, R[..., :, j])  # (..., m): the column from row j down
        alpha = R[..., j, j]
        tail = _ops.sum(_ops.square(_ops.where(_ops.gt(rows, j), x, 0.0)), -1)
        norm = _ops.sqrt(_ops.add(tail, _ops.square(alpha)))
        flat = _ops.eq(tail, 0)  # nothing below the diagonal: H = I
        beta = _ops.where(_ops.ge(alpha, 0), _ops.neg(norm), norm)
        safe_beta = _ops.where(flat, 1.0, beta)
        tau = _ops.where(flat, 0.0, _ops.div(_ops.sub(beta, alpha), safe_beta))
        scale = _ops.where(flat, 1.0, _ops.sub(alpha, beta))
        v = _ops.where(_ops.eq(rows, j), 1.0, _ops.div(x, unsqueeze(scale, -1)))  # (..., m)
        tv = _ops.mul(unsqueeze(tau, -1), v)
        R = _ops.sub(R, _ops.mul(unsqueeze(tv, -1), unsqueeze(_ops.matmul(unsqueeze(v, -2), R), -2)[..., 0, :, :]))
        Q = _ops.sub(Q, _ops.mul(_ops.matmul(Q, unsqueeze(v, -1)), unsqueeze(tv, -2)))
    R = R.triu()
    if not k:  # no reflection: Q is the identity, on A's graph all the same (torch's Q of an empty A)
        Q = _on_empty(Q, A)
    if mode == "complete":
        return _QR(Q, R)
    if mode == "r":
        return _QR(_ops.empty(0, dtype=A.dtype, device=A.device), narrow(R, -2, 0, k))
    return _QR(narrow(Q, -1, 0, k), narrow(R, -2, 0, k))


_Lstsq = namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


def lstsq(A, B, rcond=None, *, driver=None):
    """torch.linalg.lstsq as torch's CPU default (gelsy) on a full-rank A: for a tall or square A the
    least-squares X = R^-1 Q^T B of its QR; for a wide A the minimum-norm X = Q R^-T B of A^T's QR. The
    rank comes back, the residuals and singular values empty, as gelsy gives them. A rank-deficient A
    (some |R_ii| <= rcond max |R_jj|) raises NotImplementedError: gelsy's column-pivoted QR is not
    built, and an unpivoted one would give another solution."""
    if driver not in (None, "gelsy"):
        raise NotImplementedError(f"webtorch: linalg.lstsq(driver={driver!r}): only torch's CPU default 'gelsy' is built")
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    vector = B.dim() == A.dim() - 1  # B of shape (*, m): one right-hand side
    if vector:
        B = unsqueeze(B, -1)
    m, n = A.shape[-2], A.shape[-1]
    if B.shape[-2] != m:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2) ({m} vs {B.shape[-2]})")
    batch = _ops.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A, B = _ops.expand(A, *batch, m, n), _ops.expand(B, *batch, m, B.shape[-1])
    tall = m >= n
    Q, R = qr(A if tall else A.mT)
    diagonal = _ops.abs(R.diagonal(0, -2, -1))
    rcond = _ops.dt.finfo(A.dtype).eps * max(m, n) if rcond is None else rcond
    rank = _ops.sum(_ops.gt(diagonal, _ops.mul(_ops.amax(diagonal, -1, keepdim=True), rcond)), -1) if min(m, n) else \
        _ops.zeros(batch, dtype=_ops.dt.int64, device=A.device)
    if min(m, n) and bool(_ops.any(_ops.lt(rank, min(m, n)))):
        raise NotImplementedError("webtorch: linalg.lstsq of a rank-deficient matrix (torch's gelsy solves it with a "
                                  "column-pivoted QR, which is not built)")
    if tall:
        X = solve_triangular(R, _ops.matmul(Q.mT, B), upper=True)
    else:
        X = _ops.matmul(Q, solve_triangular(R.mT, B, upper=False))
    empty = _ops.empty(0, dtype=A.dtype, device=A.device)
    return _Lstsq(squeeze(X, -1) if vector else X, empty, rank, empty)


def _jacobi_pairs(n):
    """Rounds of disjoint index pairs covering every pair once (the round-robin tournament)."""
    players = list(range(n)) + ([None] if n % 2 else [])
    rounds = []
    for _ in range(len(players) - 1):
        pairs = [(players[i], players[-1 - i]) for i in range(len(players) // 2)]
        pairs = [(min(p, q), max(p, q)) for p, q in pairs if p is not None and q is not None]
        if pairs:  # (a single column has no pair: no round)
            rounds.append(pairs)
        players = [players[0], players[-1]] + players[1:-1]
    return rounds


_EigH = namedtuple("eigh", ["eigenvalues", "eigenvectors"])
_JACOBI_SWEEPS = 10


def _jacobi_eigh(S):
    """Cyclic Jacobi on a symmetric S: rotations zero one off-diagonal entry per pair, disjoint
    pairs at once; (eigenvalues unsorted, eigenvectors as columns)."""
    n = S.shape[-1]
    batch = S.shape[:-2]
    V = _ops.expand(_ops.eye(n, dtype=S.dtype, device=S.device), *batch, n, n)
    for _ in range(_JACOBI_SWEEPS):
        for pairs in _jacobi_pairs(n):
            ps, qs = [p for p, _ in pairs], [q for _, q in pairs]
            app = stack([S[..., p, p] for p in ps], -1)
            aqq = stack([S[..., q, q] for q in qs], -1)
            apq = stack([S[..., p, q] for p, q in pairs], -1)
            J = _set_rotations(n, pairs, *_jacobi_rotation(app, aqq, apq), S)
            S = _ops.matmul(_ops.matmul(J.mT, S), J)
            V = _ops.matmul(V, J)
    return S.diagonal(0, -2, -1), V


def _jacobi_rotation(app, aqq, apq):
    """(cos, sin) of the rotation that zeroes apq in [[app, apq], [apq, aqq]] (the smaller angle)."""
    zero = _ops.eq(apq, 0)
    theta = _ops.div(_ops.sub(aqq, app), _ops.mul(_ops.where(zero, 1.0, apq), 2))
    t = _ops.div(_ops.where(_ops.ge(theta, 0), 1.0, -1.0),
                 _ops.add(_ops.abs(theta), _ops.sqrt(_ops.add(_ops.square(theta), 1))))
    t = _ops.where(zero, 0.0, t)
    c = _ops.rsqrt(_ops.add(_ops.square(t), 1))
    return c, _ops.mul(t, c)


def _set_rotations(n, pairs, c, s, like):
    """J (..., n, n): the identity with the rotation of pair k = (p, q) in rows and columns p and q:
    J[p, p] = J[q, q] = c_k, J[p, q] = s_k, J[q, p] = -s_k (c, s: (..., len(pairs))). Built at once: each row's pair
    (rows in none take an appended cos 1), and a constant sign pattern placing its sine."""
    row_pair = [len(pairs)] * n
    sign = [[0.0] * n for _ in range(n)]
    for k, (p, q) in enumerate(pairs):
        row_pair[p] = row_pair[q] = k
        sign[p][q], sign[q][p] = 1.0, -1.0
    batch = like.shape[:-2]
    index = _ops.tensor(row_pair, device=like.device)
    cos = cat([c, _ops.ones(*batch, 1, dtype=like.dtype, device=like.device)], -1).index_select(-1, index)
    sin = cat([s, _ops.zeros(*batch, 1, dtype=like.dtype, device=like.device)], -1).index_select(-1, index)
    sign = _ops.tensor(sign, dtype=like.dtype, device=like.device)
    return _ops.where(_ops.ne(sign, 0), _ops.mul(sign, unsqueeze(sin, -1)), _shape_ops.diag_embed(cos))


@autocast_op
def eigh(A, UPLO="L"):
    """Symmetric eigendecomposition by Jacobi rotations (ascending eigenvalues, as torch); the
    gradient is torch's formula, not the iterations'."""
    _check_square(A, "linalg.eigh")
    lower = A.tril() if UPLO == "L" else A.triu()
    with _autograd.no_grad():
        S = _ops.add(lower, (A.tril(-1) if UPLO == "L" else A.triu(1)).mT).detach()
        values, vectors = _jacobi_eigh(S)
        values, order = values.sort(-1)
        vectors = vectors.gather(-1, _ops.expand(unsqueeze(order, -2), *vectors.shape))
    values = _autograd.record("eigh_values", values, (A,), vectors=vectors)
    vectors = _autograd.record("eigh_vectors", vectors, (A,), values=values.detach())
    return _EigH(values, vectors)


@autocast_op
def eigvalsh(A, UPLO="L"):
    return eigh(A, UPLO).eigenvalues


_SVD = namedtuple("svd", ["U", "S", "Vh"])


@autocast_op
def svd(A, full_matrices=True):
    """One-sided Jacobi: columns rotated pairwise until orthogonal; S descending, as torch.
    Only the reduced form (full_matrices=False) for non-square inputs."""
    m, n = A.shape[-2], A.shape[-1]
    if full_matrices and m != n:
        raise NotImplementedError("webtorch: linalg.svd(full_matrices=True) of a non-square matrix is not "
                                  "supported; pass full_matrices=False")
    if m < n:
        U, S, Vh = svd(A.mT, full_matrices=False)
        return _SVD(Vh.mT, S, U.mT)
    batch = A.shape[:-2]
    with _autograd.no_grad():
        W = A.detach()
        V = _ops.expand(_ops.eye(n, dtype=A.dtype, device=A.device), *batch, n, n)
        for _ in range(_JACOBI_SWEEPS):
            for pairs in _jacobi_pairs(n):
                ap = stack([W[..., :, p] for p, _ in pairs], -1)
                aq = stack([W[..., :, q] for _, q in pairs], -1)
                alpha, beta = _ops.sum(_ops.square(ap), -2), _ops.sum(_ops.square(aq), -2)
                gamma = _ops.sum(_ops.mul(ap, aq), -2)
                J = _set_rotations(n, pairs, *_jacobi_rotation(alpha, beta, gamma), V)
                W = _ops.matmul(W, J)
                V = _ops.matmul(V, J)
        S = _math_ops.vector_norm(W, 2, -2)
        S, order = S.sort(-1, descending=True)
        W = W.gather(-1, _ops.expand(unsqueeze(order, -2), *W.shape))
        V = V.gather(-1, _ops.expand(unsqueeze(order, -2), *V.shape))
        U = _ops.div(W, unsqueeze(_ops.where(_ops.eq(S, 0), 1.0, S), -2))
    if _autograd.is_grad_enabled() and A.requires_grad:
        raise NotImplementedError("webtorch: linalg.svd has no gradient yet (use it under no_grad, or eigh)")
    return _SVD(U, S, V.mT)


@autocast_op
def svdvals(A):
    """The singular values, differentiable by torch's rule (U diag(gS) Vᴴ) where svd is not."""
    with _autograd.no_grad():
        U, S, Vh = svd(A.detach(), full_matrices=False)
    return _autograd.record("svdvals", S, (A,), U=U, Vh=Vh)


@autocast_op
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    if dtype is not None:
        A = _ops.cast(A, dtype)
    d0, d1 = (_ops._wrap_dim(d, A.dim()) for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in (1, -1, float("inf"), float("-inf")):
        sum_dim, pick_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = _ops.sum(_ops.abs(A), sum_dim, keepdim=True)
        out = (_ops.amax if ord > 0 else _ops.amin)(sums, pick_dim, keepdim=True)
        return out if keepdim else squeeze(out, (d0, d1))
    if ord in ("nuc", 2, -2):
        moved = _ops.permute(A, *[d for d in range(A.dim()) if d not in (d0, d1)], d0, d1)
        s = svdvals(moved)
        out = _ops.sum(s, -1) if ord == "nuc" else (s[..., 0] if ord == 2 else s[..., -1])
        if keepdim:
            out = unsqueeze(unsqueeze(out, min(d0, d1)), max(d0, d1))
        return out
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


# -- LU: getrf's partial pivoting, packed factors and 1-based row interchanges -----------------
_LU = namedtuple("lu", ["P", "L", "U"])
_LUFactor = namedtuple("lu_factor", ["LU", "pivots"])
_LUFactorEx = namedtuple("lu_factor_ex", ["LU", "pivots", "info"])


@autocast_op
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """LAPACK getrf on (..., m, n): per column j the row of largest |entry| at or below j is swapped
    up (pivots[j] = its 1-based index), the multipliers below the diagonal are stored in place of the
    eliminated entries. A zero pivot leaves its column (info = its 1-based index, as getrf)."""
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if not pivot:
        raise NotImplementedError("webtorch has no linalg.lu_factor(pivot=False) (LU without pivoting is only "
                                  "on CUDA in torch too)")
    m, n = A.shape[-2:]
    batch = A.shape[:-2]
    rows, cols = _ops.arange(m, device=A.device), _ops.arange(n, device=A.device)
    M, swaps, pivots = A, [], []
    for j in range(min(m, n)):
        p = _ops.add(_ops.argmax(_ops.abs(M[..., j:, j]).detach(), -1), j)  # (...): the pivot row
        swaps.append(p)
        p1 = unsqueeze(p, -1)
        perm = _ops.where(_ops.eq(rows, j), p1, _ops.where(_ops.eq(rows, p1), j, rows))
        M = M.gather(-2, _ops.expand(unsqueeze(perm, -1), *batch, m, n))
        pivot = M[..., j:j + 1, j:j + 1]
        pivots.append(M[..., j, j])
        below = _ops.gt(rows, j).reshape(m, 1)
        multipliers = _ops.where(below, _ops.div(M[..., :, j:j + 1], _ops.where(_ops.eq(pivot, 0), 1.0, pivot)), 0.0)
        M = _ops.sub(M, _ops.mul(multipliers, _ops.where(_ops.gt(cols, j), M[..., j:j + 1, :], 0.0)))
        M = _ops.where(_ops.logical_and(below, _ops.eq(cols, j)), multipliers, M)
    ipiv = _ops.cast(_ops.add(stack(swaps, -1), 1), _ops.dt.int32) if swaps else         _ops.zeros(*batch, 0, dtype=_ops.dt.int32, device=A.device)
    info = _pivot_info(stack(pivots, -1)) if pivots else _ops.zeros(*batch, dtype=_ops.dt.int32, device=A.device)
    if check_errors and bool(_ops.any(_ops.ne(info, 0)).item()):
        raise LinAlgError(f"torch.linalg.lu_factor_ex: U[{int(_ops.amax(info).item())},"
                          f"{int(_ops.amax(info).item())}] is zero and using it on lu_solve would result in a "
                          "division by zero. If you still want to perform the factorization, consider calling "
                          "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return _LUFactorEx(M, ipiv, info)


def lu_factor(A, *, pivot=True):
    LU, pivots, _ = lu_factor_ex(A, pivot=pivot)
    return _LUFactor(LU, pivots)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) with A = P L U from lu_factor's packed factors: the interchanges replayed on
    arange(m) give the row order of Pᵀ A."""
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    batch = LU_data.shape[:-2]
    L = U = P = _ops.empty(0, dtype=LU_data.dtype, device=LU_data.device)
    if unpack_data:
        eye = _ops.eye(m, k, dtype=LU_data.dtype, device=LU_data.device)
        L = _ops.add(tril(LU_data[..., :, :k], -1), eye)
        U = triu(LU_data[..., :k, :])
    if unpack_pivots:
        rows = _ops.arange(m, device=LU_data.device)
        order = _ops.expand(rows, *batch, m)
        for j in range(k):
            p = unsqueeze(_ops.sub(_ops.cast(LU_pivots[..., j], _ops.dt.int64), 1), -1)
            at_j, at_p = order[..., j:j + 1], order.gather(-1, p)
            order = _ops.where(_ops.eq(rows, j), at_p, _ops.where(_ops.eq(rows, p), at_j, order))
        # Pᵀ A = A[order]: P[order[i], i] = 1
        P = _ops.cast(_ops.eq(unsqueeze(rows, -1), unsqueeze(order, -2)), LU_data.dtype)
    return _LU(P, L, U)


def lu(A, *, pivot=True):
    return lu_unpack(*lu_factor(A, pivot=pivot))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with A X = B (left) or X A = B, Aᴴ for adjoint, A = P L U given by lu_factor."""
    if not left:  # X A = B  <=>  Aᵀ Xᵀ = Bᵀ
        return lu_solve(LU, pivots, B.mT, adjoint=not adjoint).mT
    P, L, U = lu_unpack(LU, pivots)
    if adjoint:  # Aᵀ = Uᵀ Lᵀ Pᵀ
        y = solve_triangular(U.mT, B, upper=False)
        return _ops.matmul(P, solve_triangular(L.mT, y, upper=True, unitriangular=True))
    y = solve_triangular(L, _ops.matmul(P.mT, B), upper=False, unitriangular=True)
    return solve_triangular(U, y, upper=True)


def _lu_legacy(A, pivot=True, get_infos=False):
    """torch.lu / Tensor.lu (deprecated in torch for linalg.lu_factor): (LU, pivots[, infos])."""
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


def _lu_solve_legacy(b, LU_data, LU_pivots):
    """torch.lu_solve(b, LU_data, LU_pivots) / Tensor.lu_solve: linalg.lu_solve's argument order."""
    return lu_solve(LU_data, LU_pivots, b)


# -- routines torch derives from the ones above -------------------------------------------------
def matmul(input, other):
    return input.matmul(other)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return A.diagonal(offset, dim1, dim2)


def vecdot(x, y, *, dim=-1):
    """Σ conj(x) y along dim, x and y broadcast."""
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_TYPE_NAMES[x.dtype.name]} and y of type {_TYPE_NAMES[y.dtype.name]} "
                           "instead")
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError("linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           f"{_TYPE_NAMES[x.dtype.name]}")
    return _ops.sum(_ops.mul(x.conj() if x.dtype.is_complex else x, y), dim)


def _check_floating_matrix(A, name):
    if A.dim() < 2 or not (A.dtype.is_floating_point or A.dtype.is_complex) or A.dtype in (_ops.dt.float16,
                                                                                           _ops.dt.bfloat16):
        raise RuntimeError(f"{name}({_TYPE_NAMES[A.dtype.name]}{{{list(A.shape)}}}): expected a tensor with 2 or "
                           "more dimensions of float, double, cfloat or cdouble types")


def _tolerance(A, atol, rtol, largest):
    """torch's cut-off for the singular values (or |eigenvalues|) that count, max(atol, rtol * largest), with its
    defaults: atol 0; rtol max(m, n) eps of A's dtype, unless atol > 0 was given (then 0). atol and rtol are
    numbers or tensors of A's batch shape; largest (..., 1)."""
    def column(t):  # a tensor of the batch shape against largest's (..., 1)
        return unsqueeze(_ops.cast(t, largest.dtype), -1) if isinstance(t, _ops.Tensor) else t
    if rtol is None:
        rtol = _ops.dt.finfo(A.dtype).eps * max(A.shape[-2:])
        if isinstance(atol, _ops.Tensor):
            rtol = _ops.where(_ops.gt(atol, 0), 0.0, rtol)
        elif atol is not None and atol > 0:
            rtol = 0.0
    tol = _ops.mul(largest, column(rtol))
    if atol is None:
        return tol
    return _ops.maximum(tol, column(atol)) if isinstance(atol, _ops.Tensor) else _ops.clamp_min(tol, atol)


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """The Moore-Penrose pseudo-inverse V diag(1/s) Uᴴ over the singular values above torch's tolerance (see
    _tolerance; the deprecated rcond is rtol with atol 0), by the SVD, or by eigh where A is Hermitian. The
    gradient is torch's rule (of a constant rank)."""
    _check_floating_matrix(A, "linalg.pinv")
    if rcond is not None:
        atol, rtol = 0.0, rcond
    if not A.numel():
        return _on_empty(_ops.zeros(*A.shape[:-2], A.shape[-1], A.shape[-2], dtype=A.dtype, device=A.device), A)
    with _autograd.no_grad():
        if hermitian:  # A = U diag(λ) Uᴴ: its singular values are |λ|
            values, U = eigh(A.detach())
            size, V, Uh = _ops.abs(values), U, U.mH
        else:
            U, size, Vh = svd(A.detach(), full_matrices=False)
            values, V, Uh = size, Vh.mH, U.mH
        keep = _ops.gt(size, _tolerance(A, atol, rtol, _ops.amax(size, -1, keepdim=True)))
        inverse = _ops.where(keep, _ops.reciprocal(_ops.where(keep, values, 1.0)), 0.0)
        P = _ops.matmul(_ops.mul(V, unsqueeze(inverse, -2)), Uh)
    return _autograd.record("pinv", P, (A,))


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The number of singular values (|eigenvalues| where hermitian) above torch's tolerance (see _tolerance; the
    deprecated tol is atol with rtol 0)."""
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    if not A.numel():
        return _ops.zeros(A.shape[:-2], dtype=_ops.dt.int64, device=A.device)
    with _autograd.no_grad():
        size = _ops.abs(eigvalsh(A.detach())) if hermitian else svdvals(A.detach())
        return _ops.sum(_ops.gt(size, _tolerance(A, atol, rtol, _ops.amax(size, -1, keepdim=True))), -1)


_COND_ORDERS = (None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc")


@autocast_op
def cond(A, p=None):
    """The condition number: by the singular values for p None (2) and -2 (s_max / s_min, its inverse), else
    matrix_norm(A, p) matrix_norm(A⁻¹, p), inf where A is singular (0 for an empty A, as torch's)."""
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in _COND_ORDERS or isinstance(p, bool):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if not A.numel():
        return _ops.zeros(A.shape[:-2], dtype=A.dtype, device=A.device)
    if p in (None, 2, -2):
        s = svdvals(A)
        largest, smallest = s[..., 0], s[..., -1]
        return _ops.div(smallest, largest) if p == -2 else _ops.div(largest, smallest)
    shown = p if isinstance(p, str) else str(p) if math.isinf(p) else str(int(p))  # torch's "ord=1", "ord=-inf"
    _check_square(A, f"linalg.cond(ord={shown})")
    inverse, info = inv_ex(A)
    inverse = _ops.where(unsqueeze(unsqueeze(_ops.gt(info, 0), -1), -1), math.inf, inverse)
    result = _ops.mul(matrix_norm(A, p), matrix_norm(inverse, p))
    return _math_ops.nan_to_num(result, math.inf, math.inf, -math.inf)  # 0 * inf: inf, as torch's


def vander(x, *, N=None):
    """The Vandermonde matrix of x's last dim: columns x^0 .. x^(N-1), as torch by a cumulative product (integers
    in int64)."""
    if x.dtype is _ops.dt.bool_ or x.dtype in (_ops.dt.float16, _ops.dt.bfloat16):
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got "
                           f"{_TYPE_NAMES[x.dtype.name]}")
    x = unsqueeze(x, -1) if x.dim() == 0 else x
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = _math_ops.cumprod(_ops.expand(unsqueeze(x, -1), *x.shape, n - 1), -1)
    return cat([_ops.ones(*x.shape, 1, dtype=powers.dtype, device=x.device), powers], -1)


@autocast_op
def tensorinv(A, ind=2):
    """The inverse of A read as a matrix of prod(shape[:ind]) rows and prod(shape[ind:]) columns, shaped
    shape[ind:] + shape[:ind]."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = A.shape[:ind], A.shape[ind:]
    if math.prod(cols) != math.prod(rows):
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
                           f"but got {math.prod(cols)} != {math.prod(rows)}")
    inverse, info = inv_ex(A.reshape(math.prod(cols), math.prod(rows)))
    _raise_singular(info, "inv", False)
    return inverse.reshape(*cols, *rows)


@autocast_op
def tensorsolve(A, B, dims=None):
    """X with tensordot(A, X, X.dim()) = B: A (its dims moved to the end) read as a square matrix."""
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        A = _shape_ops.movedim(A, dims, list(range(A.dim() - len(dims), A.dim())))
    shape = A.shape[B.dim():]
    if math.prod(shape) != B.numel():
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {math.prod(shape)} != {B.numel()}")
    return solve(A.reshape(B.numel(), B.numel()), B.reshape(-1)).reshape(shape)


@autocast_op
def householder_product(A, tau):
    """The first n columns of H_1 ... H_k (A m x n, tau k), H_i = I - tau_i v_i v_iᴴ with v_i A's column i below
    the diagonal, 1 on it and 0 above (LAPACK's orgqr): the reflections applied to I's columns, last first."""
    name = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    k = tau.shape[-1] if tau.dim() else 0
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if n < k:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau.dim() != A.dim() - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {A.dim()}")
    if tau.shape[:-1] != A.shape[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{name}: tau dtype {_TYPE_NAMES[tau.dtype.name]} does not match input dtype "
                           f"{_TYPE_NAMES[A.dtype.name]}")
    Q = _ops.expand(_ops.eye(m, n, dtype=A.dtype, device=A.device), *A.shape)
    rows = _ops.arange(m, device=A.device)
    for i in range(k - 1, -1, -1):
        v = _ops.where(_ops.lt(rows, i), 0.0, _ops.where(_ops.eq(rows, i), 1.0, A[..., :, i]))  # (..., m)
        vh_Q = _ops.matmul(unsqueeze(v.conj() if v.dtype.is_complex else v, -2), Q)  # (..., 1, n)
        Q = _ops.sub(Q, _ops.mul(unsqueeze(unsqueeze(tau[..., i], -1), -1), _ops.mul(unsqueeze(v, -1), vh_Q)))
    return Q if k else _on_empty(_ops.clone(Q), A, tau)


_ops.Tensor.det, _ops.Tensor.slogdet, _ops.Tensor.inverse = det, slogdet, inv
_ops.Tensor.lu, _ops.Tensor.lu_solve = _lu_legacy, _lu_solve_legacy
