"""Cases for the ops and APIs of issue 14 (OpInfo's missing ops, distributions, linalg), registered
into op_cases.CASES like nn_cases (stdlib only: they run in the browser too)."""
from op_cases import BOOL, F32, I, I32, I64, MM, RED, TRANS, case, error

D = lambda T: T.distributions  # noqa: E731


# -- tensor and namespace ---------------------------------------------------------------------
case("new_zeros-ones-full-empty-tensor", lambda T, d, a, i: (
    a.new_zeros(2, 3), a.new_ones((4,)), a.new_full((2,), 7), a.new_empty(0, 2).shape, a.new_tensor([[1, 2]]),
    i.new_zeros(3), i.new_ones(2, dtype=T.float32), a.new_tensor([1.5]).device.type == d), I((3,)), I((2,), I64))
case("legacy-typed-constructors", lambda T, d: (  # cpu tensors, as in torch
    T.FloatTensor([1, 2]).to(d), T.LongTensor([[1], [2]]).to(d), T.IntTensor([3]).to(d),
    T.BoolTensor([True, False]).to(d),
    T.FloatTensor(2, 3).shape, T.LongTensor().shape, isinstance(T.zeros(2), T.FloatTensor),
    isinstance(T.zeros(2), T.LongTensor), isinstance(T.zeros(2, dtype=T.int64), T.LongTensor),
    isinstance(T.zeros(2).half(), T.HalfTensor), T.HalfTensor([0.5]).float().to(d)))
case("broadcast_tensors", lambda T, d, a, b, c: T.broadcast_tensors(a, b, c),
     I((3, 1)), I((4,)), I((2, 1, 1), I64))

# -- distributions: log_prob, entropy and moments (their gradients through grad_cases) --------
case("dist-normal", lambda T, d, loc, scale, v: (
    lambda n: (n.log_prob(v), n.entropy(), n.mean, n.stddev, n.variance, n.cdf(v), n.batch_shape))(
        D(T).Normal(loc, scale)), I((2, 3)), I((3,), kind="positive", low=0.5, high=2), I((4, 2, 3)), **TRANS)
case("dist-normal-scalar-params", lambda T, d, v: (
    lambda n: (n.log_prob(v), n.entropy().to(d), n.batch_shape))(D(T).Normal(0.5, 2.0)), I((5,)), **TRANS)
case("dist-uniform", lambda T, d, lo, v: (
    lambda u: (u.log_prob(v), u.entropy(), u.mean, u.variance, u.stddev, u.cdf(v)))(D(T).Uniform(lo, lo + 2.0)),
     I((4,), kind="uniform", low=-0.5, high=0.5), I((3, 4), kind="uniform", low=0.5, high=1.5), **TRANS)
case("dist-bernoulli", lambda T, d, p, lg, v: (
    lambda b, c: (b.log_prob(v), b.entropy(), b.mean, b.variance, c.log_prob(v), c.entropy(), c.probs))(
        D(T).Bernoulli(probs=p), D(T).Bernoulli(logits=lg)),
     I((4,), kind="uniform", low=0.05, high=0.95), I((4,)), I((2, 4), kind="values", values=[0.0, 1.0, 1.0]),
     **TRANS)
case("dist-categorical", lambda T, d, p, lg, v: (
    lambda a, b: (a.log_prob(v), a.entropy(), a.probs, b.log_prob(v), b.entropy(), b.logits, b.mode,
                  b.batch_shape, a.enumerate_support()))(D(T).Categorical(probs=p), D(T).Categorical(logits=lg)),
     I((2, 5), kind="positive"), I((2, 5)), I((3, 2), I64, low=0, high=4), **TRANS)
case("dist-multivariate-normal", lambda T, d, loc, a, v: (
    lambda cov: (lambda m, p: (m.log_prob(v), m.entropy(), m.mean, m.variance, m.covariance_matrix, m.scale_tril,
                               p.log_prob(v), p.entropy(), m.batch_shape, m.event_shape))(
        D(T).MultivariateNormal(loc, covariance_matrix=cov), D(T).MultivariateNormal(loc, precision_matrix=cov)))(
        a @ a.mT + T.eye(3, device=d)),
     I((2, 3)), I((2, 3, 3), kind="uniform"), I((4, 2, 3)), atol=1e-4, rtol=1e-4)
case("dist-multivariate-normal-scale-tril", lambda T, d, loc, a, v: (
    lambda m: (m.log_prob(v), m.entropy(), m.variance))(
        D(T).MultivariateNormal(loc, scale_tril=T.tril(a, -1) + T.diag(T.exp(a.diagonal())))),
     I((3,)), I((3, 3), kind="uniform"), I((5, 3)), atol=1e-4, rtol=1e-4)
case("dist-independent-laplace-lognormal", lambda T, d, loc, scale, v: (
    lambda i, l, g: (i.log_prob(v), i.entropy(), i.batch_shape, i.event_shape, l.log_prob(v), l.entropy(), l.cdf(v),
                     l.variance, g.log_prob(v.abs() + 0.1), g.entropy(), g.mean, g.variance))(
        D(T).Independent(D(T).Normal(loc, scale), 1), D(T).Laplace(loc, scale), D(T).LogNormal(loc, scale)),
     I((2, 3)), I((3,), kind="positive", low=0.5, high=2), I((4, 2, 3)), **TRANS)
