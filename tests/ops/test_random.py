"""Tests of ember/ops/random.py: distributions, random tensors, categorical draws, seeding."""

import math
import re

import numpy as np
import pytest
import torch

import ember
from ember import Distribution
from oracle import assert_unchanged, on_device, snapshot

FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["int64", "int32", "int16", "int8", "uint8", "uint16", "uint32", "uint64"]

# chi-square 0.999 quantiles by degrees of freedom
CHI2_999 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46, 9: 27.88}


def _values(t):
    return np.asarray(t.numpy()).astype(np.float64)


def _chi2(counts, probs):
    n = counts.sum()
    expected = n * np.asarray(probs)
    return float(((counts - expected) ** 2 / expected).sum())


# -- Distribution ----------------------------------------------------------------------------

def test_distribution_constructors_and_repr():
    assert Distribution.default() == Distribution.Default()
    assert Distribution.uniform(0, 1) == Distribution.Uniform(0.0, 1.0)
    assert Distribution.normal(1, 2).params == (1.0, 2.0)
    assert Distribution.bernoulli(0.25).kind == "bernoulli"
    assert repr(Distribution.uniform(-1, 2)) == "Distribution.uniform(-1.0, 2.0)"
    assert repr(Distribution.default()) == "Distribution.default()"
    assert hash(Distribution.normal()) == hash(Distribution.normal(0.0, 1.0))
    assert Distribution.normal(0.0, 0.0).params == (0.0, 0.0)  # std 0 is allowed
    assert Distribution("uniform", (0, 2)) == Distribution.uniform(0.0, 2.0)
    assert Distribution() == Distribution.default()


@pytest.mark.parametrize("make,param,match", [
    (lambda: Distribution.uniform(1.0, 1.0), "low", r"low 1\.0 is not below high 1\.0"),
    (lambda: Distribution.uniform(2.0, 1.0), "low", r"low 2\.0 is not below high 1\.0"),
    (lambda: Distribution.uniform(0.0, math.inf), "high", "high is inf; expected a finite"),
    (lambda: Distribution.uniform(-1e308, 1e308), "high", "width high - low .* overflows"),
    (lambda: Distribution.normal(0.0, -1.0), "std", r"std is -1\.0; expected std >= 0"),
    (lambda: Distribution.normal(math.nan, 1.0), "mean", "mean is nan"),
    (lambda: Distribution.normal(0.0, "1"), "std", "std must be a real number, got str"),
    (lambda: Distribution.bernoulli(1.5), "p", r"p is 1\.5; expected a probability in \[0, 1\]"),
    (lambda: Distribution.bernoulli(-0.1), "p", r"p is -0\.1"),
    (lambda: Distribution.bernoulli(math.nan), "p", "p is nan"),
    (lambda: Distribution.bernoulli(True), "p", "p must be a real number, got bool"),
    (lambda: Distribution("poisson"), "kind", "kind 'poisson' is unknown"),
    (lambda: Distribution("uniform", (3.0, 1.0)), "low", r"low 3\.0 is not below high 1\.0"),
    (lambda: Distribution("normal", 1.0), "params", "params must be a tuple, got float"),
])
def test_distribution_bad_parameters(make, param, match):
    with pytest.raises(ember.InvalidParameterError, match=match) as info:
        make()
    assert info.value.param == param


# -- random, random_like ---------------------------------------------------------------------

def test_random_spec_example():
    ember.manual_seed(1)
    t = ember.Tensor.random((2, 3), Distribution.uniform(0.0, 1.0))
    assert t.shape == (2, 3) and t.dtype is ember.float32
    v = _values(t)
    assert ((v >= 0.0) & (v < 1.0)).all()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 0, 3)])
