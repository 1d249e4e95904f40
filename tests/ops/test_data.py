"""Tests of ember/ops/data.py: TensorData, to_data*, casts, devices, clones and pickling (the
Python number conversions and the NumPy array protocol: test_conversion.py)."""

import copy
import math
import pickle

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import ember
from ember import InvalidParameterError, KindError, ShapeMismatchError, Tensor, TensorData
from oracle import (SHAPES, TORCH_DTYPES, assert_close, assert_unchanged, ember_tensor, layouts,
                    random_array, snapshot, to_torch)

ALL_DTYPES = list(TORCH_DTYPES)


def arr_of(rng, shape, dtype):
    """Random values of ``dtype`` (bfloat16 values made exact in bfloat16)."""
    a = np.asarray(random_array(rng, shape, dtype))
    return a


def tensor_of(arr, dtype):
    return ember_tensor(arr, "bfloat16" if dtype == "bfloat16" else None)


# -- the spec's examples ------------------------------------------------------------------------

def test_spec_select_dim_assert_eq():
    # select_dim's example reads its results with to_data().assert_eq(TensorData::from(..), false)
    Tensor.from_data([4.0, 5.0, 6.0]).to_data().assert_eq(TensorData([4.0, 5.0, 6.0]), False)
    Tensor.from_data([2.0, 5.0]).to_data().assert_eq(
        TensorData([2.0, 5.0], dtype="float64"), strict=False)
    with pytest.raises(AssertionError, match="assert_eq: dtype float32 != float64"):
        Tensor.from_data([2.0, 5.0]).to_data().assert_eq(TensorData([2.0, 5.0], dtype="float64"))


def test_spec_into_scalar():
    t = Tensor.from_data([[3.0]])
    s = t.into_scalar()
    assert s == 3.0 and type(s) is float


def test_spec_bool_int_float():
    b = Tensor.from_bool([True, False, True])
    assert str(b.int()) == "[1, 0, 1]" and b.int().dtype == ember.int64
    assert str(b.float()) == "[1.0, 0.0, 1.0]" and b.float().dtype == ember.float32
    assert b.cast("int64").tolist() == [1, 0, 1]
    assert b.cast("float32").dtype == ember.float32
    f = Tensor.from_data([[1.0, -2.0, 3.0], [0.0, 9.0, 6.0]])
    assert str(f.bool()) == "[[True, True, True], [False, True, True]]"
    assert Tensor.from_floats([1.0, 2.0]).int().tolist() == [1, 2]
    assert Tensor.from_floats([1.0, 2.5]).cast("float64").dtype == ember.float64
    assert Tensor.from_floats([1.0, 2.5]).cast("int64").tolist() == [1, 2]
    assert Tensor.arange(range(0, 5)).cast("float32").tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_spec_slice_vec_as():
    assert Tensor.arange(range(0, 10)).to_vec_as("int32") == list(range(10))


# -- to_data ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_to_data_copies_values(rng, dtype):
    for shape in SHAPES:
        for _, arr in layouts(arr_of(rng, shape, dtype)):
            t = tensor_of(arr, dtype)
            before = t.numpy().copy()
            for d in (t.to_data(), t.into_data()):
                assert isinstance(d, TensorData)
                assert d.shape == shape and d.dtype == t.dtype and d.kind == t.kind
                assert d.ndim == len(shape) and d.num_elements() == t.numel()
                assert not np.shares_memory(d.values, t.numpy())
                assert not d.values.flags.writeable
                np.testing.assert_array_equal(d.values, t.numpy())
                assert d.to_list() == t.tolist() == d.tolist()
                assert d.to_vec() == to_torch(t).reshape(-1).tolist() or dtype == "bfloat16"
            np.testing.assert_array_equal(t.numpy(), before)


@pytest.mark.parametrize("src", ALL_DTYPES)
@pytest.mark.parametrize("dst", ["float64", "float32", "int64", "int8", "uint8", "bool", "bfloat16"])
def test_to_data_as_vs_torch(rng, src, dst):
    arr = np.asarray(random_array(rng, (3, 4), src, low=0, high=100))
    if src in ("float64", "float32", "float16", "bfloat16"):
        arr = np.abs(arr) * 20  # float to uint8 of a negative value is unspecified: avoid it
    t = tensor_of(arr, src)
    expected = to_torch(t).to(TORCH_DTYPES[dst])
    for d in (t.to_data_as(dst), t.to_data_dtype(dst), t.into_data_as(dst), t.into_data_dtype(dst),
              t.to_data().convert(dst), t.to_data().to_data_as(dst), t.to_data().convert_dtype(dst)):
        assert d.dtype.name == dst
        assert_close(ember.from_data(d), expected)
    assert t.to_vec_as(dst) == expected.reshape(-1).tolist() or dst == "bfloat16" \
        or src == "bfloat16"


