"""Tests of ember/ops/masking.py against PyTorch: mask_where, mask_fill, masked_fill, mask_select,
where, nonzero and argwhere, with gradients. The spec's examples and bad input are in
test_indexing.py."""

import numpy as np
import pytest
import torch

import ember
from oracle import SHAPES, assert_close, ember_tensor, layouts
from test_indexing import grads_vs_finite_differences, grads_vs_torch, random_array, tt



# -- masks and where -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
@pytest.mark.parametrize("shape", SHAPES)
def test_masks_match_torch(rng, shape, dtype):
    x = random_array(rng, shape, dtype)
    mask = np.asarray(rng.random(shape) < 0.5)
    value = random_array(rng, shape, dtype)
    fill = {"float32": -1.5, "int64": 7, "bool": True, "float16": 2.0}[dtype]
    for _, a in layouts(x):
        t = ember_tensor(a)
        for _, m in layouts(mask):
            mt = ember_tensor(m)
            assert_close(t.mask_where(mt, ember.tensor(value)), torch.where(tt(mask), tt(value), tt(x)))
            assert_close(t.mask_fill(mt, fill), tt(x).masked_fill(tt(mask), fill))
            assert_close(t.mask_select(mt), torch.masked_select(tt(x), tt(mask)))


def test_mask_where_value_broadcasts_and_fill_tensor():
    t = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    m = ember.tensor([[True, False], [False, True]])
    assert t.mask_where(m, ember.tensor([9.0, 8.0])).tolist() == [[9.0, 2.0], [3.0, 8.0]]
    assert t.mask_fill(m, ember.tensor(0.5)).tolist() == [[0.5, 2.0], [3.0, 0.5]]
    assert ember.tensor([1, 2]).mask_fill(ember.tensor([True, False]), 2.5).tolist() == [2, 2]


@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 0, 3)])
def test_mask_grads(rng, shape):
    x = rng.standard_normal(shape)
    v = rng.standard_normal(shape)
    mask = np.asarray(rng.random(shape) < 0.5)
    grads_vs_torch(rng, lambda a, b: a.mask_where(ember.tensor(mask), b),
                   lambda a, b: torch.where(tt(mask), b, a), [x, v])
    grads_vs_torch(rng, lambda a: a.mask_fill(ember.tensor(mask), 3.0),
                   lambda a: a.masked_fill(tt(mask), 3.0), [x])
    grads_vs_torch(rng, lambda a, s: a.mask_fill(ember.tensor(mask), s),
                   lambda a, s: a.masked_fill(tt(mask), s), [x, np.array(0.25)])
    grads_vs_torch(rng, lambda a: a.mask_select(ember.tensor(mask)),
                   lambda a: torch.masked_select(a, tt(mask)), [x])
    if len(shape) == 2:
        row = rng.standard_normal(shape[1:])
        grads_vs_torch(rng, lambda a, b: a.mask_where(ember.tensor(mask), b),
                       lambda a, b: torch.where(tt(mask), b, a), [x, row])


# mask, self and value shapes that broadcast; the result has their broadcast shape
MASK_BROADCASTS = [((2, 3), (3,), (2, 3)), ((2, 3), (1, 3), (3,)), ((2, 3), (2, 1), ()),
                   ((4, 2, 3), (2, 3), (1, 3)), ((2, 3), (), (2, 1)), ((1, 2, 2), (4, 2, 2), (4, 2, 2)),
                   ((0, 3), (3,), (1,)), ((), (2, 2), ())]


@pytest.mark.parametrize("shape, mshape, vshape", MASK_BROADCASTS)
def test_mask_where_broadcasts_like_torch(rng, shape, mshape, vshape):
    x = rng.standard_normal(shape)
    v = rng.standard_normal(vshape)
    mask = np.asarray(rng.random(mshape) < 0.5)
    for _, a in layouts(x):
        got = ember_tensor(a).mask_where(ember.tensor(mask), ember.tensor(v))
        assert_close(got, torch.where(tt(mask), tt(v), tt(x)))
    grads_vs_torch(rng, lambda a, b: a.mask_where(ember.tensor(mask), b),
                   lambda a, b: torch.where(tt(mask), b, a), [x, v])


