"""torch.backends.openmp: webtorch runs no OpenMP threads."""


def is_available():
    return False
