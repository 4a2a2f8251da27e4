"""webtorch.compile: replay equals eager and torch, guards record again, graph breaks run eagerly."""
import pytest
import torch

import training_cases as tc
import webtorch
from webtorch._compile import GraphBreakError


def _w(t, device="webgpu"):
    return webtorch.tensor(t.tolist(), dtype=getattr(webtorch, str(t.dtype).split(".")[1]), device=device)


def _close(got, want, tol=1e-5):
    assert torch.allclose(torch.tensor(got.tolist()), want, atol=tol, rtol=tol), (got.tolist(), want)


@pytest.mark.parametrize("name", list(tc.MODELS))
@pytest.mark.parametrize("mode", ["train", "eval"])
def test_replay_matches_torch_for_the_training_parity_models(name, mode):
    build, shape = tc.MODELS[name]
    torch.manual_seed(0)
    expected_model = build(torch)
    model = build(webtorch).to("webgpu")
    model.load_state_dict({k: _w(v, "cpu") for k, v in expected_model.state_dict().items()})
    getattr(expected_model, mode)()
    getattr(model, mode)()
    compiled = webtorch.compile(model)
    g = torch.Generator().manual_seed(1)
    with torch.no_grad(), webtorch.no_grad():
        for _ in range(3):
            x = torch.randn(4, *shape, generator=g)
            _close(compiled(_w(x)), expected_model(x))
    assert compiled._compiled_call.stats == {"captures": 1, "replays": 2, "eager": 0}
    for k, v in expected_model.state_dict().items():  # BatchNorm's new running statistics, set by each replay
        _close(model.state_dict()[k].float(), v.float())


def test_replay_rebinds_inputs_and_returns_new_tensors():
    w = webtorch.tensor([[1.0, 2.0], [3.0, -1.0]], device="webgpu")

    @webtorch.compile
    def f(x, y, scale):
        h = (x @ w).relu() * scale + y
        return {"h": h, "parts": (h.sum(1), x.t()), "n": 2}

    outs = []
    for i in range(3):
        x = torch.randn(3, 2, generator=torch.Generator().manual_seed(i))
        y = torch.full((3, 2), float(i))
        out = f(_w(x), _w(y), 0.5)
        h = (x @ torch.tensor([[1.0, 2.0], [3.0, -1.0]])).relu() * 0.5 + y
        _close(out["h"], h)
        _close(out["parts"][0], h.sum(1))
        _close(out["parts"][1], x.t())
        assert out["n"] == 2 and isinstance(out["parts"], tuple)
        outs.append(out)
    assert f.stats == {"captures": 1, "replays": 2, "eager": 0}
    assert outs[0]["h"]._storage is not outs[1]["h"]._storage  # each call's results are its own
    _close(outs[0]["parts"][1], torch.randn(3, 2, generator=torch.Generator().manual_seed(0)).t())


@pytest.mark.parametrize("gpu_scheme", [False, True])
def test_split_reductions_kept_from_eager_calls_replay(gpu_scheme, monkeypatch):
    """A sum long enough to split into partials (on every adapter) runs eagerly first, so its launches are
    kept and later recorded from that plan: each partial stays alive until the launch reading it. With GPUs'
    scheme the partials fold in the same launch through the runtime's own scratch buffer, which a recording
    binds by name."""
    from webtorch.backend import gpu
    if gpu_scheme:
        monkeypatch.setattr(gpu, "_on_cpu_adapter", lambda runtime: False)
    x = torch.randn(3, 40000, generator=torch.Generator().manual_seed(0))
    wx = _w(x)
    wx.sum(), wx.sum(1)  # the plans of both
    f = webtorch.compile(lambda t: (t.sum(), t.sum(1), t.mean(0)), fullgraph=True)
    for _ in range(3):
        total, rows, cols = f(wx)
        _close(total, x.sum(), 1e-2)
        _close(rows, x.sum(1), 1e-3)
        _close(cols, x.mean(0))
    assert f.stats == {"captures": 1, "replays": 2, "eager": 0}


