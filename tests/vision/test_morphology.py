"""Tests of ember/vision/morphology.py: erode, dilate, MorphOptions, BorderType."""

import numpy as np
import pytest
import scipy.ndimage as ndi

import ember
from ember.vision import BorderType, MorphOptions
from oracle import (assert_close, assert_unchanged, device_dtypes, ember_tensor, engine_devices,
                    layouts, snapshot)

SCIPY_MODES = {"constant": "constant", "replicate": "nearest", "reflect": "reflect",
               "reflect101": "mirror", "wrap": "wrap"}
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8", "bool"]


# -- the oracles ------------------------------------------------------------------------------

def _border_index(p, n, border):
    """OpenCV's borderInterpolate: the source index read for index ``p`` (-1: the constant)."""
    if 0 <= p < n:
        return p
    if border == "constant":
        return -1
    if border == "replicate":
        return 0 if p < 0 else n - 1
    if border == "wrap":
        return p % n
    if n == 1:
        return 0
    delta = 1 if border == "reflect101" else 0
    while not 0 <= p < n:
        p = -p - 1 + delta if p < 0 else n - 1 - (p - n) - delta
    return p


def brute_morph(x, kernel, op, anchor=None, iterations=1, border="constant", value=None):
    """Pixel by pixel, straight from the definition (the test's own reference)."""
    kh, kw = kernel.shape
    ay, ax = (kh // 2, kw // 2) if anchor is None else anchor
    if value is None:
        if x.dtype == bool:
            value = op == "erode"
        elif x.dtype.kind in "iu":
            info = np.iinfo(x.dtype)
            value = info.max if op == "erode" else info.min
        else:
            value = np.inf if op == "erode" else -np.inf
    pick = min if op == "erode" else max
    H, W, C = x.shape
    cur = np.array(x, copy=True)
    cells = [(i, j) for i in range(kh) for j in range(kw) if kernel[i, j]]
    for _ in range(iterations):
        out = np.empty_like(cur)
        for y in range(H):
            for xx in range(W):
                for c in range(C):
                    vals = []
                    for i, j in cells:
                        sy = _border_index(y + i - ay, H, border)
                        sx = _border_index(xx + j - ax, W, border)
                        vals.append(value if sy < 0 or sx < 0 else cur[sy, sx, c])
                    if any(isinstance(v, float) and np.isnan(v) for v in vals) or any(
                            np.isnan(v) for v in vals if isinstance(v, np.floating)):
                        out[y, xx, c] = np.nan
                    else:
                        out[y, xx, c] = pick(vals)
        cur = out
    return cur


def scipy_morph(x, kernel, op, anchor=None, border="constant", value=None):
    """scipy.ndimage's minimum/maximum filter with the same footprint, origin and mode."""
    kh, kw = kernel.shape
    ay, ax = (kh // 2, kw // 2) if anchor is None else anchor
    if value is None:
        value = np.inf if op == "erode" else -np.inf
    fp = kernel[:, :, None]
    origin = (ay - kh // 2, ax - kw // 2, 0)
    mode = SCIPY_MODES[border]
    if op == "erode":
        a = ndi.minimum_filter(x, footprint=fp, origin=origin, mode=mode, cval=value)
        b = ndi.grey_erosion(x, footprint=fp, origin=origin, mode=mode, cval=value)
        np.testing.assert_array_equal(a, b)
        return a
    a = ndi.maximum_filter(x, footprint=fp, origin=origin, mode=mode, cval=value)
    # grey_dilation reflects the footprint (the mathematical dilation): undo it, and its origin
    flip_origin = (kh // 2 - ay - (1 - kh % 2), kw // 2 - ax - (1 - kw % 2), 0)
    b = ndi.grey_dilation(x, footprint=fp[::-1, ::-1], origin=flip_origin, mode=mode, cval=value)
    np.testing.assert_array_equal(a, b)
    return a


def random_image(rng, shape, dtype):
    if dtype == "bool":
        return rng.random(shape) < 0.6
    if dtype in ("int64", "int32", "int8"):
        return rng.integers(-50, 50, size=shape).astype(dtype)
    if dtype == "uint8":
        return rng.integers(0, 256, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype("float32" if dtype == "bfloat16" else dtype)


KERNELS = {
    "cross3": np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], bool),
    "rect3x5": np.ones((3, 5), bool),
    "even2x4": np.array([[1, 0, 1, 1], [0, 1, 1, 0]], bool),
    "single": np.ones((1, 1), bool),
    "row1x3": np.ones((1, 3), bool),
    "offcell": np.array([[0, 0, 0], [0, 0, 0], [0, 0, 1]], bool),
}


# -- values against scipy ---------------------------------------------------------------------

@pytest.mark.parametrize("op", ["erode", "dilate"])
@pytest.mark.parametrize("kname", sorted(KERNELS))
@pytest.mark.parametrize("border", sorted(SCIPY_MODES))
def test_float_matches_scipy(rng, op, kname, border):
    kernel = KERNELS[kname]
    x = rng.standard_normal((7, 9, 2))
    out = getattr(ember_tensor(x), op)(ember_tensor(kernel), border_type=border)
    assert out.dtype.name == "float64"
    assert_close(out, scipy_morph(x, kernel, op, border=border))


@pytest.mark.parametrize("op", ["erode", "dilate"])
@pytest.mark.parametrize("anchor", [(0, 0), (1, 3), (0, 2), (1, 0)])
@pytest.mark.parametrize("border", ["constant", "replicate", "reflect101"])
def test_anchors_match_scipy(rng, op, anchor, border):
    kernel = KERNELS["even2x4"]
    x = rng.standard_normal((6, 8, 3))
    opts = MorphOptions(anchor=anchor, border_type=border)
    out = getattr(ember_tensor(x), op)(ember_tensor(kernel), opts)
    assert_close(out, scipy_morph(x, kernel, op, anchor=anchor, border=border))
    assert_close(out, brute_morph(x, kernel, op, anchor=anchor, border=border))


@pytest.mark.parametrize("op", ["erode", "dilate"])
@pytest.mark.parametrize("shape", [(5, 6, 2), (1, 1, 1), (2, 7, 1), (0, 4, 2), (3, 0, 2),
                                   (3, 4, 0)])
def test_layouts_and_sizes(rng, op, shape):
    kernel = KERNELS["cross3"]
    x = rng.standard_normal(shape)
    expected = scipy_morph(x, kernel, op) if x.size else x
    for name, lx in layouts(x):
        t = ember_tensor(lx)
        before = snapshot(t)
        out = getattr(t, op)(ember_tensor(kernel))
        assert out.shape == shape
        assert_close(out, expected)
        assert_unchanged([t], before)
        assert not np.shares_memory(out.numpy(), t.numpy())


# -- dtypes, bool, the brute-force reference ---------------------------------------------------

@pytest.mark.parametrize("op", ["erode", "dilate"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_match_brute_force(rng, op, dtype):
    kernel = KERNELS["even2x4"]
    x = random_image(rng, (5, 6, 2), dtype)
    t = ember_tensor(x, dtype if dtype == "bfloat16" else None)
    xs = np.asarray(t.numpy())
    out = getattr(t, op)(ember_tensor(kernel))
    assert out.dtype.name == dtype
    exp = brute_morph(xs, kernel, op)
    assert_close(out, exp.astype(np.float32) if dtype == "bfloat16" else exp, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool"])
def test_int_and_bool_match_scipy(rng, dtype):
    kernel = KERNELS["cross3"]
    x = random_image(rng, (6, 5, 2), dtype)
    xi = x.astype(np.int64)
    t = ember_tensor(x)
    ero = scipy_morph(xi.astype(float), kernel, "erode").astype(x.dtype)
    dil = scipy_morph(xi.astype(float), kernel, "dilate").astype(x.dtype)
    assert_close(t.erode(ember_tensor(kernel)), ero)
    assert_close(t.dilate(ember_tensor(kernel)), dil)


def test_bool_is_all_and_any():
    x = np.zeros((5, 5, 1), bool)
    x[1:4, 1:4] = True
    k = ember.ones((3, 3), dtype="bool")
    t = ember_tensor(x)
    ero = t.erode(k).numpy()[:, :, 0]
    dil = t.dilate(k).numpy()[:, :, 0]
    assert ero.sum() == 1 and ero[2, 2]
    assert dil.all()


@pytest.mark.parametrize("op", ["erode", "dilate"])
@pytest.mark.parametrize("iterations", [0, 2, 3])
@pytest.mark.parametrize("border", ["constant", "reflect", "wrap"])
def test_iterations_match_brute_force(rng, op, iterations, border):
    kernel = KERNELS["even2x4"]
    x = rng.integers(-9, 9, size=(6, 7, 2))
    t = ember_tensor(x)
    out = getattr(t, op)(ember_tensor(kernel), iterations=iterations, anchor=(1, 1),
                         border_type=border, border_value=4)
    assert_close(out, brute_morph(x, kernel, op, anchor=(1, 1), iterations=iterations,
                                  border=border, value=4))


def test_iterations_equal_a_larger_kernel(rng):
    x = rng.standard_normal((9, 9, 1))
    t = ember_tensor(x)
    k3 = ember.ones((3, 3), dtype="bool")
    k5 = ember.ones((5, 5), dtype="bool")
    assert_close(t.erode(k3, iterations=2), t.erode(k5).numpy())
    assert_close(t.dilate(k3, iterations=2), t.dilate(k5).numpy())


@pytest.mark.parametrize("border", sorted(SCIPY_MODES))
def test_kernel_larger_than_image(rng, border):
    kernel = np.ones((5, 7), bool)
    kernel[0, 0] = False
    x = rng.standard_normal((2, 3, 1))
    for op in ("erode", "dilate"):
        out = getattr(ember_tensor(x), op)(ember_tensor(kernel), border_type=border,
                                           anchor=(1, 5), border_value=0.25)
        assert_close(out, brute_morph(x, kernel, op, anchor=(1, 5), border=border, value=0.25))


def test_border_values(rng):
    x = rng.standard_normal((4, 4, 1))
    k = ember.ones((3, 3), dtype="bool")
    t = ember_tensor(x)
    assert_close(t.erode(k, border_value=-10.0), scipy_morph(x, k.numpy(), "erode", value=-10))
    assert (t.erode(k, border_value=-10.0).numpy()[0] == -10).all()
    assert_close(t.dilate(k, border_value=10), scipy_morph(x, k.numpy(), "dilate", value=10))
    # ignored for other border types, as OpenCV
    assert_close(t.erode(k, border_type="replicate", border_value=-10.0),
                 scipy_morph(x, k.numpy(), "erode", border="replicate"))
    ux = rng.integers(1, 256, size=(3, 4, 1)).astype(np.uint8)
    u = ember_tensor(ux)
    ue = u.erode(k, border_value=0).numpy()
    assert_close(ember_tensor(ue), brute_morph(ux, k.numpy(), "erode", value=0))
    assert (ue[[0, 2]] == 0).all() and (ue[1, 1:3] > 0).all()
    assert_close(u.dilate(k, border_value=255), brute_morph(ux, k.numpy(), "dilate", value=255))
    b = ember_tensor(np.ones((2, 3, 1), bool))  # every pixel sees the border
    assert not b.erode(k, border_value=False).numpy().any()
    assert b.erode(k, border_value=1).numpy().all()


def test_nan_propagates():
    x = np.zeros((5, 5, 1))
    x[2, 2, 0] = np.nan
    k = KERNELS["cross3"]
    for op in ("erode", "dilate"):
        out = getattr(ember_tensor(x), op)(ember_tensor(k)).numpy()[:, :, 0]
        assert np.array_equal(np.isnan(out), ndi.binary_dilation(np.isnan(x[:, :, 0]), k))
        assert_close(ember_tensor(out[:, :, None]), brute_morph(x, k, op))


def test_dilate_is_not_reflected():
    x = np.zeros((1, 5, 1))
    x[0, 2, 0] = 1.0
    k = ember_tensor(np.array([[True, True, False]]))
    # out[x] = max(src[x - 1], src[x]): the one spreads to the right, as OpenCV's dilate
    assert ember_tensor(x).dilate(k).numpy()[0, :, 0].tolist() == [0, 0, 1, 1, 0]
    assert ember_tensor(1 - x).erode(k).numpy()[0, :, 0].tolist() == [1, 1, 0, 0, 1]


def test_options_object_and_keywords():
    opts = MorphOptions(anchor=[0, 1], iterations=2, border_type="REFLECT_101", border_value=3)
    assert opts.anchor == (0, 1) and opts.border_type == BorderType.REFLECT101
    assert opts == MorphOptions((0, 1), 2, "reflect101", 3)
    assert opts != MorphOptions()
    assert repr(MorphOptions()) == ("MorphOptions(anchor=None, iterations=1, "
                                    "border_type='constant', border_value=None)")
    x = np.arange(12.0).reshape(3, 4, 1)
    k = ember.ones((2, 2), dtype="bool")
    t = ember_tensor(x)
    a = t.dilate(k, opts)
    b = t.dilate(k, anchor=(0, 1), iterations=2, border_type="reflect101")
    assert_close(a, b.numpy())
    # keywords override the fields of opts
    c = t.dilate(k, opts, iterations=1)
    assert_close(c, brute_morph(x, k.numpy(), "dilate", anchor=(0, 1), border="reflect101"))
    assert opts.iterations == 2
    assert ember.vision.erode(t, k).shape == (3, 4, 1)
    assert set(ember.vision.morphology.__all__) == {"MorphOptions", "BorderType", "erode",
                                                    "dilate"}


def test_result_carries_no_graph(rng):
    t = ember_tensor(rng.standard_normal((3, 3, 1)), requires_grad=True)
    out = t.erode(ember.ones((3, 3), dtype="bool"))
    assert out.is_leaf and not out.is_require_grad()
    assert_close(out, scipy_morph(t.numpy(), np.ones((3, 3), bool), "erode"))


# -- bad input ---------------------------------------------------------------------------------

def _raises(exc, pattern, fn, *tensors):
    before = snapshot(*tensors)
    with pytest.raises(exc, match=pattern) as info:
        fn()
    assert_unchanged(tensors, before)
    return info.value


@pytest.mark.parametrize("op", ["erode", "dilate"])
def test_bad_inputs_raise(op):
    img = ember.ones((4, 4, 1))
    k = ember.ones((3, 3), dtype="bool")
    f = lambda *a, **kw: (lambda: getattr(img, op)(*a, **kw))  # noqa: E731
    err = _raises(ember.ShapeMismatchError, f"{op}: self has shape \\(4, 4\\) \\(2-d\\); "
                  "expected a 3-d \\(H, W, C\\)", lambda: getattr(ember.ones((4, 4)), op)(k), k)
    assert err.actual == (4, 4)
    _raises(ember.InvalidParameterError, f"{op}: self must be a Tensor",
            lambda: getattr(ember.vision, op)([[[1.0]]], k), k)
    _raises(ember.InvalidParameterError, f"{op}: kernel must be a Tensor, got list",
            f([[True]]), img)
    _raises(ember.KindError, f"{op}: kernel has dtype float32; expected a bool tensor",
            f(ember.ones((3, 3))), img)
    _raises(ember.ShapeMismatchError, f"{op}: kernel has shape \\(3,\\) \\(1-d\\); expected a "
            "2-d", f(ember.ones(3, dtype="bool")), img)
    _raises(ember.InvalidParameterError, f"{op}: kernel of shape \\(3, 3\\) has no True cell",
            f(ember.zeros((3, 3), dtype="bool")), img)
    _raises(ember.InvalidParameterError, f"{op}: kernel of shape \\(0, 3\\) has no True cell",
            f(ember.zeros((0, 3), dtype="bool")), img)
    err = _raises(ember.InvalidParameterError, f"{op}: anchor \\(3, 0\\) is outside the kernel "
                  "of shape \\(3, 3\\); expected 0 <= row < 3", f(k, anchor=(3, 0)), img, k)
    assert err.param == "anchor" and err.value == (3, 0)
    _raises(ember.InvalidParameterError, f"{op}: anchor \\(0, -1\\) is outside",
            f(k, anchor=(0, -1)), img, k)
    _raises(ember.InvalidParameterError, f"{op}: anchor 1 is not a pair of ints",
            f(k, anchor=1), img, k)
    _raises(ember.InvalidParameterError, f"{op}: anchor \\(0.5, 1\\) is not a pair of ints",
            f(k, anchor=(0.5, 1)), img, k)
    for bad in (-1, 1.5, True, "2"):
        err = _raises(ember.InvalidParameterError, f"{op}: iterations .* expected an int >= 0",
                      f(k, iterations=bad), img, k)
        assert err.param == "iterations"
    _raises(ember.InvalidParameterError, f"{op}: border_type 'mirror' is not a border mode; "
            "expected one of 'constant', 'replicate'", f(k, border_type="mirror"), img, k)
    _raises(ember.InvalidParameterError, f"{op}: border_value 'x' is not a number",
            f(k, border_value="x"), img, k)
    _raises(ember.InvalidParameterError, f"{op}: border_value True is a bool; expected a number",
            f(k, border_value=True), img, k)
    _raises(ember.InvalidParameterError, f"{op}: opts must be a MorphOptions or None, got dict",
            f(k, {"iterations": 2}), img, k)
    u8 = ember.ones((2, 2, 1), dtype="uint8")
    _raises(ember.InvalidParameterError, f"{op}: border_value 300 does not fit a uint8 image; "
            "expected an int in \\[0, 255\\]", lambda: getattr(u8, op)(k, border_value=300), u8)
    _raises(ember.InvalidParameterError, f"{op}: border_value 0.5 does not fit a uint8 image",
            lambda: getattr(u8, op)(k, border_value=0.5), u8)
    bl = ember.ones((2, 2, 1), dtype="bool")
    _raises(ember.InvalidParameterError, f"{op}: border_value 2 does not fit a bool image",
            lambda: getattr(bl, op)(k, border_value=2), bl)


def test_options_validate_on_construction():
    with pytest.raises(ember.InvalidParameterError, match="MorphOptions: iterations -2"):
        MorphOptions(iterations=-2)
    with pytest.raises(ember.InvalidParameterError, match="MorphOptions: border_type 'edge'"):
        MorphOptions(border_type="edge")
    with pytest.raises(ember.InvalidParameterError, match="MorphOptions: anchor \\(1, 2, 3\\)"):
        MorphOptions(anchor=(1, 2, 3))
    with pytest.raises(ember.InvalidParameterError, match="MorphOptions: border_value"):
        MorphOptions(border_value=1j)
    # a field reassigned after construction is checked again by the op
    opts = MorphOptions()
    opts.iterations = -1
    with pytest.raises(ember.InvalidParameterError, match="erode: iterations -1"):
        ember.ones((2, 2, 1)).erode(ember.ones((1, 1), dtype="bool"), opts)


# -- every device computes what the NumPy backend computes ------------------------------------

OTHER_DEVICES = [str(d) for d in engine_devices() if d is not ember.devices()[0]]


@pytest.mark.parametrize("device,dtype", device_dtypes(OTHER_DEVICES, [
    "float32", "float16", "int16", "uint8", "uint16", "uint32", "uint64", "bool"]))
def test_every_device_matches_the_numpy_backend(device, dtype):
    rng = np.random.default_rng(len(dtype))
    if dtype == "bool":
        x = rng.random((5, 6, 2)) > 0.5
    elif dtype.startswith("float"):
        x = rng.standard_normal((5, 6, 2)).astype(dtype)
        x[0, 0, 0] = np.nan
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, (5, 6, 2), dtype=dtype, endpoint=True)
    kernels = [np.ones((3, 3), bool), rng.random((2, 7)) > 0.3, np.ones((9, 1), bool)]
    kernels[1][0, 0] = True
    for k in kernels:
        for border in ("constant", "replicate", "reflect", "reflect101", "wrap"):
            for op in ("erode", "dilate"):
                kw = dict(iterations=2, border_type=border, anchor=(0, k.shape[1] - 1))
                want = getattr(ember.tensor(x, device="cpu"), op)(ember.tensor(k, device="cpu"),
                                                                    **kw)
                got = getattr(ember.tensor(x, device=device), op)(
                    ember.tensor(k, device=device), **kw)
                assert got.device == device and got.dtype is want.dtype
                np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(ember.DeviceError, match="different devices"):
        ember.tensor(x, device=device).erode(ember.tensor(kernels[0], device="cpu"))


# -- complex: vision takes real tensors only (docs/complex.md) ---------------------------------
def _complex(shape, dtype=np.complex64):
    rng = np.random.default_rng(2)
    return ember.from_numpy(np.asarray(rng.random(shape) + 1j * rng.random(shape), dtype=dtype))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("op", ["erode", "dilate"])
def test_complex_refused(op, dtype):
    z = _complex((4, 4, 1), dtype)
    before = snapshot(z)
    kernel = ember.from_numpy(np.ones((3, 3), dtype=bool))
    with pytest.raises(ember.KindError, match=rf"{op}.*complex"):
        getattr(z, op)(kernel)
    with pytest.raises(ember.KindError, match=rf"{op}.*complex"):
        getattr(ember.vision, op)(z, kernel, border_type=BorderType.CONSTANT, border_value=0)
    assert_unchanged([z], before)
