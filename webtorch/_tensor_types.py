"""The legacy typed constructors: torch.FloatTensor(2, 3) (uninitialised, that shape),
torch.LongTensor([1, 2]) (from data), and isinstance(t, torch.FloatTensor) (a cpu tensor of that
dtype), as torch has them; and torch.Tensor(...) itself, of the default float dtype."""
from . import _dtypes as dt
from . import _ops
from ._tensor import Size, Tensor

# torch's name -> dtype name (those whose dtype webtorch has become attributes of the package)
_NAMES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16", "BFloat16Tensor": "bfloat16",
          "LongTensor": "int64", "IntTensor": "int32", "ShortTensor": "int16", "CharTensor": "int8",
          "ByteTensor": "uint8", "BoolTensor": "bool"}


class _TensorType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == "cpu"

    def __call__(cls, *args, device=None):
        return _new(cls.dtype, args, device)


def _new(dtype, args, device, alias=False):
    """torch's legacy constructor of dtype: sizes or a Size (uninitialised), a tensor (converted; with
    alias, as torch.Tensor(t), t's memory as it is), or data (a sequence)."""
    if len(args) != 1 or isinstance(args[0], int):  # sizes
        return _ops.empty(*(args or (0,)), dtype=dtype, device=device)
    if isinstance(args[0], Tensor):
        return _ops.detach(args[0]) if alias else args[0].to(dtype)
    if isinstance(args[0], Size):
        return _ops.empty(*args[0], dtype=dtype, device=device)
    if isinstance(args[0], (float, bool, complex)):
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    return _ops.tensor(args[0], dtype=dtype, device=device)


Tensor._legacy_new = staticmethod(lambda args, device: _new(dt.default_float, args, device, alias=True))


def new(x, *args, device=None):
    """Tensor.new: the legacy constructor of x's dtype, on x's device (a tensor given must have that dtype:
    it is returned as it is, aliased)."""
    if len(args) == 1 and isinstance(args[0], Tensor) and args[0].dtype is not x.dtype:
        raise TypeError(f"expected {x.dtype} (got {args[0].dtype})")
    return _new(x.dtype, args, device or x.device, alias=True)


Tensor.new = new


__all__ = [name for name, d in _NAMES.items() if d in dt.BY_NAME]
for _name in __all__:
    globals()[_name] = _TensorType(_name, (), {"dtype": dt.BY_NAME[_NAMES[_name]], "__module__": "webtorch"})
