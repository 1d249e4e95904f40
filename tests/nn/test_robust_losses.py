"""smooth_l1_loss, huber_loss and binary_cross_entropy (functions and modules) against PyTorch:
values and gradients on several shapes, reductions and thresholds; typed errors."""

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.errors import InvalidParameterError, ShapeMismatchError

SHAPES = [(), (0,), (5,), (3, 4)]
# (shape, reduction); the mean over nothing (nan in both) is compared in test_empty_means
CASES = [(s, r) for s in SHAPES for r in ("mean", "sum", "none") if (s, r) != ((0,), "mean")]


def _pair(shape, probs=False, seed=0):
    rng = np.random.default_rng(seed)
    if probs:
        return rng.uniform(0.02, 0.98, shape), rng.uniform(0, 1, shape)
    return rng.normal(0, 2, shape), rng.normal(0, 2, shape)


def _check(ours_fn, theirs_fn, x, t, rtol=1e-5):
    ex = ember.tensor(x, dtype=ember.float64).require_grad()
    tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    ours, theirs = ours_fn(ex, ember.tensor(t, dtype=ember.float64)), \
        theirs_fn(tx, torch.tensor(t, dtype=torch.float64))
    np.testing.assert_allclose(np.asarray(ours.tolist()), theirs.detach().numpy(), rtol=rtol,
                               atol=1e-12)
    assert tuple(ours.shape) == tuple(theirs.shape)
    if theirs.numel():
        ours.sum().backward()
        theirs.sum().backward()
        np.testing.assert_allclose(np.asarray(ex.grad.tolist()), tx.grad.numpy(), rtol=rtol,
                                   atol=1e-12)


@pytest.mark.parametrize("shape, reduction", CASES)
@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 3.0])
def test_smooth_l1_loss(shape, reduction, beta):
    x, t = _pair(shape)
    _check(lambda a, b: F.smooth_l1_loss(a, b, reduction=reduction, beta=beta),
           lambda a, b: torch.nn.functional.smooth_l1_loss(a, b, reduction=reduction, beta=beta),
           x, t)


@pytest.mark.parametrize("shape, reduction", CASES)
@pytest.mark.parametrize("delta", [0.5, 1.0, 3.0])
def test_huber_loss(shape, reduction, delta):
    x, t = _pair(shape, seed=1)
    _check(lambda a, b: F.huber_loss(a, b, reduction=reduction, delta=delta),
           lambda a, b: torch.nn.functional.huber_loss(a, b, reduction=reduction, delta=delta),
           x, t)


@pytest.mark.parametrize("shape, reduction", CASES)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy(shape, reduction, weighted):
    p, t = _pair(shape, probs=True, seed=2)
    w = np.random.default_rng(3).uniform(0.5, 2, shape) if weighted else None
    ew = None if w is None else ember.tensor(w, dtype=ember.float64)
    tw = None if w is None else torch.tensor(w, dtype=torch.float64)
    _check(lambda a, b: F.binary_cross_entropy(a, b, ew, reduction=reduction),
           lambda a, b: torch.nn.functional.binary_cross_entropy(a, b, tw, reduction=reduction),
           p, t)


def test_binary_cross_entropy_clamps_its_logs_at_minus_100():
    p, t = [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]
    ours = F.binary_cross_entropy(ember.tensor(p), ember.tensor(t), reduction="none")
    theirs = torch.nn.functional.binary_cross_entropy(torch.tensor(p), torch.tensor(t),
                                                      reduction="none")
    assert ours.tolist() == theirs.tolist() == [100.0, 100.0, 0.0]


def test_empty_means():
    for fn in ("smooth_l1_loss", "huber_loss", "binary_cross_entropy"):
        ours = getattr(F, fn)(ember.zeros(0), ember.zeros(0)).item()
        theirs = getattr(torch.nn.functional, fn)(torch.zeros(0), torch.zeros(0)).item()
        assert np.isnan(ours) and np.isnan(theirs)


def test_modules_and_legacy_arguments():
    x, t = _pair((4, 3), seed=4)
    ex, et, tx, tt = ember.tensor(x), ember.tensor(t), torch.tensor(x), torch.tensor(t)
    p, q = _pair((4, 3), probs=True, seed=5)
    pairs = [(nn.SmoothL1Loss(beta=0.5), torch.nn.SmoothL1Loss(beta=0.5), ex, et, tx, tt),
             (nn.HuberLoss(delta=2.0), torch.nn.HuberLoss(delta=2.0), ex, et, tx, tt),
             (nn.SmoothL1Loss(reduce=False), torch.nn.SmoothL1Loss(reduce=False), ex, et, tx, tt),
             (nn.BCELoss(size_average=False), torch.nn.BCELoss(size_average=False),
              ember.tensor(p), ember.tensor(q), torch.tensor(p), torch.tensor(q))]
    for ours, theirs, a, b, ta, tb in pairs:
        np.testing.assert_allclose(np.asarray(ours(a, b).tolist()), theirs(ta, tb).numpy(),
                                   rtol=1e-5)


def test_bad_arguments_raise_typed_errors():
    x = ember.tensor([0.5, 0.5])
    with pytest.raises(ShapeMismatchError, match="target has shape"):
        F.binary_cross_entropy(x, ember.tensor([1.0, 0.0, 1.0]))
    with pytest.raises(InvalidParameterError, match="between 0 and 1"):
        F.binary_cross_entropy(ember.tensor([1.5]), ember.tensor([1.0]))
    with pytest.raises(InvalidParameterError, match="beta"):
        F.smooth_l1_loss(x, x, beta=-1.0)
    with pytest.raises(InvalidParameterError, match="delta"):
        F.huber_loss(x, x, delta=0.0)
    with pytest.raises(InvalidParameterError, match="reduction"):
        F.huber_loss(x, x, reduction="avg")
    with pytest.raises(ShapeMismatchError):
        F.smooth_l1_loss(ember.zeros(3), ember.zeros(4))
