"""Issue 14's layers as Modules against PyTorch: the same construction gives the same repr,
parameter and buffer names; with torch's weights copied, the same outputs and gradients (webgpu
and cpu). Their functional forms are rows of tests/nn_cases.py."""
import warnings

import pytest
import torch

import webtorch
from module_compare import DEVICES, close, compare


def constructions(T):
    nn = T.nn
    return [nn.SELU(), nn.CELU(0.5), nn.LogSigmoid(), nn.Softsign(), nn.Tanhshrink(), nn.Threshold(0.1, 20.0),
            nn.Hardsigmoid(), nn.Softmin(1), nn.Softmax2d(), nn.GLU(), nn.PReLU(3), nn.PixelShuffle(2),
            nn.PixelUnshuffle(2), nn.ChannelShuffle(2), nn.Fold((4, 5), (2, 2)), nn.Unfold((2, 3), padding=1),
            nn.ReflectionPad1d(2), nn.ReflectionPad2d((1, 2, 0, 1)), nn.ReplicationPad1d(1), nn.ReplicationPad2d(1),
            nn.ZeroPad2d(2), nn.ConstantPad1d(2, 3.5), nn.ConstantPad2d((1, 0, 2, 0), 1.0), nn.ConstantPad3d(1, 0.0),
            nn.InstanceNorm1d(3), nn.InstanceNorm2d(3, affine=True, track_running_stats=True), nn.Dropout1d(0.2),
            nn.Dropout2d(), nn.AlphaDropout(0.1), nn.Upsample(scale_factor=2, mode="bilinear"),
            nn.Upsample(size=(3, 4)), nn.Bilinear(2, 3, 4), nn.MaxPool1d(2), nn.AvgPool1d(3, 2, 1),
            nn.AdaptiveAvgPool1d(3), nn.AdaptiveMaxPool1d(2), nn.AdaptiveMaxPool2d((2, 3)), nn.LPPool2d(2, 3),
            nn.LPPool1d(2, 3), nn.EmbeddingBag(5, 3, mode="sum"), nn.CosineEmbeddingLoss(), nn.MarginRankingLoss(0.5),
            nn.TripletMarginLoss(), nn.MultiLabelSoftMarginLoss(), nn.PoissonNLLLoss(), nn.GaussianNLLLoss(),
            nn.CTCLoss(), nn.Conv3d(4, 6, (3, 2, 1), stride=2, padding=1, groups=2, bias=False),
            nn.Conv3d(2, 4, 3, padding_mode="circular"), nn.Conv2d(2, 3, 3, padding="same", padding_mode="reflect"),
            nn.ConvTranspose3d(4, 2, 3, stride=2, output_padding=1, dilation=2), nn.ConvTranspose1d(3, 2, 4),
            nn.MaxPool3d(3, 2, 1, ceil_mode=True), nn.AvgPool3d((2, 3, 2), count_include_pad=False),
            nn.AdaptiveAvgPool3d((2, None, 3)), nn.AdaptiveMaxPool3d(2), nn.BatchNorm3d(4, momentum=0.2),
            nn.InstanceNorm3d(3, affine=True), nn.ReflectionPad3d(1), nn.ReplicationPad3d((1, 0, 2, 1, 0, 1)),
            nn.ZeroPad3d(2), nn.CircularPad1d(2), nn.CircularPad3d((1, 0, 2, 1, 0, 1)), nn.MaxUnpool1d(2),
            nn.MaxUnpool3d(2, 1), nn.LPPool3d(2, 3), nn.LocalResponseNorm(2, k=2), nn.MultiMarginLoss(p=2, margin=0.5),
            nn.MultiLabelMarginLoss(), nn.TripletMarginWithDistanceLoss(), nn.RReLU(0.1, 0.3, inplace=True),
            nn.RReLU(), nn.Dropout3d(), nn.FeatureAlphaDropout(0.2), nn.SyncBatchNorm(3, affine=False)]


