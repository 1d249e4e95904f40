"""The optim kernels every backend provides (declared here; see ember/backends/base/__init__.py).

The update kernels follow PyTorch's single-tensor (for-loop) implementations operation by
operation, so that results agree with ``torch.optim`` to rounding. They write into nothing:
each returns the new parameter and the new state buffers, which the optimizer stores. float16
and bfloat16 parameters are updated in float32 and rounded back, as PyTorch's CPU kernels
compute half precision in float32; their state buffers keep the parameter's dtype (a buffer's
value is rounded to it at each step, as PyTorch's in-place updates round).
"""

import struct


_PACK = struct.Struct("f")


def _f32(x):
    """The Python float ``x`` rounded to float32."""
    return _PACK.unpack(_PACK.pack(x))[0]


class _Step:
    """The arithmetic one update shares: ``xp``, the working dtype of half floats, and the
    backend's array type (NumPy's arithmetic on 0-d arrays gives scalars)."""

    __slots__ = ("xp", "f32", "Array")

    def __init__(self, be):
        self.xp = be.xp
        self.f32 = self.xp.float32
        self.Array = be.Array

    def wide(self, a):
        """float32/float64 arrays as they are; half precision as float32."""
        dt = a.dtype
        return a if dt == self.f32 or dt == self.xp.float64 else self.xp.astype(a, self.f32)

    def array(self, a, dtype):
        """``a`` as an array of ``dtype``."""
        if a.dtype != dtype:
            a = self.xp.astype(a, dtype)
        return a if isinstance(a, self.Array) else self.xp.asarray(a)

    def store(self, buf, value):
        """``(new_buf, wide)``: ``value`` (the wide new value of ``buf``) rounded to ``buf``'s dtype,
        and the wide value of what is stored."""
        new = self.array(value, buf.dtype)
        return new, (value if new.dtype == value.dtype else self.xp.astype(new, self.f32))

    def lerp(self, buf, d, w):
        """``buf.lerp_(d, w)`` with PyTorch's two-sided formula: ``(new_buf, wide)``."""
        wb = self.wide(buf)
        diff = d - wb
        return self.store(buf, wb + diff * w if abs(w) < 0.5 else d + diff * (w - 1))

    def addcmul_sq(self, buf, d, beta, value):
        """``buf.mul_(beta).addcmul_(d, d, value=value)``: ``(new_buf, wide)``."""
        wb = self.wide(buf)
        if beta != 1:
            wb = wb * beta
        return self.store(buf, wb + d * value * d)

    def grad(self, wp, g, weight_decay, maximize):
        """The (negated when maximizing) gradient plus ``weight_decay * p``."""
        d = self.wide(g)
        if maximize:
            d = -d
        if weight_decay != 0:
            d = d + wp * weight_decay
        return d

    def adam_grad(self, wp, g, lr, weight_decay, decoupled, maximize):
        """``(wp, d)``: with ``decoupled`` (AdamW's rule) the parameter decays and the gradient
        does not; otherwise ``grad``'s L2 term."""
        if decoupled and weight_decay != 0:
            wp = wp * (1 - lr * weight_decay)
            return wp, self.grad(wp, g, 0, maximize)
        return wp, self.grad(wp, g, weight_decay, maximize)


