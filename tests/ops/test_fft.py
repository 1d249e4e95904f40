"""Tests of ember/ops/fft.py (``ember.fft``) against ``torch.fft``: values, dtypes and shapes of
every function on random inputs of several shapes and layouts, every norm, ``n``/``s`` smaller
and larger than the input, size-0 and 0-d inputs, the typed errors, the no-gradient rule, and
docs/fft.md."""

import doctest
import inspect
import os
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.fft as efft
import ember.ops.fft as ops_fft
from ember import DimensionError, EmberError, InvalidParameterError, KindError
from oracle import layouts, on_device

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NORMS = [None, "backward", "ortho", "forward"]
ALL_NAMES = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
             "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
             "rfftfreq", "fftshift", "ifftshift"]
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn", "hfft2", "ihfft2",
       "hfftn", "ihfftn"]
REAL_ONLY = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}
# the transforms whose last transformed dim holds half a Hermitian spectrum (real result)
C2R = {"irfft", "hfft", "irfft2", "hfft2", "irfftn", "hfftn"}


# -- helpers --------------------------------------------------------------------------------------

def _data(rng, shape, dtype):
    if dtype in ("complex64", "complex128"):
        part = "float32" if dtype == "complex64" else "float64"
        return (rng.standard_normal(shape).astype(part)
                + 1j * rng.standard_normal(shape).astype(part)).astype(dtype)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("int"):
        return rng.integers(-3, 4, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _pair(arr):
    """An ember tensor viewing ``arr`` (its layout kept; on EMBER_DEVICE) and a torch copy."""
    return ember.from_numpy(arr), torch.from_numpy(np.array(arr, copy=True))


def _check(out, expected):
    """``out`` (ember) equals ``expected`` (torch): dtype, shape and values."""
    assert isinstance(out, ember.Tensor)
    assert out.dtype.name == str(expected.dtype).replace("torch.", ""), (out.dtype, expected.dtype)
    assert out.shape == tuple(expected.shape), (out.shape, tuple(expected.shape))
    act = np.asarray(out.numpy())
    exp = expected.detach().resolve_conj().numpy()
    single = out.dtype.name in ("float32", "complex64")
    scale = max(1.0, float(np.abs(exp).max())) if exp.size and np.isfinite(exp).all() else 1.0
    np.testing.assert_allclose(act, exp, rtol=1e-4 if single else 1e-10,
                               atol=(1e-5 if single else 1e-12) * scale)


def _snapshot(t):
    return np.array(t.numpy(), copy=True)


def _unchanged(t, before):
    a = np.asarray(t.numpy())
    assert a.dtype == before.dtype and a.shape == before.shape
    assert a.tobytes() == before.tobytes()


def _in_dtypes(name):
    real = ["float32", "float64", "int32", "bool"]
    return real if name in REAL_ONLY else real + ["complex64", "complex128"]


# -- the 1-D transforms ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 6)])
def test_one_dim_transforms_match_torch(name, shape, rng):
    for dtype in _in_dtypes(name):
        arr = _data(rng, shape, dtype)
        x, t = _pair(arr)
        before = _snapshot(x)
        for norm in NORMS:
            for dim in (-1, 0):
                if name in C2R and shape[dim] < 2:
                    continue
                out = getattr(efft, name)(x, dim=dim, norm=norm)
                _check(out, getattr(torch.fft, name)(t, dim=dim, norm=norm))
        _unchanged(x, before)


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("n", [1, 2, 3, 7, 16])
def test_one_dim_n_trims_or_pads_as_torch(name, n, rng):
    # the input has 6 points along dim 1: n trims, keeps or pads
    for dtype in ("float64",) if name in REAL_ONLY else ("float64", "complex64"):
        x, t = _pair(_data(rng, (3, 6, 2), dtype))
        for norm in NORMS:
            out = getattr(efft, name)(x, n=n, dim=1, norm=norm)
            _check(out, getattr(torch.fft, name)(t, n=n, dim=1, norm=norm))


@pytest.mark.parametrize("name", ONE_D)
def test_one_dim_non_contiguous_layouts(name, rng):
    dtype = "float32" if name in REAL_ONLY else "complex128"
    base = _data(rng, (4, 6), dtype)
    for layout, arr in layouts(base):
        x, t = _pair(arr)
        for dim in (0, 1):
            out = getattr(efft, name)(x, dim=dim, norm="ortho")
            _check(out, getattr(torch.fft, name)(t, dim=dim, norm="ortho"))
    # a transposed view and a stepped view through ember's own movement ops
    x, t = _pair(base)
    _check(getattr(efft, name)(x.t()), getattr(torch.fft, name)(t.t()))
    _check(getattr(efft, name)(x.flip(1)), getattr(torch.fft, name)(t.flip(1)))
    _check(getattr(efft, name)(x[:, ::2]), getattr(torch.fft, name)(t[:, ::2]))


def test_round_trips(rng):
    z, _ = _pair(_data(rng, (3, 8), "complex128"))
    r, _ = _pair(_data(rng, (3, 8), "float64"))
    for norm in NORMS:
        np.testing.assert_allclose(efft.ifft(efft.fft(z, norm=norm), norm=norm).numpy(),
                                   z.numpy(), atol=1e-12)
        np.testing.assert_allclose(efft.irfft(efft.rfft(r, norm=norm), n=8, norm=norm).numpy(),
                                   r.numpy(), atol=1e-12)
        np.testing.assert_allclose(efft.hfft(efft.ihfft(r, norm=norm), n=8, norm=norm).numpy(),
                                   r.numpy(), atol=1e-12)
        np.testing.assert_allclose(efft.ifftn(efft.fftn(z, norm=norm), norm=norm).numpy(),
                                   z.numpy(), atol=1e-12)


# -- the N-D transforms ---------------------------------------------------------------------------

# (s, dim) pairs on a (4, 5, 6) input
ND_ARGS = [
    (None, None),
    (None, (0, 2)),
    (None, (2, 0)),
    (None, (-1, -2)),
    ((3, 8), (0, 2)),
    ((7, 2), (1, 0)),
    ((4,), None),        # s alone: the last len(s) dims, as PyTorch
    ((6, 9), None),
    ((-1, 9), (1, 2)),   # -1 keeps the input's size
    (None, 1),           # an int dim
    (None, ()),          # no dims (fftn/ifftn only)
]
TWO_D_ARGS = [(None, (-2, -1)), ((3, 4), (-2, -1)), (None, (0, 2)), ((5, 3), (2, 1))]


@pytest.mark.parametrize("name", N_D)
def test_n_dim_transforms_match_torch(name, rng):
    two = name.endswith("2")
    for dtype in _in_dtypes(name):
        arr = _data(rng, (4, 5, 6), dtype)
        x, t = _pair(arr)
        before = _snapshot(x)
        for s, dim in TWO_D_ARGS if two else ND_ARGS:
            if dim == () and name not in ("fftn", "ifftn"):
                continue
            kwargs = {}
            if s is not None:
                kwargs["s"] = s
            if dim is not None:
                kwargs["dim"] = dim
            for norm in NORMS:
                out = getattr(efft, name)(x, norm=norm, **kwargs)
                _check(out, getattr(torch.fft, name)(t, norm=norm, **kwargs))
        _unchanged(x, before)


@pytest.mark.parametrize("name", N_D)
def test_n_dim_non_contiguous_layouts(name, rng):
    dtype = "float64" if name in REAL_ONLY else "complex64"
    for layout, arr in layouts(_data(rng, (4, 6, 3), dtype)):
        x, t = _pair(arr)
        _check(getattr(efft, name)(x, norm="forward"), getattr(torch.fft, name)(t, norm="forward"))


def test_n_dim_on_four_dims_with_lists(rng):
    x, t = _pair(_data(rng, (2, 3, 4, 5), "complex128"))
    _check(efft.fftn(x, s=[2, 6], dim=[1, 3]), torch.fft.fftn(t, s=[2, 6], dim=[1, 3]))
    _check(efft.irfftn(x, s=[4, 7], dim=[0, 2]), torch.fft.irfftn(t, s=[4, 7], dim=[0, 2]))
    _check(efft.hfftn(x, s=[3, 3, 3]), torch.fft.hfftn(t, s=[3, 3, 3]))


@pytest.mark.numpy_only
def test_fftn_over_no_dims_is_a_copy():
    arr = np.ones((2, 3), dtype="complex64")
    out = efft.fftn(ember.from_numpy(arr), dim=())
    arr[0, 0] = 5  # the owner of a from_numpy array may still write it
    assert out.tolist() == [[1, 1, 1], [1, 1, 1]]
    assert out.dtype == ember.complex64


def test_zero_dim_inputs(rng):
    x, t = _pair(np.asarray(2.5, dtype="float64"))
    _check(efft.fftn(x), torch.fft.fftn(t))
    _check(efft.ifftn(x, norm="ortho"), torch.fft.ifftn(t, norm="ortho"))
    for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
        with pytest.raises(DimensionError, match=f"^{name}: dim -1 is out of range"):
            getattr(efft, name)(x)
    for name in ("rfftn", "irfftn", "hfftn", "ihfftn"):
        with pytest.raises(InvalidParameterError, match=f"^{name}: no dims to transform"):
            getattr(efft, name)(x)


# -- size 0 ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ONE_D)
def test_an_empty_signal_raises_as_torch(name):
    x = ember.zeros(3, 0, dtype="float32" if name in REAL_ONLY else "complex64")
    with pytest.raises(RuntimeError):
        getattr(torch.fft, name)(torch.zeros(3, 0))
    with pytest.raises(InvalidParameterError, match=f"^{name}: input has 0 points along dim 1"):
        getattr(efft, name)(x)


@pytest.mark.parametrize("name", ["irfft", "hfft"])
def test_a_one_point_half_spectrum_needs_n(name, rng):
    x, t = _pair(_data(rng, (3, 1), "complex64"))
    with pytest.raises(InvalidParameterError,
                       match=rf"^{name}: input has 1 point along dim 1, which gives a real "
                             r"signal of 2 \* \(1 - 1\) = 0 points"):
        getattr(efft, name)(x)
    _check(getattr(efft, name)(x, n=1), getattr(torch.fft, name)(t, n=1))
    _check(getattr(efft, name)(x, n=3), getattr(torch.fft, name)(t, n=3))


@pytest.mark.parametrize("name", ONE_D)
def test_an_empty_signal_padded_with_n_is_zeros_as_torch(name):
    dtype = "float32" if name in REAL_ONLY else "complex64"
    x, t = _pair(np.zeros((2, 0), dtype=dtype))
    _check(getattr(efft, name)(x, n=4), getattr(torch.fft, name)(t, n=4))


@pytest.mark.parametrize("name", ONE_D + N_D)
def test_an_empty_batch_gives_an_empty_result(name):
    # torch's MKL path fails here (an "inconsistent configuration" error); NumPy gives the
    # empty result, as ember does on every backend
    dtype = "float64" if name in REAL_ONLY else "complex128"
    arr = np.zeros((0, 4, 6), dtype=dtype)
    x = ember.from_numpy(arr)
    kwargs = {"dim": (1, 2)} if name not in ONE_D else {}
    out = getattr(efft, name)(x, **kwargs)
    np_name = {"hfft2": None, "ihfft2": None, "hfftn": None, "ihfftn": None}.get(name, name)
    if np_name is not None:
        exp = getattr(np.fft, np_name)(arr, **({"axes": (1, 2)} if name not in ONE_D else {}))
        assert out.shape == exp.shape
    else:
        assert out.shape == ((0, 4, 10) if name.startswith("hfft") else (0, 4, 4))
    expected_dtype = {"float64": "complex128", "complex128": "complex128"}[dtype]
    if name in C2R:
        expected_dtype = "float64"
    assert out.dtype.name == expected_dtype
    assert out.numel() == 0


# -- dtypes ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "int64"])
def test_bool_and_int_inputs_use_the_default_float_as_torch(dtype, rng):
    arr = rng.integers(0, 9, (2, 5)).astype(dtype) if dtype != "bool" else _data(rng, (2, 5), dtype)
    x, t = _pair(arr)
    for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "rfftn", "irfftn"):
        out = getattr(efft, name)(x)
        _check(out, getattr(torch.fft, name)(t))
        assert out.dtype.name == ("float32" if name in C2R else "complex64")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ONE_D + N_D)
