"""torch.ao.quantization: the stubs a float model carries (QuantStub, DeQuantStub: the identity until
a model is prepared, as in torch) and eager mode's entry points, which raise; and torchao's
weight-only quantization (torchao.quantization's quantize_, Int8WeightOnlyConfig, Int4WeightOnlyConfig:
quant_api.py), which webtorch runs with its own kernels."""
from ...nn.module import Module
from .quant_api import (AOBaseConfig, Int4WeightOnlyConfig, Int8WeightOnlyConfig, PerGroup, PerRow, PerTensor,
                        quantize_)
from .weight_only import Int4WeightOnlyLinear, Int8WeightOnlyLinear
from . import qconfig  # noqa: F401,E402  (refused eager-mode configurations)

__all__ = ["QuantStub", "DeQuantStub", "QuantWrapper", "fuse_modules", "prepare", "convert", "quantize",
           "quantize_dynamic", "prepare_qat", "get_default_qconfig", "default_qconfig", "QConfig",
           "quantize_", "Int8WeightOnlyConfig", "Int4WeightOnlyConfig", "PerRow", "PerTensor", "PerGroup", "AOBaseConfig",
           "Int8WeightOnlyLinear", "Int4WeightOnlyLinear"]


class QuantStub(Module):
    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class DeQuantStub(QuantStub):
    pass


class QuantWrapper(Module):
    def __init__(self, module):
        super().__init__()
        self.quant, self.dequant, self.module = QuantStub(), DeQuantStub(), module

    def forward(self, x):
        return self.dequant(self.module(self.quant(x)))


def _no_quantization(name):
    def unsupported(*args, **kwargs):
        raise NotImplementedError(f"webtorch: torch.ao.quantization.{name} is not supported (webtorch's "
                                  "quantization is torchao's weight-only API: quantize_)")
    unsupported.__name__ = name
    return unsupported


fuse_modules = _no_quantization("fuse_modules")
prepare = _no_quantization("prepare")
convert = _no_quantization("convert")
quantize = _no_quantization("quantize")
quantize_dynamic = _no_quantization("quantize_dynamic")
prepare_qat = _no_quantization("prepare_qat")
get_default_qconfig = _no_quantization("get_default_qconfig")
QConfig = _no_quantization("QConfig")
default_qconfig = None
