"""torch.storage: UntypedStorage (webtorch/_storage.py, a tensor's bytes); TypedStorage, torch's deprecated
typed view of one, is refused."""
from . import _refusals
from ._storage import UntypedStorage

__all__ = ["UntypedStorage", "TypedStorage"]

TypedStorage = _refusals.stand_in("storage.TypedStorage", _refusals.STORAGE)
