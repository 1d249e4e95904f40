"""ember/torch/resizing.py against torch 2.13: resize_, resize_as_, set_ and as_strided_
(values, shapes, dtypes, the identity of the result, the leaf rule and errors)."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import GraphError, InvalidParameterError, KindError
from oracle import assert_close


@pytest.mark.parametrize("start,sizes", [((4,), (2, 2)), ((6,), (2, 2)), ((2, 3), (6,)),
                                         ((3,), ()), ((2, 2), (0,)), ((0,), (0, 3))])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_resize_shrinking_or_keeping_the_size(start, sizes, dtype):
    values = np.arange(int(np.prod(start)), dtype=dtype).reshape(start)
    x, t = et.tensor(values), torch.tensor(values)
    assert x.resize_(sizes) is x
    t.resize_(sizes)
    assert_close(x, t)


def test_resize_growing_keeps_the_values_and_adds_zeros():
    x, t = et.arange(4.0), torch.arange(4.0)
    x.resize_((2, 3))
    t.resize_((2, 3))
    assert tuple(x.shape) == tuple(t.shape)
    # PyTorch's added elements are uninitialised; ember's are zeros
    assert_close(x.reshape(-1)[:4], t.reshape(-1)[:4])
    assert x.reshape(-1)[4:].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("template", [(1, 2), (3,), (2, 2)])
def test_resize_as_(template):
    x, t = et.arange(4.0), torch.arange(4.0)
    assert et.resize_as_(x, et.zeros(template)) is x
    torch.resize_as_(t, torch.zeros(template))
    assert_close(x, t)
    y, u = et.arange(4), torch.arange(4)
    y.resize_as_(et.zeros(2, 2))
    u.resize_as_(torch.zeros(2, 2))
    assert_close(y, u)


def test_resize_leaf_requiring_grad_and_bad_sizes():
    with pytest.raises(RuntimeError):
        torch.ones(2, requires_grad=True).resize_(3)
    with pytest.raises(GraphError):
        et.ones(2, requires_grad=True).resize_(3)
    with pytest.raises(InvalidParameterError):
        et.ones(2).resize_(-1)
    with pytest.raises(TypeError):
        torch.ones(2).resize_()
    with pytest.raises(InvalidParameterError):
        et.ones(2).resize_()
    with pytest.raises(KindError):
        et.ones(2).resize_(1.5)
    with pytest.raises(KindError):
        et.resize_as_(et.ones(2), (2,))


@pytest.mark.parametrize("args", [(), ("src",), ("src", 1, (2, 2), (1, 2)), ("src", 0, (3,)),
                                  ("src", 2, (2, 2), (2, 1))])
def test_set_as_torch(args):
    src = np.arange(6.0)
    x, t = et.zeros(1, dtype=et.float64), torch.zeros(1, dtype=torch.float64)
    ae = tuple(et.tensor(src) if a == "src" else a for a in args)
    at = tuple(torch.tensor(src) if a == "src" else a for a in args)
    assert x.set_(*ae) is x
    t.set_(*at)
    assert_close(x, t)


def test_set_refuses_another_dtype_as_torch():
    with pytest.raises(RuntimeError):
        torch.ones(2).set_(torch.zeros(3, dtype=torch.float64))
    with pytest.raises(KindError):
        et.ones(2).set_(et.zeros(3, dtype=et.float64))
    with pytest.raises(KindError):
        et.ones(2).set_([1.0])
    with pytest.raises(InvalidParameterError):
        et.ones(2).set_(None, 1)


@pytest.mark.parametrize("shape,size,stride,offset", [((6,), (2, 2), (1, 2), 1),
                                                      ((2, 3), (3, 2), (1, 1), 0),
                                                      ((5,), (), (), 4)])
def test_as_strided_(shape, size, stride, offset):
    values = np.arange(int(np.prod(shape)), dtype="float64").reshape(shape)
    x, t = et.tensor(values), torch.tensor(values)
    assert x.as_strided_(size, stride, offset) is x
    t.as_strided_(size, stride, offset)
    assert_close(x, t)
    y, u = et.tensor(values), torch.tensor(values)
    assert et.as_strided_(y, size, stride, offset) is y
    torch.as_strided_(u, size, stride, offset)
    assert_close(y, u)
    with pytest.raises(KindError):
        et.as_strided_(values, size, stride, offset)
