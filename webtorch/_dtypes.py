"""Dtypes and PyTorch's type promotion.

webtorch has five dtypes. On the GPU, int64 is stored as 32 bits (WGSL has no 64-bit
integers): uploading a value outside the int32 range raises, arithmetic wraps at 32 bits.
float16 is 2 bytes on the GPU (WGSL f16, when the adapter offers "shader-f16"); on the host
(array.array has no half typecode) its elements are float32 values rounded to half.
"""
import math
import struct


class dtype:
    __slots__ = ("name", "category", "itemsize", "typecode", "is_floating_point")

    def __init__(self, name, category, itemsize, typecode):
        self.name = name
        self.category = category  # 0 bool, 1 integer, 2 floating: promotion order
        self.itemsize = itemsize  # bytes per element (element_size())
        self.typecode = typecode  # array module typecode for host storage (float16: "f", see above)
        self.is_floating_point = category == 2

    @property
    def is_signed(self):
        return self.category > 0

    def __repr__(self):
        return "webtorch." + self.name

    def __reduce__(self):
        return self.name


bool_ = dtype("bool", 0, 1, "B")
int32 = dtype("int32", 1, 4, "i")
int64 = dtype("int64", 1, 8, "q")
float16 = dtype("float16", 2, 2, "f")
float32 = dtype("float32", 2, 4, "f")

ALL = (bool_, int32, int64, float16, float32)
BY_NAME = {d.name: d for d in ALL}
BY_NAME.update(bool=bool_, long=int64, int=int32, float=float32, half=float16)

# Sizes within a category, used to pick the wider of two dtypes of one category.
_RANK = {bool_: 0, int32: 1, int64: 2, float16: 3, float32: 4}


def round_half(v):
    """The float16 value nearest to v (round to nearest even; beyond the range: +-inf)."""
    try:
        return struct.unpack("<e", struct.pack("<e", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)

default_float = float32
default_int = int64


def as_dtype(d):
    """Accepts a webtorch dtype, a name, or the Python types bool/int/float."""
    if isinstance(d, dtype):
        return d
    if d is bool:
        return bool_
    if d is int:
        return int64
    if d is float:
        return float32
    if isinstance(d, str) and d in BY_NAME:
        return BY_NAME[d]
    name = getattr(d, "name", None) or str(d).replace("torch.", "")
    if name in BY_NAME:
        return BY_NAME[name]
    raise TypeError(f"webtorch does not support dtype {d!r}; use float32, float16, int32, int64 or bool")


def promote(a, b):
    """The wider of two dtypes (torch.promote_types)."""
    return a if _RANK[a] >= _RANK[b] else b


def scalar_dtype(x):
    if isinstance(x, bool):
        return bool_
    if isinstance(x, int):
        return int64
    if isinstance(x, float):
        return default_float
    raise TypeError(f"expected a Tensor or a Python number, got {type(x).__name__}")


def result_type(*operands):
    """torch.result_type over tensors and Python scalars.

    Dimensioned tensors decide, unless a 0-d tensor or a scalar is of a higher category
    (bool < integer < floating); a higher-category scalar contributes the default dtype of
    its category, a higher-category 0-d tensor its own dtype.
    """
    groups = [None, None, None]  # dimensioned tensors, 0-d tensors, Python scalars
    for x in operands:
        if hasattr(x, "dtype") and hasattr(x, "shape"):
            g, d = (0 if len(x.shape) else 1), x.dtype
        else:
            g, d = 2, scalar_dtype(x)
        groups[g] = d if groups[g] is None else promote(groups[g], d)
    result = None
    for d in groups:
        if d is None:
            continue
        if result is None:
            result = d
        elif d.category > result.category:
            result = d
    return result
