"""torch.fft: discrete Fourier transforms of any length, on every device, with gradients.

One transform underlies all: the complex DFT of one dim (_dft), computed on real "planar" tensors (the
real parts, then the imaginary parts, of each row: (rows, 2, n)) with the real ops, so autograd needs no
rule of its own and every device runs it:

* n <= RADIX_MAX: one real matmul with the 2n x 2n matrix [[Re W, Im W], [-Im W, Re W]] (W the DFT
  matrix);
* n = n1 * n2 with a factor 1 < n1 <= RADIX_MAX (the largest such): Cooley-Tukey's four-step form, a
  batch of n2 DFTs of size n1 (one matmul), the twiddle factors, then n1 DFTs of size n2 (recursively).
  Work O(n (n1 + n2 + ...)): about 4 passes of radix 64 for 2^20 points, never an n x n matrix;
* otherwise (a prime factor above RADIX_MAX): Bluestein's chirp-z, a convolution of power-of-two length
  m >= 2n - 1 through two power-of-two transforms.

The DFT matrices, twiddles and chirps are computed on the host in double precision (cached per size,
sign, dtype and device). rfft/irfft/hfft/ihfft are the complex transform with the Hermitian symmetry
applied, as torch's results; the n-d transforms are the 1-d one along each dim."""
import functools
import math

from . import _complex
from . import _dtypes as dt
from . import _ops
from . import _tape
from ._shape_ops import flip, roll, select
from ._tensor import Tensor  # (torch.fft re-exports torch.Tensor in its __all__)
from .backend import cpu

RADIX_MAX = 64
_NORMS = (None, "backward", "ortho", "forward")


# -- host tables ------------------------------------------------------------------------------
def _table(values, shape, real_dtype, device):
    """A constant tensor from a flat list (or numpy array) of Python floats."""
    if cpu.USE_NUMPY and not isinstance(values, list):
        values = values.astype("float64").ravel().tolist()
    return _ops.tensor(values, dtype=real_dtype, device=device).reshape(shape)


def _cos_sin(turns):
    """cos and sin of 2 pi t for a flat sequence of exact fractions t = k / n given as (k, n) pairs reduced
    mod n first (the angle stays in [0, 2 pi): the float64 values are accurate to the last bit)."""
    cos, sin = [], []
    for k, n in turns:
        a = 2.0 * math.pi * (k % n) / n
        cos.append(math.cos(a))
        sin.append(math.sin(a))
    return cos, sin


@functools.lru_cache(maxsize=64)
def _dft_matrix(n, sign, real_dtype, device):
    """[[Re W, Im W], [-Im W, Re W]] (2n x 2n) with W[j, k] = exp(sign 2 pi i j k / n): rows (x_re, x_im)
    @ it gives (X_re, X_im)."""
    cos, sin = _cos_sin([(j * k, n) for j in range(n) for k in range(n)])
    sin = [sign * s for s in sin]
    rows = []
    for j in range(n):
        rows.append(cos[j * n:(j + 1) * n] + sin[j * n:(j + 1) * n])
    for j in range(n):
        rows.append([-s for s in sin[j * n:(j + 1) * n]] + cos[j * n:(j + 1) * n])
    return _table([v for r in rows for v in r], (2 * n, 2 * n), real_dtype, device)


@functools.lru_cache(maxsize=64)
def _twiddles(n1, n2, sign, real_dtype, device):
    """exp(sign 2 pi i a k / n) at [a, k] for a < n2, k < n1 (n = n1 n2), planar: (n2, 2, n1)."""
    n = n1 * n2
    values = []
    for a in range(n2):
        cos, sin = _cos_sin([(a * k, n) for k in range(n1)])
        values += cos + [sign * s for s in sin]
    return _table(values, (n2, 2, n1), real_dtype, device)


@functools.lru_cache(maxsize=32)
def _chirp(n, m, sign, real_dtype, device):
    """Bluestein's tables: the chirp c_k = exp(sign pi i k^2 / n), planar (2, n), and the DFT (sign -1,
    size m) of b, b_j = conj(c_j) at j and m - j, zero between."""
    cos, sin = _cos_sin([(k * k, 2 * n) for k in range(n)])
    chirp = _table(cos + [sign * s for s in sin], (2, n), real_dtype, device)
    b_re, b_im = [0.0] * m, [0.0] * m
    for j in range(n):
        for at in {j, (m - j) % m}:
            b_re[at], b_im[at] = cos[j], -sign * sin[j]
    b = _table(b_re + b_im, (1, 2, m), real_dtype, device)
    return chirp, _dft(b, -1)


