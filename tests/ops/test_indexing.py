"""Tests of ember/ops/indexing.py against PyTorch (NumPy where PyTorch lacks the op), the spec's
examples, gradients, laws and bad input; and the doctests of docs/indexing.md. The spec's
examples and bad input of masking.py and advanced_indexing.py are here too; their other tests are
in test_masking.py and test_advanced_indexing.py."""

import doctest
import itertools
import os
import traceback

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember.ops.advanced_indexing import advanced_getitem, advanced_setitem
from oracle import assert_close, ember_tensor, layouts, to_torch
from oracle import random_array as _random_array
from oracle import assert_unchanged, snapshot

pytestmark = pytest.mark.filterwarnings("ignore:index_reduce:UserWarning")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UPDATES = ["assign", "add", "mul", "min", "max"]
TORCH_REDUCE = {"mul": "prod", "min": "amin", "max": "amax"}


def random_array(rng, shape, dtype="float32", low=-3, high=3):
    """oracle.random_array, always an ndarray (0-d too)."""
    return np.asarray(_random_array(rng, shape, dtype, low, high))


def tt(arr):
    """A torch tensor of a NumPy array (a copy, any layout)."""
    return torch.from_numpy(np.array(arr, copy=True))


def grads_vs_torch(rng, fn_e, fn_t, arrays, layout_first=True):
    """Run fn on float64 leaves in both libraries, seed backward with the same random tensor and
    compare every leaf's gradient. The first array is also tried in non-contiguous layouts."""
    variants = layouts(arrays[0]) if layout_first and np.ndim(arrays[0]) else [("c", arrays[0])]
    for _, first in variants:
        xs = [ember_tensor(first, requires_grad=True)] + [
            ember.tensor(a).require_grad() for a in arrays[1:]]
        out = fn_e(*xs)
        seed = rng.standard_normal(out.shape)
        out.backward(ember.tensor(seed))
        ts = [torch.tensor(np.array(a), requires_grad=True) for a in [first] + list(arrays[1:])]
        fn_t(*ts).backward(torch.tensor(seed))
        for x, t in zip(xs, ts):
            expected = t.grad if t.grad is not None else torch.zeros_like(t)
            assert x.grad is not None
            assert_close(x.grad, expected)


def minmax_grads_burn(rng, fn_e, out_t, pick_t, x, vals):
    """Gradients of a min/max update against Burn's rule, built from torch's forward: every
    contribution equal to its result (self's element, or a value at ``pick_t`` of the result)
    gets the whole gradient of that result, ties included (torch would split them)."""
    xe, ve = ember.tensor(x).require_grad(), ember.tensor(vals).require_grad()
    out = fn_e(xe, ve)
    seed = rng.standard_normal(out.shape)
    out.backward(ember.tensor(seed))
    tout, ts = out_t(tt(x), tt(vals)), torch.tensor(seed)
    zero = torch.zeros((), dtype=ts.dtype)
    assert_close(xe.grad, torch.where(tt(x) == tout, ts, zero))
    assert_close(ve.grad, torch.where(tt(vals) == pick_t(tout), pick_t(ts), zero))


def grads_vs_finite_differences(rng, fn, arrays, eps=1e-6):
    """Compare ember's gradients of sum(fn(*xs) * seed) with central differences."""
    xs = [ember.tensor(a).require_grad() for a in arrays]
    out = fn(*xs)
    seed = rng.standard_normal(out.shape)
    out.backward(ember.tensor(seed))

    def f(vals):
        return float((np.asarray(fn(*[ember.tensor(v) for v in vals]).numpy()) * seed).sum())

    for k, a in enumerate(arrays):
        num = np.zeros_like(a)
        for i in np.ndindex(a.shape):
            hi = [v.copy() for v in arrays]
            lo = [v.copy() for v in arrays]
            hi[k][i] += eps
            lo[k][i] -= eps
            num[i] = (f(hi) - f(lo)) / (2 * eps)
        np.testing.assert_allclose(xs[k].grad.numpy(), num, atol=1e-5)


def unique_index(rng, self_shape, index_shape, dim):
    """An index of index_shape whose entries are distinct along dim (a random permutation)."""
    perm = np.argsort(rng.random(tuple(s if d != dim else self_shape[dim]
                                       for d, s in enumerate(index_shape))), axis=dim)
    return np.take(perm, np.arange(index_shape[dim]), axis=dim)


# -- the spec's examples ---------------------------------------------------------------------------
SPEC_4x3 = [[3.0, 4.9, 2.0], [2.0, 1.9, 3.0], [6.0, 1.5, 7.0], [3.0, 4.9, 9.0]]


def test_spec_struct_indexing_example():
    t = ember.tensor(SPEC_4x3)
    assert_close(advanced_getitem(t, slice(1, 3)), [[2.0, 1.9, 3.0], [6.0, 1.5, 7.0]])
    assert_close(advanced_getitem(t, (slice(0, 2), slice(0, 2))), [[3.0, 4.9], [2.0, 1.9]])
    indexed = t.select(1, ember.tensor([0, 2]))
    assert indexed.shape == (4, 2)
    assert_close(indexed, [[3.0, 2.0], [2.0, 3.0], [6.0, 7.0], [3.0, 9.0]])


def test_spec_select():
    t = ember.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, 6.0]])
    assert t.select(0, ember.tensor([0])).tolist() == [[1.0, -2.0, 3.0]]


def test_spec_mask_where_fill_select():
    t = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    mask = ember.tensor([[True, False, True], [False, True, False]])
    value = ember.tensor([[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]])
    assert t.mask_where(mask, value).tolist() == [[2.0, -2.0, 4.0], [5.0, 2.0, 6.0]]
    assert t.mask_fill(mask, 3.0).tolist() == [[3.0, -2.0, 3.0], [5.0, 3.0, 6.0]]
    t2 = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert t2.mask_select(mask).tolist() == [1.0, 3.0, 5.0]


def test_spec_nonzero_argwhere():
    t = ember.tensor([[True, False, True], [False, True, False], [False, True, False]])
    indices = t.nonzero()
    assert indices[0].tolist() == [0, 0, 1, 2]
    assert indices[1].tolist() == [0, 2, 1, 1]
    assert t.argwhere().tolist() == [[0, 0], [0, 2], [1, 1], [2, 1]]


def test_spec_take():
    t = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert t.take(-1, ember.tensor([2, 0, 1])).tolist() == [[3.0, 1.0, 2.0], [6.0, 4.0, 5.0]]
    r = t.take(1, ember.tensor([[0, 2], [1, 0]]))
    assert r.tolist() == [[[1.0, 3.0], [2.0, 1.0]], [[4.0, 6.0], [5.0, 4.0]]]


