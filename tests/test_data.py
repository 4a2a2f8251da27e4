"""torch.utils.data against PyTorch: the same loaders built in torch and webtorch give the same
batches (deterministic orders) or batches with the same properties (random orders)."""
import collections
import warnings

import pytest
import torch

import webtorch


def plain(x):
    """A comparable form: tensors as (dtype name, values); containers keep their type's name."""
    if isinstance(x, (torch.Tensor, webtorch.Tensor)):
        dtype = str(x.dtype).split(".")[-1]
        if dtype == "float64" and not hasattr(webtorch, "float64"):  # default_collate's Python floats
            dtype = "float32"
        return ("tensor", dtype, tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return (type(x).__name__, {k: plain(v) for k, v in x.items()})
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [plain(v) for v in x])
    return x


def both(build):
    return [plain(list(build(T))) for T in (torch, webtorch)]


class Squares:  # a map-style dataset that is not a Dataset subclass
    def __len__(self):
        return 7

    def __getitem__(self, i):
        return {"x": i * 1.5, "y": i * i, "name": f"s{i}", "pair": (i, [i, -i])}


def squares(T):
    return Squares()


def tensors(T):
    return T.utils.data.TensorDataset(T.arange(12.0).reshape(6, 2), T.arange(6) * 10)


Point = collections.namedtuple("Point", "x y")

LOADERS = {
    "sequential": lambda T: T.utils.data.DataLoader(tensors(T), batch_size=4),
    "sampler-list": lambda T: T.utils.data.DataLoader(T.utils.data.TensorDataset(T.arange(4)), batch_size=4,
                                                      sampler=[3, 2, 1, 0]),
    "sampler-drop-last": lambda T: T.utils.data.DataLoader(tensors(T), batch_size=2, sampler=[5, 0, 3, 1, 4],
                                                           drop_last=True),
    "batch-sampler": lambda T: T.utils.data.DataLoader(tensors(T), batch_sampler=[[4, 1], [0], [5, 5, 2]]),
    "batch-sampler-class": lambda T: T.utils.data.DataLoader(squares(T), batch_sampler=T.utils.data.BatchSampler(
        T.utils.data.SequentialSampler(range(7)), 3, drop_last=False)),
    "no-autobatch": lambda T: T.utils.data.DataLoader(tensors(T), batch_size=None, sampler=[2, 0]),
    "collate-dicts": lambda T: T.utils.data.DataLoader(squares(T), batch_size=3),
    "collate-fn": lambda T: T.utils.data.DataLoader(squares(T), batch_size=3,
                                                    collate_fn=lambda b: [s["name"] for s in b]),
    "namedtuple": lambda T: T.utils.data.DataLoader([Point(T.tensor([i, 2.0]), i % 2 == 0) for i in range(5)],
                                                    batch_size=2),
    "workers-map": lambda T: T.utils.data.DataLoader(tensors(T), batch_size=2, num_workers=2),
    "concat-subset": lambda T: T.utils.data.DataLoader(
        T.utils.data.ConcatDataset([T.utils.data.Subset(tensors(T), [5, 1]), tensors(T)]) + tensors(T),
        batch_size=5, sampler=[0, 1, 2, -1, 13, 7]),
    "stack": lambda T: T.utils.data.DataLoader(T.utils.data.StackDataset(a=tensors(T), b=T.utils.data.Subset(squares(T), range(6))), batch_size=2,
                                               sampler=[1, 3, 5]),
}


@pytest.mark.parametrize("name", list(LOADERS))
def test_loader_batches_match_torch(name):
    ref, mine = both(LOADERS[name])
    assert mine == ref
    assert len(LOADERS[name](webtorch)) == len(LOADERS[name](torch))


class Stream(object):
    """An IterableDataset that shards itself over workers through get_worker_info."""

    @staticmethod
    def build(T, n):
        class S(T.utils.data.IterableDataset):
            def __iter__(self):
                info = T.utils.data.get_worker_info()
                start, step = (0, 1) if info is None else (info.id, info.num_workers)
                return iter([T.tensor([float(v)]) for v in range(start, n, step)])

            def __len__(self):
                return n
        return S()


