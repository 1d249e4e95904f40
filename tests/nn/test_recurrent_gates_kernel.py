"""The LSTM and GRU steps' gate kernels (``nn_lstm_gates``, ``nn_gru_gates``): the layers and
the gate ops against torch from the same weights (values, gradients, second order), and the
NumPy backend's compiled kernels against the base's default."""

import numpy as np
import pytest
import torch
from torch.nn.utils import rnn as trnn

import ember
import ember.torch as et
from ember import nn
from ember.backends.base.activation import ActivationKernels
from ember.nn import rnn_utils as ernn
from ember.ops.recurrent_gates import gru_gates, lstm_gates
from oracle import assert_close, engine_devices

TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-11)}
KINDS = ["LSTM", "GRU"]


def _torch_module(kind, dtype, **kw):
    torch.manual_seed(0)
    return getattr(torch.nn, kind)(**kw).to(getattr(torch, dtype))


def _weights(tm):
    return {k: v.detach().numpy() for k, v in tm.state_dict().items()}


def _run(module, tensor, x, lengths=None):
    """The input leaf, the output (the packed data when ``lengths``) and final states of
    ``module`` on ``x``, and the loss whose gradients the tests compare (fixed random weights
    on every result); ``tensor`` makes a tensor of the module's library."""
    xt = tensor(x, requires_grad=True)
    inp = xt
    if lengths is not None:
        pack = trnn.pack_padded_sequence if tensor is torch.tensor else \
            ernn.pack_padded_sequence
        inp = pack(xt, lengths, enforce_sorted=False)
    out, hx = module(inp)
    out = out.data if lengths is not None else out
    results = [out] + (list(hx) if isinstance(hx, tuple) else [hx])
    rng = np.random.default_rng(7)
    loss = sum((r * tensor(rng.standard_normal(tuple(r.shape)).astype(x.dtype))).sum()
               for r in results)
    return xt, results, loss


def _ember_torch_pair(kind, dtype, **kw):
    tm = _torch_module(kind, dtype, **kw)
    em = getattr(et.nn, kind)(**kw).to(getattr(et, dtype))
    em.load_state_dict({k: et.tensor(v) for k, v in _weights(tm).items()})
    return em, tm


def _agree(em, tm, make, x, lengths, dtype):
    """The ember layer ``em`` and the torch layer ``tm`` agree on ``x``: outputs, the input's
    and every parameter's gradient."""
    ex, eres, eloss = _run(em, make, x, lengths)
    tx, tres, tloss = _run(tm, torch.tensor, x, lengths)
    for e, t in zip(eres, tres):
        assert_close(e, t, **TOL[dtype])
    eloss.backward()
    tloss.backward()
    assert_close(ex.grad, tx.grad, **TOL[dtype])
    for (_, p), (_, tp) in zip(em.named_parameters(), tm.named_parameters()):
        assert_close(p.grad, tp.grad, **TOL[dtype])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [1, 5])
def test_ember_torch_layers_match_torch(kind, dtype, batch):
    em, tm = _ember_torch_pair(kind, dtype, input_size=6, hidden_size=16, num_layers=2)
    x = np.random.default_rng(0).standard_normal((7, batch, 6)).astype(dtype)
    _agree(em, tm, et.tensor, x, None, dtype)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ember_nn_packed_bidirectional_layers_match_torch(kind, dtype):
    tm = _torch_module(kind, dtype, input_size=3, hidden_size=8, bidirectional=True)
    em = getattr(nn, kind)(3, 8, bidirectional=True, dtype=dtype)
    em.load_state_dict({k: ember.tensor(v) for k, v in _weights(tm).items()})
    x = np.random.default_rng(1).standard_normal((5, 4, 3)).astype(dtype)
    lengths = [5, 2, 4, 1]
    _agree(em, tm, ember.tensor, x, lengths, dtype)


@pytest.mark.parametrize("kind", KINDS)
def test_an_empty_batch(kind):
    em, tm = _ember_torch_pair(kind, "float32", input_size=3, hidden_size=4)
    x = np.zeros((3, 0, 3), np.float32)
    out, hx = em(et.tensor(x))
    tout, thx = tm(torch.tensor(x))
    assert tuple(out.shape) == tuple(tout.shape) == (3, 0, 4)
    for e, t in zip(hx if kind == "LSTM" else [hx], thx if kind == "LSTM" else [thx]):
        assert tuple(e.shape) == tuple(t.shape)


def _gate_inputs(kind, batch, hidden, dtype, seed=0, scale=3.0):
    rng = np.random.default_rng(seed)
    if kind == "LSTM":
        shapes = [(batch, 4 * hidden), (batch, hidden)]
    else:
        shapes = [(batch, 3 * hidden), (batch, 3 * hidden), (batch, hidden)]
    return [(rng.standard_normal(s) * scale).astype(dtype) for s in shapes]


