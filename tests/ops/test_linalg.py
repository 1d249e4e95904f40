"""Tests of ember/ops/linalg.py: matmul and @, dot, outer, cross, einsum, and docs/linalg.md."""

import doctest
import importlib
import os

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import ember
from oracle import assert_close, ember_tensor, engine_devices, layouts, random_array, to_torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _unchanged(tensors, copies):
    for t, c in zip(tensors, copies):
        np.testing.assert_array_equal(t.numpy(), c)


def _grad_check(fn_ember, fn_torch, arrays, rng):
    """Gradients of ember's op against torch.autograd in float64, with a random seed."""
    xs = [ember_tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.from_numpy(np.array(a, copy=True)).requires_grad_(True) for a in arrays]
    out = fn_ember(*xs)
    tout = fn_torch(*ts)
    assert_close(out, tout)
    seed = rng.standard_normal(tout.shape)
    out.backward(ember.tensor(seed, dtype="float64"))
    tout.backward(torch.from_numpy(seed))
    for x, t in zip(xs, ts):
        assert x.grad is not None
        assert_close(x.grad, t.grad, rtol=1e-9, atol=1e-9)


def _fd_check(fn_ember, arrays, rng, eps=1e-6):
    """Backward of ember's op against central finite differences of its forward (float64)."""
    xs = [ember_tensor(np.array(a, copy=True), requires_grad=True) for a in arrays]
    out = fn_ember(*xs)
    seed = rng.standard_normal(out.shape)
    out.backward(ember.tensor(seed, dtype="float64"))
    for i, a in enumerate(arrays):
        num = np.zeros(a.shape)
        for idx in np.ndindex(a.shape):
            vals = []
            for d in (eps, -eps):
                moved = [np.array(b, copy=True) for b in arrays]
                moved[i][idx] += d
                with ember.no_grad():
                    o = fn_ember(*[ember.tensor(m, dtype="float64") for m in moved]).numpy()
                vals.append(float((o * seed).sum()))
            num[idx] = (vals[0] - vals[1]) / (2 * eps)
        np.testing.assert_allclose(xs[i].grad.numpy(), num, rtol=1e-5, atol=1e-6)


# -- matmul ----------------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
    ((2, 3), (5, 3, 4)), ((2, 1, 2, 3), (4, 3, 2)), ((3,), (2, 3, 4)), ((2, 2, 3), (3,)),
    ((0, 3), (3, 4)), ((2, 0), (0, 3)), ((0, 2, 3), (3, 1)), ((1, 2, 3), (4, 1, 3, 2)),
    ((2, 0, 3), (3, 4)), ((2, 3, 0), (0, 4)), ((0, 3), (2, 3, 4)), ((2, 0), (3, 0, 4)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_matmul_float_matches_torch(rng, sa, sb, dtype):
    a = random_array(rng, sa, dtype)
    b = random_array(rng, sb, dtype)
    ta = to_torch(ember_tensor(a, dtype))
    tb = to_torch(ember_tensor(b, dtype))
    expected = torch.matmul(ta.float(), tb.float()).to(ta.dtype) if dtype in (
        "float16", "bfloat16") else torch.matmul(ta, tb)
    for (_, la), (_, lb) in zip(layouts(a), layouts(b)):
        out = ember.matmul(ember_tensor(la, dtype), ember_tensor(lb, dtype))
        assert_close(out, expected)
        assert_close(ember_tensor(la, dtype) @ ember_tensor(lb, dtype), expected)


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES[:9])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8"])
def test_matmul_int_stays_int(rng, sa, sb, dtype):
    a = random_array(rng, sa, dtype)
    b = random_array(rng, sb, dtype)
    out = ember.from_numpy(a) @ ember.from_numpy(b)
    assert out.dtype.name == dtype
    assert not out.is_tracked()
    assert_close(out, np.matmul(a, b))
    if dtype in ("int64", "int32"):
        assert_close(out, torch.matmul(torch.from_numpy(a), torch.from_numpy(b)))


