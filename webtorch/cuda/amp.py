"""torch.cuda.amp: the CUDA forms of autocast and GradScaler. Without CUDA, GradScaler disables
itself (with torch's warning) and autocast changes nothing, as in torch's CPU build."""
from .. import amp as _amp


class autocast(_amp.autocast):
    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        super().__init__("cuda", dtype, enabled, cache_enabled)


class GradScaler(_amp.GradScaler):
    def __init__(self, *args, **kwargs):
        super().__init__("cuda", *args, **kwargs)
