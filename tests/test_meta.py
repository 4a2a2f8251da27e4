"""The meta device against torch 2.13's: tensors with a shape and a dtype but no data. Every op runs
its shape logic (shapes, dtypes, errors as torch), nothing is computed, and reading values raises
torch's errors. Then the big-model pattern: build on meta, to_empty, reset_parameters or
load_state_dict(assign=True)."""
import copy
import warnings

import pytest
import torch

import webtorch

M = "device='meta'"
# Each expression is evaluated with `torch` bound to torch and to webtorch, `x` a (2, 3) float meta
# tensor, `w` (4, 3), `i` int64 (5,), `img` (2, 3, 8, 8), `g` (2, 3) requiring grad.
CASES = [
    f"empty(2, 3, {M})", f"zeros(2, 3, {M}, dtype=torch.int64)", f"ones((), {M}, dtype=torch.float16)",
    f"randn(4, 5, {M})", f"rand(3, {M})", f"randint(0, 5, (2, 2), {M})", f"full((2,), 3, {M})",
    f"arange(5, {M})", f"linspace(0, 1, 7, {M})", f"eye(3, {M})", f"tensor([1.0, 2.0], {M})",
    f"empty(10 ** 12, {M})",  # nothing is allocated
    f"empty(0, 3, {M})", "x.to('meta')", f"ones(2, 3).to('meta')", "x.to(torch.float16)",
    "zeros_like(x)", "empty_like(x, dtype=torch.int32)", "x.new_zeros(4)", "x.clone()", "x.contiguous()",
    "x + 1", "x * x", "x + torch.ones(3, device='meta')", "x[:, None] - x[None]", "x > 0", "x / 2",
    "(x > 0).int() + x.long()", "x + torch.tensor(2.0)",  # a 0-d cpu tensor acts as a scalar
    "torch.where(x > 0, x, 0.0)", "x.exp().sigmoid().tanh()", "x.clamp(0, 1)", "x.pow(2)",
    "x @ w.T", "torch.matmul(x, w.T[:, :2].T.T)", "torch.bmm(img[:, 0], img[:, 1])", "torch.einsum('ij,kj->ik', x, w)",
    "x.sum()", "x.sum(1)", "x.mean(0, keepdim=True)", "x.max(1)", "x.argmax()", "x.var(1)", "x.std()",
    "x.softmax(-1)", "x.log_softmax(0)", "x.cumsum(1)", "x.sort(1)", "x.topk(2)", "x.norm()", "x.all()",
    "x.view(3, 2)", "x.reshape(-1)", "x.t()", "x.permute(1, 0)", "x.unsqueeze(0).expand(4, 2, 3)",
    "x.transpose(0, 1).contiguous()", "x[0]", "x[:, 1:]", "x[..., None]", "x.flatten()", "x.chunk(2, 1)",
    "x.split(1)", "x.unbind(1)", "torch.cat([x, x], 1)", "torch.stack([x, x])", "x.flip(0)", "x.roll(1)",
    "x.repeat(2, 2)", "x.tril()", "x[i[:2] % 2]", "x.index_select(1, i[:2] % 3)", "x.gather(1, i[:4].view(2, 2) % 3)",
    "x.masked_fill(x > 0, 1.0)", "x.scatter(1, i[:4].view(2, 2) % 3, 1.0)",
    "torch.nn.functional.linear(x, w)", "torch.nn.functional.relu(x)", "torch.nn.functional.gelu(x)",
    "torch.nn.functional.layer_norm(x, (3,))", "torch.nn.functional.embedding(i, w)",
    "torch.nn.functional.conv2d(img, torch.empty(4, 3, 3, 3, device='meta'), padding=1)",
    "torch.nn.functional.conv2d(img, torch.empty(6, 1, 3, 3, device='meta'), stride=2, groups=3)",
    "torch.nn.functional.max_pool2d(img, 2)", "torch.nn.functional.avg_pool2d(img, 3, 2, 1)",
    "torch.nn.functional.adaptive_avg_pool2d(img, 1)", "torch.nn.functional.interpolate(img, scale_factor=2)",
    "torch.nn.functional.batch_norm(img, None, None, training=True)",
    "torch.nn.functional.group_norm(img, 3)", "torch.nn.functional.dropout(x)",
    "torch.nn.functional.cross_entropy(x, i[:2] % 3)", "torch.nn.functional.mse_loss(x, x)",
    "torch.nn.functional.scaled_dot_product_attention(img, img, img, is_causal=True)",
    "torch.nn.functional.pad(img, (1, 2))", "torch.nn.functional.one_hot(i % 3, 3)",
    # errors: the shape checks run as on any device
    "x + torch.ones(4, device='meta')", "x @ x", "x.view(4)", "x.sum(2)", "torch.cat([x, w])",
    # data access
    "x.item()", "x[0, 0].item()", "x.tolist()", "x.cpu()", "x.numpy()", "bool(x[0, 0])", "float(x.sum())",
    "x.to('cpu')", "torch.ones(2, 3).copy_(x)", "torch.nonzero(x)", "x[x > 0]", "x.unique()",
    "torch.equal(x, x)", "torch.allclose(x, x)", "i.bincount()",
    # mixing devices
    "x + torch.ones(2, 3)", "torch.ones(2, 3) + x", "torch.cat([x, torch.ones(2, 3)])",
    # initialisation in place (nothing drawn, nothing written)
    "torch.nn.init.trunc_normal_(x)", "torch.nn.init.kaiming_uniform_(w, a=5 ** 0.5)", "torch.nn.init.xavier_normal_(w)",
    "torch.nn.init.orthogonal_(w)", "torch.nn.init.zeros_(x)", "torch.nn.init.eye_(w)", "x.uniform_(-1, 1)",
    "x.normal_()", "x.fill_(2.0)", "x.zero_()", "x.copy_(torch.ones(2, 3))",
    # autograd: gradients' shapes
    "torch.autograd.grad((g * 2).exp().sum(), g)", "torch.autograd.grad((g @ w.T).softmax(-1).sum(), g)",
]