@pytest.mark.parametrize("shape, mshape, _", MASK_BROADCASTS)
def test_mask_fill_and_masked_fill_broadcast_like_torch(rng, shape, mshape, _):
    x = rng.standard_normal(shape)
    mask = np.asarray(rng.random(mshape) < 0.5)
    for _, a in layouts(x):
        t = ember_tensor(a)
        for fill in (2.5, ember.tensor(-1.0), ember.tensor(3.0, dtype="float32")):
            want = tt(x).masked_fill(tt(mask), tt(fill.numpy()) if isinstance(fill, ember.Tensor)
                                     else fill)
            assert_close(t.mask_fill(ember.tensor(mask), fill), want)
            assert_close(t.masked_fill(ember.tensor(mask), fill), want)
            assert_close(ember.masked_fill(t, ember.tensor(mask), fill), want)
    for name in ("mask_fill", "masked_fill"):
        grads_vs_torch(rng, lambda a: getattr(a, name)(ember.tensor(mask), 3.0),
                       lambda a: a.masked_fill(tt(mask), 3.0), [x])
        grads_vs_torch(rng, lambda a, s: getattr(a, name)(ember.tensor(mask), s),
                       lambda a, s: a.masked_fill(tt(mask), s), [x, np.array(0.25)])


def test_spec_burn_mask_broadcast_examples():
    # Burn's should_support_mask_where_broadcast(_int) and should_support_mask_fill_broadcasted
    t = ember.arange(2, 6).reshape(1, 2, 2)
    mask = ember.tensor([[[True, False], [False, True]], [[False, True], [True, False]],
                         [[False, False], [False, False]], [[True, True], [True, True]]])
    expected = [[[1, 3], [4, 1]], [[2, 1], [1, 5]], [[2, 3], [4, 5]], [[1, 1], [1, 1]]]
    assert t.mask_where(mask, ember.ones(4, 2, 2, dtype="int64")).tolist() == expected
    assert t.float().mask_where(mask, ember.ones(4, 2, 2)).tolist() == expected
    small = ember.arange(2, 4).float().mask_where(ember.tensor([True, False]), ember.ones(1))
    assert small.tolist() == [1.0, 3.0]
    out = ember.zeros(1, 4, 2, 2).mask_fill(ember.tensor([[[[True, False], [False, True]]]]), 2.0)
    assert out.tolist() == [[[[2.0, 0.0], [0.0, 2.0]]] * 4]


@pytest.mark.parametrize("dtype, value", [("int64", 2.7), ("int32", -3), ("bool", 0.5),
                                          ("uint8", True), ("float16", 1e-3), ("float32", 7)])
def test_masked_fill_converts_the_value_like_torch(dtype, value):
    x = np.array([[1, 2, 3], [4, 5, 6]]).astype(dtype)
    mask = np.array([True, False, True])
    t = ember.tensor(x)
    want = tt(x).masked_fill(tt(mask), value)
    assert_close(t.masked_fill(ember.tensor(mask), value), want)
    # a 0-d tensor of another kind converts as a number, as torch's does
    for vdtype in ("float64", "int64", "bool"):
        v = np.array(value).astype(vdtype)
        assert_close(t.masked_fill(ember.tensor(mask), ember.tensor(v)),
                     tt(x).masked_fill(tt(mask), tt(v)))


def test_masked_fill_value_tensor_gets_gradient_in_its_dtype(rng):
    x = rng.standard_normal((3, 4))
    mask = np.asarray(rng.random((4,)) < 0.5)
    mask[0] = True
    t = ember.tensor(x, dtype="float32").require_grad()
    v = ember.tensor(0.5, dtype="float64").require_grad()
    out = t.masked_fill(ember.tensor(mask), v)
    seed = rng.standard_normal((3, 4))
    out.backward(ember.tensor(seed, dtype="float32"))
    tx = torch.tensor(x, dtype=torch.float32, requires_grad=True)
    tv = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    tx.masked_fill(tt(mask), tv).backward(torch.tensor(seed, dtype=torch.float32))
    assert out.dtype.name == "float32"
    assert_close(t.grad, tx.grad)
    assert_close(v.grad, tv.grad)
    # an int tensor filled from a float tensor is int and carries no gradient
    w = ember.tensor(2.5).require_grad()
    assert ember.tensor([1, 2]).masked_fill(ember.tensor([True, False]), w).tolist() == [2, 2]


