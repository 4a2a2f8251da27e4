"""More math: the elementwise ops of ops_table's second half, scans (cumsum, cumprod), sorting
(sort, argsort, topk, median), norms and distances, fused multiply-adds (addmm, baddbmm, lerp,
addcmul, addcdiv), nan_to_num.

scan and sort are primitives (backend.scan, backend.sort: a running total and an ordering cannot
be built from elementwise ops and reductions at less than quadratic cost); the rest is derived.
"""
import builtins
import math
from collections import namedtuple

from . import _dtypes as dt
from . import _ops, _tape
from ._autocast import autocast_op
from ._indexing import gather
from ._ops import _binary, _is_tensor, _tname, _unary, _wrap_dim, add, cast, mul, sub, where
from ._shape_ops import diagonal, flip, movedim, triu_indices
from ._tensor import _TYPE_NAMES, Tensor, backend
from .backend import meta

__all__ = ["log1p", "expm1", "exp2", "log2", "log10", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
           "acosh", "atanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "frac", "atan2",
           "arctan2", "hypot", "cumsum", "cumprod", "sort", "argsort", "topk", "median", "norm", "dist", "cdist",
           "outer", "ger", "addmm", "addmv", "baddbmm", "lerp", "addcmul", "addcdiv", "nan_to_num", "msort",
           "aminmax", "logaddexp", "logaddexp2", "rsub", "std_mean", "var_mean", "heaviside", "copysign", "xlogy",
           "sinc", "logit", "isin", "isneginf", "isposinf", "nansum", "nanmean", "kthvalue", "mode", "quantile",
           "nanquantile", "searchsorted", "bucketize", "trace", "kron", "tensordot", "cross", "vander", "diff",
           "histc", "bincount", "unique", "unique_consecutive", "signbit", "erfc", "erfinv", "lgamma", "digamma", "i0",
           "nextafter", "gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift", "cummax", "cummin",
           "logcumsumexp", "count_nonzero", "nanmedian", "addbmm", "addr", "inner", "chain_matmul", "renorm", "cov",
           "corrcoef", "pdist", "histogram", "histogramdd", "deg2rad", "rad2deg", "fmax", "fmin", "float_power",
           "frexp", "ldexp", "positive", "isreal"]


log1p, expm1, exp2, log2, log10 = (_unary(n) for n in ("log1p", "expm1", "exp2", "log2", "log10"))
tan, asin, acos, atan = (_unary(n) for n in ("tan", "asin", "acos", "atan"))
sinh, cosh, asinh, acosh, atanh = (_unary(n) for n in ("sinh", "cosh", "asinh", "acosh", "atanh"))
frac = _unary("frac")
atan2, hypot = _binary("atan2"), _binary("hypot")
signbit = _unary("signbit")
erfc, erfinv, lgamma, digamma, i0 = (_unary(n) for n in ("erfc", "erfinv", "lgamma", "digamma", "i0"))
_i1 = _unary("i1")  # torch.special.i1
log1p, expm1, log2, log10, tan, asin, acos, sinh, cosh, erfinv, atan2 = map(
    autocast_op, (log1p, expm1, log2, log10, tan, asin, acos, sinh, cosh, erfinv, atan2))


def _floating_kernel(kernel_name, *operands):
    """The operands' result dtype, after torch's refusal where it is not floating (a kernel for floats only)."""
    kind = dt.result_type(*operands)
    if not (kind.is_floating_point or kind.is_complex):
        raise NotImplementedError(f"\"{kernel_name}\" not implemented for '{_TYPE_NAMES[kind.name]}'")
    return kind


def nextafter(a, b):
    _floating_kernel("nextafter_cpu", a, b)
    if builtins.any(_is_tensor(t) and t.dtype is dt.float16 for t in (a, b)):
        raise NotImplementedError("webtorch: nextafter for float16 is not supported (float32 steps only)")
    return _ops.elementwise("nextafter", a, b)


def _integer_op(name, kernel_name, a, b):
    _ops.broadcast_shapes(*(t.shape for t in (a, b) if _is_tensor(t)))  # torch checks the shapes first
    kind = dt.result_type(a, b)
    if kind.category != 1:
        raise NotImplementedError(f"\"{kernel_name}_cpu\" not implemented for '{_TYPE_NAMES[kind.name]}'")
    return _ops.elementwise(name, a, b)


def gcd(a, b):
    return _integer_op("gcd", "gcd", a, b)


def lcm(a, b):
    g = gcd(a, b)
    return _ops.abs(mul(_ops.floor_divide(a, where(_ops.eq(g, 0), 1, g)), b))


def bitwise_left_shift(a, b):
    return _integer_op("bitwise_left_shift", "lshift", a, b)


def bitwise_right_shift(a, b):
    return _integer_op("bitwise_right_shift", "rshift", a, b)
arcsin, arccos, arctan, arcsinh, arccosh, arctanh, arctan2 = asin, acos, atan, asinh, acosh, atanh, atan2


# -- along one dim: scan and sort ------------------------------------------------------------
def _last_dim_op(x, dim, run):
    """run(x with dim moved last) -> storages shaped like it; results moved back, contiguous."""
    if x.dim() == 0:
        x, dim = _ops.reshape(x, 1), 0
        return [_ops.reshape(r, ()) for r in _last_dim_op(x, dim, run)]
    d = _wrap_dim(dim, x.dim())
    moved = movedim(x, d, -1)
    results = [Tensor(s, moved.shape) for s in run(moved)]
    if d == x.dim() - 1:
        return results
    return [_ops.contiguous(movedim(r, -1, d)) for r in results]


def _scan(op, x, dim, dtype):
    if dtype is dt.bool_:  # (torch's kernels have no bool accumulation; cumsum_ of a bool tensor asks for one)
        raise NotImplementedError(f"\"cum{op}_out_cpu\" not implemented for 'Bool'")
    if dtype is not None:
        x = cast(x, dtype)
    elif x.dtype.category < 2:
        x = cast(x, dt.int64)
    if x.dtype is dt.int64 and op in ("sum", "prod") and _ops.int64_may_leave_int32((x,), x.shape[dim] if x.dim() else 1, op):
        return _ops.exact_on_host((x,), lambda h: _scan(op, h, dim, None))
    return _last_dim_op(x, dim, lambda m: [backend(m.device.type).scan(op, m)])[0]


@autocast_op
def cumsum(x, dim, dtype=None):
    return _tape.record("cumsum", _scan("sum", x, dim, dtype), (x,), dim=_wrap_dim(dim, max(x.dim(), 1)))


@autocast_op
def cumprod(x, dim, dtype=None):
    return _tape.record("cumprod", _scan("prod", x, dim, dtype), (x,), dim=_wrap_dim(dim, max(x.dim(), 1)))


_CumMax = namedtuple("cummax", ["values", "indices"])
_CumMin = namedtuple("cummin", ["values", "indices"])


