"""Tests of ember/nn/recurrent.py against torch.nn 2.13: the same RNN, LSTM, GRU and cells built in
both, weights copied from torch through its state dict; outputs, final states and the gradients
of the input, the initial states and every parameter, for each configuration (layers,
directions, batch_first, proj_size, packed sequences, unbatched input, given or zero states),
plus parameter names, shapes, initialization, repr, dropout between layers and bad input."""

import math
import warnings

import numpy as np
import pytest
import torch
from torch import nn as tnn
from torch.nn.utils import rnn as trnn

import ember
from ember import nn
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError
from ember.nn import rnn_utils as ernn
from oracle import assert_close, on_device

TOL = {"float64": (1e-9, 1e-11), "float32": (2e-4, 2e-5)}
TORCH_DT = {"float64": torch.float64, "float32": torch.float32}


def build(kind, dtype="float64", seed=0, **kw):
    """The torch module (seeded) and the ember module holding its weights."""
    torch.manual_seed(seed)
    tm = getattr(tnn, kind)(**kw).to(TORCH_DT[dtype])
    em = getattr(nn, kind)(**kw, dtype=dtype)
    result = em.load_state_dict({k: ember.tensor(v.detach().numpy())
                                 for k, v in tm.state_dict().items()})
    assert not result.missing_keys and not result.unexpected_keys
    return em, tm


def leaf(arr):
    return ember.tensor(arr).require_grad(), torch.tensor(arr, requires_grad=True)


def flat(out):
    """The tensors of a module's result: (output, h) or (output, (h, c)), output maybe packed."""
    o, h = out
    o = o.data if isinstance(o, (ernn.PackedSequence, trnn.PackedSequence)) else o
    return [o] + (list(h) if isinstance(h, tuple) else [h])


def check(em, tm, e_args, t_args, leaves, rng, dtype="float64"):
    """Values of every result, then the gradients of a random weighting of all of them with
    respect to ``leaves`` (pairs of ember and torch tensors) and every parameter."""
    eo, to = flat(em(*e_args)), flat(tm(*t_args))
    rtol, atol = TOL[dtype]
    assert len(eo) == len(to)
    loss_e, loss_t = 0, 0
    for e, t in zip(eo, to):
        assert_close(e, t, rtol=rtol, atol=atol)
        w = rng.standard_normal(tuple(t.shape)).astype(dtype)
        loss_e = loss_e + (e * ember.tensor(w)).sum()
        loss_t = loss_t + (t * torch.tensor(w)).sum()
    loss_e.backward()
    loss_t.backward()
    for e, t in leaves:
        assert_close(e.grad, t.grad, rtol=rtol, atol=atol)
    names = [n for n, _ in em.named_parameters()]
    assert names == [n for n, _ in tm.named_parameters()]
    for (n, p), (_, tp) in zip(em.named_parameters(), tm.named_parameters()):
        assert p.grad is not None, n
        assert_close(p.grad, tp.grad, rtol=rtol, atol=atol)


CONFIGS = [
    dict(),
    dict(num_layers=2),
    dict(bidirectional=True),
    dict(num_layers=2, bidirectional=True, batch_first=True),
    dict(bias=False, batch_first=True),
]
KINDS = [("LSTM", {}), ("GRU", {}), ("RNN", {}), ("RNN", {"nonlinearity": "relu"})]


def _states(kind, cfg, batch, rng, dtype, unbatched=False):
    """Random initial states of a module with config ``cfg``: [(ember, torch)] leaf pairs."""
    lead = cfg.get("num_layers", 1) * (2 if cfg.get("bidirectional") else 1)
    sizes = [cfg.get("proj_size") or 4] + ([4] if kind == "LSTM" else [])
    return [leaf(rng.standard_normal((lead,) + (() if unbatched else (batch,)) + (s,))
                 .astype(dtype)) for s in sizes]


def _hx(kind, pairs, side):
    states = [p[side] for p in pairs]
    return tuple(states) if kind == "LSTM" else states[0]