def test_random_float_shapes_and_ranges(dtype, shape):
    for dist, lo, hi in [(Distribution.default(), 0.0, 1.0), (Distribution.uniform(-2, 3), -2, 3),
                         (Distribution.bernoulli(0.3), 0.0, 1.0),
                         (Distribution.normal(5.0, 1.0), -math.inf, math.inf)]:
        t = ember.random(shape, dist, dtype=dtype)
        assert t.shape == shape and t.dtype.name == dtype
        v = _values(t)
        assert np.isfinite(v).all()
        if dist.kind == "bernoulli":
            assert np.isin(v, [0.0, 1.0]).all()
        elif dist.kind != "normal":
            assert ((v >= lo) & (v < hi)).all()


@pytest.mark.parametrize("dtype", INTS)
def test_random_int_dtypes(dtype):
    ember.manual_seed(5)
    t = ember.random((2000,), Distribution.uniform(0, 5), dtype=dtype)
    assert t.dtype.name == dtype and t.shape == (2000,)
    assert sorted(set(t.tolist())) == [0, 1, 2, 3, 4]
    b = ember.random((100,), Distribution.bernoulli(0.5), dtype=dtype)
    assert set(b.tolist()) == {0, 1}
    n = ember.random((1000,), Distribution.normal(50.0, 10.0), dtype=dtype)
    assert n.dtype.name == dtype
    info = np.iinfo(dtype)
    d = _values(ember.random((1000,), Distribution.default(), dtype=dtype))
    assert d.min() >= info.min and d.max() <= info.max
    assert d.max() - d.min() > (float(info.max) - float(info.min)) / 2  # the whole range


def test_random_int_uniform_with_fractional_bounds():
    ember.manual_seed(0)
    t = ember.random((500,), Distribution.uniform(0.5, 3.5), dtype="int32")
    assert set(t.tolist()) == {1, 2, 3}  # the integers k with 0.5 <= k < 3.5


def test_random_int_normal_is_rounded_and_clipped():
    ember.manual_seed(0)
    t = ember.random((1000,), Distribution.normal(250.0, 20.0), dtype="uint8")
    v = t.numpy()
    assert v.max() == 255 and v.min() > 150  # clipped to the top of uint8
    t = ember.random((2000,), Distribution.normal(0.0, 1.0), dtype="int64")
    assert abs(_values(t).mean()) < 0.1 and set(t.tolist()) <= set(range(-6, 7))


def test_random_bool():
    ember.manual_seed(0)
    t = ember.random((4000,), Distribution.bernoulli(0.25), dtype="bool")
    assert t.dtype is ember.bool_
    assert abs(t.numpy().mean() - 0.25) < 0.03
    d = ember.random((4000,), dtype="bool")
    assert abs(d.numpy().mean() - 0.5) < 0.03
    assert ember.random((3,), Distribution.bernoulli(1.0), dtype=bool).tolist() == [True] * 3
    assert ember.random((3,), Distribution.bernoulli(0.0), dtype=bool).tolist() == [False] * 3


def test_random_errors():
    with pytest.raises(ember.KindError, match="random: cannot sample bool tensors from "
                                              r"Distribution.uniform\(0.0, 1.0\)"):
        ember.random((2,), Distribution.uniform(0, 1), dtype="bool")
    with pytest.raises(ember.KindError, match="random: cannot sample bool .*normal"):
        ember.random((2,), "normal", dtype="bool")
    with pytest.raises(ember.InvalidParameterError, match=r"random: shape \(2, -1\) has the negative size -1"):
        ember.random((2, -1))
    with pytest.raises(ember.InvalidParameterError, match="random: shape must be an int, got float"):
        ember.random((2.5,))
    with pytest.raises(ember.InvalidParameterError, match="random: distribution must be a Distribution"):
        ember.random((2,), "cauchy")
    with pytest.raises(ember.InvalidParameterError, match=r"random: the range \[0.2, 0.9\) holds no integer"):
        ember.random((2,), Distribution.uniform(0.2, 0.9), dtype="int64")
    with pytest.raises(ember.InvalidParameterError, match=r"random: the range \[0.0, 300.0\) does not fit uint8"):
        ember.random((2,), Distribution.uniform(0, 300), dtype="uint8")
    with pytest.raises(ember.InvalidParameterError, match="dtype: 'float8' is not an ember dtype"):
        ember.random((2,), dtype="float8")
    with pytest.raises(ember.KindError, match="random: only float tensors can require grad"):
        ember.random((2,), dtype="int64", requires_grad=True)