# -- the complex DFT on planar rows -----------------------------------------------------------------
def _times(a, t):
    """The planar complex product of a (..., 2, k) and a table t broadcasting against it."""
    a_re, a_im = select(a, -2, 0), select(a, -2, 1)
    t_re, t_im = select(t, -2, 0), select(t, -2, 1)
    return _ops.stack([a_re * t_re - a_im * t_im, a_re * t_im + a_im * t_re], -2)


def _largest_factor(n):
    for f in range(min(RADIX_MAX, n - 1), 1, -1):
        if n % f == 0:
            return f
    return 1


def _dft(p, sign):
    """The DFT with exp(sign 2 pi i j k / n) of planar rows p: (rows, 2, n) -> (rows, 2, n)."""
    rows, _, n = p.shape
    real_dtype, device = p.dtype, p.device.type
    if n == 1:
        return p
    if n <= RADIX_MAX:
        return _ops.reshape(_ops.reshape(p, rows, 2 * n) @ _dft_matrix(n, sign, real_dtype, device), rows, 2, n)
    n1 = _largest_factor(n)
    if n1 == 1:
        return _bluestein(p, sign)
    n2 = n // n1
    # x[n2 j + a] for j < n1, a < n2: DFTs of size n1 over j, for each a
    x = _ops.reshape(_ops.permute(_ops.reshape(p, rows, 2, n1, n2), 0, 3, 1, 2), rows * n2, 2 * n1)
    y = _ops.reshape(x @ _dft_matrix(n1, sign, real_dtype, device), rows, n2, 2, n1)
    y = _times(y, _twiddles(n1, n2, sign, real_dtype, device))
    # then, for each k < n1, DFTs of size n2 over a: X[k + n1 q]
    z = _dft(_ops.reshape(_ops.permute(y, 0, 3, 2, 1), rows * n1, 2, n2), sign)
    return _ops.reshape(_ops.permute(_ops.reshape(z, rows, n1, 2, n2), 0, 2, 3, 1), rows, 2, n)


def _bluestein(p, sign):
    rows, _, n = p.shape
    m = 1 << (2 * n - 2).bit_length()
    chirp, b_hat = _chirp(n, m, sign, p.dtype, p.device.type)
    a = _ops.cat([_times(p, chirp), _ops.zeros(rows, 2, m - n, dtype=p.dtype, device=p.device)], -1)
    conv = _dft(_times(_dft(a, -1), b_hat), 1)
    return _times(_ops.narrow(conv, -1, 0, n), chirp) * (1.0 / m)


# -- complex transforms of tensors ---------------------------------------------------------------------
def _check_norm(norm):
    if norm not in _NORMS:
        raise RuntimeError(f"Invalid normalization mode: \"{norm}\"")


def _scale(norm, n, inverse):
    """The factor of a transform of n points: torch's norm modes ("backward": 1/n on the inverse)."""
    norm = norm or "backward"
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    return 1.0 / n if (norm == "forward") != inverse else 1.0


def _as_complex(x, name):
    if x.dtype.is_complex:
        return x
    if x.dtype in (dt.float16, dt.bfloat16):
        raise NotImplementedError(f"webtorch: fft.{name} of a {x.dtype.name} tensor (torch's CPU has none either); "
                                  "use float32")
    real = x.dtype if x.dtype.is_floating_point else dt.default_float
    return _ops.cast(x, dt.COMPLEX_OF[real])


def _resized(x, dim, n):
    """x with dim cut to n or zero-padded to n at its end."""
    size = x.shape[dim]
    if n == size:
        return x
    if n < size:
        return _ops.narrow(x, dim, 0, n)
    shape = list(x.shape)
    shape[dim] = n - size
    return _ops.cat([x, _ops.zeros(*shape, dtype=x.dtype, device=x.device)], dim)


def _points(n):
    if n is not None and n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


