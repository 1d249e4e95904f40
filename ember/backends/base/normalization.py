"""The normalization kernels every backend provides (declared here; see ember/backends/base/__init__.py).

Half-precision inputs compute in float32 (float64 in float64) and results are cast to the
dtypes asked for."""

import math


def _work(xp, dt):
    """The working dtype of a result of dtype ``dt``."""
    return xp.float64 if dt == xp.float64 else xp.float32


def _per_channel(xp, a):
    """``a`` (N, C, *rest) as (N, C, L)."""
    return xp.reshape(a, tuple(a.shape[:2]) + (math.prod(a.shape[2:]),))


def _cast(xp, a, dt):
    return xp.astype(a, dt, copy=False)


class NormalizationKernels:
    def nn_batch_norm(self, x, w, b, running_mean, running_var, use_batch, eps, dtype):
        """Batch norm over every dim but dim 1. Returns (out, saved, batch_mean, batch_var_unbiased);
        the batch statistics are None when the running ones are used."""
        xp = self.xp
        dt = self.native_dtype(dtype)
        work = _work(xp, dt)
        x3 = _per_channel(xp, _cast(xp, x, work))
        count = x3.shape[0] * x3.shape[2]
        if use_batch:
            mean = xp.sum(x3, axis=(0, 2)) / count
            xhat = x3 - mean[:, None]
            var = xp.sum(xhat * xhat, axis=(0, 2)) / count
        else:
            mean = xp.astype(running_mean, work)
            var = xp.astype(running_var, work)
            xhat = x3 - mean[:, None]
        invstd = 1.0 / xp.sqrt(var + eps)
        xhat = xhat * invstd[:, None]
        ww = None
        if w is not None:
            ww = _cast(xp, w, work)
            out = xhat * ww[:, None]
        else:
            out = xp.astype(xhat, work, copy=True)       # not the saved array itself
        if b is not None:
            out = out + _cast(xp, b, work)[:, None]
        unbiased = var * (count / (count - 1)) if use_batch and count > 1 else var
        saved = (xhat, invstd, ww, tuple(x.shape), use_batch)
        return _cast(xp, xp.reshape(out, tuple(x.shape)), dt), saved, (
            mean if use_batch else None), (unbiased if use_batch else None)

    def nn_batch_norm_grads(self, g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
        """Gradients of ``nn_batch_norm``: (gx, gw, gb). With batch statistics, ``gx = invstd * w * (g
        - mean(g) - xhat * mean(g * xhat))``, the means per channel."""
        xp = self.xp
        xhat, invstd, ww, shape, use_batch = saved
        g3 = _per_channel(xp, _cast(xp, g, xhat.dtype))
        count = g3.shape[0] * g3.shape[2]
        gx = gw = gb = None
        gsum = xp.sum(g3, axis=(0, 2)) if need_b or (need_x and use_batch) else None
        gxsum = xp.sum(g3 * xhat, axis=(0, 2)) if need_w or (need_x and use_batch) else None
        if need_b:
            gb = _cast(xp, gsum, self.native_dtype(b_dtype))
        if need_w:
            gw = _cast(xp, gxsum, self.native_dtype(w_dtype))
        if need_x:
            k = invstd * ww if ww is not None else invstd
            if use_batch:
                t = xhat * (gxsum / count)[:, None] + (gsum / count)[:, None]
                t = (g3 - t) * k[:, None]
            else:
                t = g3 * k[:, None]
            gx = _cast(xp, xp.reshape(t, shape), self.native_dtype(x_dtype))
        return gx, gw, gb

    def nn_running_update(self, running, batch, momentum, dtype):
        """``(1 - momentum) * running + momentum * batch`` as ember dtype ``dtype`` (a new array),
        computed in float64."""
        xp = self.xp
        new = (1.0 - momentum) * xp.astype(running, xp.float64) + momentum * xp.astype(batch, xp.float64)
        return xp.astype(new, self.native_dtype(dtype))

    def nn_layer_norm(self, x, w, b, ndims, eps, dtype):
        """Layer norm over the last ``ndims`` dims, then ``* w + b`` (either may be None)."""
        xp = self.xp
        dt = self.native_dtype(dtype)
        work = _work(xp, dt)
        xw = _cast(xp, x, work)
        axes = tuple(range(x.ndim - ndims, x.ndim))
        if math.prod(xw.shape):
            mean = xp.mean(xw, axis=axes, keepdims=True)
            var = xp.var(xw, axis=axes, keepdims=True)
        else:       # nothing to normalize: no statistics
            mean = var = xp.zeros(tuple(x.shape[:x.ndim - ndims]) + (1,) * ndims, dtype=work,
                                  device=self.native_device)
        invstd = 1.0 / xp.sqrt(var + eps)
        xhat = (xw - mean) * invstd
        out = xhat
        ww = None
        if w is not None:
            ww = _cast(xp, w, work)
            out = out * ww
        if b is not None:
            out = out + _cast(xp, b, work)
        return _cast(xp, out, dt), (xhat, invstd, ww, axes)

    def nn_layer_norm_grads(self, g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
        """Gradients of ``nn_layer_norm``: (gx, gw, gb)."""
        xp = self.xp
        xhat, invstd, ww, axes = saved
        gw_ = _cast(xp, g, xhat.dtype)
        lead = tuple(range(g.ndim - len(axes)))
        gx = gw = gb = None
        if need_b:
            gb = _cast(xp, xp.sum(gw_, axis=lead) if lead else gw_, self.native_dtype(b_dtype))
        if need_w:
            gxh = gw_ * xhat
            gw = _cast(xp, xp.sum(gxh, axis=lead) if lead else gxh, self.native_dtype(w_dtype))
        if need_x and not math.prod(xhat.shape):
            gx = _cast(xp, gw_, self.native_dtype(x_dtype))
        elif need_x:
            dxhat = gw_ * ww if ww is not None else gw_
            gx = invstd * (dxhat - xp.mean(dxhat, axis=axes, keepdims=True)
                           - xhat * xp.mean(dxhat * xhat, axis=axes, keepdims=True))
            gx = _cast(xp, gx, self.native_dtype(x_dtype))
        return gx, gw, gb

    def nn_group_norm(self, x, w, b, groups, eps, dtype):
        """Group norm of a (N, C, *) ``x``: each of the ``groups`` groups of channels of a
        sample normalized over its channels and positions, then ``* w + b`` per channel (either
        may be None). Returns (out, saved)."""
        xp = self.xp
        dt = self.native_dtype(dtype)
        work = _work(xp, dt)
        n, c = x.shape[0], x.shape[1]
        xg = xp.reshape(_cast(xp, x, work), (n, groups, c // groups * math.prod(x.shape[2:])))
        if math.prod(xg.shape):
            mean = xp.mean(xg, axis=2, keepdims=True)
            var = xp.var(xg, axis=2, keepdims=True)
        else:       # nothing to normalize: no statistics
            mean = var = xp.zeros((n, groups, 1), dtype=work, device=self.native_device)
        invstd = 1.0 / xp.sqrt(var + eps)
        xhat = (xg - mean) * invstd
        out = _per_channel(xp, xp.reshape(xhat, tuple(x.shape)))
        ww = None
        if w is not None:
            ww = _cast(xp, w, work)
            out = out * ww[:, None]
        if b is not None:
            out = out + _cast(xp, b, work)[:, None]
        return _cast(xp, xp.reshape(out, tuple(x.shape)), dt), (xhat, invstd, ww, tuple(x.shape))

    def nn_group_norm_grads(self, g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
        """Gradients of ``nn_group_norm``: (gx, gw, gb); ``gx = invstd * (gy - mean(gy) - xhat *
        mean(gy * xhat))`` with ``gy = g * w``, the means over each group."""
        xp = self.xp
        xhat, invstd, ww, shape = saved
        g3 = _per_channel(xp, xp.reshape(_cast(xp, g, xhat.dtype), shape))
        gx = gw = gb = None
        if need_b:
            gb = _cast(xp, xp.sum(g3, axis=(0, 2)), self.native_dtype(b_dtype))
        if need_w:
            gxh = g3 * _per_channel(xp, xp.reshape(xhat, shape))
            gw = _cast(xp, xp.sum(gxh, axis=(0, 2)), self.native_dtype(w_dtype))
        if need_x:
            gy = xp.reshape(g3 * ww[:, None] if ww is not None else g3, xhat.shape)
            if math.prod(xhat.shape):
                gy = invstd * (gy - xp.mean(gy, axis=2, keepdims=True)
                               - xhat * xp.mean(gy * xhat, axis=2, keepdims=True))
            gx = _cast(xp, xp.reshape(gy, shape), self.native_dtype(x_dtype))
        return gx, gw, gb
