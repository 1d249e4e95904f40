"""The pool kernels of the PyTorch backend (see ember/ops/pool.py)."""

import torch
import torch.nn.functional as TF

from .nn import _aten, _long, _out, _work

__all__ = ["nn_max_pool2d", "nn_max_pool2d_grad", "nn_max_pool2d_indices", "nn_max_unpool2d",
           "nn_max_unpool2d_grad", "nn_avg_pool2d", "nn_avg_pool2d_grad"]


# -- pooling ------------------------------------------------------------------------------------

def _pool_geometry(pads):
    """(torch's padding, ceil_mode) of the (top, bottom, left, right) pads (ceil_mode's extra)."""
    pt, pb, pl, pr = pads
    return (pt, pl), (pb > pt or pr > pl)


def _inside(size, before, kernel, stride, dilation, n):
    """Whether each of the ``n`` windows along an axis has a tap inside the input, or None: all."""
    taps = [any(0 <= i * stride - before + j * dilation < size for j in range(kernel))
            for i in range(n)]
    return None if all(taps) else taps


def nn_max_pool2d(x, kernel, stride, pads, dilation, out_hw):
    """Max pooling (torch's kernel: padding is skipped, the first max in kernel order or the
    last NaN is selected). Returns (out, saved)."""
    dtype = x.dtype
    xw = _work(x)
    padding, ceil = _pool_geometry(pads)
    # torch's CPU kernel: ~2 µs a plane, 3x less on a channels-last copy of small planes
    last = x.device.type == "cpu" and x.ndim == 4 and x.shape[1] >= 8 and x.shape[2:].numel() <= 256
    out, idx = _aten.max_pool2d_with_indices(xw.contiguous(memory_format=torch.channels_last)
                                             if last else xw, list(kernel), list(stride),
                                             list(padding), list(dilation), ceil)
    out, idx = (out.contiguous(), idx.contiguous()) if last else (out, idx)
    return _out(out, dtype), (xw, idx, tuple(kernel), tuple(stride), padding, tuple(dilation),
                              ceil, tuple(out_hw))


def nn_max_pool2d_grad(g, saved):
    xw, idx, kernel, stride, padding, dilation, ceil, out_hw = saved
    H, W = xw.shape[-2:]
    rows = _inside(H, padding[0], kernel[0], stride[0], dilation[0], out_hw[0])
    cols = _inside(W, padding[1], kernel[1], stride[1], dilation[1], out_hw[1])
    gw = g.to(xw.dtype)
    if rows is not None or cols is not None:  # a window with no tap inside: dropped
        rows = torch.tensor(rows or [True] * out_hw[0], device=xw.device)
        cols = torch.tensor(cols or [True] * out_hw[1], device=xw.device)
        gw = gw * (rows[:, None] & cols[None, :]).to(gw.dtype)
    gx = _aten.max_pool2d_with_indices_backward(gw, xw, list(kernel), list(stride),
                                                list(padding), list(dilation), ceil, idx)
    return _out(gx, g.dtype)


def nn_max_pool2d_indices(saved):
    return saved[1]


def nn_max_unpool2d(x, idx, out_hw):
    lead = tuple(x.shape[:-2])
    L = out_hw[0] * out_hw[1]
    n = x.shape[-2] * x.shape[-1]
    out = torch.zeros(lead + (L,), dtype=x.dtype, device=x.device)
    out.scatter_(-1, _long(idx).reshape(lead + (n,)), x.reshape(lead + (n,)))
    return out.reshape(lead + tuple(out_hw))


def nn_max_unpool2d_grad(g, idx):
    lead = tuple(idx.shape[:-2])
    n = idx.shape[-2] * idx.shape[-1]
    gf = g.reshape(lead + (g.shape[-2] * g.shape[-1],))
    return torch.gather(gf, -1, _long(idx).reshape(lead + (n,))).reshape(idx.shape)


def nn_avg_pool2d(x, kernel, stride, pads, padding, out_hw, count_include_pad, divisor_override):
    """Average pooling with PyTorch's divisors (torch's kernel). Returns (out, saved)."""
    dtype = x.dtype
    xw = _work(x)
    pad, ceil = _pool_geometry(pads)
    out = TF.avg_pool2d(xw, tuple(kernel), tuple(stride), pad, ceil, count_include_pad,
                        divisor_override)
    return _out(out, dtype), (xw, tuple(kernel), tuple(stride), pad, ceil, count_include_pad,
                              divisor_override)


def nn_avg_pool2d_grad(g, saved):
    xw, kernel, stride, pad, ceil, include, divisor = saved
    gx = _aten.avg_pool2d_backward(g.to(xw.dtype), xw, list(kernel), list(stride), list(pad),
                                   ceil, include, divisor)
    return _out(gx, g.dtype)
