"""ember.onnx.export of ember.nn's LSTM, GRU and RNN (and ember.torch.nn's): ONNX's own LSTM /
GRU / RNN nodes that pass onnx.checker, match ember's forward in onnxruntime and load back
(ember.onnx.load) with the same outputs."""

import io

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

import ember  # noqa: E402
import ember.onnx  # noqa: E402
from ember import nn  # noqa: E402
from ember.nn.rnn_utils import pack_padded_sequence  # noqa: E402
from ember.onnx import ExportError  # noqa: E402

LAYERS = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn_tanh": nn.RNN, "rnn_relu": nn.RNN}
CONFIGS = [dict(num_layers=1), dict(num_layers=2), dict(num_layers=1, bidirectional=True),
           dict(num_layers=2, bidirectional=True, batch_first=True),
           dict(num_layers=2, batch_first=True, bias=False)]


def _layer(kind, **kw):
    if kind.startswith("rnn"):
        kw["nonlinearity"] = kind[4:]
    return LAYERS[kind](3, 5, **kw).eval()


def _states(kind, m, batch, seed):
    """Random initial states of PyTorch's shapes: h0 (and (h0, c0) for LSTM)."""
    rng = np.random.default_rng(seed)
    lead = m.num_layers * (2 if m.bidirectional else 1)
    shape = (lead, m.hidden_size) if batch is None else (lead, batch, m.hidden_size)
    h = ember.tensor(rng.standard_normal(shape).astype(np.float32))
    c = ember.tensor(rng.standard_normal(shape).astype(np.float32))
    return (h, c) if kind == "lstm" else h


def _flat(value):
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _flat(v)]
    return [value]


class WithStates(nn.Module):
    """The recurrent layer called with initial states given as graph inputs."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, h, c=None):
        return self.rnn(x, h if c is None else (h, c))


def _case(kind, config, states, unbatched=False):
    ember.manual_seed(3)
    m = _layer(kind, **config)
    rng = np.random.default_rng(7)
    shape = (6, 3) if unbatched else (2, 6, 3) if m.batch_first else (6, 2, 3)
    x = ember.tensor(rng.standard_normal(shape).astype(np.float32))
    if not states:
        return m, (x,)
    hx = _states(kind, m, None if unbatched else 2, 11)
    return WithStates(m), (x,) + (hx if kind == "lstm" else (hx,))


def _export(model, args):
    f = io.BytesIO()
    names = [f"in{i}" for i in range(len(args))]
    ember.onnx.export(model, args, f, input_names=names)
    data = f.getvalue()
    onnx.checker.check_model(onnx.load_from_string(data), full_check=True)
    return data, names


def _check(model, args):
    data, names = _export(model, args)
    expected = [t.detach().numpy() for t in _flat(model(*args))]
    ops = {n.op_type for n in onnx.load_from_string(data).graph.node}
    got = ort.InferenceSession(data).run(None, {n: a.numpy() for n, a in zip(names, args)})
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
    back = [t.detach().numpy() for t in _flat(ember.onnx.load(data)(*args))]
    assert len(back) == len(expected)
    for b, e in zip(back, expected):
        np.testing.assert_allclose(b, e, rtol=1e-5, atol=1e-5)
    return ops


@pytest.mark.parametrize("states", [False, True], ids=["zero_states", "given_states"])
@pytest.mark.parametrize("config", range(len(CONFIGS)))
@pytest.mark.parametrize("kind", sorted(LAYERS))
def test_recurrent_export_matches_onnxruntime_and_round_trip(kind, config, states):
    ops = _check(*_case(kind, CONFIGS[config], states))
    op = {"lstm": "LSTM", "gru": "GRU"}.get(kind, "RNN")
    assert op in ops  # ONNX's own recurrent node, not an unrolled loop
    assert "MatMul" not in ops and "Loop" not in ops


@pytest.mark.parametrize("states", [False, True], ids=["zero_states", "given_states"])
@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_unbatched_input(kind, states):
    _check(*_case(kind, dict(num_layers=2, bidirectional=True), states, unbatched=True))


def test_one_node_per_layer_and_gate_order_attributes():
    ember.manual_seed(0)
    data, _ = _export(nn.GRU(3, 4, num_layers=3, bidirectional=True).eval(),
                      (ember.randn(5, 2, 3),))
    nodes = [n for n in onnx.load_from_string(data).graph.node if n.op_type == "GRU"]
    assert len(nodes) == 3
    for n in nodes:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
        assert attrs["linear_before_reset"] == 1
        assert attrs["direction"] == b"bidirectional"
        assert attrs["hidden_size"] == 4


def test_lstm_inside_a_model_with_a_head():
    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(3, 6, num_layers=2, batch_first=True, bidirectional=True)
            self.head = nn.Linear(12, 2)

        def forward(self, x):
            out, _ = self.lstm(x)
            return self.head(out)

    ember.manual_seed(5)
    model = Tagger().eval()
    _check(model, (ember.randn(2, 4, 3),))
    # the same layer called twice shares its initializers
    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.RNN(3, 3)

        def forward(self, x):
            return self.rnn(self.rnn(x)[0])[0]

    _check(Twice().eval(), (ember.randn(4, 2, 3),))


def test_dropout_between_layers_is_off_in_export():
    ember.manual_seed(2)
    m = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    m.train()
    x = ember.randn(5, 2, 3)
    data, names = _export(m, (x,))
    assert m.training  # export restores the mode
    m.eval()
    got = ort.InferenceSession(data).run(None, {names[0]: x.numpy()})
    for g, e in zip(got, _flat(m(x))):
        np.testing.assert_allclose(g, e.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_via_ember_torch_nn_lstm():
    import ember.torch as torch
    torch.manual_seed(4)
    m = torch.nn.LSTM(3, 5, num_layers=2, batch_first=True, bidirectional=True).eval()
    x = torch.randn(2, 6, 3)
    h0, c0 = torch.randn(4, 2, 5), torch.randn(4, 2, 5)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = m

        def forward(self, x, h, c):
            return self.lstm(x, (h, c))

    net = Net().eval()
    ops = _check(net, (x, h0, c0))
    assert "LSTM" in ops


def test_proj_size_raises_export_error():
    m = nn.LSTM(3, 5, proj_size=2)
    with pytest.raises(ExportError, match="proj_size=2"):
        ember.onnx.export(m, (ember.randn(4, 2, 3),), io.BytesIO())


def test_packed_sequence_raises_export_error():
    class Packed(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(3, 4)

        def forward(self, x):
            packed = pack_padded_sequence(x, [4, 2])
            return self.gru(packed)[1]

    ember.manual_seed(6)
    with pytest.raises(ExportError, match="no translation"):
        ember.onnx.export(Packed(), (ember.randn(4, 2, 3),), io.BytesIO())