def test_random_strings_and_int_shape():
    assert ember.random(3, "normal").shape == (3,)
    assert ember.random([2, 2], "bernoulli").dtype is ember.float32
    t = ember.random((2,), requires_grad=True)
    assert t.is_require_grad()
    burn = ember.Tensor.random([2, 3], Distribution.default(), "cpu")  # Burn's (shape, dist, device)
    assert burn.shape == (2, 3) and burn.dtype is ember.float32


@pytest.mark.half_precision
def test_random_like():
    src_np = np.zeros((2, 3), dtype=np.float64)
    src = ember.from_numpy(src_np)
    r = src.random_like(Distribution.normal(0.0, 1.0))
    assert r.shape == (2, 3) and r.dtype is ember.float64
    i = ember.random_like(ember.tensor([[1, 2, 3]]), Distribution.uniform(0, 3))
    assert i.dtype is ember.int64 and set(i.tolist()[0]) <= {0, 1, 2}
    b = ember.tensor([True, False]).random_like()
    assert b.dtype is ember.bool_ and b.shape == (2,)
    h = src.random_like(dtype="float16")
    assert h.dtype is ember.float16
    with pytest.raises(ember.KindError, match="random_like: cannot sample bool"):
        ember.tensor([True]).random_like(Distribution.normal())
    np.testing.assert_array_equal(src.numpy(), np.zeros((2, 3)))


def test_uniform_never_reaches_high():
    ember.manual_seed(0)
    for dtype in on_device(FLOATS):
        t = ember.random((20000,), Distribution.uniform(1.0, 1.0 + 1e-6), dtype=dtype)
        v = _values(t)
        assert (v < 1.0 + 1e-6).all(), dtype
        assert (v >= 1.0).all(), dtype


# -- rand, randn, randint --------------------------------------------------------------------

def test_rand_randn_shapes_and_dtypes():
    assert ember.rand(2, 3).shape == (2, 3)
    assert ember.rand((2, 3)).shape == (2, 3)
    assert ember.rand([4]).dtype is ember.float32
    assert ember.rand().shape == ()
    assert ember.randn(3, dtype="float64").dtype is ember.float64
    assert ember.randn(0, 2).shape == (0, 2)
    assert ember.randn(2, requires_grad=True).is_require_grad()
    with pytest.raises(ember.KindError, match="rand: dtype int64 is not a float dtype"):
        ember.rand(2, dtype="int64")
    with pytest.raises(ember.KindError, match="randn: dtype bool is not a float dtype"):
        ember.randn(2, dtype="bool")
    with pytest.raises(ember.InvalidParameterError, match="randn: shape .* negative size -3"):
        ember.randn(-3)


def test_randint():
    ember.manual_seed(11)
    t = ember.randint(-3, 4, (3000,))
    assert t.dtype is ember.int64 and t.shape == (3000,)
    assert set(t.tolist()) == set(range(-3, 4))
    t = ember.randint(5, (2, 3))
    assert t.shape == (2, 3) and set(t.numpy().ravel()) <= set(range(5))
    f = ember.randint(0, 3, (10,), dtype="float32")
    assert f.dtype is ember.float32 and set(f.tolist()) <= {0.0, 1.0, 2.0}
    u = ember.randint(0, 256, (5000,), dtype="uint8")
    assert u.numpy().max() == 255
    big = ember.randint(0, 2**64, (10,), dtype="uint64")
    assert big.dtype is ember.uint64


