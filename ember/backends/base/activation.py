"""The activation kernels every backend provides (declared here; see ember/backends/base/__init__.py).

Half-precision inputs compute in float32 and are cast back, as PyTorch's CPU kernels do."""

import math

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715


def _work(xp, a):
    """``a`` in float32 or float64 (others as float32)."""
    return a if a.dtype == xp.float32 or a.dtype == xp.float64 else xp.astype(a, xp.float32)


def _sigmoid(xp, w):
    """A stable logistic function of a float array."""
    e = xp.exp(-xp.abs(w))
    return xp.where(w >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


class ActivationKernels:
    def nn_gelu(self, x, approximate):
        """GELU: ``x * Phi(x)`` (exact, through erf, computed in float64 and rounded once) or its
        tanh approximation (float32, and the half types, compute in float32)."""
        xp = self.xp
        if approximate == "tanh":
            w = _work(xp, x)
            out = 0.5 * w * (1.0 + xp.tanh(_SQRT_2_OVER_PI * (w + _GELU_C * w * w * w)))
        else:
            w = xp.astype(x, xp.float64)
            out = 0.5 * w * (1.0 + self.ew_erf(w * _SQRT_HALF))
        return xp.astype(out, x.dtype, copy=False)

    def nn_gelu_grad(self, g, x, approximate):
        """The gradient of ``nn_gelu`` for the output gradient ``g``."""
        xp = self.xp
        if approximate == "tanh":
            w = _work(xp, x)
            t = xp.tanh(_SQRT_2_OVER_PI * (w + _GELU_C * w * w * w))
            d = 0.5 * (1.0 + t) + 0.5 * w * (1.0 - t * t) * _SQRT_2_OVER_PI * (
                1.0 + 3.0 * _GELU_C * w * w)
            return xp.astype(_work(xp, g) * d, g.dtype, copy=False)
        w = xp.astype(x, xp.float64)
        d = 0.5 * (1.0 + self.ew_erf(w * _SQRT_HALF)) + w * (xp.exp(-0.5 * w * w) * _INV_SQRT_2PI)
        return xp.astype(xp.astype(g, xp.float64) * d, g.dtype)

    def nn_silu(self, x):
        """SiLU (swish): ``x * sigmoid(x)``."""
        xp = self.xp
        w = _work(xp, x)
        return xp.astype(w * _sigmoid(xp, w), x.dtype, copy=False)

    def nn_silu_grad(self, g, x):
        """The gradient of ``nn_silu``: ``g * s * (1 + x * (1 - s))`` with ``s = sigmoid(x)``."""
        xp = self.xp
        w = _work(xp, x)
        s = _sigmoid(xp, w)
        return xp.astype(_work(xp, g) * (s * (1.0 + w * (1.0 - s))), g.dtype, copy=False)

    def nn_relu(self, x):
        """``max(x, 0)`` of a float array, keeping nan (a new array): ``ew_relu``, whose tie rule
        gives the sign of a zero as ``Tensor.relu``."""
        return self.ew_relu(x)

    def nn_relu_grad(self, g, x):
        """The gradient of ``nn_relu``: 0 where ``x <= 0``, else ``g`` (NaN inputs pass ``g`` on, as
        PyTorch's), in ``g``'s dtype."""
        xp = self.xp
        return xp.where(x <= 0, xp.zeros((), dtype=g.dtype, device=self.native_device), g)

    def nn_softmax(self, x, axis):
        """Softmax along ``axis``: the max is subtracted before ``exp`` (a slice holding +inf, or
        only -inf, gives nan, as PyTorch's)."""
        xp = self.xp
        w = _work(xp, x)
        if not math.prod(w.shape):
            return xp.astype(x, x.dtype, copy=True)
        e = xp.exp(w - xp.max(w, axis=axis, keepdims=True))
        return xp.astype(e / xp.sum(e, axis=axis, keepdims=True), x.dtype, copy=False)

    def nn_softmax_grad(self, g, y, axis):
        """The gradient of softmax from its output ``y``: ``y * (g - sum(g * y))``."""
        xp = self.xp
        gw, yw = _work(xp, g), _work(xp, y)
        if not math.prod(gw.shape):
            return xp.astype(g, g.dtype, copy=True)
        t = (gw - xp.sum(gw * yw, axis=axis, keepdims=True)) * yw
        return xp.astype(t, g.dtype, copy=False)

    def nn_log_softmax(self, x, axis):
        """Log-softmax along ``axis``: ``x - max - log(sum(exp(x - max)))``."""
        xp = self.xp
        w = _work(xp, x)
        if not math.prod(w.shape):
            return xp.astype(x, x.dtype, copy=True)
        z = w - xp.max(w, axis=axis, keepdims=True)
        z = z - xp.log(xp.sum(xp.exp(z), axis=axis, keepdims=True))
        return xp.astype(z, x.dtype, copy=False)

    def nn_log_softmax_grad(self, g, y, axis):
        """The gradient of log-softmax from its output ``y``: ``g - exp(y) * sum(g)``."""
        xp = self.xp
        gw, yw = _work(xp, g), _work(xp, y)
        if not math.prod(gw.shape):
            return xp.astype(g, g.dtype, copy=True)
        t = gw - xp.exp(yw) * xp.sum(gw, axis=axis, keepdims=True)
        return xp.astype(t, g.dtype, copy=False)

    def nn_lstm_gates(self, gates, c, need_grad):
        """One LSTM step's gate math (ember/ops/recurrent_gates.py) of float32/float64
        ``gates`` (B, 4H; i, f, g, o) and ``c`` (B, H): ``(h, c', kept)``, ``c' = sigmoid(f) c
        + sigmoid(i) tanh(g)``, ``h = sigmoid(o) tanh(c')``; ``kept`` (None unless
        ``need_grad``) the local derivatives ``(k_c, k_h, f_c, f_h)``: those of ``c'`` and of
        ``h`` with respect to the gates (B, 4H) and to ``c`` (B, H)."""
        xp = self.xp
        n = c.shape[1]
        s = xp.tanh(gates * 0.5) * 0.5 + 0.5  # sigmoid in three passes (absolute error ~ulp(1))
        i, f, o = s[:, :n], s[:, n:2 * n], s[:, 3 * n:]
        g = xp.tanh(gates[:, 2 * n:3 * n])
        c2 = f * c + i * g
        tc = xp.tanh(c2)
        h = o * tc
        if not need_grad:
            return h, c2, None
        ds = s - s * s
        di, df, dg = g * ds[:, :n], c * ds[:, n:2 * n], i * (1 - g * g)
        e = o * (1 - tc * tc)
        k_c = xp.concat([di, df, dg, 0 * o], axis=1)
        k_h = xp.concat([di * e, df * e, dg * e, tc * ds[:, 3 * n:]], axis=1)
        return h, c2, (k_c, k_h, f, f * e)

    def nn_gru_gates(self, gx, gh, h, need_grad):
        """One GRU step's gate math (ember/ops/recurrent_gates.py) of float32/float64 ``gx``,
        ``gh`` (B, 3H; r, z, n) and ``h`` (B, H): ``(h', kept)``, ``r, z = sigmoid(gx + gh)``,
        ``n = tanh(gx_n + r gh_n)``, ``h' = n + z (h - n)``; ``kept`` (None unless
        ``need_grad``) the local derivatives ``(k_x, k_h, k_z)`` of ``h'`` with respect to
        ``gx``, ``gh`` (B, 3H) and ``h`` (B, H)."""
        xp = self.xp
        n = h.shape[1]
        rz = xp.tanh((gx[:, :2 * n] + gh[:, :2 * n]) * 0.5) * 0.5 + 0.5  # sigmoid
        r, z = rz[:, :n], rz[:, n:]
        yn = gh[:, 2 * n:]
        new = xp.tanh(gx[:, 2 * n:] + r * yn)
        out = new + z * (h - new)
        if not need_grad:
            return out, None
        q = (1 - z) * (1 - new * new)                       # d h' / d n_pre
        dr = q * yn * (r - r * r)                           # d h' / d r_pre
        dz = (h - new) * (z - z * z)                        # d h' / d z_pre
        return out, (xp.concat([dr, dz, q], axis=1), xp.concat([dr, dz, q * r], axis=1), z)