case("dist-transformed-kl", lambda T, d, loc, scale, u, lg: (
    lambda n, q: (D(T).TransformedDistribution(n, [D(T).TanhTransform()]).log_prob(u),
                  D(T).TransformedDistribution(n, [D(T).SigmoidTransform(), D(T).AffineTransform(-1.0, 2.0)]).log_prob(u),
                  D(T).kl_divergence(n, q), D(T).kl_divergence(D(T).Independent(n, 1), D(T).Independent(q, 1)),
                  D(T).kl_divergence(D(T).Categorical(logits=lg), D(T).Categorical(logits=lg.flip(-1))),
                  D(T).OneHotCategorical(logits=lg).log_prob(T.eye(3, device=d)[T.tensor([1, 2], device=d)])))(
        D(T).Normal(loc, scale), D(T).Normal(loc * 0.5, scale + 0.25)),
     I((2, 3)), I((3,), kind="positive", low=0.5, high=2), I((2, 3), kind="uniform", low=-0.9, high=0.9),
     I((2, 3)), **TRANS)
error("dist-uniform-outside-support", lambda T, d, v: D(T).Uniform(0.0, 1.0).log_prob(v), I((3,)), exc=ValueError)
error("dist-normal-negative-scale", lambda T, d, s: D(T).Normal(0.0, s), I((3,), kind="uniform", low=-2, high=-1),
      exc=ValueError)
error("dist-categorical-value-out-of-range", lambda T, d, p: D(T).Categorical(probs=p).log_prob(
    T.tensor([0, 5], device=d)), I((2, 5), kind="positive"), exc=ValueError)
error("dist-categorical-both", lambda T, d, p: D(T).Categorical(probs=p, logits=p), I((3,)), exc=ValueError)
error("dist-bernoulli-rsample", lambda T, d, p: D(T).Bernoulli(p).rsample(), I((3,), kind="uniform", low=0,
                                                                                high=1), exc=NotImplementedError)

# -- linalg -------------------------------------------------------------------------------------
case("linalg-cholesky", lambda T, d, a: (lambda s: (T.linalg.cholesky(s), T.linalg.cholesky(s, upper=True)))(
    a @ a.mT + 0.5 * T.eye(4, device=d)), I((2, 4, 4)), **MM)
case("linalg-solve_triangular", lambda T, d, a, b: (
    T.linalg.solve_triangular(T.tril(a) + 3 * T.eye(4, device=d), b, upper=False),
    T.linalg.solve_triangular(T.triu(a) + 3 * T.eye(4, device=d), b, upper=True),
    T.linalg.solve_triangular(T.triu(a) + 3 * T.eye(4, device=d), b.mT, upper=True, left=False),
    T.linalg.solve_triangular(T.tril(a), b, upper=False, unitriangular=True)), I((4, 4)), I((4, 2)), **MM)

# torch's CPU default (gelsy) on full-rank A: tall, square, wide (minimum norm), batched with a
# broadcast B, a vector B; rank, and the empty residuals and singular values (efficient-kan's curve2coeff)
case("linalg-lstsq", lambda T, d, a, b, w: (
    T.linalg.lstsq(a, b).solution, T.linalg.lstsq(a[0], b[0, :, 0]).solution, T.linalg.lstsq(a[0, :4] + 3 * T.eye(4, device=d), b[0, :4]).solution,
    T.linalg.lstsq(w, b[0, :3]).solution, T.linalg.lstsq(a, b[:1]).rank, T.linalg.lstsq(a[0], b[0]).rank,
    T.linalg.lstsq(a, b).residuals.shape, T.linalg.lstsq(a, b).singular_values.shape),
     I((2, 6, 4)), I((2, 6, 3)), I((3, 5)), **MM)

def _linalg_error(T, fn, msg="linalg.cholesky: The factorization could not be completed because the input is not "
                  "positive-definite (the leading minor of order 2 is not positive-definite)."):
    """torch raises torch.linalg.LinAlgError (a RuntimeError) naming the failed minor."""
    try:
        fn()
    except T.linalg.LinAlgError as e:
        return isinstance(e, RuntimeError), str(e) == msg
    return None


