"""Tests of ember/ops/norms.py: ember.linalg.vector_norm, matrix_norm, norm, Tensor.norm and
ember.norm against torch (values, dtypes, gradients, errors)."""

import doctest
import math

import numpy as np
import pytest
import torch

import ember
from ember.ops import norms
from oracle import (TORCH_DTYPES, assert_close, assert_unchanged, ember_tensor, layouts,
                    random_array, snapshot, to_torch)

L = ember.linalg
INF = math.inf
VECTOR_ORDS = [2, 1, INF, -INF, 0, 3, 0.5, -1, -2.5, 1.5, 2.5]
MATRIX_ORDS = ["fro", "nuc", INF, -INF, 1, -1, 2, -2]


def _both(fn_e, fn_t):
    """(ember's result or its error, torch's result or its error)."""
    out = []
    for fn in (fn_e, fn_t):
        try:
            out.append(fn())
        except Exception as exc:  # noqa: BLE001 - compared below
            out.append(exc)
    return out


def _agree(fn_e, fn_t, **tol):
    """ember and torch agree: the same values, or both raise (ember a typed error)."""
    e, t = _both(fn_e, fn_t)
    if isinstance(t, Exception):
        assert isinstance(e, ember.EmberError), f"torch raised {t!r}, ember gave {e!r}"
        return False
    assert not isinstance(e, Exception), f"ember raised {e!r}, torch gave {t}"
    assert_close(e, t, **tol)
    return True


def _grads(fn_e, fn_t, a, rng, tol=1e-8):
    x = ember_tensor(np.array(a, copy=True), requires_grad=True)
    t = torch.from_numpy(np.array(a, copy=True)).requires_grad_(True)
    out, tout = fn_e(x), fn_t(t)
    assert_close(out, tout, rtol=tol, atol=tol)
    seed = rng.standard_normal(tuple(tout.shape))
    out.backward(ember.tensor(seed, dtype="float64"))
    tout.backward(torch.from_numpy(seed))
    if t.grad is None or t.grad.shape != t.shape:  # PyTorch's ord-0 gradient: None or a 0-d 0
        assert t.grad is None or not t.grad.any()
        t.grad = torch.zeros_like(t)
    assert_close(x.grad, t.grad, rtol=tol, atol=tol)


# -- vector_norm ------------------------------------------------------------------------------

SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]


def _dims(shape):
    dims = [None, ()]
    if len(shape) >= 1:
        dims += [0, -1, (0,)]
    if len(shape) >= 2:
        dims += [(0, 1), (-1, 0)]
    if len(shape) == 0:
        dims += [0, -1]
    return dims


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("ord", VECTOR_ORDS)
def test_vector_norm_values(rng, shape, ord):
    a = random_array(rng, shape, "float64")
    if a.size:
        a.flat[0] = 0.0  # zeros matter for ord 0 and negative ords
    checked = 0
    for _, arr in layouts(a):
        x = ember_tensor(arr)
        before = snapshot(x)
        for dim in _dims(shape):
            for keepdim in (False, True):
                checked += _agree(lambda: L.vector_norm(x, ord, dim, keepdim),
                                  lambda: torch.linalg.vector_norm(to_torch(x), ord, dim, keepdim),
                                  rtol=1e-12, atol=1e-12)
        assert_unchanged([x], before)
    no_identity = ord < 0 or ord == INF
    assert checked > 0 or (a.size == 0 and no_identity)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("ord", [2, 1, INF, 0, 3, -1])
def test_vector_norm_dtypes(rng, dtype, ord):
    x = ember.tensor(random_array(rng, (3, 5), "float64")).cast(dtype)
    for dim in (None, 1):
        out = L.vector_norm(x, ord, dim)
        assert out.dtype.name == dtype
        assert_close(out, torch.linalg.vector_norm(to_torch(x), ord, dim))


def test_vector_norm_dtype_argument(rng):
    x = ember.tensor(random_array(rng, (3, 4), "float32"))
    out = L.vector_norm(x, 3, dtype=ember.float64)
    assert out.dtype == ember.float64
    assert_close(out, torch.linalg.vector_norm(to_torch(x), 3, dtype=torch.float64))
    with pytest.raises(ember.InvalidParameterError, match="narrow"):
        L.vector_norm(x.cast("float64"), dtype="float32")
    with pytest.raises(ember.InvalidParameterError, match="expected a float dtype"):
        L.vector_norm(x, dtype="int64")
    with pytest.raises(ember.KindError, match="int64"):
        L.vector_norm(ember.tensor([1, 2]), dtype="float64")


@pytest.mark.parametrize("ord", VECTOR_ORDS)
def test_vector_norm_grads(rng, ord):
    a = rng.standard_normal((3, 4))
    a[0] = 0.0                      # a zero row: PyTorch's gradient is 0 there, never NaN
    a[1, 1] = 0.0
    a[2, :2] = [1.5, -1.5]          # ties of |x| for the inf-norms share the gradient
    a[2, 2:] = [0.5, -0.25]
    for dim, keepdim in ((None, False), (1, False), (1, True), ((0, 1), True), (0, False)):
        if ord < 0 and dim is None:
            continue  # a single zero makes the negative norms 0 over everything; checked below
        _grads(lambda t: L.vector_norm(t, ord, dim, keepdim),
               lambda t: torch.linalg.vector_norm(t, ord, dim, keepdim), a, rng)
    b = rng.standard_normal((2, 5)) + 3.0
    _grads(lambda t: L.vector_norm(t, ord), lambda t: torch.linalg.vector_norm(t, ord), b, rng)


