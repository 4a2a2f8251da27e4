"""torch.fx._symbolic_trace: webtorch has no FX tracer; wrap() marks nothing (calls stay calls),
nothing is ever being traced, and symbolic_trace raises."""

__all__ = ["Tracer", "symbolic_trace", "wrap", "is_fx_tracing"]


def is_fx_tracing():
    return False


def wrap(fn_or_name):
    return fn_or_name


def _no_fx(what):
    raise NotImplementedError(f"webtorch: torch.fx.{what} is not supported (webtorch has no FX graph tracer; "
                              "run the module eagerly, or webtorch.compile it)")


def symbolic_trace(root, concrete_args=None):
    _no_fx("symbolic_trace")


class Tracer:
    def __init__(self, *args, **kwargs):
        pass

    def trace(self, root, concrete_args=None):
        _no_fx("Tracer.trace")
