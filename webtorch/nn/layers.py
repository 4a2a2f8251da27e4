"""nn layers and losses as Modules over nn.functional, with PyTorch's default initialisations."""
import copy
import itertools
import math
import operator
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Iterable

from .. import _ops as F
from .._dtypes import int64
from .._shape_ops import triu
from ..autograd import is_grad_enabled, no_grad
from . import functional as fn
from . import init
from .module import Module, Parameter
from ._fractional_pool import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: F401


def _param(*shape, device=None, dtype=None):
    """A layer's parameter, uninitialised, made from the layer's factory kwargs as torch's layers make theirs
    (so an integer dtype raises as torch's: only floating tensors can require grad)."""
    return Parameter(F.empty(*shape, device=device, dtype=dtype))


def _ones_zeros(weight, bias):
    """The normalisation layers' initialisation: weight 1, bias 0 (either may be None)."""
    if weight is not None:
        init.ones_(weight)
    if bias is not None:
        init.zeros_(bias)


def _normal_rows(weight, padding_idx):
    """Embedding's and EmbeddingBag's initialisation: N(0, 1) rows, the padding row zero."""
    init.normal_(weight)
    if padding_idx is not None:
        F._copy_into(weight.data[padding_idx], 0.0)


# -- linear, embedding -----------------------------------------------------------------------
class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, x):
        return x


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = _param(out_features, in_features, device=device, dtype=dtype)
        self.bias = _param(out_features, device=device, dtype=dtype) if bias else None
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x):
        return fn.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Embedding(Module):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse = max_norm, norm_type, \
            scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = _param(num_embeddings, embedding_dim, device=device, dtype=dtype)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        _normal_rows(self.weight, self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        return cls(*embeddings.shape, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

    def forward(self, x):
        return fn.embedding(x, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                            self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        if self.sparse:
            s += ", sparse=True"
        return s


# -- convolution, pooling --------------------------------------------------------------------
class _ConvNd(Module):
    """Conv{1,2,3}d and ConvTranspose{1,2,3}d: nd spatial dims, `function` the functional form."""
    nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None, transposed=False, output_padding=0):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError("padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got "
                             f"padding_mode='{padding_mode}'")
        if transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        pair = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v,) * self.nd  # noqa: E731
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride, self.dilation = pair(kernel_size), pair(stride), pair(dilation)
        self.padding = padding if isinstance(padding, str) else pair(padding)
        self.output_padding = pair(output_padding)
        self.padding_mode, self.transposed = padding_mode, transposed
        shape = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = _param(*shape, *self.kernel_size, device=device, dtype=dtype)
        self.bias = _param(out_channels, device=device, dtype=dtype) if bias else None
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in:
                init.uniform_(self.bias, -1 / math.sqrt(fan_in), 1 / math.sqrt(fan_in))

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * self.nd:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self.nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self.nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _mode_padding(self):
        """F.pad's list for a padding_mode other than "zeros" (torch's _reversed_padding_repeated_twice):
        (left, right) per spatial dim, last dim first; "same" puts the odd one on the right."""
        if self.padding == "valid":
            return [0] * (2 * self.nd)
        if self.padding == "same":
            total = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            return [v for t in reversed(total) for v in (t // 2, t - t // 2)]
        return [v for p in reversed(self.padding) for v in (p, p)]

    def forward(self, x):
        if self.padding_mode != "zeros":
            x = fn.pad(x, self._mode_padding(), mode=self.padding_mode)
            return self.function(x, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return self.function(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    nd, function = 1, staticmethod(fn.conv1d)


class Conv2d(_ConvNd):
    function = staticmethod(fn.conv2d)


class Conv3d(_ConvNd):
    nd, function = 3, staticmethod(fn.conv3d)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, transposed=True, output_padding=output_padding)

    def forward(self, x, output_size=None):
        return self.function(x, self.weight, self.bias, self.stride, self.padding, self._output_padding(x, output_size),
                             self.groups, self.dilation)

    def _output_padding(self, x, output_size):
        """output_padding, or for an output_size (torch's forward argument: the spatial sizes, or with
        the batch and channel dims too) what it must be: each size less the smallest output."""
        if output_size is None:
            return self.output_padding
        size = list(output_size)[-self.nd:]
        if len(output_size) not in (self.nd, x.dim()):
            raise ValueError(f"ConvTranspose{self.nd}D: for {x.dim()}D input, output_size must have {self.nd} or "
                             f"{x.dim()} elements (got {len(output_size)})")
        spatial = x.shape[x.dim() - self.nd:]
        least = [(n - 1) * s - 2 * p + d * (k - 1) + 1
                 for n, s, p, d, k in zip(spatial, self.stride, self.padding, self.dilation, self.kernel_size)]
        most = [m + max(s, d) - 1 for m, s, d in zip(least, self.stride, self.dilation)]
        if not all(lo <= want <= hi for lo, want, hi in zip(least, size, most)):
            raise ValueError(f"requested an output size of {size}, but valid sizes range from {least} to {most} "
                             f"(for an input of {spatial})")
        return tuple(want - lo for want, lo in zip(size, least))


class ConvTranspose1d(_ConvTransposeNd):
    nd, function = 1, staticmethod(fn.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    function = staticmethod(fn.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    nd, function = 3, staticmethod(fn.conv_transpose3d)


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation, self.ceil_mode = padding, dilation, ceil_mode
        self.return_indices = return_indices

    function = staticmethod(fn.max_pool2d)

    def forward(self, x):
        return self.function(x, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                             return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    function = staticmethod(fn.avg_pool2d)

    def forward(self, x):
        return self.function(x, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                             self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, x):
        return fn.adaptive_avg_pool2d(x, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class MaxPool1d(MaxPool2d):
    function = staticmethod(fn.max_pool1d)


class MaxPool3d(MaxPool2d):
    function = staticmethod(fn.max_pool3d)


class AvgPool3d(AvgPool2d):
    function = staticmethod(fn.avg_pool3d)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    def forward(self, x):
        return fn.adaptive_avg_pool3d(x, self.output_size)


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        one = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v,)  # noqa: E731
        self.kernel_size, self.stride = one(kernel_size), one(stride if stride is not None else kernel_size)
        self.padding, self.ceil_mode, self.count_include_pad = one(padding), ceil_mode, count_include_pad

    def forward(self, x):
        return fn.avg_pool1d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _LPPool(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPool):
    def forward(self, x):
        return fn.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPool):
    def forward(self, x):
        return fn.lp_pool2d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class Fold(Module):
    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size, self.dilation = output_size, kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, x):
        return fn.fold(x, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, x):
        return fn.unfold(x, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")


class _PadNd(Module):
    """F.pad with a fixed padding (an int pads every side of the last `nd` dims) and mode."""
    nd, mode = 1, "constant"

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * (2 * self.nd)
        self.value = value

    def forward(self, x):
        return fn.pad(x, list(self.padding), self.mode, self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}" if self.mode == "constant" and \
            not type(self).__name__.startswith("ZeroPad") else f"{self.padding}"


def _pad_module(name, nd, mode):
    if mode == "constant" and not name.startswith("ZeroPad"):
        return type(name, (_PadNd,), {"nd": nd, "mode": mode})
    return type(name, (_PadNd,), {"nd": nd, "mode": mode, "__init__": lambda self, padding: _PadNd.__init__(
        self, padding)})


ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (_pad_module(f"ReflectionPad{n}d", n, "reflect")
                                                     for n in (1, 2, 3))
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (_pad_module(f"ReplicationPad{n}d", n, "replicate")
                                                        for n in (1, 2, 3))
ZeroPad1d, ZeroPad2d, ZeroPad3d = (_pad_module(f"ZeroPad{n}d", n, "constant") for n in (1, 2, 3))
ConstantPad1d, ConstantPad2d, ConstantPad3d = (_pad_module(f"ConstantPad{n}d", n, "constant") for n in (1, 2, 3))


class Upsample(Module):
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.size, self.mode, self.align_corners = size, mode, align_corners
        self.scale_factor = float(scale_factor) if isinstance(scale_factor, (int, float)) else scale_factor
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, x):
        return fn.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners)

    def extra_repr(self):
        what = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return f"{what}, mode={self.mode!r}"


class Bilinear(Module):
    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = _param(out_features, in1_features, in2_features, device=device, dtype=dtype)
        self.bias = _param(out_features, device=device, dtype=dtype) if bias else None
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.in1_features)
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x1, x2):
        return fn.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class EmbeddingBag(Module):
    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim, self.mode = num_embeddings, embedding_dim, mode
        self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse = max_norm, norm_type, \
            scale_grad_by_freq, sparse
        self.include_last_offset = include_last_offset
        self.padding_idx = padding_idx + num_embeddings if padding_idx is not None and padding_idx < 0 else padding_idx
        self.weight = Parameter(_weight) if _weight is not None else _param(num_embeddings, embedding_dim,
                                                                             device=device, dtype=dtype)
        if _weight is None:
            self.reset_parameters()

    def reset_parameters(self):
        _normal_rows(self.weight, self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        bag = cls(*embeddings.shape, max_norm, norm_type, scale_grad_by_freq, mode, sparse, embeddings,
                  include_last_offset, padding_idx)
        bag.weight.requires_grad = not freeze
        return bag

    def forward(self, input, offsets=None, per_sample_weights=None):
        return fn.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                                self.mode, self.sparse, per_sample_weights, self.include_last_offset,
                                self.padding_idx)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s


# -- normalisation ---------------------------------------------------------------------------
class _BatchNorm(Module):
    _version = 2  # torch's: version 2 added num_batches_tracked

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = _param(num_features, device=device, dtype=dtype) if affine else None
        self.bias = _param(num_features, device=device, dtype=dtype) if affine and bias else None
        if track_running_stats:
            self.register_buffer("running_mean", F.empty(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", F.empty(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", F.empty((), dtype=int64, device=device))
        else:
            self.running_mean = self.running_var = None
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _ones_zeros(self.weight, self.bias)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        """A checkpoint from before version 2 (or without metadata) may lack num_batches_tracked: the module's
        own count stays, as torch's."""
        version = local_metadata.get("version")
        if (version is None or version < 2) and self.track_running_stats:
            state_dict.setdefault(prefix + "num_batches_tracked", self.num_batches_tracked)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, x):
        if x.dim() not in self._dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._dims)} input (got {x.dim()}D input)")
        use_batch = self.training or not self.track_running_stats
        if self.training and self.track_running_stats:
            self.num_batches_tracked = self.num_batches_tracked + 1
        return fn.batch_norm(x, self.running_mean if self.track_running_stats else None,
                             self.running_var if self.track_running_stats else None, self.weight, self.bias,
                             use_batch, self.momentum, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    _dims = (5,)


class _InstanceNorm(_BatchNorm):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, x):
        if x.dim() not in self._dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._dims)} input (got {x.dim()}D input)")
        unbatched = x.dim() == self._dims[0]
        if unbatched:
            x = F.unsqueeze(x, 0)
        use_input_stats = self.training or not self.track_running_stats
        out = fn.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias, use_input_stats,
                               self.momentum if self.momentum is not None else 0.1, self.eps)
        return F.squeeze(out, 0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    _dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    _dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    _dims = (4, 5)


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = tuple(normalized_shape) if isinstance(normalized_shape, (tuple, list)) else \
            (normalized_shape,)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = _param(*self.normalized_shape, device=device, dtype=dtype) if elementwise_affine else None
        self.bias = _param(*self.normalized_shape, device=device, dtype=dtype) if elementwise_affine and bias else None
        self.reset_parameters()

    def reset_parameters(self):
        _ones_zeros(self.weight, self.bias)

    def forward(self, x):
        return fn.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = tuple(normalized_shape) if isinstance(normalized_shape, (tuple, list)) else \
            (normalized_shape,)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = _param(*self.normalized_shape, device=device, dtype=dtype) if elementwise_affine else None
        self.reset_parameters()

    def reset_parameters(self):
        _ones_zeros(self.weight, None)

    def forward(self, x):
        return fn.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        self.weight = _param(num_channels, device=device, dtype=dtype) if affine else None
        self.bias = _param(num_channels, device=device, dtype=dtype) if affine and bias else None
        self.reset_parameters()

    def reset_parameters(self):
        _ones_zeros(self.weight, self.bias)

    def forward(self, x):
        return fn.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, bias={self.bias is not None}"


# -- activations and simple layers -----------------------------------------------------------
def _activation(name, function, repr_fields=(), inplace=None):
    """A module calling function with its fields. inplace: None where torch's module has no `inplace`;
    "shown" where its repr ends in `inplace=True` when set; "hidden" where it takes the flag but never
    shows it (Hardswish, Hardsigmoid)."""
    fields = tuple(repr_fields) + ((("inplace", False),) if inplace else ())

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        for (field, default), value in zip(fields, args):
            kwargs.setdefault(field, value)
        for field, default in fields:
            setattr(self, field, kwargs.get(field, default))

    def forward(self, x):
        return function(x, **{f: getattr(self, f) for f, _ in fields})

    def extra_repr(self):
        shown = [f"{f}={getattr(self, f)!r}" for f, _ in repr_fields if f != "return_indices"]
        return ", ".join(shown + (["inplace=True"] if inplace == "shown" and self.inplace else []))
    return type(name, (Module,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr})


ReLU = _activation("ReLU", fn.relu, inplace="shown")
Tanh = _activation("Tanh", fn.tanh)
Sigmoid = _activation("Sigmoid", fn.sigmoid)
SiLU = _activation("SiLU", fn.silu, inplace="shown")
Mish = _activation("Mish", fn.mish, inplace="shown")
Hardswish = _activation("Hardswish", fn.hardswish, inplace="hidden")
ReLU6 = _activation("ReLU6", fn.relu6, inplace="shown")
GELU = _activation("GELU", fn.gelu, (("approximate", "none"),))
LeakyReLU = _activation("LeakyReLU", fn.leaky_relu, (("negative_slope", 0.01),), inplace="shown")
ELU = _activation("ELU", fn.elu, (("alpha", 1.0),), inplace="shown")
Softplus = _activation("Softplus", fn.softplus, (("beta", 1.0), ("threshold", 20.0)))
Hardtanh = _activation("Hardtanh", fn.hardtanh, (("min_val", -1.0), ("max_val", 1.0)), inplace="shown")
Softmax = _activation("Softmax", fn.softmax, (("dim", None),))
LogSoftmax = _activation("LogSoftmax", fn.log_softmax, (("dim", None),))
SELU = _activation("SELU", fn.selu, inplace="shown")
CELU = _activation("CELU", fn.celu, (("alpha", 1.0),), inplace="shown")
LogSigmoid = _activation("LogSigmoid", fn.logsigmoid)
Softsign = _activation("Softsign", fn.softsign)
Tanhshrink = _activation("Tanhshrink", fn.tanhshrink)
Hardshrink = _activation("Hardshrink", fn.hardshrink, (("lambd", 0.5),))
Softshrink = _activation("Softshrink", fn.softshrink, (("lambd", 0.5),))
Threshold = _activation("Threshold", fn.threshold, (("threshold", None), ("value", None)), inplace="shown")
Hardsigmoid = _activation("Hardsigmoid", fn.hardsigmoid, inplace="hidden")
Softmin = _activation("Softmin", fn.softmin, (("dim", None),))
GLU = _activation("GLU", fn.glu, (("dim", -1),))
PixelShuffle = _activation("PixelShuffle", fn.pixel_shuffle, (("upscale_factor", None),))
PixelUnshuffle = _activation("PixelUnshuffle", fn.pixel_unshuffle, (("downscale_factor", None),))
ChannelShuffle = _activation("ChannelShuffle", fn.channel_shuffle, (("groups", None),))
AdaptiveAvgPool1d = _activation("AdaptiveAvgPool1d", fn.adaptive_avg_pool1d, (("output_size", None),))
AdaptiveMaxPool1d = _activation("AdaptiveMaxPool1d", fn.adaptive_max_pool1d, (("output_size", None),
                                                                              ("return_indices", False)))
AdaptiveMaxPool2d = _activation("AdaptiveMaxPool2d", fn.adaptive_max_pool2d, (("output_size", None),
                                                                              ("return_indices", False)))
AdaptiveMaxPool3d = _activation("AdaptiveMaxPool3d", fn.adaptive_max_pool3d, (("output_size", None),
                                                                              ("return_indices", False)))


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class Softmax2d(Module):
    def forward(self, x):
        if x.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {x.dim()}D instead")
        return fn.softmax(x, -3)


class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = _param(num_parameters, device=device, dtype=dtype)
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, x):
        return fn.prelu(x, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, x):
        return fn.dropout(x, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    def forward(self, x):
        return fn.dropout1d(x, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    def forward(self, x):
        return fn.dropout2d(x, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    def forward(self, x):
        return fn.alpha_dropout(x, self.p, self.training, self.inplace)


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        return x.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, x):
        d = self.dim % x.dim()
        return x.reshape(*x.shape[:d], *self.unflattened_size, *x.shape[d + 1:])

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


# -- containers ------------------------------------------------------------------------------
class Sequential(Module):
    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x

    def _key(self, i):
        """The name of the module at position i (negative counts from the end), as torch's IndexError."""
        i = operator.index(i)
        if not -len(self) <= i < len(self):
            raise IndexError(f"index {i} is out of range")
        return list(self._modules)[i % len(self)]

    def __getitem__(self, i):
        if isinstance(i, slice):  # the modules keep their names, as torch's
            return self.__class__(OrderedDict(list(self._modules.items())[i]))
        return self._modules[self._key(i)]

    def __setitem__(self, i, module):
        setattr(self, self._key(i), module)

    def __delitem__(self, i):
        for key in (list(self._modules)[i] if isinstance(i, slice) else [self._key(i)]):
            delattr(self, key)
        self._modules = OrderedDict((str(n), m) for n, m in enumerate(self._modules.values()))  # renumbered

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, m):
        self.add_module(str(len(self)), m)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(modules))
        return self

    def extend(self, sequential):
        for m in sequential:
            self.append(m)
        return self


