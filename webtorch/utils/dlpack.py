"""torch.utils.dlpack: refused. A DLPack capsule shares memory with another library's tensor; a webtorch
tensor's memory is a WebGPU buffer or a numpy array (from_numpy / Tensor.numpy() share it on the cpu)."""
from .. import _refusals

__all__ = ["from_dlpack", "to_dlpack"]

from_dlpack = _refusals.stand_in("utils.dlpack.from_dlpack", _refusals.STORAGE)
to_dlpack = _refusals.stand_in("utils.dlpack.to_dlpack", _refusals.STORAGE)
