"""torch._utils' dense flattening helpers, which programs with fp16 master weights or bucketed
all-reduce import (improved-diffusion's fp16_util, apex): tensors packed into one flat buffer and that
buffer split back into views of the tensors' shapes."""
from ._ops import cat


def _flatten_dense_tensors(tensors):
    """One 1-d tensor holding the tensors' elements one after another (a single tensor: its flat view)."""
    if len(tensors) == 1:
        return tensors[0].contiguous().view(-1)
    return cat([t.contiguous().view(-1) for t in tensors])


def _unflatten_dense_tensors(flat, tensors):
    """Views of flat, one per tensor, shaped as that tensor, in order."""
    outputs, offset = [], 0
    for t in tensors:
        outputs.append(flat.narrow(0, offset, t.numel()).view(t.shape))
        offset += t.numel()
    return tuple(outputs)
