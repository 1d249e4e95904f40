"""Tests of the Tensor core (ember/_tensor.py and the data-out basics): the constructor, metadata,
``numpy()``, ``contiguous()`` and ``cast`` between every pair of dtypes against PyTorch.

Casting semantics, as PyTorch and NumPy: float to int truncates toward zero; int to a narrower
int wraps around (two's complement); anything to bool tests ``!= 0`` (NaN is True); float to a
narrower float rounds to nearest (overflow gives inf). Casting NaN or an out-of-range float to an
int is unspecified (it is undefined behaviour in C, and NumPy and PyTorch disagree), so these
tests never do it. Casts between float dtypes carry gradients.
"""

import numpy as np
import pytest
import torch

import ember
from ember import DimensionError, GraphError, InvalidParameterError, KindError, Tensor
from oracle import (SHAPES, TORCH_DTYPES, assert_close, ember_tensor, has_views, layouts,
                    on_device, random_array, to_torch)

NAMES = list(TORCH_DTYPES)
FLOATS = ["float64", "float32", "float16", "bfloat16"]
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]


# -- the constructor ----------------------------------------------------------------------------

@pytest.mark.parametrize("data, dtype, shape", [
    ([1, 2, 3], "int64", (3,)),
    ([1.0, 2.0], "float32", (2,)),
    ([1, 2.5], "float32", (2,)),
    ([[True, False]], "bool", (1, 2)),
    (3, "int64", ()),
    (3.5, "float32", ()),
    (False, "bool", ()),
    ([], "float32", (0,)),
    ([[], []], "float32", (2, 0)),
    (np.arange(3, dtype=np.int32), "int32", (3,)),
    (np.ones((2, 2), dtype=np.float64), "float64", (2, 2)),
    (np.float64(2.0), "float64", ()),
    (np.array(True), "bool", ()),
    ([np.int16(1), np.int16(2)], "int16", (2,)),
])
def test_constructor_kinds_vs_torch(data, dtype, shape):
    t = Tensor(data)
    assert t.dtype.name == dtype and t.shape == shape
    expected = torch.tensor(data)
    assert str(expected.dtype).replace("torch.", "") == dtype
    assert t.tolist() == expected.tolist()
    assert ember.tensor(data).dtype.name == dtype


@pytest.mark.half_precision
def test_constructor_dtype_and_flags():
    t = Tensor([1, 2], dtype="float64")
    assert t.dtype == ember.float64 and t.tolist() == [1.0, 2.0]
    assert Tensor([1.7, -1.7], dtype=ember.int32).tolist() == [1, -1]
    assert Tensor([1.0], requires_grad=True).is_require_grad()
    assert Tensor([1.0], device="cpu").device == "cpu"
    x = Tensor([1.0, 2.0])
    assert Tensor(x).tolist() == [1.0, 2.0]
    assert Tensor(x, dtype="float16").dtype == ember.float16


def test_constructor_copies_and_from_numpy_shares():
    a = np.arange(6.0).reshape(2, 3)
    t = Tensor(a)
    f = ember.from_numpy(a)
    assert not np.shares_memory(t.numpy(), a)
    # from_numpy shares the array where the device has views; JAX's device holds a copy
    assert np.shares_memory(f.numpy(), a) == has_views(f)
    a[0, 0] = 100.0
    assert t.tolist()[0][0] == 0.0
    assert f.tolist()[0][0] == (100.0 if has_views(f) else 0.0)
    assert ember.tensor(a).tolist()[0][0] == 100.0 and not np.shares_memory(ember.tensor(a).numpy(), a)


@pytest.mark.parametrize("data", [[[1, 2], [3]], [1, [2, 3]], [[[1]], [2]]])
def test_constructor_ragged(data):
    with pytest.raises(InvalidParameterError, match="Tensor: data is ragged .*expected a rectangular nesting"):
        Tensor(data)


@pytest.mark.parametrize("data", ["abc", ["a", "b"], [1, "a"], None, {"a": 1}, [object()],
                                  np.array(["x"]), np.zeros(2, dtype=np.clongdouble)])
def test_constructor_not_numbers(data):
    with pytest.raises(KindError, match="Tensor: data .*(cannot become a tensor|has no ember kind)"):
        Tensor(data)


def test_constructor_bad_dtype_and_device():
    with pytest.raises(InvalidParameterError, match="dtype: 'float128' is not an ember dtype"):
        Tensor([1.0], dtype="float128")
    with pytest.raises(ember.DeviceError, match="Tensor: device torch:cuda:0 is not available"):
        Tensor([1.0], device="cuda")
    with pytest.raises(KindError, match="require_grad: only float tensors can require grad"):
        Tensor([1], requires_grad=True)


