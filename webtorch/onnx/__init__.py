"""torch.onnx: importable; webtorch has no ONNX exporter (export raises), and nothing is ever being
exported (is_in_onnx_export() is False). Libraries register symbolic functions at import time
(register_custom_op_symbolic, symbolic_helper.parse_args, torch.onnx.symbolic_opsetN): the
registrations are accepted and never used; a symbolic_opsetN function (only called inside an
export) raises."""
import enum
import sys
import types

from . import operators, symbolic_helper  # noqa: F401

__all__ = ["export", "dynamo_export", "is_in_onnx_export", "register_custom_op_symbolic",
           "unregister_custom_op_symbolic", "OperatorExportTypes", "TrainingMode", "TensorProtoDataType"]


def is_in_onnx_export():
    return False


def export(*args, **kwargs):
    raise NotImplementedError("webtorch: torch.onnx.export is not supported (webtorch has no ONNX exporter)")


dynamo_export = export


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    pass


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    pass


TensorProtoDataType = enum.IntEnum("TensorProtoDataType", "UNDEFINED FLOAT UINT8 INT8 UINT16 INT16 INT32 INT64 STRING "
                                                          "BOOL FLOAT16 DOUBLE UINT32 UINT64 COMPLEX64 COMPLEX128 "
                                                          "BFLOAT16", start=0)


def _opset_module(version):
    name = f"symbolic_opset{version}"
    module = types.ModuleType(f"{__name__}.{name}", f"torch.onnx.{name}: torch's ONNX symbolic functions")

    def missing(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise NotImplementedError(f"webtorch: torch.onnx.{name}.{attr} is not supported (no ONNX exporter)")
    module.__getattr__ = missing
    sys.modules[module.__name__] = module
    globals()[name] = module


for _version in range(7, 21):
    _opset_module(_version)


class OperatorExportTypes:
    ONNX, ONNX_ATEN, ONNX_ATEN_FALLBACK, ONNX_FALLTHROUGH = range(4)


class TrainingMode:
    EVAL, PRESERVE, TRAINING = range(3)
