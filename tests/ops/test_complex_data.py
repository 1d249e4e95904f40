"""Complex tensors in creation, data, display, DLPack, io, movement, slicing, indexing and
segments (docs/complex.md), compared with PyTorch (NumPy where PyTorch lacks the op)."""

import operator
import os
import pickle
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import ember
import ember.io
from ember import InvalidParameterError, KindError
from oracle import has_views, layouts

DEVICE = os.environ.get("EMBER_DEVICE", "cpu").strip() or "cpu"
CDTYPES = ["complex64", "complex128"]
NP_C = {"complex64": np.complex64, "complex128": np.complex128}
TORCH_C = {"complex64": torch.complex64, "complex128": torch.complex128}
SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]
SPECIALS = [complex(np.nan, 1.0), complex(1.0, np.nan), complex(np.inf, -np.inf),
            complex(-0.0, 0.0), complex(0.0, -0.0), complex(-np.inf, 2.5), complex(0.0, np.inf)]


# -- helpers ------------------------------------------------------------------------------------

def crand(rng, shape, dtype="complex64", specials=True):
    """Random complex NumPy data; with ``specials``, some elements are nan, inf or -0.0 parts."""
    arr = np.asarray(rng.standard_normal(shape) + 1j * rng.standard_normal(shape),
                     dtype=NP_C[dtype])
    if specials and arr.size >= 4:
        flat = arr.reshape(-1)
        for i, v in enumerate(SPECIALS[:max(1, arr.size // 3)]):
            flat[(i * 7) % arr.size] = v
    return arr


def E(arr):
    """An ember tensor viewing the NumPy array ``arr`` on the default device (layout kept)."""
    return ember.from_numpy(arr)


def T(arr):
    """A torch tensor with a copy of ``arr``'s values."""
    return torch.from_numpy(np.array(arr, copy=True))


def host(t):
    """The values of ember tensor ``t`` as a NumPy array (a copy)."""
    return np.array(t.numpy(), copy=True)


def assert_same(actual, expected):
    """``actual`` (an ember tensor) has ``expected``'s (a torch tensor or a NumPy array) dtype,
    shape and values, bit for bit in each part (nan matches nan, -0.0 differs from 0.0)."""
    assert isinstance(actual, ember.Tensor), type(actual)
    if isinstance(expected, torch.Tensor):
        expected = expected.detach().resolve_conj().resolve_neg().numpy()
    expected = np.asarray(expected)
    got = host(actual)
    assert got.dtype == expected.dtype, f"dtype {got.dtype} != {expected.dtype}"
    assert got.shape == expected.shape, f"shape {got.shape} != {expected.shape}"
    if got.dtype.kind == "c":  # each part, signs of zeros included
        got = np.stack([got.real, got.imag], axis=-1)
        expected = np.stack([expected.real, expected.imag], axis=-1)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
    np.testing.assert_array_equal(got, expected)


def assert_close_c(actual, expected, rtol=1e-6, atol=1e-6):
    """``actual`` (ember) close to ``expected`` (torch) in dtype, shape and both parts."""
    exp = expected.detach().resolve_conj().numpy()
    got = host(actual)
    assert got.dtype == exp.dtype and got.shape == exp.shape, (got.dtype, got.shape, exp.dtype,
                                                               exp.shape)
    np.testing.assert_allclose(got, exp, rtol=rtol, atol=atol)


class no_warnings:
    """A block that must emit no warning at all (a ComplexWarning, a UserWarning of torch)."""

    def __enter__(self):
        self._cm = warnings.catch_warnings(record=True)
        self.caught = self._cm.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)
        assert not self.caught, [str(w.message) for w in self.caught]
        return False


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


# -- creation -----------------------------------------------------------------------------------

@pytest.mark.parametrize("data", [[1 + 2j, 3], [[1j, -2.5], [0, True]], 1 - 1j, [complex(0, -0.0)],
                                  [complex(np.nan, np.inf), complex(-np.inf, 0)]])
def test_tensor_of_python_complex_values_is_complex64(data):
    with no_warnings():
        t = ember.tensor(data)
    assert t.dtype is ember.complex64 and t.kind == "complex"
    assert_same(t, torch.tensor(data))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_tensor_with_a_complex_dtype(dtype):
    for data in ([1 + 2j, 3], [1, 2], [1.5, -0.0], [True, False], 2j):
        assert_same(ember.tensor(data, dtype=dtype), torch.tensor(data, dtype=TORCH_C[dtype]))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_tensor_of_complex_arrays_keeps_their_dtype(rng, dtype):
    arr = crand(rng, (3, 4), dtype)
    assert_same(ember.tensor(arr), arr)
    assert_same(ember.tensor(T(arr)), arr)
    assert_same(ember.tensor(E(arr)), arr)
    assert_same(ember.tensor(arr, dtype="complex128"), arr.astype(np.complex128))
    assert_same(ember.tensor(arr[::2, ::-1]), arr[::2, ::-1])


def test_tensor_refuses_complex_data_for_a_real_dtype(rng):
    arr = crand(rng, (3,))
    for data in ([1 + 2j, 3], 1j, arr, np.complex64(1j), T(arr), E(arr)):
        for dtype in ("float32", "float64", "int64", "uint8", "bool"):
            with no_warnings(), pytest.raises(KindError, match=r"imaginary part"):
                ember.tensor(data, dtype=dtype)
    with pytest.raises(KindError, match="from_data: .*imaginary part"):
        ember.from_data([1j], dtype="float32")
    with pytest.raises(KindError, match="imaginary part"):
        ember.from_floats(arr)
    with pytest.raises(KindError, match="imaginary part"):
        ember.TensorData([1j, 2], dtype="int32")
    assert_same(E(arr), arr)  # unchanged


@pytest.mark.parametrize("dtype", CDTYPES)
def test_from_numpy_and_new_take_complex_arrays(rng, dtype):
    arr = crand(rng, (2, 3), dtype)
    t = ember.from_numpy(arr)
    assert t.dtype.name == dtype
    assert_same(t, arr)
    new = ember.Tensor.new(arr)
    assert new.dtype.name == dtype
    assert_same(new, arr)


@pytest.mark.numpy_only
def test_from_numpy_of_a_complex_array_shares_its_buffer(rng):
    arr = crand(rng, (4,))
    assert np.shares_memory(ember.from_numpy(arr).numpy(), arr)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (2, 3)])
