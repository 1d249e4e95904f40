"""Tests of ember/array_api/fft.py, the Array API standard's fft extension (2024.12), against
NumPy's ``numpy.fft`` (NumPy 2 keeps complex64 and float32, as the standard asks): the 14
functions' signatures, values, dtypes and shapes, and what ember does where the standard leaves
the behaviour open."""

import inspect
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
import ember.array_api as xp
import ember.array_api.fft as xfft
from ember import DimensionError, InvalidParameterError, KindError

NORMS = ["backward", "ortho", "forward"]
NAMES = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
         "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn"]
REAL_IN = {"rfft", "ihfft", "rfftn"}        # "must have a real-valued floating-point data type"
REAL_OUT = {"irfft", "hfft", "irfftn"}


def _data(rng, shape, dtype):
    if dtype.startswith("complex"):
        part = "float32" if dtype == "complex64" else "float64"
        out = np.zeros(shape, dtype=dtype)
        out.real = rng.standard_normal(shape).astype(part)
        out.imag = rng.standard_normal(shape).astype(part)
        return out
    return rng.standard_normal(shape).astype(dtype)


def _check(out, expected, dtype):
    assert isinstance(out, ember.Tensor)
    assert out.dtype.name == dtype, (out.dtype, dtype)
    assert out.shape == expected.shape, (out.shape, expected.shape)
    single = dtype in ("float32", "complex64")
    scale = max(1.0, float(np.abs(expected).max())) if expected.size else 1.0
    np.testing.assert_allclose(np.asarray(out.numpy()), expected, rtol=1e-4 if single else 1e-10,
                               atol=(1e-5 if single else 1e-12) * scale)


def _result_dtype(name, dtype):
    if name in REAL_OUT:
        return {"complex64": "float32", "complex128": "float64"}[dtype]
    return {"float32": "complex64", "float64": "complex128"}.get(dtype, dtype)


def _in_dtypes(name):
    return ["float32", "float64"] if name in REAL_IN else ["complex64", "complex128"]


# -- signatures -----------------------------------------------------------------------------------

P, K = inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.KEYWORD_ONLY
SIGNATURES = {  # the 2024.12 stubs: (name, kind, default)
    **{name: [("x", P, inspect.Parameter.empty), ("n", K, None), ("axis", K, -1),
              ("norm", K, "backward")] for name in ONE_D},
    **{name: [("x", P, inspect.Parameter.empty), ("s", K, None), ("axes", K, None),
              ("norm", K, "backward")] for name in N_D},
    **{name: [("n", P, inspect.Parameter.empty), ("d", K, 1.0), ("dtype", K, None),
              ("device", K, None)] for name in ("fftfreq", "rfftfreq")},
    **{name: [("x", P, inspect.Parameter.empty), ("axes", K, None)]
       for name in ("fftshift", "ifftshift")},
}


def test_the_extension_has_the_standard_functions_and_signatures():
    assert sorted(xfft.__all__) == sorted(NAMES)
    for name in NAMES:
        f = getattr(xfft, name)
        params = [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]
        assert params == SIGNATURES[name], name
        assert f.__doc__