@pytest.mark.parametrize("kwargs", [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None),
                                    dict(batch_size=2, num_workers=2), dict(batch_size=4, num_workers=2,
                                                                            drop_last=True)],
                         ids=["batched", "drop-last", "unbatched", "workers", "workers-drop-last"])
def test_iterable_dataset_matches_torch(kwargs):
    ref, mine = both(lambda T: T.utils.data.DataLoader(Stream.build(T, 11), **kwargs))
    assert mine == ref
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert len(webtorch.utils.data.DataLoader(Stream.build(webtorch, 11), **kwargs)) == \
            len(torch.utils.data.DataLoader(Stream.build(torch, 11), **kwargs))
    chained = both(lambda T: T.utils.data.DataLoader(Stream.build(T, 3) + Stream.build(T, 2), batch_size=2))
    assert chained[1] == chained[0]


def test_worker_init_fn_and_worker_info():
    seen = []

    def init(worker_id):
        info = webtorch.utils.data.get_worker_info()
        seen.append((worker_id, info.id, info.num_workers))
    list(webtorch.utils.data.DataLoader(tensors(webtorch), batch_size=2, num_workers=2, worker_init_fn=init))
    assert seen == [(0, 0, 2), (1, 1, 2)]
    assert webtorch.utils.data.get_worker_info() is None


def test_default_collate_matches_torch():
    samples = [[(1, 2.5, True, "a", {"k": [3, 4]})], [(5, -1.0, False, "b", {"k": [6, 7]})]]
    for batch in samples:
        ref, mine = (plain(T.utils.data.default_collate(batch)) for T in (torch, webtorch))
        assert mine == ref
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        webtorch.utils.data.default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="batch must contain tensors"):
        webtorch.utils.data.default_collate([object()])
    assert plain(webtorch.utils.data.default_convert((1, [2.0]))) == plain(torch.utils.data.default_convert((1, [2.0])))


ERRORS = [
    (lambda T: T.utils.data.DataLoader(tensors(T), sampler=[0], shuffle=True), "mutually exclusive with shuffle"),
    (lambda T: T.utils.data.DataLoader(tensors(T), batch_sampler=[[0]], batch_size=2), "batch_sampler option"),
    (lambda T: T.utils.data.DataLoader(tensors(T), batch_size=None, drop_last=True), "disables auto-batching"),
    (lambda T: T.utils.data.DataLoader(tensors(T), num_workers=-1), "num_workers option should be non-negative"),
    (lambda T: T.utils.data.DataLoader(tensors(T), persistent_workers=True), "needs num_workers > 0"),
    (lambda T: T.utils.data.DataLoader(tensors(T), prefetch_factor=2), "prefetch_factor option could only"),
    (lambda T: T.utils.data.DataLoader(Stream.build(T, 3), shuffle=True), "expected unspecified shuffle"),
    (lambda T: T.utils.data.DataLoader(Stream.build(T, 3), sampler=[0]), "expected unspecified sampler"),
    (lambda T: T.utils.data.BatchSampler([0], 0, False), "batch_size should be a positive integer"),
    (lambda T: T.utils.data.BatchSampler([0], 2, 1), "drop_last should be a boolean"),
    (lambda T: T.utils.data.RandomSampler(range(3), num_samples=0), "num_samples should be a positive"),
    (lambda T: T.utils.data.WeightedRandomSampler([[1.0]], 1), "weights should be a 1d sequence"),
    (lambda T: T.utils.data.WeightedRandomSampler([1.0], 2, replacement=1), "replacement should be a boolean"),
    (lambda T: T.utils.data.random_split(range(5), [2, 2]), "Sum of input lengths does not equal"),
    (lambda T: T.utils.data.random_split(range(5), [0.5, 1.5]), "Sum of input lengths"),
    (lambda T: setattr(T.utils.data.DataLoader(tensors(T)), "batch_size", 3), "attribute should not be set"),
]


