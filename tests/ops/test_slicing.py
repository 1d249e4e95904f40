"""Slicing: basic indexing, Burn's slice family, narrow, select_dim, __setitem__, inplace, extract."""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import ember
from ember import DimensionError, GraphError, InvalidParameterError, KindError, ShapeMismatchError
from oracle import SHAPES, assert_close, ember_tensor, layouts, random_array, to_torch
from oracle import assert_unchanged, has_views, snapshot

DTYPES = ["float64", "float32", "bfloat16", "int64", "int8", "uint8", "bool"]


def f64(values, requires_grad=False):
    t = ember.tensor(values, dtype="float64")
    return t.require_grad() if requires_grad else t


def shares(t, arr):
    return np.shares_memory(np.asarray(t.numpy()), arr)


def has_negative_step(key):
    items = key if isinstance(key, (tuple, list)) else (key,)
    return any(isinstance(it, slice) and it.step is not None and it.step < 0 for it in items)


def assert_view(out, t, base, negative_step=False, what=""):
    """``out``, a basic-key result of ``t = from_numpy(base)``, is a view. NumPy: of the caller's
    buffer ``base``, for any key. Other backends (torch has no negative strides, so a negative
    step copies and from_numpy copies a negatively strided ``base``): of ``t``'s buffer for keys
    without a negative step, seen through the backend, and so of ``base`` where from_numpy
    could share it. A device without memory layout (JAX) has no views to see."""
    if not has_views(t):
        return
    if t.device.backend_name == "numpy":
        assert shares(out, base), f"{what} is not a view"
        return
    if negative_step:
        return
    assert t.device.backend.shares_memory(out._data, t._data), f"{what} is not a view"
    if all(s >= 0 for s in base.strides):
        assert shares(out, base), f"{what} is not a view of the caller's buffer"


# -- basic keys as a Hypothesis strategy -------------------------------------------------------

opt_bound = st.one_of(st.none(), st.integers(-7, 7))
steps = st.sampled_from([None, 1, 2, 3, -1, -2, -3])


@st.composite
def item_for(draw, size):
    if size > 0 and draw(st.booleans()):
        return draw(st.integers(-size, size - 1))
    return slice(draw(opt_bound), draw(opt_bound), draw(steps))


@st.composite
def basic_keys(draw, shape):
    ndim = len(shape)
    lead = draw(st.integers(0, ndim))
    trail = draw(st.integers(0, ndim - lead))
    items = [draw(item_for(s)) for s in shape[:lead]]
    if draw(st.booleans()):
        items += [Ellipsis] + [draw(item_for(s)) for s in shape[ndim - trail:]]
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return tuple(items)


shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@st.composite
def shape_and_key(draw):
    shape = draw(shapes)
    return shape, draw(basic_keys(shape))


@given(shape_and_key(), st.sampled_from(["float64", "int32", "bool"]), st.integers(0, 3))
def test_getitem_matches_numpy_and_is_a_view(sk, dtype, layout_index):
    shape, key = sk
    arr = np.asarray(random_array(np.random.default_rng(1), shape, dtype))
    name, base = list(layouts(arr))[min(layout_index, len(list(layouts(arr))) - 1)]
    t = ember_tensor(base)
    before = snapshot(t)
    out = t[key]
    expected = np.asarray(base[key])
    assert_close(out, expected)
    assert out.dtype is t.dtype
    if expected.size:
        assert_view(out, t, base, has_negative_step(key), f"{key} on {name}")
    assert_unchanged([t], before)


@given(shape_and_key())
def test_getitem_gradient_scatters_the_seed(sk):
    shape, key = sk
    rng = np.random.default_rng(2)
    x = f64(rng.standard_normal(shape), requires_grad=True)
    out = x[key]
    seed = rng.standard_normal(out.shape)
    out.backward(f64(seed))
    expected = np.zeros(shape)
    expected[key] = seed
    assert_close(x.grad, expected)


@pytest.mark.parametrize("shape", [s for s in SHAPES if len(s) >= 1])
@pytest.mark.parametrize("dtype", DTYPES)
def test_getitem_against_torch(shape, dtype, rng):
    arr = np.asarray(random_array(rng, shape, dtype))
    keys = [0, -1, slice(1, None), slice(None, None, 2), (Ellipsis, 0), (None, slice(0, 2)),
            (slice(None), None)]
    for name, base in layouts(arr):
        t = ember_tensor(base, dtype=dtype if dtype == "bfloat16" else None)
        tt = to_torch(t)
        for key in keys:
            if shape[0] == 0 and key in (0, -1):
                continue
            if key == (Ellipsis, 0) and shape[-1] == 0:
                continue
            assert_close(t[key], tt[key])


