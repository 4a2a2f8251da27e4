"""torch.cuda.amp: the CUDA forms of autocast and GradScaler. Without CUDA, GradScaler disables
itself (with torch's warning) and autocast changes nothing, as in torch's CPU build."""
import warnings

from .. import amp as _amp


class autocast(_amp.autocast):
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        super().__init__("cuda", dtype, enabled, cache_enabled)


class GradScaler(_amp.GradScaler):
    def __init__(self, *args, **kwargs):
        super().__init__("cuda", *args, **kwargs)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """torch.cuda.amp.custom_fwd: deprecated in torch for torch.amp.custom_fwd(device_type="cuda")."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return _amp.custom_fwd(fwd=fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return _amp.custom_bwd(bwd=bwd, device_type="cuda")
