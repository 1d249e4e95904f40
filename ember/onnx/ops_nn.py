"""ONNX converters of the neural-network operators: MatMul, Gemm, Conv, ConvTranspose, pools,
normalizations, Dropout, Resize, Einsum.

Convolutions and pools take 1-D, 2-D and 3-D spatial inputs (a 1-D one runs as 2-D with a unit
height, a 3-D one as 2-D ops over depth slices: ember/onnx/volume.py); asymmetric ``pads`` and
``auto_pad`` become an explicit pad before the op.

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> x = ember.ones(1, 1, 4, 4)
>>> CONVERTERS["GlobalAveragePool"]([x], {}, Context(18)).shape
(1, 1, 1, 1)
"""

import math

import numpy as np

import ember
import ember.nn.functional as F

from ..errors import InvalidParameterError
from . import volume
from .registry import axis_of, converter, ints, widened


@converter("MatMul")
@widened
def matmul(x, a, c):
    return x[0].matmul(x[1])


@converter("Gemm")
@widened
def gemm(x, a, c):
    p, q = x[0], x[1]
    if a.get("transA", 0):
        p = p.transpose(0, 1)
    if a.get("transB", 0):
        q = q.transpose(0, 1)
    out = p.matmul(q)
    alpha, beta = a.get("alpha", 1.0), a.get("beta", 1.0)
    if alpha != 1.0:
        out = out * alpha
    if len(x) > 2 and x[2] is not None:
        out = out + (x[2] * beta if beta != 1.0 else x[2])
    return out


def _spatial(op, t, a, kernel):
    """(t as 4-D, was 1-D, strides, dilations, (begins, ends) pads) of a conv or pool (a 3-D
    one keeps its 5-D input)."""
    n = len(kernel)
    if n not in (1, 2, 3) or t.ndim != n + 2:
        raise InvalidParameterError(f"{op}: ember runs 1-D, 2-D and 3-D {op} only; got a "
                                    f"{t.ndim}-D input with a {n}-D kernel", "kernel_shape",
                                    kernel)
    strides = list(a.get("strides", [1] * n))
    dil = list(a.get("dilations", [1] * n))
    pads = list(a.get("pads", [0] * (2 * n)))
    auto = a.get("auto_pad", "NOTSET")
    spatial = t.shape[2:]
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = [0] * (2 * n)
        for i in range(n):
            total = max((math.ceil(spatial[i] / strides[i]) - 1) * strides[i]
                        + (kernel[i] - 1) * dil[i] + 1 - spatial[i], 0)
            small = total // 2
            pads[i], pads[i + n] = ((small, total - small) if auto == "SAME_UPPER"
                                    else (total - small, small))
    elif auto == "VALID":
        pads = [0] * (2 * n)
    begins, ends = pads[:n], pads[n:]
    one_d = n == 1
    if one_d:
        t = t.unsqueeze(2)
        strides, dil, begins, ends = [1] + strides, [1] + dil, [0] + begins, [0] + ends
    return t, one_d, strides, dil, (begins, ends)


def _explicit_pad(t, begins, ends, value=0.0):
    return t.pad([(0, 0), (0, 0)] + [(b, e) for b, e in zip(begins, ends)], "constant", value)


def _back(t, one_d):
    return t.squeeze(2) if one_d else t


@converter("Conv")
def conv(x, a, c):
    w = x[1]
    kernel = list(a.get("kernel_shape", w.shape[2:]))
    t, one_d, strides, dil, (begins, ends) = _spatial("Conv", x[0], a, kernel)
    bias = x[2] if len(x) > 2 else None
    if len(kernel) == 3:
        return volume.conv3d(t, w, bias, strides, dil, begins, ends, a.get("group", 1))
    if one_d:
        w = w.unsqueeze(2)
    padding = begins
    if begins != ends:
        t, padding = _explicit_pad(t, begins, ends), [0, 0]
    out = F.conv2d(t, w, bias, stride=tuple(strides), padding=tuple(padding),
                   dilation=tuple(dil), groups=a.get("group", 1))
    return _back(out, one_d)


