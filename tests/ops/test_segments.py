"""Segments: cat, stack, split, split_with_sizes, chunk, unbind, iter_dim; TorchLean's laws."""

import doctest
import os
import traceback

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import ember
from ember import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from oracle import SHAPES, assert_close, ember_tensor, layouts, random_array, to_torch
from oracle import assert_unchanged, has_views, snapshot

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def f64(values, requires_grad=False):
    t = ember.tensor(values, dtype="float64")
    return t.require_grad() if requires_grad else t


def arr_of(rng, shape, dtype="float64"):
    return np.asarray(random_array(rng, shape, dtype))


def shares(t, arr):
    return np.shares_memory(np.asarray(t.numpy()), arr)


def assert_view(part, t, base):
    """``part``, a segment of ``t = from_numpy(base)``, is a view. NumPy: of the caller's buffer
    ``base``. Other backends: of ``t``'s buffer, seen through the backend, and so of ``base``
    where from_numpy could share it (torch has no negative strides: it copies a flipped base).
    A device without memory layout (JAX) has no views to see."""
    if not has_views(t):
        return
    if t.device.backend_name == "numpy":
        assert shares(part, base)
        return
    assert t.device.backend.shares_memory(part._data, t._data)
    if all(s >= 0 for s in base.strides):
        assert shares(part, base)


def unsqueeze(t, d):
    return t[(slice(None),) * d + (None,)]


def assert_same_family(actual, expected):
    assert isinstance(actual, list) and len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert_close(a, e)


# -- spec examples ----------------------------------------------------------------------------

def test_tinygrad_cat_examples():
    t0, t1, t2 = ember.tensor([[1, 2]]), ember.tensor([[3, 4]]), ember.tensor([[5, 6]])
    assert t0.cat(t1, t2, dim=0).tolist() == [[1, 2], [3, 4], [5, 6]]
    assert t0.cat(t1, t2, dim=1).tolist() == [[1, 2, 3, 4, 5, 6]]


def test_tinygrad_stack_examples():
    t0, t1, t2 = ember.tensor([1, 2]), ember.tensor([3, 4]), ember.tensor([5, 6])
    assert t0.stack(t1, t2, dim=0).tolist() == [[1, 2], [3, 4], [5, 6]]
    assert t0.stack(t1, t2, dim=1).tolist() == [[1, 3, 5], [2, 4, 6]]


def test_tinygrad_split_examples():
    t = ember.tensor(np.arange(10, dtype=np.int32).reshape(5, 2))
    parts = t.split(2)
    assert [p.tolist() for p in parts] == [[[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8, 9]]]
    assert all(p.dtype is ember.int32 for p in parts)
    parts = t.split([1, 4])
    assert [p.tolist() for p in parts] == [[[0, 1]], [[2, 3], [4, 5], [6, 7], [8, 9]]]


def test_tinygrad_chunk_examples():
    def chunked(n):
        return [c.tolist() for c in ember.tensor(np.arange(n, dtype=np.int32)).chunk(6)]
    assert chunked(11) == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10]]
    assert chunked(12) == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11]]
    assert chunked(13) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11], [12]]


def test_burn_cat_example():
    t1 = ember.tensor([[3.0, 4.9, 2.0, 1.0], [2.0, 1.9, 3.0, 1.0]], dtype="float64")
    t2 = ember.tensor([[4.0, 5.9, 8.0], [1.4, 5.8, 6.0]], dtype="float64")
    concat = ember.Tensor.cat([t1, t2], 1)
    assert concat.tolist() == [[3.0, 4.9, 2.0, 1.0, 4.0, 5.9, 8.0], [2.0, 1.9, 3.0, 1.0, 1.4, 5.8, 6.0]]
    assert concat.dims() == [2, 7]


def test_burn_stack_example():
    t1 = ember.tensor([[3.0, 4.9, 2.0], [2.0, 1.9, 3.0]], dtype="float64")
    t2 = ember.tensor([[4.0, 5.9, 8.0], [1.4, 5.8, 6.0]], dtype="float64")
    t3 = ember.tensor([[4.0, 5.9, 8.0], [1.4, 5.8, 6.0]], dtype="float64")
    stacked = ember.Tensor.stack([t1, t2, t3], 0)
    assert stacked.tolist() == [[[3.0, 4.9, 2.0], [2.0, 1.9, 3.0]],
                                [[4.0, 5.9, 8.0], [1.4, 5.8, 6.0]],
                                [[4.0, 5.9, 8.0], [1.4, 5.8, 6.0]]]
    assert stacked.dims() == [3, 2, 3]


def test_burn_iter_dim_example():
    tensor = ember.tensor([[3.0, 4.9, 2.0], [2.0, 1.9, 3.0]], dtype="float64")
    it = tensor.iter_dim(0)
    assert iter(it) is it
    assert [t.tolist() for t in it] == [[[3.0, 4.9, 2.0]], [[2.0, 1.9, 3.0]]]