def test_conv_argument_errors_match_torch():
    for args in [dict(padding_mode="wrap"), dict(groups=0)]:
        with pytest.raises(ValueError):
            torch.nn.Conv3d(4, 4, 3, **args)
        with pytest.raises(ValueError):
            webtorch.nn.Conv3d(4, 4, 3, **args)
    for T in (torch, webtorch):
        with pytest.raises(ValueError, match="zeros"):
            T.nn.ConvTranspose3d(2, 2, 3, padding_mode="reflect")
        with pytest.raises(ValueError, match="expected 5D input"):
            T.nn.BatchNorm3d(2)(T.ones(2, 2, 3, 3))
        with pytest.raises(ValueError, match="valid sizes range from"):
            T.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)(T.ones(1, 2, 4, 5), output_size=(9, 9))


def test_sync_batch_norm_converts_and_checks_like_torch():
    for T in (torch, webtorch):
        bn = T.nn.BatchNorm2d(3)
        converted = T.nn.SyncBatchNorm.convert_sync_batchnorm(T.nn.Sequential(T.nn.Conv2d(3, 3, 1), bn).eval())
        assert type(converted[1]) is T.nn.SyncBatchNorm and converted[1].weight is bn.weight
        assert converted[1].running_mean is bn.running_mean and not converted[1].training
        with pytest.raises(ValueError, match="expected at least 2D input"):
            T.nn.SyncBatchNorm(3)(T.ones(3))
        with pytest.raises(ValueError, match="only p == 1 and p == 2"):
            T.nn.MultiMarginLoss(p=3)
        asm = T.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])
        with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 5\], but values in range \[0, 6\]"):
            asm(T.ones(2, 4), T.tensor([0, 6]))
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            T.nn.init.kaiming_uniform_(T.empty(0, 3))  # AdaptiveLogSoftmaxWithLoss's tails can be 0 wide
        with pytest.raises(ValueError, match="cutoffs should be a sequence of unique"):
            T.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [3, 2])
        assert asm.predict(T.ones(3, 4)).shape == (3,) and type(asm(T.ones(2, 4), T.tensor([0, 5]))).__name__ == "_ASMoutput"


def test_construction_matches_torch():
    for ref, mine in zip(constructions(torch), constructions(webtorch)):
        assert repr(mine) == repr(ref)
        assert [(n, tuple(p.shape)) for n, p in mine.named_parameters()] == \
            [(n, tuple(p.shape)) for n, p in ref.named_parameters()]
        assert [n for n, _ in mine.named_buffers()] == [n for n, _ in ref.named_buffers()]