@pytest.mark.parametrize("args,kwargs,error,match", [
    ((3, 3, (2,)), {}, ember.InvalidParameterError, r"randint: the range \[3, 3\) holds no integer"),
    ((5, 2, (2,)), {}, ember.InvalidParameterError, r"randint: the range \[5, 2\) holds no integer"),
    ((0, 300, (2,)), {"dtype": "int8"}, ember.InvalidParameterError, "does not fit int8"),
    ((-1, 3, (2,)), {"dtype": "uint8"}, ember.InvalidParameterError, "does not fit uint8"),
    ((0, 2, (2,)), {"dtype": "bool"}, ember.KindError, "randint: dtype bool"),
    ((0, 2), {}, ember.InvalidParameterError, "randint: size is missing"),
    ((0.5, 2, (2,)), {}, ember.InvalidParameterError, "randint: low must be an int"),
    ((0, 2, (-1,)), {}, ember.InvalidParameterError, "randint: shape .* negative size"),
])
def test_randint_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        ember.randint(*args, **kwargs)


# -- seeding ---------------------------------------------------------------------------------

def _draw_all():
    w = ember.tensor([[1.0, 2.0, 3.0, 4.0], [4.0, 0.0, 1.0, 1.0]])
    return [
        ember.rand(5).tolist(), ember.randn(5).tolist(), ember.randint(0, 100, (5,)).tolist(),
        ember.random((5,), Distribution.uniform(-1, 1), dtype="float64").tolist(),
        ember.random((5,), Distribution.normal(2, 3), dtype="float16").tolist(),
        ember.random((5,), Distribution.bernoulli(0.5), dtype="bool").tolist(),
        ember.random((5,), dtype="int32").tolist(),
        w.categorical(6).tolist(), w.multinomial(3).tolist(),
    ]


@pytest.mark.half_precision
def test_manual_seed_reproducible():
    ember.manual_seed(1234)
    first = _draw_all()
    ember.manual_seed(1234)
    assert _draw_all() == first
    ember.manual_seed(4321)
    assert _draw_all() != first
    ember.manual_seed(-1)  # negative seeds wrap around, as in PyTorch
    neg = _draw_all()
    ember.manual_seed(2**64 - 1)
    assert _draw_all() == neg


def test_manual_seed_errors():
    with pytest.raises(ember.InvalidParameterError, match="manual_seed: seed must be an int, got float"):
        ember.manual_seed(1.5)
    with pytest.raises(ember.InvalidParameterError, match="manual_seed: seed must be an int, got bool"):
        ember.manual_seed(True)
    with pytest.raises(ember.InvalidParameterError, match=r"manual_seed: seed 18446744073709551616 is out of range"):
        ember.manual_seed(2**64)


# -- statistics ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_and_normal_moments(dtype):
    ember.manual_seed(2024)
    n = 200_000
    u = _values(ember.random((n,), Distribution.uniform(-2.0, 4.0), dtype=dtype))
    assert abs(u.mean() - 1.0) < 0.02
    assert abs(u.var() - 36.0 / 12) < 0.03
    d = _values(ember.rand(n, dtype=dtype))
    assert abs(d.mean() - 0.5) < 0.005 and abs(d.var() - 1 / 12) < 0.002
    x = _values(ember.random((n,), Distribution.normal(3.0, 2.0), dtype=dtype))
    assert abs(x.mean() - 3.0) < 0.02
    assert abs(x.std() - 2.0) < 0.02
    z = _values(ember.randn(n, dtype=dtype))
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1.0) < 0.01
    b = _values(ember.random((n,), Distribution.bernoulli(0.3), dtype=dtype))
    assert abs(b.mean() - 0.3) < 0.005


def test_int_uniform_is_uniform():
    ember.manual_seed(7)
    t = ember.random((60_000,), Distribution.uniform(0, 6), dtype="int64")
    counts = np.bincount(t.numpy(), minlength=6)
    assert _chi2(counts, [1 / 6] * 6) < CHI2_999[5]


# -- categorical, multinomial ----------------------------------------------------------------

def test_categorical_spec_example():
    probs = ember.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    for _ in range(5):
        assert probs.categorical(4).tolist() == [[1, 1, 1, 1], [2, 2, 2, 2]]


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4), (0, 4), (2, 0, 4)])
def test_categorical_shapes(shape):
    w = ember.from_numpy(np.random.default_rng(0).random(shape) + 0.1)
    s = w.categorical(7)
    assert s.shape == shape[:-1] + (7,) and s.dtype is ember.int64
    v = s.numpy()
    assert ((v >= 0) & (v < shape[-1])).all()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64"])
