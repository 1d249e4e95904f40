"""ember/torch/slicing_inverse.py against torch 2.13: slice_inverse of a slice of a tensor gives
that tensor, with the slice's values written in (values, shapes, dtypes, gradients)."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import KindError, ShapeMismatchError
from math_oracle import check, rand

CASES = [((4, 3), 0, 1, 3, 1), ((4, 3), 1, 0, 3, 2), ((5,), 0, None, None, 1), ((2, 6), 1, 1, 6, 2),
         ((3, 0), 0, 0, 2, 1), ((4, 3), -1, 0, 2, 1), ((6,), 0, 2, 2, 1)]


@pytest.mark.parametrize("shape,dim,start,end,step", CASES)
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_slice_inverse_of_a_view(shape, dim, start, end, step, dtype):
    base = rand(shape, dtype)
    sl = [slice(None)] * len(shape)
    sl[dim] = slice(start, end, step)

    def f(m, b):
        view = b[tuple(sl)]
        return m.slice_inverse(view, b, dim, start, end, step)
    check(f, base, grad=False)


@pytest.mark.parametrize("shape,dim,start,end,step", CASES[:4])
def test_slice_inverse_gradients(shape, dim, start, end, step):
    # a slice that is a view in PyTorch gives back its base; ember composes it as a scatter of
    # the slice into src, so both inputs get gradients (PyTorch's view gives the same values)
    base = rand(shape, "float64")
    sl = [slice(None)] * len(shape)
    sl[dim] = slice(start, end, step)
    src = et.tensor(base, requires_grad=True)
    part = et.tensor(base[tuple(sl)] * 2, requires_grad=True)
    out = et.slice_inverse(part, src, dim, start, end, step)
    expected = torch.slice_scatter(torch.tensor(base), torch.tensor(base[tuple(sl)] * 2), dim,
                                   start, end, step)
    np.testing.assert_allclose(out.detach().numpy(), expected.numpy())
    (out * out).sum().backward()
    np.testing.assert_allclose(part.grad.numpy(), 2 * base[tuple(sl)] * 2)
    mask = np.ones(shape)
    mask[tuple(sl)] = 0
    np.testing.assert_allclose(src.grad.numpy(), 2 * base * mask)


def test_method_and_errors():
    b = et.arange(12.0).reshape(4, 3)
    assert b[1:3].slice_inverse(b, 0, 1, 3).tolist() == \
        torch.arange(12.0).reshape(4, 3)[1:3].slice_inverse(
            torch.arange(12.0).reshape(4, 3), 0, 1, 3).tolist()
    with pytest.raises(KindError):
        et.slice_inverse([1.0], b)
    with pytest.raises(ShapeMismatchError):
        et.slice_inverse(et.ones(2, 1), et.zeros(2, 3), 1, 0, 3, 2)