def test_filled_tensors_of_complex_dtypes(rng, dtype, shape):
    td = TORCH_C[dtype]
    assert_same(ember.zeros(shape, dtype=dtype), torch.zeros(shape, dtype=td))
    assert_same(ember.ones(shape, dtype=dtype), torch.ones(shape, dtype=td))
    e = ember.empty(shape, dtype=dtype)
    assert e.dtype.name == dtype and e.shape == shape
    assert_same(ember.full(shape, 1 - 2j, dtype=dtype), torch.full(shape, 1 - 2j, dtype=td))
    assert_same(ember.full(shape, 3, dtype=dtype), torch.full(shape, 3, dtype=td))
    assert_same(ember.full(shape, -0.5, dtype=dtype), torch.full(shape, -0.5, dtype=td))
    like = E(crand(rng, shape, dtype))
    assert_same(like.zeros_like(), torch.zeros(shape, dtype=td))
    assert_same(like.ones_like(), torch.ones(shape, dtype=td))
    assert like.empty_like().dtype.name == dtype
    assert_same(like.full_like(2j), torch.full(shape, 2j, dtype=td))
    real = ember.zeros(shape)
    assert_same(real.full_like(1 + 1j, dtype=dtype), torch.full(shape, 1 + 1j, dtype=td))
    assert_same(real.zeros_like(dtype=dtype), torch.zeros(shape, dtype=td))


def test_full_infers_complex64_from_a_complex_value():
    for value in (1 + 2j, np.complex128(3j), complex(np.nan, -np.inf)):
        assert_same(ember.full((2, 2), value), torch.full((2, 2), complex(value)))
    assert_same(ember.full((3,), ember.tensor(2 - 1j)), torch.full((3,), 2 - 1j))
    assert_same(ember.full((2,), complex(-0.0, 0.0)), torch.full((2,), complex(-0.0, 0.0)))


def test_full_refuses_a_complex_value_for_a_real_dtype():
    for dtype in ("float32", "float64", "int64", "bool"):
        with pytest.raises(InvalidParameterError, match=r"full: fill_value \(1\+2j\) is complex "
                                                        "and does not fit dtype"):
            ember.full((2,), 1 + 2j, dtype=dtype)
    with pytest.raises(InvalidParameterError, match="full_like: fill_value 1j is complex"):
        ember.zeros(2).full_like(1j)
    with pytest.raises(InvalidParameterError, match="does not fit dtype complex64"):
        ember.full((2,), complex(1e300, 0), dtype="complex64")


@pytest.mark.parametrize("dtype", CDTYPES)
def test_eye_of_a_complex_dtype(dtype):
    for n, m in ((3, None), (2, 4), (0, 2)):
        expected = torch.eye(n, m if m is not None else n, dtype=TORCH_C[dtype])
        assert_same(ember.eye(n, m, dtype=dtype), expected)


@pytest.mark.parametrize("start,end,steps", [(0, 1 + 1j, 5), (1j, -2 + 0.5j, 7), (0.5, 1j, 1),
                                             (1, 2j, 0), (-1 - 1j, 1 + 1j, 4), (2j, 2j, 3)])
def test_linspace_with_complex_ends(start, end, steps):
    out = ember.linspace(start, end, steps)
    assert out.dtype is ember.complex64
    assert_close_c(out, torch.linspace(start, end, steps))
    out = ember.linspace(start, end, steps, dtype="complex128")
    assert_close_c(out, torch.linspace(start, end, steps, dtype=torch.complex128), 1e-12, 1e-12)
    # real ends into a complex dtype
    assert_close_c(ember.linspace(0, 1, 5, dtype="complex64"),
                   torch.linspace(0, 1, 5, dtype=torch.complex64))


def test_linspace_and_arange_refusals():
    with pytest.raises(KindError, match="linspace: start 0 and end 1j are complex, dtype "
                                        "float32 is not"):
        ember.linspace(0, 1j, 3, dtype="float32")
    with pytest.raises(InvalidParameterError, match="linspace: end is .*expected a finite"):
        ember.linspace(0, complex(np.inf, 0), 3)
    for dtype in CDTYPES:
        with pytest.raises(KindError, match="arange: not defined for complex tensors"):
            ember.arange(3, dtype=dtype)
        with pytest.raises(KindError, match="arange_step: not defined for complex tensors"):
            ember.arange_step((0, 3), 1, dtype=dtype)
    with pytest.raises(InvalidParameterError, match="arange: end must be an int or a float"):
        ember.arange(1j)