def test_spec_one_hot():
    one_hot = ember.tensor([0.0, 1.0, 2.0, 3.0]).one_hot(4)
    assert one_hot.tolist() == [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0],
                                [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    assert one_hot.dtype == ember.float32
    t = ember.tensor([[0.0, 2.0], [1.0, -1.0]]).one_hot_fill(3, 5.0, 0.0, -1)
    assert t.tolist() == [[[5.0, 0.0, 0.0], [0.0, 0.0, 5.0]], [[0.0, 5.0, 0.0], [0.0, 0.0, 5.0]]]


def test_spec_tinygrad_gather():
    t = ember.tensor([[1, 2], [3, 4]])
    assert t.gather(1, ember.tensor([[0, 0], [1, 0]])).tolist() == [[1, 1], [4, 3]]


def test_spec_update_formulas_3d(rng):
    # select_assign: input[i, indices[j], k] (op)= values[i, j, k] for dim = 1, and the scatter
    # formula input[i, indices[i, j, k], k] (op)= values[i, j, k], written out as loops.
    x = rng.standard_normal((2, 4, 3))
    idx = np.array([3, 0])
    vals = rng.standard_normal((2, 2, 3))
    for update, fn in [("add", np.add), ("assign", lambda a, b: b), ("mul", np.multiply),
                       ("min", np.minimum), ("max", np.maximum)]:
        expected = x.copy()
        for i, j, k in np.ndindex(vals.shape):
            expected[i, idx[j], k] = fn(expected[i, idx[j], k], vals[i, j, k])
        got = ember.tensor(x).select_assign(1, ember.tensor(idx), ember.tensor(vals), update)
        assert_close(got, expected)
        sidx = np.stack([np.broadcast_to(idx[:, None], (2, 3))] * 2)
        expected = x.copy()
        for i, j, k in np.ndindex(vals.shape):
            expected[i, sidx[i, j, k], k] = fn(expected[i, sidx[i, j, k], k], vals[i, j, k])
        got = ember.tensor(x).scatter(1, ember.tensor(sidx), ember.tensor(vals), update)
        assert_close(got, expected)


# -- update ops ----------------------------------------------------------------------------------
def test_update_op_spellings():
    t = ember.tensor([1.0, 2.0])
    v = ember.tensor([10.0])
    idx = ember.tensor([1])
    for update in (ember.IndexingUpdateOp.ADD, ember.IndexingUpdateOp.Add, "add", "ADD", "sum"):
        assert t.select_assign(0, idx, v, update).tolist() == [1.0, 12.0]
    for update, want in [(ember.IndexingUpdateOp.ASSIGN, 10.0), (ember.IndexingUpdateOp.MUL, 20.0),
                         (ember.IndexingUpdateOp.MIN, 2.0), (ember.IndexingUpdateOp.MAX, 10.0)]:
        assert t.select_assign(0, idx, v, update).tolist() == [1.0, want]
    assert t.select_assign(0, idx, v).tolist() == [1.0, 10.0]  # assign by default


def test_bool_updates():
    t = ember.tensor([[True, False], [False, False]])
    v = ember.tensor([[True, True]])
    idx = ember.tensor([1])
    assert t.select_assign(0, idx, v, "add").tolist() == [[True, False], [True, True]]
    assert t.select_assign(0, ember.tensor([0]), v, "add").tolist() == [[True, True], [False, False]]
    assert t.select_assign(0, ember.tensor([0]), v, "mul").tolist() == [[True, False], [False, False]]
    assert t.select_assign(0, ember.tensor([0]), v, "min").tolist() == [[True, False], [False, False]]
    assert t.select_assign(0, ember.tensor([0]), v, "max").tolist() == [[True, True], [False, False]]
    assert t.select_assign(0, ember.tensor([0]), ember.tensor([[False, True]]),
                           "assign").tolist() == [[False, True], [False, False]]
    s = t.scatter(1, ember.tensor([[1, 1], [0, 0]]), ember.tensor([[True, False], [False, False]]),
                  "add")
    assert s.tolist() == [[True, True], [False, False]]


# -- select / take ---------------------------------------------------------------------------------
SELECT_DTYPES = ["float32", "float64", "int32", "uint8", "bool", "bfloat16"]


@pytest.mark.parametrize("dtype", SELECT_DTYPES)
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 0, 3), (2, 3, 4)])
def test_select_matches_torch(rng, shape, dtype):
    arr = random_array(rng, shape, dtype)
    for _, a in layouts(arr):
        t = ember_tensor(a, dtype=dtype if dtype == "bfloat16" else None)
        for dim in range(-len(shape), len(shape)):
            n = shape[dim]
            for m, idt in [(7, "int64"), (0, "int32"), (3, "uint8")]:
                if n == 0 and m:
                    continue
                lo = 0 if idt == "uint8" else -n
                idx = rng.integers(lo, max(n, 1), size=m).astype(idt)  # repeats and negatives
                expected = torch.index_select(to_torch(t), dim, tt(idx.astype(np.int64) % max(n, 1)))
                assert_close(t.select(dim, ember.tensor(idx)), expected)
                assert_close(t.select(dim, idx.tolist()), expected)


def test_select_zero_dim_index_keeps_dim():
    t = ember.tensor([[1, 2], [3, 4]])
    assert t.select(0, ember.tensor(1)).tolist() == [[3, 4]]


@pytest.mark.parametrize("ishape", [(), (3,), (2, 2), (0,), (2, 1, 3)])
@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4)])
def test_take_matches_numpy(rng, shape, ishape):
    arr = random_array(rng, shape, "float32")
    for _, a in layouts(arr):
        t = ember_tensor(a)
        for dim in range(-len(shape), len(shape)):
            n = shape[dim]
            idx = rng.integers(-n, n, size=ishape)
            got = t.take(dim, ember.tensor(idx))
            assert_close(got, np.take(arr, idx, axis=dim))


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4)])
def test_select_take_grads(rng, shape):
    arr = rng.standard_normal(shape)
    for dim in range(len(shape)):
        n = shape[dim]
        idx = rng.integers(0, n, size=6)  # repeats accumulate
        grads_vs_torch(rng, lambda x: x.select(dim, ember.tensor(idx)),
                       lambda x: torch.index_select(x, dim, tt(idx)), [arr])
        idx2 = rng.integers(0, n, size=(2, 3))
        key = (slice(None),) * dim + (tt(idx2),)
        grads_vs_torch(rng, lambda x: x.take(dim, ember.tensor(idx2)), lambda x: x[key], [arr])


