"""torch.nn.init: in-place initialisers with PyTorch's fan computations."""
import math
import warnings
import random as _pyrandom

from .. import _ops as F
from .. import _random, _shape_ops, linalg
from ..autograd import no_grad


def _fill_from_host(tensor, values):
    with no_grad():
        F._copy_into(tensor, F.tensor(values, dtype=tensor.dtype).reshape(tensor.shape).to(tensor.device.type))
    return tensor


# nn.utils.skip_init sets this while it builds a module: the random initialisers leave tensors as they are
skipping = False


# Tensor.uniform_/normal_ (webtorch's seeded generator) when present; else Python's random.
def uniform_(tensor, a=0.0, b=1.0, generator=None):
    if skipping:
        return tensor
    if hasattr(tensor, "uniform_"):
        with no_grad():
            return tensor.uniform_(a, b, generator=generator)
    return _fill_from_host(tensor, [_pyrandom.uniform(a, b) for _ in range(tensor.numel())])


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    if skipping:
        return tensor
    if hasattr(tensor, "normal_"):
        with no_grad():
            return tensor.normal_(mean, std, generator=generator)
    return _fill_from_host(tensor, [_pyrandom.gauss(mean, std) for _ in range(tensor.numel())])


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    if skipping:
        return tensor
    with no_grad():
        return _random.trunc_normal_(tensor, mean, std, a, b, generator)


def constant_(tensor, val):
    with no_grad():
        F._copy_into(tensor, val)
    return tensor


def zeros_(tensor):
    return constant_(tensor, 0.0)


def ones_(tensor):
    return constant_(tensor, 1.0)


def eye_(tensor):
    with no_grad():
        F._copy_into(tensor, F.eye(*tensor.shape, device=tensor.device))
    return tensor


def dirac_(tensor, groups=1):
    """Conv weights (3-5 dims) that pass each of the first input channels of a group through: 1 at
    the kernel's centre of [g * out_per_group + d, d], 0 elsewhere."""
    if tensor.dim() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    values = [0.0] * tensor.numel()
    strides = [math.prod(sizes[i + 1:]) for i in range(len(sizes))]
    centre = sum(size // 2 * stride for size, stride in zip(sizes[2:], strides[2:]))
    for g in range(groups):
        for d in range(min(per_group, sizes[1])):
            values[(g * per_group + d) * strides[0] + d * strides[1] + centre] = 1.0
    return _fill_from_host(tensor, values)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-D tensor drawn from N(0, std) with ceil(sparsity * rows) entries of each column set to 0."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = int(math.ceil(sparsity * rows))
    normal_(tensor, 0, std)
    values = tensor.tolist()
    for col in range(cols):
        for row in _pyrandom.sample(range(rows), zeros):
            values[row][col] = 0.0
    return _fill_from_host(tensor, values)


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def calculate_gain(nonlinearity, param=None):
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -a, a)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)))


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _zero_elements(tensor):
    """torch's kaiming initialisers leave a tensor without elements alone, with a warning."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return True
    return False


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if _zero_elements(tensor):
        return tensor
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if _zero_elements(tensor):
        return tensor
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode)))


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix, dims after the first flattened: q of the QR decomposition of a
    normal sample (of its transpose when it is wide), with the signs of r's diagonal folded in so that
    the result is uniformly distributed (torch's algorithm), times gain."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if skipping or tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        sample = normal_(F.empty(rows, cols, dtype=tensor.dtype, device=tensor.device))
        q, r = linalg.qr(sample.t() if rows < cols else sample)
        q = q * F.sign(_shape_ops.diagonal(r))
        F._copy_into(tensor, (q.t() if rows < cols else q).reshape(tensor.shape) * gain)
    return tensor
