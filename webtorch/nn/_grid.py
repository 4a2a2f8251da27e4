"""F.grid_sample and F.affine_grid (2-d, torch's rules), derived from existing ops: the source
coordinates are arithmetic on the grid, each tap a gather from the flattened image times its weight,
so the gradients for the input (gather's scatter-add) and for the grid (through the weights) are the
autograd engine's. Out-of-range taps read index 0 and are multiplied by a 0/1 mask (padding "zeros").

torch's source index (aten GridSampler.h): unnormalize the grid value to pixel units, then apply the
padding mode to the coordinate (bilinear, nearest) or to each of the 4x4 taps (bicubic)."""
import warnings

from .. import _ops as F
from .._indexing import gather, where
from .._shape_ops import meshgrid

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def _unnormalize(g, size, align_corners):
    """[-1, 1] to pixel units: the corner pixels' centres (align_corners) or their outer edges."""
    return (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2


def _clip(x, size):
    """x clamped to [0, size - 1]; as torch's clip_coordinates, the gradient is 0 on the bounds too."""
    return where((x > 0) & (x < size - 1), x, x.clamp(0, size - 1).detach())


def _reflect(x, twice_low, twice_high):
    """x reflected into [twice_low / 2, twice_high / 2] (torch's reflect_coordinates, its gradient +-1)."""
    if twice_low == twice_high:
        return x * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    x = x - low
    x = x * where(x < 0, -1.0, 1.0).detach()  # (abs with gradient -1 / +1, +1 at 0 as torch's)
    extra = F.fmod(x, span)
    flips = (x / span).floor()
    return where(F.fmod(flips, 2) == 0, extra + low, span - extra + low)


def _pad_coordinate(x, size, padding_mode, align_corners):
    if padding_mode == "border":
        return _clip(x, size)
    if padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        return _clip(x, size)
    return x


def keys_near(x, a):
    """Keys' cubic convolution kernel for 0 <= x < 1 (torch's A: -0.75 for bicubic, -0.5 antialiased)."""
    return ((a + 2) * x - (a + 3)) * x * x + 1


def keys_far(x, a):
    """The kernel for 1 <= x < 2 (0 beyond)."""
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def cubic_taps(t, a=-0.75):
    """The weights of the taps at -1, 0, 1, 2 for the fraction t in [0, 1)."""
    return keys_far(t + 1, a), keys_near(t, a), keys_near(1 - t, a), keys_far(2 - t, a)


class _Taps:
    """Reads input (N, C, H, W) at integer pixel positions (N, Ho, Wo) as (N, C, Ho, Wo)."""

    def __init__(self, input, out_shape):
        n, c, self.h, self.w = input.shape
        self.flat = input.reshape(n, c, self.h * self.w)
        self.out_shape = (n, c) + tuple(out_shape[1:])

    def read(self, ix, iy, weight):
        """weight * input[iy, ix] (0 where (ix, iy) is outside the image)."""
        inside = (ix >= 0) & (ix <= self.w - 1) & (iy >= 0) & (iy <= self.h - 1)
        index = where(inside, iy * self.w + ix, 0).long()
        n, c = self.out_shape[:2]
        index = index.reshape(n, 1, -1).expand(n, c, index[0].numel())
        values = gather(self.flat, 2, index).reshape(self.out_shape)
        return values * (weight * inside.to(weight.dtype)).unsqueeze(1)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING)
        align_corners = False
    if input.dim() == 5:
        raise NotImplementedError("webtorch: grid_sample of a 5-D (volumetric) input is not implemented; 4-D is")
    if input.dim() != 4 or grid.dim() != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected 4D input and grid with same batch size and grid of shape "
                           f"(N, H_out, W_out, 2), but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{input.dtype} and grid has {grid.dtype}")
    h, w = input.shape[2], input.shape[3]
    x = _unnormalize(grid[..., 0], w, align_corners)
    y = _unnormalize(grid[..., 1], h, align_corners)
    taps = _Taps(input, grid.shape[:3])
    if mode == "bicubic":
        x0, y0 = x.floor(), y.floor()
        wx, wy = cubic_taps(x - x0), cubic_taps(y - y0)
        out = 0
        for i in range(4):
            iy = _pad_coordinate(y0 + (i - 1), h, padding_mode, align_corners)
            for j in range(4):
                ix = _pad_coordinate(x0 + (j - 1), w, padding_mode, align_corners)
                out = out + taps.read(ix.detach(), iy.detach(), wx[j] * wy[i])
        return out
    x = _pad_coordinate(x, w, padding_mode, align_corners)
    y = _pad_coordinate(y, h, padding_mode, align_corners)
    if mode == "nearest":
        # a weight of 1 that keeps the grid in the graph: torch's gradient for the grid is 0 here
        return taps.read(x.round().detach(), y.round().detach(), x * 0 + 1)
    x0, y0 = x.floor().detach(), y.floor().detach()
    tx, ty = x - x0, y - y0
    return (taps.read(x0, y0, (1 - tx) * (1 - ty)) + taps.read(x0 + 1, y0, tx * (1 - ty)) +
            taps.read(x0, y0 + 1, (1 - tx) * ty) + taps.read(x0 + 1, y0 + 1, tx * ty))


def _base_coordinates(n, align_corners, like):
    """n points spanning [-1, 1]: the pixel centres (shrunk by (n - 1) / n unless align_corners)."""
    if n <= 1:
        return F.zeros(max(n, 0), dtype=like.dtype, device=like.device)
    points = F.linspace(-1.0, 1.0, n, dtype=like.dtype, device=like.device)
    return points if align_corners else points * ((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) (or (N, D, H, W, 3)) of the affine maps theta (N, 2, 3) (or (N, 3, 4))."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    spatial = len(size) - 2
    if spatial not in (2, 3) or tuple(theta.shape[1:]) != (spatial, spatial + 1) or theta.shape[0] != size[0]:
        raise ValueError(f"Expected a batch of {spatial}D affine matrices of shape Nx{spatial}x{spatial + 1} for "
                         f"size {size}. Got {list(theta.shape)}.")
    if min(size[2:]) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.")
    axes = [_base_coordinates(n, align_corners, theta) for n in reversed(size[2:])]  # x, y(, z)
    grids = meshgrid(*reversed(axes), indexing="ij")  # (z,) y, x: each of shape size[2:]
    base = F.stack(list(reversed(grids)) + [F.ones_like(grids[0])], -1)  # (..., x, y(, z), 1)
    points = base.reshape(1, -1, spatial + 1)
    out = F.matmul(points, theta.transpose(1, 2))  # (N, points, spatial)
    return out.reshape([size[0]] + size[2:] + [spatial])


__all__ = ["grid_sample", "affine_grid"]