def test_categorical_frequencies(dtype):
    ember.manual_seed(99)
    weights = np.array([[1.0, 2.0, 0.0, 5.0, 2.0], [3.0, 3.0, 3.0, 0.0, 1.0]])
    w = ember.tensor(weights).cast(dtype)
    s = w.categorical(20_000).numpy()
    for row in range(2):
        counts = np.bincount(s[row], minlength=5)
        positive = weights[row] > 0
        assert (counts[~positive] == 0).all()  # zero weights are never drawn
        p = weights[row][positive] / weights[row].sum()
        assert _chi2(counts[positive], p) < CHI2_999[int(positive.sum()) - 1]


def test_categorical_extreme_weights():
    ember.manual_seed(3)
    w = ember.tensor([[0.0, 0.0, 1e-30, 0.0], [1e30, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0]],
                     dtype="float64")
    s = w.categorical(1000).numpy()
    assert (s[0] == 2).all() and (s[1] == 0).all() and (s[2] == 3).all()


@pytest.mark.numpy_only
def test_one_row_of_weights_draws_as_the_rows_of_a_batch():
    """The NumPy kernel's one-row path gives the values of its batched path (row 0 of a batch
    draws the same numbers of the stream), zero weights at both ends included."""
    from ember.backends.numpy import random as brandom
    rng = np.random.default_rng(4)
    for w in ([0.3, 0.7], [0.0, 1.0, 0.0], [1e-300, 0.0, 5.0, 0.0], rng.random(50)):
        w = np.asarray(w, dtype=np.float64)
        one = brandom._categorical_2d(w[None], 2000, True, np.random.default_rng(1))
        two = brandom._categorical_2d(np.stack([w, w[::-1]]), 2000, True,
                                      np.random.default_rng(1))
        assert one.shape == (1, 2000) and one.dtype == np.int64
        np.testing.assert_array_equal(one[0], two[0])
        assert (w[one[0]] > 0).all()


def test_multinomial_without_replacement():
    ember.manual_seed(5)
    w = ember.tensor([[1.0, 2.0, 3.0, 4.0, 0.0]] * 3)
    s = w.multinomial(4)
    assert s.shape == (3, 4) and s.dtype is ember.int64
    for row in s.tolist():
        assert sorted(row) == [0, 1, 2, 3]  # distinct, never the zero weight
    # the first draw follows the weights
    big = ember.tensor(np.tile([1.0, 2.0, 3.0, 4.0], (20_000, 1)))
    first = big.multinomial(2).numpy()[:, 0]
    counts = np.bincount(first, minlength=4)
    assert _chi2(counts, np.array([1, 2, 3, 4]) / 10) < CHI2_999[3]
    # the second draw, given the first: P(second = j) = sum_i p_i p_j / (1 - p_i)
    second = big.multinomial(2).numpy()[:, 1]
    p = np.array([1, 2, 3, 4]) / 10
    q = np.array([sum(p[i] * p[j] / (1 - p[i]) for i in range(4) if i != j) for j in range(4)])
    assert _chi2(np.bincount(second, minlength=4), q) < CHI2_999[3]
    # with replacement, like categorical
    r = ember.tensor([0.0, 1.0]).multinomial(5, replacement=True)
    assert r.tolist() == [1] * 5