@pytest.mark.parametrize("kind,extra", KINDS)
@pytest.mark.parametrize("cfg", CONFIGS)
@pytest.mark.parametrize("given", [False, True])
def test_padded_input_matches_torch(rng, kind, extra, cfg, given):
    em, tm = build(kind, input_size=3, hidden_size=4, **extra, **cfg)
    shape = (2, 5, 3) if cfg.get("batch_first") else (5, 2, 3)
    x = leaf(rng.standard_normal(shape))
    leaves = [x]
    e_args, t_args = [x[0]], [x[1]]
    if given:
        pairs = _states(kind, cfg, 2, rng, "float64")
        leaves += pairs
        e_args.append(_hx(kind, pairs, 0))
        t_args.append(_hx(kind, pairs, 1))
    check(em, tm, e_args, t_args, leaves, rng)


@pytest.mark.parametrize("cfg", [dict(proj_size=2), dict(proj_size=3, num_layers=2,
                                                          bidirectional=True)])
@pytest.mark.parametrize("given", [False, True])
def test_lstm_projection_matches_torch(rng, cfg, given):
    em, tm = build("LSTM", input_size=3, hidden_size=5, **cfg)
    x = leaf(rng.standard_normal((4, 3, 3)))
    leaves, e_args, t_args = [x], [x[0]], [x[1]]
    if given:
        lead = cfg.get("num_layers", 1) * (2 if cfg.get("bidirectional") else 1)
        pairs = [leaf(rng.standard_normal((lead, 3, cfg["proj_size"]))),
                 leaf(rng.standard_normal((lead, 3, 5)))]
        leaves += pairs
        e_args.append((pairs[0][0], pairs[1][0]))
        t_args.append((pairs[0][1], pairs[1][1]))
    check(em, tm, e_args, t_args, leaves, rng)


@pytest.mark.parametrize("kind,extra", KINDS)
@pytest.mark.parametrize("cfg", [dict(), dict(num_layers=2, bidirectional=True, batch_first=True)])
@pytest.mark.parametrize("given", [False, True])
def test_unbatched_input_matches_torch(rng, kind, extra, cfg, given):
    em, tm = build(kind, input_size=3, hidden_size=4, **extra, **cfg)
    x = leaf(rng.standard_normal((6, 3)))
    leaves, e_args, t_args = [x], [x[0]], [x[1]]
    if given:
        pairs = _states(kind, cfg, None, rng, "float64", unbatched=True)
        leaves += pairs
        e_args.append(_hx(kind, pairs, 0))
        t_args.append(_hx(kind, pairs, 1))
    check(em, tm, e_args, t_args, leaves, rng)


@pytest.mark.parametrize("kind,extra", KINDS[:3] + [("LSTM", {"proj_size": 2})])
@pytest.mark.parametrize("cfg", [dict(), dict(num_layers=2, bidirectional=True)])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("given", [False, True])
def test_packed_sequences_match_torch(rng, kind, extra, cfg, enforce_sorted, given):
    em, tm = build(kind, input_size=3, hidden_size=4, **extra, **cfg)
    lengths = [6, 4, 4, 1] if enforce_sorted else [2, 6, 1, 4]
    x = leaf(rng.standard_normal((6, 4, 3)))
    pe = ernn.pack_padded_sequence(x[0], lengths, enforce_sorted=enforce_sorted)
    pt = trnn.pack_padded_sequence(x[1], lengths, enforce_sorted=enforce_sorted)
    leaves, e_args, t_args = [x], [pe], [pt]
    if given:
        cfg2 = dict(cfg, proj_size=extra.get("proj_size"))
        pairs = _states(kind, cfg2, 4, rng, "float64")
        leaves += pairs
        e_args.append(_hx(kind, pairs, 0))
        t_args.append(_hx(kind, pairs, 1))
    out = em(*e_args)[0]
    assert isinstance(out, ernn.PackedSequence)
    assert out.batch_sizes.tolist() == pt.batch_sizes.tolist()
    check(em, tm, e_args, t_args, leaves, rng)


