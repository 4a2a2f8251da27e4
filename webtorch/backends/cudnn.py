"""torch.backends.cudnn without cuDNN: the flags keep torch's defaults and change nothing."""
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None