@pytest.mark.parametrize("make", [
    lambda: ember.zeros(2, dtype="complex64", requires_grad=True),
    lambda: ember.ones(2, dtype="complex128", requires_grad=True),
    lambda: ember.full((2,), 1j, requires_grad=True),
    lambda: ember.eye(2, dtype="complex64", requires_grad=True),
    lambda: ember.linspace(0, 1j, 3, requires_grad=True),
    lambda: ember.empty(2, dtype="complex64", requires_grad=True),
    lambda: ember.zeros(2).zeros_like(dtype="complex64", requires_grad=True),
    lambda: ember.from_data([1j], requires_grad=True),
    lambda: ember.tensor([1j], requires_grad=True),
])
def test_requires_grad_with_a_complex_dtype_raises(make):
    with pytest.raises(KindError, match="only float tensors can require grad|complex"):
        make()


# -- casts --------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", ["float32", "float64", "float16", "bfloat16", "int64", "int8",
                                 "uint8", "bool"])
@pytest.mark.parametrize("dtype", CDTYPES)
def test_cast_real_to_complex(rng, src, dtype):
    base = rng.standard_normal((3, 4)) * 3
    x = ember.tensor(base).cast(src)
    expected = torch.from_numpy(base).to(getattr(torch, src)).to(TORCH_C[dtype])
    with no_warnings():
        out = x.cast(dtype)
    assert_same(out, expected)


@pytest.mark.parametrize("src", CDTYPES)
@pytest.mark.parametrize("dtype", CDTYPES)
def test_cast_complex_to_complex(rng, src, dtype):
    for name, arr in layouts(crand(rng, (3, 4), src)):
        with no_warnings():
            out = E(arr).cast(dtype)
        assert_same(out, T(arr).to(TORCH_C[dtype]))
        assert_same(E(arr).to(dtype), T(arr).to(TORCH_C[dtype]))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64",
                                   "int32", "uint8", "bool"])
def test_cast_complex_to_real_raises(rng, dtype):
    arr = crand(rng, (3,))
    z = E(arr)
    with no_warnings():
        with pytest.raises(KindError, match=r"cast: self has dtype complex64; casting complex "
                                            rf"values to {dtype} would drop the imaginary part; "
                                            r".*\.real\(\), \.imag\(\), \.abs\(\)"):
            z.cast(dtype)
        with pytest.raises(KindError, match="cast: .*imaginary part"):
            z.to(dtype)
    assert_same(z, arr)


def test_casting_methods_refuse_complex(rng):
    z = E(crand(rng, (2,)))
    for method in ("float", "double", "half", "int", "long", "short", "bool"):
        with pytest.raises(KindError, match="cast: self has dtype complex64"):
            getattr(z, method)()
    with pytest.raises(KindError, match="to_data_as: .*imaginary part"):
        z.to_data_as("float32")
    with pytest.raises(KindError, match="to_vec_as: .*imaginary part"):
        z.to_vec_as("int64")
    with pytest.raises(KindError, match="into_scalar: .*imaginary part"):
        z[0].into_scalar(float)
    with pytest.raises(KindError, match="convert: .*imaginary part"):
        z.to_data().convert("float64")
    with no_warnings():
        with pytest.raises(KindError, match=r"__array__: .*imaginary part"):
            np.asarray(z, dtype=np.float32)
        with pytest.raises(KindError, match=r"TensorData.__array__: .*imaginary part"):
            np.asarray(z.to_data(), dtype=np.int64)
    assert np.asarray(z, dtype=np.complex128).dtype == np.complex128
    assert z.to_data_as("complex128").dtype is ember.complex128
    assert z.to_vec_as("complex128") == z.tolist()


def test_cast_of_a_tracked_float_to_complex_raises_naming_cast():
    x = ember.tensor([1.0, 2.0]).require_grad()
    with pytest.raises(KindError, match="cast: a complex result of a tracked tensor"):
        x.cast("complex64")
    with ember.no_grad():
        assert x.cast("complex64").tolist() == [1 + 0j, 2 + 0j]
    assert x.without_autodiff().cast("complex128").tolist() == [1 + 0j, 2 + 0j]


# -- Python values ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_tolist_gives_python_complex(rng, dtype, shape):
    arr = crand(rng, shape, dtype, specials=False)
    for name, a in layouts(arr):
        out = E(a).tolist()
        assert out == T(a).tolist()
        if shape == ():
            assert type(out) is complex


def test_item_complex_float_int_bool_of_one_element():
    for value in (1 + 2j, complex(0, -1.5), complex(np.nan, 1)):
        t = ember.tensor([[value]], dtype="complex128")
        assert type(t.item()) is complex
        got = t.item()
        assert np.isnan(got.real) and got.imag == 1 if value != value else got == value
        assert complex(t) == complex(torch.tensor([[value]], dtype=torch.complex128)) \
            or value != value
    # complex() of every kind, as PyTorch's
    for data, dtype in (([2.5], "float32"), ([3], "int64"), ([True], "bool"), ([1j], "complex64")):
        assert complex(ember.tensor(data, dtype=dtype)) == complex(
            torch.tensor(data, dtype=getattr(torch, dtype)))
    z = ember.tensor(1 + 2j)
    with pytest.raises(KindError, match="float: the tensor has dtype complex64"):
        float(z)
    with pytest.raises(KindError, match="int: the tensor has dtype complex64"):
        int(z)
    with pytest.raises(KindError, match="float: .*complex"):
        float(ember.tensor([0j]))  # even with a zero imaginary part: no silent drop
    with pytest.raises(KindError, match="__index__"):
        operator.index(z)
    assert bool(ember.tensor(1j)) is True and bool(torch.tensor(1j)) is True
    assert bool(ember.tensor([0j])) is False and bool(torch.tensor([0j])) is False
    assert bool(ember.tensor(complex(-0.0, -0.0))) is False
    assert bool(ember.tensor(complex(np.nan, 0))) is True
    assert f"{ember.tensor(1 + 2j):.2f}" == "1.00+2.00j"
    with pytest.raises(InvalidParameterError, match="item: the tensor has 2 elements"):
        ember.tensor([1j, 2j]).item()


