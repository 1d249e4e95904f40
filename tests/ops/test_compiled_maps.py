"""Tests of deferred chains of float math (ember/backends/lazy) and of their compiled loops
(ember/backends/numpy/jit/maps.py).

Every expression is computed three ways from the same inputs (NaN, infinities, signed zeros and
values past exp's range among them): by the compiled kernel (``EMBER_JIT=sync``), on the NumPy
path (``EMBER_JIT=0``, the ufuncs of the eager ops) and by PyTorch, the oracle. The compiled
values equal the NumPy path's bit for bit for the exact IEEE operations (``+ - * /``, sqrt,
rsqrt, abs, negation, extrema, where, casts), signed zeros included, and within 4 ulp for
exp/log/tanh/sigmoid (NumPy's own float32 log is 4 ulp off; the kernels' polynomials are
within 2 ulp of the float64 truth); expressions where cancellation amplifies such a
last-place difference are compared with the oracle's tolerance. ``lazy.MIN_NUMEL`` is lowered
so that small, 0-d and empty tensors defer too. On the torch backend (EMBER_DEVICE=torch:cpu)
the same expressions compute eagerly (computed tensors) and must match PyTorch.
"""

import threading
import tracemalloc

import numpy as np
import pytest
import torch

import ember
from ember.backends.numpy import jit
from ember.backends.numpy.jit import maps
from ember.backends import lazy
from ember.backends.lazy import Chain
from ember._tensor import Tensor
from ember.ops.operators import forget_kernels
from oracle import assert_close, assert_unchanged, layouts, snapshot, to_torch

RNG = np.random.default_rng(14)
SHAPES = [(), (0,), (7,), (3, 5), (2, 0, 3), (600, 500)]  # the last runs on 2 threads
SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 100.0, -100.0, 1e-30, -1e-30, 0.5, 95.0, -110.0]


def pending(t):
    """Whether ``t`` holds an expression not computed yet (a ``Chain`` of the wrapper backend
    ``Lazy``)."""
    return type(t._data) is Chain and t._data.operands is not None


def deferring():
    return ember.tensor(0.0).device.backend_name == "numpy"


def inputs(shape, dtype):
    """Two float arrays (normal values, a quarter of them specials) and a bool array."""
    arrays = []
    for _ in range(2):
        a = RNG.standard_normal(shape) * 3
        mask = RNG.random(shape) < 0.25
        a = np.where(mask, RNG.choice(SPECIALS, size=shape), a)
        arrays.append(a.astype(dtype))
    return arrays + [RNG.random(shape) < 0.5]


EXACT = {
    "add_mul_scalar_right": lambda m, x, y, c: x * y + 1.5,
    "sub_div_scalar_left": lambda m, x, y, c: 2.0 / x - y,
    "div_by_zero": lambda m, x, y, c: x / (y * 0.0) + 1.0 / (x - x),
    "sqrt": lambda m, x, y, c: (x * x + y).sqrt(),
    "rsqrt": lambda m, x, y, c: (x + 0.5).rsqrt(),
    "relu": lambda m, x, y, c: (x - y).relu(),
    "neg_abs": lambda m, x, y, c: -(abs(x) - y),
    "neg_zero": lambda m, x, y, c: -(x * 0.0),
    "maximum": lambda m, x, y, c: m.maximum(x * 2.0, y),
    "minimum": lambda m, x, y, c: m.minimum(x, y - 1.0),
    "maximum_zeros": lambda m, x, y, c: m.maximum(x * 0.0, -(y * 0.0)),
    "where": lambda m, x, y, c: m.where(c, x * y, 0.5),
    "where_number_first": lambda m, x, y, c: m.where(c, -1.5, x + y),
    "where_method": lambda m, x, y, c: (x - y).where(c, y),
    "casts": lambda m, x, y, c: (x.double() * 1.1).float() - y.float(),
    "cast_to_64": lambda m, x, y, c: x.float().double() / 3.0,
}
ROUNDED = {
    "exp": lambda m, x, y, c: (x * y + 1.0).exp(),
    "log": lambda m, x, y, c: (2.0 * x - y).log(),
    "tanh": lambda m, x, y, c: (x - y).tanh(),
    "sigmoid": lambda m, x, y, c: (x * 3.0).sigmoid(),
    "exp_in_64": lambda m, x, y, c: (x.double() * 0.5).exp().float() + y.float(),
}
COMPOSITE = {  # a last-place difference of tanh or exp, amplified by cancellation: oracle tolerance
    "shared": lambda m, x, y, c: (x * y) * (x * y) + (x * y).exp(),
    "everything": lambda m, x, y, c: m.where(c, m.maximum((x.abs() + 1.0).log(), y.tanh()),
                                           (-x).sigmoid().sqrt()).relu(),
    "gelu_tanh": lambda m, x, y, c: 0.5 * x * (1 + (0.79788456 * (x + 0.044715 * x * x * x))
                                               .tanh()),
}
EXPRESSIONS = {**EXACT, **ROUNDED, **COMPOSITE}


