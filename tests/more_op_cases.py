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
