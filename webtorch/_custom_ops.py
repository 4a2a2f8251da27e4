"""torch._custom_ops: the older home of torch.library's get_ctx (torchvision's fake kernels name it)."""
from .library import get_ctx  # noqa: F401