def test_half_floats_raise_kind_error(dtype, name):
    x = ember.ones(2, 4, dtype=dtype)
    with pytest.raises(RuntimeError, match="Unsupported dtype"):
        getattr(torch.fft, name)(torch.ones(2, 4, dtype=getattr(torch, dtype)))
    with pytest.raises(KindError, match=f"^{name}: not defined for {dtype} tensors"):
        getattr(efft, name)(x)


@pytest.mark.parametrize("name", sorted(REAL_ONLY))
def test_real_only_transforms_refuse_complex(name):
    x = ember.from_numpy(np.ones((2, 4), dtype="complex64"))
    with pytest.raises(RuntimeError):  # "expects a real input" or "only floating-point"
        getattr(torch.fft, name)(torch.ones(2, 4, dtype=torch.complex64))
    with pytest.raises(KindError, match=f"^{name}: input has dtype complex64; expected a real "
                                        "tensor"):
        getattr(efft, name)(x)


@pytest.mark.parametrize("name", ["irfft", "hfft", "irfftn", "hfftn"])
def test_real_inputs_to_hermitian_transforms_as_torch(name, rng):
    x, t = _pair(_data(rng, (3, 5), "float64"))
    _check(getattr(efft, name)(x), getattr(torch.fft, name)(t))