@pytest.fixture
def small_too(monkeypatch):
    monkeypatch.setattr(lazy, "MIN_NUMEL", 0)
    forget_kernels()  # the operators' short path asks for the new threshold
    yield
    monkeypatch.undo()
    forget_kernels()


def compute(expr, arrays, mode, monkeypatch):
    """``expr`` on ember tensors of ``arrays`` with ``EMBER_JIT=mode``: (result, tensors)."""
    monkeypatch.setenv("EMBER_JIT", mode)
    x, y, c = (ember.tensor(np.array(a, copy=True)) for a in arrays)
    return expr(ember, x, y, c), (x, y, c)


def ulps(a, b):
    """The distance of two float arrays in units in the last place (NaNs at the same places)."""
    width = {4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia, ib = a.view(width).astype(np.int64), b.view(width).astype(np.int64)
    low = np.int64(np.iinfo(width).max)
    ia = np.where(ia < 0, -(ia & low), ia)
    ib = np.where(ib < 0, -(ib & low), ib)
    return np.abs(ia - ib)


def assert_same_values(actual, expected, max_ulps):
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(actual), nan)
    a, e = actual[~nan], expected[~nan]
    if max_ulps == 0:
        assert np.array_equal(a, e) and np.array_equal(np.signbit(a), np.signbit(e))
    else:
        assert np.array_equal(np.isinf(a), np.isinf(e)) and np.array_equal(a[np.isinf(a)],
                                                                           e[np.isinf(e)])
        assert a.size == 0 or ulps(a, e).max() <= max_ulps


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_compiled_numpy_path_and_torch_agree(small_too, monkeypatch, name, shape, dtype):
    expr = EXPRESSIONS[name]
    arrays = inputs(shape, dtype)
    tx, ty, tc = (torch.from_numpy(np.array(a, copy=True)) for a in arrays)
    expected = expr(torch, tx, ty, tc)
    eager, tensors = compute(expr, arrays, "0", monkeypatch)
    before = snapshot(*tensors)
    if not deferring():  # the torch backend computes each op at once
        assert not pending(eager)
        assert_close(eager, expected)
        return
    assert pending(eager)
    numpy_path = eager.numpy()
    assert_close(eager, expected)
    assert_unchanged(tensors, before)
    monkeypatch.setenv("EMBER_JIT", "sync")
    if not jit.enabled():
        return  # no C compiler here: the NumPy path above is what runs
    calls = []
    real = maps.evaluate
    monkeypatch.setattr(maps, "evaluate", lambda c: calls.append(1) or real(c))
    compiled, tensors = compute(expr, arrays, "sync", monkeypatch)
    assert pending(compiled)
    values = compiled.numpy()
    assert calls, "the compiled kernel did not run"
    assert_close(compiled, expected)
    if name in COMPOSITE:
        assert_close(compiled, numpy_path)
    else:
        assert_same_values(values, numpy_path, 0 if name in EXACT else 4)
    assert_unchanged(tensors, before)