MODULES = {
    "prelu": (lambda T: T.nn.PReLU(3), lambda: [torch.randn(2, 3, 4)]),
    "bilinear": (lambda T: T.nn.Bilinear(3, 2, 4), lambda: [torch.randn(5, 3), torch.randn(5, 2)]),
    "instance-norm-2d-affine-running": (lambda T: T.nn.InstanceNorm2d(3, affine=True, track_running_stats=True),
                                        lambda: [torch.randn(2, 3, 4, 4)]),
    "instance-norm-1d-unbatched": (lambda T: T.nn.InstanceNorm1d(3), lambda: [torch.randn(3, 7)]),
    "reflection-replication-pads": (lambda T: T.nn.Sequential(T.nn.ReflectionPad2d((1, 2, 0, 1)),
                                                              T.nn.ReplicationPad2d(1), T.nn.ZeroPad2d((0, 1, 2, 0)),
                                                              T.nn.ConstantPad2d(1, 0.5)),
                                    lambda: [torch.randn(1, 2, 3, 4)]),
    "pads-1d": (lambda T: T.nn.Sequential(T.nn.ReflectionPad1d(2), T.nn.ReplicationPad1d((0, 3)),
                                          T.nn.ConstantPad1d((1, 0), -1.0)), lambda: [torch.randn(2, 3, 4)]),
    "embedding-bag-mean": (lambda T: T.nn.EmbeddingBag(6, 3), lambda: [torch.randn(1)]),
    "weight-norm-linear": (lambda T: T.nn.utils.parametrizations.weight_norm(T.nn.Linear(4, 3)),
                           lambda: [torch.randn(5, 4)]),
    "weight-norm-conv-dim1": (lambda T: T.nn.utils.parametrizations.weight_norm(T.nn.Conv2d(2, 3, 2), dim=1),
                              lambda: [torch.randn(1, 2, 4, 4)]),
    "weight-norm-dim-none": (lambda T: T.nn.utils.parametrizations.weight_norm(T.nn.Linear(2, 2), dim=None),
                             lambda: [torch.randn(3, 2)]),
    # the older hook forms (weight_g/weight_v, weight_orig with u/v buffers) and spectral_norm's parametrization:
    # torch's u and v are copied with the weights, then each training call runs one power iteration
    "weight-norm-hook": (lambda T: T.nn.utils.weight_norm(T.nn.Conv1d(2, 3, 2), dim=None),
                         lambda: [torch.randn(2, 2, 5)]),
    "spectral-norm-hook": (lambda T: T.nn.Sequential(T.nn.utils.spectral_norm(T.nn.Linear(4, 3)),
                                                     T.nn.utils.spectral_norm(T.nn.Linear(3, 2), n_power_iterations=3)),
                           lambda: [torch.randn(5, 4)], lambda T, m, x: (m(x), m(x))),
    "spectral-norm-parametrized": (lambda T: T.nn.Sequential(
        T.nn.utils.parametrizations.spectral_norm(T.nn.ConvTranspose2d(2, 3, 2)), T.nn.Flatten(),
        T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(27, 2), n_power_iterations=2)),
        lambda: [torch.randn(2, 2, 2, 2)], lambda T, m, x: (m(x), m(x))),
    # issue 22's remaining torch.nn modules (random ones in eval mode)
    "circular-pads-lppool3d-lrn": (lambda T: T.nn.Sequential(T.nn.CircularPad3d((1, 0, 2, 1, 0, 1)), T.nn.LPPool3d(2, 2),
                                                             T.nn.LocalResponseNorm(3, k=2.0), T.nn.Flatten(3),
                                                             T.nn.CircularPad2d(1), T.nn.Flatten(2),
                                                             T.nn.CircularPad1d((2, 1))),
                                   lambda: [torch.randn(2, 3, 3, 4, 3)]),
    "max-unpool": (lambda T: T.nn.MaxUnpool2d(2, stride=2), lambda: [torch.randn(2, 3, 4, 4)],
                   lambda T, m, x: m(*T.nn.functional.max_pool2d(x, 2, return_indices=True), output_size=(5, 5))),
    "random-modules-eval": (lambda T: T.nn.Sequential(T.nn.RReLU(0.1, 0.3), T.nn.Dropout3d(), T.nn.FeatureAlphaDropout()),
                            lambda: [torch.randn(2, 3, 2, 2, 2)], lambda T, m, x: m.eval()(x)),
    "margin-loss-modules": (lambda T: T.nn.ModuleList([T.nn.MultiMarginLoss(p=2, margin=0.5, weight=T.ones(4) / 2),
                                                       T.nn.MultiLabelMarginLoss(reduction="sum"),
                                                       T.nn.TripletMarginWithDistanceLoss(swap=True)]),
                            lambda: [torch.randn(3, 4)],
                            lambda T, m, x: (m[0](x, T.tensor([2, 0, 3], device=x.device)),
                                             m[1](x, T.tensor([[3, 0, -1, 1]] * 3, device=x.device)),
                                             m[2](x, x.flip(0), x * 2))),
    "sync-batch-norm-one-process": (lambda T: T.nn.SyncBatchNorm(3, momentum=0.3), lambda: [torch.randn(4, 3, 2, 2)],
                                    lambda T, m, x: (m(x), m(x[:, :, 0]), m.running_mean, m.running_var)),
    "adaptive-log-softmax": (lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True),
                             lambda: [torch.randn(5, 8)],
                             lambda T, m, x: (m(x, T.tensor([0, 4, 9, 2, 6], device=x.device)), m.log_prob(x),
                                              m(x[0], T.tensor(7, device=x.device)))),
    # the 3-d family, and padding modes other than zeros (torch pads with F.pad first, then convolves)
    "conv3d-groups-stride": (lambda T: T.nn.Conv3d(4, 6, (3, 2, 2), stride=(2, 1, 2), padding=1, dilation=(1, 2, 1),
                                                   groups=2), lambda: [torch.randn(2, 4, 5, 5, 4)]),
    "conv3d-padding-modes": (lambda T: T.nn.Sequential(T.nn.Conv3d(2, 3, 3, padding=1, padding_mode="reflect"),
                                                       T.nn.Conv3d(3, 2, (2, 3, 3), padding="same",
                                                                   padding_mode="replicate"),
                                                       T.nn.Conv3d(2, 2, 3, padding=(0, 1, 2), padding_mode="circular")),
                             lambda: [torch.randn(1, 2, 4, 5, 4)]),
    "conv2d-conv1d-padding-modes": (lambda T: T.nn.Sequential(T.nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"),
                                                              T.nn.Conv2d(3, 2, 2, padding="same",
                                                                          padding_mode="circular"),
                                                              T.nn.Flatten(2),
                                                              T.nn.Conv1d(2, 2, 3, padding=2, padding_mode="replicate")),
                                    lambda: [torch.randn(2, 2, 4, 5)]),
    "conv-transpose-3d-1d": (lambda T: T.nn.Sequential(T.nn.ConvTranspose3d(4, 2, 3, stride=2, padding=1,
                                                                              output_padding=1, groups=2),
                                                       T.nn.Flatten(2), T.nn.ConvTranspose1d(2, 3, 3, stride=2)),
                             lambda: [torch.randn(1, 4, 2, 3, 2)]),
    "conv-transpose-output-size": (lambda T: T.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1),
                                   lambda: [torch.randn(1, 2, 4, 5)], lambda T, m, x: (m(x, output_size=(8, 10)),
                                                                                      m(x, output_size=[1, 3, 7, 9]))),
    "pool3d": (lambda T: T.nn.Sequential(T.nn.MaxPool3d(2, 1, ceil_mode=True), T.nn.AvgPool3d(3, 2, 1),
                                         T.nn.AdaptiveAvgPool3d((3, 2, None)), T.nn.AdaptiveMaxPool3d((2, 1, 2))),
               lambda: [torch.randn(2, 3, 6, 5, 6)]),
    "pads-3d": (lambda T: T.nn.Sequential(T.nn.ReflectionPad3d((1, 0, 2, 1, 0, 1)), T.nn.ReplicationPad3d(1),
                                          T.nn.ZeroPad3d((0, 1, 0, 0, 2, 0))), lambda: [torch.randn(1, 2, 2, 3, 3)]),
    "batch-norm-3d-train": (lambda T: T.nn.BatchNorm3d(3, momentum=0.3), lambda: [torch.randn(2, 3, 3, 4, 2)]),
    "instance-norm-3d-affine": (lambda T: T.nn.InstanceNorm3d(3, affine=True, track_running_stats=True),
                                lambda: [torch.randn(2, 3, 3, 2, 4)]),
    "upsample-fold-unfold": (lambda T: T.nn.Sequential(T.nn.Upsample(scale_factor=2, mode="bilinear"),
                                                       T.nn.Unfold(2, stride=2), T.nn.Fold((4, 6), 2, stride=2)),
                             lambda: [torch.randn(1, 2, 2, 3)]),
}


