"""Recurrent layers (RNN, LSTM, GRU) and their cells, with PyTorch's parameters, names, init and
gate order. The input projection of every time step is one matmul per layer and direction; the
recurrence runs step by step (one matmul plus elementwise gates per step) through autograd.

Padded and packed inputs share one path: a padded batch is a packed one whose batch size is the
same at every step. Sequences are sorted longest first, so step t updates the first batch_sizes[t]
hidden rows."""
import math
import warnings

from .. import _ops as F
from . import functional as fn
from . import init
from .layers import _param
from .module import Module
from .utils.rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _step(mode, x_proj, h, c, w_hh, b_hh, w_hr):
    """One time step from the projected input x_proj = x W_ih^T + b_ih -> (h', c')."""
    h_proj = fn.linear(h, w_hh, b_hh)
    if mode == "LSTM":
        i, f, g, o = (x_proj + h_proj).chunk(4, -1)
        c = F.sigmoid(f) * c + F.sigmoid(i) * F.tanh(g)
        h = F.sigmoid(o) * F.tanh(c)
        return (fn.linear(h, w_hr) if w_hr is not None else h), c
    if mode == "GRU":
        x_r, x_z, x_n = x_proj.chunk(3, -1)
        h_r, h_z, h_n = h_proj.chunk(3, -1)
        r, z = F.sigmoid(x_r + h_r), F.sigmoid(x_z + h_z)
        n = F.tanh(x_n + r * h_n)
        return n + z * (h - n), None  # (1 - z) * n + z * h
    pre = x_proj + h_proj
    return (F.tanh(pre) if mode == "RNN_TANH" else F.relu(pre)), None