def _cum_extreme(op, x, dim):
    """Running max/min (a scan) and the index where it was last reached (ties and NaNs take the
    later index, as torch); the values are gathered at those indices, so they are differentiable."""
    d = _wrap_dim(dim, max(x.dim(), 1))
    with _tape.no_grad():
        src = cast(x, dt.int32) if x.dtype is dt.bool_ else x  # the scans have no bool kernels
        running = _last_dim_op(src, d, lambda m: [backend(m.device.type).scan(op, m)])[0]
        hit = _ops.eq(src, running)
        if x.dtype.is_floating_point:
            hit = _ops.logical_or(hit, _ops.isnan(x))
        n = x.shape[d] if x.dim() else 1
        positions = _ops.arange(n, device=x.device).reshape([n if k == d else 1 for k in range(x.dim())])
        marks = where(hit, positions, 0)
        indices = _last_dim_op(marks, d, lambda m: [backend(m.device.type).scan("max", m)])[0]
    values = gather(x, d, indices) if x.dim() else _ops.clone(x)
    return values, indices


def cummax(x, dim):
    return _CumMax(*_cum_extreme("max", x, dim))


def cummin(x, dim):
    return _CumMin(*_cum_extreme("min", x, dim))


def logcumsumexp(x, dim):
    """A scan whose combine is logaddexp (associative, so the parallel scan applies); its
    gradient is that of log(cumsum(exp(x))): Σ_{j≥i} g_j e^(x_i - out_j)."""
    d = _wrap_dim(dim, max(x.dim(), 1))  # torch checks dim first
    _floating_kernel("logcumsumexp_out_cpu", x)
    out = _last_dim_op(x, d, lambda m: [backend(m.device.type).scan("logaddexp", m)])[0]
    return _tape.record("logcumsumexp", out, (x,), dim=d)


_Sort = namedtuple("sort", ["values", "indices"])
_TopK = namedtuple("topk", ["values", "indices"])
_MEDIAN = {name: namedtuple(name, ["values", "indices"]) for name in ("median", "nanmedian")}


def sort(x, dim=-1, descending=False, stable=False):
    """Always stable (ties keep their order), which PyTorch allows for stable=False too."""
    values, indices = _last_dim_op(x, dim, lambda m: backend(m.device.type).sort(m, descending))
    indices = _ops.indices_into(indices, x.shape[dim] if x.dim() else 1)
    if x.dim():
        _tape.record("sort", values, (x,), dim=_wrap_dim(dim, x.dim()), indices=indices)
    else:
        _tape.record("copy", values, (x,))
    return _Sort(values, indices)


def argsort(x, dim=-1, descending=False, stable=False):
    return sort(x, dim, descending).indices


def msort(x):
    return sort(x, 0).values


# A row longer than two of these goes by chunks of this many elements (_topk_by_chunks) where its k
# candidates per chunk are at most a quarter of the row
TOPK_CHUNK = 1024


def topk(x, k, dim=-1, largest=True, sorted=True):
    _ops.check_dtype("topk", x.dtype)
    d = _wrap_dim(dim, x.dim())
    size = x.shape[d] if x.dim() else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if 0 < k <= TOPK_CHUNK < size // 2 and -(-size // TOPK_CHUNK) * k * 4 <= size and x.dtype.is_floating_point and \
            d == x.dim() - 1 and x._storage.device_type == "webgpu":
        return _TopK(*_topk_by_chunks(x, k, largest))
    values, indices = sort(x, d, descending=largest)
    if x.dim() == 0:
        return _TopK(values, indices)
    # contiguous like torch's: whether .contiguous() or .view of the result aliases it must agree
    return _TopK(_ops.contiguous(_ops.narrow(values, d, 0, k)),
                 _ops.indices_into(_ops.contiguous(_ops.narrow(indices, d, 0, k)), size))


