"""Tests of ember/ops/creation.py: from_*, filled tensors, ranges, eye, grids (and the spec's
examples of the masks and triu/tril, tested in test_triangles.py)."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import ember
from ember import InvalidParameterError, KindError, Tensor
from oracle import (SHAPES, TORCH_DTYPES, assert_close, ember_tensor, has_views, layouts,
                    random_array, to_torch)

ALL_DTYPES = list(TORCH_DTYPES)
FLOAT_DTYPES = ["float64", "float32", "float16", "bfloat16"]


def unchanged(t, before):
    """The tensor still holds ``before`` (a NumPy copy taken before the call)."""
    np.testing.assert_array_equal(np.asarray(t.numpy()), before)


# -- the spec's examples ------------------------------------------------------------------------

class TestSpecExamples:
    def test_empty(self):
        t = Tensor.empty((2, 3, 4))
        assert t.shape == (2, 3, 4) and t.dtype == ember.float32

    def test_empty_like(self):
        t = Tensor.zeros((2, 3, 4)).empty_like()
        assert t.shape == (2, 3, 4) and t.dtype == ember.float32

    def test_zeros(self):
        assert str(Tensor.zeros((2, 3))) == "[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"

    def test_zeros_like(self):
        t = Tensor.from_data([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
        assert str(t.zeros_like()) == "[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"

    def test_ones(self):
        assert str(Tensor.ones((2, 3))) == "[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]"

    def test_ones_like(self):
        t = Tensor.from_data([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
        assert str(t.ones_like()) == "[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]"

    def test_full(self):
        assert str(Tensor.full((2, 3), 5.0)) == "[[5.0, 5.0, 5.0], [5.0, 5.0, 5.0]]"

    def test_full_like(self):
        t = Tensor.from_data([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
        assert str(t.full_like(5.0)) == "[[5.0, 5.0, 5.0], [5.0, 5.0, 5.0]]"

    def test_dims_and_shape(self):
        t = Tensor.ones((2, 3, 4))
        assert t.dims() == [2, 3, 4]
        assert t.shape == (2, 3, 4)

    def test_triu_mask(self):
        assert Tensor.triu_mask((3, 3), 0).tolist() == [
            [False, False, False], [True, False, False], [True, True, False]]

    def test_tril_mask(self):
        assert Tensor.tril_mask((3, 3), 0).tolist() == [
            [False, True, True], [False, False, True], [False, False, False]]

    def test_diag_mask(self):
        assert Tensor.diag_mask((3, 3), 0).tolist() == [
            [False, True, True], [True, False, True], [True, True, False]]

    def test_triu(self):
        t = Tensor.from_ints([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        assert str(t.triu(1)) == "[[0, 2, 3], [0, 0, 6], [0, 0, 0]]"

    def test_tril(self):
        t = Tensor.from_ints([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
        assert str(t.tril(-1)) == "[[0, 0, 0], [4, 0, 0], [7, 8, 0]]"

    def test_from_floats(self):
        a = Tensor.from_floats([1.0, 2.0])
        b = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]])
        assert a.dtype == ember.float32 and a.tolist() == [1.0, 2.0]
        assert b.dtype == ember.float32 and b.tolist() == [[1.0, 2.0], [3.0, 4.0]]
        assert b.float().int().tolist() == [[1, 2], [3, 4]]

    def test_from_ints(self):
        x = Tensor.from_ints([1, 2])
        y = Tensor.from_ints([[1, 2], [3, 4]])
        assert x.dtype == ember.int64 and x.tolist() == [1, 2]
        assert y.dtype == ember.int64 and y.tolist() == [[1, 2], [3, 4]]

    def test_from_bool(self):
        t = Tensor.from_bool([[True, False], [False, True]])
        assert t.dtype == ember.bool_
        assert str(t) == "[[True, False], [False, True]]"

    def test_arange_float(self):
        t = Tensor.arange(range(0, 5))
        assert t.dtype == ember.int64 and t.tolist() == [0, 1, 2, 3, 4]
        f = t.float()
        assert f.dtype == ember.float32 and str(f) == "[0.0, 1.0, 2.0, 3.0, 4.0]"

    def test_arange_into_vec(self):
        # the slice example's input: arange(0..10)
        assert Tensor.arange(range(0, 10)).into_vec_as("int32") == list(range(10))

    def test_tinygrad_arange(self):
        assert Tensor.arange(6).numpy().tolist() == [0, 1, 2, 3, 4, 5]

    def test_cartesian_grid(self):
        t = Tensor.cartesian_grid((2, 3))
        assert t.dtype == ember.int64 and t.shape == (2, 3, 2)
        assert t.tolist() == [[[0, 0], [0, 1], [0, 2]], [[1, 0], [1, 1], [1, 2]]]

    def test_eye(self):
        t = Tensor.eye(3)
        assert t.dtype == ember.float32
        assert str(t) == "[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]"


# -- filled tensors against PyTorch -------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_zeros_ones_vs_torch(shape, dtype):
    td = TORCH_DTYPES[dtype]
    assert_close(ember.zeros(shape, dtype=dtype), torch.zeros(shape, dtype=td))
    assert_close(ember.ones(*shape, dtype=dtype), torch.ones(shape, dtype=td))
    e = ember.empty(shape, dtype=dtype)
    assert e.shape == shape and e.dtype.name == dtype


@pytest.mark.parametrize("shape", SHAPES)
def test_default_dtype_float32(shape):
    for fn in (ember.zeros, ember.ones, ember.empty):
        t = fn(shape)
        assert t.dtype == ember.float32 and t.shape == shape
        assert t.is_contiguous()


def test_shape_spellings():
    for t in (ember.zeros(2, 3), ember.zeros((2, 3)), ember.zeros([2, 3]), Tensor.zeros((2, 3)),
              ember.zeros(np.array([2, 3])), ember.zeros(ember.tensor([2, 3])),
              ember.zeros(np.int64(2), 3)):
        assert t.shape == (2, 3)
    assert ember.zeros().shape == ()
    assert ember.zeros(()).shape == ()
    assert ember.full(4, 1.0).shape == (4,)
    assert ember.full([], 1.0).shape == ()


@pytest.mark.parametrize("value, dtype", [(5, "int64"), (5.0, "float32"), (True, "bool"),
                                          (-2.5, "float32"), (False, "bool"), (0, "int64")])
def test_full_infers_dtype_from_value(value, dtype):
    t = ember.full((2, 3), value)
    assert_close(t, torch.full((2, 3), value))
    assert t.dtype.name == dtype


@pytest.mark.parametrize("dtype, value", [
    (d, v) for d in ALL_DTYPES for v in (0, 1, 7, 2.0, True, False)
    if d != "bool" or v in (0, 1)])  # 7 and 2.0 as bool raise in ember (tested below)
def test_full_with_dtype_vs_torch(dtype, value):
    assert_close(ember.full((3, 2), value, dtype=dtype),
                 torch.full((3, 2), value, dtype=TORCH_DTYPES[dtype]))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -0.0, 1.9, -1e-3])
def test_full_special_floats(dtype, value):
    t = ember.full((2,), value, dtype=dtype)
    assert_close(t, torch.full((2,), value, dtype=TORCH_DTYPES[dtype]))
    if value == 0:
        assert math.copysign(1.0, t.tolist()[0]) == -1.0


def test_full_numpy_scalars_and_one_element_tensor():
    assert ember.full(2, np.float64(1.5)).dtype == ember.float32
    assert ember.full(2, np.int32(3)).tolist() == [3, 3]
    assert ember.full(2, np.bool_(True)).dtype == ember.bool_
    t = ember.full(2, ember.tensor([[4]], dtype="int16"))
    assert t.dtype == ember.int16 and t.tolist() == [4, 4]
    assert ember.full(2, 2 ** 63 - 1).tolist() == [2 ** 63 - 1] * 2
    assert ember.full(1, 255, dtype="uint8").tolist() == [255]
    assert ember.full(1, 3.0, dtype="int8").tolist() == [3]
    assert ember.full(1, 1, dtype="bool").tolist() == [True]
    assert ember.full(1, 2 ** 60, dtype="float32").tolist() == [float(np.float32(2 ** 60))]


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like"])
@pytest.mark.parametrize("dtype", ["float32", "int16", "bool", "bfloat16"])
def test_like_vs_torch(rng, name, dtype):
    for shape in SHAPES:
        for _, arr in layouts(np.asarray(random_array(rng, shape, dtype))):
            t = ember_tensor(arr, dtype if dtype == "bfloat16" else None)
            before = t.numpy().copy()
            for out in (getattr(ember, name)(t), getattr(t, name)()):
                assert out.shape == t.shape and out.dtype == t.dtype and out.is_contiguous()
                if name != "empty_like":
                    assert_close(out, getattr(torch, name)(to_torch(t)))
            other = getattr(t, name)(dtype="float64")
            assert other.dtype == ember.float64 and other.shape == t.shape
            unchanged(t, before)


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "uint8"])
@pytest.mark.half_precision
def test_full_like_vs_torch(rng, dtype):
    for shape in SHAPES:
        for _, arr in layouts(np.asarray(random_array(rng, shape, dtype))):
            t = ember.from_numpy(arr)
            assert_close(t.full_like(1), torch.full_like(to_torch(t), 1))
            assert_close(ember.full_like(t, 0.0, dtype="float16"),
                         torch.full_like(to_torch(t), 0.0, dtype=torch.float16))


def test_like_results_are_new_untracked_leaves():
    x = ember.ones(3, requires_grad=True)
    for out in (x.zeros_like(), x.ones_like(), x.full_like(2.0), x.empty_like()):
        assert not out.is_tracked()
        assert not np.shares_memory(out.numpy(), x.numpy())
    assert x.zeros_like(requires_grad=True).is_require_grad()


def test_requires_grad_param():
    for t in (ember.zeros(2, requires_grad=True), ember.ones((2,), requires_grad=True),
              ember.full(2, 1.0, requires_grad=True), ember.empty(2, requires_grad=True),
              ember.eye(2, requires_grad=True), ember.arange(0.0, 3.0, requires_grad=True),
              ember.linspace(0, 1, 3, requires_grad=True),
              ember.from_data([1.0], requires_grad=True)):
        assert t.is_require_grad() and t.is_leaf
    assert not ember.zeros(2).is_tracked()


def test_device_param():
    assert ember.zeros(2, device="cpu").device == "cpu"
    assert ember.ones(2, device=ember.Device("cpu")).device == "cpu"
    if not ember.cuda.is_available():
        with pytest.raises(ember.DeviceError, match="zeros: device torch:cuda:0 is not available"):
            ember.zeros(2, device="cuda")
    with pytest.raises(InvalidParameterError, match="zeros: device: 'tpu' is not a device name"):
        ember.zeros(2, device="tpu")


# -- from_data and friends ----------------------------------------------------------------------

def test_from_data_sources(rng):
    arr = rng.standard_normal((2, 3))
    t = ember.from_data(arr)
    assert t.dtype == ember.float64 and not np.shares_memory(t.numpy(), arr)
    np.testing.assert_array_equal(t.numpy(), arr)
    arr[0, 0] = 99.0
    assert t.tolist()[0][0] != 99.0
    assert ember.from_data([[1, 2], [3, 4]]).dtype == ember.int64
    assert ember.from_data([True]).dtype == ember.bool_
    assert ember.from_data(3.5).shape == ()
    d = ember.tensor([[1.5, 2.5]]).to_data()
    assert_close(ember.from_data(d), torch.tensor([[1.5, 2.5]]))
    assert_close(Tensor.from_data(d, dtype="float64"), torch.tensor([[1.5, 2.5]], dtype=torch.float64))
    assert_close(ember.from_data(d, dtype="int32"), torch.tensor([[1, 2]], dtype=torch.int32))


@pytest.mark.half_precision
def test_from_data_converts_without_loss():
    assert ember.from_data([0.1, 1.0 / 3.0], dtype="float64").tolist() == [0.1, 1.0 / 3.0]
    assert ember.from_data(0.1, dtype=ember.float64).item() == 0.1
    assert ember.from_ints([2.0 ** 40 + 1.0]).tolist() == [2 ** 40 + 1]
    assert ember.from_data([2 ** 62 + 1], dtype="int64").tolist() == [2 ** 62 + 1]
    assert ember.from_data([0.1], dtype="bfloat16").dtype == ember.bfloat16


def test_from_data_never_aliases_writable_buffers():
    tt = torch.arange(3.0)
    t = ember.from_data(tt)
    tt[0] = 9.0
    assert t.tolist() == [0.0, 1.0, 2.0]
    buf = bytearray(b"\x01\x02")
    t = ember.from_data(memoryview(buf))
    buf[0] = 7
    assert t.tolist() == [1, 2]


@pytest.mark.half_precision
def test_from_data_of_tensor_is_detached():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = ember.from_data(x)
    assert not y.is_tracked() and y.tolist() == [1.0, 2.0]
    assert x.is_require_grad()
    z = ember.from_data(x, dtype="float16")
    assert z.dtype == ember.float16 and not z.is_tracked()


@pytest.mark.parametrize("src", ["float64", "float32", "int32", "uint8", "bool", "int64"])
def test_from_kind_conversions_vs_torch(rng, src):
    arr = random_array(rng, (3, 4), src)
    t = ember.from_numpy(arr)
    tt = torch.from_numpy(arr.copy())
    assert_close(ember.from_floats(arr), tt.to(torch.float32))
    assert_close(ember.from_ints(t), tt.to(torch.int64))
    assert_close(ember.from_bool(arr), tt.to(torch.bool))
    assert_close(Tensor.from_floats(t.tolist()), torch.tensor(t.tolist()).to(torch.float32))


def test_from_ints_truncates_and_from_bool_tests_nonzero():
    assert ember.from_ints([1.7, -1.7, 2.0]).tolist() == [1, -1, 2]
    assert ember.from_bool([0, 2, -1]).tolist() == [False, True, True]
    assert ember.from_bool([0.0, 0.5, float("nan")]).tolist() == [False, True, True]
    assert ember.from_floats([True, False]).tolist() == [1.0, 0.0]


def test_from_numpy_shares():
    a = np.arange(6.0).reshape(2, 3)[:, ::2]
    t = ember.from_numpy(a)
    assert t.shape == (2, 2) and t.tolist() == [[0.0, 2.0], [3.0, 5.0]]
    # a device without memory layout (JAX) holds a copy
    assert np.shares_memory(t.numpy(), a) == has_views(t)


# -- ranges -------------------------------------------------------------------------------------

ARANGE_CASES = [(5,), (0,), (-3,), (2, 7), (7, 2), (7, 2, -1), (7, 2, -2), (0, 10, 3), (-5, 5, 4),
                (0.0, 1.0, 0.1), (0, 1, 0.25), (1.5,), (-1.0, 1.0, 0.3), (10, 0, -2.5),
                (0.5, 3), (0, 2 ** 40, 2 ** 38), (2, 7, 10), (3, 3)]


@pytest.mark.parametrize("args", ARANGE_CASES)
def test_arange_vs_torch(args):
    t = ember.arange(*args)
    try:
        expected = torch.arange(*args)
    except RuntimeError:  # torch refuses a range its step cannot walk; ember gives []
        assert t.shape == (0,)
        assert t.dtype == (ember.float32 if any(isinstance(a, float) for a in args) else ember.int64)
        return
    assert_close(t, expected)


@pytest.mark.parametrize("dtype", ["int32", "int8", "float64", "float16", "bfloat16", "uint8"])
def test_arange_dtype_vs_torch(dtype):
    assert_close(ember.arange(0, 9, 2, dtype=dtype),
                 torch.arange(0, 9, 2, dtype=TORCH_DTYPES[dtype]))


@settings(max_examples=40)
@given(st.integers(-50, 50), st.integers(-50, 50), st.integers(-7, 7).filter(lambda s: s != 0))
def test_arange_matches_python_range(start, end, step):
    assert ember.arange(start, end, step).tolist() == list(range(start, end, step))


@settings(max_examples=30)
@given(st.floats(-20, 20), st.floats(-20, 20), st.floats(0.05, 5))
def test_arange_float_vs_torch(start, end, step):
    if end < start:
        step = -step
    expected = torch.arange(start, end, step, dtype=torch.float64)
    assert_close(ember.arange(start, end, step, dtype="float64"), expected)


def test_arange_accepts_range_and_numpy():
    assert ember.arange(range(3, 9, 2)).tolist() == [3, 5, 7]
    assert ember.arange(np.int64(3)).tolist() == [0, 1, 2]
    assert ember.arange(np.float32(1.5)).dtype == ember.float32


def test_arange_step():
    assert Tensor.arange_step(range(0, 10), 3).tolist() == [0, 3, 6, 9]
    assert ember.arange_step((1, 6), 2).tolist() == [1, 3, 5]
    assert ember.arange_step(slice(2, 5), 1).tolist() == [2, 3, 4]
    assert ember.arange_step(range(5, 0), 1).tolist() == []
    assert ember.arange_step((0, 4), 2, dtype="float32").dtype == ember.float32


@pytest.mark.parametrize("steps", [0, 1, 2, 5, 100])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bounds", [(0, 1), (-3.5, 10), (5, -5), (2, 2)])
def test_linspace_vs_torch(steps, dtype, bounds):
    assert_close(ember.linspace(*bounds, steps, dtype=dtype),
                 torch.linspace(*bounds, steps, dtype=TORCH_DTYPES[dtype]))


def test_linspace_default_dtype():
    assert ember.linspace(0, 1, 3).dtype == ember.float32
    assert Tensor.linspace(0, 10, 3).tolist() == [0.0, 5.0, 10.0]


# -- eye, grids ---------------------------------------------------------------------------------

@pytest.mark.parametrize("n, m", [(0, None), (1, None), (3, None), (2, 4), (4, 2), (3, 0)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float64"])
def test_eye_vs_torch(n, m, dtype):
    td = TORCH_DTYPES[dtype]
    expected = torch.eye(n, dtype=td) if m is None else torch.eye(n, m, dtype=td)
    assert_close(ember.eye(n, m, dtype=dtype), expected)


@pytest.mark.parametrize("shape", [(), (0,), (4,), (2, 3), (2, 0, 3), (3, 1, 2, 2)])
def test_cartesian_grid_vs_numpy(shape):
    t = ember.cartesian_grid(shape)
    expected = np.moveaxis(np.indices(shape, dtype=np.int64), 0, -1)
    assert t.dtype == ember.int64 and t.shape == shape + (len(shape),)
    np.testing.assert_array_equal(t.numpy(), expected)
    assert ember.cartesian_grid(*shape).shape == t.shape



# -- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [ember.zeros, ember.ones, ember.empty, Tensor.zeros])
def test_bad_sizes(fn):
    name = fn.__name__
    with pytest.raises(InvalidParameterError, match=rf"{name}: shape \(2, -1\) has a negative size -1"):
        fn(2, -1)
    with pytest.raises(InvalidParameterError, match=rf"{name}: shape \(2.5,\) has a size 2.5 of type float"):
        fn(2.5)
    with pytest.raises(InvalidParameterError, match=rf"{name}: shape \('a',\) has a size 'a'"):
        fn("a")
    with pytest.raises(InvalidParameterError, match=rf"{name}: shape \(True, 2\) has a size True"):
        fn(True, 2)
    with pytest.raises(InvalidParameterError, match=rf"{name}: shape \(None,\)"):
        fn((None,))
    with pytest.raises(InvalidParameterError, match=rf"{name}: shape given as a tensor"):
        fn(ember.tensor([2.0, 3.0]))
    with pytest.raises(InvalidParameterError, match=rf"{name}: shape .* too large"):
        fn(2 ** 40, 2 ** 40)


@pytest.mark.parametrize("fn", [ember.zeros, ember.ones, ember.empty])
def test_bad_dtype_and_requires_grad(fn):
    name = fn.__name__
    with pytest.raises(InvalidParameterError, match=rf"{name}: dtype 'float8' is not an ember dtype"):
        fn(2, dtype="float8")
    with pytest.raises(KindError, match=rf"{name}: only float tensors can require grad, dtype int64"):
        fn(2, dtype="int64", requires_grad=True)
    with pytest.raises(InvalidParameterError, match=rf"{name}: requires_grad must be a bool"):
        fn(2, requires_grad="yes")


@pytest.mark.parametrize("value, dtype, match", [
    (1.5, "int64", r"fill_value 1.5 does not fit dtype int64; expected an integral value"),
    (300, "uint8", r"fill_value 300 does not fit dtype uint8"),
    (-1, "uint8", r"fill_value -1 does not fit dtype uint8"),
    (2 ** 70, None, r"fill_value 1180591620717411303424 does not fit dtype int64"),
    (math.nan, "int32", r"fill_value nan does not fit dtype int32"),
    (math.inf, "int8", r"fill_value inf does not fit dtype int8"),
    (2, "bool", r"fill_value 2 does not fit dtype bool; expected a bool"),
    (0.5, "bool", r"fill_value 0.5 does not fit dtype bool"),
    (1e6, "float16", r"fill_value 1000000.0 does not fit dtype float16; expected a value in"),
    (1e300, "float32", r"fill_value 1e\+300 does not fit dtype float32"),
    (10 ** 400, "float64", r"fill_value 1000+ does not fit dtype float64"),
])
def test_full_value_does_not_fit(value, dtype, match):
    with pytest.raises(InvalidParameterError, match="full: " + match):
        ember.full((2,), value, dtype=dtype)


def test_full_bad_value_types():
    with pytest.raises(InvalidParameterError, match="full: fill_value must be a number or a bool, got str"):
        ember.full(2, "a")
    with pytest.raises(InvalidParameterError, match="full: fill_value must be a number or a bool, got NoneType"):
        ember.full(2, None)
    with pytest.raises(InvalidParameterError, match=r"full: fill_value is a tensor of shape \(2,\)"):
        ember.full(2, ember.tensor([1, 2]))
    with pytest.raises(InvalidParameterError, match=r"full: fill_value \(1\+2j\) is complex and "
                                                    "does not fit dtype int64"):
        ember.full(2, 1 + 2j, dtype="int64")
    assert ember.full(2, 1 + 2j).dtype is ember.complex64  # complex values: docs/complex.md


def test_like_bad_inputs():
    t = ember.tensor([[1, 2], [3, 4]])
    before = t.numpy().copy()
    with pytest.raises(InvalidParameterError, match="zeros_like: self must be a Tensor, got list"):
        ember.zeros_like([1, 2])
    with pytest.raises(InvalidParameterError, match="full_like: fill_value 2.5 does not fit dtype int64"):
        t.full_like(2.5)
    with pytest.raises(InvalidParameterError, match="ones_like: dtype 'x' is not an ember dtype"):
        t.ones_like(dtype="x")
    with pytest.raises(KindError, match="empty_like: only float tensors can require grad"):
        t.empty_like(requires_grad=True)
    unchanged(t, before)


def test_arange_bad_inputs():
    with pytest.raises(InvalidParameterError, match="arange: step is 0; expected a nonzero step"):
        ember.arange(0, 5, 0)
    with pytest.raises(InvalidParameterError, match="arange: step is 0"):
        ember.arange(0.0, 5.0, 0.0)
    with pytest.raises(InvalidParameterError, match="arange: end is nan; expected a finite number"):
        ember.arange(0, math.nan)
    with pytest.raises(InvalidParameterError, match="arange: end is inf"):
        ember.arange(math.inf)
    with pytest.raises(InvalidParameterError, match="arange: start must be an int or a float, got str"):
        ember.arange("a", 3)
    with pytest.raises(InvalidParameterError, match="arange: end must be an int or a float, got bool"):
        ember.arange(True)
    with pytest.raises(KindError, match="arange: not defined for dtype bool"):
        ember.arange(3, dtype="bool")
    with pytest.raises(InvalidParameterError, match="arange: a range as start carries its own end"):
        ember.arange(range(3), 5)
    with pytest.raises(InvalidParameterError, match=r"arange: shape \(\d+,\) of int64 is too large"):
        ember.arange(0, 2 ** 62)


def test_arange_step_bad_inputs():
    with pytest.raises(InvalidParameterError, match="arange_step: step is 0; expected an int >= 1"):
        ember.arange_step(range(0, 5), 0)
    with pytest.raises(InvalidParameterError, match="arange_step: step is -1"):
        ember.arange_step((0, 5), -1)
    with pytest.raises(InvalidParameterError, match="arange_step: step must be an int, got float 1.5"):
        ember.arange_step((0, 5), 1.5)
    with pytest.raises(InvalidParameterError, match=r"arange_step: range range\(0, 5, 2\) has its own step 2"):
        ember.arange_step(range(0, 5, 2), 1)
    with pytest.raises(InvalidParameterError, match="arange_step: range must be a range, a slice or a"):
        ember.arange_step(5, 1)
    with pytest.raises(InvalidParameterError, match="arange_step: slice"):
        ember.arange_step(slice(None, 5), 1)


def test_linspace_bad_inputs():
    with pytest.raises(InvalidParameterError, match="linspace: steps is -1; expected an int >= 0"):
        ember.linspace(0, 1, -1)
    with pytest.raises(InvalidParameterError, match="linspace: steps must be an int, got float 2.0"):
        ember.linspace(0, 1, 2.0)
    with pytest.raises(InvalidParameterError, match="linspace: start is nan"):
        ember.linspace(math.nan, 1, 2)
    with pytest.raises(KindError, match="linspace: not defined for dtype bool"):
        ember.linspace(0, 1, 2, dtype=bool)


def test_eye_bad_inputs():
    with pytest.raises(InvalidParameterError, match="eye: n is -1; expected an int >= 0"):
        ember.eye(-1)
    with pytest.raises(InvalidParameterError, match="eye: m must be an int, got float 2.0"):
        ember.eye(2, 2.0)
    with pytest.raises(InvalidParameterError, match="eye: dtype 'q' is not an ember dtype"):
        ember.eye(2, dtype="q")


def test_cartesian_grid_bad_inputs():
    with pytest.raises(InvalidParameterError, match=r"cartesian_grid: shape \(2, -3\) has a negative size -3"):
        ember.cartesian_grid((2, -3))



def test_from_bad_inputs():
    with pytest.raises(InvalidParameterError, match="from_data: data is ragged"):
        ember.from_data([[1, 2], [3]])
    with pytest.raises(KindError, match="from_floats: data 'x' cannot become a tensor"):
        ember.from_floats("x")
    with pytest.raises(KindError, match="from_ints: data"):
        ember.from_ints([None])
    with pytest.raises(InvalidParameterError, match="from_bool: device: 'gpu' is not a device name"):
        ember.from_bool([True], device="gpu")
    with pytest.raises(InvalidParameterError, match="from_data: dtype 'int3' is not an ember dtype"):
        ember.from_data([1], dtype="int3")
    with pytest.raises(InvalidParameterError, match="from_numpy: array must be a numpy.ndarray, got list"):
        ember.from_numpy([1, 2])
    with pytest.raises(KindError, match="from_numpy: dtype complex256 has no ember kind"):
        ember.from_numpy(np.zeros(2, dtype=np.complex256))


# -- Burn's Tensor::new, and Burn's options (a device or a dtype) in positional place ----------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_new_takes_the_backend_array_as_is(rng, dtype):
    base = random_array(rng, (3, 4), dtype)
    if dtype == "bfloat16":
        base = ember.tensor(base).cast("bfloat16").numpy(copy=True)
    for _, arr in layouts(base):
        t = Tensor.new(arr)
        assert t._data is arr  # no copy: the primitive becomes the tensor
        assert_close(t, to_torch(ember.from_numpy(arr)))
        assert t.dtype.name == dtype and t.is_leaf and not t.is_tracked()


def test_new_bad_input():
    for bad, err, match in [([1, 2], InvalidParameterError,
                              r"new: primitive must be the backend's array \(a numpy.ndarray or a torch.Tensor or an "
                              r"Array API array\), got list"),
                            (ember.tensor([1]), InvalidParameterError, r"new: primitive must be .* got Tensor"),
                            (np.array(["a"]), KindError, r"new: primitive of dtype <U1 has no ember kind")]:
        with pytest.raises(err, match=match):
            Tensor.new(bad)


def test_burn_options_in_positional_place():
    cpu = ember.Device("cpu")
    for dev in ("cpu", "cpu:0", cpu):
        assert_close(Tensor.zeros([2, 3], dev), torch.zeros(2, 3))
        assert_close(Tensor.ones((2, 3), dev), torch.ones(2, 3))
        assert Tensor.empty([2, 3, 4], dev).shape == (2, 3, 4)
        assert_close(Tensor.full([2, 3], 5.0, dev), torch.full((2, 3), 5.0))
        assert_close(Tensor.from_data([[1.0, -2.0]], dev), torch.tensor([[1.0, -2.0]]))
        assert_close(Tensor.arange(range(0, 5), dev), torch.arange(0, 5))
        assert_close(Tensor.arange_step(range(0, 10), 3, dev), torch.arange(0, 10, 3))
        assert_close(Tensor.eye(3, dev), torch.eye(3))
        assert Tensor.cartesian_grid([2, 3], dev).tolist() == [[[0, 0], [0, 1], [0, 2]],
                                                               [[1, 0], [1, 1], [1, 2]]]
        assert Tensor.triu_mask([3, 3], 0, dev).shape == (3, 3)
        assert Tensor.from_floats([1, 2], dev).dtype is ember.float32
        assert Tensor.random([2, 3], ember.Distribution.default(), dev).shape == (2, 3)
    # a dtype as the options
    assert_close(Tensor.zeros([2], "int32"), torch.zeros(2, dtype=torch.int32))
    assert_close(Tensor.ones((2,), ember.float64), torch.ones(2, dtype=torch.float64))
    assert_close(Tensor.from_data([1, 2], "float64"), torch.tensor([1.0, 2.0], dtype=torch.float64))
    assert_close(Tensor.arange(range(0, 3), "int16"), torch.arange(0, 3, dtype=torch.int16))
    assert_close(Tensor.full([2], 5, "int8"), torch.full((2,), 5, dtype=torch.int8))
    assert Tensor.zeros([2], "cpu:0").shape == (2,) and ember.ones(2, device="cpu:0").shape == (2,)
    # the varargs spellings are unchanged
    assert Tensor.zeros(2, 3).shape == (2, 3) and ember.eye(2, 3).shape == (2, 3)


@pytest.mark.parametrize("call, match, param", [
    (lambda: Tensor.zeros([2, 3], "cpu:1"), r"zeros: device: 'cpu' has no index 1",
     "device"),
    (lambda: Tensor.ones([2, 3], "cpu", device="cpu"), r"ones: two devices given", "device"),
    (lambda: Tensor.empty([2], "int32", dtype="int64"), r"empty: two dtypes given", "dtype"),
    (lambda: Tensor.zeros([2], "int99"), r"zeros: dtype 'int99' is not an ember dtype", "dtype"),
    (lambda: Tensor.from_data([1.0], "xpu"), r"from_data: device: 'xpu' is not a device name",
     "device"),
    (lambda: Tensor.full([2], 1.0, "cpu", "cpu"), r"full: two devices given", "device"),
    (lambda: Tensor.arange(range(3), "cuda:x"), r"arange: device: 'cuda:x' has an invalid index",
     "device"),
    (lambda: Tensor.eye(2, "cpu", device="cpu"), r"eye: two devices given", "device"),
    (lambda: Tensor.cartesian_grid([2], "int32"), r"cartesian_grid: options 'int32' is not a device",
     "device"),
])
def test_burn_options_bad_input(call, match, param):
    with pytest.raises(InvalidParameterError, match=match) as info:
        call()
    assert info.value.param == param
