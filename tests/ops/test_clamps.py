"""Tests of ember/ops/clamps.py: clamps and pairwise extrema against PyTorch, NaN, gradients and
the spec's printed examples."""

import numpy as np
import pytest
import torch

import ember
from oracle import assert_close, to_torch
from test_elementwise import E, FLOATS, INTS, NAN, T1, T2, check_grads, data, tol


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_clamp_matches_torch(dtype):
    a = data((4, 5), dtype, -10, 10, special=True)
    t = E(a, dtype)
    tt = to_torch(t)
    for lo, hi in [(-1, 2), (None, 1), (0, None), (3, -3), (2, 2)]:
        assert_close(t.clamp(lo, hi), torch.clamp(tt, lo, hi), **tol(dtype), equal_nan=True)
    assert_close(t.clamp_min(1), torch.clamp_min(tt, 1), **tol(dtype), equal_nan=True)
    assert_close(t.clamp_max(1), torch.clamp_max(tt, 1), **tol(dtype), equal_nan=True)
    assert_close(t.clamp(min=-0.5), torch.clamp(tt, min=-0.5), **tol(dtype), equal_nan=True)
    lo = data((5,), dtype, -3, 1)
    hi = data((4, 1), dtype, 1, 10)
    assert_close(t.clamp(E(lo, dtype), E(hi, dtype)),
                 torch.clamp(tt, to_torch(E(lo, dtype)), to_torch(E(hi, dtype))),
                 **tol(dtype), equal_nan=True)


def test_clamp_nan_bound_and_nan_input():
    t = E(np.array([1.0, NAN, 3.0]))
    assert np.isnan(t.clamp(NAN, 2.0).numpy()).all()
    out = t.clamp(2.0, 2.5).numpy()
    assert out[0] == 2.0 and np.isnan(out[1]) and out[2] == 2.5


def test_max_min_pair_nan_propagates():
    a = E(np.array([1.0, NAN, 2.0]))
    b = E(np.array([NAN, 1.0, 2.0]))
    assert_close(a.max_pair(b), torch.maximum(to_torch(a), to_torch(b)), equal_nan=True)
    assert_close(a.min_pair(b), torch.minimum(to_torch(a), to_torch(b)), equal_nan=True)


def test_spec_examples_pairs_and_clamps():
    a, b = ember.tensor(T1), ember.tensor(T2)
    assert a.max_pair(b).tolist() == [[2.0, 3.0, 4.0], [5.0, 9.0, 6.0]]
    assert a.min_pair(b).tolist() == [[1.0, -2.0, 3.0], [1.0, 2.0, 3.0]]
    i = ember.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert i.clamp(2, 6).tolist() == [[2, 2, 3], [4, 5, 6], [6, 6, 6]]
    assert i.clamp_min(4).tolist() == [[4, 4, 4], [4, 5, 6], [7, 8, 9]]
    assert i.clamp_max(5).tolist() == [[1, 2, 3], [4, 5, 5], [5, 5, 5]]
    assert i.clamp(2, 6).dtype is ember.int64


def test_clamp_gradient_with_both_tensor_bounds_matches_torch():
    x = np.array([-2.0, -1.0, 0.0, 1.0, 2.0, 0.5, 3.0])
    lo = np.array([-1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 2.0])
    hi = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 2.0])
    check_grads(lambda a, b, c: a.clamp(b, c), torch.clamp, [x, lo, hi])
