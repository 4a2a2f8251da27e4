"""nn layers and losses as Modules over nn.functional, with PyTorch's default initialisations."""
import copy
import math
from collections import OrderedDict

from .. import _ops as F
from . import functional as fn
from . import init
from .module import Module, Parameter


def _param(*shape, device=None):
    return Parameter(F.empty(*shape, device=device))


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
        self.weight = _param(out_features, in_features, device=device)
        self.bias = _param(out_features, device=device) if bias else None
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
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        self.padding_idx = padding_idx
        self.weight = _param(num_embeddings, embedding_dim, device=device)
        init.normal_(self.weight)
        if padding_idx is not None:
            F._copy_into(self.weight.data[padding_idx], 0.0)

    def forward(self, x):
        out = fn.embedding(x, self.weight)
        if self.padding_idx is not None:  # the padding row gets no gradient
            keep = F.cast(F.ne(x, self.padding_idx), out.dtype).unsqueeze(-1)
            out = out * keep + out.detach() * (1 - keep)
        return out

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        return s + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")


# -- convolution, pooling --------------------------------------------------------------------
class _ConvNd(Module):
    nd = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None, transposed=False, output_padding=0):
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        pair = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v,) * self.nd  # noqa: E731
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride, self.dilation = pair(kernel_size), pair(stride), pair(dilation)
        self.padding = padding if isinstance(padding, str) else pair(padding)
        self.output_padding = pair(output_padding)
        self.padding_mode, self.transposed = padding_mode, transposed
        shape = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = _param(*shape, *self.kernel_size, device=device)
        self.bias = _param(out_channels, device=device) if bias else None
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
        return s


class Conv1d(_ConvNd):
    nd = 1

    def forward(self, x):
        return fn.conv1d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv2d(_ConvNd):
    def forward(self, x):
        return fn.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class ConvTranspose2d(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, transposed=True, output_padding=output_padding)

    def forward(self, x):
        return fn.conv_transpose2d(x, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                   self.groups, self.dilation)


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation, self.ceil_mode = padding, dilation, ceil_mode

    def forward(self, x):
        return fn.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)

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

    def forward(self, x):
        return fn.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad,
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


# -- normalisation ---------------------------------------------------------------------------
class _BatchNorm(Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = Parameter(F.ones(num_features, device=device)) if affine else None
        self.bias = Parameter(F.zeros(num_features, device=device)) if affine and bias else None
        if track_running_stats:
            self.register_buffer("running_mean", F.zeros(num_features, device=device))
            self.register_buffer("running_var", F.ones(num_features, device=device))
            self.register_buffer("num_batches_tracked", F.tensor(0, device=device))
        else:
            self.running_mean = self.running_var = None

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


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = tuple(normalized_shape) if isinstance(normalized_shape, (tuple, list)) else \
            (normalized_shape,)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = Parameter(F.ones(*self.normalized_shape, device=device)) if elementwise_affine else None
        self.bias = Parameter(F.zeros(*self.normalized_shape, device=device)) if elementwise_affine and bias else None

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
        self.weight = Parameter(F.ones(*self.normalized_shape, device=device)) if elementwise_affine else None

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
        self.weight = Parameter(F.ones(num_channels, device=device)) if affine else None
        self.bias = Parameter(F.zeros(num_channels, device=device)) if affine and bias else None

    def forward(self, x):
        return fn.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, bias={self.bias is not None}"


# -- activations and simple layers -----------------------------------------------------------
def _activation(name, function, repr_fields=()):
    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        for (field, default), value in zip(repr_fields, args):
            kwargs.setdefault(field, value)
        for field, default in repr_fields:
            setattr(self, field, kwargs.get(field, default))

    def forward(self, x):
        return function(x, **{f: getattr(self, f) for f, _ in repr_fields if f != "inplace"})

    def extra_repr(self):
        return ", ".join(f"{f}={getattr(self, f)!r}" for f, _ in repr_fields if f != "inplace")
    return type(name, (Module,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr})


ReLU = _activation("ReLU", fn.relu)
Tanh = _activation("Tanh", fn.tanh)
Sigmoid = _activation("Sigmoid", fn.sigmoid)
SiLU = _activation("SiLU", fn.silu)
Mish = _activation("Mish", fn.mish)
Hardswish = _activation("Hardswish", fn.hardswish)
ReLU6 = _activation("ReLU6", fn.relu6)
GELU = _activation("GELU", fn.gelu, (("approximate", "none"),))
LeakyReLU = _activation("LeakyReLU", fn.leaky_relu, (("negative_slope", 0.01), ("inplace", False)))
ELU = _activation("ELU", fn.elu, (("alpha", 1.0), ("inplace", False)))
Softplus = _activation("Softplus", fn.softplus, (("beta", 1.0), ("threshold", 20.0)))
Hardtanh = _activation("Hardtanh", fn.hardtanh, (("min_val", -1.0), ("max_val", 1.0)))
Softmax = _activation("Softmax", fn.softmax, (("dim", None),))
LogSoftmax = _activation("LogSoftmax", fn.log_softmax, (("dim", None),))


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, x):
        return fn.dropout(x, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


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

    def __getitem__(self, i):
        mods = list(self._modules.values())
        return Sequential(*mods[i]) if isinstance(i, slice) else mods[i]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, m):
        self.add_module(str(len(self)), m)
        return self