# -- special values -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft", "irfft", "hfft"])
def test_nan_and_inf_propagate_without_warnings(name):
    # the transforms define no special cases: a nan (or an inf meeting a zero weight) spoils the
    # whole signal, as in PyTorch
    base = np.zeros((2, 4), dtype="float64")
    base[0, 1] = np.nan
    base[1, 2] = np.inf
    arr = base
    if name not in REAL_ONLY:
        arr = np.zeros((2, 4), dtype="complex128")
        arr.real, arr.imag = base, base[::-1]
    x, t = _pair(arr)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = getattr(efft, name)(x)
    exp = getattr(torch.fft, name)(t).resolve_conj().numpy()
    act = np.asarray(out.numpy())
    assert act.shape == exp.shape
    assert not np.isfinite(act).any() and not np.isfinite(exp).any()


def test_negative_zero_and_exact_values():
    x = ember.from_numpy(np.array([-0.0, -0.0, -0.0, -0.0]))
    assert efft.fft(x).tolist() == [0j, 0j, 0j, 0j]
    assert efft.fft(ember.tensor([1.0, 2.0, 3.0, 4.0])).tolist() == [10, -2 + 2j, -2, -2 - 2j]


# -- gradients ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ONE_D + N_D)
def test_a_tracked_input_raises_kind_error(name):
    x = ember.ones(3, 4, dtype="float64").require_grad()
    with pytest.raises(KindError, match=f"^{name}: input is tracked .* ember has no gradients "
                                        "through the fft ops"):
        getattr(efft, name)(x)
    y = x * 2  # a tracked result of an op
    with pytest.raises(KindError, match=f"^{name}: input is tracked"):
        getattr(efft, name)(y)
    with ember.no_grad():
        out = getattr(efft, name)(x)
    assert out.shape and not out.requires_grad
    out = getattr(efft, name)(y.detach())  # a new lineage: untracked
    assert not out.requires_grad


