"""Tests of ember/vision/suppression.py: nms against a brute-force reference, and docs/detection.md."""

import doctest
import math
import os
import zlib

import numpy as np
import pytest
import torch

import ember
from ember.vision import NmsOptions, nms
from oracle import (assert_close, assert_unchanged, device_dtypes, ember_tensor, engine_devices,
                    layouts, snapshot)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _seed(*parts):
    return zlib.crc32(repr(parts).encode())


def _reference(boxes, scores, iou_threshold, score_threshold=-math.inf, max_out=0):
    """torchvision's nms, brute force over pairs of NumPy scalars (IoU in the boxes' dtype)."""
    n = len(scores)
    cand = [i for i in range(n) if float(scores[i]) >= score_threshold]  # NaN fails
    cand.sort(key=lambda i: (-float(scores[i]), i))
    zero = boxes.dtype.type(0)

    def iou(i, j):
        a, b = boxes[i], boxes[j]
        area_a = (a[2] - a[0]) * (a[3] - a[1])
        area_b = (b[2] - b[0]) * (b[3] - b[1])
        w = max(zero, min(a[2], b[2]) - max(a[0], b[0]))
        h = max(zero, min(a[3], b[3]) - max(a[1], b[1]))
        inter = w * h
        with np.errstate(divide="ignore", invalid="ignore"):
            return inter / (area_a + area_b - inter)

    keep, suppressed = [], set()
    for pos, i in enumerate(cand):  # test-only O(N^2) loops
        if i in suppressed:
            continue
        keep.append(i)
        if max_out and len(keep) == max_out:
            break
        for j in cand[pos + 1:]:
            if j not in suppressed and float(iou(i, j)) > iou_threshold:
                suppressed.add(j)
    return np.asarray(keep, dtype=np.int64)