def test_packed_output_pads_back_like_torch(rng):
    em, tm = build("GRU", input_size=2, hidden_size=3, batch_first=True, bidirectional=True)
    seqs = [rng.standard_normal((n, 2)) for n in (3, 5, 2)]
    pe = ernn.pack_sequence([ember.tensor(s) for s in seqs], enforce_sorted=False)
    pt = trnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    oe, le = ernn.pad_packed_sequence(em(pe)[0], batch_first=True)
    ot, lt = trnn.pad_packed_sequence(tm(pt)[0], batch_first=True)
    assert_close(oe, ot, rtol=1e-9, atol=1e-11)
    assert le.tolist() == lt.tolist()


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_float32_matches_torch(rng, kind):
    em, tm = build(kind, "float32", input_size=3, hidden_size=8, num_layers=2, batch_first=True)
    x = leaf(rng.standard_normal((3, 7, 3)).astype("float32"))
    check(em, tm, [x[0]], [x[1]], [x], rng, "float32")


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_empty_batch_and_non_contiguous_input_match_torch(rng, kind):
    em, tm = build(kind, input_size=3, hidden_size=4, num_layers=2, bidirectional=True)
    eo = flat(em(ember.zeros(5, 0, 3, dtype="float64")))
    to = flat(tm(torch.zeros(5, 0, 3, dtype=torch.float64)))
    for e, t in zip(eo, to):
        assert_close(e, t)
    arr = rng.standard_normal((6, 3, 2))
    xe = ember.tensor(arr).require_grad()
    xt = torch.tensor(arr, requires_grad=True)
    check(em, tm, [xe.transpose(1, 2)], [xt.transpose(1, 2)], [(xe, xt)], rng)


def test_default_dtype_and_result_dtypes():
    lstm = nn.LSTM(2, 3)
    assert lstm.weight_ih_l0.dtype.name == "float32"
    out, (h, c) = lstm(ember.ones(4, 1, 2))
    assert (out.dtype.name, h.dtype.name, c.dtype.name) == ("float32",) * 3
    with pytest.raises(InvalidParameterError, match="dtype float32"):
        lstm(ember.ones(4, 1, 2, dtype="float64"))


# -- cells --------------------------------------------------------------------------------------

CELLS = [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}), ("LSTMCell", {}),
         ("GRUCell", {}), ("LSTMCell", {"bias": False}), ("GRUCell", {"bias": False})]


@pytest.mark.parametrize("kind,extra", CELLS)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("given", [False, True])
def test_cells_match_torch(rng, kind, extra, batched, given):
    em, tm = build(kind, input_size=3, hidden_size=4, **extra)
    lead = (5,) if batched else ()
    x = leaf(rng.standard_normal(lead + (3,)))
    leaves, e_args, t_args = [x], [x[0]], [x[1]]
    if given:
        pairs = [leaf(rng.standard_normal(lead + (4,)))
                 for _ in range(2 if kind == "LSTMCell" else 1)]
        leaves += pairs
        e_args.append(tuple(p[0] for p in pairs) if kind == "LSTMCell" else pairs[0][0])
        t_args.append(tuple(p[1] for p in pairs) if kind == "LSTMCell" else pairs[0][1])
    eo, to = em(*e_args), tm(*t_args)
    eo = list(eo) if isinstance(eo, tuple) else [eo]
    to = list(to) if isinstance(to, tuple) else [to]
    loss_e, loss_t = 0, 0
    for e, t in zip(eo, to):
        assert_close(e, t, rtol=1e-9, atol=1e-11)
        w = rng.standard_normal(tuple(t.shape))
        loss_e = loss_e + (e * ember.tensor(w)).sum()
        loss_t = loss_t + (t * torch.tensor(w)).sum()
    loss_e.backward()
    loss_t.backward()
    for e, t in leaves:
        assert_close(e.grad, t.grad, rtol=1e-9, atol=1e-11)
    for (n, p), (tn, tp) in zip(em.named_parameters(), tm.named_parameters()):
        assert n == tn
        assert_close(p.grad, tp.grad, rtol=1e-9, atol=1e-11)


def test_cell_sequence_equals_lstm_layer(rng):
    """An LSTMCell looped over time gives the one-layer LSTM's output (same weights)."""
    lstm = nn.LSTM(3, 4, dtype="float64")
    cell = nn.LSTMCell(3, 4, dtype="float64")
    cell.load_state_dict({k[:-3]: v for k, v in lstm.state_dict().items()})
    x = ember.tensor(rng.standard_normal((5, 2, 3)))
    out, (h, c) = lstm(x)
    hc = None
    for t in range(5):
        hc = cell(x[t], hc)
        assert_close(hc[0], out[t].numpy(), rtol=1e-12, atol=1e-12)
    assert_close(hc[1], c[0].numpy(), rtol=1e-12, atol=1e-12)


