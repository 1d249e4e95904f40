"""Tests of ember/ops/statistics.py: var, var_mean, median and cov against PyTorch, with gradients.
The spec's examples, laws and bad input are in test_reduce.py."""

import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import assert_close, layouts, random_array, to_torch
from test_reduce import (FLOATS, NAN, T, cases, check_grad, dim_args, finite_difference, grad_cases,
                         unchanged)


# -- variance, median, cov ----------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("dtype", FLOATS)
def test_var(rng, dtype):
    for t, before in cases(rng, dtype, all_layouts=dtype == "float64"):
        x = to_torch(t)
        for dim in dim_args(t.ndim):
            keep = dim is not None
            for method, c in (("var", 1), ("var_bias", 0)):
                want = torch.var(x, correction=c) if dim is None else torch.var(
                    x, dim, correction=c, keepdim=True)
                assert_close(getattr(t, method)(dim), want)
            v, m = t.var_mean(dim)
            tv, tm = torch.var_mean(x, dim, correction=1, keepdim=keep)
            assert_close(v, tv)
            assert_close(m, tm)
            v, m = t.var_mean_bias(dim, keepdim=False)
            tv, tm = torch.var_mean(x, dim, correction=0, keepdim=False)
            assert_close(v, tv)
            assert_close(m, tm)
        unchanged(t, before)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16", "int64", "int16",
                                   "uint8"])
def test_median(rng, dtype):
    exact_index = dtype in ("float64", "float32")
    for t, before in cases(rng, dtype):
        x = to_torch(t)
        if t.numel():
            assert_close(t.median(), torch.median(x))
        for dim in range(-t.ndim, t.ndim) if t.ndim else [0]:
            if t.ndim and t.shape[dim] == 0:
                continue
            tv, ti = torch.median(x, dim, keepdim=True)
            assert_close(t.median(dim), tv)
            assert_close(t.median(dim, keepdim=False), torch.median(x, dim).values)
            values, indices = t.median_with_indices(dim)
            assert_close(values, tv)
            if exact_index:
                assert_close(indices, ti)
            elif t.ndim:
                # whatever the tie, the index points at the median value
                picked = np.take_along_axis(np.asarray(t.numpy()), indices.numpy(), axis=dim)
                np.testing.assert_array_equal(picked, np.asarray(values.numpy()))
        unchanged(t, before)


def test_median_nan_and_empty():
    arr = np.array([[3.0, NAN, 1.0, NAN], [4.0, 2.0, 8.0, 1.0], [NAN, 0.0, 0.0, 0.0]])
    t = ember.from_numpy(arr)
    x = torch.from_numpy(arr)
    for dim in (0, 1):
        tv, ti = torch.median(x, dim, keepdim=True)
        values, indices = t.median_with_indices(dim)
        assert_close(values, tv)
        assert_close(indices, ti)
    assert np.isnan(t.median().tolist())
    assert np.isnan(T([]).median().tolist())
    v, i = T([5, 1, 3, 2]).median_with_indices()
    assert (v.tolist(), i.tolist()) == (2, 3)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_cov(rng, dtype):
    for shape in [(2, 5), (3, 1), (1, 4), (4, 3), (3, 0), (0, 4)]:
        arr = random_array(rng, shape, dtype)
        for _, lay in layouts(arr):
            t = ember.from_numpy(lay)
            for dim in (0, 1, -1):
                for c in (0, 1, 2):
                    got = t.cov(dim, c)
                    x = torch.from_numpy(np.array(lay))
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        want = torch.cov(x if dim % 2 == 1 else x.T, correction=c)
                    v = shape[0] if dim % 2 == 1 else shape[1]
                    want = want.reshape(v, v)  # torch squeezes one variable to 0-d; Burn keeps 2-D
                    assert_close(got, want, rtol=1e-2 if dtype == "float16" else None,
                                 atol=1e-2 if dtype == "float16" else None)
    assert ember.cov(T([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]), 1).tolist() == [[1.0, -1.0],
                                                                             [-1.0, 1.0]]


