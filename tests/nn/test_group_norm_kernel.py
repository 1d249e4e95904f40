"""group_norm's fused kernels (``nn_group_norm``, ``nn_group_norm_grads``) against torch: values
and the gradients of input, weight and bias, higher order too, and the NumPy backend's compiled
kernels against its NumPy path."""

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from oracle import on_device

TOL = {"float32": dict(rtol=2e-5, atol=2e-5), "float64": dict(rtol=1e-10, atol=1e-10)}


def _pair(a, dtype, requires_grad=True):
    """The ember tensor and the torch tensor of NumPy ``a`` as ``dtype`` (both leaves)."""
    a = a.astype(dtype)
    return (ember.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def _close(e, t, dtype, tol=None):
    np.testing.assert_allclose(e.numpy(), t.detach().numpy(), **(tol or TOL[dtype]))


def _check(x_np, groups, dtype, affine=(True, True), view=None, tol=None):
    rng = np.random.default_rng(1)
    c = x_np.shape[1]
    ex, tx = _pair(x_np, dtype)
    params = [_pair(rng.normal(size=c) + 1.0, dtype) if on else (None, None) for on in affine]
    (ew, tw), (eb, tb) = params
    xe, xt = (view(ex), view(tx)) if view else (ex, tx)
    eo = F.group_norm(xe, groups, ew, eb, eps=1e-5)
    # (torch's backward fails on a bias without weight: the oracle scales by ones instead)
    to = torch.nn.functional.group_norm(xt, groups, torch.ones(c, dtype=xt.dtype) if tw is None
                                        else tw, tb, eps=1e-5)
    _close(eo, to, dtype, tol)
    g = rng.normal(size=tuple(to.shape)).astype(dtype)
    leaves = [(a, b) for a, b in ((ex, tx), (ew, tw), (eb, tb)) if a is not None]
    found = eo.backward(ember.tensor(g))
    eg = [found.get(a) for a, _ in leaves]
    tg = torch.autograd.grad(to, [b for _, b in leaves], torch.tensor(g))
    for e, t in zip(eg, tg):
        _close(e, t, dtype, tol)


SHAPES = [((6, 4), 2), ((3, 6, 7), 3), ((2, 8, 5, 4), 4), ((4, 64, 16, 16), 8),
          ((2, 6, 3, 4), 1), ((2, 6, 3, 4), 6)]


@pytest.mark.parametrize("dtype", on_device(["float32", "float64"]))
@pytest.mark.parametrize("shape,groups", SHAPES, ids=[f"{s}-{g}" for s, g in SHAPES])
def test_values_and_gradients_match_torch(shape, groups, dtype):
    _check(np.random.default_rng(0).normal(2.0, 3.0, size=shape), groups, dtype)


def test_a_large_mean():
    # float32 holds 1000 +- 0.5 to 6e-5: xhat to about 1e-4 whoever computes it, and the
    # weight's gradient (sums of 512 terms g * xhat) to about 1e-2
    _check(np.random.default_rng(0).normal(1000.0, 0.5, size=(2, 8, 16, 16)), 4, "float32",
           tol=dict(rtol=1e-3, atol=3e-2))


def _far_first_values():
    # each group's statistics about its mean: a one-pass variance about the first value (an
    # outlier here) lost 8e-4 of the result to cancellation (PyTorch and float64: 2e-6)
    x = np.random.default_rng(2).normal(size=(4, 64, 32, 32))
    x[:, :, 0, 0] = 30.0
    x[:, 0, 0, 0] = -40.0
    ref = torch.nn.functional.group_norm(torch.tensor(x), 8).float().numpy()
    got = F.group_norm(ember.tensor(x.astype(np.float32)), 8).numpy()
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-5)


def test_a_group_whose_first_value_is_far_from_its_mean():
    _far_first_values()


@pytest.mark.numpy_only
def test_the_compiled_kernel_with_a_first_value_far_from_the_mean(compiled_kernels):
    _far_first_values()


@pytest.mark.parametrize("affine", [(False, False), (True, False), (False, True)])
def test_without_weight_or_bias(affine):
    _check(np.random.default_rng(0).normal(size=(3, 8, 10)), 4, "float32", affine)


@pytest.mark.parametrize("view", [lambda t: t.transpose(2, 3), lambda t: t[:, :, ::2]],
                         ids=["transposed", "stepped"])
