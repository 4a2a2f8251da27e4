"""Reverse-mode autograd: the engine that runs the tape's Nodes backward, and the one table of
backward rules (BACKWARD). The tape itself (grad mode, the Node each primitive records) is _tape.py,
below the ops, so that ops import it and this module imports the ops: each layer imports downward.

Each primitive that produces a tensor records a Node when grad mode is on and an input requires
grad. A rule takes the incoming gradient `grad`, the forward result `out` and the inputs (tensors,
or Python scalars, which get no gradient), plus keyword context, and returns one gradient per input
(None for no gradient). Gradients of broadcast inputs are summed back to the input's shape by the
engine, so rules work at the broadcast shape.
"""
import weakref
import math

from .. import _autocast, _complex, _dtypes, _conv_ops, _indexing, _math_ops, _shape_ops, _tape, special
from .. import _ops as F
from ..sparse import _compressed as compressed, _coo as sparse
from .._tape import (BACKWARD, Node, _needs_grad, alias, check_inplace, enable_grad, inference_mode,  # noqa: F401
                    is_grad_enabled, no_grad, rebase, record, refresh_view, set_grad_enabled)


def _take_rule(grad, out, x, offsets):
    # offsets index x's storage: accumulate grad into zeros laid out as x (a contiguous x: x's size,
    # offsets shifted to its start; else a zero storage of the whole storage's size), view it as x
    if x.is_contiguous():
        g = F.zeros(x.shape, dtype=grad.dtype, device=grad.device)
        F.backend(grad.device.type).put(g, F.sub(offsets, x._offset) if x._offset else offsets, F.contiguous(grad),
                                        True)
        return (g,)
    store = F.zeros(x._storage.numel, dtype=grad.dtype, device=grad.device)
    F.backend(grad.device.type).put(store, offsets, F.contiguous(grad), True)
    return (F.Tensor(store._storage, x.shape, x._stride, x._offset),)


def _take_along_rule(grad, out, x, index, dim, skip):
    # each slice of grad adds into the slice of x it was read from; skip's slices get none
    g = F.zeros(x.shape, dtype=grad.dtype, device=grad.device)
    F.backend(grad.device.type).put_along(g, dim, index, grad, True)
    if skip is not None:
        F._copy_into(_shape_ops.select(g, dim, skip), 0)
    return g, None


def _put_rule(grad, out, old, src, offsets, accumulate):
    # old is contiguous: storage offset - old's offset is the flat index into grad
    flat = F.clone(grad).reshape(-1)
    rel = F.sub(offsets, old._offset) if old._offset else offsets
    g_src = F.Tensor(F.backend(grad.device.type).take(flat, rel), rel.shape)
    if not accumulate:
        F.backend(grad.device.type).put(flat, rel, F.zeros(rel.shape, dtype=grad.dtype, device=grad.device), False)
    return flat.reshape(old.shape), g_src


def _diagonal_rule(grad, out, x, offset, dim1, dim2):
    g = F.zeros(x.shape, dtype=grad.dtype, device=grad.device)
    F._copy_into(_shape_ops.diagonal(g, offset, dim1, dim2), grad)
    return (g,)


def _region(t, shape, stride, offset):
    """The view with the given geometry over a contiguous tensor t."""
    return F.Tensor(t._storage, shape, stride, t._offset + offset)


def _copy_slices_rule(grad, out, base, value, shape, stride, offset):
    g = F.clone(grad)  # contiguous, like the base
    region = _region(g, shape, stride, offset)
    g_value = F.clone(region)
    F._copy_into(region, 0.0)
    return g, g_value


def _view_region_rule(grad, out, base, shape, stride, offset):
    g = F.zeros(base.shape, dtype=grad.dtype, device=grad.device)
    F._copy_into(_region(g, shape, stride, offset), grad)
    return (g,)


def sum_to(grad, shape):
    """Sums a broadcast gradient back to `shape`."""
    shape = tuple(shape)
    if tuple(grad.shape) == shape:
        return grad
    lead = grad.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s == 1 and grad.shape[lead + i] != 1]
    return F.sum(grad, dims, keepdim=True).reshape(shape) if dims else grad.reshape(shape)


def _parents(node):
    return [e[1] for e in node.edges if e is not None and e[1] is not None]


def _order(roots):
    """Every node reachable from roots, each after all nodes that feed it gradient (Kahn's order)."""
    nodes, stack = {}, list(roots)
    while stack:
        node = stack.pop()
        if id(node) not in nodes:
            nodes[id(node)] = node
            stack.extend(_parents(node))
    consumers = dict.fromkeys(nodes, 0)
    for node in nodes.values():
        for parent in _parents(node):
            consumers[id(parent)] += 1
    ready = [n for n in nodes.values() if consumers[id(n)] == 0]
    order = []
    while ready:
        node = ready.pop()
        order.append(node)
        for parent in _parents(node):
            consumers[id(parent)] -= 1
            if consumers[id(parent)] == 0:
                ready.append(parent)
    return order


