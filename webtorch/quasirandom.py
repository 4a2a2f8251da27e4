"""torch.quasirandom: SobolEngine is not built (NotImplementedError naming the gap)."""
from . import _refusals

__all__ = ["SobolEngine"]

SobolEngine = _refusals.stand_in("quasirandom.SobolEngine", "the Sobol quasi-random sequence engine: not built yet")
