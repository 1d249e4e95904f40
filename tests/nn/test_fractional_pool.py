"""Fractional max pooling (functions and modules) against torch with fixed samples."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import InvalidParameterError, ShapeMismatchError
from math_oracle import check, rand

S2 = np.random.default_rng(0).random((2, 3, 2)).astype("float32")
S3 = np.random.default_rng(1).random((2, 3, 3)).astype("float32")


def _F(m):
    return m.nn.functional


@pytest.mark.parametrize("name,f,shape", [
    ("2d", lambda F, x, s: F.fractional_max_pool2d(x, 2, output_size=(4, 5),
                                                    return_indices=True, _random_samples=s),
     (2, 3, 9, 11)),
    ("2d_ratio", lambda F, x, s: F.fractional_max_pool2d(x, (3, 2), output_ratio=(0.5, 0.4),
                                                          _random_samples=s), (2, 3, 9, 11)),
    ("2d_unbatched", lambda F, x, s: F.fractional_max_pool2d_with_indices(
        x, 2, output_size=3, _random_samples=s[:1]), (3, 7, 7)),
    ("3d", lambda F, x, s: F.fractional_max_pool3d(x, 2, output_size=(3, 4, 2),
                                                    return_indices=True, _random_samples=s),
     (2, 3, 7, 9, 5)),
    ("3d_wi", lambda F, x, s: F.fractional_max_pool3d_with_indices(
        x, (2, 1, 3), output_size=(2, 2, 2), _random_samples=s), (2, 3, 4, 3, 6)),
])
def test_functions(name, f, shape):
    s = S3 if "3d" in name else S2
    check(lambda m, x: f(_F(m), x, m.tensor(s)), rand(shape))


def test_modules_and_random_windows():
    for cls, kw, shape, s in (("FractionalMaxPool2d", dict(output_size=3), (2, 3, 7, 7), S2),
                              ("FractionalMaxPool3d", dict(output_ratio=0.5), (2, 3, 6, 6, 6),
                               S3)):
        mt = getattr(torch.nn, cls)(2, _random_samples=torch.tensor(s), **kw)
        me = getattr(et.nn, cls)(2, _random_samples=et.tensor(s), **kw)
        assert repr(me) == repr(mt)
        check(lambda m, x: (me if m is et else mt)(x), rand(shape))
    ember.manual_seed(0)
    y = ember.nn.FractionalMaxPool2d(2, output_size=4)(ember.randn(2, 3, 9, 9))
    assert y.shape == (2, 3, 4, 4)


def test_bad_arguments():
    F = ember.nn.functional
    with pytest.raises(InvalidParameterError):
        F.fractional_max_pool2d(ember.ones(1, 1, 5, 5), 2)
    with pytest.raises(ShapeMismatchError):
        F.fractional_max_pool2d(ember.ones(1, 1, 5, 5), 2, output_size=5)
    with pytest.raises(InvalidParameterError):
        F.fractional_max_pool2d(ember.ones(1, 1, 5, 5), 2, output_ratio=(1.5, 0.5))
    with pytest.raises(ShapeMismatchError):
        F.fractional_max_pool2d(ember.ones(1, 1, 5, 5), 2, output_size=2,
                                _random_samples=ember.zeros(1, 1, 3))
