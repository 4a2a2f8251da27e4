"""webtorch/_forms.py: torch's other spellings of implemented ops give torch's values, dtypes, shapes and
identity (an in-place form returns its input), on webgpu and cpu."""
import inspect

import numpy as np
import pytest
import torch

import webtorch
from webtorch import _forms

from compare import assert_close, to_plain

DEVICES = ["webgpu", "cpu"]
X = np.array([[-1.7, 0.3, 2.5], [0.9, -0.2, 4.0]], dtype=np.float32)
POSITIVE = np.abs(X) + 0.5
UNIT = np.clip(X / 5, -0.9, 0.9)


def _input(fn_name):
    if fn_name.startswith(("log", "sqrt", "rsqrt", "acosh", "arccosh")):
        return POSITIVE + (1.0 if "acosh" in fn_name else 0.0)
    if fn_name.startswith(("asin", "acos", "atanh", "arcsin", "arccos", "arctanh")):
        return UNIT
    return X


INPLACE_ARGS = {"clamp_": (-1.0, 1.0), "clip_": (-1.0, 1.0), "clamp_max_": (0.5,), "clamp_min_": (0.5,),
                "fill_": (2.5,)}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", _forms.INPLACE_FUNCTIONS.split())
def test_inplace_function_form(name, device):
    data, args = _input(name), INPLACE_ARGS.get(name, ())
    expected_input = torch.tensor(data)
    expected = getattr(torch, name)(expected_input, *args)
    x = webtorch.tensor(data, device=device)
    got = getattr(webtorch, name)(x, *args)
    assert got is x and expected is expected_input
    assert_close(to_plain(got), to_plain(expected), name=name)


def _functional_case(name, T):
    x4 = T.tensor(np.linspace(-2, 2, 2 * 4 * 4 * 4, dtype=np.float32).reshape(2, 4, 4, 4))
    x3 = x4[:, :, 0]
    w = T.tensor(np.linspace(-1, 1, 3 * 4 * 3, dtype=np.float32).reshape(3, 4, 3))
    cases = {
        "conv1d": lambda: T.conv1d(x3, w, None, 1, 1),
        "conv2d": lambda: T.conv2d(x4, w.reshape(3, 4, 3, 1), None, 1, (1, 0)),
        "conv_transpose1d": lambda: T.conv_transpose1d(x3, w.reshape(4, 3, 3), None, 2, 1),
        "conv_transpose2d": lambda: T.conv_transpose2d(x4, w.reshape(4, 3, 3, 1), None, 2),
        "layer_norm": lambda: T.layer_norm(x4, [4], None, None, 1e-5),
        "group_norm": lambda: T.group_norm(x4, 2),
        "rms_norm": lambda: T.rms_norm(x4, [4, 4]),
        "pixel_shuffle": lambda: T.pixel_shuffle(x4, 2),
        "pixel_unshuffle": lambda: T.pixel_unshuffle(x4, 2),
        "cosine_similarity": lambda: T.cosine_similarity(x3, x3.flip(2), 1),
        "pairwise_distance": lambda: T.pairwise_distance(x3[0], x3[1]),
        "bilinear": lambda: T.bilinear(x3[0], x3[1], x4[0, :2] / 4, None),
        "prelu": lambda: T.prelu(x4, T.tensor([0.25])),
        "selu": lambda: T.selu(x4),
        "celu": lambda: T.celu(x4, 0.5),
        "threshold": lambda: T.threshold(x4, 0.1, -3.0),
        "selu_": lambda: T.selu_(x4.clone()),
        "celu_": lambda: T.celu_(x4.clone(), 0.5),
        "threshold_": lambda: T.threshold_(x4.clone(), 0.1, -3.0),
        "max_pool1d": lambda: T.max_pool1d(x3, 2),
        "max_pool2d": lambda: T.max_pool2d(x4, 2, 1),
        "avg_pool1d": lambda: T.avg_pool1d(x3, 2),
        "adaptive_avg_pool1d": lambda: T.adaptive_avg_pool1d(x3, 3),
        "channel_shuffle": lambda: T.channel_shuffle(x4, 2),
        "alpha_dropout": lambda: T.alpha_dropout(x4, 0.5, False),
        "hardshrink": lambda: T.hardshrink(x4, 0.3) + x4.hardshrink(),
    }
    return cases[name]()


@pytest.mark.parametrize("name", _forms.FUNCTIONAL_FORMS.split())
def test_functional_form_is_torchs(name):
    assert_close(to_plain(_functional_case(name, webtorch)), to_plain(_functional_case(name, torch)), name=name,
                 atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(_forms.TENSOR_ALIASES))
