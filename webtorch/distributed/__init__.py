"""torch.distributed is not available in webtorch (one process, one WebGPU device): is_available()
is False, and setting up a process group raises. device_mesh holds the stubs torch builds without
distributed define (annotations name DeviceMesh)."""
import enum

from . import device_mesh  # noqa: F401
from .device_mesh import DeviceMesh, init_device_mesh  # noqa: F401


def is_available():
    return False


def is_initialized():
    return False


def _unavailable(*args, **kwargs):
    raise RuntimeError("torch.distributed is not available in webtorch (one process, one WebGPU device)")


init_process_group = destroy_process_group = barrier = all_reduce = all_gather = broadcast = reduce = \
    _unavailable


def _no_group(*args, **kwargs):
    raise ValueError("Default process group has not been initialized, please make sure to call "
                     "init_process_group. (torch.distributed is not available in webtorch)")


get_rank = get_world_size = _no_group


class ProcessGroup:
    """A stub as in torch built without distributed (annotations name it); none can be made."""
    def __init__(self, *args, **kwargs):
        _unavailable()


class ReduceOp(enum.Enum):
    """The reductions' names, for default arguments (op=ReduceOp.SUM); no collective runs them here."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
