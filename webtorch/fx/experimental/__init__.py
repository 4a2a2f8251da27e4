"""torch.fx.experimental: proxy_tensor's questions (is a proxy mode on?) answered for an eager library."""
from . import proxy_tensor  # noqa: F401
