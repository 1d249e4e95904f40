"""F.ctc_loss / nn.CTCLoss and nn.DataParallel against torch."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import InvalidParameterError, KindError
from math_oracle import check


def _F(m):
    return m.nn.functional


def _lp(T=7, N=3, C=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(T, N, C, generator=g).log_softmax(2).numpy()


TG = np.array([[1, 2, 2, 0], [3, 1, 4, 4], [2, 0, 0, 0]])


@pytest.mark.parametrize("red", ["mean", "sum", "none"])
def test_ctc_padded_targets(red):
    check(lambda m, x: _F(m).ctc_loss(x, m.tensor(TG), m.tensor([7, 6, 5]),
                                      m.tensor([3, 4, 1]), reduction=red), _lp(), atol=1e-5)


def test_ctc_concatenated_targets_and_lists():
    check(lambda m, x: _F(m).ctc_loss(x, m.tensor([1, 2, 2, 3, 1, 4, 4, 2]), (7, 6, 5),
                                      (3, 4, 1)), _lp(), atol=1e-5)


def test_ctc_other_blank_empty_target_and_unbatched():
    tg = np.array([[1, 2, 3], [4, 3, 2]])
    check(lambda m, x: _F(m).ctc_loss(x, m.tensor(tg), m.tensor([6, 6]), m.tensor([3, 0]),
                                      blank=0, reduction="none"), _lp(6, 2, 5, 1), atol=1e-5)
    tg = np.array([[0, 1, 2], [2, 2, 1]])
    check(lambda m, x: _F(m).ctc_loss(x, m.tensor(tg), m.tensor([6, 5]), m.tensor([3, 3]),
                                      blank=4), _lp(6, 2, 5, 2), atol=1e-5)
    check(lambda m, x: _F(m).ctc_loss(x, m.tensor([1, 2]), m.tensor([7]), m.tensor([2])),
          _lp()[:, 0], atol=1e-5)


def test_ctc_impossible_alignments():
    def f(m, x, zero):
        return _F(m).ctc_loss(x, m.tensor([[1, 1, 1, 1]] * 3), m.tensor([7, 3, 7]),
                              m.tensor([4, 4, 2]), reduction="none", zero_infinity=zero)
    check(lambda m, x: f(m, x, True), _lp(), atol=1e-5)
    out = f(et, et.tensor(_lp()), False)
    assert out.tolist()[1] == float("inf")
    np.testing.assert_allclose(out.numpy(), f(torch, torch.tensor(_lp()), False).numpy(),
                               rtol=1e-5)


def test_ctc_through_log_softmax():
    logits = np.random.default_rng(0).standard_normal((6, 2, 4)).astype("float32")
    check(lambda m, x: m.nn.CTCLoss(blank=3)(x.log_softmax(2), m.tensor([[0, 1], [2, 2]]),
                                             m.tensor([6, 6]), m.tensor([2, 2])), logits,
          atol=1e-5)
    assert repr(et.nn.CTCLoss()) == repr(torch.nn.CTCLoss())


def test_ctc_bad_arguments():
    F = ember.nn.functional
    lp = ember.zeros(4, 1, 3)
    with pytest.raises(InvalidParameterError):
        F.ctc_loss(lp, ember.tensor([[0, 1]]), [4], [2])  # the blank as a target
    with pytest.raises(InvalidParameterError):
        F.ctc_loss(lp, ember.tensor([[1, 2]]), [5], [2])
    with pytest.raises(KindError):
        F.ctc_loss(lp, ember.tensor([[1.0, 2.0]]), [4], [2])
    with pytest.raises(InvalidParameterError):
        F.ctc_loss(lp, ember.tensor([[1, 2]]), [4], [2], blank=3)


def test_data_parallel():
    torch.manual_seed(0)
    lt = torch.nn.Linear(3, 2)
    le = et.nn.Linear(3, 2)
    le.load_state_dict({k: et.tensor(v.detach().numpy()) for k, v in lt.state_dict().items()})
    dt, de = torch.nn.DataParallel(lt), et.nn.DataParallel(le)
    assert repr(de) == repr(dt)
    assert list(de.state_dict()) == list(dt.state_dict())
    x = np.ones((4, 3), "float32")
    np.testing.assert_allclose(de(et.tensor(x)).detach().numpy(),
                               dt(torch.tensor(x)).detach().numpy(), rtol=1e-6)
    with pytest.raises(InvalidParameterError):
        ember.nn.DataParallel("not a module")
