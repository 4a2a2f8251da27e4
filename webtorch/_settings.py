"""torch's process-wide settings that webtorch keeps as torch does, where they change no number webtorch
computes: thread counts (webtorch computes on one thread and a GPU queue, so the counts are recorded and
reported, as torch reports what it was set to), the deterministic-algorithms switch (webtorch's kernels
are deterministic: every reduction has a fixed order and no kernel accumulates with atomics), and the
warn-always flag (webtorch has no warn-once warnings for it to repeat)."""
__all__ = ["set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads",
           "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_warn_always", "is_warn_always_enabled", "typename",
           "AcceleratorError"]

_threads = {"intra": 1, "interop": 1}
_deterministic = {"mode": False, "warn_only": False}
_warn_always = [False]
_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


class AcceleratorError(RuntimeError):
    """torch.AcceleratorError: an error the accelerator's runtime reported."""


def _positive_int(value, what):
    if not isinstance(value, int) or isinstance(value, bool):
        raise RuntimeError(f"{what} expects an int, but got {type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"Number of {'intra-op' if what == 'set_num_threads' else 'inter-op'} threads must "
                           "be positive")
    return value


def set_num_threads(int):  # noqa: A002  (torch's parameter name)
    _threads["intra"] = _positive_int(int, "set_num_threads")


def get_num_threads():
    return _threads["intra"]


def set_num_interop_threads(int):  # noqa: A002
    _threads["interop"] = _positive_int(int, "set_num_interop_threads")


def get_num_interop_threads():
    return _threads["interop"]


def use_deterministic_algorithms(mode, *, warn_only=False):
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    _deterministic.update(mode=mode, warn_only=bool(warn_only))


def are_deterministic_algorithms_enabled():
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    return _deterministic["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but "
                               f"got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _deterministic["mode"]:
        return 0
    return 1 if _deterministic["warn_only"] else 2


def set_warn_always(b):
    _warn_always[0] = bool(b)


def is_warn_always_enabled():
    return _warn_always[0]


def typename(obj):
    """'torch.FloatTensor' for a tensor (its type()), else the object's qualified class name."""
    if hasattr(obj, "type") and hasattr(obj, "dtype") and hasattr(obj, "shape"):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in (None, "builtins") else f"{module}.{name}"
