"""The import-time surface libraries touch under `import torch` (docs/compatibility.md "import torch": real or as
torch's CPU build answers), against real torch where both answer."""
import math
import pickle

import numpy as np
import pytest
import torch

import webtorch


def W(t, device="cpu"):
    return webtorch.tensor(t.tolist(), dtype=getattr(webtorch, str(t.dtype).split(".")[1]), device=device)


def test_nn_modules_paths_match_torch_files():
    """Every name webtorch.nn.modules.<file> lists is in torch.nn.modules.<file> too."""
    from webtorch.nn import modules
    for file in modules.FILES:
        theirs = __import__(f"torch.nn.modules.{file}", fromlist=["_"])
        ours = getattr(modules, file)
        for name in ours.__all__:
            assert hasattr(theirs, name), f"torch.nn.modules.{file} has no {name}"
            assert getattr(ours, name) is getattr(webtorch.nn, name)
    assert modules.utils._pair(3) == torch.nn.modules.utils._pair(3) == (3, 3)
    assert modules.utils._reverse_repeat_tuple((1, 2), 2) == torch.nn.modules.utils._reverse_repeat_tuple((1, 2), 2)
    from webtorch.nn.modules.batchnorm import _BatchNorm
    assert isinstance(webtorch.nn.BatchNorm2d(3), _BatchNorm)
    from webtorch.nn.parameter import Parameter
    assert Parameter is webtorch.nn.Parameter


def test_version_and_constants():
    assert webtorch.version.__version__ == "2.13.0" and webtorch.version.cuda is None
    assert webtorch.version.__version__ >= "2.1.0" and webtorch.version.__version__ > (2, 12)
    assert not webtorch.version.__version__ < "2.13"
    assert (webtorch.inf, webtorch.pi, webtorch.e) == (torch.inf, torch.pi, torch.e) and math.isnan(webtorch.nan)
    assert webtorch.is_complex(webtorch.ones(2)) is torch.is_complex(torch.ones(2)) is False
    assert webtorch.complex64.is_complex and not webtorch.complex64.is_floating_point
    for name in ("float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"):
        ours, theirs = webtorch.finfo(getattr(webtorch, name)), torch.finfo(getattr(torch, name))
        for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
            assert getattr(ours, field) == getattr(theirs, field), (name, field)
        assert getattr(webtorch, name).itemsize == getattr(torch, name).itemsize
        with pytest.raises(NotImplementedError, match=name):
            webtorch.zeros(2, dtype=getattr(webtorch, name))
    for name in ("float8_e5m2", "uint16", "uint32", "uint64"):  # tensor() raised KeyError for these
        with pytest.raises(NotImplementedError, match=name):
            webtorch.tensor([1, 2], dtype=getattr(webtorch, name))


def test_jit_fx_dynamo_compiler_answers():
    from webtorch.fx._symbolic_trace import is_fx_tracing
    assert webtorch.jit.Final is __import__("typing").Final and not webtorch.jit.is_scripting()
    assert not webtorch.jit.is_tracing() and webtorch.jit.annotations.BroadcastingList2[int]
    assert webtorch.fx.wrap("f") == "f" and not is_fx_tracing()
    assert not isinstance(webtorch.ones(1), webtorch.fx.Proxy)
    with pytest.raises(NotImplementedError, match="FX"):
        webtorch.fx.symbolic_trace(webtorch.nn.Linear(2, 2))
    f = lambda x: x  # noqa: E731
    assert webtorch._dynamo.disable(f) is f and webtorch.compiler.disable(recursive=False)(f) is f
    assert webtorch.compiler.allow_in_graph(f) is f and not webtorch.compiler.is_compiling()
    assert not webtorch._dynamo.is_compiling() and not webtorch.onnx.is_in_onnx_export()
    with pytest.raises(NotImplementedError):
        webtorch.onnx.export(None, None, "x.onnx")


def test_pytree_as_torch():
    import collections
    import torch.utils._pytree as tp
    from webtorch.utils import _pytree as wp
    Point = collections.namedtuple("Point", "x y")
    tree = {"a": [1, (2, 3)], "b": collections.OrderedDict(c=4, d=Point(5, [6])), "e": None}
    leaves, spec = wp.tree_flatten(tree)
    assert leaves == tp.tree_flatten(tree)[0]
    assert wp.tree_unflatten([v * 10 if v else v for v in leaves], spec) == \
        tp.tree_unflatten([v * 10 if v else v for v in leaves], tp.tree_flatten(tree)[1])
    assert wp.tree_map(lambda v: v, tree) == tree and spec.num_leaves == len(leaves)
    assert wp.tree_map_only(int, str, [1, 2.5]) == tp.tree_map_only(int, str, [1, 2.5])

    class Box:
        def __init__(self, v):
            self.v = v
    wp.register_pytree_node(Box, lambda b: ([b.v], None), lambda vs, _: Box(vs[0]))
    assert wp.tree_leaves([Box(7), 8]) == [7, 8]
    with pytest.raises(ValueError):
        wp.tree_unflatten([1], spec)


