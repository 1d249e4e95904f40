"""ONNX converters of the sampling and vision operators: GridSample, AffineGrid, LpPool,
GlobalLpPool, MaxUnpool, Col2Im, RoiAlign, MaxRoiPool, DeformConv, NonMaxSuppression,
CenterCropPad, ReverseSequence.

Windowed operators (LpPool, Col2Im, DeformConv) build the flat positions of every window
element once (plain Python ints, as the shapes are known at run time) and gather or
scatter-add with them, so every spatial rank, stride, dilation and padding takes the same
path and gradients flow through ember's gather and scatter.

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> x = ember.tensor([[[3.0, 4.0]]])
>>> CONVERTERS["LpPool"]([x], {"kernel_shape": [2], "p": 2}, Context(18)).tolist()
[[[5.0]]]
"""

import itertools
import math

import ember
import ember.nn.functional as F

from ..errors import InvalidParameterError
from ..ops.grid_sample_3d import grid_sample_3d
from .registry import axis_of, converter, ints, scalar

_GRID_MODES = {"bilinear": "bilinear", "linear": "bilinear", "nearest": "nearest",
               "bicubic": "bicubic", "cubic": "bicubic"}


@converter("GridSample")
def grid_sample(x, a, c):
    t, grid = x
    mode = _GRID_MODES.get(a.get("mode", "linear" if c.opset >= 20 else "bilinear"))
    if mode is None:
        raise InvalidParameterError(f"GridSample: unknown mode {a.get('mode')!r}", "mode",
                                    a.get("mode"))
    pad, ac = a.get("padding_mode", "zeros"), bool(a.get("align_corners", 0))
    if t.ndim == 5:
        if mode == "bicubic":
            raise InvalidParameterError("GridSample: cubic mode takes 4-d inputs only",
                                        "mode", a.get("mode"))
        return grid_sample_3d(t, grid.cast(t.dtype), mode, pad, ac)
    return F.grid_sample(t, grid.cast(t.dtype), mode=mode, padding_mode=pad, align_corners=ac)


@converter("AffineGrid")
def affine_grid(x, a, c):
    theta, size = x
    return F.affine_grid(theta, tuple(ints(size)), align_corners=bool(a.get("align_corners", 0)))


def _pads(a, spatial, kernel, strides, dil):
    """(begins, ends) of a pooling-like op's explicit or ``auto_pad`` padding."""
    n = len(kernel)
    pads = list(a.get("pads", [0] * (2 * n)))
    auto = a.get("auto_pad", "NOTSET")
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        for i in range(n):
            total = max((math.ceil(spatial[i] / strides[i]) - 1) * strides[i]
                        + (kernel[i] - 1) * dil[i] + 1 - spatial[i], 0)
            small = total // 2
            pads[i], pads[i + n] = ((small, total - small) if auto == "SAME_UPPER"
                                    else (total - small, small))
    elif auto == "VALID":
        pads = [0] * (2 * n)
    return pads[:n], pads[n:]


def _window_index(sizes, kernel, strides, dil, out):
    """Flat positions (into a tensor of spatial ``sizes``) of every window element: a nested
    list [output position][kernel offset]."""
    rows = []
    for o in itertools.product(*[range(n) for n in out]):
        row = []
        for k in itertools.product(*[range(n) for n in kernel]):
            flat = 0
            for d in range(len(sizes)):
                flat = flat * sizes[d] + o[d] * strides[d] + k[d] * dil[d]
            row.append(flat)
        rows.append(row)
    return rows


