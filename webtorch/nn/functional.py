"""torch.nn.functional: layers, activations and losses as functions of tensors.

Everything here is derived from webtorch's ops, so autograd differentiates it without rules of
its own. Convolution and pooling gather their windows with strided slices (im2col), then use
matmul or a reduction.
"""
import functools
import inspect
import itertools
import math
import warnings

from .. import _dtypes as dt
from .. import _indexing, _math_ops, _shape_ops, _tape
from ..backends import cuda as _sdp_flags
from .._autocast import autocast_op
from .. import _ops as F
from .._ops import gelu, linear, log_softmax, sigmoid, softmax, tanh  # noqa: F401
from .._inplace import _inplace
from .._tensor import versions
from .._indexing import _check_bounds, _gather, _known_in_range
from .._math_ops import log1p, vector_norm
from .._random import rand
from .._conv_ops import _conv2d_input_grad, _conv2d_weight_grad, _windows, col2im, pad, transposed_conv  # noqa: F401
from ..autograd import no_grad
from . import _embedding_bag
from ._grid import affine_grid, cubic_taps, grid_sample, keys_far, keys_near  # noqa: F401
from ._fractional_pool import (fractional_max_pool2d, fractional_max_pool2d_with_indices,  # noqa: F401
                               fractional_max_pool3d, fractional_max_pool3d_with_indices)
from ..overrides import handle_torch_function, has_torch_function, has_torch_function_unary, \
    has_torch_function_variadic  # noqa: F401  (torch's F imports them for its own use; code reaches them here)


def _pair(v, n=2):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


# -- activations -----------------------------------------------------------------------------
def _inplace_option(fn):
    """torch's `inplace=True` (keyword or positional): fn's result is written into x as an in-place op
    (as Tensor.relu_: autograd's version check, views write through to their base) and x returned."""
    position = list(inspect.signature(fn).parameters).index("inplace")
    written = _inplace(fn)

    @functools.wraps(fn)
    def op(*args, **kwargs):
        inplace = kwargs.pop("inplace", False) if len(args) <= position else args[position]
        if not inplace:
            return fn(*args[:position], *args[position + 1:], **kwargs)
        return written(*args[:position], *args[position + 1:], **kwargs)
    return op


@_inplace_option
def relu(x, inplace=False):
    return F.relu(x)


@_inplace_option
def silu(x, inplace=False):
    return F.silu(x)


@_inplace_option
def leaky_relu(x, negative_slope=0.01, inplace=False):
    return F.where(F.gt(x, 0), x, x * negative_slope)


@_inplace_option
@autocast_op
def elu(x, alpha=1.0, inplace=False):
    return F.where(F.le(x, 0), _math_ops.expm1(_nonpositive_part(x)) * alpha, x)  # e^x - 1 exact near 0


def _nonpositive_part(x):
    """x where x <= 0, else 0: the input of elu's exponential branch. A NaN takes the x branch, with
    gradient 1 as in torch's elu_backward (x <= 0 ? ... : g), and no NaN reaches this branch's chain."""
    return F.where(F.le(x, 0), x, 0.0)


@autocast_op
def softplus(x, beta=1.0, threshold=20.0):
    scaled = x * beta
    return F.where(F.gt(scaled, threshold), x, log1p(F.exp(F.minimum(scaled, F.full_like(x, threshold)))) / beta)


@_inplace_option
def hardtanh(x, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if not x.dtype.is_floating_point:  # torch casts the bounds to the integer dtype
        min_val, max_val = int(min_val), int(max_val)
    with no_grad():
        out = F.clamp(x, min_val, max_val)
    return _tape.record("hardtanh", out, (x, min_val, max_val))  # clamp's values, hardtanh's gradient


@_inplace_option
def relu6(x, inplace=False):
    return hardtanh(x, 0.0, 6.0)


@_inplace_option
def hardswish(x, inplace=False):
    return x * relu6(x + 3) / 6  # relu6: torch's one-sided derivative at -3 and 3


@_inplace_option
@autocast_op
def mish(x, inplace=False):
    return x * F.tanh(softplus(x))


def normalize(x, p=2.0, dim=1, eps=1e-12, out=None):
    from .._math_ops import vector_norm
    return x / F.clamp(vector_norm(x, p, dim, keepdim=True), min=eps)


def _keep_mask(x, p, training, shape):
    """The dropout keep mask (1 kept, 0 dropped, of `shape`, x's dtype); None when nothing is dropped."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return None
    return F.cast(F.ge(rand(*shape, device=x.device), p), x.dtype)


@_inplace_option
def dropout(x, p=0.5, training=True, inplace=False):
    keep = _keep_mask(x, p, training, x.shape)
    if keep is None:
        return x
    return x * keep / (1 - p) if p < 1 else x * keep


# -- normalisation ---------------------------------------------------------------------------
def _normalized_dims(x, normalized_shape, weight=None):
    """The number of trailing dims layer_norm/rms_norm normalise over, after torch's checks."""
    shape = list(_pair(normalized_shape, 1))
    n_dims = len(shape)
    if not n_dims:
        raise RuntimeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {shape}")
    if list(x.shape[x.dim() - n_dims:]) != shape or n_dims > x.dim():
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape [*, {', '.join(map(str, shape))}]"
                           f", but got input of size{list(x.shape)}")
    if weight is not None and list(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {shape}")
    return n_dims


@autocast_op
def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    n_dims = _normalized_dims(x, normalized_shape, weight)
    fused = F._layer_norm(x, n_dims, weight, bias, eps)
    if fused is not None:
        return fused
    dims = tuple(range(x.dim() - n_dims, x.dim()))
    centered = x - F._shifted_mean(x, dims)
    var = F.mean(centered * centered, dims, keepdim=True)
    out = centered * F.rsqrt(var + eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return F.cast(out, x.dtype)  # torch: float16 input with float32 weight gives float16


def rms_norm(x, normalized_shape, weight=None, eps=None):
    n_dims = _normalized_dims(x, normalized_shape, weight)
    eps = 1.1920928955078125e-07 if eps is None else eps  # torch: finfo(float32).eps
    fused = F._rms_norm(x, n_dims, weight, eps)
    if fused is not None:
        return fused
    dims = tuple(range(x.dim() - n_dims, x.dim()))
    out = x * F.rsqrt(F.mean(x * x, dims, keepdim=True) + eps)
    return out * weight if weight is not None else out


@autocast_op
def group_norm(x, num_groups, weight=None, bias=None, eps=1e-5):
    if x.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {x.dim()}")
    n, c = x.shape[0], x.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(x.shape)} and num_groups={num_groups}")
    if n * c // num_groups * math.prod(x.shape[2:]) == 1:  # torch's _verify_batch_size: batch included
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(x.shape)}")
    grouped = x.reshape(n, num_groups, math.prod(x.shape[1:]) // num_groups)  # explicit: n may be 0
    out = layer_norm(grouped, grouped.shape[-1:], eps=eps).reshape(x.shape)
    shape = [1, c] + [1] * (x.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


@autocast_op
def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    dims = (0,) + tuple(range(2, x.dim()))
    shape = [1, x.shape[1]] + [1] * (x.dim() - 2)
    if training:
        if x.numel() // x.shape[1] == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"torch.Size({list(x.shape)})")
        centered, rstd, mean, var_s, inv = _normalizing(x, dims, eps)
        if running_mean is not None:
            n = x.numel() // x.shape[1]
            with no_grad():  # var_s * momentum n / (n - 1) before unscaling: finite where that fits, as in float64
                F._copy_into(running_mean, running_mean * (1 - momentum) + mean.reshape(-1) * momentum)
                F._copy_into(running_var, running_var * (1 - momentum) + (
                    var_s * (momentum * n / max(n - 1, 1)) / inv / inv).reshape(-1))
    else:
        return F.cast(_affine(x, F.rsqrt(running_var.reshape(shape) + eps), weight, bias, shape,
                              running_mean.reshape(shape)), x.dtype)
    return F.cast(_affine(centered, rstd, weight, bias, shape), x.dtype)  # torch: float16 input, float32 statistics: float16


def _normalizing(x, dims, eps):
    """(x * inv - mean_s, rsqrt(var_s + eps inv^2), mean, var_s, inv) of F._moments' scaled statistics over dims
    (keepdim): the first two's product is (x - mean) / sqrt(var + eps) whatever float32 cannot square; mean
    unscaled (no gradient; the variance unscaled, var_s / inv^2, may overflow). x * inv - mean as one fused
    multiply-add."""
    mean_s, var_s, inv = F._moments(x, dims)
    with no_grad():
        mean = mean_s / inv
    return F.elementwise("addcmul", -mean_s, x, inv), F.rsqrt(var_s + eps * inv * inv), mean, var_s, inv


def _affine(centered, rstd, weight, bias, shape, mean=None):
    """centered * rstd * weight + bias, weight and bias (if given) reshaped to shape; the last step one fused
    multiply-add. With mean (running statistics), centered is x and this is torch's CPU form x * alpha +
    (bias - mean * alpha), alpha = rstd * weight: x - mean would overflow where it does not (3e38 - -3e38)."""
    scale = rstd * weight.reshape(shape) if weight is not None else rstd
    shift = bias.reshape(shape) if bias is not None else None
    if mean is not None:
        shift = -mean * scale if shift is None else shift - mean * scale
    return F.elementwise("addcmul", shift, centered, scale) if shift is not None else centered * scale


# -- padding, windows, convolution, pooling --------------------------------------------------
def _conv(x, weight, bias, stride, padding, dilation, groups, nd):
    unbatched = x.dim() == nd + 1
    if unbatched:
        x = F.unsqueeze(x, 0)
    kernel = tuple(weight.shape[2:])
    stride, dilation = _pair(stride, nd), _pair(dilation, nd)
    if padding == "same":
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        total = [dilation[i] * (kernel[i] - 1) for i in range(nd)]
        pads = [(t // 2, t - t // 2) for t in total]
    elif padding == "valid":
        pads = [(0, 0)] * nd
    else:
        pads = [(p, p) for p in _pair(padding, nd)]
    n, c = x.shape[0], x.shape[1]
    if c != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(x.shape)} to have {weight.shape[1] * groups} channels, but got {c} channels instead")
    if nd == 2:
        out_sizes = [(s + p[0] + p[1] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
                     for i, (s, p) in enumerate(zip(x.shape[2:], pads))]
        if all(o > 0 for o in out_sizes):
            out = F._conv2d(x, weight, bias, stride, (pads[0][0], pads[1][0]), dilation, groups, tuple(out_sizes))
            if out is not None:
                return F.squeeze(out, 0) if unbatched else out
    flat_pad = [v for p in reversed(pads) for v in p]
    if any(flat_pad):
        x = pad(x, flat_pad)
    cols, out_sizes = _windows(x, kernel, stride, dilation)           # (N, C, K, *out)
    k = math.prod(kernel)
    cols = cols.reshape(n, groups, (c // groups) * k, math.prod(out_sizes))  # (N, G, C/G*K, L)
    w = weight.reshape(groups, weight.shape[0] // groups, -1)        # (G, O/G, C/G*K)
    out = F.matmul(F.unsqueeze(w, 0), cols)                           # (N, G, O/G, L)
    out = out.reshape(n, weight.shape[0], *out_sizes)
    if bias is not None:
        out = out + bias.reshape([1, -1] + [1] * nd)
    return F.squeeze(out, 0) if unbatched else out


@autocast_op
def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(x, weight, bias, stride, padding, dilation, groups, 1)


@autocast_op
def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(x, weight, bias, stride, padding, dilation, groups, 2)


@autocast_op
def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(x, weight, bias, stride, padding, dilation, groups, 3)


def _conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation, nd):
    """conv_transpose{nd}d as torch computes it: every input position's products with the kernel
    (one matmul per group), then each output's sum of the products that land on it (col2im)."""
    if weight.numel() == 0:
        raise RuntimeError(f"non-empty 2D or 4D weight tensor expected, but got: {list(weight.shape)}" if nd == 2 else
                           f"Given groups={groups}, expected weight to be at least 1 at dimension 0, but got weight of "
                           f"size {list(weight.shape)} instead")
    stride, padding, output_padding, dilation = (_pair(v, nd) for v in (stride, padding, output_padding, dilation))
    unbatched = x.dim() == nd + 1
    if unbatched:
        x = F.unsqueeze(x, 0)
    n, c, spatial, kernel = x.shape[0], x.shape[1], x.shape[2:], weight.shape[2:]
    if x.numel() == 0 and n and c:
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: {list(x.shape)}")
    out_size = [(s - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k - 1) + output_padding[i] + 1
                for i, (s, k) in enumerate(zip(spatial, kernel))]
    if all(o <= 0 for o in out_size) or any(o < 0 for o in out_size):  # torch: one of them may be 0
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, spatial))}). Calculated output size "
                           f"per channel: ({' x '.join(map(str, out_size))}). Output size is too small")
    if 0 in out_size:  # torch returns the empty result
        out = F.zeros(n, weight.shape[1] * groups, *out_size, dtype=x.dtype, device=x.device)
        return F.squeeze(out, 0) if unbatched else out
    if c != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input{list(x.shape)} to "
                           f"have {weight.shape[0]} channels, but got {c} channels instead")
    out = transposed_conv(x, weight, groups, out_size, stride, padding, dilation)
    if bias is not None:
        out = out + bias.reshape([1, -1] + [1] * nd)
    return F.squeeze(out, 0) if unbatched else out