def _run_backward(roots, grads, retain_graph, create_graph, capture=None):
    """Propagates grads from roots; accumulates into leaves' .grad, or into `capture`
    (id(tensor) -> grad) for autograd.grad."""
    with set_grad_enabled(create_graph), _autocast.suspended():  # backward keeps the forward's dtypes
        pending = {}  # id(node) -> gradient of its output
        leaves = {}  # id(leaf) -> [leaf, its gradient]: summed, then hooked and accumulated once
        for root, grad in zip(roots, grads):
            if capture is not None and id(root) in capture:
                _accumulate(root, grad, capture)
            if root.grad_fn is None:
                if capture is None:
                    _add_leaf_grad(leaves, root, grad)
                continue
            key = id(root.grad_fn)
            pending[key] = grad if key not in pending else _add(pending[key], grad)
        for node in _order([r.grad_fn for r in roots if r.grad_fn is not None]):
            grad = pending.pop(id(node), None)
            if grad is None:
                continue
            if node.hooks or node.retained:
                grad = _tensor_hooks(node, grad)
            if node.inputs is None:
                raise RuntimeError("Trying to backward through the graph a second time (or directly access saved "
                                   "tensors after they have already been freed). Saved intermediate values of the "
                                   "graph are freed when you call .backward() or autograd.grad(). Specify "
                                   "retain_graph=True if you need to backward through the graph a second time or "
                                   "if you need to access saved tensors after calling backward.")
            _check_versions(node)
            input_grads = node.rule(grad, node.out, *node.inputs, **node.ctx)
            for edge, g in zip(node.edges, input_grads):
                if g is None or edge is None:
                    continue
                x, fn = edge
                g = sum_to(g, x.shape)
                if g.dtype is not x.dtype:  # like torch's engine: a gradient has its tensor's dtype
                    g = F.cast(_complex.real(g) if g.dtype.is_complex and not x.dtype.is_complex else g, x.dtype)
                if capture is not None and id(x) in capture:
                    _accumulate(x, g, capture)
                if fn is None:
                    if capture is None:
                        _add_leaf_grad(leaves, x, g)
                    continue
                pending[id(fn)] = g if id(fn) not in pending else _add(pending[id(fn)], g)
            if not retain_graph:
                node.inputs = node.out = None
        for x, g in leaves.values():
            _accumulate(x, _leaf_hooks(x, g), None)


def _check_versions(node):
    """A rule that reads values refuses to run on storage modified in place since its node was recorded."""
    reads = [i for i in range(len(node.inputs)) if node.name not in VALUE_FREE and
             i in READS_ONLY.get(node.name, (i,))]
    if node.name in READS_OUT:
        reads.append(len(node.inputs))
    for i in reads:
        x, saved = (node.inputs + (node.out,))[i], node.versions[i]
        if isinstance(x, F.Tensor) and saved[0].version != saved[1]:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: [torch.{_tape._TYPE_NAMES[x.dtype.name]} {list(x.shape)}], which is output 0 of "
                f"{node!r}, is at version {saved[0].version}; expected version {saved[1]} instead. Hint: "
                "the backtrace further above shows the operation that failed to compute its gradient.")


def _add(a, b):
    """The sum of two gradients of one tensor (those of a sparse tensor may be sparse: sparse/_coo.py)."""
    if isinstance(a, sparse.SparseTensor) or isinstance(b, sparse.SparseTensor):
        return sparse.add_gradients(a, b)
    if isinstance(a, compressed.CompressedTensor) or isinstance(b, compressed.CompressedTensor):
        return compressed.add_gradients(a, b)
    return F.add(a, b)


def _add_leaf_grad(leaves, x, g):
    entry = leaves.get(id(x))
    if entry is None:
        leaves[id(x)] = [x, g]
    else:
        entry[1] = _add(entry[1], g)


# -- tensor hooks (Tensor.register_hook, retain_grad) -------------------------------------------
class RemovableHandle:
    """What register_*hook returns: remove() takes the hook out of its store (a dict by id)."""
    _next = 0

    def __init__(self, store):
        RemovableHandle._next += 1
        self.id, self._store = RemovableHandle._next, store

    def remove(self):
        self._store.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _run_hooks(hooks, grad):
    for hook in list(hooks.values()):
        result = hook(grad)
        if result is not None:
            grad = result
    return grad


def _tensor_hooks(node, grad):
    """A non-leaf's hooks see the summed gradient of its output before its rule runs; then
    retain_grad stores what they leave."""
    if node.hooks:
        grad = _run_hooks(node.hooks, grad)
    owner = node.retained() if node.retained is not None else None
    if owner is not None:
        owner.grad = grad.detach() if owner.grad is None else F.add(owner.grad, grad.detach())
    return grad


def _leaf_hooks(x, g):
    hooks = x.__dict__.get("_grad_hooks")
    return _run_hooks(hooks, g) if hooks else g


def register_hook(x, hook):
    """Tensor.register_hook: hook(grad) -> None or a replacement gradient."""
    if not x.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if x.grad_fn is not None:
        if x.grad_fn.hooks is None:
            x.grad_fn.hooks = {}
        store = x.grad_fn.hooks
    else:
        store = x.__dict__.setdefault("_grad_hooks", {})
    handle = RemovableHandle(store)
    store[handle.id] = hook
    return handle


def retain_grad(x):
    """A non-leaf keeps its gradient in .grad after backward (a leaf does anyway)."""
    if not x.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if x.grad_fn is not None:
        x.grad_fn.retained = weakref.ref(x)


def retains_grad(x):
    fn = x.grad_fn
    return fn is not None and fn.retained is not None and fn.retained() is x


def _accumulate(x, g, capture):
    if capture is not None:
        if id(x) in capture:
            capture[id(x)] = g if capture[id(x)] is None else F.add(capture[id(x)], g)
        return
    g = g.detach() if not is_grad_enabled() else g
    if isinstance(x, sparse.SparseTensor):
        g = sparse.leaf_gradient(x, g)
    x.grad = g if x.grad is None else _add(x.grad, g)


