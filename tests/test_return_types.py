"""Tests of ember/return_types.py and the PyTorch-shaped calls of docs/pytorch.md: the module-level
functions return PyTorch's (values, indices) named tuples (values, indices, shapes, dtypes and
gradients against torch), the Burn-shaped methods return a ValuesTensor that refuses to be
unpacked or indexed by position, and docs/pytorch.md runs as doctests."""

import doctest
import os

import numpy as np
import pytest
import torch

import ember
from ember import return_types
from oracle import assert_close, assert_unchanged, layouts, snapshot, to_torch

ROOT = os.path.join(os.path.dirname(__file__), "..")
SHAPES = [(), (5,), (3, 4), (2, 3, 4), (2, 0, 3)]


def _distinct(rng, shape, dtype="float32"):
    """Values without ties (so every index is unambiguous), in several layouts."""
    n = int(np.prod(shape))
    arr = np.asarray(rng.permutation(n).reshape(shape).astype(dtype) - n // 2)
    return list(layouts(arr))


def _dims(shape):
    return range(-max(len(shape), 1), max(len(shape), 1))


def _check_pair(got, want, name):
    assert type(got).__name__ == name and isinstance(got, tuple) and len(got) == 2
    assert_close(got.values, want.values)
    assert_close(got.indices, want.indices)
    values, indices = got  # unpacks as PyTorch's
    assert values is got.values and indices is got.indices


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_sort_and_topk_are_pytorchs_pairs(rng, shape, dtype):
    for _, arr in _distinct(rng, shape, dtype):
        t = ember.from_numpy(arr)
        before = snapshot(t)
        tt = torch.from_numpy(arr.copy())
        for dim in _dims(shape):
            for desc in (False, True):
                _check_pair(ember.sort(t, dim, descending=desc),
                            torch.sort(tt, dim=dim, descending=desc, stable=True), "sort")
                size = shape[dim] if shape else 1
                for k in sorted({0, min(1, size), size}):
                    if not shape and k != 1:
                        continue
                    _check_pair(ember.topk(t, k, dim, largest=not desc),
                                torch.topk(tt, k, dim, largest=not desc), "topk")
        assert_unchanged([t], before)


@pytest.mark.parametrize("shape", [s for s in SHAPES if 0 not in s])
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_with_dim_are_pytorchs_pairs(rng, shape, name):
    for _, arr in _distinct(rng, shape):
        t, tt = ember.from_numpy(arr), torch.from_numpy(arr.copy())
        f, g = getattr(ember, name), getattr(torch, name)
        assert_close(f(t), g(tt))  # no dim: the 0-d value, as torch
        for dim in _dims(shape):
            for keepdim in (False, True):
                _check_pair(f(t, dim, keepdim), g(tt, dim, keepdim), name)
                _check_pair(f(t, dim=dim, keepdim=keepdim), g(tt, dim=dim, keepdim=keepdim), name)
        other = ember.from_numpy(np.asarray(np.flip(arr)).copy())
        assert_close(f(t, other), g(tt, to_torch(other)))  # a tensor second: maximum/minimum


@pytest.mark.parametrize("shape", [s for s in SHAPES if 0 not in s])
def test_median_kthvalue_are_pytorchs_pairs(rng, shape):
    for _, arr in _distinct(rng, shape, "float64"):
        t, tt = ember.from_numpy(arr), torch.from_numpy(arr.copy())
        assert_close(ember.median(t), torch.median(tt))
        for dim in _dims(shape):
            size = shape[dim] if shape else 1
            for keepdim in (False, True):
                _check_pair(ember.median(t, dim, keepdim), torch.median(tt, dim, keepdim),
                            "median")
                for k in (1, size):
                    _check_pair(ember.kthvalue(t, k, dim, keepdim),
                                torch.kthvalue(tt, k, dim, keepdim), "kthvalue")
                    _check_pair(t.kthvalue(k, dim, keepdim), tt.kthvalue(k, dim, keepdim),
                                "kthvalue")


@pytest.mark.parametrize("shape", SHAPES)
def test_cummax_cummin_are_pytorchs_pairs(rng, shape):
    for _, arr in _distinct(rng, shape):
        t, tt = ember.from_numpy(arr), torch.from_numpy(arr.copy())
        for dim in _dims(shape):
            _check_pair(ember.cummax(t, dim), torch.cummax(tt, dim), "cummax")
            _check_pair(ember.cummin(t, dim), torch.cummin(tt, dim), "cummin")


@pytest.mark.parametrize("shape", [s for s in SHAPES if 0 not in s])
def test_argmax_var_take_pytorchs_keepdim_default(rng, shape):
    for _, arr in _distinct(rng, shape, "float64"):
        t, tt = ember.from_numpy(arr), torch.from_numpy(arr.copy())
        assert_close(ember.argmax(t), torch.argmax(tt))
        for dim in _dims(shape):
            for keepdim in (False, True):
                assert_close(ember.argmax(t, dim, keepdim), torch.argmax(tt, dim, keepdim))
                assert_close(ember.argmin(t, dim=dim, keepdim=keepdim),
                             torch.argmin(tt, dim=dim, keepdim=keepdim))
            assert_close(ember.argmax(t, dim), torch.argmax(tt, dim))
            if (shape[dim] if shape else 1) > 1:
                assert_close(ember.var(t, dim), torch.var(tt, dim))
                assert_close(ember.var(t, dim, False, True), torch.var(tt, dim, False, True))
                assert_close(ember.var(t, dim, correction=0), torch.var(tt, dim, correction=0))
                v, m = ember.var_mean(t, dim)
                tv, tm = torch.var_mean(tt, dim)
                assert_close(v, tv)
                assert_close(m, tm)
        if arr.size > 1:
            assert_close(ember.var(t), torch.var(tt))


@pytest.mark.parametrize("shape", [(), (0,), (6,), (3, 4), (2, 0, 3), (2, 3, 4)])
def test_nonzero_and_where_are_pytorchs(rng, shape):
    arr = rng.random(shape) < 0.5
    t, tt = ember.from_numpy(np.asarray(arr)), torch.from_numpy(np.asarray(arr))
    assert_close(ember.nonzero(t), torch.nonzero(tt))
    assert_close(t.nonzero(as_tuple=False), tt.nonzero(as_tuple=False))
    for got, want in ((ember.nonzero(t, as_tuple=True), torch.nonzero(tt, as_tuple=True)),
                      (t.nonzero(as_tuple=True), tt.nonzero(as_tuple=True))):
        assert isinstance(got, tuple) and len(got) == len(want)
        for a, b in zip(got, want):
            assert_close(a, b)
    if shape:
        got, want = ember.where(t), torch.where(tt)
        assert isinstance(got, tuple) and len(got) == len(want)
        for a, b in zip(got, want):
            assert_close(a, b)
        assert [a.tolist() for a in t.nonzero()] == [b.tolist() for b in want]  # Burn's list


def test_mingpt_topk_sampling_gets_indices():
    probs = ember.tensor([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]])
    _, idx = ember.topk(probs, k=1)
    _, want = torch.topk(to_torch(probs), k=1)
    assert_close(idx, want)
    assert idx.dtype == ember.int64


