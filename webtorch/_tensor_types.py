"""The legacy typed constructors: torch.FloatTensor(2, 3) (uninitialised, that shape),
torch.LongTensor([1, 2]) (from data), and isinstance(t, torch.FloatTensor) (a cpu tensor of that
dtype), as torch has them."""
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
        if len(args) != 1 or isinstance(args[0], int):  # sizes
            return _ops.empty(*(args or (0,)), dtype=cls.dtype, device=device)
        if isinstance(args[0], Tensor):
            return args[0].to(cls.dtype)
        if isinstance(args[0], Size):
            return _ops.empty(*args[0], dtype=cls.dtype, device=device)
        return _ops.tensor(args[0], dtype=cls.dtype, device=device)


__all__ = [name for name, d in _NAMES.items() if d in dt.BY_NAME]
for _name in __all__:
    globals()[_name] = _TensorType(_name, (), {"dtype": dt.BY_NAME[_NAMES[_name]], "__module__": "webtorch"})
