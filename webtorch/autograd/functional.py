"""torch.autograd.functional: jacobian by reverse mode, one backward per output element."""
from .. import _ops as F
from .._tape import enable_grad

__all__ = ["jacobian"]


def _as_tuple(x):
    return (x, False) if isinstance(x, tuple) else ((x,), True)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """d func(inputs) / d inputs: for one input and one output a tensor of shape output.shape + input.shape;
    tuples of them where func takes or returns tuples, as torch nests them."""
    from . import grad
    if strategy != "reverse-mode":
        raise NotImplementedError("webtorch's autograd.functional.jacobian computes in reverse mode only")
    inputs, one_input = _as_tuple(inputs)
    with enable_grad():
        leaves = tuple(x.detach().requires_grad_(True) if not create_graph else
                       (x if x.requires_grad else x.detach().requires_grad_(True)) for x in inputs)
        outputs, one_output = _as_tuple(func(*leaves))
        rows = []
        for out in outputs:
            flat = out.reshape(-1)
            per_input = [[] for _ in leaves]
            for k in range(flat.numel()):
                grads = grad(flat[k], leaves, retain_graph=True, create_graph=create_graph, allow_unused=True)
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
