"""The device shims modern scripts write (torch.cuda, torch.accelerator, torch.backends, default
device and dtype, grad-mode decorators, jit/compile, nn.parallel, distributed), against torch."""
import importlib

import pytest
import torch

import webtorch

# Queries that answer the same in torch's CPU build and in webtorch (no CUDA, no MPS).
SAME = ["cuda.is_available()", "cuda.device_count()", "cuda.is_initialized()", "cuda.is_bf16_supported()",
        "cuda.manual_seed(1)", "cuda.manual_seed_all(1)", "cuda.empty_cache()", "cuda.memory_allocated()",
        "cuda.max_memory_allocated()", "backends.cudnn.is_available()", "backends.cudnn.enabled",
        "backends.cudnn.benchmark", "backends.cudnn.deterministic", "backends.cudnn.allow_tf32",
        "backends.cudnn.version()", "backends.cuda.matmul.allow_tf32", "backends.cuda.is_built()",
        "backends.cuda.matmul.allow_fp16_reduced_precision_reduction", "backends.mps.is_available()",
        "backends.mps.is_built()", "distributed.is_initialized()", "jit.is_scripting()",
        "str(device('cuda'))", "repr(device('cuda', 1))", "str(device('cuda:0'))",
        "device('cuda') == device('cuda')", "device('mps').type", "get_default_device()", "get_default_dtype()",
        "zeros(2).is_cuda", "zeros(2).is_cpu", "zeros(2).is_mps", "zeros(2).is_xpu", "zeros(2).is_meta"]


def _eval(module, expr):
    value = eval(expr, vars(module))
    return repr(value).replace(module.__name__ + ".", "torch.") if isinstance(value, (module.device, module.dtype)) \
        else value


@pytest.mark.parametrize("expr", SAME)
def test_same_answer_as_torch(expr):
    assert _eval(webtorch, expr) == _eval(torch, expr)


# Calls torch's CPU build refuses: webtorch raises the same exception type.
REFUSED = ["zeros(2, device='cuda')", "zeros(2).to('cuda')", "zeros(2).cuda()", "zeros(2).to('mps')",
           "zeros(2, device='xpu')", "device('foo')", "cuda.synchronize()", "cuda.current_device()",
           "cuda.get_device_name()", "cuda.get_device_capability()", "distributed.get_rank()",
           "set_default_dtype(int32)", "tensor([1.0]).to(device('cuda', 0))"]


@pytest.mark.parametrize("expr", REFUSED)
def test_refused_like_torch(expr):
    with pytest.raises(Exception) as expected:
        eval(expr, vars(torch))
    with pytest.raises(type(expected.value)):
        eval(expr, vars(webtorch))


def test_accelerator_is_webgpu():
    assert webtorch.accelerator.is_available() is webtorch.webgpu.is_available() is True
    assert webtorch.accelerator.current_accelerator() == webtorch.device("webgpu")
    assert webtorch.accelerator.current_accelerator().type == "webgpu"
    assert webtorch.accelerator.device_count() == 1
    assert webtorch.accelerator.current_device_index() == 0
    webtorch.accelerator.synchronize()
    # the idiom of pytorch/examples: the accelerator if there is one, else cpu
    dev = webtorch.accelerator.current_accelerator() if webtorch.accelerator.is_available() else "cpu"
    assert (webtorch.ones(2, device=dev) * 2).device.type == "webgpu"


def test_default_device():
    assert webtorch.get_default_device() == webtorch.device("cpu")
    webtorch.set_default_device("webgpu")
    try:
        assert webtorch.get_default_device().type == "webgpu"
        for t in (webtorch.zeros(2), webtorch.tensor([1.0]), webtorch.arange(3), webtorch.randn(2),
                  webtorch.nn.Linear(2, 3).weight):
            assert t.device.type == "webgpu"
    finally:
        webtorch.set_default_device(None)
    assert webtorch.zeros(1).device.type == "cpu"
    with webtorch.device("webgpu"):
        assert webtorch.ones(2).device.type == "webgpu"
        with webtorch.device("cpu"):
            assert webtorch.ones(2).device.type == "cpu"
        assert webtorch.full((2,), 1.0).device.type == "webgpu"
    assert webtorch.ones(2).device.type == "cpu"
    with pytest.raises(AssertionError):
        webtorch.set_default_device("cuda")


