"""Tests of ember/nn/losses.py against torch.nn: values, every gradient, repr, bad inputs and
complex inputs refused."""

import numpy as np
import pytest
import torch
from torch import nn as tnn

import ember
from ember import nn
from test_layers import _compare, _complex


# -- loss modules -------------------------------------------------------------------------------

def test_loss_modules_match_torch(rng):
    x = rng.standard_normal((5, 4))
    idx = rng.integers(0, 4, size=5)
    w = rng.random(4) + 0.5
    cases = [
        (nn.CrossEntropyLoss(), tnn.CrossEntropyLoss(), idx),
        (nn.CrossEntropyLoss(ember.tensor(w), ignore_index=1, reduction="sum", label_smoothing=0.1),
         tnn.CrossEntropyLoss(torch.tensor(w), ignore_index=1, reduction="sum",
                              label_smoothing=0.1), idx),
        (nn.NLLLoss(reduction="none"), tnn.NLLLoss(reduction="none"), idx),
        (nn.MSELoss(), tnn.MSELoss(), rng.standard_normal((5, 4))),
        (nn.L1Loss(reduction="sum"), tnn.L1Loss(reduction="sum"), rng.standard_normal((5, 4))),
        (nn.BCEWithLogitsLoss(pos_weight=ember.tensor(w)),
         tnn.BCEWithLogitsLoss(pos_weight=torch.tensor(w)), rng.random((5, 4))),
    ]
    for em, tm, target in cases:
        assert repr(em) == repr(tm)
        assert em.parameters() == []
        _compare(em, tm, x, rng, extra_e=(ember.tensor(target),), extra_t=(torch.tensor(target),))
    with pytest.raises(ember.InvalidParameterError, match="CrossEntropyLoss: reduction 'avg'"):
        nn.CrossEntropyLoss(reduction="avg")
    with pytest.raises(ember.InvalidParameterError, match="CrossEntropyLoss: label_smoothing is"):
        nn.CrossEntropyLoss(label_smoothing=-0.1)
    with pytest.raises(ember.InvalidParameterError, match="NLLLoss: weight must be a Tensor"):
        nn.NLLLoss(weight=[1.0, 2.0])


# -- complex: losses take real tensors only (docs/complex.md) --------------------------------------

@pytest.mark.parametrize("name", ["MSELoss", "L1Loss", "BCEWithLogitsLoss"])
def test_complex_loss_refused(name):
    loss = getattr(nn, name)()
    z, x = _complex((2, 3)), ember.from_numpy(np.full((2, 3), 0.5, np.float32))
    for args in ((z, x), (x, z)):
        with pytest.raises(ember.KindError, match="complex"):
            loss(*args)


@pytest.mark.parametrize("name", ["CrossEntropyLoss", "NLLLoss"])
def test_complex_class_loss_refused(name):
    with pytest.raises(ember.KindError, match="complex"):
        getattr(nn, name)()(_complex((2, 3)), ember.tensor([0, 1]))
