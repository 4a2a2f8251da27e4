"""Activations against torch where code relies on their details.

`inplace=True` of the activations and dropouts (functional and module forms): the result is written
into the input, which is returned; a view writes through to its base; autograd differentiates the
in-place op and refuses a leaf that requires grad; modules keep `inplace` and show it in their repr as
torch's do. Before: F.relu/F.silu raised TypeError on the keyword and the others (and every module)
returned a new tensor, leaving the input as it was.

Gradients at the kinks: an input exactly at a bound (0 into ReLU6 after a ReLU or padding, -3 into
hardsigmoid) gets torch's one-sided derivative, and a pooling window's tied maxima give the gradient
to the first, as torch's. Before: relu6/hardtanh/hardsigmoid passed the gradient at their bounds
(clamp's rule, inclusive) where torch's hardtanh_backward gives 0; adaptive max pooling split it
among ties; the margin losses' hinge at exactly 0 gave none (relu) or half (maximum) where torch's
clamp_min passes it."""
import pytest
import torch

import webtorch

DEVICES = ["webgpu", "cpu"]
# (functional name, its arguments between the input and inplace, module name, module arguments)
CASES = [
    ("relu", (), "ReLU", ()),
    ("relu6", (), "ReLU6", ()),
    ("hardtanh", (-0.5, 0.5), "Hardtanh", (-0.5, 0.5)),
    ("leaky_relu", (0.2,), "LeakyReLU", (0.2,)),
    ("elu", (1.5,), "ELU", (1.5,)),
    ("selu", (), "SELU", ()),
    ("celu", (0.5,), "CELU", (0.5,)),
    ("silu", (), "SiLU", ()),
    ("mish", (), "Mish", ()),
    ("hardswish", (), "Hardswish", ()),
    ("hardsigmoid", (), "Hardsigmoid", ()),
    ("threshold", (0.1, 9.0), "Threshold", (0.1, 9.0)),
    ("dropout", (0.5, False), "Dropout", (0.5,)),
    ("alpha_dropout", (0.5, False), "AlphaDropout", (0.5,)),
]
VALUES = [[-7.0, -1.5, -0.25, 0.0, 0.3], [1.0, 2.5, 5.9, 6.5, 8.0]]