def test_burn_chunk_example():
    tensor = ember.tensor([[3.0, 4.9, 2.0], [2.0, 1.9, 3.0], [6.0, 1.5, 7.0], [3.0, 4.9, 9.0]],
                          dtype="float64")
    chunks = tensor.chunk(2, 1)
    assert [c.dims() for c in chunks] == [[4, 2], [4, 1]]
    assert chunks[0].tolist() == [[3.0, 4.9], [2.0, 1.9], [6.0, 1.5], [3.0, 4.9]]
    assert chunks[1].tolist() == [[2.0], [3.0], [7.0], [9.0]]


def test_burn_split_examples():
    tensor = ember.tensor([0.0, 1.0, 2.0, 3.0, 4.0], dtype="float64")
    assert [c.tolist() for c in tensor.split(2, 0)] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    assert [c.tolist() for c in tensor.split_with_sizes([2, 3], 0)] == [[0.0, 1.0], [2.0, 3.0, 4.0]]


@pytest.mark.parametrize("dim, shape", [(0, (3, 2, 3)), (1, (2, 3, 3)), (-1, (2, 3, 3))])
def test_dart_stack_examples(dim, shape, rng):
    a, b, c = (arr_of(rng, (2, 3)) for _ in range(3))
    stacked = ember.stack([f64(a), f64(b), f64(c)], dim=dim)
    assert stacked.shape == shape
    assert_close(stacked, np.stack([a, b, c], axis=dim))


# -- against PyTorch --------------------------------------------------------------------------

FAMILY_DTYPES = ["float64", "float32", "bfloat16", "int32", "uint8", "bool"]


@pytest.mark.parametrize("shape", [s for s in SHAPES if len(s) >= 1])
@pytest.mark.parametrize("dtype", FAMILY_DTYPES)
def test_cat_and_stack_against_torch(shape, dtype, rng):
    for d in range(-len(shape), len(shape)):
        arrays = []
        for k in (0, 2, 1):
            s = list(shape)
            s[d] = k
            arrays.append(arr_of(rng, tuple(s), dtype))
        same = [arr_of(rng, shape, dtype) for _ in range(3)]
        for (_, b0), (_, b1), (_, b2) in zip(*(layouts(a) for a in arrays)):
            ts = [ember_tensor(b, dtype=dtype if dtype == "bfloat16" else None) for b in (b0, b1, b2)]
            assert_close(ember.cat(ts, d), torch.cat([to_torch(t) for t in ts], d))
        for (_, b0), (_, b1), (_, b2) in zip(*(layouts(a) for a in same)):
            ts = [ember_tensor(b, dtype=dtype if dtype == "bfloat16" else None) for b in (b0, b1, b2)]
            tts = [to_torch(t) for t in ts]
            assert_close(ember.stack(ts, d), torch.stack(tts, d))
            assert_close(ember.stack(ts, d - 1 if d < 0 else d + 1), torch.stack(tts, d - 1 if d < 0 else d + 1))


def test_stack_of_zero_d_tensors():
    ts = [ember.tensor(1.0), ember.tensor(2.0)]
    assert ember.stack(ts).tolist() == [1.0, 2.0]
    assert ember.stack(ts, dim=-1).shape == (2,)
    with pytest.raises(DimensionError, match=r"cat: dim 0 is out of range for a tensor of rank 0; a 0-d tensor has no dims"):
        ember.cat(ts)


@pytest.mark.parametrize("a, b", [("int32", "float32"), ("uint8", "int8"), ("bool", "int64"),
                                  ("float16", "bfloat16"), ("float32", "float64"), ("int16", "bool"),
                                  ("uint8", "float16")])
def test_cat_promotes_like_torch(a, b, rng):
    x = ember.tensor(arr_of(rng, (2, 3), "float32" if a == "bfloat16" else a)).cast(a)
    y = ember.tensor(arr_of(rng, (1, 3), "float32" if b == "bfloat16" else b)).cast(b)
    expected = torch.cat([to_torch(x), to_torch(y)])
    assert_close(ember.cat([x, y]), expected)
    assert_close(ember.cat([y, x], dim=0), torch.cat([to_torch(y), to_torch(x)]))


def test_cat_dtype_option():
    x, y = ember.tensor([1, 2]), ember.tensor([3.5])
    out = ember.cat([x, y], dtype="float64")
    assert out.dtype is ember.float64 and out.tolist() == [1.0, 2.0, 3.5]
    assert ember.cat([x, y], dtype="int32").tolist() == [1, 2, 3]
    s = ember.stack([x, x], dtype="float32")
    assert s.dtype is ember.float32 and s.tolist() == [[1.0, 2.0], [1.0, 2.0]]
    assert ember.stack([x], dtype="int8").dtype is ember.int8


