"""torch.backends.cudnn without cuDNN: the flags keep torch's defaults and change nothing."""
import contextlib
import sys

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True,
          fp32_precision="none", depthwise_kernel="auto"):
    """Within the block the flags take these values (torch's defaults: cuDNN off); they come back after it."""
    module = sys.modules[__name__]
    names = ("enabled", "benchmark", "deterministic", "allow_tf32")
    saved = {name: getattr(module, name) for name in names}
    for name, value in zip(names, (enabled, benchmark, deterministic, allow_tf32)):
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
