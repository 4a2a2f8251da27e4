"""webtorch/_settings.py: torch's process-wide settings round-trip and fail as torch's do."""
import pytest
import torch

import webtorch


@pytest.fixture
def restore():
    saved = (torch.get_num_threads(), torch.are_deterministic_algorithms_enabled(),
             torch.is_deterministic_algorithms_warn_only_enabled(), torch.is_warn_always_enabled())
    yield
    torch.set_num_threads(saved[0])
    torch.use_deterministic_algorithms(saved[1], warn_only=saved[2])
    torch.set_warn_always(saved[3])
    webtorch.set_num_threads(1)
    webtorch.use_deterministic_algorithms(False)
    webtorch.set_warn_always(False)


def _same(fn):
    """fn(T) on torch and webtorch: equal results, or the same exception type."""
    results = []
    for T in (torch, webtorch):
        try:
            results.append(("ok", fn(T)))
        except Exception as e:  # noqa: BLE001
            results.append(("raised", type(e)))
    assert results[0] == results[1], results


@pytest.mark.parametrize("value", [1, 3, 0, -2, 1.5, True])
def test_num_threads(value, restore):
    _same(lambda T: (T.set_num_threads(value), T.get_num_threads()))


@pytest.mark.parametrize("mode,warn_only", [(True, False), (True, True), (False, False), (1, False)])
def test_deterministic_algorithms(mode, warn_only, restore):
    _same(lambda T: (T.use_deterministic_algorithms(mode, warn_only=warn_only),
                     T.are_deterministic_algorithms_enabled(), T.is_deterministic_algorithms_warn_only_enabled(),
                     T.get_deterministic_debug_mode()))


@pytest.mark.parametrize("debug_mode", [0, 1, 2, "default", "warn", "error", 3, "loud"])
def test_deterministic_debug_mode(debug_mode, restore):
    _same(lambda T: (T.set_deterministic_debug_mode(debug_mode), T.get_deterministic_debug_mode(),
                     T.are_deterministic_algorithms_enabled()))


def test_warn_always_and_typename(restore):
    _same(lambda T: (T.set_warn_always(True), T.is_warn_always_enabled()))
    for make in (lambda T: T.zeros(2), lambda T: T.zeros(2, dtype=T.int64), lambda T: 3, lambda T: [1], lambda T: None):
        _same(lambda T: T.typename(make(T)))
    assert webtorch.GradScaler is webtorch.amp.GradScaler
    assert issubclass(webtorch.AcceleratorError, RuntimeError) and issubclass(torch.AcceleratorError, RuntimeError)


@pytest.mark.parametrize("enabled", [True, False])
def test_random_module_and_fork_rng(enabled):
    """torch.random's names; fork_rng restores the generator's state on exit (when enabled)."""
    draws = []
    for T in (torch, webtorch):
        T.random.manual_seed(7)
        with T.random.fork_rng(enabled=enabled):
            T.rand(3)
        after = T.rand(2)
        state = T.random.get_rng_state()
        again = (T.rand(2), T.random.set_rng_state(state), T.rand(2))
        draws.append((after.tolist(), again[0].tolist() == again[2].tolist(), T.random.initial_seed()))
    assert draws[0][1:] == draws[1][1:] == (True, 7)
    webtorch.random.manual_seed(7)
    webtorch.rand(3)
    assert (draws[1][0] == webtorch.rand(2).tolist()) is (not enabled)