class ModuleList(Module):
    """Modules held by index ("0", "1", ...), as torch's: negative indices, slices as ModuleLists,
    insert/pop/del renumbering the rest, + and +=."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _key(self, i):
        i = operator.index(i)
        if not -len(self) <= i < len(self):
            raise IndexError(f"index {i} is out of range")
        return str(i % len(self))

    def append(self, m):
        self.add_module(str(len(self)), m)
        return self

    def extend(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        for i in range(len(self._modules), index, -1):  # (torch's shift, negative indices included)
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def pop(self, key):
        m = self[key]
        del self[key]
        return m

    def __getitem__(self, i):
        if isinstance(i, slice):
            return type(self)(list(self._modules.values())[i])
        return self._modules[self._key(i)]

    def __setitem__(self, i, m):
        setattr(self, self._key(i), m)

    def __delitem__(self, i):
        for key in ([str(k) for k in range(len(self))[i]] if isinstance(i, slice) else [self._key(i)]):
            delattr(self, key)
        kept = list(self._modules.values())  # renumbered 0..n-1, in the same dict
        self._modules.clear()
        self._modules.update((str(k), m) for k, m in enumerate(kept))

    def __add__(self, other):
        combined = ModuleList()
        for m in itertools.chain(self, other):
            combined.append(m)
        return combined

    def __iadd__(self, modules):
        return self.extend(modules)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __repr__(self):
        """PyTorch's: runs of equal entries are one line, "(0-5): 6 x Block(...)"."""
        runs = []  # [first index, last index, repr]
        for i, m in enumerate(self):
            text = repr(m)
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        if not runs:
            return f"{type(self).__name__}()"
        lines = [(f"({a}): " if a == b else f"({a}-{b}): {b - a + 1} x ") + text.replace("\n", "\n  ")
                 for a, b, text in runs]
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"


