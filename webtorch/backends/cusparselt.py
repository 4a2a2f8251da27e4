"""torch.backends.cusparselt: NVIDIA's structured-sparsity library, not here."""


def is_available():
    return False


def version():
    return None