def test_irfft_of_a_real_tracked_input_does_not_drop_its_gradient_silently():
    # a real result of a real input: without the check, the gradient would be silently lost
    x = ember.tensor([1.0, 2.0, 3.0]).require_grad()
    with pytest.raises(KindError, match="^irfft: input is tracked"):
        ember.fft.irfft(x)


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts_carry_gradients_as_torch(name, rng):
    arr = rng.standard_normal((3, 5))
    x = ember.from_numpy(arr).require_grad()
    t = torch.from_numpy(arr.copy()).requires_grad_(True)
    out = getattr(efft, name)(x, dim=1)
    tout = getattr(torch.fft, name)(t, dim=1)
    _check(out, tout)
    seed = rng.standard_normal((3, 5))
    out.backward(ember.from_numpy(seed))
    tout.backward(torch.from_numpy(seed))
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=0, atol=0)


# -- frequencies ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8, 33])
def test_frequencies_match_torch(name, n):
    for d in (1.0, 0.3, 2.5, 4, -1.5):
        for dtype in [None] + on_device(["float32", "float64", "float16"]):
            kw = {} if dtype is None else {"dtype": dtype}
            tkw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
            out = getattr(efft, name)(n, d, **kw)
            exp = getattr(torch.fft, name)(n, d, **tkw)
            assert out.dtype.name == str(exp.dtype).replace("torch.", "")
            assert out.shape == tuple(exp.shape)
            rtol = 1e-3 if dtype == "float16" else 1e-6
            np.testing.assert_allclose(out.numpy().astype("float64"),
                                       exp.numpy().astype("float64"), rtol=rtol, atol=0)


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequencies_with_zero_spacing_are_inf_and_nan_as_torch(name):
    for d in (0.0, -0.0, 0):
        out = getattr(efft, name)(4, d).numpy()
        exp = getattr(torch.fft, name)(4, float(d)).numpy()
        np.testing.assert_array_equal(out, exp)


