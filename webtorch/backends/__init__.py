"""torch.backends: the flags scripts set for CUDA, cuDNN, MPS, oneDNN (mkldnn), MKL, NNPACK, OpenMP. None
of those backends exists here, so the flags are stored and change nothing; is_available() answers False."""
from . import cpu, cuda, cudnn, cusparselt, mha, mkl, mkldnn, mps, nnpack, openmp, opt_einsum  # noqa: F401
