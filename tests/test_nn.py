"""nn.Module protocol, layer construction, optimizers and schedulers against PyTorch."""
import math
import warnings

import pytest
import torch

import webtorch


def flat(values):
    return [v for item in values for v in flat(item)] if isinstance(values, list) else [values]


def both(build):
    """The same model in torch and webtorch (webgpu), webtorch loaded from torch's state_dict."""
    torch.manual_seed(0)
    ref = build(torch)
    mine = build(webtorch).to("webgpu")
    mine.load_state_dict({k: webtorch.tensor(v.tolist(), dtype=getattr(webtorch, str(v.dtype)[6:]))
                          for k, v in ref.state_dict().items()})
    return ref, mine


def net(T):
    return T.nn.Sequential(T.nn.Conv2d(1, 2, 3), T.nn.BatchNorm2d(2), T.nn.ReLU(), T.nn.Flatten(),
                           T.nn.Linear(8, 3), T.nn.Dropout(0.1), T.nn.LayerNorm(3))


def test_protocol_matches_torch():
    ref, mine = both(net)
    assert [n for n, _ in mine.named_parameters()] == [n for n, _ in ref.named_parameters()]
    assert [n for n, _ in mine.named_buffers()] == [n for n, _ in ref.named_buffers()]
    assert list(mine.state_dict()) == list(ref.state_dict())
    assert [n for n, _ in mine.named_modules()] == [n for n, _ in ref.named_modules()]
    assert len(list(mine.children())) == len(list(ref.children()))
    assert repr(mine) == repr(ref)
    assert [tuple(p.shape) for p in mine.parameters()] == [tuple(p.shape) for p in ref.parameters()]
    assert all(isinstance(p, webtorch.nn.Parameter) and p.requires_grad for p in mine.parameters())


def test_default_initialisation_ranges_follow_torch():
    layer = webtorch.nn.Linear(100, 50)
    bound = 1 / math.sqrt(100)
    w = layer.weight.detach()
    assert -bound <= webtorch.amin(w).item() and webtorch.amax(w).item() <= bound
    assert webtorch.amax(w).item() > 0.8 * bound
    conv = webtorch.nn.Conv2d(3, 4, 3)
    assert webtorch.amax(webtorch.abs(conv.weight.detach())).item() <= 1 / math.sqrt(27)
    emb = webtorch.nn.Embedding(50, 20, padding_idx=0)
    assert emb.weight[0].tolist() == [0.0] * 20
    assert 0.7 < webtorch.std(emb.weight.detach()[1:]).item() < 1.3


def test_train_eval_and_batchnorm_running_stats():
    ref, mine = both(net)
    x = torch.randn(4, 1, 4, 4)
    for model in (ref, mine):
        model.train()
    ref(x)
    mine(webtorch.tensor(x.tolist(), device="webgpu"))
    for (name, a), (_, b) in zip(mine.named_buffers(), ref.named_buffers()):
        assert flat(a.tolist()) == pytest.approx(flat(b.tolist()), abs=1e-5), name
    ref.eval()
    mine.eval()
    assert not mine.training and not mine[5].training
    out = mine(webtorch.tensor(x.tolist(), device="webgpu")).tolist()
    assert flat(out) == pytest.approx(flat(ref(x).tolist()), abs=1e-4)