def call(T, m, x, *rest):
    if isinstance(m, T.nn.EmbeddingBag):  # the input is indices (the float input only keeps compare's form)
        idx = T.tensor([0, 2, 5, 1, 1], device=None if T is torch else x.device)
        return m(idx, T.tensor([0, 2], device=None if T is torch else x.device)) + x
    return m(x, *rest)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(MODULES))
def test_module_matches_torch(name, device):
    build, make_inputs, *own_call = MODULES[name]  # a third item: how to call the module
    compare(build, make_inputs, device, own_call[0] if own_call else call, train=True)


def test_instance_norm_running_stats_and_eval_match_torch():
    torch.manual_seed(0)
    x = torch.randn(4, 3, 5)
    stats = []
    for T in (torch, webtorch):
        m = T.nn.InstanceNorm1d(3, track_running_stats=True, momentum=0.2)
        xb = x if T is torch else webtorch.tensor(x.tolist())
        m(xb)
        m(xb * 2)
        m.eval()
        stats.append([m.running_mean.tolist(), m.running_var.tolist(), m(xb).tolist()])
    assert webtorch.tensor(stats[1][2]).allclose(webtorch.tensor(stats[0][2]), atol=1e-5)
    assert stats[1][0] == pytest.approx(stats[0][0], abs=1e-6) and stats[1][1] == pytest.approx(stats[0][1], rel=1e-5)


