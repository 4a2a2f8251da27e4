"""Convolution as windows of strided views, and the conv2d primitive's gradients (below autograd,
whose conv2d row uses them; nn.functional builds its convolutions and pooling on them)."""
import math

from . import _dtypes as dt
from . import _ops as F
from . import _shape_ops
from ._indexing import _take_along


def pad(x, pad, mode="constant", value=0.0):
    """pad: (left, right) for the last dim, then the one before, ... (torch's order)."""
    if mode != "constant":
        return _shape_ops.pad(x, pad, mode=mode, value=value)
    _shape_ops.check_pad_length(x, pad)
    out = x
    for i in range(len(pad) // 2):
        d = x.dim() - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        if left < 0:
            out, left = F.narrow(out, d, -left, out.shape[d] + left), 0
        if right < 0:
            out, right = F.narrow(out, d, 0, out.shape[d] + right), 0
        parts = []
        for width in (left, None, right):
            if width is None:
                parts.append(out)
            elif width:
                shape = list(out.shape)
                shape[d] = width
                parts.append(F.full(shape, value, dtype=out.dtype, device=out.device))
        out = F.cat(parts, d) if len(parts) > 1 else out
    return out


# Windows of up to this many taps are stacked slices (one copy kernel per tap; their gradients are slices');
# larger ones (a global pool over a whole image or sequence) one strided view of x, copied once
_SLICED_TAPS = 64


def _windows(x, kernel, stride, dilation):
    """x (N, C, *spatial) -> (N, C, prod(kernel), *out_spatial): every kernel offset's strided slice."""
    spatial = x.shape[2:]
    out_sizes = [(s - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i, s in enumerate(spatial)]
    if any(o <= 0 for o in out_sizes):
        raise RuntimeError(f"Calculated output size: {out_sizes}. Output size is too small")
    if math.prod(kernel) > _SLICED_TAPS:  # one strided view of every window, copied once
        nd, strides = len(kernel), x._stride[2:]
        view = _shape_ops._strided_view(
            x, [*x.shape[:2], *kernel, *out_sizes],
            [*x._stride[:2], *(dilation[i] * strides[i] for i in range(nd)), *(stride[i] * strides[i] for i in range(nd))],
            x._offset)
        return view.reshape(*x.shape[:2], math.prod(kernel), *out_sizes), out_sizes
    slices = []
    for flat in range(math.prod(kernel)):
        offsets, rem = [], flat
        for k in reversed(kernel):
            offsets.append(rem % k)
            rem //= k
        offsets.reverse()
        index = (slice(None), slice(None)) + tuple(
            slice(o * dilation[i], o * dilation[i] + stride[i] * (out_sizes[i] - 1) + 1, stride[i])
            for i, o in enumerate(offsets))
        slices.append(x[index])
    return F.stack(slices, 2), out_sizes


def col2im(cols, in_sizes, out_sizes, kernel, stride, padding, dilation):
    """cols (N, C, prod(kernel) * prod(in_sizes)), the value input position i sends through kernel tap
    k at k * prod(in_sizes) + i (row-major flat indices) -> (N, C, *out_sizes): out[o] = the sum of the
    values with o = i * stride - padding + k * dilation in every dim (fold, conv_transpose's scatter).
    One gather of each output's kernel taps, then their sum: only the taps that reach an input are
    gathered (about kernel / stride per output and dim: istft's overlap-add folds 400-point frames at a
    hop of 160, 3 taps per output, not 400), padded with masked ones. (Not a convolution of a zero-padded,
    zero-dilated input: its zeros times an inf or NaN weight gave NaN where torch, summing only the
    products that exist, is finite.)"""
    nd, length = len(kernel), math.prod(in_sizes)
    n, c = cols.shape[0], cols.shape[1]
    if length == 0:
        return F.zeros(n, c, *out_sizes, dtype=cols.dtype, device=cols.device)
    index = valid = None
    in_step, tap_step = length, math.prod(kernel)
    for d in range(nd):
        in_step, tap_step = in_step // in_sizes[d], tap_step // kernel[d]
        taps = [_taps_reaching(o + padding[d], kernel[d], stride[d], dilation[d], in_sizes[d])
                for o in range(out_sizes[d])]
        width = max(1, max(len(ks) for ks in taps))
        flat, ok = [], []
        for o, ks in enumerate(taps):
            for k in ks:  # tap k carries input i = (o + padding - k * dilation) / stride
                flat.append(k * tap_step * length + (o + padding[d] - k * dilation[d]) // stride[d] * in_step)
            flat.extend([0] * (width - len(ks)))  # masked: read any value, unused
            ok.extend([True] * len(ks) + [False] * (width - len(ks)))
        shape = [1] * (2 * nd)
        shape[d], shape[nd + d] = out_sizes[d], width
        part = F.tensor(flat, dtype=dt.int64, device=cols.device).reshape(shape)
        hit = F.tensor(ok, dtype=dt.bool_, device=cols.device).reshape(shape)
        index = part if index is None else index + part
        valid = hit if valid is None else F.logical_and(valid, hit)
    widths = index.shape[nd:]
    taps = _take_along(cols, 2, index.reshape(-1)).reshape(n, c, *out_sizes, math.prod(widths))
    return F.sum(F.where(valid.reshape(*out_sizes, -1), taps, 0), -1)


def _taps_reaching(t, kernel, stride, dilation, in_size):
    """The kernel taps k (ascending) by which an input reaches the output at padded position t = o + padding
    in one dim: t - k * dilation = i * stride with 0 <= i < in_size. Solved, not searched: dilation * k = t
    (mod stride) holds on one residue class of k modulo stride / g (g = gcd(dilation, stride)), and i's
    bounds bound k."""
    g = math.gcd(dilation, stride)
    if t < 0 or t % g:
        return range(0)
    step = stride // g
    residue = (t // g) * pow(dilation // g, -1, step) % step
    low = max(0, -(-(t - (in_size - 1) * stride) // dilation))
    high = min(kernel - 1, t // dilation)
    return range(low + (residue - low) % step, high + 1, step)


def transposed_conv(x, weight, groups, out_sizes, stride, padding, dilation):
    """conv_transpose of batched x (N, C_in, *in_sizes) by weight (C_in, C_out/groups, *kernel), no bias, onto
    out_sizes: every input position's products with the kernel (one matmul per group), then each output's sum of
    the products that land on it (col2im). Only products that exist are summed (torch's form): an inf weight
    reaches only the outputs its tap touches."""
    n, c, in_sizes, kernel = x.shape[0], x.shape[1], tuple(x.shape[2:]), tuple(weight.shape[2:])
    cout_g, taps, length = weight.shape[1], math.prod(kernel), math.prod(in_sizes)
    # the weight transposed once, contiguous: a transposed view made the matmul ~9x slower on lavapipe
    products = F.matmul(F.unsqueeze(F.contiguous(weight.reshape(groups, c // groups, cout_g * taps).mT), 0),
                        x.reshape(n, groups, c // groups, length))                  # (N, G, Cout/G * K, L)
    return col2im(products.reshape(n, groups * cout_g, taps * length), in_sizes, out_sizes, kernel, stride, padding,
                  dilation)


def _conv2d_input_grad(grad, weight, x_shape, stride, pads, dilation, groups):
    """dL/dx of conv2d (the _conv2d primitive's backward): x's element ih gathers grad at oh with
    ih = oh*s - pt + kh*d, i.e. conv_transpose2d of grad by the weight onto x's size. (Not a conv2d of the
    zero-dilated, zero-padded grad: its zeros times an inf weight gave NaN where torch is finite.)"""
    return transposed_conv(grad, weight, groups, tuple(x_shape[2:]), stride, pads, dilation)


def _conv2d_weight_grad(grad, x, weight_shape, stride, pads, dilation, groups):
    """dL/dweight of conv2d: dW[co, ci, i, j] = sum over (n, oh, ow) of grad[n, co, oh, ow] *
    x[n, ci, oh*s - pt + i*d, ow*s - pl + j*d]. With one group that is itself a conv2d of x with
    batch and channels swapped, by grad as the kernel (stride d, dilation s); groups take the
    windows + matmul form (the swapped conv would mix channels of different groups)."""
    kh, kw = weight_shape[2], weight_shape[3]
    if groups == 1:
        return F._conv2d(x.transpose(0, 1), grad.transpose(0, 1), None, dilation, pads, stride, 1,
                         (kh, kw)).transpose(0, 1)
    n, c, h, w = x.shape
    oh, ow = grad.shape[2], grad.shape[3]
    reach = [(oh - 1) * stride[0] + (kh - 1) * dilation[0] + 1, (ow - 1) * stride[1] + (kw - 1) * dilation[1] + 1]
    xp = pad(x, [pads[1], reach[1] - w - pads[1], pads[0], reach[0] - h - pads[0]])
    cols, _ = _windows(xp, (kh, kw), stride, dilation)                  # (N, C, KH*KW, OH, OW)
    cols = cols.reshape(n, groups, (c // groups) * kh * kw, oh * ow)
    g = grad.reshape(n, groups, weight_shape[0] // groups, oh * ow)
    return F.sum(F.matmul(g, cols.mT), 0).reshape(weight_shape)