# -- numpy, clone, detach, contiguous, devices, TensorData, pickle ----------------------------

@pytest.mark.parametrize("dtype", CDTYPES)
def test_numpy_clone_detach_contiguous(rng, dtype):
    arr = crand(rng, (3, 4), dtype)
    for name, a in layouts(arr):
        z = E(a)
        out = z.numpy()
        assert out.dtype == NP_C[dtype]
        np.testing.assert_array_equal(out, a)
        assert z.numpy(copy=True).flags.writeable
        assert_same(z.clone(), a)
        assert_same(z.detach(), a)
        c = z.contiguous()
        assert c.is_contiguous()
        assert_same(c, a)
    zt = E(arr).t()
    assert zt.is_contiguous() is not has_views(zt)  # a transpose is a strided view where views are
    assert_same(zt.contiguous(), T(arr).t().contiguous())


@pytest.mark.parametrize("target", ["cpu", "torch:cpu"])
def test_to_device_moves_complex_values(rng, target):
    arr = crand(rng, (2, 3), "complex128")
    z = E(arr)
    moved = z.to_device(target)
    assert moved.device == ember.Device(target) and moved.dtype is ember.complex128
    assert_same(moved, arr)
    back = moved.to_device(DEVICE)
    assert_same(back, arr)
    assert_same(z.to(target, "complex64"), arr.astype(np.complex64))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_tensor_data_of_complex_tensors(rng, dtype):
    arr = crand(rng, (2, 3), dtype)
    z = E(arr)
    data = z.to_data()
    assert data.dtype.name == dtype and data.kind == "complex" and data.shape == (2, 3)
    np.testing.assert_array_equal(data.values, arr)
    assert z.into_data() == data
    assert data.to_list() == T(arr).tolist() or np.isnan(arr).any()
    back = ember.from_data(data)
    assert_same(back, arr)
    assert_same(ember.Tensor.from_data(data, dtype="complex128"), arr.astype(np.complex128))
    assert ember.TensorData([1j, 2]).dtype is ember.complex64
    assert ember.TensorData([1, 2], dtype=dtype).to_list() == [1 + 0j, 2 + 0j]
    assert data.convert("complex128").dtype is ember.complex128
    data.assert_eq(ember.TensorData(arr))
    with pytest.raises(AssertionError):
        ember.TensorData([1 + 1j]).assert_eq(ember.TensorData([1 + 2j]))
    assert repr(ember.TensorData([1 + 2j])) == \
        "TensorData([1.0+2.0j], shape=(1,), dtype=complex64)"


def test_tensor_data_comparisons_of_complex_values():
    a = ember.TensorData([1 + 1j, complex(np.nan, 2), 3j])
    a.assert_eq(ember.TensorData([1 + 1j, complex(np.nan, 2), 3j]))
    assert a == ember.TensorData([1 + 1j, complex(np.nan, 2), 3j])
    assert a != ember.TensorData([1 + 1j, complex(np.nan, 3), 3j])
    with pytest.raises(AssertionError, match=r"assert_eq: 1 of 3 elements differ: at \(2,\): "
                                             r"3j != 3.5j"):
        a.assert_eq(ember.TensorData([1 + 1j, complex(np.nan, 2), 3.5j]))
    a.assert_approx_eq([1 + 1.000001j, complex(np.nan, 2), 3j])
    with pytest.raises(AssertionError, match=r"assert_approx_eq: 1 of 3 elements differ"):
        a.assert_approx_eq([1 + 1.1j, complex(np.nan, 2), 3j])
    with pytest.raises(AssertionError, match=r"assert_approx_eq: 1 of 3 elements differ"):
        a.assert_approx_eq([1 + 1j, complex(2, np.nan), 3j])  # nan in the other part
    # strict=False converts the other data to this dtype: real values to complex
    ember.TensorData([1 + 0j, 2 + 0j]).assert_eq(ember.TensorData([1.0, 2.0]), strict=False)


def test_bool_target_probe_keeps_the_ragged_error():
    with pytest.raises(InvalidParameterError, match="ragged"):
        ember.tensor([[1j], [2, 3]], dtype="bool")
    assert ember.tensor([2, 0], dtype="bool").tolist() == [True, False]


@pytest.mark.parametrize("dtype", CDTYPES)
def test_pickle_round_trips_complex_tensors(rng, dtype):
    arr = crand(rng, (3, 4), dtype)
    for name, a in layouts(arr):
        z = E(a)
        back = pickle.loads(pickle.dumps(z))
        assert back.device == z.device and back.dtype is z.dtype
        assert_same(back, a)
    data = pickle.loads(pickle.dumps(E(arr).to_data()))
    assert data.dtype.name == dtype
    np.testing.assert_array_equal(data.values, arr)


# -- display ------------------------------------------------------------------------------------

