"""torch.fx.experimental.proxy_tensor: no tensor is ever traced here, so no proxy mode is active;
make_fx (tracing a function to a graph) raises NotImplementedError."""
from .._symbolic_trace import _no_fx


def get_proxy_mode():
    return None


def make_fx(f, *args, **kwargs):
    _no_fx("make_fx")
