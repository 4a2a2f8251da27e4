"""torch.onnx.symbolic_helper: parse_args, the decorator symbolic functions are declared with (they
only run during an export, which webtorch does not have)."""

__all__ = ["parse_args"]


def parse_args(*arg_descriptors):
    return lambda fn: fn