def test_repr_and_str_of_complex_tensors():
    with no_warnings():
        assert repr(ember.tensor([1 + 2j, 3 - 1j])) == \
            "Tensor([1.0+2.0j, 3.0-1.0j], shape=(2,), dtype=complex64)"
        assert str(ember.tensor([[1j, -2]], dtype="complex128")) == "[[0.0+1.0j, -2.0+0.0j]]"
        assert repr(ember.tensor(0.1 + 0.2j)) == "Tensor(0.1+0.2j, shape=(), dtype=complex64)"
        assert str(ember.tensor(0.1 + 0.2j, dtype="complex128")) == "0.1+0.2j"
        specials = ember.tensor([complex(np.nan, np.inf), complex(-np.inf, -0.0),
                                 complex(-0.0, np.nan), complex(1e20, -1.5e-5)])
        assert str(specials) == "[nan+infj, -inf-0.0j, -0.0+nanj, 1e+20-1.5e-05j]"
        assert repr(ember.zeros(0, dtype="complex64")) == \
            "Tensor([], shape=(0,), dtype=complex64)"
        big = ember.zeros(2000, dtype="complex64")
        assert str(big) == "[0.0+0.0j, 0.0+0.0j, 0.0+0.0j, ..., 0.0+0.0j, 0.0+0.0j, 0.0+0.0j]"
        wide = str(ember.full((3, 8), 1.25 - 3.5j, dtype="complex128"))
        assert "\n" in wide and wide.count("1.25-3.5j") == 24
        # float32 parts print in their own shortest form (0.1 of float32 is "0.1")
        assert str(ember.tensor([0.1 + 1 / 3 * 1j])) == "[0.1+0.33333334j]"
        assert str(ember.tensor([0.1 + 1 / 3 * 1j], dtype="complex128")) == \
            "[0.1+0.3333333333333333j]"


def test_display_keeps_the_imaginary_part_of_every_element(rng):
    arr = crand(rng, (4, 5), "complex64", specials=False)
    with no_warnings():
        text = str(E(arr))
    # every element reads back as the same complex64 value, both parts
    values = [complex(s) for s in text.replace("[", "").replace("]", "").replace("\n", " ")
              .replace(",", " ").split()]
    np.testing.assert_array_equal(np.asarray(values, dtype=np.complex64), arr.reshape(-1))


# -- DLPack -------------------------------------------------------------------------------------

def _address(t):
    return t.numpy().__array_interface__["data"][0]


@pytest.mark.parametrize("dtype", CDTYPES)
def test_dlpack_exports_complex_tensors_without_a_copy(rng, dtype):
    arr = crand(rng, (3, 4), dtype)
    z = ember.tensor(arr)
    a = np.from_dlpack(z)
    assert a.dtype == NP_C[dtype]
    np.testing.assert_array_equal(a, arr)
    assert a.__array_interface__["data"][0] == _address(z)
    t = torch.from_dlpack(z)
    assert t.dtype == TORCH_C[dtype]
    assert t.data_ptr() == _address(z)
    np.testing.assert_array_equal(t.numpy(), arr)


@pytest.mark.numpy_only
def test_dlpack_export_of_a_complex_tensor_is_read_only_on_numpy(rng):
    z = E(crand(rng, (3,)))
    a = np.from_dlpack(z)
    assert not a.flags.writeable and np.shares_memory(a, z.numpy())


@pytest.mark.parametrize("dtype", CDTYPES)
def test_dlpack_imports_complex_arrays_without_a_copy(rng, dtype):
    arr = crand(rng, (2, 5), dtype)
    t = ember.from_dlpack(arr)
    assert t.dtype.name == dtype
    assert_same(t, arr)
    assert np.shares_memory(t.numpy(), arr)
    tt = T(arr)
    e = ember.from_dlpack(tt)
    assert e.dtype.name == dtype and e.device == ember.Device("torch:cpu")
    assert _address(e) == tt.data_ptr()
    assert_same(e, arr)
    assert_same(ember.from_dlpack(tt, copy=True), arr)
    # a lazily conjugated torch tensor comes in with its values
    assert_same(ember.from_dlpack(tt.conj()), np.conj(arr))
    assert_same(ember.from_dlpack(ember.from_dlpack(tt.conj())), np.conj(arr))
    np.testing.assert_array_equal(np.from_dlpack(ember.from_dlpack(tt.conj())), np.conj(arr))


# -- movement, slicing, indexing, segments --------------------------------------------------------

def _moves(x, t):
    """(name, ember result, torch result) for the shape-agnostic movement ops on ``x``/``t``."""
    nd = t.ndim
    yield "reshape", x.reshape(-1), t.reshape(-1)
    yield "flatten", x.flatten(), t.flatten()
    yield "flip", x.flip(*range(nd)) if nd else x.flip(()), t.flip(tuple(range(nd)))
    yield "permute", x.permute(*reversed(range(nd))) if nd else x.permute(()), \
        t.permute(tuple(reversed(range(nd))))
    yield "unsqueeze", x.unsqueeze(0), t.unsqueeze(0)
    yield "squeeze", x.unsqueeze(0).squeeze(0), t.unsqueeze(0).squeeze(0)
    yield "expand", x.unsqueeze(0).expand(2, *t.shape), t.unsqueeze(0).expand(2, *t.shape)
    yield "repeat", x.repeat(2, *([1] * nd)), t.repeat(2, *([1] * nd))
    yield "clone", x.clone(), t.clone()
    yield "contiguous", x.contiguous(), t.contiguous()
    if nd:
        yield "roll", x.roll(2, 0), t.roll(2, 0)
        yield "roll_flat", x.roll(3), t.roll(3)
        yield "repeat_interleave", x.repeat_interleave(2, dim=0), t.repeat_interleave(2, dim=0)
        yield "narrow", x.narrow(0, 0, min(1, t.shape[0])), t.narrow(0, 0, min(1, t.shape[0]))
        yield "split", ember.stack(list(x.split(1, 0))) if t.shape[0] else x, \
            torch.stack(list(t.split(1, 0))) if t.shape[0] else t
        yield "cat", ember.cat([x, x.flip(0)], 0), torch.cat([t, t.flip(0)], 0)
        yield "stack", ember.stack([x, x], -1), torch.stack([t, t], -1)
        yield "getitem", x[::-1], t.flip(0)
        yield "movedim", x.movedim(0, -1), t.movedim(0, -1)
    if nd >= 2:
        yield "transpose", x.transpose(0, 1), t.transpose(0, 1)
        yield "mT", x.mT, t.mT
        yield "triu", x.triu(1), t.triu(1)
        yield "tril", x.tril(-1), t.tril(-1)
        yield "unbind", x.unbind(1)[0] if t.shape[1] else x, t.unbind(1)[0] if t.shape[1] else t
        yield "chunk", x.chunk(2, 1)[0] if t.shape[1] else x, t.chunk(2, 1)[0] if t.shape[1] else t


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_movement_ops_take_complex_tensors(rng, dtype, shape):
    arr = crand(rng, shape, dtype)
    for layout, a in layouts(arr):
        x, t = E(a), T(a)
        with no_warnings():
            for name, got, expected in _moves(x, t):
                try:
                    assert_same(got, expected)
                except AssertionError as exc:
                    raise AssertionError(f"{name} ({layout}): {exc}") from None
        assert_same(x, a)  # the input is unchanged


