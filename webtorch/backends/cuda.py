"""torch.backends.cuda without CUDA: the flags keep torch's defaults; matmul.allow_tf32 is torch's
other spelling of set_float32_matmul_precision ("high" when True, "highest" when False)."""
from ..backend import gpu as _gpu


class _MatmulFlags:
    def __init__(self):
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self):
        return _gpu.float32_matmul_precision != "highest"

    @allow_tf32.setter
    def allow_tf32(self, on):
        _gpu.float32_matmul_precision = "high" if on else "highest"


matmul = _MatmulFlags()


def is_built():
    return False


def _sdp_flag(enabled=True):
    """enable_flash_sdp / enable_mem_efficient_sdp / enable_math_sdp: nothing to switch here."""


enable_flash_sdp = enable_mem_efficient_sdp = enable_math_sdp = enable_cudnn_sdp = _sdp_flag


def flash_sdp_enabled():
    return False


mem_efficient_sdp_enabled = cudnn_sdp_enabled = flash_sdp_enabled


def math_sdp_enabled():
    return True
