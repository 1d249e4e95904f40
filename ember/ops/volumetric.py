"""PyTorch's 3-D convolutions and pools, and the 1-D/3-D max unpools, on the 2-D kernels:
``conv3d`` sums one conv2d per kernel depth over the depth windows (folded into the batch),
``conv_transpose3d`` places one conv_transpose2d per kernel depth at its strided depth
offsets, the pools are separable (a 2-D pool over (H, W), then one over D), and the adaptive
average is a matmul per dim. Gradients are those of the composed ops.

>>> import ember
>>> import ember.nn.functional as F
>>> F.conv3d(ember.ones(1, 1, 3, 3, 3), ember.ones(1, 1, 2, 2, 2)).shape
(1, 1, 2, 2, 2)
"""

from ..errors import InvalidParameterError, ShapeMismatchError
from .conv import _conv2d
from .conv_more import conv_transpose2d
from .creation import tensor, zeros
from .nn_args import _float_tensor, _int, _opt_float, _rank, _real, _shape_str
from .pool import _avg_pool2d, _max_pool2d, max_unpool2d
from .pool_more import _averaging, _out_sizes, _pick, _single, _window_index
from .segments import cat

__all__ = ["conv3d", "conv_transpose3d", "avg_pool3d", "max_pool3d", "max_pool3d_with_indices",
           "adaptive_avg_pool3d", "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices",
           "lp_pool3d", "max_unpool1d", "max_unpool3d"]

_MODES = {"zeros": "constant", "reflect": "reflect", "replicate": "edge",
          "circular": "circular"}


def _triple(value, op, param, low):
    if isinstance(value, (tuple, list)):
        if len(value) != 3:
            raise InvalidParameterError(f"{op}: {param} {value!r} must be an int or 3 ints",
                                        param, value)
        return tuple(_int(v, op, param, low) for v in value)
    v = _int(value, op, param, low)
    return (v, v, v)


