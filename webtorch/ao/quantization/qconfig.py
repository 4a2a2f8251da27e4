"""torch.ao.quantization.qconfig: the eager-mode quantization configurations are refused (webtorch quantizes
weights with torchao's API: webtorch/ao/quantization/quant_api.py)."""
from ..._refusals import QUANT, stand_in

__all__ = ["default_dynamic_qconfig", "per_channel_dynamic_qconfig"]

default_dynamic_qconfig, per_channel_dynamic_qconfig = (stand_in(f"ao.quantization.qconfig.{name}", QUANT)
                                                        for name in __all__)