def test_to_vec_as():
    t = ember.tensor([[1.5, -2.5], [3.0, 4.0]])
    assert t.to_vec_as() == [1.5, -2.5, 3.0, 4.0]
    assert t.into_vec_as(int) == [1, -2, 3, 4]
    assert ember.tensor(2).to_vec_as() == [2]
    with pytest.raises(InvalidParameterError, match="to_vec_as: dtype 'i' is not an ember dtype"):
        t.to_vec_as("i")


def test_to_data_as_bad_dtype():
    t = ember.tensor([1.0, 2.0])
    with pytest.raises(InvalidParameterError, match="to_data_as: dtype 'f8x' is not an ember dtype"):
        t.to_data_as("f8x")
    assert t.tolist() == [1.0, 2.0]


def test_to_data_of_tracked_tensor():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    d = x.to_data()
    assert d.to_list() == [1.0, 2.0] and x.is_require_grad()


# -- TensorData ---------------------------------------------------------------------------------

def test_tensordata_constructor():
    d = TensorData([[1, 2], [3, 4]])
    assert d.dtype == ember.int64 and d.shape == (2, 2)
    assert TensorData([1.0]).dtype == ember.float32
    assert TensorData([True]).dtype == ember.bool_
    assert TensorData(2.5).shape == ()
    assert TensorData([1, 2, 3, 4, 5, 6], shape=(2, 3)).to_list() == [[1, 2, 3], [4, 5, 6]]
    assert TensorData([1, 2, 3, 4], (4, 1)).shape == (4, 1)
    assert TensorData([1, 2], dtype="float64").to_list() == [1.0, 2.0]
    assert TensorData(TensorData([1, 2]), dtype="int8").dtype == ember.int8
    t = ember.tensor([1.0, 2.0])
    assert TensorData(t) == t.to_data()
    a = np.arange(4.0)
    d = TensorData(a)
    a[0] = 9.0
    assert d.to_list() == [0.0, 1.0, 2.0, 3.0] and d.dtype == ember.float64
    tt = torch.arange(3)
    d = TensorData(tt)
    tt[0] = 5
    assert d.to_list() == [0, 1, 2]


def test_tensordata_is_read_only():
    d = TensorData([1.0, 2.0])
    with pytest.raises(ValueError):
        d.values[0] = 3.0
    assert d.to_list() == [1.0, 2.0]
    c = d.numpy(copy=True)
    c[0] = 7.0
    assert d.to_list() == [1.0, 2.0]
    with pytest.raises(AttributeError):
        d.foo = 1


def test_tensordata_equality_and_repr():
    a = TensorData([1.0, math.nan])
    assert a == TensorData([1.0, math.nan])
    assert a != TensorData([1.0, math.nan], dtype="float64")
    assert a != TensorData([1.0, 2.0])
    assert TensorData([1, 2]) != TensorData([[1, 2]])
    assert (a == [1.0, math.nan]) is False
    with pytest.raises(TypeError):
        hash(a)
    assert repr(TensorData([[1, 2], [3, 4]], dtype="int8")) == \
        "TensorData([[1, 2], [3, 4]], shape=(2, 2), dtype=int8)"
    assert repr(TensorData(True)) == "TensorData(True, shape=(), dtype=bool)"
    assert repr(TensorData([])) == "TensorData([], shape=(0,), dtype=float32)"


def test_tensordata_array_protocol():
    d = TensorData([1, 2, 3])
    a = np.asarray(d)
    assert np.shares_memory(a, d.values) and not a.flags.writeable
    assert np.asarray(d, dtype=np.float64).dtype == np.float64
    assert ember.tensor(d).dtype == ember.int64


