"""Tests of ember/ops/quantization.py: QuantScheme, QParams, quantize, quantize_dynamic,
dequantize, QuantizedTensor, and docs/quantization.md."""

import doctest
import os
import pickle
import warnings

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import ember
be = ember.Device("cpu").backend  # the NumPy backend's kernels, called directly
from oracle import SHAPES, assert_unchanged, ember_tensor, layouts, random_array, snapshot

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

QS = ember.QuantScheme
QP = ember.QParams
RANGES = {"q8s": (-127, 127), "q8f": (-128, 127), "q4s": (-7, 7), "q4f": (-8, 7),
          "q2s": (-1, 1), "q2f": (-2, 1)}
PARAMS = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


# -- references ------------------------------------------------------------------------------

def ref_quantize(x, scales, k, lo, hi):
    """NumPy reference: round half even of x / scale (float32, float64 for float64), clamped."""
    cdt = np.float64 if x.dtype == np.float64 else np.float32
    xs = np.asarray(x, dtype=cdt)
    s = np.asarray(scales).astype(cdt)
    if k is None:
        r = xs / s[0]
    else:
        r = (xs.reshape(-1, k) / s[:, None]).reshape(x.shape)
    r = np.asarray(np.clip(np.rint(r), lo, hi))
    r[np.isnan(r)] = 0
    return r.astype(np.int8)


def ref_dequantize(q, scales, k, dtype):
    cdt = np.float64 if np.dtype(dtype) == np.float64 else np.float32
    s = np.asarray(scales).astype(cdt)
    if k is None:
        out = q.astype(cdt) * s[0]
    else:
        out = (q.astype(cdt).reshape(-1, k) * s[:, None]).reshape(q.shape)
    return out.astype(dtype)


def ref_dynamic_scales(x, k, hi, param):
    a = np.abs(np.asarray(x, dtype=np.float64 if x.dtype == np.float64 else np.float32))
    a = np.where(np.isfinite(a), a, 0)
    m = np.array([a.max(initial=0)]) if k is None else a.reshape(-1, k).max(axis=1, initial=0)
    s = (m / a.dtype.type(hi)).astype(a.dtype).astype(param)
    return np.where(s.astype(np.float64) > 0, s, np.ones((), param)).astype(param)


def torch_qint8(x, scale):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q = torch.quantize_per_tensor(torch.from_numpy(np.array(x, copy=True)), scale, 0,
                                      torch.qint8)
        return q.int_repr().numpy(), q.dequantize().numpy()


def quant_data(rng, shape, dtype="float32", spread=4.0):
    return np.asarray((random_array(rng, shape, dtype) * spread).astype(dtype))


# -- QuantScheme -----------------------------------------------------------------------------

def test_scheme_defaults_builder_repr_eq_hash():
    s = QS.default()
    assert (s.value, s.level, s.block_size, s.mode, s.param) == ("q8s", "tensor", None,
                                                                 "symmetric", "f32")
    assert s == QS() and hash(s) == hash(QS()) and s.range == (-127, 127)
    b = s.with_value("Q4F").with_level(16).with_param("bf16").with_mode("symmetric")
    assert (b.value, b.level, b.block_size, b.param, b.range) == ("q4f", "block", 16, "bf16",
                                                                  (-8, 7))
    assert b == QS("q4f", level="block", block_size=16, param="bf16") == QS("q4f", 16, param="bf16")
    assert b != s and len({b, s, QS("q4f", block_size=16, level="block", param="bf16")}) == 2
    assert b.with_level("tensor") == QS("q4f", param="bf16")
    assert b.param_dtype == ember.bfloat16
    assert repr(s) == "QuantScheme(value='q8s', level='tensor', mode='symmetric', param='f32')"
    assert eval(repr(b), {"QuantScheme": QS}) == b
    for sc in (s, b):
        assert pickle.loads(pickle.dumps(sc)) == sc
    with pytest.raises(AttributeError):
        s.value = "q4s"
    assert s.value == "q8s"


