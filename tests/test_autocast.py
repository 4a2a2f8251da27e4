"""torch.autocast: each op's output dtype under autocast against torch's own autocast, and its
values against torch's float32 result with half/bfloat16 tolerances.

"webgpu" follows torch's CUDA lists; this torch has no CUDA, so its CUDA autocast runs on fake CUDA
tensors (FakeTensorMode: dtypes and shapes, no values). "cpu" compares with torch's CPU autocast,
values included."""
import warnings

import pytest
import torch
import torch.nn.functional as torch_F
from torch._subclasses.fake_tensor import FakeTensorMode

import webtorch
import webtorch.nn.functional as webtorch_F

# name -> f(T, F, x): x holds a (4x4 float32), h (a, lowered), v (4), b (2x4x4), x4 (1x2x4x4),
# w4 (3x2x3x3), x3 (1x2x8), w3 (3x2x3), t (int64 targets), p (probabilities)
CASES = {
    "matmul": lambda T, F, x: x.a @ x.a,
    "mm": lambda T, F, x: x.a.mm(x.a),
    "mv": lambda T, F, x: x.a.mv(x.v),
    "dot": lambda T, F, x: x.v.dot(x.v),
    "dot_mixed": lambda T, F, x: x.v.to(x.low).dot(x.v),
    "bmm": lambda T, F, x: x.b.bmm(x.b),
    "baddbmm": lambda T, F, x: T.baddbmm(x.b, x.b, x.b),
    "addmm": lambda T, F, x: T.addmm(x.a, x.a, x.a),
    "addmv": lambda T, F, x: T.addmv(x.v, x.a, x.v),
    "einsum": lambda T, F, x: T.einsum("ij,jk->ik", x.a, x.a),
    "outer": lambda T, F, x: T.outer(x.v, x.v),
    "tensordot": lambda T, F, x: T.tensordot(x.h, x.a, 1),
    "linear": lambda T, F, x: F.linear(x.a, x.a, x.v),
    "linear_module": lambda T, F, x: x.linear(x.a),
    "conv1d": lambda T, F, x: F.conv1d(x.x3, x.w3),
    "conv2d": lambda T, F, x: F.conv2d(x.x4, x.w4, padding=1),
    "conv_transpose2d": lambda T, F, x: F.conv_transpose2d(x.x4, x.w4.transpose(0, 1)),
    "prelu": lambda T, F, x: F.prelu(x.x4, x.w1),
    "sdpa": lambda T, F, x: F.scaled_dot_product_attention(x.b, x.b, x.b),
    "softmax": lambda T, F, x: x.h.softmax(-1),
    "log_softmax": lambda T, F, x: x.h.log_softmax(-1),
    "softmax_dtype": lambda T, F, x: x.h.softmax(-1, dtype=T.float16),
    "sum": lambda T, F, x: x.h.sum(),
    "sum_dim": lambda T, F, x: x.h.sum(1),
    "sum_int": lambda T, F, x: x.t.sum(),
    "mean": lambda T, F, x: x.h.mean(),
    "var": lambda T, F, x: x.h.var(),
    "std": lambda T, F, x: x.h.std(1),
    "prod": lambda T, F, x: x.h.prod(),
    "cumsum": lambda T, F, x: x.h.cumsum(0),
    "exp": lambda T, F, x: x.h.exp(),
    "log": lambda T, F, x: x.p.log(),
    "log1p": lambda T, F, x: x.p.log1p(),
    "pow": lambda T, F, x: x.h.pow(2),
    "pow_tensor": lambda T, F, x: x.p ** x.h,
    "rpow": lambda T, F, x: 2 ** x.h,
    "sqrt": lambda T, F, x: x.p.sqrt(),
    "rsqrt": lambda T, F, x: x.p.rsqrt(),
    "tanh": lambda T, F, x: x.h.tanh(),
    "sigmoid": lambda T, F, x: x.h.sigmoid(),
    "reciprocal": lambda T, F, x: x.h.reciprocal(),
    "tan": lambda T, F, x: x.h.tan(),
    "relu": lambda T, F, x: T.relu(x.h),
    "gelu": lambda T, F, x: F.gelu(x.h),
    "silu": lambda T, F, x: F.silu(x.h),
    "softplus": lambda T, F, x: F.softplus(x.h),
    "layer_norm": lambda T, F, x: F.layer_norm(x.h, (4,)),
    "layer_norm_module": lambda T, F, x: x.norm(x.a @ x.a),
    "group_norm": lambda T, F, x: F.group_norm(x.x4.to(x.low), 2),
    "mse_loss": lambda T, F, x: F.mse_loss(x.h, x.a),
    "l1_loss": lambda T, F, x: F.l1_loss(x.h, x.h),
    "smooth_l1_loss": lambda T, F, x: F.smooth_l1_loss(x.h, x.h),
    "huber_loss": lambda T, F, x: F.huber_loss(x.h, x.h),
    "cross_entropy": lambda T, F, x: F.cross_entropy(x.a @ x.a, x.t),
    "nll_loss": lambda T, F, x: F.nll_loss(x.h, x.t),
    "bce_with_logits": lambda T, F, x: F.binary_cross_entropy_with_logits(x.h, x.p),
    "bce": lambda T, F, x: F.binary_cross_entropy(x.p.to(x.low), x.p),
    "kl_div": lambda T, F, x: F.kl_div(x.h, x.p, reduction="batchmean"),
    "cosine_similarity": lambda T, F, x: F.cosine_similarity(x.h, x.a),
    "logsumexp": lambda T, F, x: x.h.logsumexp(0),
    "norm": lambda T, F, x: x.h.norm(),
    "vector_norm": lambda T, F, x: T.linalg.vector_norm(x.h),
    "cdist": lambda T, F, x: T.cdist(x.h, x.h),
    "dist": lambda T, F, x: T.dist(x.h, x.h),
    "interpolate": lambda T, F, x: F.interpolate(x.x4.to(x.low), scale_factor=2),
    "interpolate_bilinear": lambda T, F, x: F.interpolate(x.x4.to(x.low), scale_factor=2, mode="bilinear"),
    "cat": lambda T, F, x: T.cat([x.h, x.a]),
    "cat_low": lambda T, F, x: T.cat([x.h, x.h]),
    "stack": lambda T, F, x: T.stack([x.h, x.a]),
    "add": lambda T, F, x: x.h + x.a,
    "addcmul": lambda T, F, x: T.addcmul(x.h, x.a, x.a),
    "atan2": lambda T, F, x: T.atan2(x.h, x.a),
    "max": lambda T, F, x: x.h.max(),
    "amax": lambda T, F, x: x.h.amax(0),
    "trace": lambda T, F, x: x.h.trace(),
    "where": lambda T, F, x: T.where(x.t > 1, x.h, x.a),
    "embedding": lambda T, F, x: F.embedding(x.t, x.h),
    "float64": lambda T, F, x: x.a.double() @ x.a.double(),
    "double_softmax": lambda T, F, x: x.a.double().softmax(0),
    "mlp": lambda T, F, x: F.gelu(x.linear(x.a)).sum(),
    "batch_norm": lambda T, F, x: F.batch_norm(x.x4.to(x.low), x.w4[0, :, 0, 0], x.w4[1, :, 0, 0].abs()),
    "batch_norm_train": lambda T, F, x: F.batch_norm(x.x4.to(x.low), None, None, training=True),
    "instance_norm": lambda T, F, x: F.instance_norm(x.x4.to(x.low)),
    "rms_norm": lambda T, F, x: F.rms_norm(x.h, (4,)),
    "avg_pool2d": lambda T, F, x: F.avg_pool2d(x.x4.to(x.low), 2),
    "adaptive_avg_pool2d": lambda T, F, x: F.adaptive_avg_pool2d(x.x4.to(x.low), 1),
    "max_pool2d": lambda T, F, x: F.max_pool2d(x.x4.to(x.low), 2),
    "elu": lambda T, F, x: F.elu(x.h),
    "selu": lambda T, F, x: F.selu(x.h),
    "celu": lambda T, F, x: F.celu(x.h),
    "mish": lambda T, F, x: F.mish(x.h),
    "logsigmoid": lambda T, F, x: F.logsigmoid(x.h),
    "glu": lambda T, F, x: F.glu(x.h),
    "softmin": lambda T, F, x: F.softmin(x.h, -1),
    "normalize": lambda T, F, x: F.normalize(x.h),
    "dropout_eval": lambda T, F, x: F.dropout(x.h, 0.5, training=False),
    "pairwise_distance": lambda T, F, x: F.pairwise_distance(x.h, x.h),
    "hardsigmoid": lambda T, F, x: F.hardsigmoid(x.h),
    "leaky_relu": lambda T, F, x: F.leaky_relu(x.h),
    "nanmean": lambda T, F, x: x.h.nanmean(),
    "var_mean": lambda T, F, x: T.var_mean(x.h)[0],
    "logaddexp": lambda T, F, x: T.logaddexp(x.h, x.h),
    "logit": lambda T, F, x: T.logit(x.p.to(x.low)),
    "xlogy": lambda T, F, x: T.xlogy(x.h, x.p.to(x.low)),
    "sinc": lambda T, F, x: T.sinc(x.h),
    "exp2": lambda T, F, x: T.exp2(x.h),
    "sin": lambda T, F, x: x.h.sin(),
    "erf": lambda T, F, x: x.h.erf(),
    "lerp": lambda T, F, x: T.lerp(x.h, x.h, 0.25),
    "addcdiv": lambda T, F, x: T.addcdiv(x.h, x.a, x.p),
    "logcumsumexp": lambda T, F, x: T.logcumsumexp(x.h, 0),
    "cumprod": lambda T, F, x: x.h.cumprod(1),
    "gaussian_nll_loss": lambda T, F, x: F.gaussian_nll_loss(x.h, x.a, x.p),
    "multilabel_soft_margin_loss": lambda T, F, x: F.multilabel_soft_margin_loss(x.h, x.p),
    "margin_ranking_loss": lambda T, F, x: F.margin_ranking_loss(x.h, x.a, x.p.sign()),
    "cosine_embedding_loss": lambda T, F, x: F.cosine_embedding_loss(x.h, x.a, x.p.sign()[0]),
    "poisson_nll_loss": lambda T, F, x: F.poisson_nll_loss(x.h, x.p),
    "triplet_margin_loss": lambda T, F, x: F.triplet_margin_loss(x.h, x.a, x.a),
    "bilinear": lambda T, F, x: F.bilinear(x.h, x.a, x.b[:, :, :4].contiguous()),
    "mha": lambda T, F, x: F.multi_head_attention_forward(
        x.b, x.b, x.b, 4, 2, x.w_in, None, None, None, False, 0.0, x.a, None, need_weights=False)[0],
    "topk": lambda T, F, x: x.h.topk(2)[0],
    "sort": lambda T, F, x: x.h.sort()[0],
    "index_put": lambda T, F, x: x.a.index_put((x.t,), x.h[0]),
    "scatter_add": lambda T, F, x: x.h.scatter_add(0, x.t[None].expand(4, 4), x.a),
    "clamp": lambda T, F, x: x.h.clamp(-0.5, 0.5),
    "square": lambda T, F, x: x.h.square(),
    "abs": lambda T, F, x: x.h.abs(),
    "median": lambda T, F, x: x.h.median(),
    "quantile": lambda T, F, x: x.h.quantile(0.5),
    "cross": lambda T, F, x: T.cross(x.h[:3, :3], x.a[:3, :3], dim=0),
    "linalg_norm": lambda T, F, x: T.linalg.norm(x.h),
    "matrix_norm": lambda T, F, x: T.linalg.matrix_norm(x.h),
    "inv": lambda T, F, x: T.linalg.inv(x.a + 4 * T.eye(4, device=x.a.device)),
    "inv_ex": lambda T, F, x: T.linalg.inv_ex(x.h + 4 * T.eye(4, device=x.a.device, dtype=x.low)).inverse,
    "cond": lambda T, F, x: T.linalg.cond(x.h + 4 * T.eye(4, device=x.a.device, dtype=x.low), 1),
    "tensorinv": lambda T, F, x: T.linalg.tensorinv(x.h + 4 * T.eye(4, device=x.a.device, dtype=x.low), 1),
    "tensorsolve": lambda T, F, x: T.linalg.tensorsolve(x.h + 4 * T.eye(4, device=x.a.device, dtype=x.low), x.v.to(x.low)),
    "householder_product": lambda T, F, x: T.linalg.householder_product(x.h, x.v[:2].to(x.low)),
}
# torch's fake CUDA tensors cannot run these (a kernel or meta function missing): the dtype its
# CUDA autocast gives, from its op lists (promote: the widest; fp32; not listed: the input's).
CUDA_BY_HAND = {"cross": "float32", "index_put": "float32", "scatter_add": "float32", "bilinear": "float32",
                "cosine_embedding_loss": "float32", "batch_norm": "float16", "mha": "float16",
                "quantile": "float16", "gaussian_nll_loss": "float32",
                # linalg on no CUDA list (torch has no meta function for their half inputs): the input's dtype;
                # cond's norms are matrix_norm's, on CUDA's fp32 list
                "inv_ex": "float16", "householder_product": "float16", "tensorinv": "float16",
                "cond": "float32"}
