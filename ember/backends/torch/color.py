"""Torch kernels of the vision color ops (``ember/vision/color.py``): the same names, formulas
and rounding as the NumPy backend's.

Images are (N, C, H, W) float tensors with the channels R, G, B (or H, S, V) on dim 1. The
formulas are OpenCV's float conversions: gray = 0.299 R + 0.587 G + 0.114 B; HSV with H in
degrees [0, 360) and S, V in [0, 1] for input in [0, 1]. Each step is the NumPy kernel's step
in the same order and dtype, so the results agree bit for bit on the CPU.
"""

import torch

__all__ = ["color_rgb2gray", "color_rgb2gray_grad", "color_gray2rgb", "color_gray2rgb_grad",
           "color_rgb2hsv", "color_hsv2rgb",]

_GRAY = (0.299, 0.587, 0.114)


def _weights(a):
    """The gray weights as 0-d tensors of ``a``'s dtype (rounded to it once, as NumPy's)."""
    w = torch.tensor(_GRAY, dtype=torch.float64).to(device=a.device, dtype=a.dtype)
    return w[0], w[1], w[2], w


def color_rgb2gray(x):
    """(N, 3, H, W) -> (N, 1, H, W): 0.299 R + 0.587 G + 0.114 B, in ``x``'s dtype."""
    w0, w1, w2, _ = _weights(x)
    return (w0 * x[:, 0:1] + w1 * x[:, 1:2]) + w2 * x[:, 2:3]


def color_rgb2gray_grad(g):
    """The gradient of ``color_rgb2gray`` for the output gradient ``g`` (N, 1, H, W)."""
    w = _weights(g)[3].reshape(1, 3, 1, 1)
    return g * w


def color_gray2rgb(x):
    """(N, 1, H, W) -> (N, 3, H, W): the channel repeated three times (a new buffer)."""
    return x.repeat(1, 3, 1, 1)


def color_gray2rgb_grad(g):
    """The gradient of ``color_gray2rgb``: the sum over the three channels, (N, 1, H, W), added
    in channel order (as NumPy's reduction of three values)."""
    return (g[:, 0:1] + g[:, 1:2]) + g[:, 2:3]


def _hsv_parts(x):
    """The pieces of OpenCV's RGB -> HSV shared by the forward and the backward."""
    r, g, b = x[:, 0], x[:, 1], x[:, 2]
    v = torch.maximum(torch.maximum(r, g), b)
    mn = torch.minimum(torch.minimum(r, g), b)
    d = v - mn
    # OpenCV's case order: V == R first, then V == G, else B (so ties pick R, then G)
    imax = torch.where(v == r, 0, torch.where(v == g, 1, 2))
    return r, g, b, v, mn, d, imax


def color_rgb2hsv(x):
    """(N, 3, H, W) RGB -> (N, 3, H, W) HSV, OpenCV's float formulas (see the NumPy kernel)."""
    r, g, b, v, mn, d, imax = _hsv_parts(x)
    zero = torch.zeros((), dtype=x.dtype, device=x.device)
    s = torch.where(v != 0, d / torch.where(v != 0, v, 1), zero)
    sd = torch.where(d != 0, d, 1)
    h = torch.where(imax == 0, 60 * (g - b) / sd,
                    torch.where(imax == 1, 120 + 60 * (b - r) / sd, 240 + 60 * (r - g) / sd))
    h = torch.where(d != 0, h, zero)
    h = torch.where(h < 0, h + 360, h)
    h = torch.where(h >= 360, h - 360, h)  # a tiny negative H + 360 can round to 360
    return torch.stack([h, s, v], dim=1).to(x.dtype)


def _hsv_terms(x):
    h, s, v = x[:, 0], x[:, 1], x[:, 2]
    hh = torch.remainder(h / 60, 6)
    return h, s, v, hh


def color_hsv2rgb(x):
    """(N, 3, H, W) HSV -> (N, 3, H, W) RGB: each of R, G, B (n = 5, 3, 1) is
    V - V S clip(min(k, 4 - k), 0, 1) with k = (n + H / 60) mod 6."""
    h, s, v, hh = _hsv_terms(x)
    vs = v * s
    chans = []
    for n in (5, 3, 1):  # a loop over the three channels
        k = torch.remainder(n + hh, 6)
        m = torch.clamp(torch.minimum(k, 4 - k), 0, 1)
        chans.append(v - vs * m)
    return torch.stack(chans, dim=1).to(x.dtype)