def test_tensor_alias(name, device):
    if name.endswith("_"):
        args = (0.3,) if name.rstrip("_") in ("greater", "greater_equal", "less", "less_equal", "not_equal") else ()
        data = UNIT if name.startswith("arcsinh") else (POSITIVE + 1 if name.startswith("arccosh") else UNIT)
        ex, got = torch.tensor(data), webtorch.tensor(data, device=device)
        r_ex, r_got = getattr(ex, name)(*args), getattr(got, name)(*args)
        assert r_got is got and r_ex is ex
    else:
        r_ex, r_got = getattr(torch.tensor(X), name)(), getattr(webtorch.tensor(X, device=device), name)()
    assert_close(to_plain(r_got), to_plain(r_ex), name=name)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "int32", "uint8", "bool", "float64"])
def test_constant_properties_and_sizes(dtype):
    ex, got = torch.zeros(3, 5, dtype=getattr(torch, dtype)), webtorch.zeros(3, 5, dtype=getattr(webtorch, dtype))
    for name in _forms.ALWAYS_FALSE.split():
        assert getattr(got, name) is getattr(ex, name) is False, name
    for name in ("is_complex", "is_conj", "is_neg"):
        assert getattr(got, name)() is getattr(ex, name)() is False
    assert (got.itemsize, got.nbytes) == (ex.itemsize, ex.nbytes)
    assert got.resolve_conj() is got and got.conj() is got and ex.conj() is ex


@pytest.mark.parametrize("device", DEVICES)
def test_ravel_of_a_view(device):
    t = torch.arange(12.0).reshape(3, 4).t()
    w = webtorch.arange(12.0, device=device).reshape(3, 4).t()
    assert_close(to_plain(w.ravel()), to_plain(t.ravel()))
    assert_close(to_plain(webtorch.ravel(w)), to_plain(torch.ravel(t)))
    # one implementation under each spelling (each with its own name in torch's TypeError: absolute(), abs())
    assert inspect.unwrap(webtorch.absolute) is inspect.unwrap(webtorch.abs)
    assert inspect.unwrap(webtorch.fix) is inspect.unwrap(webtorch.trunc)


FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("shape,perm", [((2, 3, 4, 5), (0, 1, 2, 3)), ((2, 3, 4, 5), (0, 2, 3, 1)),
                                        ((2, 3, 4, 5, 2), (0, 1, 2, 3, 4)), ((2, 3, 4), (0, 1, 2))])
def test_memory_formats_like_torch(shape, perm, fmt, device):
    """contiguous / is_contiguous / to with a memory format: torch's strides, values, errors (a view of a
    permuted tensor stands in for every stride pattern torch can be asked to convert)."""
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    results = []
    for T, kw in ((torch, {}), (webtorch, {"device": device})):
        x = T.tensor(data.transpose(np.argsort(perm)).copy(), **kw).permute(*perm)
        f = getattr(T, fmt)
        out = []
        calls = [lambda: x.is_contiguous(memory_format=f), lambda: x.contiguous(memory_format=f),
                 lambda: x.to(memory_format=f)]
        if fmt != "preserve_format":  # a cast keeping a permuted input's strides: webtorch's casts are contiguous
            calls.append(lambda: x.to(T.int32, memory_format=f))
        for call in calls:
            try:
                r = call()
                out.append(r if isinstance(r, bool) else (r.stride(), to_plain(r), r is x))
            except RuntimeError as e:
                out.append(("RuntimeError", str(e)))
        results.append(out)
    assert results[0] == results[1]
    assert repr(getattr(webtorch, fmt)) == repr(getattr(torch, fmt))
    assert webtorch.zeros(1).layout is webtorch.strided and repr(webtorch.strided) == "torch.strided"


def _aliases_taken(fn):
    return bool(getattr(fn, "keyword_aliases", None))


def test_axis_and_keepdims_taken_where_torch_takes_them():
    """torch's C++ functions and methods take axis= for dim= and keepdims= for keepdim=; those it defines in
    Python (torch.norm, Tensor.split, ...) do not: webtorch's take them exactly where torch's do."""
    import inspect
    wrong = []
    for prefix, theirs, ours in (("", torch, webtorch), ("Tensor.", torch.Tensor, webtorch.Tensor)):
        for name in dir(ours):
            fn = inspect.getattr_static(ours, name, None)
            if name.startswith("_") or not inspect.isfunction(fn) or not hasattr(theirs, name):
                continue
            params = inspect.signature(fn).parameters
            if "dim" not in params and "keepdim" not in params:
                continue
            torch_takes = not inspect.isfunction(getattr(theirs, name))
            if torch_takes != _aliases_taken(fn):
                wrong.append(prefix + name)
    assert not wrong