def test_channel_dropouts_and_alpha_dropout():
    webtorch.manual_seed(0)
    x = webtorch.ones(200, 8, 3)
    out = webtorch.nn.Dropout1d(0.25)(x)
    per_channel = out.reshape(200 * 8, 3).tolist()
    assert all(len(set(row)) == 1 for row in per_channel)  # whole channels kept or dropped
    assert {round(row[0], 5) for row in per_channel} == {0.0, round(4 / 3, 5)}
    assert 0.2 < sum(row[0] == 0 for row in per_channel) / len(per_channel) < 0.3
    assert webtorch.nn.Dropout2d(0.5).eval()(x).equal(x)
    selu_like = webtorch.randn(100000)
    dropped = webtorch.nn.AlphaDropout(0.2)(selu_like)
    assert abs(dropped.mean().item()) < 0.02 and abs(dropped.std().item() - 1) < 0.02  # moments kept
    assert webtorch.nn.AlphaDropout(0.2).eval()(selu_like).equal(selu_like)
    with pytest.raises(NotImplementedError, match="ctc_loss"):
        webtorch.nn.CTCLoss()(x, x, x, x)


def test_parameters_to_vector_round_trip_matches_torch():
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Conv1d(2, 2, 2))
    mine = webtorch.nn.Sequential(webtorch.nn.Linear(3, 2), webtorch.nn.Conv1d(2, 2, 2))
    mine.load_state_dict({k: webtorch.tensor(v.tolist()) for k, v in ref.state_dict().items()})
    assert webtorch.nn.utils.parameters_to_vector(mine.parameters()).tolist() == \
        torch.nn.utils.parameters_to_vector(ref.parameters()).tolist()
    vec = torch.arange(float(sum(p.numel() for p in ref.parameters())))
    torch.nn.utils.vector_to_parameters(vec, ref.parameters())
    webtorch.nn.utils.vector_to_parameters(webtorch.tensor(vec.tolist()), mine.parameters())
    assert [p.tolist() for p in mine.parameters()] == [p.tolist() for p in ref.parameters()]
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        webtorch.nn.utils.vector_to_parameters([1.0], mine.parameters())
    wn = webtorch.nn.utils.parametrizations.weight_norm(webtorch.nn.Linear(3, 2))
    webtorch.nn.utils.parametrize.remove_parametrizations(wn, "weight")
    assert type(wn) is webtorch.nn.Linear and list(wn.state_dict()) == ["bias", "weight"]


LOSS_CONSTRUCTIONS = [
    ("MarginRankingLoss", (0.5,), {}), ("CosineEmbeddingLoss", (0.3,), {}), ("TripletMarginLoss", (2.0, 1.0, 1e-3, True), {}),
    ("PoissonNLLLoss", (False, True), {}), ("PoissonNLLLoss", (True, False, None, 1e-4), {}),
    ("KLDivLoss", (None, None, "batchmean", True), {}), ("HuberLoss", ("sum", 0.5), {}),
    ("SmoothL1Loss", (None, None, "none", 0.3), {}), ("NLLLoss", (None, None, 1), {}),
    ("CrossEntropyLoss", (None, None, -100, None, "sum", 0.1), {}), ("MSELoss", (False,), {}),
    ("L1Loss", (None, False), {}), ("BCELoss", (), {"size_average": False}), ("GaussianNLLLoss", (), {"full": True}),
    ("MultiLabelSoftMarginLoss", (None, None, None, "sum"), {}),
]


@pytest.mark.parametrize("name, args, kwargs", LOSS_CONSTRUCTIONS, ids=[f"{c[0]}-{i}" for i, c in
                                                                       enumerate(LOSS_CONSTRUCTIONS)])
