"""torch.backends: the flags scripts set for CUDA, cuDNN and MPS. None of those backends exists
here, so the flags are stored and change nothing; is_available() answers False."""
from . import cpu, cuda, cudnn, cusparselt, mps, opt_einsum  # noqa: F401
