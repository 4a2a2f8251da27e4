"""Autograd and training inside Pyodide, against gradients and losses torch produced on the host."""
import functools
import json
import sys
from pathlib import Path

import pytest

import golden

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from grad_cases import GRAD_CASES  # noqa: E402
from training_cases import CASES as TRAINING_CASES, worst_parameter_differences  # noqa: E402

DIR = "/tmp/webtorch_tests"
MODULES = ["op_cases.py", "nn_cases.py", "more_op_cases.py", "api_cases.py", "complex_cases.py", "compare.py", "grad_cases.py", "training_cases.py"]


@pytest.fixture(scope="session")
def gradient_golden():
    return golden.get(golden.gradients)


RUN_GRADS = """
import json, sys, traceback
sys.path.insert(0, {dir!r})
import webtorch
from compare import _dec_float
from grad_cases import GRAD_CASES, check_gradients, plain_gradients
golden = json.load(open({dir!r} + "/grads.json"))
failures = {{}}
only = set({names!r})
for c in GRAD_CASES:
    if c.name not in golden["grads"] or c.name not in only:
        continue
    c._values = [[_dec_float(v) if isinstance(v, str) else v for v in vals] for vals in golden["inputs"][c.name]]
    try:
        check_gradients(plain_gradients(webtorch, c, {device!r}), golden["grads"][c.name], c, c.name)
    except Exception as e:
        failures[c.name] = "".join(traceback.format_exception(e)[-3:])
json.dumps(failures)
"""

_results = {}


@functools.lru_cache(maxsize=1)
def _cases_with_gradients(golden):
    """Parsed once: the golden text is megabytes (long-row and conv cases), and there is a test per case."""
    return frozenset(json.loads(golden)["grads"])


def _grad_failures(py, device, golden):
    key = (py.mode, device)
    if key not in _results:
        for module in MODULES:
            py.put_test_module(module)
        py.put_file(DIR + "/grads.json", golden)
        names = sorted(n for n, d in GRADIENT_RUNS if d == device)
        _results[key] = json.loads(py.run(RUN_GRADS.format(dir=DIR, device=device, names=names), timeout=900))
    return _results[key]


# Every case on "webgpu"; on "cpu" (the pure-Python device, the same code the host suite runs on CPython)
# every third case, which keeps Pyodide's own arithmetic in view at a third of the time (all cases: 143 s)
GRADIENT_RUNS = [(c.name, "webgpu") for c in GRAD_CASES] + [(c.name, "cpu") for c in GRAD_CASES[::3]]


@pytest.mark.parametrize("name,device", GRADIENT_RUNS, ids=[f"{d}-{n}" for n, d in GRADIENT_RUNS])
def test_gradient_in_browser(py_worker, device, name, gradient_golden):
    if name not in _cases_with_gradients(gradient_golden):
        pytest.skip("torch has no gradient for this case")
    failure = _grad_failures(py_worker, device, gradient_golden).get(name)
    assert failure is None, f"{name}[worker/{device}]:\n{failure}"


@pytest.mark.parametrize("model_name,optimizer_name", TRAINING_CASES, ids=[f"{m}-{o}" for m, o in TRAINING_CASES])
def test_training_in_browser(py_page, model_name, optimizer_name):
    expected = json.loads(golden.get(golden.training, model_name, optimizer_name))
    state, expected_losses, expected_params = expected["state"], expected["losses"], expected["params"]
    for module in MODULES:
        py_page.put_test_module(module)
    py_page.put_file(DIR + "/state.json", json.dumps(state))
    losses, params = py_page.run(f"""
import json, webtorch
from training_cases import MODELS, train
state = json.load(open({DIR!r} + "/state.json"))
model = MODELS[{model_name!r}][0](webtorch).to("webgpu")
model.load_state_dict({{k: webtorch.tensor(v) for k, v in state.items()}})
losses, params = train(webtorch, model, {model_name!r}, {optimizer_name!r}, "webgpu")
[losses, params]
""", timeout=900)
    for step, (a, e) in enumerate(zip(losses, expected_losses)):
        assert abs(a - e) <= 1e-4 * abs(e), f"step {step}: loss {a} vs torch {e}"
    for name, worst in worst_parameter_differences(params, expected_params).items():
        assert worst <= 1e-3, f"{name}: max abs difference {worst}"