@pytest.mark.parametrize("shape", [s for s in SHAPES if len(s) >= 1])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_split_chunk_unbind_against_torch_and_are_views(shape, dtype, rng):
    arr = arr_of(rng, shape, dtype)
    for _, base in layouts(arr):
        t = ember_tensor(base)
        tt = to_torch(t)
        for d in range(-len(shape), len(shape)):
            n = shape[d]
            families = []
            for k in (1, 2, 3, 7):
                families.append((t.split(k, d), tt.split(k, d)))
                families.append((t.chunk(k, d), tt.chunk(k, d)))
            sizes = [n // 3, 0, n - n // 3]
            families.append((t.split(sizes, d), tt.split(sizes, d)))
            families.append((t.split_with_sizes(sizes, dim=d), tt.split_with_sizes(sizes, dim=d)))
            families.append((t.unbind(d), tt.unbind(d)))
            families.append((list(t.iter_dim(d)), tt.split(1, d) if n else ()))
            for mine, theirs in families:
                assert_same_family(mine, list(theirs))
                for part in mine:
                    if part.numel():
                        assert_view(part, t, base)


def test_split_of_zero_length_axis_and_empty_sizes():
    z = ember.tensor(np.zeros((2, 0)))
    assert [p.shape for p in z.split(3, 1)] == [(2, 0)]
    assert [p.shape for p in z.split(0, 1)] == [(2, 0)]
    assert z.split([], 1) == [] and z.split_with_sizes([], dim=-1) == []
    assert [p.shape for p in z.split([0, 0], 1)] == [(2, 0), (2, 0)]
    assert [p.shape for p in z.chunk(3, 1)] == [(2, 0)] * 3
    assert z.unbind(1) == [] and list(z.iter_dim(1)) == []


def test_iteration_uses_unbind():
    t = ember.tensor([[1, 2], [3, 4]])
    assert [r.tolist() for r in t] == [[1, 2], [3, 4]]


def test_module_level_functions():
    t = ember.tensor([1, 2, 3, 4, 5])
    assert [p.tolist() for p in ember.split(t, 2)] == [[1, 2], [3, 4], [5]]
    assert [p.tolist() for p in ember.split_with_sizes(t, [4, 1])] == [[1, 2, 3, 4], [5]]
    assert [p.tolist() for p in ember.chunk(t, 2)] == [[1, 2, 3], [4, 5]]
    assert [p.tolist() for p in ember.unbind(t)] == [1, 2, 3, 4, 5]


def test_both_spellings_of_cat_and_stack():
    a, b, c = ember.tensor([1, 2]), ember.tensor([3]), ember.tensor([4, 5])
    assert ember.Tensor.cat([a, b, c]).tolist() == [1, 2, 3, 4, 5]
    assert ember.Tensor.cat((a, b), 0).tolist() == [1, 2, 3]
    assert ember.Tensor.cat is ember.cat and ember.Tensor.stack is ember.stack
    assert a.cat(b, c).tolist() == [1, 2, 3, 4, 5]
    assert a.cat().tolist() == [1, 2]
    assert a.stack(c, dim=1).tolist() == [[1, 4], [2, 5]]
    assert ember.Tensor.stack([a, c], -1).tolist() == [[1, 4], [2, 5]]
    assert a.cat.__name__ == "cat" and "Join" in ember.Tensor.__dict__["cat"].__doc__
    with pytest.raises(InvalidParameterError, match=r"cat: argument 1 is a list, expected a Tensor"):
        a.cat([b, c])
    with pytest.raises(InvalidParameterError, match=r"stack: argument 2 is a int, expected a Tensor; .*dim as a keyword"):
        a.stack(c, 1)


# -- empty families and shape= ----------------------------------------------------------------

def test_empty_families_need_a_shape():
    with pytest.raises(InvalidParameterError, match=r"cat: tensors is empty, so the result's shape is unknown") as err:
        ember.cat([])
    assert err.value.param == "tensors"
    with pytest.raises(InvalidParameterError, match=r"stack: tensors is empty") as err:
        ember.stack([], dim=0)
    assert err.value.param == "tensors"
    out = ember.cat([], 0, shape=(0, 3))
    assert out.shape == (0, 3) and out.dtype is ember.float32
    out = ember.cat([], dim=-1, shape=(2, 5), dtype="int64")
    assert out.shape == (2, 0) and out.dtype is ember.int64
    assert ember.stack([], shape=(2, 3)).shape == (0, 2, 3)
    assert ember.stack([], dim=-1, shape=[2, 3]).shape == (2, 3, 0)
    assert ember.stack([], shape=()).shape == (0,)
    with pytest.raises(DimensionError, match=r"cat: dim 2 is out of range for a tensor of rank 2"):
        ember.cat([], 2, shape=(1, 2))
    with pytest.raises(DimensionError, match=r"stack: dim 3 is out of range for stacking tensors of rank 1"):
        ember.stack([], 3, shape=(1,))
    with pytest.raises(InvalidParameterError, match=r"cat: shape \(2, -1\) has negative size -1"):
        ember.cat([], shape=(2, -1))
    with pytest.raises(InvalidParameterError, match=r"cat: shape \(5, 10{30}\) has size 10{30}, too large"):
        ember.cat([], shape=(5, 10**30))
    with pytest.raises(InvalidParameterError, match=r"stack: shape must be a tuple of sizes, got int 3"):
        ember.stack([], shape=3)
    with pytest.raises(InvalidParameterError, match=r"dtype: 'float128' is not an ember dtype"):
        ember.cat([], shape=(0,), dtype="float128")


def test_shape_option_checks_non_empty_families():
    a = ember.tensor(np.zeros((2, 3)))
    assert ember.cat([a, a], 1, shape=(2, 99)).shape == (2, 6)
    with pytest.raises(ShapeMismatchError, match=r"cat: tensor 0 has shape \(2, 3\), expected \(4, 3\)"):
        ember.cat([a], 1, shape=(4, 7))
    with pytest.raises(ShapeMismatchError, match=r"stack: tensor 0 has shape \(2, 3\), expected \(3, 2\)"):
        ember.stack([a, a], shape=(3, 2))


# -- the Dart stack's validation order --------------------------------------------------------

def test_stack_one_tensor_is_unsqueeze(rng):
    base = arr_of(rng, (2, 3))
    t = ember.from_numpy(base)
    for d in range(-3, 3):
        out = ember.stack([t], d)
        assert_close(out, np.expand_dims(base, d))
        assert shares(out, base) or not has_views(t)
    with pytest.raises(DimensionError, match=r"stack: dim 3 is out of range for stacking tensors of rank 2; expected a dim in \[-3, 2\]"):
        ember.stack([t], 3)
    x = f64(base, True)
    seed = arr_of(rng, (2, 1, 3))
    ember.stack([x], 1).backward(f64(seed))
    assert_close(x.grad, seed[:, 0])


def test_stack_validation_order():
    a = ember.tensor(np.zeros((2, 3)), dtype="float32")
    wrong_dtype = ember.tensor(np.zeros((2, 3)), dtype="float64")
    wrong_rank = ember.tensor(np.zeros(6), dtype="float32")
    wrong_shape = ember.tensor(np.zeros((2, 4)), dtype="float32")
    wrong_both = ember.tensor(np.zeros(6), dtype="int64")
    before = snapshot(a, wrong_dtype, wrong_rank, wrong_shape)
    # the dim is checked before any tensor
    with pytest.raises(DimensionError, match=r"stack: dim -4 is out of range for stacking tensors of rank 2"):
        ember.stack([a, wrong_dtype], -4)
    # tensors in index order; for one tensor: dtype, then rank, then shape
    with pytest.raises(InvalidParameterError, match=r"^stack: tensor 1 has dtype float64, expected float32") as err:
        ember.stack([a, wrong_dtype, wrong_rank])
    assert err.value.param == "dtype"
    with pytest.raises(ShapeMismatchError, match=r"^stack: tensor 1 has rank 1, expected 2$") as err:
        ember.stack([a, wrong_rank, wrong_dtype])
    assert err.value.expected == (2, 3) and err.value.actual == (6,)
    with pytest.raises(InvalidParameterError, match=r"^stack: tensor 2 has dtype int64, expected float32"):
        ember.stack([a, a, wrong_both])
    with pytest.raises(ShapeMismatchError, match=r"^stack: tensor 2 has shape \(2, 4\), expected \(2, 3\)$"):
        ember.stack([a, a, wrong_shape, wrong_dtype])
    with pytest.raises(InvalidParameterError, match=r"^stack: tensor 1 is a float, expected a Tensor"):
        ember.stack([a, 1.0])
    assert_unchanged([a, wrong_dtype, wrong_rank, wrong_shape], before)


def test_stack_negative_dims(rng):
    ts = [arr_of(rng, (2, 3)) for _ in range(2)]
    for d in range(-3, 3):
        assert_close(ember.stack([f64(t) for t in ts], d), np.stack(ts, d))


# -- bad inputs -------------------------------------------------------------------------------

def test_cat_bad_inputs():
    a = ember.tensor(np.zeros((2, 3)))
    b = ember.tensor(np.zeros((3, 4)))
    v = ember.tensor(np.zeros(3))
    before = snapshot(a, b, v)
    with pytest.raises(InvalidParameterError, match=r"cat: tensors must be a list or tuple of Tensors, got Tensor; use t0.cat\(t1, ...\) or ember.cat\(\[t0, t1\]\)"):
        ember.cat(a)
    with pytest.raises(InvalidParameterError, match=r"cat: tensors must be a list or tuple of Tensors, got generator"):
        ember.cat(t for t in [a, b])
    with pytest.raises(InvalidParameterError, match=r"cat: tensor 1 is a ndarray, expected a Tensor"):
        ember.cat([a, np.zeros((2, 3))])
    with pytest.raises(DimensionError, match=r"cat: dim 2 is out of range for a tensor of rank 2"):
        ember.cat([a, a], 2)
    with pytest.raises(ShapeMismatchError, match=r"cat: tensor 1 has rank 1, expected 2"):
        ember.cat([a, v])
    with pytest.raises(ShapeMismatchError, match=r"cat: tensor 1 has shape \(3, 4\), expected \(2, 4\) \(shapes must agree except at dim 1\)"):
        ember.cat([a, b], 1)
    with pytest.raises(InvalidParameterError, match=r"cat: dim must be an int, got float"):
        ember.cat([a, a], 0.0)
    assert_unchanged([a, b, v], before)


@pytest.mark.parametrize("call, error, match", [
    (lambda t: t.split(0), InvalidParameterError, r"split: sizes 0 is not a valid part size for dim 0 of size 4"),
    (lambda t: t.split(-1), InvalidParameterError, r"split: sizes -1 is not a valid part size"),
    (lambda t: t.split(1.5), InvalidParameterError, r"split: sizes must be an int, got float"),
    (lambda t: t.split([1, 2]), InvalidParameterError, r"split: sizes \[1, 2\] sum to 3, expected 4 \(the size of dim 0\)"),
    (lambda t: t.split([5, -1]), InvalidParameterError, r"split: sizes \[5, -1\] hold negative size -1"),
    (lambda t: t.split(1, 2), DimensionError, r"split: dim 2 is out of range for a tensor of rank 2"),
    (lambda t: t.split_with_sizes(2), InvalidParameterError, r"split_with_sizes: sizes must be a list of sizes, got int 2"),
    (lambda t: t.split_with_sizes([1, 1], 1), InvalidParameterError, r"split_with_sizes: sizes \[1, 1\] sum to 2, expected 3 \(the size of dim 1\)"),
    (lambda t: t.split_with_sizes([1, "a", 3], 0), InvalidParameterError, r"split_with_sizes: sizes must be an int, got str"),
    (lambda t: t.chunk(0), InvalidParameterError, r"chunk: chunks 0 is not positive"),
    (lambda t: t.chunk(None), InvalidParameterError, r"chunk: chunks must be an int, got NoneType"),
    (lambda t: t.chunk(2, -3), DimensionError, r"chunk: dim -3 is out of range"),
    (lambda t: t.unbind(5), DimensionError, r"unbind: dim 5 is out of range for a tensor of rank 2"),
    (lambda t: t.iter_dim(-3), DimensionError, r"iter_dim: dim -3 is out of range"),
])
def test_cutting_bad_inputs(call, error, match):
    t = ember.tensor(np.arange(12.0).reshape(4, 3))
    before = snapshot(t)
    with pytest.raises(error, match=match):
        call(t)
    assert_unchanged([t], before)


def test_cutting_zero_d_raises():
    z = ember.tensor(1.0)
    for call in (lambda: z.split(1), lambda: z.chunk(1), lambda: z.unbind(), lambda: z.iter_dim(0)):
        with pytest.raises((DimensionError, InvalidParameterError), match=r"0-d"):
            call()
    with pytest.raises(KindError, match=r"0-d"):  # a TypeError, as Python's for no iterable
        list(z)


def test_cat_with_int_family_is_untracked_and_kind_errors_do_not_apply():
    out = ember.cat([ember.tensor([1]), ember.tensor([True])])
    assert out.dtype is ember.int64 and not out.is_tracked()
    with pytest.raises(KindError):
        ember.tensor([1, 2]).require_grad()


# -- TorchLean's laws as properties -----------------------------------------------------------

@st.composite
def families(draw, min_size=0, max_size=4):
    rank = draw(st.integers(1, 3))
    d = draw(st.integers(0, rank - 1))
    off = [draw(st.integers(0, 3)) for _ in range(rank)]
    lengths = draw(st.lists(st.integers(0, 3), min_size=min_size, max_size=max_size))
    shapes = []
    for k in lengths:
        s = list(off)
        s[d] = k
        shapes.append(tuple(s))
    return d, tuple(off), lengths, shapes


@st.composite
def tensor_and_sizes(draw):
    d, off, lengths, shapes = draw(families())
    s = list(off)
    s[d] = sum(lengths)
    return d, tuple(s), lengths


def neg(d, rank, flip):
    return d - rank if flip else d


@given(tensor_and_sizes(), st.booleans())
def test_law_cat_of_split_is_identity(case, negative):
    d, shape, sizes = case
    dim = neg(d, len(shape), negative)
    base = np.random.default_rng(6).standard_normal(shape)
    x = ember.from_numpy(base)
    parts = x.split_with_sizes(sizes, dim)
    assert [p.shape[d] for p in parts] == sizes
    assert_close(ember.cat(parts, dim, shape=shape), base)
    assert_close(ember.cat(x.split(sizes, dim), dim, shape=shape), base)


@given(families(), st.booleans())
def test_law_split_of_cat_recovers_the_family(case, negative):
    d, off, lengths, shapes = case
    dim = neg(d, len(off), negative)
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(s) for s in shapes]
    xs = [ember.from_numpy(a) for a in arrays]
    joined = ember.cat(xs, dim, shape=off)
    if not xs:
        assert joined.shape[d] == 0 and joined.shape[:d] == off[:d]
    parts = joined.split_with_sizes([t.shape[d] for t in xs], dim)
    assert_same_family(parts, arrays)


