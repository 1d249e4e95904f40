"""Tests of ember/vision/components.py: connected_components(_with_stats) against scipy.ndimage."""

import math
import time
import zlib

import numpy as np
import pytest
import scipy.ndimage as ndi
from hypothesis import given, strategies as st

import ember
from ember.vision import (ConnectedStats, ConnectedStatsOptions, Connectivity,
                          connected_components, connected_components_with_stats)
from oracle import assert_close, assert_unchanged, ember_tensor, engine_devices, layouts, snapshot

STRUCTURE = {4: ndi.generate_binary_structure(2, 1), 8: np.ones((3, 3), dtype=bool)}


def _seed(*parts):
    """A reproducible seed for a test case (Python's str hash is salted per process)."""
    return zlib.crc32(repr(parts).encode())


def _scipy_labels(mask, conn):
    labels, count = ndi.label(mask, STRUCTURE[conn])
    return labels.astype(np.int64), count


def _stats_reference(labels, count):
    """OpenCV's connectedComponentsWithStats, by brute force: one label at a time."""
    rows = {k: [] for k in ("area", "left", "top", "right", "bottom", "width", "height")}
    cents = []
    for lab in range(count + 1):  # test-only loop over labels
        ys, xs = np.nonzero(labels == lab)
        rows["area"].append(ys.size)
        if ys.size:
            l, t, r, b = xs.min(), ys.min(), xs.max(), ys.max()
            cents.append([xs.mean(), ys.mean()])
        else:
            l, t, r, b = 0, 0, -1, -1
            cents.append([math.nan, math.nan])
        rows["left"].append(l)
        rows["top"].append(t)
        rows["right"].append(r)
        rows["bottom"].append(b)
        rows["width"].append(r - l + 1)
        rows["height"].append(b - t + 1)
    out = {k: np.asarray(v, dtype=np.int64) for k, v in rows.items()}
    out["centroids"] = np.asarray(cents, dtype=np.float64).reshape(count + 1, 2)
    return out


def _check_stats(stats, labels_np, count):
    ref = _stats_reference(labels_np, count)
    assert isinstance(stats, ConnectedStats)
    assert stats.num_labels == count + 1
    for k in ("area", "left", "top", "right", "bottom", "width", "height"):
        got = getattr(stats, k)
        assert got.dtype == ember.int64, k
        assert_close(got, ref[k])
    assert stats.centroids.dtype == ember.float64
    assert_close(stats.centroids, ref["centroids"], rtol=1e-12, atol=1e-12)
    assert stats.max_label.shape == () and stats.max_label.dtype == ember.int64
    assert stats.max_label.item() == count


def _spiral(n):
    """A one-pixel-wide square spiral walled by one-pixel gaps: one long 4-connected path."""
    m = np.zeros((n, n), dtype=bool)
    top, left, bottom, right = 0, 0, n - 1, n - 1
    while top <= bottom and left <= right:  # test-only loop over the spiral's turns
        m[top, left:right + 1] = True
        m[top:bottom + 1, right] = True
        if top + 2 <= bottom:
            m[bottom, left:right + 1] = True
        if left + 2 <= right and top + 2 <= bottom:
            m[top + 2:bottom + 1, left] = True
            m[top + 2, left:right - 1] = True
        top, left, bottom, right = top + 2, left + 2, bottom - 2, right - 2
    return m


def _snake(n):
    """Rows joined alternately at the right and left ends: a boustrophedon path."""
    m = np.zeros((n, n), dtype=bool)
    m[::2] = True
    m[1::4, -1] = True
    m[3::4, 0] = True
    return m


# -- labels against scipy ------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (9, 1), (5, 6), (17, 23), (64, 48)])
@pytest.mark.parametrize("density", [0.1, 0.4, 0.6, 0.9])
@pytest.mark.parametrize("conn", [4, 8])
def test_labels_match_scipy(shape, density, conn):
    rng = np.random.default_rng(_seed(shape, density, conn))
    mask = rng.random(shape) < density
    ref, count = _scipy_labels(mask, conn)
    for name, arr in layouts(mask):
        t = ember_tensor(arr)
        before = snapshot(t)
        out = t.connected_components(conn)
        assert out.dtype == ember.int64, name
        assert_close(out, ref)
        assert int(out.numpy().max(initial=0)) == count
        assert_unchanged([t], before)