def test_assert_eq():
    d = TensorData([[1.0, 2.0], [3.0, math.nan]])
    d.assert_eq(TensorData([[1.0, 2.0], [3.0, math.nan]]))
    d.assert_eq([[1.0, 2.0], [3.0, math.nan]])
    d.assert_eq(ember.tensor([[1.0, 2.0], [3.0, math.nan]]))
    d.assert_eq(TensorData([[1, 2], [3, 4]]).convert("float32").to_list()[:1] + [[3.0, math.nan]])
    with pytest.raises(AssertionError, match=r"assert_eq: 1 of 4 elements differ: at \(0, 1\): 2.0 != 2.5"):
        d.assert_eq(TensorData([[1.0, 2.5], [3.0, math.nan]]))
    with pytest.raises(AssertionError, match=r"assert_eq: 1 of 4 elements differ: at \(1, 1\): nan != 4.0"):
        d.assert_eq(TensorData([[1.0, 2.0], [3.0, 4.0]]))
    with pytest.raises(AssertionError, match=r"assert_eq: shape \(2, 2\) != \(4,\)"):
        d.assert_eq(TensorData([1.0, 2.0, 3.0, math.nan]))
    with pytest.raises(AssertionError, match="assert_eq: dtype float32 != int64"):
        TensorData([1.0]).assert_eq(TensorData([1]))
    TensorData([1.0]).assert_eq(TensorData([1]), strict=False)
    TensorData([0.1]).assert_eq(TensorData([0.1], dtype="float64"), strict=False)
    assert TensorData([0.1], dtype="float64").to_list() == [0.1]
    with pytest.raises(AssertionError, match="1 of 1 elements differ"):
        TensorData([0.1], dtype="float64").assert_eq(TensorData([0.1]), strict=False)
    with pytest.raises(AssertionError, match=r"7 of 7 elements differ \(first 5 shown\)"):
        TensorData(list(range(7))).assert_eq(TensorData(list(range(1, 8))))
    big = 2 ** 62 + 1
    with pytest.raises(AssertionError, match="elements differ"):
        TensorData([big]).assert_eq(TensorData([big + 1]))
    with pytest.raises(InvalidParameterError, match="assert_eq: other must be a TensorData"):
        d.assert_eq("x")


def test_assert_approx_eq():
    d = TensorData([1.0, 2.0, math.nan])
    d.assert_approx_eq([1.000001, 2.0, math.nan])
    d.assert_approx_eq([1.01, 2.0, math.nan], tolerance=0.02)
    d.assert_approx_eq([1.01, 2.0, math.nan], tolerance=(0.0, 0.011))
    TensorData([1.0], dtype="bfloat16").assert_approx_eq([1.005])
    TensorData([1, 2]).assert_approx_eq(TensorData([1.0, 2.0]))
    with pytest.raises(AssertionError, match=r"assert_approx_eq: 1 of 3 elements differ: at \(0,\): 1.0 != 1.1"):
        d.assert_approx_eq([1.1, 2.0, math.nan])
    with pytest.raises(AssertionError, match="assert_approx_eq: 1 of 3 elements differ"):
        d.assert_approx_eq([1.0, 2.0, 3.0])
    with pytest.raises(AssertionError, match=r"assert_approx_eq: shape \(3,\) != \(2,\)"):
        d.assert_approx_eq([1.0, 2.0])
    with pytest.raises(AssertionError, match="elements differ"):
        TensorData([math.inf]).assert_approx_eq([-math.inf])
    with pytest.raises(AssertionError, match="elements differ"):
        TensorData([1.0]).assert_approx_eq([math.inf])
    TensorData([math.inf]).assert_approx_eq([math.inf])
    with pytest.raises(InvalidParameterError, match="assert_approx_eq: tolerance -1 has rtol -1"):
        d.assert_approx_eq(d, tolerance=-1)
    with pytest.raises(InvalidParameterError, match=r"assert_approx_eq: tolerance \(0.1, 'a'\) has atol 'a'"):
        d.assert_approx_eq(d, tolerance=(0.1, "a"))


def test_tensordata_bad_inputs():
    with pytest.raises(ShapeMismatchError, match=r"TensorData: shape \(2, 2\) has 4 elements but the values have 3"):
        TensorData([1, 2, 3], shape=(2, 2))
    with pytest.raises(InvalidParameterError, match=r"TensorData: shape \(2, -1\) has a size -1"):
        TensorData([1, 2], shape=(2, -1))
    with pytest.raises(InvalidParameterError, match="TensorData: dtype 'x' is not an ember dtype"):
        TensorData([1], dtype="x")
    with pytest.raises(InvalidParameterError, match="TensorData: data is ragged"):
        TensorData([[1], [1, 2]])
    with pytest.raises(KindError, match="TensorData: data 'ab' cannot become a tensor"):
        TensorData("ab")
    with pytest.raises(InvalidParameterError, match="convert: dtype 'q' is not an ember dtype"):
        TensorData([1]).convert("q")


def test_tensordata_pickle():
    for d in (TensorData([[1.5, 2.5]]), TensorData([1, 2], dtype="uint16"),
              TensorData([1.0], dtype="bfloat16"), TensorData(True)):
        r = pickle.loads(pickle.dumps(d))
        assert r == d and r.dtype is d.dtype and not r.values.flags.writeable