@pytest.mark.numpy_only  # compiled kernels and Chains belong to the NumPy backend
@pytest.mark.parametrize("name", ["exp", "log", "tanh", "sigmoid"])
def test_float32_math_is_within_two_ulp_of_float64(monkeypatch, name):
    """The inline float32 polynomials over their whole range, subnormal results and inputs
    included, against the float64 functions rounded to float32."""
    monkeypatch.setenv("EMBER_JIT", "sync")
    if not jit.enabled():
        pytest.skip("no C compiler: the NumPy path is tested with EMBER_JIT=0")
    span = {"exp": (-110, 95), "log": (-100, 88.7), "tanh": (-12, 12), "sigmoid": (-110, 110)}[name]
    x = RNG.uniform(*span, 1 << 20)
    if name == "log":
        x = np.exp(x)
    x = np.concatenate([x, [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 1e-40, 3e38, 0.625,
                            -0.625, 88.72283935546875, -103.97]]).astype(np.float32)
    got = getattr(ember.tensor(x) * 1.0, name)().numpy()
    with np.errstate(all="ignore"):
        wide = x.astype(np.float64)
        truth = {"exp": np.exp, "log": np.log, "tanh": np.tanh,
                 "sigmoid": lambda v: 1.0 / (1.0 + np.exp(-v))}[name](wide).astype(np.float32)
    assert_same_values(got, truth, 2)


@pytest.mark.numpy_only  # compiled kernels and Chains belong to the NumPy backend
def test_unary_ops_extend_a_chain_into_one_buffer(monkeypatch):
    """``(x * y + z).exp().tanh()...``: one buffer on the NumPy path (each step writes into the
    first one's) and with the compiled kernel."""
    x, y, z = (ember.tensor(RNG.standard_normal(1 << 18)) for _ in range(3))
    nbytes = 8 << 18

    def expr():
        return ember.minimum(-(abs((x * y + z).exp().tanh()) + 1.0).sqrt().log(), y)

    expected = None
    for mode in ("0", "sync"):
        monkeypatch.setenv("EMBER_JIT", mode)
        if mode == "sync" and not jit.enabled():
            break
        p = expr()
        assert pending(p)
        p.numpy()  # compiles, with "sync"
        tracemalloc.start()
        try:
            base = tracemalloc.get_traced_memory()[0]
            p = expr()
            lazy.chain.force(p._data)
            peak = tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()
        assert peak / nbytes == pytest.approx(1, abs=0.05)
        if expected is None:
            expected = p.numpy()
        else:  # log near 1 amplifies a last-place difference: the oracle's float64 tolerance
            np.testing.assert_allclose(p.numpy(), expected, rtol=1e-7, atol=1e-9)


@pytest.mark.numpy_only  # compiled kernels and Chains belong to the NumPy backend
def test_a_kernel_serves_every_size_and_every_number(small_too, monkeypatch):
    """The kernel's source depends on the expression's structure, not on sizes or numbers."""
    monkeypatch.setenv("EMBER_JIT", "sync")
    if not jit.enabled():
        pytest.skip("no C compiler: the NumPy path is tested with EMBER_JIT=0")
    seen = len(maps._sources)
    for n, s in ((10, 0.25), (1000, -3.0), (70000, 7.5)):
        x = ember.tensor(RNG.standard_normal(n).astype(np.float32))
        got = ((x * s + 1.25).tanh() * 0.5).numpy()
        xs = x.numpy()
        expected = np.tanh(xs * np.float32(s) + np.float32(1.25)) * np.float32(0.5)
        assert_same_values(got, expected, 4)
    assert len(maps._sources) == seen + 1


@pytest.mark.numpy_only  # compiled kernels and Chains belong to the NumPy backend
def test_what_is_not_compiled_takes_the_numpy_path(small_too, monkeypatch):
    """Non-contiguous arrays (an F-ordered buffer the tensor owns), int chains: NumPy values."""
    monkeypatch.setenv("EMBER_JIT", "sync")
    a = RNG.standard_normal((40, 30)).astype(np.float32)
    for name, arr in layouts(a):
        x = ember.tensor(np.array(arr, copy=True))
        got = (x * 2.0 + x).exp().numpy()
        assert np.array_equal(got, np.exp(a * np.float32(2.0) + a)) or \
            np.max(ulps(got, np.exp(a * np.float32(2.0) + a))) <= 4, name
    i = ember.tensor(RNG.integers(-5, 5, (40, 30)))
    j = i * i + i
    assert pending(j)
    assert np.array_equal(j.numpy(), i.numpy() * i.numpy() + i.numpy())