# torch refuses these mixed-dtype inputs outside autocast too ("expected both vectors to have same
# dtype"); webtorch promotes them (a known leniency, docs/limits.md), so CPU autocast, which
# does not cast for them, cannot be compared.
MIXED_ON_CPU = {"bilinear", "cross", "dot_mixed", "index_put", "scatter_add", "tensordot"}
NOT_ON_WEBGPU = {"float64", "double_softmax"}  # float64 on webgpu is float32 (docs/compatibility.md: Dtypes on webgpu)


class Inputs:
    def __init__(self, T, device, low, make):
        g = torch.Generator().manual_seed(0)
        r = lambda *s: make(torch.randn(*s, generator=g))  # noqa: E731
        self.low = low
        self.a, self.v, self.b = r(4, 4), r(4), r(2, 4, 4)
        self.h = self.a.to(low)
        self.x4, self.w4, self.x3, self.w3 = r(1, 2, 4, 4), r(3, 2, 3, 3), r(1, 2, 8), r(3, 2, 3)
        self.w1 = make(torch.tensor([0.25]))
        self.w_in = r(12, 4)
        self.p = make(torch.rand(4, 4, generator=g) * 0.9 + 0.05)
        self.t = make(torch.tensor([0, 1, 2, 3]))
        self.linear, self.norm = T.nn.Linear(4, 3), T.nn.LayerNorm(4)
        self.linear.weight = T.nn.Parameter(r(3, 4))
        self.linear.bias = T.nn.Parameter(r(3))
        self.norm.weight = T.nn.Parameter(make(torch.ones(4)))
        self.norm.bias = T.nn.Parameter(make(torch.zeros(4)))