@given(families(min_size=2, max_size=2))
def test_law_narrow_of_binary_cat(case):
    d, off, (m, n), (sx, sy) = case
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal(sx), rng.standard_normal(sy)
    joined = ember.cat([ember.from_numpy(x), ember.from_numpy(y)], d)
    assert_close(joined.narrow(d, 0, m), x)
    assert_close(joined.narrow(d, m, n), y)


@given(families(), st.booleans())
def test_law_stack_is_cat_of_unsqueezed_and_unbind_inverts_it(case, negative):
    d, off, lengths, shapes = case
    rng = np.random.default_rng(9)
    arrays = [rng.standard_normal(off) for _ in lengths]
    xs = [ember.from_numpy(a) for a in arrays]
    dim = neg(d, len(off) + 1, negative)
    stacked = ember.stack(xs, dim, shape=off)
    expected = ember.cat([unsqueeze(t, d) for t in xs], d, shape=off[:d] + (1,) + off[d:])
    assert_close(stacked, expected.numpy())
    assert_same_family(stacked.unbind(dim), arrays)
    assert_same_family([t[(slice(None),) * d + (0,)] for t in stacked.iter_dim(dim)], arrays)


@given(tensor_and_sizes())
def test_law_unbind_and_iter_dim_then_join_is_identity(case):
    d, shape, _ = case
    base = np.random.default_rng(10).standard_normal(shape)
    x = ember.from_numpy(base)
    rest = shape[:d] + shape[d + 1:]
    assert_close(ember.stack(x.unbind(d), d, shape=rest), base)
    assert_close(ember.cat(list(x.iter_dim(d)), d, shape=shape), base)


