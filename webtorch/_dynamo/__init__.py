"""torch._dynamo: webtorch has no Dynamo. Nothing is ever being compiled by it (is_compiling() is
False), and its decorators (disable, allow_in_graph, ...) return what they are given."""
from . import _trace_wrapped_higher_order_op, eval_frame, utils  # noqa: F401
from ..compiler import allow_in_graph, assume_constant_result, disable, is_compiling, reset  # noqa: F401

__all__ = ["allow_in_graph", "assume_constant_result", "disable", "is_compiling", "reset", "mark_dynamic",
           "mark_static", "mark_static_address", "maybe_mark_dynamic", "config"]


def mark_dynamic(t, index, **kwargs):
    pass


mark_static = mark_static_address = maybe_mark_dynamic = mark_dynamic


class config:
    """torch._dynamo.config's knobs that libraries set; none has an effect here."""
    cache_size_limit = 8
    accumulated_cache_size_limit = 256
    suppress_errors = False
    capture_scalar_outputs = False
    capture_dynamic_output_shape_ops = False
    optimize_ddp = True
