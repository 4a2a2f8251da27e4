"""torch.nn.utils.weight_norm / spectral_norm, the older forms (deprecated in torch for the
parametrizations): the module keeps `name_g`/`name_v` (or `name_orig` and buffers `name_u`/`name_v`)
and a forward pre-hook recomputes the plain attribute `name` before every call."""
import warnings

from ... import _ops as F
from ...autograd import no_grad
from .. import functional
from ..module import Parameter
from .parametrizations import _as_matrix, _norm_except_dim, _power_iterations, _spectral_dim

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm"]


class WeightNorm:
    def __init__(self, name, dim):
        self.name, self.dim = name, -1 if dim is None else dim

    def compute_weight(self, module):
        g, v = getattr(module, self.name + "_g"), getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, None if self.dim == -1 else self.dim))  # torch: dim -1 = the whole tensor

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("torch.nn.utils.weight_norm is deprecated in favor of "
                      "torch.nn.utils.parametrizations.weight_norm.", FutureWarning, stacklevel=3)
        _check_single(module, WeightNorm, name, "weight_norm")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight.detach(),
                                                                          None if fn.dim == -1 else fn.dim)))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


class SpectralNorm:
    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        matrix = _as_matrix(weight, self.dim)
        if do_power_iteration:
            _power_iterations(matrix.detach(), u, v, self.n_power_iterations, self.eps, v_first=True)
            u, v = u.clone(), v.clone()
        return weight / F.dot(u, F.mv(matrix, v))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        _check_single(module, SpectralNorm, name, "spectral_norm")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with no_grad():
            h, w = _as_matrix(weight, dim).shape
            u = functional.normalize(F.empty(h, dtype=weight.dtype, device=weight.device).normal_(0, 1), dim=0,
                                     eps=eps)
            v = functional.normalize(F.empty(w, dtype=weight.dtype, device=weight.device).normal_(0, 1), dim=0,
                                     eps=eps)
        delattr(module, name)
        module.register_parameter(name + "_orig", weight)
        setattr(module, name, weight.detach())
        module.register_buffer(name + "_u", u)
        module.register_buffer(name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))


def _check_single(module, kind, name, what):
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, kind) and hook.name == name:
            raise RuntimeError(f"Cannot register two {what} hooks on the same parameter {name}")


def _remove(module, kind, name, what):
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")


def weight_norm(module, name="weight", dim=0):
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    return _remove(module, WeightNorm, name, "weight_norm")


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    SpectralNorm.apply(module, name, n_power_iterations, _spectral_dim(module, dim), eps)
    return module


def remove_spectral_norm(module, name="weight"):
    return _remove(module, SpectralNorm, name, "spectral_norm")
