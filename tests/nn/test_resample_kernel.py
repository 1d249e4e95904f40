"""interpolate's resampling kernels (``nn_resample``, ``nn_resample_grad``) against torch: every
mode, values and input gradients, double backward, and the NumPy backend's compiled kernels
against its NumPy path and the base default."""

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from ember.backends.base import Backend
from oracle import engine_devices, on_device

TOL = {"float32": dict(rtol=1e-5, atol=1e-5), "float64": dict(rtol=1e-12, atol=1e-12)}

# (mode, extra arguments): every mode, with and without align_corners where it applies
MODES = [("nearest", {}), ("nearest-exact", {}), ("area", {}),
         ("linear", dict(align_corners=False)), ("linear", dict(align_corners=True)),
         ("bilinear", dict(align_corners=False)), ("bilinear", dict(align_corners=True)),
         ("bicubic", dict(align_corners=False)), ("bicubic", dict(align_corners=True)),
         ("trilinear", dict(align_corners=False)), ("trilinear", dict(align_corners=True)),
         ("bilinear", dict(antialias=True)), ("bicubic", dict(antialias=True)),
         ("bilinear", dict(antialias=True, align_corners=True))]
RANK = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
# (spatial input shape by rank, then the sizes asked for): up, down, mixed, by size and by scale
SHAPES = {3: (9,), 4: (7, 6), 5: (4, 5, 6)}
SIZES = [("up-scale", dict(scale_factor=2)), ("down-scale", dict(scale_factor=0.5)),
         ("mixed-scale", dict(scale_factor=1.7)),
         ("up-size", {3: dict(size=13), 4: dict(size=(11, 9)), 5: dict(size=(6, 7, 9))}),
         ("down-size", {3: dict(size=4), 4: dict(size=(3, 4)), 5: dict(size=(2, 3, 3))}),
         ("recompute", dict(scale_factor=1.5, recompute_scale_factor=True))]


def _sizes(kw, rank):
    return kw[rank] if rank in kw else kw


def _pair(a, dtype, requires_grad=True):
    a = a.astype(dtype)
    return (ember.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def _close(e, t, dtype):
    np.testing.assert_allclose(e.numpy(), t.detach().numpy(), **TOL[dtype])


def _check(x_np, dtype, view=None, **kw):
    """Values and the input's gradient of ``interpolate(**kw)`` against torch's."""
    ex, tx = _pair(x_np, dtype)
    xe, xt = (view(ex), view(tx)) if view else (ex, tx)
    eo = F.interpolate(xe, **kw)
    to = torch.nn.functional.interpolate(xt, **kw)
    _close(eo, to, dtype)
    g = np.random.default_rng(1).normal(size=tuple(to.shape)).astype(dtype)
    found = eo.backward(ember.tensor(g))
    (tg,) = torch.autograd.grad(to, [tx], torch.tensor(g))
    _close(found.get(ex), tg, dtype)


@pytest.mark.parametrize("dtype", on_device(["float32", "float64"]))
@pytest.mark.parametrize("sizes", SIZES, ids=[s for s, _ in SIZES])
@pytest.mark.parametrize("mode,extra", MODES, ids=[f"{m}-{e}" for m, e in MODES])
def test_every_mode_matches_torch(mode, extra, sizes, dtype):
    ranks = [RANK[mode]] if mode in RANK else [3, 4, 5]
    for rank in ranks:
        shape = (2, 3) + SHAPES[rank]
        x = np.random.default_rng(rank).normal(size=shape)
        _check(x, dtype, mode=mode, **extra, **_sizes(sizes[1], rank))


@pytest.mark.parametrize("view", [lambda t: t.transpose(2, 3), lambda t: t[:, :, ::2, 1:],
                                  lambda t: t.permute(1, 0, 2, 3)],
                         ids=["transposed", "stepped", "permuted"])
@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "area"])
def test_a_non_contiguous_input(view, mode):
    x = np.random.default_rng(0).normal(size=(3, 4, 8, 7))
    _check(x, "float32", view=view, mode=mode, size=(5, 11))


def test_one_input_and_one_output_position():
    for kw in (dict(size=(1, 5)), dict(size=(6, 1)), dict(scale_factor=3)):
        for mode, extra in (("bilinear", dict(align_corners=True)), ("bicubic", {}),
                            ("nearest", {})):
            _check(np.random.default_rng(0).normal(size=(1, 2, 1, 1)), "float64", mode=mode,
                   **extra, **kw)