@pytest.mark.parametrize("dtype", CDTYPES)
def test_pad_of_complex_tensors(rng, dtype):
    arr = crand(rng, (3, 4), dtype)
    for layout, a in layouts(arr):
        x, t = E(a), T(a)
        pairs = ((1, 2), (0, 1))
        # a complex constant: torch's pad takes real constants only, NumPy's takes complex ones
        assert_same(x.pad(pairs, value=1 - 2j), np.pad(a, pairs, constant_values=1 - 2j))
        assert_same(x.pad(pairs, 1j), np.pad(a, pairs, constant_values=1j))
        assert_same(x.pad(pairs, ember.PadMode.constant(2 + 1j)),
                    np.pad(a, pairs, constant_values=2 + 1j))
        assert_same(x.pad(pairs), F.pad(t, (0, 1, 1, 2)))
        assert_same(x.pad(pairs, value=2.5), F.pad(t, (0, 1, 1, 2), value=2.5))
        assert_same(x.pad(((-1, 1), (1, -2)), value=1j),
                    np.pad(a, ((0, 1), (1, 0)), constant_values=1j)[1:, :-2])
        assert_same(x.pad2d((1, 0, 0, 1), value=-1j), np.pad(a, ((0, 1), (1, 0)),
                                                             constant_values=-1j))
        assert_same(x.pad(((1, 1), (2, 2)), "reflect"),
                    F.pad(t[None], (2, 2, 1, 1), mode="reflect")[0])
        assert_same(x.pad(((1, 1), (2, 2)), "edge"),
                    F.pad(t[None], (2, 2, 1, 1), mode="replicate")[0])
        assert_same(x.pad(((1, 1), (2, 2)), "circular"),
                    F.pad(t[None, None], (2, 2, 1, 1), mode="circular")[0, 0])
    # a complex value promotes a real tensor, as arithmetic would
    real = ember.tensor([1.0, 2.0])
    assert_same(real.pad([(1, 0)], value=1j), np.array([1j, 1, 2], dtype=np.complex64))
    assert_same(ember.tensor([1, 2]).pad([(0, 1)], value=2j),
                np.array([1, 2, 2j], dtype=np.complex64))
    assert_same(ember.tensor([1.0], dtype="float64").pad([(0, 1)], value=2j),
                np.array([1, 2j], dtype=np.complex128))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_indexing_ops_take_complex_tensors(rng, dtype):
    arr = crand(rng, (3, 4), dtype)
    idx, tidx = ember.tensor([2, 0, 2]), torch.tensor([2, 0, 2])
    g = [[0, 1, 2, 0], [2, 2, 1, 0]]
    eg, tg = ember.tensor(g), torch.tensor(g)
    for layout, a in layouts(arr):
        x, t = E(a), T(a)
        mask_np = np.isfinite(a.real) & (a.real > 0)
        m, tm = ember.tensor(mask_np), torch.from_numpy(mask_np)
        with no_warnings():
            assert_same(x.select(1, idx), t.index_select(1, tidx))
            assert_same(x.take(0, idx), t.index_select(0, tidx))
            assert_same(x.select_dim(1, 2), t.select(1, 2))
            assert_same(x.gather(0, eg), t.gather(0, tg))
            assert_same(x.gather_nd(ember.tensor([[0, 1], [2, 3]])), t[[0, 2], [1, 3]])
            assert_same(x.mask_select(m), t.masked_select(tm))
            assert_same(x[m], t[tm])
            assert_same(x[idx], t[tidx])
            assert_same(x[idx, 1:], t[tidx, 1:])
            assert_same(x[[0, 2], [1, 3]], t[[0, 2], [1, 3]])
            assert_same(x[None, ..., -1], t[None, ..., -1])
            assert_same(x[1], t[1])
            assert_same(x[1, 2], t[1, 2])
            assert_same(x[::2, ::-1], t[::2].flip(1))
            assert_same(x.slice((slice(0, 2), slice(1, 3))), t[0:2, 1:3])
            assert_same(x.shrink(((0, 2), (1, 3))), t[0:2, 1:3])
            assert_same(x.unfold(1, 2, 1), t.unfold(1, 2, 1))
            assert_same(x.nonzero()[0] if isinstance(x.nonzero(), list) else x.nonzero(),
                        torch.nonzero(t, as_tuple=True)[0])
            assert_same(x.argwhere(), torch.argwhere(t))
            # writes
            assert_same(x.masked_fill(m, 1 + 2j), t.masked_fill(tm, 1 + 2j))
            assert_same(x.masked_fill(m, 3.0), t.masked_fill(tm, 3.0))
            assert_same(x.masked_fill(m, ember.tensor(-1j, dtype=dtype)),
                        t.masked_fill(tm, torch.tensor(-1j, dtype=TORCH_C[dtype])))
            assert_same(x.masked_fill(m, ember.tensor(2.0)), t.masked_fill(tm, 2.0))
            assert_same(x.mask_fill(m, 1j), t.masked_fill(tm, 1j))
            assert_same(x.mask_where(m, x.flip(0)), torch.where(tm, t.flip(0), t))
            assert_same(ember.where(m, x, x.flip(1)), torch.where(tm, t, t.flip(1)))
            assert_same(ember.where(m, x, 1j), torch.where(tm, t, torch.tensor(
                1j, dtype=TORCH_C[dtype])))
            assert_same(x.where(m, 0), torch.where(tm, t, torch.tensor(0, dtype=TORCH_C[dtype])))
            sidx = [[0, 1], [2, 3], [1, 0]]
            assert_same(x.scatter(1, ember.tensor(sidx), x[:, :2]),
                        t.scatter(1, torch.tensor(sidx), t[:, :2]))
            aidx = [[0, 0], [3, 3], [1, 1]]
            assert_same(x.scatter(1, ember.tensor(aidx), x[:, :2], "add"),
                        t.scatter_add(1, torch.tensor(aidx), t[:, :2]))
            assert_same(x.select_assign(0, ember.tensor([0, 0]), x[:2], "add"),
                        t.index_add(0, torch.tensor([0, 0]), t[:2]))
            assert_same(x.select_assign(0, ember.tensor([2, 0]), x[:2]),
                        t.index_copy(0, torch.tensor([2, 0]), t[:2]))
            assert_same(x.scatter_nd(ember.tensor([[1], [1]]), x[:2], "add"),
                        t.index_put((torch.tensor([1, 1]),), t[:2], accumulate=True))
            assert_same(x.slice_assign((slice(0, 2),), x[1:]), torch.cat([t[1:], t[2:]]))
            assert_same(x.slice_fill((slice(0, 2),), 1j),
                        torch.cat([torch.full((2, 4), 1j, dtype=TORCH_C[dtype]), t[2:]]))
            y, ty = E(a), t.clone()
            y[0, 1] = 5j
            ty[0, 1] = 5j
            y[m] = 2.5
            ty[tm] = 2.5
            y[idx[:2]] = x[:2].flip(0)
            ty[tidx[:2]] = t[:2].flip(0)
            y[:, 3] = ember.tensor([1, 2, 3])
            ty[:, 3] = torch.tensor([1, 2, 3])
            assert_same(y, ty)
        assert_same(x, a)


