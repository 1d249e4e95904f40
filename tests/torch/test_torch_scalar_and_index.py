"""ember/torch/scalar_and_index.py against torch 2.13: scalar_tensor and unravel_index."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError
from oracle import assert_close


@pytest.mark.parametrize("value", [3, 2.5, True, -7, 0])
@pytest.mark.parametrize("dtype", [None, "float64", "int32", "int64", "bool", "complex64"])
def test_scalar_tensor(value, dtype):
    kw_e = {} if dtype is None else {"dtype": getattr(et, dtype)}
    kw_t = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    assert_close(et.scalar_tensor(value, **kw_e), torch.scalar_tensor(value, **kw_t))


def test_scalar_tensor_requires_grad_and_errors():
    x, t = et.scalar_tensor(1.5, requires_grad=True), torch.scalar_tensor(1.5, requires_grad=True)
    assert x.requires_grad == t.requires_grad is True
    (x * 3).backward()
    (t * 3).backward()
    assert x.grad.item() == t.grad.item() == 3.0
    with pytest.raises(RuntimeError):
        torch.scalar_tensor(1 + 2j)
    with pytest.raises(InvalidParameterError):
        et.scalar_tensor(1 + 2j)
    with pytest.raises(KindError):
        et.scalar_tensor("1")
    assert_close(et.scalar_tensor(1 + 2j, dtype=et.complex64),
                 torch.scalar_tensor(1 + 2j, dtype=torch.complex64))


CASES = [(4, (3, 2)), ([[1, 5], [4, 0]], (3, 2)), ([7, 0, 3], (2, 2, 2)), ([-1, -7, 6], (3, 2)),
         ([3], 5), ([3], torch.Size([5])), ([], (3, 0)), ([2, 11], (4, 1, 3))]


@pytest.mark.parametrize("indices,shape", CASES)
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_unravel_index(indices, shape, dtype):
    idx = np.array(indices, dtype=dtype)
    shape_e = tuple(shape) if isinstance(shape, torch.Size) else shape
    out_e = et.unravel_index(et.tensor(idx), shape_e)
    out_t = torch.unravel_index(torch.tensor(idx), shape)
    assert isinstance(out_e, tuple) and len(out_e) == len(out_t)
    for a, b in zip(out_e, out_t):
        assert_close(a, b)


def test_unravel_index_of_an_empty_shape_and_errors():
    assert et.unravel_index(et.tensor(0), ()) == torch.unravel_index(torch.tensor(0), ()) == ()
    with pytest.raises(TypeError):
        torch.unravel_index(torch.tensor([1.0]), (3, 2))
    with pytest.raises(KindError):
        et.unravel_index(et.tensor([1.0]), (3, 2))
    with pytest.raises(KindError):
        et.unravel_index(et.tensor([True]), (3,))
    with pytest.raises(ValueError):
        torch.unravel_index(torch.tensor([1]), (3, -2))
    with pytest.raises(InvalidParameterError):
        et.unravel_index(et.tensor([1]), (3, -2))
    with pytest.raises(KindError):
        et.unravel_index(3, (3,))
    with pytest.raises(KindError):
        et.unravel_index(et.tensor([1]), (3.0,))