def _check_roots(tensors, grad_tensors):
    grads = []
    for t, g in zip(tensors, grad_tensors):
        if not t.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = F.ones_like(t)
        elif tuple(g.shape) != tuple(t.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {tuple(g.shape)} and output[0] "
                               f"has a shape of {tuple(t.shape)}.")
        grads.append(g)
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    tensors = [tensors] if isinstance(tensors, F.Tensor) else list(tensors)
    if grad_tensors is None or isinstance(grad_tensors, F.Tensor):
        grad_tensors = [grad_tensors] * len(tensors) if grad_tensors is None else [grad_tensors]
    grads = _check_roots(tensors, grad_tensors)
    retain = create_graph if retain_graph is None else retain_graph
    if inputs is None:
        _run_backward(tensors, grads, retain, create_graph)
        return
    # backward(inputs=...): accumulate into those tensors' .grad only
    inputs = [inputs] if isinstance(inputs, F.Tensor) else list(inputs)
    capture = {id(x): None for x in inputs}
    _run_backward(tensors, grads, retain, create_graph, capture)
    for x in inputs:
        if capture[id(x)] is not None:
            _accumulate(x, _leaf_hooks(x, capture[id(x)]), None)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    outputs = [outputs] if isinstance(outputs, F.Tensor) else list(outputs)
    single = isinstance(inputs, F.Tensor)
    inputs = [inputs] if single else list(inputs)
    if grad_outputs is None or isinstance(grad_outputs, F.Tensor):
        grad_outputs = [grad_outputs] * len(outputs) if grad_outputs is None else [grad_outputs]
    grads = _check_roots(outputs, grad_outputs)
    for x in inputs:
        if not x.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    capture = {id(x): None for x in inputs}
    retain = create_graph if retain_graph is None else retain_graph
    _run_backward(outputs, grads, retain, create_graph, capture)
    result = [_leaf_hooks(x, capture[id(x)]) if capture[id(x)] is not None else None for x in inputs]
    if not allow_unused and any(g is None for g in result):
        raise RuntimeError("One of the differentiated Tensors appears to not have been used in the graph. "
                           "Set allow_unused=True if this is the desired behavior.")
    return tuple(result)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    backward(self, gradient, retain_graph, create_graph, inputs)


F.Tensor.backward = _tensor_backward
F.Tensor.register_hook = register_hook
F.Tensor.retain_grad = retain_grad
F.Tensor.retains_grad = property(retains_grad)


# -- custom functions ------------------------------------------------------------------------
class FunctionCtx:
    def __init__(self):
        self.saved_tensors = ()
        self.needs_input_grad = ()

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors

    def mark_non_differentiable(self, *tensors):
        pass


class Function:
    """torch.autograd.Function: subclass with static forward(ctx, ...) and backward(ctx, *grads)."""

    @classmethod
    def apply(cls, *args):
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(_needs_grad(a) for a in args)
        with no_grad():
            out = cls.forward(ctx, *args)

        def rule(grad, out_alias, *inputs, ctx=ctx):
            grads = cls.backward(ctx, grad)
            return grads if isinstance(grads, tuple) else (grads,)
        if is_grad_enabled() and any(ctx.needs_input_grad):
            out.grad_fn = Node(cls.__name__, args, out, {}, rule)
            out.requires_grad = True
        return out


# -- the backward rules ------------------------------------------------------------------------
def _unbroadcast_index(grad, x, index):
    g = F.zeros(x.shape, dtype=grad.dtype, device=grad.device)
    F._copy_into(F._getitem(g, index), grad)
    return g


def _inverse(dims):
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return inv


def _reduced_like(grad, x, dims, keepdim):
    """grad of a reduction over dims, unsqueezed back so it broadcasts against x."""
    if not keepdim:
        for d in sorted(dims):
            grad = F.unsqueeze(grad, d)
    return grad


def _cat_rule(grad, out, *xs, dim, sizes):
    """sizes[i]: input i's extent along dim, None for an empty 1-D input that cat skipped (zeros)."""
    grads, start = [], 0
    for x, size in zip(xs, sizes):
        if size is None:
            grads.append(F.zeros_like(x))
        else:
            grads.append(F.narrow(grad, dim, start, size))
            start += size
    return tuple(grads)


def _prod_rule(grad, out, x, dims, keepdim):
    """∏_{k≠i} x_k: out / x without zeros; with one zero, the product of the others at it, 0 elsewhere."""
    grad, out = _reduced_like(grad, x, dims, keepdim), _reduced_like(out, x, dims, keepdim)
    zero = F.eq(x, 0)
    zeros = _reduced_like(F.sum(zero, dims, keepdim), x, dims, keepdim)
    others = _reduced_like(F.prod(F.where(zero, 1.0, x), dims, keepdim), x, dims, keepdim)
    at_zero = F.where(F.logical_and(zero, F.eq(zeros, 1)), others, 0.0)
    return (grad * F.where(F.eq(zeros, 0), out / F.where(zero, 1.0, x), at_zero),)


def _cumprod_rule(grad, out, x, dim):
    """Σ_{j≥i} g_j ∏_{k≤j, k≠i} x_k. Before the first zero z along dim: Σ_{j≥i} g_j out_j / x_i; at z:
    Σ_{j≥z} g_j cumprod(x with x_z = 1)_j; after z: 0 (every product holds x_z)."""
    def rev_cumsum(t):
        return _shape_ops.flip(_math_ops.cumsum(_shape_ops.flip(t, (dim,)), dim), (dim,))
    zero = F.eq(x, 0)
    seen = _math_ops.cumsum(zero, dim)                     # zeros up to and including each position
    first = F.logical_and(zero, F.eq(seen, 1))
    before = F.eq(seen, 0)
    lifted = _math_ops.cumprod(F.where(first, 1.0, x), dim)
    at_first = rev_cumsum(F.where(before, 0.0, grad * lifted))
    return (F.where(before, rev_cumsum(grad * out) / F.where(before, x, 1.0), F.where(first, at_first, 0.0)),)


def _extreme_rule(nan_aware):
    """The gradient flows evenly to every element equal to the extreme. torch.max/min over all
    elements count NaN as the extreme; torch.amax/amin compare with == (a NaN row gets NaN)."""
    def rule(grad, out, x, dims, keepdim):
        g, o = _reduced_like(grad, x, dims, keepdim), _reduced_like(out, x, dims, keepdim)
        hit = F.eq(x, o)
        if nan_aware:
            hit = F.logical_or(hit, F.logical_and(F.isnan(x), F.isnan(o)))
        mask = F.cast(hit, grad.dtype)
        return (F.div(F.mul(g, mask), F.sum(mask, dims, keepdim=True)),)
    return rule


