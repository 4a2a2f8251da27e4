"""Cases for the API classes of issue 22 that real programs stopped at (missing names, keyword and
legacy forms, grouped-query attention), registered into op_cases.CASES like nn_cases (stdlib only:
they run in the browser too, and every float case's gradient is checked through grad_cases)."""
from op_cases import F16, F32, I, I32, I64, TRANS, case, error

NF = lambda T: T.nn.functional  # noqa: E731


def _idx(T, d, values):
    return T.tensor(values, device=d)


# -- Tensor.type_as / type(name) --------------------------------------------------------------
case("type_as", lambda T, d, a, i: (a.type_as(i), i.type_as(a), a.type_as(a.half()).dtype == T.float16,
                                    a.type_as(i).device.type == d), I((2, 3)), I((3,), I64))
case("type-names", lambda T, d, a: (a.type("torch.LongTensor"), a.type("torch.IntTensor"), a.type(T.LongTensor),
                                    a.type(T.int32), a.type() == "torch.FloatTensor", a.long().type() == "torch.LongTensor",
                                    a.bool().type() == "torch.BoolTensor"), I((4,)))
error("type-bad-name", lambda T, d, a: a.type("LongTensor"), I((2,)), exc=ValueError)
error("torch-assert", lambda T, d, a: T._assert(a.sum() > 1e9, "too small"), I((2,)), exc=AssertionError)
case("torch-assert-passes", lambda T, d, a: (T._assert(True, "x"), T._assert(a.abs().sum() >= 0, "x")), I((2,)))

# -- index_copy ------------------------------------------------------------------------------
case("index_copy-dim0", lambda T, d, x, s: x.index_copy(0, _idx(T, d, [3, 0, 1]), s), I((4, 5)), I((3, 5)))
case("index_copy-dim1", lambda T, d, x, s: T.index_copy(x, 1, _idx(T, d, [4, 2]), s), I((3, 5, 2)), I((3, 2, 2)))
case("index_copy-negative-dim", lambda T, d, x, s: x.index_copy(-1, _idx(T, d, [0, 2]), s), I((2, 3)), I((2, 2)))
case("index_copy_-inplace", lambda T, d, x, s: (lambda y: (y.index_copy_(0, _idx(T, d, [1]), s), y))(x * 1),
     I((3, 2)), I((1, 2)))
case("index_copy-int", lambda T, d, x, s: x.index_copy(0, _idx(T, d, [2, 0]), s), I((3, 2), I32), I((2, 2), I32))
case("index_copy-0d-index", lambda T, d, x, s: x.index_copy(0, _idx(T, d, 1), s), I((3,)), I(()))
case("index_copy-0d-self", lambda T, d, x, s: x.index_copy(0, _idx(T, d, [0]), s), I(()), I(()))
error("index_copy-index-out-of-range", lambda T, d, x, s: x.index_copy(0, _idx(T, d, [3, 0]), s), I((3, 2)),
      I((2, 2)), exc=IndexError)
error("index_copy-negative-index", lambda T, d, x, s: x.index_copy(0, _idx(T, d, [-1, 0]), s), I((3, 2)),
      I((2, 2)), exc=IndexError)
error("index_copy-int32-index", lambda T, d, x, s: x.index_copy(0, T.tensor([1], dtype=T.int32, device=d), s),
      I((3, 2)), I((1, 2)))
error("index_copy-dtype-mismatch", lambda T, d, x, s: x.index_copy(0, _idx(T, d, [1]), s), I((3, 2)),
      I((1, 2), I32))
error("index_copy-count-mismatch", lambda T, d, x, s: x.index_copy(0, _idx(T, d, [1, 2, 0]), s), I((3, 2)),
      I((2, 2)), exc=IndexError)
error("index_copy-slice-mismatch", lambda T, d, x, s: x.index_copy(1, _idx(T, d, [1, 0]), s), I((3, 4)),
      I((4, 2)))
error("index_copy-rank-mismatch", lambda T, d, x, s: x.index_copy(0, _idx(T, d, [1]), s), I((3, 4)), I((4,)),
      exc=IndexError)
error("index_copy-2d-index", lambda T, d, x, s: x.index_copy(0, _idx(T, d, [[1, 0]]), s), I((3, 4)), I((2, 4)),
      exc=IndexError)

# -- grouped-query attention -----------------------------------------------------------------
SDPA_TOL = dict(atol=1e-5, rtol=1e-4)
case("nn-sdpa-gqa", lambda T, d, q, k, v: NF(T).scaled_dot_product_attention(q, k, v, enable_gqa=True),
     I((2, 6, 4, 8)), I((2, 2, 5, 8)), I((2, 2, 5, 8)), **SDPA_TOL)
case("nn-sdpa-gqa-causal-scale", lambda T, d, q, k, v: NF(T).scaled_dot_product_attention(
    q, k, v, is_causal=True, scale=0.3, enable_gqa=True), I((4, 5, 8)), I((1, 5, 8)), I((1, 5, 8)), **SDPA_TOL)
case("nn-sdpa-gqa-kv-heads-differ", lambda T, d, q, k, v, m: NF(T).scaled_dot_product_attention(
    q, k, v, attn_mask=m, enable_gqa=True), I((1, 4, 3, 8)), I((1, 2, 5, 8)), I((1, 1, 5, 8)), I((3, 5)),
     **SDPA_TOL)
case("nn-sdpa-gqa-same-heads", lambda T, d, q, k, v: NF(T).scaled_dot_product_attention(q, k, v, enable_gqa=True),
     I((2, 3, 4, 8)), I((2, 3, 5, 8)), I((2, 3, 5, 8)), **SDPA_TOL)
