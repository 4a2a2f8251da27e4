"""torch.backends.opt_einsum: torch orders einsum's contractions with the opt_einsum package when it is
installed; webtorch contracts left to right, as torch does without it."""
enabled = False
strategy = None


def is_available():
    return False


def get_opt_einsum():
    return None