def test_scatter_mul_and_where_promotion():
    z = ember.tensor([[1 + 1j, 2, 3j], [4, 5j, 6]])
    tz = torch.tensor([[1 + 1j, 2, 3j], [4, 5j, 6]])
    idx = [[0, 0, 1], [1, 0, 1]]
    assert_same(z.scatter(1, ember.tensor(idx), z, "mul"),
                tz.scatter_reduce(1, torch.tensor(idx), tz, "prod"))
    c = ember.tensor([True, False])
    assert_same(ember.where(c, ember.tensor([1.0, 2.0]), ember.tensor([1j, 2j])),
                torch.where(torch.tensor([True, False]), torch.tensor([1.0, 2.0]),
                            torch.tensor([1j, 2j])))
    assert_same(ember.where(c, ember.tensor([1.0, 2.0], dtype="float64"), 1j),
                torch.where(torch.tensor([True, False]),
                            torch.tensor([1.0, 2.0], dtype=torch.float64),
                            torch.tensor(1j, dtype=torch.complex128)))
    assert_same(ember.cat([ember.tensor([1j]), ember.tensor([2.0], dtype="float64")]),
                torch.cat([torch.tensor([1j]), torch.tensor([2.0], dtype=torch.float64)]))
    assert_same(ember.stack([z, z], dtype="complex128"),
                torch.stack([tz, tz]).to(torch.complex128))


# -- refusals -----------------------------------------------------------------------------------

def test_ordering_updates_and_class_indices_refuse_complex():
    z = ember.tensor([[1 + 1j, 2], [3j, 4]])
    before = z.tolist()
    for update in ("min", "max", "amin", "amax"):
        with pytest.raises(KindError, match=r"scatter \(update='m(in|ax)'\): not defined for "
                                            "complex tensors"):
            z.scatter(1, ember.tensor([[0, 0], [1, 0]]), z, update)
        with pytest.raises(KindError, match=r"select_assign \(update='m(in|ax)'\): not defined"):
            z.select_assign(0, ember.tensor([0]), z[:1], update)
        with pytest.raises(KindError, match=r"scatter_nd \(update='m(in|ax)'\): not defined"):
            z.scatter_nd(ember.tensor([[0]]), z[:1], update)
    with pytest.raises(KindError, match="one_hot_fill: not defined for complex tensors"):
        z.one_hot_fill(3)
    with pytest.raises(KindError, match="one_hot: not defined for complex tensors"):
        z.one_hot(3)
    assert z.tolist() == before