case("linalg-cholesky-not-pd", lambda T, d: (
    _linalg_error(T, lambda: T.linalg.cholesky(T.tensor([[1.0, 2.0], [2.0, 1.0]], device=d))),
    T.linalg.cholesky_ex(T.tensor([[[4.0, 2.0], [2.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]], device=d)).info))

# -- OpInfo's missing ops: elementwise and reductions ----------------------------------------
case("aminmax", lambda T, d, a: (T.aminmax(a), a.aminmax(dim=1), T.aminmax(a, dim=0, keepdim=True)),
     I((3, 4), kind="unique"))
case("logaddexp", lambda T, d, a, b, e: (T.logaddexp(a, b), T.logaddexp2(a, b), a.logaddexp(e), T.logaddexp2(e, e)),
     I((3, 4), kind="uniform", low=-30, high=30), I((4,), kind="uniform", low=-30, high=30),
     I((3, 4), values=[float("inf"), float("-inf"), 0.0, 1e30, float("nan"), -3.0]), **TRANS)
case("rsub-rdiv", lambda T, d, a, b: (T.rsub(a, b), T.rsub(a, 2.5, alpha=2), a.__rdiv__(3.0), 3 / a),
     I((3, 4), kind="positive"), I((4,)))
case("var_mean-std_mean", lambda T, d, a: (T.var_mean(a), T.std_mean(a, 1), T.var_mean(a, (0, 1), correction=0),
                                           T.std_mean(a, dim=0, keepdim=True, unbiased=False)), I((4, 5)), **RED)
case("heaviside", lambda T, d, a, v: (T.heaviside(a, v), a.heaviside(T.tensor(0.5, device=d))),
     I((12,), values=[0.0, -0.0, 1.0, -2.0, float("nan"), float("inf")]), I((12,)))
case("copysign-signbit", lambda T, d, a, b: (T.copysign(a, b), T.copysign(a, -1.0), a.copysign(b), T.signbit(b),
                                             T.signbit(a.long())),
     I((16,), kind="uniform", low=-3, high=3), I((16,), kind="edge"))
case("xlogy", lambda T, d, a, b: (T.xlogy(a, b), T.xlogy(a * 0, b), a.xlogy(2.0)),
     I((3, 4), kind="values", values=[0.0, 1.5, -2.0, 3.0]), I((3, 4), kind="positive"), **TRANS)
case("sinc-logit", lambda T, d, a, p: (T.sinc(a), T.sinc(a * 0), T.logit(p), p.logit(eps=0.2)),
     I((3, 4), kind="uniform", low=-3, high=3), I((3, 4), kind="uniform", low=0.05, high=0.95), **TRANS)
case("isin-isinf-sign", lambda T, d, a, b, e: (T.isin(a, b), T.isin(a, b, invert=True), T.isneginf(e),
                                              T.isposinf(e), T.isposinf(a)),
     I((3, 4), I64), I((5,), I64), I((16,), kind="edge"))
case("nansum-nanmean", lambda T, d, a: (T.nansum(a), a.nansum(1), T.nanmean(a, 0), a.nanmean(dim=1, keepdim=True)),
     I((4, 4), values=[1.0, float("nan"), 2.5, -1.0, float("nan"), 3.0, 0.5]), **RED)
case("count_nonzero", lambda T, d, a, i: (T.count_nonzero(a), a.count_nonzero(0), T.count_nonzero(a, dim=(0, 1)),
                                          T.count_nonzero(i, -1)),
     I((4, 4), values=[1.0, 0.0, float("nan"), -0.0, 2.5, 0.0]), I((3, 5), I64, low=-1, high=2))
case("kthvalue", lambda T, d, a: (T.kthvalue(a, 2), a.kthvalue(1, 0), T.kthvalue(a, 3, dim=1, keepdim=True)),
     I((3, 5), kind="unique"))
case("mode", lambda T, d, a, i: (T.mode(a), a.mode(0), T.mode(i, 1, keepdim=True)),
     I((3, 6), values=[1.0, 2.0, 2.0, 3.0, 3.0, 1.0, 0.5]), I((2, 7), I64, low=0, high=3))
case("quantile", lambda T, d, a, q: (T.quantile(a, 0.3), T.quantile(a, q, dim=1), a.quantile(0.5, 0, keepdim=True),
                                     T.quantile(a, q, dim=1, interpolation="lower"),
                                     T.quantile(a, q, interpolation="higher"), T.quantile(a, q, 0, interpolation="midpoint"),
                                     T.quantile(a, 0.75, 1, interpolation="nearest")),
     I((4, 7)), I((3,), kind="values", values=[0.0, 0.25, 0.9]), **RED)
case("nanquantile", lambda T, d, a: (T.nanquantile(a, 0.4, dim=1), T.quantile(a, 0.4, dim=1), a.nanquantile(0.5)),
     I((3, 5), values=[1.0, float("nan"), 2.5, -1.0, 4.0, 0.5, float("nan")]), **RED)
case("searchsorted-bucketize", lambda T, d, s, v, b: (
    T.searchsorted(s, v), T.searchsorted(s, v, right=True), T.searchsorted(s, v, side="right", out_int32=True),
    T.bucketize(v, s), T.bucketize(v, s, right=True), T.searchsorted(b, b[:, :2])),
     I((5,), values=[-1.0, 0.0, 0.5, 0.5, 2.0]), I((3, 4), kind="values", values=[0.5, -2.0, 3.0, 0.0, 1.0]),
     I((2, 4), values=[1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 5.0, 6.0]))
case("trace-kron-tensordot", lambda T, d, a, b, c: (
    T.trace(a), a.trace(), T.trace(a.long()), T.kron(a, b), T.kron(b[0], a), T.tensordot(a, b, 1),
    T.tensordot(c, a, dims=([1, 2], [1, 0])), T.tensordot(a, a, 0).shape),
     I((3, 3)), I((3, 2)), I((2, 3, 3)), **MM)
case("cross", lambda T, d, a, b: (T.cross(a, b, dim=1), T.linalg.cross(a, b[:1]), a.cross(b, dim=-1)),
     I((4, 3)), I((4, 3)), **MM)
case("vander", lambda T, d, a, i: (T.vander(a), T.vander(a, 3, increasing=True), T.vander(i, 4)),
     I((4,), kind="uniform", low=-2, high=2), I((3,), I64), **RED)
case("diff", lambda T, d, a, p, b: (T.diff(a), a.diff(2, dim=0), T.diff(a, prepend=p, append=p, dim=1), T.diff(b)),
     I((4, 5)), I((4, 1)), I((6,), BOOL))
case("histc-bincount", lambda T, d, a, i, w: (T.histc(a, bins=5, min=-1, max=1), T.histc(a, 4), a.histc(3, 0, 0.5),
                                              T.bincount(i), T.bincount(i, w), i.bincount(minlength=9)),
     I((30,)), I((12,), I64, low=0, high=6), I((12,), kind="positive"), **RED)
case("unique", lambda T, d, a, f: (T.unique(a), T.unique(a, return_inverse=True, return_counts=True),
                                   a.unique(return_counts=True), T.unique(f, return_inverse=True),
                                   T.unique_consecutive(a), T.unique_consecutive(a, return_inverse=True,
                                                                                 return_counts=True)),
     I((3, 5), I64, low=0, high=4), I((8,), kind="halves", low=-1, high=1))
case("clamp_min-clamp_max", lambda T, d, a, b: (T.clamp_min(a, -0.5), a.clamp_max(0.5), T.clamp_min(a, b)),
     I((3, 4)), I((4,)))

# -- shape ops -----------------------------------------------------------------------------
case("stacks", lambda T, d, a, b, s: (T.hstack([a, b]), T.vstack([a, b]), T.row_stack((a, b)), T.dstack([a, b]),
                                      T.column_stack([a[0], b[0], s.reshape(1).expand(3)]), T.hstack([s.reshape(1), a[0]]),
                                      T.atleast_1d(s), T.atleast_2d(a[0]), T.atleast_3d(a), T.atleast_1d(s, a)),
     I((2, 3)), I((2, 3), I64), I(()))
case("split_with_sizes", lambda T, d, a: (T.split_with_sizes(a, [1, 3], 1), a.split_with_sizes([2, 0, 1])),
     I((3, 4)))
case("Tensor.unfold", lambda T, d, a: (a.unfold(1, 2, 1), a.unfold(0, 2, 2), a.unfold(-1, 3, 2) * 2, a[0].unfold(0, 1, 3)),
     I((4, 5)))
case("narrow-tensor-start", lambda T, d, a: (T.narrow(a, 1, T.tensor(1), 2), a.narrow(0, T.tensor(-2), 1)), I((3, 4)))
case("flip-dims-rot90", lambda T, d, a: (T.flip(a, dims=(0, 2)), a.flip(dims=[1]), T.rot90(a), T.rot90(a, 2, (1, 2)),
                                         a.rot90(-1, [0, 2]), T.rot90(a, 4)), I((2, 3, 4)))
case("block_diag-cartesian-combinations", lambda T, d, a, b, c, v: (
    T.block_diag(a, b, c), T.block_diag(a, v), T.cartesian_prod(v, c.reshape(-1)), T.cartesian_prod(v),
    T.combinations(v), T.combinations(v, 3, with_replacement=True), T.combinations(v, 0)),
     I((2, 2)), I((3,)), I(()), I((3,)))

# -- indexing ------------------------------------------------------------------------------
case("take-put", lambda T, d, a, i, s: (T.take(a, i), a.take(i[0]), T.put(a, i[0], s), a.put(i, T.ones(i.shape, device=d),
                                                                                            accumulate=True),
                                        a.clone().put_(i[1], s * 2, accumulate=True)),
     I((3, 4), layout="transposed"), I((2, 3), I64, low=-12, high=11), I((3,)))
case("index_fill", lambda T, d, a, i: (T.index_fill(a, 1, i, -1.0), a.index_fill(0, i[:1], T.tensor(2.5, device=d)),
                                       a.clone().index_fill_(-1, i, 0.0)),
     I((3, 4)), I((2,), I64, low=-3, high=3))
case("broadcast_tensors-take-errors-free", lambda T, d, a: T.take(a, T.tensor([0, 5], device=d)), I((2, 3)))
error("take-out-of-range", lambda T, d, a: T.take(a, T.tensor([6], device=d)), I((2, 3)), exc=IndexError)
error("glu-odd", lambda T, d, a: T.nn.functional.glu(a, 1), I((2, 3)))

# -- nn.functional --------------------------------------------------------------------------
NF = lambda T: T.nn.functional  # noqa: E731
case("nn-glu-hardsigmoid-prelu", lambda T, d, x, w: (NF(T).glu(x), NF(T).glu(x, 1), NF(T).hardsigmoid(x * 4),
                                                     NF(T).prelu(x, w), NF(T).prelu(x, w[:1])),
     I((2, 4, 6)), I((4,)), atol=1e-5, rtol=1e-4)
case("nn-normalize", lambda T, d, x: (NF(T).normalize(x), NF(T).normalize(x, p=1, dim=-1), NF(T).normalize(x * 0)),
     I((3, 4)), atol=1e-5, rtol=1e-4)
case("nn-pixel_shuffle", lambda T, d, x: (NF(T).pixel_shuffle(x, 2), NF(T).pixel_unshuffle(x, 2)),
     I((2, 8, 4, 6)))
case("nn-unfold-fold", lambda T, d, x: (NF(T).unfold(x, (2, 3), padding=1, stride=(2, 1), dilation=(1, 2)),
                                       NF(T).fold(NF(T).unfold(x, 2, stride=1), (5, 6), 2),
                                       NF(T).fold(x.reshape(2, 12, 10), (4, 9), (2, 3), padding=(0, 1), stride=2)),
     I((2, 4, 5, 6)), atol=1e-5, rtol=1e-4)
case("nn-max_pool2d-indices-ceil", lambda T, d, x: (NF(T).max_pool2d(x, 3, 2, 1, ceil_mode=True, return_indices=True),
                                                    NF(T).max_pool2d(x[0], (2, 3), 2, dilation=(1, 2),
                                                                     return_indices=True),
                                                    NF(T).max_pool2d(x, 2, ceil_mode=True)),
     I((2, 3, 7, 6), kind="unique"))
case("nn-avg_pool2d-count-ceil", lambda T, d, x: (NF(T).avg_pool2d(x, 3, 2, 1, count_include_pad=False),
                                                  NF(T).avg_pool2d(x, 3, 2, 1, ceil_mode=True),
                                                  NF(T).avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
                                                  NF(T).avg_pool2d(x, 2, divisor_override=3)), I((2, 3, 7, 6)))
case("nn-group_norm-empty", lambda T, d, x, w, b: NF(T).group_norm(x, 2, w, b), I((0, 4, 3)), I((4,)), I((4,)))
case("nn-pad-circular", lambda T, d, x: (NF(T).pad(x, (2, 1, 1, 2), mode="circular"), NF(T).pad(x[0], (3, 0), mode="circular"),
                                         NF(T).pad(x[0], (-1, 1), mode="circular")), I((1, 2, 3, 3)))
for _mode, _ac in (("nearest", None), ("nearest-exact", None), ("bilinear", False), ("bilinear", True),
                   ("bicubic", False), ("bicubic", True), ("area", None)):
    case(f"nn-interpolate-{_mode}-{_ac}", lambda T, d, x, m=_mode, ac=_ac: (
        NF(T).interpolate(x, size=(5, 9), mode=m, align_corners=ac),
        NF(T).interpolate(x, scale_factor=1.7, mode=m, align_corners=ac),
        NF(T).interpolate(x, scale_factor=(0.5, 0.6), mode=m, align_corners=ac)), I((2, 3, 7, 6)), atol=1e-5, rtol=1e-4)
case("nn-interpolate-1d-3d", lambda T, d, x, v: (
    NF(T).interpolate(x, scale_factor=2.5, mode="linear"), NF(T).interpolate(x, size=4, mode="linear", align_corners=True),
    NF(T).interpolate(x, 5), NF(T).interpolate(x, 3, mode="area"), NF(T).interpolate(v, size=(3, 4, 5), mode="trilinear"),
    NF(T).interpolate(v, scale_factor=(2, 0.5, 1.5), mode="nearest"), NF(T).interpolate(v, (2, 3, 2), mode="area"),
    NF(T).interpolate(v, scale_factor=1.5, mode="trilinear", align_corners=True)),
     I((2, 3, 7)), I((1, 2, 3, 4, 5)), atol=1e-5, rtol=1e-4)
for _mode in ("bilinear", "nearest", "bicubic"):
    case(f"nn-grid_sample-{_mode}", lambda T, d, x, g, m=_mode: tuple(
        NF(T).grid_sample(x, g, mode=m, padding_mode=p, align_corners=ac)
        for p in ("zeros", "border", "reflection") for ac in (False, True)),
        I((2, 3, 5, 6)), I((2, 4, 7, 2), kind="uniform", low=-1.3, high=1.3), atol=1e-5, rtol=1e-4)
case("nn-affine_grid", lambda T, d, t2, t3: (NF(T).affine_grid(t2, (2, 3, 4, 5), align_corners=False),
                                            NF(T).affine_grid(t2, (2, 1, 3, 3), align_corners=True),
                                            NF(T).affine_grid(t3, (2, 1, 2, 3, 4), align_corners=False)),
     I((2, 2, 3)), I((2, 3, 4)))
error("nn-interpolate-mode-dims", lambda T, d, x: NF(T).interpolate(x, 4, mode="bilinear"), I((1, 2, 3)),
      exc=NotImplementedError)

# -- special functions and integer ops (rows of ops_table with WGSL helpers) ----------------
case("erfinv", lambda T, d, a, e: (T.erfinv(a), a.erfinv(), T.special.erfinv(e)),
     I((3, 5), kind="uniform", low=-0.995, high=0.995),
     I((8,), values=[1.0, -1.0, 0.0, -0.0, 1.5, float("nan"), 0.999, -0.9999]), **TRANS)
# torch.spmm of dense tensors (pytorch/examples gcn's GraphConv) is mm, with mm's errors
case("spmm-dense", lambda T, d, a, b: (T.spmm(a, b),), I((3, 4)), I((4, 2)), **MM)
error("spmm-vector", lambda T, d, a, b: T.spmm(a, b), I((3,)), I((3, 2)), exc=RuntimeError)
case("erfc", lambda T, d, a, e: (T.erfc(a), a.erfc(), T.special.erfc(e)),
     I((3, 5), kind="uniform", low=-4, high=4),
     I((10,), values=[0.0, -0.0, 0.5, -0.5, 0.75, -0.75, 5.0, -5.0, 12.0, float("nan")]), **TRANS)
# the in-place forms of these ops (and the comparison aliases): the same values, written into the tensor
case("special-inplace", lambda T, d, a, b: tuple(
    getattr(a.detach().clone(), name)(*operands) for name, operands in [
        ("erfc_", ()), ("erfinv_", ()), ("lgamma_", ()), ("digamma_", ()), ("i0_", ()), ("logit_", ()), ("sinc_", ()),
        ("xlogy_", (b.detach(),)), ("copysign_", (-b.detach(),)), ("heaviside_", (b.detach(),)),
        ("nextafter_", (b.detach(),)), ("arcsinh_", ()), ("arctanh_", ()), ("greater_", (b.detach(),)),
        ("less_equal_", (b.detach(),)), ("not_equal_", (a.detach(),))]),
     I((3, 5), kind="uniform", low=0.05, high=0.95), I((3, 5), kind="uniform", low=0.1, high=2), **TRANS)
case("integer-inplace", lambda T, d, a, b: tuple(
    getattr(a.clone(), name)(b) for name in ("gcd_", "lcm_", "bitwise_left_shift_", "bitwise_right_shift_")),
     I((12,), I64, low=-30, high=30), I((12,), I64, low=0, high=12))
case("lgamma-digamma", lambda T, d, a, e: (T.lgamma(a), a.digamma(), T.special.gammaln(e), T.digamma(e),
                                           T.special.psi(a)),
     I((3, 5), kind="uniform", low=0.1, high=12),
     I((10,), values=[-2.5, -0.5, 0.0, 1.0, 2.0, -3.0, float("inf"), float("nan"), 30.0, 1e-3]), atol=1e-4, rtol=1e-4)
case("i0-i1", lambda T, d, a, e: (T.i0(a), a.i0(), T.special.i0(e), T.special.i1(a), T.special.i1(e)),
     I((3, 5), kind="uniform", low=-8, high=8), I((8,), values=[0.0, -0.0, 3.75, -3.75, 20.0, float("nan"), 0.5, -60.0]),
     atol=1e-5, rtol=2e-4)
# the Bessel and Airy functions (no gradient in torch: their results require none), over each form's ranges
case("special-bessel", lambda T, d, a, p: (
    T.special.bessel_j0(a), T.special.bessel_j1(a), T.special.bessel_y0(p), T.special.bessel_y1(p),
    T.special.modified_bessel_i0(a), T.special.modified_bessel_i1(a), T.special.modified_bessel_k0(p),
    T.special.modified_bessel_k1(p), T.special.scaled_modified_bessel_k0(p), T.special.scaled_modified_bessel_k1(p),
    T.special.spherical_bessel_j0(a), T.special.airy_ai(a)),
     I((3, 6), kind="uniform", low=-12, high=12),
     I((10,), values=[0.0, 0.3, 1.9, 2.1, 4.9, 5.1, 7.9, 8.1, 40.0, float("inf")]), **TRANS)
# the normal distribution's functions, entr, the scaled I0/I1 and round (gradients as torch's)
case("special-normal", lambda T, d, a, u: (
    T.special.erfcx(a), T.special.log_ndtr(a), T.special.i0e(a), T.special.i1e(a), T.special.entr(u),
    T.special.ndtri(u), T.special.round(a), T.special.round(a, decimals=1)),
     I((3, 6), kind="uniform", low=-9, high=9), I((3, 6), kind="uniform", low=0.01, high=0.99), **TRANS)
# the orthogonal polynomials: (x, n) broadcast, a number for either, n past the trigonometric forms' thresholds
case("special-polynomials", lambda T, d, x, n: tuple(
    f(x, n) for f in (T.special.chebyshev_polynomial_t, T.special.chebyshev_polynomial_u,
                      T.special.chebyshev_polynomial_v, T.special.chebyshev_polynomial_w,
                      T.special.shifted_chebyshev_polynomial_t, T.special.shifted_chebyshev_polynomial_u,
                      T.special.shifted_chebyshev_polynomial_v, T.special.shifted_chebyshev_polynomial_w,
                      T.special.hermite_polynomial_h, T.special.hermite_polynomial_he,
                      T.special.laguerre_polynomial_l, T.special.legendre_polynomial_p)) + (
    T.special.legendre_polynomial_p(0.3, n), T.special.hermite_polynomial_he(x, 3)),
     I((4, 1), kind="uniform", low=-1.1, high=1.1), I((7,), values=[-1.0, 0.0, 1.0, 2.0, 5.0, 9.0, 12.0]),
     atol=1e-4, rtol=1e-4)
case("nextafter", lambda T, d, a, b: (T.nextafter(a.detach(), b), a.detach().nextafter(T.zeros_like(a))),
     I((8,), values=[0.0, 1.0, -1.0, 1e-30, float("inf"), float("nan"), -2.5, 3.0]),
     I((8,), values=[1.0, 2.0, -2.0, 0.0, 0.0, 1.0, 5.0, -3.0]), atol=0, rtol=0)
case("gcd-lcm", lambda T, d, a, b: (T.gcd(a, b), a.gcd(b), T.lcm(a, b), a.lcm(T.tensor(4, device=d))),
     I((12,), I64, low=-30, high=30), I((12,), I64, low=-12, high=12))
case("bitwise-shifts", lambda T, d, a, b: (T.bitwise_left_shift(a, b), a << 3, a >> b, a.bitwise_right_shift(2),
                                           a.int() << b.int(), 1 << b, (a.int() >> 40), a << 20),
     I((10,), I64, low=-1000, high=1000), I((10,), I64, low=0, high=12))
error("bitwise-shift-float", lambda T, d, a: a << 1, I((3,)), exc=NotImplementedError)
error("gcd-float", lambda T, d, a: T.gcd(a, a), I((3,)), exc=NotImplementedError)

# -- running extremes and log-sum-exp -------------------------------------------------------
case("cummax-cummin", lambda T, d, a, e, i: (T.cummax(a, 1), a.cummin(0), T.cummax(e, 0), T.cummin(e, 0),
                                             T.cummax(i, 0), i.cummin(-1)),
     I((3, 6), kind="values", values=[1.0, 3.0, 2.0, 3.0, -1.0, 5.0, 0.5]),
     I((8,), values=[1.0, float("nan"), 2.0, 0.0, float("-inf"), float("nan"), 7.0, -1.0]),
     I((7,), I64, low=-3, high=3))
case("logcumsumexp", lambda T, d, a, e: (T.logcumsumexp(a, 1), a.logcumsumexp(0), T.logcumsumexp(e, 0)),
     I((3, 7), kind="uniform", low=-20, high=20),
     I((6,), values=[-1000.0, 0.0, float("-inf"), 50.0, float("inf"), 1.0]), **TRANS)

# -- linalg: elimination and rotations over ordinary ops -------------------------------------
case("linalg-solve-inv-det", lambda T, d, a, b, v: (
    T.linalg.solve(a, b), T.linalg.solve(a, v), T.linalg.solve(a[0], b.mT, left=False), T.linalg.inv(a),
    T.linalg.det(a), a.det(), T.det(a[0]), T.linalg.slogdet(a), T.inverse(a[1])),
     I((2, 4, 4)), I((2, 4, 3)), I((2, 4)), atol=1e-4, rtol=1e-3)
case("linalg-lu", lambda T, d, a, w, t, b: (
    T.linalg.lu_factor(a), T.linalg.lu(a), T.linalg.lu(w), T.linalg.lu(t), T.lu_unpack(*T.linalg.lu_factor(w)),
    T.linalg.lu_factor_ex(a).info, a[0].lu(), T.lu(a, get_infos=True)[2],
    T.linalg.lu_solve(*T.linalg.lu_factor(a), b), T.linalg.lu_solve(*T.linalg.lu_factor(a), b, adjoint=True),
    T.linalg.lu_solve(*T.linalg.lu_factor(a), b.mT, left=False), T.lu_solve(b, *a.lu()), b.lu_solve(*a.lu())),
     I((2, 4, 4)), I((3, 5)), I((5, 3)), I((2, 4, 3)), atol=1e-4, rtol=1e-3)
case("linalg-lu-singular", lambda T, d: (lambda s: (T.linalg.lu_factor_ex(s), T.linalg.lu(s)))(
    T.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 2.0, 0.0]], device=d)))