# -- pickling -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_pickle_round_trip(rng, dtype):
    for shape in SHAPES:
        for _, arr in layouts(np.asarray(random_array(rng, shape, dtype))):
            t = tensor_of(arr, dtype)
            r = pickle.loads(pickle.dumps(t))
            assert r.dtype is t.dtype and r.shape == t.shape
            np.testing.assert_array_equal(r.numpy(), t.numpy())
            assert not r.is_tracked()
            assert not np.shares_memory(r.numpy(), t.numpy())


def test_pickle_requires_grad():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    r = pickle.loads(pickle.dumps(x))
    assert r.is_require_grad() and r.is_leaf and r.tolist() == [1.0, 2.0]
    d = copy.deepcopy(x)
    assert d.is_require_grad() and d.tolist() == [1.0, 2.0]
    assert copy.copy(x).is_require_grad()
    # a non-leaf comes back as a leaf that requires grad (as PyTorch)
    y = x.cast("float64")
    ry = pickle.loads(pickle.dumps(y))
    assert ry.is_require_grad() and ry.is_leaf and ry.dtype == ember.float64
    # autodiff disabled stays disabled
    w = ember.tensor([1.0]).without_autodiff()
    assert not pickle.loads(pickle.dumps(w)).is_autodiff()
    assert pickle.loads(pickle.dumps(ember.tensor([1]))).dtype == ember.int64


@settings(max_examples=25)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), max_size=20))
def test_pickle_and_to_data_property(values):
    t = ember.tensor(values, dtype="float32")
    r = pickle.loads(pickle.dumps(t))
    np.testing.assert_array_equal(r.numpy(), t.numpy())
    TensorData(values, dtype="float32").assert_eq(t.to_data())


# -- clone, clone_from, to_device, to, can_mut --------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_clone_vs_torch(rng, dtype, shape):
    base = arr_of(rng, shape, dtype)
    for _, arr in layouts(base):
        t = tensor_of(arr, dtype)
        c = t.clone()
        assert c is not t
        assert_close(c, to_torch(t).clone())
        assert c._data is t._data  # immutable: the buffer is shared, not copied
        assert c.device == t.device


def test_clone_gradient_vs_torch(rng):
    base = rng.standard_normal((3, 4))
    seed = rng.standard_normal((3, 4))
    x = ember.from_numpy(base).require_grad()
    out = x.clone()
    assert not out.is_leaf
    out.backward(ember.from_numpy(seed))
    xt = torch.tensor(base, requires_grad=True)
    xt.clone().backward(torch.tensor(seed))
    assert_close(x.grad, xt.grad)


def test_clone_gradient_finite_differences(rng):
    base = rng.standard_normal((2, 3))
    w = rng.standard_normal((2, 3))
    x = ember.from_numpy(base).require_grad()
    (x.clone() * ember.from_numpy(w)).sum().backward()
    eps = 1e-6
    num = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        up, down = base.copy(), base.copy()
        up[i] += eps
        down[i] -= eps
        f = lambda a: (ember.from_numpy(a).clone() * ember.from_numpy(w)).sum().item()  # noqa: E731
        num[i] = (f(up) - f(down)) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-6, atol=1e-8)


def test_clone_of_untracked_and_int_carries_no_graph():
    t = ember.tensor([1, 2])
    c = t.clone()
    assert c.tolist() == [1, 2] and c.dtype is ember.int64 and not c.is_tracked()
    with ember.no_grad():
        x = ember.tensor([1.0]).require_grad()
        assert x.clone().is_leaf


def test_clone_from():
    t = ember.tensor([1, 2])
    source = ember.tensor([[3.0, 4.0]])
    before = snapshot(source)
    assert t.clone_from(source) is None
    assert t.tolist() == [[3.0, 4.0]] and t.dtype is ember.float32 and t is not source
    assert_unchanged([source], before)
    x = ember.tensor([0.0, 0.0]).require_grad()
    y = ember.tensor([5.0, 6.0]).require_grad()
    z = ember.tensor([0.0, 0.0])
    z.clone_from(y * 2)
    z.sum().backward()
    assert y.grad.tolist() == [2.0, 2.0]
    with pytest.raises(ember.GraphError, match=r"clone_from: the tensor is a leaf that requires grad"):
        x.clone_from(y * 1)
    with pytest.raises(InvalidParameterError, match=r"clone_from: source must be a Tensor, got list") as info:
        t.clone_from([1, 2])
    assert info.value.param == "source"
    assert t.tolist() == [[3.0, 4.0]]


@pytest.mark.parametrize("device", ["cpu", "cpu:0", ember.Device("cpu")])
def test_to_device_cpu(device):
    t = ember.tensor([[1.0, 2.0]], device="cpu")
    assert t.to_device(device) is t
    assert t.to(device) is t
    assert t.to_device(device).device == ember.Device("cpu")


