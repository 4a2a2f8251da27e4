"""torch.utils.data.datapipes.iter: refused (DataPipes, deprecated in torch, are not built)."""
from ...._refusals import DATAPIPES, stand_in

__all__ = ["IterableWrapper", "Batcher", "FileLister", "FileOpener"]

IterableWrapper, Batcher, FileLister, FileOpener = (stand_in(f"utils.data.datapipes.iter.{name}", DATAPIPES)
                                                    for name in __all__)