def _env(module):
    m = "meta"
    return dict(torch=module, x=module.empty(2, 3, device=m), w=module.empty(4, 3, device=m),
                i=module.empty(5, dtype=module.int64, device=m), img=module.empty(2, 3, 8, 8, device=m),
                g=module.empty(2, 3, device=m, requires_grad=True))


def _summary(value, module):
    """What a meta result has: for tensors, (shape, dtype, device type); nested alike."""
    if isinstance(value, module.Tensor):
        return tuple(value.shape), value.dtype.name if module is webtorch else str(value.dtype)[6:], value.device.type
    if isinstance(value, (tuple, list)):
        return tuple(_summary(v, module) for v in value)
    return value


def _run(module, expr):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", _summary(eval(expr, _env(module)), module)
    except Exception as e:  # noqa: BLE001 - the exception's type is what is compared
        return "raises", type(e)


@pytest.mark.parametrize("expr", CASES)
def test_meta_op_like_torch(expr):
    expected = _run(torch, expr)
    if expr in ("torch.ones(2, 3) + x",):  # torch's CPU kernel takes the meta operand and returns garbage
        expected = ("raises", RuntimeError)
    got = _run(webtorch, expr)
    assert got == expected


@pytest.mark.parametrize("expr", [f"empty(2, 3, {M})", f"zeros((), {M}, dtype=torch.int64)",
                                  f"ones(0, 2, {M}, dtype=torch.bool)", f"ones(3, {M}, dtype=torch.float16)",
                                  f"ones(3, {M}, requires_grad=True)", f"ones(3, {M}, requires_grad=True) * 2",
                                  f"torch.nn.Parameter(torch.ones(2, {M}))"])
def test_meta_repr_like_torch(expr):
    def text(module):
        return repr(eval(expr, vars(module) | {"torch": module})).replace("webtorch.", "torch.")
    assert text(webtorch).replace("MulBackward", "MulBackward0") == text(torch)


def test_meta_tensor_has_no_data():
    x = webtorch.empty(2, 3, device="meta")
    assert x.is_meta and x.device.type == "meta" and x.device == webtorch.device("meta") and not x.is_cpu
    assert not hasattr(x._storage, "data") and not hasattr(x._storage, "buffer")
    assert not webtorch.ones(2).is_meta
    with pytest.raises(TypeError):
        format(x.sum(), ".2f")
    assert format(x, "") == repr(x)


def test_meta_draws_take_nothing_from_the_stream():
    webtorch.manual_seed(0)
    expected = webtorch.randn(3).tolist()
    webtorch.manual_seed(0)
    webtorch.randn(5, device="meta")
    webtorch.nn.Linear(4, 4, device="meta")
    assert webtorch.randn(3).tolist() == expected


