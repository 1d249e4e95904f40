"""Recurrent layers, PyTorch's ``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and their cells.

Parameters have PyTorch's names, shapes, order and ``state_dict`` keys (``weight_ih_l0``,
``weight_hh_l0``, ``bias_ih_l0``, ``bias_hh_l0``, ``weight_hr_l0`` for LSTM's ``proj_size``,
``..._reverse`` for the second direction), all drawn uniform in ``±1/sqrt(hidden_size)`` in
that order from ember's generator. Gates in PyTorch's order: LSTM ``i, f, g, o``; GRU
``r, z, n`` with ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``.

Each layer and direction projects the whole input with one matmul before the time loop; a step
is one matmul ``h @ W_hh^T`` and the gate math. A ``PackedSequence`` (ember/nn/rnn_utils.py)
runs as its batch sizes say: finished sequences leave the batch, so their final states are
those at their last step, as PyTorch's. Everything is composed of ember ops, so gradients (of
any order) come from theirs.

>>> import ember
>>> from ember import nn
>>> lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
>>> out, (h, c) = lstm(ember.randn(4, 5, 8))
>>> out.shape, h.shape, c.shape
((4, 5, 16), (2, 4, 16), (2, 4, 16))
>>> [n for n, _ in lstm.named_parameters()][:4]
['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0']
"""

import math
import numbers
import warnings

from ..devices import as_device
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import Tensor
from ..ops.creation import zeros
from ..ops.dropout import dropout as _dropout
from ..ops.linear import linear
from ..ops.recurrent_gates import gru_gates, lstm_gates, recurrence, recurrent_step
from ..ops.segments import cat, stack
from ..ops.views import reshape_exact
from . import init
from .layers import _float_dtype
from .module import Module
from .rnn_utils import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# -- argument checks ----------------------------------------------------------------------------

def _size(value, layer, param, low):
    if isinstance(value, bool) or not isinstance(value, int):
        raise KindError(f"{layer}: {param} should be of type int, got: {type(value).__name__}")
    if value < low:
        raise InvalidParameterError(f"{layer}: {param} is {value}; expected an int >= {low}",
                                    param, value)
    return value


def _flag(value, layer, param):
    if not isinstance(value, bool):
        raise KindError(f"{layer}: {param} should be of type bool, got: {type(value).__name__}")
    return value


def _tensor_arg(x, layer, param):
    if not isinstance(x, Tensor):
        raise InvalidParameterError(f"{layer}: {param} must be a Tensor, got "
                                    f"{type(x).__name__}", param, x)
    return x


def _check_shape(t, expected, layer, param):
    if tuple(t.shape) != tuple(expected):
        raise ShapeMismatchError(f"{layer}: expected {param} of shape {tuple(expected)}, got "
                                 f"{tuple(t.shape)}", expected=tuple(expected),
                                 actual=tuple(t.shape))


def _check_dtype(t, weight, layer, param):
    if t._dtype is not weight._dtype:
        raise InvalidParameterError(f"{layer}: {param} must have the dtype "
                                    f"{weight._dtype.name}, got {t._dtype.name}", param,
                                    t._dtype.name)


# -- one time step ------------------------------------------------------------------------------
# ``gx``: the input's projection at this step (with the biases that can be added up front),
# ``h``/``c``: the states; each returns the new ``(h, c)`` (``c`` None but for LSTM).

def _rnn_step(relu):
    def step(gx, h, c, w_hh, b_hh, w_hr, steps, t):
        pre = recurrent_step(gx, h, w_hh, steps, t)
        return (pre.relu() if relu else pre.tanh()), None
    return step


def _lstm_step(gx, h, c, w_hh, b_hh, w_hr, steps, t):
    h, c = lstm_gates(recurrent_step(gx, h, w_hh, steps, t), c)
    if w_hr is not None:
        h = linear(h, w_hr)
    return h, c


def _gru_step(gx, h, c, w_hh, b_hh, w_hr, steps, t):
    return gru_gates(gx, linear(h, w_hh, b_hh), h), None