def test_a_non_contiguous_input(view):
    _check(np.random.default_rng(0).normal(size=(2, 6, 6, 5)), 3, "float32", view=view)


def test_an_empty_batch():
    _check(np.zeros((0, 4, 3)), 2, "float32")


@pytest.mark.parametrize("dtype", on_device(["float64"]))
def test_double_backward_matches_torch(dtype):
    rng = np.random.default_rng(3)
    x_np, g_np = rng.normal(size=(2, 6, 5)), rng.normal(size=(2, 6, 5))
    ex, tx = _pair(x_np, dtype)
    (ew, tw), (eb, tb) = _pair(rng.normal(size=6), dtype), _pair(rng.normal(size=6), dtype)
    first = F.group_norm(ex, 3, ew, eb).backward(ember.tensor(g_np), create_graph=True)
    gx, gw = first.get(ex), first.get(ew)
    second = ((gx * gx).sum() + (gw * gw).sum()).backward()
    out = torch.nn.functional.group_norm(tx, 3, tw, tb)
    tgx, tgw = torch.autograd.grad(out, [tx, tw], torch.tensor(g_np), create_graph=True)
    _close(gx, tgx, dtype)
    _close(gw, tgw, dtype)
    expected = torch.autograd.grad((tgx * tgx).sum() + (tgw * tgw).sum(), [tx, tw])
    for e, t in zip((second.get(ex), second.get(ew)), expected):
        _close(e, t, dtype)


def test_module_matches_torch():
    x = np.random.default_rng(0).normal(size=(2, 8, 3, 3)).astype("float32")
    m = ember.nn.GroupNorm(4, 8)
    tm = torch.nn.GroupNorm(4, 8)
    _close(m(ember.tensor(x)), tm(torch.tensor(x)), "float32")


@pytest.mark.numpy_only
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,groups", [((16, 64, 32, 32), 8), ((3, 6, 7), 3), ((5, 4), 4)])
def test_the_compiled_kernels_match_the_default(compiled_kernels, jit_launches, shape,
                                                   groups, dtype):
    from ember.backends.numpy.jit import groupnorm
    rng = np.random.default_rng(0)
    x = rng.normal(1.0, 2.0, size=shape).astype(dtype)
    w, b = (rng.normal(size=shape[1]).astype(dtype) for _ in range(2))
    g = rng.normal(size=shape).astype(dtype)
    edt = getattr(ember, dtype)
    out, saved = groupnorm.nn_group_norm(x, w, b, groups, 1e-5, edt)
    assert len(saved) == 5 and any(ok for name, ok in jit_launches if "group_norm" in name)
    grads = groupnorm.nn_group_norm_grads(g, saved, True, True, True, edt, edt, edt)
    jit_launches.clear()
    from ember.backends.numpy import jit
    jit.kernel = lambda name, source: None  # the base default (the fixture restores the spy)
    ref_out, ref_saved = groupnorm.nn_group_norm(x, w, b, groups, 1e-5, edt)
    assert len(ref_saved) == 4
    ref = groupnorm.nn_group_norm_grads(g, ref_saved, True, True, True, edt, edt, edt)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(out, ref_out, **tol)
    for a, r in zip(grads, ref):
        np.testing.assert_allclose(a, r, **tol)
    # the compiled backward of a compiled forward's saved values, without its kernel
    for a, r in zip(groupnorm.nn_group_norm_grads(g, saved, True, True, True, edt, edt, edt), ref):
        np.testing.assert_allclose(a, r, **tol)


@pytest.mark.numpy_only
def test_the_compiled_sums_do_not_depend_on_timing(compiled_kernels):
    rng = np.random.default_rng(0)
    x = ember.tensor(rng.normal(size=(32, 64, 24, 24)).astype("float32"), requires_grad=True)
    w = ember.tensor(rng.normal(size=64).astype("float32"), requires_grad=True)
    first = None
    for _ in range(3):
        found = (F.group_norm(x, 8, w) * x).sum().backward()
        gx, gw = found.get(x), found.get(w)
        if first is None:
            first = (gx.numpy(), gw.numpy())
        np.testing.assert_array_equal(gw.numpy(), first[1])
        np.testing.assert_array_equal(gx.numpy(), first[0])
