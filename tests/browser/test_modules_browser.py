"""Issue 14's modules, optimizers and schedulers inside Pyodide (module worker), on webgpu and the
pure-Python cpu device, against values torch produced on the host: each layer built from the same
source with torch's weights gives torch's outputs and gradients (tests/test_layers.py, test_rnn.py,
test_transformer.py have the full host checks); each optimizer's trajectory and each scheduler's
learning rates are torch's."""
import json

import pytest

# (name, module source over T, inputs, call source over m and x): an input is ("f", shape) for a
# float tensor that takes a gradient, ("t", shape) positive and ("s", shape) +-1 floats that do not,
# ("i", shape, high) integers, ("c", values) integer constants.
MODULES = [
    ("selu-celu", "T.nn.Sequential(T.nn.SELU(), T.nn.CELU(0.5))", [("f", (2, 3))], None),
    ("logsigmoid-softsign-tanhshrink", "T.nn.Sequential(T.nn.LogSigmoid(), T.nn.Softsign(), T.nn.Tanhshrink())",
     [("f", (2, 3))], None),
    ("threshold-hardsigmoid", "T.nn.Sequential(T.nn.Threshold(0.1, 20.0), T.nn.Hardsigmoid())", [("f", (2, 5))], None),
    ("softmin", "T.nn.Softmin(1)", [("f", (2, 4))], None),
    ("softmax2d", "T.nn.Softmax2d()", [("f", (1, 2, 3, 3))], None),
    ("glu", "T.nn.GLU()", [("f", (2, 4))], None),
    ("prelu", "T.nn.PReLU(3)", [("f", (2, 3, 4))], None),
    ("pixel-shuffle-unshuffle", "T.nn.Sequential(T.nn.PixelShuffle(2), T.nn.PixelUnshuffle(2))",
     [("f", (1, 4, 2, 3))], None),
    ("channel-shuffle", "T.nn.ChannelShuffle(2)", [("f", (1, 4, 2, 2))], None),
    ("fold", "T.nn.Fold((4, 5), (2, 2))", [("f", (1, 4, 12))], None),
    ("unfold", "T.nn.Unfold((2, 3), padding=1)", [("f", (1, 2, 3, 4))], None),
    ("pads-2d", "T.nn.Sequential(T.nn.ReflectionPad2d((1, 2, 0, 1)), T.nn.ReplicationPad2d(1), "
                "T.nn.ZeroPad2d((0, 1, 2, 0)), T.nn.ConstantPad2d(1, 0.5))", [("f", (1, 2, 3, 4))], None),
    ("pads-1d-3d", "T.nn.Sequential(T.nn.ReflectionPad1d(2), T.nn.ReplicationPad1d((0, 3)), T.nn.ConstantPad1d(1, 3.5))",
     [("f", (2, 3, 4))], None),
    ("constant-pad-3d", "T.nn.ConstantPad3d(1, -1.0)", [("f", (1, 1, 2, 2, 2))], None),
    ("instance-norm-1d", "T.nn.InstanceNorm1d(3)", [("f", (2, 3, 5))], None),
    ("instance-norm-2d-affine", "T.nn.InstanceNorm2d(3, affine=True, track_running_stats=True)",
     [("f", (2, 3, 4, 4))], None),
    ("upsample-bilinear", "T.nn.Upsample(scale_factor=2, mode='bilinear')", [("f", (1, 2, 3, 3))], None),
    ("upsample-nearest-size", "T.nn.Upsample(size=(3, 4))", [("f", (1, 1, 2, 2))], None),
    ("bilinear", "T.nn.Bilinear(2, 3, 4)", [("f", (5, 2)), ("f", (5, 3))], None),
    ("pools-1d", "T.nn.Sequential(T.nn.MaxPool1d(2), T.nn.AvgPool1d(3, 2, 1), T.nn.AdaptiveAvgPool1d(3))",
     [("f", (1, 2, 12))], None),
    ("adaptive-max-pools", "T.nn.AdaptiveMaxPool1d(2)", [("f", (1, 2, 7))], None),
    ("adaptive-max-pool-2d", "T.nn.AdaptiveMaxPool2d((2, 3))", [("f", (1, 2, 5, 6))], None),
    ("lp-pools", "T.nn.LPPool2d(2, 3)", [("f", (1, 2, 6, 6))], None),
    ("embedding-bag-sum", "T.nn.EmbeddingBag(5, 3, mode='sum')", [("i", (5,), 5), ("c", [0, 2])], None),
    ("cosine-embedding-loss", "T.nn.CosineEmbeddingLoss()", [("f", (3, 4)), ("f", (3, 4)), ("s", (3,))], None),
    ("margin-ranking-loss", "T.nn.MarginRankingLoss(0.5)", [("f", (4,)), ("f", (4,)), ("s", (4,))], None),
    ("triplet-margin-loss", "T.nn.TripletMarginLoss()", [("f", (3, 4)), ("f", (3, 4)), ("f", (3, 4))], None),
    ("multilabel-soft-margin-loss", "T.nn.MultiLabelSoftMarginLoss()", [("f", (3, 4)), ("t", (3, 4))],
     "m(x[0], (x[1] > 0.6).float())"),
    ("poisson-nll-loss", "T.nn.PoissonNLLLoss()", [("f", (3, 4)), ("t", (3, 4))], None),
    ("gaussian-nll-loss", "T.nn.GaussianNLLLoss()", [("f", (3, 4)), ("t", (3, 4)), ("t", (3, 4))], None),
    ("weight-norm", "T.nn.utils.parametrizations.weight_norm(T.nn.Linear(4, 3))", [("f", (5, 4))], None),
    ("rnn-2-layers-batch-first", "T.nn.RNN(3, 4, num_layers=2, batch_first=True)", [("f", (2, 5, 3))], None),
    ("gru-bidirectional", "T.nn.GRU(3, 4, bidirectional=True)", [("f", (5, 2, 3))], None),
    ("lstm-proj", "T.nn.LSTM(3, 4, proj_size=2)", [("f", (5, 2, 3))], None),
    ("cells", "T.nn.ModuleList([T.nn.RNNCell(3, 4), T.nn.LSTMCell(3, 4), T.nn.GRUCell(3, 4)])", [("f", (2, 3))],
     "[m[0](x[0]), m[1](x[0])[1], m[2](x[0], m[0](x[0]))]"),
    ("transformer-masked", "T.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, "
                           "dim_feedforward=16, dropout=0.0)", [("f", (5, 2, 8)), ("f", (4, 2, 8))],
     "m(x[0], x[1], tgt_mask=T.nn.Transformer.generate_square_subsequent_mask(4, device=x[0].device))"),
    ("transformer-decoder-norm-first-gelu", "T.nn.TransformerDecoder(T.nn.TransformerDecoderLayer(8, 2, 16, "
                                           "dropout=0.0, norm_first=True, activation='gelu'), num_layers=2)",
     [("f", (4, 2, 8)), ("f", (5, 2, 8))], None),
    ("multihead-attention-options", "T.nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True, kdim=6, vdim=5)",
     [("f", (4, 2, 8)), ("f", (3, 2, 6)), ("f", (3, 2, 5))],
     "m(x[0], x[1], x[2], need_weights=True, average_attn_weights=False)"),
]

