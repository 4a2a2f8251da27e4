"""Dtypes, PyTorch's type promotion, finfo/iinfo.

On the host ("cpu") every dtype keeps its own width, except the two 16-bit floats: array.array
has no half typecode, so float16 and bfloat16 elements are float32 values rounded to their dtype
after every op. On "webgpu" (see docs/compatibility.md "Dtypes on webgpu") int64, int16, int8 and uint8 are
stored as 32-bit integers and bfloat16 as f32, each keeping its logical dtype (results are
wrapped or rounded to it); float64 has no GPU form and becomes float32 with a warning.
"""
import math
import struct
import sys


class dtype:
    __slots__ = ("name", "category", "itemsize", "typecode", "is_floating_point", "is_signed")

    def __init__(self, name, category, itemsize, typecode, is_signed=True):
        self.name = name
        self.category = category  # 0 bool, 1 integer, 2 floating, 3 complex: promotion order
        self.itemsize = itemsize  # bytes per element (element_size())
        self.typecode = typecode  # array module typecode of host storage (float16, bfloat16: "f", see above)
        self.is_floating_point = category == 2
        self.is_signed = is_signed

    @property
    def is_complex(self):
        return self.category == 3

    def __repr__(self):  # the package name from the class's path: torch.float32 under install_as_torch
        return f"{type(self).__module__.split('.')[0]}.{self.name}"

    def __reduce__(self):
        return self.name


bool_ = dtype("bool", 0, 1, "B", is_signed=False)
uint8 = dtype("uint8", 1, 1, "B", is_signed=False)
int8 = dtype("int8", 1, 1, "b")
int16 = dtype("int16", 1, 2, "h")
int32 = dtype("int32", 1, 4, "i")
int64 = dtype("int64", 1, 8, "q")
float16 = dtype("float16", 2, 2, "f")
bfloat16 = dtype("bfloat16", 2, 2, "f")
float32 = dtype("float32", 2, 4, "f")
float64 = dtype("float64", 2, 8, "d")

# dtypes torch has and webtorch holds no tensors of: the objects exist (code compares with them and reads
# their properties at import time); making a tensor of one is refused.
float8_e4m3fn = dtype("float8_e4m3fn", 2, 1, None)
float8_e4m3fnuz = dtype("float8_e4m3fnuz", 2, 1, None)
float8_e5m2 = dtype("float8_e5m2", 2, 1, None)
float8_e5m2fnuz = dtype("float8_e5m2fnuz", 2, 1, None)
float8_e8m0fnu = dtype("float8_e8m0fnu", 2, 1, None, is_signed=False)
uint16 = dtype("uint16", 1, 2, None, is_signed=False)
uint32 = dtype("uint32", 1, 4, None, is_signed=False)
uint64 = dtype("uint64", 1, 8, None, is_signed=False)
complex32 = dtype("complex32", 3, 4, None)
# complex64/128 tensors hold their elements as (real, imaginary) pairs in a storage of the real dtype
# (backend/complex.py): no typecode of their own
complex64 = dtype("complex64", 3, 8, None)
complex128 = dtype("complex128", 3, 16, None)
WITHOUT_STORAGE = (float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu, uint16, uint32,
                   uint64, complex32)

ALL = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)
COMPLEX = (complex64, complex128)
# the complex dtype of a float dtype's pairs and back (float16's, complex32, has no storage here)
COMPLEX_OF = {float16: complex32, bfloat16: complex64, float32: complex64, float64: complex128}
REAL_OF = {complex32: float16, complex64: float32, complex128: float64}
BY_NAME = {d.name: d for d in ALL + COMPLEX}
BY_NAME.update(bool=bool_, long=int64, int=int32, short=int16, float=float32, half=float16, double=float64,
               cfloat=complex64, cdouble=complex128)
# Float dtypes whose host elements are float32 values rounded to them (see the module docstring).
ROUNDED = (float16, bfloat16)


