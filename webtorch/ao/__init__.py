"""torch.ao: the quantization names libraries import (webtorch.ao.quantization)."""
from . import quantization  # noqa: F401