# -- power-of-two lengths on webgpu: Stockham's FFT kernels ------------------------------------------
@functools.lru_cache(maxsize=32)
def _circle(n, sign, device):
    """exp(sign 2 pi i m / n) for m < n as float32 (n, 2) pairs: fft_stockham.wgsl's twiddle table."""
    cos, sin = _cos_sin([(m, n) for m in range(n)])
    return _table([v for c, s in zip(cos, sin) for v in (c, sign * s)], (n, 2), dt.float32, device)


def _stockham(rows, sign):
    """The unscaled DFT with exp(sign 2 pi i j k / n) of each row of the complex64 (rows, n) tensor, n a
    power of two, on webgpu: log4(n) Stockham passes (backend gpu.fft_pow2), one kernel each. Linear, so
    its gradient is the transform with the other sign (W's conjugate transpose) of the output's gradient."""
    from .backend import gpu
    n = rows.shape[1]
    with _tape.no_grad():
        pairs = _ops.contiguous(_complex.view_as_real(rows))
        out = Tensor(gpu.fft_pow2(pairs, n, _circle(n, sign, "webgpu"), sign), tuple(pairs.shape))
        out = _complex.view_as_complex(out)
    return _tape.record("fft_pow2", out, (rows,), sign=sign)


# the row fft_pow2 of the backward table, attached from here (the rule calls this module's kernels):
# out = W x with W[j, k] = exp(sign 2 pi i j k / n) symmetric, so dx = Wᴴ g = conj(W) g, the other sign
_tape.BACKWARD["fft_pow2"] = lambda grad, out, rows, sign: (_stockham(_ops.contiguous(grad), -sign),)


def _on_stockham(z, n):
    return z.device.type == "webgpu" and z.dtype is dt.complex64 and n >= 2 and n & (n - 1) == 0


def _c2c(z, dim, n, norm, inverse):
    """The complex DFT of z along dim (cut or padded to n), scaled by norm."""
    dim = _ops._wrap_dim(dim, z.dim(), scalar_ok=False)
    n = z.shape[dim] if n is None else _points(n)
    z = _resized(z, dim, n)
    moved = _ops.movedim_view(z, dim) if dim != z.dim() - 1 else z  # dim last
    shape = moved.shape
    scale = _scale(norm, n, inverse)
    if _on_stockham(z, n):
        out = _stockham(_ops.reshape(moved, -1, n), 1 if inverse else -1)
        if scale != 1.0:
            out = out * scale
    else:
        p = _complex.view_as_real(_ops.reshape(moved, -1, n))  # (rows, n, 2)
        planar = _ops.contiguous(_ops.permute(p, 0, 2, 1))
        out = _dft(planar, 1 if inverse else -1)
        if scale != 1.0:
            out = out * scale
        out = _complex.view_as_complex(_ops.contiguous(_ops.permute(out, 0, 2, 1)))
    out = _ops.reshape(out, *shape)
    return _ops.movedim_view(out, dim, back=True) if dim != z.dim() - 1 else out


def _check_real(x, name):
    if x.dtype.is_complex:
        raise RuntimeError(f"{name} expects a real input tensor, but got {x.dtype.name.capitalize()}")


def fft(input, n=None, dim=-1, norm=None):
    _check_norm(norm)
    return _c2c(_as_complex(input, "fft"), dim, n, norm, False)


def ifft(input, n=None, dim=-1, norm=None):
    _check_norm(norm)
    return _c2c(_as_complex(input, "ifft"), dim, n, norm, True)


