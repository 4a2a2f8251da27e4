"""Signal windows and the short-time Fourier transform: torch.hann_window, hamming_window,
blackman_window, bartlett_window, kaiser_window, torch.stft and torch.istft.

The windows follow torch's own arithmetic step by step in the requested dtype (arange, one scale, cos), so
their float32 values are torch's. stft frames the (centered, padded) signal with a strided view, multiplies
by the window and takes torch.fft's rfft/fft of each frame; istft inverts each frame, windows it again and
overlap-adds with nn.functional.fold, dividing by the summed squared window (torch's envelope). Everything
is ordinary ops: every device, with gradients."""
import math
import warnings

from . import _complex
from . import _dtypes as dt
from . import _ops
from . import fft as _fft
from ._tensor import Tensor


def _window_arange(name, window_length, periodic, dtype, device):
    """(n, its length N) for a window of window_length: arange(N) in dtype, N one longer when periodic;
    None for the lengths whose window is torch's constant (0: empty, 1: [1])."""
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dtype = dt.default_float if dtype is None else dt.as_dtype(dtype)
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if window_length <= 1:
        return None, _ops.ones(window_length, dtype=dtype, device=device)
    n = window_length + 1 if periodic else window_length
    return n, _ops.arange(n, dtype=dtype, device=device)


def _finish(window, n, window_length, requires_grad):
    out = _ops.narrow(window, 0, 0, window_length) if n != window_length else window
    out.requires_grad = requires_grad
    return out


def _cosine_window(name, terms):
    """A sum of cosines a0 - a1 cos(2 pi n / (N - 1)) (+ a2 cos(4 pi n / (N - 1))), as torch writes each."""
    def window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
               requires_grad=False, **coefficients):
        n, arange = _window_arange(name, window_length, periodic, dtype, device)
        if n is None:
            arange.requires_grad = requires_grad
            return arange
        return _finish(terms(arange, n, **coefficients), n, window_length, requires_grad)
    window.__name__ = name
    return window


def _hamming(x, n, alpha=0.54, beta=0.46):
    return (x * (math.pi * 2.0 / (n - 1))).cos() * -beta + alpha


def _blackman(x, n):
    x = x * (math.pi / (n - 1))
    return (x * 4).cos() * 0.08 - (x * 2).cos() * 0.5 + 0.42


def _bartlett(x, n):
    x = x * (2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    return _ops.cat([_ops.narrow(x, 0, 0, half), _ops.narrow(x, 0, half, n - half) * -1 + 2])


hann_window = _cosine_window("hann_window", lambda x, n: _hamming(x, n, 0.5, 0.5))
blackman_window = _cosine_window("blackman_window", _blackman)
bartlett_window = _cosine_window("bartlett_window", _bartlett)
_hamming_window = _cosine_window("hamming_window", _hamming)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    return _hamming_window(window_length, periodic, dtype=dtype, device=device, requires_grad=requires_grad,
                           alpha=alpha, beta=beta)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    """i0(beta sqrt(|1 - ((n - a) / a)^2|)) / i0(beta) with a = (N - 1) / 2, as torch's kernel."""
    n, x = _window_arange("kaiser_window", window_length, periodic, dtype, device)
    if n is None:
        x.requires_grad = requires_grad
        return x
    alpha = (n - 1) / 2.0
    arg = (((x - alpha) / alpha) ** 2 * -1 + 1).abs().sqrt() * beta
    i0 = _ops.elementwise("i0", arg)
    return _finish(i0 / _ops.elementwise("i0", _ops.full((), beta, dtype=x.dtype, device=x.device)), n,
                   window_length, requires_grad)


# -- stft / istft ---------------------------------------------------------------------------------------
_NO_STFT_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known to cause spectral "
                   "leakage. Other windows such as torch.hann_window or torch.hamming_window are recommended to "
                   "reduce spectral leakage.To suppress this warning and use a rectangular window, explicitly set "
                   "`window=torch.ones(n_fft, device=<device>)`.")
_NO_ISTFT_WINDOW = ("A window was not provided. A rectangular window will be applied.Please provide the same window "
                    "used by stft to make the inversion lossless.To suppress this warning and use a rectangular "
                    "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")


def _padded_window(window, n_fft, win_length, dtype, device, missing=None):
    """The window (ones when None, with torch's warning `missing`) of win_length, zero-padded on both sides
    to n_fft as torch centers it."""
    if window is None:
        warnings.warn(missing)
        window = _ops.ones(win_length, dtype=dtype, device=device)
    elif window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length={win_length}, but got "
                           f"window with size {list(window.shape)}")
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    return _ops.cat([_ops.zeros(left, dtype=window.dtype, device=window.device), window,
                     _ops.zeros(n_fft - win_length - left, dtype=window.dtype, device=window.device)])