def _batched(x, op):
    _rank(x, (4, 5), op, "(N, C, D, H, W) or (C, D, H, W)")
    return (x.unsqueeze(0), True) if x.ndim == 4 else (x, False)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D cross-correlation, PyTorch's ``F.conv3d``: ``input`` (N, C, D, H, W) or
    (C, D, H, W), ``weight`` (O, C/groups, kd, kh, kw); ``padding`` an int, a triple,
    ``"same"`` or ``"valid"``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.conv3d(ember.ones(1, 2, 2, 2), ember.ones(1, 1, 2, 2, 2)).tolist()
    [[[[8.0]]]]
    """
    return _conv3d("conv3d", input, weight, bias, stride, padding, dilation, groups)


def _conv3d(op, input, weight, bias, stride, padding, dilation, groups, padding_mode="zeros"):
    x = _float_tensor(input, op)
    w = _float_tensor(weight, op, "weight")
    b = _opt_float(bias, op, "bias")
    x, unbatched = _batched(x, op)
    if w.ndim != 5:
        raise ShapeMismatchError(f"{op}: weight has shape {_shape_str(w.shape)}; expected a 5-d "
                                 "(out, in/groups, kd, kh, kw) tensor", expected=5,
                                 actual=tuple(w.shape))
    s, d = _triple(stride, op, "stride", 1), _triple(dilation, op, "dilation", 1)
    groups = _int(groups, op, "groups", 1)
    k = tuple(w.shape[2:])
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise InvalidParameterError(f"{op}: padding {padding!r} is unknown; expected an "
                                        "int, a triple, 'same' or 'valid'", "padding", padding)
        if padding == "same" and s != (1, 1, 1):
            raise InvalidParameterError(f"{op}: padding='same' needs stride 1, got {s}",
                                        "padding", padding)
        tot = [di * (ki - 1) if padding == "same" else 0 for di, ki in zip(d, k)]
        pads = tuple((t // 2, t - t // 2) for t in tot)
    else:
        pads = tuple((p, p) for p in _triple(padding, op, "padding", 0))
    if x.shape[1] != w.shape[1] * groups:
        raise ShapeMismatchError(
            f"{op}: input has {x.shape[1]} channels; weight {_shape_str(w.shape)} with "
            f"groups={groups} expects {w.shape[1] * groups}", expected=w.shape[1] * groups,
            actual=tuple(x.shape))
    if any(p for pair in pads for p in pair):
        x = x.pad(pads, _MODES[padding_mode])
    n, c, dp = x.shape[:3]
    eff = d[0] * (k[0] - 1) + 1
    do = (dp - eff) // s[0] + 1
    if do < 1:
        raise ShapeMismatchError(f"{op}: the input's depth {dp} (padded) is smaller than the "
                                 f"effective kernel depth {eff}", expected=eff, actual=dp)
    out = None
    for j in range(k[0]):
        start = j * d[0]
        sl = x[:, :, start:start + (do - 1) * s[0] + 1:s[0]]          # (N, C, Do, H, W)
        planes = sl.permute((0, 2, 1, 3, 4)).reshape((n * do, c) + tuple(x.shape[3:]))
        y = _conv2d(op, planes, w[:, :, j], None, s[1:], 0, d[1:], groups)
        out = y if out is None else out + y
    out = out.reshape((n, do) + tuple(out.shape[1:])).permute((0, 2, 1, 3, 4))
    if b is not None:
        out = out + b.reshape((-1, 1, 1, 1))
    return out.squeeze(0) if unbatched else out


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 3-D convolution, PyTorch's ``F.conv_transpose3d``: ``input``
    (N, C, D, H, W) or (C, D, H, W), ``weight`` (C, O/groups, kd, kh, kw).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.conv_transpose3d(ember.ones(1, 1, 2, 2, 2), ember.ones(1, 1, 2, 2, 2), stride=2).shape
    (1, 1, 4, 4, 4)
    """
    op = "conv_transpose3d"
    x = _float_tensor(input, op)
    w = _float_tensor(weight, op, "weight")
    b = _opt_float(bias, op, "bias")
    x, unbatched = _batched(x, op)
    if w.ndim != 5 or w.shape[0] != x.shape[1]:
        raise ShapeMismatchError(
            f"{op}: weight {_shape_str(w.shape)} does not fit input {_shape_str(x.shape)}; "
            "expected a 5-d (in, out/groups, kd, kh, kw) weight", expected=x.shape[1],
            actual=tuple(w.shape))
    s, d = _triple(stride, op, "stride", 1), _triple(dilation, op, "dilation", 1)
    p = _triple(padding, op, "padding", 0)
    opad = _triple(output_padding, op, "output_padding", 0)
    for a in range(3):
        if opad[a] >= max(s[a], d[a]):
            raise InvalidParameterError(f"{op}: output_padding {opad} must be smaller than "
                                        f"stride {s} or dilation {d}", "output_padding",
                                        output_padding)
    n, c, D = x.shape[:3]
    kd = w.shape[2]
    full = (D - 1) * s[0] + d[0] * (kd - 1) + 1 + opad[0]
    dout = full - 2 * p[0]
    if dout < 1:
        raise ShapeMismatchError(f"{op}: the output depth would be {dout}", expected=1,
                                 actual=dout)
    planes = x.permute((0, 2, 1, 3, 4)).reshape((n * D, c) + tuple(x.shape[3:]))
    out = None
    for j in range(kd):
        y = conv_transpose2d(planes, w[:, :, j], None, s[1:], p[1:], opad[1:], groups, d[1:])
        y = y.reshape((n, D) + tuple(y.shape[1:])).permute((0, 2, 1, 3, 4))  # (N, O, D, H, W)
        if s[0] > 1:
            gap = zeros(*(y.shape[:3] + (s[0] - 1,) + y.shape[3:]), dtype=y.dtype,
                        device=y.device)
            y = _interleave(y, gap)
            y = y.narrow(2, 0, (D - 1) * s[0] + 1)
        before = j * d[0]
        y = y.pad(((before, full - before - y.shape[2]), (0, 0), (0, 0)))
        out = y if out is None else out + y
    out = out.narrow(2, p[0], dout)
    if b is not None:
        out = out + b.reshape((-1, 1, 1, 1))
    return out.squeeze(0) if unbatched else out


