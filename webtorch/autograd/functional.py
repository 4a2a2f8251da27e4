"""torch.autograd.functional: jacobian (one backward per output element), vjp, and the products that
torch too builds from reverse mode alone: jvp by the double-backward trick (the gradient of a vjp with
respect to its cotangent is the jvp), vhp as the vjp of the gradient, hvp by the trick applied to it,
hessian as the jacobian of the gradient."""
from .. import _ops as F
from .._tape import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x, what="inputs", fn="jacobian"):
    tup = isinstance(x, tuple)
    items = x if tup else (x,)
    for i, item in enumerate(items):
        if not isinstance(item, F.Tensor):
            where = f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but the"
            raise TypeError(f"{where} value at index {i} has type {type(item)}." if tup else
                            f"{where} given {what} has type {type(item)}.")
    return items, not tup


def _untuple(items, single):
    return items[0] if single else items


def _leaves(inputs, create_graph):
    """Fresh leaves to differentiate at; with create_graph, inputs that require grad stay linked."""
    return tuple(x if create_graph and x.requires_grad else x.detach().requires_grad_(True) for x in inputs)


def _vector(v, refs, refs_single, fn, single_element_of):
    if v is None:
        if len(refs) != 1 or refs[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if {single_element_of} a single Tensor with a "
                               "single element.")
        return None
    v, _ = _as_tuple(v, "v", fn)
    if len(v) != len(refs):
        raise RuntimeError("The given v should contain a single Tensor." if refs_single else
                           f"v is a tuple of invalid length: should be {len(refs)} but got {len(v)}.")
    for i, (a, r) in enumerate(zip(v, refs)):
        if a.shape != r.shape:
            raise RuntimeError(f"{'' if refs_single else f'Entry {i} in '}v has invalid size: should be "
                               f"{r.shape} but got {a.shape}.")
    return tuple(a.detach() for a in v)


def _grad(outputs, inputs, grad_outputs=None, create_graph=False):
    """autograd.grad over the outputs that require grad (None for an input none of them reaches)."""
    from . import grad
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs or (None,) * len(outputs)) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad([o for o, _ in pairs], inputs, [g for _, g in pairs], create_graph=create_graph, allow_unused=True)


def _zeros_for_none(grads, refs, strict, independent):
    if strict and any(g is None for g in grads):
        i = next(i for i, g in enumerate(grads) if g is None)
        raise RuntimeError(f"{independent} {i}. This is not allowed in strict mode.")
    return tuple(F.zeros_like(r) if g is None else g for g, r in zip(grads, refs))


def _done(tensors, create_graph):
    return tuple(t if create_graph else t.detach() for t in tensors)


def _scalar_output(func, inputs, fn):
    out = func(*inputs)
    if isinstance(out, tuple) or not isinstance(out, F.Tensor):
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if out.numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain a single element")
    return out