# -- metadata -----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
def test_metadata(shape):
    t = ember.zeros(shape, dtype="int16")
    tt = torch.zeros(shape, dtype=torch.int16)
    assert t.shape == tuple(tt.shape) and type(t.shape) is tuple
    assert t.dims() == list(shape)
    assert t.ndim == t.rank() == t.dim() == tt.dim()
    assert t.numel() == tt.numel()
    assert t.size() == tuple(tt.size())
    for d in range(-len(shape), len(shape)):
        assert t.size(d) == tt.size(d)
    assert t.dtype is ember.int16 and t.kind == "int"
    assert t.device is ember.get_default_device()
    t = ember.zeros(shape, dtype="int16", device="cpu")
    assert t.device == "cpu" and t.device == ember.Device("cpu") and str(t.device) == "cpu"
    assert repr(t.device) == "Device('cpu')"
    if shape:
        assert len(t) == shape[0]
    assert t.is_leaf


def test_kinds():
    assert ember.zeros(1).kind == "float"
    assert ember.zeros(1, dtype="uint8").kind == "int"
    assert ember.zeros(1, dtype="bool").kind == "bool"


def test_metadata_errors():
    t = ember.zeros(2, 3)
    with pytest.raises(DimensionError, match=r"size: dim 2 is out of range for a tensor of rank 2; expected a dim in \[-2, 1\]"):
        t.size(2)
    with pytest.raises(DimensionError, match="size: dim 0 is out of range for a tensor of rank 0"):
        ember.zeros(()).size(0)
    with pytest.raises(InvalidParameterError, match="size: dim must be an int, got float 1.0"):
        t.size(1.0)
    with pytest.raises(KindError, match=r"len\(\) of a 0-d tensor"):  # a TypeError
        len(ember.zeros(()))
    with pytest.raises(InvalidParameterError, match="device: 'tpu' is not a device name"):
        ember.Device("tpu")


def test_hash_is_identity():
    a, b = ember.zeros(2), ember.zeros(2)
    d = {a: 1, b: 2}
    assert d[a] == 1 and d[b] == 2 and hash(a) == id(a)


# -- layout: numpy(), contiguous() --------------------------------------------------------------

@pytest.mark.numpy_only  # NumPy's read-only views
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "bfloat16"])
def test_numpy_is_read_only_zero_copy(rng, dtype):
    for name, arr in layouts(np.asarray(random_array(rng, (3, 4), dtype))):
        t = ember.from_numpy(arr)
        if dtype == "bfloat16":
            t = t.cast("bfloat16")
            arr = t.numpy()
        v = t.numpy()
        assert np.shares_memory(v, arr) and not v.flags.writeable
        assert v.strides == arr.strides
        with pytest.raises(ValueError):
            v[0, 0] = v[1, 1]
        c = t.numpy(copy=True)
        assert c.flags.writeable and c.flags.c_contiguous and not np.shares_memory(c, arr)
        c[...] = c[0, 0]
        np.testing.assert_array_equal(t.numpy(), arr)
        assert t.is_contiguous() == arr.flags.c_contiguous, name


@pytest.mark.parametrize("shape", [(3, 4), (5,), (2, 3, 4), (0, 3)])
def test_contiguous(rng, shape):
    for name, arr in layouts(rng.standard_normal(shape)):
        t = ember.from_numpy(arr)
        c = t.contiguous()
        assert c.is_contiguous()
        np.testing.assert_array_equal(c.numpy(), arr)
        if arr.flags.c_contiguous:
            assert c is t
        else:
            assert not np.shares_memory(c.numpy(), arr)
        x = ember_tensor(arr, requires_grad=True)
        seed = rng.standard_normal(shape)
        y = x.contiguous()
        if y is not x:
            y.backward(ember.tensor(seed))
            np.testing.assert_array_equal(x.grad.numpy(), seed)


def test_tolist_vs_torch(rng):
    for dtype in on_device(NAMES):
        for shape in SHAPES:
            arr = np.asarray(random_array(rng, shape, dtype))
            t = ember_tensor(arr, "bfloat16" if dtype == "bfloat16" else None)
            assert t.tolist() == to_torch(t).tolist()


# -- cast ---------------------------------------------------------------------------------------