@pytest.mark.parametrize("shape", [(0, 0), (0, 5), (5, 0)])
@pytest.mark.parametrize("conn", [4, 8])
def test_zero_size(shape, conn):
    t = ember.zeros(shape, dtype="bool")
    out = t.connected_components(conn)
    assert out.shape == shape and out.dtype == ember.int64
    labels, stats = t.connected_components_with_stats(conn)
    assert labels.shape == shape
    assert stats.num_labels == 1
    assert stats.area.tolist() == [0]
    assert (stats.left.tolist(), stats.right.tolist(), stats.width.tolist()) == ([0], [-1], [0])
    assert stats.max_label.item() == 0
    assert np.isnan(stats.centroids.numpy()).all() and stats.centroids.shape == (1, 2)


@pytest.mark.parametrize("conn", [4, 8])
def test_all_true_all_false_one_pixel(conn):
    full = ember.ones((4, 5), dtype="bool")
    assert full.connected_components(conn).tolist() == [[1] * 5] * 4
    labels, stats = full.connected_components_with_stats(conn)
    assert stats.area.tolist() == [0, 20]
    assert stats.left.tolist() == [0, 0] and stats.right.tolist() == [-1, 4]
    assert stats.top.tolist() == [0, 0] and stats.bottom.tolist() == [-1, 3]
    assert stats.width.tolist() == [0, 5] and stats.height.tolist() == [0, 4]
    c = stats.centroids.numpy()
    assert np.isnan(c[0]).all() and c[1].tolist() == [2.0, 1.5]
    empty = ember.zeros((3, 2), dtype="bool")
    assert empty.connected_components(conn).tolist() == [[0, 0]] * 3
    _, stats = empty.connected_components_with_stats(conn)
    assert stats.area.tolist() == [6] and stats.max_label.item() == 0
    one = ember.tensor([[True]])
    assert one.connected_components(conn).tolist() == [[1]]
    assert ember.tensor([[False]]).connected_components(conn).tolist() == [[0]]


def test_connectivity_difference_and_raster_order():
    # the diagonal joins under 8 but not 4; numbering follows the first pixel in raster order
    mask = ember.tensor([[False, False, True],
                         [True, True, False],
                         [False, False, True]])
    assert mask.connected_components(4).tolist() == [[0, 0, 1], [2, 2, 0], [0, 0, 3]]
    assert mask.connected_components(8).tolist() == [[0, 0, 1], [1, 1, 0], [0, 0, 1]]
    # a U shape: the right arm starts first in raster order only on row 0
    u = ember.tensor([[True, False, True],
                      [True, False, True],
                      [True, True, True]])
    assert u.connected_components(4).tolist() == [[1, 0, 1], [1, 0, 1], [1, 1, 1]]


@pytest.mark.parametrize("value,expected", [
    (4, 4), (8, 8), (Connectivity.FOUR, 4), (Connectivity.EIGHT, 8), ("four", 4),
    ("EIGHT", 8), (np.int64(4), 4)])
def test_connectivity_spellings(value, expected):
    rng = np.random.default_rng(1)
    mask = rng.random((12, 13)) < 0.5
    ref, _ = _scipy_labels(mask, expected)
    assert_close(ember_tensor(mask).connected_components(value), ref)
    assert_close(connected_components(ember_tensor(mask), value), ref)


def test_default_connectivity_is_eight():
    mask = ember.tensor([[True, False], [False, True]])
    assert mask.connected_components().tolist() == [[1, 0], [0, 1]]
    labels, stats = mask.connected_components_with_stats()
    assert labels.tolist() == [[1, 0], [0, 1]] and stats.max_label.item() == 1


@pytest.mark.parametrize("make", [_spiral, _snake])
@pytest.mark.parametrize("conn", [4, 8])
def test_worst_case_paths_are_fast(make, conn):
    mask = make(256)
    ref, count = _scipy_labels(mask, conn)
    t = ember_tensor(mask)
    start = time.perf_counter()
    out = t.connected_components(conn)
    elapsed = time.perf_counter() - start
    assert_close(out, ref)
    assert count >= 1 and int(out.numpy().max()) == count
    # plain min-label propagation needs one round per pixel of the path (tens of seconds here)
    assert elapsed < 3.0, f"{make.__name__} 256x256 took {elapsed:.2f}s"


