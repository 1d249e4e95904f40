"""Tests of ember/ops/advanced_indexing.py: ``t[key]`` and ``t[key] = value`` (advanced_getitem,
advanced_setitem) against PyTorch, with gradients. Bad keys are in test_indexing.py."""

import numpy as np
import pytest
import torch

import ember
from ember.ops.advanced_indexing import advanced_getitem, advanced_setitem
from oracle import assert_close, assert_unchanged, ember_tensor, layouts, snapshot
from test_indexing import grads_vs_finite_differences, grads_vs_torch, random_array, tt



# -- advanced indexing -----------------------------------------------------------------------------
def I(*values):  # noqa: E743 - an int index array
    return np.array(values, dtype=np.int64)


MASK_23 = np.array([[True, False, True], [False, True, True]])
MASK_34 = np.zeros((3, 4), dtype=bool)
MASK_34[[0, 2, 2], [1, 0, 3]] = True
MASK_4 = np.array([False, True, False, True])

# keys for a (2, 3, 4, 5) tensor; arrays are turned into ember tensors, lists or ndarrays
GET_KEYS = [
    (0,), (-1, slice(None), 2), (I(1, 0, 1),), (I(0, 1).reshape(2, 1) * I(1, 1),),
    (slice(None), I(2, -1, 0)), (0, slice(None), I(0, 1)), (I(0, 1), slice(None), I(1, 2)),
    (slice(None), I(0, 2).reshape(2, 1), I(1, 3)), (Ellipsis, I(4, 0)),
    (None, I(1, 0), None, slice(1, 3)), (MASK_23,), (slice(None), MASK_34),
    (I(0, 1), slice(None), MASK_4), (slice(None, None, 2), I(1, 1, 1)), (True,), (False, 0),
    (np.array(1),), (I(),), (slice(None), I(0, 2), slice(None), I(1, 0)), (Ellipsis, None),
    (1, I(0, 2), slice(None), 3), (np.zeros(2, dtype=bool),), (slice(-3, None), Ellipsis, -2),
    (I(0, 1), I(2, 1), I(3, 0), I(4, 4)), (slice(1, 2), I(0, 0, 2), slice(None, 3), 1),
    (Ellipsis, MASK_4, slice(None)), (0, 1, 2, 3), (),
]


def _convert(key, form):
    out = []
    for k in key:
        if isinstance(k, np.ndarray):
            if form == "tensor":
                k = ember.tensor(k)
            elif form == "list" and k.ndim:
                k = k.tolist()
        out.append(k)
    return tuple(out)


def _torch_key(key):
    return tuple(tt(k) if isinstance(k, np.ndarray) else k for k in key)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
@pytest.mark.parametrize("key", GET_KEYS, ids=[str(i) for i in range(len(GET_KEYS))])
def test_getitem_matches_torch(rng, key, dtype):
    x = random_array(rng, (2, 3, 4, 5), dtype)
    expected = tt(x)[_torch_key(key)]
    for _, a in layouts(x):
        t = ember_tensor(a)
        for form in ("tensor", "list", "array"):
            if form == "list" and any(isinstance(k, np.ndarray) and k.ndim and k.size == 0
                                      for k in key):
                continue
            assert_close(advanced_getitem(t, _convert(key, form)), expected)


def test_getitem_single_entries_and_negative_steps(rng):
    x = random_array(rng, (4, 3), "float32")
    t = ember.from_numpy(x)
    assert_close(advanced_getitem(t, [3, 0]), x[[3, 0]])
    assert_close(advanced_getitem(t, ember.tensor([[0], [2]])), x[np.array([[0], [2]])])
    assert_close(advanced_getitem(t, 2), x[2])
    assert_close(advanced_getitem(t, (slice(None, None, -1), I(2, 0))), x[::-1, [2, 0]])
    assert_close(advanced_getitem(t, (slice(3, 0, -2), Ellipsis)), x[3:0:-2])
    assert_close(advanced_getitem(t, (slice(ember.tensor(1), None),)), x[1:])
    assert_close(advanced_getitem(ember.tensor(5.0), ()), np.float32(5.0) * np.ones(()))
    assert_close(advanced_getitem(ember.tensor(5.0), None), np.array([5.0]))
    assert_close(advanced_getitem(ember.tensor(5.0), ember.tensor(True)), np.array([5.0]))