def test_load_state_dict_strict_errors():
    model = webtorch.nn.Linear(2, 3)
    state = model.state_dict()
    state["extra"] = webtorch.zeros(1)
    del state["bias"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias"'):
        model.load_state_dict(state)
    result = model.load_state_dict(state, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["extra"]
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        model.load_state_dict({"weight": webtorch.zeros(4, 4), "bias": webtorch.zeros(3)})


def test_hooks_apply_zero_grad_register():
    model = webtorch.nn.Sequential(webtorch.nn.Linear(2, 2), webtorch.nn.ReLU())
    seen = []
    handle = model[0].register_forward_hook(lambda m, args, out: seen.append(tuple(out.shape)))
    model(webtorch.ones(5, 2))
    handle.remove()
    model(webtorch.ones(5, 2))
    assert seen == [(5, 2)]
    names = []
    model.apply(lambda m: names.append(type(m).__name__))
    assert names == ["Linear", "ReLU", "Sequential"]
    model(webtorch.ones(1, 2)).sum().backward()
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())
    model.register_buffer("steps", webtorch.zeros(1))
    assert "steps" in model.state_dict()
    with pytest.raises(TypeError):
        model[0].weight = webtorch.zeros(2, 2)


OPTIMIZERS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, momentum=0.5, dampening=0.2)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.01)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.01)),
    ("Adadelta", dict(lr=0.5, weight_decay=0.01)),
    ("Adamax", dict(lr=0.01, weight_decay=0.01, maximize=True)),
    ("NAdam", dict(lr=0.01, weight_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, momentum_decay=0.01)),
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.8), weight_decay=0.01)),  # rho_t > 5 from step 6: the rectified step
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
]


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(OPTIMIZERS)])
def test_optimizer_steps_match_torch(name, kwargs):
    ref, mine = both(lambda T: T.nn.Linear(4, 3))
    x = torch.randn(6, 4)
    opts = getattr(torch.optim, name)(ref.parameters(), **kwargs), \
        getattr(webtorch.optim, name)(mine.parameters(), **kwargs)
    for _ in range(8):
        for model, opt, xb in ((ref, opts[0], x), (mine, opts[1], webtorch.tensor(x.tolist(), device="webgpu"))):
            opt.zero_grad()
            (model(xb) ** 2).sum().backward()
            opt.step()
    for (n, a), (_, b) in zip(mine.named_parameters(), ref.named_parameters()):
        assert flat(a.tolist()) == pytest.approx(flat(b.tolist()), rel=1e-5, abs=1e-5), n


def test_optimizer_state_dict_round_trip():
    model = webtorch.nn.Linear(2, 2)
    opt = webtorch.optim.Adam(model.parameters(), lr=0.1)
    model(webtorch.ones(1, 2)).sum().backward()
    opt.step()
    state = opt.state_dict()
    assert state["param_groups"][0]["params"] == [0, 1] and state["state"][0]["step"] == 1
    other = webtorch.optim.Adam(model.parameters(), lr=0.5)
    other.load_state_dict(state)
    assert other.param_groups[0]["lr"] == 0.1 and other.state[model.weight]["step"] == 1


SCHEDULERS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5], gamma=0.1)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=6, eta_min=0.01)),
    ("LinearLR", dict(start_factor=0.2, total_iters=4)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=12)),
    ("LambdaLR", dict(lr_lambda=lambda e: 1 / (e + 1))),
    ("ConstantLR", dict(factor=0.5, total_iters=3)),
    ("PolynomialLR", dict(total_iters=6, power=2.0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.01)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2, mode="triangular2")),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range", gamma=0.9)),
    ("SequentialLR", lambda T, opt: dict(schedulers=[T.optim.lr_scheduler.ConstantLR(opt, factor=0.1, total_iters=2),
                                                     T.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9),
                                                     T.optim.lr_scheduler.StepLR(opt, 2)], milestones=[3, 7])),
    ("ChainedScheduler", lambda T, opt: dict(schedulers=[T.optim.lr_scheduler.ConstantLR(opt, factor=0.1,
                                                                                         total_iters=2),
                                                         T.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)])),
]


@pytest.mark.parametrize("name,kwargs", SCHEDULERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULERS)])
def test_lr_schedulers_match_torch(name, kwargs):
    lrs = []
    for T in (torch, webtorch):
        opt = T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=0.1, momentum=0.9)
        args = kwargs(T, opt) if callable(kwargs) else kwargs
        if name == "ChainedScheduler":
            sched = T.optim.lr_scheduler.ChainedScheduler(**args)
        else:
            sched = getattr(T.optim.lr_scheduler, name)(opt, **args)
        seen = []
        for _ in range(11):
            opt.step()
            sched.step()
            seen.append((sched.get_last_lr()[0], opt.param_groups[0]["momentum"]))
        lrs.append(seen)
    assert lrs[1] == pytest.approx(lrs[0], rel=1e-9)


def test_scheduler_subclassing_the_old_name_matches_torch():
    """A scheduler written against torch < 2.0 subclasses lr_scheduler._LRScheduler with its own get_lr."""
    lrs = []
    for T in (torch, webtorch):
        class Warmup(T.optim.lr_scheduler._LRScheduler):
            def get_lr(self):
                return [base * min(1.0, (self.last_epoch + 1) / 4) for base in self.base_lrs]
        opt = T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=0.1)
        sched = Warmup(opt)
        assert isinstance(sched, T.optim.lr_scheduler.LRScheduler)
        seen = []
        for _ in range(6):
            opt.step()
            sched.step()
            seen.append(sched.get_last_lr()[0])
        lrs.append(seen)
    assert lrs[1] == pytest.approx(lrs[0], rel=1e-12)


