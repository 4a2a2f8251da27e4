"""torch.backends.mps: there is no Apple MPS device here."""


def is_available():
    return False


def is_built():
    return False
