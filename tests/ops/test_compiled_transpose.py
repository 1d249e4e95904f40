"""Copies of transposed and permuted views (contiguous(), clone(), reshape that must copy)
through the NumPy backend's compiled tiled transpose (ember/backends/numpy/jit/transpose.py)
and through NumPy: against PyTorch, bit for bit, every 4- and 8-byte dtype."""

import numpy as np
import pytest
import torch

import ember
from ember.backends.numpy import core, jit
from ember.backends.numpy.jit import transpose
from oracle import assert_unchanged, snapshot

pytestmark = pytest.mark.numpy_only

DTYPES = ["float32", "float64", "int32", "int64", "uint32", "uint64", "complex64"]
CASES = [  # (shape, permutation)
    ((37, 45), (1, 0)),
    ((300, 301), (1, 0)),
    ((130, 64), (1, 0)),
    ((4, 37, 45), (0, 2, 1)),
    ((3, 70, 129), (0, 2, 1)),
    ((4, 37, 45), (2, 0, 1)),
    ((64, 9, 20), (1, 2, 0)),
    ((6, 5, 37, 45), (3, 1, 0, 2)),
    ((2, 3, 40, 50), (0, 1, 3, 2)),
    ((1, 33, 1, 65), (3, 2, 1, 0)),
    ((0, 40), (1, 0)),
    ((40, 0, 3), (2, 1, 0)),
    ((), ()),
]


@pytest.fixture(params=["compiled", "numpy_path"])
def path(request, monkeypatch):
    if request.param == "compiled":
        if not jit.enabled():
            pytest.skip("no C compiler here (or EMBER_JIT=0): the NumPy path is tested alone")
        monkeypatch.setenv("EMBER_JIT", "sync")
        monkeypatch.setattr(core, "TRANSPOSE_MIN_NUMEL", 1)
    else:
        monkeypatch.setenv("EMBER_JIT", "0")
    return request.param


def _data(rng, shape, dtype):
    if dtype.startswith("complex"):
        a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    elif dtype.startswith(("int", "uint")):
        a = rng.integers(0, 2 ** 31 - 1, size=shape)
    else:
        a = rng.standard_normal(shape) * 100
        if a.size >= 4:
            a.flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    return np.asarray(a.astype(dtype))


def _torch(a):
    return torch.from_numpy(np.array(a, copy=True))


def _same(actual, expected):
    """Bit-for-bit equal (NaN payloads and signs of zero too), shape and dtype."""
    want = expected.numpy() if isinstance(expected, torch.Tensor) else expected
    got = actual.numpy()
    assert got.shape == want.shape and str(got.dtype) == str(want.dtype)
    assert got.tobytes() == np.ascontiguousarray(want).tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
def test_contiguous_of_permuted_views_matches_torch(path, rng, dtype):
    for shape, perm in CASES:
        a = _data(rng, shape, dtype)
        x = ember.from_numpy(a).permute(perm)
        before = snapshot(x)
        t = _torch(a).permute(perm)
        assert x.contiguous().is_contiguous()
        for got in (x.contiguous(), x.clone()):
            _same(got, t.contiguous())
        assert_unchanged([x], before)
        # a reshape that must copy: the last two axes merged
        if len(shape) >= 2:
            _same(x.reshape(*x.shape[:-2], -1), t.reshape(*t.shape[:-2], -1))


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_copies_of_views_with_steps_and_flips_match_torch(path, rng, dtype):
    a = _data(rng, (90, 70), dtype)
    x, t = ember.from_numpy(a), _torch(a)
    for ev, tv in ((x.T[::2], t.T[::2]), (x.T[:, 3:60], t.T[:, 3:60]),
                   (x[::-1].T, t.flip(0).T), (x.T.flip(0), t.T.flip(0)),
                   (x[:, ::3].T, t[:, ::3].T)):
        _same(ev.contiguous(), tv.contiguous())


def test_compiled_copy_is_taken_for_transposes(monkeypatch, rng, jit_launches):
    if not jit.enabled():
        pytest.skip("no C compiler here (or EMBER_JIT=0)")
    monkeypatch.setenv("EMBER_JIT", "sync")
    monkeypatch.setattr(core, "TRANSPOSE_MIN_NUMEL", 1)
    for dtype, size in (("float32", 4), ("float64", 8)):
        a = _data(rng, (50, 60), dtype)
        _same(ember.from_numpy(a).T.contiguous(), _torch(a).T.contiguous())
        assert (transpose.source(size)[0], True) in jit_launches


def test_plan_of_layouts():
    x = np.zeros((64, 32), dtype=np.float32)
    assert transpose.plan(x) is None                      # contiguous: nothing to transpose
    assert transpose.plan(x[:, ::2]) is None              # no unit-stride axis
    assert transpose.plan(x[:, :16]) is None              # the last axis has unit stride
    batch, rows, cols, src_ld, out_ld, src_off, out_off = transpose.plan(
        np.zeros((5, 64, 32), dtype=np.float64).transpose(0, 2, 1))
    assert (batch, rows, cols, src_ld, out_ld) == (5, 32, 64, 32, 64)
    assert src_off.tolist() == [0, 2048, 4096, 6144, 8192]
    assert out_off.tolist() == [0, 2048, 4096, 6144, 8192]
    # permute(2, 0, 1) of (256, 256, 64): one transpose of a (65536, 64) matrix
    assert transpose.plan(np.zeros((256, 256, 64), np.float32).transpose(2, 0, 1))[:5] == (
        1, 64, 65536, 64, 65536)


def test_large_transpose_on_threads_matches_torch(path, rng):
    a = _data(rng, (900, 650), "float32")          # above the threads' threshold
    assert a.size >= transpose.PARALLEL_NUMEL
    previous = ember.get_num_threads()
    try:
        ember.set_num_threads(2)
        _same(ember.from_numpy(a).T.contiguous(), _torch(a).T.contiguous())
    finally:
        ember.set_num_threads(previous)
