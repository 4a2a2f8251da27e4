"""torch.fx: the names libraries import at module level (wrap, Proxy, GraphModule, Graph, Node,
Tracer, symbolic_trace). Nothing traces: an object is never a Proxy, wrap() is the identity, and
symbolic_trace / Tracer.trace / building a GraphModule raise NotImplementedError."""
from . import _symbolic_trace  # noqa: F401
from .. import _refusals
from ._symbolic_trace import Tracer, _no_fx, symbolic_trace, wrap

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Interpreter", "Node", "Proxy",
           "Transformer"]


class _Untraceable:
    """FX's graph classes: the names exist (isinstance(x, torch.fx.Proxy) is False for every webtorch
    value), building one raises."""

    def __init__(self, *args, **kwargs):
        _no_fx(type(self).__name__)


class Proxy(_Untraceable):
    pass


class Node(_Untraceable):
    pass


class Graph(_Untraceable):
    pass


class GraphModule(_Untraceable):
    pass


class Interpreter(_Untraceable):
    pass


class Transformer(Interpreter):
    pass


class TraceError(ValueError):
    """torch.fx.proxy.TraceError (a ValueError), for code that catches it."""


_FX = "FX graph tracing and rewriting: not built (webtorch/fx: nothing traces)"
map_arg = _refusals.stand_in("fx.map_arg", _FX)
replace_pattern = _refusals.stand_in("fx.replace_pattern", _FX)
from . import node, proxy  # noqa: E402,F401