def rfft(input, n=None, dim=-1, norm=None):
    _check_norm(norm)
    _check_real(input, "rfft")
    full = _c2c(_as_complex(input, "rfft"), dim, n, norm, False)
    d = _ops._wrap_dim(dim, input.dim())
    return _ops.narrow(full, d, 0, full.shape[d] // 2 + 1)


def _hermitian(x, dim, n):
    """The full spectrum of n points whose first n//2 + 1 are x's along dim (cut or zero-padded)."""
    half = _resized(x, dim, n // 2 + 1)
    tail = n - half.shape[dim]
    if not tail:
        return half
    mirrored = flip(_ops.narrow(half, dim, 1, tail), [dim])
    return _ops.cat([half, _complex.conj(mirrored)], dim)


def irfft(input, n=None, dim=-1, norm=None):
    _check_norm(norm)
    z = _as_complex(input, "irfft")
    d = _ops._wrap_dim(dim, z.dim(), scalar_ok=False)
    n = 2 * (z.shape[d] - 1) if n is None else _points(n)
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return _complex.real(_c2c(_hermitian(z, d, n), d, n, norm, True))


_SWAPPED = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def hfft(input, n=None, dim=-1, norm=None):
    """The real spectrum of a Hermitian signal given by its first half: irfft of the conjugate, scaled
    the other way."""
    _check_norm(norm)
    return irfft(_complex.conj(_as_complex(input, "hfft")), n, dim, _SWAPPED[norm])


def ihfft(input, n=None, dim=-1, norm=None):
    _check_norm(norm)
    _check_real(input, "ihfft")
    return _complex.conj(rfft(input, n, dim, _SWAPPED[norm]))


# -- n-d transforms ------------------------------------------------------------------------------------
def _dims(x, s, dim, default_last=None):
    """torch's (s, dim) for an n-d transform: dim defaults to the last len(s) dims (all without s)."""
    if dim is None:
        count = len(s) if s is not None else (default_last or x.dim())
        dim = list(range(x.dim() - count, x.dim()))
    elif isinstance(dim, int):
        dim = [dim]
    dim = [_ops._wrap_dim(d, x.dim(), scalar_ok=False) for d in dim]
    if len(set(dim)) != len(dim):
        raise RuntimeError("FFT dims must be unique")
    if s is None:
        s = [None] * len(dim)
    elif len(s) != len(dim):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    return list(s), dim


def _c2c_dims(out, s, dim, norm, inverse):
    """The complex transform along each of dim (cut or padded to s's sizes)."""
    for n, d in zip(s, dim):
        out = _c2c(out, d, n, norm, inverse)
    return out


def fftn(input, s=None, dim=None, norm=None):
    _check_norm(norm)
    s, dim = _dims(input, s, dim)
    return _c2c_dims(_as_complex(input, "fftn"), s, dim, norm, False)


def ifftn(input, s=None, dim=None, norm=None):
    _check_norm(norm)
    s, dim = _dims(input, s, dim)
    return _c2c_dims(_as_complex(input, "ifftn"), s, dim, norm, True)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    return fftn(input, s, dim, norm)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    return ifftn(input, s, dim, norm)


def rfftn(input, s=None, dim=None, norm=None):
    _check_norm(norm)
    _check_real(input, "rfftn")
    s, dim = _dims(input, s, dim)
    return _c2c_dims(rfft(input, s[-1], dim[-1], norm), s[:-1], dim[:-1], norm, False)


def irfftn(input, s=None, dim=None, norm=None):
    _check_norm(norm)
    s, dim = _dims(input, s, dim)
    return irfft(_c2c_dims(_as_complex(input, "irfftn"), s[:-1], dim[:-1], norm, True), s[-1], dim[-1], norm)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    return rfftn(input, s, dim, norm)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    return irfftn(input, s, dim, norm)


def hfftn(input, s=None, dim=None, norm=None):
    return irfftn(_complex.conj(_as_complex(input, "hfftn")), s, dim, _SWAPPED[norm])


def ihfftn(input, s=None, dim=None, norm=None):
    return _complex.conj(rfftn(input, s, dim, _SWAPPED[norm]))


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    return hfftn(input, s, dim, norm)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    return ihfftn(input, s, dim, norm)


# -- frequencies and shifts ------------------------------------------------------------------------------
def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point fft: [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d n)."""
    k = _ops.arange(n, dtype=dtype, device=device)
    freqs = _ops.where(_ops.elementwise("lt", k, (n + 1) // 2), k, k - n) / (d * n)
    out = _ops.cast(freqs, dtype or dt.default_float)
    out.requires_grad = requires_grad
    return out


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    out = _ops.cast(_ops.arange(n // 2 + 1, dtype=dtype, device=device) / (d * n), dtype or dt.default_float)
    out.requires_grad = requires_grad
    return out


def _shift(x, dim, sign):
    dims = range(x.dim()) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [_ops._wrap_dim(d, x.dim()) for d in dims]
    return roll(x, [sign * (x.shape[d] // 2) for d in dims], dims) if dims else x


def fftshift(input, dim=None):
    return _shift(input, dim, 1)


def ifftshift(input, dim=None):
    return _shift(input, dim, -1)


__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
           "Tensor"]