@given(families())
def test_law_gradient_of_cat_is_split(case):
    d, off, lengths, shapes = case
    rng = np.random.default_rng(11)
    xs = [f64(rng.standard_normal(s), True) for s in shapes]
    if not xs:
        return
    out = ember.cat(xs, d)
    seed = rng.standard_normal(out.shape)
    out.backward(f64(seed))
    expected = np.split(seed, np.cumsum(lengths)[:-1], axis=d)
    for x, e in zip(xs, expected):
        assert_close(x.grad, e)


@given(tensor_and_sizes(), st.sampled_from(["one pass", "part by part"]))
def test_law_gradient_of_split_is_cat(case, how):
    d, shape, sizes = case
    rng = np.random.default_rng(12)
    x = f64(rng.standard_normal(shape), True)
    parts = x.split_with_sizes(sizes, d)
    seeds = [rng.standard_normal(p.shape) for p in parts]
    if not parts:
        return
    if how == "one pass":
        ember.cat(parts, d).backward(f64(np.concatenate(seeds, axis=d)))
    else:
        for p, s in zip(parts, seeds):
            p.backward(f64(s))
    assert_close(x.grad, np.concatenate(seeds, axis=d))


# -- gradients against torch.autograd ---------------------------------------------------------

def test_cat_gradient_against_torch_with_mixed_float_dtypes(rng):
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 1))
    x, y = f64(a, True), ember.tensor(b.astype(np.float32)).require_grad()
    xt, yt = torch.tensor(a, requires_grad=True), torch.tensor(b.astype(np.float32), requires_grad=True)
    out, outt = ember.cat([x, y], -1), torch.cat([xt, yt], -1)
    seed = rng.standard_normal((2, 4))
    out.backward(f64(seed))
    outt.backward(torch.tensor(seed))
    assert_close(out, outt.detach())
    assert_close(x.grad, xt.grad)
    assert_close(y.grad, yt.grad)