@converter("LpPool")
def lp_pool(x, a, c):
    t = x[0]
    kernel = list(a["kernel_shape"])
    n = len(kernel)
    strides = list(a.get("strides", [1] * n))
    dil = list(a.get("dilations", [1] * n))
    p = a.get("p", 2)
    spatial = t.shape[2:]
    begins, ends = _pads(a, spatial, kernel, strides, dil)
    span = [(k - 1) * d + 1 for k, d in zip(kernel, dil)]
    ceil = a.get("ceil_mode", 0)
    out = []
    for i in range(n):
        room = spatial[i] + begins[i] + ends[i] - span[i]
        o = (math.ceil(room / strides[i]) if ceil else room // strides[i]) + 1
        if ceil and (o - 1) * strides[i] >= spatial[i] + begins[i]:
            o -= 1
        out.append(o)
    # the padded extent must hold every window (ceil mode may reach past the end pad)
    extra = [max((out[i] - 1) * strides[i] + span[i] - (spatial[i] + begins[i] + ends[i]), 0)
             for i in range(n)]
    padded = t.pad([(0, 0), (0, 0)] + [(b, e + x_) for b, e, x_ in zip(begins, ends, extra)],
                   "constant", 0.0)
    sizes = padded.shape[2:]
    idx = c.const(_window_index(sizes, kernel, strides, dil, out), "int64").reshape(1, 1, -1)
    lead = padded.shape[:2]
    win = padded.reshape(*lead, -1).gather(2, idx.expand(*lead, idx.shape[2]))
    win = win.reshape(*lead, *out, math.prod(kernel))
    if p == 1:
        return win.abs().sum(dim=(-1,))
    return win.abs().pow(p).sum(dim=(-1,)).pow(1.0 / p)


@converter("MaxUnpool")
def max_unpool(x, a, c):
    t, idx = x[0], x[1]
    kernel = list(a["kernel_shape"])
    n = len(kernel)
    strides = list(a.get("strides", [1] * n))
    pads = list(a.get("pads", [0] * (2 * n)))
    shape = list(t.shape[:2]) + [(t.shape[2 + i] - 1) * strides[i] + kernel[i] - pads[i]
                                 - pads[i + n] for i in range(n)]
    zeros = ember.zeros(math.prod(shape), dtype=t.dtype, device=t.device)
    y = zeros.scatter(0, idx.cast("int64").reshape(-1), t.reshape(-1)).reshape(*shape)
    if len(x) > 2 and x[2] is not None:  # a larger output: the indices still address the
        want = ints(x[2])                 # default shape, whose values keep their places
        y = y.pad([(0, w - s) for s, w in zip(shape, want)], "constant", 0.0)
    return y


@converter("Col2Im")
def col2im(x, a, c):
    cols, image, block = x[0], ints(x[1]), ints(x[2])
    n = len(image)
    strides = list(a.get("strides", [1] * n))
    dil = list(a.get("dilations", [1] * n))
    pads = list(a.get("pads", [0] * (2 * n)))
    sizes = [image[i] + pads[i] + pads[i + n] for i in range(n)]
    out = [(sizes[i] - (block[i] - 1) * dil[i] - 1) // strides[i] + 1 for i in range(n)]
    rows = _window_index(sizes, block, strides, dil, out)           # [L][K]
    K = len(rows[0])
    N, L = cols.shape[0], cols.shape[2]
    C = cols.shape[1] // K
    idx = c.const([[rows[l_][k] for l_ in range(L)] for k in range(K)], "int64")  # (K, L)
    total = 1
    for s in sizes:
        total *= s
    acc = ember.zeros(N, C, total, dtype=cols.dtype, device=cols.device)
    src = cols.reshape(N, C, K * L)
    acc = acc.scatter(2, idx.reshape(1, 1, K * L).expand(N, C, K * L), src, "add")
    img = acc.reshape(N, C, *sizes)
    for i in range(n):
        img = img.narrow(2 + i, pads[i], image[i])
    return img


def _corners(img, ys, xs, roi):
    """The four weighted corner terms of bilinear samples of ``img`` (C, H, W) at float
    positions ``ys``, ``xs`` (same shape S), each (C, *S). ``roi``: RoiAlign's reading
    (positions outside [-1, H] x [-1, W] give 0, the others are clamped into the image);
    otherwise GridSample's zeros padding (each corner outside the image counts 0)."""
    H, W = img.shape[1], img.shape[2]
    flat = img.reshape(img.shape[0], H * W)
    shape, dt = ys.shape, img.dtype

    def at(yy, xx):
        i = (yy * W + xx).cast("int64").reshape(1, -1).expand(img.shape[0], yy.numel())
        return flat.gather(1, i).reshape(img.shape[0], *shape)

    if roi:
        inside = (ys >= -1).logical_and(ys <= H).logical_and(xs >= -1).logical_and(xs <= W)
        y, x_ = ys.clamp(0, None), xs.clamp(0, None)
        y0, x0 = y.floor().clamp(None, H - 1), x_.floor().clamp(None, W - 1)
        y, x_ = ember.where(y0 >= H - 1, y0, y), ember.where(x0 >= W - 1, x0, x_)
        y1, x1 = (y0 + 1).clamp(None, H - 1), (x0 + 1).clamp(None, W - 1)
        ly, lx = y - y0, x_ - x0
        keep = inside.cast(dt)
        return [at(y0, x0) * ((1 - ly) * (1 - lx) * keep),
                at(y0, x1) * ((1 - ly) * lx * keep),
                at(y1, x0) * (ly * (1 - lx) * keep),
                at(y1, x1) * (ly * lx * keep)]
    y0, x0 = ys.floor(), xs.floor()
    ly, lx = ys - y0, xs - x0
    terms = []
    for yy, wy in ((y0, 1 - ly), (y0 + 1, ly)):
        for xx, wx in ((x0, 1 - lx), (x0 + 1, lx)):
            ok = (yy >= 0).logical_and(yy <= H - 1).logical_and(xx >= 0).logical_and(xx <= W - 1)
            v = at(yy.clamp(0, H - 1), xx.clamp(0, W - 1))
            terms.append(v * (wy * wx * ok.cast(dt)))
    return terms


@converter("RoiAlign")
def roi_align(x, a, c):
    t, rois, batch = x
    oh, ow = a.get("output_height", 1), a.get("output_width", 1)
    ratio, scale = a.get("sampling_ratio", 0), a.get("spatial_scale", 1.0)
    mode = a.get("mode", "avg")
    half = a.get("coordinate_transformation_mode", "half_pixel" if c.opset >= 16
                 else "output_half_pixel") == "half_pixel"
    offset = 0.5 if half else 0.0
    out = []
    boxes = rois.tolist()
    bidx = ints(batch)
    for r, (x1, y1, x2, y2) in enumerate(boxes):
        x1, y1, x2, y2 = x1 * scale - offset, y1 * scale - offset, x2 * scale - offset, \
            y2 * scale - offset
        rw, rh = x2 - x1, y2 - y1
        if not half:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / oh, rw / ow
        gh = ratio if ratio > 0 else math.ceil(rh / oh)
        gw = ratio if ratio > 0 else math.ceil(rw / ow)
        gh, gw = max(gh, 1), max(gw, 1)
        ys = [[y1 + i * bh + (iy + 0.5) * bh / gh for iy in range(gh)] for i in range(oh)]
        xs = [[x1 + j * bw + (ix + 0.5) * bw / gw for ix in range(gw)] for j in range(ow)]
        yy = c.const(ys, t.dtype).reshape(oh, 1, gh, 1).expand(oh, ow, gh, gw)
        xx = c.const(xs, t.dtype).reshape(1, ow, 1, gw).expand(oh, ow, gh, gw)
        terms = _corners(t[bidx[r]], yy, xx, True)            # 4 x (C, oh, ow, gh, gw)
        if mode == "avg":
            v = terms[0] + terms[1] + terms[2] + terms[3]
            out.append(v.reshape(*v.shape[:3], gh * gw).mean(dim=(-1,)))
        else:  # ONNX's max mode: the largest weighted corner term over the bin's samples
            v = ember.stack(terms, -1)
            out.append(v.reshape(*v.shape[:3], gh * gw * 4).max_dim(-1).squeeze(-1))
    if not out:
        return ember.zeros(0, t.shape[1], oh, ow, dtype=t.dtype, device=t.device)
    return ember.stack(out, 0)


@converter("DeformConv")
def deform_conv(x, a, c):
    t, w, offset = x[0], x[1], x[2]
    bias = x[3] if len(x) > 3 else None
    mask = x[4] if len(x) > 4 else None
    if t.ndim != 4:
        raise InvalidParameterError(f"DeformConv: ember runs 2-d deformable convolutions "
                                    f"((N, C, H, W) inputs), got shape {tuple(t.shape)}",
                                    "X", tuple(t.shape))
    N, C, H, W = t.shape
    M, Cg, kh, kw = w.shape
    group, ogroup = a.get("group", 1), a.get("offset_group", 1)
    sh, sw = a.get("strides", [1, 1])
    dh, dw = a.get("dilations", [1, 1])
    pt, pl, pb, pr = a.get("pads", [0, 0, 0, 0])
    oh = (H + pt + pb - ((kh - 1) * dh + 1)) // sh + 1
    ow = (W + pl + pr - ((kw - 1) * dw + 1)) // sw + 1
    K = kh * kw
    # the undeformed sampling positions, (K, oh, ow)
    by = c.const([[[i * sh - pt + ki * dh for _ in range(ow)] for i in range(oh)]
                  for ki in range(kh) for _kj in range(kw)], t.dtype)
    bx = c.const([[[j * sw - pl + kj * dw for j in range(ow)] for _ in range(oh)]
                  for _ki in range(kh) for kj in range(kw)], t.dtype)
    off = offset.reshape(N, ogroup, K, 2, oh, ow)
    cpg = C // ogroup
    outs = []
    for b in range(N):
        cols = []
        for g in range(ogroup):
            ys = by + off[b, g, :, 0]
            xs = bx + off[b, g, :, 1]
            v = sum(_corners(t[b, g * cpg:(g + 1) * cpg], ys, xs, False))  # (cpg, K, oh, ow)
            if mask is not None:
                v = v * mask.reshape(N, ogroup, K, oh, ow)[b, g]
            cols.append(v)
        col = ember.cat(cols, 0)                                       # (C, K, oh, ow)
        col = col.reshape(group, Cg * K, oh * ow)
        wg = w.reshape(group, M // group, Cg * K)
        outs.append(wg.matmul(col).reshape(M, oh, ow))
    y = ember.stack(outs, 0)
    if bias is not None:
        y = y + bias.reshape(1, M, 1, 1)
    return y


def _corner(box, center):
    """(y1, x1, y2, x2) rows of ONNX boxes (corners in any order, or center form)."""
    if center:
        xc, yc, w, h = box.unbind(-1)
        return ember.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], -1)
    a_, b_, c_, d_ = box.unbind(-1)
    return ember.stack([ember.minimum(a_, c_), ember.minimum(b_, d_), ember.maximum(a_, c_),
                        ember.maximum(b_, d_)], -1)


@converter("NonMaxSuppression")
def non_max_suppression(x, a, c):
    boxes, scores = x[0], x[1]
    limit = scalar(x[2], 0) if len(x) > 2 else 0
    iou = float(scalar(x[3], 0.0)) if len(x) > 3 else 0.0
    thr = scalar(x[4]) if len(x) > 4 else None
    rows = []
    B, C_ = scores.shape[0], scores.shape[1]
    for b in range(B):
        yx = _corner(boxes[b], a.get("center_point_box", 0))
        xy = ember.stack([yx[:, 1], yx[:, 0], yx[:, 3], yx[:, 2]], -1)
        for k in range(C_):
            if limit <= 0:
                continue
            s = scores[b, k]
            cand = list(range(s.shape[0])) if thr is None else \
                [i for i, v in enumerate(s.tolist()) if v > thr]
            if not cand:
                continue
            ci = c.const(cand, "int64")
            keep = xy.select(0, ci).nms(s.select(0, ci), iou_threshold=iou,
                                              score_threshold=float("-inf"),
                                              max_output_boxes=int(limit))
            rows += [[b, k, cand[i]] for i in keep.tolist()]
    if not rows:
        return ember.zeros(0, 3, dtype="int64", device=c.device)
    return c.const(rows, "int64")


@converter("CenterCropPad")
def center_crop_pad(x, a, c):
    t, shape = x[0], ints(x[1])
    axes = [axis_of(d, t.ndim) for d in a.get("axes", range(t.ndim))]
    for d, want in zip(axes, shape):
        have = t.shape[d]
        if have > want:
            t = t.narrow(d, (have - want) // 2, want)
        elif have < want:
            before = (want - have) // 2
            pads = [(0, 0)] * t.ndim
            pads[d] = (before, want - have - before)
            t = t.pad(pads, "constant", 0)
    return t


@converter("ReverseSequence")
def reverse_sequence(x, a, c):
    t, lens = x[0], ints(x[1])
    batch, time = a.get("batch_axis", 1), a.get("time_axis", 0)
    T = t.shape[time]
    # index along the time axis for each batch entry: reversed within its length
    idx = [[(n - 1 - i) if i < n else i for i in range(T)] for n in lens]   # (B, T)
    shape = [1] * t.ndim
    shape[batch], shape[time] = len(lens), T
    it = c.const(idx, "int64")
    if time < batch:
        it = it.transpose(0, 1)
    it = it.reshape(*shape).expand(*t.shape)
    return t.gather(time, it)


@converter("GlobalLpPool")
def global_lp_pool(x, a, c):
    t, p = x[0], a.get("p", 2)
    dims = tuple(range(2, t.ndim))
    if p == 1:
        return t.abs().sum(dim=dims, keepdim=True)
    return t.abs().pow(p).sum(dim=dims, keepdim=True).pow(1.0 / p)


def _round(v):
    """Round half away from zero (C's ``round``, as ROI pooling rounds box corners)."""
    return int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))