def test_tracked_results_are_computed_and_broadcasts_eager(small_too):
    x = ember.tensor(RNG.standard_normal((5, 4)), requires_grad=True)
    y = ember.tensor(RNG.standard_normal((5, 4)))
    assert not pending(x.exp()) and not pending(ember.maximum(x, y))  # recorded: computed
    (x.exp().sum() + ember.maximum(x, y).sum()).backward()
    tx = to_torch(x, requires_grad=True)
    (tx.exp().sum() + torch.maximum(tx, to_torch(y)).sum()).backward()
    assert_close(x.grad, tx.grad)
    row = ember.tensor(RNG.standard_normal((1, 4)))
    assert not pending(ember.maximum(y, row))  # broadcast: eager
    assert_close(ember.maximum(y * 1.0, row), torch.maximum(to_torch(y), to_torch(row)))
    f32 = ember.tensor(RNG.standard_normal((5, 4)), dtype="float32")
    mixed = ember.maximum(y * 1.0, f32)  # two dtypes: the cast and the maximum deferred
    assert mixed.dtype is ember.float64 and pending(mixed) is deferring()
    assert_close(mixed, torch.maximum(to_torch(y), to_torch(f32).double()))
    ints = ember.tensor([[1, 2], [3, 4]])
    assert not pending(-ints) and (-ints).tolist() == [[-1, -2], [-3, -4]]
    assert (ints * ints).exp().dtype is ember.float32  # ints compute in float: eager


def test_threads_reading_one_escaped_compiled_chain_see_one_array(monkeypatch):
    monkeypatch.setenv("EMBER_JIT", "sync")
    x, y = (ember.tensor(RNG.standard_normal(1 << 17).astype(np.float32)) for _ in range(2))
    expected = (x * y).tanh().exp().numpy()
    for _ in range(20):
        p = (x * y).tanh().exp()
        barrier = threading.Barrier(6)
        seen, errors = [None] * 6, []

        def read(k):
            try:
                barrier.wait()
                seen[k] = p.numpy() if k % 2 else (p.sqrt() * 1.0).numpy() ** 2
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=read, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert not pending(p)
        for k, values in enumerate(seen):
            if k % 2:
                assert np.array_equal(values, expected)
            else:
                np.testing.assert_allclose(values, expected, rtol=1e-6)


SUMS = {
    "all": lambda t: t.sum(),
    "last": lambda t: t.sum(-1),
    "last_kept": lambda t: t.sum(dim=len(t.shape) - 1, keepdim=True),
    "all_kept": lambda t: t.sum(tuple(range(len(t.shape))), keepdim=True),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 0, 3), (3, 0), (1, 200000), (600, 500),
                                   (70000, 3)], ids=str)
@pytest.mark.parametrize("how", list(SUMS))
def test_the_sum_of_a_chain_agrees_with_numpy_and_torch(small_too, monkeypatch, how, shape,
                                                          dtype):
    """``sum()`` and ``sum(-1)`` of a deferred expression: one pass on the compiled path, the
    expression's values computed and summed on the NumPy path; PyTorch is the oracle."""
    x, y = (RNG.standard_normal(shape).astype(dtype) for _ in range(2))

    def expr(m, a, b):
        return (a * b + 0.5).exp() - m.where(a > 0, a, b)

    expected = SUMS[how](expr(torch, torch.from_numpy(x), torch.from_numpy(y)))
    results = []
    for mode in ("0", "sync"):
        monkeypatch.setenv("EMBER_JIT", mode)
        if mode == "sync" and not jit.enabled():
            break
        tx, ty = ember.tensor(x), ember.tensor(y)
        p = expr(ember, tx, ty)
        result = SUMS[how](p)
        assert type(result) is Tensor and result.dtype.name == dtype
        assert_close(result, expected, rtol=1e-5 if dtype == "float32" else 1e-10)
        assert not deferring() or pending(p) is (mode != "0")
        results.append(result.numpy())
    if len(results) == 2:  # both rounded from sums of terms up to ~100: an absolute part too
        tol = 1e-5 if dtype == "float32" else 1e-10
        np.testing.assert_allclose(results[1], results[0], rtol=tol, atol=tol)