def _transpose_pads(x, a, kernel):
    """``a`` with the explicit pads that give ConvTranspose's ``output_shape`` (or, for
    ``auto_pad`` SAME, input size times stride), as ONNX's reference computes them."""
    n = len(kernel)
    strides = list(a.get("strides", [1] * n))
    dil = list(a.get("dilations", [1] * n))
    out_pad = list(a.get("output_padding", [0] * n))
    sizes = x.shape[2:]
    target = (list(a["output_shape"])[-n:] if "output_shape" in a
              else [sizes[i] * strides[i] for i in range(n)])
    total = [strides[i] * (sizes[i] - 1) + out_pad[i] + (kernel[i] - 1) * dil[i] + 1 - target[i]
             for i in range(n)]
    auto = a.get("auto_pad", "NOTSET")
    if auto == "SAME_UPPER":
        begins, ends = [t // 2 for t in total], [t - t // 2 for t in total]
    elif auto == "SAME_LOWER":
        begins, ends = [t - t // 2 for t in total], [t // 2 for t in total]
    else:  # explicit output_shape: the natural result, cropped or zero-extended at the end
        begins, ends = [0] * n, total
    a = {k: v for k, v in a.items() if k != "output_shape"}
    a.update(pads=begins + ends, auto_pad="NOTSET")
    return a


def _stuff(t, strides):
    """``t`` with ``stride - 1`` zeros inserted between neighbours along each spatial dim."""
    for i, s in enumerate(strides):
        if s == 1:
            continue
        d = 2 + i
        size = t.shape[d]
        t = t.unsqueeze(d + 1)
        pads = [(0, 0)] * t.ndim
        pads[d + 1] = (0, s - 1)
        t = t.pad(pads).reshape(*t.shape[:d], size * s, *t.shape[d + 2:])
        t = t.narrow(d, 0, (size - 1) * s + 1)
    return t


@converter("ConvTranspose")
def conv_transpose(x, a, c):
    """A transposed convolution as a convolution of the zero-stuffed input with the flipped,
    transposed weight (gradients by composition); 1-D, 2-D and 3-D."""
    w = x[1]
    kernel = list(a.get("kernel_shape", w.shape[2:]))
    if a.get("auto_pad", "NOTSET") in ("SAME_UPPER", "SAME_LOWER") or "output_shape" in a:
        a = _transpose_pads(x[0], a, kernel)
    t, one_d, strides, dil, (begins, ends) = _spatial("ConvTranspose", x[0], a, kernel)
    out_pad = list(a.get("output_padding", [0] * len(kernel)))
    if one_d:
        w, out_pad = w.unsqueeze(2), [0] + out_pad
    g = a.get("group", 1)
    cin, nd = t.shape[1], t.ndim - 2
    t = _stuff(t, strides)
    cout_g, ks = w.shape[1], list(w.shape[2:])
    wt = w.reshape(g, cin // g, cout_g, *ks).transpose(1, 2)
    wt = wt.reshape(g * cout_g, cin // g, *ks).flip(list(range(2, 2 + nd)))
    lo = [dil[i] * (ks[i] - 1) - begins[i] for i in range(nd)]
    hi = [dil[i] * (ks[i] - 1) - ends[i] + out_pad[i] for i in range(nd)]
    t = _explicit_pad(t, [max(v, 0) for v in lo], [max(v, 0) for v in hi])
    for i, (l, r) in enumerate(zip(lo, hi)):
        if l < 0 or r < 0:
            t = t.narrow(2 + i, max(-l, 0), t.shape[2 + i] - max(-l, 0) - max(-r, 0))
    bias = x[2] if len(x) > 2 else None
    if nd == 3:
        return volume.conv3d(t, wt, bias, [1, 1, 1], dil, [0] * 3, [0] * 3, g)
    out = F.conv2d(t, wt, bias, stride=1, padding=0, dilation=tuple(dil), groups=g)
    return _back(out, one_d)


def _needs_explicit(begins, ends, kernel):
    return begins != ends or any(b > k // 2 for b, k in zip(begins, kernel))


@converter("MaxPool")
def max_pool(x, a, c):
    """The max of each window; a second output (Indices) is the flat index of the selected
    element in the whole input tensor, row-major (or column-major within each H x W plane
    with ``storage_order=1``), as ONNX says."""
    kernel = list(a["kernel_shape"])
    t, one_d, strides, dil, (begins, ends) = _spatial("MaxPool", x[0], a, kernel)
    if t.kind != "float":  # ints pool exactly in float64, then come back
        out = max_pool([x[0].cast("float64")] + list(x[1:]), a, c)
        if isinstance(out, list):
            return [out[0].cast(x[0].dtype), out[1]]
        return out.cast(x[0].dtype)
    want = c.outputs > 1
    if len(kernel) == 3:
        if want:
            raise InvalidParameterError("MaxPool: ember computes the Indices output of 1-D and "
                                        "2-D pools only; got a 3-D kernel", "kernel_shape", kernel)
        return volume.pool3d("MaxPool", t, kernel, strides, dil, begins, ends,
                             bool(a.get("ceil_mode", 0)))
    k = [1] + kernel if one_d else kernel
    padding, shifted = begins, t
    if _needs_explicit(begins, ends, k):
        shifted, padding = _explicit_pad(t, begins, ends, -math.inf), [0, 0]
    out = F.max_pool2d(shifted, tuple(k), tuple(strides), tuple(padding), tuple(dil),
                       bool(a.get("ceil_mode", 0)), return_indices=want)
    if not want:
        return _back(out, one_d)
    out, idx = out
    n, ch, h, w = t.shape
    if shifted is not t:  # indices into the padded plane: back to the input's rows and columns
        wp = shifted.shape[3]
        rows, cols = idx.floor_divide(wp) - begins[0], idx.remainder(wp) - begins[1]
    else:
        rows, cols = idx.floor_divide(w), idx.remainder(w)
    within = rows * w + cols if not a.get("storage_order", 0) else rows + cols * h
    plane = ember.arange(n * ch, dtype="int64", device=t.device).reshape(n, ch, 1, 1) * (h * w)
    return [_back(out, one_d), _back(within + plane, one_d)]


@converter("AveragePool")
def average_pool(x, a, c):
    """Padding that is not counted (``count_include_pad=0``) divides by a pooled mask of ones."""
    kernel = list(a["kernel_shape"])
    t, one_d, strides, dil, (begins, ends) = _spatial("AveragePool", x[0], a, kernel)
    if len(kernel) == 3:
        return volume.pool3d("AveragePool", t, kernel, strides, dil, begins, ends,
                             bool(a.get("ceil_mode", 0)), bool(a.get("count_include_pad", 0)))
    k = [1] + kernel if one_d else kernel
    if any(d != 1 for d in dil):  # a dilated window: pool3d's path with a unit depth
        out = volume.pool3d("AveragePool", t.unsqueeze(2), [1] + k, [1] + strides, [1] + dil,
                            [0] + begins, [0] + ends, bool(a.get("ceil_mode", 0)),
                            bool(a.get("count_include_pad", 0)))
        return _back(out.squeeze(2), one_d)
    include = bool(a.get("count_include_pad", 0))
    ceil = bool(a.get("ceil_mode", 0))
    if not _needs_explicit(begins, ends, k):
        out = F.avg_pool2d(t, tuple(k), tuple(strides), tuple(begins), ceil, include)
        return _back(out, one_d)
    padded = _explicit_pad(t, begins, ends)
    out = F.avg_pool2d(padded, tuple(k), tuple(strides), 0, ceil, True)
    if not include:
        ones = _explicit_pad(ember.ones(1, 1, *t.shape[2:], dtype=t.dtype, device=t.device),
                             begins, ends)
        out = out / F.avg_pool2d(ones, tuple(k), tuple(strides), 0, ceil, True)
    return _back(out, one_d)


@converter("GlobalAveragePool")
def global_average_pool(x, a, c):
    return x[0].mean(dim=tuple(range(2, x[0].ndim)), keepdim=True)


@converter("GlobalMaxPool")
def global_max_pool(x, a, c):
    return x[0].max(dim=tuple(range(2, x[0].ndim)), keepdim=True)


@converter("BatchNormalization")
def batch_norm(x, a, c):
    """Inference normalizes with the given statistics; ``training_mode=1`` with the batch's
    (biased variance) and, when asked, also returns the running statistics
    ``given * momentum + batch * (1 - momentum)``."""
    t, scale, bias, mean, var = x[:5]
    eps = a.get("epsilon", 1e-5)
    if not a.get("training_mode", 0):
        return F.batch_norm(t, mean, var, scale, bias, training=False, eps=eps)
    dims = tuple(i for i in range(t.ndim) if i != 1)
    shape = (1, -1) + (1,) * (t.ndim - 2)
    batch_mean = t.mean(dim=dims)
    batch_var = ((t - batch_mean.reshape(*shape)) ** 2).mean(dim=dims)
    y = (t - batch_mean.reshape(*shape)) / (batch_var.reshape(*shape) + eps).sqrt() \
        * scale.reshape(*shape) + bias.reshape(*shape)
    if c.outputs == 1:
        return y
    m = a.get("momentum", 0.9)
    return [y, mean * m + batch_mean * (1 - m), var * m + batch_var * (1 - m)]


@converter("LayerNormalization")
def layer_norm(x, a, c):
    t, scale = x[0], x[1]
    bias = x[2] if len(x) > 2 else None
    axis = axis_of(a.get("axis", -1), t.ndim)
    shape = tuple(t.shape[axis:])
    eps = a.get("epsilon", 1e-5)
    if c.outputs > 1:  # Mean and InvStdDev asked for too: normalize by hand
        dims = tuple(range(axis, t.ndim))
        mean = t.mean(dim=dims, keepdim=True)
        inv = 1 / (((t - mean) ** 2).mean(dim=dims, keepdim=True) + eps).sqrt()
        out = (t - mean) * inv * scale
        return [out + bias if bias is not None else out, mean, inv]
    if tuple(scale.shape) == shape and (bias is None or tuple(bias.shape) == shape):
        return F.layer_norm(t, shape, scale, bias, eps)
    out = F.layer_norm(t, shape, None, None, eps) * scale
    return out + bias if bias is not None else out


@converter("InstanceNormalization")
def instance_norm(x, a, c):
    t, scale, bias = x
    dims = tuple(range(2, t.ndim))
    mean = t.mean(dim=dims, keepdim=True)
    var = ((t - mean) ** 2).mean(dim=dims, keepdim=True)
    shape = (1, -1) + (1,) * len(dims)
    return (t - mean) / (var + a.get("epsilon", 1e-5)).sqrt() * scale.reshape(*shape) \
        + bias.reshape(*shape)


@converter("Dropout")
def dropout(x, a, c):
    t = x[0]
    return [t, ember.ones(*t.shape, dtype="bool", device=t.device)]


@converter("Einsum")
def einsum(x, a, c):
    return ember.einsum(a["equation"].replace(" ", ""), *x)


def _source_coords(mode, n_in, n_out, scale, roi):
    """The input coordinate of each of the ``n_out`` outputs along one axis (ONNX's
    coordinate_transformation_mode; ``scale`` is the axis's scale, ``scale * n_in`` its
    unrounded output length), and which outputs fall outside the crop (tf_crop_and_resize)."""
    o = np.arange(n_out, dtype=np.float64)
    length = scale * n_in
    outside = None
    if mode == "align_corners":
        src = o * (n_in - 1) / (length - 1) if length != 1 else np.zeros(n_out)
    elif mode == "asymmetric":
        src = o / scale
    elif mode == "pytorch_half_pixel":
        src = (o + 0.5) / scale - 0.5 if length != 1 else np.full(n_out, -0.5)
    elif mode == "tf_half_pixel_for_nn":
        src = (o + 0.5) / scale
    elif mode == "half_pixel":
        src = (o + 0.5) / scale - 0.5
    elif mode == "half_pixel_symmetric":  # the unrounded output's centre on the input's
        src = n_in / 2 * (1 - n_out / length) + (o + 0.5) / scale - 0.5
    elif mode == "tf_crop_and_resize":
        lo, hi = roi
        src = (o * (hi - lo) * (n_in - 1) / (length - 1) if length != 1
               else np.full(n_out, (hi - lo) * (n_in - 1) / 2))
        src = src + lo * (n_in - 1)
        outside = (src < 0) | (src > n_in - 1)
    else:
        raise InvalidParameterError(f"Resize: coordinate_transformation_mode {mode!r} is not "
                                    "supported", "coordinate_transformation_mode", mode)
    return src, outside


_NEAREST = {"round_prefer_floor": lambda v: np.ceil(v - 0.5), "round_prefer_ceil":
            lambda v: np.floor(v + 0.5), "floor": np.floor, "ceil": np.ceil}


def _cubic_kernel(d, A):
    d = np.abs(d)
    near = ((A + 2) * d - (A + 3)) * d * d + 1
    far = ((A * d - 5 * A) * d + 8 * A) * d - 4 * A
    return np.where(d <= 1, near, np.where(d < 2, far, 0.0))


def _taps(mode, src, n_in, scale, a):
    """(indices, weights), each (n_out, K): the input samples each output mixes. Linear and
    cubic are kernels of radius 1 and 2 in input pixels; antialiasing a downsample widens
    them by 1/scale and normalizes; samples beyond the edge repeat the edge pixel, or with
    ``exclude_outside`` drop out (weights renormalized)."""
    antialias = bool(a.get("antialias", 0)) and scale < 1
    s = scale if antialias else 1.0
    reach = math.ceil((1.0 if mode == "linear" else 2.0) / s)
    j = np.floor(src)[:, None] + np.arange(1 - reach, reach + 1)[None, :]
    d = (j - src[:, None]) * s
    if mode == "linear":
        w = np.clip(1 - np.abs(d), 0, 1)
    else:
        w = _cubic_kernel(d, a.get("cubic_coeff_a", -0.75))
    norm = antialias
    if a.get("exclude_outside", 0):
        w, norm = np.where((j < 0) | (j > n_in - 1), 0.0, w), True
    if norm:
        total = w.sum(axis=1, keepdims=True)
        w = w / np.where(total == 0, 1.0, total)
    return np.clip(j, 0, n_in - 1).astype(np.int64), w


def _resize_plan(t, x, a, c):
    """[(axis, n_in, n_out, scale, roi)] of Resize's inputs and attributes: ``scales`` or
    ``sizes`` (with ``keep_aspect_ratio_policy``) over ``axes``, and the crop of ``roi``."""
    if len(x) == 2:  # Upsample, Resize-10: (X, scales)
        roi, scales_in, sizes_in = None, x[1], None
    else:
        roi, scales_in = x[1], x[2] if len(x) > 2 else None
        sizes_in = x[3] if len(x) > 3 else None
    sizes = ints(sizes_in) if sizes_in is not None and sizes_in.numel() else None
    scales = (scales_in.tolist() if scales_in is not None and scales_in.numel() else
              a.get("scales"))
    axes = [axis_of(d, t.ndim) for d in a.get("axes", range(t.ndim))]
    roi = roi.tolist() if roi is not None and roi.numel() else None
    if sizes is not None:
        scales = [n / t.shape[d] for n, d in zip(sizes, axes)]
        policy = a.get("keep_aspect_ratio_policy", "stretch")
        if policy in ("not_larger", "not_smaller"):
            common = min(scales) if policy == "not_larger" else max(scales)
            scales = [common] * len(axes)
            sizes = [int(common * t.shape[d] + 0.5) for d in axes]
        elif policy != "stretch":
            raise InvalidParameterError(f"Resize: keep_aspect_ratio_policy {policy!r}; expected "
                                        "stretch, not_larger or not_smaller",
                                        "keep_aspect_ratio_policy", policy)
    else:
        sizes = [int(math.floor(t.shape[d] * float(sc))) for d, sc in zip(axes, scales)]
    plan = []
    for i, d in enumerate(axes):
        crop = (roi[i], roi[i + len(axes)]) if roi is not None else (0.0, 1.0)
        plan.append((d, t.shape[d], sizes[i], float(scales[i]), crop))
    return plan


@converter("Resize", "Upsample")
def resize(x, a, c):
    """Nearest, (bi)linear and (bi)cubic resizing, one axis at a time: each output is a
    weighted sum of gathered input samples (differentiable), weights from ONNX's
    coordinate transformation, kernel, antialiasing and edge rules."""
    t = x[0]
    mode = a.get("mode", "nearest")
    if mode not in ("nearest", "linear", "cubic"):
        raise InvalidParameterError(f"Resize: mode {mode!r}; expected nearest, linear or cubic",
                                    "mode", mode)
    ctm = a.get("coordinate_transformation_mode", "half_pixel" if c.opset >= 11 else "asymmetric")
    rounding = _NEAREST[a.get("nearest_mode", "round_prefer_floor")]
    exact = t.kind != "float" and mode != "nearest"  # ints mix in float32, then round back
    out = t.cast("float32") if exact else t
    for d, n_in, n_out, scale, crop in _resize_plan(t, x, a, c):
        if n_out == n_in and scale == 1.0 and crop == (0.0, 1.0):
            continue
        src, outside = _source_coords(ctm, n_in, n_out, scale, crop)
        shape = [1] * out.ndim
        shape[d] = n_out
        if mode == "nearest":
            idx = np.clip(rounding(src), 0, n_in - 1).astype(np.int64)
            mixed = out.take(d, c.const(idx, "int64"))
        else:
            idx, w = _taps(mode, src, n_in, scale, a)
            mixed = None
            for k in range(idx.shape[1]):
                term = out.take(d, c.const(idx[:, k], "int64")) * \
                    c.const(w[:, k].reshape(shape), out.dtype)
                mixed = term if mixed is None else mixed + term
        if outside is not None and outside.any():
            mixed = ember.where(c.const(outside.reshape(shape)),
                                c.const(a.get("extrapolation_value", 0.0), mixed.dtype), mixed)
        out = mixed
    if exact:
        lo, hi = (0, 2 ** (8 * t.dtype.itemsize) - 1) if not t.dtype.is_signed else \
            (-2 ** (8 * t.dtype.itemsize - 1), 2 ** (8 * t.dtype.itemsize - 1) - 1)
        out = out.round().clamp(lo, hi).cast(t.dtype)
    return out