def test_vector_norm_of_nothing():
    assert L.vector_norm(ember.zeros(0)).item() == 0.0
    assert L.vector_norm(ember.zeros(0), ord=0).item() == 0.0
    assert L.vector_norm(ember.zeros(2, 0), ord=INF, dim=0).shape == (0,)
    for ord in (INF, -INF, -1):
        with pytest.raises(ember.InvalidParameterError, match="zero elements"):
            L.vector_norm(ember.zeros(2, 0), ord=ord)


# -- matrix_norm ------------------------------------------------------------------------------

MATRIX_SHAPES = [(3, 4), (4, 3), (2, 3, 4), (1, 1), (0, 3), (3, 0), (0, 0), (2, 0, 3)]


@pytest.mark.parametrize("shape", MATRIX_SHAPES)
@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_matrix_norm_values(rng, shape, ord):
    a = random_array(rng, shape, "float64")
    dims = [(-2, -1), (-1, -2)] + ([(0, 2), (2, 0)] if len(shape) == 3 else [])
    for _, arr in layouts(a):
        x = ember_tensor(arr)
        before = snapshot(x)
        for dim in dims:
            for keepdim in (False, True):
                _agree(lambda: L.matrix_norm(x, ord, dim, keepdim),
                       lambda: torch.linalg.matrix_norm(to_torch(x), ord, dim, keepdim),
                       rtol=1e-12, atol=1e-12)
        assert_unchanged([x], before)


@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_matrix_norm_float32(rng, ord):
    x = ember.tensor(random_array(rng, (2, 3, 4), "float32"))
    out = L.matrix_norm(x, ord)
    assert out.dtype == ember.float32
    assert_close(out, torch.linalg.matrix_norm(to_torch(x), ord), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_matrix_norm_grads(rng, ord):
    for a in (rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 3))):
        _grads(lambda t: L.matrix_norm(t, ord), lambda t: torch.linalg.matrix_norm(t, ord), a, rng)
        _grads(lambda t: L.matrix_norm(t, ord, (0, -1), True),
               lambda t: torch.linalg.matrix_norm(t, ord, (0, -1), True), a, rng)
    if ord in ("fro", "nuc"):
        return
    # tied column/row sums and tied singular values share the gradient evenly, as amax does
    for a in (np.ones((3, 3)), np.eye(3), np.diag([2.0, 2.0, 1.0])):
        if ord == -2 and a[0, 1] == 1:
            continue  # a zero singular value tied twice: the set of valid answers, below
        _grads(lambda t: L.matrix_norm(t, ord), lambda t: torch.linalg.matrix_norm(t, ord), a, rng)


def test_matrix_norm_grad_at_tied_zero_singular_values():
    """ones((3, 3)) has singular values (3, 0, 0): the -2 norm's gradient is u v' for unit
    vectors u, v of the two null spaces (or an average of such), and rounding decides which
    zero is the smallest, so PyTorch's answer depends on the vectors its LAPACK picks. Every
    valid answer has rows and columns summing to zero and nuclear norm 1; ember's and PyTorch's
    both are checked against that set."""
    x = ember.ones(3, 3, dtype="float64").require_grad()
    L.matrix_norm(x, -2).backward()
    t = torch.ones(3, 3, dtype=torch.float64, requires_grad=True)
    torch.linalg.matrix_norm(t, -2).backward()
    for g in (x.grad.numpy(), t.grad.numpy()):
        np.testing.assert_allclose(g.sum(axis=0), 0, atol=1e-12)
        np.testing.assert_allclose(g.sum(axis=1), 0, atol=1e-12)
        np.testing.assert_allclose(np.linalg.svd(g, compute_uv=False).sum(), 1, atol=1e-12)


@pytest.mark.half_precision
def test_matrix_norm_half_floats():
    x = ember.eye(3, dtype="float16")
    assert_close(L.matrix_norm(x, 1), torch.linalg.matrix_norm(to_torch(x), 1))
    assert_close(L.matrix_norm(x), torch.linalg.matrix_norm(to_torch(x)))
    with pytest.raises(ember.KindError, match="low-precision"):
        L.matrix_norm(x, 2)


