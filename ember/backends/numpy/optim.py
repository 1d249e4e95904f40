"""NumPy kernels of ember.optim (parameter updates).

Public names here are kernels (``be.NAME``), prefixed ``optim_``; helpers start with _.

The update kernels follow PyTorch's single-tensor (for-loop) implementations operation by
operation, so that results agree with ``torch.optim`` to rounding. They never write into the
gradient arrays they are given, nor into the parameter array: each returns a new parameter
array, and in-place ufuncs with ``out=`` write only into the optimizer's own state buffers
(momentum, Adam moments) and into temporaries made here. float16
and bfloat16 parameters are updated in float32 and rounded back, as PyTorch's CPU kernels
compute half precision in float32; their state buffers keep the parameter's dtype, as
PyTorch's do.
"""

import numpy as np

__all__ = [
    "optim_sgd", "optim_adam", "optim_zeros", "optim_state_copy",
]

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _new(r):
    """A ufunc's fresh result as an ndarray (ufuncs return NumPy scalars for 0-d operands)."""
    return r if type(r) is np.ndarray else np.asarray(r)


def _wide(a):
    """float32/float64 arrays as they are; half precision as a new float32 array."""
    return a if a.dtype == _F32 or a.dtype == _F64 else a.astype(_F32)


def _round(buf, value):
    """Store ``value`` (the wide working copy of ``buf``) into the optimizer-owned ``buf``,
    rounding to its dtype; returns the wide value of what was stored."""
    if value is buf:
        return value
    np.copyto(buf, value, casting="unsafe")
    return buf.astype(_F32)


def optim_zeros(a):
    """A new zero-filled, C-contiguous array with the shape and dtype of ``a`` (a state buffer)."""
    return np.zeros(a.shape, dtype=a.dtype)


def optim_state_copy(a, like=None):
    """A fresh, writable, C-contiguous copy of ``a`` (cast to ``like``'s dtype when given)."""
    dtype = a.dtype if like is None else like.dtype
    return np.array(a, dtype=dtype, copy=True, order="C")


def optim_sgd(p, g, buf, lr, momentum, dampening, nesterov, weight_decay, maximize):
    """One SGD step for one parameter (PyTorch's ``_single_tensor_sgd``).

    ``p``, ``g``: the parameter and its gradient (read only). ``buf``: the momentum buffer owned
    by the optimizer, or None before the first step (when momentum is on). Returns
    ``(new_p, buf)``: a new parameter array and the (new or updated in place) buffer.
    """
    dtype = p.dtype
    wp = _wide(p)
    d = _wide(g)
    if maximize:
        d = _new(np.negative(d))
    if weight_decay != 0:
        t = _new(np.multiply(wp, weight_decay))
        np.add(d, t, out=t)
        d = t
    if momentum != 0:
        if buf is None:
            buf = np.array(d, dtype=dtype, copy=True, order="C")
            wb = _wide(buf)
        else:
            wb = _wide(buf)
            np.multiply(wb, momentum, out=wb)
            if dampening != 0:
                t = _new(np.multiply(d, 1 - dampening))
                np.add(wb, t, out=wb)
            else:
                np.add(wb, d, out=wb)
            wb = _round(buf, wb)
        if nesterov:
            t = _new(np.multiply(wb, momentum))
            np.add(d, t, out=t)
            d = t
        else:
            d = wb
    new = _new(np.multiply(d, -lr))
    np.add(wp, new, out=new)
    return (new if new.dtype == dtype else new.astype(dtype)), buf


def optim_adam(p, g, m, v, vmax, step, lr, beta1, beta2, eps, weight_decay, decoupled, amsgrad,
               maximize):
    """One Adam/AdamW step for one parameter (PyTorch's ``_single_tensor_adam``).

    ``m``, ``v`` and ``vmax`` (amsgrad; else None) are the optimizer-owned moment buffers, updated
    in place; ``step`` is the step count after this step (1 on the first). ``decoupled`` selects
    AdamW's weight decay. Returns the new parameter array.
    """
    dtype = p.dtype
    wp = _wide(p)
    d = _wide(g)
    if maximize:
        d = _new(np.negative(d))
    if weight_decay != 0:
        if decoupled:
            wp = _new(np.multiply(wp, 1 - lr * weight_decay))
        else:
            t = _new(np.multiply(wp, weight_decay))
            np.add(d, t, out=t)
            d = t
    wm = _wide(m)
    wv = _wide(v)
    # m.lerp_(d, 1 - beta1), with PyTorch's two-sided lerp formula
    w = 1 - beta1
    diff = _new(np.subtract(d, wm))
    if abs(w) < 0.5:
        np.multiply(diff, w, out=diff)
        np.add(wm, diff, out=wm)
    else:
        np.multiply(diff, w - 1, out=diff)
        np.add(d, diff, out=wm)
    wm = _round(m, wm)
    # v.mul_(beta2).addcmul_(d, d, value=1 - beta2)
    np.multiply(wv, beta2, out=wv)
    t = _new(np.multiply(d, 1 - beta2))
    np.multiply(t, d, out=t)
    np.add(wv, t, out=wv)
    wv = _round(v, wv)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = bias_correction2 ** 0.5
    if amsgrad:
        wmax = _wide(vmax)
        np.maximum(wmax, wv, out=wmax)
        wmax = _round(vmax, wmax)
        denom = _new(np.sqrt(wmax))
    else:
        denom = _new(np.sqrt(wv))
    np.divide(denom, bias_correction2_sqrt, out=denom)
    np.add(denom, eps, out=denom)
    # p.addcdiv_(m, denom, value=-step_size)
    np.divide(wm, denom, out=denom)
    np.multiply(denom, -step_size, out=denom)
    np.add(wp, denom, out=denom)
    return denom if denom.dtype == dtype else denom.astype(dtype)
