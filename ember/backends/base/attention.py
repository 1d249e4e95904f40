"""The attention kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

import math


def _work(xp, a):
    """``a`` in float32 or float64 (others as float32)."""
    return a if a.dtype == xp.float32 or a.dtype == xp.float64 else xp.astype(a, xp.float32)


def _heads(xp, a, groups):
    """``a`` with each head (dim -3) repeated ``groups`` times, the copies next to each other
    (grouped-query attention)."""
    return a if groups == 1 else xp.repeat(a, groups, axis=-3)


def _unheads(xp, g, groups):
    """The gradient of ``_heads``: each group of ``groups`` consecutive heads summed."""
    if groups == 1:
        return g
    shape = tuple(g.shape)
    return xp.sum(xp.reshape(g, shape[:-3] + (shape[-3] // groups, groups) + shape[-2:]), axis=-3)


class AttentionKernels:
    def nn_attention(self, q, k, v, bias, allowed, causal, scale, groups_k, groups_v, keep, keep_scale):
        """``softmax(q @ k^T * scale + bias) @ v`` over the last dim, with ``-inf`` where ``allowed``
        (a bool array) is False or above the diagonal when ``causal``; a row with every
        score ``-inf`` gets weights 0 (PyTorch's safe softmax). ``keep`` (or None) is the
        dropout mask of the weights, scaled by ``keep_scale``. Half floats compute in
        float32. Returns (out in ``q``'s dtype, saved arrays for ``nn_attention_grads``)."""
        xp = self.xp
        qw, kw, vw = _work(xp, q), _heads(xp, _work(xp, k), groups_k), _heads(xp, _work(xp, v), groups_v)
        s = xp.matmul(qw, xp.matrix_transpose(kw))
        if qw.shape[-1]:            # with no features every score is 0, whatever the scale
            s = s * scale
        else:
            scale = 1.0
        if bias is not None:
            s = s + _work(xp, bias)
        if causal:
            tri = xp.tril(xp.ones((s.shape[-2], s.shape[-1]), dtype=xp.bool, device=self.native_device))
            s = xp.where(tri, s, -math.inf)
        if allowed is not None:
            s = xp.where(allowed, s, -math.inf)
        if s.shape[-1] == 0:
            p = s
        else:
            m = xp.max(s, axis=-1, keepdims=True)
            p = xp.exp(s - xp.where(m == -math.inf, 0.0, m))   # a fully masked row: zeros
            total = xp.sum(p, axis=-1, keepdims=True)
            p = p / xp.where(total == 0, 1.0, total)
        pd = p if keep is None else p * _work(xp, keep) * keep_scale
        out = xp.astype(xp.matmul(pd, vw), q.dtype, copy=False)
        return out, (qw, kw, vw, p, pd, keep, keep_scale, scale, groups_k, groups_v)

    def nn_attention_grads(self, g, saved, shapes, needs):
        """The gradients (gq, gk, gv, gbias) of ``nn_attention`` for its output gradient ``g``, each
        summed back to its input's shape (``shapes``) in ``g``'s dtype; None where ``needs``
        is False."""
        xp, to_shape = self.xp, self.sum_to_shape
        qw, kw, vw, p, pd, keep, keep_scale, scale, groups_k, groups_v = saved
        dt = g.dtype
        gw = _work(xp, g)
        gq = gk = gv = gb = None
        if needs[2]:
            gv = to_shape(xp.matmul(xp.matrix_transpose(pd), gw), tuple(vw.shape))
            gv = xp.astype(to_shape(_unheads(xp, gv, groups_v), tuple(shapes[2])), dt, copy=False)
        if needs[0] or needs[1] or needs[3]:
            gp = xp.matmul(gw, xp.matrix_transpose(vw))
            if keep is not None:
                gp = gp * _work(xp, keep) * keep_scale
            gs = p * (gp - xp.sum(gp * p, axis=-1, keepdims=True))
            if needs[3]:
                gb = xp.astype(to_shape(gs, tuple(shapes[3])), dt, copy=False)
            if qw.shape[-1]:
                gs = gs * scale
            if needs[0]:
                gq = xp.astype(to_shape(xp.matmul(gs, kw), tuple(shapes[0])), dt, copy=False)
            if needs[1]:
                gk = to_shape(xp.matmul(xp.matrix_transpose(gs), qw), tuple(kw.shape))
                gk = xp.astype(to_shape(_unheads(xp, gk, groups_k), tuple(shapes[1])), dt, copy=False)
        return gq, gk, gv, gb