def test_guards_record_again():
    model = webtorch.nn.Sequential(webtorch.nn.Linear(4, 3), webtorch.nn.Dropout(0.5)).to("webgpu")
    compiled = webtorch.compile(model, mode="reduce-overhead", dynamic=False, fullgraph=False, backend="inductor")
    calls = compiled._compiled_call
    model.eval()
    with webtorch.no_grad():
        compiled(webtorch.ones(2, 4, device="webgpu"))
        compiled(webtorch.ones(2, 4, device="webgpu"))
        assert calls.stats["captures"] == 1
        compiled(webtorch.ones(5, 4, device="webgpu"))  # new shape
        compiled(webtorch.ones(4, 2, device="webgpu").t())  # new strides
        assert calls.stats["captures"] == 3
        with pytest.raises(RuntimeError):
            compiled(webtorch.ones(2, 4, dtype=webtorch.int64, device="webgpu"))  # new dtype: eager's error
        model[1].p = 0.0  # a plain attribute
        compiled(webtorch.ones(2, 4, device="webgpu"))
        model[0].weight = webtorch.nn.Parameter(webtorch.zeros(3, 4, device="webgpu"))  # a new parameter
        out = compiled(webtorch.ones(2, 4, device="webgpu"))
        assert out.tolist() == [model[0].bias.tolist()] * 2
        assert calls.stats["captures"] == 6 and calls.stats["replays"] == 1
    out = compiled(webtorch.ones(2, 4, device="webgpu"))  # grad mode on, parameters require grad: eager
    assert out.grad_fn is not None and "requires grad" in calls.graph_breaks[-1]
    out.sum().backward()
    assert model[0].weight.grad.tolist() == [[2.0] * 4] * 3


