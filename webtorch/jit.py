"""torch.jit: webtorch runs eagerly and has no TorchScript compiler. script() and trace() return
the function or module they are given, unchanged (it runs eagerly, with the same results);
saving and loading TorchScript raise."""


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    return func


def ignore(drop=False, **kwargs):
    if callable(drop):  # @torch.jit.ignore without arguments
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def is_scripting():
    return False


def is_tracing():
    return False


def _no_torchscript(*args, **kwargs):
    raise RuntimeError("webtorch has no TorchScript: torch.jit.save/load are not supported (use torch.save of a "
                       "state_dict)")


save = load = _no_torchscript