def _no_derivative(op):
    def rule(grad, out, *inputs):
        raise RuntimeError(f"derivative for aten::{op} is not implemented")
    return rule


def _index_select_rule(grad, out, x, dim, indices, keepdim):
    # values of max/min along dim: the gradient goes to the selected index only
    g = grad if keepdim else F.unsqueeze(grad, dim)
    idx = indices if keepdim else F.unsqueeze(indices, dim)
    positions = F.arange(x.shape[dim], device=x.device).reshape([-1 if d == dim else 1 for d in range(x.dim())])
    return (F.where(F.eq(positions, idx), g, 0.0),)


def _incomplete_gamma_density(a, x):
    """x^(a-1) e^-x / Γ(a), the gamma density: the x-derivative of the regularised incomplete gamma P(a, x);
    for x > 0 as (x^a e^-x / Γ(a)) / x, whose log special._log_power_over_gamma keeps accurate near a large a
    (torch's float32 form cancels there: 1e-3 relative off at a = 7585)."""
    direct = F.exp((a - 1) * F.log(x) - x - _math_ops.lgamma(a))
    return F.where(F.gt(x, 0), F.exp(special._log_power_over_gamma(a, x) - F.log(x)), direct)


def _trigamma(x):
    """ψ'(x): reflection below ½, six steps of ψ'(z) = ψ'(z+1) + 1/z², then the asymptotic series."""
    small = F.lt(x, 0.5)
    z = F.where(small, 1 - x, x)
    acc = 0
    for k in range(6):
        acc = acc + 1 / ((z + k) * (z + k))
    r = 1 / (z + 6)
    r2 = r * r
    tail = r * (1 + r * (0.5 + r * (1 / 6 - r2 * (1 / 30 - r2 * (1 / 42 - r2 / 30)))))
    value = acc + tail
    return F.where(small, math.pi ** 2 / F.square(F.sin(math.pi * x)) - value, value)


def _eigh_rule(values_part):
    """torch's eigh backward: gA = V (diag(gL) + F ∘ (Vᵀ gV)) Vᵀ, F_ij = 1/(λ_j - λ_i) off the
    diagonal; one output's gradient at a time (the engine adds the two)."""
    def rule(grad, out, A, **ctx):
        if values_part:
            V = ctx["vectors"]
            inner = _shape_ops.diag_embed(grad)
        else:
            V, lam = out, ctx["values"]
            diff = lam.unsqueeze(-2) - lam.unsqueeze(-1)
            off = F.where(F.eq(diff, 0), 0.0, 1 / F.where(F.eq(diff, 0), 1.0, diff))
            inner = off * (V.mT @ grad)
        g = V @ inner @ V.mT
        return ((g + g.mT) * 0.5,)
    return rule


def _pinv_rule(grad, out, A):
    # torch's pinv_backward, the derivative of P = A⁺ at a constant rank (Golub and Pereyra):
    # dP = -P dA P + P Pᴴ dAᴴ (I - A P) + (I - P A) dAᴴ Pᴴ P, so with G = grad
    # gA = -Pᴴ G Pᴴ + (I - A P) Gᴴ P Pᴴ + Pᴴ P Gᴴ (I - P A)
    P, Ph, Gh = out, out.mH, grad.mH
    left = Gh @ P @ Ph
    right = Ph @ P @ Gh
    return (-(Ph @ grad @ Ph) + left - A @ (P @ left) + right - (right @ P) @ A,)


def _logcumsumexp_rule(grad, out, x, dim):
    # in log space, the positive and negative parts of grad apart (torch's way: no e^-out overflow). The
    # reversed scan runs on log g - out less its row's largest finite value and adds it back once: a
    # float32 scan of values near -1e4 (ulp 1e-3) would round at every step, where torch's scan (in
    # double on its CPU) rounds its result once
    def part(g):
        v = F.log(g) - out
        top = F.amax(v, dim, keepdim=True) if x.numel() else v
        shift = F.where(F.isfinite(top), top, 0.0)
        tail = _shape_ops.flip(_math_ops.logcumsumexp(_shape_ops.flip(v - shift, (dim,)), dim), (dim,))
        return F.exp((tail + shift) + x)
    return (part(F.relu(grad)) - part(F.relu(-grad)),)


def _i1_derivative(a):
    safe = F.where(F.eq(a, 0), 1.0, a)
    return F.where(F.eq(a, 0), 0.5, _math_ops.i0(a) - special.i1(a) / safe)


def _i1e_derivative(a, out):
    """torch's: at |a| <= eps, where 1/a would blow up, the limit ½."""
    eps = _dtypes.finfo(a.dtype).eps
    tiny = F.le(F.abs(a), eps)
    safe = F.where(tiny, eps, a)
    return F.where(tiny, 0.5, special.i0e(safe) - out * (F.sign(safe) + 1 / safe))


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _gelu_grad(a):
    cdf = 0.5 * (1.0 + F.erf(a * (1.0 / math.sqrt(2.0))))
    return cdf + a * F.exp(-0.5 * a * a) * _INV_SQRT_2PI


def _gelu_tanh_grad(a):
    t = F.tanh(_SQRT_2_OVER_PI * (a + 0.044715 * a * a * a))
    return 0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * _SQRT_2_OVER_PI * (1.0 + 3 * 0.044715 * a * a)


def _pow_rule(grad, out, a, b):
    ga = F.where(F.eq(b, 0), 0.0, grad * b * F.pow(a, b - 1)) if _needs_grad(a) else None  # a^0 is constant
    gb = F.where(F.logical_and(F.eq(a, 0), F.ge(b, 0)), 0.0, grad * out * F.log(a)) if _needs_grad(b) else None
    return ga, gb