@pytest.mark.parametrize("dtype", on_device(["float64"]))
@pytest.mark.parametrize("align_corners", [False, True])
def test_double_backward_of_bilinear_matches_torch(dtype, align_corners):
    rng = np.random.default_rng(3)
    x_np, w_np = rng.normal(size=(2, 3, 5, 4)), rng.normal(size=(2, 3, 8, 9))
    ex, tx = _pair(x_np, dtype)
    kw = dict(size=(8, 9), mode="bilinear", align_corners=align_corners)
    # the output cubed, so that the gradient depends on x and its gradient again
    eo = (F.interpolate(ex, **kw) ** 3 * ember.tensor(w_np)).sum()
    to = (torch.nn.functional.interpolate(tx, **kw) ** 3 * torch.tensor(w_np)).sum()
    gx = eo.backward(create_graph=True).get(ex)
    (tgx,) = torch.autograd.grad(to, [tx], create_graph=True)
    _close(gx, tgx, dtype)
    second = (gx * gx).sum().backward().get(ex)
    (expected,) = torch.autograd.grad((tgx * tgx).sum(), [tx])
    _close(second, expected, dtype)


def test_modules_and_upsample_functions_match_torch():
    import ember.torch as et
    x = np.random.default_rng(0).normal(size=(2, 3, 4, 5)).astype("float32")
    for name, kw in (("Upsample", dict(scale_factor=2, mode="bilinear")),
                     ("UpsamplingBilinear2d", dict(size=7)),
                     ("UpsamplingNearest2d", dict(scale_factor=3))):
        got = getattr(et.nn, name)(**kw)(ember.tensor(x))
        _close(got, getattr(torch.nn, name)(**kw)(torch.tensor(x)), "float32")
    tf = torch.nn.functional
    for e, t in ((et.nn.functional.upsample_bilinear(ember.tensor(x), scale_factor=2),
                  tf.upsample_bilinear(torch.tensor(x), scale_factor=2)),
                 (et.nn.functional.upsample_nearest(ember.tensor(x), size=(3, 9)),
                  tf.upsample_nearest(torch.tensor(x), size=(3, 9)))):
        _close(e, t, "float32")


@pytest.mark.half_precision
@pytest.mark.parametrize("dtype", on_device(["float16", "bfloat16"]))
def test_half_precision(dtype):
    x = ember.tensor(np.random.default_rng(0).normal(size=(1, 2, 4, 4)).astype("float32"))
    xh = ember.tensor(x.cast(getattr(ember, dtype)), requires_grad=True)
    out = F.interpolate(xh, scale_factor=2, mode="bilinear")
    assert out.dtype is xh.dtype and out.shape == (1, 2, 8, 8)
    ref = torch.nn.functional.interpolate(torch.tensor(x.numpy()), scale_factor=2,
                                          mode="bilinear")
    np.testing.assert_allclose(out.cast(ember.float32).numpy(), ref.numpy(), atol=0.05)
    out.sum().backward()
    assert xh.grad.dtype is xh.dtype
    np.testing.assert_allclose(xh.grad.cast(ember.float32).numpy(), 4.0, atol=0.05)


# -- the kernels themselves ------------------------------------------------------------------

def _taps(rows, n, k, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, size=(rows, k)), rng.normal(size=(rows, k)).astype(dtype)


def _reference(x, axis, index, weight):
    """``nn_resample`` by its definition, in float64."""
    x = np.moveaxis(x.astype(np.float64), axis, -1)
    out = np.zeros(x.shape[:-1] + (index.shape[0],))
    for i in range(index.shape[0]):
        for k in range(index.shape[1]):
            out[..., i] += weight[i, k] * x[..., index[i, k]]
    return np.moveaxis(out, -1, axis)


def _reference_grad(g, axis, index, weight, n):
    g = np.moveaxis(g.astype(np.float64), axis, -1)
    out = np.zeros(g.shape[:-1] + (n,))
    for i in range(index.shape[0]):
        for k in range(index.shape[1]):
            out[..., index[i, k]] += weight[i, k] * g[..., i]
    return np.moveaxis(out, -1, axis)