# -- gather / scatter ------------------------------------------------------------------------------
GATHER_CASES = [((), ()), ((5,), (3,)), ((5,), (0,)), ((3, 4), (3, 4)), ((3, 4), (2, 6)),
                ((2, 3, 4), (1, 2, 5)), ((2, 0, 3), (2, 0, 2))]


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
@pytest.mark.parametrize("shape, ishape", GATHER_CASES)
def test_gather_matches_torch(rng, shape, ishape, dtype):
    arr = random_array(rng, shape, dtype)
    for _, a in layouts(arr):
        t = ember_tensor(a)
        for dim in range(-max(len(shape), 1), max(len(shape), 1)):
            n = shape[dim] if shape else 1
            ish = tuple(min(i, s) if d != dim % max(len(shape), 1) else i
                        for d, (i, s) in enumerate(zip(ishape, shape)))
            if n == 0 and np.prod(ish):
                continue
            idx = rng.integers(-n, max(n, 1), size=ish)
            got = t.gather(dim, ember.tensor(idx))
            assert_close(got, torch.gather(to_torch(t), dim, tt(idx % max(n, 1))))


def _scatter_expected(x, dim, idx, vals, update):
    """PyTorch's scatter family for each update op (include_self=True)."""
    xt, it, vt = tt(x), tt(idx), tt(vals)
    if update == "assign":
        return torch.scatter(xt, dim, it, vt)
    if update == "add":
        return torch.scatter_add(xt, dim, it, vt)
    return torch.scatter_reduce(xt, dim, it, vt, TORCH_REDUCE[update], include_self=True)


SCATTER_CASES = [((5,), (3,)), ((3, 4), (3, 4)), ((3, 4), (2, 3)), ((2, 3, 4), (2, 2, 3)),
                 ((2, 0, 3), (2, 0, 3)), ((4, 3), (0, 3))]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
@pytest.mark.parametrize("update", UPDATES)
@pytest.mark.parametrize("shape, ishape", SCATTER_CASES)
def test_scatter_matches_torch(rng, shape, ishape, update, dtype):
    x = random_array(rng, shape, dtype)
    for _, a in layouts(x):
        t = ember_tensor(a)
        for dim in range(len(shape)):
            ish = tuple(min(i, s) for i, s in zip(ishape, shape))
            if update == "assign":
                idx = unique_index(rng, shape, ish, dim)
            else:
                idx = rng.integers(0, max(shape[dim], 1), size=ish) if shape[dim] else \
                    np.zeros(ish, np.int64)
            if shape[dim] == 0 and idx.size:
                continue
            vals = random_array(rng, ish, dtype)
            before = snapshot(t)
            got = t.scatter(dim, ember.tensor(idx), ember.tensor(vals), update)
            assert_close(got, _scatter_expected(x, dim, idx, vals, update))
            assert_unchanged([t], before)
            neg = np.where(idx > 0, idx - shape[dim], idx)  # the same positions, negative
            assert_close(t.scatter(dim - len(shape), ember.tensor(neg), ember.tensor(vals), update),
                         _scatter_expected(x, dim, idx, vals, update))


def test_scatter_number_and_zero_dim():
    t = ember.tensor([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    idx = ember.tensor([[1], [2]])
    assert t.scatter(1, idx, 1.0).tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    expected = torch.zeros(2, 3).scatter(1, torch.tensor([[1], [2]]), 1.0)
    assert_close(t.scatter(1, idx, 1.0), expected)
    s = ember.tensor(2.0)
    assert s.scatter(0, ember.tensor(0), ember.tensor(5.0)).tolist() == 5.0
    assert s.scatter(0, ember.tensor(0), ember.tensor(5.0), "add").tolist() == 7.0
    assert s.gather(-1, ember.tensor(-1)).tolist() == 2.0


def test_zero_dim_gather_scatter_grads(rng):
    i0 = np.array(0)
    grads_vs_torch(rng, lambda a: a.gather(0, ember.tensor(i0)),
                   lambda a: torch.gather(a, 0, tt(i0)), [np.array(2.0)])
    for update in UPDATES:
        grads_vs_torch(
            rng, lambda a, v: a.scatter(0, ember.tensor(i0), v, update),
            lambda a, v: (torch.scatter(a, 0, tt(i0), v) if update == "assign" else
                          torch.scatter_add(a, 0, tt(i0), v) if update == "add" else
                          torch.scatter_reduce(a, 0, tt(i0), v, TORCH_REDUCE[update])),
            [np.array(2.0), np.array(5.0)])


@pytest.mark.parametrize("update", UPDATES)
@pytest.mark.parametrize("shape, ishape", [((5,), (3,)), ((3, 4), (2, 3)), ((2, 3, 4), (2, 3, 4))])
def test_scatter_grads_match_torch(rng, shape, ishape, update):
    for dim in range(len(shape)):
        x = np.round(rng.standard_normal(shape), 1)
        vals = np.round(rng.standard_normal(ishape), 1)  # ties for min/max
        if update == "assign":
            idx = unique_index(rng, shape, ishape, dim)
        else:
            idx = rng.integers(0, shape[dim], size=ishape)
        if update == "mul":
            vals.reshape(-1)[:2] = 0.0  # zeros: single and repeated
        if update in ("min", "max"):
            minmax_grads_burn(
                rng, lambda a, v: a.scatter(dim, ember.tensor(idx), v, update),
                lambda a, v: torch.scatter_reduce(a, dim, tt(idx), v, TORCH_REDUCE[update]),
                lambda a: torch.gather(a, dim, tt(idx)), x, vals)
            continue
        grads_vs_torch(
            rng, lambda a, v: a.scatter(dim, ember.tensor(idx), v, update),
            lambda a, v: (torch.scatter(a, dim, tt(idx), v) if update == "assign" else
                          torch.scatter_add(a, dim, tt(idx), v) if update == "add" else
                          torch.scatter_reduce(a, dim, tt(idx), v, TORCH_REDUCE[update])),
            [x, vals])


@pytest.mark.parametrize("shape, ishape", [((5,), (5,)), ((3, 4), (2, 4)), ((2, 3, 4), (2, 3, 2))])
def test_gather_grads_match_torch(rng, shape, ishape):
    x = rng.standard_normal(shape)
    for dim in range(len(shape)):
        ish = tuple(min(i, s) if d != dim else i for d, (i, s) in enumerate(zip(ishape, shape)))
        idx = rng.integers(0, shape[dim], size=ish)
        grads_vs_torch(rng, lambda a: a.gather(dim, ember.tensor(idx)),
                       lambda a: torch.gather(a, dim, tt(idx)), [x])


def test_gather_scatter_finite_differences(rng):
    x = rng.standard_normal((3, 4))
    idx = np.array([[0, 2, 2, 1], [1, 1, 0, 2]])
    grads_vs_finite_differences(rng, lambda a: a.gather(0, ember.tensor(idx)), [x])
    v = rng.standard_normal((2, 4))
    uidx = np.array([[0, 2, 1, 1], [1, 0, 0, 2]])
    for update in ("mul", "max", "assign"):
        grads_vs_finite_differences(rng, lambda a, b: a.scatter(0, ember.tensor(uidx), b, update),
                                    [x, v])


@pytest.mark.parametrize("update, fill", [("max", 5.0), ("min", -5.0)])
def test_minmax_update_ties_each_get_the_whole_gradient(update, fill):
    # Burn's rule: self's element and both values tie at position 1, and all three get its
    # gradient 20 (torch's scatter_reduce would give each a third)
    g = ember.tensor([10.0, 20.0, 30.0])
    x = ember.tensor([1.0, fill, 2.0]).require_grad()
    v = ember.tensor([fill, fill, 0.5 if update == "max" else 3.0]).require_grad()
    x.scatter(0, ember.tensor([1, 1, 0]), v, update).backward(g)
    assert x.grad.tolist() == [10.0, 20.0, 30.0]
    assert v.grad.tolist() == [20.0, 20.0, 0.0]
    x2 = ember.tensor([[1.0], [fill], [2.0]]).require_grad()
    v2 = ember.tensor([[fill], [fill]]).require_grad()
    x2.select_assign(0, ember.tensor([1, 1]), v2, update).backward(g.reshape(3, 1))
    assert x2.grad.tolist() == [[10.0], [20.0], [30.0]]
    assert v2.grad.tolist() == [[20.0], [20.0]]
    x3 = ember.tensor([[1.0, fill]]).require_grad()
    v3 = ember.tensor([fill, fill]).require_grad()
    x3.scatter_nd(ember.tensor([[0, 1], [0, 1]]), v3, update).backward(ember.tensor([[1.0, 2.0]]))
    assert x3.grad.tolist() == [[1.0, 2.0]] and v3.grad.tolist() == [2.0, 2.0]


# -- select_assign ---------------------------------------------------------------------------------
def _select_assign_expected(x, dim, idx, vals, update):
    xt, it, vt = tt(x), tt(idx), tt(vals)
    if update == "assign":
        return xt.index_copy(dim, it, vt)
    if update == "add":
        return xt.index_add(dim, it, vt)
    return xt.index_reduce(dim, it, vt, TORCH_REDUCE[update], include_self=True)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("update", UPDATES)
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (2, 0, 3)])
def test_select_assign_matches_torch(rng, shape, update, dtype):
    x = random_array(rng, shape, dtype)
    for _, a in layouts(x):
        t = ember_tensor(a)
        for dim in range(len(shape)):
            n = shape[dim]
            if update == "assign":
                idx = rng.permutation(n)[: min(n, 3)]
            else:
                idx = rng.integers(0, max(n, 1), size=4 if n else 0)  # repeats accumulate
            vshape = list(shape)
            vshape[dim] = len(idx)
            vals = random_array(rng, tuple(vshape), dtype)
            got = t.select_assign(dim, ember.tensor(idx), ember.tensor(vals), update)
            assert_close(got, _select_assign_expected(x, dim, idx, vals, update))


