"""The element-wise primitives' rows (ember/primitives.py): kernels the base declares, the
fusion table read from them, and each row's gradient rule against PyTorch's gradient."""

import numpy as np
import pytest
import torch

import ember
from ember.backends.base import Backend, kernel_names
from ember.backends.lazy.table import TABLE
from ember.primitives import PRIMITIVES

UNARY = [name for name, row in PRIMITIVES.items() if row.arity == 1 and row.reads != "dtype"]
BINARY = [name for name, row in PRIMITIVES.items() if row.arity == 2]
TORCH = {"recip": "reciprocal", "max": "maximum", "min": "minimum", "div": "div"}


def test_each_row_names_a_declared_kernel_and_a_dtype_rule():
    declared = set(kernel_names(Backend))
    for name, row in PRIMITIVES.items():
        assert row.kernel in declared, name
        assert row.dtypes in ("float", "real float", "arith", "div", "same", "cast", "choose")
        assert row.reads in ("x", "y", "dtype", None), name


def test_the_fusion_table_is_the_rows_that_fuse():
    fusing = {name for name, row in PRIMITIVES.items() if row.fuses}
    assert set(TABLE) == fusing and len(fusing) == 18
    for name in fusing:
        row, fused = PRIMITIVES[name], TABLE[name]
        assert (fused.kernel, fused.dtypes, fused.c_float, fused.c_double) == (
            row.kernel, row.fuses, row.c_float, row.c_double)


def _inputs(name, shape, seed):
    x = np.random.default_rng(seed).uniform(0.1, 0.9, shape)
    return x + 1.5 if name == "acosh" else x


@pytest.mark.parametrize("shape", [(), (3, 4)], ids=["0d", "3x4"])
@pytest.mark.parametrize("name", UNARY)
def test_a_unary_rule_gives_torchs_gradient(name, shape):
    row = PRIMITIVES[name]
    x = _inputs(name, shape, 1)
    g = np.random.default_rng(2).standard_normal(shape)
    tx = torch.tensor(x, requires_grad=True)
    ty = getattr(torch, TORCH.get(name, name))(tx)
    (expected,) = torch.autograd.grad(ty, tx, torch.tensor(g))
    ex = ember.tensor(x, dtype="float64")
    v = {"x": ex, "y": ember.tensor(ty.detach().numpy(), dtype="float64"), None: None}[row.reads]
    got = row.grad(ember.tensor(g, dtype="float64"), v)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", BINARY)
def test_a_binary_rule_gives_torchs_gradients(name):
    row = PRIMITIVES[name]
    a, b = _inputs(name, (2, 3), 3), _inputs(name, (2, 3), 4)
    b[0, 0] = a[0, 0]  # a tie: maximum and minimum split the gradient
    g = np.random.default_rng(5).standard_normal((2, 3))
    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    ty = getattr(torch, TORCH.get(name, name))(ta, tb)
    expected = torch.autograd.grad(ty, (ta, tb), torch.tensor(g))
    ea, eb = ember.tensor(a, dtype="float64"), ember.tensor(b, dtype="float64")
    got = row.grad(ember.tensor(g, dtype="float64"), ea, eb, True, True)
    for k in range(2):
        np.testing.assert_allclose(got[k].numpy(), expected[k].numpy(), rtol=1e-12)
    assert row.grad(ember.tensor(g, dtype="float64"), ea, eb, False, True)[0] is None


def test_the_cast_rule_casts_back():
    row = PRIMITIVES["cast_float64"]
    got = row.grad(ember.tensor([1.5, -2.0], dtype="float64"), ember.float32)
    assert got.dtype == ember.float32 and got.tolist() == [1.5, -2.0]
