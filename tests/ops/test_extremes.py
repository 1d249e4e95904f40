"""Tests of ember/ops/extremes.py: max, min, max_abs, argmax, argmin, argtopk and the
*_dim_with_indices forms against PyTorch, with gradients. The spec's examples, laws and bad input
are in test_reduce.py."""

import numpy as np
import pytest
import torch

import ember
from oracle import assert_close, on_device, random_array, to_torch
from test_reduce import (ALL, INF, NAN, T, cases, check_grad, count, dim_args, grad_cases,
                         torch_reduce, unchanged)


# -- max, min, max_abs --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
def test_max_min(rng, dtype):
    for t, before in cases(rng, dtype):
        x = to_torch(t)
        for dim in dim_args(t.ndim):
            if count(t.shape, dim) == 0:
                continue
            for keepdim in (False, True):
                assert_close(t.max(dim, keepdim), torch_reduce(torch.amax, x, dim, keepdim))
                assert_close(t.min(dim, keepdim), torch_reduce(torch.amin, x, dim, keepdim))
            if isinstance(dim, tuple):
                assert_close(t.max_dims(dim), torch.amax(x, dim, keepdim=True))
                assert_close(t.min_dims(list(dim)), torch.amin(x, dim, keepdim=True))
            elif dim is not None:
                assert_close(t.max_dim(dim), torch.amax(x, dim, keepdim=True))
                assert_close(t.min_dim(dim), torch.amin(x, dim, keepdim=True))
        unchanged(t, before)


def test_max_min_reduce_nonempty_dim_of_empty_tensor():
    t = ember.from_numpy(np.zeros((0, 3)))
    assert t.max(1).shape == (0,) and t.min_dim(1).shape == (0, 1)
    assert ember.from_numpy(np.zeros((3, 0))).max(0).shape == (0,)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16", "int32", "int8"])
def test_max_abs(rng, dtype):
    for t, _ in cases(rng, dtype, all_layouts=dtype == "float32"):
        x = to_torch(t)
        for dim in dim_args(t.ndim):
            if count(t.shape, dim) == 0:
                continue
            assert_close(t.max_abs(dim), torch_reduce(torch.amax, x.abs(), dim, False))
            if isinstance(dim, tuple):
                assert_close(t.max_abs_dims(dim), torch.amax(x.abs(), dim, keepdim=True))
            elif dim is not None:
                assert_close(t.max_abs_dim(dim), torch.amax(x.abs(), dim, keepdim=True))


def test_max_min_nan():
    arr = np.array([[1.0, NAN, 3.0], [4.0, 5.0, -INF], [NAN, NAN, INF]])
    for dtype in on_device(["float64", "float32", "float16", "bfloat16"]):
        t = ember.from_numpy(arr).cast(dtype)
        x = to_torch(t)
        for dim in (None, 0, 1, (0, 1)):
            assert_close(t.max(dim), torch_reduce(torch.amax, x, dim, False))
            assert_close(t.min(dim), torch_reduce(torch.amin, x, dim, False))
            assert_close(t.max_abs(dim), torch_reduce(torch.amax, x.abs(), dim, False))


# -- argmax, argmin, with_indices, argtopk -------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16", "int64", "int8",
                                   "uint8"])
def test_argmax_argmin(rng, dtype):
    for t, before in cases(rng, dtype):
        x = to_torch(t)
        if t.numel():
            assert_close(t.argmax(), torch.argmax(x))
            assert_close(t.argmin(), torch.argmin(x))
            assert_close(t.argmax(keepdim=True), torch.argmax(x, None, keepdim=True))
        for dim in range(-t.ndim, t.ndim):
            if t.shape[dim] == 0:
                continue
            assert_close(t.argmax(dim), torch.argmax(x, dim, keepdim=True))
            assert_close(t.argmin(dim), torch.argmin(x, dim, keepdim=True))
            assert_close(t.argmax(dim, keepdim=False), torch.argmax(x, dim))
        unchanged(t, before)


def test_argmax_bool_as_numpy(rng):
    arr = rng.random((3, 4)) < 0.5
    t = ember.from_numpy(arr)
    assert t.argmax(1).tolist() == np.argmax(arr, 1)[:, None].tolist()
    assert t.argmin().tolist() == int(np.argmin(arr))


