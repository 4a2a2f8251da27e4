"""Forged inputs (tests/forged_inputs.py) against torch 2.13: each row's torch column is what torch does
with the input, and webtorch does the same or refuses with a clear error, never reads other data."""
import io
import warnings
import zipfile

import pytest
import torch

import webtorch
from forged_inputs import ONE_TO_FOUR, check_load, checkpoints

CHECKPOINTS = checkpoints()


def _torch_load(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return torch.load(io.BytesIO(data), weights_only=True).tolist()
        except Exception:  # noqa: BLE001 - any refusal
            return None


@pytest.mark.parametrize("name,data,torch_loads,want", CHECKPOINTS, ids=[c[0] for c in CHECKPOINTS])
def test_forged_checkpoint_loads_what_torch_loads_or_is_refused(name, data, torch_loads, want):
    got = _torch_load(data)
    assert got is not None if torch_loads == "other" else got == torch_loads
    assert not isinstance(want, list) or want == torch_loads  # never other values than torch's
    assert check_load(webtorch.load, data, want) == []


def test_legacy_checkpoint_with_an_archive_appended_is_refused():
    """torch reads the legacy pickle at the front; Python's zipfile would find the archive at the end."""
    legacy = io.BytesIO()
    torch.save(torch.tensor([9.0, 9.0]), legacy, _use_new_zipfile_serialization=False)
    appended = io.BytesIO()
    torch.save(torch.tensor(ONE_TO_FOUR), appended)
    data = legacy.getvalue() + appended.getvalue()
    assert _torch_load(data) == [9.0, 9.0]
    with pytest.raises(RuntimeError, match="legacy"):
        webtorch.load(data)


@pytest.mark.parametrize("make", [lambda: torch._neg_view(torch.tensor([1.0, -2.0, 3.0])),
                                  lambda: torch.tensor([1 + 2j, 3 - 4j]).conj().imag,
                                  lambda: torch.nn.Parameter(torch._neg_view(torch.arange(6.0).reshape(2, 3)).t())],
                         ids=["neg_view", "conj_imag", "neg_parameter"])
def test_tensors_torch_saves_with_the_negative_bit(make):
    t = make()
    buf = io.BytesIO()
    torch.save({"t": t}, buf)
    for device in ("cpu", "webgpu"):
        w = webtorch.load(buf.getvalue(), map_location=device)["t"]
        assert w.tolist() == t.tolist() and w.shape == t.shape and type(w).__name__ == type(t).__name__


def test_conjugated_complex_tensor_is_refused():
    buf = io.BytesIO()
    torch.save(torch.tensor([1 + 2j]).conj(), buf)
    with pytest.raises(Exception, match="complex|conj") as info:
        webtorch.load(buf.getvalue())
    assert type(info.value).__name__ == "UnpicklingError"


def test_real_checkpoints_read_through_the_zip_reader():
    """torch's own archives (data descriptors, alignment padding, a serialization id) read as before;
    a zip64 archive (Python's writer, forced) reads too."""
    buf = io.BytesIO()
    torch.save({"a": torch.arange(10.0), "b": torch.ones(3, dtype=torch.int64)}, buf)
    got = webtorch.load(buf.getvalue())
    assert got["a"].tolist() == list(range(10)) and got["b"].tolist() == [1, 1, 1]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        with z.open("archive/data.pkl", "w", force_zip64=True) as f:
            f.write(b"\x80\x02K\x07.")
    assert webtorch.load(out.getvalue()) == 7