@pytest.mark.parametrize("update", UPDATES)
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4)])
def test_select_assign_grads_match_torch(rng, shape, update):
    for dim in range(len(shape)):
        n = shape[dim]
        idx = rng.permutation(n)[:2] if update == "assign" else rng.integers(0, n, size=3)
        x = np.round(rng.standard_normal(shape), 1)
        vshape = list(shape)
        vshape[dim] = len(idx)
        vals = np.round(rng.standard_normal(vshape), 1)
        if update in ("min", "max"):
            minmax_grads_burn(
                rng, lambda a, v: a.select_assign(dim, ember.tensor(idx), v, update),
                lambda a, v: a.index_reduce(dim, tt(idx), v, TORCH_REDUCE[update]),
                lambda a: a.index_select(dim, tt(idx)), x, vals)
            continue
        grads_vs_torch(rng, lambda a, v: a.select_assign(dim, ember.tensor(idx), v, update),
                       lambda a, v: (a.index_copy(dim, tt(idx), v) if update == "assign" else
                                     a.index_add(dim, tt(idx), v) if update == "add" else
                                     a.index_reduce(dim, tt(idx), v, TORCH_REDUCE[update])),
                       [x, vals])


def test_select_assign_values_dtype_is_cast_and_graded_back():
    x = ember.tensor([1.0, 2.0, 3.0]).require_grad()
    v = ember.tensor([10.0], dtype="float64").require_grad()
    out = x.select_assign(0, ember.tensor([2]), v, "mul")
    assert out.dtype == ember.float32 and out.tolist() == [1.0, 2.0, 30.0]
    out.backward(ember.tensor([1.0, 1.0, 1.0]))
    assert x.grad.tolist() == [1.0, 1.0, 10.0]
    assert v.grad.dtype == ember.float64 and v.grad.tolist() == [3.0]


# -- gather_nd / scatter_nd ------------------------------------------------------------------------
ND_CASES = [((4,), (3, 1)), ((3, 4), (5, 2)), ((3, 4), (2, 2, 1)), ((2, 3, 4), (3, 2)),
            ((2, 3, 4), (2, 3)), ((2, 3), (4, 0)), ((3, 4), (0, 2)), ((2, 3), (1,))]


def _nd_index(rng, shape, ishape, unique=False):
    k = ishape[-1]
    batch = ishape[:-1]
    if k == 0:
        return np.zeros(ishape, np.int64)
    if unique:
        total = int(np.prod(shape[:k], dtype=np.int64))
        m = int(np.prod(batch, dtype=np.int64))
        flat = rng.permutation(total)[:m] if m <= total else rng.integers(0, total, m)
        return np.stack(np.unravel_index(flat, shape[:k]), -1).reshape(ishape).astype(np.int64)
    cols = [rng.integers(-shape[c], shape[c], size=batch) for c in range(k)]
    return np.stack(cols, -1).reshape(ishape) if k else np.zeros(ishape, np.int64)


def _torch_gather_nd(x, idx):
    k = idx.shape[-1]
    if k == 0:
        return x.expand(*idx.shape[:-1], *x.shape)
    return x[tuple(idx.unbind(-1))]


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
@pytest.mark.parametrize("shape, ishape", ND_CASES)
def test_gather_nd_matches_torch(rng, shape, ishape, dtype):
    x = random_array(rng, shape, dtype)
    idx = _nd_index(rng, shape, ishape)
    expected_shape = ishape[:-1] + shape[ishape[-1]:]
    for _, a in layouts(x):
        got = ember_tensor(a).gather_nd(ember.tensor(idx))
        assert got.shape == expected_shape
        assert_close(got, _torch_gather_nd(tt(x), tt(idx)))