def test_second_order_gradient_of_lstm_cell_matches_torch(rng):
    em, tm = build("LSTMCell", input_size=2, hidden_size=3)
    x = leaf(rng.standard_normal((2, 2)))
    v = rng.standard_normal((2, 2))
    h, c = em(x[0])
    ge = ((h * h).sum() + c.sum()).backward(create_graph=True).get(x[0])
    second = (ge * ember.tensor(v)).sum().backward()
    th, tc = tm(x[1])
    (gt,) = torch.autograd.grad((th * th).sum() + tc.sum(), [x[1]], create_graph=True)
    (gt * torch.tensor(v)).sum().backward()
    assert_close(ge, gt, rtol=1e-9, atol=1e-11)
    assert_close(second.get(x[0]), x[1].grad, rtol=1e-9, atol=1e-11)
    assert_close(second.get(em.weight_hh), tm.weight_hh.grad, rtol=1e-9, atol=1e-11)


# -- parameters, init, repr, dropout ------------------------------------------------------------

@pytest.mark.parametrize("kind,kw", [
    ("LSTM", dict(num_layers=2, bidirectional=True, proj_size=3)),
    ("GRU", dict(num_layers=3, bias=False)),
    ("RNN", dict(bidirectional=True, nonlinearity="relu")),
    ("LSTMCell", dict()), ("GRUCell", dict(bias=False)), ("RNNCell", dict())])
def test_names_shapes_and_state_dict_keys_match_torch(kind, kw):
    em, tm = getattr(nn, kind)(6, 5, **kw), getattr(tnn, kind)(6, 5, **kw)
    assert ([(n, tuple(p.shape)) for n, p in em.named_parameters()]
            == [(n, tuple(p.shape)) for n, p in tm.named_parameters()])
    assert list(em.state_dict()) == list(tm.state_dict())
    # weights move both ways: ember's into torch gives ember's outputs
    tm.load_state_dict({k: torch.tensor(np.array(v.numpy())) for k, v in
                        em.state_dict().items()})
    x = np.linspace(-1, 1, 4 * 6, dtype=np.float32).reshape(4, 6)
    eo, to = em(ember.tensor(x)), tm(torch.tensor(x))
    assert_close(flat(eo)[0] if isinstance(eo, tuple) and not kind.endswith("Cell") else
                 (eo[0] if isinstance(eo, tuple) else eo),
                 flat(to)[0] if isinstance(to, tuple) and not kind.endswith("Cell") else
                 (to[0] if isinstance(to, tuple) else to), rtol=1e-5, atol=1e-6)