@pytest.mark.numpy_only
def test_basic_getitem_is_a_view():
    x = np.arange(24.0).reshape(2, 3, 4)
    t = ember.from_numpy(x)
    v = advanced_getitem(t, (0, slice(1, 3), None, slice(None, None, 2)))
    assert v.shape == (2, 1, 2)
    assert np.shares_memory(np.asarray(v.numpy()), x)
    w = advanced_getitem(t, (0, I(1, 2)))
    assert not np.shares_memory(np.asarray(w.numpy()), x)


GRAD_KEYS = [k for k in GET_KEYS if not (len(k) == 1 and isinstance(k[0], bool))]


@pytest.mark.parametrize("key", GRAD_KEYS, ids=[str(i) for i in range(len(GRAD_KEYS))])
def test_getitem_grads_match_torch(rng, key):
    x = rng.standard_normal((2, 3, 4, 5))
    grads_vs_torch(rng, lambda a: advanced_getitem(a, _convert(key, "tensor")),
                   lambda a: a[_torch_key(key)], [x])


def test_getitem_finite_differences(rng):
    x = rng.standard_normal((3, 4))
    for key in [(I(0, 0, 2), slice(1, 3)), (I(1, 2), I(3, 3)), (x > 0,)]:
        grads_vs_finite_differences(rng, lambda a: advanced_getitem(a, key), [x])


SET_KEYS = [k for k in GET_KEYS if not (len(k) == 2 and isinstance(k[1], np.ndarray)
                                        and k[1].tolist() == [1, 1, 1])
            and not (len(k) == 1 and isinstance(k[0], np.ndarray) and k[0].tolist() == [1, 0, 1])
            and not (len(k) == 4 and isinstance(k[1], np.ndarray) and k[1].tolist() == [0, 0, 2])
            and not (len(k) == 1 and isinstance(k[0], np.ndarray) and k[0].shape == (2, 2))]


@pytest.mark.parametrize("key", SET_KEYS, ids=[str(i) for i in range(len(SET_KEYS))])
def test_setitem_matches_torch(rng, key):
    x = random_array(rng, (2, 3, 4, 5), "float32")
    target = tuple(tt(x)[_torch_key(key)].shape)
    values = [2.5, random_array(rng, target, "float32"),
              random_array(rng, target[-1:], "float32") if target else np.array(1.0, np.float32),
              random_array(rng, (1, 1) + target, "float32"),
              random_array(rng, target, "int32")]
    for v in values:
        expected = tt(x)
        expected[_torch_key(key)] = tt(v.astype(x.dtype)) if isinstance(v, np.ndarray) else v
        for _, a in layouts(x):
            t = ember_tensor(a)
            before = snapshot(t)
            ev = ember.tensor(v) if isinstance(v, np.ndarray) else v
            got = advanced_setitem(t, _convert(key, "tensor"), ev)
            assert_close(got, expected)
            assert_unchanged([t], before)


@pytest.mark.parametrize("key", SET_KEYS, ids=[str(i) for i in range(len(SET_KEYS))])
def test_setitem_grads_match_torch(rng, key):
    x = rng.standard_normal((2, 3, 4, 5))
    target = tuple(torch.zeros(2, 3, 4, 5)[_torch_key(key)].shape)
    for vshape in {target, target[-1:], (1,) + target}:
        v = rng.standard_normal(vshape)

        def torch_fn(a, b):
            c = a.clone()
            c[_torch_key(key)] = b
            return c

        grads_vs_torch(rng, lambda a, b: advanced_setitem(a, _convert(key, "tensor"), b),
                       torch_fn, [x, v])


def test_setitem_dtypes_and_lists():
    t = ember.tensor([[1, 2], [3, 4]])
    out = advanced_setitem(t, (slice(None), 0), [7.9, -1.2])
    assert out.dtype == ember.int64 and out.tolist() == [[7, 2], [-1, 4]]
    b = ember.tensor([True, False, True])
    assert advanced_setitem(b, b, False).tolist() == [False, False, False]
    f = ember.tensor([1.0, 2.0, 3.0])
    assert advanced_setitem(f, ember.tensor([0, 2]), ember.tensor([5, 6])).tolist() == [5.0, 2.0, 6.0]
    assert t.tolist() == [[1, 2], [3, 4]]


def test_setitem_int_value_into_float_carries_no_value_grad():
    x = ember.tensor([1.0, 2.0, 3.0]).require_grad()
    out = advanced_setitem(x, slice(0, 2), ember.tensor([5, 6]))
    out.backward(ember.tensor([1.0, 1.0, 1.0]))
    assert x.grad.tolist() == [0.0, 0.0, 1.0]
