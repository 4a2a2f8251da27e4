"""torch.fft: the discrete Fourier transforms need complex numbers (issue 24); until then every
function here is a refusal (webtorch._refusals)."""
from ._tensor import Tensor  # noqa: F401  (torch.fft re-exports torch.Tensor in its __all__)