def _topk_by_chunks(x, k, largest):
    """topk over the last dim of a long row: its chunks of TOPK_CHUNK sorted at once (one workgroup each;
    a whole row is one workgroup's bitonic sort, ~150 passes over a 128k vocabulary), then the first k
    of every chunk sorted together. The whole row's stable sort's first k: the candidates lie chunk by
    chunk, each chunk's in its sorted order, so ties still go by index. The padding of the last chunk
    sorts after every element (descending: -inf after any real -inf; ascending: NaN after any real NaN)."""
    n, lead = x.shape[-1], x.shape[:-1]
    chunks = -(-n // TOPK_CHUNK)
    if chunks * TOPK_CHUNK > n:
        fill = _ops.full((*lead, chunks * TOPK_CHUNK - n), -math.inf if largest else math.nan, dtype=x.dtype,
                         device=x.device)
        x = _ops.cat([x, fill], -1)
    values, local = sort(_ops.reshape(x, (*lead, chunks, TOPK_CHUNK)), -1, descending=largest)
    starts = _ops.reshape(_ops.arange(0, chunks * TOPK_CHUNK, TOPK_CHUNK, device=x.device), (chunks, 1))
    candidates = _ops.reshape(add(_ops.narrow(local, -1, 0, k), starts), (*lead, chunks * k))
    values, order = sort(_ops.reshape(_ops.narrow(values, -1, 0, k), (*lead, chunks * k)), -1, descending=largest)
    order = _ops.indices_into(_ops.contiguous(_ops.narrow(order, -1, 0, k)), chunks * k)
    return _ops.contiguous(_ops.narrow(values, -1, 0, k)), _ops.indices_into(gather(candidates, -1, order), n)


def median(x, dim=None, keepdim=False):
    """The lower median; NaN (the first one) if the row has any."""
    return _median("median", x, dim, keepdim)


def nanmedian(x, dim=None, keepdim=False):
    """The lower median of the row's values that are not NaN; NaN if all are."""
    return _median("nanmedian", x, dim, keepdim)


def _median(name, x, dim, keepdim):
    if dim is not None:
        _wrap_dim(dim, x.dim())  # torch checks dim before the dtype
    _ops.check_dtype(name, x.dtype)
    if dim is None:
        if x.numel() == 0:
            return _ops.full((), math.nan, dtype=x.dtype, device=x.device)
        with _tape.no_grad():
            value = _median(name, _ops.reshape(x, -1), 0, False).values
        # as torch: the gradient is shared by every element equal to the median
        return _tape.record("median_all", value, (x,), dims=tuple(range(x.dim())), keepdim=False)
    d = _wrap_dim(dim, x.dim())
    if x.dim() == 0:
        return _MEDIAN[name](*sort(x))
    if x.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    values, indices = sort(x, d)
    n = x.shape[d]
    nans = _ops.sum(_ops.isnan(x), d, keepdim=True)  # NaNs sort last
    if name == "nanmedian":  # the lower median of the n - nans others; the first NaN if there are none
        pos = _ops.clamp_min(_ops.floor_divide(sub(n - 1, nans), 2), 0)
    else:
        pos = where(_ops.gt(nans, 0), sub(n, nans), (n - 1) // 2)
    values, indices = gather(values, d, pos), gather(indices, d, pos)
    if not keepdim:
        values, indices = _ops.squeeze(values, d), _ops.squeeze(indices, d)
    return _MEDIAN[name](values, indices)


# -- norms and distances ---------------------------------------------------------------------
@autocast_op
def vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = cast(x, dtype)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{'Long' if x.dtype is dt.int64 else x.dtype.name.capitalize()}")
    a = _ops.abs(x)
    if ord == math.inf:
        return _ops.amax(a, dim if dim is not None else (), keepdim)
    if ord == -math.inf:
        return _ops.amin(a, dim if dim is not None else (), keepdim)
    if ord == 0:  # the count of non-zeros (NaN counts): torch gives it no gradient (.grad stays None)
        return _ops.sum(_tape.record("count_nonzero", cast(_ops.ne(x, 0), a.dtype), (x,)), dim, keepdim)
    if ord == 1:
        return _ops.sum(a, dim, keepdim)
    # (sum |x|^p)^(1/p) with |x| scaled by its largest value first, so that the powers neither
    # overflow nor underflow; the scale is a constant to autograd (the norm is homogeneous in it).
    # Where the sum or an element is 0 the gradient is 0 (as torch), not 0 * inf.
    dims = _ops._reduce_dims(x, dim)
    with _tape.no_grad():
        m = _ops.amax(a, dims, keepdim=True) if x.numel() else _ops.ones_like(_ops.sum(a, dims, keepdim=True))
        m = where(_ops.logical_or(_ops.eq(m, 0), _ops.isinf(m)), 1.0, m)
    # float16/bfloat16: the sum (up to the element count) and its root in float32, rounded once, as
    # torch's accumulation: a float16 sum of 65505 squares of 1 is inf
    acc = dt.float32 if x.dtype in dt.ROUNDED else None
    if ord == 2:  # (a complex x by its modulus)
        scaled = _ops.div(a if x.dtype.is_complex else x, m)
        total = _ops.sum(mul(scaled, scaled), dims, keepdim, dtype=acc)
    else:
        total = _ops.sum(_ops._zero_safe_pow(_ops.div(a, m), ord), dims, keepdim, dtype=acc)
    out = mul(_ops._zero_safe_pow(total, 1.0 / ord), m if keepdim else _ops.squeeze(m, dims))
    return out if acc is None else cast(out, x.dtype)


@autocast_op
def norm(x, p="fro", dim=None, keepdim=False, dtype=None):
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise NotImplementedError(f"webtorch: norm p={p!r} is not supported")
    return vector_norm(x, p, dim, keepdim, dtype=dtype)


@autocast_op
def dist(a, b, p=2):
    return vector_norm(sub(a, b), p)


@autocast_op
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Euclidean distances of more than 25 rows on either side go through a matmul, as torch's
    default compute_mode does (‖a‖² + ‖b‖² - 2ab, no P×R×M difference tensor)."""
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or compute_mode ==
                         "use_mm_for_euclid_dist_if_necessary" and (x1.shape[-2] > 25 or x2.shape[-2] > 25))
    if not use_mm:
        return vector_norm(sub(_ops.unsqueeze(x1, -2), _ops.unsqueeze(x2, -3)), p, -1)
    sq1 = _ops.sum(mul(x1, x1), -1, keepdim=True)
    sq2 = _ops.sum(mul(x2, x2), -1, keepdim=True)
    squared = add(sub(sq1, mul(_ops.matmul(x1, _ops.transpose(x2, -2, -1)), 2)), _ops.transpose(sq2, -2, -1))
    return _ops.sqrt(_ops.clamp_min(squared, 0))


# -- products and fused forms ----------------------------------------------------------------
def outer(a, b):
    return mul(_ops.unsqueeze(a, 1), _ops.unsqueeze(b, 0))


ger = outer


def _scaled_sum(input, product, beta, alpha):
    dtype = dt.result_type(input, product)  # torch casts beta and alpha to it
    product = product if alpha == 1 else mul(product, _ops._as_scalar_of(dtype, alpha))
    if beta == 0:  # input is ignored, NaN and all (only its shape broadcasts; its gradient is zeros)
        return where(False, input, product)
    return add(input if beta == 1 else mul(input, _ops._as_scalar_of(dtype, beta)), product)


@autocast_op
def addmm(input, mat1, mat2, beta=1, alpha=1):
    return _scaled_sum(input, _ops.mm(mat1, mat2), beta, alpha)


@autocast_op
def addmv(input, mat, vec, beta=1, alpha=1):
    return _scaled_sum(input, _ops.mv(mat, vec), beta, alpha)


@autocast_op
def baddbmm(input, batch1, batch2, beta=1, alpha=1):
    return _scaled_sum(input, _ops.bmm(batch1, batch2), beta, alpha)


@autocast_op
def addbmm(input, batch1, batch2, beta=1, alpha=1):
    """beta * input + alpha * the sum over the batch of batch1[i] @ batch2[i]."""
    if batch1.dim() < 3:  # torch reads batch1's dim 2 first
        raise IndexError(f"Dimension out of range (expected to be in range of [{-batch1.dim()}, {batch1.dim() - 1}], "
                         "but got 2)")
    for name, batch in (("batch1", batch1), ("batch2", batch2)):
        if batch.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    product = _ops.bmm(batch1, batch2)
    return _scaled_sum(input, _ops.sum(product, 0, dtype=product.dtype), beta, alpha)  # (an int sum stays int32)


@autocast_op
def addr(input, vec1, vec2, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2); for bool tensors, input and (vec1 and vec2) or-ed."""
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    dtype = dt.result_type(input, vec1, vec2)
    if dtype.category == 1 and builtins.any(isinstance(s, float) for s in (beta, alpha)):
        raise RuntimeError("For integral input tensors, argument beta must not be a floating point number."
                           if isinstance(beta, float) else
                           "For integral input tensors, argument alpha must not be a floating point number.")
    if dtype is dt.bool_:
        product = _ops.logical_and(outer(vec1, vec2), bool(alpha))
        return _ops.logical_or(product, _ops.logical_and(input, bool(beta)))
    return _scaled_sum(input, outer(vec1, vec2), beta, alpha)


def inner(a, b):
    """The sums of products over the last dims of a and b (a scalar operand multiplies)."""
    if a.dim() == 0 or b.dim() == 0:
        return mul(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(a.shape)} and {list(b.shape)}")
    return tensordot(a, b, ([-1], [-1]))


@autocast_op
def chain_matmul(*matrices):
    """The product of 2-D matrices, left to right (torch.chain_matmul, deprecated for linalg.multi_dot)."""
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for i, m in enumerate(matrices):
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    out = matrices[0] if len(matrices) > 1 else _ops.clone(matrices[0])
    for m in matrices[1:]:
        out = _ops.mm(out, m)
    return out


def renorm(x, p, dim, maxnorm):
    """x with each slice along dim whose p-norm passes maxnorm scaled down to norm maxnorm (torch's
    eps: maxnorm / (norm + 1e-7))."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if x.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {x.dim()} dimensions")
    d = _wrap_dim(dim, x.dim())
    norm = vector_norm(x, p, [i for i in range(x.dim()) if i != d], keepdim=True)
    factor = where(_ops.gt(norm, maxnorm), _ops.div(maxnorm, add(norm, 1e-7)), 1.0)
    return mul(x, cast(factor, x.dtype))


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance of input's rows (variables) over its columns (observations), ATen's Correlation.cpp:
    a weighted mean, then mm of the centred rows, divided by the weights' sum less the correction."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    if input.dtype is dt.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input if input.dim() == 2 else _ops.reshape(input, 1, -1)
    n = x.shape[1]
    w = None
    for name, weights, category, kind in (("fweights", fweights, 1, "integral"),
                                           ("aweights", aweights, 2, "floating point")):
        if weights is None:
            continue
        if weights.dim() > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                               f"{weights.dim()} dimensions")
        if weights.dtype.category != category or weights.dtype is dt.bool_:
            raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                               f"{_TYPE_NAMES[weights.dtype.name].capitalize()} dtype")
        if weights.numel() != n:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the "
                               f"input but got {weights.numel()} != {n}")
        if n and bool(_ops.lt(_ops.min(weights), 0)):
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = weights if w is None else mul(w, weights)
    w_sum = _ops.sum(w) if w is not None else _ops.tensor(n, dtype=dt.int64, device=x.device)
    if w is not None and not bool(_ops.ne(w_sum, 0)):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = _ops.div(_ops.sum(x if w is None else mul(x, w), 1), w_sum)
    if w is not None and aweights is not None and correction != 0:
        norm_factor = sub(w_sum, _ops.div(mul(_ops.sum(mul(w, aweights)), correction), w_sum))
    else:
        norm_factor = sub(w_sum, correction)
    if bool(_ops.le(norm_factor, 0)):
        import warnings
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.")
        norm_factor = mul(norm_factor, 0)
    x = sub(x, _ops.unsqueeze(avg, 1))
    c = _ops.mm(x, _ops.transpose(x if w is None else mul(x, w), 0, 1))
    return _ops.squeeze(_ops.div(c, norm_factor))


def corrcoef(input):
    """Pearson's correlation coefficients of input's rows: cov scaled by the rows' deviations, clipped to [-1, 1]."""
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:
        return _ops.div(c, c)
    stddev = _ops.sqrt(diagonal(c))
    c = _ops.div(_ops.div(c, _ops.reshape(stddev, -1, 1)), _ops.reshape(stddev, 1, -1))
    return _ops.clamp(c, -1, 1)


def pdist(input, p=2):
    """The p-norm distances between each pair of input's rows i < j, in row-major order."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if input.dtype.category != 2:
        raise RuntimeError(f"pdist only supports floating-point dtypes")
    rows, cols = triu_indices(input.shape[0], input.shape[0], 1, device=input.device)
    return vector_norm(sub(input.index_select(0, rows), input.index_select(0, cols)), p, -1)


def lerp(start, end, weight):
    """PyTorch's two-sided formula, each side one fused multiply-add (torch's kernels): exact at weight
    0 and 1, and no overflow of weight * (end - start) where the result is finite."""
    tensor_weight = _is_tensor(weight)
    for name, t in (("end", end), ("weight", weight)):  # torch checks the dtypes before the kernel's
        if _is_tensor(t) and t.dtype is not start.dtype:
            raise RuntimeError(f"expected dtype {_tname(start.dtype)} for `{name}` but got dtype {_tname(t.dtype)}")
    if not start.dtype.is_floating_point:
        raise NotImplementedError(f'"lerp_kernel_{"tensor" if tensor_weight else "scalar"}" not implemented for '
                                  f"'{_TYPE_NAMES[start.dtype.name]}'")
    diff = sub(end, start)
    small = _ops.lt(_ops.abs(weight) if _is_tensor(weight) else builtins.abs(weight), 0.5)
    return where(small, _ops.elementwise("addcmul", start, weight, diff),
                 _ops.elementwise("addcmul", end, _ops.neg(diff), sub(1, weight)))


@autocast_op
def addcmul(input, tensor1, tensor2, value=1):
    """input + (value tensor1) tensor2, the last step one fused multiply-add (torch's kernel)."""
    dtype = dt.result_type(input, tensor1, tensor2)  # value takes no part (torch casts it to this dtype)
    if dtype is dt.bool_:
        raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
    scaled = tensor1 if value == 1 else mul(cast(tensor1, dtype), _ops._as_scalar_of(dtype, value))
    return _ops.elementwise("addcmul", input, scaled, tensor2)


@autocast_op
def addcdiv(input, tensor1, tensor2, value=1):
    """input + (value tensor1) / tensor2, each step rounded (torch's kernel)."""
    if not builtins.any(t.dtype.is_floating_point or t.dtype.is_complex for t in (tensor1, tensor2)):
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                           "will perform a true division of tensor1 and tensor2.")
    return add(input, _ops.div(tensor1 if value == 1 else mul(tensor1, value), tensor2))


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    if not x.dtype.is_floating_point:
        return _ops.clone(x)
    big = dt.finfo(x.dtype).max
    out = where(_ops.isnan(x), nan, x)
    out = where(_ops.eq(x, math.inf), big if posinf is None else posinf, out)
    return where(_ops.eq(x, -math.inf), -big if neginf is None else neginf, out)


# -- derived elementwise math ----------------------------------------------------------------
_AMinMax = namedtuple("aminmax", ["min", "max"])


def aminmax(x, *, dim=None, keepdim=False):
    d = () if dim is None else dim
    return _AMinMax(_ops.amin(x, d, keepdim), _ops.amax(x, d, keepdim))


def logaddexp(a, b):
    """max + log1p(e^-|a-b|); equal infinities give themselves."""
    _floating_kernel("logaddexp_cpu", a, b)
    return _ops.elementwise("logaddexp", a, b)


def logaddexp2(a, b):
    kind = _floating_kernel("logaddexp2_cpu", a, b)
    a, b = (cast(t, kind) if _is_tensor(t) else t for t in (a, b))  # a bool operand: no bool subtraction
    m = _ops.maximum(a, b)
    tail = mul(log1p(exp2(_ops.neg(_ops.abs(sub(a, b))))), 1.4426950408889634)  # log2(1 + 2^-|a-b|)
    return where(_ops.logical_and(_ops.isinf(m), _ops.eq(a, b)), m, add(m, tail))


def rsub(x, other, alpha=1):
    return sub(other, x, alpha=alpha)


@autocast_op
def var_mean(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dim, unbiased = _ops._var_args(dim, unbiased)
    return _ops.var(x, dim, unbiased, keepdim, correction=correction), _ops.mean(x, dim, keepdim)


@autocast_op
def std_mean(x, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dim, unbiased = _ops._var_args(dim, unbiased)
    return _ops.std(x, dim, unbiased, keepdim, correction=correction), _ops.mean(x, dim, keepdim)


def heaviside(x, values):
    if _is_tensor(values) and values.dtype is not x.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes")
    with _tape.no_grad():
        out = where(_ops.eq(x, 0), values, cast(_ops.gt(x, 0), x.dtype))
    return _tape.record("heaviside", out, (x, values))


def copysign(a, b):
    """|a| with b's sign bit (-0.0 and -NaN count as negative)."""
    kind = dt.result_type(a, b)
    kind = kind if kind.is_floating_point else dt.default_float
    a = cast(a, kind) if _is_tensor(a) else _ops.tensor(a, dtype=kind, device=b.device)
    negative = signbit(b) if _is_tensor(b) else math.copysign(1.0, b) < 0
    return where(negative, _ops.neg(_ops.abs(a)), _ops.abs(a))


@autocast_op
def xlogy(x, y):
    """x log y, 0 where x == 0 (unless y is NaN)."""
    return _x_times_log(x, y, _ops.log, 0)


def _x_times_log(x, y, log, pole):
    """x log(y) (log: log, or log1p for xlog1py), 0 where x == 0 unless y is NaN. torch's gradient to x is
    log(y) but 0 where x == 0 and y <= pole (log(y) NaN or -inf there): the log is masked to 0 there,
    not 0 * NaN afterwards; to y it stays torch's x / y (0 / 0 = NaN at x == 0, y == pole, as torch)."""
    if not _is_tensor(y):
        y = _ops.full((), float(y), dtype=x.dtype if x.dtype.is_floating_point else dt.default_float, device=x.device)
    logged = log(y)
    out = mul(x, where(_ops.logical_and(_ops.eq(x, 0), _ops.le(y, pole)), 0.0, logged))
    undefined = _ops.logical_and(_ops.eq(x, 0), _ops.isnan(out))  # 0 * inf (y = inf)
    return where(_ops.isnan(y), math.nan, where(undefined, 0.0, out))


def xlog1py(x, y):
    """x log(1 + y), 0 where x == 0 (unless y is NaN)."""
    return _x_times_log(x, y, log1p, -1)


def sinc(x):
    """sin(πx)/(πx), 1 at 0 (the 0 is swapped out first so its gradient is 0, not NaN)."""
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = cast(x, dt.default_float)
    zero = _ops.eq(x, 0)
    px = mul(where(zero, 1.0, x), math.pi)
    return where(zero, 1.0, _ops.div(_ops.sin(px), px))


@autocast_op
def logit(x, eps=None):
    if not x.dtype.is_floating_point:
        x = cast(x, dt.default_float)
    if eps is not None:
        x = _ops.clamp(x, eps, 1 - eps)
    return _ops.log(_ops.div(x, sub(1, x)))


def isneginf(x):
    return _ops.eq(x, -math.inf) if x.dtype.is_floating_point else _ops.zeros(x.shape, dtype=dt.bool_,
                                                                               device=x.device)


def isposinf(x):
    return _ops.eq(x, math.inf) if x.dtype.is_floating_point else _ops.zeros(x.shape, dtype=dt.bool_,
                                                                              device=x.device)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    if not _is_tensor(elements):
        elements = _ops.tensor(elements, device=test_elements.device)
    tests = _ops.reshape(test_elements, -1) if _is_tensor(test_elements) else \
        _ops.tensor([test_elements], device=elements.device)
    hit = _ops.any(_ops.eq(_ops.unsqueeze(elements, -1), tests), -1) if tests.numel() else \
        _ops.zeros(elements.shape, dtype=dt.bool_, device=elements.device)
    return _ops.logical_not(hit) if invert else hit


# -- reductions that skip NaN, order statistics ------------------------------------------------
def nansum(x, dim=None, keepdim=False, dtype=None):
    return _ops.sum(where(_ops.isnan(x), 0, x) if x.dtype.is_floating_point else x, dim, keepdim, dtype=dtype)


@autocast_op
def nanmean(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = cast(x, dtype)
    _ops._check_float(x, "nanmean")
    count = _ops.sum(_ops.logical_not(_ops.isnan(x)), dim, keepdim)
    if x.dtype in dt.ROUNDED:  # the sum in float32, the mean rounded once (torch's accumulation)
        return cast(_ops.div(nansum(x, dim, keepdim, dtype=dt.float32), count), x.dtype)
    return _ops.div(nansum(x, dim, keepdim), count)


_KthValue = namedtuple("kthvalue", ["values", "indices"])
_Mode = namedtuple("mode", ["values", "indices"])


def kthvalue(x, k, dim=-1, keepdim=False):
    _ops.check_dtype("kthvalue", x.dtype)
    d = _wrap_dim(dim, x.dim())
    n = x.shape[d] if x.dim() else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, indices = sort(x, d)
    if x.dim() == 0:
        return _KthValue(values, indices)
    values, indices = _ops.narrow(values, d, k - 1, 1), _ops.narrow(indices, d, k - 1, 1)
    if not keepdim:
        values, indices = _ops.squeeze(values, d), _ops.squeeze(indices, d)
    return _KthValue(values, indices)


def mode(x, dim=-1, keepdim=False):
    """The most frequent value (ties: the smallest) and the index of its last occurrence."""
    d = _wrap_dim(dim, x.dim())
    if x.dim() == 0:
        return _Mode(_ops.clone(x), _ops.zeros((), dtype=dt.int64, device=x.device))
    moved = movedim(x, d, -1)
    counts = _ops.sum(_ops.eq(_ops.unsqueeze(moved, -1), _ops.unsqueeze(moved, -2)), -1)  # per element
    n = moved.shape[-1]
    # the best element: most counts, then the smallest value (its rank in sorted order), then last index
    with _tape.no_grad():
        rank = argsort(argsort(moved, -1), -1)
        key = sub(mul(counts, n), rank)
        best = _ops.argmax(key, -1, keepdim=True)
        value = gather(moved, -1, best)
        positions = _ops.arange(n, device=x.device)
        last = _ops.amax(where(_ops.eq(moved, value), positions, -1), -1, keepdim=True)
        # a NaN mode (a row of NaN only) equals no element: the first, as torch (its sort leaves NaNs in place)
        last = where(_ops.isnan(value), best, last)
    last = movedim(last, -1, d)
    value = gather(x, d, last)  # differentiable: the gradient goes to that element
    if not keepdim:
        value, last = _ops.squeeze(value, d), _ops.squeeze(last, d)
    return _Mode(value, last)


def _quantile(x, q, dim, keepdim, interpolation, ignore_nan, name):
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise ValueError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got "
                         f"{interpolation}")
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    scalar_q = not _is_tensor(q)
    qs = _ops.tensor([q], dtype=x.dtype, device=x.device) if scalar_q else _ops.reshape(q, -1)
    if scalar_q and not 0 <= q <= 1:
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
    if dim is None:
        rows, d = _ops.reshape(x, -1), 0
    else:
        d = _wrap_dim(dim, x.dim())
        rows = x if x.dim() else _ops.reshape(x, 1)
    if x.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    moved = movedim(rows, d, -1)
    ordered = sort(moved, -1).values  # NaN last
    nan_count = _ops.sum(_ops.isnan(moved), -1, keepdim=True)
    n = moved.shape[-1]
    valid = sub(n, nan_count) if ignore_nan else _ops.full_like(nan_count, n)
    qshape = [1] * (moved.dim() - 1) + [qs.shape[0]]
    pos = mul(sub(valid, 1), _ops.reshape(qs, qshape))  # (..., len(q)), float
    nan_row = _ops.eq(valid, 0) if ignore_nan else _ops.gt(nan_count, 0)
    pos = where(nan_row, float(n - 1), pos)  # as torch: a NaN row reads its last (NaN) element
    lo = _ops.floor(pos)
    if interpolation == "lower":
        pos = lo
    elif interpolation == "higher":
        pos = _ops.ceil(pos)
    elif interpolation == "nearest":
        pos = _ops.round(pos)
    lo_i = _ops.clamp(cast(_ops.floor(pos), dt.int64), 0, n - 1)
    out = gather(ordered, -1, lo_i)
    if interpolation in ("linear", "midpoint"):  # as torch, lerp even where both ends are one element (inf: NaN)
        above = gather(ordered, -1, _ops.clamp(cast(_ops.ceil(pos), dt.int64), 0, n - 1))
        out = lerp(out, above, 0.5 if interpolation == "midpoint" else sub(pos, _ops.floor(pos)))
    out = movedim(out, -1, 0)  # q's dim leads
    if keepdim:
        out = _ops.unsqueeze(out, d + 1) if dim is not None else _ops.reshape(out, [qs.shape[0]] + [1] * x.dim())
    return _ops.squeeze(out, 0) if scalar_q else out


@autocast_op
def quantile(x, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(x, q, dim, keepdim, interpolation, False, "quantile")


@autocast_op
def nanquantile(x, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile(x, q, dim, keepdim, interpolation, True, "nanquantile")


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """Per value, the count of sequence entries before which it goes (a comparison per pair)."""
    right = right or side == "right"
    seq = sorted_sequence
    if sorter is not None:
        seq = gather(seq, -1, sorter)
    scalar = not _is_tensor(values)
    if scalar:
        values = _ops.tensor(values, dtype=seq.dtype, device=seq.device)
    if seq.dim() == 1:
        v = _ops.unsqueeze(values, -1)
    else:
        v = _ops.unsqueeze(values, -1)
        seq = _ops.unsqueeze(seq, -2)
    # not(s > v) rather than s <= v: a NaN value goes after everything
    before = _ops.logical_not(_ops.gt(seq, v)) if right else _ops.logical_not(_ops.ge(seq, v))
    out = _ops.sum(before, -1)
    return cast(out, dt.int32) if out_int32 else out


def bucketize(input, boundaries, *, out_int32=False, right=False):
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# -- products and small matrix ops -------------------------------------------------------------
@autocast_op
def trace(x):
    _ops.check_dtype("trace", x.dtype)
    if x.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {x.dim()}")
    return _ops.sum(x.diagonal())


def kron(a, b):
    n = builtins.max(a.dim(), b.dim())
    a = _ops.reshape(a, [1] * (n - a.dim()) + list(a.shape))
    b = _ops.reshape(b, [1] * (n - b.dim()) + list(b.shape))
    a_shape = [s for size in a.shape for s in (size, 1)]
    b_shape = [s for size in b.shape for s in (1, size)]
    prod = mul(_ops.reshape(a, a_shape), _ops.reshape(b, b_shape))
    return _ops.reshape(prod, [x * y for x, y in zip(a.shape, b.shape)])


@autocast_op
def tensordot(a, b, dims=2, out=None):
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
        if _is_tensor(dims_a):
            dims_a = dims_a.tolist()
    dims_a = [_wrap_dim(d, a.dim()) for d in dims_a]
    dims_b = [_wrap_dim(d, b.dim()) for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if b.shape[db] == 1:  # as torch: a size-1 dim contracts with the sum over the other side's dim
            a = _ops.sum(a, da, keepdim=True, dtype=a.dtype)
        elif a.shape[da] == 1:
            b = _ops.sum(b, db, keepdim=True, dtype=b.dtype)
        elif a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} in dim {da} "
                               f"and second has size {b.shape[db]} in dim {db}")
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    k = math.prod(a.shape[d] for d in dims_a)
    am = _ops.reshape(_ops.permute(a, *free_a, *dims_a), -1, k) if a.numel() else \
        _ops.zeros(math.prod(a.shape[d] for d in free_a), k, dtype=a.dtype, device=a.device)
    bm = _ops.reshape(_ops.permute(b, *dims_b, *free_b), k, -1) if b.numel() else \
        _ops.zeros(k, math.prod(b.shape[d] for d in free_b), dtype=b.dtype, device=b.device)
    return _ops.reshape(_ops.matmul(am, bm), [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b])


@autocast_op
def cross(a, b, dim=None):
    """a × b along a dim of size 3 (the first one when dim is None, as torch.cross)."""
    if a.dim() != b.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    shape = _ops.broadcast_shapes(a.shape, b.shape)
    if dim is None:
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    d = _wrap_dim(dim, len(shape))
    if a.shape[d] != 3 or b.shape[d] != 3:  # before broadcasting, as torch
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[d]} and "
                           f"{b.shape[d]}")
    a, b = _ops.expand(a, *shape), _ops.expand(b, *shape)
    def turn(t, k):  # components (k, k+1, k+2) mod 3
        return _ops.cat([_ops.narrow(t, d, (k + i) % 3, 1) for i in range(3)], d)
    return sub(mul(turn(a, 1), turn(b, 2)), mul(turn(a, 2), turn(b, 1)))


def vander(x, N=None, increasing=False):
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    powers = _ops.arange(n, device=x.device)
    if not increasing:
        powers = flip(powers, 0)
    base = x if x.dtype.is_floating_point else cast(x, dt.int64)
    if x.numel() == 0 or n == 0:
        return _ops.zeros(x.shape[0], n, dtype=base.dtype, device=x.device)
    return _ops.pow(_ops.unsqueeze(base, -1), powers)


def diff(x, n=1, dim=-1, prepend=None, append=None):
    if x.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, x.dim())
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        parts = [t if _is_tensor(t) else _ops.tensor(t, dtype=x.dtype, device=x.device) for t in parts]
        parts = [_ops.expand(t, *x.shape[:d], 1, *x.shape[d + 1:]) if t.dim() == 0 else t for t in parts]
        x = _ops.cat(parts, d)
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        hi, lo = _ops.narrow(x, d, 1, m - 1), _ops.narrow(x, d, 0, m - 1)
        x = _ops.logical_xor(hi, lo) if x.dtype is dt.bool_ else sub(hi, lo)
    return x


# -- counting -----------------------------------------------------------------------------------
def histc(x, bins=100, min=0, max=0):
    lo, hi = float(min), float(max)
    if lo == hi and x.numel():
        lo, hi = _ops.amin(x).item(), _ops.amax(x).item()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):  # a NaN or infinite element, when the data give the range
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    _ops.check_dtype("histc", x.dtype)  # after the range checks, as torch
    flat = _ops.reshape(x, -1)
    if lo == hi:  # one value v with v +- 1 == v (1e30): torch's edges put it in the middle bin, as v - 1 < v < v + 1 does
        idx = _ops.full(flat.shape, bins // 2, dtype=dt.int64, device=x.device)
    else:
        idx = cast(_ops.floor(mul(sub(flat, lo), bins / (hi - lo))), dt.int64)
        idx = where(_ops.eq(flat, hi), bins - 1, idx)
    inside = _ops.logical_and(_ops.ge(flat, lo), _ops.le(flat, hi))
    idx = _ops.clamp(idx, 0, bins - 1)  # bins / (hi - lo) may overflow float32 (a range of subnormals): inf * 0
    return _bin_sums(where(inside, idx, bins), bins, _ops.ones(flat.shape, dtype=x.dtype, device=x.device))


def _bin_sums(idx, bins, values):
    """values added up into bins by idx; idx == bins (an extra slot) takes what falls outside."""
    sums = _ops.zeros(bins + 1, dtype=values.dtype, device=values.device)
    with _tape.no_grad():
        sums.index_add_(0, idx, values)
    return _ops.narrow(sums, 0, 0, bins)


_Histogram = namedtuple("histogram", ["hist", "bin_edges"])
_HistogramDD = namedtuple("histogramdd", ["hist", "bin_edges"])


def histogram(input, bins, *, range=None, weight=None, density=False):
    """(hist, bin_edges): input's values (or their weights) counted into bins, an int number of equal bins
    over range (default: input's min to max) or a 1-D tensor of increasing edges; the last bin includes
    its right edge, values outside are left out; density divides by the total times each bin's width."""
    hist, edges = histogramdd(_ops.reshape(input, -1, 1), [bins], range=range, weight=weight, density=density)
    return _Histogram(hist, edges[0])


def _bin_edges(column, bins, lo_hi, d):
    """Dimension d's edges: bins (a tensor) as given, or bins + 1 equal steps over lo_hi or column's range."""
    if _is_tensor(bins):
        return bins
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension {d}")
    if lo_hi is not None:
        lo, hi = float(lo_hi[0]), float(lo_hi[1])
    elif column.numel():
        lo, hi = _ops.amin(column).item(), _ops.amax(column).item()
    else:
        lo, hi = 0.0, 1.0
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{lo}, {hi}] is not finite")
    if lo > hi:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo} max {hi} for "
                           f"dimension {d}")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return _ops.linspace(lo, hi, bins + 1, dtype=column.dtype, device=column.device)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """(hist, bin_edges): the points of input (its last dim: their D coordinates) counted into a D-dim grid
    of bins, each dim's as histogram's; a point outside any dim's edges is left out."""
    if input.dtype.category != 2:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_TYPE_NAMES[input.dtype.name]}'")
    if input.dim() < 2:
        raise RuntimeError(f"torch.histogramdd: input tensor should have at least 2 dimensions, but got "
                           f"{input.dim()}")
    points = _ops.reshape(input, -1, input.shape[-1])
    ndim = points.shape[1]
    bins = [bins] * ndim if isinstance(bins, int) else list(bins)
    if len(bins) != ndim:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if range is not None and len(range) != 2 * ndim:
        raise RuntimeError(f"torch.histogramdd: for a {ndim}-dimensional histogram range should have {2 * ndim} "
                           f"elements, but got {len(range)}")
    edges, idx, inside = [], None, None
    for d in builtins.range(ndim):
        column = points[:, d]
        e = _bin_edges(column, bins[d], None if range is None else range[2 * d:2 * d + 2], d)
        n = e.numel() - 1
        pos = where(_ops.eq(column, e[-1]), n - 1, sub(searchsorted(e, column, right=True), 1))
        ok = _ops.logical_and(_ops.ge(column, e[0]), _ops.le(column, e[-1]))
        idx = pos if idx is None else add(mul(idx, n), pos)
        inside = ok if inside is None else _ops.logical_and(inside, ok)
        edges.append(e)
    sizes = [e.numel() - 1 for e in edges]
    total = math.prod(sizes)
    values = _ops.ones(points.shape[:1], dtype=input.dtype, device=input.device) if weight is None else \
        cast(_ops.reshape(weight, -1), input.dtype)
    hist = _ops.reshape(_bin_sums(where(inside, idx, total), total, values), sizes)
    if density:
        volume = None
        for d, e in enumerate(edges):
            width = _ops.reshape(sub(e[1:], e[:-1]), [-1 if k == d else 1 for k in builtins.range(ndim)])
            volume = width if volume is None else mul(volume, width)
        hist = _ops.div(hist, mul(_ops.sum(hist), volume))
    return _HistogramDD(hist, tuple(edges))