class ModuleList(Module):
    def __init__(self, modules=None):
        super().__init__()
        for m in modules or []:
            self.append(m)

    def append(self, m):
        self.add_module(str(len(self._modules)), m)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def __getitem__(self, i):
        mods = list(self._modules.values())
        return ModuleList(mods[i]) if isinstance(i, slice) else mods[i]

    def __setitem__(self, i, m):
        self.add_module(list(self._modules)[i], m)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        for k, m in (modules.items() if isinstance(modules, dict) else modules or []):
            self.add_module(k, m)

    def __getitem__(self, k):
        return self._modules[k]

    def __setitem__(self, k, m):
        self.add_module(k, m)

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
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if add_bias_kv or add_zero_attn or (kdim not in (None, embed_dim)) or (vdim not in (None, embed_dim)):
            raise NotImplementedError("MultiheadAttention: add_bias_kv, add_zero_attn and kdim/vdim are not supported")
        self.embed_dim, self.num_heads, self.dropout, self.batch_first = embed_dim, num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        self.in_proj_weight = _param(3 * embed_dim, embed_dim, device=device)
        self.in_proj_bias = Parameter(F.zeros(3 * embed_dim, device=device)) if bias else None
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device)
        init.xavier_uniform_(self.in_proj_weight)
        if bias:
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        batched = query.dim() == 3
        if not batched:
            query, key, value = (F.unsqueeze(t, 1) for t in (query, key, value))
        elif self.batch_first:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        out, weights = fn.multi_head_attention_forward(
            query, key, value, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight,
            self.out_proj.bias, key_padding_mask, need_weights, attn_mask, average_attn_weights,
            is_causal and attn_mask is None, self.dropout if self.training else 0.0)
        if not batched:
            out = F.squeeze(out, 1)
            weights = F.squeeze(weights, 0) if weights is not None else None
        elif self.batch_first:
            out = out.transpose(0, 1)
        return out, weights


class TransformerEncoderLayer(Module):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=fn.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout, bias=bias, batch_first=batch_first,
                                            device=device)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, device=device)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, device=device)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = {"relu": fn.relu, "gelu": fn.gelu}[activation]
        self.activation = activation

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


class TransformerEncoder(Module):
    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=bool(is_causal))
        return self.norm(x) if self.norm is not None else x


# -- losses ----------------------------------------------------------------------------------
def _loss(name, function, fields=()):
    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        if args and fields and fields[0][0] == "weight":  # torch's only positional argument in common use
            kwargs.setdefault("weight", args[0])
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
SmoothL1Loss = _loss("SmoothL1Loss", fn.smooth_l1_loss, (("beta", 1.0),))
HuberLoss = _loss("HuberLoss", fn.huber_loss, (("delta", 1.0),))
BCELoss = _loss("BCELoss", fn.binary_cross_entropy, (("weight", None),))
BCEWithLogitsLoss = _loss("BCEWithLogitsLoss", fn.binary_cross_entropy_with_logits,
                          (("weight", None), ("pos_weight", None)))
NLLLoss = _loss("NLLLoss", fn.nll_loss, (("weight", None), ("ignore_index", -100)))
CrossEntropyLoss = _loss("CrossEntropyLoss", fn.cross_entropy,
                         (("weight", None), ("ignore_index", -100), ("label_smoothing", 0.0)))
KLDivLoss = _loss("KLDivLoss", fn.kl_div, (("log_target", False),))


class CosineSimilarity(Module):
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return fn.cosine_similarity(x1, x2, self.dim, self.eps)
