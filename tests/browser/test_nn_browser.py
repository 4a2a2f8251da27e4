"""nn layers and torch.utils.data inside Pyodide (module worker), on webgpu and the pure-Python
cpu device, against outputs and gradients torch produced on the host (tests/test_rnn.py and
tests/test_data.py have the full checks)."""
import json

import pytest

PROGRAM = """
import json
import webtorch as torch
golden = json.loads({golden!r})
out = {{}}
for device in ("webgpu", "cpu"):
    lstm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    lstm.load_state_dict({{k: torch.tensor(v) for k, v in golden["lstm_state"].items()}})
    lstm.to(device)
    x = torch.tensor(golden["x"], device=device, requires_grad=True)
    packed = torch.nn.utils.rnn.pack_padded_sequence(x, torch.tensor(golden["lengths"]), enforce_sorted=False)
    y, (h, c) = lstm(packed)
    padded, lengths = torch.nn.utils.rnn.pad_packed_sequence(y)
    (padded.sum() + (h * h).sum() + c.sum()).backward()
    out[device] = dict(y=padded.tolist(), h=h.tolist(), c=c.tolist(), lengths=lengths.tolist(), dx=x.grad.tolist(),
                       dw=lstm.weight_hh_l1_reverse.grad.tolist())
data = torch.utils.data
loader = data.DataLoader(data.TensorDataset(torch.arange(4)), batch_size=3, sampler=[3, 2, 1, 0])
out["sampled"] = [b[0].tolist() for b in loader]
out
"""


def flat(values):
    return [v for item in values for v in flat(item)] if isinstance(values, list) else [values]


@pytest.fixture(scope="module")
def golden():
    import torch
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    x = torch.randn(5, 3, 3, requires_grad=True)
    lengths = [2, 5, 3]
    packed = torch.nn.utils.rnn.pack_padded_sequence(x, torch.tensor(lengths), enforce_sorted=False)
    y, (h, c) = lstm(packed)
    padded, out_lengths = torch.nn.utils.rnn.pad_packed_sequence(y)
    (padded.sum() + (h * h).sum() + c.sum()).backward()
    expected = dict(y=padded.tolist(), h=h.tolist(), c=c.tolist(), lengths=out_lengths.tolist(), dx=x.grad.tolist(),
                    dw=lstm.weight_hh_l1_reverse.grad.tolist())
    inputs = dict(lstm_state={k: v.tolist() for k, v in lstm.state_dict().items()}, x=x.tolist(), lengths=lengths)
    return json.dumps(inputs), expected


def test_lstm_packed_and_dataloader_in_browser(py_worker, golden):
    inputs, expected = golden
    result = py_worker.run(PROGRAM.format(golden=inputs))
    for device in ("webgpu", "cpu"):
        for key, values in expected.items():
            assert flat(result[device][key]) == pytest.approx(flat(values), abs=1e-4), (device, key)
    assert result["sampled"] == [[3, 2, 1], [0]]


ORTHOGONAL = """
import webtorch as torch
out = {}
for device in ("webgpu", "cpu"):
    for shape in ((3, 5), (4, 2, 2)):
        w = torch.nn.init.orthogonal_(torch.empty(*shape, device=device), 2.0).reshape(shape[0], -1)
        gram = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
        out[f"{device} {shape}"] = gram.tolist()
out
"""


def test_orthogonal_init_in_browser(py_worker):
    """nn.init.orthogonal_ (linalg.qr of a normal sample) in Pyodide: gain**2 times the identity, as
    torch's (tests/test_init.py compares the two on the host)."""
    for key, gram in py_worker.run(ORTHOGONAL).items():
        n = len(gram)
        assert flat(gram) == pytest.approx([4.0 if i == j else 0.0 for i in range(n) for j in range(n)], abs=1e-4), key