def test_matrix_norm_errors():
    x = ember.ones(2, 3, 4)
    with pytest.raises(ember.InvalidParameterError, match="ord is 3"):
        L.matrix_norm(x, 3)
    with pytest.raises(ember.InvalidParameterError, match="ord is 'abc'"):
        L.matrix_norm(x, "abc")
    with pytest.raises(ember.InvalidParameterError, match="ord is True"):
        L.matrix_norm(x, True)
    with pytest.raises(ember.ShapeMismatchError, match="at least 2 dims"):
        L.matrix_norm(ember.ones(3))
    with pytest.raises(ember.InvalidParameterError, match="2-tuple"):
        L.matrix_norm(x, dim=(0,))
    with pytest.raises(ember.InvalidParameterError, match="twice"):
        L.matrix_norm(x, dim=(0, -3))
    with pytest.raises(ember.DimensionError):
        L.matrix_norm(x, dim=(0, 3))
    with pytest.raises(ember.KindError, match="int64"):
        L.matrix_norm(ember.ones(2, 2, dtype="int64"))
    with pytest.raises(ember.InvalidParameterError, match="has no value"):
        L.matrix_norm(ember.zeros(3, 0), -1)
    with pytest.raises(ember.InvalidParameterError, match="has no value"):
        L.matrix_norm(ember.zeros(3, 0), -2)


# -- linalg.norm, Tensor.norm, ember.norm -----------------------------------------------------

NORM_CASES = [
    ((2, 3, 4), None, None), ((5,), None, None), ((5,), 3, None), ((5,), INF, None),
    ((3, 4), None, None), ((3, 4), 1, None), ((3, 4), "nuc", None), ((3, 4), -2, None),
    ((2, 3, 4), 1, None), ((2, 3, 4), None, 1), ((2, 3, 4), 0.5, (2,)), ((2, 3, 4), None, (0, 2)),
    ((2, 3, 4), INF, (2, 1)), ((2, 3, 4), "fro", 1), ((5,), "fro", None), ((2, 3, 4), 2, (0, 1, 2)),
    ((), None, None), ((), 1, None), ((0, 3), None, None), ((0, 3), 2, None),
]


@pytest.mark.parametrize("shape,ord,dim", NORM_CASES)
def test_linalg_norm(rng, shape, ord, dim):
    x = ember.tensor(random_array(rng, shape, "float64"))
    for keepdim in (False, True):
        _agree(lambda: L.norm(x, ord, dim, keepdim),
               lambda: torch.linalg.norm(to_torch(x), ord, dim, keepdim), rtol=1e-12, atol=1e-12)


TENSOR_NORM_CASES = [
    ("fro", None), ("fro", 1), ("fro", (0, 2)), ("fro", (0, 1, 2)), ("nuc", (1, 2)), ("nuc", None),
    (None, None), (1, None), (3, (0, 2)), (INF, 1), (-INF, -1), (0, (1,)), (2, ()), ("fro", ()),
    ("nuc", (2, 0)), (1, (0, 1)),
]


@pytest.mark.parametrize("p,dim", TENSOR_NORM_CASES)
def test_tensor_norm(rng, p, dim):
    for shape in ((2, 3, 4), (3, 4), (4,), ()):
        a = random_array(rng, shape, "float64")
        x = ember.tensor(a)
        for keepdim in (False, True):
            torch_dim = dim if not isinstance(dim, tuple) else list(dim)
            ok = _agree(lambda: x.norm(p, dim, keepdim),
                        lambda: to_torch(x).norm(p, torch_dim, keepdim), rtol=1e-12, atol=1e-12)
            if ok:
                assert_close(ember.norm(x, p, dim, keepdim), to_torch(x).norm(p, torch_dim, keepdim),
                             rtol=1e-12, atol=1e-12)


def test_tensor_norm_grad_and_dtype(rng):
    a = rng.standard_normal((3, 4))
    _grads(lambda t: t.norm(), lambda t: t.norm(), a, rng)
    _grads(lambda t: t.norm(p=3, dim=1, keepdim=True), lambda t: t.norm(p=3, dim=1, keepdim=True),
           a, rng)
    _grads(lambda t: t.norm(p="nuc"), lambda t: t.norm(p="nuc"), a, rng)
    x = ember.tensor(a, dtype="float32")
    out = x.norm(dtype=ember.float64)
    assert out.dtype == ember.float64
    assert_close(out, to_torch(x).norm(dtype=TORCH_DTYPES["float64"]))
    with pytest.raises(ember.KindError, match="int64"):
        ember.tensor([1, 2]).norm()


def test_norm_bad_arguments():
    x = ember.ones(3)
    with pytest.raises(ember.InvalidParameterError, match="ord is 'fro'"):
        L.vector_norm(x, "fro")
    with pytest.raises(ember.InvalidParameterError, match="must be a Tensor"):
        L.vector_norm([1.0, 2.0])
    with pytest.raises(ember.InvalidParameterError, match="keepdim"):
        L.vector_norm(x, keepdim=1)
    with pytest.raises(ember.DimensionError):
        L.vector_norm(x, dim=1)
    with pytest.raises(ember.InvalidParameterError, match="1-tuple or a 2-tuple"):
        L.norm(ember.ones(2, 3, 4), dim=(0, 1, 2))
    with pytest.raises(ember.ShapeMismatchError, match="1-d or 2-d"):
        L.norm(ember.ones(2, 3, 4), ord=1)
    with pytest.raises(ember.KindError):
        ember.tensor([True]).norm()


def test_module_doctests():
    result = doctest.testmod(norms, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
