"""torch.types: the type aliases annotations import (torchvision's tv_tensors, transformers' processors)."""
import builtins
import os
from typing import IO, Sequence, TypeAlias, Union

from ._dtypes import dtype as _dtype
from ._memory_format import layout as _layout
from ._tensor import Size as _size, Tensor, device as _device

__all__ = ["Device", "FileLike", "Number", "Storage"]

_bool, _int, _float, _complex, _str, _bytes = builtins.bool, builtins.int, builtins.float, builtins.complex, \
    builtins.str, builtins.bytes
_TensorOrTensors: TypeAlias = Union[Tensor, Sequence[Tensor]]
_TensorOrOptionalTensors: TypeAlias = Union[Tensor, Sequence[Union[Tensor, None]]]
Number: TypeAlias = Union[_int, _float, _bool]
_Number = (_int, _float, _bool)
Device: TypeAlias = Union[_device, _str, _int, None]
FileLike: TypeAlias = Union[_str, os.PathLike, IO[_bytes]]
_symsize = _size


def __getattr__(name):
    if name == "Storage":  # torch.types.Storage is torch.storage's base: here UntypedStorage
        from ._storage import UntypedStorage
        return UntypedStorage
    raise AttributeError(f"module 'torch.types' has no attribute {name!r}")