def test_to_device_of_tracked_tensor_is_a_recorded_step(rng):
    base = rng.standard_normal((2, 3))
    seed = rng.standard_normal((2, 3))
    x = ember.tensor(base, device="cpu").require_grad()
    y = x.to_device("cpu")
    assert y is not x and not y.is_leaf and y.tolist() == x.tolist()
    with pytest.raises(ember.GraphError, match=r"require_grad"):
        y.require_grad()  # the spec: the output is a non-leaf and cannot retain its own gradient
    y.backward(ember.tensor(seed, device="cpu"))
    np.testing.assert_array_equal(x.grad.numpy(), seed)


torch_cpu = pytest.mark.skipif(ember.Device("torch:cpu") not in ember.devices(),
                               reason="PyTorch is not installed")


@torch_cpu
@pytest.mark.parametrize("src, dst", [("cpu", "torch:cpu"), ("torch:cpu", "cpu")])
def test_to_device_between_backends(rng, src, dst):
    base = rng.standard_normal((2, 3)).astype(np.float32)
    t = ember.tensor(base, device=src)
    m = t.to_device(dst)  # untracked: the moved tensor
    assert m.device == dst and m.dtype is t.dtype and not m.is_tracked()
    np.testing.assert_array_equal(m.numpy(), base)
    assert m.to_device(dst) is m and m.to(dst) is m
    back = m.to_device(src)
    assert back.device == src and back.tolist() == t.tolist()
    assert t.to(dst, "float64").device == dst and t.to(dst, "float64").dtype is ember.float64
    for dtype in ("bfloat16", "float16", "int8", "uint8", "uint16", "uint32", "uint64", "bool"):
        c = t.cast(dtype)
        moved = c.to_device(dst)
        assert moved.dtype is c.dtype and moved.device == dst
        np.testing.assert_array_equal(moved.numpy(), c.numpy())


@torch_cpu
@pytest.mark.parametrize("src, dst", [("cpu", "torch:cpu"), ("torch:cpu", "cpu")])
def test_to_device_between_backends_carries_gradients(rng, src, dst):
    base = rng.standard_normal((2, 3))
    seed = rng.standard_normal((2, 3))
    x = ember.tensor(base, device=src).require_grad()
    y = x.to_device(dst)
    assert y.device == dst and not y.is_leaf and y.is_tracked()
    with pytest.raises(ember.GraphError, match=r"require_grad"):
        y.require_grad()
    y.backward(ember.tensor(seed, device=dst))  # backward brings the gradient to the source
    assert x.grad.device == src and x.grad.dtype is ember.float64
    np.testing.assert_array_equal(x.grad.numpy(), seed)
    # through both devices, the loss on the NumPy backend
    x = ember.tensor(base, device=src).require_grad()
    z = x.to_device(dst).to_device("cpu")
    (z * z).sum().backward()
    assert x.grad.device == src
    np.testing.assert_allclose(x.grad.numpy(), 2 * base)
    # the same through Tensor.to with a dtype
    x2 = ember.tensor(base, device=src).require_grad()
    y2 = x2.to(dst, "float32")
    assert y2.device == dst and y2.dtype is ember.float32
    y2.backward(ember.tensor(seed, dtype="float32", device=dst))
    assert x2.grad.device == src and x2.grad.dtype is ember.float64
    np.testing.assert_allclose(x2.grad.numpy(), seed.astype(np.float32))


@torch_cpu
def test_to_device_ops_on_the_target_device_carry_gradients(rng):
    # a leaf on "cpu", the ops on "torch:cpu", the gradient back on "cpu"
    base = rng.standard_normal((2, 3))
    x = ember.tensor(base, device="cpu").require_grad()
    y = x.to_device("torch:cpu")
    w = ember.tensor([[1.0], [2.0], [3.0]], dtype="float64", device="torch:cpu")
    loss = ((y * y).sum() + (y @ w).sum()) * 2.0
    assert loss.device == "torch:cpu"
    loss.backward()
    assert x.grad.device == "cpu"
    # d/dx 2 * (sum x^2 + sum_ij x_ij w_j) = 4x + 2w^T
    np.testing.assert_allclose(x.grad.numpy(), 4 * base + 2 * np.array([[1.0, 2.0, 3.0]]))


@torch_cpu
def test_mixing_devices_raises_device_error():
    a = ember.tensor([1.0, 2.0], device="cpu")
    b = ember.tensor([1.0, 2.0], device="torch:cpu")
    with pytest.raises(ember.DeviceError, match="different devices, cpu and torch:cpu") as info:
        a + b
    assert set(info.value.devices) == {ember.Device("cpu"), ember.Device("torch:cpu")}
    assert (a + b.to_device("cpu")).tolist() == [2.0, 4.0]


