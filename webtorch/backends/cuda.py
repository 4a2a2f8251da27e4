"""torch.backends.cuda without CUDA: the flags keep torch's defaults and change nothing."""


class _MatmulFlags:
    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


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