@pytest.mark.numpy_only  # compiled kernels belong to the NumPy backend
def test_the_sum_of_a_chain_keeps_no_buffer_and_is_accurate(monkeypatch):
    """A float32 sum of 2**22 values: no buffer of the values, no worse than NumPy's pairwise
    sum against the float64 truth, the same on 1 and 2 threads; NaN and inf propagate."""
    monkeypatch.setenv("EMBER_JIT", "sync")
    if not jit.enabled():
        pytest.skip("no C compiler: the NumPy path is tested with EMBER_JIT=0")
    a = (RNG.random(1 << 22) + 0.5).astype(np.float32)
    x = ember.tensor(a)
    (x * 1.5 + 0.25).sum()  # compiles
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        total = (x * 1.5 + 0.25).sum()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert peak < a.nbytes / 100
    values = a * np.float32(1.5) + np.float32(0.25)
    truth = values.astype(np.float64).sum()
    assert abs(float(total.item()) - truth) <= abs(float(values.sum()) - truth) + \
        np.spacing(np.float32(truth))
    sums = []
    for threads in (1, 2):
        monkeypatch.setattr(maps.compiler, "num_threads", lambda: threads)
        sums.append((x * 1.5 + 0.25).sum().item())
    assert sums[0] == sums[1] == total.item()
    b = a.copy()
    b[12345] = np.nan
    assert np.isnan((ember.tensor(b) * 1.0).sum().item())
    b[12345] = np.inf
    assert (ember.tensor(b) * 1.0).sum().item() == np.inf
    b[54321] = -np.inf
    assert np.isnan((ember.tensor(b) * 1.0).sum(-1).item())


@pytest.mark.numpy_only
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sigmoid_of_a_small_array_is_the_fused_paths_loop(compiled_kernels, dtype):
    """An eager sigmoid too small to defer runs the loop a deferred one compiles to: the same
    values as the fused path of a large array, specials included, and PyTorch's within ulps."""
    x = np.concatenate([np.array(SPECIALS), RNG.standard_normal(25) * 8]).astype(dtype)
    small = ember.tensor(x).sigmoid().numpy()
    big = ember.tensor(np.tile(x, 20_000)).sigmoid().numpy()  # past the fusing size
    np.testing.assert_array_equal(small, big[:x.size])
    assert maps.unary("sigmoid", x) is not None  # (compiled: the eager call took the loop)
    assert_close(ember.tensor(small), torch.sigmoid(torch.from_numpy(x)), atol=1e-30)


@pytest.mark.numpy_only
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_large_in_place_arithmetic_runs_on_the_kernels_threads(compiled_kernels, monkeypatch,
                                                                dtype):
    """``+=``, ``-=``, ``*=``, ``/=`` (and ember.torch's ``add_`` ...) of a large float buffer
    nobody else holds write it by the compiled map's threads: NumPy's values bit for bit
    (specials included), a number converted to the tensor's dtype once, as NumPy's; an operand
    of another shape takes NumPy's broadcasting ``out=`` instead."""
    import operator

    monkeypatch.setattr(maps.compiler, "num_threads", lambda: 2)
    taken = []
    into = maps.into
    monkeypatch.setattr(maps, "into", lambda *args: taken.append(into(*args)) or taken[-1])
    x, y, _ = inputs((maps.MIN_PARALLEL + 3,), dtype)
    t, expected = ember.tensor(x.copy()), x.copy()
    for op, ufunc, operand in ((operator.iadd, np.add, y), (operator.isub, np.subtract, 0.1),
                               (operator.imul, np.multiply, y), (operator.itruediv, np.divide, 3),
                               (operator.itruediv, np.divide, y), (operator.isub, np.subtract, y),
                               (operator.imul, np.multiply, 1.7)):
        t = op(t, ember.tensor(operand) if isinstance(operand, np.ndarray) else operand)
        with np.errstate(all="ignore"):
            ufunc(expected, operand, out=expected)
    np.testing.assert_array_equal(t.numpy(), expected)
    assert taken == [True] * 7
    t += ember.tensor(y[:1])             # broadcast: NumPy's out=
    np.testing.assert_array_equal(t.numpy(), expected + y[:1])
    assert taken[-1] is False