def bincount(x, weights=None, minlength=0):
    _ops.check_dtype("bincount", x.dtype)
    if x.dim() != 1 or x.dtype.category != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if x.is_meta:
        raise meta.data_dependent("bincount")
    if x.numel() and _ops.amin(x).item() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    length = builtins.max(minlength, _ops.amax(x).item() + 1 if x.numel() else 0)
    dtype = dt.int64 if weights is None else (weights.dtype if weights.dtype.is_floating_point else dt.float64
                                              if hasattr(dt, "float64") else dt.float32)
    counts = _ops.zeros(length, dtype=dtype, device=x.device)
    src = _ops.ones(x.shape, dtype=dtype, device=x.device) if weights is None else cast(weights, dtype)
    with _tape.no_grad():
        counts.index_add_(0, x, src)
    return counts


def _unique_flat(values, return_inverse, return_counts, order=None):
    """values: a 1-D tensor where equal values are adjacent; order: the positions of values in the
    input (None: values is the input itself)."""
    n = values.numel()
    device = values.device
    if n == 0:
        empty_idx = _ops.zeros(0, dtype=dt.int64, device=device)
        return values, empty_idx, empty_idx
    starts = _ops.ne(_ops.narrow(values, 0, 1, n - 1), _ops.narrow(values, 0, 0, n - 1))
    starts = _ops.cat([_ops.ones(1, dtype=dt.bool_, device=device), starts])
    group = sub(cumsum(cast(starts, dt.int64), 0), 1)  # each sorted element's output slot
    out = values[starts]
    inverse = counts = None
    if return_inverse:
        inverse = group if order is None else \
            _ops.zeros(n, dtype=dt.int64, device=device).scatter_(0, order, group)
    if return_counts:
        counts = _ops.zeros(out.shape[0], dtype=dt.int64, device=device).index_add_(
            0, group, _ops.ones(n, dtype=dt.int64, device=device))
    return out, inverse, counts


