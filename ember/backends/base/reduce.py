"""The reduce kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from ... import dtypes
from .declare import required


def _wide(self, a):
    """``a`` in float32 when it is float16 or bfloat16 (exact), in uint8 when it is bool (the
    standard's reductions take numbers only), else ``a`` itself."""
    dt = self.dtype_of(a)
    if dt.itemsize == 2 and dt.kind == "float":
        return self.xp.astype(a, self.xp.float32)
    if dt.kind == "bool":
        return self.xp.astype(a, self.xp.uint8)
    return a


def _nonzero(self, a):
    return a if self.dtype_of(a).kind == "bool" else a != 0


def _logical(self, fn, a, axes, keepdims):
    """``fn`` (``xp.any`` or ``xp.all``) of ``a != 0`` over ``axes`` (``()``: none), an array."""
    nz = _nonzero(self, a)
    if not axes:
        return nz
    out = fn(nz, axis=axes, keepdims=keepdims)
    return out if keepdims or len(axes) < a.ndim else self.xp.asarray(out)


def _count(shape, axes):
    n = 1
    for ax in axes:
        n *= shape[ax]
    return n


def _kept_shape(shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _sum(self, a, axes, keepdims):
    """``xp.sum`` over ``axes``; ``()`` adds each element to 0 (-0.0 becomes 0.0), as NumPy."""
    return self.xp.sum(a, axis=axes, keepdims=keepdims) if axes else a + 0


def _inverse(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def _positions(self, shape, axis):
    """0, 1, ... along ``axis`` of ``shape``, shaped to broadcast against it."""
    xp = self.xp
    pos = xp.arange(shape[axis], dtype=xp.int64, device=self.native_device)
    return xp.reshape(pos, tuple(-1 if i == axis % len(shape) else 1 for i in range(len(shape))))


class ReduceKernels:
    def reduce_sum(self, a, axes, keepdims, dtype):
        """Sum over ``axes`` (a tuple); ints and bools accumulate in int64; the result has ember
        ``dtype``. A float32/float64 sum over every axis, the leading or the trailing axes
        of a large contiguous array runs compiled (accumulating in float64)."""
        xp = self.xp
        exact = self.dtype_of(a).kind in ("bool", "int")
        w = _wide(self, a)
        if not axes:
            out = xp.astype(w, xp.int64) if exact else w + 0
        else:
            out = xp.sum(w, axis=axes, keepdims=keepdims, dtype=xp.int64 if exact else None)
        return xp.astype(xp.asarray(out), self.native_dtype(dtype), copy=False)

    def reduce_prod(self, a, axes, keepdims, dtype):
        """Product over ``axes``; ints and bools accumulate in int64; result in ember ``dtype``."""
        xp = self.xp
        exact = self.dtype_of(a).kind in ("bool", "int")
        w = _wide(self, a)
        if not axes:
            out = xp.astype(w, xp.int64) if exact else w
        else:
            out = xp.prod(w, axis=axes, keepdims=keepdims, dtype=xp.int64 if exact else None)
        return xp.astype(xp.asarray(out), self.native_dtype(dtype), copy=False)

    def reduce_mean(self, a, axes, keepdims):
        """Float mean over ``axes``; nan where nothing is reduced."""
        out = _sum(self, _wide(self, a), axes, keepdims) / _count(a.shape, axes)
        return self.xp.astype(self.xp.asarray(out), a.dtype, copy=False)

    @required
    def reduce_mean_int(self, a, axes, keepdims):
        """Integer mean over ``axes``: the floor of the exact mean, in ``a``'s dtype (count > 0).

        Required: exact for 64-bit ints only through each backend's limb sums on views of
        the bits.
        """

    def reduce_max(self, a, axes, keepdims):
        """Maximum over ``axes`` (NaN propagates)."""
        if not axes:
            return a
        out = self.xp.max(_wide(self, a), axis=axes, keepdims=keepdims)
        return self.xp.astype(self.xp.asarray(out), a.dtype, copy=False)

    def reduce_min(self, a, axes, keepdims):
        """Minimum over ``axes`` (NaN propagates)."""
        if not axes:
            return a
        out = self.xp.min(_wide(self, a), axis=axes, keepdims=keepdims)
        return self.xp.astype(self.xp.asarray(out), a.dtype, copy=False)

    def reduce_abs(self, a):
        """Elementwise absolute value (the reduce family's own, for max_abs)."""
        dt = self.dtype_of(a)
        if dt.kind == "bool" or (dt.kind == "int" and not dt.is_signed):
            return a
        return self.xp.abs(a)

    def reduce_argmax(self, a, axis, keepdims):
        """Index of the maximum along ``axis`` (None: flat); NaN wins; lowest index on ties."""
        out = self.xp.argmax(_wide(self, a), axis=axis, keepdims=keepdims)
        return self.xp.astype(self.xp.asarray(out), self.xp.int64, copy=False)

    def reduce_argmin(self, a, axis, keepdims):
        """Index of the minimum along ``axis`` (None: flat); NaN wins; lowest index on ties."""
        out = self.xp.argmin(_wide(self, a), axis=axis, keepdims=keepdims)
        return self.xp.astype(self.xp.asarray(out), self.xp.int64, copy=False)

    def reduce_index_grad(self, g, idx, shape, axis):
        """Zeros of ``shape`` with ``g`` put at ``idx`` along ``axis`` (both with ``axis`` kept)."""
        xp = self.xp
        pos = _positions(self, shape, axis)
        zero = xp.zeros((), dtype=g.dtype, device=self.native_device)
        return xp.where(pos == idx, g, zero)

    def reduce_select_grad(self, g, a, axes, keepdims, kind):
        """Gradient of a max/min over ``axes``: all of ``g`` to the first extreme position of each
        slice (row-major over ``axes``; NaN wins). ``kind``: "max", "min" or "absmax" (max
        of |a|, times the sign of ``a``)."""
        xp = self.xp
        rest = [i for i in range(a.ndim) if i not in axes]
        perm = rest + list(axes)
        rest_shape = tuple(a.shape[i] for i in rest)
        rows = xp.reshape(xp.permute_dims(_wide(self, a), tuple(perm)), rest_shape + (-1,))
        if kind == "absmax":
            rows = self.reduce_abs(rows)
        if rows.shape[-1] == 0:
            idx = xp.zeros(rest_shape + (1,), dtype=xp.int64, device=self.native_device)
        else:
            pick = self.reduce_argmin if kind == "min" else self.reduce_argmax
            idx = pick(rows, rows.ndim - 1, True)
        g = xp.reshape(g, rest_shape + (1,))
        out = self.reduce_index_grad(g, idx, rows.shape, rows.ndim - 1)
        out = xp.permute_dims(xp.reshape(out, tuple(a.shape[i] for i in perm)), _inverse(perm))
        if kind == "absmax":
            out = out * xp.astype(xp.sign(a), g.dtype, copy=False)
        return out

    def reduce_even_grad(self, g, a, value, kind):
        """Gradient of a whole-tensor max/min/median: ``g`` shared evenly among the elements equal to
        ``value`` (NaN elements when ``value`` is NaN), as PyTorch. ``kind`` "absmax"
        compares |a| and multiplies by the sign of ``a``."""
        xp = self.xp
        w = _wide(self, a)
        v = _wide(self, value)
        if kind == "absmax":
            w = xp.abs(w)
        mask = w == v
        if self.dtype_of(a).kind == "float":
            mask = mask | (xp.isnan(w) & xp.isnan(v))
        share = g / xp.astype(xp.count_nonzero(mask), g.dtype)
        out = xp.astype(xp.where(mask, share, 0.0), g.dtype, copy=False)
        if kind == "absmax":
            out = out * xp.astype(xp.sign(a), g.dtype, copy=False)
        return out

    def reduce_any(self, a, axes, keepdims):
        """Whether any element over ``axes`` is nonzero (NaN counts as nonzero)."""
        return _logical(self, self.xp.any, a, axes, keepdims)

    def reduce_all(self, a, axes, keepdims):
        """Whether every element over ``axes`` is nonzero (NaN counts as nonzero)."""
        return _logical(self, self.xp.all, a, axes, keepdims)

    def reduce_count_nonzero(self, a, axes):
        """The number of nonzero elements over ``axes``, int64, the dims removed."""
        return self.reduce_sum(_nonzero(self, a), axes, False, dtypes.int64)

    def reduce_var_mean(self, a, axes, correction, keepdims):
        """(variance, mean) over ``axes``; the variance divides by max(n - correction, 0)."""
        xp = self.xp
        w = _wide(self, a)
        n = _count(a.shape, axes)
        mean = _sum(self, w, axes, True) / n
        d = w - mean
        var = _sum(self, d * d, axes, keepdims) / max(n - correction, 0)
        if not keepdims:
            mean = xp.reshape(mean, var.shape)
        return xp.astype(var, a.dtype, copy=False), xp.astype(mean, a.dtype, copy=False)

    def reduce_var_grad(self, g, a, mean, axes, correction, keepdims):
        """Gradient of the variance: 2 (a - mean) / (n - correction) times ``g``."""
        xp = self.xp
        n = _count(a.shape, axes)
        shape = _kept_shape(a.shape, axes)
        gk = xp.reshape(_wide(self, g), shape)
        mk = xp.reshape(_wide(self, mean), shape)
        scale = 2.0 / (n - correction) if n > correction else float("inf")
        return xp.astype(scale * gk * (_wide(self, a) - mk), a.dtype, copy=False)

    @required
    def reduce_median(self, a, axis):
        """(lower median, index) along ``axis``, the dim kept; a slice holding NaN gives NaN and the
        index of its first NaN, as PyTorch. The slice must be non-empty.

        Required: the standard leaves NaN's place in a sort open (this needs NaN last,
        stably).
        """

    def reduce_nan_like(self, shape, dtype):
        """An array of ``shape`` filled with NaN in ember float dtype ``dtype``."""
        return self.xp.full(shape, float("nan"), dtype=self.native_dtype(dtype),
                            device=self.native_device)

    @required
    def reduce_argtopk(self, a, k, axis):
        """Indices of the ``k`` largest elements along ``axis``, largest first; NaN counts as the
        largest; equal elements in ascending index order.

        Required: the standard leaves NaN's place in a sort open (this needs NaN largest,
        stably).
        """

    def reduce_cov(self, a, axis, correction):
        """Covariance matrices (batch..., V, V) of an array whose observations lie along ``axis``."""
        xp = self.xp
        var = a.ndim - 2 if axis == a.ndim - 1 else a.ndim - 1
        order = [d for d in range(a.ndim) if d != var and d != axis] + [var, axis]
        x = _wide(self, xp.permute_dims(a, tuple(order)))
        n = x.shape[-1]
        xc = x - xp.sum(x, axis=-1, keepdims=True) / n
        out = xp.matmul(xc, xp.matrix_transpose(xc)) / max(n - correction, 0)
        return xp.astype(out, a.dtype, copy=False)

    def reduce_reshape(self, a, shape):
        """``a`` with a new shape of the same size (a view where the layout allows)."""
        return self.xp.reshape(a, shape)

    def reduce_prod_grad(self, g, a, out, axes, keepdims):
        """Gradient of a product over ``axes``, exact with zeros (as PyTorch): g * out / a where a
        slice has no zero; the product of the others at a slice's only zero; 0 elsewhere."""
        xp = self.xp
        kept = _kept_shape(a.shape, axes)
        w = _wide(self, a)
        gk = xp.reshape(_wide(self, g), kept)
        ok = xp.reshape(_wide(self, out), kept)
        zero = w == 0
        if not bool(xp.any(zero)):
            res = gk * ok / w
        else:
            safe = xp.where(zero, xp.ones((), dtype=w.dtype, device=self.native_device), w)
            nz = _sum(self, xp.astype(zero, xp.int64, copy=False), axes, True)
            others = xp.prod(safe, axis=axes, keepdims=True)
            res = xp.where(nz == 0, gk * ok / safe, xp.where(zero & (nz == 1), gk * others, 0.0))
        return xp.astype(res, a.dtype, copy=False)

    def reduce_zeros(self, shape, dtype):
        """Zeros of ``shape`` and ember ``dtype``."""
        return self.xp.zeros(shape, dtype=self.native_dtype(dtype), device=self.native_device)