def _torch_cov_batched(x, dim, c):
    """torch.cov applied per batch: observations along ``dim``, variables along the last other
    dim, every remaining dim a batch dim (kept in order)."""
    nd = x.dim()
    dim %= nd
    var = nd - 2 if dim == nd - 1 else nd - 1
    xs = x.permute([d for d in range(nd) if d not in (var, dim)] + [var, dim])
    flat = xs.reshape(int(np.prod(xs.shape[:-2])), *xs.shape[-2:])
    v = xs.shape[-2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mats = [torch.cov(m, correction=c).reshape(v, v) for m in flat]
    out = torch.stack(mats) if mats else torch.zeros(0, v, v, dtype=x.dtype)
    return out.reshape(*xs.shape[:-2], v, v)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(3, 2, 5), (2, 4, 3), (2, 1, 3, 4), (0, 2, 3), (2, 3, 1)])
def test_cov_keeps_batch_dims_like_torch_per_batch(rng, dtype, shape):
    arr = random_array(rng, shape, dtype)
    for _, lay in layouts(arr):
        t = ember.from_numpy(lay)
        for dim in range(-len(shape), len(shape)):
            for c in (0, 1):
                want = _torch_cov_batched(torch.from_numpy(np.array(lay)), dim, c)
                assert_close(t.cov(dim, c), want)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_grad_cov_batched(rng):
    for shape in [(2, 3, 4), (3, 2, 2, 3)]:
        arr = random_array(rng, shape, "float64")
        for _, lay in layouts(arr):
            for dim in range(len(shape)):
                check_grad(lay, lambda x: x.cov(dim, 1),
                           lambda x: _torch_cov_batched(x, dim, 1), rng)
    finite_difference(random_array(rng, (2, 3, 4), "float64"), lambda x: x.cov(0, 1), rng)


# -- gradients against torch.autograd (float64) -------------------------------------------------

def test_grad_var(rng):
    for arr in grad_cases(rng, [(5,), (3, 4), (2, 3, 4)]):
        for dim in dim_args(arr.ndim):
            keep = dim is not None
            check_grad(arr, lambda x: x.var(dim),
                       lambda x: torch.var(x, dim, correction=1, keepdim=keep), rng)
            check_grad(arr, lambda x: x.var_bias(dim),
                       lambda x: torch.var(x, dim, correction=0, keepdim=keep), rng)
            for bias, c in ((False, 1), (True, 0)):
                x = ember.from_numpy(arr).require_grad()
                v, m = (x.var_mean_bias(dim) if bias else x.var_mean(dim))
                sv = np.asarray(rng.standard_normal(v.shape))
                sm = np.asarray(rng.standard_normal(m.shape))
                v.backward(ember.tensor(sv))
                gv = x.grad.numpy().copy()
                x2 = ember.from_numpy(arr).require_grad()
                _, m2 = (x2.var_mean_bias(dim) if bias else x2.var_mean(dim))
                m2.backward(ember.tensor(sm))
                xt = torch.from_numpy(np.array(arr)).requires_grad_(True)
                tv, tm = torch.var_mean(xt, dim, correction=c, keepdim=keep)
                gtv, = torch.autograd.grad(tv, xt, torch.from_numpy(sv), retain_graph=True)
                gtm, = torch.autograd.grad(tm, xt, torch.from_numpy(sm))
                np.testing.assert_allclose(gv, gtv.numpy(), rtol=1e-7, atol=1e-9)
                np.testing.assert_allclose(x2.grad.numpy(), gtm.numpy(), rtol=1e-7, atol=1e-9)


def test_grad_median(rng):
    tied = np.array([[1.0, 2.0, 2.0, 3.0], [2.0, 1.0, 2.0, 2.0]])
    for arr in list(grad_cases(rng, [(5,), (3, 4), (2, 3, 4)])) + [tied]:
        check_grad(arr, lambda x: x.median(), torch.median, rng)
        for dim in range(-arr.ndim, arr.ndim):
            check_grad(arr, lambda x: x.median(dim),
                       lambda x: torch.median(x, dim, keepdim=True).values, rng)
            check_grad(arr, lambda x: x.median_with_indices(dim, keepdim=False)[0],
                       lambda x: torch.median(x, dim).values, rng)
    check_grad(np.array([1.0, NAN, 3.0, NAN]), lambda x: x.median(), torch.median, rng)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_grad_cov(rng):
    for shape in [(2, 5), (3, 4), (1, 3), (3, 1)]:
        arr = random_array(rng, shape, "float64")
        for _, lay in layouts(arr):
            for dim in (0, 1):
                for c in (0, 1):
                    v = shape[0] if dim == 1 else shape[1]
                    check_grad(lay, lambda x: x.cov(dim, c), lambda x: torch.cov(
                        x if dim == 1 else x.T, correction=c).reshape(v, v), rng)
