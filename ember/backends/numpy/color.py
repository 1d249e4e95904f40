"""NumPy kernels of the vision color ops (``ember/vision/color.py``).

Images are (N, C, H, W) float arrays with the channels R, G, B (or H, S, V) on axis 1. The
formulas are OpenCV's float conversions: gray = 0.299 R + 0.587 G + 0.114 B; HSV with H in
degrees [0, 360) and S, V in [0, 1] for input in [0, 1].
"""

import numpy as np

from .core import _warnings_off

__all__ = ["color_rgb2gray", "color_rgb2gray_grad", "color_gray2rgb", "color_gray2rgb_grad",
           "color_rgb2hsv", "color_hsv2rgb",]

_GRAY = (0.299, 0.587, 0.114)


def color_rgb2gray(x):
    """(N, 3, H, W) -> (N, 1, H, W): 0.299 R + 0.587 G + 0.114 B, in ``x``'s dtype."""
    w = np.asarray(_GRAY, dtype=x.dtype)
    return (w[0] * x[:, 0:1] + w[1] * x[:, 1:2]) + w[2] * x[:, 2:3]


def color_rgb2gray_grad(g):
    """The gradient of ``color_rgb2gray`` for the output gradient ``g`` (N, 1, H, W)."""
    w = np.asarray(_GRAY, dtype=g.dtype).reshape(1, 3, 1, 1)
    return g * w


def color_gray2rgb(x):
    """(N, 1, H, W) -> (N, 3, H, W): the channel repeated three times (a new buffer)."""
    return np.repeat(x, 3, axis=1)


def color_gray2rgb_grad(g):
    """The gradient of ``color_gray2rgb``: the sum over the three channels, (N, 1, H, W)."""
    return g.sum(axis=1, keepdims=True)


def _hsv_parts(x):
    """The pieces of OpenCV's RGB -> HSV shared by the forward and the backward."""
    r, g, b = x[:, 0], x[:, 1], x[:, 2]
    v = np.maximum(np.maximum(r, g), b)
    mn = np.minimum(np.minimum(r, g), b)
    d = v - mn
    # OpenCV's case order: V == R first, then V == G, else B (so ties pick R, then G)
    imax = np.where(v == r, 0, np.where(v == g, 1, 2))
    return r, g, b, v, mn, d, imax


@_warnings_off
def color_rgb2hsv(x):
    """(N, 3, H, W) RGB -> (N, 3, H, W) HSV, OpenCV's float formulas.

    V = max(R, G, B); S = (V - min) / V (0 where V == 0); H = 60 (G - B) / (V - min) when
    V == R, 120 + 60 (B - R) / (V - min) when V == G, else 240 + 60 (R - G) / (V - min);
    H = 0 where V == min; H < 0 gets + 360, so H lies in [0, 360).
    """
    r, g, b, v, mn, d, imax = _hsv_parts(x)
    zero = np.zeros((), dtype=x.dtype)
    s = np.where(v != 0, d / np.where(v != 0, v, 1), zero)
    sd = np.where(d != 0, d, 1)
    h = np.where(imax == 0, 60 * (g - b) / sd,
                 np.where(imax == 1, 120 + 60 * (b - r) / sd, 240 + 60 * (r - g) / sd))
    h = np.where(d != 0, h, zero)
    h = np.where(h < 0, h + 360, h)
    h = np.where(h >= 360, h - 360, h)  # a tiny negative H + 360 can round to 360
    return np.stack([h, s, v], axis=1).astype(x.dtype, copy=False)


def _hsv_terms(x):
    h, s, v = x[:, 0], x[:, 1], x[:, 2]
    hh = np.mod(h / 60, 6)
    return h, s, v, hh


@_warnings_off
def color_hsv2rgb(x):
    """(N, 3, H, W) HSV -> (N, 3, H, W) RGB, OpenCV's six sectors written as one formula.

    Each of R, G, B (n = 5, 3, 1) is V - V S clip(min(k, 4 - k), 0, 1) with
    k = (n + H / 60) mod 6; H is taken modulo 360.
    """
    h, s, v, hh = _hsv_terms(x)
    out = np.empty(x.shape, dtype=x.dtype)
    vs = v * s
    for ch, n in enumerate((5, 3, 1)):  # a loop over the three channels
        k = np.mod(n + hh, 6)
        m = np.clip(np.minimum(k, 4 - k), 0, 1)
        out[:, ch] = v - vs * m
    return out