def test_getitem_gradient_against_torch(rng):
    base = rng.standard_normal((4, 5, 3))
    for key in [(1, slice(None, None, 2)), (slice(1, 3), None, Ellipsis, -1), (Ellipsis, 2),
                (slice(None), slice(0, 5, 3), 0)]:
        x = f64(base, True)
        xt = torch.tensor(base, requires_grad=True)
        out, outt = x[key], xt[key]
        seed = rng.standard_normal(out.shape)
        out.backward(f64(seed))
        outt.backward(torch.tensor(seed))
        assert_close(x.grad, xt.grad)


def test_getitem_finite_differences(rng):
    base = rng.standard_normal((3, 4))
    key = (slice(None, None, -1), slice(1, 3))
    seed = rng.standard_normal((3, 2))
    x = f64(base, True)
    x[key].backward(f64(seed))
    eps = 1e-6
    numeric = np.zeros_like(base)
    for idx in np.ndindex(base.shape):
        hi, lo = base.copy(), base.copy()
        hi[idx] += eps
        lo[idx] -= eps
        numeric[idx] = ((hi[key] * seed).sum() - (lo[key] * seed).sum()) / (2 * eps)
    assert_close(x.grad, numeric, rtol=1e-6, atol=1e-8)


def test_getitem_zero_d_results_and_zero_d_input():
    t = ember.tensor([[1, 2], [3, 4]])
    v = t[1, 0]
    assert v.shape == () and v.tolist() == 3
    assert shares(v, t.numpy()) or not has_views(t)
    z = ember.tensor(5.0)
    assert z[()].tolist() == 5.0 and z[...].shape == () and z[None].shape == (1,)
    assert z[None, ..., None].shape == (1, 1)


def test_getitem_int_and_bool_tensors_carry_no_gradient():
    t = ember.tensor([1, 2, 3])
    assert not t[1:].is_tracked()
    x = f64([1.0, 2.0], True)
    assert x[0].is_tracked()
    with ember.no_grad():
        assert not x[0].is_tracked()


def test_getitem_numpy_integer_and_index_objects():
    t = ember.tensor([10, 20, 30])
    assert t[np.int64(2)].tolist() == 30
    assert t[np.int32(-3):np.int64(2)].tolist() == [10, 20]


@pytest.mark.parametrize("key, error, match", [
    (3, DimensionError, r"__getitem__: index 3 is out of range for dim 0 of size 3"),
    (-4, DimensionError, r"index -4 is out of range for dim 0 of size 3; expected an index in \[-3, 2\]"),
    ((0, 0), DimensionError, r"2 indices for a tensor of rank 1"),
    ((Ellipsis, Ellipsis), InvalidParameterError, r"2 Ellipsis"),
    (slice(None, None, 0), InvalidParameterError, r"step 0"),
    (1.5, InvalidParameterError, r"key element 1.5 \(float\) is not an integer"),
    ("a", InvalidParameterError, r"key element 'a'"),
    (slice(1.0, None), InvalidParameterError, r"slice start 1.0"),
    (slice(True, None), InvalidParameterError, r"slice start True"),
])
def test_getitem_bad_keys(key, error, match):
    t = ember.tensor([1.0, 2.0, 3.0])
    before = snapshot(t)
    with pytest.raises(error, match=match):
        t[key]
    assert_unchanged([t], before)


def test_getitem_index_into_empty_dim():
    t = ember.tensor(np.zeros((0, 2)))
    with pytest.raises(DimensionError, match="a dim of size 0 has no indices"):
        t[0]
    with pytest.raises(DimensionError, match="1 indices for a tensor of rank 0"):
        ember.tensor(1.0)[0]


def test_advanced_keys_are_delegated(monkeypatch):
    import ember.ops.slicing as slicing
    seen = []

    def fake(self, key):
        seen.append(key)
        return "delegated"

    monkeypatch.setattr(slicing, "advanced_getitem", fake)
    t = ember.tensor([[1, 2], [3, 4]])
    idx = ember.tensor([0, 1])
    mask = np.array([True, False])
    for key in [idx, [0, 1], (slice(None), [1]), mask, (0, True), (Ellipsis, idx), np.bool_(True),
                ((0, 1),)]:
        assert t[key] == "delegated"
        assert seen[-1] is key
    assert len(seen) == 8


# -- s, slice, slice_dim, select_dim, narrow --------------------------------------------------

def test_s_builds_keys_like_numpy_s_():
    assert ember.s[1:3, ::2] == np.s_[1:3, ::2]
    assert ember.s[-2:] == slice(-2, None)
    assert ember.s[3] == 3
    assert ember.s[..., None] == (Ellipsis, None)
    assert repr(ember.s) == "ember.s"


def arange(n, dtype="int64"):
    return ember.tensor(np.arange(n), dtype=dtype)


