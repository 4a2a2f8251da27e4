"""torch.onnx.symbolic_helper: parse_args, the decorator symbolic functions are declared with (they
only run during an export, which webtorch does not have)."""

from .._refusals import stand_in

__all__ = ["parse_args", "scalar_type_to_onnx", "cast_pytorch_to_onnx"]

# torch's tables from its scalar types to ONNX's, read while exporting
scalar_type_to_onnx = stand_in("onnx.symbolic_helper.scalar_type_to_onnx", "ONNX export: webtorch has no exporter")
cast_pytorch_to_onnx = stand_in("onnx.symbolic_helper.cast_pytorch_to_onnx", "ONNX export: webtorch has no exporter")


def parse_args(*arg_descriptors):
    return lambda fn: fn
