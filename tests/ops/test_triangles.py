"""Tests of ember/ops/triangles.py: triu_mask, tril_mask, diag_mask, triu and tril (the spec's
examples of them are in test_creation.py's TestSpecExamples)."""

import numpy as np
import pytest
import torch

import ember
from ember import InvalidParameterError, Tensor
from oracle import assert_close, assert_unchanged, ember_tensor, layouts, random_array, to_torch


# -- masks --------------------------------------------------------------------------------------

MASK_SHAPES = [(3, 3), (2, 5), (5, 2), (0, 3), (2, 3, 4), (2, 1, 3, 3), (1, 1)]


@pytest.mark.parametrize("shape", MASK_SHAPES)
@pytest.mark.parametrize("offset", [-6, -1, 0, 1, 2, 6])
def test_masks_vs_torch(shape, offset):
    ones = torch.ones(shape, dtype=torch.bool)
    assert_close(ember.triu_mask(shape, offset), ~torch.triu(ones, offset))
    assert_close(ember.tril_mask(shape, offset), ~torch.tril(ones, offset))
    diag = torch.triu(ones, offset) & torch.tril(ones, offset)
    assert_close(ember.diag_mask(shape, offset), ~diag)


def test_mask_default_offset_and_static():
    assert ember.triu_mask((2, 2)).tolist() == [[False, False], [True, False]]
    assert Tensor.diag_mask([2, 2], 1).tolist() == [[True, False], [True, True]]



# -- triu / tril --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "int32", "bool", "bfloat16"])
@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (0, 4), (2, 0), (2, 1, 3, 4)])
def test_triu_tril_vs_torch(rng, dtype, shape):
    for _, arr in layouts(np.asarray(random_array(rng, shape, dtype))):
        t = ember_tensor(arr, dtype if dtype == "bfloat16" else None)
        before = t.numpy().copy()
        tt = to_torch(t)
        for k in (-2, 0, 1, 5):
            assert_close(t.triu(k), torch.triu(tt, k))
            assert_close(ember.tril(t, k), torch.tril(tt, k))
        assert_close(t.triu(), torch.triu(tt))
        assert_close(t.tril(), torch.tril(tt))
        assert_unchanged([t], [before])


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 3), (3, 0)])
@pytest.mark.parametrize("k", [-1, 0, 2])
def test_triu_tril_grad_vs_torch(rng, shape, k):
    for _, arr in layouts(rng.standard_normal(shape)):
        for name in ("triu", "tril"):
            x = ember_tensor(arr, requires_grad=True)
            seed = rng.standard_normal(shape)
            getattr(x, name)(k).backward(ember.tensor(seed))
            xt = torch.tensor(arr.copy(), requires_grad=True)
            getattr(torch, name)(xt, k).backward(torch.tensor(seed))
            assert_close(x.grad, xt.grad)


def test_triu_finite_difference(rng):
    x0 = rng.standard_normal((3, 4))
    seed = rng.standard_normal((3, 4))
    x = ember.tensor(x0, requires_grad=True)
    x.triu(1).backward(ember.tensor(seed))
    eps = 1e-6
    num = np.zeros_like(x0)
    for i in range(3):
        for j in range(4):
            d = np.zeros_like(x0)
            d[i, j] = eps
            f1 = (ember.tensor(x0 + d).triu(1).numpy() * seed).sum()
            f0 = (ember.tensor(x0 - d).triu(1).numpy() * seed).sum()
            num[i, j] = (f1 - f0) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, atol=1e-6)


def test_triu_int_has_no_gradient():
    assert not ember.tensor([[1, 2], [3, 4]]).triu().is_tracked()


@pytest.mark.parametrize("offset", [2**70, -2**70, 2**63, -(2**63) - 1])
def test_masks_take_offsets_past_int64(offset):
    # every element is on one side of a diagonal this far off: the masks are all True or all
    # False, as on a diagonal just past the matrix
    near = 7 if offset > 0 else -7
    for mask in (ember.triu_mask, ember.tril_mask, ember.diag_mask):
        assert mask((3, 4), offset).tolist() == mask((3, 4), near).tolist()
    assert ember.triu_mask((3, 4), offset).tolist() == [[offset > 0] * 4] * 3


# -- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [ember.triu_mask, ember.tril_mask, ember.diag_mask])
def test_mask_bad_inputs(fn):
    name = fn.__name__
    with pytest.raises(InvalidParameterError, match=rf"{name}: shape \(3,\) has rank 1; expected a rank >= 2"):
        fn((3,), 0)
    with pytest.raises(InvalidParameterError, match=rf"{name}: shape \(\) has rank 0"):
        fn((), 0)
    with pytest.raises(InvalidParameterError, match=rf"{name}: offset must be an int, got float 0.5"):
        fn((3, 3), 0.5)
    with pytest.raises(InvalidParameterError, match=rf"{name}: shape \(3, -3\) has a negative size"):
        fn((3, -3), 0)


@pytest.mark.parametrize("name", ["triu", "tril"])
def test_triu_tril_bad_inputs(name):
    v = ember.tensor([1.0, 2.0, 3.0])
    m = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    before_v, before_m = v.numpy().copy(), m.numpy().copy()
    with pytest.raises(InvalidParameterError, match=rf"{name}: self has shape \(3,\) \(rank 1\); expected a tensor of rank >= 2"):
        getattr(v, name)()
    with pytest.raises(InvalidParameterError, match=rf"{name}: self has shape \(\) \(rank 0\)"):
        getattr(ember.tensor(1.0), name)()
    with pytest.raises(InvalidParameterError, match=rf"{name}: diagonal must be an int, got float 1.0"):
        getattr(m, name)(1.0)
    with pytest.raises(InvalidParameterError, match=rf"{name}: diagonal must be an int, got bool True"):
        getattr(m, name)(True)
    with pytest.raises(InvalidParameterError, match=rf"{name}: self must be a Tensor, got list"):
        getattr(ember, name)([[1, 2], [3, 4]])
    assert_unchanged([v, m], [before_v, before_m])


@pytest.mark.parametrize("offset", [2 ** 63, 2 ** 70, -2 ** 63 - 1, -2 ** 70, 10 ** 30])
def test_offsets_past_int64_keep_what_the_matrix_edge_keeps(offset):
    x = ember.tensor([[1, 2, 3], [4, 5, 6]])
    edge = 3 if offset > 0 else -3
    for name in ("tril", "triu"):
        assert getattr(x, name)(offset).tolist() == getattr(x, name)(edge).tolist()
        assert getattr(x.cast("bool"), name)(offset).tolist() == \
            getattr(x.cast("bool"), name)(edge).tolist()
    for name in ("tril_mask", "triu_mask", "diag_mask"):
        got = getattr(ember.Tensor, name)((2, 3), offset).tolist()
        assert got == getattr(ember.Tensor, name)((2, 3), edge).tolist()
    assert x.tril(offset).tolist() == ([[1, 2, 3], [4, 5, 6]] if offset > 0 else [[0] * 3] * 2)
