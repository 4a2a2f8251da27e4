"""torch.utils.data.sampler: the orders in which a DataLoader reads a map-style dataset.

Random samplers follow PyTorch's semantics (what is drawn, from which generator, how many at a
time); the numbers come from webtorch's own stream (see webtorch/_random.py)."""
import itertools
from typing import Generic, TypeVar

from ... import _dtypes as dt
from ... import _ops
from ... import _random

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
           "WeightedRandomSampler"]


T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):  # Sampler[int] as torch
    """Iterates over dataset keys (or lists of keys, for a batch sampler)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _check_positive(name, value):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


def _fresh_generator():
    """A Generator seeded from the default one, as PyTorch's RandomSampler makes when given none
    (so each epoch's order differs, and manual_seed makes the sequence of epochs reproducible)."""
    high, low = _random.default_generator.draw("bits", (2,), "cpu").tolist()
    return _random.Generator().manual_seed(((high & 0x7FFFFFFF) << 32) | (low & 0xFFFFFFFF))


class RandomSampler(Sampler):
    """A random permutation per len(data_source) samples (without replacement), or num_samples
    independent uniform draws (with replacement)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement, self._num_samples = data_source, replacement, num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else _fresh_generator()
        if self.replacement:
            for start in range(0, self.num_samples, 32):  # 32 at a time, like PyTorch
                size = min(32, self.num_samples - start)
                yield from _random.randint(n, (size,), generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _random.randperm(n, generator=generator).tolist()
            if self.num_samples % n:
                yield from _random.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in _random.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices into weights, each drawn with probability proportional to its weight."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        _check_positive("num_samples", num_samples)
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = _ops.as_tensor(weights, dtype=dt.float32)
        if weights.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights, self.num_samples, self.replacement, self.generator = weights, num_samples, replacement, generator

    def __iter__(self):
        yield from _random.multinomial(self.weights, self.num_samples, self.replacement,
                                       generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the keys of another sampler into lists of batch_size (the last one shorter, or dropped)."""

    def __init__(self, sampler, batch_size, drop_last):
        _check_positive("batch_size", batch_size)
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        keys = iter(self.sampler)
        while batch := list(itertools.islice(keys, self.batch_size)):
            if len(batch) < self.batch_size and self.drop_last:
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