def _webtorch_maker(device):
    return lambda t: webtorch.tensor(t.tolist(), dtype=getattr(webtorch, str(t.dtype)[6:]), device=device)


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 (the exception type is the outcome compared)
        return e


def _fake_cuda(t):
    return torch.empty(t.shape, dtype=t.dtype, device="cuda")


def _torch_cuda_dtypes(low):
    """Each case's output dtype under torch's CUDA autocast (or its exception type)."""
    mode = FakeTensorMode()
    with mode:
        x = Inputs(torch, "cuda", getattr(torch, low.name), _fake_cuda)
    torch.set_autocast_enabled("cuda", True)
    torch.set_autocast_dtype("cuda", getattr(torch, low.name))
    torch.set_autocast_cache_enabled(False)  # this and no_grad: autograd on fake CUDA aborts the process
    try:
        with mode, torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {name: _kind(_outcome(lambda: f(torch, torch_F, x))) for name, f in CASES.items()}
    finally:
        torch.set_autocast_enabled("cuda", False)
        torch.set_autocast_cache_enabled(True)


def _kind(result):
    return type(result).__name__ if isinstance(result, Exception) else str(result.dtype).split(".")[-1]


def _run_webtorch(device, low, name):
    x = Inputs(webtorch, device, low, _webtorch_maker(device))
    with webtorch.autocast(device, dtype=low):
        return _outcome(lambda: CASES[name](webtorch, webtorch_F, x))


