"""Gaps the libraries of tests/as_torch/ (peft, diffusers, kornia, torchdiffeq, ...) found in webtorch, closed:
each probe runs the same code on torch 2.13 and webtorch and gets the same answer (values, exception types and
messages)."""
import pytest
import torch

import webtorch
from test_census_closings import _outcome


def _autograd_products(T):
    """torch.autograd.functional's vjp, jvp, vhp, hvp and hessian (torchdiffeq's events call vjp)."""
    F = T.autograd.functional
    x, y = T.tensor([1.0, 2.0, 3.0]), T.tensor([0.5, -1.0, 2.0])

    def cubic(a, b):
        return (a ** 3 * b).sum()

    def pair(a, b):
        return a * b ** 2, (a + b).sum()

    out = [F.vjp(lambda a: a ** 2, x, y), F.vjp(pair, (x, y), (y, T.tensor(2.0))),
           F.vjp(lambda a: (a ** 2).sum(), x), F.jvp(lambda a: a ** 3, x, y), F.jvp(pair, (x, y), (y, x)),
           F.vhp(cubic, (x, y), (y, x)), F.hvp(cubic, (x, y), (y, x)), F.hvp(lambda a: (a ** 3).sum(), x, y),
           F.hessian(lambda a: (a ** 3).prod(), x), F.hessian(cubic, (x, y))]
    with_graph = F.vjp(lambda a: a ** 3, x.clone().requires_grad_(), y, create_graph=True)[1]
    errors = []
    for call in (lambda: F.vjp(lambda a: a ** 2, x), lambda: F.jvp(lambda a: a, x),
                 lambda: F.vjp(lambda a: a * 2, x, T.ones(2)), lambda: F.hvp(lambda a: a, x, y),
                 lambda: F.vjp(lambda a: a * 2, (x, y), (y, y, y))):
        try:
            call()
        except RuntimeError as e:
            errors.append(str(e))
    strict = F.vjp(lambda a, b: a * 2, (x, y), y)[1][1].tolist()
    return _lists(out), with_graph.requires_grad, errors, strict


def _lists(value):
    if isinstance(value, (tuple, list)):
        return [_lists(v) for v in value]
    return value.tolist()


def _rounded(value):
    """Floats to 6 significant digits (torch's and webtorch's exp and log differ in the last bits)."""
    return [_rounded(v) for v in value] if isinstance(value, list) else float(f"{value:.6g}")


def _checks(T):
    """torch._check* and _assert_async (kornia asserts its value ranges with _assert_async)."""
    got = []
    for call in (lambda: T._check(False), lambda: T._check(False, lambda: "custom"), lambda: T._check_index(False),
                 lambda: T._check_value(False, lambda: "bad value"), lambda: T._check_type(False),
                 lambda: T._check_not_implemented(False), lambda: T._check(T.tensor(True)), lambda: T._check(1),
                 lambda: T._check(True, "not callable"), lambda: T._check(False, "not callable"),
                 lambda: T._check_tensor_all(T.tensor([True, False])), lambda: T._check_tensor_all(T.tensor([1])),
                 lambda: T._assert_async(T.tensor(False)), lambda: T._assert_async(T.tensor(0.0), "zero"),
                 lambda: T._assert_async(T.tensor([1, 1])), lambda: T._assert_scalar(False, "scalar"),
                 lambda: T._check_with(UserWarning, False, None)):
        try:
            call()
            got.append(None)
        except Exception as e:  # noqa: BLE001 - compared
            got.append((type(e).__name__, str(e)))
    T._check(True), T._check_tensor_all(T.tensor([True, True])), T._assert_async(T.tensor(2))
    return got


def _init_fan(T):
    w = T.empty(6, 4, 3, 3)
    try:
        T.nn.init._calculate_correct_fan(w, "fan_sideways")
    except ValueError as e:
        error = str(e)
    try:
        T.nn.init.kaiming_uniform_(w, mode="fan_sideways")
    except ValueError as e:
        kaiming = str(e)
    return T.nn.init._calculate_correct_fan(w, "fan_in"), T.nn.init._calculate_correct_fan(w, "FAN_OUT"), error, kaiming


def _repeat_is_a_copy(T):
    """repeat / repeat_interleave return new tensors: writing into one changes neither its source nor its
    other repeats (webtorch returned a stride-0 view where a repeated dim had size 1, x itself for repeats of 1)."""
    eye = T.eye(3)[None]
    batched = eye.repeat(2, 1, 1)
    batched[:, :2, 2] = T.tensor([[8.0, 8.0], [6.0, 9.0]])  # kornia's get_rotation_matrix2d
    row = T.ones(1, 3)
    rows = row.repeat_interleave(2, dim=0)
    rows[0] += 5
    same = T.arange(3.0)
    again = same.repeat(1)
    again.add_(10)
    tiled = T.ones(2, 1).tile(1, 1)
    tiled.mul_(3)
    return [t.tolist() for t in (eye, batched, row, rows, same, again, tiled)], batched.stride(), rows.stride()