case("linalg-det-singular", lambda T, d: (T.linalg.det(T.tensor([[1.0, 2.0], [2.0, 4.0]], device=d)),
                                          T.linalg.det(T.zeros(3, 3, device=d)),
                                          T.linalg.det(T.eye(3, device=d)[[1, 0, 2]])))
case("linalg-solve-singular", lambda T, d: _linalg_error(
    T, lambda: T.linalg.solve(T.ones(2, 2, device=d), T.ones(2, device=d)),
    "torch.linalg.solve: The solver failed because the input matrix is singular."))
case("linalg-inv-singular", lambda T, d: _linalg_error(
    T, lambda: T.linalg.inv(T.ones(2, 2, device=d)),
    "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input matrix is "
    "singular."))
case("linalg-qr", lambda T, d, a, b: (T.linalg.qr(a), T.linalg.qr(b), T.linalg.qr(a, mode="complete"),
                                      T.linalg.qr(b, mode="r").R, T.linalg.qr(b.mT)),
     I((5, 3)), I((2, 3, 3)), **MM)
case("linalg-eigh", lambda T, d, a: (lambda s: (T.linalg.eigh(s).eigenvalues, T.linalg.eigh(s).eigenvectors.abs(),
                                               T.linalg.eigvalsh(s), T.linalg.eigh(a, UPLO="U").eigenvalues))(
    a + a.mT), I((2, 4, 4)), atol=1e-4, rtol=1e-4)