@pytest.mark.parametrize("update", UPDATES)
@pytest.mark.parametrize("shape, ishape", ND_CASES)
def test_scatter_nd_matches_loops(rng, shape, ishape, update):
    x = np.round(rng.standard_normal(shape), 1)
    idx = _nd_index(rng, shape, ishape, unique=update == "assign")
    k = ishape[-1]
    batch = ishape[:-1]
    vals = np.round(rng.standard_normal(batch + shape[k:]), 1)
    fn = {"add": np.add, "assign": lambda a, b: b, "mul": np.multiply, "min": np.minimum,
          "max": np.maximum}[update]
    expected = x.copy()
    for b in np.ndindex(batch):
        pos = tuple(idx[b])
        expected[pos] = fn(expected[pos], vals[b])
    for _, a in layouts(x):
        t = ember_tensor(a)
        before = snapshot(t)
        got = t.scatter_nd(ember.tensor(idx), ember.tensor(vals), update)
        assert_close(got, expected)
        assert_unchanged([t], before)
    if update in ("add", "assign") and k:
        xt = tt(x).index_put(tuple(tt(idx).unbind(-1)), tt(vals), accumulate=update == "add")
        assert_close(ember.tensor(x).scatter_nd(ember.tensor(idx), ember.tensor(vals), update), xt)


@pytest.mark.parametrize("shape, ishape", [((3, 4), (5, 2)), ((2, 3, 4), (3, 1)), ((2, 3), (2, 0))])
def test_nd_grads(rng, shape, ishape):
    x = rng.standard_normal(shape)
    idx = _nd_index(rng, shape, ishape)
    k = ishape[-1]
    vals = rng.standard_normal(ishape[:-1] + shape[k:])
    grads_vs_torch(rng, lambda a: a.gather_nd(ember.tensor(idx)),
                   lambda a: _torch_gather_nd(a, tt(idx)), [x])
    if k:
        grads_vs_torch(rng, lambda a, v: a.scatter_nd(ember.tensor(idx), v, "add"),
                       lambda a, v: a.index_put(tuple(tt(idx).unbind(-1)), v, accumulate=True),
                       [x, vals])
        uidx = _nd_index(rng, shape, ishape, unique=True)
        grads_vs_torch(rng, lambda a, v: a.scatter_nd(ember.tensor(uidx), v, "assign"),
                       lambda a, v: a.index_put(tuple(tt(uidx).unbind(-1)), v), [x, vals])
        for update in ("mul", "max", "min"):
            grads_vs_finite_differences(
                rng, lambda a, v: a.scatter_nd(ember.tensor(uidx), v, update), [x, vals])


# -- one-hot ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (0, 2)])
def test_one_hot_matches_torch(rng, shape, dtype):
    lo = 0 if dtype == "uint8" else -4
    x = rng.integers(lo, 4, size=shape).astype(dtype)
    got = ember.tensor(x).one_hot(4)
    assert got.dtype.name == dtype
    expected = F.one_hot(tt(x.astype(np.int64) % 4), 4)
    assert_close(got, expected.numpy().astype(dtype))
    assert_close(ember.one_hot(ember.tensor(x), 4), expected.numpy().astype(dtype))


def test_one_hot_fill_axes_and_dtypes(rng):
    x = rng.integers(-3, 3, size=(2, 4))
    base = np.eye(3)[x % 3] * (2.5 - (-1.0)) + (-1.0)  # on 2.5, off -1.0, classes last
    for axis, order in [(-1, (0, 1, 2)), (2, (0, 1, 2)), (0, (2, 0, 1)), (1, (0, 2, 1)),
                        (-3, (2, 0, 1))]:
        got = ember.tensor(x.astype(np.float64)).one_hot_fill(3, 2.5, -1.0, axis)
        assert_close(got, np.transpose(base, order))
    got = ember.tensor(x, dtype="int32").one_hot_fill(3, 5, 0, 0)
    assert got.dtype == ember.int32 and got.shape == (3, 2, 4)
    assert_close(got, (np.transpose(np.eye(3)[x % 3], (2, 0, 1)) * 5).astype(np.int32))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-5, 4), min_size=0, max_size=6), st.integers(0, 1),
       st.sampled_from(["add", "assign", "mul", "max", "min"]))
def test_scatter_gather_laws(idx, dim, update):
    # gather of a scatter-assign at distinct positions returns the values; getitem agrees with select
    x = np.arange(30.0).reshape(5, 6)[:, :5] if dim else np.arange(30.0).reshape(6, 5)[:5]
    t = ember.tensor(np.ascontiguousarray(x))
    it = ember.tensor(np.array(idx, dtype=np.int64))
    sel = t.select(dim, it)
    key = (slice(None),) * dim + (it,)
    assert_close(advanced_getitem(t, key), sel.numpy())
    assert_close(t.take(dim, it), sel.numpy())
    uniq = np.unique(np.array(idx, dtype=np.int64) % 5)
    vals_shape = (len(uniq), 5) if dim == 0 else (5, len(uniq))
    vals = np.arange(float(np.prod(vals_shape))).reshape(vals_shape) + 100
    out = t.select_assign(dim, ember.tensor(uniq), ember.tensor(vals), "assign")
    assert_close(out.select(dim, ember.tensor(uniq)), vals)
    added = t.select_assign(dim, it, ember.tensor(np.ones(sel.shape)), update)
    counts = np.bincount(np.array(idx, dtype=np.int64) % 5, minlength=5)
    shape = [1, 1]
    shape[dim] = 5
    counts = counts.reshape(shape)
    expected = {"add": x + counts, "assign": np.where(counts > 0, 1.0, x),
                "mul": x, "max": np.where(counts > 0, np.maximum(x, 1.0), x),
                "min": np.where(counts > 0, np.minimum(x, 1.0), x)}[update]
    assert_close(added, expected)


# -- index and results never alias writable input --------------------------------------------------
def test_updates_do_not_touch_inputs(rng):
    x = np.arange(6.0).reshape(2, 3)
    t = ember.from_numpy(x)
    v = ember.tensor([[9.0, 9.0, 9.0]])
    for update in UPDATES:
        t.select_assign(0, ember.tensor([1]), v, update)
        t.scatter(0, ember.tensor([[1, 0, 1]]), v, update)
        t.scatter_nd(ember.tensor([[1]]), ember.tensor([[5.0, 5.0, 5.0]]), update)
    t.mask_fill(ember.tensor(x > 2), 0.0)
    t.mask_fill(ember.tensor([True, False, True]), 0.0)
    t.masked_fill(ember.tensor([True, False, True]), ember.tensor(1.0))
    t.mask_where(ember.tensor([[False], [True]]), ember.tensor([7.0, 8.0, 9.0]))
    advanced_setitem(t, (0,), 1.0)
    np.testing.assert_array_equal(x, np.arange(6.0).reshape(2, 3))