def _reference(name):
    """torch's float32 result without autocast (inputs lowered by the case stay lowered)."""
    x = Inputs(torch, "cpu", torch.float32, lambda t: t)
    x.low = torch.float32
    return _outcome(lambda: CASES[name](torch, torch_F, x))


_CUDA = {}


@pytest.mark.parametrize("name", sorted(CASES))
def test_webgpu_matches_torch_cuda_autocast(name):
    if name in NOT_ON_WEBGPU:
        pytest.skip("float64 on webgpu is float32")
    if not _CUDA:
        _CUDA.update(_torch_cuda_dtypes(webtorch.float16))
    got = _run_webtorch("webgpu", webtorch.float16, name)
    if name in CUDA_BY_HAND:
        assert _CUDA[name] in ("RuntimeError", "DataDependentOutputException"), "torch runs it now: drop the hand value"
        _CUDA[name] = CUDA_BY_HAND[name]
    assert _kind(got) == _CUDA[name], (name, got)
    expected = _reference(name)
    if not isinstance(got, Exception) and not isinstance(expected, Exception):
        tol = 2e-2 if got.dtype in (webtorch.float16, webtorch.float32) else 1e-5
        torch.testing.assert_close(torch.tensor(got.float().tolist()), expected.float(), rtol=tol, atol=tol)