@pytest.mark.parametrize("da,db,expected", [
    ("int64", "float32", "float32"), ("float32", "float64", "float64"),
    ("int8", "uint8", "int16"), ("float16", "bfloat16", "float32"), ("int32", "int64", "int64"),
])
def test_matmul_mixed_kinds_promote(rng, da, db, expected):
    a = random_array(rng, (2, 3), da)
    b = random_array(rng, (3, 2), db)
    out = ember.from_numpy(a).cast(da) @ ember.from_numpy(b).cast(db)
    assert out.dtype.name == expected
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    assert_close(out, want, rtol=1e-2, atol=1e-2)


def test_matmul_method_and_operators(rng):
    a = rng.standard_normal((2, 3))
    b = rng.standard_normal((3, 4))
    ta, tb = ember.from_numpy(a), ember.from_numpy(b)
    assert_close(ta.matmul(tb), a @ b)
    assert_close(ta @ b, a @ b)  # ndarray on the right
    assert_close(a @ tb, a @ b)  # __rmatmul__ from an ndarray
    assert_close(a.tolist() @ tb, a @ b, rtol=1e-5, atol=1e-5)  # __rmatmul__ from a list (float32)


@pytest.mark.parametrize("sa,sb", [s for s in MATMUL_SHAPES])
def test_matmul_grad_matches_torch(rng, sa, sb):
    a = rng.standard_normal(sa)
    b = rng.standard_normal(sb)
    _grad_check(ember.matmul, torch.matmul, [a, b], rng)


def test_matmul_grad_noncontiguous_and_one_side(rng):
    a = rng.standard_normal((3, 4)).T  # a transposed view
    b = rng.standard_normal((2, 3, 5))[:, :, ::2]
    _grad_check(ember.matmul, torch.matmul, [a, b], rng)
    # only one operand tracked
    x = ember.from_numpy(rng.standard_normal((3, 4))).require_grad()
    w = ember.from_numpy(rng.standard_normal((4, 2)))
    (x @ w).backward()
    expected = np.ones((3, 2)) @ w.numpy().T
    assert_close(x.grad, expected)


def test_matmul_grad_mixed_dtypes(rng):
    a = ember.from_numpy(rng.standard_normal((2, 3)).astype(np.float32)).require_grad()
    b = ember.from_numpy(rng.standard_normal((3, 2))).require_grad()
    out = a @ b
    assert out.dtype.name == "float64"
    out.backward()
    assert a.grad.dtype.name == "float32" and b.grad.dtype.name == "float64"
    ta = torch.from_numpy(a.numpy().astype(np.float64)).requires_grad_(True)
    tb = torch.from_numpy(np.array(b.numpy())).requires_grad_(True)
    (ta @ tb).sum().backward()
    assert_close(a.grad, ta.grad.numpy())
    assert_close(b.grad, tb.grad.numpy())


@pytest.mark.half_precision
def test_matmul_grad_half_precision(rng):
    a = ember.from_numpy(rng.standard_normal((2, 3)).astype(np.float16)).require_grad()
    b = ember.from_numpy(rng.standard_normal((3, 4)).astype(np.float16)).require_grad()
    (a @ b).backward()
    assert a.grad.dtype.name == "float16"
    expected = np.ones((2, 4)) @ b.numpy().astype(np.float64).T
    assert_close(a.grad, expected, rtol=1e-2, atol=1e-2)


def test_matmul_finite_differences(rng):
    _fd_check(ember.matmul, [rng.standard_normal((2, 2, 3)), rng.standard_normal((3, 2))], rng)
    _fd_check(ember.matmul, [rng.standard_normal(3), rng.standard_normal((2, 3, 2))], rng)