def _maximum_rule(grad, out, a, b):
    # ties split the gradient in halves, as torch.maximum does
    half = F.where(F.eq(a, b), grad * 0.5, grad)
    return F.where(F.lt(a, b), 0.0, half), F.where(F.gt(a, b), 0.0, half)


def _minimum_rule(grad, out, a, b):
    half = F.where(F.eq(a, b), grad * 0.5, grad)
    return F.where(F.gt(a, b), 0.0, half), F.where(F.lt(a, b), 0.0, half)


def _atan2_rule(grad, out, a, b):
    r = a * a + b * b
    r = F.where(F.eq(r, 0), math.inf, r)  # as torch: no gradient at the origin
    return grad * b / r, -grad * a / r


def _clamp_rule(grad, out, x, lo, hi):
    # as torch: a bound gets the gradient where it is the result (lo only while lo < hi)
    inside = F.logical_and(F.ge(x, lo), F.le(x, hi))
    g_lo = F.where(F.logical_and(F.lt(x, lo), F.lt(lo, hi)), grad, 0.0) if _needs_grad(lo) else None
    g_hi = F.where(F.logical_or(F.gt(x, hi), F.lt(hi, lo)), grad, 0.0) if _needs_grad(hi) else None
    return F.where(inside, grad, 0.0), g_lo, g_hi


def _layer_norm_rule(grad, out, x, weight, bias, eps):
    # rows of the last dim: x̂ = (x - μ) r with r = 1/√(var + eps), y = x̂ w + b. With g' = g w:
    # dx = r (g' - mean(g') - x̂ mean(g' x̂)), dw = g x̂ and db = g (the engine sums them over rows);
    # μ and r are recomputed from x.
    mean = F.mean(x, -1, keepdim=True)
    centered = x - mean
    rstd = F.rsqrt(F.mean(centered * centered, -1, keepdim=True) + eps)
    xhat = centered * rstd
    g = grad * weight if weight is not None else grad
    dx = rstd * (g - F.mean(g, -1, keepdim=True) - xhat * F.mean(g * xhat, -1, keepdim=True))
    return dx, grad * xhat if _needs_grad(weight) else None, grad if _needs_grad(bias) else None


def _moments_rule(grad, out, x, dims):
    # out = (μ, v, s) over dims: μ = mean(x s), v = mean((x s - μ)²), s a constant power of two: dμ/dx = s / n,
    # dv/dx = 2 s (x s - μ) / n (μ's own term sums to 0)
    n = math.prod(x.shape[d] for d in dims)
    mean, inv = out[0], out[2]
    return (F.cast((grad[0] + 2 * grad[1] * (x * inv - mean)) * (inv / n), x.dtype),)


def _var_rule(grad, out, x, dims, correction, keepdim):
    # torch's var_backward: g 2 (x - μ) / (N - correction) with N - correction as it is (the value
    # divides by max(N - correction, 0)): zero or negative degrees of freedom give ±inf or sign-flipped
    # gradients as in torch; 2 / 0 is inf (C's double division), and inf * 0 NaN
    dof = math.prod(x.shape[d] for d in dims) - correction
    scale = 2.0 / dof if dof else math.inf
    return (_reduced_like(grad, x, dims, keepdim) * scale * (x - F.mean(x, dims, keepdim=True)),)


def _std_rule(grad, out, x, dims, correction, keepdim):
    # torch's std_backward: var's rule of g / (2 σ), with 0 where σ == 0
    return _var_rule(F.where(F.eq(out, 0), 0.0, grad / (out * 2)), out, x, dims, correction, keepdim)


def _spmm_rule(grad, out, s, d, masked):
    # out = S D: dD = Sᵀ G; dS = G Dᵀ, sampled at S's entries when masked (torch.sparse.mm), else dense
    g_s = g_d = None
    if _needs_grad(s):
        rows, cols = s._sp_indices
        g_s = sparse.SparseTensor(s._sp_indices, sparse.sampled_products(grad, d, rows, cols), s.shape, True) \
            if masked else grad @ d.mT
    if _needs_grad(d):
        g_d = sparse.spmm_values(sparse.transposed_values(s), grad)
    return g_s, g_d


def _coalesce_rule(grad, out, s, inverse):
    # each entry of s is the coalesced entry it was summed into: it gets that entry's gradient
    if not isinstance(grad, sparse.SparseTensor):
        return (grad,)
    return (sparse.SparseTensor(s._sp_indices, grad._sp_values.index_select(0, inverse), s.shape,
                                s._sp_coalesced),)


def _conv2d_rule(grad, out, x, weight, bias, stride, pads, dilation, groups):
    nf = _conv_ops
    gx = nf._conv2d_input_grad(grad, weight, x.shape, stride, pads, dilation, groups) if _needs_grad(x) else None
    gw = nf._conv2d_weight_grad(grad, x, weight.shape, stride, pads, dilation, groups) if _needs_grad(weight) else None
    return gx, gw, F.sum(grad, (0, 2, 3)) if _needs_grad(bias) else None