def test_library_custom_op_and_autograd():
    lib = webtorch.library.Library("surface_test", "DEF")
    lib.define("scale(Tensor x, float s) -> Tensor")
    lib.impl("scale", lambda x, s: x * s, "CPU")
    x = webtorch.tensor([1.0, 2.0])
    assert webtorch.ops.surface_test.scale(x, 3.0).tolist() == [3.0, 6.0]
    assert webtorch.ops.surface_test.scale.default(x, 2.0).tolist() == [2.0, 4.0]
    with pytest.raises(NotImplementedError, match="webgpu"):
        webtorch.ops.surface_test.scale(x.to("webgpu"), 2.0)

    @webtorch.library.custom_op("surface_test::cube", mutates_args=())
    def cube(x: webtorch.Tensor) -> webtorch.Tensor:
        return x * x * x

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * 5.0 * x * x  # deliberately not 3x^2: the registered formula must be the one that runs
    cube.register_autograd(backward, setup_context=setup_context)
    y = webtorch.tensor([1.0, 2.0], requires_grad=True)
    out = webtorch.ops.surface_test.cube(y)
    out.sum().backward()
    assert out.tolist() == [1.0, 8.0] and y.grad.tolist() == [5.0, 20.0]
    assert webtorch.ops.aten.add is webtorch.add
    with pytest.raises(OSError):
        webtorch.ops.load_library("/nonexistent.so")

    @webtorch.library.register_fake("surface_test::cube")
    def _(x):
        return webtorch.empty_like(x)


@pytest.mark.parametrize("shape,groups", [((6, 4, 3, 3), 2), ((4, 4, 3), 1), ((2, 3, 3, 5, 5), 1)])
def test_init_dirac(shape, groups):
    expected = torch.nn.init.dirac_(torch.empty(shape), groups)
    assert webtorch.nn.init.dirac_(webtorch.empty(shape), groups).tolist() == expected.tolist()


def test_init_sparse_zeroes_a_fraction_per_column():
    t = webtorch.nn.init.sparse_(webtorch.empty(10, 6), 0.3, std=0.5)
    zeros = (np.array(t.tolist()) == 0).sum(0)
    assert zeros.tolist() == [3] * 6
    with pytest.raises(ValueError):
        webtorch.nn.init.sparse_(webtorch.empty(2, 2, 2), 0.1)


def test_distributed_sampler_as_torch():
    from torch.utils.data.distributed import DistributedSampler as Theirs
    from webtorch.utils.data.distributed import DistributedSampler as Ours
    data = list(range(11))
    for kwargs in (dict(num_replicas=3, rank=1, shuffle=False), dict(num_replicas=4, rank=3, shuffle=False,
                                                                     drop_last=True)):
        assert list(Ours(data, **kwargs)) == list(Theirs(data, **kwargs)) and len(Ours(data, **kwargs)) == \
            len(Theirs(data, **kwargs))
    shuffled = [list(Ours(data, num_replicas=2, rank=r, seed=3)) for r in (0, 1)]
    assert len(shuffled[0]) == len(shuffled[1]) == 6 and set(shuffled[0] + shuffled[1]) == set(data)
    assert shuffled[0] == list(Ours(data, num_replicas=2, rank=0, seed=3))  # seed + epoch decide the order
    with pytest.raises(RuntimeError, match="distributed"):
        Ours(data)


def test_generic_dataset_hub_and_cuda_names():
    from webtorch.utils.data import Dataset, IterableDataset, Sampler
    assert Dataset[int] is not None and IterableDataset[dict] is not None and Sampler[int] is not None

    class Squares(Dataset[int]):
        def __getitem__(self, i):
            return i * i
    assert Squares()[3] == 9
    assert webtorch.hub._get_torch_home() == torch.hub._get_torch_home()
    with pytest.raises(NotImplementedError):
        webtorch.hub.load("pytorch/vision", "resnet18")
    for name in ("CUDAGraph", "Event"):
        with pytest.raises(RuntimeError, match="dummy base class"):
            getattr(webtorch.cuda, name)()
    with webtorch.cuda.stream(None):
        pass


def test_autograd_graph_and_quantization_stubs():
    x = webtorch.tensor([1.0, 2.0], requires_grad=True)
    with webtorch.autograd.graph.save_on_cpu():
        y = (x * x).sum()
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0]
    with pytest.raises(NotImplementedError):
        with webtorch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass
    stub = webtorch.ao.quantization.QuantStub()
    assert stub(x) is x and isinstance(stub, webtorch.nn.Module)
    with pytest.raises(NotImplementedError):
        webtorch.ao.quantization.quantize_dynamic(stub)


