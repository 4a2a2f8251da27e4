"""Fractional max pooling (Graham, 2014), as torch 2.13 computes it: F.fractional_max_pool2d/3d (and their
_with_indices forms), nn.FractionalMaxPool2d/3d.

Each (sample, channel) plane draws one number u in [0, 1) per pooled dim (torch.rand(N, C, d), or the
given _random_samples); along a dim of input size n pooled to m windows of size k, window i starts at
int((i + u) * a) - int(u * a) with a = (n - k) / (m - 1), computed in the input's float dtype as torch's
kernel does, and the last window starts at n - k. Plane samples are read in torch's order: (W, H) for 2-d,
(T, H, W) for 3-d. The windows' maxima (the first in scan order on ties) and their flat indices within the
plane are taken with gather + max, so the result is differentiable as max pooling is. The starts are a few
numbers per plane, computed in Python (float32's rounding by a struct round trip); no numpy (Pyodide).
"""
import math
import struct

from .. import _ops as F
from .. import _dtypes as dt
from .._indexing import gather
from .._random import rand
from .module import Module

# which of a plane's samples drives each pooled dim (torch's kernels: sequenceW reads sample 0 in 2-d)
_SAMPLE_OF_DIM = {2: (1, 0), 3: (0, 1, 2)}


def _tuple(value, n, name):
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return (value,) * n
    value = tuple(value)
    if len(value) != n:
        raise RuntimeError(f"{name} must either be a single int, or a tuple of {n} ints")
    return value


def _float32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def _starts(samples, n_in, n_out, k, rounded):
    """[planes][n_out] window starts along one dim for each plane's sample (torch's generate_intervals), each
    operation rounded to the input's float dtype (rounded: _float32, or float for float64)."""
    alpha = rounded(rounded(n_in - k) / rounded(n_out - 1)) if n_out > 1 else 0.0
    starts = []
    for u in samples:
        u = rounded(u)
        row = [int(rounded(rounded(i + u) * alpha)) - int(rounded(u * alpha)) for i in range(n_out - 1)]
        starts.append(row + [n_in - k] if n_out > 0 else row)
    return starts


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, d):
    name = f"fractional_max_pool{d}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if input.dim() not in (d + 1, d + 2):
        raise RuntimeError(f"{name}(): Expected {d + 1}D or {d + 2}D tensor, but got: {list(input.shape)}")
    kernel = _tuple(kernel_size, d, "kernel_size")
    spatial = tuple(input.shape[-d:])
    if output_size is None:
        ratio = _tuple(output_ratio, d, "output_ratio")
        output_size = tuple(int(s * r) for s, r in zip(spatial, ratio))
    out_size = _tuple(output_size, d, "output_size")
    for axis, (n_in, n_out, k) in enumerate(zip(spatial, out_size, kernel)):
        # torch's 3-d check is strict (n_out + k - 1 < n_in); its 2-d check allows equality
        if n_out + k - 1 > n_in or (d == 3 and n_out + k - 1 == n_in):
            which = ("height", "width") if d == 2 else ("time", "height", "width")
            raise RuntimeError(f"{name}_out(): pool {which[axis]} {k} too large relative to input {which[axis]} "
                               f"{n_in}")
    batched = input.dim() == d + 2
    x = input if batched else F.unsqueeze(input, 0)
    n, c = x.shape[0], x.shape[1]
    if _random_samples is None:
        _random_samples = rand(n, c, d, dtype=input.dtype, device=input.device)
    if tuple(_random_samples.shape) != (n, c, d):
        raise RuntimeError(f"{name}_out(): Expect _random_samples to be of shape [{n}, {c}, {d}], got "
                           f"{list(_random_samples.shape)}")
    rounded = float if input.dtype is dt.float64 else _float32
    samples = _random_samples.detach().cpu().reshape(n * c, d).tolist()
    # flat index (within the plane) of every element of every window: [planes, *out_size, *kernel]
    plane_strides = [math.prod(spatial[a + 1:]) for a in range(d)]
    flat = None
    for axis in range(d):
        starts = _starts([p[_SAMPLE_OF_DIM[d][axis]] for p in samples], spatial[axis], out_size[axis],
                         kernel[axis], rounded)
        shape = [n * c] + [1] * (2 * d)
        shape[1 + axis] = out_size[axis]
        offsets = [1] * (1 + 2 * d)
        offsets[1 + d + axis] = kernel[axis]
        starts = F.reshape(F.tensor(starts, dtype=dt.int64, device=input.device), shape)
        steps = F.reshape(F.arange(kernel[axis], dtype=dt.int64, device=input.device), offsets)
        term = F.mul(F.add(starts, steps), plane_strides[axis])
        flat = term if flat is None else F.add(flat, term)
    windows = math.prod(kernel)
    index = F.reshape(flat, (n, c, -1))  # the axes' terms broadcast to [planes, *out_size, *kernel]
    values = gather(F.reshape(x, (n, c, -1)), 2, index)
    values = F.reshape(values, (n, c, math.prod(out_size), windows))
    out, best = F._pool_max(values, 3)
    indices = gather(F.reshape(index, (n, c, -1, windows)), 3, F.unsqueeze(best, 3))
    out = F.reshape(out, (n, c) + out_size)
    indices = F.reshape(indices, (n, c) + out_size)
    if not batched:
        out, indices = F.squeeze(out, 0), F.squeeze(indices, 0)
    return (out, indices) if return_indices else out


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)


class _FractionalMaxPoolNd(Module):
    _d = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        self.kernel_size = _tuple(kernel_size, self._d, "kernel_size")
        self.output_size = _tuple(output_size, self._d, "output_size")
        self.output_ratio = _tuple(output_ratio, self._d, "output_ratio")
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{self._d}d requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return _fractional_max_pool(input, self.kernel_size, self.output_size, self.output_ratio,
                                    self.return_indices, self._random_samples, self._d)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _d = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _d = 3
