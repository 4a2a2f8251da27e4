"""Recurrent layers against PyTorch: the same weights (copied from torch's modules), inputs and
initial states give the same outputs, final states and gradients, on webgpu and cpu; packed
sequences through pack_padded_sequence / pad_packed_sequence / pack_sequence / pad_sequence."""
import pytest
import torch

import webtorch
from module_compare import DEVICES, close, compare

LAYERS = {
    "rnn-tanh-2layer-bidir-batch-first": (lambda T: T.nn.RNN(3, 4, 2, bidirectional=True, batch_first=True),
                                          lambda: [torch.randn(2, 5, 3), torch.randn(4, 2, 4)]),
    "rnn-relu-nobias-unbatched": (lambda T: T.nn.RNN(3, 4, nonlinearity="relu", bias=False),
                                  lambda: [torch.randn(6, 3)]),
    "lstm-2layer-bidir-proj": (lambda T: T.nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2),
                               lambda: [torch.randn(4, 3, 3)]),
    "lstm-batch-first-hx": (lambda T: T.nn.LSTM(2, 4, batch_first=True),
                            lambda: [torch.randn(3, 4, 2), torch.randn(1, 3, 4), torch.randn(1, 3, 4)]),
    "gru-2layer-bidir": (lambda T: T.nn.GRU(3, 4, num_layers=2, bidirectional=True),
                         lambda: [torch.randn(5, 2, 3), torch.randn(4, 2, 4)]),
    "gru-dropout-eval-unbatched-hx": (lambda T: T.nn.GRU(3, 4, num_layers=2, dropout=0.5),
                                      lambda: [torch.randn(4, 3), torch.randn(2, 4)]),
}


def call_layer(T, m, x, *states):
    if isinstance(m, T.nn.LSTM) and states:
        return m(x, tuple(states))
    return m(x, *states)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_torch(name, device):
    build, make_inputs = LAYERS[name]
    compare(build, make_inputs, device, call_layer)


def packed_call(enforce_sorted, lengths, batch_first):
    def call(T, m, x, *states):
        packed = T.nn.utils.rnn.pack_padded_sequence(x, torch.tensor(lengths) if T is torch else
                                                     webtorch.tensor(lengths), batch_first=batch_first,
                                                     enforce_sorted=enforce_sorted)
        out, hidden = call_layer(T, m, packed, *states)
        padded, out_lengths = T.nn.utils.rnn.pad_packed_sequence(out, batch_first=batch_first, padding_value=-2.0,
                                                                 total_length=7)
        assert out_lengths.tolist() == lengths
        return (padded * 1.0, hidden)
    return call


PACKED = {
    "lstm-bidir-unsorted": (lambda T: T.nn.LSTM(3, 4, bidirectional=True, num_layers=2),
                            lambda: [torch.randn(6, 4, 3), torch.randn(4, 4, 4), torch.randn(4, 4, 4)],
                            packed_call(False, [3, 6, 1, 3], False)),
    "gru-sorted-batch-first": (lambda T: T.nn.GRU(3, 4, batch_first=True, bidirectional=True),
                               lambda: [torch.randn(3, 5, 3)], packed_call(True, [5, 3, 2], True)),
    "rnn-unsorted-hx": (lambda T: T.nn.RNN(2, 3), lambda: [torch.randn(4, 3, 2), torch.randn(1, 3, 3)],
                        packed_call(False, [2, 4, 4], False)),
    "lstm-proj-unsorted": (lambda T: T.nn.LSTM(2, 4, proj_size=3, bidirectional=True),
                           lambda: [torch.randn(4, 3, 2)], packed_call(False, [2, 4, 1], False)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(PACKED))
def test_packed_sequences_match_torch(name, device):
    build, make_inputs, call = PACKED[name]
    compare(build, make_inputs, device, call)


CELLS = {
    "rnn-cell": (lambda T: T.nn.RNNCell(3, 4), lambda: [torch.randn(2, 3), torch.randn(2, 4)]),
    "rnn-cell-relu-nobias-unbatched": (lambda T: T.nn.RNNCell(3, 4, bias=False, nonlinearity="relu"),
                                       lambda: [torch.randn(3)]),
    "lstm-cell": (lambda T: T.nn.LSTMCell(3, 4), lambda: [torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 4)]),
    "lstm-cell-unbatched": (lambda T: T.nn.LSTMCell(3, 4), lambda: [torch.randn(3)]),
    "gru-cell": (lambda T: T.nn.GRUCell(3, 4), lambda: [torch.randn(5, 3), torch.randn(5, 4)]),
}