@pytest.mark.parametrize("weights,n,error,match", [
    ([[1.0, -1.0]], 1, ember.InvalidParameterError, r"weight -1\.0 at index \(0, 1\); expected finite weights >= 0"),
    ([[1.0, math.nan]], 1, ember.InvalidParameterError, r"weight nan at index \(0, 1\)"),
    ([[1.0, math.inf]], 1, ember.InvalidParameterError, r"weight inf at index \(0, 1\)"),
    ([[1.0, 2.0], [0.0, 0.0]], 1, ember.InvalidParameterError, r"the weights of row \(1,\) sum to zero"),
    ([0.0, 0.0], 1, ember.InvalidParameterError, r"the weights sum to zero; expected at least"),
    ([1.0, 2.0], 0, ember.InvalidParameterError, "num_samples is 0; expected num_samples >= 1"),
    ([1.0, 2.0], 1.5, ember.InvalidParameterError, "num_samples must be an int"),
    (1.0, 1, ember.DimensionError, "a 0-d tensor has no dim of categories"),
    ([[], []], 1, ember.InvalidParameterError, "the last dim has no categories"),
    ([True, False], 1, ember.KindError, "not defined for bool tensors"),
])
@pytest.mark.parametrize("op", ["categorical", "multinomial"])
def test_categorical_errors(weights, n, error, match, op):
    w = ember.tensor(weights)
    before = np.array(w.numpy(), copy=True)
    with pytest.raises(error, match=f"{op}: .*{match}"):
        getattr(w, op)(n)
    np.testing.assert_array_equal(w.numpy(), before)


@pytest.mark.parametrize("op", ["categorical", "multinomial"])
def test_weights_whose_sum_overflows_are_refused(op):
    for w, where in (([[1.0, 2.0], [1e308, 1e308]], " of row (1,)"), ([1e308, 1e308], "")):
        with pytest.raises(ember.InvalidParameterError,
                           match=rf"{op}: the weights{re.escape(where)} sum to infinity"):
            getattr(ember.tensor(w, dtype="float64"), op)(1)


def test_multinomial_errors():
    w = ember.tensor([[1.0, 0.0, 2.0], [1.0, 1.0, 1.0]])
    with pytest.raises(ember.InvalidParameterError,
                       match=r"multinomial: num_samples 3 exceeds the 2 positive weight\(s\) of a row"):
        w.multinomial(3)
    with pytest.raises(ember.InvalidParameterError, match="multinomial: replacement must be a bool"):
        w.multinomial(1, replacement="yes")
    assert w.multinomial(3, replacement=True).shape == (2, 3)
    with pytest.raises(ember.InvalidParameterError, match="categorical: expected a Tensor of weights"):
        ember.categorical([1.0, 2.0], 1)


# -- Generator and generator= -------------------------------------------------------------------

def _draws(g):
    """One draw from every sampler that takes ``generator=``."""
    w = ember.tensor([[0.2, 0.5, 0.3], [1.0, 1.0, 0.0]])
    return [ember.rand(2, 3, generator=g).tolist(), ember.randn(4, generator=g).tolist(),
            ember.randint(0, 100, (5,), generator=g).tolist(),
            ember.randperm(7, generator=g).tolist(),
            ember.random((3,), Distribution.normal(2, 3), generator=g).tolist(),
            ember.random((3,), "bernoulli", dtype="bool", generator=g).tolist(),
            w.random_like(generator=g).tolist(),
            w.multinomial(2, generator=g).tolist(), w.categorical(3, generator=g).tolist()]


def test_generator_reproduces_every_sampler_and_leaves_the_global_one():
    ember.manual_seed(5)
    expected_global = ember.rand(4).tolist()
    ember.manual_seed(5)
    a = _draws(ember.Generator().manual_seed(11))
    assert ember.rand(4).tolist() == expected_global     # the global stream did not move
    b = _draws(ember.Generator().manual_seed(11))
    c = _draws(ember.Generator().manual_seed(12))
    assert a == b and a != c
    g = ember.Generator()
    assert _draws(g) == _draws(ember.Generator())         # PyTorch's default seed, fixed


def test_generator_state_seed_and_initial_seed():
    g = ember.Generator().manual_seed(-3)
    assert g.initial_seed() == 2**64 - 3                  # wraps around, as torch
    assert torch.Generator().manual_seed(-3).initial_seed() == 2**64 - 3
    _ = ember.randn(3, generator=g)                       # advance, then snapshot
    state = g.get_state()
    assert state.dtype == ember.uint8 and state.ndim == 1
    first = _draws(g)
    assert g.set_state(state) is g
    assert _draws(g) == first
    other = ember.Generator().set_state(state)            # a state moves between generators
    assert _draws(other) == first
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s and 0 <= s < 2**64
    assert g.device == ember.get_default_device()


