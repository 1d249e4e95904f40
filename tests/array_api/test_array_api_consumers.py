"""What real Array API consumers (SciPy, scikit-learn) rely on beyond the standard's letter:
arrays from every function take integer indexing, 0-d arrays are not sized or iterable (a
TypeError), values that carry a dtype keep it, and reductions take NumPy's ``axis``/``keepdims``
as PyTorch's do. ``benchmarks/consumers.py`` runs the consumers' own suites."""

import numpy as np
import pytest
import torch

import ember
import ember.array_api as xp
from ember.errors import InvalidParameterError, KindError

X = [[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]]


# -- 1. the namespace's max, min and sort return plain arrays ------------------------------------

@pytest.mark.parametrize("fn, axis, expected", [
    (xp.max, 0, [4.0, 5.0, 6.0]), (xp.max, 1, [5.0, 6.0]), (xp.min, 0, [1.0, 2.0, 3.0]),
    (xp.min, -1, [1.0, 2.0]), (xp.sort, 1, [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]),
    (xp.sort, 0, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])])
def test_namespace_results_take_integer_indexing(fn, axis, expected):
    out = fn(xp.asarray(X), axis=axis)
    assert type(out) is ember.Tensor
    assert out.tolist() == expected
    assert out[0].tolist() == expected[0] and out[-1].tolist() == expected[-1]
    assert len(out) == len(expected) and [v.tolist() for v in out] == expected


# -- 2. len() and iteration of a 0-d array raise TypeError ---------------------------------------

def test_zero_d_is_not_sized_or_iterable():
    t = xp.asarray(1.0)
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor") as info:
        len(t)
    assert isinstance(info.value, KindError)
    with pytest.raises(KindError, match="iteration over a 0-d tensor"):
        iter(t)
    with pytest.raises(TypeError):
        list(ember.tensor(3))
    # NumPy's protocol check, as SciPy uses it
    assert np.iterable(t) is False and np.iterable(xp.asarray([1.0])) is True
    assert len(xp.asarray([[1.0], [2.0]])) == 2


# -- 3. values that carry a dtype keep it --------------------------------------------------------

CARRIERS = [np.float64(1.5), np.float32(1.5), np.float16(1.5), np.complex128(1j),
            np.array(1.5), np.array([1.5, 2.5]), [np.float64(1.5), 2.0], (np.float64(1.5),),
            [[np.float64(1.0)], [2.0]], [np.float32(1.5), np.float64(2.0)],
            [np.float32(1.5), 2.0], [np.float16(1.5), 2.0], [np.float16(1.5), 2],
            [np.int32(1), 2.0], [1, np.float64(2.0)], [np.float64(1.0), 1j],
            [np.complex128(1.0), 2.0], 1.5, [1.5, 2], 2j, [1, 2]]


@pytest.mark.parametrize("value", CARRIERS, ids=repr)
def test_creation_dtype_is_pytorchs(value):
    expected = str(torch.tensor(value).dtype).replace("torch.", "")
    assert xp.asarray(value).dtype.name == expected
    assert ember.tensor(value).dtype.name == expected
    np.testing.assert_array_equal(xp.asarray(value).numpy(), np.asarray(value, expected))


def test_asarray_of_a_numpy_scalar_keeps_float64():
    out = xp.asarray(np.float64(1.5))
    assert out.dtype == xp.float64 and out.shape == () and out.item() == 1.5
    assert xp.asarray(1.5).dtype == xp.float32  # a Python float takes the default


# -- 4. axis and keepdims: NumPy's names of dim and keepdim --------------------------------------

A = np.array([[1.0, 5.0, 3.0], [4.0, 0.0, 6.0]])


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "min", "any", "all",
                                  "count_nonzero", "cumsum", "cumprod"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_reduction_methods_take_axis_as_pytorch(name, axis):
    got = getattr(ember.tensor(A), name)(axis=axis)
    want = getattr(torch.tensor(A), name)(axis=axis)
    want = want.values if name in ("max", "min") else want
    np.testing.assert_allclose(np.asarray(got.tolist()), want.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["argmax", "argmin", "var", "var_mean", "median", "norm",
                                  "max_abs", "median_with_indices"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_reduction_methods_take_axis_as_dim(name, axis):
    t = ember.tensor(A)
    got, want = getattr(t, name)(axis=axis), getattr(t, name)(dim=axis)
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    assert [g.tolist() for g in got] == [w.tolist() for w in want]
    assert got[0].numel() == (3 if axis == 0 else 2)


def test_keepdims_and_module_functions():
    t = ember.tensor(X)
    assert t.sum(axis=1, keepdims=True).tolist() == [[9.0], [12.0]]
    assert t.max(axis=0, keepdims=True).tolist() == [[4.0, 5.0, 6.0]]
    assert ember.max(t, axis=1).indices.tolist() == [1, 2]
    assert ember.sum(t, axis=0).tolist() == [5.0, 7.0, 9.0]
    assert t.var(axis=1, keepdims=True).shape == (2, 1)


@pytest.mark.parametrize("call", [
    lambda t: t.sum(0, axis=0), lambda t: t.sum(dim=0, axis=1), lambda t: t.mean(0, axis=0),
    lambda t: t.max(axis=0, dim=0), lambda t: t.sum(0, True, keepdims=True),
    lambda t: t.argmax(axis=0, dim=1), lambda t: ember.var(t, 0, axis=0)])
def test_both_spellings_are_refused(call):
    with pytest.raises(InvalidParameterError, match="are one parameter") as info:
        call(ember.tensor(X))
    assert info.value.param in ("axis", "keepdims")


# -- found by SciPy's suite: logaddexp keeps the small term (scipy.special.logsumexp's check) --

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logaddexp_keeps_a_term_below_the_rounding_of_one(dtype):
    a = np.array([0.0, -40.0, 3.0, -np.inf, np.inf, np.nan, 1e30, 5.0, 0.0, -np.inf], dtype)
    b = np.array([-40.0, 0.0, 3.0, -np.inf, 1.0, 0.0, 1e30, -np.inf, np.inf, 2.0], dtype)
    got = xp.logaddexp(xp.asarray(a), xp.asarray(b)).numpy()
    want = torch.logaddexp(torch.tensor(a), torch.tensor(b)).numpy()
    assert got.dtype == want.dtype and got[0] > 0 and got[1] > 0
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