def call_cell(T, m, x, *states):
    if isinstance(m, T.nn.LSTMCell) and states:
        return tuple(m(x, tuple(states)))
    out = m(x, *states)
    return tuple(out) if isinstance(out, tuple) else out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(CELLS))
def test_cell_matches_torch(name, device):
    build, make_inputs = CELLS[name]
    compare(build, make_inputs, device, call_cell)


def test_padding_helpers_match_torch():
    seqs = [torch.randn(n, 2) for n in (3, 1, 4)]
    mine_seqs = [webtorch.tensor(s.tolist()) for s in seqs]
    for kwargs in (dict(), dict(batch_first=True, padding_value=9.0), dict(padding_side="left")):
        close(webtorch.nn.utils.rnn.pad_sequence(mine_seqs, **kwargs), torch.nn.utils.rnn.pad_sequence(seqs, **kwargs))
    packed = webtorch.nn.utils.rnn.pack_sequence(mine_seqs, enforce_sorted=False)
    ref = torch.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
    close(packed.data, ref.data)
    assert packed.batch_sizes.tolist() == ref.batch_sizes.tolist() and packed.batch_sizes.dtype == webtorch.int64
    assert packed.sorted_indices.tolist() == ref.sorted_indices.tolist()
    assert packed.unsorted_indices.tolist() == ref.unsorted_indices.tolist()
    for a, b in zip(webtorch.nn.utils.rnn.unpack_sequence(packed), seqs):
        close(a, b)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        webtorch.nn.utils.rnn.pack_sequence(mine_seqs)
    with pytest.raises(ValueError, match="Expected total_length to be at least"):
        webtorch.nn.utils.rnn.pad_packed_sequence(packed, total_length=2)


def test_construction_and_errors_match_torch():
    for build in (lambda T: T.nn.LSTM(3, 4, 2, bias=False, batch_first=True, dropout=0.25, bidirectional=True),
                  lambda T: T.nn.RNN(3, 4, 1, "relu"), lambda T: T.nn.GRUCell(3, 4, bias=False),
                  lambda T: T.nn.RNNCell(2, 3, nonlinearity="relu")):
        ref, mine = build(torch), build(webtorch)
        assert repr(mine) == repr(ref)
        assert [(n, tuple(p.shape)) for n, p in mine.named_parameters()] == \
            [(n, tuple(p.shape)) for n, p in ref.named_parameters()]
    lstm = webtorch.nn.LSTM(10, 20)
    bound = 1 / 20 ** 0.5
    w = lstm.weight_hh_l0.detach()
    assert -bound <= webtorch.amin(w).item() and webtorch.amax(w).item() <= bound and webtorch.amax(w).item() > 0.9 * bound
    for T in (torch, webtorch):
        with pytest.raises(ValueError, match="proj_size has to be smaller"):
            T.nn.LSTM(3, 4, proj_size=4)
        with pytest.raises(ValueError, match="only supported for LSTM"):
            T.nn.GRU(3, 4, proj_size=1)
        with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 2"):
            T.nn.GRU(3, 4)(T.zeros(2, 1, 2))
        with pytest.raises(RuntimeError, match=r"Expected hidden size \(2, 1, 4\), got \[1, 1, 4\]"):
            T.nn.RNN(3, 4, 2)(T.zeros(2, 1, 3), T.zeros(1, 1, 4))
        with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D instead"):
            T.nn.LSTM(3, 4)(T.zeros(1, 1, 1, 3))
        with pytest.raises(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                T.nn.GRU(3, 4, dropout=0.5)


def test_dropout_between_layers_in_training():
    webtorch.manual_seed(0)
    gru = webtorch.nn.GRU(3, 50, num_layers=2, dropout=0.9)
    x = webtorch.randn(2, 1, 3)
    trained = gru(x)[0]
    gru.eval()
    assert not webtorch.allclose(trained, gru(x)[0])  # at p=0.9 some of 50 units differ
    gru.train()
    one_layer = webtorch.nn.GRU(3, 5)
    assert webtorch.equal(one_layer(x)[0], one_layer.eval()(x)[0])  # no dropout after the last layer
