"""Names the API census (docs/census.md) found used and missing, closed: each probe runs the same code on
torch 2.13 and webtorch and gets the same answer (values, types' names, exceptions); the refused ones raise
NotImplementedError naming the gap."""
import argparse
import io
import os
import warnings

import pytest
import torch

import webtorch


def _dt(dtype):
    return str(dtype).rpartition(".")[2]


def _square_function(T):
    class Square(T.autograd.function.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @T.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x
    x = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
    Square.apply(x).sum().backward()
    return x.grad.tolist()


def _custom_fwd_bwd(T):
    class Scale(T.autograd.Function):
        @staticmethod
        @T.amp.custom_fwd(device_type="cpu", cast_inputs=T.float32)
        def forward(ctx, x):
            return x * 3, x.dtype

        @staticmethod
        @T.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g, _):
            return g * 3
    x = T.ones(2, dtype=T.bfloat16)
    with T.autocast("cpu", dtype=T.bfloat16):
        out, seen = Scale.apply(x)
    return _dt(seen), _dt(out.dtype), out.float().tolist()


def _swap(T):
    a, b = T.tensor([1.0, 2.0]), T.tensor([[3.0]], dtype=T.float64)
    a.note = "a"
    T.utils.swap_tensors(a, b)
    return a.tolist(), _dt(a.dtype), b.tolist(), b.note, hasattr(a, "note")


def _functional_call(T):
    T.manual_seed(0)
    model = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.BatchNorm1d(2))
    x = T.tensor([[1.0, 2.0], [3.0, -1.0]])
    weights = {"0.weight": T.tensor([[1.0, 0.0], [0.0, 2.0]]), "0.bias": T.tensor([0.5, -0.5])}
    out = T.func.functional_call(model, weights, (x,))
    return [round(v, 3) for v in out.flatten().tolist()], model[0].weight.shape == (2, 2), \
        model[1].running_mean.tolist() != [0.0, 0.0]


def func_grad(T):
    x = T.tensor([1.0, 2.0])
    g, v = T.func.grad_and_value(lambda t: (t ** 3).sum())(x)
    g2, aux = T.func.grad(lambda t, s: ((t * s).sum(), t + 1), argnums=(0, 1), has_aux=True)(x, T.tensor(2.0))
    return g.tolist(), v.item(), [t.tolist() for t in g2], aux.tolist()


def _jacobian(T):
    x = T.tensor([1.0, 2.0, 3.0])
    single = T.autograd.functional.jacobian(lambda t: t ** 2 + t.sum(), x)
    pair = T.autograd.functional.jacobian(lambda a, b: (a * b, a.sum()), (x, x + 1))
    return single.tolist(), [[j.tolist() for j in row] for row in pair]


def _futures(T):
    fut = T.futures.Future()
    chained = fut.then(lambda f: f.value() * 2)
    seen = []
    fut.add_done_callback(lambda f: seen.append(f.value()))
    done_before = fut.done()
    fut.set_result(21)
    both = T.futures.collect_all([fut, chained])
    return done_before, chained.wait(), seen, [f.value() for f in both.wait()], T.futures.wait_all([fut, chained])


def _safe_globals(T):
    buf = io.BytesIO()
    torch.save({"args": argparse.Namespace(lr=0.5), "w": torch.ones(2)}, buf)
    out = []
    for step in ("refused", "scoped", "unsafe"):
        buf.seek(0)
        if step == "unsafe":
            out.append(T.serialization.get_unsafe_globals_in_checkpoint(buf))
            continue
        try:
            if step == "scoped":
                with T.serialization.safe_globals([argparse.Namespace]):
                    out.append(vars(T.load(buf)["args"]))
            else:
                T.load(buf)
        except Exception as e:  # noqa: BLE001 - compared
            out.append(type(e).__name__)
    return out


def _profiler_schedule(T):
    steps = T.profiler.schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1, skip_first_wait=1)
    return [steps(i).name for i in range(10)]


