"""torch.linalg: the vector norm (matrix decompositions are not in webtorch)."""
from ._math_ops import vector_norm  # noqa: F401


def norm(x, ord=None, dim=None, keepdim=False, dtype=None):
    if ord is not None and not isinstance(ord, (int, float)):
        raise NotImplementedError(f"webtorch: linalg.norm ord={ord!r} is not supported")
    return vector_norm(x, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