# An optimizer's 3 steps on f(p) = sum((p - 1)^2 * [1, 2, 3]) + p0 * p1 from p = [0.5, -1, 2].
OPTIMIZERS = ["T.optim.Adadelta([p], lr=0.5)", "T.optim.Adamax([p], lr=0.1, weight_decay=0.01)",
              "T.optim.NAdam([p], lr=0.1)", "T.optim.RAdam([p], lr=0.1)", "T.optim.LBFGS([p], lr=0.5, max_iter=4)"]

# A scheduler's learning rates over 7 steps of SGD(lr=0.1).
SCHEDULERS = [
    "S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2, eta_min=0.01)",
    "S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2)",
    "S.PolynomialLR(o, total_iters=4, power=2.0)",
    "S.ConstantLR(o, factor=0.5, total_iters=3)",
    "S.SequentialLR(o, [S.ConstantLR(o, factor=0.1, total_iters=2), S.ExponentialLR(o, gamma=0.9)], milestones=[2])",
    "S.ChainedScheduler([S.ConstantLR(o, factor=0.1, total_iters=2), S.ExponentialLR(o, gamma=0.9)])",
]

# Each optimizer's trajectory and each scheduler's learning rates, into result; run by torch on the host
# (devices cpu) and by webtorch in the browser (webgpu and cpu).
TRAJECTORIES = """
for device in devices:
    for source in OPTIMIZERS:
        p = T.tensor([0.5, -1.0, 2.0], device=device, requires_grad=True)
        o = eval(source)
        def closure():
            o.zero_grad()
            loss = ((p - 1) ** 2 * T.tensor([1.0, 2.0, 3.0], device=device)).sum() + p[0] * p[1]
            loss.backward()
            return loss
        for _ in range(3):
            o.step(closure)
        result[f"{device} {source}"] = p.tolist()
for source in SCHEDULERS:
    o = T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1)
    s = eval(source)
    lrs = []
    for _ in range(7):
        o.step()
        s.step()
        lrs.append(o.param_groups[0]["lr"])
    result[source] = lrs
"""

