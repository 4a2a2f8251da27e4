"""torch.nn.utils: gradient clipping, parameters as one vector, skip_init; rnn (packed sequences),
parametrize, parametrizations (weight_norm, spectral_norm); the older hook forms of weight_norm and
spectral_norm."""
import inspect
import math

from ... import _ops as F
from ...autograd import no_grad
from . import fusion, parametrizations, parametrize, rnn  # noqa: F401
from ._norm_hooks import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm  # noqa: F401


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients in place so that their joint norm is at most max_norm; returns the norm."""
    params = [parameters] if isinstance(parameters, F.Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return F.tensor(0.0)
    with no_grad():
        if norm_type == math.inf:
            total = F.amax(F.stack([F.amax(F.abs(g)) for g in grads]))
        else:
            total = F.sum(F.stack([F.sum(F.abs(g) ** norm_type) for g in grads])) ** (1.0 / norm_type)
        if error_if_nonfinite and not bool(F.isfinite(total).item()):
            raise RuntimeError(f"The total norm of order {float(norm_type)} for gradients from `parameters` is "
                               "non-finite, so it cannot be clipped.")
        scale = F.clamp(max_norm / (total + 1e-6), max=1.0)
        for p in params:
            if p.grad is not None:
                p.grad = p.grad * scale
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    params = [parameters] if isinstance(parameters, F.Tensor) else list(parameters)
    with no_grad():
        for p in params:
            if p.grad is not None:
                p.grad = F.clamp(p.grad, -clip_value, clip_value)


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated (one device, like PyTorch requires)."""
    params = list(parameters)
    devices = {p.device.type for p in params}
    if len(devices) > 1:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return F.cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of vec into the parameters (their data; no autograd history)."""
    if not isinstance(vec, F.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            F._copy_into(p, vec[offset:offset + n].reshape(p.shape))
            offset += n


def skip_init(module_cls, *args, **kwargs):
    """The module built without running its random initialisers (its parameters keep the fresh memory's
    zeros), to load a state_dict into at once: on "webgpu", initialising a large model costs more than
    loading it. module_cls must take a device argument, as in PyTorch."""
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    from .. import init
    init.skipping = True
    try:
        return module_cls(*args, **kwargs)
    finally:
        init.skipping = False