@pytest.mark.parametrize("kwargs, param, text", [
    ({"value": "q16s"}, "value", "'q16s'"),
    ({"value": 8}, "value", "8"),
    ({"value": "e4m3"}, "value", "'e4m3'"),
    ({"level": "channel"}, "level", "'channel'"),
    ({"level": 0}, "block_size", "0"),
    ({"level": -4}, "block_size", "-4"),
    ({"level": 2.0}, "level", "2.0"),
    ({"level": True}, "level", "True"),
    ({"level": "block"}, "block_size", "needs block_size"),
    ({"level": "tensor", "block_size": 4}, "block_size", "4"),
    ({"level": 4, "block_size": 8}, "block_size", "disagree"),
    ({"mode": "affine"}, "mode", "'affine'"),
    ({"param": "f64"}, "param", "'f64'"),
])
def test_scheme_bad(kwargs, param, text):
    with pytest.raises(ember.InvalidParameterError) as info:
        QS(**kwargs)
    assert info.value.param == param
    assert "QuantScheme" in str(info.value) and text in str(info.value)


# -- QParams ---------------------------------------------------------------------------------

@pytest.mark.half_precision
def test_qparams_inputs_and_bad():
    assert QP(0.5).scales.tolist() == [0.5] and QP(0.5).scales.dtype == ember.float32
    assert QP([1, 2]).scales.dtype == ember.float32
    t = ember.tensor([0.5, 0.25], dtype="float16")
    assert QP(t).scales is t
    with pytest.raises(ember.KindError, match="QParams: scales must be a float tensor.*int64"):
        QP(ember.tensor([1, 2]))
    with pytest.raises(ember.KindError, match="bools"):
        QP([True])
    with pytest.raises(ember.ShapeMismatchError, match=r"shape \(1, 2\); expected a 1-D"):
        QP(ember.tensor([[0.5, 0.5]]))
    with pytest.raises(ember.ShapeMismatchError, match=r"shape \(\)"):
        QP(ember.tensor(0.5))
    with pytest.raises(AttributeError):
        QP(0.5).scales = None


# -- quantize against PyTorch and the reference ----------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
def test_quantize_q8f_tensor_matches_torch(shape):
    rng = np.random.default_rng(1)
    x = quant_data(rng, shape, spread=6.0)
    scale = 2.0 ** -4  # exactly invertible: torch multiplies by 1/scale, ember divides
    ti, td = torch_qint8(x, scale)
    for name, arr in layouts(x):
        t = ember_tensor(arr)
        before = snapshot(t)
        q = t.quantize(QS("q8f"), QP(scale))
        np.testing.assert_array_equal(q.int_repr().numpy(), ti, err_msg=name)
        np.testing.assert_array_equal(q.dequantize().numpy(), td, err_msg=name)
        assert q.int_repr().dtype == ember.int8 and q.shape == shape
        assert_unchanged([t], before)


def test_quantize_rounding_ties_and_infinities_match_torch():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 126.5, 127.5, -127.5, -128.5, 1e9, -1e9,
                  np.inf, -np.inf], dtype=np.float32)
    ti, td = torch_qint8(x, 1.0)
    q = ember.tensor(x).quantize(QS("q8f"), QP(1.0))
    np.testing.assert_array_equal(q.int_repr().numpy(), ti)
    np.testing.assert_array_equal(q.dequantize().numpy(), td)
    assert q.int_repr().tolist()[:6] == [0, 2, 2, 0, -2, -2]
    # the symmetric range stops at -127
    assert ember.tensor(x).quantize(QS("q8s"), QP(1.0)).int_repr().tolist()[-5:] == [
        -127, 127, -127, 127, -127]


def test_quantize_nan_is_zero():
    q = ember.tensor([float("nan"), 1.0]).quantize(QS("q4s"), QP(0.5))
    assert q.int_repr().tolist() == [0, 2]
    assert q.dequantize().tolist() == [0.0, 1.0]


@pytest.mark.parametrize("value", list(RANGES))
@pytest.mark.parametrize("shape, k", [((8,), None), ((3, 4), 2), ((2, 3, 6), 3), ((2, 3, 4), 4),
                                      ((5, 4), 1), ((), None), ((0,), None), ((2, 0), 2),
                                      ((0, 4), 2)])