PROGRAM = """
import json
import webtorch as T
golden = json.loads({golden!r})
MODULES, OPTIMIZERS, SCHEDULERS = {modules!r}, {optimizers!r}, {schedulers!r}
S = T.optim.lr_scheduler


def flat_outputs(out):
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in flat_outputs(item)]
    return [] if out is None else [out]


result = {{}}
for device in ("webgpu", "cpu"):
    for name, source, specs, call in MODULES:
        case = golden[name]
        m = eval(source)
        m.load_state_dict({{k: T.tensor(v) for k, v in case["state"].items()}})
        m.to(device)
        x = [T.tensor(v, device=device, requires_grad=spec[0] == "f") for v, spec in zip(case["inputs"], specs)]
        outs = flat_outputs(eval(call) if call else m(*x))
        sum((o * T.tensor(w, device=device)).sum() for o, w in zip(outs, case["weights"])).backward()
        result[f"{{device}} {{name}}"] = dict(
            outputs=[o.tolist() for o in outs],
            grads=[t.grad.tolist() for t in x if t.requires_grad] + [p.grad.tolist() for p in m.parameters()])
devices = ("webgpu", "cpu")
{trajectories}
result
"""


def flat(values):
    return [v for item in values for v in flat(item)] if isinstance(values, list) else [values]


def torch_values():
    """The inputs, weights, outputs and gradients of each module, trajectories and learning rates, by torch."""
    import torch
    T, S = torch, torch.optim.lr_scheduler  # noqa: F841 (the sources name them)
    golden, expected = {}, {}
    for name, source, specs, call in MODULES:
        torch.manual_seed(0)
        m = eval(source)
        x = []
        for spec in specs:
            kind = spec[0]
            x.append(torch.randn(spec[1], requires_grad=True) if kind == "f" else
                     torch.rand(spec[1]) + 0.1 if kind == "t" else
                     torch.randn(spec[1]).sign() if kind == "s" else
                     torch.randint(0, spec[2], spec[1]) if kind == "i" else torch.tensor(spec[1]))
        outs = [o for o in flat_outputs(eval(call) if call else m(*x))]
        weights = [torch.randn(o.shape) for o in outs]
        sum((o * w).sum() for o, w in zip(outs, weights)).backward()
        golden[name] = dict(state={k: v.tolist() for k, v in m.state_dict().items()}, inputs=[t.tolist() for t in x],
                            weights=[w.tolist() for w in weights])
        expected[name] = dict(outputs=[o.tolist() for o in outs],
                              grads=[t.grad.tolist() for t in x if t.requires_grad] + [p.grad.tolist()
                                                                                       for p in m.parameters()])
    trajectories = {"T": torch, "S": S, "OPTIMIZERS": OPTIMIZERS, "SCHEDULERS": SCHEDULERS, "devices": ("cpu",), "result": {}}
    exec(TRAJECTORIES, trajectories)
    expected.update({key.removeprefix("cpu "): value for key, value in trajectories["result"].items()})
    return json.dumps(golden), expected


def flat_outputs(out):
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in flat_outputs(item)]
    return [] if out is None else [out]


def test_modules_optimizers_schedulers_in_browser(py_worker):
    golden, expected = torch_values()
    result = py_worker.run(PROGRAM.format(golden=golden, modules=MODULES, optimizers=OPTIMIZERS,
                                          schedulers=SCHEDULERS, trajectories=TRAJECTORIES), timeout=600)
    for device in ("webgpu", "cpu"):
        for name, *_ in MODULES:
            for key in ("outputs", "grads"):
                actual, wanted = flat(result[f"{device} {name}"][key]), flat(expected[name][key])
                assert actual == pytest.approx(wanted, rel=1e-4, abs=1e-4), (device, name, key)
        for source in OPTIMIZERS:
            assert result[f"{device} {source}"] == pytest.approx(expected[source], rel=1e-5, abs=1e-6), (device, source)
    for source in SCHEDULERS:
        assert result[source] == pytest.approx(expected[source], rel=1e-9), source