case("linalg-svd", lambda T, d, a, b: (
    T.linalg.svd(a.detach(), full_matrices=False).S, T.linalg.svd(a.detach(), full_matrices=False).U.abs(),
    T.linalg.svd(b.detach()).Vh.abs(), T.linalg.svdvals(b.mT.detach()), T.linalg.svd(a.mT.detach(), full_matrices=False).Vh.abs()),
     I((5, 3)), I((2, 3, 3)), atol=1e-4, rtol=1e-4)
case("linalg-matrix_norm", lambda T, d, a: (T.linalg.matrix_norm(a), T.linalg.matrix_norm(a, 1), T.linalg.matrix_norm(a, -1),
                                            T.linalg.matrix_norm(a, float("inf"), keepdim=True),
                                            T.linalg.matrix_norm(a.detach(), "nuc"), T.linalg.matrix_norm(a.detach(), 2),
                                            T.linalg.matrix_norm(a.detach(), -2, dim=(0, 2)), T.linalg.norm(a, "fro", (1, 2)),
                                            T.linalg.norm(a[0], 1)),
     I((2, 3, 4)), atol=1e-4, rtol=1e-4)

# -- scatter reductions (a reducing put: sum, prod, max, min) ---------------------------------
for _reduce in ("sum", "prod", "mean", "amax", "amin"):
    case(f"scatter_reduce-{_reduce}", lambda T, d, x, i, s, r=_reduce: (
        (lambda x, s: (T.scatter_reduce(x, 1, i, s, r), x.scatter_reduce(1, i, s, r, include_self=False),
                       x.scatter_reduce(0, i[:1].clamp(max=2), s[:1], r), T.scatter_reduce(x.long(), 1, i, (s * 4).long(), r)))(
            *((x.detach(), s.detach()) if r == "prod" else (x, s)))),
        I((3, 5), kind="values", values=[1.0, 2.0, -3.0, 4.0, 0.5, 2.0]), I((3, 4), I64, low=0, high=4),
        I((3, 4), kind="values", values=[2.0, -1.0, 0.25, 4.0, 2.0]), **RED)