def test_frequencies_take_a_device():
    out = efft.fftfreq(4, device="cpu")
    assert out.device == ember.Device("cpu")
    out = efft.rfftfreq(4, dtype=ember.float64, device="torch:cpu")
    assert out.device == ember.Device("torch:cpu") and out.tolist() == [0.0, 0.25, 0.5]
    assert efft.fftfreq(4).device == ember.get_default_device()


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequency_errors(name):
    f = getattr(efft, name)
    with pytest.raises(InvalidParameterError, match=f"^{name}: n -1 is negative"):
        f(-1)
    with pytest.raises(InvalidParameterError, match=f"^{name}: n must be an int, got bool"):
        f(True)
    with pytest.raises(InvalidParameterError, match=f"^{name}: n must be an int, got float"):
        f(4.0)
    with pytest.raises(InvalidParameterError, match=f"^{name}: d must be a real number"):
        f(4, "a")
    with pytest.raises(InvalidParameterError, match=f"^{name}: d must be a real number"):
        f(4, 1j)
    with pytest.raises(KindError, match=f"^{name}: dtype int64 is not a float dtype"):
        f(4, dtype="int64")
    with pytest.raises(KindError, match=f"^{name}: dtype complex64 is not a float dtype"):
        f(4, dtype=ember.complex64)
    with pytest.raises(InvalidParameterError, match=f"^{name}: dtype 'nope' is not an ember dtype"):
        f(4, dtype="nope")
    with pytest.raises(InvalidParameterError, match=f"^{name}: "):
        f(4, device="nowhere")


# -- shifts ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts_match_torch(name, rng):
    for dtype in ("float32", "complex128", "int64", "bool"):
        for shape in ((5,), (4, 5), (2, 3, 5)):
            arr = _data(rng, shape, dtype)
            x, t = _pair(arr)
            dims = [None, 0, -1, (0, -1), [-1, 0], (0, 0)]
            for dim in dims:
                out = getattr(efft, name)(x, dim=dim)
                exp = getattr(torch.fft, name)(t, dim=dim)
                assert out.dtype.name == str(exp.dtype).replace("torch.", "")
                np.testing.assert_array_equal(out.numpy(), exp.numpy())