def test_spiral_is_one_long_path():
    mask = _spiral(64)
    ref, count = _scipy_labels(mask, 4)
    assert count == 1 and mask.sum() > 64 * 64 // 2 - 64
    assert_close(ember_tensor(mask).connected_components(4), ref)


@given(st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**32 - 1),
       st.floats(0.0, 1.0), st.sampled_from([4, 8]))
def test_property_matches_scipy(h, w, seed, density, conn):
    mask = np.random.default_rng(seed).random((h, w)) < density
    ref, count = _scipy_labels(mask, conn)
    labels, stats = ember_tensor(mask).connected_components_with_stats(conn)
    assert_close(labels, ref)
    _check_stats(stats, ref, count)


# -- stats ---------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(1, 1), (6, 7), (31, 20), (40, 40)])
@pytest.mark.parametrize("density", [0.2, 0.5, 0.8])
@pytest.mark.parametrize("conn", [4, 8])
def test_stats_match_reference(shape, density, conn):
    rng = np.random.default_rng(_seed(shape, density, conn, "stats"))
    mask = rng.random(shape) < density
    ref, count = _scipy_labels(mask, conn)
    for name, arr in layouts(mask):
        t = ember_tensor(arr)
        before = snapshot(t)
        labels, stats = connected_components_with_stats(t, conn)
        assert_close(labels, ref)
        _check_stats(stats, ref, count)
        assert_unchanged([t], before)


def test_stats_centroids_match_scipy_center_of_mass():
    rng = np.random.default_rng(7)
    mask = rng.random((30, 25)) < 0.55
    ref, count = _scipy_labels(mask, 8)
    _, stats = ember_tensor(mask).connected_components_with_stats(8)
    com = np.asarray(ndi.center_of_mass(mask, ref, range(1, count + 1)))  # (y, x) rows
    assert_close(stats.centroids[1:], com[:, ::-1], rtol=1e-12, atol=1e-12)
    sizes = ndi.sum_labels(np.ones_like(ref), ref, range(count + 1)).astype(np.int64)
    assert_close(stats.area, sizes)


def test_stats_options():
    mask = ember.tensor([[True, False, True], [True, False, False]])
    labels, stats = mask.connected_components_with_stats(4, ConnectedStatsOptions.none())
    assert labels.tolist() == [[1, 0, 2], [1, 0, 0]]
    assert stats.area.tolist() == [3, 2, 1]
    for k in ("left", "top", "right", "bottom", "width", "height", "centroids", "max_label"):
        assert getattr(stats, k) is None, k
    _, stats = mask.connected_components_with_stats(
        4, ConnectedStatsOptions(bounds_enabled=True, max_label_enabled=False,
                                 centroids_enabled=False))
    assert stats.left.tolist() == [1, 0, 2] and stats.bottom.tolist() == [1, 1, 0]
    assert stats.max_label is None and stats.centroids is None
    _, stats = mask.connected_components_with_stats(
        4, ConnectedStatsOptions(bounds_enabled=False, compact_labels=False))
    assert stats.left is None and stats.max_label.item() == 2
    assert stats.centroids.tolist() == [[4 / 3, 2 / 3], [0.0, 0.5], [2.0, 0.0]]
    assert ConnectedStatsOptions() == ConnectedStatsOptions.all()
    assert ConnectedStatsOptions.all() != ConnectedStatsOptions.none()
    assert "area=[3, 2, 1]" in repr(stats)


# -- bad input -----------------------------------------------------------------------------

def test_bad_kind():
    for t in (ember.tensor([[1, 0], [0, 1]]), ember.tensor([[1.0, 0.0], [0.0, 1.0]])):
        before = snapshot(t)
        with pytest.raises(ember.KindError, match=r"connected_components: .*(int|float).*bool"):
            t.connected_components(4)
        with pytest.raises(ember.KindError, match="connected_components_with_stats"):
            t.connected_components_with_stats(4)
        assert_unchanged([t], before)