def test_complex_values_into_real_tensors_raise():
    x = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    m = ember.tensor([[True, False], [False, True]])
    before = x.tolist()
    with no_warnings():
        with pytest.raises(KindError, match=r"masked_fill: value \(1\+2j\) is complex and the "
                                            "tensor has dtype float32; .*imaginary part"):
            x.masked_fill(m, 1 + 2j)
        with pytest.raises(KindError, match="masked_fill: value 1j is complex"):
            x.masked_fill(m, ember.tensor(1j))
        with pytest.raises(KindError, match="mask_fill: value 1j is complex"):
            x.mask_fill(m, 1j)
        with pytest.raises(KindError, match="mask_fill: value is a complex tensor"):
            x.mask_fill(m, ember.tensor([1j]))
        with pytest.raises(KindError, match="mask_where: value is a complex tensor"):
            x.mask_where(m, ember.tensor([[1j, 1j], [1j, 1j]]))
        with pytest.raises(KindError, match="slice_fill: value 1j is complex"):
            x.slice_fill((slice(0, 1),), 1j)
        with pytest.raises(KindError, match="slice_assign: values are a complex tensor"):
            x.slice_assign((slice(0, 1),), ember.tensor([[1j, 2j]]))
        with pytest.raises(KindError, match="scatter: values is a complex tensor"):
            x.scatter(0, ember.tensor([[0, 1]]), ember.tensor([[1j, 1j]]))
        with pytest.raises(KindError, match="one_hot_fill: on_value 1j is complex"):
            ember.tensor([0, 1]).one_hot_fill(2, 1j)
        for key in ((0, 1), slice(None), (m,), (ember.tensor([0]),)):
            y = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
            with pytest.raises(KindError, match=r"__setitem__: value .*complex.*imaginary part"):
                y[key] = 1j
            with pytest.raises(KindError, match=r"__setitem__: value is a complex64 tensor"):
                y[key] = ember.tensor(2j)
            assert y.tolist() == before
        with pytest.raises(KindError, match="__setitem__: value is a complex128 tensor"):
            y[0] = ember.tensor([1j, 2j], dtype="complex128")
        with pytest.raises(KindError, match="__setitem__: value is a complex"):
            y[ember.tensor([0])] = [[1j, 2j]]
        with pytest.raises(KindError, match="cat: the tensors have dtype complex64 and "
                                            "dtype=float32 would drop the imaginary part"):
            ember.cat([ember.tensor([1j]), ember.tensor([2.0])], dtype="float32")
        with pytest.raises(KindError, match="stack: the tensors have dtype complex64 and "
                                            "dtype=int64"):
            ember.stack([ember.tensor([1j])], dtype="int64")
        with pytest.raises(KindError, match="stack: .*dtype=float64"):
            ember.stack([ember.tensor([1j]), ember.tensor([2j])], dtype="float64")
    assert x.tolist() == before


def test_tracked_real_tensors_meeting_complex_values_raise():
    x = ember.tensor([1.0, 2.0]).require_grad()
    with pytest.raises(KindError, match="pad: a complex result of a tracked tensor"):
        x.pad([(1, 0)], value=1j)
    with pytest.raises(KindError, match="where: a complex result of a tracked tensor"):
        ember.where(ember.tensor([True, False]), x, 1j)
    with pytest.raises(KindError, match="cat: a complex result of a tracked tensor"):
        ember.cat([x, ember.tensor([1j])])
    with ember.no_grad():
        assert ember.cat([x, ember.tensor([1j])]).tolist() == [1, 2, 1j]


# -- io -----------------------------------------------------------------------------------------

def test_safetensors_and_checkpoints_refuse_complex_tensors(tmp_path):
    z = ember.tensor([1 + 2j])
    with pytest.raises(KindError, match=r"save: tensors\['w'\] has dtype complex64, which "
                                        "safetensors cannot store"):
        ember.io.save({"w": z, "b": ember.ones(2)})
    path = str(tmp_path / "w.safetensors")
    with pytest.raises(KindError, match=r"save_file: tensors\['layer.w'\] has dtype complex128"):
        ember.io.save_file({"layer.w": z.cast("complex128")}, path)
    assert not os.path.exists(path)
    ckpt = str(tmp_path / "run.ckpt")
    with pytest.raises(KindError, match=r"save: obj\['state'\]\[1\] is a complex64 tensor, "
                                        "which a checkpoint cannot store"):
        ember.save({"state": [ember.ones(1), z]}, ckpt)
    assert not os.path.exists(ckpt)
    # the parts travel
    ember.io.save_file({"re": ember.tensor(z.numpy().real.copy()),
                        "im": ember.tensor(z.numpy().imag.copy())}, path)
    back = ember.io.load_file(path)
    assert back["re"].tolist() == [1.0] and back["im"].tolist() == [2.0]


def test_safetensors_file_of_complex64_is_refused_on_load(tmp_path):
    st = pytest.importorskip("safetensors.torch")
    path = str(tmp_path / "c.safetensors")
    try:
        st.save_file({"z": torch.tensor([1j])}, path)
    except Exception:  # noqa: BLE001 - an older safetensors has no C64
        pytest.skip("this safetensors cannot write complex64")
    with pytest.raises(KindError, match="load_file: tensor 'z' in .* has safetensors dtype C64, "
                                        "which ember does not read"):
        ember.io.load_file(path)



@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool"])
def test_numpy_complex_scalars_in_a_list_never_become_real(dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(KindError, match="imaginary part would be lost"):
            ember.tensor([np.complex64(1j), np.complex128(2.0)], dtype=dtype)