def _data_counts_versions_apart(T):
    """A .data tensor has its own version counter: writing through it (and its views) leaves the saved-tensor
    check of the original's graph alone (torchdiffeq's Runge-Kutta scratch); detach() and views share it."""
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    scratch = T.zeros(3)
    loss = (scratch * x).sum()
    data = scratch.data
    data[1:][0] = 5.0
    data.add_(1.0)
    seen = scratch._version, data._version, data[1:]._version
    loss.backward()  # reads scratch's current values, as torch
    scratch.detach().mul_(2)
    scratch[0:2].add_(1)
    out = [x.grad.tolist(), seen, scratch._version]
    loss = (scratch * x).sum()
    scratch.detach()[0] = 7.0
    try:
        loss.backward()
    except RuntimeError as e:
        out.append(str(e).partition(":")[0])
    return out


def _tracing_answers(T):
    """Questions libraries ask before data-dependent work: nothing is fake, traced or transformed here."""
    from importlib import import_module
    fake = import_module(T.__name__ + "._subclasses.fake_tensor")
    proxy = import_module(T.__name__ + ".fx.experimental.proxy_tensor")
    x = T.ones(2)
    unpacked = T.autograd.forward_ad.unpack_dual(x)
    with T.autograd.forward_ad.dual_level():
        inside = T.autograd.forward_ad.unpack_dual(x).tangent
    return (fake.is_fake(x), proxy.get_proxy_mode(), T._C._are_functorch_transforms_active(),
            unpacked.primal is x, unpacked.tangent, type(unpacked).__name__, unpacked._fields, inside,
            isinstance(x, T._subclasses.FakeTensor))


def _distributed_names(T):
    """The names annotations and default arguments read (diffusers: DeviceMesh, ProcessGroup, ReduceOp)."""
    import torch.distributed.device_mesh  # noqa: F401  (torch imports it lazily)
    d = T.distributed
    return (sorted(n for n in dir(d.ReduceOp) if n.isupper()), isinstance(d.ProcessGroup, type),
            isinstance(d.DeviceMesh, type), d.device_mesh.DeviceMesh is d.DeviceMesh, callable(d.init_device_mesh))


def _backend_flags(T):
    """torch.backends' CPU libraries' flags: set and restored as torch's (their is_available differs: below)."""
    b = T.backends
    with b.mkldnn.flags(enabled=False, deterministic=True):
        inside = (b.mkldnn.enabled, b.mkldnn.deterministic)
    with b.nnpack.flags(enabled=False):
        nnpack_flags = b.nnpack.set_flags(False), b.nnpack.set_flags(True)
    with b.mkldnn.verbose(b.mkldnn.VERBOSE_OFF), b.mkl.verbose(b.mkl.VERBOSE_OFF):
        pass
    fastpath = b.mha.get_fastpath_enabled()
    b.mha.set_fastpath_enabled(False)
    off = b.mha.get_fastpath_enabled()
    b.mha.set_fastpath_enabled(True)
    return inside, (b.mkldnn.enabled, b.mkldnn.deterministic), nnpack_flags, b.nnpack.set_flags(True), fastpath, off


def test_absent_cpu_libraries_and_refusals():
    """webtorch's cpu is numpy: no oneDNN, MKL, OpenMP or NNPACK (torch's CPU build has them), so libraries take
    their portable paths; making a fake tensor, a dual tensor or a proxy trace raises naming the gap."""
    b = webtorch.backends
    assert not any(m.is_available() for m in (b.mkldnn, b.mkl, b.openmp, b.nnpack))
    assert not b.mkldnn.is_acl_available()
    from webtorch.fx.experimental.proxy_tensor import make_fx
    for make, gap in ((webtorch._subclasses.FakeTensorMode, "FakeTensorMode"), (lambda: make_fx(abs), "make_fx"),
                      (lambda: webtorch.autograd.forward_ad.make_dual(webtorch.ones(1), webtorch.ones(1)),
                       "forward-mode AD")):
        with pytest.raises(NotImplementedError, match=gap):
            make()


def _unique_slices(T):
    """unique / unique_consecutive with dim= (zuko's MaskedMLP dedupes its adjacency rows): whole slices
    compared, sorted lexicographically, with inverse and counts (were refused)."""
    a = T.tensor([[1, 0, 1], [0, 1, 1], [1, 0, 1], [0, 0, 0], [0, 1, 1], [0, 1, 1]])
    out = []
    for dim in (0, 1, -1):
        out.append(_lists(T.unique(a, dim=dim, return_inverse=True, return_counts=True)))
        out.append(_lists(T.unique_consecutive(a, dim=dim, return_inverse=True, return_counts=True)))
        out.append(a.unique(dim=dim).tolist())
    out.append(_lists(T.unique(T.tensor([[2.5, 1.0], [0.5, 3.0], [2.5, 1.0]]), dim=0, return_inverse=True)))
    out.append(list(T.unique(T.zeros(0, 3), dim=0).shape))
    try:
        T.unique(T.zeros(3, 0), dim=0)
    except RuntimeError as e:
        out.append(str(e))
    return out


