"""torch.nested: nested (jagged) tensors are not built; each name raises NotImplementedError naming the gap."""
from . import _refusals

__all__ = ["nested_tensor", "as_nested_tensor"]

_REASON = "nested (jagged) tensors: webtorch's tensors are strided, pad ragged batches instead"
nested_tensor = _refusals.stand_in("nested.nested_tensor", _REASON)
as_nested_tensor = _refusals.stand_in("nested.as_nested_tensor", _REASON)
