"""torch.backends.cudnn without cuDNN: the flags keep torch's defaults and change nothing."""
from ._flags import temporarily

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None


def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
          fp32_precision="none", depthwise_kernel="auto"):
    """Within the block the flags take these values (torch's defaults: cuDNN off); they come back after it."""
    return temporarily(__name__, enabled=enabled, benchmark=benchmark, deterministic=deterministic,
                       allow_tf32=allow_tf32)
