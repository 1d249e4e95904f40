"""ember.torch.nn's RNN, LSTM, GRU, cells and nn.utils.rnn against PyTorch 2.13, written as a
PyTorch program would use them: the same model built in both (weights through the state
dict), compared for classes, parameters, printing, outputs, states and gradients."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.torch import nn as enn

tnn = torch.nn


def to_e(t, requires_grad=False):
    out = et.tensor(t.detach().numpy())
    return out.requires_grad_() if requires_grad else out


def close(e, t, tol=1e-5):
    assert isinstance(e, et.Tensor), type(e)
    assert tuple(e.shape) == tuple(t.shape)
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def pair(kind, *args, **kw):
    torch.manual_seed(0)
    tm = getattr(tnn, kind)(*args, **kw)
    em = getattr(enn, kind)(*args, **kw)
    result = em.load_state_dict({k: to_e(v) for k, v in tm.state_dict().items()})
    assert repr(result) == "<All keys matched successfully>"
    return em, tm


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell",
                                  "RNNBase", "RNNCellBase"])
def test_classes_are_torch_modules_over_ember_layers(kind):
    cls = getattr(enn, kind)
    assert issubclass(cls, enn.Module) and issubclass(cls, getattr(ember.nn, kind))
    if kind.endswith("Base"):
        return
    m = cls(3, 4)
    assert all(type(p).__name__ == "Parameter" for p in m.parameters())
    assert repr(m) == repr(getattr(tnn, kind)(3, 4))
    assert list(m.state_dict()) == list(getattr(tnn, kind)(3, 4).state_dict())


@pytest.mark.parametrize("kind,kw", [
    ("LSTM", dict(num_layers=2, batch_first=True)),
    ("LSTM", dict(bidirectional=True, proj_size=2)),
    ("GRU", dict(num_layers=2, bidirectional=True)),
    ("RNN", dict(nonlinearity="relu", bias=False))])
def test_forward_backward_match_torch(rng, kind, kw):
    em, tm = pair(kind, 3, 5, **kw)
    x = rng.standard_normal((2, 6, 3) if kw.get("batch_first") else (6, 2, 3)).astype("float32")
    xt = torch.tensor(x, requires_grad=True)
    xe = to_e(xt, requires_grad=True)
    oe, he = em(xe)
    ot, ht = tm(xt)
    close(oe, ot)
    he = he if isinstance(he, tuple) else (he,)
    ht = ht if isinstance(ht, tuple) else (ht,)
    for a, b in zip(he, ht):
        close(a, b)
    (oe.square().sum() + sum(h.sum() for h in he)).backward()
    (ot.square().sum() + sum(h.sum() for h in ht)).backward()
    close(xe.grad, xt.grad, 1e-4)
    for (n, p), (tn, tp) in zip(em.named_parameters(), tm.named_parameters()):
        assert n == tn
        close(p.grad, tp.grad, 1e-4)


def test_word_language_model_with_packed_sequences(rng):
    """Embedding -> LSTM over packed sequences -> Linear, as a PyTorch program writes it."""
    def build(nn):
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Embedding(10, 4)
                self.rnn = nn.LSTM(4, 6, num_layers=2, dropout=0.3, batch_first=True)
                self.decoder = nn.Linear(6, 10)

            def forward(self, tokens, lengths, hidden):
                emb = self.encoder(tokens)
                packed = nn.utils.rnn.pack_padded_sequence(emb, lengths, batch_first=True,
                                                           enforce_sorted=False)
                self.rnn.flatten_parameters()
                out, hidden = self.rnn(packed, hidden)
                out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
                return self.decoder(out), hidden
        return Model()

    torch.manual_seed(0)
    tm = build(tnn)
    em = build(enn)
    em.load_state_dict({k: to_e(v) for k, v in tm.state_dict().items()})
    em.eval()
    tm.eval()
    tokens = rng.integers(0, 10, (3, 5))
    lengths = [3, 5, 2]
    zeros = (torch.zeros(2, 3, 6), torch.zeros(2, 3, 6))
    te, (he, ce) = em(et.tensor(tokens), lengths, tuple(to_e(z) for z in zeros))
    tt, (ht, ct) = tm(torch.tensor(tokens), lengths, zeros)
    close(te, tt)
    close(he, ht)
    close(ce, ct)
    loss_e = enn.functional.cross_entropy(te.reshape(-1, 10), et.tensor(tokens).reshape(-1))
    loss_t = tnn.functional.cross_entropy(tt.reshape(-1, 10), torch.tensor(tokens).reshape(-1))
    loss_e.backward()
    loss_t.backward()
    close(loss_e, loss_t)
    for (n, p), (_, tp) in zip(em.named_parameters(), tm.named_parameters()):
        close(p.grad, tp.grad, 1e-4)
    em.train()
    a, _ = em(et.tensor(tokens), lengths, tuple(to_e(z) for z in zeros))
    b, _ = em(et.tensor(tokens), lengths, tuple(to_e(z) for z in zeros))
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())  # dropout in training


def test_cells_in_a_loop_match_torch(rng):
    em, tm = pair("LSTMCell", 3, 4)
    x = rng.standard_normal((5, 2, 3)).astype("float32")
    he = ce = None
    ht, ct = torch.zeros(2, 4), torch.zeros(2, 4)
    for t in range(5):
        he, ce = em(et.tensor(x[t]), None if he is None else (he, ce))
        ht, ct = tm(torch.tensor(x[t]), (ht, ct))
    close(he, ht)
    close(ce, ct)
    g, gt = pair("GRUCell", 3, 4)
    close(g(et.tensor(x[0, 0])), gt(torch.tensor(x[0, 0])))


def test_rnn_utils_results_are_torch_tensors(rng):
    seqs = [rng.standard_normal((n, 2)).astype("float32") for n in (2, 4, 1)]
    pe = enn.utils.rnn.pack_sequence([et.tensor(s) for s in seqs], enforce_sorted=False)
    pt = tnn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    assert isinstance(pe, enn.utils.rnn.PackedSequence)
    assert all(isinstance(t, et.Tensor) for t in pe)
    close(pe.data, pt.data)
    assert pe.batch_sizes.tolist() == pt.batch_sizes.tolist()
    padded = enn.utils.rnn.pad_sequence([et.tensor(s) for s in seqs], batch_first=True)
    close(padded, tnn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs],
                                            batch_first=True))
    for a, b in zip(enn.utils.rnn.unpack_sequence(pe), tnn.utils.rnn.unpack_sequence(pt)):
        close(a, b)


def test_to_double_and_flatten_parameters():
    em, tm = pair("GRU", 2, 3)
    em.double()
    tm.double()
    assert em.weight_ih_l0.dtype == et.float64
    x = np.linspace(-1, 1, 12).reshape(3, 2, 2)
    out, h = em(et.tensor(x))
    close(out, tm(torch.tensor(x))[0], 1e-12)
    assert em.flatten_parameters() is None
