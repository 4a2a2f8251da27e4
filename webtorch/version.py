"""torch.version: the torch API version webtorch implements, and the answers of torch's CPU build
(no CUDA, no ROCm, no XPU). webtorch's own version is webtorch.__version__ (under install_as_torch,
where torch.__version__ is this one: webtorch.__webtorch_version__)."""
from .torch_version import TorchVersion

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "xpu"]

__version__ = TorchVersion("2.13.0")
debug = False
cuda = None
hip = None
xpu = None
rocm = None
git_version = "webtorch"
