"""nn layers' factory kwargs (device=, dtype=) against torch 2.13: every torch.nn module whose constructor takes
them is walked (a new one cannot be missed), and each builds every parameter and buffer with torch's dtype,
device, shape, requires_grad and constant initial values (ones, zeros, a zero padding row); BatchNorm's
num_batches_tracked stays int64; an integer dtype raises where torch's raises (a Parameter cannot require grad)."""
import inspect

import pytest
import torch

import webtorch

# name -> (positional args, keyword args): small sizes, each optional parameter/buffer switched on somewhere.
CASES = {
    "Linear": ((3, 4), {}),
    "Bilinear": ((2, 3, 4), {}),
    "Conv1d": ((2, 4, 3), {}),
    "Conv2d": ((2, 4, (3, 2)), {"groups": 2}),
    "Conv3d": ((2, 3, 2), {"bias": False}),
    "ConvTranspose1d": ((2, 4, 3), {}),
    "ConvTranspose2d": ((4, 2, 3), {"groups": 2}),
    "ConvTranspose3d": ((2, 3, 2), {}),
    "Embedding": ((5, 3), {"padding_idx": 1}),
    "EmbeddingBag": ((5, 3), {"padding_idx": 2}),
    "LayerNorm": (((2, 3),), {}),
    "RMSNorm": ((3,), {}),
    "GroupNorm": ((2, 4), {}),
    "BatchNorm1d": ((3,), {}),
    "BatchNorm2d": ((3,), {"affine": False}),
    "BatchNorm3d": ((3,), {"track_running_stats": False}),
    "SyncBatchNorm": ((3,), {"momentum": 0.2}),
    "AdaptiveLogSoftmaxWithLoss": ((8, 10, [3, 6]), {"head_bias": True, "div_value": 2.0}),
    "InstanceNorm1d": ((3,), {}),
    "InstanceNorm2d": ((3,), {"affine": True, "track_running_stats": True}),
    "InstanceNorm3d": ((3,), {"affine": True}),
    "PReLU": ((3,), {}),
    "MultiheadAttention": ((4, 2), {"add_bias_kv": True, "kdim": 3, "vdim": 5}),
    "TransformerEncoderLayer": ((4, 2, 6), {}),
    "TransformerDecoderLayer": ((4, 2, 6), {"norm_first": True}),
    "Transformer": ((4, 2, 1, 1, 6), {}),
    "RNNBase": (("GRU", 2, 3), {}),
    "RNN": ((2, 3, 2), {"nonlinearity": "relu"}),
    "LSTM": ((2, 4), {"proj_size": 2, "bidirectional": True}),
    "GRU": ((2, 3), {"bias": False}),
    "RNNCellBase": ((2, 3, True, 2), {}),
    "RNNCell": ((2, 3), {}),
    "LSTMCell": ((2, 3), {}),
    "GRUCell": ((2, 3), {}),
}
# torch modules taking factory kwargs that webtorch refuses as a whole (NotImplementedError naming the gap).
REFUSED = {"LinearCrossEntropyLoss"}
# Lazy modules: their parameters take the factory kwargs when the first call materializes them
LAZY = {"LazyLinear": ((3,), (2, 4)),
        **{f"Lazy{kind}{d}d": ((4, 1) if kind.startswith("Conv") else (), (2, 4) + (3,) * d)
           for kind in ("Conv", "ConvTranspose", "BatchNorm", "InstanceNorm") for d in (1, 2, 3)}}


def _takes_factory_kwargs(cls):
    """Whether cls's constructor (its own or one it forwards *args/**kwargs to) takes device= and dtype=."""
    inits = [vars(k)["__init__"] for k in cls.__mro__ if "__init__" in vars(k) and k is not object]
    return any({"device", "dtype"} <= set(inspect.signature(f).parameters) for f in inits)


def test_walk_finds_every_torch_module_taking_factory_kwargs():
    found = {name for name, obj in vars(torch.nn).items()
             if isinstance(obj, type) and issubclass(obj, torch.nn.Module) and _takes_factory_kwargs(obj)}
    assert found == set(CASES) | REFUSED | set(LAZY)


@pytest.mark.parametrize("name", sorted(LAZY))
def test_lazy_modules_materialize_with_the_factory_kwargs(name):
    args, shape = LAZY[name]
    dtypes = set()
    for T in (torch, webtorch):
        module = getattr(T.nn, name)(*args, dtype=T.float64, device="cpu")
        module(T.ones(*shape, dtype=T.float64))
        dtypes.add(tuple((k, _dtype_name(v)) for k, v in module.state_dict().items()))
    assert len(dtypes) == 1


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_modules_name_the_gap(name):
    with pytest.raises(NotImplementedError):
        getattr(webtorch.nn, name)(3, dtype=webtorch.float16)


def _state(module):
    """name -> (tensor, is a parameter) for every parameter and buffer."""
    params = dict(module.named_parameters())
    return {name: (t, name in params) for name, t in module.state_dict(keep_vars=True).items()}


def _dtype_name(t):
    return str(t.dtype).split(".")[1]  # torch.float16 / webtorch.float16 -> float16


def _constant_rows(t):
    """Indices of t's rows (over dim 0; the whole tensor when 0-d or 1-d) whose elements are all equal: the
    deterministic part of an initialisation (ones, zeros, a padding row)."""
    rows = t.reshape(1, -1) if t.dim() <= 1 else t.reshape(t.shape[0], -1)
    return [i for i, row in enumerate(rows) if (row.numel() > 1 or t.dim() == 0) and (row == row[0]).all()], rows


def _build(T, name, device, dtype):
    args, kwargs = CASES[name]
    return getattr(T.nn, name)(*args, **kwargs, device=device, dtype=getattr(T, dtype))


# WebGPU has no float64: webgpu stores it as float32 with a warning (docs/limits.md).
@pytest.mark.parametrize("device, dtype", [(device, dtype) for device in ("cpu", "meta", "webgpu")
                                           for dtype in ("float16", "bfloat16", "float64")
                                           if (device, dtype) != ("webgpu", "float64")])
@pytest.mark.parametrize("name", sorted(CASES))
def test_parameters_and_buffers_follow_factory_kwargs(name, dtype, device):
    torch.manual_seed(0)
    expected = _state(_build(torch, name, "cpu", dtype))  # torch's first meta padding_idx fill costs it ~9 s
    got = _state(_build(webtorch, name, device, dtype))
    assert list(got) == list(expected)
    for key, (t, is_param) in expected.items():
        w, w_is_param = got[key]
        assert (_dtype_name(w), w.device.type, tuple(w.shape), w_is_param, w.requires_grad) == \
            (_dtype_name(t), device, tuple(t.shape), is_param, t.requires_grad), key
        if device == "meta":
            continue
        rows, t_rows = _constant_rows(t.detach())
        w_rows = torch.from_numpy(w.detach().cpu().float().numpy()).reshape(t_rows.shape)
        for i in rows:
            assert torch.equal(w_rows[i], t_rows[i].float()), (key, i)


@pytest.mark.parametrize("name", sorted(CASES))
def test_integer_dtype_raises_where_torch_raises(name):
    try:
        expected = _state(_build(torch, name, "cpu", "int64"))
    except Exception as e:  # noqa: BLE001 - the exception type is what is compared
        with pytest.raises(type(e)):
            _build(webtorch, name, "cpu", "int64")
        return
    got = _state(_build(webtorch, name, "cpu", "int64"))
    assert {k: _dtype_name(t) for k, (t, _) in got.items()} == \
        {k: _dtype_name(t) for k, (t, _) in expected.items()}