@pytest.mark.half_precision
def test_argmax_nan_and_ties():
    arr = np.array([[1.0, NAN, 3.0, NAN], [2.0, 7.0, 7.0, 1.0], [-INF, -INF, -INF, -INF]])
    for dtype in on_device(["float64", "float32", "float16"]):
        t = ember.from_numpy(arr.astype(dtype))
        x = torch.from_numpy(arr.astype(dtype))
        for dim in (0, 1, -1):
            assert_close(t.argmax(dim), torch.argmax(x, dim, keepdim=True))
            assert_close(t.argmin(dim), torch.argmin(x, dim, keepdim=True))
        assert t.argmax().tolist() == 1 and t.argmin().tolist() == 1
    assert T([[1.0, NAN, 3.0, NAN]]).cast("bfloat16").argmin(1).tolist() == [[1]]
    assert T([2, 5, 5, 1]).argmax(0).tolist() == [1]
    assert T([2, 1, 5, 1]).argmin(0).tolist() == [1]


def test_argmax_0d():
    t = T(5.0)
    assert t.argmax().tolist() == 0 and t.argmax().shape == ()
    assert t.argmax(0).shape == () and t.argmin(-1).tolist() == 0


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16", "int32", "uint8",
                                   "bool"])
def test_max_min_dim_with_indices(rng, dtype):
    for t, before in cases(rng, dtype):
        x = to_torch(t)
        for dim in range(-t.ndim, t.ndim):
            if t.shape[dim] == 0:
                continue
            for method, tfn, npfn in ((t.max_dim_with_indices, torch.amax, np.argmax),
                                      (t.min_dim_with_indices, torch.amin, np.argmin)):
                values, index = method(dim)
                assert_close(values, tfn(x, dim, keepdim=True))
                # the lowest index of the extreme (torch.max(dim) does not promise it)
                want = npfn(np.asarray(t.numpy()).astype(np.float64), axis=dim)
                assert index.dtype == ember.int64
                assert index.tolist() == np.expand_dims(want, dim).tolist()
        unchanged(t, before)
    if dtype == "float32":
        values, index = T(2.5).max_dim_with_indices(0)
        assert values.shape == () and values.tolist() == 2.5 and index.tolist() == 0