@pytest.mark.parametrize("shape", [(), (5,), (2, 3, 4), (1, 2, 2)])
def test_bad_rank(shape):
    t = ember.zeros(shape, dtype="bool")
    before = snapshot(t)
    with pytest.raises(ember.ShapeMismatchError, match=r"connected_components: self has shape"
                       r".*expected a 2-D bool image") as info:
        t.connected_components(8)
    assert info.value.actual == shape
    with pytest.raises(ember.ShapeMismatchError, match="connected_components_with_stats"):
        t.connected_components_with_stats(8)
    assert_unchanged([t], before)


@pytest.mark.parametrize("bad", [6, 0, True, None, 4.0, "six", [4]])
def test_bad_connectivity(bad):
    t = ember.ones((2, 2), dtype="bool")
    before = snapshot(t)
    with pytest.raises(ember.InvalidParameterError,
                       match=r"connected_components: connectivity must be 4, 8") as info:
        t.connected_components(bad)
    assert info.value.param == "connectivity"
    with pytest.raises(ember.InvalidParameterError, match="connectivity"):
        t.connected_components_with_stats(bad)
    assert_unchanged([t], before)


def test_bad_options_and_self():
    t = ember.ones((2, 2), dtype="bool")
    before = snapshot(t)
    with pytest.raises(ember.InvalidParameterError,
                       match=r"options must be a ConnectedStatsOptions or None, got dict") as info:
        t.connected_components_with_stats(8, {"bounds_enabled": True})
    assert info.value.param == "options"
    with pytest.raises(ember.InvalidParameterError,
                       match=r"ConnectedStatsOptions: bounds_enabled must be a bool, got int 1"):
        ConnectedStatsOptions(bounds_enabled=1)
    with pytest.raises(ember.InvalidParameterError, match=r"connected_components: self must be "
                       r"a Tensor, got list"):
        connected_components([[True, False]], 4)
    with pytest.raises(ember.InvalidParameterError, match=r"self must be a Tensor"):
        connected_components_with_stats(np.ones((2, 2), dtype=bool), 4)
    assert_unchanged([t], before)


def test_methods_attached_and_exported():
    assert ember.Tensor.connected_components is connected_components
    assert ember.Tensor.connected_components_with_stats is connected_components_with_stats
    for name in ("Connectivity", "ConnectedStats", "ConnectedStatsOptions",
                 "connected_components", "connected_components_with_stats"):
        assert hasattr(ember.vision, name)
    assert int(Connectivity.FOUR) == 4 and Connectivity(8) is Connectivity.EIGHT


# -- every device computes what the NumPy backend computes ------------------------------------

OTHER_DEVICES = [str(d) for d in engine_devices() if d is not ember.devices()[0]]


@pytest.mark.parametrize("device", OTHER_DEVICES)
@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (7, 9), (40, 33)])
def test_every_device_matches_the_numpy_backend(device, shape):
    rng = np.random.default_rng(zlib.crc32(repr(shape).encode()))
    for p in (0.0, 0.45, 1.0):
        mask = rng.random(shape) < p
        for conn in (4, 8):
            want = ember.tensor(mask, device="cpu").connected_components_with_stats(conn)
            got = ember.tensor(mask, device=device).connected_components_with_stats(conn)
            assert got[0].device == device and got[0].tolist() == want[0].tolist()
            assert ember.tensor(mask, device=device).connected_components(conn).tolist() == \
                want[0].tolist()
            for k in ("area", "left", "top", "right", "bottom", "width", "height", "centroids",
                      "max_label"):
                a, b = getattr(got[1], k), getattr(want[1], k)
                assert a.device == device and a.dtype is b.dtype
                np.testing.assert_array_equal(a.numpy(), b.numpy())


# -- complex: vision takes real tensors only (docs/complex.md) ---------------------------------
def _complex(shape, dtype=np.complex64):
    rng = np.random.default_rng(2)
    return ember.from_numpy(np.asarray(rng.random(shape) + 1j * rng.random(shape), dtype=dtype))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("op", ["connected_components", "connected_components_with_stats"])
def test_complex_refused(op, dtype):
    z = _complex((3, 3), dtype)
    with pytest.raises(ember.KindError, match=rf"{op}.*complex"):
        getattr(z, op)()