def round_half(v):
    """The float16 value nearest to v (round to nearest even; beyond the range: +-inf)."""
    try:
        return struct.unpack("<e", struct.pack("<e", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


_F32, _U32 = struct.Struct("<f"), struct.Struct("<I")


def round_bfloat16(v):
    """The bfloat16 value nearest to v, through float32 as PyTorch converts (round to nearest even)."""
    try:
        bits = _U32.unpack(_F32.pack(v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)
    if v != v:
        return v
    return _F32.unpack(_U32.pack(((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000) & 0xFFFFFFFF))[0]


def _wrapper(bits, signed):
    """Python int -> the integer of that many bits it wraps to (as a C cast does)."""
    mask, half = (1 << bits) - 1, 1 << (bits - 1)
    if signed:
        return lambda v: ((int(v) + half) & mask) - half
    return lambda v: int(v) & mask


# Python value -> the value an element of the dtype holds (rounded, wrapped; bool: truth).
TO_ELEMENT = {bool_: bool, float16: round_half, bfloat16: round_bfloat16, float32: float, float64: float,
              **{d: _wrapper(8 * d.itemsize, d.is_signed) for d in (uint8, int8, int16, int32, int64)}}

default_float = float32  # torch.get_default_dtype(); set_default_dtype changes it
default_int = int64


def set_default_dtype(d):
    global default_float
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    default_float = d


def get_default_dtype():
    return default_float


def as_dtype(d):
    """Accepts a webtorch dtype, torch's, or the Python types bool/int/float; a name (a str) is a
    TypeError, as in torch."""
    if isinstance(d, dtype):
        return d
    if d is bool:
        return bool_
    if d is int:
        return int64
    if d is float:
        return float32
    if isinstance(d, str):
        raise TypeError(f"argument 'dtype' must be torch.dtype, not str (webtorch.{d} if {d!r} is its name)")
    name = getattr(d, "name", None) or str(d).replace("torch.", "")
    if name in BY_NAME:
        return BY_NAME[name]
    raise TypeError(f"webtorch does not support dtype {d!r}; use one of {', '.join(x.name for x in ALL)}")


def promote(a, b):
    """torch.promote_types: the higher category; within one, the wider dtype, where uint8 with int8
    gives int16 and float16 with bfloat16 gives float32 (neither holds the other)."""
    if a is b:
        return a
    if a.category != b.category:
        high, low = (a, b) if a.category > b.category else (b, a)
        if high.is_complex and low.is_floating_point:  # complex64 with float64: complex128
            return COMPLEX_OF[promote(REAL_OF[high], low)]
        return high
    if a.itemsize == b.itemsize:  # uint8/int8 or float16/bfloat16
        return int16 if a.category == 1 else float32
    return a if a.itemsize > b.itemsize else b


def python_number(x):
    """x, or for a numpy scalar the Python number torch's argument parser reads it as: a numpy integer
    as an int, any other numpy scalar (np.float32, np.float16, and np.bool_, which is neither a Python
    bool nor a numpy integer) as a float. numpy stays optional: never imported here."""
    np = sys.modules.get("numpy")
    if np is not None and isinstance(x, np.generic):
        if isinstance(x, np.integer):
            return int(x)
        if isinstance(x, (np.floating, np.bool_)):
            return float(x)
        if isinstance(x, np.complexfloating):
            return complex(x)
    return x


def scalar_dtype(x):
    if isinstance(x, bool):
        return bool_
    if isinstance(x, int):
        return int64
    if isinstance(x, float):
        return default_float
    if isinstance(x, complex):
        return COMPLEX_OF[default_float]
    number = python_number(x)
    if number is not x:
        return scalar_dtype(number)
    raise TypeError(f"expected a Tensor or a Python number, got {type(x).__name__}")


# the C++ element type torch's messages name for each dtype
_C_TYPES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t"}


def overflow_error(dtype):
    return RuntimeError(f"value cannot be converted to type {_C_TYPES.get(dtype.name, dtype.name)} without overflow")


def checked_convert(value, dtype):
    """A Python number as dtype holds it; RuntimeError where it overflows dtype, as c10's checked_convert:
    a complex number with an imaginary part into a real dtype, a float outside the integer range (NaN
    too) or beyond a float dtype's largest finite value; an integer from -max on into an unsigned type,
    wrapping."""
    if dtype is bool_:
        return bool(value)
    if dtype.is_complex:
        return complex(value)
    if isinstance(value, complex):
        if value.imag:
            raise overflow_error(dtype)
        value = value.real
    if dtype.is_floating_point:
        fits = not math.isfinite(value) or abs(value) <= finfo(dtype).max
    else:
        info = iinfo(dtype)
        low = info.min if isinstance(value, float) or dtype.is_signed else -info.max
        fits = low <= value <= info.max  # False for NaN
    if not fits:
        raise overflow_error(dtype)
    if dtype.is_floating_point:
        return float(value)
    return int(value) % (info.max + 1) if not dtype.is_signed else int(value)


def result_type(*operands):
    """torch.result_type over tensors and Python scalars.

    Dimensioned tensors decide, unless a 0-d tensor or a scalar is of a higher category
    (bool < integer < floating); a higher-category scalar contributes the default dtype of
    its category, a higher-category 0-d tensor its own dtype.
    """
    groups = [None, None, None]  # dimensioned tensors, 0-d tensors, Python scalars
    for x in operands:
        if isinstance(getattr(x, "dtype", None), dtype):  # a tensor (a numpy scalar is a scalar)
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
        elif d.category > result.category:  # torch's combine_categories
            result = COMPLEX_OF[result] if d.is_complex and result.is_floating_point else d
    return result


# (mantissa bits, exponent bits) of each float dtype: finfo's numbers follow from them.
_FLOAT_BITS = {float16: (10, 5), bfloat16: (7, 8), float32: (23, 8), float64: (52, 11)}

# The float8 formats are not IEEE-shaped (e4m3fn spends its top exponent on numbers, the fnuz ones have
# no negative zero, e8m0fnu is exponents only): (eps, max, min, tiny) as torch.finfo reports them.
_FLOAT8_LIMITS = {float8_e4m3fn: (0.125, 448.0, -448.0, 2.0 ** -6), float8_e4m3fnuz: (0.125, 240.0, -240.0, 2.0 ** -7),
                  float8_e5m2: (0.25, 57344.0, -57344.0, 2.0 ** -14),
                  float8_e5m2fnuz: (0.125, 57344.0, -57344.0, 2.0 ** -15),
                  float8_e8m0fnu: (1.0, 2.0 ** 127, 2.0 ** -127, 2.0 ** -127)}


class finfo:
    """torch.finfo: the numeric limits of a float dtype."""

    def __init__(self, type=None):
        d = as_dtype(float32 if type is None else type)
        self.dtype, self.bits = d.name, 8 * d.itemsize
        if d in _FLOAT8_LIMITS:
            self.eps, self.max, self.min, self.tiny = _FLOAT8_LIMITS[d]
            self.smallest_normal, self.resolution = self.tiny, 1.0
            return
        if d not in _FLOAT_BITS:
            raise TypeError(f"finfo: expected a floating point dtype, got {d!r}")
        mant, exp = _FLOAT_BITS[d]
        bias = (1 << (exp - 1)) - 1
        self.eps = 2.0 ** -mant
        self.max = (2.0 - 2.0 ** -mant) * 2.0 ** bias
        self.min = -self.max
        self.smallest_normal = self.tiny = 2.0 ** (1 - bias)
        self.resolution = 10.0 ** -math.floor(mant * math.log10(2))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """torch.iinfo: the range of an integer dtype."""

    def __init__(self, type):
        d = as_dtype(type)
        if d.category != 1:
            raise TypeError(f"iinfo: expected an integer dtype, got {d!r}")
        self.dtype, self.bits = d.name, 8 * d.itemsize
        self.min = -(1 << (self.bits - 1)) if d.is_signed else 0
        self.max = (1 << (self.bits - 1)) - 1 if d.is_signed else (1 << self.bits) - 1

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"  # torch prints them with %g
