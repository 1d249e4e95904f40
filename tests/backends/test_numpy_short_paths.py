"""The NumPy backend's short paths around its kernels (issue 32, per-call cost): ``stack`` as
``np.concatenate`` of indexed views, the compiled row programs' launcher (``rows`` and
cross entropy's ``class_rows``: copies and outputs made in C) and the launcher's integer
``bounds`` (which also rule out an ignored target). Each gives np.stack's, NumPy's or the
kernels' own bytes, bit for bit, on 0-d, empty, non-contiguous and mixed-layout inputs."""

import numpy as np
import pytest

from ember import dtypes
from ember.backends.numpy import activation, indexing, loss, segments
from ember.backends.numpy.core import ember_dtype
from ember.backends.numpy import jit
from ember.backends.numpy.jit import compiler, rows

pytestmark = pytest.mark.numpy_only


def _same_bytes(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


def _layouts(rng, shape, dtype):
    """The same shape in several layouts: C, Fortran, transposed, strided, reversed."""
    a = np.asarray(rng.standard_normal(shape) * 100).astype(dtype)
    if a.ndim == 0:
        return [a, np.array(a), a.reshape(1)[0:1].reshape(())]
    out = [a, np.asfortranarray(a)]
    if a.ndim >= 2:
        out.append(np.ascontiguousarray(np.swapaxes(a, 0, 1)).swapaxes(0, 1))
    big = (rng.standard_normal(tuple(2 * n for n in shape)) * 100).astype(dtype)
    out.append(big[tuple(slice(None, None, 2) for _ in shape)])
    out.append(a[tuple(slice(None, None, -1) for _ in shape)])
    return out


@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (5,), (4, 3), (2, 3, 4)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_stack_is_np_stack_bit_for_bit(rng, shape, dtype):
    arrays = _layouts(rng, shape, dtype)
    for axis in range(-len(shape) - 1, len(shape) + 1):
        for out_dtype in ("float32", "int64", "bool"):
            want = np.stack(arrays, axis=axis).astype(out_dtype) if out_dtype != dtype else \
                np.stack(arrays, axis=axis)
            got = segments.segments_stack(arrays, axis, ember_dtype(np.dtype(out_dtype)))
            _same_bytes(got, want)
            assert got.flags.c_contiguous or got.size == 0


def test_stack_of_nan_into_int_is_quiet(recwarn):
    a = np.array([np.nan, np.inf, 1.5], np.float32)
    got = segments.segments_stack([a, a], 1, dtypes.int32)
    with np.errstate(all="ignore"):
        _same_bytes(got, np.stack([a, a], axis=1).astype(np.int32))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.fixture
def launcher(monkeypatch):
    """The compiled launcher's functions (compiled on this thread); kernels for every size."""
    if not jit.enabled():
        pytest.skip("no C compiler here (or EMBER_JIT=0): the NumPy path is tested elsewhere")
    monkeypatch.setenv("EMBER_JIT", "sync")
    if rows.kernel("softmax", np.dtype(np.float32)) is None:
        pytest.skip("no C compiler here (or EMBER_JIT=0): the NumPy path is tested elsewhere")
    monkeypatch.setattr(rows, "MIN_NUMEL", 0)
    return compiler.calls


@pytest.mark.parametrize("shape", [(7,), (4, 5), (3, 4, 33)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rows_launcher_is_the_numpy_path_bit_for_bit(rng, monkeypatch, launcher, shape, dtype):
    xs, gs = _layouts(rng, shape, dtype), _layouts(rng, shape, dtype)
    kernels = [(activation.nn_softmax, 1), (activation.nn_log_softmax, 1),
               (activation.nn_softmax_grad, 2), (activation.nn_log_softmax_grad, 2)]
    for x in xs:
        for g in gs:
            for fn, n in kernels:
                args = (x,) if n == 1 else (g, x)
                got = fn(*args, x.ndim - 1)
                k = rows.kernel(fn.__name__[3:], x.dtype)
                out = np.empty(x.shape, x.dtype)
                cols = x.shape[-1]
                k((*(np.ascontiguousarray(a) for a in args), out), (x.size // cols, cols, 1), ())
                _same_bytes(got, out)


def test_rows_launcher_declines_what_it_cannot_run(launcher):
    k = rows.kernel("softmax_grad", np.dtype(np.float32))
    a = np.ones((3, 4), np.float32)
    run = launcher["rows"]
    assert run(k.args[0], 1, np.float32(1.0), a) is None            # not an ndarray
    assert run(k.args[0], 1, np.ones((), np.float32), a) is None    # 0-d
    assert run(k.args[0], 1, a, np.ones((4, 3), np.float32)) is None  # another shape
    assert run(k.args[0], 1, a, np.ones((3, 4), np.float64)) is None  # another dtype
    assert run(k.args[0], 1, a, a.astype(">f4")) is None              # another byte order
    assert rows.run("softmax_grad", 1, a, a.astype(np.float64)) is None


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                   "uint32", "uint64", "longlong", ">i8"])
def test_bounds_are_numpys(rng, launcher, dtype):
    info = np.iinfo(np.dtype(dtype))
    a = rng.integers(info.min, info.max, 50, dtype=np.dtype(dtype).newbyteorder("="),
                     endpoint=True).astype(dtype)
    for arr in (a, a[::3], a[::-1], a[:1], a[:0], a.reshape(5, 10), a.reshape(5, 10).T,
                np.array(a[0])):
        want = None if arr.size == 0 else (int(arr.min()), int(arr.max()))
        assert indexing.idx_bounds(arr) == want
        found = launcher["bounds"](arr)
        assert found is NotImplemented or found == want


@pytest.mark.parametrize("tdtype", ["int64", "int32", "uint8"])
def test_class_rows_is_the_kernels_direct_launch(rng, launcher, tdtype):
    k = rows.kernel("cross_entropy", np.dtype(np.float32))
    x0 = rng.standard_normal((6, 10)).astype(np.float32)
    t0 = rng.integers(0, 10, 6).astype(tdtype)
    for x in (x0, x0[::-1], np.asfortranarray(x0), x0[:, ::2]):
        for t in (t0, t0[::-1], np.repeat(t0, 2)[::2]):
            got = launcher["class_rows"](k.args[0], 1, x, t)
            xc, tc = np.ascontiguousarray(x), np.ascontiguousarray(t, dtype=np.int64)
            outs = [np.empty(6, np.float32) for _ in range(3)]
            k((xc, tc, *outs), (6, x.shape[1], 1), ())
            for a, b in zip(got, (xc, tc, *outs)):
                _same_bytes(a, b)


def test_an_ignore_index_within_the_targets_bounds_is_looked_for(launcher):
    x = np.linspace(-3, 3, 40, dtype=np.float32).reshape(4, 10)
    f32 = ember_dtype(np.dtype(np.float32))
    for target, ignore, compiled in (([1, 5, 3, 9], 4, True), ([1, 5, 3, 9], -100, True),
                                     ([1, 4, 3, 9], 4, False)):
        _, saved = loss.nn_class_loss(x, np.array(target), None, ignore, 0.0, "mean", True, f32)
        assert (len(saved) == 7) == compiled


def test_target_bad_is_the_defaults():
    from ember.backends.numpy.core import default_kernel
    default = default_kernel("nn_target_bad")
    cases = [([0, 3, 9], None), ([0, 10, 3], None), ([-1, 2, 12], None), ([-100, 2], -100),
             ([4, -100, 11], -100), ([], None), ([5], 5)]
    for values, ignore in cases:
        for dtype in ("int64", "int32", "uint8", ">i8"):
            if dtype == "uint8" and min(values, default=0) < 0:
                continue
            t = np.array(values, dtype)
            for tt in (t, t[::-1]):
                assert loss.nn_target_bad(tt, 10, ignore) == default(tt, 10, ignore)
    huge = np.array([3, 2 ** 64 - 1], np.uint64)
    assert loss.nn_target_bad(huge, 10, None) == default(huge, 10, None)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
def test_relu_needs_no_error_state(dtype):
    # ew_relu and nn_relu run NumPy's maximum without switching the error state (it raises no
    # floating-point flag, NaN included): under errstate(all="raise") they still give NaN, inf
    # and 0.0 for -0.0 and negatives, and an ndarray for a 0-d input
    from ember.backends.numpy import elementwise
    values = [np.nan, np.inf, -np.inf, -0.0, -1e-45, 2.5, -3.0] if dtype.startswith("f") else [0, 3, 7]
    a = np.array(values).astype(dtype)
    kernels = [elementwise.ew_relu] + ([activation.nn_relu] if dtype.startswith("f") else [])
    with np.errstate(all="raise"):
        for relu in kernels:
            out = relu(a)
            _same_bytes(out, np.maximum(a, np.zeros((), dtype)))
            zero_d = relu(a[-1].reshape(()))
            assert type(zero_d) is np.ndarray and zero_d.shape == () and zero_d == max(a[-1], 0)