def test_shifts_on_zero_dim_and_empty_inputs():
    x = ember.tensor(3.0)
    assert efft.fftshift(x).tolist() == 3.0      # no dims: nothing to roll (torch's roll refuses)
    assert efft.ifftshift(x, dim=()).tolist() == 3.0
    e, t = _pair(np.zeros((0, 3), dtype="float32"))
    _check(efft.fftshift(e), torch.fft.fftshift(t))
    assert efft.fftshift(ember.fft.fftfreq(5)).tolist() == torch.fft.fftshift(
        torch.fft.fftfreq(5)).tolist()


def test_shift_errors():
    x = ember.ones(2, 3)
    with pytest.raises(DimensionError, match="^fftshift: dim 2 is out of range"):
        efft.fftshift(x, dim=2)
    with pytest.raises(InvalidParameterError, match="^ifftshift: dim must be an int, got str"):
        efft.ifftshift(x, dim="a")
    with pytest.raises(InvalidParameterError, match="^fftshift: input must be a Tensor, got list"):
        efft.fftshift([1.0, 2.0])


# -- argument errors ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ONE_D)
def test_one_dim_argument_errors(name):
    x = ember.from_numpy(np.ones((3, 4), dtype="float32" if name in REAL_ONLY else "complex64"))
    before = _snapshot(x)
    f = getattr(efft, name)
    cases = [
        (dict(norm="bad"), InvalidParameterError,
         f"{name}: norm 'bad' is not a normalization mode"),
        (dict(norm=1), InvalidParameterError, f"{name}: norm 1 is not a normalization mode"),
        (dict(n=0), InvalidParameterError, f"{name}: n has 0 points; expected a signal size of at"),
        (dict(n=-1), InvalidParameterError, f"{name}: n has -1 points"),
        (dict(n=True), InvalidParameterError, f"{name}: n must be an int, got bool"),
        (dict(n=2.0), InvalidParameterError, f"{name}: n must be an int, got float"),
        (dict(dim=2), DimensionError, f"{name}: dim 2 is out of range for a tensor of rank 2"),
        (dict(dim=-3), DimensionError, f"{name}: dim -3 is out of range"),
        (dict(dim=(0, 1)), InvalidParameterError, f"{name}: dim must be an int"),
    ]
    for kwargs, err, message in cases:
        with pytest.raises(err) as info:
            f(x, **kwargs)
        assert str(info.value).startswith(message), str(info.value)
        _unchanged(x, before)
    with pytest.raises(InvalidParameterError, match=f"^{name}: input must be a Tensor, got list"):
        f([1.0, 2.0])


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fft2",
                                  "irfft2"])
def test_n_dim_argument_errors(name):
    x = ember.from_numpy(np.ones((3, 4, 5), dtype="float32" if name in REAL_ONLY else "complex64"))
    before = _snapshot(x)
    f = getattr(efft, name)
    cases = [
        (dict(s=(2, 3), dim=(0,)), InvalidParameterError,
         f"{name}: s has 2 sizes but dim names 1 dims; expected one size per dim"),
        (dict(s=(2, 3, 4, 5)), InvalidParameterError,
         f"{name}: s has 4 sizes but dim names 2 dims" if name.endswith("2") else
         f"{name}: s has 4 sizes but the input has only 3 dims"),
        (dict(dim=(0, 0)), InvalidParameterError, f"{name}: dim (0, 0) repeats a dim"),
        (dict(dim=(1, -2)), InvalidParameterError, f"{name}: dim (1, -2) repeats a dim"),
        (dict(dim=(0, 3)), DimensionError, f"{name}: dim 3 is out of range"),
        (dict(s=(0, 2), dim=(0, 1)), InvalidParameterError, f"{name}: s has 0 points"),
        (dict(s=(-2, 2), dim=(0, 1)), InvalidParameterError, f"{name}: s has -2 points"),
        (dict(s=(2.5, 2), dim=(0, 1)), InvalidParameterError, f"{name}: s must be an int"),
        (dict(norm="Ortho"), InvalidParameterError, f"{name}: norm 'Ortho' is not"),
    ]
    if name not in ("fftn", "ifftn", "fft2"):
        cases.append((dict(dim=()), InvalidParameterError, f"{name}: no dims to transform"))
    for kwargs, err, message in cases:
        with pytest.raises(err) as info:
            f(x, **kwargs)
        assert str(info.value).startswith(message), str(info.value)
        _unchanged(x, before)


