"""torch.fx.proxy: Proxy, TraceError, GraphAppendingTracer (webtorch/fx/__init__.py: nothing traces)."""
from . import Proxy, TraceError
from .._refusals import stand_in

__all__ = ["Proxy", "TraceError", "GraphAppendingTracer"]

GraphAppendingTracer = stand_in("fx.proxy.GraphAppendingTracer", "FX graph tracing: not built (webtorch/fx)")
