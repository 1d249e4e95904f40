"""1-D, adaptive and LP pooling (functions and modules) against torch."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import InvalidParameterError, ShapeMismatchError
from math_oracle import check, rand


def _F(m):
    return m.nn.functional


CASES = [
    ("max_pool1d", lambda F, x: F.max_pool1d(x, 3, 2, 1, ceil_mode=True, return_indices=True),
     (2, 3, 10)),
    ("max_pool1d_dil", lambda F, x: F.max_pool1d(x, 2, dilation=2), (3, 9)),
    ("max_pool1d_wi", lambda F, x: F.max_pool1d_with_indices(x, 2), (1, 1, 5)),
    ("max_pool2d_wi", lambda F, x: F.max_pool2d_with_indices(x, 2), (2, 3, 5, 6)),
    ("avg_pool1d", lambda F, x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False,
                                             ceil_mode=True), (2, 3, 10)),
    ("avg_pool1d_plain", lambda F, x: F.avg_pool1d(x, 2), (4, 7)),
    ("aap1", lambda F, x: F.adaptive_avg_pool1d(x, 4), (2, 3, 10)),
    ("aap1_up", lambda F, x: F.adaptive_avg_pool1d(x, 7), (1, 2, 3)),
    ("aap2", lambda F, x: F.adaptive_avg_pool2d(x, (3, None)), (2, 3, 7, 5)),
    ("aap2_odd", lambda F, x: F.adaptive_avg_pool2d(x, (4, 3)), (3, 5, 7)),
    ("aap2_1", lambda F, x: F.adaptive_avg_pool2d(x, 1), (1, 4, 6, 6)),
    ("amp1", lambda F, x: F.adaptive_max_pool1d(x, 4, True), (2, 3, 10)),
    ("amp1_wi", lambda F, x: F.adaptive_max_pool1d_with_indices(x, 3), (3, 8)),
    ("amp2", lambda F, x: F.adaptive_max_pool2d(x, (3, 4), True), (2, 3, 7, 5)),
    ("amp2_unbatched", lambda F, x: F.adaptive_max_pool2d(x, (2, 1)), (3, 5, 7)),
    ("amp2_up", lambda F, x: F.adaptive_max_pool2d_with_indices(x, (4, 6)), (1, 2, 3, 4)),
    ("lp1", lambda F, x: F.lp_pool1d(x, 2, 3, 2), (2, 3, 10)),
    ("lp2", lambda F, x: F.lp_pool2d(x.abs() + 0.1, 1.5, (2, 3), ceil_mode=True), (2, 3, 7, 5)),
]


@pytest.mark.parametrize("name,f,shape", CASES, ids=[c[0] for c in CASES])
def test_functions(name, f, shape):
    check(lambda m, x: f(_F(m), x), rand(shape, seed=len(name)), atol=1e-5)


MODULES = [
    ("MaxPool1d", (2,), {}, (2, 3, 8)),
    ("MaxPool1d", ((3,), 2, 1), dict(return_indices=True, ceil_mode=True), (2, 3, 8)),
    ("AvgPool1d", (3, 2, 1, True, False), {}, (2, 3, 8)),
    ("AvgPool1d", (2,), {}, (3, 5)),
    ("AdaptiveAvgPool1d", (3,), {}, (2, 3, 8)),
    ("AdaptiveAvgPool2d", ((None, 3),), {}, (2, 3, 5, 8)),
    ("AdaptiveAvgPool2d", ((1, 1),), {}, (2, 3, 5, 8)),
    ("AdaptiveMaxPool1d", (3,), dict(return_indices=True), (2, 3, 8)),
    ("AdaptiveMaxPool2d", (2,), {}, (3, 5, 8)),
    ("LPPool1d", (2, 3), {}, (2, 3, 8)),
    ("LPPool2d", (2, (2, 3), 1, True), {}, (2, 3, 5, 7)),
]


@pytest.mark.parametrize("cls,args,kw,xs", MODULES)
def test_modules(cls, args, kw, xs):
    mt, me = getattr(torch.nn, cls)(*args, **kw), getattr(et.nn, cls)(*args, **kw)
    assert repr(me) == repr(mt)
    check(lambda m, x: (me if m is et else mt)(x), rand(xs), atol=1e-5)


def test_bad_arguments():
    F = ember.nn.functional
    with pytest.raises(ShapeMismatchError):
        F.max_pool1d(ember.ones(2, 3, 4, 5), 2)
    with pytest.raises(InvalidParameterError):
        F.adaptive_avg_pool2d(ember.ones(1, 3, 4), (1, 2, 3))
    with pytest.raises(InvalidParameterError):
        F.adaptive_max_pool1d(ember.ones(1, 3, 4), -1)
    with pytest.raises(ShapeMismatchError):
        F.adaptive_avg_pool1d(ember.ones(1, 3, 0), 2)
    with pytest.raises(InvalidParameterError):
        ember.nn.MaxPool1d(2, padding=2)
    with pytest.raises(InvalidParameterError):
        ember.nn.AdaptiveMaxPool2d(2, return_indices=1)