def test_quantize_values_and_blocks_match_reference(value, shape, k):
    rng = np.random.default_rng(2)
    lo, hi = RANGES[value]
    x = quant_data(rng, shape)
    nscales = 1 if k is None else x.size // k
    scales = rng.uniform(0.05, 1.5, size=nscales).astype(np.float32)
    for name, arr in layouts(x):
        t = ember_tensor(arr)
        q = t.quantize(QS(value, level=k or "tensor"), QP(ember.tensor(scales)))
        qi = ref_quantize(x, scales, k, lo, hi)
        np.testing.assert_array_equal(q.int_repr().numpy(), qi, err_msg=name)
        np.testing.assert_array_equal(q.dequantize().numpy(),
                                      ref_dequantize(qi, scales, k, np.float32), err_msg=name)
        assert q.int_repr().numpy().min(initial=lo) >= lo
        assert q.int_repr().numpy().max(initial=hi) <= hi


@pytest.mark.parametrize("value", ["q8s", "q4f", "q2f"])
def test_block_quantize_matches_torch_fake_quantize(value):
    rng = np.random.default_rng(3)
    lo, hi = RANGES[value]
    x = quant_data(rng, (4, 3, 8))
    k = 4
    scales = (2.0 ** rng.integers(-5, 0, size=x.size // k)).astype(np.float32)
    want = torch.fake_quantize_per_channel_affine(
        torch.from_numpy(x.reshape(-1, k)), torch.from_numpy(scales),
        torch.zeros(scales.size, dtype=torch.int32), 0, lo, hi).numpy().reshape(x.shape)
    q = ember.tensor(x).quantize(QS(value, level=k), QP(ember.tensor(scales)))
    np.testing.assert_array_equal(q.dequantize().numpy(), want)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
@pytest.mark.parametrize("param", list(PARAMS))
@pytest.mark.half_precision
def test_quantize_dtypes_and_params(dtype, param):
    rng = np.random.default_rng(4)
    x = quant_data(rng, (3, 4), "float32")
    t = ember.tensor(x, dtype=dtype)
    xs = t.numpy().astype(np.float64 if dtype == "float64" else np.float32)
    scales = np.array([0.1, 0.3, 0.02, 0.7, 0.05, 0.2], dtype=np.float32)
    q = t.quantize(QS("q8s", level=2, param=param), QP(ember.tensor(scales)))
    cast = scales.astype(PARAMS[param])
    assert q.dtype.name == dtype and be.native_dtype(q.qparams().scales.dtype) == np.dtype(PARAMS[param])
    np.testing.assert_array_equal(q.qparams().scales.numpy(), cast)
    qi = ref_quantize(xs, cast, 2, -127, 127)
    np.testing.assert_array_equal(q.int_repr().numpy(), qi)
    want = ref_dequantize(qi, cast, 2, be.native_dtype(t.dtype))
    got = q.dequantize()
    assert got.dtype.name == dtype and not got.is_quantized
    np.testing.assert_array_equal(got.numpy(), want)


# -- quantize_dynamic ------------------------------------------------------------------------

@pytest.mark.parametrize("value", list(RANGES))
@pytest.mark.parametrize("shape, k", [((7,), None), ((3, 8), 4), ((2, 2, 6), 6), ((), None),
                                      ((0, 3), None), ((3, 0), 5), ((0, 6), 3)])
def test_quantize_dynamic_matches_reference_and_bounds(value, shape, k):
    rng = np.random.default_rng(5)
    lo, hi = RANGES[value]
    x = quant_data(rng, shape)
    for name, arr in layouts(x):
        q = ember_tensor(arr).quantize_dynamic(QS(value, level=k or "tensor"))
        scales = ref_dynamic_scales(x, k, hi, np.float32)
        got_scales = q.qparams().scales.numpy()
        np.testing.assert_array_equal(got_scales, scales, err_msg=name)
        assert got_scales.shape == ((1,) if k is None else (x.size // k,))
        qi = ref_quantize(x, scales, k, lo, hi)
        np.testing.assert_array_equal(q.int_repr().numpy(), qi, err_msg=name)
        deq = q.dequantize().numpy()
        per = np.broadcast_to(scales[0], x.shape) if k is None else np.repeat(
            scales, k).reshape(x.shape)
        # round trip: every value is within half a step (min-max never clips)
        assert np.all(np.abs(x - deq) <= per / 2 * (1 + 1e-6)), name


def test_quantize_dynamic_q8f_matches_torch():
    rng = np.random.default_rng(6)
    x = quant_data(rng, (5, 7))
    q = ember.tensor(x).quantize_dynamic(QS("q8f"))
    scale = float(q.qparams().scales.numpy()[0])
    assert scale == np.float32(np.abs(x).max() / np.float32(127))
    ti, td = torch_qint8(x, scale)
    # torch multiplies by a float32 1/scale: a value near a rounding tie may land one step away
    diff = q.int_repr().numpy().astype(int) - ti
    assert np.abs(diff).max() <= 1 and np.count_nonzero(diff) <= 1
    np.testing.assert_allclose(q.dequantize().numpy(), td, atol=scale * 1.01)


@pytest.mark.half_precision
def test_quantize_dynamic_zero_block_nonfinite_and_params():
    x = ember.tensor([[0.0, 0.0, 3.0, -6.0], [float("nan"), 2.0, float("inf"), -1.0]])
    q = x.quantize_dynamic(QS("q4s", level=2))
    assert q.qparams().scales.tolist() == pytest.approx([1.0, 6 / 7, 2 / 7, 1 / 7])
    assert q.int_repr().tolist() == [[0, 0, 4, -7], [0, 7, 7, -7]]
    # an empty tensor calibrates to scale 1
    assert ember.zeros(0).quantize_dynamic(QS()).qparams().scales.tolist() == [1.0]
    # a scale that underflows in float16 becomes 1 (and the values quantize to 0)
    tiny = ember.tensor([1e-30, -1e-30]).quantize_dynamic(QS(param="f16"))
    assert tiny.qparams().scales.tolist() == [1.0] and tiny.int_repr().tolist() == [0, 0]
    for param in ("f16", "bf16"):
        x = ember.tensor([0.3, -1.7, 2.2, 0.01])
        q = x.quantize_dynamic(QS("q8s", param=param))
        s = np.float32(2.2 / np.float32(127)).astype(PARAMS[param])
        np.testing.assert_array_equal(q.qparams().scales.numpy(), [s])
        np.testing.assert_array_equal(q.int_repr().numpy(),
                                      ref_quantize(x.numpy(), [s], None, -127, 127))


@pytest.mark.half_precision
def test_quantize_dynamic_scale_overflow_in_f16():
    x = ember.tensor([1e8, 1.0])
    before = snapshot(x)
    with pytest.raises(ember.InvalidParameterError, match="too large for param 'f16'") as info:
        x.quantize_dynamic(QS(param="f16"))
    assert info.value.param == "scheme"
    assert_unchanged([x], before)
    assert x.quantize_dynamic(QS()).qparams().scales.tolist() == pytest.approx([1e8 / 127])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, width=32), min_size=1, max_size=24),
       st.sampled_from(list(RANGES)))
def test_round_trip_bound_property(values, value):
    x = np.array(values, dtype=np.float32)
    q = ember.tensor(x).quantize_dynamic(QS(value))
    scale = float(q.qparams().scales.numpy()[0])
    err = np.abs(x.astype(np.float64) - q.dequantize().numpy().astype(np.float64))
    assert np.all(err <= scale / 2 * (1 + 1e-5) + 1e-30)
    assert np.array_equal(q.int_repr().numpy(), ref_quantize(x, [np.float32(scale)], None,
                                                             *RANGES[value]))


# -- the quantized tensor --------------------------------------------------------------------

def _q(shape=(3, 4), value="q8s", k=None, seed=7):
    x = quant_data(np.random.default_rng(seed), shape)
    return x, ember.tensor(x).quantize_dynamic(QS(value, level=k or "tensor"))


def test_ops_on_quantized_equal_ops_on_dequantized():
    _, a = _q((3, 4), "q4s", 2)
    _, b = _q((4, 2), "q8s", None, seed=8)
    da, db = a.dequantize(), b.dequantize()
    cases = [
        (a + 1.5, da + 1.5), (a + da, da + da), (a * a, da * da), (a @ b, da @ db),
        (ember.matmul(b.T, a.T), ember.matmul(db.T, da.T)), (a.sum(), da.sum()),
        (a.sum_dim(1), da.sum_dim(1)), (a.reshape(2, 6), da.reshape(2, 6)),
        (a[1:, ::2], da[1:, ::2]), (a[ember.tensor([2, 0])], da[ember.tensor([2, 0])]),
        (ember.cat([a, da, a], 0), ember.cat([da, da, da], 0)), (a.exp(), da.exp()),
        (a.cast("float64"), da.cast("float64")), (-a, -da), (a.max(), da.max()),
    ]
    for got, want in cases:
        assert type(got) is ember.Tensor and not got.is_quantized
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert a.tolist() == da.tolist() and str(a) == str(da)
    np.testing.assert_array_equal(np.asarray(a), da.numpy())
    assert ember.tensor(a).tolist() == da.tolist()


def test_shape_queries_do_not_dequantize(monkeypatch):
    _, q = _q((2, 3, 4), "q4f", 4)

    def boom(*args):
        raise AssertionError("dequantized")

    monkeypatch.setattr(be, "quant_dequantize", boom)
    assert q.shape == (2, 3, 4) and q.ndim == 3 and q.dims() == [2, 3, 4]
    assert q.rank() == 3 and q.dim() == 3 and q.numel() == 24 and len(q) == 2
    assert q.size() == (2, 3, 4) and q.size(-1) == 4 and q.dtype == ember.float32
    assert q.is_quantized and q.scheme == QS("q4f", level=4) and q.kind == "float"
    assert q.int_repr().shape == (2, 3, 4)
    with pytest.raises(ember.DimensionError):
        q.size(3)
    with pytest.raises(ember.KindError):
        len(ember.tensor(1.0).quantize_dynamic(QS()))


def test_dequantize_each_read_and_storage_is_int8():
    x, q = _q((3, 4))
    a1, a2 = q._data, q._data
    assert a1 is not a2 and np.array_equal(a1, a2)
    assert q.int_repr().dtype == ember.int8 and q.int_repr().numpy().dtype == np.int8
    d = q.dequantize()
    assert type(d) is ember.Tensor and d.dequantize() is d


def test_repr_and_str():
    q = ember.tensor([1.0, -2.0]).quantize(QS(), QP(0.5))
    assert repr(q) == "Tensor([1.0, -2.0], shape=(2,), dtype=float32, quantized=q8s)"
    assert str(q) == "[1.0, -2.0]"
    b = ember.tensor([[1.0, -2.0]]).quantize(QS("q4s", level=2), QP(0.5))
    assert repr(b) == ("Tensor([[1.0, -2.0]], shape=(1, 2), dtype=float32, quantized=q4s, "
                       "block_size=2)")


@pytest.mark.parametrize("param", list(PARAMS))
@pytest.mark.half_precision
def test_pickle_round_trip(param):
    x, q = _q((2, 6), "q4s", 3)
    q = ember.tensor(x, dtype="float64").quantize_dynamic(QS("q4s", level=3, param=param))
    r = pickle.loads(pickle.dumps(q))
    assert type(r) is ember.QuantizedTensor and r.scheme == q.scheme and r.dtype == q.dtype
    np.testing.assert_array_equal(r.int_repr().numpy(), q.int_repr().numpy())
    np.testing.assert_array_equal(r.qparams().scales.numpy(), q.qparams().scales.numpy())
    np.testing.assert_array_equal(r.numpy(), q.numpy())


def test_rebinding_turns_into_plain_tensor():
    x, q = _q((3, 4))
    ints = q.int_repr()
    before = snapshot(ints)
    view = q[0]
    deq = q.dequantize().numpy().copy()
    q[0, 0] = 100.0
    assert type(q) is ember.Tensor and not q.is_quantized
    assert q.tolist()[0][0] == 100.0 and q.tolist()[1] == deq[1].tolist()
    assert_unchanged([ints], before)
    assert view.tolist() == [100.0] + deq[0].tolist()[1:]  # a view sees the write
    _, p = _q((2, 2))
    p.inplace(lambda t: t * 2)
    assert type(p) is ember.Tensor and not p.is_quantized
    _, r = _q((2, 2))
    r.inplace(lambda t: t.quantize_dynamic(QS("q2s")))  # rebinding to a quantized value
    assert type(r) is ember.Tensor and r.tolist() == ember.tensor(r).tolist()


def test_clone_detach_and_requantize():
    x, q = _q((2, 4), "q4s", 2)
    for c in (q.clone(), q.detach()):
        assert type(c) is ember.QuantizedTensor and c is not q and c.scheme == q.scheme
        np.testing.assert_array_equal(c.int_repr().numpy(), q.int_repr().numpy())
    r = q.quantize_dynamic(QS("q8s"))  # quantizes the dequantized values
    np.testing.assert_array_equal(
        r.int_repr().numpy(),
        ember.tensor(q.dequantize()).quantize_dynamic(QS()).int_repr().numpy())


def test_gradients_untracked_and_require_grad_does_nothing():
    x = ember.tensor([1.0, -2.0, 0.4], dtype="float64").require_grad()
    q = x.quantize_dynamic(QS())
    assert not q.requires_grad and not q.is_tracked() and q.grad is None
    q2 = x.quantize(QS(), QP(0.1))
    assert not q2.is_tracked()
    assert q.require_grad() is q and not q.requires_grad and not q.is_require_grad()
    assert q.set_require_grad(True) is q and q.set_require_grad(False) is q
    q.requires_grad = True
    assert not q.requires_grad and type(q) is ember.QuantizedTensor
    with pytest.raises(ember.InvalidParameterError, match="require_grad must be a bool"):
        q.set_require_grad(1)
    # ops mixing a tracked tensor and a quantized one carry the gradient to the tracked one
    y = (x * q).sum()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), q.dequantize().numpy())