def _unique_result(out, inverse, counts, shape, return_inverse, return_counts):
    result = [out]
    if return_inverse:
        result.append(_ops.reshape(inverse, shape))
    if return_counts:
        result.append(counts)
    return tuple(result) if len(result) > 1 else out


def _unique_slices(x, dim, consecutive, return_inverse, return_counts):
    """unique(dim=) / unique_consecutive(dim=): x's slices along dim compared whole (read to the host):
    the distinct ones in lexicographic order (unique), or each run of equal neighbours once."""
    d = _wrap_dim(dim, x.dim())
    if x.numel() == 0 and x.shape[d]:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    rows = [tuple(r) for r in _ops.reshape(movedim(x.detach(), d, 0), (x.shape[d], -1)).tolist()] if x.numel() else []
    if consecutive:
        keys = [r for i, r in enumerate(rows) if i == 0 or r != rows[i - 1]]
        inverse = []
        for i, r in enumerate(rows):
            inverse.append(inverse[-1] + (r != rows[i - 1]) if inverse else 0)
    else:
        keys = builtins.sorted(set(rows))
        position = {k: i for i, k in enumerate(keys)}
        inverse = [position[r] for r in rows]
    first = {}
    for i, g in enumerate(inverse):
        first.setdefault(g, i)
    index = _ops.tensor([first[g] for g in range(len(keys))], dtype=dt.int64, device=x.device)
    result = [x.detach().index_select(d, index)]
    if return_inverse:
        result.append(_ops.tensor(inverse, dtype=dt.int64, device=x.device))
    if return_counts:
        counts = [0] * len(keys)
        for g in inverse:
            counts[g] += 1
        result.append(_ops.tensor(counts, dtype=dt.int64, device=x.device))
    return tuple(result) if len(result) > 1 else result[0]