def _matrix_reference(boxes, scores, iou_threshold):
    """A second oracle for big N: torch's IoU matrix, then a walk in score order."""
    b = torch.from_numpy(boxes)
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.maximum(b[:, None, :2], b[None, :, :2])
    rb = torch.minimum(b[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    iou = (inter / (area[:, None] + area[None, :] - inter)).double() > iou_threshold
    order = np.lexsort((np.arange(len(scores)), -scores.astype(np.float64)))
    removed = np.zeros(len(scores), dtype=bool)
    keep = []
    for i in order:  # test-only loop over boxes
        if removed[i]:
            continue
        keep.append(i)
        removed |= iou[i].numpy()
    return np.asarray(keep, dtype=np.int64)


def _random_boxes(rng, n, dtype="float32", scale=10.0, tie_scores=False):
    xy = rng.random((n, 2)) * scale
    wh = rng.random((n, 2)) * scale / 2
    wh[rng.random(n) < 0.05] = 0.0  # a few empty boxes
    boxes = np.concatenate([xy, xy + wh], axis=1).astype(dtype)
    if tie_scores:
        scores = (rng.integers(0, 4, n) / 4).astype(dtype)
    else:
        scores = rng.random(n).astype(dtype)
    return boxes, scores


# -- values against the reference ----------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 7, 40, 90])
@pytest.mark.parametrize("iou_threshold", [0.0, 0.3, 0.5, 0.7, 1.0])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_reference(n, iou_threshold, dtype):
    rng = np.random.default_rng(_seed(n, iou_threshold, dtype))
    boxes, scores = _random_boxes(rng, n, dtype, tie_scores=n % 2 == 0)
    ref = _reference(boxes, scores, iou_threshold, 0.0)
    for (bn, barr), (sn, sarr) in zip(layouts(boxes), layouts(scores)):
        b, s = ember_tensor(barr), ember_tensor(sarr)
        before = snapshot(b, s)
        out = b.nms(s, iou_threshold=iou_threshold)
        assert out.dtype == ember.int64 and out.ndim == 1, (bn, sn)
        assert_close(out, ref)
        assert_unchanged([b, s], before)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_floats_compute_in_float32(dtype):
    rng = np.random.default_rng(_seed(dtype))
    boxes, scores = _random_boxes(rng, 50, "float32")
    b = ember_tensor(boxes, dtype=dtype)
    s = ember_tensor(scores, dtype=dtype)
    b32 = b.cast("float32").numpy()
    s32 = s.cast("float32").numpy()
    out = b.nms(s, iou_threshold=0.4)
    assert_close(out, _reference(b32, s32, 0.4, 0.0))


def test_mixed_dtypes_and_big_n():
    rng = np.random.default_rng(3)
    boxes, scores = _random_boxes(rng, 1500, "float64", scale=100.0)
    s32 = scores.astype(np.float32)
    out = ember_tensor(boxes).nms(ember_tensor(s32), score_threshold=-math.inf)
    assert_close(out, _matrix_reference(boxes, s32, 0.5))
    assert out.shape[0] > 100


def test_score_threshold():
    rng = np.random.default_rng(11)
    boxes, _ = _random_boxes(rng, 60, "float64")
    scores = rng.standard_normal(60)
    scores[[3, 17]] = np.nan
    b, s = ember_tensor(boxes), ember_tensor(scores)
    # Burn's default 0.0 drops negative (and NaN) scores; -inf keeps every non-NaN score
    assert_close(b.nms(s), _reference(boxes, scores, 0.5, 0.0))
    out = b.nms(s, score_threshold=float("-inf"))
    assert_close(out, _reference(boxes, scores, 0.5))
    assert 3 not in out.tolist() and 17 not in out.tolist()
    assert_close(b.nms(s, NmsOptions(0.3, 0.8)), _reference(boxes, scores, 0.3, 0.8))
    # a score equal to the threshold is kept (compared exactly)
    eq = ember.tensor([[0.0, 0.0, 1.0, 1.0], [5.0, 5.0, 6.0, 6.0]])
    assert eq.nms(ember.tensor([0.25, 0.2]), score_threshold=0.25).tolist() == [0]
    # float32(0.1) is 0.10000000149...: below 0.1000000015 exactly (though not in float32)
    s32 = ember.tensor([0.1, 0.2], dtype="float32")
    assert eq.nms(s32, score_threshold=0.1).tolist() == [1, 0]
    assert eq.nms(s32, score_threshold=0.1000000015).tolist() == [1]


def test_max_output_boxes():
    rng = np.random.default_rng(5)
    boxes, scores = _random_boxes(rng, 80, "float32")
    b, s = ember_tensor(boxes), ember_tensor(scores)
    full = _reference(boxes, scores, 0.5, 0.0)
    for k in (1, 3, len(full), len(full) + 5):
        out = b.nms(s, max_output_boxes=k)
        assert_close(out, full[:k])
        assert_close(out, _reference(boxes, scores, 0.5, 0.0, k))
    assert_close(b.nms(s, NmsOptions(max_output_boxes=0)), full)


def test_ties_duplicates_and_thresholds_at_the_edges():
    boxes = ember.tensor([[0.0, 0.0, 2.0, 2.0]] * 3 + [[0.0, 0.0, 2.0, 1.0]], dtype="float64")
    scores = ember.tensor([0.5, 0.7, 0.7, 0.7], dtype="float64")
    # equal scores: lower index first; identical boxes have IoU 1 (not > 1)
    assert boxes.nms(scores, iou_threshold=1.0).tolist() == [1, 2, 3, 0]
    assert boxes.nms(scores, iou_threshold=0.99).tolist() == [1, 3]
    # IoU of box 3 with the others is exactly 0.5: kept at 0.5 (strictly greater suppresses)
    assert boxes.nms(scores, iou_threshold=0.5).tolist() == [1, 3]
    assert boxes.nms(scores, iou_threshold=0.49).tolist() == [1]
    # iou_threshold 0 suppresses any overlap, but not boxes that only touch
    touch = ember.tensor([[0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 2.0, 1.0], [0.5, 0.5, 1.5, 1.5]])
    assert touch.nms(ember.tensor([0.9, 0.8, 0.7]), iou_threshold=0.0).tolist() == [0, 1]
    # empty boxes (zero area) have a NaN IoU: they neither suppress nor get suppressed
    empty = ember.tensor([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0]])
    assert empty.nms(ember.tensor([0.9, 0.8, 0.7])).tolist() == [0, 1, 2]


def test_against_torch_iou_example():
    # boxes where the IoU values are known: 0.25 overlap pairs
    boxes = ember.tensor([[0.0, 0.0, 4.0, 4.0], [2.0, 0.0, 6.0, 4.0], [4.0, 0.0, 8.0, 4.0]])
    scores = ember.tensor([0.6, 0.9, 0.8])
    # IoU(1, 0) = IoU(1, 2) = 8 / 24 = 1/3
    assert boxes.nms(scores, iou_threshold=0.3).tolist() == [1]
    assert boxes.nms(scores, iou_threshold=0.34).tolist() == [1, 2, 0]


def test_tracked_boxes_give_untracked_indices():
    b = ember.tensor([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.9]], dtype="float64").require_grad()
    s = ember.tensor([0.1, 0.9], dtype="float64").require_grad()
    out = nms(b, s)
    assert out.tolist() == [1] and out.dtype == ember.int64
    assert out.is_leaf


