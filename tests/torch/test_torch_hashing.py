"""ember/torch/hashing.py against torch 2.13: hash_tensor's XOR reduction of 64-bit patterns,
over all dims or some, keepdim, every dtype kind; errors."""

import pytest
import torch

import ember.torch as et
from ember.errors import DimensionError, InvalidParameterError, KindError
from math_oracle import rand
from oracle import assert_close

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (2, 3, 4)])
def test_hash_of_all_elements(dtype, shape):
    x = rand(shape, dtype, low=-100, high=100) if dtype != "uint8" else rand(shape, dtype, low=0,
                                                                           high=255)
    assert_close(et.hash_tensor(et.tensor(x)), torch.hash_tensor(torch.tensor(x)))
    assert_close(et.tensor(x).hash_tensor(), torch.tensor(x).hash_tensor())


@pytest.mark.parametrize("dim", [0, 1, -1, (0, 2), [1, 2]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_hash_over_dims(dim, keepdim):
    x = rand((2, 3, 4), "float32")
    assert_close(et.hash_tensor(et.tensor(x), dim, keepdim=keepdim),
                 torch.hash_tensor(torch.tensor(x), dim, keepdim=keepdim))


def test_empty_reductions_as_torch():
    assert_close(et.hash_tensor(et.zeros(0, 3), 1), torch.hash_tensor(torch.zeros(0, 3), 1))
    with pytest.raises(IndexError):
        torch.hash_tensor(torch.zeros(0, 3), 0)
    with pytest.raises(DimensionError):
        et.hash_tensor(et.zeros(0, 3), 0)
    with pytest.raises(RuntimeError):
        torch.hash_tensor(torch.zeros(0))
    with pytest.raises(InvalidParameterError, match="dim"):
        et.hash_tensor(et.zeros(0))


def test_errors():
    with pytest.raises(NotImplementedError):
        torch.hash_tensor(torch.ones(2, dtype=torch.complex64))
    with pytest.raises(KindError):
        et.hash_tensor(et.ones(2, dtype=et.complex64))
    with pytest.raises(InvalidParameterError):
        et.hash_tensor(et.ones(2), mode=1)
    with pytest.raises(InvalidParameterError):
        et.hash_tensor(et.ones(2), 3)
    with pytest.raises(KindError):
        et.hash_tensor([1.0])
    with pytest.raises(InvalidParameterError):
        et.hash_tensor(et.ones(2, 2), (0, 0))


def test_hash_of_a_tensor_that_requires_grad():
    x = rand((3,), "float64")
    assert_close(et.hash_tensor(et.tensor(x, requires_grad=True)),
                 torch.hash_tensor(torch.tensor(x, requires_grad=True)))


def test_unsigned_types_torch_leaves_out():
    # PyTorch has no xor reduction of uint16/32/64; ember XORs their 64-bit patterns
    values = [2 ** 40 + 5, 3, 2 ** 50 - 1]
    expected = values[0] ^ values[1] ^ values[2]
    assert et.hash_tensor(et.tensor(values, dtype=et.uint64)).item() == expected
    assert et.hash_tensor(et.tensor([7, 2 ** 31], dtype=et.uint32)).item() == 7 ^ 2 ** 31
    with pytest.raises(NotImplementedError):
        torch.hash_tensor(torch.tensor([1, 2], dtype=torch.uint32))
