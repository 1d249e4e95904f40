"""The wrapper backend ``Lazy`` (ember/backends/lazy): every kernel of the backend it wraps,
the fusable primitives deferred into Chains, every other kernel computing them first."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
from ember.backends import lazy
from ember.backends.base import kernel_names
from ember.backends.lazy import Chain, table
from ember.backends.lazy.chain import force

pytestmark = pytest.mark.numpy_only  # the NumPy backend is the one that fuses

N = lazy.MIN_NUMEL


@pytest.fixture
def be():
    return ember.Device("cpu").backend


def test_the_wrapper_has_every_kernel_of_the_wrapped_backend(be):
    inner = be.inner
    for name in kernel_names(type(inner)):
        assert callable(getattr(be, name)), name
    assert be.Array is inner.Array and be.name == inner.name and be.xp is inner.xp


def test_each_fusable_row_names_a_kernel_and_its_c_expressions(be):
    for op, row in table.TABLE.items():
        assert callable(getattr(be, row.kernel)), op
        assert set(row.dtypes) <= set(table.FLOATS + table.INTS)
        if op.startswith("cast_"):
            assert (row.c_float is None) != (row.c_double is None)
        else:
            assert row.c_float.count("{") == row.c_double.count("{") == row.arity


def test_fusable_kernels_defer_large_operands_only(be):
    big = np.linspace(-2, 2, N).copy()
    small = np.arange(8, dtype=np.float64)
    out = be.ew_mul(big, 2.0)
    assert type(out) is Chain and out.shape == big.shape and out.dtype == big.dtype
    assert type(be.ew_mul(small, 2.0)) is np.ndarray
    assert type(be.ew_add(big, small[:1])) is np.ndarray  # a broadcast computes at once
    assert type(be.ew_add(big, big.astype(np.float32))) is np.ndarray  # two dtypes
    assert type(be.ew_exp(np.arange(N, dtype=np.int64))) is np.ndarray  # not a fusable dtype
    chained = be.ew_exp(be.ew_add(out, 1.0))
    assert type(chained) is Chain and chained.depth == 3
    np.testing.assert_allclose(force(chained), np.exp(big * 2.0 + 1.0), rtol=1e-15)  # C libm


def test_a_view_is_not_deferred(be):
    base = np.arange(2 * N, dtype=np.float32)
    assert type(be.ew_add(base[:N], base[N:])) is np.ndarray  # may be its owner's to write


def test_other_kernels_compute_their_chain_arguments(be):
    a = np.arange(2 * N, dtype=np.float32).reshape(2, N).copy()
    c = be.ew_mul(a, 3.0)
    assert type(c) is Chain
    moved = be.mv_permute(c, (1, 0))
    np.testing.assert_array_equal(moved, (a * np.float32(3.0)).T)
    assert c.operands is None  # computed once, kept on the Chain
    joined = be.segments_cat([c, a], 0)  # a Chain inside a sequence argument
    np.testing.assert_array_equal(joined, np.concatenate([a * np.float32(3.0), a]))
    assert be.realize(be.ew_neg(a)).__class__ is np.ndarray


def test_a_chain_sum_reads_the_expression_in_one_pass(be):
    a = np.linspace(-1, 1, 2 * N).reshape(2, N).copy()
    c = be.ew_add(be.ew_mul(a, a), 1.0)
    total = be.reduce_sum(c, (0, 1), False, ember.float64)
    np.testing.assert_allclose(total, (a * a + 1.0).sum(), rtol=1e-12)
    rows = be.reduce_sum(c, (1,), True, ember.float64)
    np.testing.assert_allclose(rows, (a * a + 1.0).sum(1, keepdims=True), rtol=1e-12)


def test_a_recorded_result_is_computed_at_once():
    x = ember.ones(N, requires_grad=True)
    y = x * 2.0 + 1.0
    assert type(y._data) is np.ndarray  # a graph saves values, not expressions
    u = ember.ones(N) * 2.0 + 1.0
    assert type(u._data) is Chain and u._data.operands is not None
    y.sum().backward()
    assert x.grad.tolist()[:2] == [2.0, 2.0]


def test_other_kernels_are_the_wrapped_ones_while_no_chain_exists():
    # in a process of its own: no Chain left alive by another test
    code = textwrap.dedent("""
        import threading
        import numpy as np
        import ember
        from ember.backends.lazy import MIN_NUMEL as N
        be = ember.Device("cpu").backend
        inner = be.inner
        assert be.mv_permute == inner.mv_permute  # no wrapper frame while nothing defers
        a = np.ones((2, N), dtype=np.float32)
        c = be.ew_mul(a, 3.0)
        assert be.mv_permute != inner.mv_permute  # a Chain exists: kernels compute it first
        seen = []
        worker = threading.Thread(target=lambda: seen.append(be.mv_permute(c, (1, 0))))
        worker.start()
        worker.join()
        np.testing.assert_array_equal(seen[0], np.full((N, 2), 3.0, np.float32))
        del c
        assert be.mv_permute == inner.mv_permute
        d = be.ew_add(be.ew_mul(a, 2.0), 1.0)  # a Chain holding another: the last freed counts
        assert be.mv_permute != inner.mv_permute
        np.testing.assert_array_equal(be.mv_reshape(d, (-1,))[:2], [3.0, 3.0])
        del d
        assert be.mv_permute == inner.mv_permute
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, EMBER_DEVICE="cpu"))
    assert out.stdout.strip() == "ok", out.stderr


def test_the_operators_take_the_wrapped_kernel_below_the_fusing_size(be):
    kernel, eager, below = be.ew_operator("ew_mul", ember.float32)
    assert kernel is be.ew_mul and eager is be.inner.ew_operator("ew_mul", ember.float32)[1]
    assert below == N * 4  # bytes of float32: arrays this small never fuse
    assert type(kernel(np.ones(N, np.float32), 2.0)) is Chain
    x = ember.ones(N) * 2.0  # at the size: the short path defers
    y = ember.ones(N - 1) * 2.0  # below it: the wrapped kernel, computed at once
    assert type(x._data) is Chain and type(y._data) is np.ndarray
    assert y.sum().item() == 2.0 * (N - 1)


def test_the_wrapped_abilities_are_read_without_a_lookup_hook(be):
    for name in ("has_layout", "writes_in_place", "fuses", "keeps_subnormals", "name", "Array",
                 "device"):
        assert vars(be)[name] == getattr(be.inner, name), name
    assert be.eager is False and be.inner.eager is True