@autocast_op
def conv_transpose1d(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation, 1)


@autocast_op
def conv_transpose2d(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation, 2)


@autocast_op
def conv_transpose3d(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose(x, weight, bias, stride, padding, output_padding, groups, dilation, 3)


def _pool_geometry(size, k, s, p, d, ceil_mode):
    """Output length and the extra padding after the input that ceil_mode needs (torch's rule: the
    last window must start inside the input or its left padding)."""
    span = size + 2 * p - d * (k - 1) - 1  # may be negative: with ceil_mode a window wider than the input fits
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1  # torch's div_rtn (floor)
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    if out < 1:
        raise RuntimeError(f"Output size is too small")
    extra = max((out - 1) * s + d * (k - 1) + 1 - (size + 2 * p), 0)
    return out, extra


def _check_pool_input(x, name, dims):
    """torch's rank check of a pooling input: dims is (batched rank - 1, batched rank)."""
    if x.dim() not in dims:
        raise RuntimeError(f"{name}: Expected {dims[0]}D or {dims[1]}D (batch mode) tensor for input, but got "
                           f"{list(x.shape)}")


def _pool(x, nd, name, kernel_size, stride, padding, dilation, ceil_mode, pad_value):
    """The windows of an (N, C, *spatial) or (C, *spatial) input over its nd spatial dims: (batched x,
    cols (N, C, K, *out), geometry)."""
    _check_pool_input(x, name, (nd + 1, nd + 2))
    unbatched = x.dim() == nd + 1
    if unbatched:
        x = F.unsqueeze(x, 0)
    kernel = _pair(kernel_size, nd)
    stride = _pair(stride if stride is not None and stride != [] else kernel_size, nd)
    padding, dilation = _pair(padding, nd), _pair(dilation, nd)
    if any(p < 0 for p in padding):
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(padding)}")
    if not all(stride):
        raise RuntimeError("stride should not be zero")
    if any(p > k // 2 for p, k in zip(padding, kernel)):
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={padding[0]}, "
                           f"kernel_size={kernel[0]} and dilation={dilation[0]}")
    geo = [_pool_geometry(x.shape[2 + i], kernel[i], stride[i], padding[i], dilation[i], ceil_mode) for i in range(nd)]
    padded = x
    if any(padding) or any(e for _, e in geo):
        padded = pad(x, [v for i in reversed(range(nd)) for v in (padding[i], padding[i] + geo[i][1])],
                     value=pad_value)
    cols, _ = _windows(padded, kernel, stride, dilation)
    return x, unbatched, cols, (kernel, stride, padding, dilation, [o for o, _ in geo])