def test_errors_come_before_any_work():
    # a tracked int tensor cannot exist; a tracked float one with a bad norm reports the tracking
    # (checks of the input first, then the arguments), and nothing is computed
    x = ember.ones(4, dtype="float64").require_grad()
    with pytest.raises(KindError):
        efft.fft(x, norm="bad")
    with pytest.raises(InvalidParameterError):
        efft.fft(ember.ones(4), norm="bad", n=10 ** 30)


def test_a_huge_n_raises_a_typed_error():
    with pytest.raises(InvalidParameterError, match=r"^fft: a result of shape \(3, 4611686018427387904\) "
                                                    "is too large to allocate"):
        efft.fft(ember.ones(3, 4), n=2 ** 62)
    with pytest.raises(InvalidParameterError, match=r"^rfftn: a result of shape \(1099511627776, "
                                                    r"549755813889\) is too large"):
        efft.rfftn(ember.ones(2, 2), s=(2 ** 40, 2 ** 40))
    with pytest.raises(InvalidParameterError, match=r"^fftfreq: a result of shape "):
        efft.fftfreq(2 ** 62)


NOT_TENSORS = [1, -1, False, "a", None, 0.5, [1, 2], (1,), object()]


@pytest.mark.parametrize("name", ALL_NAMES)
def test_non_tensor_first_arguments_raise_only_typed_errors(name):
    f = getattr(efft, name)
    for first in NOT_TENSORS:
        for rest in ({}, {"dim": 0}, {"norm": "ortho"}):
            if name.endswith("freq"):
                rest = {"d": 2.0} if rest else {}
            elif name.endswith("shift"):
                rest = {"dim": 0} if rest else {}
            try:
                f(first, **rest)
            except EmberError:
                pass


def test_the_namespace_is_torch_fft():
    assert sorted(efft.__all__) == sorted(ALL_NAMES)
    for name in ALL_NAMES:
        ours = inspect.signature(getattr(efft, name))
        theirs = getattr(torch.fft, name)
        assert getattr(efft, name).__doc__
        assert getattr(ember.fft, name) is getattr(ops_fft, name)
        if name.endswith("freq"):
            assert list(ours.parameters)[:2] == ["n", "d"]
        elif name.endswith("shift"):
            assert list(ours.parameters) == ["input", "dim"]
        elif name in ONE_D:
            assert list(ours.parameters) == ["input", "n", "dim", "norm"]
        else:
            assert list(ours.parameters) == ["input", "s", "dim", "norm"]
        assert callable(theirs)
    assert inspect.signature(efft.fft2).parameters["dim"].default == (-2, -1)


def test_both_backends_have_the_kernels():
    names = ("fft_c2c", "fft_r2c", "fft_c2r", "fft_freq")
    for name in names:
        assert callable(getattr(ember.Device("cpu").backend, name))
        assert callable(ember.Device("torch:cpu").backend.__dict__[name])


# -- docs -----------------------------------------------------------------------------------------

def test_module_doctests():
    result = doctest.testmod(ops_fft, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 40
    result = doctest.testmod(efft, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


@pytest.mark.half_precision
def test_docs_fft_md():
    path = os.path.join(ROOT, "docs", "fft.md")
    result = doctest.testfile(path, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0
