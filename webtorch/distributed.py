"""torch.distributed is not available in webtorch (one process, one WebGPU device): is_available()
is False, and setting up a process group raises."""


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