@pytest.mark.parametrize("op, call", [
    ("empty_like", lambda t: t.empty_like()), ("zeros_like", lambda t: t.zeros_like()),
    ("ones_like", lambda t: t.ones_like()), ("full_like", lambda t: t.full_like(2.0)),
    ("zeros_like", lambda t: ember.zeros_like(t)), ("full_like", lambda t: ember.full_like(t, 1)),
    ("random_like", lambda t: t.random_like()),
    ("random_like", lambda t: ember.random_like(t)),
    ("einsum", lambda t: ember.einsum("i,i->i", t, t)),
    ("one_hot", lambda t: t.one_hot(3)),
    ("one_hot_fill", lambda t: t.one_hot_fill(3, 1.0, 0.0, -1)),
])
def test_creation_and_one_hot_refuse_quantized(op, call):
    t = ember.tensor([0.0, 1.0, 2.0])
    q = t.quantize(QS(), QP(1.0))
    before = snapshot(q.int_repr())
    with pytest.raises(ember.KindError, match=f"{op}: the tensor is quantized") as info:
        call(q)
    assert "dequantize()" in str(info.value)
    assert_unchanged([q.int_repr()], before)
    assert call(t).shape[0] == 3  # the same call on a plain tensor works
    assert call(q.dequantize()).shape[0] == 3