def test_default_device_meta():
    for module in (torch, webtorch):
        module.set_default_device("meta")
        try:
            assert module.ones(2).is_meta and module.get_default_device().type == "meta"
        finally:
            module.set_default_device(None)
        with module.device("meta"):
            assert module.nn.Linear(2, 3).weight.is_meta
        assert not module.ones(2).is_meta


def test_load_onto_meta_like_torch():
    """torch.load(map_location="meta") and safetensors' device="meta": the tensors' shapes and dtypes
    (a big checkpoint inspected without its bytes on any device)."""
    import io
    import safetensors.torch
    buf = io.BytesIO()
    torch.save({"w": torch.randn(3, 4), "i": torch.arange(3)[1:], "h": torch.ones(2, dtype=torch.float16)}, buf)
    expected = torch.load(io.BytesIO(buf.getvalue()), map_location="meta")
    got = webtorch.load(buf.getvalue(), map_location="meta")
    assert {k: _summary(v, webtorch) for k, v in got.items()} == {k: _summary(v, torch) for k, v in expected.items()}
    loaded = webtorch.safetensors.load(safetensors.torch.save({"w": torch.randn(3, 4)}), device="meta")
    assert loaded["w"].is_meta and loaded["w"].shape == (3, 4)


def test_parameters_rebuilt_on_meta_from_their_dict():
    """What accelerate's init_empty_weights does to each registered parameter: rebuild it on meta as
    type(p)(p.to("meta"), **p.__dict__) with requires_grad written into that dict. torch's __dict__ of
    a tensor holds only attributes code set on it, so the rebuild takes no layout fields."""
    for module in (torch, webtorch):
        lin = module.nn.Linear(3, 2)
        p = lin.weight
        assert p.__dict__ == {}
        kwargs = p.__dict__
        kwargs["requires_grad"] = p.requires_grad
        lin._parameters["weight"] = type(p)(p.to("meta"), **kwargs)
        assert lin.weight.is_meta and lin.weight.requires_grad and lin.weight.shape == (2, 3)
        t = module.ones(2)
        t.note = "kept"
        assert t.__dict__ == {"note": "kept"}


def test_deepcopy_stays_meta():
    t = webtorch.empty(2, 3, device="meta", requires_grad=True).t()
    c = copy.deepcopy(t)
    assert c.is_meta and c.shape == (3, 2) and c.stride() == (1, 3) and c.requires_grad
    with webtorch.device("meta"):
        enc = webtorch.nn.TransformerEncoder(webtorch.nn.TransformerEncoderLayer(16, 2, 32, batch_first=True), 2)
    assert enc.layers[1].linear1.weight.is_meta
    assert enc(webtorch.empty(2, 5, 16, device="meta")).shape == (2, 5, 16)


def _net(module):
    nn, F = module.nn, module.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, padding=1)
            self.bn = nn.BatchNorm2d(8)
            self.emb = nn.Embedding(10, 8, padding_idx=0)
            self.ln = nn.LayerNorm(8)
            self.fc = nn.Linear(8, 4)
            self.register_buffer("pos", module.arange(4.0), persistent=False)

        def forward(self, x, ids):
            h = F.relu(self.bn(self.conv(x))).mean((2, 3))
            return F.softmax(self.fc(self.ln(h + self.emb(ids))), -1) + self.pos
    return Net


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_build_on_meta_then_materialise(device):
    Net = _net(webtorch)
    with webtorch.device("meta"):
        m = Net()
    assert all(t.is_meta for t in list(m.parameters()) + list(m.buffers()))
    x = webtorch.randn(2, 3, 5, 5, device="meta", requires_grad=True)
    out = m(x, webtorch.tensor([1, 2], device="meta"))
    assert out.is_meta and out.shape == (2, 4)
    out.sum().backward()
    assert x.grad.is_meta and x.grad.shape == x.shape and m.conv.weight.grad.shape == (8, 3, 3, 3)
    with pytest.raises(NotImplementedError, match="Please use torch.nn.Module.to_empty"):
        m.to(device)
    weight = m.fc.weight
    assert m.to_empty(device=device) is m
    assert m.fc.weight is weight  # webtorch keeps the Parameter (torch makes a new one from meta)
    assert all(t.device.type == device for t in list(m.parameters()) + list(m.buffers()))
    assert m.bn.num_batches_tracked.dtype is webtorch.int64 and m.pos.shape == (4,)
    for mod in m.modules():
        if hasattr(mod, "reset_parameters"):
            mod.reset_parameters()
    assert m.bn.running_var.tolist() == [1.0] * 8 and m.bn.running_mean.tolist() == [0.0] * 8
    assert m.bn.num_batches_tracked.item() == 0 and m.ln.weight.tolist() == [1.0] * 8
    assert m.emb.weight[0].tolist() == [0.0] * 8 and m.emb.weight[1].abs().sum().item() > 0
    bound = 1 / 8 ** 0.5
    assert 0 < m.fc.weight.abs().max().item() <= bound
    assert m(webtorch.randn(2, 3, 5, 5, device=device), webtorch.tensor([1, 2], device=device)).shape == (2, 4)


