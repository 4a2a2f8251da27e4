"""torch's layouts and memory formats: torch.strided (the one layout webtorch's tensors have) and the
memory formats contiguous_format, channels_last, channels_last_3d and preserve_format, with
Tensor.contiguous/is_contiguous/to taking memory_format as torch's do. A channels-last tensor is a
contiguous copy in (N, H, W, C) order viewed back as (N, C, H, W): the same values, torch's strides."""


class layout:
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"


class memory_format:
    def __init__(self, name, order=None, rank=None):
        self._name, self._order, self._rank = name, order, rank

    def __repr__(self):
        return f"torch.{self._name}"


strided = layout("strided")
# torch's other layouts, as tags to compare with (t.layout == torch.sparse_coo is False for every tensor
# here); sparse and jagged tensors themselves are refused (issue 24)
sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, jagged = map(
    layout, ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged"))
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
legacy_contiguous_format = contiguous_format  # torch's name for it in old serialized modules
channels_last = memory_format("channels_last", (0, 2, 3, 1), 4)  # the dims from slowest to fastest
channels_last_3d = memory_format("channels_last_3d", (0, 2, 3, 4, 1), 5)

__all__ = ["layout", "memory_format", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
           "jagged", "contiguous_format", "legacy_contiguous_format", "preserve_format", "channels_last",
           "channels_last_3d"]


def _inverse(order):
    return tuple(sorted(range(len(order)), key=lambda i: order[i]))


def _check_rank(x, fmt):
    if x.dim() != fmt._rank:
        raise RuntimeError(f"required rank {fmt._rank} tensor to use {fmt._name} format")


def attach(Tensor):
    plain_contiguous, plain_is_contiguous, plain_to = Tensor.contiguous, Tensor.is_contiguous, Tensor.to

    def is_contiguous(self, memory_format=contiguous_format):
        if memory_format._order is None:
            return plain_is_contiguous(self)
        if self.dim() != memory_format._rank:
            return False
        return plain_is_contiguous(self.permute(*memory_format._order))

    def contiguous(self, memory_format=contiguous_format):
        if memory_format is preserve_format:
            if plain_is_contiguous(self):
                return self
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        if memory_format._order is None:
            return plain_contiguous(self)
        _check_rank(self, memory_format)
        if is_contiguous(self, memory_format):
            return self
        return plain_contiguous(self.permute(*memory_format._order)).permute(*_inverse(memory_format._order))

    def to(self, *args, memory_format=preserve_format, **kwargs):
        out = plain_to(self, *args, **kwargs)
        if memory_format is preserve_format:
            return out
        if memory_format._order is not None:
            _check_rank(out, memory_format)
        if out is self and _suggested(self) is memory_format:  # torch's to() changes nothing then
            return self
        return contiguous(out, memory_format)

    def _suggested(x):
        """torch's suggest_memory_format: channels-last where the strides say so and are not also plain."""
        for fmt in (channels_last, channels_last_3d):
            if x.dim() == fmt._rank and is_contiguous(x, fmt) and not plain_is_contiguous(x):
                return fmt
        return contiguous_format

    Tensor.is_contiguous, Tensor.contiguous, Tensor.to = is_contiguous, contiguous, to
    Tensor.layout = property(lambda self: strided)