def _run_direction(mode, data, batch_sizes, h0, c0, weights, reverse):
    """One layer, one direction over packed rows `data` -> (output rows, h_n, c_n)."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    x_proj = fn.linear(data, w_ih, b_ih)
    starts = [0]
    for n in batch_sizes:
        starts.append(starts[-1] + n)
    steps = range(len(batch_sizes) - 1, -1, -1) if reverse else range(len(batch_sizes))
    outputs = [None] * len(batch_sizes)
    h, c = h0, c0
    if reverse:  # rows join as their (reversed) sequences start; they start from h0/c0
        active = batch_sizes[-1]
        h, c = h0[:active], (c0[:active] if c0 is not None else None)
    for t in steps:
        n = batch_sizes[t]
        if reverse and n > h.shape[0]:
            h = F.cat([h, h0[h.shape[0]:n]])
            c = F.cat([c, c0[c.shape[0]:n]]) if c is not None else None
        h_in, c_in = (h[:n], c[:n] if c is not None else None) if n < h.shape[0] else (h, c)
        h_new, c_new = _step(mode, x_proj[starts[t]:starts[t] + n], h_in, c_in, w_hh, b_hh, w_hr)
        outputs[t] = h_new
        if n < h.shape[0]:  # rows of finished sequences keep their last state
            h = F.cat([h_new, h[n:]])
            c = F.cat([c_new, c[n:]]) if c is not None else None
        else:
            h, c = h_new, c_new
    return F.cat(outputs) if len(outputs) > 1 else outputs[0], h, c


class RNNBase(Module):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          stacklevel=2)
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int), ("hidden_size", hidden_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes = {"weight_ih": (_GATES[mode] * hidden_size, layer_input),
                          "weight_hh": (_GATES[mode] * hidden_size, real_hidden)}
                if bias:
                    shapes.update(bias_ih=(_GATES[mode] * hidden_size,), bias_hh=(_GATES[mode] * hidden_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = [kind + suffix for kind in shapes]
                for name, shape in zip(names, shapes.values()):
                    setattr(self, name, _param(*shape, device=device, dtype=dtype))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def _weights(self, layer, direction):
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        return tuple(self._parameters.get(kind + suffix) for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh",
                                                                        "weight_hr"))

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def forward(self, input, hx=None):
        lstm = self.mode == "LSTM"
        directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        packed = isinstance(input, PackedSequence)
        if packed:
            data, batch_sizes = input.data, input.batch_sizes.tolist()
            batch, batched = batch_sizes[0], True
        else:
            name = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(self.mode, self.mode)
            if input.dim() not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                                 f"{'tensor ' if name == 'RNN' else ''}instead")
            batched = input.dim() == 3
            if not batched:
                input = input.unsqueeze(1)
            elif self.batch_first:
                input = input.transpose(0, 1)
            steps, batch = input.shape[0], input.shape[1]
            data, batch_sizes = input.reshape(steps * batch, input.shape[2]), [batch] * steps
        if data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {data.shape[-1]}")
        states = list(hx) if lstm and hx is not None else [hx] if hx is not None else None
        if states is not None:
            want = 2 if batched else 1
            if any(s.dim() != want + 1 for s in states):
                kind = "batched 3-D" if batched else "unbatched 2-D"
                got = ", ".join(f"{s.dim()}-D" for s in states)
                raise RuntimeError(f"For {kind} input, hx{' and cx' if lstm else ''} should also be "
                                   f"{want + 1}-D but got {'(' + got + ') tensors' if lstm else got + ' tensor'}")
            if not batched:
                states = [s.unsqueeze(1) for s in states]
            sizes = [(self.num_layers * directions, batch, real_hidden), (self.num_layers * directions, batch,
                                                                          self.hidden_size)]
            for i, (s, size) in enumerate(zip(states, sizes)):
                if tuple(s.shape) != size:
                    what = "hidden" if i == 0 else "cell"
                    raise RuntimeError(f"Expected {what} size {size}, got {list(s.shape)}")
            if packed and input.sorted_indices is not None:
                states = [s.index_select(1, input.sorted_indices) for s in states]
        else:
            states = [F.zeros(self.num_layers * directions, batch, real_hidden, dtype=data.dtype,
                              device=data.device)]
            if lstm:
                states.append(F.zeros(self.num_layers * directions, batch, self.hidden_size, dtype=data.dtype,
                                      device=data.device))
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(directions):
                k = layer * directions + direction
                out, h, c = _run_direction(self.mode, data, batch_sizes, states[0][k], states[1][k] if lstm else None,
                                           self._weights(layer, direction), direction == 1)
                outs.append(out)
                h_n.append(h)
                c_n.append(c)
            data = F.cat(outs, -1) if directions == 2 else outs[0]
            if self.dropout and self.training and layer < self.num_layers - 1:
                data = fn.dropout(data, self.dropout, True)
        hidden = [F.stack(h_n)] + ([F.stack(c_n)] if lstm else [])
        if packed:
            if input.unsorted_indices is not None:
                hidden = [s.index_select(1, input.unsorted_indices) for s in hidden]
            output = PackedSequence(data, input.batch_sizes, input.sorted_indices, input.unsorted_indices)
        else:
            output = data.reshape(len(batch_sizes), batch, data.shape[-1])
            if not batched:
                output, hidden = output.squeeze(1), [s.squeeze(1) for s in hidden]
            elif self.batch_first:
                output = output.transpose(0, 1)
        return output, (tuple(hidden) if lstm else hidden[0])


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        args = list(args)  # RNN(input_size, hidden_size, num_layers, nonlinearity, bias, ...)
        nonlinearity = args.pop(3) if len(args) > 3 else kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    _mode = None

    def __init__(self, input_size, hidden_size, bias=True, num_chunks=1, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = _param(num_chunks * hidden_size, input_size, device=device, dtype=dtype)
        self.weight_hh = _param(num_chunks * hidden_size, hidden_size, device=device, dtype=dtype)
        if bias:
            self.bias_ih = _param(num_chunks * hidden_size, device=device, dtype=dtype)
            self.bias_hh = _param(num_chunks * hidden_size, device=device, dtype=dtype)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def forward(self, input, hx=None):
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        states = list(hx) if isinstance(hx, (tuple, list)) else [hx] if hx is not None else None
        if states is not None and any(s.dim() not in (1, 2) for s in states):
            raise ValueError(f"{name}: Expected hx[0] to be 1D or 2D, got {states[0].dim()}D instead"
                             if len(states) == 2 else f"{name}: Expected hidden to be 1D or 2D, got "
                             f"{states[0].dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if states is None:
            zeros = F.zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)
            states = [zeros, zeros] if self._mode == "LSTM" else [zeros]
        elif not batched:
            states = [s.unsqueeze(0) for s in states]
        mode = self._mode if self._mode != "RNN" else ("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU")
        h, c = _step(mode, fn.linear(input, self.weight_ih, self.bias_ih), states[0],
                     states[1] if self._mode == "LSTM" else None, self.weight_hh, self.bias_hh, None)
        out = (h, c) if self._mode == "LSTM" else (h,)
        if not batched:
            out = tuple(s.squeeze(0) for s in out)
        return out if self._mode == "LSTM" else out[0]


class RNNCell(RNNCellBase):
    _mode = "RNN"

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity
        if nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {nonlinearity}")


class LSTMCell(RNNCellBase):
    _mode = "LSTM"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)


class GRUCell(RNNCellBase):
    _mode = "GRU"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)