def test_options_are_keyword_only():
    x = xp.asarray([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(TypeError):
        xfft.fft(x, 4)
    with pytest.raises(TypeError):
        xfft.fftfreq(4, 0.5)


# -- the transforms against numpy.fft -------------------------------------------------------------

@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("shape", [(6,), (3, 5), (2, 4, 3)])
def test_one_dim_transforms_match_numpy(name, shape, rng):
    for dtype in _in_dtypes(name):
        arr = _data(rng, shape, dtype)
        x = ember.from_numpy(arr)
        for norm in NORMS:
            for axis in range(-1, len(shape)):
                for n in (None, 1, 2, 7):
                    if name in REAL_OUT and n is None and arr.shape[axis] < 2:
                        continue
                    out = getattr(xfft, name)(x, n=n, axis=axis, norm=norm)
                    exp = getattr(np.fft, name)(arr, n=n, axis=axis, norm=norm)
                    _check(out, exp, _result_dtype(name, dtype))


@pytest.mark.parametrize("name", N_D)
def test_n_dim_transforms_match_numpy(name, rng):
    for dtype in _in_dtypes(name):
        arr = _data(rng, (4, 3, 6), dtype)
        x = ember.from_numpy(arr)
        for s, axes in [(None, None), (None, (0, 2)), (None, [2, 0]), ((5, 4), (1, 2)),
                        ((2, 3, 9), (0, 1, 2)), ((7,), (0,)), (None, (-1,))]:
            for norm in NORMS:
                out = getattr(xfft, name)(x, s=s, axes=axes, norm=norm)
                exp = getattr(np.fft, name)(arr, s=s, axes=axes, norm=norm)
                _check(out, exp, _result_dtype(name, dtype))


def test_non_contiguous_inputs(rng):
    arr = _data(rng, (6, 8), "complex128")
    for view in (arr.T, arr[::2], arr[:, ::-1]):
        _check(xfft.fft(ember.from_numpy(view), axis=0), np.fft.fft(view, axis=0), "complex128")
        _check(xfft.irfftn(ember.from_numpy(view)), np.fft.irfftn(view), "float64")
    real = _data(rng, (6, 8), "float32")[:, 1::2]
    _check(xfft.rfft(ember.from_numpy(real)), np.fft.rfft(real), "complex64")


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 6), min_size=1, max_size=3), data=st.data())
def test_random_shapes_and_arguments(shape, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16), label="seed"))
    name = data.draw(st.sampled_from(ONE_D + N_D), label="name")
    dtype = data.draw(st.sampled_from(_in_dtypes(name)), label="dtype")
    arr = _data(rng, tuple(shape), dtype)
    norm = data.draw(st.sampled_from(NORMS), label="norm")
    if name in ONE_D:
        axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
        n = data.draw(st.none() | st.integers(1, 12), label="n")
        if name in REAL_OUT and n is None and shape[axis] < 2:
            n = 2
        kwargs = dict(n=n, axis=axis, norm=norm)
    else:
        axes = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True),
                         label="axes")
        s = data.draw(st.none() | st.tuples(*[st.integers(1, 9) for _ in axes]), label="s")
        if name in REAL_OUT and s is None and shape[axes[-1]] < 2:
            s = tuple(shape[a] for a in axes[:-1]) + (2,)
        kwargs = dict(s=s, axes=axes, norm=norm)
    out = getattr(xfft, name)(ember.from_numpy(arr), **kwargs)
    _check(out, getattr(np.fft, name)(arr, **kwargs), _result_dtype(name, dtype))


def test_inverse_pairs_round_trip(rng):
    z = _data(rng, (3, 8), "complex128")
    r = _data(rng, (3, 8), "float64")
    for norm in NORMS:
        np.testing.assert_allclose(
            xfft.ifft(xfft.fft(ember.from_numpy(z), norm=norm), norm=norm).numpy(), z, atol=1e-12)
        np.testing.assert_allclose(
            xfft.irfft(xfft.rfft(ember.from_numpy(r), norm=norm), n=8, norm=norm).numpy(), r,
            atol=1e-12)
        np.testing.assert_allclose(
            xfft.hfft(xfft.ihfft(ember.from_numpy(r), norm=norm), n=8, norm=norm).numpy(), r,
            atol=1e-12)
        np.testing.assert_allclose(
            xfft.irfftn(xfft.rfftn(ember.from_numpy(r), norm=norm), s=(3, 8), axes=(0, 1),
                        norm=norm).numpy(), r, atol=1e-12)


# -- where the standard leaves the behaviour open: ember follows PyTorch --------------------------

def test_real_inputs_to_complex_transforms(rng):
    arr = _data(rng, (5,), "float64")
    _check(xfft.fft(ember.from_numpy(arr)), np.fft.fft(arr), "complex128")
    _check(xfft.irfft(ember.from_numpy(arr)), np.fft.irfft(arr), "float64")
    _check(xfft.fft(ember.from_numpy(arr.astype("float32"))), np.fft.fft(arr), "complex64")


def test_int_inputs_use_the_default_float():
    arr = np.array([1, 2, 3, 4], dtype="int64")
    _check(xfft.fft(ember.from_numpy(arr)), np.fft.fft(arr), "complex64")
    _check(xfft.rfft(ember.from_numpy(arr)), np.fft.rfft(arr), "complex64")