def _as_parameter(value):
    """What torch's ParameterList/ParameterDict store: a plain tensor becomes a Parameter, the rest as given."""
    return Parameter(value) if isinstance(value, F.Tensor) and not isinstance(value, Parameter) else value


class ParameterList(Module):
    """Parameters held by index ("0", "1", ...), registered as this module's parameters."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        self.extend(values or [])

    def __len__(self):
        return self._size

    def _index(self, i):
        if not -self._size <= i < self._size:
            raise IndexError(f"index {i} is out of range")
        return str(i % self._size)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return ParameterList([self[j] for j in range(self._size)[i]])
        return getattr(self, self._index(i))

    def __setitem__(self, i, value):
        setattr(self, self._index(i), _as_parameter(value))

    def __iter__(self):
        return (self[i] for i in range(self._size))

    def append(self, value):
        self._size += 1
        setattr(self, str(self._size - 1), _as_parameter(value))
        return self

    def extend(self, values):
        for v in values:
            self.append(v)
        return self

    def __iadd__(self, values):
        return self.extend(values)

    def extra_repr(self):
        return "\n".join(f"({i}): Parameter containing: [{p.type()} of size {'x'.join(map(str, p.shape))}]"
                         for i, p in enumerate(self))


def _pairs(values, owner):
    """The (key, value) pairs of torch's update() argument: a mapping's items, or checked key/value pairs."""
    if not isinstance(values, Iterable):
        raise TypeError(f"{owner}.update should be called with an iterable of key/value pairs, but got "
                        f"{type(values).__name__}")
    if hasattr(values, "items"):
        return values.items()
    pairs = []
    for j, pair in enumerate(values):
        if not isinstance(pair, Iterable):
            raise TypeError(f"{owner} update sequence element #{j} should be Iterable; is{type(pair).__name__}")
        if len(pair) != 2:
            raise ValueError(f"{owner} update sequence element #{j} has length {len(pair)}; 2 is required")
        pairs.append(tuple(pair))
    return pairs


class ParameterDict(Module):
    """Parameters held by name, registered as this module's parameters (torch's dict methods)."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)  # torch's: AttributeError for a missing key

    def __setitem__(self, key, value):
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def values(self):
        return (self[k] for k in self._keys)

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for key in list(self._keys):
            del self[key]

    def copy(self):
        return ParameterDict(OrderedDict(self.items()))

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def update(self, parameters):
        if not isinstance(parameters, Iterable):  # (torch's text says ParametersDict here)
            raise TypeError(f"ParametersDict.update should be called with an iterable of key/value pairs, but got "
                            f"{type(parameters).__name__}")
        pairs = _pairs(parameters, "ParameterDict")
        if hasattr(parameters, "items") and not isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = sorted(pairs)  # torch sorts a plain mapping's keys
        for key, value in pairs:
            self[key] = value

    def __or__(self, other):
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other):
        out = other.copy()
        out.update(self)
        return out

    def __ior__(self, other):
        self.update(other)
        return self