def test_cat_gradient_skips_untracked_and_int_inputs(rng):
    x = f64([1.0, 2.0], True)
    out = ember.cat([x, ember.tensor([3, 4]), f64([5.0])])
    assert out.dtype is ember.float64
    out.backward(f64([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert x.grad.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("op", ["stack", "split", "chunk", "unbind", "iter_dim"])
def test_gradients_against_torch(op, rng):
    base = rng.standard_normal((4, 3, 2))
    x, xt = f64(base, True), torch.tensor(base, requires_grad=True)
    if op == "stack":
        others = [rng.standard_normal((4, 3, 2)) for _ in range(2)]
        ys = [f64(o, True) for o in others]
        yts = [torch.tensor(o, requires_grad=True) for o in others]
        outs, outts = [ember.stack([x, *ys], 2)], [torch.stack([xt, *yts], 2)]
    elif op == "split":
        outs, outts = x.split(2, 1), xt.split(2, 1)
    elif op == "chunk":
        outs, outts = x.chunk(3, 0), xt.chunk(3, 0)
    elif op == "unbind":
        outs, outts = x.unbind(-1), xt.unbind(-1)
    else:
        outs, outts = list(x.iter_dim(1)), xt.split(1, 1)
    seeds = [rng.standard_normal(o.shape) for o in outs]
    for o, s in zip(outs, seeds):
        o.backward(f64(s))
    torch.autograd.backward(list(outts), [torch.tensor(s) for s in seeds])
    for o, ot in zip(outs, outts):
        assert_close(o, ot.detach())
    assert_close(x.grad, xt.grad)
    if op == "stack":
        for y, yt in zip(ys, yts):
            assert_close(y.grad, yt.grad)


def test_split_parts_reached_by_no_pass_get_no_gradient(rng):
    x = f64(rng.standard_normal((4, 2)), True)
    a, b = x.split(2)
    a.backward(f64(np.ones((2, 2))))
    assert x.grad.tolist() == [[1, 1], [1, 1], [0, 0], [0, 0]]
    with ember.no_grad():
        c, d = x.split(2)
    assert not c.is_tracked() and not d.is_tracked()


def test_cat_and_stack_finite_differences(rng):
    a, b = rng.standard_normal((2, 2)), rng.standard_normal((1, 2))
    seed = rng.standard_normal((3, 2))
    x, y = f64(a, True), f64(b, True)
    ember.cat([x, y]).backward(f64(seed))
    eps = 1e-6
    for t, arr, which in ((x, a, 0), (y, b, 1)):
        numeric = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            hi, lo = arr.copy(), arr.copy()
            hi[idx] += eps
            lo[idx] -= eps
            parts_hi = [hi, b] if which == 0 else [a, hi]
            parts_lo = [lo, b] if which == 0 else [a, lo]
            numeric[idx] = ((np.concatenate(parts_hi) * seed).sum()
                            - (np.concatenate(parts_lo) * seed).sum()) / (2 * eps)
        assert_close(t.grad, numeric, rtol=1e-6, atol=1e-8)
    seed = rng.standard_normal((2, 2, 2))
    x, y = f64(a, True), f64(a[::-1].copy(), True)
    ember.stack([x, y], 1).backward(f64(seed))
    numeric = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        hi, lo = a.copy(), a.copy()
        hi[idx] += eps
        lo[idx] -= eps
        numeric[idx] = ((np.stack([hi, a[::-1]], 1) * seed).sum()
                        - (np.stack([lo, a[::-1]], 1) * seed).sum()) / (2 * eps)
    assert_close(x.grad, numeric, rtol=1e-6, atol=1e-8)


def test_many_parts_backward_stays_linear(rng):
    x = f64(rng.standard_normal((3000, 4)), True)
    rows = x.unbind(0)
    ember.stack(rows).backward(f64(np.ones((3000, 4))))
    assert x.grad.shape == (3000, 4) and float(np.asarray(x.grad.numpy()).sum()) == 12000.0


# -- the user guide ---------------------------------------------------------------------------

@pytest.mark.layout  # its examples show views sharing memory
def test_segments_guide_examples_run():
    result = doctest.testfile(os.path.join(ROOT, "docs", "segments.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 20
    assert result.failed == 0


# -- cat's fast path ----------------------------------------------------------------------------
# A family of exact, untracked Tensors of one dtype and one checkpointing strategy is checked in
# one pass and joined by NumPy directly; its result must equal the general path's (forced here
# with dtype=, which takes the general path), NumPy's, and leave every input unchanged.

class _SubTensor(ember.Tensor):
    """A Tensor subclass: first in a family, it sends the family down the general path."""


class _Impostor:
    """Not a Tensor, though it has some of a Tensor's attributes."""

    def __init__(self, t, dtype):
        self._data, self._dtype, self._node, self._ad = t._data, dtype, None, t._ad


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool", "bfloat16"])
@pytest.mark.parametrize("shape", [(0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)])
def test_cat_fast_path_equals_general_path(shape, dtype, rng):
    arr = arr_of(rng, shape, dtype)
    for name, a in layouts(arr):
        for d in range(-len(shape), len(shape)):
            for family in ([a], [a, arr, a], (arr, a)):
                ts = [ember_tensor(x, dtype="bfloat16" if dtype == "bfloat16" else None)
                      for x in family]
                before = snapshot(*ts)
                fast = ember.cat(ts, d)
                general = ember.cat(ts, d, dtype=ts[0].dtype)
                expected = np.concatenate([np.asarray(t.numpy()) for t in ts], axis=d)
                for out in (fast, general):
                    assert out.dtype is ts[0].dtype and out.shape == expected.shape
                    np.testing.assert_array_equal(np.asarray(out.numpy()), expected)
                    assert not out.is_tracked()
                    assert out.gradient_checkpointing_strategy() == "none"
                    assert not has_views(out) or not any(
                        shares(out, np.asarray(t.numpy())) for t in ts)
                assert_unchanged(ts, before)


def test_cat_fast_path_of_many_tensors_and_its_shape_errors(rng):
    xs = [arr_of(rng, (2, 3), "float32") for _ in range(100)]
    ts = [ember.tensor(x) for x in xs]  # the default device, as the tensors below
    assert_close(ember.cat(ts, 1), torch.cat([torch.from_numpy(x) for x in xs], 1))
    assert_close(ember.cat(tuple(ts), -2), np.concatenate(xs, axis=0))
    before = snapshot(*ts)
    bad = ts[:57] + [ember.tensor(arr_of(rng, (2, 4), "float32"))] + ts[57:]
    with pytest.raises(ShapeMismatchError, match=r"cat: tensor 57 has shape \(2, 4\), expected "
                                                 r"\(2, 3\) \(shapes must agree except at dim 0\)"
                       ) as err:
        ember.cat(bad, 0)
    # NumPy's own ValueError is no part of what the user sees
    assert "concatenation axis" not in "".join(traceback.format_exception(err.value))
    with pytest.raises(ShapeMismatchError, match=r"cat: tensor 100 has rank 1, expected 2"):
        ember.cat(ts + [ember.tensor([1.0, 2.0, 3.0], dtype="float32")], 0)
    with pytest.raises(DimensionError, match=r"cat: dim 2 is out of range for a tensor of rank 2"):
        ember.cat(ts, 2)
    with pytest.raises(InvalidParameterError, match=r"cat: tensor 99 is a ndarray, expected a "
                                                    r"Tensor"):
        ember.cat(ts[:99] + [xs[99]], 0)
    for impostor in (_Impostor(ts[3], "float32"), _Impostor(ts[3], ember.float64)):
        with pytest.raises(InvalidParameterError, match=r"cat: tensor 3 is a _Impostor, expected "
                                                        r"a Tensor"):
            ember.cat(ts[:3] + [impostor] + ts[4:], 0)
    assert_unchanged(ts, before)


@pytest.mark.half_precision
def test_cat_families_off_the_fast_path_match_torch(rng):
    a, b = arr_of(rng, (2, 3)), arr_of(rng, (4, 3))
    plain, sub = ember.tensor(a), _SubTensor(b)
    assert_close(ember.cat([plain, sub]), np.concatenate([a, b]))
    assert_close(ember.cat([sub, plain]), np.concatenate([b, a]))
    # one tracked tensor among untracked ones: the general path records the step
    x = ember.tensor(a).require_grad()
    out = ember.cat([ember.tensor(b), x, plain], 0)
    assert out.is_tracked()
    seed = rng.standard_normal((8, 3))
    out.backward(ember.tensor(seed))
    np.testing.assert_array_equal(np.asarray(x.grad.numpy()), seed[4:6])
    # mixed dtypes promote as torch
    i = ember.tensor([[1, 2, 3]], dtype="int16")
    h = ember.tensor(a.astype(np.float16))
    assert_close(ember.cat([i, h, i]), torch.cat([to_torch(i), to_torch(h), to_torch(i)]))


def test_cat_fast_path_keeps_checkpointing_strategies():
    a = ember.tensor([1.0, 2.0])
    b = ember.tensor([3.0]).with_gradient_checkpointing_strategy("balanced")
    c = ember.tensor([4.0]).with_gradient_checkpointing_strategy("balanced")
    joined = ember.cat([b, c])
    assert joined.tolist() == [3.0, 4.0]
    assert joined.gradient_checkpointing_strategy() == "balanced"
    # constants of different strategies: the "balanced" one wins over the default
    mixed = ember.cat([a, b])
    assert mixed.tolist() == [1.0, 2.0, 3.0]
    assert mixed.gradient_checkpointing_strategy() == "balanced"
    ra, rb = a.require_grad().exp(), b.require_grad().exp()
    with pytest.raises(ember.GraphError, match=r"cat: operands come from recorded steps of "
                                               r"different gradient-checkpointing strategies"):
        ember.cat([ra, rb])


def test_tracked_families_take_the_same_checks_and_steps():
    # cat and stack check a family of tracked tensors in one pass (the fast path); a second
    # call with another dtype, rank or shape falls back and raises what the general path words
    a = ember.tensor(np.arange(6.0).reshape(2, 3), dtype="float32").require_grad()
    b = ember.tensor(np.ones((2, 3)), dtype="float32")
    for _ in range(2):
        out = ember.stack([a, b], -1)
        assert out.shape == (2, 3, 2) and out.is_tracked()
        joined = ember.cat([b, a], 1)
        assert joined.shape == (2, 6) and joined.is_tracked()
    (out * 2.0).sum().backward()
    assert a.grad.tolist() == [[2.0] * 3] * 2
    wrong_dtype = ember.tensor(np.zeros((2, 3)), dtype="float64")
    with pytest.raises(InvalidParameterError, match=r"^stack: tensor 1 has dtype float64, expected float32"):
        ember.stack([a, wrong_dtype])
    with pytest.raises(ShapeMismatchError, match=r"^stack: tensor 1 has shape \(3, 2\), expected \(2, 3\)$"):
        ember.stack([a, a.reshape(3, 2)])
    with pytest.raises(DimensionError, match=r"stack: dim 3 is out of range for stacking tensors of rank 2"):
        ember.stack([a, a], 3)
    with pytest.raises(ShapeMismatchError, match=r"cat: tensor 1 has shape \(3, 2\), expected \(2, 2\)"):
        ember.cat([a, a.reshape(3, 2)], 1)
    assert ember.cat([a, wrong_dtype]).dtype == ember.float64  # promoted, as untracked
    g = ember.tensor(np.ones((4, 3)), dtype="float64")
    a.grad = None
    ember.cat([a, wrong_dtype]).backward(g)
    assert a.grad.dtype == ember.float32 and a.grad.tolist() == [[1.0] * 3] * 2
