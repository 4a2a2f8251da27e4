"""Autocast's state and op policies (torch.autocast; the context manager is webtorch.amp.autocast).

Each op on autocast's lists is wrapped (`autocast_op`) where it is defined. Inside an enabled
autocast region, a wrapped op looks up its policy for the device of its first tensor argument and
casts that device's floating tensor arguments (float64 excepted, as torch does) before running:

- "lower": to the region's dtype (float16 / bfloat16): matmul, linear, conv*, attention, ...
- "fp32": to float32: exp, log, pow, layer_norm, losses, ...
- "fp32_dtype": float32 through the op's `dtype` argument, unless the caller gave one: sum, softmax, ...
- "promote": to the widest floating dtype among them: cat, stack, dot, addcmul, ...
- "banned": raises torch's error (binary_cross_entropy on a GPU);
- "native": no casts, but autocast off inside (see _NATIVE).

The lists are torch 2.13's: "webgpu" follows CUDA's (a GPU), "cpu" follows CPU's; ops webtorch
lacks are left out. tests/test_autocast.py compares each op's output dtype with torch's own
autocast (CUDA's through FakeTensorMode, as this torch has no CUDA). Inside a wrapped op autocast is
off, as torch's dispatcher excludes it there; ops not on a list run as they are (and their inner
calls to listed ops are cast), and backward passes run without autocast, in the forward's dtypes.
State is per process (torch's is per thread; Pyodide runs one).
"""
import functools

from . import _dtypes as dt

_CUDA_LOWER = ("matmul mm mv bmm baddbmm addmm addmv addbmm addr chain_matmul einsum linear conv1d conv2d conv3d conv_transpose1d "
               "conv_transpose2d conv_transpose3d prelu "
               "scaled_dot_product_attention")
_CUDA_FP32 = ("acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan pow softplus layer_norm "
              "group_norm norm cosine_similarity poisson_nll_loss cosine_embedding_loss nll_loss kl_div l1_loss "
              "smooth_l1_loss huber_loss mse_loss margin_ranking_loss triplet_margin_loss "
              "binary_cross_entropy_with_logits dist cdist logsumexp interpolate")
_CUDA_FP32_DTYPE = "prod softmax log_softmax cumprod cumsum vector_norm matrix_norm sum"
_CUDA_PROMOTE = "addcdiv addcmul atan2 bilinear cross dot index_put tensordot scatter_add cat stack"
_CPU_LOWER = ("conv1d conv2d conv3d bmm mm baddbmm addmm addbmm linear matmul conv_transpose1d conv_transpose2d "
              "conv_transpose3d prelu scaled_dot_product_attention")
_CPU_FP32 = ("binary_cross_entropy prod quantile nanquantile cdist trace cholesky inv mse_loss cosine_embedding_loss "
             "nll_loss poisson_nll_loss smooth_l1_loss cross_entropy l1_loss huber_loss margin_ranking_loss "
             "triplet_margin_loss ctc_loss kl_div binary_cross_entropy_with_logits solve qr svd svdvals eigh eigvalsh "
             "det slogdet cond householder_product tensorinv tensorsolve")
_CPU_PROMOTE = "stack cat"
_CPU_NATIVE = "mv dot"  # webtorch's go through matmul, on CPU's lower-precision list
# Ops torch runs as one kernel, on no list, that webtorch composes from listed ones (mean from sum):
# nothing is cast, and autocast is off inside, so they keep their inputs' dtype as torch's do.
_NATIVE = ("lu_factor_ex mean var std var_mean std_mean nanmean trace logit xlogy elu selu celu mish logsigmoid batch_norm "
           "instance_norm avg_pool1d avg_pool2d avg_pool3d adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d "
           "embedding_bag")


def _table(**lists):
    return {name: policy for policy, names in lists.items() for name in names.split()}