def _torch_gates(kind, ts):
    if kind == "LSTM":
        g, c = ts
        i, f, gg, o = g.chunk(4, 1)
        c2 = i.sigmoid() * gg.tanh() + f.sigmoid() * c
        return [o.sigmoid() * c2.tanh(), c2]
    xr, xz, xn = ts[0].chunk(3, 1)
    hr, hz, hn = ts[1].chunk(3, 1)
    r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
    new = (xn + r * hn).tanh()
    return [(1 - z) * new + z * ts[2]]


def _ember_gates(kind, es):
    out = (lstm_gates if kind == "LSTM" else gru_gates)(*es)
    return list(out) if kind == "LSTM" else [out]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [1, 6])
def test_the_gate_ops_match_torch_to_second_order(kind, dtype, batch):
    arrs = _gate_inputs(kind, batch, 40, dtype)
    es = [ember.tensor(a).require_grad() for a in arrs]
    ts = [torch.tensor(a, requires_grad=True) for a in arrs]
    eo, to = _ember_gates(kind, es), _torch_gates(kind, ts)
    for e, t in zip(eo, to):
        assert_close(e, t, **TOL[dtype])
    w = [np.random.default_rng(2).standard_normal(tuple(t.shape)).astype(dtype) for t in to]
    eloss = sum((e * e * ember.tensor(v)).sum() for e, v in zip(eo, w))
    tloss = sum((t * t * torch.tensor(v)).sum() for t, v in zip(to, w))
    first = eloss.backward(create_graph=True)
    tfirst = torch.autograd.grad(tloss, ts, create_graph=True)
    for e, t in zip(es, tfirst):
        assert_close(first.get(e), t, **TOL[dtype])
    second = sum((first.get(e) ** 2).sum() for e in es).backward()
    tsecond = torch.autograd.grad(sum((t ** 2).sum() for t in tfirst), ts)
    for e, t in zip(es, tsecond):
        assert_close(second.get(e), t, **TOL[dtype])
    # first order alone: the kept factors
    es2 = [ember.tensor(a).require_grad() for a in arrs]
    sum((e * e * ember.tensor(v)).sum() for e, v in zip(_ember_gates(kind, es2), w)).backward()
    for e, t in zip(es2, tfirst):
        assert_close(e.grad, t, **TOL[dtype])


@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell"])
def test_double_backward_of_a_cell_through_ember_torch(kind):
    tm = _torch_module(kind, "float64", input_size=3, hidden_size=5)
    em = getattr(et.nn, kind)(3, 5).to(et.float64)
    em.load_state_dict({k: et.tensor(v) for k, v in _weights(tm).items()})
    x = np.random.default_rng(4).standard_normal((4, 3))
    ex, tx = et.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    eo, to = em(ex), tm(tx)
    eo, to = (eo[0], to[0]) if kind == "LSTMCell" else (eo, to)
    (eg,) = et.autograd.grad((eo * eo).sum(), [ex], create_graph=True)
    (tg,) = torch.autograd.grad((to * to).sum(), [tx], create_graph=True)
    assert_close(eg, tg, **TOL["float64"])
    (eg * eg).sum().backward()
    (tg * tg).sum().backward()
    assert_close(ex.grad, tx.grad, **TOL["float64"])
    for (name, p), (_, tp) in zip(em.named_parameters(), tm.named_parameters()):
        assert_close(p.grad, tp.grad, **TOL["float64"])


# -- the kernels themselves ----------------------------------------------------------------------

class _Xp:
    """What the base's defaults read of a backend: its array namespace."""
    xp = np


def _default(kind, arrays, need_grad):
    fn = ActivationKernels.nn_lstm_gates if kind == "LSTM" else ActivationKernels.nn_gru_gates
    with np.errstate(all="ignore"):
        return _flat(fn(_Xp, *arrays, need_grad))


def _flat(result):
    """The arrays of a kernel's result, ``kept`` unpacked (None when not kept)."""
    *values, kept = result
    return values + (list(kept) if kept is not None else [None])


def _compiled(kind, arrays, need_grad):
    from ember.backends.numpy.jit import recurrent
    fn = recurrent.nn_lstm_gates if kind == "LSTM" else recurrent.nn_gru_gates
    return _flat(fn(*arrays, need_grad))


def _special(arrays):
    """Extremes in the first row of the pre-activations (``gates``, ``gx``): zeros of both
    signs, huge and tiny magnitudes, inf, nan."""
    first = np.array([0.0, -0.0, 100.0, -100.0, 1e-30, -1e-30, 20.0, -20.0, 0.3, -0.7, np.inf,
                      -np.inf, np.nan, 9.0, -9.0, 88.0, 1e-4])
    arrays[0][0] = np.resize(first, arrays[0].shape[1])
    return arrays


def _tolerance(dtype, arrays, ulps):
    """``ulps`` units of ``eps`` relative, and absolute of the largest finite factor (``c``,
    ``gh``, ``h``: the results are sums of products by them, each rounded once)."""
    eps = float(np.finfo(dtype).eps)
    scale = max(float(np.max(np.abs(a[np.isfinite(a)]), initial=0.0)) for a in arrays[1:])
    return dict(rtol=ulps * eps, atol=ulps * eps * (1.0 + scale))


