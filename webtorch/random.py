"""torch.random: the default generator's seed and state, and fork_rng, which restores the state on exit
(webtorch has one generator for every device, so forking it forks every device's stream)."""
import contextlib

from ._random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state  # noqa: F401


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