def test_matmul_errors_and_inputs_unchanged(rng):
    a_np, b_np = rng.standard_normal((2, 3)), rng.standard_normal((4, 2))
    a, b = ember.tensor(a_np), ember.tensor(b_np)
    with pytest.raises(ember.ShapeMismatchError, match=r"matmul: shapes \(2, 3\) and \(4, 2\)"):
        a @ b
    with pytest.raises(ember.ShapeMismatchError, match="matmul: self is 0-d"):
        ember.matmul(ember.tensor(1.0), b)
    with pytest.raises(ember.ShapeMismatchError, match="matmul: other is 0-d"):
        a @ 2.0
    with pytest.raises(ember.ShapeMismatchError, match="batch dims .* do not broadcast"):
        ember.matmul(ember.tensor(np.zeros((2, 2, 3))), ember.tensor(np.zeros((3, 3, 1))))
    with pytest.raises(ember.KindError, match="matmul: not defined for bool"):
        ember.tensor([[True]]) @ ember.tensor([[True]])
    with pytest.raises(ember.InvalidParameterError, match="matmul: other must be a Tensor"):
        ember.matmul(a, "x")
    _unchanged([a, b], [a_np, b_np])


# -- dot, outer ------------------------------------------------------------------------------

def test_dot_spec_example():
    t = ember.tensor([1.0, 2.0]).dot(ember.tensor([-2.0, 3.0]))
    assert t.shape == () and t.tolist() == 4.0


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_dot_matches_torch(rng, n, dtype):
    a = random_array(rng, (n,), dtype)
    b = random_array(rng, (n,), dtype)
    expected = torch.dot(torch.from_numpy(a), torch.from_numpy(b))
    for (_, la), (_, lb) in zip(layouts(a), layouts(b)):
        assert_close(ember.dot(ember.from_numpy(la), ember.from_numpy(lb)), expected)


def test_dot_and_outer_grads(rng):
    a, b = rng.standard_normal(4), rng.standard_normal(4)
    _grad_check(ember.dot, torch.dot, [a, b], rng)
    _grad_check(ember.outer, torch.outer, [a, rng.standard_normal(3)], rng)
    _fd_check(ember.outer, [rng.standard_normal(2), rng.standard_normal(3)], rng)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
def test_outer_matches_torch(rng, dtype):
    for n, m in [(3, 4), (0, 2), (1, 1)]:
        a = random_array(rng, (n,), dtype)
        b = random_array(rng, (m,), dtype)
        expected = torch.outer(torch.from_numpy(a), torch.from_numpy(b))
        for (_, la), (_, lb) in zip(layouts(a), layouts(b)):
            assert_close(ember.from_numpy(la).outer(ember.from_numpy(lb)), expected)


def test_dot_outer_errors():
    a_np, b_np = np.arange(3.0), np.arange(4.0)
    a, b = ember.tensor(a_np), ember.tensor(b_np)
    with pytest.raises(ember.ShapeMismatchError, match="dot: self has 3 elements and other has 4"):
        a.dot(b)
    with pytest.raises(ember.ShapeMismatchError, match=r"dot: self has shape \(1, 3\); expected a 1-D"):
        ember.tensor([[1.0, 2.0, 3.0]]).dot(a)
    with pytest.raises(ember.ShapeMismatchError, match=r"outer: other has shape \(\); expected a 1-D"):
        a.outer(ember.tensor(2.0))
    with pytest.raises(ember.KindError, match="dot: not defined for bool"):
        ember.tensor([True]).dot(ember.tensor([True]))
    _unchanged([a, b], [a_np, b_np])


# -- cross -----------------------------------------------------------------------------------

CROSS_CASES = [((3,), (3,), -1), ((4, 3), (4, 3), -1), ((3, 5), (3, 5), 0), ((2, 1, 3), (1, 4, 3), 2),
               ((0, 3), (0, 3), 1), ((2, 3, 2), (1, 3, 1), -2)]