def test_distribution_constraints_as_torch():
    from torch.distributions import constraints as tc
    from webtorch.distributions import constraints as wc
    values = torch.tensor([[-1.0, 0.0, 0.5], [1.0, 2.0, float("nan")]])
    for name in ("real", "positive", "nonnegative", "unit_interval", "boolean", "nonnegative_integer"):
        assert getattr(wc, name).check(W(values)).tolist() == getattr(tc, name).check(values).tolist(), name
    assert wc.interval(0, 1).check(W(values)).tolist() == tc.interval(0, 1).check(values).tolist()
    assert wc.real_vector.check(W(values)).tolist() == tc.real_vector.check(values).tolist()
    probs = torch.tensor([[0.25, 0.75], [0.5, 0.6]])
    assert wc.simplex.check(W(probs)).tolist() == tc.simplex.check(probs).tolist()
    assert wc.is_dependent(wc.dependent) and wc.real_vector.event_dim == 1


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("kv_heads", [1, 2])
def test_sdpa_enable_gqa(device, kv_heads):
    """enable_gqa repeats each key/value head over its group of query heads (it was ignored)."""
    g = torch.Generator().manual_seed(kv_heads)
    q, k, v = (torch.randn(2, h, 5, 8, generator=g) for h in (4, kv_heads, kv_heads))
    expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    got = webtorch.nn.functional.scaled_dot_product_attention(W(q, device), W(k, device), W(v, device),
                                                              is_causal=True, enable_gqa=True)
    np.testing.assert_allclose(np.array(got.tolist()), expected.numpy(), atol=1e-6, rtol=1e-5)
    with pytest.raises(RuntimeError, match="divide"):
        webtorch.nn.functional.scaled_dot_product_attention(W(q), W(k[:, :1].repeat(1, 3, 1, 1)), W(v[:, :1]),
                                                            enable_gqa=True)


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_flex_attention_dense_as_torch(device):
    from torch.nn.attention import flex_attention as tf
    from webtorch.nn.attention import flex_attention as wf
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 2, 16, 8, generator=g) for _ in range(3))

    def causal(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx

    def window(b, h, q_idx, kv_idx):
        return q_idx - kv_idx < 4

    def bias(score, b, h, q_idx, kv_idx):
        return score + (q_idx - kv_idx) * 0.1 + h
    expected = tf.flex_attention(q, k, v, score_mod=bias,
                                 block_mask=tf.create_block_mask(tf.and_masks(causal, window), None, None, 16, 16,
                                                                 device="cpu"))
    got = wf.flex_attention(W(q, device), W(k, device), W(v, device), score_mod=bias,
                            block_mask=wf.create_block_mask(wf.and_masks(causal, window), None, None, 16, 16,
                                                            device=device))
    np.testing.assert_allclose(np.array(got.tolist()), expected.numpy(), atol=1e-6, rtol=1e-5)
    assert wf.create_mask(causal, 1, 1, 4, 4).tolist() == tf.create_mask(causal, 1, 1, 4, 4, device="cpu").tolist()
    with webtorch.nn.attention.sdpa_kernel(webtorch.nn.attention.SDPBackend.MATH):
        pass


def test_pickled_dtype_without_alias():
    assert pickle.loads(pickle.dumps(webtorch.float16)) is webtorch.float16 and str(webtorch.float16) == \
        "webtorch.float16"


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_view_dtype_as_torch(device):
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4) - 5.5
    ours = W(x, device)
    wide = ("int64", "float64") if device == "cpu" else ()  # 32 bits on the GPU (docs/limits.md)
    for target in ("int32", "uint8", "float16", "bfloat16", "int16") + wide:
        expected = x.view(getattr(torch, target))
        got = ours.view(getattr(webtorch, target))
        assert tuple(got.shape) == tuple(expected.shape) and got.dtype is getattr(webtorch, target)
        assert got.cpu().tolist() == expected.tolist()  # NaN-free bit patterns: exact
    assert ours[:, :2].view(dtype=webtorch.int16).tolist() == x[:, :2].view(dtype=torch.int16).tolist()
    with pytest.raises(RuntimeError, match="stride"):
        ours.t().view(webtorch.uint8)
    with pytest.raises(RuntimeError, match="dim"):
        ours[0, 0].view(webtorch.uint8)