def test_load_state_dict_onto_meta_like_torch():
    ref = _net(torch)()
    sd = ref.state_dict()
    wsd = {k: webtorch.tensor(v.tolist(), dtype=getattr(webtorch, str(v.dtype)[6:])) for k, v in sd.items()}
    for module, state in ((torch, sd), (webtorch, wsd)):
        with module.device("meta"):
            m = _net(module)()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m.load_state_dict(state)
        assert len(caught) == len(state) and "which is a no-op" in str(caught[0].message)
        assert m.fc.weight.is_meta
        keys = m.load_state_dict(state, assign=True)
        assert not keys.missing_keys and not keys.unexpected_keys
        assert m.fc.weight.device.type == "cpu" and isinstance(m.fc.weight, module.nn.Parameter)
        assert m.fc.weight.requires_grad and not m.bn.running_mean.requires_grad
        assert m.pos.is_meta  # a non-persistent buffer is not in the state dict: still meta
        assert m.bn.running_mean._storage is state["bn.running_mean"]._storage if module is webtorch else True
    x = torch.randn(2, 3, 5, 5)
    m.pos = webtorch.arange(4.0)
    ref.eval(), m.eval()
    got = m(webtorch.tensor(x.tolist()), webtorch.tensor([1, 2])).tolist()
    assert torch.allclose(torch.tensor(got), ref(x, torch.tensor([1, 2])), atol=1e-5)


@pytest.mark.parametrize("name", ["Linear(3, 4)", "Conv1d(2, 4, 3)", "Conv2d(2, 4, 3)", "ConvTranspose2d(2, 4, 3)",
                                  "Embedding(5, 3, padding_idx=1)", "EmbeddingBag(5, 3, padding_idx=2)",
                                  "Bilinear(2, 3, 4)", "BatchNorm1d(3)", "BatchNorm2d(3)",
                                  "InstanceNorm2d(3, affine=True, track_running_stats=True)", "LayerNorm(3)",
                                  "RMSNorm(3)", "GroupNorm(1, 3)", "PReLU(3, 0.3)",
                                  "MultiheadAttention(4, 2, add_bias_kv=True)", "MultiheadAttention(4, 2, kdim=3, vdim=5)",
                                  "LSTM(3, 4)", "GRUCell(3, 4)", "Transformer(8, 2, 1, 1, 16)"])
def test_reset_parameters_after_to_empty(name):
    """Every parametrised layer torch gives a reset_parameters (or _reset_parameters) has one, and it
    re-creates the constructor's parameters and buffers: same names, shapes, dtypes; the constants
    (norm weights 1, biases 0, running stats, padding rows) equal."""
    def state(module):
        with module.device("meta"):
            m = eval("nn." + name, {"nn": module.nn})
        m.to_empty(device="cpu")
        (getattr(m, "reset_parameters", None) or m._reset_parameters)()
        return m.state_dict()

    def constant(t):
        v = t.float().reshape(-1).tolist()
        return v if len(set(v)) == 1 else None
    got, expected = state(webtorch), state(torch)
    assert list(got) == list(expected)
    for k, v in expected.items():
        assert tuple(got[k].shape) == tuple(v.shape) and got[k].dtype.name == str(v.dtype)[6:], k
        if constant(v) is not None and (v.numel() > 1 or v.dtype == torch.int64):
            assert constant(got[k]) == constant(v), k