@converter("MaxRoiPool")
def max_roi_pool(x, a, c):
    t, rois = x
    ph, pw = a["pooled_shape"]
    scale = a.get("spatial_scale", 1.0)
    H, W = t.shape[2], t.shape[3]
    out = []
    for b, x1, y1, x2, y2 in rois.tolist():
        sw, sh = _round(x1 * scale), _round(y1 * scale)
        ew, eh = _round(x2 * scale), _round(y2 * scale)
        bin_h, bin_w = max(eh - sh + 1, 1) / ph, max(ew - sw + 1, 1) / pw
        img = t[int(b)]
        rows = []
        for i in range(ph):
            h0 = min(max(math.floor(i * bin_h) + sh, 0), H)
            h1 = min(max(math.ceil((i + 1) * bin_h) + sh, 0), H)
            cols = []
            for j in range(pw):
                w0 = min(max(math.floor(j * bin_w) + sw, 0), W)
                w1 = min(max(math.ceil((j + 1) * bin_w) + sw, 0), W)
                if h1 <= h0 or w1 <= w0:  # an empty bin pools to 0
                    cols.append(ember.zeros(t.shape[1], dtype=t.dtype, device=t.device))
                    continue
                win = img.narrow(1, h0, h1 - h0).narrow(2, w0, w1 - w0)
                cols.append(win.reshape(t.shape[1], -1).max_dim(1).squeeze(1))
            rows.append(ember.stack(cols, -1))
        out.append(ember.stack(rows, -2))
    if not out:
        return ember.zeros(0, t.shape[1], ph, pw, dtype=t.dtype, device=t.device)
    return ember.stack(out, 0)