def test_default_dtype():
    for T in (torch, webtorch):
        T.set_default_dtype(T.float16)
        try:
            assert (T.zeros(1).dtype, T.tensor([1.5]).dtype, T.arange(0.0, 1.0).dtype, (T.ones(1, dtype=T.int64) / 2).dtype,
                    T.get_default_dtype()) == (T.float16,) * 5
        finally:
            T.set_default_dtype(T.float32)
        assert T.zeros(1).dtype == T.float32


class _Model:
    def __init__(self, T):
        self.T = T

    def recurse(self, n):
        return self._recurse(n)

    def _modes(self):
        T = self.T

        @T.no_grad()
        def no_grad_call():
            return T.is_grad_enabled()

        @T.no_grad
        def bare():
            return T.is_grad_enabled()

        @T.enable_grad()
        def enabled():
            return T.is_grad_enabled()

        @T.inference_mode()
        def inference():
            return T.is_grad_enabled()

        @T.set_grad_enabled(False)
        def disabled():
            return T.is_grad_enabled()
        before = T.is_grad_enabled()
        with T.no_grad():
            inside = enabled()
        return no_grad_call(), bare(), inside, inference(), before, disabled(), T.is_grad_enabled()


class _Method:
    def __init__(self, T):
        self.T = T

    def generate(self, n):
        @self.T.no_grad()
        def step(k):  # the decorated function re-enters itself: each call restores its own mode
            return step(k - 1) if k else self.T.is_grad_enabled()
        return step(n), self.T.is_grad_enabled()


def test_grad_mode_decorators_match_torch():
    assert _Model(webtorch)._modes() == _Model(torch)._modes()
    assert _Method(webtorch).generate(3) == _Method(torch).generate(3) == (False, True)
    for T in (torch, webtorch):
        T.set_grad_enabled(False)  # a plain call sets the mode
        assert not T.is_grad_enabled()
        T.set_grad_enabled(True)
        with T.set_grad_enabled(False):
            assert not T.is_grad_enabled()
        assert T.is_grad_enabled()


def test_no_grad_decorates_methods():
    class Net(webtorch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = webtorch.nn.Linear(3, 2)

        @webtorch.no_grad()
        def generate(self, x):
            return self.lin(x)

    out = Net().generate(webtorch.ones(1, 3))
    assert not out.requires_grad and webtorch.is_grad_enabled()


def test_manual_seed_returns_a_generator():
    g = webtorch.manual_seed(7)
    assert isinstance(g, webtorch.Generator) and g.initial_seed() == 7
    first = webtorch.rand(3, generator=g).tolist()
    assert webtorch.manual_seed(7) is g and webtorch.rand(3).tolist() == first
    assert webtorch.initial_seed() == 7


def test_jit_passes_through():
    def f(x):
        return x * 2
    m = webtorch.nn.Linear(2, 2)
    assert webtorch.jit.script(f) is f and webtorch.jit.trace(f, (webtorch.ones(2),)) is f
    assert webtorch.jit.script(m) is m
    assert webtorch.jit.ignore(f) is f and webtorch.jit.unused(f) is f
    with pytest.raises(RuntimeError, match="TorchScript"):
        webtorch.jit.save(m, "m.pt")


def test_parallel_and_distributed():
    nn_parallel = importlib.import_module("webtorch.nn.parallel")
    from webtorch.nn.parallel import DistributedDataParallel as DDP  # noqa: F401  (importable, as scripts do)
    m = webtorch.nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match="distributed"):
        nn_parallel.DistributedDataParallel(m)
    x = webtorch.randn(4, 3)
    dp = webtorch.nn.DataParallel(m)
    assert dp(x).tolist() == m(x).tolist() and dp.module is m
    assert list(dp.state_dict()) == list(torch.nn.DataParallel(torch.nn.Linear(3, 2)).state_dict())
    assert webtorch.distributed.is_available() is False
    with pytest.raises(RuntimeError, match="not available"):
        webtorch.distributed.init_process_group("gloo")
    import webtorch.backends.cudnn as cudnn
    cudnn.benchmark = True  # scripts set it; it changes nothing
    cudnn.benchmark = False