def test_fast_guard_replays_without_walking_the_modules_and_sees_every_change(monkeypatch):
    """A compiled module's replays after the first skip the full guard (the walk over its modules) while
    nothing changed; each change below (an attribute, a buffer put in the dict directly, a parameter's
    data, requires_grad, a buffer's strides or shape changed in place, the training flag) makes the next
    call walk them and still gives eager's result, and the replays after it are fast again; so does an
    int buffer written by a kernel (an index whose range is unknown now: that call runs eagerly) or an
    argument sharing a buffer's storage."""
    from webtorch import _compile

    class Scaled(webtorch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = webtorch.nn.Linear(2, 2)
            self.register_buffer("shift", webtorch.ones(2))
            self.register_buffer("order", webtorch.tensor([1, 0]))
            self.scale = 2.0

        def forward(self, x):
            out = self.lin(x)[:, self.order] * self.scale + self.shift
            return out if self.training else out - 1

    model = Scaled().to("webgpu").eval()
    compiled = webtorch.compile(model, mode="reduce-overhead")
    walks = []
    locations = _compile._locations
    monkeypatch.setattr(_compile, "_locations", lambda roots: walks.append(1) or locations(roots))
    x = webtorch.tensor([[1.0, -2.0]], device="webgpu")
    changes = [lambda: None, lambda: setattr(model, "scale", 3.0),
               lambda: model._buffers.__setitem__("shift", webtorch.tensor([5.0, 6.0], device="webgpu")),
               lambda: setattr(model.lin.weight, "data", webtorch.ones(2, 2, device="webgpu")),
               lambda: model.lin.bias.requires_grad_(False),
               lambda: model.shift.as_strided_((2,), (0,)),
               lambda: model.shift.unsqueeze_(0),
               lambda: model.train()]
    with webtorch.no_grad():
        for i, change in enumerate(changes):
            del walks[:]
            change()
            assert compiled(x).tolist() == model(x).tolist()
            assert walks, i  # the first call records; after each change, the full guard decides
            for _ in range(2):
                assert compiled(x).tolist() == model(x).tolist()
            del walks[:]
            assert compiled(x).tolist() == model(x).tolist() and not walks, i  # fast
        # an int buffer written by a kernel: the range its index check was skipped for is unknown now
        model.order.copy_(webtorch.tensor([0, 1], device="webgpu"))
        del walks[:]
        assert compiled(x).tolist() == model(x).tolist() and walks
        shared = model.shift[0, None]  # an argument over a buffer's storage: the full guard decides
        assert compiled(shared).tolist() == model(shared).tolist() and walks


def test_graph_breaks_run_eagerly_and_correctly():
    @webtorch.compile
    def branch(x):
        return x * 2 if x.sum().item() > 0 else x - 1  # data-dependent control flow

    for sign in (1.0, -1.0, 1.0):
        x = webtorch.full((3,), sign, device="webgpu")
        assert branch(x).tolist() == ([2.0] * 3 if sign > 0 else [-2.0] * 3)
    assert branch.stats["replays"] == 0 and "reads a value back" in branch.graph_breaks[0]

    drop = webtorch.compile(webtorch.nn.Dropout(0.5))
    with webtorch.no_grad():
        a, b = (drop(webtorch.ones(64, device="webgpu")).tolist() for _ in range(2))
    assert a != b and "random" in drop._compiled_call.graph_breaks[0]

    hidden = webtorch.ones(3, device="webgpu")

    def helper(x):
        return x + hidden

    unreachable = webtorch.compile(lambda x: helper(x) * 2)
    assert unreachable(webtorch.ones(3, device="webgpu")).tolist() == [4.0] * 3
    assert "neither an argument" in unreachable.graph_breaks[0]

    @webtorch.compile(fullgraph=True)
    def strict(x):
        return x.sum().item()

    with pytest.raises(GraphBreakError, match="reads a value back"):
        strict(webtorch.ones(2, device="webgpu"))


def test_in_place_on_an_input_replays():
    @webtorch.compile
    def bump(x):
        x.add_(1)
        return x.view(2, 2) * 2

    for i in range(3):
        x = webtorch.full((4,), float(i), device="webgpu")
        out = bump(x)
        assert x.tolist() == [i + 1.0] * 4 and out.tolist() == [[2 * (i + 1.0)] * 2] * 2
    assert bump.stats["replays"] == 2


def test_compile_accepts_torch_call_forms():
    def f(x):
        return x + 1
    assert webtorch.compile(f, backend="eager")(webtorch.ones(1, device="webgpu")).tolist() == [2.0]
    assert webtorch.compile(disable=True)(f) is f
    with pytest.raises(RuntimeError, match="Unrecognized mode"):
        webtorch.compile(f, mode="fastest")
    model = webtorch.nn.Linear(2, 2)
    compiled = webtorch.compile(model, mode="max-autotune")
    assert compiled.weight is model.weight and list(compiled.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]
    compiled.eval()
    assert not model.training


def test_module_compile_in_place_keeps_class_keys_and_hooks():
    model = webtorch.nn.Sequential(webtorch.nn.Linear(3, 4), webtorch.nn.ReLU()).to("webgpu")
    x = webtorch.randn(2, 3, device="webgpu")
    with webtorch.no_grad():
        model.register_forward_hook(lambda m, args, out: out * 2)  # compiled with the call, as torch's
        want = model(x)
        assert model.compile(mode="reduce-overhead") is None  # in place, as torch's
        got = [model(x) for _ in range(3)]
    assert type(model) is webtorch.nn.Sequential and list(model.state_dict()) == ["0.weight", "0.bias"]
    assert model._compiled_call_impl.stats == {"captures": 1, "replays": 2, "eager": 0}
    assert all(g.tolist() == want.tolist() for g in got)


# options as torch.compile checks them: a key it does not know, a value of the wrong type, options
# with mode; torch's eager backend ignores options, and disable=True checks them still
OPTION_CASES = [
    dict(options={"max_fusion_size": 1}), dict(options={"max-fusion-size": 8}), dict(options={}),
    dict(options={"triton.cudagraphs": True, "epilogue_fusion": False}), dict(options={"max_fusion_size": True}),
    dict(options={"fusion": False}), dict(options={"max_fusion_size": 1.0}), dict(options={"epilogue_fusion": 1}),
    dict(options={"fusion": False}, backend="eager"), dict(options={"fusion": False}, disable=True),
    dict(options={"max_fusion_size": 1}, mode="default"),
]


@pytest.mark.parametrize("kwargs", OPTION_CASES, ids=str)
def test_compile_options_checked_as_torch(kwargs):
    def f(x):
        return x * 2 + 1
    outcomes = []
    validate = torch.distributions.Distribution._validate_args  # torch.compile's first call turns it off
    try:
        for lib in (torch, webtorch):  # torch checks options in compile(), before any call
            try:
                outcomes.append(lib.compile(f, **kwargs))
            except RuntimeError as e:  # torch lists its own ~600 options after "known options are"
                outcomes.append(str(e).split(" known options are")[0])
    finally:
        torch.distributions.Distribution.set_default_validate_args(validate)
    if isinstance(outcomes[0], str):
        assert outcomes[1] == outcomes[0]
    else:
        x = webtorch.ones(2, device="webgpu")
        assert [outcomes[1](x).tolist() for _ in range(3)] == [[3.0, 3.0]] * 3


@pytest.mark.parametrize("model_name,optimizer_name", tc.CASES, ids=[f"{m}-{o}" for m, o in tc.CASES])
def test_compiled_training_steps_replay_and_match_torch(model_name, optimizer_name):
    # forward, zero_grad, backward, optimizer step: recorded at the second step (the first makes the
    # optimizer's state), replayed from the third (fullgraph: no step runs eagerly), with torch's
    # losses and parameters
    torch.manual_seed(0)
    reference = tc.MODELS[model_name][0](torch)
    model = tc.MODELS[model_name][0](webtorch).to("webgpu")
    model.load_state_dict({k: _w(v, "cpu") for k, v in reference.state_dict().items()})
    expected_losses, expected_params = tc.train(torch, reference, model_name, optimizer_name, "cpu", steps=6)
    made = []
    losses, params = tc.train(webtorch, model, model_name, optimizer_name, "webgpu", steps=6,
                              compile_step=lambda fn: made.append(webtorch.compile(fn, fullgraph=True)) or made[0])
    stats = made[0].stats  # a batch whose targets widen the recorded range of class indices records again
    assert stats["eager"] == 0 and stats["replays"] >= 3 and stats["captures"] + stats["replays"] == 6, stats
    assert losses == pytest.approx(expected_losses, rel=1e-4)
    for name, worst in tc.worst_parameter_differences(params, expected_params).items():
        assert worst <= 1e-4, f"{name}: max abs difference {worst}"


def _twin_mlps(optimizer):
    """Two webtorch MLPs with torch's initial weights, each with its optimizer."""
    torch.manual_seed(0)
    state = {k: _w(v, "cpu") for k, v in tc.mlp(torch).state_dict().items()}
    twins = []
    for _ in range(2):
        model = tc.mlp(webtorch)
        model.load_state_dict(state)
        model = model.to("webgpu")
        twins.append((model, optimizer(model.parameters())))
    return twins


def _training_step(model, opt, body=None):
    def step(x, y):
        loss = webtorch.nn.functional.cross_entropy(model(x), y)
        if body is not None:
            loss = body(loss)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return step


def _batch(n, seed, classes=5):
    g = torch.Generator().manual_seed(seed)
    return _w(torch.randn(n, 12, generator=g)), _w(torch.randint(0, classes, (n,), generator=g))


def test_compiled_training_step_guards_equal_eager():
    (m_eager, o_eager), (m_comp, o_comp) = _twin_mlps(lambda p: webtorch.optim.Adam(p, lr=1e-2))
    eager, compiled = _training_step(m_eager, o_eager), webtorch.compile(_training_step(m_comp, o_comp))
    scheds = [webtorch.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5) for o in (o_eager, o_comp)]
    for i, (n, train) in enumerate([(8, True)] * 3 + [(4, True)] * 2 + [(4, False)] * 2 + [(8, True)] * 2):
        x, y = _batch(n, i)
        for model in (m_eager, m_comp):
            model.train(train)
        assert compiled(x, y).item() == pytest.approx(eager(x, y).item(), rel=1e-6, abs=1e-7), i
        for s in scheds:  # the learning rate halves every 2 steps: read by each replay
            s.step()
    for (k, a), b in zip(m_eager.state_dict().items(), m_comp.state_dict().values()):
        assert torch.allclose(torch.tensor(a.tolist()), torch.tensor(b.tolist()), atol=1e-6), k
    stats = compiled.stats  # a new batch size, a new training flag, targets beyond the recorded range record again
    assert stats["eager"] == 0 and stats["replays"] >= 2 and stats["captures"] + stats["replays"] == 9, stats
    x, y = _batch(8, 0, classes=9)  # targets out of range: a replay must not skip eager's index check
    with pytest.raises(IndexError, match="out of bounds"):
        compiled(x, y)


