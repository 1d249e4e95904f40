"""The dropout kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

import math

from .declare import required


def _work(xp, a):
    """``a`` in float32 or float64 (others as float32)."""
    return a if a.dtype == xp.float32 or a.dtype == xp.float64 else xp.astype(a, xp.float32)


class DropoutKernels:
    def nn_dropout_apply(self, x, mask, scale):
        """``x * mask * scale`` in ``x``'s dtype."""
        xp = self.xp
        return xp.astype(_work(xp, x) * _work(xp, mask) * scale, x.dtype, copy=False)

    def nn_embedding(self, weight, idx):
        """Rows ``weight[idx]``: shape ``idx.shape + (D,)`` (a new array)."""
        xp = self.xp
        rows = xp.take(weight, xp.reshape(xp.astype(idx, xp.int64, copy=False), (-1,)), axis=0)
        return xp.reshape(rows, tuple(idx.shape) + tuple(weight.shape[1:]))

    def nn_embedding_bag(self, weight, idx, offsets, mode, per_sample_weights, padding_idx):
        """Bags of rows of ``weight`` (num, D) reduced by ``mode`` ("sum", "mean" or "max"):
        ``idx`` (B, n) with ``offsets`` None (each row a bag), or 1-d with ``offsets`` the
        B + 1 bounds of the bags (bag b is ``idx[offsets[b]:offsets[b + 1]]``; positions past
        the last bound are in none). ``per_sample_weights`` (idx's shape, weight's dtype, or
        None) scales each row ("sum"); positions holding ``padding_idx`` are left out (and not
        counted by "mean"); an empty bag gives zeros; a tie or NaN: the first. Returns (out
        (B, D) of weight's dtype, for "max" the (B, D) int64 position in the flattened ``idx``
        of each maximum, idx's size for an empty bag; else None). The caller checked
        that the indices are in range."""
        xp = self.xp
        d = weight.shape[1]
        flat = xp.reshape(xp.astype(idx, xp.int64, copy=False), (-1,))
        n = flat.shape[0]
        rows = _work(xp, xp.take(weight, flat, axis=0))
        if per_sample_weights is not None:
            rows = rows * xp.reshape(_work(xp, per_sample_weights), (n, 1))
        i64 = dict(dtype=xp.int64, device=self.native_device)
        if offsets is None and padding_idx is None and idx.shape[1]:  # bags of one length
            b, k = idx.shape
            r3 = xp.reshape(rows, (b, k, d))
            if mode == "max":
                pos = xp.argmax(r3, axis=1) + xp.reshape(xp.arange(b, **i64) * k, (b, 1))
                return xp.astype(xp.max(r3, axis=1), weight.dtype), pos
            out = xp.sum(r3, axis=1)
            return xp.astype(out / k if mode == "mean" else out, weight.dtype), None
        if offsets is None:
            offsets = xp.arange(idx.shape[0] + 1, **i64) * idx.shape[1]
        nb = offsets.shape[0] - 1
        marks = self.idx_add_into_zeros((n + 1,), xp.astype(offsets[1:], xp.int64),
                                        xp.ones((nb,), **i64))
        bag = xp.cumulative_sum(marks)[:n]  # each position's bag; nb: in none, or padding
        if padding_idx is not None:
            bag = xp.where(flat == padding_idx, xp.asarray(nb, **i64), bag)
        zero = xp.zeros((), dtype=rows.dtype, device=self.native_device)
        if mode != "max":
            out = self.idx_add_into_zeros((nb + 1, d), bag, rows)[:nb, :]
            if mode == "mean":
                ones = xp.ones((n,), dtype=rows.dtype, device=self.native_device)
                counts = self.idx_add_into_zeros((nb + 1,), bag, ones)[:nb]
                out = out / xp.reshape(xp.maximum(counts, zero + 1), (nb, 1))
            return xp.astype(out, weight.dtype), None
        if not n:
            return xp.zeros((nb, d), dtype=weight.dtype, device=self.native_device), \
                xp.zeros((nb, d), **i64)
        # a (bags, n) membership mask: the maximum of each bag's rows, the first row holding it
        sel = xp.reshape(bag, (1, n, 1)) == xp.reshape(xp.arange(nb, **i64), (nb, 1, 1))
        out = xp.max(xp.where(sel, rows, zero - math.inf), axis=1)
        hit = sel & ((rows == out[:, None, :]) | ((rows != rows) & (out != out)[:, None, :]))
        at = xp.reshape(xp.arange(n, **i64), (1, n, 1))
        pos = xp.min(xp.where(hit, at, xp.asarray(n, **i64)), axis=1)
        return xp.astype(xp.where(pos < n, out, zero), weight.dtype), pos

    def nn_embedding_grad(self, g, idx, num, padding_idx, scale_grad_by_freq=False):
        """The gradient of ``nn_embedding``: the output gradient summed into rows (none to
        ``padding_idx``); with ``scale_grad_by_freq`` each row's sum is divided by how often
        its index occurs in ``idx``."""
        xp = self.xp
        D = g.shape[-1]
        flat = xp.reshape(xp.astype(idx, xp.int64, copy=False), (-1,))
        gw = xp.reshape(_work(xp, g), (flat.shape[0], D))
        out = self.idx_add_into_zeros((num, D), flat, gw)
        if scale_grad_by_freq:
            ones = xp.ones(flat.shape, dtype=out.dtype, device=self.native_device)
            counts = self.idx_add_into_zeros((num,), flat, ones)
            out = out / xp.reshape(xp.maximum(counts, 1.0), (num, 1))
        if padding_idx is not None:
            out = self.nn_zero_row(out, padding_idx)
        return xp.astype(out, g.dtype, copy=False)

    @required
    def nn_embedding_renorm(self, weight, idx, max_norm, norm_type):
        """PyTorch's ``embedding_renorm_`` without the in-place write: a new array equal to ``weight``
        (num, dim) except that each row indexed by ``idx`` whose ``norm_type``-norm exceeds
        ``max_norm`` is scaled by ``max_norm / (norm + 1e-7)``; None when no row changes.
        The norms are computed in float64 (PyTorch: in the weight's dtype, then as a
        double)."""

    def nn_index_bad(self, idx, size):
        """The first element of the int array ``idx`` outside ``[0, size)`` as a Python int, or None
        when all are in range (also when ``idx`` is empty)."""
        return self.nn_target_bad(idx, size, None)