# name: rule(grad, out, *inputs, **ctx) -> one gradient per input
BACKWARD.update({
    # elementwise (ops_table.ELEMENTWISE)
    "copy": lambda grad, out, a: (grad,),                                     # d a = grad
    # complex tensors as their real pairs and back: the gradient of a complex z is dL/d(re) + i dL/d(im)
    "view_as_real": lambda grad, out, z: (_complex.view_as_complex(_complex._pair_of(grad)),),
    "view_as_complex": lambda grad, out, x: (_complex.view_as_real(grad),),
    "angle_real": lambda grad, out, x: (F.zeros_like(x),),                     # 0 or pi: a zero derivative
    "complex_abs": lambda grad, out, re, im: tuple(                             # d|z| = (re, im) / |z|, 0 at z = 0
        grad * F.where(F.eq(out, 0), 0.0, part / out) for part in (re, im)),
    "transfer": lambda grad, out, a: (grad.to(a.device.type),),               # d a = grad, on a's device
    "neg": lambda grad, out, a: (-grad,),                                     # d(-a) = -1
    "abs": lambda grad, out, a: (grad * F.sign(a),),                          # d|a| = sign(a)
    "exp": lambda grad, out, a: (grad * out,),                                # d e^a = e^a
    "log": lambda grad, out, a: (grad / a,),                                  # d ln a = 1/a
    "sqrt": lambda grad, out, a: (grad / (2 * out),),                         # d √a = 1/(2√a)
    "rsqrt": lambda grad, out, a: (-0.5 * grad * out * out * out,),           # d a^-½ = -½ a^-3/2
    "sin": lambda grad, out, a: (grad * F.cos(a),),                           # d sin = cos
    "cos": lambda grad, out, a: (-grad * F.sin(a),),                          # d cos = -sin
    "tanh": lambda grad, out, a: (grad * (1 - out * out),),                   # d tanh = 1 - tanh²
    "sigmoid": lambda grad, out, a: (grad * out * (1 - out),),                # dσ = σ(1-σ)
    "relu": lambda grad, out, a: (F.where(F.le(out, 0), 0.0, grad),),         # d relu = [out > 0] (NaN passes)
    "gelu": lambda grad, out, a: (grad * _gelu_grad(a),),                     # d aΦ(a) = Φ(a) + aφ(a)
    "gelu_tanh": lambda grad, out, a: (grad * _gelu_tanh_grad(a),),           # d of the tanh approximation
    "silu": lambda grad, out, a: (grad * F.sigmoid(a) * (1 + a * (1 - F.sigmoid(a))),),  # σ(1 + a(1-σ))
    "floor": lambda grad, out, a: (grad * 0,),                                # piecewise constant
    "ceil": lambda grad, out, a: (grad * 0,),                                 # piecewise constant
    "trunc": lambda grad, out, a: (grad * 0,),                                # piecewise constant
    "round": lambda grad, out, a: (grad * 0,),                                # piecewise constant
    "sign": lambda grad, out, a: (grad * 0,),                                 # piecewise constant
    "count_nonzero": lambda grad, out, a: (None,),                            # torch's ord-0 norm: undefined (.grad None)
    "reciprocal": lambda grad, out, a: (-grad * out * out,),                  # d 1/a = -1/a²
    "square": lambda grad, out, a: (2 * grad * a,),                           # d a² = 2a
    "erf": lambda grad, out, a: (grad * (2 / math.sqrt(math.pi)) * F.exp(-a * a),),  # 2/√π e^-a²
    "erfc": lambda grad, out, a: (grad * (-2 / math.sqrt(math.pi)) * F.exp(-a * a),),  # erfc = 1 - erf
    "tan": lambda grad, out, a: (grad * (1 + out * out),),                    # d tan = 1 + tan²
    "asin": lambda grad, out, a: (grad * F.rsqrt(1 - a * a),),                # 1/√(1-a²)
    "acos": lambda grad, out, a: (-grad * F.rsqrt(1 - a * a),),               # -1/√(1-a²)
    "atan": lambda grad, out, a: (grad / (1 + a * a),),                       # 1/(1+a²)
    "sinh": lambda grad, out, a: (grad * _math_ops.cosh(a),),                 # d sinh = cosh
    "cosh": lambda grad, out, a: (grad * _math_ops.sinh(a),),                 # d cosh = sinh
    "asinh": lambda grad, out, a: (grad * F.rsqrt(a * a + 1),),               # 1/√(a²+1)
    "acosh": lambda grad, out, a: (grad * F.rsqrt(a * a - 1),),               # 1/√(a²-1)
    "atanh": lambda grad, out, a: (grad / (1 - a * a),),                      # 1/(1-a²)
    "exp2": lambda grad, out, a: (grad * out * math.log(2.0),),               # 2^a ln 2
    "expm1": lambda grad, out, a: (grad * (out + 1),),                        # d(e^a - 1) = e^a
    "log2": lambda grad, out, a: (grad / (a * math.log(2.0)),),               # 1/(a ln 2)
    "log10": lambda grad, out, a: (grad / (a * math.log(10.0)),),             # 1/(a ln 10)
    "log1p": lambda grad, out, a: (grad / (a + 1),),                          # 1/(1+a)
    "frac": lambda grad, out, a: (grad,),                                     # d(a - trunc a) = 1
    "erfinv": lambda grad, out, a: (grad * (math.sqrt(math.pi) / 2) * F.exp(out * out),),  # √π/2 e^(erfinv²)
    "lgamma": lambda grad, out, a: (grad * _math_ops.digamma(a),),            # d lnΓ = ψ
    "digamma": lambda grad, out, a: (grad * _trigamma(a),),                   # d ψ = ψ'
    "igamma": lambda grad, out, a, x: (None, grad * _incomplete_gamma_density(a, x)),    # ∂x P = x^(a-1) e^-x / Γ(a)
    "igammac": lambda grad, out, a, x: (None, -grad * _incomplete_gamma_density(a, x)),  # ∂x Q = -∂x P; ∂a: none
    "zeta": lambda grad, out, x, q: (None, grad * -x * special.zeta(x + 1, q)),  # ∂q ζ(x, q) = -x ζ(x+1, q); ∂x: none, as torch
    "i0": lambda grad, out, a: (grad * special.i1(a),),                     # d I0 = I1
    "i1": lambda grad, out, a: (grad * _i1_derivative(a),),                   # d I1 = I0 - I1/a (½ at 0)
    "special_entr": lambda grad, out, a: (grad * -(F.log(a) + 1),),            # d(-a log a) = -(1 + log a)
    "special_erfcx": lambda grad, out, a: (grad * (2 * a * out - 2 / math.sqrt(math.pi)),),  # 2a erfcx - 2/√π
    "special_i0e": lambda grad, out, a: (grad * (special.i1e(a) - F.sign(a) * out),),  # e^-|a| (I1 - sgn I0)
    "special_i1e": lambda grad, out, a: (grad * _i1e_derivative(a, out),),    # i0e - i1e (sgn + 1/a), ½ at 0
    "special_log_ndtr": lambda grad, out, a: (grad * _INV_SQRT_2PI * F.exp(-(out + a * a / 2)),),  # φ(a) / Φ(a)
    "special_ndtri": lambda grad, out, a: (grad * math.sqrt(2 * math.pi) * F.exp(out * out / 2),),  # 1 / φ(ndtri a)
    "logaddexp": lambda grad, out, a, b: (grad / (1 + F.exp(b - a)), grad / (1 + F.exp(a - b))),  # softmax of (a, b)
    "nextafter": lambda grad, out, a, b: (grad, grad * 0),                    # as torch: identity in a, 0 in b
    "atan2": _atan2_rule,                                                     # (b, -a)/(a²+b²), 0 at (0, 0)
    "hypot": lambda grad, out, a, b: (grad * a / out, grad * b / out),        # (a, b)/√(a²+b²)
    "add": lambda grad, out, a, b: (grad, grad),                              # d(a+b) = 1, 1
    "sub": lambda grad, out, a, b: (grad, -grad),                             # d(a-b) = 1, -1
    "mul": lambda grad, out, a, b: (grad * b, grad * a),                      # d(ab) = b, a
    "div": lambda grad, out, a, b: (grad / b, -grad * a / (b * b)),           # d(a/b) = 1/b, -a/b²
    "pow": _pow_rule,                                                         # b a^(b-1), a^b ln a
    "maximum": _maximum_rule,                                                 # to the larger (ties: half each)
    "minimum": _minimum_rule,                                                 # to the smaller (ties: half each)
    "remainder": lambda grad, out, a, b: (grad, -grad * F.floor_divide(a, b)),  # a - b⌊a/b⌋
    "fmod": lambda grad, out, a, b: (grad, -grad * F.div(a, b, rounding_mode="trunc")),  # a - b·trunc(a/b)
    "floor_divide": lambda grad, out, a, b: (grad * 0, grad * 0),            # piecewise constant
    "trunc_divide": lambda grad, out, a, b: (grad * 0, grad * 0),            # piecewise constant
    "floor_divide_op": _no_derivative("floor_divide"),                      # torch.floor_divide: none
    "heaviside": _no_derivative("heaviside"),                                # torch.heaviside: none
    "clamp": _clamp_rule,                                                     # to x inside [lo, hi], else to the bound
    "hardtanh": lambda grad, out, x, lo, hi: (                                # torch's hardtanh_backward: to x
        F.where(F.logical_and(F.gt(x, lo), F.lt(x, hi)), grad, 0.0), None, None),  # strictly inside (lo, hi)
    "addcmul": lambda grad, out, a, b, c: (                                   # d(a + bc) = 1, c, b
        grad, grad * c if _needs_grad(b) else None, grad * b if _needs_grad(c) else None),
    "where": lambda grad, out, c, a, b: (None, F.where(c, grad, 0.0), F.where(c, 0.0, grad)),  # by condition
    # views
    "expand": lambda grad, out, x: (grad,),                                   # engine sums to x.shape
    "reshape": lambda grad, out, x: (grad.reshape(x.shape),),                 # same elements, x's shape
    "permute": lambda grad, out, x, dims: (grad.permute(_inverse(dims)),),    # inverse permutation
    "index": lambda grad, out, x, index: (_unbroadcast_index(grad, x, index),),  # zeros, grad at the slice
    "cat": _cat_rule,                                                         # the slice of each input
    # reductions
    "sum": lambda grad, out, x, dims, keepdim: (_reduced_like(grad, x, dims, keepdim).expand(x.shape),),  # copies
    "prod": _prod_rule,                                                       # ∏_{k≠i} x_k (zeros too)
    "amax": _extreme_rule(False),                                             # even split among the maxima
    "amin": _extreme_rule(False),                                             # even split among the minima
    "max_all": _extreme_rule(True),                                           # even split, NaN counts as max
    "min_all": _extreme_rule(True),                                           # even split, NaN counts as min
    "max_dim": _index_select_rule,                                            # to the argmax
    "pool_max_dim": _index_select_rule,                                       # to the window's (last NaN's)
    "min_dim": _index_select_rule,                                            # to the argmin
    "median_all": _extreme_rule(True),                                        # even split among the medians
    # scans and sorting (webtorch._math_ops)
    "cumsum": lambda grad, out, x, dim: (_shape_ops.flip(_math_ops.cumsum(_shape_ops.flip(grad, (dim,)), dim), (dim,)),),  # reverse cumsum
    "logcumsumexp": _logcumsumexp_rule,                                       # Σ_{j≥i} g_j e^(x_i - out_j)
    "cumprod": _cumprod_rule,                                                 # Σ_{j≥i} g_j ∏_{k≤j,k≠i} x_k
    "sort": lambda grad, out, x, dim, indices: (                              # grad back to the sorted positions
        _indexing.scatter(F.zeros(x.shape, dtype=grad.dtype, device=grad.device), dim, indices, grad),),
    "diagonal": _diagonal_rule,                                               # zeros, grad on the diagonal
    # linalg.eigh, svdvals and pinv (Jacobi iterations run without a graph): the analytic gradients
    "eigh_values": _eigh_rule(True),                                          # V diag(gλ) Vᵀ
    "eigh_vectors": _eigh_rule(False),                                        # V (F ∘ Vᵀ gV) Vᵀ, symmetrized
    "svdvals": lambda grad, out, A, U, Vh: ((U * grad.unsqueeze(-2)) @ Vh,),  # U diag(gS) Vᴴ
    "pinv": _pinv_rule,                                                       # torch's pinv_backward
    # gathers and scatters (webtorch._indexing): by storage offsets, or slices along a dim by an index
    "take": _take_rule,                                                       # scatter-add grad to the offsets
    "take_along": _take_along_rule,                                           # index_add grad into zeros
    "put": _put_rule,                                                         # src gets grad at offsets; x the rest
    # in-place writes (see rebase)
    "copy_slices": _copy_slices_rule,                                         # region from value, rest from base
    "view_region": _view_region_rule,                                         # zeros, grad at the region
    # fused softmax over the last dim (webtorch._ops._softmax)
    "softmax": lambda grad, out, x: (out * (grad - F.sum(grad * out, -1, keepdim=True)),),  # s ⊙ (g - Σ g s)
    "log_softmax": lambda grad, out, x: (grad - F.exp(out) * F.sum(grad, -1, keepdim=True),),  # g - e^out Σ g
    "moments": _moments_rule,                                                 # dμ = s/n, dv = 2 s (x s - μ)/n
    "var": _var_rule,                                                         # g 2 (x - μ) / (N - correction)
    "std": _std_rule,                                                         # var's rule of g / 2σ (0 where σ = 0)
    # fused layer_norm over the last dim (webtorch._ops._layer_norm)
    "layer_norm": _layer_norm_rule,                                           # r(g' - mean g' - x̂ mean g'x̂)
    # implicit-GEMM conv2d (webtorch._ops._conv2d): dx, dW are convolutions of grad; db = Σ grad
    "conv2d": _conv2d_rule,                                                   # dx = g ⋆ flip(Wᵀ), dW = x ⋆ g
    # linear algebra (batched, batch dims already broadcast)
    "matmul": lambda grad, out, a, b: (grad @ b.mT, a.mT @ grad),            # dA = G Bᵀ, dB = Aᵀ G
    # sparse COO tensors (webtorch.sparse): a sparse gradient lies over the tensor's own entries
    # complex64 ops of one kernel (_complex._one_kernel), torch's conjugate convention for a real loss
    "complex_mul": lambda grad, out, a, b: (grad * _complex.conj(b), grad * _complex.conj(a)),  # d(ab) = b da + a db
    "complex_add": lambda grad, out, a, b: (grad, grad),
    "complex_sub": lambda grad, out, a, b: (grad, -grad),
    "complex_modulus": lambda grad, out, z: (grad * _complex.sgn(z),),         # d|z| = z / |z|, 0 at z = 0
    "sparse_coo_tensor": lambda grad, out, v, indices: (sparse.values_at(grad, indices),),  # v_k: grad at its index
    "sparse_values": lambda grad, out, s: (                                   # the values' grad as s's entries'
        sparse.SparseTensor(s._sp_indices, grad, s.shape, s._sp_coalesced),),
    "to_sparse": lambda grad, out, x: (sparse.densify_gradient(grad),),       # the entries' grads, zeros elsewhere
    "sparse_to_dense": lambda grad, out, s: (                                 # grad sampled at s's entries
        sparse.SparseTensor(s._sp_indices, sparse.values_at(grad, s._sp_indices), s.shape, s._sp_coalesced),),
    "coalesce": _coalesce_rule,                                               # duplicates share their sum's grad
    "sparse_densify": lambda grad, out, s: (grad,),                            # dense + sparse: a dense grad
    "sparse_t": lambda grad, out, s: (grad.t(),),                             # transposed back
    "sparse_to": lambda grad, out, s: (grad.to(s.device, s.dtype),),          # back to s's device and dtype
    "spmm": _spmm_rule,                                                       # dS = G Dᵀ (masked), dD = Sᵀ G
    "sparse_sum_all": lambda grad, out, s: (                                  # Tensor.sum of s: 1 everywhere, dense
        grad.to(s.dtype).expand(tuple(s.shape)).contiguous(),),
    # sparse CSR/CSC tensors (sparse/_compressed.py): a compressed gradient lies over the tensor's entries
    "sparse_compressed_tensor": lambda grad, out, v, entries: (compressed.values_at(grad, entries),),  # v_k: at k
    "compressed_values": lambda grad, out, x: (compressed.like(x, grad),),   # the values' grad as x's entries'
    "compressed_to_coo": lambda grad, out, x: (compressed.from_coo_gradient(x, grad),),  # the same entries
    "compressed_t": lambda grad, out, x: (grad.t(),),                         # transposed back
})

