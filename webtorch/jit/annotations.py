"""torch.jit.annotations: the list-of-N types TorchScript signatures name; here plain List."""
from typing import List

__all__ = ["BroadcastingList1", "BroadcastingList2", "BroadcastingList3"]

BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = List