# -- bad input -------------------------------------------------------------------------------------
def T():
    return ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).require_grad()


BAD = [
    # select / take
    (lambda t: t.select(0, ember.tensor([0, 2])), ember.DimensionError,
     r"select: indices contains 2, out of range for dim 0 of size 2; expected indices in \[-2, 1\]"),
    (lambda t: t.select(1, ember.tensor([-4])), ember.DimensionError, r"select: indices contains -4"),
    (lambda t: t.select(2, ember.tensor([0])), ember.DimensionError, r"select: dim 2 is out of range"),
    (lambda t: t.select(0, ember.tensor([0.0])), ember.KindError,
     r"select: indices must be an int tensor, got a float tensor"),
    (lambda t: t.select(0, ember.tensor([True])), ember.KindError, r"select: indices .* bool"),
    (lambda t: t.select(0, ember.tensor([[0]])), ember.ShapeMismatchError,
     r"select: indices must be 1-D, got shape \(1, 1\)"),
    (lambda t: t.select(0, "0"), ember.KindError, r"select: indices must be an int tensor, got str"),
    (lambda t: t.take(1, ember.tensor([[3]])), ember.DimensionError,
     r"take: indices contains 3, out of range for dim 1 of size 3"),
    (lambda t: t.take(0, [0.5]), ember.KindError, r"take: indices must be an int tensor"),
    # select_assign
    (lambda t: t.select_assign(0, ember.tensor([0]), ember.tensor([[1.0, 2.0]]), "add"),
     ember.ShapeMismatchError, r"select_assign: values has shape \(1, 2\), expected \(1, 3\)"),
    (lambda t: t.select_assign(0, ember.tensor([0]), ember.tensor([[1.0, 2.0, 3.0]]), "div"),
     ember.InvalidParameterError, r"select_assign: update 'div' is not an update op"),
    (lambda t: t.select_assign(0, ember.tensor([0]), ember.tensor([[1.0, 2.0, 3.0]]), 3),
     ember.InvalidParameterError, r"select_assign: update 3 is not an update op"),
    (lambda t: t.select_assign(0, ember.tensor([5]), ember.tensor([[1.0, 2.0, 3.0]]), "add"),
     ember.DimensionError, r"select_assign: indices contains 5"),
    (lambda t: t.select_assign(0, ember.tensor([0]), ember.tensor([[1, 2, 3]]), "add"),
     ember.KindError, r"select_assign: values is a int tensor .* expected a float tensor"),
    # gather / scatter
    (lambda t: t.gather(1, ember.tensor([[0, 3]])), ember.DimensionError,
     r"gather: index contains 3, out of range for dim 1 of size 3; expected indices in \[-3, 2\]"),
    (lambda t: t.gather(1, ember.tensor([0, 1])), ember.ShapeMismatchError,
     r"gather: index has rank 1 .* expected rank 2"),
    (lambda t: t.gather(1, ember.tensor([[0], [1], [0]])), ember.ShapeMismatchError,
     r"gather: index has shape \(3, 1\), larger than self's \(2, 3\) at dim 0"),
    (lambda t: t.gather(0, ember.tensor([[0.0]])), ember.KindError, r"gather: index must be an int"),
    (lambda t: t.gather(-3, ember.tensor([[0]])), ember.DimensionError, r"gather: dim -3"),
    (lambda t: t.scatter(1, ember.tensor([[0, 1]]), ember.tensor([[1.0]]), "add"),
     ember.ShapeMismatchError, r"scatter: values has shape \(1, 1\), expected \(1, 2\)"),
    (lambda t: t.scatter(1, ember.tensor([[0, 9]]), ember.tensor([[1.0, 1.0]]), "add"),
     ember.DimensionError, r"scatter: index contains 9"),
    (lambda t: t.scatter(1, ember.tensor([[0, 1]]), ember.tensor([[1.0, 1.0]]), "xor"),
     ember.InvalidParameterError, r"scatter: update 'xor'"),
    (lambda t: t.scatter(1, ember.tensor([[0, 1]]), "a", "add"), ember.KindError,
     r"scatter: values must be a number"),
    # nd
    (lambda t: t.gather_nd(ember.tensor([[0, 0, 0]])), ember.ShapeMismatchError,
     r"gather_nd: indices has last dim 3, more than self's rank 2"),
    (lambda t: t.gather_nd(ember.tensor(0)), ember.ShapeMismatchError,
     r"gather_nd: indices must have at least 1 dim"),
    (lambda t: t.gather_nd(ember.tensor([[1, 3]])), ember.DimensionError,
     r"gather_nd: indices column 1 contains 3, out of range for dim 1 of size 3"),
    (lambda t: t.gather_nd(ember.tensor([[-3, 0]])), ember.DimensionError,
     r"gather_nd: indices column 0 contains -3"),
    (lambda t: t.scatter_nd(ember.tensor([[1]]), ember.tensor([1.0, 2.0]), "add"),
     ember.ShapeMismatchError, r"scatter_nd: values has shape \(2,\), expected \(1, 3\)"),
    (lambda t: t.scatter_nd(ember.tensor([[1.0]]), ember.tensor([[1.0, 2.0, 3.0]])),
     ember.KindError, r"scatter_nd: indices must be an int tensor"),
    (lambda t: t.scatter_nd(ember.tensor([[1]]), ember.tensor([[1.0, 2.0, 3.0]]), "pow"),
     ember.InvalidParameterError, r"scatter_nd: update 'pow'"),
    # masks
    (lambda t: t.mask_where(ember.tensor([True, False]), ember.tensor([[1.0, 1.0, 1.0]])),
     ember.ShapeMismatchError,
     r"mask_where: mask has shape \(2,\), which does not broadcast with self's shape \(2, 3\)"),
    (lambda t: t.mask_fill(ember.tensor([[1, 0, 1], [0, 0, 0]]), 1.0), ember.KindError,
     r"mask_fill: mask must be a bool tensor, got a int tensor"),
    (lambda t: t.mask_fill(ember.tensor([[True], [False], [True]]), 1.0), ember.ShapeMismatchError,
     r"mask_fill: mask has shape \(3, 1\), which does not broadcast with self's shape \(2, 3\)"),
    (lambda t: t.masked_fill(ember.tensor([True, False]), 1.0), ember.ShapeMismatchError,
     r"masked_fill: mask has shape \(2,\), which does not broadcast with self's shape \(2, 3\)"),
    (lambda t: t.masked_fill(ember.tensor([1, 0, 1]), 1.0), ember.KindError,
     r"masked_fill: mask must be a bool tensor, got a int tensor"),
    (lambda t: t.masked_fill(ember.tensor([True, False, True]), ember.tensor([1.0])),
     ember.ShapeMismatchError, r"masked_fill: value has shape \(1,\), expected a number or a 0-d"),
    (lambda t: t.masked_fill(ember.tensor([True, False, True]), "x"), ember.KindError,
     r"masked_fill: value must be a number, got str"),
    (lambda t: ember.masked_fill([1.0], ember.tensor([True]), 1.0), ember.InvalidParameterError,
     r"masked_fill: self must be a Tensor, got list"),
    (lambda t: ember.tensor([1, 2]).masked_fill(ember.tensor([True, False]),
                                                ember.tensor(float("inf"))),
     ember.InvalidParameterError, r"masked_fill: value inf cannot be stored in a int64 tensor"),
    (lambda t: t.mask_select(ember.tensor([True, False, True])), ember.ShapeMismatchError,
     r"mask_select: mask has shape \(3,\), expected \(2, 3\)"),
    (lambda t: t.mask_where(ember.tensor([[True] * 3] * 2), ember.tensor([1.0, 2.0])),
     ember.ShapeMismatchError, r"mask_where: value has shape \(2,\), which does not broadcast "
     r"with the shape of self and mask \(2, 3\)"),
    (lambda t: t.mask_where(ember.tensor([True, False, True]), 1.0), ember.InvalidParameterError,
     r"mask_where: value must be a Tensor, got float"),
    (lambda t: t.mask_where(ember.tensor([[True] * 3] * 2), ember.tensor([[1, 2, 3]])),
     ember.KindError, r"mask_where: value is a int tensor"),
    (lambda t: t.mask_fill(ember.tensor([[True] * 3] * 2), "x"), ember.KindError,
     r"mask_fill: value must be a number, got str"),
    (lambda t: t.mask_fill(ember.tensor([[True] * 3] * 2), ember.tensor([1.0, 2.0])),
     ember.ShapeMismatchError, r"mask_fill: value has shape \(2,\), expected a number"),
    (lambda t: ember.tensor([1, 2], dtype="uint8").mask_fill(ember.tensor([True, False]), 300),
     ember.InvalidParameterError, r"mask_fill: value 300 is out of range for dtype uint8"),
    (lambda t: ember.tensor([1, 2]).mask_fill(ember.tensor([True, False]), float("nan")),
     ember.InvalidParameterError, r"mask_fill: value nan cannot be stored in a int64 tensor"),
    # where
    (lambda t: ember.where(ember.tensor([1, 0, 1]), t, 0.0), ember.KindError,
     r"where: condition must be a bool tensor, got a int tensor"),
    (lambda t: ember.where(ember.tensor([True, False]), t, 0.0), ember.ShapeMismatchError,
     r"where: shapes \(2,\) and \(2, 3\) and \(\) do not broadcast"),
    (lambda t: ember.where(ember.tensor([True, False, True]), t), ember.InvalidParameterError,
     r"where: give both input and other, or neither"),
    (lambda t: t.where(ember.tensor([True, False, True]), "x"), ember.KindError,
     r"where: other must be a tensor or a number, got str"),
    # one-hot
    (lambda t: ember.tensor([0, 3]).one_hot(3), ember.DimensionError,
     r"one_hot: class index contains 3, out of range for num_classes of size 3; expected indices "
     r"in \[-3, 2\]"),
    (lambda t: ember.tensor([0, -4]).one_hot(3), ember.DimensionError, r"one_hot: class index contains -4"),
    (lambda t: ember.tensor([0.5]).one_hot(3), ember.InvalidParameterError,
     r"one_hot: class indices must be whole numbers"),
    (lambda t: ember.tensor([True]).one_hot(3), ember.KindError, r"one_hot: not defined for bool"),
    (lambda t: ember.tensor([0]).one_hot(-1), ember.InvalidParameterError,
     r"one_hot: num_classes -1 is negative"),
    (lambda t: ember.tensor([0]).one_hot_fill(3, 1.0, 0.0, 2), ember.DimensionError,
     r"one_hot_fill: axis 2 is out of range for a tensor of rank 2"),
    (lambda t: ember.tensor([0]).one_hot_fill(3, "on", 0.0), ember.KindError,
     r"one_hot_fill: on_value must be a number"),
    # advanced indexing
    (lambda t: advanced_getitem(t, (0, 0, 0)), ember.DimensionError,
     r"__getitem__: too many indices: the key indexes 3 dims, the tensor has rank 2"),
    (lambda t: advanced_getitem(t, 2), ember.DimensionError,
     r"__getitem__: index 2 is out of range for dim 0 of size 2; expected an index in \[-2, 1\]"),
    (lambda t: advanced_getitem(t, (slice(None), -4)), ember.DimensionError,
     r"__getitem__: index -4 is out of range for dim 1 of size 3"),
    (lambda t: advanced_getitem(t, (slice(None), ember.tensor([0, 3]))), ember.DimensionError,
     r"__getitem__: index contains 3, out of range for dim 1 of size 3; expected indices in \[-3, 2\]"),
    (lambda t: advanced_getitem(t, [5]), ember.DimensionError, r"__getitem__: index contains 5"),
    (lambda t: advanced_getitem(t, ember.tensor([0.0])), ember.KindError,
     r"__getitem__: index tensors must be int \(or bool masks\), got a float index"),
    (lambda t: advanced_getitem(t, 1.0), ember.KindError, r"__getitem__: index 1.0 of type float"),
    (lambda t: advanced_getitem(t, "a"), ember.KindError, r"__getitem__: index 'a' of type str"),
    (lambda t: advanced_getitem(t, ember.tensor([True, False, True])), ember.ShapeMismatchError,
     r"__getitem__: bool mask has shape \(3,\), expected \(2,\)"),
    (lambda t: advanced_getitem(t, (ember.tensor([0, 1]), ember.tensor([0, 1, 2]))),
     ember.ShapeMismatchError, r"__getitem__: shapes \(2,\) and \(3,\) do not broadcast"),
    (lambda t: advanced_getitem(t, (Ellipsis, 0, Ellipsis)), ember.InvalidParameterError,
     r"__getitem__: the key has 2 Ellipses"),
    (lambda t: advanced_getitem(t, slice(None, None, 0)), ember.InvalidParameterError,
     r"__getitem__: slice step 0"),
    (lambda t: advanced_getitem(t, slice(0.5, None)), ember.InvalidParameterError,
     r"__getitem__: slice start must be an int"),
    (lambda t: advanced_setitem(t, (0,), ember.tensor([1.0, 2.0])), ember.ShapeMismatchError,
     r"__setitem__: value has shape \(2,\), which does not broadcast to the indexed shape \(3,\)"),
    (lambda t: advanced_setitem(t, (0,), ember.tensor([[[1.0, 2.0, 3.0]]] * 2)),
     ember.ShapeMismatchError, r"__setitem__: value has shape \(2, 1, 3\)"),
    (lambda t: advanced_setitem(t, (ember.tensor([0, 4]),), 1.0), ember.DimensionError,
     r"__setitem__: index contains 4"),
    (lambda t: advanced_setitem(t, (0,), "v"), ember.KindError, r"__setitem__: value must be a number"),
    (lambda t: advanced_setitem(ember.tensor([1, 2], dtype="int8"), 0, 1000),
     ember.InvalidParameterError, r"__setitem__: value 1000 is out of range for dtype int8"),
]


