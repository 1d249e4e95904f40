"""ember.torch's window functions against PyTorch: values, dtypes and lengths, periodic and
symmetric."""

import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError
from math_oracle import check

NAMES = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", [0, 1, 2, 5, 16, 33])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name, n, periodic):
    check(lambda m: getattr(m, name)(n, periodic), atol=1e-6)
    check(lambda m: getattr(m, name)(n, periodic=periodic, dtype=m.float64), atol=1e-12)


@pytest.mark.half_precision
def test_window_parameters():
    for beta in (0.0, 2.5, 12.0, 40.0):
        check(lambda m: m.kaiser_window(21, False, beta), atol=1e-6)
        check(lambda m: m.kaiser_window(20, True, beta, dtype=m.float64), atol=1e-12)
    check(lambda m: m.hamming_window(9, True, 0.5, 0.5))
    check(lambda m: m.hamming_window(9, False, 0.6, 0.3, dtype=m.float64))
    w = et.hann_window(4, requires_grad=True)
    assert w.requires_grad and w.dtype == et.float32
    assert et.hann_window(8, dtype=et.float16).dtype == et.float16


def test_window_errors():
    with pytest.raises(InvalidParameterError):
        et.hann_window(-1)
    with pytest.raises(KindError):
        et.hann_window(4, dtype=et.int64)
    with pytest.raises(InvalidParameterError):
        et.kaiser_window(4, beta=-1.0)
    with pytest.raises(InvalidParameterError):
        et.bartlett_window(4, periodic=1)
    assert torch.hann_window(0).shape == et.hann_window(0).shape