@pytest.mark.parametrize("low", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_cpu_matches_torch_cpu_autocast(name, low):
    if name in MIXED_ON_CPU:
        pytest.skip("torch refuses these mixed dtypes, webtorch promotes them")
    got = _run_webtorch("cpu", getattr(webtorch, low), name)
    x = Inputs(torch, "cpu", getattr(torch, low), lambda t: t)
    with torch.autocast("cpu", dtype=getattr(torch, low)):
        expected = _outcome(lambda: CASES[name](torch, torch_F, x))
    assert _kind(got) == _kind(expected), (name, got, expected)
    if not isinstance(got, Exception):
        tol = 4e-2 if low == "bfloat16" else 1e-2
        torch.testing.assert_close(torch.tensor(got.float().tolist()), expected.float(), rtol=tol, atol=tol)


def _state(T, device):
    return T.is_autocast_enabled(device), T.get_autocast_dtype(device)


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_nesting_disabling_and_the_decorator_restore_state_like_torch(device):
    # torch has no "webgpu": its "cpu" state machine is the reference for both
    def run(T, dev):
        seen = [_state(T, dev)]

        @T.autocast(dev, dtype=T.bfloat16)
        def decorated():
            seen.append(_state(T, dev))

        with T.autocast(dev, dtype=T.bfloat16):
            seen.append(_state(T, dev))
            with T.autocast(dev, enabled=False):
                seen.append(_state(T, dev))
                decorated()
                seen.append(_state(T, dev))
            with T.amp.autocast(dev, dtype=T.float16):
                seen.append(_state(T, dev))
            seen.append(_state(T, dev))
        seen.append(_state(T, dev))
        return [(on, str(d).split(".")[-1]) for on, d in seen]
    expected = run(torch, "cpu")
    if device == "webgpu":  # its default dtype is float16, as CUDA's
        expected = [(on, "float16" if i in (0, 7) else d) for i, (on, d) in enumerate(expected)]
    assert run(webtorch, device) == expected


def test_autocast_arguments_and_warnings_match_torch():
    for T in (torch, webtorch):
        with pytest.raises(ValueError, match="device_type"):
            T.autocast(1)
        with pytest.warns(UserWarning, match="CUDA is not available"):
            with T.autocast("cuda"):
                assert not T.is_autocast_enabled("cuda")
        with pytest.warns(UserWarning, match="CUDA is not available"):
            with T.cuda.amp.autocast():
                pass
        with pytest.warns(UserWarning, match="CPU Autocast only supports dtypes of torch.bfloat16"):
            with T.autocast("cpu", dtype=T.float32):
                assert not T.is_autocast_enabled("cpu")
        assert not T.is_autocast_enabled() and T.amp.is_autocast_available("cpu")
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'xyz'"):
        webtorch.autocast("xyz")
    x = webtorch.ones(2, 2, device="webgpu")
    with webtorch.autocast("webgpu"):
        assert webtorch.is_autocast_enabled("webgpu") and (x @ x).dtype == webtorch.float16
        assert (x.cpu() @ x.cpu()).dtype == webtorch.float32  # cpu autocast stays off
    assert (x @ x).dtype == webtorch.float32


def test_weight_casts_are_cached_within_the_outermost_region():
    lin = webtorch.nn.Linear(4, 4).to("webgpu")
    x = webtorch.ones(2, 4, device="webgpu")
    with webtorch.autocast("webgpu"):
        with webtorch.autocast("webgpu"):
            a = lin(x)
        b = lin(x)
        assert len(webtorch._autocast._cast_cache) == 2  # weight and bias, cast once
    assert not webtorch._autocast._cast_cache
    assert a.tolist() == b.tolist()
    with webtorch.autocast("webgpu", cache_enabled=False):
        lin(x)
        assert not webtorch._autocast._cast_cache


def _train(T, device, low, steps=6):
    """A small MLP classifier trained with autocast and GradScaler."""
    g = torch.Generator().manual_seed(1)
    as_t = (lambda t: t) if T is torch else _webtorch_maker(device)
    model = T.nn.Sequential(T.nn.Linear(8, 16), T.nn.GELU(), T.nn.LayerNorm(16), T.nn.Linear(16, 3))
    with T.no_grad():
        for p in model.parameters():
            p.copy_(as_t(torch.randn(p.shape, generator=g) * 0.3))
    model = model.to(device)
    x, y = as_t(torch.randn(32, 8, generator=g)), as_t(torch.randint(0, 3, (32,), generator=g))
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    scaler = T.amp.GradScaler(device, init_scale=256.0)
    losses, dtypes = [], set()
    for _ in range(steps):
        opt.zero_grad()
        with T.autocast(device, dtype=low):
            logits = model(x)
            loss = T.nn.functional.cross_entropy(logits, y)
        dtypes.add((str(logits.dtype).split(".")[-1], str(loss.dtype).split(".")[-1]))
        scaler.scale(loss).backward()
        dtypes.add(tuple(str(p.grad.dtype).split(".")[-1] for p in model.parameters()))
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    return losses, dtypes


def test_training_with_autocast_and_grad_scaler():
    reference, _ = _train(torch, "cpu", torch.float16)  # torch's CPU autocast to float16: the same lists here
    got, dtypes = _train(webtorch, "webgpu", webtorch.float16)
    assert dtypes == {("float16", "float32"), ("float32",) * 6}
    assert got == pytest.approx(reference, rel=2e-2, abs=2e-2) and got[-1] < got[0]
    got_cpu, _ = _train(webtorch, "cpu", webtorch.bfloat16)
    expected_cpu, _ = _train(torch, "cpu", torch.bfloat16)
    assert got_cpu == pytest.approx(expected_cpu, rel=3e-2, abs=3e-2)
