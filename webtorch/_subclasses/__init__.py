"""torch._subclasses: fake tensors belong to torch's tracing (Dynamo, export), which webtorch does not
have. No webtorch tensor is fake; making a FakeTensorMode raises NotImplementedError."""
from .fake_tensor import (DynamicOutputShapeException, FakeTensor, FakeTensorMode,  # noqa: F401
                          UnsupportedFakeTensorException)

__all__ = ["FakeTensor", "FakeTensorMode", "UnsupportedFakeTensorException", "DynamicOutputShapeException"]
