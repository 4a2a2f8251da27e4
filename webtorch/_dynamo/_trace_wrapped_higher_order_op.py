"""torch._dynamo._trace_wrapped_higher_order_op.TransformGetItemToIndex: torch's function mode that
keeps tensor[0-d tensor] a tensor op inside vmapped mask functions. webtorch has no vmap or
function modes, and eager indexing gives the same values: the context changes nothing."""
import contextlib

__all__ = ["TransformGetItemToIndex"]


class TransformGetItemToIndex(contextlib.nullcontext):
    pass
