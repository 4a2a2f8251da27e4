"""torch.nn.utils.rnn: PackedSequence and the pad/pack helpers.

A PackedSequence stores a batch of variable-length sequences time step by time step: `data` holds
step 0's rows of every sequence, then step 1's rows of the sequences that long, ... (sequences
sorted longest first); `batch_sizes[t]` counts the rows of step t. Packing and unpacking are each
one index_select (a gather), so gradients flow through them."""
from collections import namedtuple

from ... import _dtypes as dt
from ... import _ops as F

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        device = data.device  # the indices follow the data's device; batch_sizes stay on cpu
        indices = [None if i is None else i.to(device) for i in (self.sorted_indices, self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *indices)

    def cpu(self):
        return self.to("cpu")

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    if permutation is None:
        return None
    order = permutation.tolist()
    inverse = [0] * len(order)
    for position, index in enumerate(order):
        inverse[index] = position
    return F.tensor(inverse, dtype=dt.int64, device=permutation.device)


def _lengths_list(lengths):
    if isinstance(lengths, F.Tensor):
        if lengths.dim() != 1 or lengths.device.type != "cpu" or lengths.dtype is not dt.int64:
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D "
                               f"{lengths.device.type} {str(lengths.dtype).split('.')[-1]} tensor")
        return lengths.tolist()
    return [int(n) for n in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """A padded batch (T x B x * or B x T x *) and each sequence's length -> a PackedSequence."""
    lengths = _lengths_list(lengths)
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
        order, sorted_indices = list(range(len(lengths))), None
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])  # stable, like torch's sort
        sorted_indices = F.tensor(order, dtype=dt.int64, device=input.device)
    steps, batch = (input.shape[1], input.shape[0]) if batch_first else (input.shape[0], input.shape[1])
    if len(lengths) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={batch})")
    if lengths and min(lengths) <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    sorted_lengths = [lengths[i] for i in order]
    if sorted_lengths and sorted_lengths[0] > steps:
        raise RuntimeError(f"Expected sequence length to be at most {steps}, but got {sorted_lengths[0]}")
    batch_sizes = [sum(1 for n in sorted_lengths if n > t) for t in range(sorted_lengths[0] if lengths else 0)]
    # row (t, b) of the padded input sits at t * T_stride + b * B_stride in its (T*B, *) flattening
    step_stride, batch_stride = (1, steps) if batch_first else (batch, 1)
    rows = [t * step_stride + order[b] * batch_stride for t, n in enumerate(batch_sizes) for b in range(n)]
    flat = input.reshape(steps * batch, *input.shape[2:])
    data = flat.index_select(0, F.tensor(rows, dtype=dt.int64, device=input.device))
    return PackedSequence(data, F.tensor(batch_sizes, dtype=dt.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded batch, lengths), in the original batch order."""
    data, batch_sizes = sequence.data, sequence.batch_sizes.tolist()
    steps, batch = len(batch_sizes), batch_sizes[0]
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    unsorted = list(range(batch)) if sequence.unsorted_indices is None else sequence.unsorted_indices.tolist()
    # where each packed row starts, per step; the padding value is one extra row after the data
    starts = [0]
    for n in batch_sizes:
        starts.append(starts[-1] + n)
    pad_row = starts[-1]
    source = []  # for each output row (t, b) in output order: the packed row, or the padding row
    for outer in range(batch if batch_first else steps):
        for inner in range(steps if batch_first else batch):
            t, b = (inner, outer) if batch_first else (outer, inner)
            sorted_b = unsorted[b]
            source.append(starts[t] + sorted_b if t < len(batch_sizes) and sorted_b < batch_sizes[t] else pad_row)
    padded_data = F.cat([data, F.full((1, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)])
    out = padded_data.index_select(0, F.tensor(source, dtype=dt.int64, device=data.device))
    out = out.reshape(*((batch, steps) if batch_first else (steps, batch)), *data.shape[1:])
    sorted_lengths = [sum(1 for n in batch_sizes if n > b) for b in range(batch)]
    return out, F.tensor([sorted_lengths[unsorted[b]] for b in range(batch)], dtype=dt.int64)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Tensors of shape (L_i, *) -> one (max L, B, *) tensor (B first with batch_first)."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, F.Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    longest = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        fill = F.full((longest - s.shape[0], *s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
        rows.append(F.cat([s, fill] if padding_side == "right" else [fill, s]))
    return F.stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences.unbind(0), _lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    lengths = F.tensor([s.shape[0] for s in sequences], dtype=dt.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