class ModuleDict(Module):
    """Modules held by name, in insertion order (torch's dict methods)."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, k):
        return self._modules[k]

    def __setitem__(self, k, m):
        self.add_module(k, m)

    def __delitem__(self, k):
        del self._modules[k]

    def pop(self, k):
        m = self[k]
        del self[k]
        return m

    def clear(self):
        self._modules.clear()

    def update(self, modules):
        for key, m in _pairs(modules, "ModuleDict"):
            self[key] = m

    def __contains__(self, k):
        return k in self._modules

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()


# -- attention, transformer ------------------------------------------------------------------
class NonDynamicallyQuantizableLinear(Linear):
    pass


class MultiheadAttention(Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        self.embed_dim, self.kdim, self.vdim = embed_dim, kdim or embed_dim, vdim or embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = _param(3 * embed_dim, embed_dim, device=device, dtype=dtype)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = _param(embed_dim, embed_dim, device=device, dtype=dtype)
            self.k_proj_weight = _param(embed_dim, self.kdim, device=device, dtype=dtype)
            self.v_proj_weight = _param(embed_dim, self.vdim, device=device, dtype=dtype)
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = _param(3 * embed_dim, device=device, dtype=dtype)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        if add_bias_kv:
            self.bias_k = _param(1, 1, embed_dim, device=device, dtype=dtype)
            self.bias_v = _param(1, 1, embed_dim, device=device, dtype=dtype)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        for weight in ((self.in_proj_weight,) if self._qkv_same_embed_dim else
                       (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)):
            init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        if self.batch_first and query.dim() == 3:
            if query is key and key is value:  # self-attention stays recognisable: one in-projection
                query = key = value = query.transpose(0, 1)
            else:
                query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        out, weights = fn.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and query.dim() == 3:
            out = out.transpose(0, 1)
        return out, weights


def _get_activation_fn(activation):
    if activation == "relu":
        return fn.relu
    if activation == "gelu":
        return fn.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class _TransformerLayer(Module):
    """The sublayers of PyTorch's encoder (cross_attention=False) and decoder layers, in its order."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                 bias, device, dtype, cross_attention):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            device=device, dtype=dtype)
        if cross_attention:
            self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                     batch_first=batch_first, device=device, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, device=device, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, device=device, dtype=dtype)
        self.norm_first = norm_first
        sublayers = 3 if cross_attention else 2
        for i in range(1, sublayers + 1):
            setattr(self, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype))
        for i in range(1, sublayers + 1):
            setattr(self, f"dropout{i}", Dropout(dropout))
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation


class TransformerEncoderLayer(_TransformerLayer):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=fn.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                         norm_first, bias, device, dtype, cross_attention=False)

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x


class TransformerDecoderLayer(_TransformerLayer):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=fn.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                         norm_first, bias, device, dtype, cross_attention=True)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, memory, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, memory, memory, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check
        attn = getattr(encoder_layer, "self_attn", None)
        self.use_nested_tensor = enable_nested_tensor and isinstance(encoder_layer, TransformerEncoderLayer) and \
            not encoder_layer.norm_first and attn.batch_first and attn._qkv_same_embed_dim and \
            attn.in_proj_bias is not None and encoder_layer.norm1.eps == encoder_layer.norm2.eps and \
            attn.num_heads % 2 == 0 and (encoder_layer.activation in (fn.relu, fn.gelu) or
                                         isinstance(encoder_layer.activation, (ReLU, GELU)))

    def _zeroes_padding(self, src, mask, src_key_padding_mask):
        """Whether PyTorch takes its nested-tensor fast path, whose output is 0 at padded positions:
        inference (eval, no gradient), batched input, a left-aligned key padding mask and no mask."""
        if not self.use_nested_tensor or self.layers[0].training or src.dim() != 3 or mask is not None:
            return False
        if src_key_padding_mask is None or src_key_padding_mask.dtype is not F.dt.bool_:
            return False
        first = self.layers[0]
        if is_grad_enabled() and (src.requires_grad or any(p.requires_grad for p in first.parameters())):
            return False
        padded = src_key_padding_mask.tolist()
        return not self.mask_check or all(row == sorted(row) for row in padded)  # keys, then padding

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=is_causal is True)
        if self._zeroes_padding(src, mask, src_key_padding_mask):
            x = F.where(F.unsqueeze(src_key_padding_mask, -1), 0.0, x)
        return self.norm(x) if self.norm is not None else x


