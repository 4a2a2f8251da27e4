"""torch.multiprocessing: Python's multiprocessing (torch's wraps it to share tensors between
processes; webtorch's tensors are not shared: a tensor sent to another process is pickled)."""
import multiprocessing as _mp
from multiprocessing import *  # noqa: F401,F403

__all__ = list(getattr(_mp, "__all__", ())) + ["get_all_sharing_strategies", "get_sharing_strategy",
                                               "set_sharing_strategy", "spawn", "start_processes"]


def get_all_sharing_strategies():
    return {"file_system"}


def get_sharing_strategy():
    return "file_system"


def set_sharing_strategy(new_strategy):
    if new_strategy not in get_all_sharing_strategies():
        raise AssertionError(f"{new_strategy} is not a valid sharing strategy")


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    raise NotImplementedError("webtorch: torch.multiprocessing.start_processes/spawn are not supported")


spawn = start_processes
