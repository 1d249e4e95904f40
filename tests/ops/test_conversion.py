"""Tests of ember/ops/conversion.py: item/into_scalar, Python number conversions (float, int,
bool, operator.index), the int()/float()/bool() methods and the NumPy array protocol."""

import math
import operator

import numpy as np
import pytest

import ember
from ember import InvalidParameterError, KindError
from oracle import assert_close, layouts, random_array, to_torch
from test_data import ALL_DTYPES, arr_of, tensor_of


# -- item, into_scalar, Python numbers ----------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (1, 1, 1)])
def test_item_vs_torch(rng, dtype, shape):
    t = tensor_of(arr_of(rng, shape, dtype), dtype)
    tt = to_torch(t)
    assert t.item() == tt.item() and type(t.item()) is type(tt.item())
    assert t.into_scalar() == tt.item()
    assert float(t) == float(tt) and type(float(t)) is float
    assert int(t) == int(tt)
    assert bool(t) == bool(tt)
    if t.kind == "int":
        assert operator.index(t) == operator.index(tt)
        seq = [10, 11, 12, 13, 14, 15]
        assert seq[t] == seq[tt.item()]


@pytest.mark.half_precision
def test_into_scalar_dtype():
    assert ember.tensor([2.7]).into_scalar(int) == 2
    assert ember.tensor([[0.0]]).into_scalar("bool") is False
    assert ember.tensor(3).into_scalar(float) == 3.0
    assert type(ember.tensor(3).into_scalar(ember.float16)) is float


@pytest.mark.half_precision
def test_python_number_conversions():
    assert int(ember.tensor(-2.7)) == -2 and int(ember.tensor([[2.7]])) == 2
    assert float(ember.tensor([True])) == 1.0
    assert bool(ember.tensor([[0.0]])) is False
    assert bool(ember.tensor(math.nan)) is True
    assert [1, 2, 3][ember.tensor(1)] == 2
    assert list(range(10))[ember.tensor(2):ember.tensor([5])] == [2, 3, 4]
    assert math.floor(float(ember.from_data(2.5, dtype="bfloat16"))) == 2
    assert f"{ember.tensor(2.5):.3f}" == "2.500"
    assert complex(float(ember.tensor(1.5))) == 1.5


@pytest.mark.parametrize("shape", [(0,), (2,), (2, 3), (1, 0)])
def test_one_element_errors(shape):
    t = ember.zeros(shape)
    with pytest.raises(InvalidParameterError, match=r"item: the tensor has \d+ elements .*expected exactly one element"):
        t.item()
    with pytest.raises(InvalidParameterError, match="into_scalar: the tensor has"):
        t.into_scalar()
    with pytest.raises(InvalidParameterError, match="float: the tensor has"):
        float(t)
    with pytest.raises(InvalidParameterError, match="int: the tensor has"):
        int(t)
    with pytest.raises(InvalidParameterError, match="bool: the truth value of a tensor with .* is ambiguous"):
        bool(t)
    with pytest.raises(ValueError):  # InvalidParameterError is a ValueError, as NumPy raises
        if t:
            pass
    with pytest.raises(KindError, match="__index__: only one-element int tensors"):
        operator.index(ember.zeros(shape, dtype="int64"))
    assert t.shape == shape


def test_index_and_int_errors():
    with pytest.raises(KindError, match=r"__index__: only one-element int tensors can be used as an index, got shape \(\) and dtype float32"):
        operator.index(ember.tensor(1.0))
    with pytest.raises(TypeError):  # KindError is a TypeError: the protocol's error
        [1, 2][ember.tensor(True)]
    with pytest.raises(InvalidParameterError, match="int: cannot convert nan to an int"):
        int(ember.tensor(math.nan))
    with pytest.raises(InvalidParameterError, match="int: cannot convert inf"):
        int(ember.tensor([math.inf]))
    with pytest.raises(InvalidParameterError, match="into_scalar: dtype 'z' is not an ember dtype"):
        ember.tensor(1).into_scalar("z")
    with pytest.raises(InvalidParameterError, match="format: spec '.2f' needs a one-element tensor"):
        f"{ember.tensor([1.0, 2.0]):.2f}"


# -- int(), float(), bool() methods ------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_kind_casts_vs_torch(rng, dtype):
    arr = np.asarray(random_array(rng, (3, 5), dtype, low=-50, high=50))
    for _, a in layouts(arr):
        t = tensor_of(a, dtype)
        tt = to_torch(t)
        assert_close(t.bool(), tt.bool())
        assert_close(t.float(), tt.float())
        assert_close(t.int(), tt.long())


def test_float_method_gradient():
    x = ember.tensor([1.5, -2.0], dtype="float64", requires_grad=True)
    y = x.float()
    assert y.dtype == ember.float32 and y.is_tracked()
    y.backward(ember.tensor([2.0, 3.0]))
    assert x.grad.dtype == ember.float64 and x.grad.tolist() == [2.0, 3.0]
    assert not x.int().is_tracked() and not x.bool().is_tracked()


# -- __array__ ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "int16", "bool", "bfloat16"])
def test_array_protocol(rng, dtype):
    for _, arr in layouts(np.asarray(random_array(rng, (3, 4), dtype))):
        t = tensor_of(arr, dtype)
        a = np.asarray(t)
        assert np.shares_memory(a, t.numpy()) and not a.flags.writeable
        assert a.strides == t.numpy().strides
        np.testing.assert_array_equal(a, t.numpy())
        c = np.array(t)  # np.array copies by default: a writable copy
        assert not np.shares_memory(c, t.numpy()) and c.flags.writeable
        f = np.asarray(t, dtype=np.float64)
        np.testing.assert_array_equal(f, t.numpy().astype(np.float64))
        v = np.asarray(t, dtype=t.numpy().dtype, copy=False)
        assert np.shares_memory(v, t.numpy())
        with pytest.raises(InvalidParameterError, match="__array__: converting .* needs a copy, but copy=False"):
            np.asarray(t, dtype=np.complex64, copy=False)


def test_array_protocol_does_not_expose_writable_buffer():
    base = np.arange(4.0)
    t = ember.from_numpy(base)
    with pytest.raises(ValueError):
        np.asarray(t)[0] = 5.0
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