def test_loss_constructor_arguments_match_torch(name, args, kwargs):
    """Positional arguments in torch's order (MarginRankingLoss(0.5) kept a margin of 0.0), the legacy
    size_average/reduce turned into reduction, with torch's warning."""
    made, warned = {}, {}
    for T in (torch, webtorch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            made[T] = getattr(T.nn, name)(*args, **kwargs)
        warned[T] = [str(w.message) for w in caught]
    assert warned[webtorch] == warned[torch]
    mine, ref = made[webtorch], made[torch]
    fields = [k for k in ("margin", "p", "eps", "swap", "log_input", "full", "log_target", "delta", "beta",
                          "ignore_index", "label_smoothing", "reduction") if hasattr(ref, k)]
    assert {k: getattr(mine, k) for k in fields} == {k: getattr(ref, k) for k in fields}


def test_loss_constructor_errors_match_torch():
    for T in (torch, webtorch):
        with pytest.raises(TypeError, match="unexpected keyword argument 'margn'"):
            T.nn.MarginRankingLoss(margn=0.5)
        with pytest.raises(TypeError, match="positional argument"):
            T.nn.GaussianNLLLoss(True)
        with pytest.raises(TypeError, match="positional arguments but 6 were given"):
            T.nn.MarginRankingLoss(0.5, None, None, "mean", 1)


def _norm_forms(T):
    """What each weight/spectral norm form leaves after removal or a parametrize assignment: names and values."""
    utils = T.nn.utils
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = utils.weight_norm(T.nn.Linear(3, 2))
        out["weight-norm-keys"] = list(m.state_dict())
        out["weight-norm-removed"] = (list(utils.remove_weight_norm(m).state_dict()), m.weight.shape)
        m = utils.spectral_norm(T.nn.Linear(3, 2))
        out["spectral-norm-keys"] = list(m.state_dict())
        out["spectral-norm-removed"] = list(utils.remove_spectral_norm(m).state_dict())
        for name, fn in (("twice", lambda: utils.spectral_norm(utils.spectral_norm(T.nn.Linear(2, 2)))),
                         ("remove-missing", lambda: utils.remove_weight_norm(T.nn.Linear(2, 2))),
                         ("iterations", lambda: utils.spectral_norm(T.nn.Linear(2, 2), n_power_iterations=0)),
                         ("no-tensor", lambda: utils.parametrizations.spectral_norm(T.nn.Linear(2, 2), "nope")),
                         ("shape-changing", lambda: utils.parametrize.register_parametrization(
                             T.nn.Linear(2, 2), "weight", T.nn.Flatten(0)))):
            try:
                fn()
                out[name] = "ok"
            except Exception as e:  # noqa: BLE001 - compared
                out[name] = (type(e).__name__, str(e).split("\n")[0].replace("webtorch.", "torch."))

    class Double(T.nn.Module):
        def forward(self, x):
            return x * 2

        def right_inverse(self, x):
            return x / 2
    m = T.nn.Linear(2, 2)
    weight = m.weight
    utils.parametrize.register_parametrization(m, "weight", Double())
    m.weight = T.ones(2, 2)  # the setter: right_inverse into the same original Parameter
    out["assigned"] = (m.parametrizations.weight.original is weight, weight.tolist(), m.weight.tolist())
    with utils.parametrize.cached():
        out["cached"] = m.weight is m.weight
    out["uncached"] = m.weight is m.weight
    utils.parametrize.remove_parametrizations(m, "weight")
    out["restored"] = (type(m).__name__, m.weight is weight)
    return out


def test_norm_forms_remove_assign_and_errors_match_torch():
    assert _norm_forms(webtorch) == _norm_forms(torch)


LAZY = {  # name -> (build, input shape)
    "LazyLinear": (lambda T: T.nn.LazyLinear(3), (2, 5)),
    "LazyConv1d": (lambda T: T.nn.LazyConv1d(4, 3, 2, 1), (2, 3, 7)),
    "LazyConv2d-groups": (lambda T: T.nn.LazyConv2d(4, 3, groups=2, bias=False), (1, 2, 5, 5)),
    "LazyConv3d-unbatched": (lambda T: T.nn.LazyConv3d(2, 2), (3, 3, 3, 3)),
    "LazyConvTranspose2d": (lambda T: T.nn.LazyConvTranspose2d(4, 3, 2, 1, 1, 2), (1, 4, 3, 3)),
    "LazyBatchNorm2d": (lambda T: T.nn.LazyBatchNorm2d(momentum=0.3), (2, 3, 2, 2)),
    "LazyInstanceNorm1d-affine": (lambda T: T.nn.LazyInstanceNorm1d(affine=True), (2, 3, 4)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(LAZY))
def test_lazy_module_initializes_like_torch(name, device):
    """Before the first call: torch's repr, state_dict names and uninitialized parameters; the call
    materializes them from the input and turns the module into its ordinary class; with torch's values
    loaded, a second call gives torch's outputs and gradients."""
    build, shape = LAZY[name]
    ref, mine = build(torch), build(webtorch).to(device)
    assert repr(mine) == repr(ref) and list(mine.state_dict()) == list(ref.state_dict())
    assert [type(p).__name__ for p in mine.parameters()] == [type(p).__name__ for p in ref.parameters()]
    x = torch.randn(*shape)
    ref(x)
    mine(webtorch.tensor(x.tolist(), device=device))
    assert type(mine).__name__ == type(ref).__name__ and repr(mine) == repr(ref)
    assert [(k, tuple(v.shape)) for k, v in mine.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in ref.state_dict().items()]
    mine.load_state_dict({k: webtorch.tensor(v.tolist(), dtype=getattr(webtorch, str(v.dtype)[6:]))
                          for k, v in ref.state_dict().items()})
    x = torch.randn(*shape, requires_grad=True)
    mx = webtorch.tensor(x.tolist(), device=device, requires_grad=True)
    out, mout = ref(x), mine(mx)
    close(mout, out, 1e-4)
    out.square().sum().backward()
    mout.square().sum().backward()
    close(mx.grad, x.grad, 1e-3)
    for (_, a), (_, b) in zip(mine.named_parameters(), ref.named_parameters()):
        close(a.grad, b.grad, 1e-3)


def test_uninitialized_parameter_and_lazy_load_like_torch():
    for T in (torch, webtorch):
        p = T.nn.UninitializedParameter()
        assert repr(p) == "<UninitializedParameter>" and T.nn.parameter.is_lazy(p)
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
            p.shape
        p.materialize((2, 3))
        assert type(p) is T.nn.Parameter and tuple(p.shape) == (2, 3) and not T.nn.parameter.is_lazy(p)
        m = T.nn.LazyLinear(3)
        m.load_state_dict({k: T.zeros(v.shape) for k, v in torch.nn.Linear(5, 3).state_dict().items()})
        assert type(m).__name__ == "LazyLinear" and tuple(m.weight.shape) == (3, 5)  # the class changes at the call
        m(T.ones(1, 5))
        assert type(m) is T.nn.Linear


@pytest.mark.parametrize("device", DEVICES)
def test_gumbel_softmax_samples_and_straight_through(device):
    """Random, so checked by its properties: soft samples are distributions along dim; hard ones one-hot
    at the soft sample's argmax, with the soft sample's gradient (torch's straight-through estimator)."""
    x = webtorch.randn(6, 5, device=device, requires_grad=True)
    soft = webtorch.nn.functional.gumbel_softmax(x, tau=0.7, dim=0)
    assert soft.sum(0).tolist() == pytest.approx([1.0] * 5, abs=1e-5) and bool((soft > 0).all())
    webtorch.manual_seed(3)
    hard = webtorch.nn.functional.gumbel_softmax(x, hard=True)
    webtorch.manual_seed(3)
    again = webtorch.nn.functional.gumbel_softmax(x)
    assert hard.tolist() == webtorch.nn.functional.one_hot(again.argmax(-1), 5).float().tolist()
    weights = webtorch.randn(6, 5, device=device)
    (hard * weights).sum().backward()
    ref = x.grad.clone()
    x.grad = None
    (again * weights).sum().backward()
    assert ref.flatten().tolist() == pytest.approx(x.grad.flatten().tolist(), abs=1e-6)


def test_factory_kwargs_like_torch():
    def outcome(T, kwargs):
        try:
            return sorted(T.nn.factory_kwargs(kwargs))
        except TypeError as e:
            return str(e)
    for kwargs in ({"device": "cpu", "factory_kwargs": {"dtype": None}}, None, {"bias": True},
                   {"dtype": None, "factory_kwargs": {"dtype": None}}):
        assert outcome(webtorch, kwargs) == outcome(torch, kwargs)
