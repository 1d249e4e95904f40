"""3-D convolution and pooling for the ONNX converters, composed of ember's 2-D ops over depth
slices (so they differentiate like the rest): output depth ``o`` reads input depths
``o * stride + k * dilation`` for each kernel depth ``k``; each of those slabs runs as a 2-D
op with the depth folded into the batch.

>>> import ember
>>> from ember.onnx.volume import conv3d
>>> conv3d(ember.ones(1, 2, 4, 5, 5), ember.ones(3, 2, 2, 3, 3), None, [1, 1, 1], [1, 1, 1],
...        [0, 0, 0], [0, 0, 0], 1).shape
(1, 3, 3, 3, 3)
"""

import math

import ember
import ember.nn.functional as F

from ..errors import InvalidParameterError


def _pad(t, begins, ends, value=0.0):
    return t.pad([(0, 0), (0, 0)] + list(zip(begins, ends)), "constant", value)


def _out_len(n, k, s, d, ceil=False):
    span = n - d * (k - 1) - 1
    if ceil:
        out = -(-span // s) + 1
        return out - 1 if (out - 1) * s >= n else out
    return span // s + 1


def _slabs(t, k, s, d, depth_out):
    """For each kernel depth, the (N * depth_out, C, H, W) slab of input depths it reads."""
    n, c = t.shape[0], t.shape[1]
    out = []
    for j in range(k):
        start = j * d
        slab = t[:, :, start:start + (depth_out - 1) * s + 1:s]
        out.append(slab.permute(0, 2, 1, 3, 4).reshape(n * depth_out, c, *t.shape[3:]))
    return out


def _unfold(t, n, depth_out):
    """(N * depth_out, C, H, W) -> (N, C, depth_out, H, W)."""
    return t.reshape(n, depth_out, *t.shape[1:]).permute(0, 2, 1, 3, 4)


def conv3d(t, w, bias, strides, dil, begins, ends, groups):
    """ONNX Conv on a 5-D input: a sum of 2-D convolutions, one per kernel depth."""
    t = _pad(t, begins, ends)
    kd = w.shape[2]
    depth_out = _out_len(t.shape[2], kd, strides[0], dil[0])
    total = None
    for j, slab in enumerate(_slabs(t, kd, strides[0], dil[0], depth_out)):
        part = F.conv2d(slab, w[:, :, j], None, stride=tuple(strides[1:]), padding=0,
                        dilation=tuple(dil[1:]), groups=groups)
        total = part if total is None else total + part
    out = _unfold(total, t.shape[0], depth_out)
    return out + bias.reshape(-1, 1, 1, 1) if bias is not None else out


def _mean2d(t, kernel, strides, dil):
    """A 2-D average pool (no padding) whose window may be dilated: a dilated window of ones
    convolved with each channel alone, over the window's size."""
    if all(d == 1 for d in dil):
        return F.avg_pool2d(t, tuple(kernel), tuple(strides), 0, False, True)
    n, c = t.shape[0], t.shape[1]
    ones = ember.ones(1, 1, *kernel, dtype=t.dtype, device=t.device)
    out = F.conv2d(t.reshape(n * c, 1, *t.shape[2:]), ones, None, stride=tuple(strides),
                   padding=0, dilation=tuple(dil))
    return out.reshape(n, c, *out.shape[2:]) / (kernel[0] * kernel[1])


def pool3d(op, t, kernel, strides, dil, begins, ends, ceil, include_pad=True):
    """ONNX MaxPool or AveragePool on a 5-D input: the max (or mean) over kernel depths of 2-D
    pools; ``ceil_mode`` pads the ends so the last partial windows exist."""
    given_ends = list(ends)
    if ceil:
        ends = list(ends)
        for i in range(3):
            n = t.shape[2 + i] + begins[i] + ends[i]
            want = _out_len(n, kernel[i], strides[i], dil[i], True)
            need = (want - 1) * strides[i] + dil[i] * (kernel[i] - 1) + 1
            ends[i] += max(need - n, 0)
    avg = op == "AveragePool"

    def pooled(x, fill, lo, hi):
        x = _pad(x, lo, hi, fill)
        depth_out = _out_len(x.shape[2], kernel[0], strides[0], dil[0])
        acc = None
        for slab in _slabs(x, kernel[0], strides[0], dil[0], depth_out):
            if avg:
                part = _mean2d(slab, kernel[1:], strides[1:], dil[1:])
                acc = part if acc is None else acc + part
            else:
                part = F.max_pool2d(slab, tuple(kernel[1:]), tuple(strides[1:]), 0,
                                    tuple(dil[1:]))
                acc = part if acc is None else ember.maximum(acc, part)
        return _unfold(acc, x.shape[0], depth_out)

    if not avg:
        return pooled(t, -math.inf, begins, ends)
    out = pooled(t, 0.0, begins, ends)
    if include_pad and ends == given_ends:  # every window is whole: the sum of the kernel
        return out / kernel[0]                # depth's 2-D means, over that depth
    # divide by the pooled count of what is counted: the input, and the given pads if included
    if include_pad:
        ones = ember.ones(1, 1, *[n + b + e for n, b, e in zip(t.shape[2:], begins, given_ends)],
                          dtype=t.dtype, device=t.device)
        counts = pooled(ones, 0.0, [0, 0, 0], [e - g for e, g in zip(ends, given_ends)])
    else:
        ones = ember.ones(1, 1, *t.shape[2:], dtype=t.dtype, device=t.device)
        counts = pooled(ones, 0.0, begins, ends)
    return out / counts
