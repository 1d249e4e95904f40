"""ember.array_api.linalg against numpy.linalg (NumPy's namespace conforms)."""

import math

import numpy as np
import pytest

import ember
import ember.array_api as xp


def _check(actual, expected):
    expected = np.asarray(expected)
    assert actual.shape == expected.shape and actual.dtype.name == expected.dtype.name
    np.testing.assert_allclose(actual.numpy(), expected, rtol=1e-10, atol=1e-12)


def test_products_match_numpy():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 5))
    _check(xp.linalg.matmul(ember.tensor(a), ember.tensor(b)), np.matmul(a, b))
    _check(xp.linalg.tensordot(ember.tensor(a), ember.tensor(b), axes=1),
           np.tensordot(a, b, axes=1))
    _check(xp.tensordot(ember.tensor(a), ember.tensor(a), axes=([0, 2], [0, 2])),
           np.tensordot(a, a, axes=([0, 2], [0, 2])))
    c = rng.standard_normal((3, 4))
    _check(xp.linalg.vecdot(ember.tensor(a), ember.tensor(c)), np.linalg.vecdot(a, c))
    _check(xp.vecdot(ember.tensor(a), ember.tensor(a), axis=0), np.vecdot(a, a, axis=0))
    u = np.arange(6, dtype=np.uint8).reshape(2, 3)
    _check(xp.vecdot(ember.tensor(u), ember.tensor(u)), np.vecdot(u, u))
    v, w = rng.standard_normal((4, 3)), rng.standard_normal(3)
    _check(xp.linalg.cross(ember.tensor(v), ember.tensor(w)), np.linalg.cross(v, w))
    _check(xp.linalg.outer(ember.tensor(w), ember.tensor(c[0])), np.linalg.outer(w, c[0]))
    _check(xp.linalg.matrix_transpose(ember.tensor(a)), np.linalg.matrix_transpose(a))


@pytest.mark.parametrize("offset", [-2, -1, 0, 1, 3])
def test_diagonal_and_trace_match_numpy(offset):
    a = np.random.default_rng(1).standard_normal((2, 3, 4))
    _check(xp.linalg.diagonal(ember.tensor(a), offset=offset),
           np.linalg.diagonal(a, offset=offset))
    _check(xp.linalg.trace(ember.tensor(a), offset=offset), np.linalg.trace(a, offset=offset))


@pytest.mark.parametrize("ord", [1, 2, 3, 0.5, 0, math.inf, -math.inf])
def test_vector_norm_matches_numpy(ord):
    a = np.random.default_rng(2).standard_normal((3, 4))
    for axis in (None, 0, (0, 1)):
        for kd in (False, True):
            _check(xp.linalg.vector_norm(ember.tensor(a), axis=axis, keepdims=kd, ord=ord),
                   np.linalg.vector_norm(a, axis=axis, keepdims=kd, ord=ord))


@pytest.mark.parametrize("ord", ["fro", 1, -1, math.inf, -math.inf])
def test_matrix_norm_matches_numpy(ord):
    a = np.random.default_rng(3).standard_normal((2, 3, 4))
    for kd in (False, True):
        _check(xp.linalg.matrix_norm(ember.tensor(a), ord=ord, keepdims=kd),
               np.linalg.matrix_norm(a, ord=ord, keepdims=kd))


def test_matrix_power_matches_numpy():
    a = np.random.default_rng(4).standard_normal((2, 3, 3))
    for n in (0, 1, 2, 5):
        _check(xp.linalg.matrix_power(ember.tensor(a), n), np.linalg.matrix_power(a, n))


def test_factorizations_and_norms_match_numpy():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    t = ember.tensor(a)
    _check(xp.linalg.det(t), np.linalg.det(a))
    _check(xp.linalg.inv(t), np.linalg.inv(a))
    _check(xp.linalg.svdvals(t), np.linalg.svd(a, compute_uv=False))
    _check(xp.linalg.matrix_power(t, -2), np.linalg.matrix_power(a, -2))
    for ord in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        _check(xp.linalg.matrix_norm(t, ord=ord), np.linalg.norm(a, ord=ord, axis=(-2, -1)))
    assert hasattr(xp.linalg, "pinv")
