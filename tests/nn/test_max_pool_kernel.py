"""max_pool2d's kernels (``nn_max_pool2d``, its gradient and indices) against torch: values,
``return_indices`` and gradients, specials (NaN, -inf, signed zeros), padding, dilation,
ceil_mode, overlapping windows, unbatched, empty and non-contiguous inputs; and the NumPy
backend's compiled kernels (ember/backends/numpy/jit/maxpool.py) taking PyTorch's summation
order, on any thread count, and their NumPy path."""

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from ember.backends.numpy.jit import maxpool
from oracle import on_device

# (input shape, kernel, stride, padding, dilation, ceil_mode)
CASES = [((2, 3, 8, 8), 2, 2, 0, 1, False),
         ((2, 3, 9, 11), 3, 1, 1, 1, False),          # overlapping: up to 9 windows an element
         ((1, 2, 10, 7), (3, 2), (2, 1), (1, 1), (2, 3), True),
         ((3, 9, 9), 3, 2, 1, 1, True),                # unbatched
         ((2, 1, 5, 5), 2, 3, 1, 2, True),             # windows past the input: none inside
         ((0, 3, 4, 4), 2, 2, 0, 1, False),
         ((2, 3, 1, 1), 1, 1, 0, 1, False)]


def _input(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape)
    flat = x.reshape(-1)
    if flat.size > 40:  # specials, ties and signed zeros
        flat[[3, 17, 30]] = np.nan
        flat[5:12] = -np.inf
        flat[20:24] = 0.0
        flat[24:28] = -0.0
        flat[33:37] = 1.25
    return x.astype(dtype)


def _run(x_np, args, dtype, view=None):
    """ember's and torch's (out, indices, input gradient) of max pooling ``x_np``."""
    g = None
    results = []
    for lib, fn in ((ember, F.max_pool2d), (torch, torch.nn.functional.max_pool2d)):
        x = lib.tensor(x_np, requires_grad=True)
        xv = view(x) if view else x
        out, idx = fn(xv, *args, return_indices=True)
        if g is None:
            g = np.random.default_rng(1).normal(size=tuple(out.shape)).astype(dtype)
        if lib is ember:
            grad = out.backward(ember.tensor(g)).get(x).numpy()
        else:
            grad = torch.autograd.grad(out, x, torch.tensor(g))[0].numpy()
        results.append((np.asarray(out.detach().numpy()), np.asarray(idx.numpy()), grad))
    return results


@pytest.mark.parametrize("dtype", on_device(["float32", "float64"]))
@pytest.mark.parametrize("case", CASES, ids=lambda c: str(c[0]) + "-" + str(c[1:]))
def test_values_indices_and_gradients_match_torch(case, dtype):
    shape, *args = case
    (eo, ei, eg), (to, ti, tg) = _run(_input(shape, dtype), args, dtype)
    np.testing.assert_array_equal(eo, to)          # (NaN equals NaN; -0.0 equals 0.0)
    np.testing.assert_array_equal(ei, ti)
    assert ei.dtype == np.int64
    np.testing.assert_allclose(eg, tg, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", on_device(["float32"]))
def test_a_non_contiguous_input(dtype):
    x = _input((2, 4, 12, 10), dtype)
    (eo, ei, eg), (to, ti, tg) = _run(x, (3, 2, 1), dtype, view=lambda t: t.transpose(2, 3))
    np.testing.assert_array_equal(eo, to)
    np.testing.assert_array_equal(ei, ti)
    np.testing.assert_allclose(eg, tg, rtol=1e-6, atol=1e-6)


@pytest.mark.numpy_only  # the NumPy backend's compiled kernels
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES[:5], ids=lambda c: str(c[0]))
def test_the_compiled_gradient_adds_in_pytorchs_order(compiled_kernels, jit_launches,
                                                      monkeypatch, case, dtype):
    """Overlapping windows add up at an element in window order, as PyTorch's CPU kernel:
    the same bits, on one thread or two."""
    shape, *args = case
    x = _input(shape, dtype)
    runs = []
    for threads in (1, 2):
        monkeypatch.setattr(maxpool.jit, "num_threads", lambda: threads)
        runs.append(_run(x, args, dtype))
    for (eo, ei, eg), (to, ti, tg) in runs:
        np.testing.assert_array_equal(eg, tg)
        np.testing.assert_array_equal(eo, to)
        # a tie of 0.0 and -0.0 keeps the first in kernel order, as PyTorch's scan
        np.testing.assert_array_equal(np.signbit(eo), np.signbit(to))
    assert {"ember_max_pool2d_fwd_" + ("f32" if dtype == "float32" else "f64"),
            "ember_max_pool2d_bwd_" + ("f32" if dtype == "float32" else "f64")} <= \
        {name for name, ok in jit_launches if ok}


@pytest.mark.numpy_only
def test_a_gradient_whose_kernel_still_compiles_adds_the_same_way(compiled_kernels,
                                                                     monkeypatch):
    x = _input((2, 3, 9, 11), "float32")
    kernel = maxpool._kernel
    monkeypatch.setattr(maxpool, "_kernel", lambda dtype, grad: None if grad else
                        kernel(dtype, grad))
    (_, _, eg), (_, _, tg) = _run(x, (3, 1, 1), "float32")
    np.testing.assert_array_equal(eg, tg)


@pytest.mark.numpy_only
def test_other_dtypes_take_the_numpy_path():
    x = ember.tensor(_input((2, 3, 8, 8), "float16"))
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    t = torch.tensor(_input((2, 3, 8, 8), "float16"))
    to, ti = torch.nn.functional.max_pool2d(t, 2, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), to.numpy())
    np.testing.assert_array_equal(idx.numpy(), ti.numpy())
    assert maxpool.forward(x._data, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), (4, 4)) is None