# -- bad inputs ------------------------------------------------------------------------------

def test_bad_kinds():
    for t in (ember.tensor([1, 2]), ember.tensor([True]), ember.tensor([1], dtype="int8")):
        before = snapshot(t)
        for call in (lambda: t.quantize(QS(), QP(1.0)), lambda: t.quantize_dynamic(QS())):
            with pytest.raises(ember.KindError, match=f"only float tensors can be quantized, "
                                                      f"this one is {t.dtype.name}"):
                call()
        assert_unchanged([t], before)


def test_bad_scheme_and_qparams_types():
    t = ember.tensor([1.0, 2.0])
    for call, param in ((lambda: t.quantize("q8s", QP(1.0)), "scheme"),
                        (lambda: t.quantize_dynamic(None), "scheme"),
                        (lambda: t.quantize(QS(), 0.5), "qparams"),
                        (lambda: ember.quantize([1.0], QS(), QP(1.0)), "self"),
                        (lambda: ember.dequantize(3.0), "self")):
        with pytest.raises(ember.InvalidParameterError) as info:
            call()
        assert info.value.param == param
    with pytest.raises(ember.KindError):
        t.quantize(QS(), ember.tensor([1]))
    # a tensor of scales works as qparams
    assert t.quantize(QS(), ember.tensor([0.5])).int_repr().tolist() == [2, 4]