KEYWORD_CALLS = {
    "sum-axis-keepdims": lambda T, x: T.sum(x, axis=0, keepdims=True),
    "mean-method-axis": lambda T, x: x.mean(axis=1),
    "max-axis": lambda T, x: T.max(x, axis=1).values,
    "cat-axis": lambda T, x: T.cat([x, x], axis=1),
    "softmax-axis": lambda T, x: T.softmax(x, axis=1),
    "std-axis-keepdim": lambda T, x: x.std(axis=0, keepdim=True),
    "cumsum-axis": lambda T, x: x.cumsum(axis=1),
    "argmax-axis-keepdims": lambda T, x: x.argmax(axis=1, keepdims=True),
    "split-method-split_size": lambda T, x: T.stack(x.split(split_size=1)),
    "zeros-layout-pin": lambda T, x: T.zeros(2, 3, layout=T.strided, pin_memory=False, device=x.device),
    "empty-channels-last": lambda T, x: T.zeros(1, 2, 3, 2).new_tensor(
        T.empty(1, 2, 3, 2, memory_format=T.channels_last).stride()),
    "rand_like-layout": lambda T, x: T.rand_like(x, layout=T.strided, memory_format=T.contiguous_format) * 0,
    "tensor-pin": lambda T, x: T.tensor([1.0, 2.0], pin_memory=False),
    "new_ones-layout": lambda T, x: x.new_ones(2, layout=T.strided),
    "norm-axis-refused": lambda T, x: T.norm(x, axis=0),
    "sum-axis-and-dim": lambda T, x: T.sum(x, 0, axis=0),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(KEYWORD_CALLS))
def test_keyword_spellings_like_torch(name, device):
    def run(T, dev):
        try:
            return to_plain(KEYWORD_CALLS[name](T, T.tensor(X, device=dev)))
        except TypeError:
            return "TypeError"
    want, got = run(torch, "cpu"), run(webtorch, device)
    if isinstance(want, str):
        assert got == want
    else:
        assert_close(got, want, name=name)


def test_factory_keywords_refuse_what_webtorch_lacks():
    with pytest.raises(NotImplementedError, match="pinned"):
        webtorch.zeros(2, pin_memory=True)
    with pytest.raises(NotImplementedError, match="sparse"):
        webtorch.ones(2, layout=webtorch.sparse_coo)


# torch.X_copy's arguments on a (3, 4) input: (name, args)
COPY_CASES = [("alias_copy", ()), ("as_strided_copy", ((2, 2), (1, 2), 1)), ("detach_copy", ()), ("diagonal_copy", (1,)),
              ("expand_copy", ((2, 3, 4),)), ("narrow_copy", (1, 1, 2)), ("permute_copy", ((1, 0),)),
              ("select_copy", (-1, 2)), ("slice_copy", (-1, 1, None, 2)),
              ("split_with_sizes_copy", ([1, 3], 1)), ("squeeze_copy", ()), ("t_copy", ()), ("transpose_copy", (0, 1)),
              ("unbind_copy", (1,)), ("unfold_copy", (1, 2, 1)), ("unsqueeze_copy", (0,)), ("view_copy", ((4, 3),))]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name,args", COPY_CASES, ids=[c[0] for c in COPY_CASES])
def test_copy_forms_are_contiguous_copies_of_the_view(name, args, device):
    """torch.X_copy: the view X's values as a new contiguous tensor (torch's strides), not sharing the input's
    memory, gradients flowing as through the view (detach_copy: none)."""
    data = np.arange(12, dtype=np.float32).reshape(3, 4) / 4 - 1
    expected_input = torch.tensor(data, requires_grad=True)
    x = webtorch.tensor(data, device=device, requires_grad=True)
    expected, got = getattr(torch, name)(expected_input, *args), getattr(webtorch, name)(x, *args)
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert tuple(g.shape) == tuple(e.shape) and g.stride() == e.stride()
        assert_close(to_plain(g), to_plain(e.detach()), name=name)
    if name == "detach_copy":
        assert not got[0].requires_grad
        return
    weights = [np.linspace(1, 2, e.numel(), dtype=np.float32).reshape(e.shape) for e in expected]
    sum(((e * torch.tensor(w)).sum() for e, w in zip(expected, weights)), torch.zeros(())).backward()
    sum(((g * webtorch.tensor(w, device=device)).sum() for g, w in zip(got, weights)),
        webtorch.zeros((), device=device)).backward()
    assert_close(to_plain(x.grad), to_plain(expected_input.grad), name=name)
    with webtorch.no_grad():
        got[0].view(-1)[0] = 100.0  # a copy: the input keeps its values
    assert x.detach().tolist() == data.tolist()