case("scatter-reduce-multiply-add", lambda T, d, x, i, s: (x.detach().scatter(1, i, s.detach(), reduce="multiply"),
                                                           T.scatter(x, 1, i, s, reduce="add"),
                                                           x.clone().scatter_reduce_(1, i, s, "amax")),
     I((3, 5), kind="uniform", low=0.5, high=2), I((3, 4), I64, low=0, high=4), I((3, 4), kind="uniform", low=0.5, high=2),
     **RED)

# -- siblings of OpInfo's known failures (result dtypes of sums, split arguments, error types) --------
case("tensor_split-negative-indices", lambda T, d, a: (  # slice bounds: -1 counts from the end
    T.tensor_split(a, [-1]), a.tensor_split([3, -1], dim=1), T.hsplit(a, [2, 2, -2]), T.vsplit(a, [-9, 9]),
    T.tensor_split(a, T.tensor([1, -2]), 1)), I((4, 6)))
case("sum_to_size-to-scalar", lambda T, d, a, i, b: (  # torch's sum_to(()) is the whole sum: int64 for ints
    a.sum_to_size(()), i.sum_to_size(()), i[0, 0].sum_to_size(()), b.sum_to_size(()), b.sum_to_size(1, 1),
    i.sum_to_size(3, 4)), I((3, 4)), I((3, 4), I32), I((3, 4), BOOL), **RED)