CASES = [((5, 7, 6), 2, 9, 2), ((5, 7, 6), 1, 3, 4), ((4, 3, 8), 2, 8, 1), ((4, 3, 8), 0, 2, 3),
         ((2, 3, 64, 64), 3, 128, 2), ((2, 3, 64, 64), 2, 128, 2), ((2, 3, 40, 5), 2, 17, 5)]


@pytest.mark.once
@pytest.mark.parametrize("device", engine_devices(), ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,axis,rows,k", CASES, ids=[str(c) for c in CASES])
def test_the_kernels_and_the_base_default_follow_the_definition(device, dtype, shape, axis,
                                                                rows, k):
    be = device.backend
    be = getattr(be, "inner", be)
    x = np.random.default_rng(2).normal(size=shape).astype(dtype)
    n = shape[axis]
    index, weight = _taps(rows, n, k, dtype)
    g = np.random.default_rng(3).normal(size=shape[:axis] + (rows,) + shape[axis + 1:])
    g = g.astype(dtype)
    want = _reference(x, axis, index, weight)
    want_grad = _reference_grad(g, axis, index, weight, n)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    def arr(a):
        return ember.tensor(a, device=device)._data

    args = [arr(a) for a in (index.astype(np.int64), weight)]
    for forward, transpose in ((be.nn_resample, be.nn_resample_grad),
                               ((lambda *a: Backend.nn_resample(be, *a)),
                                (lambda *a: Backend.nn_resample_grad(be, *a)))):
        out = forward(arr(x), axis, *args)
        np.testing.assert_allclose(be.to_host(out), want, **tol)
        gx = transpose(arr(g), axis, *args, n)
        np.testing.assert_allclose(be.to_host(gx), want_grad, **tol)


@pytest.mark.numpy_only
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,axis,rows,k", CASES, ids=[str(c) for c in CASES])
def test_the_compiled_kernels_match_the_numpy_path(compiled_kernels, jit_launches, dtype, shape,
                                                   axis, rows, k):
    from ember.backends.numpy import jit
    from ember.backends.numpy.jit import resample
    x = np.random.default_rng(2).normal(size=shape).astype(dtype)
    n = shape[axis]
    index, weight = _taps(rows, n, k, dtype)
    g = np.random.default_rng(3).normal(size=shape[:axis] + (rows,) + shape[axis + 1:])
    g = g.astype(dtype)
    out = resample.nn_resample(x, axis, index, weight)
    gx = resample.nn_resample_grad(g, axis, index, weight, n)
    # a strided input: copied to a contiguous one first
    strided = resample.nn_resample(np.flip(x, axis=-1), axis, index, weight)
    assert jit_launches and all(ok for name, ok in jit_launches if "resample" in name)
    jit_launches.clear()
    jit.kernel = lambda name, source: None  # the NumPy path (the fixture restores the spy)
    np.testing.assert_array_equal(out, resample.nn_resample(x, axis, index, weight))
    np.testing.assert_array_equal(strided, resample.nn_resample(np.flip(x, axis=-1), axis, index,
                                                                weight))
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gx, resample.nn_resample_grad(g, axis, index, weight, n), **tol)
    assert out.dtype == gx.dtype == np.dtype(dtype)


@pytest.mark.numpy_only
def test_interpolate_takes_the_compiled_kernel(compiled_kernels, jit_launches):
    x = ember.randn(2, 3, 16, 16, requires_grad=True)
    F.interpolate(x, scale_factor=2, mode="bilinear").sum().backward()
    assert ("ember_resample_f32", True) in jit_launches
    np.testing.assert_allclose(x.grad.numpy(), 4.0, rtol=1e-6)


@pytest.mark.numpy_only
def test_the_compiled_kernels_on_two_threads_give_one_threads_values(compiled_kernels):
    from ember.backends.numpy.jit import resample
    x = np.random.default_rng(0).normal(size=(8, 16, 64, 64)).astype(np.float32)
    index, weight = _taps(100, 64, 3, np.float32)
    results = []
    before = ember.get_num_threads()
    try:
        for threads in (1, 2):
            ember.set_num_threads(threads)
            results.append([resample.nn_resample(x, a, index, weight) for a in (2, 3)]
                           + [resample.nn_resample_grad(x[..., :50, :], 2, index[:50],
                                                        weight[:50], 64)])
    finally:
        ember.set_num_threads(before)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
