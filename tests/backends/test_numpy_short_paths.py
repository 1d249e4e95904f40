"""The NumPy backend's short paths around its kernels (issue 32, per-call cost): ``stack`` as
``np.concatenate`` of indexed views gives np.stack's bytes, bit for bit, on 0-d, empty,
non-contiguous and mixed-layout inputs."""

import numpy as np
import pytest

from ember import dtypes
from ember.backends.numpy import segments
from ember.backends.numpy.core import ember_dtype

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