def test_init_is_uniform_in_plus_minus_one_over_sqrt_hidden():
    ember.manual_seed(0)
    lstm = nn.LSTM(30, 100, num_layers=2, proj_size=20)
    bound = 1 / math.sqrt(100)
    values = np.concatenate([p.numpy().ravel() for p in lstm.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    assert abs(values.mean()) < 0.02 * bound
    assert abs(values.std() - bound / math.sqrt(3)) < 0.02 * bound
    ember.manual_seed(0)
    again = nn.LSTM(30, 100, num_layers=2, proj_size=20)
    np.testing.assert_array_equal(again.weight_hr_l1.numpy(), lstm.weight_hr_l1.numpy())
    before = lstm.weight_ih_l0.numpy().copy()
    lstm.reset_parameters()
    assert not np.array_equal(before, lstm.weight_ih_l0.numpy())
    assert np.abs(lstm.weight_ih_l0.numpy()).max() <= bound


@pytest.mark.parametrize("kind,kw", [
    ("LSTM", {}), ("LSTM", dict(num_layers=2, bias=False, batch_first=True, dropout=0.5,
                                bidirectional=True, proj_size=2)),
    ("GRU", dict(num_layers=2, dropout=0.25)), ("RNN", dict(nonlinearity="relu")),
    ("RNNCell", dict(nonlinearity="relu", bias=False)), ("LSTMCell", {}), ("GRUCell", {})])
def test_repr_matches_torch(kind, kw):
    assert repr(getattr(nn, kind)(3, 4, **kw)) == repr(getattr(tnn, kind)(3, 4, **kw))


def test_flatten_parameters_and_all_weights():
    em, tm = nn.LSTM(2, 3, num_layers=2, bidirectional=True), tnn.LSTM(2, 3, num_layers=2,
                                                                      bidirectional=True)
    assert em.flatten_parameters() is None
    assert ([[tuple(w.shape) for w in g] for g in em.all_weights]
            == [[tuple(w.shape) for w in g] for g in tm.all_weights])
    assert em._flat_weights_names == tm._flat_weights_names


def test_dropout_between_layers_in_training_only(rng):
    """A relu RNN whose second layer passes its input through (identity W_ih, zero W_hh and
    biases): its output is the first layer's dropped out: 0 or 2x with p=0.5, about half of
    each; in eval, exactly the first layer's."""
    ember.manual_seed(1)
    rnn = nn.RNN(4, 64, num_layers=2, nonlinearity="relu", dropout=0.5, dtype="float64")
    rnn.weight_ih_l1 = ember.tensor(np.eye(64)).require_grad()
    rnn.weight_hh_l1 = ember.zeros(64, 64, dtype="float64").require_grad()
    rnn.bias_ih_l1 = ember.zeros(64, dtype="float64").require_grad()
    rnn.bias_hh_l1 = ember.zeros(64, dtype="float64").require_grad()
    first = nn.RNN(4, 64, nonlinearity="relu", dtype="float64")
    first.load_state_dict({k: v for k, v in rnn.state_dict().items() if k.endswith("l0")})
    x = ember.tensor(rng.standard_normal((20, 8, 4)))
    base = first(x)[0].numpy()
    out = rnn(x)[0].numpy()
    pos = base > 0
    ratio = out[pos] / base[pos]
    assert np.all((ratio == 0) | np.isclose(ratio, 2.0))
    assert 0.45 < np.mean(ratio == 0) < 0.55
    assert not np.array_equal(out, rnn(x)[0].numpy())  # a new mask each call
    np.testing.assert_allclose(rnn.eval()(x)[0].numpy(), base, rtol=1e-12)


def test_dropout_with_one_layer_warns_as_torch():
    with pytest.warns(UserWarning, match="num_layers greater than 1"):
        nn.GRU(2, 3, dropout=0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.GRU(2, 3, num_layers=2, dropout=0.2)


# -- bad input ----------------------------------------------------------------------------------

def test_bad_constructor_arguments():
    with pytest.raises(InvalidParameterError, match="proj_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(InvalidParameterError, match="proj_size"):
        nn.RNNBase("GRU", 3, 4, proj_size=2)
    with pytest.raises(InvalidParameterError, match="dropout"):
        nn.LSTM(3, 4, dropout=1.5)
    with pytest.raises(InvalidParameterError, match="nonlinearity"):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(InvalidParameterError, match="nonlinearity"):
        nn.RNNCell(3, 4, nonlinearity="gelu")
    with pytest.raises(InvalidParameterError, match="hidden_size"):
        nn.GRU(3, 0)
    with pytest.raises(KindError, match="input_size"):
        nn.LSTM(3.0, 4)
    with pytest.raises(KindError, match="bias"):
        nn.LSTM(3, 4, bias=1)
    with pytest.raises(KindError, match="float dtype"):
        nn.LSTM(3, 4, dtype="int64")


def test_bad_forward_inputs():
    lstm = nn.LSTM(3, 4, num_layers=2)
    x = ember.ones(5, 2, 3)
    with pytest.raises(ShapeMismatchError, match="2D or 3D"):
        lstm(ember.ones(1, 5, 2, 3))
    with pytest.raises(ShapeMismatchError, match="input_size"):
        lstm(ember.ones(5, 2, 4))
    with pytest.raises(ShapeMismatchError, match=r"h_0 of shape \(2, 2, 4\)"):
        lstm(x, (ember.zeros(1, 2, 4), ember.zeros(2, 2, 4)))
    with pytest.raises(ShapeMismatchError, match="c_0"):
        lstm(x, (ember.zeros(2, 2, 4), ember.zeros(2, 3, 4)))
    with pytest.raises(InvalidParameterError, match="tuple"):
        lstm(x, ember.zeros(2, 2, 4))
    with pytest.raises(ShapeMismatchError, match="2-D"):
        nn.GRU(3, 4)(ember.ones(5, 3), ember.zeros(1, 1, 4))
    with pytest.raises(ShapeMismatchError, match="3-D"):
        nn.GRU(3, 4)(x, ember.zeros(1, 4))
    with pytest.raises(InvalidParameterError, match="Tensor"):
        nn.RNN(3, 4)([[1.0, 2.0, 3.0]])
    with pytest.raises(ShapeMismatchError, match="1D or 2D"):
        nn.GRUCell(3, 4)(x)
    with pytest.raises(ShapeMismatchError, match="hx"):
        nn.GRUCell(3, 4)(ember.ones(2, 3), ember.zeros(3, 4))
    with pytest.raises(InvalidParameterError, match="tuple"):
        nn.LSTMCell(3, 4)(ember.ones(2, 3), ember.zeros(2, 4))


# -- the fused gate op (ember/ops/recurrent_gates.py) --------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lstm_gates_op_matches_torch_to_second_order(rng, dtype):
    from ember.ops.recurrent_gates import lstm_gates
    ga, ca = rng.standard_normal((3, 8)).astype(dtype), rng.standard_normal((3, 2)).astype(dtype)
    wh, wc = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    ge, ce = ember.tensor(ga).require_grad(), ember.tensor(ca).require_grad()
    gt, ct = torch.tensor(ga, requires_grad=True), torch.tensor(ca, requires_grad=True)
    h, c = lstm_gates(ge, ce)
    i, f, g, o = gt.chunk(4, 1)
    c2 = i.sigmoid() * g.tanh() + f.sigmoid() * ct
    h2 = o.sigmoid() * c2.tanh()
    rtol, atol = TOL[dtype]
    assert_close(h, h2, rtol=rtol, atol=atol)
    assert_close(c, c2, rtol=rtol, atol=atol)
    wh, wc = wh.astype(dtype), wc.astype(dtype)
    loss_e = (h * ember.tensor(wh)).sum() + (c * c * ember.tensor(wc)).sum()
    loss_t = (h2 * torch.tensor(wh)).sum() + (c2 * c2 * torch.tensor(wc)).sum()
    grads = loss_e.backward(create_graph=True)
    dge, dce = grads.get(ge), grads.get(ce)
    dgt, dct = torch.autograd.grad(loss_t, [gt, ct], create_graph=True)
    assert_close(dge, dgt, rtol=rtol, atol=atol)
    assert_close(dce, dct, rtol=rtol, atol=atol)
    second = ((dge * dge).sum() + dce.sum()).backward()
    tg2, tc2 = torch.autograd.grad((dgt * dgt).sum() + dct.sum(), [gt, ct])
    assert_close(second.get(ge), tg2, rtol=rtol, atol=atol)
    assert_close(second.get(ce), tc2, rtol=rtol, atol=atol)
    # first order without create_graph: the kept factors
    ge2, ce2 = ember.tensor(ga).require_grad(), ember.tensor(ca).require_grad()
    h, c = lstm_gates(ge2, ce2)
    ((h * ember.tensor(wh)).sum() + (c * c * ember.tensor(wc)).sum()).backward()
    assert_close(ge2.grad, dgt, rtol=rtol, atol=atol)
    assert_close(ce2.grad, dct, rtol=rtol, atol=atol)


def test_lstm_gates_op_other_dtypes_and_bad_shapes(rng):
    from ember.ops.recurrent_gates import lstm_gates
    ga, ca = rng.standard_normal((2, 12)), rng.standard_normal((2, 3))
    ref = lstm_gates(ember.tensor(ga), ember.tensor(ca))
    for dtype in on_device(["float16"]):
        half = lstm_gates(ember.tensor(ga, dtype=dtype), ember.tensor(ca, dtype=dtype))
        for a, b in zip(half, ref):
            assert a.dtype.name == dtype
            np.testing.assert_allclose(a.numpy().astype("float64"), b.numpy(), atol=5e-3)
    with pytest.raises(ShapeMismatchError, match="gates"):
        lstm_gates(ember.zeros(2, 8), ember.zeros(2, 3))
    with pytest.raises(InvalidParameterError, match="gates"):
        lstm_gates([[0.0] * 4], ember.zeros(1, 1))


@pytest.mark.parametrize("kind", ["LSTM", "RNN", "GRU"])
def test_second_order_gradients_through_layers_match_torch(rng, kind):
    """create_graph through the recurrence (each step then gives its own W_hh gradient)."""
    em, tm = build(kind, input_size=2, hidden_size=3, bidirectional=True)
    x = leaf(rng.standard_normal((4, 2, 2)))
    lengths = [4, 2]
    v = rng.standard_normal((4, 2, 2))
    out = em(ernn.pack_padded_sequence(x[0], lengths))[0].data
    ge = (out * out).sum().backward(create_graph=True).get(x[0])
    second = (ge * ember.tensor(v)).sum().backward()
    tout = tm(trnn.pack_padded_sequence(x[1], lengths))[0].data
    (gt,) = torch.autograd.grad((tout * tout).sum(), [x[1]], create_graph=True)
    (gt * torch.tensor(v)).sum().backward()
    assert_close(ge, gt, rtol=1e-9, atol=1e-11)
    assert_close(second.get(x[0]), x[1].grad, rtol=1e-9, atol=1e-11)
    for name in ("weight_hh_l0", "weight_hh_l0_reverse", "weight_ih_l0", "bias_hh_l0"):
        assert_close(second.get(getattr(em, name)), getattr(tm, name).grad, rtol=1e-8,
                     atol=1e-10)


def test_frozen_recurrent_weight(rng):
    em, tm = build("LSTM", input_size=2, hidden_size=3, num_layers=2)
    em.weight_hh_l0 = em.weight_hh_l0.set_require_grad(False)
    tm.weight_hh_l0.requires_grad_(False)
    x = leaf(rng.standard_normal((5, 2, 2)))
    (em(x[0])[0] ** 2).sum().backward()
    (tm(x[1])[0] ** 2).sum().backward()
    assert em.weight_hh_l0.grad is None
    assert_close(x[0].grad, x[1].grad, rtol=1e-9, atol=1e-11)
    for name in ("weight_ih_l0", "weight_hh_l1", "bias_hh_l0"):
        assert_close(getattr(em, name).grad, getattr(tm, name).grad, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_gru_gates_op_matches_torch_to_second_order(rng, dtype):
    from ember.ops.recurrent_gates import gru_gates
    arrs = [rng.standard_normal(s) for s in ((3, 6), (3, 6), (3, 2))]
    w = rng.standard_normal((3, 2))
    es = [ember.tensor(a, dtype=dtype).require_grad() for a in arrs]
    ts = [torch.tensor(a, requires_grad=True) for a in arrs]  # float64 reference
    out = gru_gates(*es)
    xr, xz, xn = ts[0].chunk(3, 1)
    hr, hz, hn = ts[1].chunk(3, 1)
    r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
    new = (xn + r * hn).tanh()
    tout = (1 - z) * new + z * ts[2]
    rtol, atol = dict(TOL, float16=(1e-2, 1e-2))[dtype]
    assert out.dtype.name == dtype
    np.testing.assert_allclose(out.numpy().astype("float64"), tout.detach().numpy(), rtol=rtol,
                               atol=atol)
    if dtype == "float16":
        return
    grads = (out * out * ember.tensor(w.astype(dtype))).sum().backward(create_graph=True)
    tg = torch.autograd.grad((tout * tout * torch.tensor(w)).sum(), ts, create_graph=True)
    for e, t, g in zip(es, ts, tg):
        np.testing.assert_allclose(grads.get(e).numpy(), g.detach().numpy(), rtol=rtol, atol=atol)
    second = sum((grads.get(e) ** 2).sum() for e in es).backward()
    t2 = torch.autograd.grad(sum((g ** 2).sum() for g in tg), ts)
    for e, t in zip(es, t2):
        np.testing.assert_allclose(second.get(e).numpy(), t.numpy(), rtol=rtol, atol=atol)
    with pytest.raises(ShapeMismatchError, match="gx"):
        gru_gates(ember.zeros(2, 6), ember.zeros(2, 3), ember.zeros(2, 2))


def _cycles(fn):
    """Objects left in reference cycles by one call of ``fn`` (the cyclic collector's count)."""
    import gc
    fn()
    gc.collect()
    gc.disable()
    try:
        fn()
        return gc.collect()
    finally:
        gc.enable()


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_a_recorded_forward_is_freed_when_its_output_dies(kind):
    # a graph in a reference cycle lives until the cyclic collector runs: a forward's buffers
    # then pile up (fresh pages for every step's arrays); the recurrence's record of each step's
    # h held its graph, which led back to the recurrence
    em = getattr(nn, kind)(4, 5, num_layers=2)
    x = ember.tensor(np.ones((3, 2, 4), np.float32))
    assert _cycles(lambda: em(x)) == 0
    assert _cycles(lambda: em(x)[0].sum().backward()) == 0