case("addbmm-int-keeps-dtype", lambda T, d, x, a, b: (T.addbmm(x, a, b), T.addbmm(x, a, b, beta=2, alpha=3),
                                                      T.addbmm(x.short(), a.short(), b.short())),
     I((2, 4), I32), I((3, 2, 5), I32), I((3, 5, 4), I32))
case("all-any-uint8", lambda T, d, a: (a.to(T.uint8).all(), T.any(a.to(T.uint8), 0), a.to(T.uint8).all(1, True),
                                       a.all(), a.int().any(0)), I((3, 4), I32, low=0, high=3))
error("vsplit-0-sections", lambda T, d, a: T.vsplit(a, 0), I((2, 2)))
error("hsplit-0-sections", lambda T, d, a: a.hsplit(0), I((2, 2)))
error("tensor_split-0-sections", lambda T, d, a: T.tensor_split(a, 0), I((2, 2)))
error("tensor_split-negative-sections", lambda T, d, a: T.tensor_split(a, -1), I((2, 2)))
error("tensor_split-float-tensor", lambda T, d, a: T.tensor_split(a, a[0]), I((2, 2)))
error("tensor_split-2d-tensor", lambda T, d, a: T.tensor_split(a, T.ones(1, 1, dtype=T.int64, device=d)), I((2, 2)))
error("chunk-float", lambda T, d, a: T.chunk(a, 1.5), I((2, 2)), exc=TypeError)
error("chunk-1d-tensor", lambda T, d, a: a.chunk(T.tensor([1], device=d)), I((2, 2)), exc=TypeError)
error("igamma-number", lambda T, d, a: T.igamma(a, 2), I((3,)), exc=TypeError)
error("special-gammaincc-number", lambda T, d, a: T.special.gammaincc(a, 2.0), I((3,)), exc=TypeError)
error("igamma-int64", lambda T, d, a: T.igamma(a, a), I((3,), I64), exc=NotImplementedError)
error("gradient-one-spacing-two-dims", lambda T, d, a: T.gradient(a, spacing=[0.1], dim=(1, 0)), I((3, 3)))
error("gradient-spacing-list-without-dim", lambda T, d, a: T.gradient(a, spacing=(2.0,)), I((3, 3)))
error("gradient-repeated-dim", lambda T, d, a: T.gradient(a, dim=(1, -1)), I((3, 3)))
error("logcumsumexp-int", lambda T, d, a: T.logcumsumexp(a, 0), I((3,), I64), exc=NotImplementedError)
error("mm-bool", lambda T, d, a: T.mm(a, a), I((2, 2), BOOL), exc=NotImplementedError)
error("dot-bool", lambda T, d, a: T.dot(a, a), I((2,), BOOL), exc=NotImplementedError)
# results that read none of an input's values stay on its graph with a zero gradient, as torch's
case("matrix_power-0", lambda T, d, a: (T.linalg.matrix_power(a, 0), T.matrix_power(a[0], 0)), I((2, 3, 3)))
case("fill-value-tensor", lambda T, d, a, v: (T.fill(a, v[0]), T.fill(a, 2.5), T.fill(a.detach(), v[0])), I((2, 3)), I((1,)))
case("linalg-of-empty", lambda T, d, a, b: (T.cholesky_inverse(a), T.pinverse(a), T.pinverse(b), T.linalg.cholesky(a),
                                            T.linalg.qr(a).Q, T.linalg.solve_triangular(a, b.mT, upper=True),
                                            T.linalg.lu_factor(a).LU), I((2, 0, 0)), I((2, 3, 0)))