@torch_cpu
def test_load_to_device_moves_and_detaches():
    w = ember.tensor([1.0, 2.0], device="cpu").require_grad()
    p = w.load_to_device("torch:cpu")
    assert p.device == "torch:cpu" and p.is_leaf and p.is_require_grad()
    u = ember.tensor([1, 2], device="cpu").load_to_device("torch:cpu")
    assert u.device == "torch:cpu" and u.tolist() == [1, 2]


@pytest.mark.half_precision
def test_to_dtype_and_device_vs_torch(rng):
    base = rng.standard_normal((3, 2))
    t, tt = ember.from_numpy(base), torch.tensor(base)
    assert_close(t.to("float32"), tt.to(torch.float32))
    assert_close(t.to("cpu", ember.int32), tt.to("cpu", torch.int32))
    assert_close(t.to(ember.float16, "cpu"), tt.to("cpu", torch.float16))  # either order
    assert_close(t.to(dtype="bfloat16", device="cpu"), tt.to(dtype=torch.bfloat16, device="cpu"))
    other = ember.tensor([1], dtype="int16")
    assert_close(t.to(other), tt.to(torch.tensor([1], dtype=torch.int16)))
    assert t.to("float64") is t


@pytest.mark.half_precision
def test_to_takes_torchs_positional_and_keyword_forms(rng):
    base = rng.standard_normal((3, 2))
    t, tt = ember.from_numpy(base), torch.tensor(base)
    assert_close(t.to("cpu", ember.float32, False, True), tt.to("cpu", torch.float32, False, True))
    assert_close(t.to(ember.int64, True), tt.to(torch.int64, True))
    assert_close(t.to(device="cpu", dtype=ember.float16, non_blocking=True, copy=False),
                 tt.to(device="cpu", dtype=torch.float16, non_blocking=True, copy=False))
    assert t.to(t.device, non_blocking=True) is t and tt.to("cpu", non_blocking=True) is tt
    copied, tcopied = t.to(copy=True), tt.to(copy=True)
    assert copied is not t and tcopied is not tt
    assert_close(copied, tcopied)
    before = snapshot(t)
    for args, kwargs, err, match in [
        (("cpu", False, ember.float32), {}, ember.InvalidParameterError, r"comes after"),
        ((True, True, True), {}, ember.InvalidParameterError, r"3 bools given"),
        ((), {"non_blocking": 1}, ember.InvalidParameterError, r"non_blocking must be a bool"),
        ((), {"copy": "yes"}, ember.InvalidParameterError, r"copy must be a bool"),
        ((), {"memory_format": "channels_last"}, ember.InvalidParameterError,
         r"memory_format 'channels_last' is not supported"),
        (("xpu",), {}, ember.InvalidParameterError, r"xpu"),
    ]:
        with pytest.raises(err, match=match):
            t.to(*args, **kwargs)
    assert_unchanged([t], before)


@pytest.mark.parametrize("call, error, match, param", [
    (lambda t: t.to_device("tpu"), InvalidParameterError,
     r"to_device: device: 'tpu' is not a device name", "device"),
    (lambda t: t.to_device("gpu"), InvalidParameterError,
     r"to_device: device: 'gpu' is not a device name", "device"),
    (lambda t: t.to_device(0), InvalidParameterError,
     r"to_device: device must be a Device or a device name such as 'cpu' or 'torch:cuda:0', "
     r"got int 0", "device"),
    (lambda t: t.to("cpu:1"), InvalidParameterError,
     r"to: device: 'cpu' has no index 1", "device"),
    (lambda t: t.to("cpu", "cpu"), InvalidParameterError, r"to: two devices given", "device"),
    (lambda t: t.to("int32", "float32"), InvalidParameterError, r"to: two dtypes given", "dtype"),
    (lambda t: t.to("int99"), InvalidParameterError, r"to: dtype 'int99' is not an ember dtype",
     "dtype"),
])
def test_to_device_and_to_bad_input(call, error, match, param):
    t = ember.tensor([[1.0, 2.0]]).require_grad()
    before = snapshot(t)
    with pytest.raises(error, match=match) as info:
        call(t)
    assert info.value.param == param
    assert_unchanged([t], before)
    assert t.is_leaf and t.grad is None


