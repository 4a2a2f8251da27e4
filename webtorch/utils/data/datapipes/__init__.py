"""torch.utils.data.datapipes: DataPipes (deprecated in torch) are refused (webtorch/_refusals.py DATAPIPES)."""
from . import iter  # noqa: F401,A004