def test_scheduler_epoch_argument_matches_torch():
    """step(epoch) uses the closed forms; CosineAnnealingWarmRestarts takes fractional epochs."""
    for name, kwargs, epochs in (("CosineAnnealingWarmRestarts", dict(T_0=2, T_mult=2), [0.5, 1.25, 2.0, 3.5, 7.9]),
                                 ("StepLR", dict(step_size=2, gamma=0.5), [3, 1, 6]),
                                 ("PolynomialLR", dict(total_iters=4), [2, 5, 1])):
        lrs = []
        for T in (torch, webtorch):
            opt = T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=0.1)
            sched = getattr(T.optim.lr_scheduler, name)(opt, **kwargs)
            seen = []
            for epoch in epochs:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # torch deprecates the epoch argument
                    sched.step(epoch)
                seen.append(opt.param_groups[0]["lr"])
            lrs.append(seen)
        assert lrs[1] == pytest.approx(lrs[0], rel=1e-12), name


def test_lbfgs_matches_torch():
    for line_search in (None, "strong_wolfe"):
        ref, mine = both(lambda T: T.nn.Linear(3, 2))
        x, y = torch.randn(8, 3), torch.randn(8, 2)
        losses = []
        for T, model, xb, yb in ((torch, ref, x, y), (webtorch, mine, webtorch.tensor(x.tolist(), device="webgpu"),
                                                     webtorch.tensor(y.tolist(), device="webgpu"))):
            opt = T.optim.LBFGS(model.parameters(), lr=0.5, max_iter=6, history_size=3, line_search_fn=line_search)

            def closure():
                opt.zero_grad()
                loss = ((model(xb) - yb) ** 2).mean()
                loss.backward()
                return loss
            losses.append([opt.step(closure).item() for _ in range(3)])
        assert losses[1] == pytest.approx(losses[0], rel=1e-4), line_search
        for (n, a), (_, b) in zip(mine.named_parameters(), ref.named_parameters()):
            assert flat(a.tolist()) == pytest.approx(flat(b.tolist()), rel=1e-4, abs=1e-5), (line_search, n)


def test_optimizer_argument_errors_match_torch():
    p = [torch.nn.Parameter(torch.zeros(1))]
    q = [webtorch.nn.Parameter(webtorch.zeros(1))]
    for name, kwargs, message in (("Adamax", dict(lr=-1), "Invalid learning rate"),
                                  ("NAdam", dict(betas=(0.9, 1.0)), "Invalid beta parameter at index 1"),
                                  ("RAdam", dict(eps=-1), "Invalid epsilon value"),
                                  ("Adadelta", dict(rho=2), "Invalid rho value")):
        for T, params in ((torch, p), (webtorch, q)):
            with pytest.raises(ValueError, match=message):
                getattr(T.optim, name)(params, **kwargs)
    with pytest.raises(NotImplementedError, match="SparseAdam needs sparse gradients"):
        webtorch.optim.SparseAdam(q)


def test_reduce_lr_on_plateau_matches_torch():
    lrs = []
    for T in (torch, webtorch):
        opt = T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=1.0)
        sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
        seen = []
        for metric in [5, 4, 4, 4, 4, 3, 3, 3, 3]:
            sched.step(metric)
            seen.append(opt.param_groups[0]["lr"])
        lrs.append(seen)
    assert lrs[1] == lrs[0]


def test_clip_grad_norm_matches_torch():
    grads = []
    for T, dev in ((torch, "cpu"), (webtorch, "webgpu")):
        ps = [T.nn.Parameter(T.tensor([[3.0, -4.0], [1.0, 2.0]], device=dev)), T.nn.Parameter(T.ones(3, device=dev))]
        (ps[0] ** 2).sum().add((ps[1] * 5).sum()).backward()
        norm = T.nn.utils.clip_grad_norm_(ps, 1.0)
        grads.append((norm.item(), [p.grad.tolist() for p in ps]))
    assert grads[1][0] == pytest.approx(grads[0][0], rel=1e-5)
    assert flat(grads[1][1]) == pytest.approx(flat(grads[0][1]), abs=1e-6)


