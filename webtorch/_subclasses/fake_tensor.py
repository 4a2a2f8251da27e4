"""torch._subclasses.fake_tensor: libraries ask is_fake(x) to skip data-dependent work while tracing;
here nothing traces, so the answer is always False, and the classes exist for isinstance checks."""
from .._tensor import Tensor


class FakeTensor(Tensor):
    """A tensor of metadata only, made by a FakeTensorMode: none exists here."""
    def __new__(cls, *args, **kwargs):
        raise NotImplementedError("webtorch has no fake tensors (torch._subclasses.FakeTensor belongs to torch's "
                                  "tracing: Dynamo, export)")


class FakeTensorMode:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("webtorch has no FakeTensorMode (torch's tracing: Dynamo, export, is not there)")


class UnsupportedFakeTensorException(RuntimeError):
    pass


class DynamicOutputShapeException(RuntimeError):
    pass


def is_fake(x):
    return False