# Rules that read the forward result (its storage must not change before backward).
READS_OUT = {"moments", "erfinv", "logcumsumexp", "exp", "sqrt", "rsqrt", "tanh", "sigmoid", "reciprocal", "pow", "prod", "amax", "amin", "max_all",
             "min_all", "tan", "exp2", "expm1", "hypot", "cumprod", "softmax", "log_softmax", "complex_abs"}
# Rules that read only some operands: where its condition, take_along its index.
READS_ONLY = {"where": (0,), "take_along": (1,)}
# Rules that read no operand values: in-place changes to their operands cannot invalidate them.
VALUE_FREE = {"copy", "neg", "add", "sub", "frac", "cumsum", "sort", "diagonal", "floor", "ceil", "trunc", "round", "sign", "count_nonzero", "floor_divide",
              "trunc_divide", "floor_divide_op", "expand", "reshape", "permute", "index", "cat", "sum",
              "copy_slices", "view_region", "put", "view_as_real", "view_as_complex", "angle_real"}

# Elementwise ops that have no gradient: their outputs are bool or piecewise-constant integers.
NON_DIFFERENTIABLE = {"isnan", "isinf", "signbit", "gcd", "bitwise_left_shift", "bitwise_right_shift", "logical_not", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
                      "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"}

from . import graph  # noqa: E402,F401  (torch.autograd.graph)
from . import forward_ad, function, functional, variable  # noqa: E402,F401
from .variable import Variable  # noqa: E402,F401