def test_dataloader_batches_and_collates():
    x = webtorch.arange(10.0).reshape(10, 1)
    y = webtorch.arange(10)
    loader = webtorch.utils.data.DataLoader(webtorch.utils.data.TensorDataset(x, y), batch_size=4)
    batches = [(bx.reshape(-1).tolist(), by.tolist()) for bx, by in loader]
    assert batches == [([0.0, 1.0, 2.0, 3.0], [0, 1, 2, 3]), ([4.0, 5.0, 6.0, 7.0], [4, 5, 6, 7]),
                       ([8.0, 9.0], [8, 9])]
    assert len(loader) == 3
    dropped = webtorch.utils.data.DataLoader(webtorch.utils.data.TensorDataset(x, y), batch_size=4, drop_last=True,
                                             shuffle=True)
    seen = sorted(v for _, by in dropped for v in by.tolist())
    assert len(dropped) == 2 and len(seen) == 8 and len(set(seen)) == 8
    dicts = webtorch.utils.data.DataLoader([{"a": 1.0, "b": webtorch.ones(2)}] * 3, batch_size=2)
    first = next(iter(dicts))
    assert first["a"].tolist() == [1.0, 1.0] and first["b"].shape == (2, 2)


def test_multihead_attention_matches_torch():
    ref, mine = both(lambda T: T.nn.MultiheadAttention(8, 2, batch_first=True))
    q = torch.randn(2, 4, 8)
    mask = torch.tensor([[False, False, True, False]] * 2)
    expected = ref(q, q, q, key_padding_mask=mask)
    wq = webtorch.tensor(q.tolist(), device="webgpu")
    actual = mine(wq, wq, wq, key_padding_mask=webtorch.tensor(mask.tolist(), device="webgpu"))
    assert flat(actual[0].tolist()) == pytest.approx(flat(expected[0].tolist()), abs=1e-5)
    assert flat(actual[1].tolist()) == pytest.approx(flat(expected[1].tolist()), abs=1e-5)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(4)
    expected = ref(q, q, q, attn_mask=causal)[0]
    actual = mine(wq, wq, wq, attn_mask=webtorch.tensor(causal.tolist(), device="webgpu"))[0]
    assert flat(actual.tolist()) == pytest.approx(flat(expected.tolist()), abs=1e-5)


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01)),
                                         ("AdamW", dict(lr=0.01, amsgrad=True))])
def test_optimizer_step_is_one_kernel_per_parameter(name, kwargs):
    # parameters used without transposes, so their gradients are already dense (no copy before the step)
    params = [webtorch.nn.Parameter(webtorch.ones(4, 8, device="webgpu")),
              webtorch.nn.Parameter(webtorch.zeros(8, device="webgpu"))]
    opt = getattr(webtorch.optim, name)(params, **kwargs)
    for _ in range(2):  # the first step also creates the state
        opt.zero_grad()
        (webtorch.ones(3, 4, device="webgpu") @ params[0] + params[1]).relu().sum().backward()
        before = webtorch.webgpu.stats()["kernels"]
        opt.step()
    assert webtorch.webgpu.stats()["kernels"] - before == len(params)


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
@pytest.mark.parametrize("name,args", [
    ("max_pool2d", dict(kernel_size=(9, 10), stride=(2, 3), padding=(4, 5), dilation=(1, 2), return_indices=True)),
    ("avg_pool2d", dict(kernel_size=(9, 10), stride=(2, 3), padding=(4, 5), count_include_pad=False)),
    ("max_pool1d", dict(kernel_size=70, dilation=2, ceil_mode=True)),
    ("avg_pool3d", dict(kernel_size=(3, 5, 5), stride=2)),
])
def test_pools_of_large_windows(name, args, device):
    """Windows of more than 64 taps are one strided view of the input (not a slice per tap: a global
    avg_pool1d over 200k values took 12 s on cpu): values, indices and gradients as torch, of a permuted
    (non-contiguous) input."""
    g = torch.Generator().manual_seed(0)
    shape = {"1": (2, 3, 200), "2": (2, 3, 20, 24), "3": (1, 2, 7, 11, 12)}[name[-2]]
    x = torch.randn(*shape, generator=g).transpose(0, 1)
    got = []
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        t = T.tensor(x.tolist(), device=dev).transpose(0, 1).contiguous().transpose(0, 1).requires_grad_()
        out = getattr(T.nn.functional, name)(t, **args)
        values = out[0] if isinstance(out, tuple) else out
        (values * T.arange(values.numel(), device=dev).reshape(values.shape)).sum().backward()
        got.append([torch.tensor(r.tolist()) for r in ((*out, t.grad) if isinstance(out, tuple) else (out, t.grad))])
    for w, e in zip(*got):
        torch.testing.assert_close(w, e, rtol=1e-5, atol=1e-4)
