"""torchao's weight-only quantization API: quantize_(model, Int8WeightOnlyConfig()) and
quantize_(model, Int4WeightOnlyConfig(group_size=...)), with torchao 0.18's names and defaults
(torchao/quantization/quant_api.py). The arithmetic and layouts: weight_only.py."""
import logging
from dataclasses import dataclass

from ...nn.layers import Linear, NonDynamicallyQuantizableLinear
from . import weight_only

__all__ = ["quantize_", "Int8WeightOnlyConfig", "Int4WeightOnlyConfig", "PerRow", "PerTensor", "PerGroup",
           "AOBaseConfig"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PerRow:
    """One scale per row (torchao.quantization.granularity.PerRow): per output channel of a weight."""
    dim: int = -1


@dataclass(frozen=True)
class PerTensor:
    pass


@dataclass(frozen=True)
class PerGroup:
    group_size: int


class AOBaseConfig:
    """Base of the configs quantize_ takes."""


@dataclass
class Int8WeightOnlyConfig(AOBaseConfig):
    """int8 weight-only, symmetric, one float32 scale per output channel (torchao's default PerRow)."""
    group_size: int = None
    granularity: object = PerRow()
    set_inductor_config: bool = True
    version: int = 2
    BITS = 8

    def __post_init__(self):
        if self.version != 2:
            raise ValueError("version 1 of Int8WeightOnlyConfig has been removed, please use version 2, "
                             "see https://github.com/pytorch/ao/issues/2752 for more details")
        if self.group_size is not None:
            raise AssertionError(f"Only support version 2 with group_size=None, got {self.group_size}. "
                                 f"Use granularity=PerGroup({self.group_size}) instead.")
        if not isinstance(self.granularity, (PerTensor, PerRow, PerGroup)):
            raise AssertionError(f"granularity must be PerTensor, PerRow, or PerGroup, but got {self.granularity}")
        if not isinstance(self.granularity, PerRow) or self.granularity.dim not in (-1, 1):
            raise NotImplementedError(f"webtorch: Int8WeightOnlyConfig supports granularity=PerRow() only (per output "
                                      f"channel, torchao's default), not {self.granularity}")


@dataclass
class Int4WeightOnlyConfig(AOBaseConfig):
    """int4 weight-only, groupwise along K: asymmetric, a scale and a float zero point per group
    (torchao's default int4_packing_format "plain"; the choose-qparams algorithm "tinygemm" names
    the zero point's form, which the plain format shares)."""
    group_size: int = 128
    set_inductor_config: bool = True
    int4_packing_format: str = "plain"
    int4_choose_qparams_algorithm: str = "tinygemm"
    int4_tile_packed_ntile: int = 8
    version: int = 2
    BITS = 4

    def __post_init__(self):
        if self.int4_tile_packed_ntile not in (8, 16):
            raise AssertionError("int4_tile_packed_ntile must be either 8 or 16")
        if self.group_size not in (32, 64, 128, 256):
            raise NotImplementedError(f"webtorch: Int4WeightOnlyConfig group_size must be 32, 64, 128 or 256 (torchao's "
                                      f"choices), got {self.group_size}")
        fmt = getattr(self.int4_packing_format, "value", self.int4_packing_format)
        algorithm = getattr(self.int4_choose_qparams_algorithm, "value", self.int4_choose_qparams_algorithm)
        if fmt != "plain" or algorithm != "tinygemm":
            raise NotImplementedError(f"webtorch: Int4WeightOnlyConfig supports int4_packing_format='plain' with "
                                      f"int4_choose_qparams_algorithm='tinygemm' (torchao's defaults), not "
                                      f"{fmt!r} / {algorithm!r}")


def _is_linear(module, fqn):
    """torchao's default filter: Linear layers, except MultiheadAttention's out_proj and ones done already."""
    return (isinstance(module, Linear) and not isinstance(module, NonDynamicallyQuantizableLinear)
            and not isinstance(module, weight_only._WeightOnlyLinear))


def quantize_(model, config, filter_fn=None, device=None):
    """Quantizes the weights of model's Linear layers (those filter_fn(module, fqn) accepts) in place,
    model itself included. Layers whose in_features is not a multiple of int4's group_size stay float,
    as in torchao. device: where the quantization runs and the layers end up (default: where they are).
    A layer keeps its identity and bias; its weight becomes buffers (see weight_only)."""
    if not isinstance(config, (Int8WeightOnlyConfig, Int4WeightOnlyConfig)):
        raise NotImplementedError(f"webtorch: quantize_ supports Int8WeightOnlyConfig and Int4WeightOnlyConfig, not "
                                  f"{type(config).__name__}")
    filter_fn = filter_fn or _is_linear
    for fqn, module in list(model.named_modules()):
        if not filter_fn(module, fqn):
            continue
        if not isinstance(module, Linear):
            raise NotImplementedError(f"webtorch: quantize_ quantizes Linear layers only; filter_fn chose {fqn or 'the model'} "
                                      f"({type(module).__name__})")
        if device is not None:
            module.to(device)
        if config.BITS == 4 and module.in_features % config.group_size:
            logger.info(f"Skipping quantizing weight with int4 weight only quantization because the shape of weight "
                        f"{tuple(module.weight.shape)} is not compatible with group_size {config.group_size}")
            continue
        weight_only.convert_linear(module, config)
    return model