def test_with_indices_nan():
    t = T([[1.0, NAN, 3.0, NAN], [2.0, 7.0, 7.0, 1.0]])
    values, index = t.max_dim_with_indices(1)
    assert np.isnan(values.numpy()[0, 0]) and values.tolist()[1] == [7.0]
    assert index.tolist() == [[1], [1]]
    values, index = t.min_dim_with_indices(1)
    assert np.isnan(values.numpy()[0, 0]) and values.tolist()[1] == [1.0]
    assert index.tolist() == [[1], [3]]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_argtopk_vs_torch(rng, dtype):
    for t, before in cases(rng, dtype):
        x = to_torch(t)
        for dim in range(-t.ndim, t.ndim):
            for k in sorted({0, min(1, t.shape[dim]), t.shape[dim] // 2, t.shape[dim]}):
                got = t.argtopk(k, dim)
                assert got.dtype == ember.int64
                assert_close(got, torch.topk(x, k, dim).indices)
        unchanged(t, before)


def test_argtopk_ties_nan_ints():
    assert T([NAN, 3.0, 1.0, NAN]).argtopk(3, 0).tolist() == [0, 3, 1]
    assert_close(T([NAN, 3.0, 1.0, NAN]).argtopk(3, 0),
                 torch.topk(torch.tensor([NAN, 3.0, 1.0, NAN]), 3).indices)
    rng = np.random.default_rng(1)
    for dtype in on_device(["int64", "int8", "uint8", "bool", "float16"]):
        arr = random_array(rng, (4, 9), dtype)
        t = ember.from_numpy(arr)
        for dim in (0, 1):
            want = np.argsort(-arr.astype(np.float64), axis=dim, kind="stable")
            got = t.argtopk(3, dim).numpy()
            np.testing.assert_array_equal(got, np.take(want, range(3), axis=dim))
    assert T(4.0).argtopk(1, 0).tolist() == 0
    assert T([2, 2, 2]).argtopk(2).tolist() == [0, 1]


# -- gradients against torch.autograd (float64) -------------------------------------------------

def test_grad_max_min_whole_ties_share_evenly(rng):
    arrays = [np.array([1.0, 3.0, 3.0, 2.0]), np.array([[5.0, 1.0], [5.0, 5.0]]),
              np.array([1.0, NAN, 3.0, NAN]), np.array(2.0), random_array(rng, (3, 4), "float64")]
    for arr in arrays:
        check_grad(arr, lambda x: x.max(), torch.max, rng)
        check_grad(arr, lambda x: x.min(), torch.min, rng)
        check_grad(arr, lambda x: x.max(keepdim=True),
                   lambda x: torch.max(x).reshape([1] * x.ndim), rng)


def test_grad_max_min_dim_goes_to_selected_index(rng):
    tied = np.array([[1.0, 3.0, 3.0, 2.0], [4.0, 4.0, 0.0, 4.0], [NAN, 1.0, NAN, 2.0]])
    for arr in list(grad_cases(rng, [(5,), (3, 4), (2, 3, 4)])) + [tied]:
        for dim in range(-arr.ndim, arr.ndim):
            check_grad(arr, lambda x: x.max_dim(dim), lambda x: torch.max(x, dim, True).values,
                       rng)
            check_grad(arr, lambda x: x.min_dim(dim), lambda x: torch.min(x, dim, True).values,
                       rng)
            check_grad(arr, lambda x: x.max(dim), lambda x: torch.max(x, dim).values, rng)
            check_grad(arr, lambda x: x.max_dim_with_indices(dim)[0],
                       lambda x: torch.max(x, dim, True).values, rng)
            check_grad(arr, lambda x: x.min_dim_with_indices(dim)[0],
                       lambda x: torch.min(x, dim, True).values, rng)
    check_grad(np.array(3.0), lambda x: x.max_dim_with_indices(0)[0],
               lambda x: torch.max(x, 0).values, rng)


def test_grad_max_dims_tuple(rng):
    # without ties the selected element is torch's amax choice too
    for arr in grad_cases(rng, [(3, 4), (2, 3, 4)]):
        for dims in [(0, 1), (-1, 0), tuple(range(arr.ndim))]:
            check_grad(arr, lambda x: x.max_dims(dims), lambda x: torch.amax(x, dims, True), rng)
            check_grad(arr, lambda x: x.min(dims), lambda x: torch.amin(x, dims), rng)
    # with ties: everything to the first extreme in row-major order over the reduced dims
    x = ember.tensor([[[1.0, 7.0], [7.0, 2.0]], [[7.0, 0.0], [3.0, 7.0]]]).require_grad()
    x.max_dims([1, 2]).backward(ember.tensor([[[2.0]], [[5.0]]], dtype="float32"))
    assert x.grad.tolist() == [[[0.0, 2.0], [0.0, 0.0]], [[5.0, 0.0], [0.0, 0.0]]]
    x = ember.tensor([[1.0, 0.0], [0.0, 0.0]]).require_grad()
    x.min((0, 1)).backward()
    assert x.grad.tolist() == [[0.0, 1.0], [0.0, 0.0]]


def test_grad_max_abs(rng):
    tied = np.array([[3.0, -3.0, 1.0], [0.0, 0.0, 0.0]])
    for arr in list(grad_cases(rng, [(5,), (3, 4)])) + [tied, np.array([0.0, 0.0])]:
        check_grad(arr, lambda x: x.max_abs(), lambda x: x.abs().max(), rng)
        for dim in range(-arr.ndim, arr.ndim):
            check_grad(arr, lambda x: x.max_abs_dim(dim),
                       lambda x: x.abs().max(dim, keepdim=True).values, rng)
    arr = random_array(rng, (3, 4), "float64")
    check_grad(arr, lambda x: x.max_abs_dims([0, 1]), lambda x: x.abs().amax((0, 1), True), rng)
