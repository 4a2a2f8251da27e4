"""Complex tensors (complex64; complex128 on "cpu", which becomes complex64 on "webgpu" as float64 becomes
float32): their ops, each written over the real (re, im) pairs with the real ops.

A complex tensor is an ordinary Tensor over a backend/complex.py storage: its elements are interleaved
(real, imaginary) pairs in a storage of the real dtype, as torch's. view_as_real gives that memory as a real
tensor with a last dim of 2 (strides doubled); view_as_complex takes it back; .real / .imag are its two
slices. All are views, and each is recorded on the tape, so a complex op written with real ops between
them differentiates by the real ops' rules: the gradient reaching a complex tensor is dL/d(re) + i dL/d(im),
which is torch's convention (the conjugate Wirtinger derivative, times 2) for a real loss L.

The primitives reach here through hooks in _ops (elementwise, copy, reductions, matmul), attached at the
end of this module."""
import builtins
import math
import sys
import warnings

from . import _dtypes as dt
from . import _ops
from . import _tape
from ._tensor import Tensor, versions
from .backend import complex as complex_storage


def _is_complex_value(x):
    return (x.dtype.is_complex if isinstance(x, Tensor) else isinstance(x, complex))


# -- views between complex and real ------------------------------------------------------------
def pairs(z):
    """z's memory as real (..., 2) pairs, not recorded on the tape."""
    return Tensor(z._storage.real, tuple(z.shape) + (2,), tuple(2 * s for s in z._stride) + (1,), 2 * z._offset)


def view_as_real(z):
    if not z.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return _tape.record("view_as_real", pairs(z), (z,))