def test_options_class():
    o = NmsOptions()
    assert (o.iou_threshold, o.score_threshold, o.max_output_boxes) == (0.5, 0.0, 0)
    assert NmsOptions(0.3, -1.0, 4) == NmsOptions(iou_threshold=0.3, score_threshold=-1,
                                                  max_output_boxes=4)
    assert repr(NmsOptions(0.3)) == "NmsOptions(iou_threshold=0.3, score_threshold=0.0, " \
                                    "max_output_boxes=0)"
    # keywords override the options' fields
    boxes = ember.tensor([[0.0, 0.0, 2.0, 2.0], [0.0, 0.0, 2.0, 1.5], [5.0, 5.0, 6.0, 6.0]])
    scores = ember.tensor([0.9, 0.8, 0.7])
    opts = NmsOptions(iou_threshold=0.9, max_output_boxes=2)
    assert boxes.nms(scores, opts).tolist() == [0, 1]
    assert boxes.nms(scores, opts, iou_threshold=0.5).tolist() == [0, 2]
    assert boxes.nms(scores, opts, max_output_boxes=0).tolist() == [0, 1, 2]
    assert ember.Tensor.nms is nms and ember.vision.nms is nms


# -- bad input -----------------------------------------------------------------------------

def _good():
    return (ember.tensor([[0.0, 0.0, 1.0, 1.0], [0.5, 0.5, 2.0, 2.0]]),
            ember.tensor([0.3, 0.6]))


def test_bad_kinds():
    boxes, scores = _good()
    before = snapshot(boxes, scores)
    kind = ember.KindError
    with pytest.raises(kind, match=r"nms: boxes must be a float tensor, got dtype int64"):
        ember.tensor([[0, 0, 1, 1]]).nms(ember.tensor([0.5]))
    with pytest.raises(kind, match=r"nms: scores must be a float tensor, got dtype int64"):
        boxes.nms(ember.tensor([1, 2]))
    with pytest.raises(kind, match=r"nms: boxes must be a float tensor, got dtype bool"):
        ember.ones((2, 4), dtype="bool").nms(scores)
    with pytest.raises(ember.InvalidParameterError, match=r"nms: scores must be a Tensor, got"):
        boxes.nms([0.3, 0.6])
    with pytest.raises(ember.InvalidParameterError, match=r"nms: boxes must be a Tensor"):
        nms(np.zeros((2, 4)), scores)
    assert_unchanged([boxes, scores], before)


@pytest.mark.parametrize("shape", [(2, 3), (2, 5), (4,), (1, 2, 4), ()])
def test_bad_box_shapes(shape):
    boxes = ember.zeros(shape)
    scores = ember.zeros((2,))
    before = snapshot(boxes, scores)
    with pytest.raises(ember.ShapeMismatchError,
                       match=r"nms: boxes has shape .*; expected \(N, 4\) boxes") as info:
        boxes.nms(scores)
    assert info.value.actual == shape
    assert_unchanged([boxes, scores], before)


def test_bad_score_shapes():
    boxes, scores = _good()
    before = snapshot(boxes, scores)
    with pytest.raises(ember.ShapeMismatchError, match=r"nms: scores has shape \(2, 1\); "
                       r"expected a 1-D tensor"):
        boxes.nms(ember.zeros((2, 1)))
    with pytest.raises(ember.ShapeMismatchError, match=r"nms: boxes has 2 boxes but scores has "
                       r"3 scores") as info:
        boxes.nms(ember.zeros((3,)))
    assert info.value.expected == (2,) and info.value.actual == (3,)
    with pytest.raises(ember.ShapeMismatchError, match=r"has 0 boxes but scores has 2"):
        ember.zeros((0, 4)).nms(scores)
    assert_unchanged([boxes, scores], before)