@pytest.mark.numpy_only
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch,hidden", [(1, 1), (3, 7), (20, 256)])
def test_the_compiled_kernels_match_the_default(compiled_kernels, jit_launches, kind, dtype,
                                                batch, hidden):
    arrays = _special(_gate_inputs(kind, batch, hidden, dtype, seed=3, scale=2.0))
    exact = [a.astype(np.longdouble) for a in arrays]
    for need_grad in (False, True):
        jit_launches.clear()
        got = _compiled(kind, arrays, need_grad)
        assert jit_launches == [(f"ember_{kind.lower()}_gates_{dtype[0]}{dtype[-2:]}", True)]
        ref = _default(kind, arrays, need_grad)
        best = _default(kind, exact, need_grad)
        assert len(got) == len(ref) == len(best)
        for a, r, b in zip(got, ref, best):
            if r is None:
                assert a is None
                continue
            assert a.dtype == r.dtype and a.shape == r.shape and a.flags.c_contiguous
            # the default's sigmoid (through tanh) is exact to ~ulp(1), the rest to an ulp
            np.testing.assert_allclose(a, r, **_tolerance(dtype, arrays, 8))
            np.testing.assert_allclose(a, b.astype(dtype), **_tolerance(dtype, arrays, 4))


@pytest.mark.numpy_only
@pytest.mark.parametrize("kind", KINDS)
def test_other_layouts_and_no_compiled_kernel_take_the_default(compiled_kernels, jit_launches,
                                                               kind):
    from ember.backends.numpy import jit
    arrays = _gate_inputs(kind, 4, 6, "float32")
    stepped = [np.repeat(a, 2, axis=0)[::2] for a in arrays]  # the same values, every other row
    assert not stepped[0].flags.c_contiguous
    ref = _default(kind, arrays, True)
    for a, r in zip(_compiled(kind, stepped, True), ref):
        np.testing.assert_array_equal(a, r)
    mixed = arrays[:-1] + [arrays[-1].astype(np.float64)]  # dtypes the kernel does not take
    _compiled(kind, mixed, True)
    assert jit_launches == []
    jit.kernel = lambda name, source: None  # compiling, no compiler, EMBER_JIT=0
    for a, r in zip(_compiled(kind, arrays, True), ref):
        np.testing.assert_array_equal(a, r)


@pytest.mark.numpy_only
@pytest.mark.parametrize("kind", KINDS)
def test_the_rows_of_several_threads_equal_one_threads(compiled_kernels, kind):
    arrays = _gate_inputs(kind, 300, 512, "float32")  # past PARALLEL_NUMEL
    before = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        one = _compiled(kind, arrays, True)
        ember.set_num_threads(2)
        two = _compiled(kind, arrays, True)
    finally:
        ember.set_num_threads(before)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


@pytest.mark.numpy_only
@pytest.mark.parametrize("kind", KINDS)
def test_the_ops_launch_the_compiled_kernels(compiled_kernels, jit_launches, kind):
    es = [ember.tensor(a).require_grad() for a in _gate_inputs(kind, 2, 3, "float32")]
    sum(o.sum() for o in _ember_gates(kind, es)).backward()
    assert (f"ember_{kind.lower()}_gates_f32", True) in jit_launches


@pytest.mark.once
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("device", engine_devices(), ids=str)
def test_every_engine_computes_the_gates_alike(kind, device):
    arrays = _gate_inputs(kind, 3, 5, "float64", seed=5)
    ref = [np.asarray(t.detach()) for t in _torch_gates(kind, [torch.tensor(a) for a in arrays])]
    es = [ember.tensor(a, device=device).require_grad() for a in arrays]
    outs = _ember_gates(kind, es)
    for o, r in zip(outs, ref):
        assert o.device == ember.Device(device)
        np.testing.assert_allclose(o.numpy(), r, **TOL["float64"])
    found = sum((o * o).sum() for o in outs).backward()
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    expected = torch.autograd.grad(sum((t * t).sum() for t in _torch_gates(kind, ts)), ts)
    for e, t in zip(es, expected):
        np.testing.assert_allclose(found.get(e).numpy(), t.numpy(), **TOL["float64"])


@pytest.mark.parametrize("kind", KINDS)
def test_gates_large_enough_to_fuse(kind):
    # 100 x 4000 gates: the NumPy device's fusing wrapper defers arithmetic on arrays this large
    # (the op once multiplied a deferred tanh by a float and failed)
    arrays = _gate_inputs(kind, 100, 1000, "float32", seed=6)
    outs = _ember_gates(kind, [ember.tensor(a) for a in arrays])
    ref = _torch_gates(kind, [torch.tensor(a) for a in arrays])
    for o, r in zip(outs, ref):
        assert_close(o, r, **TOL["float32"])