def test_slice_spec_examples():
    tensor = arange(10)
    assert tensor.slice(slice(2, 8)).tolist() == [2, 3, 4, 5, 6, 7]
    assert tensor.slice(ember.s[0:10:2]).tolist() == [0, 2, 4, 6, 8]
    assert tensor.slice(ember.s[::-1]).tolist() == [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    ones = ember.tensor(np.ones((4, 6)), dtype="float32")
    assert ones.slice([slice(1, 3), slice(2, 5)]).dims() == [2, 3]
    assert ones.slice(ember.s[0:4:2, ::-1]).dims() == [2, 6]
    ones3 = ember.tensor(np.ones((4, 6, 8)), dtype="float32")
    assert ones3.slice(ember.s[1:3, ::2, -3:]).dims() == [2, 3, 3]
    assert ones.slice(ember.s[-2:, :-1]).dims() == [2, 5]


@given(shapes.filter(lambda s: len(s) >= 1), st.data())
def test_slice_matches_numpy_and_keeps_rank(shape, data):
    n = data.draw(st.integers(1, len(shape)))
    specs = []
    for size in shape[:n]:
        if size and data.draw(st.booleans()):
            specs.append(data.draw(st.integers(-size, size - 1)))
        else:
            specs.append(slice(data.draw(opt_bound), data.draw(opt_bound), data.draw(steps)))
    arr = np.random.default_rng(3).standard_normal(shape)
    base = arr[::-1] if data.draw(st.booleans()) else arr
    t = ember.from_numpy(base)
    out = t.slice(tuple(specs) if len(specs) > 1 or data.draw(st.booleans()) else specs[0])
    np_key = tuple(slice(s, s + 1 if s != -1 else None) if isinstance(s, int) else s for s in specs)
    expected = base[np_key]
    assert_close(out, expected)
    assert out.ndim == len(shape)
    if expected.size:
        assert_view(out, t, base, has_negative_step(specs), f"{specs}")


def test_slice_clamps_and_empty_ranges():
    t = arange(5)
    assert t.slice(slice(-100, 100)).tolist() == [0, 1, 2, 3, 4]
    assert t.slice(slice(3, 1)).tolist() == []
    assert t.slice(slice(2, 2)).shape == (0,)
    assert t.slice(range(1, 4)).tolist() == [1, 2, 3]
    assert t.slice(-1).tolist() == [4]
    m = ember.tensor(np.arange(12).reshape(3, 4))
    assert m.slice((Ellipsis, 1)).tolist() == [[1], [5], [9]]
    assert m.slice([1]).tolist() == [[4, 5, 6, 7]]


def test_slice_gradient_against_torch(rng):
    base = rng.standard_normal((5, 4))
    x, xt = f64(base, True), torch.tensor(base, requires_grad=True)
    out = x.slice(ember.s[1:5:2, -3:])
    outt = xt[1:5:2, -3:]
    seed = rng.standard_normal(out.shape)
    out.backward(f64(seed))
    outt.backward(torch.tensor(seed))
    assert_close(out, outt.detach())
    assert_close(x.grad, xt.grad)


@pytest.mark.parametrize("ranges, error, match", [
    ((slice(None),) * 3, DimensionError, r"slice: 3 ranges for a tensor of rank 2"),
    ((None,), InvalidParameterError, r"slice: range None for dim 0 is not a range"),
    (((0, 2), (1, 3)), InvalidParameterError, r"range \(0, 2\) for dim 0 is not a range"),
    (ember.s[::0], InvalidParameterError, r"slice: slice .* has step 0"),
    (5, DimensionError, r"slice: index 5 is out of range for dim 0 of size 3"),
    ((Ellipsis, Ellipsis), InvalidParameterError, r"2 Ellipsis"),
    (1.5, InvalidParameterError, r"range 1.5 for dim 0"),
])
def test_slice_bad_ranges(ranges, error, match):
    t = ember.tensor(np.ones((3, 4)))
    before = snapshot(t)
    with pytest.raises(error, match=match):
        t.slice(ranges)
    assert_unchanged([t], before)


def test_slice_dim_spec_examples():
    tensor = ember.tensor(np.zeros((3, 4, 5)), dtype="float32")
    assert tensor.slice_dim(1, slice(1, 3)).shape == (3, 2, 5)
    assert tensor.slice_dim(2, ember.s[0:5:2]).shape == (3, 4, 3)
    assert tensor.slice_dim(1, ember.s[::-1]).shape == (3, 4, 5)
    assert tensor.slice_dim(0, ember.s[2::3]).shape == (1, 4, 5)
    assert tensor.slice_dim(0, 1).shape == (1, 4, 5)


def test_slice_dim_values_and_errors(rng):
    base = rng.standard_normal((3, 4))
    t = ember.from_numpy(base)
    assert_close(t.slice_dim(-1, ember.s[::-2]), base[:, ::-2])
    assert shares(t.slice_dim(0, 2), base) or not has_views(t)
    before = snapshot(t)
    with pytest.raises(DimensionError, match=r"slice_dim: dim 2 is out of range"):
        t.slice_dim(2, slice(None))
    with pytest.raises(InvalidParameterError, match=r"slice_dim: range \[0, 1\] for dim 1"):
        t.slice_dim(1, [0, 1])
    with pytest.raises(DimensionError, match=r"slice_dim: index 4 is out of range for dim 1"):
        t.slice_dim(1, 4)
    assert_unchanged([t], before)


def test_select_dim_spec_example_and_torch(rng):
    tensor = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert tensor.select_dim(0, 1).tolist() == [4.0, 5.0, 6.0]
    assert tensor.select_dim(1, 1).tolist() == [2.0, 5.0]
    base = rng.standard_normal((3, 4, 2))
    x, xt = f64(base, True), torch.tensor(base, requires_grad=True)
    out, outt = x.select_dim(-2, -1), xt.select(-2, -1)
    assert_close(out, outt.detach())
    seed = rng.standard_normal(out.shape)
    out.backward(f64(seed))
    outt.backward(torch.tensor(seed))
    assert_close(x.grad, xt.grad)
    before = snapshot(tensor)
    with pytest.raises(DimensionError, match=r"select_dim: index 3 is out of range for dim 1 of size 3"):
        tensor.select_dim(1, 3)
    with pytest.raises(DimensionError, match=r"select_dim: dim -3 is out of range"):
        tensor.select_dim(-3, 0)
    with pytest.raises(InvalidParameterError, match=r"select_dim: index must be an int"):
        tensor.select_dim(0, 0.5)
    assert_unchanged([tensor], before)


def test_narrow_spec_example():
    tensor = ember.tensor([[3.0, 4.9, 2.0], [2.0, 1.9, 3.0], [6.0, 1.5, 7.0], [3.0, 4.9, 9.0]],
                          dtype="float64")
    narrowed = tensor.narrow(0, 1, 3)
    assert narrowed.tolist() == [[2.0, 1.9, 3.0], [6.0, 1.5, 7.0], [3.0, 4.9, 9.0]]
    assert narrowed.dims() == [3, 3]


@pytest.mark.parametrize("shape", [s for s in SHAPES if len(s) >= 1])
@pytest.mark.parametrize("dtype", ["float32", "int16", "bool"])
def test_narrow_against_torch(shape, dtype, rng):
    arr = np.asarray(random_array(rng, shape, dtype))
    for _, base in layouts(arr):
        t = ember_tensor(base)
        tt = to_torch(t)
        for dim in range(-len(shape), len(shape)):
            n = shape[dim]
            for start, length in [(0, n), (0, 0), (n, 0), (n // 2, n - n // 2), (-n, n)]:
                out = t.narrow(dim, start, length)
                assert_close(out, tt.narrow(dim, start, length))
                if out.numel():
                    assert_view(out, t, base, what=f"narrow({dim}, {start}, {length})")


def test_narrow_gradient_against_torch(rng):
    base = rng.standard_normal((4, 3))
    x, xt = f64(base, True), torch.tensor(base, requires_grad=True)
    out, outt = x.narrow(0, -3, 2), xt.narrow(0, -3, 2)
    seed = rng.standard_normal(out.shape)
    out.backward(f64(seed))
    outt.backward(torch.tensor(seed))
    assert_close(x.grad, xt.grad)


@pytest.mark.parametrize("args, error, match", [
    ((2, 0, 1), DimensionError, r"narrow: dim 2 is out of range"),
    ((0, 5, 0), DimensionError, r"narrow: start 5 is out of range for dim 0 of size 4; expected a start in \[-4, 4\]"),
    ((0, -5, 1), DimensionError, r"narrow: start -5 is out of range"),
    ((0, 1, -1), InvalidParameterError, r"narrow: length -1 is negative"),
    ((0, 2, 3), DimensionError, r"narrow: start 2 \+ length 3 exceeds the size 4 of dim 0"),
    ((0, 1.0, 1), InvalidParameterError, r"narrow: start must be an int"),
    ((0, 1, None), InvalidParameterError, r"narrow: length must be an int"),
])
def test_narrow_bad_arguments(args, error, match):
    t = ember.tensor(np.ones((4, 3)))
    before = snapshot(t)
    with pytest.raises(error, match=match):
        t.narrow(*args)
    assert_unchanged([t], before)


# -- slice_assign, slice_fill -----------------------------------------------------------------

def test_slice_assign_spec_examples():
    tensor = ember.tensor(np.zeros((4, 6)), dtype="float32")
    out = tensor.slice_assign([slice(1, 3), slice(2, 5)], ember.tensor(np.ones((2, 3)), dtype="float32"))
    expected = np.zeros((4, 6))
    expected[1:3, 2:5] = 1
    assert_close(out, expected)
    assert tensor.numpy().sum() == 0
    tensor = ember.tensor(np.zeros(10), dtype="float32")
    out = tensor.slice_assign(ember.s[0:10:2], ember.tensor(np.ones(5), dtype="float32"))
    assert out.tolist() == [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    tensor = ember.tensor([0.0, 1.0, 2.0, 3.0, 4.0])
    out = tensor.slice_assign(ember.s[::-1], ember.tensor([10.0, 11.0, 12.0, 13.0, 14.0]))
    assert out.tolist() == [14, 13, 12, 11, 10]
    tensor = ember.tensor(np.zeros((4, 6, 8)), dtype="float32")
    out = tensor.slice_assign(ember.s[0:4:2, ::2, -3:], ember.tensor(np.ones((2, 3, 3)), dtype="float32"))
    expected = np.zeros((4, 6, 8))
    expected[0:4:2, ::2, -3:] = 1
    assert_close(out, expected)
    tensor = ember.tensor(np.zeros((8, 8)), dtype="float32")
    out = tensor.slice_assign(ember.s[::2, ::2], ember.tensor(np.ones((4, 4)), dtype="float32"))
    expected = np.zeros((8, 8))
    expected[::2, ::2] = 1
    assert_close(out, expected)


@given(shapes.filter(lambda s: len(s) >= 1), st.data())
def test_slice_assign_matches_numpy_with_gradients(shape, data):
    rng = np.random.default_rng(4)
    specs = tuple(slice(data.draw(opt_bound), data.draw(opt_bound), data.draw(steps)) for _ in shape)
    base = rng.standard_normal(shape)
    region = base[specs].shape
    vals = rng.standard_normal(region)
    x, v = f64(base, True), f64(vals, True)
    out = x.slice_assign(specs, v)
    expected = base.copy()
    expected[specs] = vals
    assert_close(out, expected)
    seed = rng.standard_normal(shape)
    out.backward(f64(seed))
    gx = seed.copy()
    gx[specs] = 0
    assert_close(x.grad, gx)
    assert_close(v.grad, seed[specs])
    assert_close(x, base)


def test_slice_assign_gradient_against_torch(rng):
    base, vals = rng.standard_normal((5, 4)), rng.standard_normal((2, 4))
    x, v = f64(base, True), f64(vals, True)
    xt, vt = torch.tensor(base, requires_grad=True), torch.tensor(vals, requires_grad=True)
    out = x.slice_assign(ember.s[1:5:2], v)
    outt = xt.clone()
    outt[1:5:2] = vt
    seed = rng.standard_normal((5, 4))
    out.backward(f64(seed))
    outt.backward(torch.tensor(seed))
    assert_close(out, outt.detach())
    assert_close(x.grad, xt.grad)
    assert_close(v.grad, vt.grad)


def test_slice_assign_finite_differences(rng):
    base, vals = rng.standard_normal((3, 3)), rng.standard_normal((2, 1))
    seed = rng.standard_normal((3, 3))
    v = f64(vals, True)
    f64(base).slice_assign(ember.s[::-2, 1:2], v).backward(f64(seed))

    def f(vv):
        y = base.copy()
        y[::-2, 1:2] = vv
        return (y * seed).sum()

    eps = 1e-6
    numeric = np.zeros_like(vals)
    for idx in np.ndindex(vals.shape):
        hi, lo = vals.copy(), vals.copy()
        hi[idx] += eps
        lo[idx] -= eps
        numeric[idx] = (f(hi) - f(lo)) / (2 * eps)
    assert_close(v.grad, numeric, rtol=1e-6, atol=1e-8)


def test_slice_assign_casts_within_the_kind_and_keeps_gradient():
    x = ember.tensor([0.0, 0.0, 0.0])
    v = f64([1.5], True)
    out = x.slice_assign(slice(1, 2), v)
    assert out.dtype is ember.float32 and out.tolist() == [0.0, 1.5, 0.0]
    out.backward(ember.tensor([1.0, 2.0, 3.0]))
    assert v.grad.dtype is ember.float64 and v.grad.tolist() == [2.0]
    ints = ember.tensor([1, 2, 3], dtype="int8").slice_assign(ember.s[:1], ember.tensor([100]))
    assert ints.dtype is ember.int8 and ints.tolist() == [100, 2, 3]


def test_slice_assign_bad_inputs():
    t = ember.tensor(np.zeros((4, 6)))
    v = ember.tensor(np.ones((2, 4)))
    before = snapshot(t, v)
    with pytest.raises(ShapeMismatchError, match=r"slice_assign: values have shape \(2, 4\), expected \(2, 3\)"):
        t.slice_assign([slice(1, 3), slice(2, 5)], v)
    with pytest.raises(KindError, match=r"slice_assign: values are a int tensor \(dtype int64\); expected a float"):
        t.slice_assign([slice(1, 3)], ember.tensor(np.ones((2, 6), dtype=np.int64)))
    with pytest.raises(InvalidParameterError, match=r"slice_assign: values must be a Tensor, got float"):
        t.slice_assign([slice(1, 3)], 1.0)
    with pytest.raises(DimensionError, match=r"slice_assign: 3 ranges for a tensor of rank 2"):
        t.slice_assign([slice(None)] * 3, v)
    with pytest.raises(InvalidParameterError, match=r"step 0"):
        t.slice_assign(ember.s[::0], v)
    assert_unchanged([t, v], before)


def test_slice_fill_spec_examples():
    t = ember.tensor(np.zeros(10), dtype="float32")
    assert t.slice_fill(slice(2, 5), 1.0).tolist() == [0, 0, 1, 1, 1, 0, 0, 0, 0, 0]
    t2 = ember.tensor(np.zeros((4, 6)), dtype="float32")
    expected = np.zeros((4, 6))
    expected[1:3, 2:5] = -1
    assert_close(t2.slice_fill([slice(1, 3), slice(2, 5)], -1.0), expected)
    assert t.slice_fill(slice(-3, None), 2.0).tolist() == [0, 0, 0, 0, 0, 0, 0, 2, 2, 2]
    t3 = ember.tensor(np.ones((4, 6, 8)), dtype="float32")
    expected = np.ones((4, 6, 8))
    expected[1:3, :, -2:] = 0
    assert_close(t3.slice_fill(ember.s[1:3, :, -2:], 0.0), expected)
    assert t.slice_fill(ember.s[0:10:2], 1.0).tolist() == [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    assert t.numpy().sum() == 0


@pytest.mark.half_precision
def test_slice_fill_dtypes_gradient_and_errors(rng):
    assert ember.tensor([1, 2, 3]).slice_fill(ember.s[::-2], 2.7).tolist() == [2, 2, 2]
    assert ember.tensor([True, True]).slice_fill(0, False).tolist() == [False, True]
    b = ember.tensor([1.0, 2.0]).cast("bfloat16").slice_fill(1, 3)
    assert b.dtype is ember.bfloat16 and b.tolist() == [1.0, 3.0]
    x = f64(rng.standard_normal((3, 2)), True)
    x.slice_fill(ember.s[1:], 5.0).backward(f64(np.ones((3, 2))))
    assert x.grad.tolist() == [[1, 1], [0, 0], [0, 0]]
    u = ember.tensor([1, 2], dtype="uint8")
    before = snapshot(u)
    with pytest.raises(InvalidParameterError, match=r"slice_fill: value 300 does not fit the tensor's dtype uint8"):
        u.slice_fill(0, 300)
    with pytest.raises(InvalidParameterError, match=r"slice_fill: value nan cannot be stored in a uint8"):
        u.slice_fill(0, float("nan"))
    with pytest.raises(InvalidParameterError, match=r"slice_fill: value must be a number, got Tensor"):
        u.slice_fill(0, ember.tensor(1))
    with pytest.raises(DimensionError, match=r"slice_fill: index 2 is out of range"):
        u.slice_fill(2, 1)
    assert_unchanged([u], before)


# -- __setitem__, inplace, extract ------------------------------------------------------------

@given(shape_and_key(), st.sampled_from(["scalar", "full", "broadcast"]))
def test_setitem_matches_numpy(sk, value_kind):
    shape, key = sk
    rng = np.random.default_rng(5)
    base = rng.standard_normal(shape)
    region = base[key].shape if np.ndim(base[key]) else ()
    if value_kind == "scalar":
        value, np_value = 2.5, 2.5
    elif value_kind == "full":
        np_value = rng.standard_normal(region)
        value = f64(np_value)
    else:
        np_value = rng.standard_normal(region[-1:] if region else ())
        value = f64(np_value)
    t = f64(base)
    view = t[...]
    t[key] = value
    expected = base.copy()
    expected[key] = np_value
    assert_close(t, expected)
    assert_close(view, expected)  # a view sees the write, as NumPy's and PyTorch's


@pytest.mark.half_precision
def test_setitem_casts_like_torch_and_takes_lists():
    t = ember.tensor([[1, 2, 3], [4, 5, 6]], dtype="int32")
    tt = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.int32)
    t[0] = ember.tensor([1.7, -2.7, 3.2])
    tt[0] = torch.tensor([1.7, -2.7, 3.2])
    t[1, ::2] = 9.9
    tt[1, ::2] = 9.9
    assert_close(t, tt)
    b = ember.tensor([True, False, True])
    b[1:] = [1, 0]
    assert b.tolist() == [True, True, False] and b.dtype is ember.bool_
    f = ember.tensor(np.zeros((2, 3)), dtype="float16")
    f[:, 1] = ember.tensor([[1.0, 2.0]])[0]
    f[0] = np.ones((1, 3))
    assert f.dtype is ember.float16 and f.tolist() == [[1, 1, 1], [0, 2, 0]]


def test_setitem_gradient_against_torch(rng):
    base, vals = rng.standard_normal((4, 3)), rng.standard_normal(3)
    a = f64(base, True)
    v = f64(vals, True)
    at, vt = torch.tensor(base, requires_grad=True), torch.tensor(vals, requires_grad=True)
    x = a.clone()
    x[1:4:2] = v
    xt = at.clone()
    xt[1:4:2] = vt
    seed = rng.standard_normal((4, 3))
    x.backward(f64(seed))
    xt.backward(torch.tensor(seed))
    assert_close(x, xt.detach())
    assert_close(a.grad, at.grad)
    assert_close(v.grad, vt.grad)
    assert_close(a, base)


def test_setitem_gradient_of_broadcast_value_with_leading_ones(rng):
    v = f64(rng.standard_normal((1, 1, 3)), True)
    x = f64(np.zeros((2, 4, 3)))
    x[:, 1:3] = v
    x.backward(f64(np.ones((2, 4, 3))))
    assert v.grad.shape == (1, 1, 3) and v.grad.tolist() == [[[4.0, 4.0, 4.0]]]
    w = f64([[1.0, 2.0]], True)
    y = f64(np.zeros((3, 2)))
    y[0] = w
    y.backward(f64(np.ones((3, 2))))
    assert w.grad.tolist() == [[1.0, 1.0]]


def test_setitem_on_leaf_requiring_grad():
    w = f64([1.0, 2.0, 3.0], True)
    before = snapshot(w)
    with pytest.raises(GraphError, match=r"__setitem__: the tensor is a leaf that requires grad"):
        w[0] = 5.0
    assert_unchanged([w], before)
    with ember.no_grad():
        w[0] = 5.0
    assert w.tolist() == [5.0, 2.0, 3.0] and w.is_require_grad() and w.is_leaf
    w[1:].backward(f64([1.0, 1.0]))
    assert w.grad.tolist() == [0.0, 1.0, 1.0]


def test_setitem_bad_values():
    t = ember.tensor(np.zeros((2, 3)))
    before = snapshot(t)
    with pytest.raises(ShapeMismatchError, match=r"__setitem__: value of shape \(2,\) does not broadcast to the selection's shape \(2, 3\)"):
        t[:] = ember.tensor([1.0, 2.0])
    with pytest.raises(ShapeMismatchError, match=r"value of shape \(2, 3\) does not broadcast"):
        t[0] = ember.tensor(np.ones((2, 3)))
    with pytest.raises(DimensionError, match=r"__setitem__: index 2 is out of range"):
        t[2] = 1.0
    with pytest.raises(KindError, match=r"__setitem__: data 'x' cannot become a tensor"):
        t[0] = "x"
    u = ember.tensor([1, 2], dtype="int8")
    with pytest.raises(InvalidParameterError, match=r"__setitem__: value 1000 does not fit"):
        u[0] = 1000
    with pytest.raises(InvalidParameterError, match=r"value inf cannot be stored in a int8"):
        u[0] = float("inf")
    assert_unchanged([t], before)
    assert u.tolist() == [1, 2]


def test_setitem_advanced_keys_are_delegated(monkeypatch):
    import ember.ops.slicing as slicing
    t = ember.tensor([1, 2, 3])
    view = t[:]
    calls = []

    def fake(self, key, value):
        calls.append((key, value))
        return ember.tensor([7, 8, 9])

    monkeypatch.setattr(slicing, "advanced_setitem", fake)
    idx = ember.tensor([0])
    t[idx] = 5
    assert calls == [(idx, 5)]
    assert t.tolist() == [7, 8, 9] and view.tolist() == [7, 8, 9]


def test_inplace_rebinds_and_keeps_other_tensors():
    t = ember.tensor([1.0, 2.0, 3.0])
    view = t[1:]
    assert t.inplace(lambda x: x[::-1]) is None
    assert t.tolist() == [3.0, 2.0, 1.0] and view.tolist() == [2.0, 3.0]
    x = f64([1.0, 2.0], True)
    y = x[...]
    y.inplace(lambda z: z[::-1])
    y.backward(f64([10.0, 20.0]))
    assert x.grad.tolist() == [20.0, 10.0]


def test_inplace_on_leaf_and_bad_fn():
    w = f64([1.0, 2.0], True)
    with pytest.raises(GraphError, match=r"inplace: the tensor is a leaf that requires grad"):
        w.inplace(lambda z: z[::-1])
    assert w.tolist() == [1.0, 2.0] and w.is_leaf
    with ember.no_grad():
        w.inplace(lambda z: z[::-1])
    assert w.tolist() == [2.0, 1.0] and w.is_require_grad()
    with pytest.raises(InvalidParameterError, match=r"inplace: fn must be callable, got int"):
        w.inplace(3)
    with pytest.raises(InvalidParameterError, match=r"inplace: fn returned list; expected a Tensor"):
        w.inplace(lambda z: [1])
    assert w.tolist() == [2.0, 1.0]


def test_extract_leaves_an_empty_placeholder():
    t = ember.tensor([[1, 2], [3, 4]], dtype="int32")
    v = t.extract()
    assert v.tolist() == [[1, 2], [3, 4]] and v.dtype is ember.int32
    assert t.shape == (0, 0) and t.dtype is ember.int32 and t.numel() == 0
    z = ember.tensor(3.0)
    assert z.extract().tolist() == 3.0 and z.shape == (0,)
    w = f64([1.0, 2.0], True)
    moved = w.extract()
    assert moved.is_require_grad() and not w.is_tracked()
    moved[::-1].backward(f64([1.0, 5.0]))
    assert moved.grad.tolist() == [5.0, 1.0] and w.grad is None


# -- the fast path of plain slices -----------------------------------------------------------------

PLAIN_KEYS = [slice(1, None), (slice(None), slice(None, None, 2)), (slice(1, 3), slice(None, None, -1)),
              (slice(-2, None, -1), slice(0, 1), slice(None, None, 3)), (), slice(5, 9),
              (slice(None, None, -2),), (slice(2, 0), slice(None, -1)), 0, -1, (3, 2, -5),
              (-4, slice(None, None, -1)), (slice(1, None), -3, 4)]


def _numpy_ints(item):
    """The same key element spelled with NumPy ints (which the general parser handles)."""
    if isinstance(item, int):
        return np.int64(item)
    return slice(*(None if v is None else np.int64(v) for v in (item.start, item.stop, item.step)))


@pytest.mark.parametrize("key", PLAIN_KEYS, ids=str)
@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_plain_slices_equal_the_general_path(key, dtype):
    arr = np.asarray(random_array(np.random.default_rng(3), (4, 3, 5), dtype))
    items = key if isinstance(key, tuple) else (key,)
    for _, base in layouts(arr):
        t = ember_tensor(base)
        before = snapshot(t)
        fast = t[key]
        slow = t[items + (Ellipsis,)]  # an Ellipsis takes the general parser
        via_numpy_ints = t[tuple(_numpy_ints(it) for it in items)]
        for other in (slow, via_numpy_ints):
            assert fast.shape == other.shape and fast.dtype is other.dtype
            np.testing.assert_array_equal(fast.numpy(), other.numpy())
        np.testing.assert_array_equal(fast.numpy(), base[key])
        if fast.numel():
            assert_view(fast, t, base, has_negative_step(key), f"{key}")
        assert_unchanged([t], before)


def test_plain_slices_keep_the_autodiff_state_and_gradient(rng):
    x = rng.standard_normal((4, 5))
    for ad in ("none", "balanced"):
        t = f64(x).with_gradient_checkpointing_strategy(ad)
        assert t[1:, ::-2].gradient_checkpointing_strategy() == ad and not t[1:].is_tracked()
    assert not f64(x).without_autodiff()[::2].is_autodiff()
    w = f64(x, requires_grad=True)
    seed = rng.standard_normal((3, 3))
    w[1:, ::-2].backward(f64(seed))
    wt = torch.from_numpy(x).requires_grad_(True)
    wt.flip(1)[1:, ::2].backward(torch.from_numpy(seed))
    assert_close(w.grad, wt.grad)
    w = f64(x, requires_grad=True)
    seed = rng.standard_normal(2)
    w[-1, 1::2].backward(f64(seed))
    wt = torch.from_numpy(x).requires_grad_(True)
    wt[-1, 1::2].backward(torch.from_numpy(seed))
    assert_close(w.grad, wt.grad)


@pytest.mark.parametrize("key, error, match", [
    ((slice(None), slice(None)), DimensionError, r"__getitem__: 2 indices for a tensor of rank 1"),
    ((slice(0, 2, 0),), InvalidParameterError, r"slice slice\(0, 2, 0\) has step 0"),
    ((slice(None, True),), InvalidParameterError, r"slice stop True"),
    ((slice(None, None, 2.0),), InvalidParameterError, r"slice step 2.0"),
    ((slice(None), 3), DimensionError, r"__getitem__: 2 indices for a tensor of rank 1"),
])
def test_plain_looking_bad_slices_raise(key, error, match):
    t = ember.tensor([1.0, 2.0, 3.0])
    before = snapshot(t)
    with pytest.raises(error, match=match):
        t[key]
    assert_unchanged([t], before)


def test_plain_int_keys_out_of_range_raise():
    t = ember.tensor(np.zeros((2, 3)))
    for key, match in [((slice(None), 3), r"index 3 is out of range for dim 1 of size 3"),
                       ((-3, 0), r"index -3 is out of range for dim 0 of size 2"),
                       ((0, slice(None, None, -1), 0), r"3 indices for a tensor of rank 2")]:
        with pytest.raises(DimensionError, match=match):
            t[key]
    assert t.tolist() == [[0.0] * 3] * 2


@pytest.mark.layout
def test_basic_views_share_the_buffer_on_every_backend():
    """Basic keys with positive steps give views of the input's buffer on any backend (seen
    through the backend's own shares_memory kernel); a negative step reads the same values."""
    t = ember.tensor([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]])
    be = t._device.backend
    for v in (t[1], t[:, 1:3], t[0, ::2], t.slice(ember.s[0:1, 1:]), t.narrow(1, 1, 2),
              t.select_dim(1, 2)):
        assert be.shares_memory(v._data, t._data)
    assert t[:, ::-2].tolist() == [[3.0, 1.0], [7.0, 5.0]]
    assert t[::-1, 3:0:-2].tolist() == [[7.0, 5.0], [3.0, 1.0]]
    parts = t.split(2, dim=1)
    assert all(be.shares_memory(p._data, t._data) for p in parts)