def test_s_without_axes_names_the_last_axes(rng):
    arr = _data(rng, (3, 4, 5), "complex128")
    out = xfft.fftn(ember.from_numpy(arr), s=(2, 6))
    _check(out, np.fft.fftn(arr, s=(2, 6), axes=(1, 2)), "complex128")


def test_repeated_axes_raise():
    x = ember.from_numpy(np.ones((3, 4), dtype="complex64"))
    with pytest.raises(InvalidParameterError, match="^fftn: dim"):
        xfft.fftn(x, axes=(0, 0))


def test_errors_are_typed():
    x = ember.from_numpy(np.ones((3, 4), dtype="complex64"))
    with pytest.raises(InvalidParameterError, match="^fft: norm 'bad'"):
        xfft.fft(x, norm="bad")
    with pytest.raises(InvalidParameterError, match="^fft: n has 0 points"):
        xfft.fft(x, n=0)
    with pytest.raises(DimensionError, match="^ifft: dim 2 is out of range"):
        xfft.ifft(x, axis=2)
    with pytest.raises(InvalidParameterError, match="^irfftn: s has 1 sizes but dim names 2"):
        xfft.irfftn(x, s=(3,), axes=(0, 1))
    with pytest.raises(KindError, match="^rfft: input has dtype complex64"):
        xfft.rfft(x)
    with pytest.raises(InvalidParameterError, match="^fftn: input must be a Tensor"):
        xfft.fftn([1.0, 2.0])


# -- frequencies and shifts -----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n", [1, 2, 5, 8, 31])
def test_frequencies_match_numpy(name, n):
    default = xp.__array_namespace_info__().default_dtypes()["real floating"]
    for d in (1.0, 0.1, 2.5):
        out = getattr(xfft, name)(n, d=d)
        assert out.dtype == default
        exp = getattr(np.fft, name)(n, d=d)
        np.testing.assert_allclose(out.numpy(), exp, rtol=1e-6)
        out = getattr(xfft, name)(n, d=d, dtype=xp.float64)
        assert out.dtype == xp.float64
        np.testing.assert_allclose(out.numpy(), exp, rtol=1e-15)
    out = getattr(xfft, name)(n, device=ember.Device("cpu"))
    assert out.device == ember.Device("cpu")
    assert out.shape == (n // 2 + 1 if name == "rfftfreq" else n,)


def test_frequency_dtypes_must_be_real_floats():
    with pytest.raises(KindError, match="^fftfreq: dtype int32 is not a float dtype"):
        xfft.fftfreq(4, dtype=xp.int32)
    with pytest.raises(KindError, match="^rfftfreq: dtype complex64 is not a float dtype"):
        xfft.rfftfreq(4, dtype=xp.complex64)


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts_match_numpy(name, rng):
    for dtype in ("float32", "complex128"):
        for shape in ((5,), (4, 5), (3, 1, 6)):
            arr = _data(rng, shape, dtype)
            for axes in (None, 0, -1, [0], list(range(len(shape)))):
                out = getattr(xfft, name)(ember.from_numpy(arr), axes=axes)
                exp = getattr(np.fft, name)(arr, axes=axes)
                assert out.dtype.name == dtype
                np.testing.assert_array_equal(out.numpy(), exp)


def test_shifts_of_frequencies_are_sorted():
    for n in (4, 5):
        f = xfft.fftshift(xfft.fftfreq(n)).tolist()
        assert f == sorted(f)
        assert xfft.ifftshift(xfft.fftshift(xfft.fftfreq(n))).tolist() == xfft.fftfreq(n).tolist()


def test_module_doctests():
    import doctest
    result = doctest.testmod(xfft)
    assert result.failed == 0 and result.attempted > 10


def test_every_function_is_ember_fft():
    # one implementation: the extension maps names and keywords onto ember.fft
    assert math.isclose(xfft.fft(xp.asarray([1.0, 1.0])).tolist()[0].real, 2.0)
    src = inspect.getsource(xfft)
    for name in NAMES:
        assert f"_fft.{name}(" in src