class TransformerDecoder(Module):
    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal is True,
                      memory_is_causal=memory_is_causal)
        return self.norm(x) if self.norm is not None else x


class Transformer(Module):
    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=fn.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first,
                      bias, device, dtype)
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(*layer_args), num_encoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype))
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(*layer_args), num_decoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device, dtype=dtype))
        self._reset_parameters()
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """-inf above the diagonal, 0 elsewhere: position i attends to positions <= i."""
        return triu(F.full((sz, sz), -math.inf, dtype=dtype, device=device), diagonal=1)


# -- losses ----------------------------------------------------------------------------------
_LEGACY = ("size_average", "reduce", "reduction")


def _loss(name, function, fields=(), positional=_LEGACY):
    """A loss Module calling `function` with its `fields` ((name, default) pairs) and reduction;
    `positional` is the order of torch's constructor parameters (its legacy size_average/reduce
    among them, turned into reduction as torch does)."""
    allowed = {f for f, _ in fields} | set(positional) | {"reduction"}

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        if len(args) > len(positional):
            takes = f"from 1 to {len(positional) + 1} positional arguments" if positional else "1 positional argument"
            raise TypeError(f"{name}.__init__() takes {takes} but {len(args) + 1} were given")
        for key, value in zip(positional, args):
            if key in kwargs:
                raise TypeError(f"{name}.__init__() got multiple values for argument '{key}'")
            kwargs[key] = value
        for key in kwargs:
            if key not in allowed:
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{key}'")
        size_average, reduce = kwargs.pop("size_average", None), kwargs.pop("reduce", None)
        if size_average is not None or reduce is not None:
            kwargs["reduction"] = fn._legacy_reduction(size_average, reduce)
        for field, default in list(fields) + [("reduction", "mean")]:
            value = kwargs.get(field, default)
            if field == "weight" and value is not None:
                self.register_buffer("weight", value)
            else:
                setattr(self, field, value)

    def forward(self, input, target):
        return function(input, target, **{f: getattr(self, f) for f, _ in list(fields) + [("reduction", None)]})
    return type(name, (Module,), {"__init__": __init__, "forward": forward})


