"""ember.torch's histograms, bincount, bucketize and searchsorted against PyTorch."""

import numpy as np
import pytest

import ember.torch as et
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError
from math_oracle import check, rand

NAN = float("nan")


@pytest.mark.parametrize("args", [(), (10,), (5, -1.0, 1.0), (4, 0.0, 0.0), (3, 2.0, 2.0)])
def test_histc(args):
    check(lambda m, x: m.histc(x, *args), rand((50,)), grad=False)
    check(lambda m, x: x.T.histc(*args), rand((4, 6), "float64"), grad=False)
    check(lambda m, x: m.histc(x, *args), rand((0,)), grad=False)
    check(lambda m, x: m.histc(x, *args), np.full((3,), 2.0, np.float32), grad=False)


def test_histc_errors():
    with pytest.raises(KindError):
        et.histc(et.tensor([1, 2]))
    with pytest.raises(InvalidParameterError):
        et.histc(et.ones(3), bins=0)
    with pytest.raises(InvalidParameterError):
        et.histc(et.ones(3), 3, 2.0, 1.0)


@pytest.mark.parametrize("density", [False, True])
def test_histogram(density):
    kw = dict(density=density)
    check(lambda m, x: tuple(m.histogram(x, 7, **kw)), rand((40,)), grad=False)
    check(lambda m, x: tuple(x.T.histogram(4, range=(-1.0, 2.0), **kw)), rand((3, 5)),
          grad=False)
    edges = np.array([-2.0, -0.5, 0.0, 0.3, 2.5], np.float32)
    check(lambda m, x, e: tuple(m.histogram(x, e, **kw)), rand((30,)), edges, grad=False)
    w = np.abs(rand((30,), seed=3))
    check(lambda m, x, w: tuple(m.histogram(x, 5, weight=w, **kw)), rand((30,)), w, grad=False)
    check(lambda m, x: tuple(m.histogram(x, 3, **kw)), np.ones(2, np.float32), grad=False)
    check(lambda m, x: tuple(m.histogram(x, 3)), rand((0,)), grad=False)
    assert et.histogram(et.ones(2), 2).hist.tolist() == [0.0, 2.0]


@pytest.mark.parametrize("density", [False, True])
def test_histogramdd(density):
    kw = dict(density=density)

    def flat(r):
        return (r.hist, *r.bin_edges)

    check(lambda m, x: flat(m.histogramdd(x, 3, **kw)), rand((40, 2)), grad=False)
    check(lambda m, x: flat(m.histogramdd(x, [2, 3, 4], **kw)), rand((40, 3), "float64"),
          grad=False)
    check(lambda m, x: flat(m.histogramdd(x, [2, 3], range=[-1.0, 1.0, 0.0, 2.0], **kw)),
          rand((5, 8, 2)), grad=False)
    e0, e1 = np.array([-3.0, 0.0, 3.0], np.float32), np.array([-1.0, 1.0], np.float32)
    w = np.abs(rand((20,), seed=4))
    check(lambda m, x, a, b, w: flat(m.histogramdd(x, [a, b], weight=w, **kw)), rand((20, 2)),
          e0, e1, w, grad=False)


def test_bincount():
    x = rand((30,), "int64", low=0, high=7)
    check(lambda m, x: m.bincount(x), x)
    check(lambda m, x: x.bincount(minlength=10), x)
    check(lambda m, x, w: m.bincount(x, w), x, rand((30,)), grad=False)
    check(lambda m, x, w: x.bincount(weights=w, minlength=9), x, rand((30,), "float64"),
          grad=False)
    check(lambda m, x, w: m.bincount(x, w), x, rand((30,), "int32"))
    check(lambda m, x: m.bincount(x), np.zeros((0,), np.int64))
    check(lambda m, x: m.bincount(x, minlength=3), np.zeros((0,), np.int32))
    with pytest.raises(InvalidParameterError):
        et.bincount(et.tensor([-1, 2]))
    with pytest.raises(KindError):
        et.bincount(et.tensor([1.0]))
    with pytest.raises(ShapeMismatchError):
        et.bincount(et.tensor([[1]]))


@pytest.mark.parametrize("right", [False, True])
def test_bucketize_searchsorted(right):
    b = np.array([-1.0, 0.0, 0.0, 1.5, 2.0], np.float32)
    v = np.concatenate([rand((3, 4)).ravel(), [0.0, 2.0, -1.0, NAN, 9.0]]).astype(np.float32)
    check(lambda m, v, b: m.bucketize(v, b, right=right), v, b, grad=False)
    check(lambda m, v, b: m.bucketize(v.reshape(3, 4).T, b, right=right, out_int32=True),
          v[:12], b, grad=False)
    check(lambda m, v, b: m.searchsorted(b, v, right=right), v, b, grad=False)
    check(lambda m, v, b: m.searchsorted(b, v, side="right" if right else "left"), v, b,
          grad=False)
    seq = np.sort(rand((3, 6)), axis=1)
    check(lambda m, s, v: m.searchsorted(s, v, right=right), seq, rand((3, 4), seed=1),
          grad=False)
    check(lambda m, s: m.searchsorted(s, m.tensor(2), right=right), np.sort(rand((5,), "int64")),
          grad=False)
    unsorted = rand((6,))
    order = np.argsort(unsorted, kind="stable")
    check(lambda m, s, v: m.searchsorted(s, v, sorter=m.tensor(order), right=right), unsorted,
          rand((4,), seed=2), grad=False)
    check(lambda m, b: m.bucketize(0.5, b, right=right), b, grad=False)
    check(lambda m, v, b: m.bucketize(v, b), rand((0,)), b, grad=False)
    check(lambda m, v, b: m.bucketize(v, b), rand((3,)), np.zeros((0,), np.float32), grad=False)


def test_bucketize_ints_and_errors():
    check(lambda m, v, b: m.bucketize(v, b), rand((10,), "int64"), np.array([-1, 0, 2]))
    with pytest.raises(ShapeMismatchError):
        et.bucketize(et.ones(3), et.ones(2, 2))
    with pytest.raises(ShapeMismatchError):
        et.searchsorted(et.ones(2, 3), et.ones(3, 3))
    with pytest.raises(InvalidParameterError):
        et.searchsorted(et.ones(3), et.ones(2), side="middle")
    with pytest.raises(InvalidParameterError):
        et.searchsorted(et.ones(3), et.ones(2), right=True, side="left")