_STEPS = {"LSTM": _lstm_step, "GRU": _gru_step, "RNN_TANH": _rnn_step(False),
          "RNN_RELU": _rnn_step(True)}


def _direction(step, xs, steps, sizes, h, c, weights, reverse):
    """Run one direction over the steps ``xs`` (projected inputs, step t holding ``sizes[t]``
    rows; ``steps``: their ``recurrence`` record or None); ``h``, ``c``: the initial states of
    the whole batch. Returns the outputs of every
    step concatenated (the packed layout) and the final ``(h, c)`` of every sequence."""
    T = len(xs)
    outs = [None] * T
    has_c = c is not None
    if not reverse:
        done_h, done_c, b = [], [], sizes[0]
        for t in range(T):
            bt = sizes[t]
            if bt < b:  # sequences bt..b end at step t - 1: their states are final
                done_h.append(h[bt:])
                h = h[:bt]
                if has_c:
                    done_c.append(c[bt:])
                    c = c[:bt]
                b = bt
            h, c = step(xs[t], h, c, *weights, steps, t)
            outs[t] = h
        hn = cat([h] + done_h[::-1], 0) if done_h else h
        cn = (cat([c] + done_c[::-1], 0) if done_c else c) if has_c else None
    else:
        h0, c0, b = h, c, sizes[-1]
        if b < sizes[0]:
            h = h0[:b]
            c = c0[:b] if has_c else None
        for t in range(T - 1, -1, -1):
            bt = sizes[t]
            if bt > b:  # sequences b..bt start (from their end) at step t
                h = cat([h, h0[b:bt]], 0)
                if has_c:
                    c = cat([c, c0[b:bt]], 0)
                b = bt
            h, c = step(xs[t], h, c, *weights, steps, t)
            outs[t] = h
        hn, cn = h, c
    return cat(outs, 0), hn, cn


# -- the multi-layer modules --------------------------------------------------------------------