MSELoss = _loss("MSELoss", fn.mse_loss)
L1Loss = _loss("L1Loss", fn.l1_loss)
SmoothL1Loss = _loss("SmoothL1Loss", fn.smooth_l1_loss, (("beta", 1.0),), _LEGACY + ("beta",))
HuberLoss = _loss("HuberLoss", fn.huber_loss, (("delta", 1.0),), ("reduction", "delta"))
BCELoss = _loss("BCELoss", fn.binary_cross_entropy, (("weight", None),), ("weight",) + _LEGACY)
BCEWithLogitsLoss = _loss("BCEWithLogitsLoss", fn.binary_cross_entropy_with_logits,
                          (("weight", None), ("pos_weight", None)), ("weight",) + _LEGACY + ("pos_weight",))
NLLLoss = _loss("NLLLoss", fn.nll_loss, (("weight", None), ("ignore_index", -100)),
                ("weight", "size_average", "ignore_index", "reduce", "reduction"))
CrossEntropyLoss = _loss("CrossEntropyLoss", fn.cross_entropy,
                         (("weight", None), ("ignore_index", -100), ("label_smoothing", 0.0)),
                         ("weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing"))
KLDivLoss = _loss("KLDivLoss", fn.kl_div, (("log_target", False),), _LEGACY + ("log_target",))
MultiLabelSoftMarginLoss = _loss("MultiLabelSoftMarginLoss", fn.multilabel_soft_margin_loss, (("weight", None),),
                                 ("weight",) + _LEGACY)
PoissonNLLLoss = _loss("PoissonNLLLoss", fn.poisson_nll_loss, (("log_input", True), ("full", False), ("eps", 1e-8)),
                       ("log_input", "full", "size_average", "eps", "reduce", "reduction"))


def _pair_loss(name, function, fields, positional):
    """A loss of two inputs and a target (the losses above take one input)."""
    base = _loss(name, function, fields, positional)

    def forward(self, input1, input2, target):
        return function(input1, input2, target, **{f: getattr(self, f) for f, _ in list(fields) + [("reduction", 0)]})
    return type(name, (base,), {"forward": forward})


CosineEmbeddingLoss = _pair_loss("CosineEmbeddingLoss", fn.cosine_embedding_loss, (("margin", 0.0),),
                                 ("margin",) + _LEGACY)
MarginRankingLoss = _pair_loss("MarginRankingLoss", fn.margin_ranking_loss, (("margin", 0.0),), ("margin",) + _LEGACY)
TripletMarginLoss = _pair_loss("TripletMarginLoss", fn.triplet_margin_loss,
                               (("margin", 1.0), ("p", 2.0), ("eps", 1e-6), ("swap", False)),
                               ("margin", "p", "eps", "swap") + _LEGACY)
SoftMarginLoss = _loss("SoftMarginLoss", fn.soft_margin_loss)
HingeEmbeddingLoss = _loss("HingeEmbeddingLoss", fn.hinge_embedding_loss, (("margin", 1.0),), ("margin",) + _LEGACY)


class NLLLoss2d(NLLLoss):
    """torch's deprecated name of NLLLoss for (N, C, H, W) inputs: the same loss."""


GaussianNLLLoss = _pair_loss("GaussianNLLLoss", fn.gaussian_nll_loss, (("full", False), ("eps", 1e-6)), ())


class CTCLoss(Module):
    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return fn.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                           self.zero_infinity)


class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return fn.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return fn.cosine_similarity(x1, x2, self.dim, self.eps)


# -- issue 22's remaining torch.nn modules: each calls its functional form ----------------------
CircularPad1d, CircularPad2d, CircularPad3d = (_pad_module(f"CircularPad{n}d", n, "circular") for n in (1, 2, 3))


