"""Tests of ember.torch.nn.init's dirac_, sparse_ and the deprecated spellings eye, dirac,
sparse against torch.nn.init: dirac_ values (deterministic), sparse_'s zeros per column and the
spread of its nonzeros, reproducibility with ember's generator, bad input."""

import math

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.torch.nn import init

DTYPES = [("float32", et.float32, torch.float32), ("float64", et.float64, torch.float64),
          ("int64", et.int64, torch.int64)]


@pytest.mark.parametrize("shape,groups", [((2, 2, 3), 1), ((4, 6, 3), 1), ((6, 4, 3, 3), 2),
                                          ((3, 5, 2, 4), 3), ((4, 2, 3, 3, 3), 1),
                                          ((6, 3, 1, 2, 3), 2), ((0, 3, 3), 1)])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d[0])
def test_dirac_matches_torch(shape, groups, dtype):
    _, ed, td = dtype
    w = et.full(shape, 7, dtype=ed)
    tw = torch.full(shape, 7, dtype=td)
    assert init.dirac_(w, groups) is w
    torch.nn.init.dirac_(tw, groups)
    assert w.dtype == ed and tuple(w.shape) == shape
    np.testing.assert_array_equal(w.numpy(), tw.numpy())


def test_dirac_keeps_the_parameter_and_convolution_keeps_its_input():
    conv = et.nn.Conv2d(3, 3, 3, padding=1, bias=False)
    w = conv.weight
    init.dirac_(conv.weight)
    assert conv.weight is w and w.requires_grad
    x = et.randn(2, 3, 5, 5)
    np.testing.assert_allclose(conv(x).detach().numpy(), x.numpy(), atol=1e-6)


@pytest.mark.parametrize("shape", [(2, 3), (4, 4), (5, 2), (0, 3)])
def test_eye_alias_matches_torch(shape):
    w = et.zeros(*shape)
    tw = torch.zeros(*shape)
    assert init.eye(w) is w
    torch.nn.init.eye_(tw)
    np.testing.assert_array_equal(w.numpy(), tw.numpy())


def test_deprecated_names_are_the_functions():
    assert init.eye is init.eye_ and init.dirac is init.dirac_ and init.sparse is init.sparse_
    w, tw = et.empty(2, 2, 1), torch.empty(2, 2, 1)
    np.testing.assert_array_equal(init.dirac(w).numpy(), torch.nn.init.dirac_(tw).numpy())


@pytest.mark.parametrize("shape,sparsity", [((10, 4), 0.35), ((7, 3), 0.0), ((7, 3), 1.0),
                                            ((5, 6), 0.5), ((1, 3), 0.9), ((0, 3), 0.5),
                                            ((4, 0), 0.5)])
def test_sparse_zeros_per_column_match_torch(shape, sparsity):
    ember.manual_seed(0)
    w = et.empty(*shape)
    tw = torch.empty(*shape)
    assert init.sparse_(w, sparsity) is w
    torch.nn.init.sparse_(tw, sparsity)
    assert tuple(w.shape) == shape and w.dtype == et.float32
    np.testing.assert_array_equal((w == 0).sum(0).numpy(), (tw == 0).sum(0).numpy())


@pytest.mark.parametrize("std", [0.01, 0.5, 2.0])
@pytest.mark.parametrize("dtype", DTYPES[:2], ids=lambda d: d[0])
def test_sparse_nonzeros_spread_like_torch(std, dtype):
    _, ed, td = dtype
    ember.manual_seed(1)
    torch.manual_seed(1)
    w = init.sparse_(et.empty(400, 300, dtype=ed), 0.25, std=std)
    tw = torch.nn.init.sparse_(torch.empty(400, 300, dtype=td), 0.25, std=std)
    assert w.dtype == ed
    a, ta = w.numpy(), tw.numpy()
    nz, tnz = a[a != 0], ta[ta != 0]
    assert nz.size == tnz.size
    assert abs(nz.std() - tnz.std()) < 0.02 * tnz.std()
    assert abs(nz.mean() - tnz.mean()) < 0.02 * tnz.std()
    # the zeros of each column fall at random rows: every row is zeroed somewhere
    assert (a == 0).any(1).all()


def test_sparse_reproduces_with_seed_and_generator():
    ember.manual_seed(3)
    a = init.sparse_(et.empty(8, 5), 0.5).numpy()
    ember.manual_seed(3)
    b = init.sparse_(et.empty(8, 5), 0.5).numpy()
    np.testing.assert_array_equal(a, b)
    c = init.sparse_(et.empty(8, 5), 0.5, generator=et.Generator().manual_seed(4)).numpy()
    d = init.sparse_(et.empty(8, 5), 0.5, generator=et.Generator().manual_seed(4)).numpy()
    np.testing.assert_array_equal(c, d)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("call,err", [
    (lambda: init.dirac_(et.empty(2, 2)), ValueError),
    (lambda: init.dirac_(et.empty(2, 2, 2, 2, 2, 2)), ValueError),
    (lambda: init.dirac_(et.empty(3, 2, 2), 2), ValueError),
    (lambda: init.dirac_(et.empty(3, 2, 2), 0), ValueError),
    (lambda: init.dirac_([1.0]), TypeError),
    (lambda: init.sparse_(et.empty(2, 2, 2), 0.5), ValueError),
    (lambda: init.sparse_(et.empty(2), 0.5), ValueError),
    (lambda: init.sparse_(et.empty(2, 2), "a"), ValueError),
    (lambda: init.sparse_(et.empty(2, 2), 0.5, std=math.nan), ValueError),
])
def test_bad_input_raises_typed_errors(call, err):
    with pytest.raises(err) as info:
        call()
    assert isinstance(info.value, ember.errors.EmberError)


def test_torch_raises_the_same_kinds():
    with pytest.raises(ValueError):
        torch.nn.init.dirac_(torch.empty(2, 2))
    with pytest.raises(ValueError):
        torch.nn.init.dirac_(torch.empty(3, 2, 2), 2)
    with pytest.raises(ValueError):
        torch.nn.init.sparse_(torch.empty(2, 2, 2), 0.5)