def unique(x, sorted=True, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        return _unique_slices(x, dim, False, return_inverse, return_counts)
    flat = _ops.reshape(x, -1)
    values, order = sort(flat, 0)
    with _tape.no_grad():
        out, inverse, counts = _unique_flat(values.detach(), return_inverse, return_counts, order)
    return _unique_result(out, inverse, counts, x.shape, return_inverse, return_counts)


def unique_consecutive(x, return_inverse=False, return_counts=False, dim=None):
    if dim is not None:
        return _unique_slices(x, dim, True, return_inverse, return_counts)
    with _tape.no_grad():
        out, inverse, counts = _unique_flat(_ops.reshape(x, -1).detach(), return_inverse, return_counts)
    return _unique_result(out, inverse, counts, x.shape, return_inverse, return_counts)


def count_nonzero(x, dim=None):
    """The number of nonzero elements (over dim: an int or a tuple of ints), as int64."""
    nonzero = _ops.ne(x, 0)
    return _ops.sum(nonzero) if dim is None else _ops.sum(nonzero, dim)



# -- torch._refs' compositions: angles, NaN-ignoring extremes, float64 powers, binary exponents ----------
def _to_float(x):
    return x if x.dtype.is_floating_point or x.dtype.is_complex else cast(x, dt.default_float)


def deg2rad(x):
    return mul(_to_float(x), math.pi / 180)


def rad2deg(x):
    return mul(_to_float(x), 180 / math.pi)


def _nan_ignoring(a, b, keep_a):
    """where a is kept (keep_a(a, b) or b is NaN), a; else b: the result is NaN only where both are. The
    gradient goes to the kept operand, all of it on ties, as torch's fmax/fmin backward."""
    if a.dtype.is_complex or b.dtype.is_complex:
        raise RuntimeError("fmax/fmin not implemented for complex tensors.")
    kind = dt.result_type(a, b)
    a, b = cast(a, kind), cast(b, kind)
    return where(_ops.logical_or(keep_a(a, b), _ops.isnan(b)), a, b)


def fmax(input, other):
    """The larger of the two, a NaN lost to a number."""
    return _nan_ignoring(input, other, _ops.ge)


def fmin(input, other):
    """The smaller of the two, a NaN lost to a number."""
    return _nan_ignoring(input, other, _ops.le)


def _float64_of(x):
    if not _is_tensor(x):
        return x
    return cast(x, dt.complex128 if x.dtype.is_complex else dt.float64)  # float32 on "webgpu", with its warning


def float_power(input, exponent):
    """pow in float64 (complex128 for a complex operand), whatever the operands' dtypes."""
    if not _is_tensor(input) and not _is_tensor(exponent):
        raise TypeError("float_power() received an invalid combination of arguments - got (number, number)")
    return _ops.pow(_float64_of(input), _float64_of(exponent))


def ldexp(input, other):
    """input * 2**other, in a floating dtype."""
    # torch's kernel for a floating input dispatches on the exponent's dtype (no bool); others go by pow
    if _is_tensor(other) and other.dtype is dt.bool_ and _is_tensor(input) and input.dtype.is_floating_point:
        raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
    if not (_is_tensor(other) and other.dtype.category == 1):
        return mul(_to_float(input), _ops.pow(2.0, other))
    # an integer exponent is exact, as torch's kernel: infinite only where the result is (0.16 * 2^130 is
    # 2.1e38, though 2^130 is inf in float32). Clamped to +-300 (a float32 spans 2^-149..2^128: beyond, 0 or
    # inf either way), applied in three steps of at most 2^100, each exact: only the last may round.
    e = _ops.clamp(other, -300, 300)
    third = _ops.trunc(_ops.div(e, 3))
    step = _ops.pow(2.0, third)
    return mul(mul(mul(_to_float(input), step), step), _ops.pow(2.0, sub(e, mul(third, 2))))


_Frexp = namedtuple("frexp", ["mantissa", "exponent"])


def _times_power_of_two(x, exponent):
    """x * 2**exponent in two factors, so that neither leaves x's range where the product does not
    (2**-149 is a float32 denormal, 2**150 inf: a subnormal's exponent is about -140)."""
    half = _ops.floor_divide(exponent, 2)
    return mul(mul(x, _ops.pow(2.0, half)), _ops.pow(2.0, sub(exponent, half)))


def frexp(input):
    """(mantissa, exponent) with input = mantissa * 2**exponent, |mantissa| in [0.5, 1); (x, 0) for 0, inf
    and NaN. The exponent is floor(log2|x|) + 1, corrected by one where log2 rounded across a power of two."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    with _tape.no_grad():
        magnitude = _ops.abs(cast(input, dt.float32))
        regular = _ops.logical_and(_ops.isfinite(magnitude), _ops.ne(magnitude, 0))
        safe = where(regular, magnitude, 1.0)
        exponent = cast(add(_ops.floor(log2(safe)), 1), dt.int32)
        scaled = _times_power_of_two(safe, _ops.neg(exponent))
        exponent = add(exponent, sub(cast(_ops.ge(scaled, 1.0), dt.int32), cast(_ops.lt(scaled, 0.5), dt.int32)))
        exponent = where(regular, exponent, 0)
    return _Frexp(_times_power_of_two(input, _ops.neg(exponent)), exponent)


def positive(input):
    """input itself (torch's unary +); refused for bool as torch does."""
    if input.dtype is dt.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def isreal(input):
    """True where the imaginary part is 0 (everywhere for a real tensor)."""
    if not input.dtype.is_complex:
        return _ops.full(input.shape, True, dtype=dt.bool_, device=input.device)
    return _ops.eq(input.imag, 0)

for _name in __all__:
    if _name not in ("isin", "bucketize", "searchsorted", "chain_matmul", "pdist", "histogramdd"):
        setattr(Tensor, _name, globals()[_name])
Tensor.__lshift__, Tensor.__rshift__ = bitwise_left_shift, bitwise_right_shift
Tensor.__rlshift__ = lambda x, other: bitwise_left_shift(other, x)
Tensor.__rrshift__ = lambda x, other: bitwise_right_shift(other, x)