@pytest.mark.parametrize("case,reason", [
    ("rmsprop", "separate ops"), ("item", "reads a value back"), ("branch", "reads a value back"),
    ("dropout", "random numbers")])
def test_training_step_graph_breaks_run_eagerly_and_correctly(case, reason):
    optimizer = (lambda p: webtorch.optim.RMSprop(p, lr=1e-2)) if case == "rmsprop" else \
        (lambda p: webtorch.optim.SGD(p, lr=0.1, momentum=0.9))
    (m_eager, o_eager), (m_comp, o_comp) = _twin_mlps(optimizer)
    body = {"item": lambda loss: loss * (1.0 if loss.item() > 0 else 2.0),
            "branch": lambda loss: loss * 2 if loss > 1 else loss}.get(case)
    if case == "dropout":  # the same random numbers for both: seeded before each step
        m_eager, m_comp = (webtorch.nn.Sequential(webtorch.nn.Dropout(0.3), m) for m in (m_eager, m_comp))
    eager, compiled = _training_step(m_eager, o_eager, body), webtorch.compile(_training_step(m_comp, o_comp, body))
    for i in range(3):
        x, y = _batch(8, i)
        webtorch.manual_seed(i)
        want = eager(x, y).item()
        webtorch.manual_seed(i)
        assert compiled(x, y).item() == pytest.approx(want, rel=1e-6, abs=1e-7)
    assert compiled.stats["replays"] == 0 and reason in compiled.graph_breaks[0], compiled.graph_breaks
    for (k, a), b in zip(m_eager.state_dict().items(), m_comp.state_dict().values()):
        assert torch.allclose(torch.tensor(a.tolist()), torch.tensor(b.tolist()), atol=1e-6), k