error("nn-sdpa-gqa-heads-not-dividing", lambda T, d, q, k, v: NF(T).scaled_dot_product_attention(
    q, k, v, enable_gqa=True), I((1, 4, 3, 8)), I((1, 3, 5, 8)), I((1, 3, 5, 8)))
error("nn-sdpa-gqa-more-kv-heads", lambda T, d, q, k, v: NF(T).scaled_dot_product_attention(
    q, k, v, enable_gqa=True), I((1, 2, 3, 8)), I((1, 4, 5, 8)), I((1, 4, 5, 8)))
error("nn-sdpa-no-gqa-heads-differ", lambda T, d, q, k, v: NF(T).scaled_dot_product_attention(q, k, v),
      I((1, 4, 3, 8)), I((1, 2, 5, 8)), I((1, 2, 5, 8)))
error("nn-sdpa-gqa-2d", lambda T, d, q, k, v: NF(T).scaled_dot_product_attention(q, k, v, enable_gqa=True),
      I((3, 8)), I((5, 8)), I((5, 8)), exc=IndexError)


def _with_backends(T, backends, fn):
    with T.nn.attention.sdpa_kernel(backends):
        return fn()


case("nn-sdpa-kernel-math", lambda T, d, q, k, v: (
    _with_backends(T, T.nn.attention.SDPBackend.MATH, lambda: NF(T).scaled_dot_product_attention(q, k, v)),
    _with_backends(T, [T.nn.attention.SDPBackend.FLASH_ATTENTION, T.nn.attention.SDPBackend.MATH],
                   lambda: (T.backends.cuda.flash_sdp_enabled(), T.backends.cuda.mem_efficient_sdp_enabled(),
                            T.backends.cuda.math_sdp_enabled())),
    T.backends.cuda.flash_sdp_enabled(), T.backends.cuda.math_sdp_enabled()),
     I((2, 3, 8)), I((2, 4, 8)), I((2, 4, 8)), **SDPA_TOL)
error("nn-sdpa-kernel-none", lambda T, d, q: _with_backends(
    T, [], lambda: NF(T).scaled_dot_product_attention(q, q, q)), I((2, 3, 8)))
error("nn-sdpa-kernel-bad-arg", lambda T, d, q: _with_backends(T, "math", lambda: q), I((2,)), exc=AssertionError)

# -- torch.Tensor(...): the legacy constructor --------------------------------------------------
case("legacy-Tensor-constructor", lambda T, d, a: (
    T.Tensor(2, 3).shape, T.Tensor().shape, T.Tensor([1, 2]).to(d), T.Tensor((2, 3)).to(d),
    T.Tensor(T.Size([2, 3])).shape, T.Tensor(T.tensor([1, 2])).to(d), T.Tensor(2, 3, 4, 0).shape,
    T.Tensor(2, 3, 4, 5, 1, 2).shape, T.Tensor([True]).to(d), T.Tensor([[1, 2], [3, 4]]).to(d),
    T.Tensor(2, device=d).device.type == d, isinstance(T.Tensor(1), T.Tensor), T.Tensor(a),
    (lambda b: (b.add_(1), a))(T.Tensor(a))), I((3,)))  # T.Tensor(a) shares a's memory
error("legacy-Tensor-float-data", lambda T, d: T.Tensor(2.5), exc=TypeError)
error("legacy-Tensor-negative-size", lambda T, d: T.Tensor(2, -1))

# -- keyword forms of torch's signatures (size=, shape=, dims=, repeats=, input=, out=, low=/high=) --------
case("creation-size-keywords", lambda T, d, a: (
    T.zeros(size=(2, 3), device=d), T.ones(size=[2], device=d), T.empty(size=(2, 3), device=d).shape,
    T.rand(size=(2, 3), device=d).shape, T.randn(size=(1, 2), device=d).shape,
    T.randint(low=0, high=5, size=(3,), device=d).shape, T.randint(high=5, size=(3,), device=d).shape,
    T.randint(5, size=(2,), device=d).shape, T.arange(end=5, device=d), T.arange(start=1, end=4, device=d),
    T.zeros_like(input=a), T.ones_like(input=a), T.full_like(input=a, fill_value=2.0), T.empty_like(input=a).shape,
    T.rand_like(input=a).shape, T.randn_like(input=a).shape, a.new_zeros(size=(2,)), a.new_ones(size=(2,)),
    a.new_empty(size=(2,)).shape), I((2, 3)))
case("creation-out", lambda T, d: (
    (lambda o: (T.zeros(2, 3, out=o), o))(T.empty(6, device=d)), (lambda o: (T.full((2,), 3.0, out=o), o))(
        T.empty(2, device=d)), (lambda o: (T.arange(5, out=o), o))(T.empty(5, dtype=T.int64, device=d)),
    (lambda o: (T.linspace(0, 1, 3, out=o), o))(T.empty(3, device=d)),
    (lambda o: (T.eye(2, 3, out=o), o))(T.empty(2, 3, device=d)), (lambda o: (T.ones(2, out=o), o))(
        T.empty(2, device=d))))
case("view-method-keywords", lambda T, d, a: (
    a.view(size=(3, 2)), a.reshape(shape=(3, 2)), T.reshape(a, shape=(6,)), a.expand(size=(2, 2, 3)),
    a.permute(dims=(1, 0)), T.permute(a, dims=(1, 0)), a.repeat(repeats=(2, 1)), a.tile(dims=(2,)),
    T.tile(a, dims=(2,))), I((2, 3)))
error("reshape-shape-twice", lambda T, d, a: a.reshape(3, 2, shape=(3, 2)), I((2, 3)), exc=TypeError)