def _lengths(n_fft, hop_length, win_length):
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if hop_length <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    return hop_length, win_length


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    if align_to_window is not None:
        raise NotImplementedError("webtorch: stft(align_to_window=) is not supported")
    complex_input = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if return_complex is None:
        if not complex_input:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                               "require that return_complex=True in a future PyTorch release.")
        return_complex = True
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
                      "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
                      "still call torch.view_as_real on the complex output to recover the old return format.")
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.dim()}D tensor")
    hop_length, win_length = _lengths(n_fft, hop_length, win_length)
    x = input if input.dim() == 2 else _ops.unsqueeze(input, 0)
    if center:
        from .nn import functional as F
        pad = n_fft // 2
        x = _ops.reshape(F.pad(_ops.unsqueeze(x, 0), [pad, pad], pad_mode), x.shape[0], -1)
    length = x.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    frames = x.unfold(-1, n_fft, hop_length)  # (batch, frames, n_fft): a strided view
    frames = frames * _padded_window(window, n_fft, win_length, x.dtype if x.dtype.is_floating_point else
                                     dt.default_float, x.device.type, _NO_STFT_WINDOW)
    onesided = (not complex_input) if onesided is None else onesided
    if onesided and complex_input:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spectrum = _fft.rfft(frames, dim=-1, norm=norm) if onesided else _fft.fft(frames, dim=-1, norm=norm)
    out = _ops.transpose(spectrum, -1, -2)
    if input.dim() == 1:
        out = _ops.squeeze(out, 0)
    return out if return_complex else _complex.view_as_real(out)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex, but got {input.dim()}")
    hop_length, win_length = _lengths(n_fft, hop_length, win_length)
    z = input if input.dim() == 3 else _ops.unsqueeze(input, 0)
    n_freq, n_frames = z.shape[-2], z.shape[-1]
    onesided = n_freq != n_fft if onesided is None else onesided
    if onesided and n_fft // 2 + 1 != n_freq:
        raise RuntimeError("istft: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft / 2 + 1 when onesided=True, but got {n_freq}")
    if not onesided and n_freq != n_fft:
        raise RuntimeError("istft: expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft when onesided=False, but got {n_freq}")
    real_dtype = dt.REAL_OF[z.dtype]
    w = _padded_window(window, n_fft, win_length, real_dtype, z.device.type, _NO_ISTFT_WINDOW)
    norm = "ortho" if normalized else "backward"
    frames = _ops.transpose(z, -1, -2)  # (batch, frames, freq)
    if return_complex:
        frames = _fft.ifft(frames, n_fft, dim=-1, norm=norm)
    else:  # a real signal: torch's c2r transform of the first n_fft // 2 + 1 bins, a two-sided input's too
        frames = _fft.irfft(frames[..., :n_fft // 2 + 1], n_fft, dim=-1, norm=norm)
    frames = frames * w
    from .nn import functional as F
    expected = n_fft + hop_length * (n_frames - 1)

    def overlap_add(t):  # (batch, frames, n_fft) -> (batch, expected): each frame added at its hop
        return _ops.reshape(F.fold(_ops.transpose(t, 1, 2), (1, expected), (1, n_fft), stride=(1, hop_length)),
                            t.shape[0], expected)

    if frames.dtype.is_complex:
        y = _complex.view_as_complex(_ops.stack([overlap_add(_complex.real(frames)),
                                                 overlap_add(_complex.imag(frames))], -1))
    else:
        y = overlap_add(frames)
    envelope = overlap_add(_ops.expand(_ops.reshape(w * w, 1, 1, n_fft), 1, n_frames, n_fft))
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (expected - n_fft // 2 if center else expected)
    end = min(end, expected)
    y = _ops.narrow(y, -1, start, end - start)
    envelope = _ops.narrow(envelope, -1, start, end - start)
    if _ops.amin(envelope.abs()).item() < 1e-11:
        raise RuntimeError("istft(...): window overlap add min: 0 (the sum of the squared window is zero somewhere: "
                           "check the window and hop_length)")
    y = y / envelope
    if length is not None and y.shape[-1] < length:
        y = _ops.cat([y, _ops.zeros(y.shape[0], length - y.shape[-1], dtype=y.dtype, device=y.device)], -1)
    return _ops.squeeze(y, 0) if input.dim() == 2 else y


Tensor.stft, Tensor.istft = stft, istft
__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window", "stft", "istft"]