@pytest.mark.numpy_only
def test_can_mut():
    t = ember.zeros(3)
    assert t.can_mut() is True
    view = t[1:]
    assert t.can_mut() is False and view.can_mut() is False  # shared buffer
    del view
    assert t.can_mut() is True
    c = t.clone()
    assert t.can_mut() is False and c.can_mut() is False
    del c
    assert t.can_mut() is True
    arr = np.zeros(3)
    assert ember.from_numpy(arr).can_mut() is False  # the caller still holds the array
    assert ember.ones(2, 3).expand(4, 2, 3).can_mut() is False  # a broadcast view
    held = np.asarray(t)
    assert t.can_mut() is False
    del held
    assert (ember.tensor([1.0, 2.0]) + 1).can_mut() is True
    assert ember.tensor([True]).can_mut() is True


# -- Burn's fallible, async and primitive spellings ----------------------------------------------

@pytest.mark.parametrize("name, plain", [
    ("try_to_data", "to_data"), ("try_into_data", "to_data"),
    ("try_to_data_as", "to_data_as"), ("try_into_data_as", "to_data_as"),
    ("try_to_data_dtype", "to_data_as"), ("try_into_data_dtype", "to_data_as"),
    ("try_to_vec_as", "to_vec_as"), ("try_into_vec_as", "to_vec_as"),
    ("try_into_scalar", "into_scalar"),
])
def test_try_readers_are_the_readers(name, plain):
    assert getattr(Tensor, name) is getattr(Tensor, plain)
    t = ember.tensor([[1.5, -2.5]])
    if plain == "into_scalar":
        assert t[0, 1:].try_into_scalar() == -2.5
        with pytest.raises(InvalidParameterError, match="try_into_scalar|into_scalar: the tensor "
                                                        "has 2 elements"):
            t.try_into_scalar()
    elif plain == "to_data":
        assert getattr(t, name)().to_list() == [[1.5, -2.5]]
    elif plain == "to_data_as":
        assert getattr(t, name)("int64").to_list() == [[1, -2]]
        with pytest.raises((InvalidParameterError, KindError)):
            getattr(t, name)("int7")
    else:
        assert getattr(t, name)("int32") == [1, -2]


def test_data_async():
    import asyncio
    t = ember.tensor([[1, 2], [3, 4]], dtype="int16")
    for name in ("to_data_async", "into_data_async"):
        data = asyncio.run(getattr(t, name)())
        assert data.to_list() == [[1, 2], [3, 4]] and data.dtype is ember.int16


@pytest.mark.numpy_only
def test_primitive_round_trip(rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)[:, ::2]  # non-contiguous
    t = ember.from_numpy(a)
    prim = t.try_into_primitive()
    assert np.shares_memory(prim, a) and not prim.flags.writeable
    np.testing.assert_array_equal(prim, a)
    back = Tensor.from_primitive(prim)
    assert back.dtype is ember.float32 and back.shape == (3, 2)
    np.testing.assert_array_equal(back.numpy(), a)
    assert Tensor.try_into_primitive(t, backend="numpy") is not None


@pytest.mark.parametrize("call, error, match", [
    (lambda t: t.to_device("cpu").try_into_primitive("torch"), InvalidParameterError,
     "try_into_primitive: the tensor lives on cpu \\(the 'numpy' backend\\), not the 'torch' "
     "backend"),
    (lambda t: Tensor.from_primitive(t.numpy(), backend="cuda"), InvalidParameterError,
     "from_primitive: backend 'cuda' is not an ember backend"),
    (lambda t: Tensor.from_primitive([1.0]), InvalidParameterError,
     "from_primitive: primitive must be the backend's array"),
    (lambda t: Tensor.from_primitive(np.array(["a"])), KindError,
     "from_primitive: primitive of dtype <U1 has no ember kind"),
    (lambda t: t.load_to_device("tpu"), InvalidParameterError, "load_to_device"),
])
def test_primitive_and_load_bad_input(call, error, match):
    t = ember.tensor([1.0, 2.0])
    before = snapshot(t)
    with pytest.raises(error, match=match):
        call(t)
    assert_unchanged([t], before)


def test_load_to_device_detaches_and_keeps_the_flag():
    w = ember.tensor([1.0, 2.0]).require_grad()
    p = w.load_to_device("cpu")
    assert p is not w and p.is_leaf and p.is_require_grad()
    (p * 3).sum().backward()
    assert p.grad.tolist() == [3.0, 3.0] and w.grad is None
    frozen = ember.tensor([1, 2])
    assert frozen.load_to_device(frozen.device) is frozen
    hidden = (w * 2).load_to_device("cpu")
    assert hidden.is_leaf and not hidden.is_require_grad() and hidden.tolist() == [2.0, 4.0]