@pytest.mark.parametrize("build,message", ERRORS, ids=[m for _, m in ERRORS])
def test_argument_errors_match_torch(build, message):
    for T in (torch, webtorch):
        with pytest.raises(ValueError, match=message):
            build(T)
    with pytest.raises(TypeError, match="replacement should be a boolean"):
        webtorch.utils.data.RandomSampler(range(3), replacement=1)


def test_random_sampler_properties():
    data = range(10)
    g = webtorch.Generator().manual_seed(1)
    sampler = webtorch.utils.data.RandomSampler(data, generator=g)
    epochs = [list(sampler) for _ in range(3)]
    assert all(sorted(e) == list(data) for e in epochs) and epochs[0] != epochs[1]
    again = webtorch.utils.data.RandomSampler(data, generator=webtorch.Generator().manual_seed(1))
    assert [list(again) for _ in range(3)] == epochs  # a seeded generator reproduces every epoch
    webtorch.manual_seed(5)
    unseeded = [list(webtorch.utils.data.RandomSampler(data)) for _ in range(2)]
    webtorch.manual_seed(5)
    assert [list(webtorch.utils.data.RandomSampler(data)) for _ in range(2)] == unseeded  # global seed governs
    assert unseeded[0] != unseeded[1]
    # without replacement past len: whole permutations, then the head of one more (as torch)
    long = list(webtorch.utils.data.RandomSampler(data, num_samples=25, generator=g))
    assert len(long) == 25 and sorted(long[:10]) == sorted(long[10:20]) == list(data) and len(set(long[20:])) == 5
    drawn = list(webtorch.utils.data.RandomSampler(range(3), replacement=True, num_samples=70, generator=g))
    assert len(drawn) == 70 and set(drawn) == {0, 1, 2}
    assert len(webtorch.utils.data.RandomSampler(range(3), replacement=True, num_samples=70)) == 70
    shuffled = webtorch.utils.data.DataLoader(tensors(webtorch), batch_size=4, shuffle=True,
                                              generator=webtorch.Generator().manual_seed(3))
    rows = [v for _, y in shuffled for v in y.tolist()]
    assert sorted(rows) == [0, 10, 20, 30, 40, 50]
    assert [v for _, y in webtorch.utils.data.DataLoader(tensors(webtorch), batch_size=4, shuffle=True,
            generator=webtorch.Generator().manual_seed(3)) for v in y.tolist()] == rows


def test_subset_and_weighted_samplers():
    g = webtorch.Generator().manual_seed(0)
    picked = list(webtorch.utils.data.SubsetRandomSampler([7, 3, 9, 1], generator=g))
    assert sorted(picked) == [1, 3, 7, 9]
    weights = [0.0, 1.0, 3.0, 0.0]
    draws = list(webtorch.utils.data.WeightedRandomSampler(weights, 4000, generator=g))
    assert set(draws) == {1, 2} and 0.7 < draws.count(2) / 4000 < 0.8  # 3/4 expected (sd 0.007)
    unique = list(webtorch.utils.data.WeightedRandomSampler([1.0, 2, 0, 4], 3, replacement=False, generator=g))
    assert sorted(unique) == [0, 1, 3]


def test_random_split_like_torch():
    for lengths in ([3, 7], [0.3, 0.3, 0.4], [0.5, 0.5]):
        ours = webtorch.utils.data.random_split(range(10), lengths, generator=webtorch.Generator().manual_seed(0))
        ref = torch.utils.data.random_split(range(10), lengths, generator=torch.Generator().manual_seed(0))
        assert [len(s) for s in ours] == [len(s) for s in ref]
        assert sorted(i for s in ours for i in s) == list(range(10))
        assert all(isinstance(s, webtorch.utils.data.Subset) for s in ours)
    from webtorch.utils.data.dataloader import DataLoader, default_collate  # noqa: F401  (torch's module names)
    from webtorch.utils.data.dataset import Dataset  # noqa: F401
    from webtorch.utils.data.sampler import Sampler  # noqa: F401