def test_global_generator_functions():
    ember.manual_seed(9)
    assert ember.initial_seed() == 9 and ember.default_generator.initial_seed() == 9
    state = ember.get_rng_state()
    a = ember.rand(5).tolist()
    ember.set_rng_state(state)
    assert ember.rand(5).tolist() == a
    ember.default_generator.manual_seed(9)
    assert ember.rand(5).tolist() == a
    assert ember.rand(3, generator=ember.default_generator).shape == (3,)
    s = ember.seed()
    assert ember.initial_seed() == s


def test_randperm_matches_torch_contract():
    for n in (0, 1, 10):
        for dtype in (None, "int32", "float64"):
            p = ember.randperm(n, dtype=dtype)
            tp = torch.randperm(n, dtype=None if dtype is None else getattr(torch, dtype))
            assert p.dtype.name == str(tp.dtype).replace("torch.", "")
            assert sorted(p.tolist()) == sorted(tp.tolist()) == list(range(n))


@pytest.mark.parametrize("fn,match", [
    (lambda: ember.rand(2, generator=3), r"rand: generator must be an ember.Generator, got int"),
    (lambda: ember.randn(2, generator=torch.Generator()), r"randn: generator must be"),
    (lambda: ember.Generator().manual_seed(2**64), r"Generator.manual_seed: seed .* out of range"),
    (lambda: ember.Generator().set_state(ember.zeros(3)), r"Generator.set_state: new_state must"),
    (lambda: ember.set_rng_state("x"), r"set_rng_state: new_state must be a uint8 tensor"),
    (lambda: ember.randperm(-1), r"randperm: n is -1; expected n >= 0"),
    (lambda: ember.randperm(300, dtype="int8"), r"randperm: n 300 does not fit int8"),
])
def test_generator_errors(fn, match):
    with pytest.raises(ember.InvalidParameterError, match=match):
        fn()


def test_generator_on_a_device_this_machine_lacks():
    if "torch:cuda:0" in [str(d) for d in ember.devices()]:
        pytest.skip("this machine has CUDA")
    with pytest.raises(ember.errors.DeviceError, match=r"torch:cuda:0 is not available"):
        ember.Generator("cuda")


# -- devices: a generator per device ----------------------------------------------------------

def test_each_device_has_its_own_seeded_stream():
    for device in ("cpu", "torch:cpu"):
        ember.manual_seed(11)
        a = ember.rand(6, device=device)
        assert str(a.device) == device
        ember.manual_seed(11)
        assert ember.rand(6, device=device).tolist() == a.tolist()
        ember.manual_seed(12)
        assert ember.rand(6, device=device).tolist() != a.tolist()


def test_generators_follow_their_device():
    g = ember.Generator("torch:cpu").manual_seed(5)
    assert g.device == ember.Device("torch:cpu")
    a = ember.randn(4, generator=g)
    assert str(a.device) == "torch:cpu"            # device=None: the generator's device
    assert ember.randn(4, generator=ember.Generator("torch:cpu").manual_seed(5)).tolist() == \
        a.tolist()
    state = g.get_state()
    b = ember.randint(0, 100, (5,), generator=g)
    g.set_state(state)
    assert ember.randint(0, 100, (5,), generator=g).tolist() == b.tolist()
    with pytest.raises(ember.errors.DeviceError, match="generator is on torch:cpu"):
        ember.rand(2, generator=g, device="cpu")
    with pytest.raises(ember.InvalidParameterError, match="new_state must"):
        ember.Generator("cpu").set_state(state)    # a torch state is not a NumPy one


