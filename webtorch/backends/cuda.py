"""torch.backends.cuda without CUDA: the flags keep torch's defaults; matmul.allow_tf32 is torch's
other spelling of set_float32_matmul_precision ("high" when True, "highest" when False)."""
import contextlib
import enum
import warnings

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


class SDPBackend(enum.IntEnum):
    """torch's names of the attention backends (torch.nn.attention.SDPBackend is this class)."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


# The scaled-dot-product-attention backends enabled (torch's names; all on by default, as torch's).
# webtorch has one attention kernel, which serves whichever is chosen: the flags change nothing but
# that F.scaled_dot_product_attention refuses to run with none enabled, as torch.
_SDP_BACKENDS = ("flash", "mem_efficient", "math", "cudnn")
sdp_backends = set(_SDP_BACKENDS)


def _sdp_switch(name):
    def enable(enabled):
        (sdp_backends.add if enabled else sdp_backends.discard)(name)
    enable.__name__ = f"enable_{name}_sdp"
    return enable


def _sdp_query(name):
    def enabled():
        return name in sdp_backends
    enabled.__name__ = f"{name}_sdp_enabled"
    return enabled


enable_flash_sdp, enable_mem_efficient_sdp, enable_math_sdp, enable_cudnn_sdp = map(_sdp_switch, _SDP_BACKENDS)
flash_sdp_enabled, mem_efficient_sdp_enabled, math_sdp_enabled, cudnn_sdp_enabled = map(_sdp_query, _SDP_BACKENDS)


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
    """torch's deprecated form of torch.nn.attention.sdpa_kernel (FutureWarning, as torch)."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated "
                  "signature.", FutureWarning, stacklevel=3)
    chosen = {"flash": enable_flash, "mem_efficient": enable_mem_efficient, "math": enable_math,
              "cudnn": enable_cudnn}
    with sdp_backends_set({name for name, on in chosen.items() if on}):
        yield {}


@contextlib.contextmanager
def sdp_backends_set(names):
    """Within the block only the backends named are enabled; the previous set comes back after it."""
    previous = set(sdp_backends)
    sdp_backends.clear()
    sdp_backends.update(names)
    try:
        yield
    finally:
        sdp_backends.clear()
        sdp_backends.update(previous)