def _cast_input(rng, src, dst):
    """Values of ``src`` whose cast to ``dst`` is specified (no NaN or out-of-range float to int)."""
    shape = (4, 6)
    if src == "bool":
        return rng.random(shape) < 0.5
    if src in UNSIGNED:
        return rng.integers(0, 250, size=shape).astype(src)
    if src.startswith("int"):
        return rng.integers(-120, 120, size=shape).astype(src)
    values = rng.uniform(-100, 100, size=shape)
    if dst in UNSIGNED:
        values = np.abs(values)
    if dst == "bool" or dst in FLOATS:
        values[0, :3] = [0.0, -0.0, np.nan]
    if dst in FLOATS:
        values[1, :2] = [np.inf, -np.inf]
    if dst in ("float16", "bfloat16") or src in ("float16", "bfloat16"):
        values[1, 2] = 3e4
    values[2, :2] = [0.5, -0.5] if dst not in UNSIGNED else [0.5, 0.0]
    if src == "bfloat16":
        return values.astype(np.float32)
    return values.astype(src)


@pytest.mark.parametrize("src", NAMES)
@pytest.mark.parametrize("dst", NAMES)
def test_cast_all_pairs_vs_torch(rng, src, dst):
    arr = _cast_input(rng, src, dst)
    for _, a in layouts(arr):
        t = ember_tensor(a, "bfloat16" if src == "bfloat16" else None)
        before = t.numpy().copy()
        out = t.cast(dst)
        expected = to_torch(t).to(TORCH_DTYPES[dst])
        assert out.dtype.name == dst
        assert_close(out, expected)
        assert t.to(dst).dtype.name == dst
        np.testing.assert_array_equal(t.numpy().astype(np.float64), before.astype(np.float64))


def test_cast_same_dtype_is_identity():
    t = ember.tensor([1.0, 2.0])
    assert t.cast("float32") is t and t.cast(ember.float32) is t


@pytest.mark.parametrize("src", FLOATS)
@pytest.mark.parametrize("dst", FLOATS)
def test_cast_gradient_vs_torch(rng, src, dst):
    if src == dst:
        return
    arr = rng.standard_normal((3, 4))
    seed = rng.standard_normal((3, 4))
    x = ember.tensor(arr, dtype="float64").cast(src).detach().require_grad()
    y = x.cast(dst)
    assert y.is_tracked()
    y.backward(ember.tensor(seed, dtype="float64").cast(dst))
    xt = to_torch(x, requires_grad=True)
    yt = xt.to(TORCH_DTYPES[dst])
    yt.backward(to_torch(ember.tensor(seed, dtype="float64").cast(dst)))
    assert x.grad.dtype.name == src
    assert_close(x.grad, xt.grad)


def test_cast_gradient_finite_difference(rng):
    arr = rng.standard_normal(5)
    seed = rng.standard_normal(5)
    x = ember.tensor(arr, requires_grad=True, dtype="float64")
    x.cast("float32").backward(ember.tensor(seed, dtype="float32"))
    eps = 1e-3
    num = np.array([((ember.tensor(arr + eps * e).cast("float32").numpy().astype(np.float64)
                      - ember.tensor(arr - eps * e).cast("float32").numpy().astype(np.float64))
                     * seed).sum() / (2 * eps) for e in np.eye(5)])
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-3, atol=1e-3)


def test_cast_to_int_or_bool_has_no_gradient():
    x = ember.tensor([1.5, -2.0], requires_grad=True)
    for dst in ("int64", "bool", "uint8"):
        assert not x.cast(dst).is_tracked()
    assert not ember.tensor([1, 2]).cast("float32").is_tracked()


def test_cast_errors():
    t = ember.tensor([1.0])
    with pytest.raises(InvalidParameterError, match="dtype: 'float8' is not an ember dtype"):
        t.cast("float8")
    with pytest.raises(InvalidParameterError, match="is not an ember dtype"):
        t.cast(np.clongdouble)
    assert t.cast(np.complex64).dtype is ember.complex64  # complex: docs/complex.md
    assert t.tolist() == [1.0]


# -- record: the one-input and untracked fast paths --------------------------------------------

def _pass(g, needs, out):
    return (g,) * len(needs)


def _strategies():
    """Untracked float tensors carrying each autodiff state: "none", "balanced", disabled."""
    base = ember.tensor([1.0, -2.0, 3.0])
    return {"none": base, "balanced": base.with_gradient_checkpointing_strategy("balanced"),
            None: base.without_autodiff()}


@pytest.mark.parametrize("ad", ["none", "balanced", None])
def test_record_one_untracked_input_keeps_its_strategy(ad):
    from ember._tensor import record
    x = _strategies()[ad]
    data = np.array([4.0, 5.0, 6.0], dtype=np.float32)
    out = record(data, ember.float32, (x,), _pass, "probe")
    assert out._data is data and out.dtype is ember.float32
    assert out.gradient_checkpointing_strategy() == ad
    assert not out.is_tracked() and out.grad is None
    assert x.tolist() == [1.0, -2.0, 3.0]