def test_reduce_overhead_keeps_the_intermediates_buffers():
    """mode="reduce-overhead" keeps a recording's intermediate buffers between its replays (torch's CUDA
    graphs' private memory pool): a replay allocates only its result, binds the same buffers as the
    replay before, and computes what the default mode computes."""
    model = webtorch.nn.Sequential(webtorch.nn.Linear(8, 16), webtorch.nn.GELU(), webtorch.nn.Linear(16, 16),
                                   webtorch.nn.Tanh(), webtorch.nn.Linear(16, 4)).to("webgpu")
    x = webtorch.randn(4, 8, device="webgpu")
    rt = webtorch.backend.webgpu.runtime()
    runs = {}
    for mode in ("default", "reduce-overhead"):
        compiled = webtorch.compile(model, mode=mode)
        with webtorch.no_grad():
            compiled(x), compiled(x)  # recorded, replayed
            allocations = rt.allocations
            out = compiled(x)
        runs[mode] = rt.allocations - allocations, out.tolist()
    assert runs["reduce-overhead"][0] == 1 < runs["default"][0]
    assert runs["reduce-overhead"][1] == runs["default"][1]


def test_reduce_overhead_replay_is_one_submission():
    """A reduce-overhead replay hands its kernels to the driver as one submission made once (recording
    _Encoded), with no runtime.run per kernel: each replay binds its own inputs and results (new inputs,
    a replaced parameter; a constant made in the call, uploaded before the kernels into a buffer of its
    own) and computes what the eager model computes."""
    class Scaled(webtorch.nn.Module):
        def forward(self, h):
            return webtorch.tanh(h) * webtorch.tensor([1.0, -2.0, 3.0, 0.5], device=h.device)

    model = webtorch.nn.Sequential(webtorch.nn.Linear(8, 16), webtorch.nn.GELU(), webtorch.nn.Linear(16, 4),
                                   Scaled(), webtorch.nn.Linear(4, 4)).to("webgpu")
    compiled = webtorch.compile(model, mode="reduce-overhead")
    rt = webtorch.backend.webgpu.runtime()
    runs = []
    with webtorch.no_grad():
        compiled(webtorch.randn(4, 8, device="webgpu")).tolist()  # recorded
        for i in range(3):
            if i == 2:
                model[2].weight.data = webtorch.randn(4, 16, device="webgpu")  # its storage: the state's buffer
            x = webtorch.randn(4, 8, device="webgpu")
            rt.flush()
            submits, real_run = rt.submit_count, rt.run
            rt.run = lambda *a: runs.append(a) or real_run(*a)
            try:
                out = compiled(x)
            finally:
                del rt.run
            assert rt.submit_count == submits + 1
            assert out.tolist() == model(x).tolist()
    assert runs == [] and compiled._compiled_call.stats == {"captures": 1, "replays": 3, "eager": 0}
    assert compiled._compiled_call.checked.entry.program.encoded.uploads