class _Forged:
    """A pickle that calls ember's rebuild function with arguments of the attacker's choice."""

    def __init__(self, rebuild, *args):
        self.rebuild, self.args = rebuild, args

    def __reduce__(self):
        return (self.rebuild, self.args)


@pytest.mark.parametrize("args,exc,match", [
    ((np.array([object(), 1.0], dtype=object), "float32", False),
     KindError, r"unpickle: the pickled values are ndarray of dtype object; expected an array of "
                r"dtype float32"),
    ((np.ones(2), "float32", False), KindError, r"values are ndarray of dtype float64"),
    (([1.0, 2.0], "float32", False), KindError, r"the pickled values are list"),
    ((np.ma.masked_array(np.ones(2)), "float64", False), KindError, r"values are MaskedArray"),
    ((np.ones(2, dtype=np.int64), "bool", False), KindError, r"dtype int64; expected .* bool"),
    ((np.ones(2), "object", False), InvalidParameterError, r"unpickle: dtype 'object'"),
    ((np.ones(2), 3, False), InvalidParameterError, r"the pickled dtype is 3"),
    ((np.ones(2), "float64", "yes"), InvalidParameterError, r"autodiff state \('yes', 'none'\)"),
    ((np.ones(2), "float64", True, "eager"), InvalidParameterError, r"autodiff state"),
])
def test_unpickling_checks_the_values_and_dtype(args, exc, match):
    """A forged pickle used to turn an object array into a "float32" tensor."""
    rebuild = ember.tensor(1.0).__reduce__()[0]
    with pytest.raises(exc, match=match):
        pickle.loads(pickle.dumps(_Forged(rebuild, *args)))
    good = pickle.loads(pickle.dumps(_Forged(rebuild, np.arange(6.0).reshape(2, 3), "float64",
                                             True)))
    assert good.shape == (2, 3) and good.dtype is ember.float64 and good.is_require_grad()
    swapped = pickle.loads(pickle.dumps(_Forged(rebuild, np.ones(2, dtype=">f4"), "float32",
                                                False)))
    assert swapped.tolist() == [1.0, 1.0] and swapped.numpy().dtype.isnative


def test_unpickling_tensor_data_checks_the_values():
    rebuild = ember.TensorData([1.0]).__reduce__()[0]
    with pytest.raises(KindError, match=r"unpickle TensorData: the pickled values are ndarray of "
                                        r"dtype object"):
        pickle.loads(pickle.dumps(_Forged(rebuild, np.array([None]), "float32")))
    assert pickle.loads(pickle.dumps(_Forged(rebuild, np.ones(2, np.int8), "int8"))).dtype \
        is ember.int8


@torch_cpu
@pytest.mark.parametrize("device", ["cpu", "torch:cpu"])
def test_pickle_keeps_the_device(device):
    for dtype in ("float32", "bfloat16", "uint64", "bool"):
        t = ember.tensor([[1.0, 0.0], [2.0, 3.0]], device=device).cast(dtype)
        back = pickle.loads(pickle.dumps(t))
        assert back.device == device and back.dtype is t.dtype and back.tolist() == t.tolist()
    w = ember.tensor([1.0, 2.0], device=device).require_grad()
    back = pickle.loads(pickle.dumps(w))
    assert back.device == device and back.is_leaf and back.is_require_grad()
    assert copy.deepcopy(w).device == device


@torch_cpu
def test_primitives_of_the_torch_backend():
    t = ember.tensor([1.0, 2.0], device="torch:cpu")
    prim = t.into_primitive()
    assert isinstance(prim, torch.Tensor) and prim.tolist() == [1.0, 2.0]
    assert t.try_into_primitive("torch") is prim
    with pytest.raises(InvalidParameterError, match="the tensor lives on torch:cpu"):
        t.try_into_primitive("numpy")
    back = Tensor.from_primitive(prim, backend="torch")
    assert back.device == "torch:cpu" and back.tolist() == [1.0, 2.0]
    assert Tensor.new(torch.tensor([1, 2], dtype=torch.int32)).dtype is ember.int32
    with pytest.raises(InvalidParameterError, match=r"from_primitive: primitive must be the "
                                                    r"backend's array \(a torch.Tensor\)"):
        Tensor.from_primitive(np.ones(2), backend="torch")
    d = t.to_data()
    assert isinstance(d.values, np.ndarray) and d.to_list() == [1.0, 2.0]
    assert t.to_data_as("int32").to_list() == [1, 2] and t.to_vec_as("int64") == [1, 2]
    assert repr(t) == "Tensor([1.0, 2.0], shape=(2,), dtype=float32)"
    assert f"{ember.tensor(2.5, device='torch:cpu'):.2f}" == "2.50"