def _complex_view(x):
    """The complex tensor over x's (..., 2) pairs (checked by view_as_complex), not recorded."""
    return Tensor(complex_storage.Storage(x._storage), tuple(x.shape[:-1]), tuple(s // 2 for s in x._stride[:-1]),
                  x._offset // 2)


def view_as_complex(x):
    if x.dtype not in (dt.float32, dt.float64):
        if x.dtype is dt.float16:
            raise NotImplementedError("webtorch holds no complex32 (chalf) tensors: view_as_complex of a float16 "
                                      "tensor; use float32")
        raise RuntimeError("view_as_complex is only supported for floating point tensors, but got a tensor of "
                           f"scalar type: {x.dtype.name.capitalize()}")
    if x.dim() == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if x.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if x._stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if builtins.any(s % 2 for s in x._stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if x._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return _tape.record("view_as_complex", _complex_view(x), (x,))


def _pair_of(grad):
    """A real (..., 2) gradient in view_as_complex's layout (contiguous pairs)."""
    if grad._stride[-1] != 1 or grad._offset % 2 or builtins.any(s % 2 for s in grad._stride[:-1]):
        grad = _ops.clone(grad)
    return grad


def real(x):
    return _ops._getitem(view_as_real(x), (Ellipsis, 0)) if x.dtype.is_complex else x


def imag(x):
    if not x.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _ops._getitem(view_as_real(x), (Ellipsis, 1))


def _make(re, im):
    """The complex tensor re + i im (real tensors or numbers, broadcast together), recorded."""
    ref = re if isinstance(re, Tensor) else im
    if not isinstance(re, Tensor):
        re = _ops.full_like(ref, re)
    if not isinstance(im, Tensor):
        im = _ops.full_like(ref, im)
    if re.shape != im.shape:
        re, im = _ops.broadcast_tensors(re, im)
    return view_as_complex(_ops.stack([re, im], -1))


def complex(real, imag):
    for name, v in (("real", real), ("imag", imag)):
        if not isinstance(v, Tensor):
            raise TypeError(f"complex(): argument '{name}' (position {1 if name == 'real' else 2}) must be Tensor, "
                            f"not {type(v).__name__}")
    if real.dtype is not imag.dtype:
        raise RuntimeError(f"Expected object of scalar type {real.dtype.name.capitalize()} but got scalar type "
                           f"{imag.dtype.name.capitalize()} for second argument")
    if real.dtype not in (dt.float32, dt.float64):
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{real.dtype.name.capitalize()} and {imag.dtype.name.capitalize()}")
    return _make(real, imag)


def polar(abs, angle):
    out = complex(abs, angle)  # (its checks)
    return out if abs.numel() == 0 else _make(abs * _ops.elementwise("cos", angle), abs * _ops.elementwise("sin", angle))


# -- elementwise: each op over (re, im) parts ------------------------------------------------
class _Pair:
    """A complex operand as its real and imaginary parts (real tensors or Python numbers)."""
    __slots__ = ("re", "im")

    def __init__(self, re, im):
        self.re, self.im = re, im

    def __add__(a, b):
        return _Pair(a.re + b.re, a.im + b.im)

    def __sub__(a, b):
        return _Pair(a.re - b.re, a.im - b.im)

    def __mul__(a, b):
        return _Pair(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)

    def __truediv__(a, b):
        # Smith's algorithm, as torch's c10::complex division: no overflow in |b|^2
        swap = _ops.elementwise("ge", _ops.elementwise("abs", b.re), _ops.elementwise("abs", b.im)) \
            if isinstance(b.re, Tensor) or isinstance(b.im, Tensor) else builtins.abs(b.re) >= builtins.abs(b.im)
        if isinstance(swap, bool):
            if swap:
                r = b.im / b.re
                d = b.re + r * b.im
                return _Pair((a.re + a.im * r) / d, (a.im - a.re * r) / d)
            r = b.re / b.im
            d = b.im + r * b.re
            return _Pair((a.re * r + a.im) / d, (a.im * r - a.re) / d)
        br, bi = _ops.broadcast_tensors(*(v if isinstance(v, Tensor) else _ops.full_like(swap, v, dtype=_dtype_of(b))
                                          for v in (b.re, b.im)))
        big, small = _ops.where(swap, br, bi), _ops.where(swap, bi, br)
        r = small / big
        d = big + r * small
        num_re = _ops.where(swap, a.re + a.im * r, a.re * r + a.im)
        num_im = _ops.where(swap, a.im - a.re * r, a.im * r - a.re)
        return _Pair(num_re / d, num_im / d)

    def abs(self):
        """|z|, differentiated as torch's abs: the gradient is zero at z = 0 (hypot's rule gives 0/0 there)."""
        if not (isinstance(self.re, Tensor) and isinstance(self.im, Tensor)):
            return _ops.elementwise("hypot", self.re, self.im)
        with _tape.no_grad():
            r = _ops.elementwise("hypot", self.re, self.im)
        return _tape.record("complex_abs", r, (self.re, self.im))

    def exp(self):
        m = _ops.elementwise("exp", self.re)
        return _Pair(m * _ops.elementwise("cos", self.im), m * _ops.elementwise("sin", self.im))

    def log(self):
        return _Pair(_ops.elementwise("log", self.abs()), _ops.elementwise("atan2", self.im, self.re))


def _dtype_of(p):
    for v in (p.re, p.im):
        if isinstance(v, Tensor):
            return v.dtype
    return dt.default_float


def _parts(x, real_dtype):
    """An operand (complex or real tensor, Python number) as a _Pair of real_dtype tensors or numbers."""
    if isinstance(x, Tensor):
        if x.dtype.is_complex:
            p = view_as_real(x)
            re, im = _ops._getitem(p, (Ellipsis, 0)), _ops._getitem(p, (Ellipsis, 1))
            if p.dtype is not real_dtype:
                re, im = _ops.cast(re, real_dtype), _ops.cast(im, real_dtype)
            return _Pair(re, im)
        return _Pair(_ops.cast(x, real_dtype), 0.0)
    if isinstance(x, builtins.complex):
        return _Pair(x.real, x.imag)
    return _Pair(float(x), 0.0)


def _int_power(p, n):
    """p ** n for a Python int n by repeated squaring (torch's exact small powers: z ** 2 is z * z)."""
    if n < 0:
        return _Pair(1.0, 0.0) / _int_power(p, -n)
    result = None
    while n:
        if n & 1:
            result = p if result is None else result * p
        n >>= 1
        if n:
            p = p * p
    return result if result is not None else _Pair(1.0, 0.0)


def _sqrt(p):
    """The principal root without cancellation: t = sqrt((|z| + |re|) / 2) is the part of the larger
    magnitude, im / 2t the other (t's sign follows im's, -0 too, where re < 0)."""
    t = _ops.elementwise("sqrt", (p.abs() + _ops.elementwise("abs", p.re)) * 0.5)
    other = _ops.where(_ops.elementwise("eq", t, 0), 0.0, p.im / (t * 2))
    right = _ops.elementwise("ge", p.re, 0)
    im_t = _ops.where(_ops.elementwise("signbit", p.im), -t, t)
    return _Pair(_ops.where(right, t, _ops.elementwise("abs", other)), _ops.where(right, other, im_t))


def _pow(a, b):
    if isinstance(b.re, (int, float)) and b.im == 0 and float(b.re).is_integer() and builtins.abs(b.re) <= 64:
        return _int_power(a, int(b.re))
    return (b * a.log()).exp()


def _sin(p):
    return _Pair(_ops.elementwise("sin", p.re) * _ops.elementwise("cosh", p.im),
                 _ops.elementwise("cos", p.re) * _ops.elementwise("sinh", p.im))


def _cos(p):
    return _Pair(_ops.elementwise("cos", p.re) * _ops.elementwise("cosh", p.im),
                 -(_ops.elementwise("sin", p.re) * _ops.elementwise("sinh", p.im)))


def _both(op, combine):
    """A bool test of each part, combined (eq: both equal; isnan: either NaN)."""
    def form(*ps):
        return _ops.elementwise(combine, _ops.elementwise(op, *(p.re for p in ps)),
                                _ops.elementwise(op, *(p.im for p in ps)))
    return form


# name -> form over _Pairs, returning a _Pair (complex result) or a real tensor. ops_table names.
FORMS = {
    "copy": lambda a: a,
    "neg": lambda a: _Pair(-a.re, -a.im),
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "rsub": lambda a, b: b - a,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "addcmul": lambda a, b, c: a + b * c,  # a + c b (add/sub with alpha)
    "square": lambda a: a * a,
    "reciprocal": lambda a: _Pair(1.0, 0.0) / a,
    "exp": _Pair.exp,
    "log": _Pair.log,
    "sqrt": _sqrt,
    "rsqrt": lambda a: _Pair(1.0, 0.0) / _sqrt(a),
    "pow": _pow,
    "sin": _sin,
    "cos": _cos,
    "abs": _Pair.abs,
    "eq": _both("eq", "logical_and"),
    "ne": _both("ne", "logical_or"),
    "isnan": _both("isnan", "logical_or"),
    "isinf": _both("isinf", "logical_or"),
}


def _one_kernel(name, operands):
    """mul/add/sub/abs of contiguous complex64 webgpu tensors of one shape in one kernel (backend gpu's
    complex_pairs), recorded with their own BACKWARD rows; None for any other operands (the forms)."""
    from .backend import gpu
    if name not in gpu.COMPLEX_PAIR_OPS:
        return None
    first = operands[0]
    for x in operands:
        if x.__class__ is not Tensor or x.dtype is not dt.complex64 or x.device.type != "webgpu" or \
                x.shape != first.shape or not x.is_contiguous():
            return None
    storage = gpu.complex_pairs(name, *operands)
    out = Tensor(storage, first.shape) if name == "abs" else Tensor(complex_storage.Storage(storage), first.shape)
    return _tape.record("complex_modulus" if name == "abs" else "complex_" + name, out, operands)


def elementwise(name, operands, promoted, out=None):
    """The elementwise primitive (_ops.elementwise) of operands whose promoted dtype is complex."""
    if out is None and promoted is dt.complex64:
        result = _one_kernel(name, operands)
        if result is not None:
            return result
    form = FORMS.get(name)
    if form is None:
        raise NotImplementedError(f"webtorch: {name} of complex tensors is not supported (see docs/complex.md)")
    if promoted is dt.complex32:
        raise NotImplementedError("webtorch holds no complex32 (chalf) tensors: a float16 operand with a complex "
                                  "one; use float32")
    real_dtype = dt.REAL_OF[promoted]
    if promoted is dt.complex128 and _ops._device_of(operands) == "webgpu":
        real_dtype = dt.float32
    result = form(*(_parts(x, real_dtype) for x in operands))
    result = _make(result.re, result.im) if isinstance(result, _Pair) else result
    if out is not None:
        _ops._copy_into(out, result)
        return out
    return result


def where(condition, a, b):
    promoted = dt.result_type(a, b)
    real_dtype = dt.REAL_OF[promoted]
    pa, pb = _parts(a, real_dtype), _parts(b, real_dtype)
    return _make(_ops.where(condition, pa.re, pb.re), _ops.where(condition, pa.im, pb.im))


def copy_into(dst, src):
    """dst (a view) = src where either is complex (_ops._copy_into): a real dst takes the real part."""
    if not dst.dtype.is_complex:
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)
        return _ops._copy_into(dst, real(src) if isinstance(src, Tensor) else src.real)
    d = pairs(dst)
    p = _parts(src, d.dtype) if isinstance(src, Tensor) else \
        _Pair(*((src.real, src.imag) if isinstance(src, builtins.complex) else (src, 0)))
    with _tape.no_grad():
        _ops._copy_into(_ops._getitem(d, (Ellipsis, 0)), p.re)
        _ops._copy_into(_ops._getitem(d, (Ellipsis, 1)), p.im)
    return dst


# -- reductions and matmul -------------------------------------------------------------------
def reduce(op, x, dim, keepdim, out_dtype):
    if op == "sum":
        p = _parts(x, dt.REAL_OF[out_dtype])
        return _make(_ops.sum(p.re, dim, keepdim), _ops.sum(p.im, dim, keepdim))
    if op == "prod":
        return _prod(x, dim, keepdim)
    raise NotImplementedError(f"webtorch: {op} of complex tensors is not supported (see docs/complex.md)")


def _prod(x, dim, keepdim):
    """The product over dims as a tree of complex multiplies (log2 n rounds of halves)."""
    dims, shape, _, _ = _ops._reduced_shape(x, dim, keepdim)
    kept = [d for d in range(x.dim()) if d not in dims]
    t = _ops.permute(x, *kept, *dims) if x.dim() else x
    t = _ops.reshape(t, *[x.shape[d] for d in kept], -1)
    while t.shape[-1] > 1:
        n = t.shape[-1]
        if n % 2:
            one = _ops.ones(*t.shape[:-1], 1, dtype=x.dtype, device=x.device)
            t, n = _ops.cat([t, one], -1), n + 1
        t = _ops.narrow(t, -1, 0, n // 2) * _ops.narrow(t, -1, n // 2, n // 2)
    if t.shape[-1] == 0:
        t = _ops.ones(*t.shape[:-1], 1, dtype=x.dtype, device=x.device)
    return _ops.reshape(t, *shape)


def matmul(a, b):
    """(A + iB)(C + iD) = (AC - BD) + i(AD + BC): four real matmuls."""
    pa, pb = _parts(a, dt.REAL_OF[a.dtype]), _parts(b, dt.REAL_OF[a.dtype])
    mm = _ops.matmul
    return _make(mm(pa.re, pb.re) - mm(pa.im, pb.im), mm(pa.re, pb.im) + mm(pa.im, pb.re))


# -- conjugation, abs/angle ------------------------------------------------------------------
def conj_physical(x):
    if not x.dtype.is_complex:
        return _ops.clone(x)
    p = _parts(x, dt.REAL_OF[x.dtype])
    return _make(p.re, -p.im)


def angle(x):
    if x.dtype.is_complex:
        p = _parts(x, dt.REAL_OF[x.dtype])
        return _ops.elementwise("atan2", p.im, p.re)
    if x.dtype.category < 2:
        x = _ops.cast(x, dt.default_float)
    with _tape.no_grad():
        out = _ops.where(_ops.elementwise("lt", x, 0), math.pi, 0.0)
        out = _ops.where(_ops.elementwise("isnan", x), x, _ops.cast(out, x.dtype))
    return _tape.record("angle_real", out, (x,))


def sgn(x):
    if not x.dtype.is_complex:
        return _ops.elementwise("sign", x)
    p = _parts(x, dt.REAL_OF[x.dtype])
    r = p.abs()
    zero = _ops.elementwise("eq", r, 0)
    safe = _ops.where(zero, 1.0, r)
    return _make(_ops.where(zero, 0.0, p.re / safe), _ops.where(zero, 0.0, p.im / safe))


def conj(x):
    """The conjugate. torch's is a lazy view with the conjugate bit set; webtorch's is the conjugated values
    (a new tensor, is_conj() False): the same numbers, not the same memory."""
    return conj_physical(x) if x.dtype.is_complex else x


def vdot(a, b):
    """The dot product with a conjugated: sum(conj(a) * b), for 1-D tensors."""
    if a.dim() != 1 or b.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.dim()}D and {b.dim()}D tensors")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"vdot : expected both vectors to have same dtype, but found {a.dtype.name.capitalize()} "
                           f"and {b.dtype.name.capitalize()}")
    return _ops.dot(conj(a), b)


def view_as_real_copy(z):
    return _ops.clone(view_as_real(z))


def view_as_complex_copy(x):
    return _ops.clone(view_as_complex(x))


def _set_part(part):
    def setter(x, value):
        with _tape.no_grad():
            _ops._copy_into(part(x), value)
        versions(x).version += 1
    return setter


_ops.complex_forms = sys.modules[__name__]  # the primitives' hooks (_ops cannot import this module)
Tensor.real = property(real, _set_part(real))
Tensor.imag = property(imag, _set_part(imag))
Tensor.__complex__ = lambda self: builtins.complex(self.item())
for _name in ("conj", "conj_physical", "angle", "sgn", "vdot"):
    setattr(Tensor, _name, globals()[_name])
Tensor.cfloat = lambda self: self.to(dt.complex64)
Tensor.cdouble = lambda self: self.to(dt.complex128)
__all__ = ["view_as_real", "view_as_complex", "real", "imag", "complex", "polar", "conj", "conj_physical", "angle",
           "sgn", "vdot", "view_as_real_copy", "view_as_complex_copy"]