POLICIES = {
    "webgpu": {**_table(native=_NATIVE, lower=_CUDA_LOWER, fp32=_CUDA_FP32, fp32_dtype=_CUDA_FP32_DTYPE,
                        promote=_CUDA_PROMOTE), "binary_cross_entropy": "banned"},
    "cpu": _table(native=_NATIVE + " " + _CPU_NATIVE, lower=_CPU_LOWER, fp32=_CPU_FP32, promote=_CPU_PROMOTE),
}
DEFAULT_DTYPE = {"webgpu": dt.float16, "cpu": dt.bfloat16}

_BANNED_MESSAGE = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.")

enabled = {"cpu": False, "webgpu": False}  # device type -> on
dtype = dict(DEFAULT_DTYPE)  # device type -> the region's lower-precision dtype
cache_enabled = True
_any_enabled = False  # the wrappers' fast path
_inside_op = False  # a wrapped op is running: its inner calls are not cast again
_cast_cache = {}  # id(leaf) -> (leaf, dtype, its cast), for the outermost region (torch's weight cache)
nesting = 0


def set_enabled(device_type, on):
    global _any_enabled
    enabled[device_type] = bool(on)
    _any_enabled = any(enabled.values())


def clear_cache():
    _cast_cache.clear()


class suspended:
    """Autocast off inside (backward passes)."""

    def __enter__(self):
        global _any_enabled
        self._saved, _any_enabled = _any_enabled, False

    def __exit__(self, *exc):
        global _any_enabled
        _any_enabled = self._saved
        return False


def autocast_op(fn, name=None):
    """fn under autocast's policy for `name` (fn's own name by default)."""
    name = name or fn.__name__
    if not any(name in table for table in POLICIES.values()):
        raise KeyError(f"webtorch: {name} is on no autocast list")

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        global _inside_op
        if not _any_enabled or _inside_op:
            return fn(*args, **kwargs)
        device_type = _first_device(args, kwargs)
        policy = POLICIES[device_type].get(name) if device_type and enabled[device_type] else None
        if policy is None:
            return fn(*args, **kwargs)
        if policy == "banned":
            raise RuntimeError(_BANNED_MESSAGE)
        if policy == "native":
            pass
        elif policy == "fp32_dtype":
            first = _first_tensor(args, kwargs)
            if _eligible(first, device_type) and kwargs.get("dtype") is None:
                kwargs["dtype"] = dt.float32
        else:
            if policy == "promote":
                target = None
                for x in _tensors(args, kwargs):
                    if _eligible(x, device_type):
                        target = x.dtype if target is None else dt.promote(target, x.dtype)
            else:
                target = dt.float32 if policy == "fp32" else dtype[device_type]
            if target is not None:
                args = [_cast_arg(a, target, device_type) for a in args]
                kwargs = {k: _cast_arg(v, target, device_type) for k, v in kwargs.items()}
        _inside_op = True
        try:
            return fn(*args, **kwargs)
        finally:
            _inside_op = False
    wrapper.autocast_name = name
    return wrapper


def _is_tensor(x):
    return hasattr(x, "_storage") and hasattr(x, "dtype")


def _tensors(args, kwargs):
    for a in (*args, *kwargs.values()):
        if _is_tensor(a):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (x for x in a if _is_tensor(x))


def _first_tensor(args, kwargs):
    return next(_tensors(args, kwargs), None)


def _first_device(args, kwargs):
    first = _first_tensor(args, kwargs)
    return first._storage.device_type if first is not None else None


def _eligible(x, device_type):
    return (x is not None and x.dtype.is_floating_point and x.dtype is not dt.float64
            and x._storage.device_type == device_type)


def _cast_arg(a, target, device_type):
    if isinstance(a, (list, tuple)):
        return type(a)(_cast_arg(x, target, device_type) for x in a)
    if not _is_tensor(a) or not _eligible(a, device_type) or a.dtype is target:
        return a
    cacheable = cache_enabled and a.requires_grad and a.grad_fn is None  # torch caches casts of leaf weights
    if cacheable:
        hit = _cast_cache.get(id(a))
        if hit is not None and hit[0] is a and hit[1] is target:
            return hit[2]
    out = a.to(target)
    if cacheable:
        _cast_cache[id(a)] = (a, target, out)
    return out
