"""torch.onnx.operators: the shape helpers ONNX-exportable code calls (plain tensor ops here)."""
from .. import _dtypes as dt, _ops

__all__ = ["shape_as_tensor", "reshape_from_tensor_shape"]


def shape_as_tensor(x):
    """x's shape as an int64 tensor."""
    return _ops.tensor(list(x.shape), dtype=dt.int64, device=x.device)


def reshape_from_tensor_shape(x, shape):
    """x reshaped to the shape held by an int64 tensor."""
    return _ops.reshape(x, [int(s) for s in shape.tolist()])
