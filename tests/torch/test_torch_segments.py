"""ember/torch/segments.py against torch 2.13: segment_reduce with lengths or offsets, every
reduction, axis, initial, unsafe, empty segments: values, dtypes, gradients and errors."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError
from math_oracle import check, rand

REDUCE = ["sum", "prod", "mean", "max", "min", "amax", "amin"]


@pytest.mark.parametrize("reduce", REDUCE)
@pytest.mark.parametrize("lengths", [[2, 0, 4], [6], [1, 1, 1, 1, 1, 1], [0, 6, 0]])
@pytest.mark.parametrize("initial", [None, 0.5])
def test_1d(reduce, lengths, initial):
    x = rand((6,), "float64")

    def f(m, a):
        return m.segment_reduce(a, reduce, lengths=m.tensor(lengths), initial=initial)
    check(f, x, grad=reduce != "prod" or initial is None)


@pytest.mark.parametrize("reduce", REDUCE)
def test_offsets_and_trailing_dims(reduce):
    x = rand((6, 2), "float64")
    check(lambda m, a: m.segment_reduce(a, reduce, offsets=m.tensor([0, 2, 2, 6])), x)


@pytest.mark.parametrize("reduce", ["sum", "mean", "max"])
def test_axis_with_per_row_lengths(reduce):
    x = rand((2, 6, 3), "float64")
    lengths = [[2, 0, 4], [1, 2, 3]]
    check(lambda m, a: m.segment_reduce(a, reduce, lengths=m.tensor(lengths), axis=1), x)
    check(lambda m, a: m.segment_reduce(a, reduce, offsets=m.tensor([[0, 2, 2, 6],
                                                                     [0, 1, 3, 6]]), axis=1), x)


def test_float32_empty_and_ties():
    check(lambda m, a: m.segment_reduce(a, "sum", lengths=m.tensor([2, 1])),
          rand((3,), "float32"))
    check(lambda m, a: m.segment_reduce(a, "sum", lengths=m.tensor([0, 0])),
          np.zeros(0), grad=False)
    ties = np.array([1.0, 3.0, 3.0, 2.0])
    check(lambda m, a: m.segment_reduce(a, "max", lengths=m.tensor([4])), ties)
    zeros = np.array([1.0, 3.0, 0.0, 2.0])
    check(lambda m, a: m.segment_reduce(a, "prod", lengths=m.tensor([2, 2])), zeros)


def test_unsafe_lengths_that_do_not_cover_the_data():
    x = rand((6,), "float64")
    check(lambda m, a: m.segment_reduce(a, "sum", lengths=m.tensor([2, 1]), unsafe=True), x,
          grad=False)


def test_errors_as_torch():
    d, t = et.arange(6.0), torch.arange(6.0)
    cases = [
        (dict(reduce="sum", lengths=[2, 0, 3]), InvalidParameterError, RuntimeError),
        (dict(reduce="sum"), InvalidParameterError, RuntimeError),
        (dict(reduce="median", lengths=[6]), InvalidParameterError, RuntimeError),
        (dict(reduce="sum", lengths=[7, -1]), InvalidParameterError, RuntimeError),
        (dict(reduce="sum", lengths=[6], indices=[0]), InvalidParameterError, RuntimeError),
    ]
    for kw, ours, theirs in cases:
        ke = {k: (et.tensor(v) if isinstance(v, list) else v) for k, v in kw.items()}
        kt = {k: (torch.tensor(v) if isinstance(v, list) else v) for k, v in kw.items()}
        with pytest.raises(theirs):
            torch.segment_reduce(t, **kt)
        with pytest.raises(ours):
            et.segment_reduce(d, **ke)
    with pytest.raises(KindError):
        et.segment_reduce(et.arange(6), "sum", lengths=et.tensor([6]))
    with pytest.raises(KindError):
        et.segment_reduce(d, "sum", lengths=et.tensor([6.0]))
    with pytest.raises(ShapeMismatchError):
        et.segment_reduce(d, "sum", lengths=et.tensor([[6]]))
    with pytest.raises(InvalidParameterError):
        et.segment_reduce(d, "sum", lengths=et.tensor([6]), axis=3)
