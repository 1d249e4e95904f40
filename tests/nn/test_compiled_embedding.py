"""The embedding gradient through the NumPy backend's compiled row-adding kernel
(ember/backends/numpy/jit/scatter.py): exactly NumPy's ``np.add.at`` (the same sums in the same
order), and against PyTorch's embedding gradient."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from ember.backends.numpy import dropout as bdrop
from oracle import assert_close

pytestmark = pytest.mark.numpy_only


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("count, rows, d", [(1024, 65, 64), (5000, 3, 1), (4096, 4096, 8)])
def test_rows_are_added_as_add_at_adds_them(compiled_kernels, dtype, count, rows, d):
    rng = np.random.default_rng(count + rows)
    flat = rng.integers(0, rows, count).astype(np.intp)
    g = (rng.standard_normal((count, d)) * 10.0 ** rng.integers(-3, 4, (count, 1))).astype(dtype)
    want = np.zeros((rows, d), dtype)
    np.add.at(want, flat, g)
    got = np.zeros((rows, d), dtype)
    bdrop._add_rows(got, flat, g)
    assert got.tobytes() == want.tobytes()


def test_non_contiguous_gradient_rows(compiled_kernels):
    rng = np.random.default_rng(1)
    flat = rng.integers(0, 7, 4096).astype(np.intp)
    g = rng.standard_normal((3, 4096)).astype(np.float32).T  # (4096, 3), column-major
    want = np.zeros((7, 3), np.float32)
    np.add.at(want, flat, g)
    got = np.zeros((7, 3), np.float32)
    bdrop._add_rows(got, flat, g)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("padding_idx", [None, 3])
def test_embedding_gradient_matches_pytorch(compiled_kernels, padding_idx):
    rng = np.random.default_rng(2)
    w = rng.standard_normal((65, 64))
    idx = rng.integers(0, 65, (16, 64))
    g = rng.standard_normal((16, 64, 64))
    we = ember.tensor(w).require_grad()
    F.embedding(ember.tensor(idx), we, padding_idx=padding_idx).backward(ember.tensor(g))
    wt = torch.tensor(w, requires_grad=True)
    TF.embedding(torch.tensor(idx), wt, padding_idx=padding_idx).backward(torch.tensor(g))
    assert_close(we.grad, wt.grad, rtol=1e-12, atol=1e-12)