@pytest.mark.parametrize("a_ad, b_ad, want", [
    ("none", "none", "none"), ("balanced", "balanced", "balanced"), (None, None, None),
    (None, "balanced", "balanced"), ("none", None, "none"),
])
def test_record_two_untracked_inputs_reconcile_strategies(a_ad, b_ad, want):
    from ember._tensor import record
    s = _strategies()
    out = record(np.zeros(3, np.float32), ember.float32, (s[a_ad], s[b_ad]), _pass, "probe")
    assert out.gradient_checkpointing_strategy() == want and not out.is_tracked()


def test_record_mixed_strategies_join_the_graph_or_raise():
    from ember._tensor import record
    s = _strategies()
    # constants only: "balanced" wins over the default "none"
    for inputs in ((s["none"], s["balanced"]), (s["balanced"], s[None], s["none"])):
        out = record(np.zeros(3), ember.float64, inputs, _pass, "probe")
        assert out.gradient_checkpointing_strategy() == "balanced" and not out.is_tracked()
    # a leaf and a constant: no recorded step, so still "balanced"; the step is recorded
    w = ember.tensor([1.0, 2.0, 3.0]).require_grad()
    out = record(np.zeros(3), ember.float64, (w, s["balanced"]), _pass, "probe")
    assert out.gradient_checkpointing_strategy() == "balanced" and out.is_tracked()
    # a recorded step decides for the constants and leaves that join it
    step = record(np.zeros(3), ember.float64, (w,), _pass, "step")
    out = record(np.zeros(3), ember.float64, (s["balanced"], step, w), _pass, "probe")
    assert out.gradient_checkpointing_strategy() == "none" and out.is_tracked()
    # two recorded steps of different strategies cannot be joined
    other = record(np.zeros(3), ember.float64, (w.with_gradient_checkpointing_strategy(
        "balanced"),), _pass, "other")
    with pytest.raises(GraphError, match="probe: operands come from recorded steps of different "
                                         "gradient-checkpointing strategies 'none' and 'balanced'"):
        record(np.zeros(3), ember.float64, (step, s["balanced"], other), _pass, "probe")


def test_record_no_inputs_and_numpy_scalars():
    from ember._tensor import record
    out = record(np.float64(2.5), ember.float64, (), _pass, "probe")
    assert type(out._data) is np.ndarray and out.shape == () and out.tolist() == 2.5
    assert out.gradient_checkpointing_strategy() == "none" and not out.is_tracked()


def test_record_tracked_inputs_build_a_node():
    from ember._tensor import record
    w = ember.tensor([1.0, 2.0], device="cpu").require_grad()  # NumPy arrays below
    c = ember.tensor([3.0, 4.0], device="cpu")
    one = record(np.ones(2), ember.float64, (w,), _pass, "one")
    assert one.is_tracked() and one._node.parents == (w._node,) and one._node.name == "one"
    two = record(np.ones(2), ember.float64, [c, w], _pass, "two")  # a list works as well
    assert two._node.parents == (None, w._node)
    seed = ember.tensor([0.5, -1.5], dtype="float64", device="cpu")
    two.backward(seed)
    assert w.grad.tolist() == [0.5, -1.5]
    # no step: no backward rule, an int result, grad mode off
    assert not record(np.ones(2), ember.float64, (w,), None, "x").is_tracked()
    assert not record(np.ones(2, np.int64), ember.int64, (w,), _pass, "x").is_tracked()
    with ember.no_grad():
        assert not record(np.ones(2), ember.float64, (w,), _pass, "x").is_tracked()


def _pass_arrays(g, needs):
    return (g,) * len(needs)


def test_record_arrays_balanced_strategy_takes_the_recompute_recipe():
    from ember._tensor import record, record_arrays
    w = ember.tensor([1.0, 2.0]).require_grad().with_gradient_checkpointing_strategy("balanced")
    recipe = (lambda a: a * 2, lambda arrays, out: _pass_arrays)
    out = record_arrays(np.array([2.0, 4.0]), ember.float64, (w,), _pass_arrays, "twice", recipe)
    assert out._node.recompute is recipe and out._node.backward is None
    assert not out._node.tensors
    plain = record(np.array([2.0, 4.0]), ember.float64, (w,), _pass, "twice")
    assert plain._node.recompute is None and plain._node.backward is _pass
    assert plain._node.tensors and plain._node.out is None
    kept = record(np.array([2.0, 4.0]), ember.float64, (w,), _pass, "twice", keep_out=True)
    assert kept._node.out.tolist() == [2.0, 4.0] and kept._node.out._node is None