def _gradient_of_scalar(func, inputs, v, create_graph, fn):
    """vhp's and hvp's common start: the leaves, v checked against them, func's one-element output and its
    gradient (with a graph, for the second derivative)."""
    with enable_grad():
        inputs, single_in = _as_tuple(inputs, "inputs", fn)
        inputs = _leaves(inputs, create_graph)
        v = _vector(v, inputs, single_in, fn, "the input to the user-provided function is")
        out = _scalar_output(func, inputs, fn)
        return inputs, single_in, v, out, _grad((out,), inputs, create_graph=True)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the gradient of <func(inputs), v> with respect to the inputs."""
    with enable_grad():
        inputs, single_in = _as_tuple(inputs, "inputs", "vjp")
        inputs = _leaves(inputs, create_graph)
        outputs, single_out = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        v = _vector(v, outputs, single_out, "vjp", "the user-provided function returns")
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(outputs, inputs, v, create_graph)
        grads = _zeros_for_none(grads, inputs, strict, "The output of the user-provided function is independent of input")
    return _untuple(_done(outputs, create_graph), single_out), _untuple(_done(grads, create_graph), single_in)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): u -> vjp(u) is linear in the cotangent u, and its own vjp with v is J v."""
    with enable_grad():
        inputs, single_in = _as_tuple(inputs, "inputs", "jvp")
        inputs = _leaves(inputs, create_graph)
        v = _vector(v, inputs, single_in, "jvp", "the input to the user-provided function is")
        outputs, single_out = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        cotangents = tuple(F.zeros_like(o).requires_grad_(True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, cotangents, create_graph=True)
    with set_grad_enabled(create_graph):
        grads = _grad(grad_inputs, cotangents, v, create_graph)
        grads = _zeros_for_none(grads, outputs, strict, "The gradient with respect to the input is independent of "
                                "entry")
    return _untuple(_done(outputs, create_graph), single_out), _untuple(_done(grads, create_graph), single_out)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) of a scalar func: the vjp of its gradient."""
    inputs, single_in, v, out, jac = _gradient_of_scalar(func, inputs, v, create_graph, "vhp")
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(jac, inputs, v, create_graph)
        grads = _zeros_for_none(grads, inputs, strict, "The jacobian of the user-provided function is independent of "
                                "input")
    return _done((out,), create_graph)[0], _untuple(_done(grads, create_graph), single_in)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) of a scalar func: the double-backward trick applied to its gradient."""
    inputs, single_in, v, out, jac = _gradient_of_scalar(func, inputs, v, create_graph, "hvp")
    with enable_grad():
        cotangents = tuple(F.zeros_like(x).requires_grad_(True) for x in inputs)
        double_back = _grad(jac, inputs, cotangents, create_graph=True)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad(double_back, cotangents, v, create_graph)
        grads = _zeros_for_none(grads, inputs, strict, "The hessian of the user-provided function is independent of "
                                "entry")
    return _done((out,), create_graph)[0], _untuple(_done(grads, create_graph), single_in)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """d func(inputs) / d inputs: for one input and one output a tensor of shape output.shape + input.shape;
    tuples of them where func takes or returns tuples, as torch nests them."""
    from . import grad
    if strategy != "reverse-mode":
        raise NotImplementedError("webtorch's autograd.functional.jacobian computes in reverse mode only")
    inputs, one_input = _as_tuple(inputs)
    with enable_grad():
        leaves = _leaves(inputs, create_graph)
        outputs, one_output = _as_tuple(func(*leaves), "outputs of the user-provided function")
        rows = []
        for out in outputs:
            flat = out.reshape(-1)
            per_input = [[] for _ in leaves]
            for k in range(flat.numel()):
                grads = (grad(flat[k], leaves, retain_graph=True, create_graph=create_graph, allow_unused=True)
                         if out.requires_grad else (None,) * len(leaves))
                for i, (g, x) in enumerate(zip(grads, leaves)):
                    if g is None and strict:
                        raise RuntimeError(f"Output {len(rows)} of the user-provided function is independent of "
                                           f"input {i}. This is not allowed in strict mode.")
                    per_input[i].append(F.zeros_like(x) if g is None else g)
            rows.append(tuple(F.stack(gs).reshape(*out.shape, *x.shape) if gs else
                              F.zeros(*out.shape, *x.shape, dtype=x.dtype, device=x.device)
                              for gs, x in zip(per_input, leaves)))
    if not create_graph:
        rows = [tuple(j.detach() for j in row) for row in rows]
    if one_output:
        return rows[0][0] if one_input else rows[0]
    return tuple(row[0] for row in rows) if one_input else tuple(rows)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The jacobian of the gradient of a scalar func: for inputs (a, b) the tuple ((H_aa, H_ab), (H_ba, H_bb))."""
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    _, single_in = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*x):
        return jacobian(lambda *y: _scalar_output(func, y, "hessian").squeeze(), x, create_graph=True)

    return jacobian(gradient, inputs, create_graph=create_graph, strict=strict, strategy=outer_jacobian_strategy)