@pytest.mark.parametrize("kw,value,pattern", [
    ("iou_threshold", -0.1, r"iou_threshold must be in \[0, 1\], got -0.1"),
    ("iou_threshold", 1.5, r"iou_threshold must be in \[0, 1\], got 1.5"),
    ("iou_threshold", float("nan"), r"iou_threshold must be in \[0, 1\], got nan"),
    ("iou_threshold", "0.5", r"iou_threshold must be a number in \[0, 1\], got str '0.5'"),
    ("iou_threshold", True, r"iou_threshold must be a number in \[0, 1\], got bool True"),
    ("score_threshold", float("nan"), r"score_threshold must be a number or -inf, got nan"),
    ("score_threshold", None, r"score_threshold must be a number, got NoneType None"),
    ("max_output_boxes", -1, r"max_output_boxes must be >= 0 \(0: no limit\), got -1"),
    ("max_output_boxes", 1.5, r"max_output_boxes must be an int >= 0 .*got float 1.5"),
    ("max_output_boxes", True, r"max_output_boxes must be an int >= 0 .*got bool True"),
])
def test_bad_parameters(kw, value, pattern):
    boxes, scores = _good()
    before = snapshot(boxes, scores)
    with pytest.raises(ember.InvalidParameterError, match="nms: " + pattern) as info:
        boxes.nms(scores, **{kw: value})
    assert info.value.param == kw
    with pytest.raises(ember.InvalidParameterError, match="NmsOptions: " + pattern):
        NmsOptions(**{kw: value})
    # an options object changed after construction is checked again
    opts = NmsOptions()
    setattr(opts, kw, value)
    with pytest.raises(ember.InvalidParameterError, match="nms: " + pattern):
        boxes.nms(scores, opts)
    assert_unchanged([boxes, scores], before)


def test_bad_options_type():
    boxes, scores = _good()
    with pytest.raises(ember.InvalidParameterError,
                       match=r"nms: options must be an NmsOptions or None, got float 0.5"):
        boxes.nms(scores, 0.5)


# -- the docs page ---------------------------------------------------------------------------

def test_docs_detection_md():
    path = os.path.join(ROOT, "docs", "detection.md")
    result = doctest.testfile(path, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0


# -- every device computes what the NumPy backend computes ------------------------------------

OTHER_DEVICES = [str(d) for d in engine_devices() if d is not ember.devices()[0]]


@pytest.mark.parametrize("device,dtype", device_dtypes(OTHER_DEVICES, [
    "float32", "float64", "float16", "bfloat16"]))
def test_every_device_matches_the_numpy_backend(device, dtype):
    rng = np.random.default_rng(len(dtype))
    xy = rng.random((60, 2)) * 40
    boxes = np.concatenate([xy, xy + rng.random((60, 2)) * 15], axis=1)
    boxes[3] = boxes[2]
    scores = np.round(rng.random(60), 1)
    scores[5] = np.nan
    for iou in (0.0, 0.3, 0.5, 1.0):
        for kw in ({}, {"score_threshold": float("-inf")}, {"max_output_boxes": 4}):
            cpu_boxes = ember.tensor(boxes, device="cpu").cast(dtype)
            want = cpu_boxes.nms(ember.tensor(scores, device="cpu").cast(dtype),
                                 iou_threshold=iou, **kw)
            b = ember.tensor(boxes, device=device).cast(dtype)
            got = b.nms(ember.tensor(scores, device=device).cast(dtype), iou_threshold=iou, **kw)
            assert got.device == device and got.dtype is want.dtype
            assert got.tolist() == want.tolist()
    with pytest.raises(ember.DeviceError, match="different devices"):
        b.nms(ember.tensor(scores, device="cpu").cast(dtype))


# -- complex: vision takes real tensors only (docs/complex.md) ---------------------------------
def _complex(shape, dtype=np.complex64):
    rng = np.random.default_rng(2)
    return ember.from_numpy(np.asarray(rng.random(shape) + 1j * rng.random(shape), dtype=dtype))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("param", ["boxes", "scores"])
def test_complex_refused(param, dtype):
    boxes = np.array([[0, 0, 1, 1], [0, 0, 1, 1.1]], dtype=np.float32)
    boxes = _complex((2, 4), dtype) if param == "boxes" else ember.from_numpy(boxes)
    scores = _complex((2,), dtype) if param == "scores" else ember.from_numpy(
        np.array([0.9, 0.8], np.float32))
    with pytest.raises(ember.KindError, match=rf"nms.*complex.*\({param} has"):
        nms(boxes, scores)