# -- the methods: Burn's values, as a ValuesTensor ----------------------------------------------

def _method_cases(t, tt):
    """(method call, what it must equal as values, torch's pair for .values/.indices)."""
    return [
        ("topk", t.topk(2, 1), tt.topk(2, 1)),
        ("topk", t.topk(1, 0, largest=False), tt.topk(1, 0, largest=False)),
        ("sort", t.sort(1), tt.sort(dim=1, stable=True)),
        ("sort", t.sort(0, descending=True), tt.sort(dim=0, descending=True, stable=True)),
        ("max", t.max(1), tt.max(1)),
        ("max", t.max(0, keepdim=True), tt.max(0, keepdim=True)),
        ("min", t.min(-1), tt.min(-1)),
        ("median", t.median(1), tt.median(1, keepdim=True)),  # Burn keeps the dim
        ("median", t.median(0, keepdim=False), tt.median(0)),
        ("cummax", t.cummax(1), tt.cummax(1)),
        ("cummin", t.cummin(0), tt.cummin(0)),
    ]


@pytest.mark.parametrize("name", ["contiguous", "permuted", "flipped"])
def test_methods_return_values_that_refuse_tuple_habits(rng, name):
    arr = dict(_distinct(rng, (2, 5)))[name]  # two rows: unpacking would "work" silently
    t, tt = ember.from_numpy(arr), torch.from_numpy(arr.copy())
    before = snapshot(t)
    for op, got, want in _method_cases(t, tt):
        assert isinstance(got, return_types.ValuesTensor)
        assert_close(got, want.values)                # it is the values tensor (Burn's)
        assert_close(got.values, want.values)         # PyTorch's attributes work
        assert_close(got.indices, want.indices)
        assert type(got.values) is ember.Tensor
        assert type(got * 1) is ember.Tensor           # every op gives a plain tensor
        assert got[..., 0].tolist() == want.values[..., 0].tolist()
        for habit in (lambda r: tuple(r), lambda r: r[0], lambda r: r[1], lambda r: len(r),
                      lambda r: [x for x in r]):
            with pytest.raises(ember.KindError, match=rf"^{op}: the method returns the values "
                               "only .*ember\\." + op):
                habit(got)
        with pytest.raises(TypeError):                   # KindError is a TypeError
            v, i = got
    assert_unchanged([t], before)