WHERE_SHAPES = [((), (), ()), ((3,), (3,), (3,)), ((2, 3), (3,), (2, 1)), ((2, 1, 3), (4, 1), ()),
                ((0, 3), (1, 3), (3,))]
WHERE_DTYPES = [("float32", "float32"), ("float32", "float64"), ("int32", "float16"),
                ("int64", "int8"), ("uint8", "int8"), ("bool", "bool"), ("bool", "int16")]


@pytest.mark.parametrize("da, db", WHERE_DTYPES)
@pytest.mark.parametrize("sc, sa, sb", WHERE_SHAPES)
def test_where_matches_torch(rng, sc, sa, sb, da, db):
    cond = np.asarray(rng.random(sc) < 0.5)
    a = random_array(rng, sa, da)
    b = random_array(rng, sb, db)
    for _, ca in layouts(a):
        got = ember.where(ember.tensor(cond), ember_tensor(ca), ember.tensor(b))
        assert_close(got, torch.where(tt(cond), tt(a), tt(b)))
        got = ember_tensor(ca).where(ember.tensor(cond), ember.tensor(b))
        assert_close(got, tt(a).where(tt(cond), tt(b)))


def test_where_with_numbers_promotes_like_torch():
    c = np.array([True, False, True])
    a = np.array([1, 2, 3], dtype=np.int32)
    for other in (2.5, -1, True):
        got = ember.where(ember.tensor(c), ember.tensor(a), other)
        assert_close(got, torch.where(tt(c), tt(a), other))
        got = ember.where(ember.tensor(c), other, ember.tensor(a))
        assert_close(got, torch.where(tt(c), other, tt(a)))
    assert [i.tolist() for i in ember.where(ember.tensor([[False, True]]))] == [[0], [1]]


def test_where_grads(rng):
    for sc, sa, sb in [((3,), (3,), (3,)), ((2, 3), (3,), (2, 1)), ((2, 1, 3), (4, 1), ())]:
        cond = np.asarray(rng.random(sc) < 0.5)
        a = rng.standard_normal(sa)
        b = rng.standard_normal(sb)
        grads_vs_torch(rng, lambda x, y: ember.where(ember.tensor(cond), x, y),
                       lambda x, y: torch.where(tt(cond), x, y), [a, b])
        grads_vs_torch(rng, lambda x: x.where(ember.tensor(cond), 1.5),
                       lambda x: x.where(tt(cond), 1.5), [a])
    a32 = ember.tensor([1.0, 2.0]).require_grad()
    b64 = ember.tensor([3.0, 4.0], dtype="float64").require_grad()
    out = ember.where(ember.tensor([True, False]), a32, b64)
    assert out.dtype == ember.float64
    out.backward(ember.tensor([1.0, 1.0], dtype="float64"))
    assert a32.grad.dtype == ember.float32 and a32.grad.tolist() == [1.0, 0.0]
    assert b64.grad.tolist() == [0.0, 1.0]
    grads_vs_finite_differences(rng, lambda x, y: ember.where(ember.tensor([True, False]), x, y),
                                [rng.standard_normal(2), rng.standard_normal(2)])


# -- nonzero / argwhere ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["bool", "float32", "int64"])
@pytest.mark.parametrize("shape", SHAPES)
def test_nonzero_argwhere_match_torch(rng, shape, dtype):
    x = random_array(rng, shape, dtype, low=-1, high=2)
    if dtype == "float32":
        x = np.where(rng.random(shape) < 0.5, 0.0, x).astype(np.float32)
    for _, a in layouts(x):
        t = ember_tensor(a)
        assert_close(t.argwhere(), torch.argwhere(tt(x)))
        got = t.nonzero()
        if shape == ():
            assert got == []
            continue
        expected = torch.nonzero(tt(x), as_tuple=True)
        assert len(got) == len(expected) == len(shape)
        for g, e in zip(got, expected):
            assert_close(g, e)
    empty = ember.tensor(np.zeros(shape, dtype=bool)).nonzero()
    assert len(empty) == len(shape) and all(e.shape == (0,) and e.dtype == ember.int64 for e in empty)