def close(mine, ref):
    torch.testing.assert_close(torch.tensor(mine.tolist()), ref.detach(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name,args,module,module_args", CASES, ids=[c[0] for c in CASES])
def test_inplace_writes_into_the_input(name, args, module, module_args, device):
    for positional in (False, True):  # inplace= as a keyword and as the argument after args
        x, ref = webtorch.tensor(VALUES, device=device), torch.tensor(VALUES)
        call = (lambda T, t: getattr(T.nn.functional, name)(t, *args, True)) if positional else \
            (lambda T, t: getattr(T.nn.functional, name)(t, *args, inplace=True))
        assert call(webtorch, x) is x and call(torch, ref) is ref
        close(x, ref)
    base, ref_base = webtorch.tensor(VALUES, device=device), torch.tensor(VALUES)
    getattr(webtorch.nn.functional, name)(base[:, 1:4], *args, inplace=True)
    getattr(torch.nn.functional, name)(ref_base[:, 1:4], *args, inplace=True)
    close(base, ref_base)  # through the view, columns 0 and 4 untouched
    x, ref = webtorch.tensor(VALUES, device=device), torch.tensor(VALUES)
    layer, ref_layer = getattr(webtorch.nn, module)(*module_args, inplace=True), \
        getattr(torch.nn, module)(*module_args, inplace=True)
    layer.eval(), ref_layer.eval()
    assert layer(x) is x and ref_layer(ref) is ref
    close(x, ref)
    assert repr(layer) == repr(ref_layer) and layer.inplace is True
    assert repr(getattr(webtorch.nn, module)(*module_args)) == repr(getattr(torch.nn, module)(*module_args))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name,args", [(c[0], c[1]) for c in CASES if "dropout" not in c[0]],
                         ids=[c[0] for c in CASES if "dropout" not in c[0]])
def test_inplace_gradient_matches_torch(name, args, device):
    grads = []
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        leaf = T.tensor(VALUES, device=dev, requires_grad=True)
        hidden = leaf * 1.5  # not a leaf: torch allows the in-place op
        out = getattr(T.nn.functional, name)(hidden, *args, inplace=True)
        assert out is hidden
        (out * T.tensor([[1.0, -2.0, 3.0, 0.5, 1.0]] * 2, device=dev)).sum().backward()
        grads.append(leaf.grad)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            getattr(T.nn.functional, name)(leaf, *args, inplace=True)
    close(grads[1], grads[0])


@pytest.mark.parametrize("device", DEVICES)
def test_inplace_dropout_in_training_zeroes_and_scales_the_input(device):
    x = webtorch.ones(64, 64, device=device)
    assert webtorch.nn.functional.dropout(x, 0.25, True, True) is x
    values = set(round(v, 5) for row in x.tolist() for v in row)
    assert values == {0.0, round(1 / 0.75, 5)}


KINKS = [  # (name, arguments, inputs at and beside its kinks)
    ("relu", (), [-1.0, 0.0, 1.0]),
    ("relu6", (), [-1.0, 0.0, 3.0, 6.0, 7.0]),
    ("hardtanh", (-0.5, 2.0), [-1.0, -0.5, 0.0, 2.0, 3.0]),
    ("hardsigmoid", (), [-4.0, -3.0, 0.0, 3.0, 4.0]),
    ("hardswish", (), [-4.0, -3.0, 0.0, 3.0, 4.0]),
    ("leaky_relu", (0.2,), [-1.0, 0.0, 1.0]),
    ("elu", (1.5,), [-1.0, 0.0, 1.0]),
    ("celu", (0.5,), [-1.0, 0.0, 1.0]),
    ("selu", (), [-1.0, 0.0, 1.0]),
    ("threshold", (0.5, 9.0), [0.0, 0.5, 1.0]),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name,args,values", KINKS, ids=[k[0] for k in KINKS])
def test_gradient_at_the_kinks_matches_torch(name, args, values, device):
    grads = []
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        x = T.tensor(values, device=dev, requires_grad=True)
        getattr(T.nn.functional, name)(x, *args).sum().backward()
        grads.append(x.grad)
    close(grads[1], grads[0])


TIES = [[[[1.0, 1.0, 0.0, 2.0, 2.0], [1.0, 0.0, 2.0, 2.0, 0.0], [3.0, 3.0, 3.0, 3.0, 3.0], [0.0, 5.0, 5.0, 0.0, 5.0],
          [5.0, 0.0, 0.0, 5.0, 4.0]]]]
POOLS = {
    "max_pool2d": lambda T, x: T.nn.functional.max_pool2d(x, 2, 1),
    "max_pool2d_padded": lambda T, x: T.nn.functional.max_pool2d(x, 3, 2, 1),
    "adaptive_max_pool2d": lambda T, x: T.nn.functional.adaptive_max_pool2d(x, (2, 3)),
    "adaptive_max_pool1d": lambda T, x: T.nn.functional.adaptive_max_pool1d(x[0], 2),
    "max_pool1d": lambda T, x: T.nn.functional.max_pool1d(x[0], 2),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", POOLS)
def test_pool_gradient_at_ties_matches_torch(name, device):
    grads = []
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        x = T.tensor(TIES, device=dev, requires_grad=True)
        y = POOLS[name](T, x)
        (y * T.arange(1, y.numel() + 1, dtype=T.float32, device=dev).reshape(y.shape)).sum().backward()
        grads.append(x.grad)
    close(grads[1], grads[0])


MARGIN_LOSSES = {  # inputs that put some hinges exactly at 0
    "margin_ranking_loss": lambda T, a, b: T.nn.functional.margin_ranking_loss(a[0], b[0], T.sign(b[1] - 0.5), 1.0),
    "cosine_embedding_loss": lambda T, a, b: T.nn.functional.cosine_embedding_loss(  # orthogonal rows: cos = 0
        a, T.tensor([[0.0, 0.0, 3.0, 0.0], [0.0, 1.0, 0.0, 0.0]], device=a.device) * b, -T.ones(2, device=a.device)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", MARGIN_LOSSES)
def test_margin_loss_gradient_at_the_hinge_matches_torch(name, device):
    grads = []
    for T, dev in ((torch, "cpu"), (webtorch, device)):
        a = T.tensor([[1.0, 2.0, 0.0, -1.0], [0.5, 0.0, 1.0, 2.0]], device=dev, requires_grad=True)
        b = T.tensor([[0.0, 3.0, -1.0, -1.0], [1.0, 0.0, 1.0, 0.0]], device=dev, requires_grad=True)
        MARGIN_LOSSES[name](T, a, b).backward()
        grads.append((a.grad, b.grad))
    for mine, ref in zip(grads[1], grads[0]):
        assert (mine is None) == (ref is None)
        if ref is not None:
            close(mine, ref)