class OptimKernels:
    def optim_sgd(self, p, g, buf, lr, momentum, dampening, nesterov, weight_decay, maximize):
        """One SGD step for one parameter (PyTorch's ``_single_tensor_sgd``).

        ``p``, ``g``: the parameter and its gradient. ``buf``: the momentum buffer, or None
        before the first step (when momentum is on). Returns ``(new_p, new_buf)``."""
        s = _Step(self)
        wp = s.wide(p)
        d = s.grad(wp, g, weight_decay, maximize)
        if momentum != 0:
            if buf is None:
                buf = s.array(self.xp.astype(d, p.dtype, copy=True), p.dtype)
                wb = s.wide(buf)
            else:
                wb = s.wide(buf) * momentum
                wb = wb + (d * (1 - dampening) if dampening != 0 else d)
                buf, wb = s.store(buf, wb)
            d = d + wb * momentum if nesterov else wb
        return s.array(wp + d * -lr, p.dtype), buf

    def optim_adam(self, p, g, m, v, vmax, step, lr, beta1, beta2, eps, weight_decay, decoupled, amsgrad, maximize):
        """One Adam/AdamW step for one parameter (PyTorch's ``_single_tensor_adam``).

        ``m``, ``v`` and ``vmax`` (amsgrad; else None) are the moment buffers; ``step`` is the
        step count after this step (1 on the first). ``decoupled`` selects AdamW's weight
        decay. Returns ``(new_p, m, v, vmax)``."""
        from .. import adam_scales
        s = _Step(self)
        wp, d = s.adam_grad(s.wide(p), g, lr, weight_decay, decoupled, maximize)
        m, wm = s.lerp(m, d, 1 - beta1)
        v, wv = s.addcmul_sq(v, d, beta2, 1 - beta2)
        step_size, bias_correction2_sqrt = adam_scales(step, lr, beta1, beta2)
        if amsgrad:
            vmax, wv = s.store(vmax, self.xp.maximum(s.wide(vmax), wv))
        denom = self.xp.sqrt(wv) / bias_correction2_sqrt + eps
        return s.array(wp + wm / denom * -step_size, p.dtype), m, v, vmax

    def optim_rmsprop(self, p, g, square_avg, grad_avg, buf, lr, alpha, eps, weight_decay, momentum, centered, maximize):
        """One RMSprop step for one parameter (PyTorch's ``_single_tensor_rmsprop``).

        ``square_avg``, ``grad_avg`` (``centered``; else None) and ``buf`` (``momentum > 0``;
        else None) are the state buffers. Returns ``(new_p, square_avg, grad_avg, buf)``."""
        s = _Step(self)
        wp = s.wide(p)
        d = s.grad(wp, g, weight_decay, maximize)
        square_avg, wsq = s.addcmul_sq(square_avg, d, alpha, 1 - alpha)
        if centered:
            grad_avg, wga = s.lerp(grad_avg, d, 1 - alpha)
            avg = self.xp.sqrt(wsq + wga * -1.0 * wga)
        else:
            avg = self.xp.sqrt(wsq)
        avg = avg + eps
        if momentum > 0:
            buf, wb = s.store(buf, s.wide(buf) * momentum + d / avg)
            update = wb * -lr
        else:
            update = d * -lr / avg
        return s.array(wp + update, p.dtype), square_avg, grad_avg, buf

    def optim_adagrad(self, p, g, state_sum, step, lr, lr_decay, eps, weight_decay, maximize):
        """One Adagrad step for one parameter (PyTorch's ``_single_tensor_adagrad``).

        ``state_sum``: the running sum of squared gradients; ``step``: the step count after this
        step. Returns ``(new_p, state_sum)``."""
        s = _Step(self)
        wp = s.wide(p)
        d = s.grad(wp, g, weight_decay, maximize)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum, ws = s.addcmul_sq(state_sum, d, 1, 1)
        return s.array(wp + d * -clr / (self.xp.sqrt(ws) + eps), p.dtype), state_sum

    def optim_nadam(self, p, g, m, v, mu_product, step, lr, beta1, beta2, eps, weight_decay, momentum_decay, decoupled, maximize):
        """One NAdam step for one parameter (PyTorch's ``_single_tensor_nadam``).

        ``m``, ``v``: the moment buffers; ``mu_product``: the running product of the momentum
        coefficients (a Python float, rounded to float32 at each step, as PyTorch keeps it in a
        float32 tensor); ``step``: the step count after this step. Returns ``(new_p, m, v,
        mu_product)``."""
        s = _Step(self)
        wp, d = s.adam_grad(s.wide(p), g, lr, weight_decay, decoupled, maximize)
        bias_correction2 = 1 - beta2 ** step
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product = _f32(_f32(mu_product) * _f32(mu))
        mu_product_next = mu_product * mu_next
        m, wm = s.lerp(m, d, 1 - beta1)
        v, wv = s.addcmul_sq(v, d, beta2, 1 - beta2)
        denom = self.xp.sqrt(wv / bias_correction2) + eps
        t = d * (-lr * (1.0 - mu) / (1.0 - mu_product)) / denom
        u = wm * ((-lr * mu_next) / (1.0 - mu_product_next)) / denom
        return s.array(wp + t + u, p.dtype), m, v, mu_product    # two addcdiv_ in turn, as PyTorch's

    def optim_zeros(self, a):
        """A new zero-filled, C-contiguous array with the shape and dtype of ``a`` (a state buffer)."""
        return self.xp.zeros_like(a)

    def optim_full(self, a, value):
        """A new C-contiguous array with the shape and dtype of ``a``, every element ``value``."""
        return self.xp.full_like(a, value)

    def optim_state_copy(self, a, like=None):
        """A fresh, writable, C-contiguous copy of ``a`` (cast to ``like``'s dtype when given)."""
        return self.xp.astype(a, a.dtype if like is None else like.dtype, copy=True)
