"""Lazy modules: LazyLinear, LazyConv*/LazyConvTranspose*, LazyBatchNorm*/LazyInstanceNorm* with
UninitializedParameter/UninitializedBuffer, as torch's: the parameters have no shape until the first call,
which reads the input's feature size, materializes them, runs reset_parameters() and turns the module
into its ordinary class (LazyLinear -> Linear). Loading a state_dict materializes them with its shapes."""
from .. import _dtypes as dt
from .. import _ops as F
from ..autograd import no_grad
from .layers import (BatchNorm1d, BatchNorm2d, BatchNorm3d, Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,
                     ConvTranspose3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, Linear)
from .module import Parameter

__all__ = ["UninitializedParameter", "UninitializedBuffer", "LazyModuleMixin", "LazyLinear"]


class UninitializedTensorMixin:
    """A parameter or buffer without data yet: materialize(shape) gives it its memory and its ordinary class."""
    cls_to_become = None

    def __new__(cls, *args, **kwargs):  # (its __init__ makes the placeholder, not Parameter's __new__)
        return object.__new__(cls)

    def materialize(self, shape, device=None, dtype=None):
        device = self.device if device is None else device
        dtype = self.dtype if dtype is None else dtype
        data = F.empty(tuple(shape) if isinstance(shape, (tuple, list)) else (shape,), device=device, dtype=dtype)
        self.__class__ = self.cls_to_become
        self.data = data

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually "
                           "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
                           "initialized one. Call `forward` to initialize the parameters before accessing their "
                           "attributes.")

    @shape.setter
    def shape(self, value):
        F.Tensor.shape.__set__(self, value)

    def __repr__(self):
        return f"<{type(self).__name__}>"

    def detach(self):  # state_dict() holds the uninitialized tensor itself, as torch's
        return self

    def to(self, *args, **kwargs):
        """Still uninitialized, on the device and of the dtype asked for (module.to() before the first call)."""
        probe = F.empty(0, dtype=self.dtype, device=self.device).to(*args, **kwargs)
        if isinstance(self, Parameter):  # Module.to() sets a parameter's data: it stays this object, uninitialized
            return probe
        return type(self)(requires_grad=self.requires_grad, device=probe.device, dtype=probe.dtype)

    def _placeholder(self, requires_grad, device, dtype):
        F.Tensor.__init__(self, F.empty(0, device=device, dtype=dtype)._storage, F.Size([0]), (1,), 0)
        self.requires_grad = requires_grad


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    cls_to_become = Parameter

    def __init__(self, requires_grad=True, device=None, dtype=None):
        self._placeholder(requires_grad, device, dtype)


class UninitializedBuffer(UninitializedTensorMixin, F.Tensor):
    cls_to_become = F.Tensor

    def __init__(self, requires_grad=False, device=None, dtype=None):
        self._placeholder(requires_grad, device, dtype)


def _uninitialized(t):
    return isinstance(t, UninitializedTensorMixin)


def _register_hook(module):
    module._initialize_hook = module.register_forward_pre_hook(LazyModuleMixin._infer_parameters)


class LazyModuleMixin:
    """The first call infers the shapes (initialize_parameters(*inputs)), then the module becomes
    cls_to_become."""
    cls_to_become = None

    def __new__(cls, *args, **kwargs):  # (its __init__ makes the placeholder, not Parameter's __new__)
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _register_hook(self)

    def has_uninitialized_params(self):
        return any(_uninitialized(t) for t in list(self._parameters.values()) + list(self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    @staticmethod
    def _infer_parameters(module, args):
        with no_grad():
            module.initialize_parameters(*args)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {type(module).__name__} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        """An uninitialized parameter or buffer takes the shape it is loaded with."""
        for name, t in list(self._parameters.items()) + list(self._buffers.items()):
            if _uninitialized(t) and prefix + name in state_dict:
                with no_grad():
                    t.materialize(state_dict[prefix + name].shape)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class LazyLinear(LazyModuleMixin, Linear):
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()


def _lazy_conv(base, transposed):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, *rest, bias=True, device=None, dtype=None,
                 **kwargs):
        # torch's order after padding: conv (dilation, groups, bias, padding_mode),
        # transposed (output_padding, groups, bias, dilation, padding_mode)
        names = ("output_padding", "groups", "bias", "dilation", "padding_mode") if transposed else \
            ("dilation", "groups", "bias", "padding_mode")
        kwargs.update(zip(names, rest))
        bias = kwargs.pop("bias", bias)
        base.__init__(self, 0, 0, kernel_size, stride, padding, bias=False, device=device, dtype=dtype, **kwargs)
        _register_hook(self)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            base.reset_parameters(self)

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = input.shape[0] if input.dim() == self.nd + 1 else input.shape[1]
            if self.in_channels % self.groups:
                raise ValueError("in_channels must be divisible by groups")
            shape = (self.in_channels, self.out_channels // self.groups) if transposed else \
                (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize((*shape, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()
    name = f"Lazy{base.__name__}"
    return type(name, (LazyModuleMixin, base), {"cls_to_become": base, "__init__": __init__,
                                                "reset_parameters": reset_parameters,
                                                "initialize_parameters": initialize_parameters})


def _lazy_norm(base):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        base.__init__(self, 0, eps, momentum, False, False, device=device, dtype=dtype)
        _register_hook(self)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            for name in ("running_mean", "running_var"):  # the base's None attributes give way to buffers
                self.__dict__.pop(name, None)
            self.register_buffer("running_mean", UninitializedBuffer(device=device, dtype=dtype))
            self.register_buffer("running_var", UninitializedBuffer(device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", F.tensor(0, dtype=dt.int64, device=device))

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            base.reset_parameters(self)

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            for t in (self.weight, self.bias, self.running_mean, self.running_var):
                if t is not None and _uninitialized(t):
                    t.materialize((self.num_features,))
            self.reset_parameters()
    return type(f"Lazy{base.__name__}", (LazyModuleMixin, base),
                {"cls_to_become": base, "__init__": __init__, "reset_parameters": reset_parameters,
                 "initialize_parameters": initialize_parameters})


LazyConv1d, LazyConv2d, LazyConv3d = (_lazy_conv(b, False) for b in (Conv1d, Conv2d, Conv3d))
LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d = (
    _lazy_conv(b, True) for b in (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))
LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d = (_lazy_norm(b) for b in (BatchNorm1d, BatchNorm2d, BatchNorm3d))
LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = (
    _lazy_norm(b) for b in (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d))
for _cls in (LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d,
             LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyInstanceNorm1d, LazyInstanceNorm2d,
             LazyInstanceNorm3d):
    __all__.append(_cls.__name__)
