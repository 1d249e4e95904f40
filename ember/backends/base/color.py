"""The colour kernels, written once against ``self.xp`` (see ember/backends/base/__init__.py).

Images are (N, C, H, W) float arrays with the channels R, G, B (or H, S, V) on axis 1. The
formulas are OpenCV's float conversions: gray = 0.299 R + 0.587 G + 0.114 B; HSV with H in
degrees [0, 360) and S, V in [0, 1] for input in [0, 1]. Every step runs in the input's dtype,
in one order, so every backend gives the same bits.
"""

_GRAY = (0.299, 0.587, 0.114)


class ColorKernels:
    def _gray_weights(self, a):
        """The gray weights as 0-d arrays of ``a``'s dtype (each rounded to it once)."""
        xp = self.xp
        return [xp.asarray(w, dtype=a.dtype, device=self.native_device) for w in _GRAY]

    def color_rgb2gray(self, x):
        """(N, 3, H, W) -> (N, 1, H, W): 0.299 R + 0.587 G + 0.114 B, in ``x``'s dtype."""
        w0, w1, w2 = self._gray_weights(x)
        return (w0 * x[:, 0:1, ...] + w1 * x[:, 1:2, ...]) + w2 * x[:, 2:3, ...]

    def color_rgb2gray_grad(self, g):
        """The gradient of ``color_rgb2gray`` for the output gradient ``g`` (N, 1, H, W)."""
        xp = self.xp
        return g * xp.reshape(xp.asarray(_GRAY, dtype=g.dtype, device=self.native_device),
                              (1, 3, 1, 1))

    def color_gray2rgb(self, x):
        """(N, 1, H, W) -> (N, 3, H, W): the channel repeated three times (a new buffer)."""
        return self.xp.concat([x, x, x], axis=1)

    def color_gray2rgb_grad(self, g):
        """The gradient of ``color_gray2rgb``: the sum over the three channels, (N, 1, H, W),
        added in channel order."""
        return (g[:, 0:1, ...] + g[:, 1:2, ...]) + g[:, 2:3, ...]

    def color_rgb2hsv(self, x):
        """(N, 3, H, W) RGB -> (N, 3, H, W) HSV, OpenCV's float formulas.

        V = max(R, G, B); S = (V - min) / V (0 where V == 0); H = 60 (G - B) / (V - min) when
        V == R, 120 + 60 (B - R) / (V - min) when V == G, else 240 + 60 (R - G) / (V - min);
        H = 0 where V == min; H < 0 gets + 360, so H lies in [0, 360).
        """
        xp = self.xp
        r, g, b = x[:, 0, ...], x[:, 1, ...], x[:, 2, ...]
        v = xp.maximum(xp.maximum(r, g), b)
        d = v - xp.minimum(xp.minimum(r, g), b)
        zero = xp.zeros((), dtype=x.dtype, device=self.native_device)
        one = zero + 1
        s = xp.where(v != 0, d / xp.where(v != 0, v, one), zero)
        sd = xp.where(d != 0, d, one)
        # OpenCV's case order: V == R first, then V == G, else B (so ties pick R, then G)
        h = xp.where(v == r, 60 * (g - b) / sd,
                     xp.where(v == g, 120 + 60 * (b - r) / sd, 240 + 60 * (r - g) / sd))
        h = xp.where(d != 0, h, zero)
        h = xp.where(h < 0, h + 360, h)
        h = xp.where(h >= 360, h - 360, h)  # a tiny negative H + 360 can round to 360
        return xp.astype(xp.stack([h, s, v], axis=1), x.dtype, copy=False)

    def color_hsv2rgb(self, x):
        """(N, 3, H, W) HSV -> (N, 3, H, W) RGB, OpenCV's six sectors written as one formula.

        Each of R, G, B (n = 5, 3, 1) is V - V S clip(min(k, 4 - k), 0, 1) with
        k = (n + H / 60) mod 6; H is taken modulo 360.
        """
        xp = self.xp
        h, s, v = x[:, 0, ...], x[:, 1, ...], x[:, 2, ...]
        hh = xp.remainder(h / 60, 6)
        vs = v * s
        chans = []
        for n in (5, 3, 1):  # a loop over the three channels
            k = xp.remainder(n + hh, 6)
            chans.append(v - vs * xp.clip(xp.minimum(k, 4 - k), 0, 1))
        return xp.astype(xp.stack(chans, axis=1), x.dtype, copy=False)