@pytest.mark.parametrize("call, err, match", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_input(call, err, match):
    t = T()
    before = snapshot(t)
    with pytest.raises(err, match=match):
        call(t)
    assert_unchanged([t], before)
    assert t.grad is None


def test_bad_input_leaves_index_and_values_unchanged():
    t = T()
    idx = ember.tensor([[0, 7]])
    vals = ember.tensor([[1.0, 2.0]])
    before = snapshot(t, idx, vals)
    with pytest.raises(ember.DimensionError):
        t.scatter(1, idx, vals, "add")
    assert_unchanged([t, idx, vals], before)


def test_errors_are_builtin_exceptions():
    t = T()
    with pytest.raises(IndexError):
        advanced_getitem(t, 9)
    with pytest.raises(TypeError):
        t.select(0, ember.tensor([0.0]))
    with pytest.raises(ValueError):
        t.mask_select(ember.tensor([True]))


# -- the user guide --------------------------------------------------------------------------------
def test_docs_indexing_md():
    path = os.path.join(ROOT, "docs", "indexing.md")
    result = doctest.testfile(path, module_relative=False, optionflags=doctest.ELLIPSIS,
                              verbose=False, raise_on_error=False)
    assert result.attempted > 10
    assert result.failed == 0


def test_itertools_cover_all_update_ops_on_ints():
    # int tensors: every update op on repeated indices against PyTorch's scatter_reduce
    x = np.array([[5, -3, 2], [0, 7, 1]], dtype=np.int64)
    idx = np.array([[0, 0, 1], [1, 0, 1]])
    vals = np.array([[2, 4, -1], [3, 3, 3]], dtype=np.int64)
    for update, dim in itertools.product(["add", "mul", "min", "max"], [0, 1]):
        got = ember.tensor(x).scatter(dim, ember.tensor(idx), ember.tensor(vals), update)
        assert_close(got, _scatter_expected(x, dim, idx, vals, update))


# -- gather/scatter: the kernel's own bounds check ---------------------------------------------------
# gather and scatter no longer scan the index for its min/max before the kernel: NumPy's bounds
# check raises, and only then is the index scanned to word the same DimensionError as before. A
# 1-D gather goes through np.take, the others through advanced indexing.
@pytest.mark.parametrize("idtype", ["int64", "int32", "int16", "int8", "uint8"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "bfloat16"])
def test_one_d_gather_equals_the_n_d_path_and_numpy(rng, dtype, idtype):
    arr = random_array(rng, (7,), "float32" if dtype == "bfloat16" else dtype)
    low = 0 if idtype == "uint8" else -7
    idx = rng.integers(low, 7, size=11).astype(idtype)
    for _, a in layouts(arr):
        t = ember_tensor(a, dtype="bfloat16" if dtype == "bfloat16" else None)
        i = ember.from_numpy(idx)
        before = snapshot(t, i)
        got = t.gather(0, i)
        column = ember_tensor(np.asarray(t.numpy())[:, None]).gather(0, ember.from_numpy(idx[:, None]))
        expected = np.take(np.asarray(t.numpy()), idx.astype(np.int64))
        assert got.dtype is t.dtype and got.shape == (11,)
        np.testing.assert_array_equal(np.asarray(got.numpy()), expected)
        np.testing.assert_array_equal(np.asarray(column.numpy())[:, 0], expected)
        assert not np.shares_memory(np.asarray(got.numpy()), a)
        assert_unchanged([t, i], before)


OUT_OF_RANGE = [  # (self shape, dim, index, the value the message names)
    ((5,), 0, [0, 5, 1], 5), ((5,), 0, [-6, 2], -6), ((5,), 0, [9, -8], -8), ((5,), -1, [7], 7),
    ((2, 3), 1, [[0, 3], [1, 2]], 3), ((2, 3), 0, [[0, 1, -3]], -3), ((2, 3), -2, [[2, 0, 0]], 2),
    ((), 0, 1, 1), ((), -1, -2, -2), ((0,), 0, [0], 0), ((2, 0), 1, [[0]], 0),
]


@pytest.mark.parametrize("op", ["gather", "scatter"] + [f"scatter-{u}" for u in UPDATES])
@pytest.mark.parametrize("shape, dim, index, bad", OUT_OF_RANGE)
def test_out_of_range_index_is_reported_as_before(shape, dim, index, bad, op):
    t = ember.tensor(np.arange(float(np.prod(shape))).reshape(shape)).require_grad()
    i = ember.tensor(index) if np.ndim(index) else ember.tensor(index, dtype="int64")
    v = ember.tensor(np.full(np.shape(index), 9.0))
    before = snapshot(t, i, v)
    n = shape[dim] if shape else 1
    d = dim % max(len(shape), 1)
    expected = (rf"expected indices in \[{-n}, {n - 1}\]" if n else
                r"expected no indices, the dim is empty")
    name = op.split("-")[0]
    with pytest.raises(ember.DimensionError, match=rf"^{name}: index contains {bad}, out of range "
                                                   rf"for dim {d} of size {n}; {expected}$") as err:
        if op == "gather":
            t.gather(dim, i)
        elif op == "scatter":
            t.scatter(dim, i, 9.0)
        else:
            t.scatter(dim, i, v, op.split("-")[1])
    # NumPy's IndexError is no part of what the user sees
    assert "out of bounds" not in "".join(traceback.format_exception(err.value))
    assert_unchanged([t, i, v], before)
    assert t.grad is None


def test_out_of_range_index_is_reported_before_other_scatter_errors():
    # as before the bounds check moved into the kernel: the index's range is checked first
    t = ember.tensor([[1.0, 2.0, 3.0]])
    i = ember.tensor([[0, 4]])
    for values, update in [(ember.tensor([[1.0, 2.0]]), "xor"), (ember.tensor([[1.0]]), "add"),
                           (ember.tensor([[1, 2]]), "add"), ("a", "add")]:
        with pytest.raises(ember.DimensionError, match=r"scatter: index contains 4, out of range"):
            t.scatter(1, i, values, update)
    with pytest.raises(ember.InvalidParameterError, match=r"scatter: update 'xor'"):
        t.scatter(1, ember.tensor([[0, 2]]), ember.tensor([[1.0, 2.0]]), "xor")