def _checkpoint_helpers(T):
    x = T.ones(2, requires_grad=True)
    detached = T.utils.checkpoint.detach_variable((x, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        T.utils.checkpoint.check_backward_validity([T.ones(1), 2])
    return detached[0] is not x, detached[0].requires_grad, detached[1], [str(w.message) for w in caught]


def _flags_and_names(T):
    with T.backends.cudnn.flags(enabled=False, deterministic=True):
        inside = (T.backends.cudnn.enabled, T.backends.cudnn.deterministic)
    return (inside, T.backends.cudnn.deterministic, T.backends.cuda.SDPBackend.MATH.value,
            T.backends.cuda.SDPBackend is T.nn.attention.SDPBackend, T.backends.opt_einsum.enabled,
            T.backends.cusparselt.is_available(), T.legacy_contiguous_format is T.contiguous_format,
            issubclass(T.jit.TracerWarning, Warning), T.jit.Attribute(3, int).value,
            isinstance(T.nn.Linear(1, 1), T.jit.TracedModule),
            T.overrides.has_torch_function((T.ones(1),)), T.nn.functional.has_torch_function_unary(T.ones(1)),
            T.autograd.Variable(T.ones(2), requires_grad=True).requires_grad,
            isinstance(T.ones(1), T.autograd.Variable), T.autograd.variable.Variable is T.autograd.Variable,
            T.utils.hooks.RemovableHandle is not None, T.profiler.profiler.profile is T.profiler.profile,
            T.autograd.profiler.record_function is not None)


def _cpu_autocast(T):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with T.cpu.amp.autocast():
            return _dt(T.mm(T.ones(2, 2), T.ones(2, 2)).dtype), T.is_autocast_enabled("cpu")


def _module_paths_and_helpers(T):
    """The census' last gaps that webtorch implements: names under torch's module paths and small helpers."""
    import importlib
    importlib.import_module(T.__name__ + ".onnx.operators")  # (torch does not import it with torch.onnx)
    x = T.arange(6.0).reshape(2, 3)
    d = T.distributions
    return (d.normal.Normal is d.Normal, d.categorical.Categorical is d.Categorical, d.uniform.Uniform is d.Uniform,
            T.amp.autocast_mode.is_autocast_available("cpu"), T.amp.autocast_mode.autocast is T.amp.autocast,
            T.ops.aten.lift_fresh(x) is x, T.onnx.operators.shape_as_tensor(x).tolist(),
            _dt(T.onnx.operators.shape_as_tensor(x).dtype),
            T.onnx.operators.reshape_from_tensor_shape(x, T.tensor([3, 2])).tolist(),
            issubclass(T.fx.proxy.TraceError, ValueError), T.storage.UntypedStorage is T.UntypedStorage)


PROBES = {name[1:]: fn for name, fn in list(globals().items()) if name.startswith("_") and callable(fn)
          and fn.__module__ == __name__}


def _outcome(fn, T):
    try:
        return fn(T)
    except Exception as e:  # noqa: BLE001 - compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize("name", list(PROBES))
def test_closed_name_as_torch(name):
    assert _outcome(PROBES[name], webtorch) == _outcome(PROBES[name], torch)


def test_func_grad_and_value():  # torch.func's first import takes seconds: compared with the derivatives
    assert func_grad(webtorch) == ([3.0, 12.0], 9.0, [[2.0, 2.0], 3.0], [2.0, 3.0])


def test_cudagraph_step_mark_is_a_no_op():
    assert webtorch.compiler.cudagraph_mark_step_begin() is None  # torch's loads its inductor: not compared


def test_tensorboard_trace_handler_writes_a_chrome_trace(tmp_path):
    with webtorch.profiler.profile(activities=[webtorch.profiler.ProfilerActivity.CPU],
                                   on_trace_ready=webtorch.profiler.tensorboard_trace_handler(str(tmp_path), "w")):
        webtorch.ones(2) + 1
    (written,) = os.listdir(tmp_path)
    assert written.startswith("w.") and written.endswith(".pt.trace.json")


@pytest.mark.parametrize("path", ["func.vmap", "func.jvp", "overrides.TorchFunctionMode",
                                  "serialization.skip_data", "accelerator.current_stream", "nested.nested_tensor",
                                  "svd_lowrank", "distributions.Beta", "distributions.Gamma",
                                  "quasirandom.SobolEngine", "utils.dlpack.to_dlpack", "fx.map_arg",
                                  "utils.data.datapipes.iter.IterableWrapper", "storage.TypedStorage",
                                  "ao.quantization.qconfig.default_dynamic_qconfig", "library.wrap_triton",
                                  "ops.aten.gelu_backward", "onnx.symbolic_helper.scalar_type_to_onnx"])
def test_refused_names_raise_naming_the_gap(path):
    obj = webtorch
    for part in path.split("."):
        obj = getattr(obj, part)
    with pytest.raises(NotImplementedError, match=f"webtorch has no torch.{path} "):
        obj()
