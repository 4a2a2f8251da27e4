"""torch.backends.mha: the switch of nn.MultiheadAttention's fused inference path. webtorch has one
path, which gives the same numbers; the switch is kept and changes nothing."""
_fastpath_enabled = True


def get_fastpath_enabled():
    return _fastpath_enabled


def set_fastpath_enabled(value):
    global _fastpath_enabled
    _fastpath_enabled = bool(value)