class RReLU(Module):
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, x):
        return fn.rrelu(x, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


class Dropout3d(Dropout):
    def forward(self, x):
        return fn.dropout3d(x, self.p, self.training, self.inplace)


class FeatureAlphaDropout(Dropout):
    def forward(self, x):
        return fn.feature_alpha_dropout(x, self.p, self.training)


class LPPool3d(_LPPool):
    def forward(self, x):
        return fn.lp_pool3d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


def _unpool_module(nd):
    function = getattr(fn, f"max_unpool{nd}d")

    def __init__(self, kernel_size, stride=None, padding=0):
        Module.__init__(self)
        self.kernel_size = fn._pair(kernel_size, nd)
        self.stride = fn._pair(stride if stride is not None else kernel_size, nd)
        self.padding = fn._pair(padding, nd)

    def forward(self, input, indices, output_size=None):
        return function(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
    return type(f"MaxUnpool{nd}d", (Module,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr})


MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = (_unpool_module(n) for n in (1, 2, 3))


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, x):
        return fn.local_response_norm(x, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


MultiLabelMarginLoss = _loss("MultiLabelMarginLoss", fn.multilabel_margin_loss)
_MultiMarginLoss = _loss("MultiMarginLoss", fn.multi_margin_loss, (("p", 1), ("margin", 1.0), ("weight", None)),
                         ("p", "margin", "weight") + _LEGACY)


class MultiMarginLoss(_MultiMarginLoss):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if self.weight is not None and self.weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got {self.weight.dim()}D "
                             "instead")


class TripletMarginWithDistanceLoss(Module):
    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__()
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             "instead")
        self.distance_function = distance_function if distance_function is not None else PairwiseDistance()
        self.margin, self.swap, self.reduction = margin, swap, reduction

    def forward(self, anchor, positive, negative):
        return fn.triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=self.distance_function,
                                                    margin=self.margin, swap=self.swap, reduction=self.reduction)


class SyncBatchNorm(_BatchNorm):
    """BatchNorm whose statistics would be reduced over a process group in training; webtorch has one
    process, so it is torch's behaviour without an initialised process group: BatchNorm over the batch."""
    _dims = None

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def forward(self, x):
        if x.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {x.dim()}D input)")
        if x.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        self._dims = (x.dim(),)
        return super().forward(x)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """module with every BatchNorm*d (itself or below) replaced by a SyncBatchNorm holding its tensors."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, _InstanceNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                      process_group)
            if module.affine:
                with no_grad():
                    out.weight, out.bias = module.weight, module.bias
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                setattr(out, name, getattr(module, name))
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


class Container(Module):
    """torch's deprecated container: a Module holding the keyword arguments as submodules."""

    def __init__(self, **kwargs):
        warnings.warn("`nn.Container` is deprecated. All of it's functionality is now implemented in `nn.Module`. "
                      "Subclass that instead.", FutureWarning, stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax over many classes (Grave et al.): a head over the shortlist and one entry per
    cluster, each cluster's classes from a two-layer tail. A target's log-probability is the head's
    (for a cluster, the cluster entry's plus the tail's); the values are those of torch's forward, which
    evaluates the tails only on the rows whose targets lie in them."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1 or \
                len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features, self.n_classes, self.cutoffs = in_features, n_classes, cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size, self.n_clusters = self.cutoffs[0], len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = dict(device=device, dtype=dtype)
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **kw),
                                        Linear(hidden, self.cutoffs[i + 1] - self.cutoffs[i], bias=False, **kw)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        if target_.dim() == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size {input_.shape}")
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size {input_.shape}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input, target = (input_, target_) if batched else (input_.unsqueeze(0), target_.unsqueeze(0))
        low, high = int(target.min()), int(target.max())
        if low < 0 or high >= self.n_classes:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{low}, {high}] were found. ")
        output = self._full_log_prob(input).gather(1, target.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input):
        head = fn.log_softmax(self.head(input), dim=1)
        parts = [head[:, :self.shortlist_size]]
        for i, tail in enumerate(self.tail):
            parts.append(fn.log_softmax(tail(input), dim=1) + head[:, self.shortlist_size + i].unsqueeze(1))
        return F.cat(parts, 1)

    def log_prob(self, input):
        batched = input.dim() > 1
        out = self._full_log_prob(input if batched else input.unsqueeze(0))
        return out if batched else out.squeeze(0)

    def predict(self, input):
        return self.log_prob(input).argmax(dim=-1)


def factory_kwargs(kwargs):
    """The factory keywords (device, dtype, memory_format) of a module's **kwargs as one dict, those under
    kwargs["factory_kwargs"] included; TypeError for any other key or one given twice (torch's checks)."""
    if kwargs is None:
        return {}
    simple = {"device", "dtype", "memory_format"}
    if not kwargs.keys() <= simple | {"factory_kwargs"}:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - (simple | {'factory_kwargs'})}")
    out = dict(kwargs.get("factory_kwargs", {}))
    for key in simple & kwargs.keys():
        if key in out:
            raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
        out[key] = kwargs[key]
    return out