def test_view_dtype_shares_cpu_memory_and_data_ptr_reads_bytes():
    import ctypes
    x = webtorch.arange(8.0)
    bits = x.view(webtorch.int32)
    bits[0] = 1065353216  # 1.0f's bits: written through the view, as torch
    assert x[0].item() == 1.0
    assert x[2:].data_ptr() - x.data_ptr() == 8 and x.untyped_storage().data_ptr() == x[3:].untyped_storage().data_ptr()
    assert list((ctypes.c_float * 3).from_address(x[1:].data_ptr())) == [1.0, 2.0, 3.0]
    assert x.untyped_storage().nbytes() == 32 and x.nbytes == 32 and x.itemsize == 4 and x.layout == webtorch.strided
    g, h = webtorch.ones(4, device="webgpu"), webtorch.ones(4, device="webgpu")  # GPU storages: distinct ranges
    assert g.untyped_storage() != h.untyped_storage() and abs(g.data_ptr() - h.data_ptr()) >= 16
    assert g[1:].data_ptr() - g.data_ptr() == 4
    with pytest.raises(NotImplementedError, match="float16"):
        webtorch.ones(2, dtype=webtorch.float16).data_ptr()  # held as float32: no float16 bytes to point at


def test_untyped_storage_from_file_and_asarray(tmp_path):
    path = tmp_path / "bytes.bin"
    path.write_bytes(np.arange(6, dtype=np.float32).tobytes())
    ours, theirs = webtorch.UntypedStorage.from_file(str(path), False, 24), torch.UntypedStorage.from_file(
        str(path), False, 24)
    assert ours.nbytes() == theirs.nbytes() == 24
    a = webtorch.asarray(ours[4:16], dtype=webtorch.uint8).view(dtype=webtorch.float32)
    b = torch.asarray(theirs[4:16], dtype=torch.uint8).view(dtype=torch.float32)
    assert a.tolist() == b.tolist() == [1.0, 2.0, 3.0]
    t = webtorch.ones(3)
    assert webtorch.asarray(t) is t and webtorch.asarray(t, copy=True) is not t
    assert webtorch.asarray([1, 2], dtype=webtorch.float32).tolist() == [1.0, 2.0]


def test_module_buffer_lookups_cuda_and_memory_format():
    for T in (torch, webtorch):
        class M(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = T.nn.Linear(2, 2)
                self.a = T.nn.Buffer(T.ones(2), persistent=False)
                self.b = T.nn.Buffer(T.zeros(1))
        m = M()
        assert list(m.state_dict()) == ["b", "lin.weight", "lin.bias"] and m._non_persistent_buffers_set == {"a"}
        assert m.get_parameter("lin.weight") is m.lin.weight and m.get_buffer("a") is m.a
        with pytest.raises(AttributeError, match="not an nn.Parameter"):
            m.get_parameter("a")
        with pytest.raises(AttributeError, match="not a buffer"):
            m.get_buffer("lin.bias")
        with pytest.raises(AssertionError, match="not compiled with CUDA"):
            m.cuda()
        assert T.nn.ReLU().cuda() is not None
        x = T.ones(2, 3, 4, 5)
        assert x.clone(memory_format=T.contiguous_format).is_contiguous()
        assert not x.is_contiguous(memory_format=T.channels_last)
        assert x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2).is_contiguous(memory_format=T.channels_last)
    y = webtorch.ones(1, 2, 2, 2).clone(memory_format=webtorch.channels_last)
    assert y.is_contiguous(memory_format=webtorch.channels_last) and y.stride() == (8, 1, 4, 2)


def test_fuse_conv_bn_eval_as_torch():
    from torch.nn.utils.fusion import fuse_conv_bn_eval as theirs
    from webtorch.nn.utils.fusion import fuse_conv_bn_eval as ours
    g = torch.Generator().manual_seed(0)
    conv, bn = torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4)
    bn.running_mean.uniform_(generator=g)
    bn.running_var.uniform_(0.5, 2, generator=g)
    bn.weight.data.uniform_(generator=g)
    wconv, wbn = webtorch.nn.Conv2d(3, 4, 3), webtorch.nn.BatchNorm2d(4)
    wconv.load_state_dict({k: W(v) for k, v in conv.state_dict().items()})
    wbn.load_state_dict({k: W(v) for k, v in bn.state_dict().items()})
    expected, got = theirs(conv.eval(), bn.eval()), ours(wconv.eval(), wbn.eval())
    np.testing.assert_allclose(np.array(got.weight.tolist()), expected.weight.detach().numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.array(got.bias.tolist()), expected.bias.detach().numpy(), rtol=1e-6, atol=1e-7)
    assert isinstance(got.weight, webtorch.nn.Parameter) and got is not wconv
    with pytest.raises(AssertionError, match="eval"):
        ours(wconv.train(), wbn)
    with webtorch._C.DisableTorchFunctionSubclass():
        pass
