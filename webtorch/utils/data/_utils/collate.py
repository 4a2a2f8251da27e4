"""default_collate / default_convert: samples -> batches, with PyTorch's rules per type
(tensors are stacked, numbers become a tensor, mappings and sequences are collated per field,
tuples become lists, strings stay lists)."""
import collections.abc
import copy

from .... import _dtypes as dt
from .... import _ops

_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_numpy(x):
    return type(x).__module__ == "numpy" and type(x).__name__ not in ("str_", "string_", "bytes_")


def _numpy_is_text(x):
    return type(x).__name__ == "ndarray" and x.dtype.kind in "SaUO"


def _rebuild(like, values):
    """A container of like's type holding values (a list when the type cannot be rebuilt)."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(values)
            return clone
        if isinstance(like, collections.abc.Mapping):
            return type(like)(values)
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, v in enumerate(values):
                clone[i] = v
            return clone
        return type(like)(values)
    except TypeError:
        return dict(values) if isinstance(like, collections.abc.Mapping) else list(values)


def default_convert(data):
    """Converts numpy arrays and numbers inside a sample to tensors without adding a batch dim."""
    if isinstance(data, _ops.Tensor):
        return data
    if _is_numpy(data):
        return data if _numpy_is_text(data) else _ops.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {k: default_convert(data[k]) for k in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data])
    return data


def default_collate(batch):
    """A list of samples -> one batch: tensors stacked on a new dim 0, Python floats as float64
    (float32 where webtorch has no float64), ints as int64, bools as bool, dicts/sequences per field."""
    elem = batch[0]
    if isinstance(elem, _ops.Tensor):
        return _ops.stack(batch, 0)
    if _is_numpy(elem):
        if _numpy_is_text(elem):
            raise TypeError(_ERROR.format(elem.dtype))
        tensors = [_ops.as_tensor(b) for b in batch]
        return _ops.stack(tensors, 0) if type(elem).__name__ == "ndarray" else _ops.as_tensor(batch)
    if isinstance(elem, float):
        return _ops.tensor(batch, dtype=getattr(dt, "float64", dt.float32))
    if isinstance(elem, int):
        return _ops.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild(elem, {k: default_collate([d[k] for d in batch]) for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(e) != len(elem) for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(s) for s in zip(*batch)]
        return fields if isinstance(elem, tuple) else _rebuild(elem, fields)
    raise TypeError(_ERROR.format(type(elem)))
