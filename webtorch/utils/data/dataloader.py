"""torch.utils.data.dataloader: DataLoader with PyTorch's argument rules and iteration order.

Everything runs in the calling process (Pyodide has no processes). num_workers > 0 is accepted and
simulated in-process with PyTorch's observable behaviour: `num_workers` workers, each with its own
get_worker_info() and worker_init_fn call (and, for an IterableDataset, its own iterator of the
dataset), taking batches in turn like PyTorch's in-order loader."""
import contextlib

from ... import _ops
from ... import _random
from ._utils.collate import default_collate, default_convert
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]


class WorkerInfo:
    def __init__(self, id, num_workers, seed, dataset):
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, dataset={self.dataset})"


_worker_info = None


def get_worker_info():
    """The WorkerInfo of the simulated worker now fetching, or None outside workers (num_workers=0)."""
    return _worker_info


@contextlib.contextmanager
def _as_worker(info):
    global _worker_info
    previous, _worker_info = _worker_info, info
    try:
        yield
    finally:
        _worker_info = previous


class _InfiniteConstantSampler(Sampler):
    """The keys of an IterableDataset: None, forever (the dataset decides when to stop)."""

    def __iter__(self):
        while True:
            yield None


class _Fetcher:
    """Reads one batch (auto-collation) or one sample for a key from the index sampler."""

    def __init__(self, loader, info):
        self.loader, self.info, self.ended, self._samples = loader, info, False, None

    def fetch(self, key):
        with _as_worker(self.info):
            return self._fetch(key)

    def _fetch(self, key):
        loader, dataset = self.loader, self.loader.dataset
        if isinstance(dataset, IterableDataset):
            if self.ended:
                raise StopIteration
            if self._samples is None:
                self._samples = iter(dataset)
            if not loader._auto_collation:
                return loader.collate_fn(next(self._samples))
            data = []
            for _ in key:
                try:
                    data.append(next(self._samples))
                except StopIteration:
                    self.ended = True
                    break
            if not data or (loader.drop_last and len(data) < len(key)):
                raise StopIteration
            return loader.collate_fn(data)
        if not loader._auto_collation:
            return loader.collate_fn(dataset[key])
        if type(dataset) is TensorDataset and loader.collate_fn is default_collate:
            # what default_collate would build, as one gather per tensor instead of a stack of rows
            index = _ops.tensor(key)
            return [t[index.to(t.device)] for t in dataset.tensors]
        if callable(getattr(dataset, "__getitems__", None)):
            return loader.collate_fn(dataset.__getitems__(key))
        return loader.collate_fn([dataset[i] for i in key])


class _DataLoaderIter:
    def __init__(self, loader):
        self._loader, self._keys = loader, iter(loader._index_sampler)
        if loader.num_workers == 0:
            self._fetchers = [_Fetcher(loader, None)]
        else:
            base_seed = int(_random.randint(2 ** 24, (1,), generator=loader.generator)[0].item())
            self._fetchers = [_Fetcher(loader, WorkerInfo(i, loader.num_workers, base_seed + i, loader.dataset))
                              for i in range(loader.num_workers)]
            if loader.worker_init_fn is not None:
                for i, fetcher in enumerate(self._fetchers):
                    with _as_worker(fetcher.info):
                        loader.worker_init_fn(i)
        self._turn = 0

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        while self._fetchers:
            key = next(self._keys)  # StopIteration here ends the epoch
            fetcher = self._fetchers[self._turn % len(self._fetchers)]
            try:
                batch = fetcher.fetch(key)
            except StopIteration:  # this worker's share of an IterableDataset is exhausted
                self._fetchers.remove(fetcher)
                continue
            self._turn += 1
            return batch
        raise StopIteration


class DataLoader:
    """Combines a dataset and a sampler and iterates over batches, with PyTorch's arguments."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError("multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
                             f"but got num_workers={num_workers}")
        if isinstance(dataset, IterableDataset):
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if isinstance(dataset, IterableDataset):
                sampler = _InfiniteConstantSampler()
            else:
                sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.num_workers, self.prefetch_factor = dataset, num_workers, prefetch_factor
        self.pin_memory, self.pin_memory_device, self.timeout = pin_memory, pin_memory_device, timeout
        self.worker_init_fn, self.multiprocessing_context, self.in_order = worker_init_fn, multiprocessing_context, \
            in_order
        self.batch_size, self.drop_last, self.sampler, self.batch_sampler = batch_size, drop_last, sampler, \
            batch_sampler
        self.generator, self.persistent_workers = generator, persistent_workers
        self.collate_fn = collate_fn if collate_fn is not None else \
            default_collate if batch_sampler is not None else default_convert
        self._initialized = True

    def __setattr__(self, name, value):
        if self.__dict__.get("_initialized") and name in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                                          "dataset", "persistent_workers"):
            raise ValueError(f"{name} attribute should not be set after {type(self).__name__} is initialized")
        object.__setattr__(self, name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        return _DataLoaderIter(self)

    def __len__(self):
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self._index_sampler)
