"""torch.utils.data: TensorDataset and DataLoader (batching, shuffling, collation)."""
import random as _pyrandom

from .. import _ops as F


class Dataset:
    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class TensorDataset(Dataset):
    def __init__(self, *tensors):
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


def default_collate(batch):
    first = batch[0]
    if isinstance(first, F.Tensor):
        return F.stack(batch)
    if isinstance(first, (int, float, bool)):
        return F.tensor(batch)
    if isinstance(first, dict):
        return {k: default_collate([b[k] for b in batch]) for k in first}
    if isinstance(first, (tuple, list)):
        return type(first)(default_collate(list(items)) for items in zip(*batch)) if isinstance(first, tuple) \
            else [default_collate(list(items)) for items in zip(*batch)]
    return batch


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, generator=None, **kwargs):
        self.dataset, self.batch_size, self.shuffle, self.drop_last = dataset, batch_size, shuffle, drop_last
        self.collate_fn = collate_fn or default_collate
        self.generator = generator

    def _order(self):
        order = list(range(len(self.dataset)))
        if self.shuffle:
            seed = self.generator.initial_seed() if hasattr(self.generator, "initial_seed") else None
            rng = _pyrandom.Random(seed) if seed is not None else _pyrandom
            rng.shuffle(order)
        return order

    def __iter__(self):
        order = self._order()
        for start in range(0, len(order), self.batch_size):
            chunk = order[start:start + self.batch_size]
            if len(chunk) < self.batch_size and self.drop_last:
                return
            if isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate:
                yield _tensor_batch(self.dataset, chunk)
            else:
                yield self.collate_fn([self.dataset[i] for i in chunk])

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


def _tensor_batch(dataset, indices):
    """A batch of a TensorDataset as one gather per tensor instead of one slice per sample."""
    if indices == list(range(indices[0], indices[0] + len(indices))):
        return [t[indices[0]:indices[0] + len(indices)] for t in dataset.tensors]
    return [F.stack([t[i] for i in indices]) for t in dataset.tensors]