def _max_pool(x, nd, name, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    x, unbatched, cols, (kernel, stride, padding, dilation, out) = _pool(
        x, nd, name, kernel_size, stride, padding, dilation, ceil_mode, _indexing._extreme_identity(x, "amax"))
    values, k = F._pool_max(cols, 2)
    result = F.squeeze(values, 0) if unbatched else values
    if not return_indices:
        return result
    # torch's indices: the input's flat spatial offset of each max. The window offset k holds one
    # kernel offset per dim (row-major); dim i's input position is o * stride - padding + k_i * dilation.
    index, inner, after = 0, 1, 1  # inner: input elements per step of dim i; after: kernel offsets per step
    for i in reversed(range(nd)):
        k_i = F.remainder(F.floor_divide(k, after), kernel[i]) if nd > 1 else k
        starts = (F.arange(out[i], device=x.device) * stride[i] - padding[i]).reshape(-1, *[1] * (nd - 1 - i))
        index = index + (starts + k_i * dilation[i]) * inner
        inner, after = inner * x.shape[2 + i], after * kernel[i]
    return result, (F.squeeze(index, 0) if unbatched else index)


def _avg_pool(x, nd, name, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    x, unbatched, cols, (kernel, stride, padding, _, out) = _pool(x, nd, name, kernel_size, stride, padding, 1,
                                                                   ceil_mode, 0.0)
    # float16/bfloat16 windows summed and divided in float32 (a window's sum and its length may pass 65504)
    total = F.sum(cols, 2, dtype=dt.float32 if x.dtype in dt.ROUNDED else None)
    # integer inputs give integer means, truncated as torch's integer division
    divide = (lambda a, b: a / b) if x.dtype.is_floating_point else (lambda a, b: F.div(a, b, rounding_mode="trunc"))
    if divisor_override:
        mean = divide(total, divisor_override)
    else:  # torch's divisor: the window clipped to the padded input (count_include_pad) or to the input
        size = x.shape[2:]
        divisor = None
        for i in range(nd):
            lo_bound, hi_bound = (-padding[i], size[i] + padding[i]) if count_include_pad else (0, size[i])
            starts = [o * stride[i] - padding[i] for o in range(out[i])]
            counts = [min(s + kernel[i], hi_bound, size[i] + padding[i]) - max(s, lo_bound) for s in starts]
            counts = F.tensor(counts, dtype=total.dtype, device=x.device).reshape(-1, *[1] * (nd - 1 - i))
            divisor = counts if divisor is None else divisor * counts
        mean = divide(total, divisor)
    mean = mean.to(x.dtype)
    return F.squeeze(mean, 0) if unbatched else mean


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, 1, "max_pool1d", kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(x, 2, "max_pool2d", kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    return _max_pool(input, 3, "max_pool3d", kernel_size, stride, padding, dilation, ceil_mode, return_indices)


@autocast_op
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _avg_pool(input, 1, "avg_pool1d", kernel_size, stride, padding, ceil_mode, count_include_pad, None)


@autocast_op
def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    return _avg_pool(x, 2, "avg_pool2d", kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


@autocast_op
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _avg_pool(input, 3, "avg_pool3d", kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


def _adaptive_size(x, output_size, name, n):
    """output_size as n ints (None: the input's size), after torch's checks of it and of x's rank."""
    size = _pair(output_size, n)
    if n > 1 and isinstance(output_size, (tuple, list)) and x.dim() <= len(size):  # torch's Python-side check
        raise ValueError(f"Input dimension should be at least {len(size) + 1}")
    if len(size) != n:
        raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got {len(size)})" if n == 1
                           else f"{name}: output_size must be {n}")
    _check_pool_input(x, name, (n + 1, n + 2))
    if any(s is not None and s < 0 for s in size):
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 but received "
                           f"{list(size)}")
    return [s if s is not None else x.shape[x.dim() - n + i] for i, s in enumerate(size)]


def _adaptive_pool(x, output_size, nd, name, pool_dim, last_dim_first=False):
    """An adaptive pool over x's last nd dims, one dim at a time (a box's mean or max is the mean or max
    over each of its dims in turn): pool_dim(x, dim, out) pools dim to out windows. last_dim_first: a
    max that takes each dim's first maximum then takes the box's first in row-major order (torch's)."""
    sizes = _adaptive_size(x, output_size, name, nd)
    if 0 in sizes:
        return F.zeros(*x.shape[:-nd], *sizes, dtype=x.dtype, device=x.device)
    dims = list(enumerate(sizes))
    for i, out in reversed(dims) if last_dim_first else dims:
        x = pool_dim(x, x.dim() - nd + i, out)
    return x


@autocast_op
def adaptive_avg_pool2d(x, output_size):
    return _adaptive_pool(x, output_size, 2, "adaptive_avg_pool2d", _adaptive_mean)


@autocast_op
def adaptive_avg_pool3d(input, output_size):
    return _adaptive_pool(input, output_size, 3, "adaptive_avg_pool3d", _adaptive_mean)


def _adaptive_mean(x, dim, out):
    """Means of x over torch's adaptive windows along dim (window i: [floor(i*n/out), ceil((i+1)*n/out))),
    in a few kernels whatever out is: every window's slices gathered at once, padded to the longest
    window with repeats that a mask drops, summed and divided by the window's length."""
    n = x.shape[dim]
    bounds = [((i * n) // out, -((-(i + 1) * n) // out)) for i in range(out)]
    longest = max((end - start for start, end in bounds), default=0)
    index = F.tensor([min(start + j, end - 1) for start, end in bounds for j in range(longest)], device=x.device)
    keep = F.tensor([[start + j < end for j in range(longest)] for start, end in bounds], device=x.device)
    counts = F.tensor([float(end - start) for start, end in bounds], device=x.device)
    after = [1] * (x.dim() - dim - 1)
    windows = _indexing._take_along(x, dim, index).reshape(*x.shape[:dim], out, longest, *x.shape[dim + 1:])
    acc = dt.float32 if x.dtype in dt.ROUNDED else x.dtype  # float16: a window's sum (and length) may pass 65504
    summed = F.sum(F.where(keep.reshape(out, longest, *after), windows, 0.0), dim + 1, dtype=acc)
    return (summed / counts.reshape(out, *after).to(acc)).to(x.dtype)


# -- embeddings, attention -------------------------------------------------------------------
def one_hot(tensor, num_classes=-1):
    if tensor.dtype is not dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.is_meta:  # no values to check or count
        if num_classes < 0:
            raise NotImplementedError("one_hot on a meta tensor needs num_classes: the class count would come from "
                                      "the values, which a meta tensor does not have")
    elif tensor.numel():  # one readback for both checks (and the class count)
        low, high = F.stack([F.amin(tensor), F.amax(tensor)]).tolist()
        if low < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes < 0:
            num_classes = high + 1
        elif high >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    elif num_classes < 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    classes = F.arange(num_classes, device=tensor.device)
    return F.cast(F.eq(F.unsqueeze(tensor, -1), classes), dt.int64)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """weight's rows at input's ids (int32 or int64): a gather, its gradient a scatter-add into the
    rows looked up. sparse=True is accepted and gives the same dense gradient (no sparse tensors)."""
    if input.dtype not in (dt.int32, dt.int64):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {_TENSOR_TYPE.get(input.dtype, input.dtype)} instead (while "
                           "checking arguments for embedding)")
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if padding_idx is not None:
        if not -weight.shape[0] <= padding_idx < weight.shape[0]:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= weight.shape[0]
    ids = input.reshape(-1)
    _indexing._check_bounds([(ids, weight.shape[0], 0)], IndexError, "index out of range in self", negative=False)
    if max_norm is not None:
        with no_grad():
            _embedding_renorm_(weight, ids, max_norm, norm_type)
    rows = _indexing._take_along(weight, 0, ids, skip=padding_idx)
    if scale_grad_by_freq and rows.requires_grad:
        # gradient / count of its id in input: a factor 1/c in the backward pass only
        counts = _indexing.index_add(F.zeros(weight.shape[0], device=weight.device), 0, ids,
                                     F.ones(ids.shape[0], device=weight.device))
        share = F.unsqueeze(F.reciprocal(_indexing._take_along(counts, 0, ids)), 1)
        rows = rows * share + rows.detach() * (1 - share)
    return rows.reshape(*input.shape, weight.shape[1])


_TENSOR_TYPE = {dt.float32: "torch.FloatTensor", dt.float16: "torch.HalfTensor", dt.bool_: "torch.BoolTensor"}


def _embedding_renorm_(weight, ids, max_norm, norm_type):
    """torch.embedding_renorm_: each looked-up row whose norm exceeds max_norm is scaled, in place, to
    max_norm / (norm + 1e-7) times itself (a repeated id writes the same row twice)."""
    rows = _indexing._take_along(weight, 0, ids)
    norms = _math_ops.vector_norm(rows, norm_type, dim=1, keepdim=True)
    scale = F.where(F.gt(norms, max_norm), max_norm / (norms + 1e-7), 1.0)
    F.backend(weight.device.type).put_along(weight, 0, ids, F.cast(rows * scale, weight.dtype), False)
    versions(weight).version += 1


@autocast_op
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    if not _sdp_flags.sdp_backends:
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")
    if enable_gqa:  # grouped-query attention: each key/value head serves heads // its heads query heads, in order
        heads = query.size(-3)
        if heads % key.size(-3) or heads % value.size(-3):
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")  # torch's words
        key = _shape_ops.repeat_interleave(key, heads // key.size(-3), -3)
        value = _shape_ops.repeat_interleave(value, heads // value.size(-3), -3)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    L, S = query.shape[-2], key.shape[-2]
    rows = max(1, _SDPA_SCORES_BYTES // max(1, 4 * S * math.prod(F.broadcast_shapes(query.shape[:-2], key.shape[:-2]))))
    if L <= rows:
        return _attend(query, key, value, attn_mask, dropout_p, is_causal, scale, 0)
    # the scores of a few query rows at a time: each row's softmax is its own, so the result is the same
    masked_rows = attn_mask is not None and attn_mask.dim() >= 2 and attn_mask.shape[-2] == L
    return F.cat([_attend(query[..., i:i + rows, :], key, value, attn_mask[..., i:i + rows, :] if masked_rows
                          else attn_mask, dropout_p, is_causal, scale, i) for i in range(0, L, rows)], -2)


# Most bytes of attention scores (as float32) that scaled_dot_product_attention holds at once: torch's math
# backend holds all (batch x heads x L x S), which past the device's binding limit (128 MiB on many
# devices) cannot be one WebGPU buffer: a 2048-token prefill of a 32-head model is 512 MiB of them
_SDPA_SCORES_BYTES = 1 << 25


def _attend(query, key, value, attn_mask, dropout_p, is_causal, scale, first_row):
    """scaled_dot_product_attention of the query rows first_row.. of the whole (for the causal mask)."""
    scores = F.matmul(query, key.transpose(-2, -1)) * scale
    L, S = query.shape[-2], key.shape[-2]
    if is_causal:
        rows = F.arange(first_row, first_row + L, device=query.device)
        scores = F.where(F.le(F.arange(S, device=query.device), F.unsqueeze(rows, 1)), scores, -math.inf)
    if attn_mask is not None:
        scores = F.where(attn_mask, scores, -math.inf) if attn_mask.dtype is dt.bool_ else scores + attn_mask
    weights = _safe_softmax(scores)
    if dropout_p:
        weights = dropout(weights, dropout_p)
    return F.matmul(weights, value)


def _safe_softmax(scores):
    """softmax over the last dim, as torch's SDPA (its _safe_softmax): a row whose every score is
    masked out attends to nothing (0s, not NaN), and passes back 0 gradients: such a row is softmaxed
    as zeros (finite weights, finite derivatives) and then dropped."""
    dead = F.all(F.eq(scores, -math.inf), -1, keepdim=True)
    return F.where(dead, 0.0, softmax(F.where(dead, 0.0, scores), -1))


def _mask_as_float(mask, dtype):
    """A boolean mask (True = masked out) as an additive one (-inf); a float mask as it is."""
    if mask is None or mask.dtype is not dt.bool_:
        return mask
    return F.where(mask, -math.inf, F.zeros(*mask.shape, dtype=dtype, device=mask.device))


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """torch's functional form: sequence-first (L, N, E) inputs, or unbatched (L, E)."""
    batched = query.dim() == 3
    if not batched:
        query, key, value = (F.unsqueeze(t, 1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = F.unsqueeze(key_padding_mask, 0)
    L, N, E = query.shape
    if E != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}")
    if E % num_heads:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    head = E // num_heads

    def project(x, w, b):
        """linear(x, w, b) of an (S, N, E) input in the input's memory order (a batch-first input that
        MultiheadAttention transposed is read as it lies, no copy): a view of the (S, N, out) result."""
        return linear(x.transpose(0, 1), w, b).transpose(0, 1) if x._stride[0] < x._stride[1] else linear(x, w, b)
    if query is key and key is value and not use_separate_proj_weight:
        # self-attention: one product with the whole in-projection (as torch's fast path)
        q, k, v = project(query, in_proj_weight, in_proj_bias).chunk(3, -1)
    else:
        if use_separate_proj_weight:
            w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
        else:
            w_q, w_k, w_v = in_proj_weight.chunk(3)
        b_q, b_k, b_v = in_proj_bias.chunk(3) if in_proj_bias is not None else (None, None, None)
        q, k, v = project(query, w_q, b_q), project(key, w_k, b_k), project(value, w_v, b_v)
    attn_mask = _mask_as_float(attn_mask, q.dtype)
    key_padding_mask = _mask_as_float(key_padding_mask, q.dtype)
    if attn_mask is not None:
        want = (L, key.shape[0]) if attn_mask.dim() == 2 else (N * num_heads, L, key.shape[0])
        if attn_mask.dim() not in (2, 3):
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
        if tuple(attn_mask.shape) != want:
            raise RuntimeError(f"The shape of the {attn_mask.dim()}D attn_mask is {attn_mask.shape}, but should be "
                               f"{want}.")

    def one_more_key(k, v, new_k, new_v, dim):
        """Appends a key/value position that every query may attend to (masks get a 0 column)."""
        nonlocal attn_mask, key_padding_mask
        attn_mask = pad(attn_mask, (0, 1)) if attn_mask is not None else None
        key_padding_mask = pad(key_padding_mask, (0, 1)) if key_padding_mask is not None else None
        return F.cat([k, new_k], dim), F.cat([v, new_v], dim)
    if bias_k is not None and bias_v is not None:
        k, v = one_more_key(k, v, bias_k.repeat(1, N, 1), bias_v.repeat(1, N, 1), 0)

    def heads(t):
        """(S, N, E) -> (N, H, S, D): a view (the products below batch over N and H, no copies)"""
        return t.reshape(t.shape[0], N, num_heads, head).permute(1, 2, 0, 3)
    q = heads(q)
    k = static_k.reshape(N, num_heads, -1, head) if static_k is not None else heads(k)
    v = static_v.reshape(N, num_heads, -1, head) if static_v is not None else heads(v)
    if add_zero_attn:
        zeros = F.zeros(N, num_heads, 1, head, dtype=k.dtype, device=k.device)
        k, v = one_more_key(k, v, zeros, zeros, 2)
    S = k.shape[2]
    if key_padding_mask is not None and tuple(key_padding_mask.shape) != (N, S):
        raise AssertionError(f"expecting key_padding_mask shape of {(N, S)}, but got {key_padding_mask.shape}")
    scores = F.matmul(q * math.sqrt(1.0 / head), k.transpose(-2, -1))              # (N, H, L, S)
    if attn_mask is not None:  # (L, S) or (N*H, L, S)
        scores = scores + (attn_mask if attn_mask.dim() == 2 else attn_mask.reshape(N, num_heads, L, S))
    if key_padding_mask is not None:
        scores = scores + key_padding_mask.reshape(N, 1, 1, S)
    # torch returns the weights from a plain softmax (NaN rows where all is masked), else it attends
    # through scaled_dot_product_attention, whose fully masked rows are 0s
    weights = softmax(scores, -1) if need_weights else _safe_softmax(scores)
    if dropout_p and training:
        weights = dropout(weights, dropout_p)
    attn = F.matmul(weights, v)                                                     # (N, H, L, D)
    # heads merged to (L, N, E), laid out as the query is (batch-major for a batch-first input: the
    # residual add after the layer reads both contiguous)
    if query._stride[0] < query._stride[1]:
        merged = attn.permute(0, 2, 1, 3).reshape(N, L, E).transpose(0, 1)
    else:
        merged = attn.permute(2, 0, 1, 3).reshape(L, N, E)
    out = project(merged, out_proj_weight, out_proj_bias)
    if need_weights and average_attn_weights:  # (a reduction over the heads: not when the weights are dropped)
        weights = F.mean(weights, 1)
    if not batched:
        out, weights = F.squeeze(out, 1), F.squeeze(weights, 0)
    return out, (weights if need_weights else None)


_INTERP_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3, "lanczos": 2}


def _resample_taps(n_in, n_out, mode, scale, align_corners):
    """The taps that resample one dim as torch reads them (its source-index rules per mode): (index,
    weights, counts), index the n_out * K input positions read (K per output), weights the n_out * K
    factors (None: each output is its one tap, or its taps' sum / counts[i] (area: the box
    [floor(i n/o), ceil((i+1) n/o)), short boxes padded with taps that add nothing)."""
    index, weights, counts = [], [], None
    for i in range(n_out):
        if mode in ("nearest", "nearest-exact"):
            index.append(min(math.floor((i + (0.5 if mode == "nearest-exact" else 0.0)) * scale), n_in - 1))
        elif mode == "area":  # adaptive average pooling
            lo, hi = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
            index.append(list(range(lo, hi)))
        else:
            if align_corners:
                src = i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
            else:
                src = scale * (i + 0.5) - 0.5
            if mode == "bicubic":
                base = math.floor(src)
                index += [min(max(base + k, 0), n_in - 1) for k in range(-1, 3)]
                weights += cubic_taps(src - base)
            elif n_in == n_out:  # torch's copy: both taps at i (weights 1, 0: an inf there gives NaN, its neighbour nothing)
                index += [i, i]
                weights += [1.0, 0.0]
            else:
                src = max(src, 0.0)
                lo = min(int(math.floor(src)), n_in - 1)
                index += [lo, min(lo + 1, n_in - 1)]
                weights += [1.0 - (src - lo), src - lo]
    if mode == "area":
        counts = [len(box) for box in index]
        index, _ = _padded_boxes(index)
    return index, weights or None, counts


def _padded_boxes(boxes, weights=None):
    """Boxes of taps (lists of input positions, and their weights) of one width: flat lists, the short
    boxes padded with None (a tap that adds nothing) and weight 0."""
    width = max((len(box) for box in boxes), default=1)
    index = [j for box in boxes for j in box + [None] * (width - len(box))]
    return index, weights and [w for ws in weights for w in ws + [0.0] * (width - len(ws))]


def _antialias_taps(n_in, n_out, mode, scale, align_corners):
    """_resample_taps of torch's antialiased resampling (aten UpSampleKernel's _aa weights): a triangle
    (bilinear), Keys a=-0.5 cubic (bicubic) or Lanczos-3 windowed sinc (lanczos) filter, stretched by the
    scale when downsampling, over the inputs within its support around each output's centre, normalised
    to sum 1."""
    if align_corners:
        scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    half = {"bilinear": 1.0, "bicubic": 2.0, "lanczos": 3.0}[mode]  # the filter's support at scale 1

    def sinc(x):
        return 1.0 if x == 0 else math.sin(math.pi * x) / (math.pi * x)

    def weight(x):
        x = abs(x)
        if mode == "bilinear":
            return max(1.0 - x, 0.0)
        if mode == "lanczos":
            return sinc(x) * sinc(x / 3.0) if x < 3.0 else 0.0
        return keys_near(x, -0.5) if x < 1.0 else keys_far(x, -0.5) if x < 2.0 else 0.0
    support = half * scale if scale >= 1.0 else half
    invscale = 1.0 / scale if scale >= 1.0 else 1.0
    boxes, weights = [], []
    for i in range(n_out):
        center = scale * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n_in)
        ws = [weight((j - center + 0.5) * invscale) for j in range(lo, hi)]
        total = sum(ws)
        boxes.append(list(range(lo, hi)))
        weights.append([w / total if total else w for w in ws])
    return (*_padded_boxes(boxes, weights), None)


@autocast_op
def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """Separable: each spatial dim is resampled by its taps (_resample_taps, _antialias_taps)."""
    spatial = x.dim() - 2
    if spatial not in (1, 2, 3):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {x.dim()}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and spatial == 2):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    if mode == "lanczos" and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    if mode == "lanczos" and align_corners:
        raise ValueError("Lanczos mode does not support align_corners=True")
    needs = _INTERP_DIMS.get(mode)
    if mode not in ("nearest", "nearest-exact", "area") and needs is None:
        raise ValueError(f"interpolate: unknown mode {mode!r}")
    if needs is not None and needs != spatial:
        raise NotImplementedError(f"Got {x.dim()}D input, but {mode} mode needs {needs + 2}D input")
    if align_corners is not None and needs is None:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                         "bicubic | trilinear")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    in_sizes = list(x.shape[2:])
    if size is not None:
        out_sizes = list(_pair(size, spatial))
        scales = [n / o for n, o in zip(in_sizes, out_sizes)]
    else:
        factors = _pair(scale_factor, spatial)
        out_sizes = [int(math.floor(n * f)) for n, f in zip(in_sizes, factors)]
        # torch indexes with the given factor unless asked to recompute it from the sizes
        scales = [n / o if recompute_scale_factor else 1.0 / f for n, o, f in zip(in_sizes, out_sizes, factors)]
    out = x
    for i, (n_in, n_out, scale) in enumerate(zip(in_sizes, out_sizes, scales)):
        if n_in == n_out and mode in ("nearest", "nearest-exact", "area") and scale == 1.0:
            continue
        taps = _antialias_taps if antialias else _resample_taps
        out = _resample(out, 2 + i, n_out, *taps(n_in, n_out, mode, scale, align_corners))
    return F.contiguous(out) if out is not x else F.clone(x)


def _resample(x, d, n_out, index, weights, counts):
    """x with dim d resampled by its taps (_resample_taps): each output the weighted sum of the inputs
    it reads, as torch's kernels (not a matmul with the dense resampling matrix, whose zeros times an
    inf or NaN input made NaN of every output of its line)."""
    lines = x.transpose(d, -1)
    taps = len(index) // n_out if n_out else 1
    read = F.tensor([0 if j is None else j for j in index], dtype=dt.int64, device=x.device)
    got = _indexing._take_along(lines, lines.dim() - 1, read).reshape(*lines.shape[:-1], n_out, taps)
    if weights is not None:
        got = got * F.tensor(weights, dtype=x.dtype, device=x.device).reshape(n_out, taps)
    if None in index:  # the padding taps of short boxes
        got = F.where(F.tensor([j is not None for j in index], dtype=dt.bool_, device=x.device).reshape(n_out, taps),
                      got, 0)
    out = F.sum(got, -1) if taps > 1 or counts is not None else F.squeeze(got, -1)
    if counts is not None:  # area: the box's sum over its size
        out = F.div(out, F.tensor(counts, dtype=x.dtype, device=x.device))
    return out.transpose(d, -1)


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(x, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- losses ----------------------------------------------------------------------------------
def _legacy_reduction(size_average, reduce):
    """torch's _Reduction.legacy_get_string: the deprecated size_average/reduce as a reduction."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.")
    return reduction


def _loss_reduction(size_average, reduce, reduction):
    """The reduction a loss applies, read before any check of its inputs as torch's Python wrappers do
    (_Reduction.get_enum: an unknown one is a ValueError even where the inputs are bad too)."""
    if reduce is not None or size_average is not None:
        return _legacy_reduction(size_average, reduce)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce_loss(loss, reduction):
    if reduction == "mean":
        return F.mean(loss)
    if reduction == "sum":
        return F.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


@autocast_op
def mse_loss(input, target, reduction="mean"):
    d = input - target
    return _reduce_loss(d * d, reduction)


@autocast_op
def l1_loss(input, target, reduction="mean"):
    return _reduce_loss(F.abs(input - target), reduction)


def soft_margin_loss(input, target, reduction="mean"):
    """log(1 + exp(-target * input)), as torch computes it (inf where exp overflows)."""
    return _reduce_loss(_math_ops.log1p(F.exp(-target * input)), reduction)


def hinge_embedding_loss(input, target, margin=1.0, reduction="mean"):
    """input where target is 1, max(0, margin - input) where it is -1 (torch sums both terms, each kept
    where target is not the other label)."""
    zeros = F.zeros_like(input)
    margin_term = F.where(F.ne(target, 1), F.clamp_min(margin - input, 0), zeros)
    self_term = F.where(F.ne(target, -1), input, zeros)
    return _reduce_loss(margin_term + self_term, reduction)


@autocast_op
def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    d = F.abs(input - target)
    if beta == 0:
        return _reduce_loss(d, reduction)
    return _reduce_loss(F.where(F.lt(d, beta), 0.5 * d * d / beta, d - 0.5 * beta), reduction)


@autocast_op
def huber_loss(input, target, reduction="mean", delta=1.0):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    d = F.abs(input - target)
    return _reduce_loss(F.where(F.lt(d, delta), 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)


@autocast_op
def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    log_p = F.clamp(F.log(input), min=-100.0)
    log_q = F.clamp(F.log(1 - input), min=-100.0)
    loss = -(target * log_p + (1 - target) * log_q)
    return _reduce_loss(loss * weight if weight is not None else loss, reduction)


@autocast_op
def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    # (1 - t) x + (1 + (p - 1) t) log(1 + e^-x), written stably as max(-x, 0) + log(e^-max + e^(-x-max))
    log_weight = 1 + (pos_weight - 1) * target if pos_weight is not None else 1
    softplus_neg = F.clamp(-input, min=0.0) + F.log(F.exp(-F.abs(input)) + 1)
    loss = (1 - target) * input + log_weight * softplus_neg
    return _reduce_loss(loss * weight if weight is not None else loss, reduction)


@autocast_op
def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    target_shape = target.shape
    if input.dim() > 2:  # (N, C, d1, ...) -> (N*d1*..., C)
        input = input.permute(0, *range(2, input.dim()), 1).reshape(-1, input.shape[1])
        target = target.reshape(-1)
    unbatched = input.dim() == 1
    if unbatched:
        input, target = F.unsqueeze(input, 0), F.unsqueeze(target, 0)
    if target.dtype.is_floating_point or target.dtype is dt.bool_:
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.name.capitalize()}")
    if input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    c = input.shape[1]
    valid = F.ne(target, ignore_index)
    safe = F.where(valid, target, 0)
    if not _known_in_range(target, 0, c):  # uploaded class indices are known in range: no readback
        _check_bounds([(safe, c, 1)], IndexError, "Target {} is out of bounds.", negative=False)
    # the picked log-probabilities by gather (not a one-hot product: 0 * -inf would be NaN), and
    # ignored rows by where (their -inf must not reach the sum)
    picked = F.squeeze(_gather(input, 1, F.unsqueeze(safe, 1)), 1)
    sample_w = F.cast(valid, input.dtype) if weight is None else F.where(valid, _gather(weight, 0, safe), 0.0)
    loss = F.where(valid, -picked * sample_w, 0.0)
    if reduction == "mean":
        return F.sum(loss) / F.sum(sample_w)
    return _reduce_loss(loss.reshape(target_shape) if reduction == "none" else loss, reduction)


@autocast_op
def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    class_dim = 1 if input.dim() > 1 else 0
    log_p = log_softmax(input, class_dim)
    if target.dtype.is_floating_point:  # class probabilities
        c = input.shape[class_dim]
        if label_smoothing:
            target = target * (1 - label_smoothing) + label_smoothing / c
        if weight is not None:
            log_p = log_p * weight.reshape([-1] + [1] * (input.dim() - class_dim - 1))
        return _reduce_loss(-F.sum(log_p * target, class_dim), reduction) if reduction != "mean" else \
            F.sum(-F.sum(log_p * target, class_dim)) / (input.numel() // c)
    loss = nll_loss(log_p, target, weight, ignore_index, reduction)
    if not label_smoothing:
        return loss
    c = input.shape[class_dim]
    lp = log_p if log_p.dim() <= 2 else log_p.permute(0, *range(2, log_p.dim()), 1).reshape(-1, c)
    t = target.reshape(-1) if log_p.dim() > 2 else target
    valid = F.cast(F.ne(t, ignore_index), lp.dtype)
    w = F.ones(c, device=lp.device) if weight is None else weight
    smooth = F.where(F.ne(t, ignore_index), -F.sum(lp * w, -1), 0.0)  # an ignored row's NaN or inf stays out
    if reduction == "mean":
        if weight is None:
            smooth = F.sum(smooth) / F.sum(valid)
        else:
            safe = F.where(F.ne(t, ignore_index), t, 0)
            picked = F.cast(F.eq(F.unsqueeze(safe, -1), F.arange(c, device=lp.device)), lp.dtype)
            smooth = F.sum(smooth) / F.sum(F.sum(picked * w, -1) * valid)
    else:
        smooth = _reduce_loss(smooth.reshape(target.shape) if reduction == "none" else smooth, reduction)
    return loss * (1 - label_smoothing) + smooth * (label_smoothing / c)


@autocast_op
def kl_div(input, target, reduction="mean", log_target=False):
    if log_target:
        loss = F.exp(target) * (target - input)
    else:
        loss = F.where(F.gt(target, 0), target * (F.log(F.where(F.gt(target, 0), target, 1.0)) - input), 0.0)
    if reduction == "batchmean":
        return F.sum(loss) / input.shape[0]
    return _reduce_loss(loss, reduction)


@autocast_op
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """As torch: both broadcast to one shape first (a size-1 dim is repeated, not summed once), each
    divided by its norm (clamped to eps), then the dot product."""
    shape = F.broadcast_shapes(x1.shape, x2.shape)
    x1, x2 = F.expand(x1, *shape), F.expand(x2, *shape)
    n1 = F.clamp(vector_norm(x1, 2, dim, keepdim=True), min=eps)
    n2 = F.clamp(vector_norm(x2, 2, dim, keepdim=True), min=eps)
    return F.sum((x1 / n1) * (x2 / n2), dim)


# -- more activations ------------------------------------------------------------------------
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


@_inplace_option
@autocast_op
def selu(x, inplace=False):
    return elu(x, _SELU_ALPHA) * _SELU_SCALE


@_inplace_option
@autocast_op
def celu(x, alpha=1.0, inplace=False):
    return F.where(F.le(x, 0), _math_ops.expm1(_nonpositive_part(x) / alpha) * alpha, x)


@autocast_op
def logsigmoid(x):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), finite for every x."""
    from .._math_ops import log1p
    return F.minimum(x, F.zeros_like(x)) - log1p(F.exp(-F.abs(x)))


def softsign(x):
    return x / (1 + F.abs(x))


def tanhshrink(x):
    return x - F.tanh(x)


def hardshrink(input, lambd=0.5):
    """0 inside [-lambd, lambd], x elsewhere (NaN stays NaN: it is outside every comparison)."""
    inside = F.logical_and(F.ge(input, -lambd), F.le(input, lambd))
    return F.where(inside, F.zeros_like(input), input)


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, x * 0 between (torch keeps the zero's sign); NaN stays
    NaN."""
    if lambd < 0:
        kind = {"float64": "Double", "float16": "Half", "bfloat16": "BFloat16"}.get(str(input.dtype)[6:], "Float")
        raise RuntimeError(f"lambda must be in range [0, {dt.finfo(input.dtype).max:g}] for input dtype {kind}, "
                           f"but found {lambd:g}")
    inside = F.logical_and(F.ge(input, -lambd), F.le(input, lambd))
    return F.where(inside, input * 0, input - F.sign(input) * lambd)


@_inplace_option
def threshold(x, threshold, value, inplace=False):
    return F.where(F.gt(x, threshold), x, F._as_scalar_of(x.dtype, value))  # torch casts value to x's dtype


@_inplace_option
def hardsigmoid(x, inplace=False):
    return relu6(x + 3) / 6


def softmin(x, dim=None, _stacklevel=3, dtype=None):
    return softmax(-x, dim)


def glu(x, dim=-1):
    if x.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % x.dim()} is size {x.shape[dim]}")
    a, b = x.chunk(2, dim)
    return a * F.sigmoid(b)


@autocast_op
def prelu(x, weight):
    """x where x >= 0, else weight * x; weight has one value or one per channel (dim 1)."""
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if weight.numel() != 1 and (x.dim() < 2 or weight.numel() != x.shape[1]):
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.numel()} and channel size = {x.shape[1] if x.dim() >= 2 else 1}.")
    if weight.numel() == 1:
        w = weight.reshape([])  # broadcasts to x's shape, 0-d included
    else:
        w = weight.reshape([-1] + [1] * (x.dim() - 2))
    return F.where(F.gt(x, 0), x, w * x)


# -- rearrangements --------------------------------------------------------------------------
def pixel_shuffle(x, upscale_factor):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    r = upscale_factor
    *batch, c, h, w = x.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(batch)
    out = x.reshape(*batch, c // (r * r), r, r, h, w)
    out = out.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return out.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(x, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    r = downscale_factor
    *batch, c, h, w = x.shape
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, but "
                           f"input.size(-2)={h} and input.size(-1)={w} are not divisible by {r}")
    n = len(batch)
    out = x.reshape(*batch, c, h // r, r, w // r, r)
    out = out.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return out.reshape(*batch, c * r * r, h // r, w // r)


def channel_shuffle(x, groups):
    n, c = x.shape[0], x.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    return x.reshape(n, groups, c // groups, *x.shape[2:]).transpose(1, 2).reshape(x.shape)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C*kh*kw, L), each column one kernel window."""
    kernel, dilation, padding, stride = (_pair(v) for v in (kernel_size, dilation, padding, stride))
    unbatched = input.dim() == 3
    x = F.unsqueeze(input, 0) if unbatched else input
    if any(padding):
        x = pad(x, [padding[1], padding[1], padding[0], padding[0]])
    cols, out_sizes = _windows(x, kernel, stride, dilation)
    cols = cols.reshape(x.shape[0], x.shape[1] * kernel[0] * kernel[1], out_sizes[0] * out_sizes[1])
    return F.squeeze(cols, 0) if unbatched else cols


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, unfold's adjoint: every column's values summed back into its kernel window."""
    (oh_full, ow_full), kernel, dilation, padding, stride = (_pair(v) for v in (output_size, kernel_size, dilation,
                                                                                 padding, stride))
    unbatched = input.dim() == 2
    cols = F.unsqueeze(input, 0) if unbatched else input
    n, ck, length = cols.shape
    k = kernel[0] * kernel[1]
    hp, wp = oh_full + 2 * padding[0], ow_full + 2 * padding[1]
    blocks = [(hp - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i, hp in enumerate((hp, wp))]
    if ck % k or blocks[0] * blocks[1] != length:
        raise RuntimeError(f"Given output_size=({oh_full}, {ow_full}), kernel_size={kernel}, dilation={dilation}, "
                           f"padding={padding}, stride={stride}, expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, "
                           f"but got input.size(2)={length}.")
    out = col2im(cols.reshape(n, ck // k, k * length), blocks, (oh_full, ow_full), kernel, stride, padding, dilation)
    return F.squeeze(out, 0) if unbatched else out


# -- more normalisation, dropout -------------------------------------------------------------
@autocast_op
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Each (sample, channel) normalised over its spatial positions."""
    dims = tuple(range(2, input.dim()))
    shape = [1, -1] + [1] * len(dims)
    if use_input_stats:
        centered, rstd, mean, var_s, inv = _normalizing(input, dims, eps)
        if running_mean is not None:
            count = math.prod(input.shape[2:])
            with no_grad():  # as batch_norm's
                batch_mean = F.mean(mean.reshape(input.shape[0], input.shape[1]), 0)
                batch_var = F.mean((var_s * (momentum * count / max(count - 1, 1)) / inv / inv).reshape(
                    input.shape[0], input.shape[1]), 0)
                F._copy_into(running_mean, running_mean * (1 - momentum) + batch_mean * momentum)
                F._copy_into(running_var, running_var * (1 - momentum) + batch_var)
    else:
        return F.cast(_affine(input, F.rsqrt(running_var.reshape(shape) + eps), weight, bias, shape,
                              running_mean.reshape(shape)), input.dtype)
    return F.cast(_affine(centered, rstd, weight, bias, shape), input.dtype)


def _feature_dropout(x, p, training, batched_dims):
    """Zeroes whole channels: one keep/drop draw per (sample, channel)."""
    lead = 2 if x.dim() == batched_dims else 1
    keep = _keep_mask(x, p, training, list(x.shape[:lead]) + [1] * (x.dim() - lead))
    if keep is None:
        return x
    return x * keep / (1 - p) if p < 1 else x * keep


@_inplace_option
def dropout1d(input, p=0.5, training=True, inplace=False):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, 3)


@_inplace_option
def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, 4)


@_inplace_option
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's mean and variance: dropped units take SELU's negative saturation,
    then an affine map restores the moments (PyTorch's constants)."""
    keep = _keep_mask(input, p, training, input.shape)
    if keep is None:
        return input
    if p == 1:
        return input * 0
    return _alpha_noise(input, keep, p)


# -- more pooling ----------------------------------------------------------------------------
@autocast_op
def adaptive_avg_pool1d(input, output_size):
    return _adaptive_pool(input, output_size, 1, "adaptive_avg_pool1d", _adaptive_mean)


def _adaptive_max(x, dim, out):
    """Maxima of x over torch's adaptive windows along dim (window i: [floor(i*n/out), ceil((i+1)*n/out))),
    differentiated as max(dim): the gradient goes to the window's first maximum (its last NaN), as torch's
    (amax would split it among ties)."""
    n = x.shape[dim]
    return F.stack([F._pool_max(F.narrow(x, dim, (i * n) // out, -((-(i + 1) * n) // out) - (i * n) // out), dim)[0]
                    for i in range(out)], dim)


def _adaptive_max_with_indices(x, output_size, nd, name):
    """(values, indices) of an adaptive max pool: each box flattened in row-major order and maxed as max
    pooling takes it (the first maximum, the last NaN: torch's kernel), its index made a flat position in
    the input's plane. One reduction per box."""
    sizes = _adaptive_size(x, output_size, name, nd)
    lead = list(x.shape[:-nd])
    if 0 in sizes:
        return (F.zeros(*lead, *sizes, dtype=x.dtype, device=x.device),
                F.zeros(*lead, *sizes, dtype=dt.int64, device=x.device))
    plane = x.shape[-nd:]
    windows = [[((i * n) // out, -((-(i + 1) * n) // out)) for i in range(out)] for n, out in zip(plane, sizes)]
    values, indices = [], []
    for box in itertools.product(*windows):
        part = x
        for d, (start, end) in enumerate(box):
            part = F.narrow(part, x.dim() - nd + d, start, end - start)
        value, k = F._pool_max(part.reshape(*lead, -1), -1)
        flat, inner, plane_inner = 0, 1, 1
        for d in reversed(range(nd)):  # the box's coordinate along d, then its place in the plane
            start, end = box[d]
            flat = flat + (F.remainder(F.floor_divide(k, inner), end - start) + start) * plane_inner
            inner, plane_inner = inner * (end - start), plane_inner * plane[d]
        values.append(value)
        indices.append(flat)
    return F.stack(values, -1).reshape(*lead, *sizes), F.stack(indices, -1).reshape(*lead, *sizes)


def _adaptive_max_pool(nd):
    name = f"adaptive_max_pool{nd}d"

    def pool(input, output_size, return_indices=False):
        if return_indices:
            return _adaptive_max_with_indices(input, output_size, nd, name)
        return _adaptive_pool(input, output_size, nd, name, _adaptive_max, last_dim_first=True)

    def with_indices(input, output_size, return_indices=False):
        return _adaptive_max_with_indices(input, output_size, nd, name)
    pool.__name__ = pool.__qualname__ = name
    with_indices.__name__ = with_indices.__qualname__ = name + "_with_indices"
    return pool, with_indices


adaptive_max_pool1d, adaptive_max_pool1d_with_indices = _adaptive_max_pool(1)
adaptive_max_pool2d, adaptive_max_pool2d_with_indices = _adaptive_max_pool(2)
adaptive_max_pool3d, adaptive_max_pool3d_with_indices = _adaptive_max_pool(3)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p)^(1/p), as PyTorch computes it (from an average)."""
    kh, kw = _pair(kernel_size)
    out = avg_pool2d(input ** norm_type, (kh, kw), stride, 0, ceil_mode)
    return (F.sign(out) * relu(F.abs(out)) * (kh * kw)) ** (1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    out = avg_pool1d(input ** norm_type, kernel_size, stride, 0, ceil_mode)
    return (F.sign(out) * relu(F.abs(out)) * kernel_size) ** (1.0 / norm_type)


# -- more linear, embedding ------------------------------------------------------------------
@autocast_op
def bilinear(input1, input2, weight, bias=None):
    """y_k = x1^T W_k x2 + b_k."""
    out_features, in1, in2 = weight.shape
    t = F.matmul(input1, weight.permute(1, 0, 2).reshape(in1, out_features * in2))   # (..., out*in2)
    t = t.reshape(*input1.shape[:-1], out_features, in2)
    out = F.sum(t * F.unsqueeze(input2, -2), -1, dtype=t.dtype)  # int32 stays int32
    return out + bias if bias is not None else out


@autocast_op
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embedding rows (a 2-D input is one bag per row; a 1-D input is cut into bags
    at `offsets`): nn._embedding_bag. sparse=True gives the same dense gradient, as embedding's."""
    if weight.dtype in (dt.int32, dt.int64) and input.dtype.is_floating_point:
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.")
        input, weight = weight, input
    return _embedding_bag.embedding_bag_parts(
        lambda ids: embedding(ids, weight, None, max_norm, norm_type, scale_grad_by_freq), input, weight, offsets,
        scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset, padding_idx)[0]


# -- more losses -----------------------------------------------------------------------------
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return vector_norm(x1 - x2 + eps, p, -1, keepdim)


@autocast_op
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos for target 1, max(0, cos - margin) for target -1 (cos with PyTorch's eps 1e-12)."""
    eps = 1e-12
    prod = F.sum(input1 * input2, -1)
    mag = (F.sum(input1 * input1, -1) + eps) * (F.sum(input2 * input2, -1) + eps)
    cos = prod / F.sqrt(mag)
    zeros = F.zeros_like(cos)
    loss = F.where(F.eq(target, 1), 1 - cos, zeros) + F.where(F.eq(target, -1), F.clamp_min(cos - margin, 0), zeros)
    return _reduce_loss(loss, reduction)


@autocast_op
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    return _reduce_loss(F.clamp_min(-target * (input1 - input2) + margin, 0), reduction)  # torch: gradient at 0


@autocast_op
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = F.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce_loss(F.clamp_min(margin + d_pos - d_neg, 0), reduction)  # torch: gradient at 0


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce_loss(F.mean(loss, -1), reduction)


@autocast_op
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    loss = F.exp(input) - target * input if log_input else input - target * F.log(input + eps)
    if full:  # Stirling's term for target > 1
        stirling = target * F.log(target) - target + 0.5 * F.log(2 * math.pi * target)
        loss = loss + F.where(F.gt(target, 1), stirling, F.zeros_like(stirling))
    return _reduce_loss(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = F.unsqueeze(var, -1)
        elif not (input.shape[:-1] == var.shape[:-1] and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool(F.any(F.lt(var, 0)).item()):
        raise ValueError("var has negative entry/entries")
    var = var + (F.clamp(var, min=eps) - var).detach()  # clamped values, the gradient as if unclamped (torch's)
    loss = 0.5 * (F.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce_loss(loss, reduction)


@autocast_op
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    raise NotImplementedError("ctc_loss is not supported by webtorch yet")


# torch's dtype refusals of these activations (bool or integer inputs: _ops.DTYPE_REFUSALS)
def _refusing_dtypes(name, fn):
    @functools.wraps(fn)
    def checked(x, *args, **kwargs):
        F.check_dtype(name, x.dtype)
        return fn(x, *args, **kwargs)
    return checked



# -- in-place forms (torch's F.relu_ & co.: the op with inplace=True) --------------------------
def relu_(input):
    return relu(input, inplace=True)


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def selu_(input):
    return selu(input, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def threshold_(input, threshold, value):
    return globals()["threshold"](input, threshold, value, inplace=True)


@_inplace_option
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU with a random slope: in training one U(lower, upper) draw per negative element (its
    gradient is that slope), else the mean slope (lower + upper) / 2."""
    if not training:
        return leaky_relu(input, (lower + upper) / 2)
    slope = rand(*input.shape, device=input.device, dtype=input.dtype) * (upper - lower) + lower
    return F.where(F.ge(input, 0), input, input * slope)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


# -- channel dropouts --------------------------------------------------------------------------
@_inplace_option
def dropout3d(input, p=0.5, training=True, inplace=False):
    if input.dim() not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.dim()}-D input to dropout3d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this warning, "
                      "please use dropout instead. Note that dropout3d exists to provide channel-wise dropout on "
                      "inputs with 3 spatial dimensions, a channel dimension, and an optional batch dimension (i.e. "
                      "4D or 5D inputs).")
    return _feature_dropout(input, p, training, 5)


def _alpha_noise(input, keep, p):
    """Alpha dropout's affine map for a keep mask (1 kept, 0 dropped): SELU's mean and variance kept."""
    alpha = _SELU_ALPHA * _SELU_SCALE
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    return input * (keep * a) + (keep - 1) * (alpha * a) + alpha * a * p


@_inplace_option
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels: one draw per (sample, channel)."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 1:
        return input * 0
    return _alpha_noise(input, _keep_mask(input, p, training, list(input.shape[:2]) + [1] * (input.dim() - 2)), p)


# -- pooling with indices, unpooling, 3-d Lp pooling --------------------------------------------
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def _max_unpool(input, indices, nd, name, kernel_size, stride, padding, output_size):
    """Each value of input written at its index (a flat position in its plane of the output), zeros elsewhere;
    the output's spatial size is (in - 1) * stride - 2 * padding + kernel unless output_size says."""
    kernel = _pair(kernel_size, nd)
    stride = _pair(stride if stride is not None else kernel_size, nd)
    padding = _pair(padding, nd)
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"{name}: Expected input to be {nd + 1}D or {nd + 2}D, but got {input.dim()}D")
    if indices.shape != input.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    spatial = input.shape[-nd:]
    default = [(spatial[d] - 1) * stride[d] - 2 * padding[d] + kernel[d] for d in range(nd)]
    if output_size is None:
        size = default
    else:
        size = list(output_size)[-nd:] if len(output_size) in (nd + 1, nd + 2) else list(output_size)
        if len(size) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a "
                             f"length of '{len(output_size)}'")
        for d in range(nd):
            low, high = default[d] - stride[d], default[d] + stride[d]
            if not low < size[d] < high:
                raise ValueError(f'invalid output_size "{list(size)}" (dim {d} must be between {low} and {high})')
    plane = math.prod(size)
    lead = list(input.shape[:-nd])
    flat_index = indices.reshape(*lead, -1)
    _check_bounds([(flat_index, plane, 0)], RuntimeError, message="Found an invalid max index: {} (output volumes "
                  f"are of size {'x'.join(str(v) for v in size)}")
    out = F.zeros(*lead, plane, dtype=input.dtype, device=input.device)
    return _indexing.scatter(out, -1, flat_index, input.reshape(*lead, -1)).reshape(*lead, *size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, 1, "max_unpool1d", kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, 2, "max_unpool2d", kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(input, indices, 3, "max_unpool3d", kernel_size, stride, padding, output_size)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kd, kh, kw = _pair(kernel_size, 3)
    out = avg_pool3d(input ** norm_type, (kd, kh, kw), stride, 0, ceil_mode)
    return (F.sign(out) * relu(F.abs(out)) * (kd * kh * kw)) ** (1.0 / norm_type)


# -- local response normalisation, channel shuffle, conv_tbc, pdist ----------------------------
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta (torch's window: size // 2
    channels before, (size - 1) // 2 after, zero-padded; the mean counts the padding)."""
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions)")
    if input.numel() == 0:
        return input
    square = input * input
    n, c = input.shape[0], input.shape[1]
    square = square.reshape(n, 1, c, -1, 1)
    square = pad(square, (0, 0, 0, 0, size // 2, (size - 1) // 2))
    div = avg_pool3d(square, (size, 1, 1), stride=1).reshape(input.shape)
    return input / (div * alpha + k) ** beta


def native_channel_shuffle(input, groups):
    return channel_shuffle(input, groups)


def assert_int_or_pair(arg, arg_name, message):
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


def conv_tbc(input, weight, bias, pad=0):
    """A 1-d convolution of (time, batch, channels) input with a (kernel, in, out) weight."""
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


def pdist(input, p=2):
    """The p-norm distances between each pair of rows i < j, in row-major order of the pairs."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    first = [i for i in range(n) for _ in range(i + 1, n)]
    second = [j for i in range(n) for j in range(i + 1, n)]
    if not first:  # no pairs: an empty slice of the input, so the result keeps its grad_fn as torch's does
        return F.narrow(F.reshape(input, (-1,)), 0, 0, 0)
    rows = lambda idx: _indexing.index_select(input, 0, F.tensor(idx, device=input.device))  # noqa: E731
    diff = rows(first) - rows(second)
    dist = vector_norm(diff, p, -1)
    if p == 0:  # a count, constant almost everywhere: torch's gradient is zeros (vector_norm's ord 0 has none)
        return F.where(F.ones_like(dist, dtype=dt.bool_), dist, F.sum(diff, -1))
    return dist


# -- margin losses -----------------------------------------------------------------------------
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """Per sample: sum over classes j != y of max(0, margin - x[y] + x[j])^p (times weight[y]) / C."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    y = target.reshape(-1, 1)
    if x.dim() != 2 or y.shape[0] != x.shape[0]:
        raise RuntimeError(f"inconsistent target size, expected {x.shape[0]} but got {list(target.shape)}")
    if target.dtype is not dt.int64:
        raise RuntimeError(f"expected scalar type Long but found {F._tname(target.dtype).capitalize()}")
    own = _indexing.gather(x, 1, y)
    term = F.clamp_min(margin - own + x, 0)
    if p == 2:
        term = term * term
    if weight is not None:
        term = term * _indexing.index_select(weight, 0, y.reshape(-1)).reshape(-1, 1)
    other = F.ne(F.arange(x.shape[1], device=x.device).reshape(1, -1), y)
    loss = F.sum(F.where(other, term, F.zeros_like(term)), 1) / x.shape[1]
    return _reduce_loss(loss if input.dim() == 2 or reduction != "none" else loss.reshape(()), reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Per sample: sum over target classes j (target's indices before its first -1) and non-target
    classes k of max(0, 1 - (x[j] - x[k])) / C."""
    reduction = _loss_reduction(size_average, reduce, reduction)
    if input.dim() > 2 or input.numel() == 0 and (input.dim() < 2 or input.shape[1] == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if target.dtype is not dt.int64:
        raise RuntimeError(f"expected scalar type Long but found {F._tname(target.dtype).capitalize()}")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    t = target.reshape(x.shape)
    c = x.shape[1]
    listed = _math_ops.cumprod(F.cast(F.ne(t, -1), dt.int64), 1)  # 1 up to the first -1
    hits = F.eq(F.clamp_min(t, 0).unsqueeze(-1), F.arange(c, device=x.device))  # (N, slot, class)
    # (N, class): how often each class is listed; torch sums over the listed entries, repeats included
    times = F.sum(F.cast(hits, dt.int64) * listed.unsqueeze(-1), 1)
    is_target = F.gt(times, 0)
    pair = F.clamp_min(1 - (x.unsqueeze(2) - x.unsqueeze(1)), 0)  # (N, j, k)
    keep = F.logical_and(is_target.unsqueeze(2), F.logical_not(is_target).unsqueeze(1))
    weighted = pair * F.cast(times, x.dtype).unsqueeze(2)
    loss = F.sum(F.where(keep, weighted, F.zeros_like(pair)), (1, 2)) / c
    return _reduce_loss(loss if input.dim() == 2 or reduction != "none" else loss.reshape(()), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    if margin <= 0:
        raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
                           "inputs")
    distance = distance_function if distance_function is not None else pairwise_distance
    d_pos, d_neg = distance(anchor, positive), distance(anchor, negative)
    if swap:
        d_neg = F.minimum(d_neg, distance(positive, negative))
    return _reduce_loss(F.clamp_min(margin + d_pos - d_neg, 0), reduction)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + Gumbel noise) / tau) along dim; hard: the one-hot of its argmax in the forward,
    the soft sample's gradient (straight-through)."""
    gumbels = -F.log(F.empty_like(logits).exponential_())
    y_soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = F.max(y_soft, dim, keepdim=True)[1]
    y_hard = _indexing.scatter(F.zeros_like(logits), dim, index, value=1.0)
    return y_hard - y_soft.detach() + y_soft

for _name, _fn in list(globals().items()):
    if _name in F.DTYPE_REFUSALS and getattr(_fn, "__module__", None) == __name__:
        globals()[_name] = _refusing_dtypes(_name, _fn)