@pytest.mark.parametrize("shape, k", [((3, 5), 2), ((4,), 3), ((), 1), ((2, 3), 4)])
def test_block_size_not_dividing(shape, k):
    t = ember.ones(*shape)
    before = snapshot(t)
    for call in (lambda: t.quantize(QS(level=k), QP([1.0])),
                 lambda: t.quantize_dynamic(QS(level=k))):
        with pytest.raises(ember.ShapeMismatchError, match=f"block size {k} does not divide"):
            call()
    assert_unchanged([t], before)


def test_wrong_number_of_scales():
    t = ember.ones(2, 4)
    with pytest.raises(ember.ShapeMismatchError, match="qparams has 2 scales; expected 1"):
        t.quantize(QS(), QP([1.0, 1.0]))
    with pytest.raises(ember.ShapeMismatchError,
                       match=r"has 1 scales; expected 4 for block size 2"):
        t.quantize(QS(level=2), QP([1.0]))
    with pytest.raises(ember.ShapeMismatchError, match="has 0 scales; expected 1"):
        t.quantize(QS(), QP(ember.zeros(0)))


@pytest.mark.parametrize("scales, param, index", [
    ([0.0], "f32", 0), ([-0.5], "f32", 0), ([1.0, float("nan")], "f32", 1),
    ([float("inf"), 1.0], "f32", 0), ([1e-10, 1.0], "f16", 0), ([1e6, 1.0], "f16", 0),
    ([1.0, -0.0], "bf16", 1),
])
@pytest.mark.half_precision
def test_bad_scale_values(scales, param, index):
    t = ember.ones(2, 2)
    qp = QP(ember.tensor(scales))
    before = snapshot(t, qp.scales)
    level = "tensor" if len(scales) == 1 else 2
    with pytest.raises(ember.InvalidParameterError, match=f"quantize: scale {index} is") as info:
        t.quantize(QS(level=level, param=param), qp)
    assert "expected finite scales > 0" in str(info.value) and info.value.param == "qparams"
    assert_unchanged([t, qp.scales], before)


# -- docs ------------------------------------------------------------------------------------

@pytest.mark.half_precision
def test_docs_quantization_md():
    path = os.path.join(ROOT, "docs", "quantization.md")
    result = doctest.testfile(path, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0


# -- complex: quantization takes real tensors only (docs/complex.md) ---------------------------
def _complex(shape, dtype=np.complex64):
    rng = np.random.default_rng(3)
    return ember.from_numpy(np.asarray(rng.random(shape) + 1j * rng.random(shape), dtype=dtype))


QUANT_COMPLEX_CALLS = {
    "quantize": lambda z: z.quantize(QS(), ember.QParams(0.1)),
    "quantize_function": lambda z: ember.quantize(z, QS("q8s", level=2), ember.QParams([0.1, 0.2])),
    "quantize_dynamic": lambda z: z.quantize_dynamic(QS()),
    "dequantize": lambda z: z.dequantize(),
}


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(QUANT_COMPLEX_CALLS))
def test_complex_refused(name, dtype):
    z = _complex((2, 2), dtype)
    before = snapshot(z)
    op = name.replace("_function", "")
    with pytest.raises(ember.KindError, match=rf"{op}.*complex"):
        QUANT_COMPLEX_CALLS[name](z)
    assert_unchanged([z], before)