def _deprecated_number_first_overloads(T):
    """addcmul_(value, t1, t2), add(alpha, other), sub_(alpha, other), addcdiv(value, t1, t2): torch 1.x's
    order, still accepted by torch with a UserWarning (pytorch_ranger's optimizers call them)."""
    x, y, z = T.ones(3), T.arange(3.0), T.full((3,), 2.0)
    e = x.clone()
    e.add_(2, y)
    return _lists([x.clone().addcmul_(0.5, y, z), T.addcdiv(x, 0.5, y, z), x.add(2, y), T.sub(x, 3, y), e,
                   x.clone().sub_(1, z), x.addcmul(y, z, value=2), T.add(x, y, alpha=3)])


def _distribution_utils_and_required(T):
    """torch.distributions.utils (zuko imports _sum_rightmost), a subclass's _get_checked_instance, and
    torch.optim.optimizer.required (pytorch_ranger's defaults)."""
    from importlib import import_module
    u = import_module(T.__name__ + ".distributions.utils")
    m = T.arange(9.0).reshape(3, 3)
    a, b = u.broadcast_all(T.ones(2, 1), 3.0)

    class Lazy:
        @u.lazy_property
        def twice(self):
            return T.ones(1) * 2
    lazy = Lazy()
    normal = T.distributions.Normal(T.zeros(2), T.ones(2))
    same = normal._get_checked_instance(T.distributions.Normal)
    try:
        T.distributions.Independent(normal, 1)._get_checked_instance(T.distributions.Normal)
    except NotImplementedError as e:
        refused = str(e)
    return (_rounded(_lists([a, b, u.logits_to_probs(T.tensor([0.0, 1.0])), u.logits_to_probs(T.tensor([0.0]), True),
                    u.probs_to_logits(T.tensor([0.25, 0.75])), u.probs_to_logits(T.tensor([0.25]), True),
                    u.clamp_probs(T.tensor([0.0, 1.0])), u.tril_matrix_to_vec(m), u.tril_matrix_to_vec(m, -1),
                    u.vec_to_tril_matrix(T.arange(6.0)), u._sum_rightmost(m, 1), u._sum_rightmost(m, 0)])),
            u.euler_constant, lazy.twice.tolist(), "twice" in vars(lazy), type(same).__name__, refused,
            repr(import_module(T.__name__ + ".optim.optimizer").required))


def _indexing_expanded_tensors_with_grad(T):
    """gather / take / advanced indexing of an expanded (stride 0) tensor that requires grad: each element
    its own gradient, summed by expand's backward (zuko's splines gather from expanded knots; was refused)."""
    out = []
    for index in (lambda t: t.gather(-1, T.tensor([[0, 2], [1, 1], [2, 0]])), lambda t: t[:, [0, 2, 2]],
                  lambda t: t.take(T.tensor([0, 4, 8, 4]))):
        w = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = index(w.expand(3, 3))
        (y * T.arange(1.0, y.numel() + 1).reshape(y.shape)).sum().backward()
        out.append((y.tolist(), w.grad.tolist()))
    return out


def _distribution_expand(T):
    """Distribution.expand of Normal, Uniform and Independent (zuko expands its flows' base distributions)."""
    d = T.distributions
    normal = d.Normal(T.tensor([0.0, 1.0]), T.tensor([1.0, 2.0])).expand((3, 2))
    box = d.Independent(d.Uniform(T.zeros(2), T.ones(2)), 1).expand((4,))
    x = T.tensor([0.5, 0.25])
    return (list(normal.batch_shape), _lists(normal.log_prob(x)), list(normal.loc.shape),
            list(box.batch_shape), list(box.event_shape), list(box.base_dist.batch_shape), _lists(box.log_prob(x)),
            type(box).__name__)


PROBES = {name[1:]: fn for name, fn in list(globals().items()) if name.startswith("_") and callable(fn)
          and fn.__module__ == __name__ and name not in ("_lists", "_rounded")}


@pytest.mark.parametrize("name", list(PROBES))
@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")  # deprecations probed
def test_library_gap_as_torch(name):
    assert _outcome(PROBES[name], webtorch) == _outcome(PROBES[name], torch)


def test_compiled_module_class_at_torch_path():
    """torch._dynamo.eval_frame.OptimizedModule is compile(module)'s class (accelerate's is_compiled_module,
    which transformers' save_pretrained calls once accelerate is installed, read a missing name)."""
    compiled = webtorch.compile(webtorch.nn.Linear(2, 2))
    assert isinstance(compiled, webtorch._dynamo.eval_frame.OptimizedModule)
    assert not isinstance(webtorch.nn.Linear(2, 2), webtorch._dynamo.eval_frame.OptimizedModule)
