"""The values host torch computes for the browser tests to compare with, by name.

On a host with torch (this machine, CI) each is computed when a test asks for it. A machine without
torch (the GPU machine of scripts/gpu_chrome_run.sh: torch is too large to carry there) reads them
from the folder WEBTORCH_GOLDEN names, written beforehand by `python tests/browser/golden.py FOLDER`
(scripts/gpu_chrome_pack.sh does) where torch is installed.
"""
from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))


def op_table() -> str:
    """tests/op_cases.py's cases and torch's results (tests/compare.py's expected.json)."""
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "expected.json"
        subprocess.run([sys.executable, str(TESTS / "compare.py"), str(out)], check=True, capture_output=True)
        return out.read_text()


def opinfo() -> str:
    """The first OpInfo sample of each (op, column) without a known failure, and torch's result."""
    from opinfo_cases import golden
    entries = golden()
    assert len(entries) > 300, "too few OpInfo samples for the browser: %d" % len(entries)
    return json.dumps(entries, allow_nan=False, separators=(",", ":"))


def sparse() -> str:
    """OpInfo's sparse samples of each (op, layout, device) row (tests/opinfo_cases.py sparse_rows) and the
    sparse table's cases (tests/sparse_cases.py), with torch's results; the files torch saves of sparse_cases.saved's
    tensors (base64), with the tensors."""
    import torch
    import sparse_cases
    from compare import to_plain
    from opinfo_cases import sparse_rows, sparse_samples
    opinfo = [{"id": "/".join(("opinfo",) + row), "device": row[2], "cases": sparse_samples(*row[:2])}
              for row in sparse_rows()]
    table = [{"id": "/".join(("table",) + case), "case": case,
              "expected": sparse_cases.run(torch, case[0], case[1], "cpu")} for case in sparse_cases.CASES]
    files = {}
    for name, x in sparse_cases.saved(torch).items():
        data = io.BytesIO()
        torch.save(x, data)
        files[name] = {"bytes": base64.b64encode(data.getvalue()).decode(), "expected": to_plain(x)}
    return json.dumps({"opinfo": opinfo, "table": table, "saved": files}, allow_nan=False, separators=(",", ":"))


def gradients() -> str:
    """torch's gradients of tests/grad_cases.py's cases, with the inputs they were taken at."""
    import torch
    from compare import _enc_float
    from grad_cases import GRAD_CASES, plain_gradients
    grads, inputs = {}, {}
    for c in GRAD_CASES:
        try:
            expected = plain_gradients(torch, c, "cpu")
        except (RuntimeError, NotImplementedError):
            continue  # torch has no gradient to compare with
        if expected is not None:
            grads[c.name] = expected
            inputs[c.name] = [[_enc_float(v) if isinstance(v, float) else v for v in vals] for vals in c.input_values()]
    return json.dumps({"grads": grads, "inputs": inputs}, allow_nan=False)


def training(model_name: str, optimizer_name: str) -> str:
    """A training-parity case (tests/training_cases.py) in torch: the seeded initial state, then the
    losses and parameters after training."""
    import torch
    from training_cases import MODELS, train
    torch.manual_seed(0)
    reference = MODELS[model_name][0](torch)
    state = {k: v.tolist() for k, v in reference.state_dict().items()}
    losses, params = train(torch, reference, model_name, optimizer_name, "cpu")
    return json.dumps({"state": state, "losses": losses, "params": params}, allow_nan=False)


def _every():
    """(file name, function, arguments) of every golden value."""
    from training_cases import CASES
    yield from (("op_table", op_table, ()), ("opinfo", opinfo, ()), ("gradients", gradients, ()), ("sparse", sparse, ()))
    for model_name, optimizer_name in CASES:
        yield f"training-{model_name}-{optimizer_name}", training, (model_name, optimizer_name)


def get(compute, *args) -> str:
    """compute(*args)'s JSON text: computed here, or read from $WEBTORCH_GOLDEN where it is set."""
    folder = os.environ.get("WEBTORCH_GOLDEN")
    if not folder:
        return compute(*args)
    name = next(n for n, f, a in _every() if f is compute and a == args)
    return (Path(folder) / f"{name}.json").read_text()


if __name__ == "__main__":
    sys.path.insert(0, str(TESTS.parent))  # webtorch, as pytest finds it from the repository root
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    for name, compute, args in _every():
        (folder / f"{name}.json").write_text(compute(*args))
        print(f"golden: {name}.json")