case("linalg-multi_dot", lambda T, d, a, b, c, v, i: (  # torch's multiplication order: 2, 3 and 4 matrices
    T.linalg.multi_dot([a, b]), T.linalg.multi_dot([a, b, c]), T.linalg.multi_dot((v[:2], a, b, c, v)),
    T.linalg.multi_dot([v, c.mT, v[:4]]), T.linalg.multi_dot([i, i.mT, i])),
     I((2, 3)), I((3, 4)), I((4, 5)), I((5,)), I((2, 2), I64), atol=1e-4, rtol=1e-4)
case("linalg-derived", lambda T, d, a, b, v, t, tau: (  # a well-conditioned a: its inverse, ranks and norms are stable
    T.linalg.cond(a + 3 * T.eye(3, device=d)), T.linalg.inv_ex(a + 3 * T.eye(3, device=d))[0],
    T.linalg.solve_ex(a + 3 * T.eye(3, device=d), b)[0], T.linalg.matrix_rank(a + 3 * T.eye(3, device=d)),
    T.linalg.pinv(a + 3 * T.eye(3, device=d)), T.linalg.vecdot(a, a.mT),
    T.linalg.householder_product(a, tau), T.linalg.tensorinv(t + 3 * T.eye(4, device=d).reshape(4, 2, 2), ind=1),
    T.linalg.tensorsolve(t + 3 * T.eye(4, device=d).reshape(4, 2, 2), v)),
     I((3, 3), "float32", "uniform", low=-0.5, high=0.5), I((3, 2)), I((4,)), I((4, 2, 2), "float32", "uniform", low=-0.5, high=0.5),
     I((2,), "float32", "uniform", low=0.1, high=1.0), atol=1e-4, rtol=1e-4)
error("linalg-multi_dot-shapes", lambda T, d, a, b: T.linalg.multi_dot([a, b]), I((2, 3)), I((4, 2)))
error("linalg-multi_dot-middle-vector", lambda T, d, a, b: T.linalg.multi_dot([a, b, b]), I((2, 3)), I((3,)))
error("cumsum_-bool", lambda T, d, a: a.clone().cumsum_(0), I((3,), BOOL), exc=NotImplementedError)
error("cumprod-dtype-bool", lambda T, d, a: T.cumprod(a, 0, dtype=T.bool), I((3,)), exc=NotImplementedError)
error("gradient-uint8", lambda T, d, a: T.gradient(a.to(T.uint8)), I((3,), I32, low=0, high=5))
case("cumsum_-int32-in-place", lambda T, d, a, b: (a.clone().cumsum_(0), b.clone().cumprod_(-1), b.cumsum(0)),
     I((5,), I32), I((2, 3)), **RED)
