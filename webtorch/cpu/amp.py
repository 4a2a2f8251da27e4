"""torch.cpu.amp: autocast on the cpu (deprecated in torch for torch.amp.autocast("cpu", ...))."""
import warnings

from .. import _dtypes as dt
from .. import amp as _amp


class autocast(_amp.autocast):
    def __init__(self, enabled=True, dtype=dt.bfloat16, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", dtype, enabled, cache_enabled)


class GradScaler(_amp.GradScaler):
    def __init__(self, *args, **kwargs):
        super().__init__("cpu", *args, **kwargs)