class RNNBase(Module):
    """The layers, directions and parameters shared by ``RNN``, ``LSTM`` and ``GRU``
    (``mode``: "LSTM", "GRU", "RNN_TANH" or "RNN_RELU"), PyTorch's ``nn.RNNBase``.

    >>> from ember import nn
    >>> nn.RNNBase("GRU", 3, 4, bidirectional=True)
    RNNBase(3, 4, bidirectional=True)
    """

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0, device=None,
                 dtype=None):
        super().__init__()
        name = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(mode, mode)
        if mode not in _GATES:
            raise InvalidParameterError(f"RNNBase: mode {mode!r} is unknown; expected 'LSTM', "
                                        "'GRU', 'RNN_TANH' or 'RNN_RELU'", "mode", mode)
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise InvalidParameterError(f"{name}: dropout is {dropout!r}; expected a number in "
                                        "[0, 1] (the probability of an element being zeroed)",
                                        "dropout", dropout)
        _flag(bias, name, "bias")
        _flag(batch_first, name, "batch_first")
        _flag(bidirectional, name, "bidirectional")
        _size(input_size, name, "input_size", 1)
        _size(hidden_size, name, "hidden_size", 1)
        _size(num_layers, name, "num_layers", 1)
        _size(proj_size, name, "proj_size", 0)
        if proj_size and mode != "LSTM":
            raise InvalidParameterError(f"{name}: proj_size argument is only supported for "
                                        "LSTM, not RNN or GRU", "proj_size", proj_size)
        if proj_size >= hidden_size:
            raise InvalidParameterError(f"{name}: proj_size={proj_size} has to be smaller than "
                                        f"hidden_size={hidden_size}", "proj_size", proj_size)
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        dt = _float_dtype(dtype, name)
        dev = as_device(device, name)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        stdv = 1.0 / math.sqrt(hidden_size)
        names, groups = [], []
        for layer in range(num_layers):
            for direction in range(directions):
                in_size = input_size if layer == 0 else real_hidden * directions
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes = [("weight_ih", (gate_size, in_size)),
                          ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                group = []
                for base, shape in shapes:  # PyTorch's order, which is also the drawing order
                    setattr(self, base + suffix,
                            init.uniform(shape, -stdv, stdv, dtype=dt, device=dev))
                    group.append(base + suffix)
                names.extend(group)
                groups.append(group)
        self._flat_weights_names = names
        self._all_weights = groups

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters of each layer and direction, PyTorch's ``all_weights``.

        >>> from ember import nn
        >>> [len(w) for w in nn.GRU(2, 3, num_layers=2, bias=False).all_weights]
        [2, 2]
        """
        return [[getattr(self, n) for n in group] for group in self._all_weights]

    def flatten_parameters(self):
        """Accepted for PyTorch's cuDNN habit; the parameters are already what the layer uses.

        >>> from ember import nn
        >>> nn.LSTM(2, 3).flatten_parameters() is None
        True
        """
        return None

    def reset_parameters(self):
        """Draw every parameter again, uniform in ``±1/sqrt(hidden_size)``, PyTorch's order.

        >>> from ember import nn
        >>> rnn = nn.RNN(2, 4); rnn.reset_parameters()
        >>> bool((rnn.weight_hh_l0.abs() <= 0.5).all())
        True
        """
        stdv = 1.0 / math.sqrt(self.hidden_size)
        for w in self._flat_weights:
            w.data = init.uniform(tuple(w.shape), -stdv, stdv, dtype=w._dtype,
                                  requires_grad=False, device=w._device)

    def _layer_weights(self, index):
        """(w_ih, w_hh, b_ih, b_hh, w_hr) of layer-direction ``index`` (None where absent)."""
        got = {n.split("_l")[0]: getattr(self, n) for n in self._all_weights[index]}
        return (got["weight_ih"], got["weight_hh"], got.get("bias_ih"), got.get("bias_hh"),
                got.get("weight_hr"))

    def _states(self, hx, batch, unbatched, weight, name):
        """The initial (h, c) stacks, (layers * directions, batch, size) each (c None unless
        LSTM), checked against PyTorch's shapes; zeros when ``hx`` is None."""
        lstm = self.mode == "LSTM"
        lead = self.num_layers * (2 if self.bidirectional else 1)
        out_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            h = zeros(lead, batch, out_size, dtype=weight._dtype, device=weight._device)
            c = (zeros(lead, batch, self.hidden_size, dtype=weight._dtype,
                       device=weight._device) if lstm else None)
            return h, c
        if lstm:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise InvalidParameterError(f"{name}: hx must be a tuple (h_0, c_0), got "
                                            f"{type(hx).__name__}", "hx", hx)
            pairs = (("h_0", hx[0], out_size), ("c_0", hx[1], self.hidden_size))
        else:
            pairs = (("hx", hx, out_size),)
        states = []
        for param, t, size in pairs:
            _tensor_arg(t, name, param)
            if unbatched:
                if t.ndim != 2:
                    raise ShapeMismatchError(f"{name}: for unbatched 2-D input, {param} should "
                                             f"also be 2-D but got {t.ndim}-D tensor",
                                             expected=2, actual=tuple(t.shape))
                _check_shape(t, (lead, size), name, param)
                t = t.unsqueeze(1)
            else:
                if t.ndim != 3:
                    raise ShapeMismatchError(f"{name}: for batched 3-D input, {param} should "
                                             f"also be 3-D but got {t.ndim}-D tensor",
                                             expected=3, actual=tuple(t.shape))
                _check_shape(t, (lead, batch, size), name, param)
            _check_dtype(t, weight, name, param)
            states.append(t)
        return states[0], (states[1] if lstm else None)

    def forward(self, input, hx=None):
        """Run the layers over ``input``: (T, B, input_size), (B, T, input_size) with
        ``batch_first``, (T, input_size) unbatched, or a PackedSequence. Returns ``(output,
        h_n)`` (``(output, (h_n, c_n))`` for LSTM), PyTorch's shapes; ``output`` is packed
        when the input is.

        >>> import ember
        >>> from ember import nn
        >>> out, h = nn.GRU(3, 5)(ember.randn(7, 3))
        >>> out.shape, h.shape
        ((7, 5), (1, 5))
        """
        name = type(self).__name__
        w0 = getattr(self, self._flat_weights_names[0])
        packed = isinstance(input, PackedSequence)
        if packed:
            data = _tensor_arg(input.data, name, "input.data")
            if data.ndim != 2 or data.shape[1] != self.input_size:
                raise ShapeMismatchError(f"{name}: packed data has shape {tuple(data.shape)}; "
                                         f"expected (N, {self.input_size})",
                                         expected=(None, self.input_size),
                                         actual=tuple(data.shape))
            sizes = [int(b) for b in input.batch_sizes.tolist()]
            batch, unbatched, steps = sizes[0], False, len(sizes)
        else:
            x = _tensor_arg(input, name, "input")
            if x.ndim not in (2, 3):
                raise ShapeMismatchError(f"{name}: expected input to be 2D or 3D, got "
                                         f"{x.ndim}D instead", expected=(2, 3),
                                         actual=tuple(x.shape))
            if x.shape[-1] != self.input_size:
                raise ShapeMismatchError(f"{name}: input.size(-1) must be equal to input_size. "
                                         f"Expected {self.input_size}, got {x.shape[-1]}",
                                         expected=self.input_size, actual=tuple(x.shape))
            unbatched = x.ndim == 2
            if unbatched:
                x = x.unsqueeze(1)
            elif self.batch_first:
                x = x.transpose(0, 1)
            steps, batch = x.shape[0], x.shape[1]
            if steps == 0:
                raise ShapeMismatchError(f"{name}: expected sequence length to be larger than "
                                         "0", expected="T > 0", actual=tuple(input.shape))
            data = reshape_exact(x, (steps * batch, self.input_size))
            sizes = [batch] * steps
        _check_dtype(data, w0, name, "input")
        h0, c0 = self._states(hx, batch, unbatched, w0, name)
        if packed and input.sorted_indices is not None:
            h0 = h0[:, input.sorted_indices]
            c0 = None if c0 is None else c0[:, input.sorted_indices]
        out, hn, cn = self._run(data, sizes, h0, c0)
        hn = stack(hn, 0)
        cn = None if c0 is None else stack(cn, 0)
        if packed:
            if input.unsorted_indices is not None:
                hn = hn[:, input.unsorted_indices]
                cn = None if cn is None else cn[:, input.unsorted_indices]
            output = PackedSequence(out, input.batch_sizes, input.sorted_indices,
                                    input.unsorted_indices)
        else:
            output = reshape_exact(out, (steps, batch, out.shape[-1]))
            if unbatched:
                output, hn = output[:, 0], hn[:, 0]
                cn = None if cn is None else cn[:, 0]
            elif self.batch_first:
                output = output.transpose(0, 1)
        return (output, (hn, cn)) if self.mode == "LSTM" else (output, hn)

    def _run(self, data, sizes, h0, c0):
        """The layers over packed ``data`` (N, features) with batch ``sizes`` per step: the
        last layer's packed output and the lists of final h (and c) per layer-direction."""
        step = _STEPS[self.mode]
        directions = 2 if self.bidirectional else 1
        hn, cn = [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(directions):
                k = layer * directions + d
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_weights(k)
                if b_ih is not None and self.mode != "GRU":
                    b_ih = b_ih + b_hh  # both biases go in with the input's projection
                xp = linear(data, w_ih, b_ih)
                steps = None
                if self.mode != "GRU":  # the W_hh gradient: one matmul for the sequence
                    xp, steps = recurrence(xp, w_hh)
                out, h, c = _direction(step, xp.split(sizes, 0), steps, sizes, h0[k],
                                       None if c0 is None else c0[k], (w_hh, b_hh, w_hr),
                                       d == 1)
                outs.append(out)
                hn.append(h)
                cn.append(c)
            data = outs[0] if directions == 1 else cat(outs, 1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                data = _dropout(data, self.dropout, True)
        return data, hn, cn

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


class RNN(RNNBase):
    """Elman RNN, PyTorch's ``nn.RNN``: ``h_t = tanh(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh)``
    (``nonlinearity="relu"``: ReLU), ``num_layers`` stacked, ``bidirectional``, ``dropout``
    between layers in training, ``batch_first``; ``forward(input, hx=None)`` returns
    ``(output, h_n)``.

    >>> import ember
    >>> from ember import nn
    >>> rnn = nn.RNN(3, 4, 2, nonlinearity="relu")
    >>> rnn
    RNN(3, 4, num_layers=2)
    >>> rnn(ember.randn(5, 2, 3))[1].shape
    (2, 2, 4)
    """

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise InvalidParameterError(f"RNN: unknown nonlinearity {nonlinearity!r}; expected "
                                        "'tanh' or 'relu'", "nonlinearity", nonlinearity)
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory, PyTorch's ``nn.LSTM`` (gates ``i, f, g, o``); ``proj_size > 0``
    projects each ``h`` with ``weight_hr``. ``forward(input, hx=None)``, ``hx = (h_0, c_0)``,
    returns ``(output, (h_n, c_n))``.

    >>> import ember
    >>> from ember import nn
    >>> lstm = nn.LSTM(3, 8, proj_size=2, bidirectional=True)
    >>> lstm
    LSTM(3, 8, proj_size=2, bidirectional=True)
    >>> out, (h, c) = lstm(ember.randn(5, 1, 3))
    >>> out.shape, h.shape, c.shape
    ((5, 1, 4), (2, 1, 2), (2, 1, 8))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)


class GRU(RNNBase):
    """Gated recurrent unit, PyTorch's ``nn.GRU`` (gates ``r, z, n``,
    ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, ``h' = (1 - z) n + z h``).

    >>> import ember
    >>> from ember import nn
    >>> gru = nn.GRU(3, 4, batch_first=True)
    >>> gru(ember.randn(2, 6, 3))[0].shape
    (2, 6, 4)
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)


# -- the cells ----------------------------------------------------------------------------------

class RNNCellBase(Module):
    """The parameters of one recurrent cell (``weight_ih``, ``weight_hh``, ``bias_ih``,
    ``bias_hh``), PyTorch's ``nn.RNNCellBase``, uniform in ``±1/sqrt(hidden_size)``.

    >>> from ember import nn
    >>> [n for n, _ in nn.GRUCell(2, 3).named_parameters()]
    ['weight_ih', 'weight_hh', 'bias_ih', 'bias_hh']
    """

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        name = type(self).__name__
        _size(input_size, name, "input_size", 0)
        _size(hidden_size, name, "hidden_size", 0)
        _flag(bias, name, "bias")
        dt = _float_dtype(dtype, name)
        dev = as_device(device, name)
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        stdv = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0.0
        g = num_chunks * hidden_size
        shapes = [("weight_ih", (g, input_size)), ("weight_hh", (g, hidden_size))]
        if bias:
            shapes += [("bias_ih", (g,)), ("bias_hh", (g,))]
        for n, shape in shapes:
            setattr(self, n, init.uniform(shape, -stdv, stdv, dtype=dt, device=dev))

    def _input(self, input, hx, states):
        """(x, states, unbatched): ``input`` as (B, input_size), each state as (B, hidden)
        (zeros when ``hx`` is None), checked."""
        name = type(self).__name__
        x = _tensor_arg(input, name, "input")
        if x.ndim not in (1, 2):
            raise ShapeMismatchError(f"{name}: expected input to be 1D or 2D, got {x.ndim}D "
                                     "instead", expected=(1, 2), actual=tuple(x.shape))
        if x.shape[-1] != self.input_size:
            raise ShapeMismatchError(f"{name}: input has {x.shape[-1]} features; expected "
                                     f"input_size={self.input_size}", expected=self.input_size,
                                     actual=tuple(x.shape))
        _check_dtype(x, self.weight_ih, name, "input")
        unbatched = x.ndim == 1
        if unbatched:
            x = x.unsqueeze(0)
        batch = x.shape[0]
        if hx is None:
            return x, [zeros(batch, self.hidden_size, dtype=x._dtype, device=x._device)
                       for _ in range(states)], unbatched
        given = list(hx) if states == 2 else [hx]
        if states == 2 and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise InvalidParameterError(f"{name}: hx must be a tuple (h_0, c_0), got "
                                        f"{type(hx).__name__}", "hx", hx)
        out = []
        for t in given:
            _tensor_arg(t, name, "hx")
            _check_shape(t, (self.hidden_size,) if unbatched else (batch, self.hidden_size),
                         name, "hx")
            _check_dtype(t, self.weight_ih, name, "hx")
            out.append(t.unsqueeze(0) if unbatched else t)
        return x, out, unbatched

    def _bias(self):
        return getattr(self, "bias_ih", None), getattr(self, "bias_hh", None)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


def _summed(b_ih, b_hh):
    return None if b_ih is None else b_ih + b_hh


class RNNCell(RNNCellBase):
    """One Elman step, PyTorch's ``nn.RNNCell``: ``h' = tanh(W_ih x + b_ih + W_hh h + b_hh)``
    (``nonlinearity="relu"``: ReLU). ``forward(input, hx=None)`` returns ``h'``.

    >>> import ember
    >>> from ember import nn
    >>> cell = nn.RNNCell(3, 4, nonlinearity="relu")
    >>> cell
    RNNCell(3, 4, nonlinearity=relu)
    >>> cell(ember.randn(2, 3)).shape
    (2, 4)
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise InvalidParameterError(f"RNNCell: unknown nonlinearity {nonlinearity!r}; "
                                        "expected 'tanh' or 'relu'", "nonlinearity",
                                        nonlinearity)
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """One step from ``input`` (B, input_size) or (input_size,) and ``hx`` (zeros if None).

        >>> import ember
        >>> from ember import nn
        >>> nn.RNNCell(2, 3)(ember.ones(2)).shape
        (3,)
        """
        x, (h,), unbatched = self._input(input, hx, 1)
        gx = linear(x, self.weight_ih, _summed(*self._bias()))
        h, _ = _STEPS["RNN_RELU" if self.nonlinearity == "relu" else "RNN_TANH"](
            gx, h, None, self.weight_hh, None, None, None, 0)
        return h[0] if unbatched else h


class LSTMCell(RNNCellBase):
    """One LSTM step, PyTorch's ``nn.LSTMCell`` (gates ``i, f, g, o``): ``forward(input,
    hx=None)`` with ``hx = (h, c)`` returns ``(h', c')``.

    >>> import ember
    >>> from ember import nn
    >>> h, c = nn.LSTMCell(3, 4)(ember.randn(2, 3))
    >>> h.shape, c.shape
    ((2, 4), (2, 4))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        """One step (see the class docstring); unbatched ``input`` gives unbatched states.

        >>> import ember
        >>> from ember import nn
        >>> [t.shape for t in nn.LSTMCell(2, 3)(ember.ones(2))]
        [(3,), (3,)]
        """
        x, (h, c), unbatched = self._input(input, hx, 2)
        gx = linear(x, self.weight_ih, _summed(*self._bias()))
        h, c = _lstm_step(gx, h, c, self.weight_hh, None, None, None, 0)
        return (h[0], c[0]) if unbatched else (h, c)


class GRUCell(RNNCellBase):
    """One GRU step, PyTorch's ``nn.GRUCell`` (gates ``r, z, n``); ``forward(input, hx=None)``
    returns ``h'``.

    >>> import ember
    >>> from ember import nn
    >>> nn.GRUCell(3, 4)(ember.randn(5, 3), ember.zeros(5, 4)).shape
    (5, 4)
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        """One step (see the class docstring).

        >>> import ember
        >>> from ember import nn
        >>> nn.GRUCell(2, 3)(ember.ones(2)).shape
        (3,)
        """
        x, (h,), unbatched = self._input(input, hx, 1)
        b_ih, b_hh = self._bias()
        h, _ = _gru_step(linear(x, self.weight_ih, b_ih), h, None, self.weight_hh, b_hh, None,
                         None, 0)
        return h[0] if unbatched else h