def test_no_dim_and_several_dims_stay_plain_tensors():
    t = ember.tensor([[1.0, 4.0], [3.0, 2.0]])
    for out in (t.max(), t.min(), t.median(), t.max((0, 1)), t.min(dim=(0,))):
        assert type(out) is ember.Tensor
    assert t.max(ember.tensor([2.0, 2.0])).tolist() == [[2.0, 4.0], [3.0, 2.0]]


def test_gradients_match_torch(rng):
    arr = rng.permutation(12).reshape(3, 4).astype(np.float64)
    seeds = {}

    def run(lib, x):
        outs = [lib.topk(x, 2, 1).values, lib.sort(x, 0).values, lib.max(x, 1).values,
                lib.min(x, 0, keepdim=True).values, lib.median(x, 1).values,
                lib.kthvalue(x, 2, 1).values, lib.cummax(x, 1).values]
        if lib is ember:
            outs += [x.topk(2, 1), x.sort(0).values, x.max(1), x.cummin(1)]
        else:
            outs += [x.topk(2, 1).values, x.sort(0).values, x.max(1).values, x.cummin(1).values]
        total = 0
        for i, o in enumerate(outs):
            s = seeds.setdefault(i, rng.standard_normal(tuple(o.shape)))
            total = total + (o * lib.tensor(s, dtype=lib.float64)).sum()
        return total

    x = ember.tensor(arr).require_grad()
    run(ember, x).backward()
    xt = torch.tensor(arr, requires_grad=True)
    run(torch, xt).backward()
    assert_close(x.grad, xt.grad)


def test_bad_input_raises_typed_errors():
    t = ember.tensor([[3.0, 1.0], [2.0, 5.0]])
    before = snapshot(t)
    cases = [
        (lambda: ember.sort([1, 2]), ember.InvalidParameterError, r"sort: self must be a Tensor"),
        (lambda: ember.sort(t, stable=1), ember.InvalidParameterError, r"sort: stable must be"),
        (lambda: ember.topk(t, 3), ember.InvalidParameterError, r"topk: k 3 is out of range"),
        (lambda: ember.topk(t, 1, sorted="no"), ember.InvalidParameterError, r"sorted must"),
        (lambda: ember.kthvalue(t, 0), ember.InvalidParameterError, r"kthvalue: k 0 is out"),
        (lambda: ember.kthvalue(t, 3), ember.InvalidParameterError, r"kthvalue: k 3 is out"),
        (lambda: ember.max(t, 2), ember.DimensionError, r"max"),
        (lambda: ember.max(t, 1, keepdim=2), ember.InvalidParameterError, r"keepdim"),
        (lambda: ember.median(t, 5), ember.DimensionError, r"median"),
        (lambda: ember.var(t, 1, correction=-1), ember.InvalidParameterError, r"correction"),
        (lambda: ember.var(t, 1, False, correction=1), ember.InvalidParameterError,
         r"unbiased or correction"),
        (lambda: ember.nonzero(t, as_tuple=1), ember.InvalidParameterError, r"as_tuple"),
        (lambda: ember.max(ember.zeros(0, 2), 0), ember.InvalidParameterError, r"max"),
    ]
    for fn, err, pattern in cases:
        with pytest.raises(err, match=pattern):
            fn()
    assert_unchanged([t], before)


def test_docs_pytorch_md_runs():
    path = os.path.join(ROOT, "docs", "pytorch.md")
    result = doctest.testfile(path, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 20 and result.failed == 0


def test_module_doctests():
    for mod in (return_types, ember.ops.sort, ember.ops.reduce, ember.ops.extremes,
                ember.ops.statistics, ember.ops.scan):
        result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0