def _interleave(y, gap):
    """(N, O, D, H, W) with ``gap.shape[3]`` zero planes after each depth plane."""
    both = cat([y.unsqueeze(3), gap], 3)                  # (N, O, D, s, H, W)
    sh = tuple(y.shape)
    return both.reshape((sh[0], sh[1], sh[2] * both.shape[3]) + sh[3:])


def _pool3d_args(op, input, kernel_size, stride, padding, dilation=1):
    x = _float_tensor(input, op)
    x, unbatched = _batched(x, op)
    k = _triple(kernel_size, op, "kernel_size", 1)
    s = k if stride is None or (isinstance(stride, (tuple, list)) and not stride) else \
        _triple(stride, op, "stride", 1)
    p = _triple(padding, op, "padding", 0)
    dl = _triple(dilation, op, "dilation", 1)
    return x, unbatched, k, s, p, dl


def _counts(size, k, s, p, out, include_pad):
    res = []
    for o in range(out):
        start = o * s - p
        end = min(start + k, size + p)
        if include_pad:
            res.append(end - start)
        else:
            res.append(min(end, size) - max(start, 0))
    return res


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over each ``kernel_size`` box of a (N, C, D, H, W) or (C, D, H, W) input,
    PyTorch's ``F.avg_pool3d`` (same divisors).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.avg_pool3d(ember.arange(8.0).reshape(1, 2, 2, 2), 2).tolist()
    [[[[3.5]]]]
    """
    op = "avg_pool3d"
    x, unbatched, k, s, p, _ = _pool3d_args(op, input, kernel_size, stride, padding)
    if not isinstance(count_include_pad, bool):
        raise InvalidParameterError(f"{op}: count_include_pad must be a bool",
                                    "count_include_pad", count_include_pad)
    if divisor_override is not None:
        divisor_override = _int(divisor_override, op, "divisor_override", 1)
    n, c, D, H, W = x.shape
    sums = _avg_pool2d(op, x.reshape((n, c * D, H, W)), k[1:], s[1:], p[1:], ceil_mode, True, 1)
    ho, wo = sums.shape[-2:]
    sums = _avg_pool2d(op, sums.reshape((n, c, D, ho * wo)), (k[0], 1), (s[0], 1), (p[0], 0),
                       ceil_mode, True, 1)
    do = sums.shape[2]
    sums = sums.reshape((n, c, do, ho, wo))
    if divisor_override is not None:
        out = sums / divisor_override
    else:
        cd, ch, cw = (_counts(size, kk, ss, pp, o, count_include_pad)
                      for size, kk, ss, pp, o in zip((D, H, W), k, s, p, (do, ho, wo)))
        div = tensor([[[a * b2 * c2 for c2 in cw] for b2 in ch] for a in cd], dtype=x.dtype,
                     device=x.device).reshape((do, ho, wo))
        out = sums / div
    return out.squeeze(0) if unbatched else out


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over each ``kernel_size`` box of a (N, C, D, H, W) or (C, D, H, W) input, PyTorch's
    ``F.max_pool3d``; ``return_indices=True`` also returns the flat D*H*W int64 index of each
    maximum (the first in (d, h, w) order).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.max_pool3d(ember.arange(8.0).reshape(1, 2, 2, 2), 2, return_indices=True)[1].tolist()
    [[[[7]]]]
    """
    op = "max_pool3d"
    if not isinstance(return_indices, bool):
        raise InvalidParameterError(f"{op}: return_indices must be a bool", "return_indices",
                                    return_indices)
    x, unbatched, k, s, p, dl = _pool3d_args(op, input, kernel_size, stride, padding, dilation)
    n, c, D, H, W = x.shape
    v1, i1 = _max_pool2d(op, x.reshape((n, c * D, H, W)), k[1:], s[1:], p[1:], dl[1:],
                         ceil_mode, True)
    ho, wo = v1.shape[-2:]
    cols = v1.reshape((n, c, D, ho * wo)).permute((0, 1, 3, 2)).reshape((n, c * ho * wo, 1, D))
    v2, i2 = _max_pool2d(op, cols, (1, k[0]), (1, s[0]), (0, p[0]), (1, dl[0]), ceil_mode, True)
    do = v2.shape[-1]
    out = v2.reshape((n, c, ho, wo, do)).permute((0, 1, 4, 2, 3))
    if not return_indices:
        return out.squeeze(0) if unbatched else out
    hw = i1.reshape((n, c, D, ho * wo)).permute((0, 1, 3, 2))        # (N, C, HoWo, D)
    depth = i2.reshape((n, c, ho * wo, do))
    idx = depth * (H * W) + hw.gather(3, depth)
    idx = idx.permute((0, 1, 3, 2)).reshape((n, c, do, ho, wo))
    if unbatched:
        return out.squeeze(0), idx.squeeze(0)
    return out, idx


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """``max_pool3d(..., return_indices=True)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.max_pool3d_with_indices(ember.ones(1, 2, 2, 2), 2)[0].tolist()
    [[[[1.0]]]]
    """
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of a (N, C, D, H, W) or (C, D, H, W) input to ``output_size``,
    PyTorch's ``F.adaptive_avg_pool3d``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.adaptive_avg_pool3d(ember.ones(1, 2, 3, 4, 5), 1).shape
    (1, 2, 1, 1, 1)
    """
    op = "adaptive_avg_pool3d"
    x = _float_tensor(input, op)
    _rank(x, (4, 5), op, "(N, C, D, H, W) or (C, D, H, W)")
    _, sizes = _out_sizes(output_size, x.shape[-3:], op, 3)
    if any(v == 0 for v in x.shape[-3:]):
        raise ShapeMismatchError(f"{op}: input {_shape_str(x.shape)} has an empty spatial dim",
                                 expected="non-empty", actual=tuple(x.shape))
    for a in range(3):
        axis = x.ndim - 3 + a
        m = _averaging(x.shape[axis], sizes[a], x)
        x = x.movedim(axis, -1).matmul(m.mT).movedim(-1, axis)
    return x


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling of a (N, C, D, H, W) or (C, D, H, W) input to ``output_size``, PyTorch's
    ``F.adaptive_max_pool3d``; the indices are flat D*H*W positions (a tie between equal
    maxima may pick another of them than PyTorch).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.adaptive_max_pool3d(ember.arange(8.0).reshape(1, 2, 2, 2), 1, True)[1].tolist()
    [[[[7]]]]
    """
    op = "adaptive_max_pool3d"
    if not isinstance(return_indices, bool):
        raise InvalidParameterError(f"{op}: return_indices must be a bool", "return_indices",
                                    return_indices)
    x = _float_tensor(input, op)
    _rank(x, (4, 5), op, "(N, C, D, H, W) or (C, D, H, W)")
    _, sizes = _out_sizes(output_size, x.shape[-3:], op, 3)
    D, H, W = x.shape[-3:]
    if 0 in (D, H, W):
        raise ShapeMismatchError(f"{op}: input {_shape_str(x.shape)} has an empty spatial dim",
                                 expected="non-empty", actual=tuple(x.shape))
    idd, ih, iw = (_window_index(n, o, x.device) for n, o in zip((D, H, W), sizes))
    deep = x[..., idd, :, :].max(dim=-3)             # (*, od, kd, H, W) -> (*, od, H, W)
    rows = deep.values[..., ih, :].max(dim=-2)       # (*, od, oh, kh, W) -> (*, od, oh, W)
    cols = rows.values[..., iw].max(dim=-1)          # (*, od, oh, ow, kw) -> (*, od, oh, ow)
    out = cols.values
    if not return_indices:
        return out
    col = _pick(iw, cols.indices)
    row = _pick(ih, rows.indices.gather(-1, col), across=-2)
    lead = tuple(out.shape[:-2])
    plane = (row * W + col).reshape(lead + (-1,))
    depth_in = deep.indices.reshape(lead + (H * W,)).gather(-1, plane).reshape(tuple(out.shape))
    depth = _pick(idd, depth_in, across=-3)
    return out, depth * (H * W) + row * W + col


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool3d(..., return_indices=True)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.adaptive_max_pool3d_with_indices(ember.ones(1, 2, 2, 2), 1)[0].tolist()
    [[[[1.0]]]]
    """
    return adaptive_max_pool3d(input, output_size, True)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over 3-D boxes, PyTorch's ``F.lp_pool3d``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.lp_pool3d(ember.ones(1, 2, 2, 2), 1, 2).tolist()
    [[[[8.0]]]]
    """
    op = "lp_pool3d"
    x = _float_tensor(input, op)
    pw = _real(norm_type, op, "norm_type")
    k = _triple(kernel_size, op, "kernel_size", 1)
    pooled = avg_pool3d(x.pow(pw), k, stride, 0, ceil_mode)
    return (pooled.sign() * pooled.abs().relu() * (k[0] * k[1] * k[2])).pow(1.0 / pw)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool1d(..., return_indices=True)``, PyTorch's
    ``F.max_unpool1d`` (see ``F.max_unpool2d``).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.max_unpool1d(ember.tensor([[5.0]]), ember.tensor([[1]]), 2).tolist()
    [[0.0, 5.0]]
    """
    op = "max_unpool1d"
    x = _float_tensor(input, op)
    _rank(x, (2, 3), op, "(N, C, L) or (C, L)")
    k = _single(kernel_size, op, "kernel_size", 1)
    s = k if stride is None else _single(stride, op, "stride", 1)
    p = _single(padding, op, "padding", 0)
    size = None if output_size is None else (1, _int(tuple(output_size)[-1], op,
                                                     "output_size"))
    out = max_unpool2d(x.unsqueeze(-2), indices.unsqueeze(-2), (1, k), (1, s), (0, p), size)
    return out.squeeze(-2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool3d(..., return_indices=True)``, PyTorch's
    ``F.max_unpool3d``: zeros with each value put at its flat D*H*W index.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.max_unpool3d(ember.ones(1, 1, 1, 1), ember.tensor([[[[7]]]]), 2).sum().item()
    1.0
    """
    op = "max_unpool3d"
    x = _float_tensor(input, op)
    xb, unbatched = _batched(x, op)
    ib = indices.unsqueeze(0) if unbatched else indices
    if tuple(ib.shape) != tuple(xb.shape):
        raise ShapeMismatchError(f"{op}: indices has shape {_shape_str(indices.shape)}; "
                                 f"expected the input's {_shape_str(x.shape)}",
                                 expected=tuple(x.shape), actual=tuple(indices.shape))
    k = _triple(kernel_size, op, "kernel_size", 1)
    s = k if stride is None else _triple(stride, op, "stride", 1)
    p = _triple(padding, op, "padding", 0)
    default = tuple((v - 1) * ss - 2 * pp + kk
                    for v, ss, pp, kk in zip(xb.shape[2:], s, p, k))
    out = default if output_size is None else tuple(
        _int(v, op, "output_size") for v in tuple(output_size)[-3:])
    for dflt, ss, o in zip(default, s, out):
        if not dflt - ss < o < dflt + ss:
            raise InvalidParameterError(f"{op}: output_size {tuple(output_size)} is not a "
                                        f"possible size (default {default}, stride {s})",
                                        "output_size", output_size)
    n, c = xb.shape[:2]
    total, count = out[0] * out[1] * out[2], xb.shape[2] * xb.shape[3] * xb.shape[4]
    if total < count:
        raise ShapeMismatchError(f"{op}: the output {out} is smaller than the input",
                                 expected=count, actual=total)
    flat = max_unpool2d(xb.reshape((n, c, 1, count)), ib.reshape((n, c, 1, count)),
                        (1, total - count + 1), 1, 0)
    res = flat.reshape((n, c) + out)
    return res.squeeze(0) if unbatched else res