@pytest.mark.parametrize("sa,sb,dim", CROSS_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_cross_matches_torch(rng, sa, sb, dim, dtype):
    a = random_array(rng, sa, dtype)
    b = random_array(rng, sb, dtype)
    expected = torch.linalg.cross(torch.from_numpy(a), torch.from_numpy(b), dim=dim)
    for (_, la), (_, lb) in zip(layouts(a), layouts(b)):
        assert_close(ember.from_numpy(la).cross(ember.from_numpy(lb), dim=dim), expected)


def test_cross_default_dim():
    out = ember.cross(ember.tensor([[1, 0, 0]]), ember.tensor([[0, 1, 0]]))
    assert out.tolist() == [[0, 0, 1]]


@pytest.mark.parametrize("sa,sb,dim", CROSS_CASES)
def test_cross_grad_matches_torch(rng, sa, sb, dim):
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    _grad_check(lambda x, y: x.cross(y, dim), lambda x, y: torch.linalg.cross(x, y, dim=dim),
                [a, b], rng)


def test_cross_finite_differences(rng):
    _fd_check(lambda x, y: x.cross(y, 0), [rng.standard_normal((3, 2)),
                                           rng.standard_normal((3, 1))], rng)


def test_cross_errors():
    a_np, b_np = np.ones((2, 3)), np.ones((2, 4))
    a, b = ember.tensor(a_np), ember.tensor(b_np)
    with pytest.raises(ember.ShapeMismatchError, match=r"cross: other has size 4 along dim -1 .* expected 3"):
        a.cross(b)
    with pytest.raises(ember.ShapeMismatchError, match="cross: self has shape .* same number of dims"):
        a.cross(ember.tensor(np.ones(3)))
    with pytest.raises(ember.DimensionError, match="cross: dim 2 is out of range"):
        a.cross(a, dim=2)
    with pytest.raises(ember.ShapeMismatchError, match="cross: shapes .* do not broadcast"):
        ember.tensor(np.ones((2, 3))).cross(ember.tensor(np.ones((4, 3))))
    with pytest.raises(ember.KindError, match="cross: not defined for bool"):
        ember.tensor([True, False, True]).cross(ember.tensor([True, False, True]))
    _unchanged([a, b], [a_np, b_np])


# -- einsum ----------------------------------------------------------------------------------

def test_einsum_spec_example():
    matrix = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    vector = ember.tensor([10.0, 20.0])
    assert ember.einsum("ij,j->i", [matrix, vector]).tolist() == [50.0, 110.0]
    assert ember.Tensor.einsum("ij,j->i", [matrix, vector]).tolist() == [50.0, 110.0]


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ba", [(2, 3)]),
    ("Ba", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij->j", [(2, 2, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...i->i", [(2, 3, 4)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("i...,i...->...", [(3, 2), (3, 1)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("ij->", [(2, 3)]),
    ("ij,ij,ij->i", [(2, 3), (2, 3), (2, 3)]),
    ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 2)]),
    ("ij,jk->ik", [(3, 1), (4, 5)]),
    ("i,i", [(0,), (0,)]),
    ("ij,jk->ik", [(2, 0), (0, 3)]),
    ("", [()]),
    (",i->i", [(), (3,)]),
    ("bii,bi->b", [(2, 3, 3), (2, 3)]),
    (" ij , jk -> ik ", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES)
def test_einsum_matches_torch(rng, eq, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    expected = torch.einsum(eq, *[torch.from_numpy(a) for a in arrays])
    out = ember.einsum(eq, *[ember.from_numpy(a) for a in arrays])
    assert_close(out, expected)
    # non-contiguous layouts of every operand
    for k, a in enumerate(arrays):
        for _, la in list(layouts(a))[1:]:
            ops = [ember.from_numpy(la if j == k else b) for j, b in enumerate(arrays)]
            assert_close(ember.einsum(eq, ops), expected)


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES)
def test_einsum_grad_matches_torch(rng, eq, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    _grad_check(lambda *xs: ember.einsum(eq, *xs), lambda *xs: torch.einsum(eq, *xs), arrays, rng)


def test_einsum_same_tensor_twice(rng):
    a = rng.standard_normal((3, 3))
    x = ember.from_numpy(a).require_grad()
    ember.einsum("ij,jk->ik", x, x).backward(ember.from_numpy(np.ones((3, 3))))
    t = torch.from_numpy(a).requires_grad_(True)
    torch.einsum("ij,jk->ik", t, t).sum().backward()
    assert_close(x.grad, t.grad)


def test_einsum_finite_differences(rng):
    _fd_check(lambda x: ember.einsum("iij->ij", x), [rng.standard_normal((2, 2, 3))], rng)
    _fd_check(lambda x, y: ember.einsum("...j,j->...", x, y),
              [rng.standard_normal((2, 3)), rng.standard_normal(3)], rng)


@pytest.mark.parametrize("dtypes,expected", [
    (("int64", "int64"), "int64"), (("int32", "float32"), "float32"),
    (("float32", "float64"), "float64"), (("float16", "float16"), "float16"),
    (("bfloat16", "bfloat16"), "bfloat16"),
])
def test_einsum_dtypes(rng, dtypes, expected):
    arrays = [random_array(rng, s, d) for s, d in zip([(2, 3), (3, 4)], dtypes)]
    ops = [ember.from_numpy(a).cast(d) for a, d in zip(arrays, dtypes)]
    out = ember.einsum("ij,jk->ik", *ops)
    assert out.dtype.name == expected
    want = np.einsum("ij,jk->ik", *[a.astype(np.float64) for a in arrays])
    assert_close(out, want, rtol=2e-2, atol=2e-2)
    if expected.startswith("int"):
        assert not out.is_tracked()


_LABELS = "abcdeA"


@st.composite
def einsum_problems(draw):
    n_ops = draw(st.integers(1, 3))
    sizes = {c: draw(st.integers(0, 3)) for c in _LABELS}
    if draw(st.booleans()):  # mostly non-empty
        sizes = {c: max(1, s) for c, s in sizes.items()}
    use_ell = draw(st.booleans())
    ell = tuple(draw(st.lists(st.integers(1, 3), max_size=2))) if use_ell else ()
    terms, shapes = [], []
    for _ in range(n_ops):
        labels = draw(st.lists(st.sampled_from(_LABELS), max_size=4))
        term = "".join(labels)
        shape = [sizes[c] for c in labels]
        if use_ell and draw(st.booleans()):
            r = draw(st.integers(0, len(ell)))
            own = [draw(st.sampled_from([1, n])) for n in ell[len(ell) - r:]]
            pos = draw(st.integers(0, len(labels)))
            term = term[:pos] + "..." + term[pos:]
            shape = shape[:pos] + own + shape[pos:]
        terms.append(term)
        shapes.append(tuple(shape))
    lhs = ",".join(terms)
    used = sorted({c for t in terms for c in t if c != "."})
    has_ell = any("..." in t for t in terms)
    if draw(st.booleans()):
        eq = lhs
    else:
        out = draw(st.permutations(used))
        out = "".join(out[:draw(st.integers(0, len(out)))])
        if has_ell and draw(st.booleans()):
            pos = draw(st.integers(0, len(out)))
            out = out[:pos] + "..." + out[pos:]
        eq = lhs + "->" + out
    return eq, shapes


@settings(max_examples=150, deadline=None)
@given(einsum_problems(), st.integers(0, 2**32 - 1))
def test_einsum_property_against_numpy(problem, seed):
    eq, shapes = problem
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    # NumPy refuses an explicit output that drops '...' dims; PyTorch (and ember) sums them
    np_eq = eq
    if "->" in eq and "..." in eq.split("->")[0] and "..." not in eq.split("->")[1]:
        np_eq = eq + "..."
        expected = np.einsum(np_eq, *arrays)
        n_out = len(eq.split("->")[1])
        expected = expected.sum(axis=tuple(range(n_out, expected.ndim)))
    else:
        expected = np.einsum(np_eq, *arrays)
    out = ember.einsum(eq, *[ember.from_numpy(a) for a in arrays])
    assert_close(out, np.asarray(expected), rtol=1e-9, atol=1e-9)


@settings(max_examples=80, deadline=None)
@given(einsum_problems(), st.integers(0, 2**32 - 1))
def test_einsum_property_optimized_path(problem, seed):
    """The same property with NumPy's path optimizer forced on (it is skipped for small work)."""
    kernels = importlib.import_module("ember.backends.numpy.linalg")
    small = kernels._SMALL
    kernels._PATHS.clear()
    kernels._SMALL = 0
    try:
        test_einsum_property_against_numpy.hypothesis.inner_test(problem, seed)
        eq, shapes = problem
        rng = np.random.default_rng(seed)
        arrays = [rng.standard_normal(s) for s in shapes]
        _grad_check(lambda *xs: ember.einsum(eq, *xs), lambda *xs: torch.einsum(eq, *xs),
                    arrays, rng)
    finally:
        kernels._SMALL = small
        kernels._PATHS.clear()


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk,kl->il", [(30, 40), (40, 30), (30, 20)]),
    ("bij,bjk->bik", [(4, 30, 40), (4, 40, 30)]),
    ("iij,jk->ik", [(30, 30, 40), (40, 30)]),
    ("...ij,jk->...k", [(3, 30, 40), (40, 50)]),
])
def test_einsum_large_matches_torch(rng, eq, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    _grad_check(lambda *xs: ember.einsum(eq, *xs), lambda *xs: torch.einsum(eq, *xs), arrays, rng)


@settings(max_examples=40, deadline=None)
@given(einsum_problems(), st.integers(0, 2**32 - 1))
def test_einsum_grad_property_against_torch(problem, seed):
    eq, shapes = problem
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    _grad_check(lambda *xs: ember.einsum(eq, *xs), lambda *xs: torch.einsum(eq, *xs), arrays, rng)


@pytest.mark.parametrize("eq,shapes,error,match", [
    ("ij,jk->ik", [(2, 3)], ember.InvalidParameterError, "has 2 operand term.*got 1 operand"),
    ("ij->i->j", [(2, 3)], ember.InvalidParameterError, "more than one '->'"),
    ("i$->i", [(2, 3)], ember.InvalidParameterError, r"invalid character '\$' in operand term 0"),
    ("ij->k", [(2, 3)], ember.InvalidParameterError, "output label 'k' .* appears in no operand"),
    ("ij->ii", [(2, 3)], ember.InvalidParameterError, "repeats the label 'i' in the output"),
    ("i..j->ij", [(2, 3)], ember.InvalidParameterError, "'.' in operand term 0 that is not part"),
    ("...i...->i", [(2, 3)], ember.InvalidParameterError, "more than one ellipsis"),
    ("ijk->i", [(2, 3)], ember.ShapeMismatchError, "operand 0 has 2 dims .* 'ijk' names 3"),
    ("...ijk->i", [(2, 3)], ember.ShapeMismatchError, "names at least 3"),
    ("ij,jk->ik", [(2, 3), (4, 5)], ember.ShapeMismatchError,
     "label 'j' has size 4 in operand 1 but size 3"),
    ("ii->i", [(2, 3)], ember.ShapeMismatchError, "label 'i' is repeated in operand 0 with sizes 2 and 3"),
    ("...i,...i->...", [(2, 3), (4, 3)], ember.ShapeMismatchError, r"dims covered by '\.\.\.' do not broadcast"),
])
def test_einsum_errors(eq, shapes, error, match):
    arrays = [np.ones(s) for s in shapes]
    ops = [ember.tensor(a) for a in arrays]
    with pytest.raises(error, match="einsum: .*" + match):
        ember.einsum(eq, *ops)
    _unchanged(ops, arrays)


def test_einsum_argument_errors():
    a = ember.tensor([[1.0, 2.0]])
    with pytest.raises(ember.InvalidParameterError, match="einsum: no operands given"):
        ember.einsum("ij")
    with pytest.raises(ember.InvalidParameterError, match="einsum: equation must be a str"):
        ember.einsum(3, a)
    with pytest.raises(ember.InvalidParameterError, match="einsum: operand 1 must be a Tensor, got list"):
        ember.einsum("ij,ij", a, [[1.0, 2.0]])
    with pytest.raises(ember.KindError, match="einsum: not defined for bool tensors"):
        ember.einsum("i->", ember.tensor([True]))
    with pytest.raises(ember.InvalidParameterError, match="at most 52 are supported"):
        ember.einsum("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ...->",
                     ember.tensor(np.ones((1,) * 53)))
    assert a.tolist() == [[1.0, 2.0]]


def test_einsum_does_not_write_into_inputs(rng):
    a = rng.standard_normal((3, 3))
    x = ember.from_numpy(a.copy()).require_grad()
    d = ember.einsum("ii->i", x)
    d.backward(ember.tensor(np.ones(3)))
    np.testing.assert_array_equal(x.numpy(), a)
    np.testing.assert_array_equal(x.grad.numpy(), np.eye(3))


# -- the user guide --------------------------------------------------------------------------

def test_docs_linalg_md():
    path = os.path.join(ROOT, "docs", "linalg.md")
    result = doctest.testfile(path, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0


# -- devices ---------------------------------------------------------------------------------

INT_DTYPES = ["int8", "uint8", "int16", "int32", "int64", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_int_products_wrap_as_numpy_on_every_device(dtype):
    rng = np.random.default_rng(3)
    a = (rng.integers(0, 200, (2, 3, 4)) * 37).astype(dtype)
    b = (rng.integers(0, 200, (4, 5)) * 91).astype(dtype)
    want = np.matmul(a, b)
    for device in ("cpu", "torch:cpu"):
        ta, tb = ember.Tensor(a, device=device), ember.Tensor(b, device=device)
        out = ta @ tb
        assert out.dtype.name == dtype and str(out.device) == device
        np.testing.assert_array_equal(out.numpy(), want)
        np.testing.assert_array_equal(ember.einsum("bij,jk->bik", ta, tb).numpy(), want)
        np.testing.assert_array_equal(ta[0, 0].dot(tb[:, 0]).numpy(), np.dot(a[0, 0], b[:, 0]))


def test_cuda_int_product_emulation_matches_numpy():
    # the broadcast multiply-and-sum the torch kernels use for int products on CUDA, run here
    from ember.backends.torch import linalg as tl
    rng = np.random.default_rng(4)
    x = rng.integers(-5, 5, (3, 3, 4))
    y = rng.integers(-5, 5, (4, 2))
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    for eq, ops, arrays in (("iij->j", [tx], [x]), ("iij,jk->ki", [tx, ty], [x, y]),
                            ("ij,ij->", [tx[0], tx[1]], [x[0], x[1]])):
        np.testing.assert_array_equal(tl._einsum_broadcast(eq, ops).numpy(),
                                      np.einsum(eq, *arrays))
    for sa, sb in (((3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)), ((2, 3, 4), (4,))):
        a, b = rng.integers(-9, 9, sa).astype(np.int8), rng.integers(-9, 9, sb).astype(np.int8)
        got = tl._mm(torch.from_numpy(a), torch.from_numpy(b), True).numpy()
        np.testing.assert_array_equal(got, np.matmul(a, b))


def test_products_of_tensors_on_two_devices_raise_device_error():
    a = ember.Tensor([[1.0, 2.0]], device="cpu")
    b = ember.Tensor([[1.0], [2.0]], device="torch:cpu")
    for fn in (lambda: a @ b, lambda: ember.einsum("ij,jk->ik", a, b),
               lambda: ember.linalg.solve(ember.Tensor([[2.0]], device="cpu"),
                                          ember.Tensor([1.0], device="torch:cpu"))):
        with pytest.raises(ember.errors.DeviceError, match="cpu and torch:cpu"):
            fn()
    out = ember.Tensor([[1.0, 2.0]], device="torch:cpu") @ [[1.0], [2.0]]  # data follows self
    assert str(out.device) == "torch:cpu" and out.tolist() == [[5.0]]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m, n, k", [(2, 256, 64), (20, 1024, 256), (32, 300, 7), (33, 256, 8)])
def test_few_rows_times_a_transposed_matrix_is_pytorchs_product(rng, dtype, m, n, k):
    """(m, k) @ (n, k)^T with few rows (an RNN step's h @ W^T, which the NumPy backend
    computes as the transpose of W @ h^T in float32): PyTorch's values, and the gradients."""
    a = rng.standard_normal((m, k)).astype(dtype)
    w = rng.standard_normal((n, k)).astype(dtype)
    x, y = ember.tensor(a, requires_grad=True), ember.tensor(w, requires_grad=True)
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(w, requires_grad=True)
    out, tout = x @ y.mT, tx @ ty.T
    tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == "float32" else {}  # sums of up to 1024
    assert_close(out, tout, **tol)
    g = rng.standard_normal((m, n)).astype(dtype)
    out.backward(ember.tensor(g))
    tout.backward(torch.tensor(g))
    assert_close(x.grad, tx.grad, **tol)
    assert_close(y.grad, ty.grad, **tol)


@pytest.mark.once
@pytest.mark.parametrize("device", engine_devices(), ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("m, n", [(128, 185), (16, 16), (3, 700)])
def test_a_large_outer_product_by_matmul_is_pytorchs_mm(rng, device, dtype, m, n):
    """(m, 1) @ (1, n) past the size of the NumPy backend's compiled outer product: PyTorch's
    values and signs of zero, specials and strided operands included (ember's engines; an
    Array API library's matmul is its own, as above)."""
    a = rng.standard_normal((m, 1)).astype(dtype)
    b = rng.standard_normal((1, 2 * n)).astype(dtype)
    a[[0, 1, 2], 0] = [-0.0, np.inf, np.nan]
    b[0, :4] = [0.0, -0.0, -np.inf, 1e-30]
    for x, y in ((a, b[:, :n]), (a, b[:, ::2]), (a[::-1], b[:, n:])):
        got = (ember.tensor(x, device=device) @ ember.tensor(y, device=device)).numpy()
        expected = (torch.from_numpy(x.copy()) @ torch.from_numpy(y.copy())).numpy()
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


@pytest.mark.once
@pytest.mark.parametrize("device", engine_devices(), ids=str)
def test_an_outer_product_by_matmul_keeps_the_sign_of_zero_as_pytorch(device):
    # k == 1: one product per element; PyTorch's mm keeps a -0.0 product, its bmm gives +0.0
    # (the engines follow it; an Array API library's matmul is its own)
    a = np.array([[[-1.0], [2.0]], [[0.5], [-0.0]]], dtype=np.float32)
    b = np.array([[[0.0, -3.0]], [[4.0, 1.0]]], dtype=np.float32)
    for x, y in ((a, b), (a[0], b[0]), (a[1], b[1])):
        got = (ember.tensor(x, device=device) @ ember.tensor(y, device=device)).numpy()
        expected = (torch.from_numpy(x) @ torch.from_numpy(y)).numpy()
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
    x = ember.tensor(a[0], device=device, requires_grad=True)
    (x @ ember.tensor(b[0], device=device)).sum().backward()
    assert x.grad.tolist() == [[-3.0], [-3.0]]