@pytest.mark.parametrize("device", ["cpu", "torch:cpu"])
def test_distributions_on_every_device(device):
    ember.manual_seed(0)
    u = _values(ember.random((20000,), Distribution.uniform(-2.0, 3.0), device=device))
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.05
    n = _values(ember.random((20000,), Distribution.normal(1.0, 2.0), device=device))
    assert abs(n.mean() - 1.0) < 0.08 and abs(n.std() - 2.0) < 0.08
    b = _values(ember.random((20000,), Distribution.bernoulli(0.3), device=device))
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.02
    for dtype in INTS:
        lo, hi = (0, 2**64) if dtype == "uint64" else (-2**63, 2**63) if dtype == "int64" \
            else (0, 7)
        x = ember.randint(lo, hi, (4000,), dtype=dtype, device=device)
        assert x.dtype.name == dtype and str(x.device) == device
        v = [int(i) for i in x.tolist()]
        assert lo <= min(v) and max(v) < hi
        if hi == 7:
            assert set(v) == set(range(7))
        else:  # the whole 64-bit range: both halves are drawn
            assert min(v) < lo + (hi - lo) // 4 and max(v) > hi - (hi - lo) // 4
    p = ember.randperm(50, device=device)
    assert sorted(p.tolist()) == list(range(50))


# -- complex: random takes real tensors only (docs/complex.md) ---------------------------------
def _complex(shape, dtype=np.complex64):
    rng = np.random.default_rng(9)
    return ember.from_numpy(np.asarray(rng.random(shape) + 1j * rng.random(shape), dtype=dtype))


COMPLEX_DTYPE_CALLS = {  # op -> call with a complex dtype
    "rand": lambda dt: ember.rand(2, 3, dtype=dt),
    "randn": lambda dt: ember.randn(4, dtype=dt),
    "randint": lambda dt: ember.randint(0, 5, (2, 3), dtype=dt),
    "randperm": lambda dt: ember.randperm(4, dtype=dt),
    "random": lambda dt: ember.random((2, 3), dtype=dt),
    "random_normal": lambda dt: ember.random((2,), Distribution.normal(0.0, 1.0), dtype=dt),
    "random_bernoulli": lambda dt: ember.Tensor.random((2,), Distribution.bernoulli(0.5),
                                                       dtype=dt),
    "random_like": lambda dt: ember.ones(2, 3).random_like(dtype=dt),
}
COMPLEX_INPUT_CALLS = {  # op -> call with a complex tensor
    "random_like": lambda z: z.random_like(),
    "random_like_uniform": lambda z: ember.random_like(z, Distribution.uniform(0.0, 1.0)),
    "categorical": lambda z: z.categorical(2),
    "multinomial": lambda z: z.multinomial(1),
    "multinomial_replacement": lambda z: ember.multinomial(z, 3, True),
    "normal_": lambda z: z.normal_(),
    "uniform_": lambda z: z.uniform_(),
}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", sorted(COMPLEX_DTYPE_CALLS))
def test_complex_dtype_refused(name, dtype):
    op = name.split("_")[0] if name.startswith("random_") and name != "random_like" else name
    with pytest.raises(ember.KindError, match=rf"{op}.*complex"):
        COMPLEX_DTYPE_CALLS[name](getattr(ember, dtype))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(2, 3), (4,)])
@pytest.mark.parametrize("name", sorted(COMPLEX_INPUT_CALLS))
def test_complex_input_refused(name, shape, dtype):
    z = _complex(shape, dtype)
    before = snapshot(z)
    op = {"random_like_uniform": "random_like",
          "multinomial_replacement": "multinomial"}.get(name, name)
    with pytest.raises(ember.KindError, match=rf"{op}.*complex"):
        COMPLEX_INPUT_CALLS[name](z)
    assert_unchanged([z], before)


def test_complex_refusal_leaves_the_generator_alone():
    ember.manual_seed(11)
    expected = ember.rand(3).tolist()
    ember.manual_seed(11)
    with pytest.raises(ember.KindError):
        ember.rand(3, dtype=ember.complex64)
    with pytest.raises(ember.KindError):
        _complex((3,)).multinomial(1)
    assert ember.rand(3).tolist() == expected
