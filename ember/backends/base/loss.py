"""The loss kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

import math


def _work(xp, dt):
    """The working dtype of a result of dtype ``dt``."""
    return xp.float64 if dt == xp.float64 else xp.float32


def _array(be, a):
    """``a`` as an array of the backend (NumPy's reductions give scalars)."""
    return a if isinstance(a, be.Array) else be.xp.asarray(a)


def _reduce(be, per, reduction, denom):
    if reduction == "none":
        return per
    total = be.xp.sum(per)
    return _array(be, total if reduction == "sum" else total / denom)


def _grad_scale(xp, g, reduction, denom, shape):
    """The output gradient spread over the per-element losses (an array of ``shape``)."""
    if reduction == "none":
        return g
    return xp.broadcast_to(g if reduction == "sum" else g / denom, tuple(shape))


class LossKernels:
    def nn_target_bad(self, target, num_classes, ignore_index):
        """The first class index of ``target`` outside ``[0, num_classes)`` (other than
        ``ignore_index``) as a Python int, or None when all are in range."""
        bounds = self.idx_bounds(target)
        if bounds is None or (bounds[0] >= 0 and bounds[1] < num_classes):   # the usual case
            return None
        xp = self.xp
        t = xp.reshape(target, (-1,))
        if t.dtype in (xp.uint16, xp.uint32) or (t.dtype == xp.uint64 and bounds[1] < 2 ** 63):
            t = xp.astype(t, xp.int64)      # exact; PyTorch compares no wide unsigned ints
        bad = (t < 0) | (t >= num_classes)
        if ignore_index is not None:
            bad = bad & (t != ignore_index)
        if not xp.any(bad):
            return None
        return int(t[int(xp.argmax(xp.astype(bad, xp.int8)))])

    def nn_class_loss(self, x, target, weight, ignore_index, smoothing, reduction, from_logits, dtype):
        """Cross entropy (``from_logits``) or NLL (``x`` already log-probabilities) with class-index
        targets. ``x`` is (N, C, *rest), ``target`` (N, *rest). Returns (loss, saved)."""
        xp = self.xp
        dt = self.native_dtype(dtype)
        work = _work(xp, dt)
        xl = xp.moveaxis(xp.astype(x, work, copy=False), 1, -1)          # (N, *rest, C)
        C = xl.shape[-1]
        if from_logits:
            logp = self.nn_log_softmax(xl, xl.ndim - 1) if math.prod(xl.shape) else xp.astype(xl, work, copy=True)
        else:
            logp = xl
        tl = xp.astype(target, xp.int64, copy=False)
        valid = tl != ignore_index
        tt = xp.where(valid, tl, 0)
        if C:
            picked = xp.take_along_axis(logp, tt[..., None], axis=-1)[..., 0]
        else:
            picked = xp.zeros(tuple(tt.shape), dtype=work, device=self.native_device)
        wv = xp.astype(weight, work, copy=False) if weight is not None else None
        if wv is not None:
            w_t = xp.where(valid, xp.reshape(xp.take(wv, xp.reshape(tt, (-1,))), tuple(tt.shape)), 0.0)
        else:
            w_t = xp.astype(valid, work)
        per = xp.where(valid, -w_t * picked, 0.0)  # an ignored row's NaN logits stay out
        if smoothing:
            smooth = -xp.sum(logp * wv, axis=-1) if wv is not None else -xp.sum(logp, axis=-1)
            smooth = xp.where(valid, smooth, 0.0)
            per = (1.0 - smoothing) * per + (smoothing / C) * smooth
        denom = xp.sum(w_t)
        loss = _reduce(self, per, reduction, denom)
        saved = (logp, tt, w_t, valid, wv, smoothing, reduction, denom, from_logits,
                 tuple(per.shape))
        return xp.astype(loss, dt, copy=False), saved

    def nn_class_loss_grad(self, g, saved, x_dtype):
        """The gradient of ``nn_class_loss`` with respect to ``x``: ``(softmax * sum(q) - q)`` scaled
        (or ``-q`` for NLL), where ``q`` are the per-class loss coefficients."""
        xp = self.xp
        logp, tt, w_t, valid, wv, smoothing, reduction, denom, from_logits, pshape = saved
        C = logp.shape[-1]
        scale = _grad_scale(xp, xp.astype(g, logp.dtype, copy=False), reduction, denom, pshape)
        at = xp.arange(C, device=self.native_device) == tt[..., None]  # the targets' places
        q = xp.where(at, ((1.0 - smoothing) * w_t)[..., None], 0.0)
        if smoothing:
            base = xp.astype(valid[..., None], logp.dtype)
            q = q + (smoothing / C) * (base * wv if wv is not None else base)
        if from_logits:
            gx = xp.exp(logp) * xp.sum(q, axis=-1, keepdims=True) - q
            keep = valid[..., None]
        else:  # NLL: +0.0 off the targets, as PyTorch's (not -0.0 times the scale)
            gx = -q
            keep = valid[..., None] & at
        # ignored targets get no gradient (not 0 * nan when every target is ignored)
        gx = xp.where(keep, gx * scale[..., None], 0.0)
        return xp.astype(xp.moveaxis(gx, -1, 1), self.native_dtype(x_dtype), copy=False)

    def nn_prob_loss(self, x, target, weight, smoothing, reduction, dtype):
        """Cross entropy with class-probability targets (same shape as ``x``, classes in dim 1)."""
        xp = self.xp
        dt = self.native_dtype(dtype)
        work = _work(xp, dt)
        xl = xp.moveaxis(xp.astype(x, work, copy=False), 1, -1)
        tl = xp.moveaxis(xp.astype(target, work, copy=False), 1, -1)
        C = xl.shape[-1]
        logp = self.nn_log_softmax(xl, xl.ndim - 1) if math.prod(xl.shape) else xp.astype(xl, work, copy=True)
        tt = tl * (1.0 - smoothing) + smoothing / C if smoothing else tl
        wv = xp.astype(weight, work, copy=False) if weight is not None else None
        q = tt * wv if wv is not None else tt
        per = -xp.sum(logp * q, axis=-1)
        denom = float(math.prod(x.shape) // C) if C else 0.0
        loss = _reduce(self, per, reduction, denom)
        return xp.astype(loss, dt, copy=False), (logp, q, wv, smoothing, reduction, denom,
                                                 tuple(per.shape))

    def nn_prob_loss_grads(self, g, saved, need_x, need_t, x_dtype, t_dtype):
        """Gradients of ``nn_prob_loss`` with respect to the logits and the target probabilities."""
        xp = self.xp
        logp, q, wv, smoothing, reduction, denom, pshape = saved
        scale = _grad_scale(xp, xp.astype(g, logp.dtype, copy=False), reduction, denom, pshape)[..., None]
        gx = gt = None
        if need_x:
            gx = (xp.exp(logp) * xp.sum(q, axis=-1, keepdims=True) - q) * scale
            gx = xp.astype(xp.moveaxis(gx, -1, 1), self.native_dtype(x_dtype), copy=False)
        if need_t:
            d = -(1.0 - smoothing) * logp
            if wv is not None:
                d = d * wv
            gt = xp.astype(xp.moveaxis(d * scale, -1, 1), self.native_dtype(t_dtype), copy=False)
        return gx, gt

    def nn_pair_loss(self, a, b, kind, reduction, dtype):
        """Elementwise regression losses of broadcast ``a`` and ``b``: ``"mse"`` or ``"l1"``."""
        xp = self.xp
        dt = self.native_dtype(dtype)
        work = _work(xp, dt)
        diff = _array(self, xp.astype(a, work, copy=False) - xp.astype(b, work, copy=False))
        per = diff * diff if kind == "mse" else xp.abs(diff)
        loss = _reduce(self, _array(self, per), reduction, float(math.prod(per.shape)))
        return xp.astype(loss, dt, copy=False), (diff, kind, reduction)

    def nn_pair_loss_grads(self, g, saved):
        """The gradient of ``nn_pair_loss`` with respect to ``a`` at the broadcast shape (that of ``b``
        is its negation)."""
        xp = self.xp
        diff, kind, reduction = saved
        scale = _grad_scale(xp, xp.astype(g, diff.dtype, copy=False), reduction, float(math.prod(diff.shape)),
                            diff.shape)
        d = 2.0 * diff if kind == "mse" else xp.sign(diff)
        return _array(self, d * scale)

    def nn_bce_logits(self, x, t, weight, pos_weight, reduction, dtype):
        """Binary cross entropy on logits, stable: ``(1 - t) x - lw * logsigmoid(x)`` with ``lw = 1 +
        (pos_weight - 1) t``, times ``weight``. Returns (loss, saved)."""
        xp = self.xp
        dt = self.native_dtype(dtype)
        work = _work(xp, dt)
        xw = xp.astype(x, work, copy=False)
        tw = xp.astype(t, work, copy=False)
        logsig = xp.clip(xw, max=0.0) - xp.log1p(xp.exp(-xp.abs(xw)))
        pw = xp.astype(pos_weight, work, copy=False) if pos_weight is not None else None
        lw = 1.0 + (pw - 1.0) * tw if pw is not None else 1.0
        raw = (1.0 - tw) * xw - lw * logsig
        ww = xp.astype(weight, work, copy=False) if weight is not None else None
        per = raw * ww if ww is not None else raw
        per = xp.broadcast_to(per, xp.broadcast_shapes(per.shape, xw.shape))
        loss = _reduce(self, _array(self, per), reduction, float(math.prod(per.shape)))
        return xp.astype(loss, dt, copy=False), (xw, tw, logsig, pw, lw, raw, ww, reduction,
                                                 tuple(per.shape))

    def nn_bce_logits_grads(self, g, saved):
        """Gradients of ``nn_bce_logits`` at the broadcast shape: (gx, gt, gweight, gpos_weight)."""
        xp = self.xp
        xw, tw, logsig, pw, lw, raw, ww, reduction, pshape = saved
        scale = _grad_scale(xp, xp.astype(g, xw.dtype, copy=False), reduction,
                            float(math.prod(pshape)), pshape)
        sig_neg = xp.exp(logsig - xw)                                  # sigmoid(-x)
        wscale = scale * ww if ww is not None else scale
        gx = ((1.0 - tw) - lw * sig_neg) * wscale
        dt = -xw - ((pw - 1.0) * logsig if pw is not None else 0.0)
        gt = dt * wscale
        gw = raw * scale
        gpw = -tw * logsig * wscale
        return tuple(_array(self, a) for a in (gx, gt, gw, gpw))
