"""The movement kernels (see ember/backends/base/__init__.py). The view kernels (reshape when the
layout allows, expand, permute, flip, slice, unfold) return views where the library has them;
the others return fresh arrays. Nothing here writes into an array it was given."""

import math

from ..guard import check_result
from .declare import required


def pad_windows(shape, pads):
    """``(src, dst)``: the slices of an array of ``shape`` that survive ``pads`` (one (before,
    after) pair per axis; negative amounts crop) and where they land in the padded result."""
    src = tuple([slice(max(-b, 0), n - max(-e, 0)) for n, (b, e) in zip(shape, pads)])
    dst = tuple([slice(max(b, 0), max(b, 0) + (n - max(-b, 0) - max(-e, 0)))
                 for n, (b, e) in zip(shape, pads)])
    return src, dst


def pad_crop(pads):
    """Slices that drop the negative part of each (before, after) pair from a padded array."""
    return tuple([slice(-b if b < 0 else 0, a if a < 0 else None) for b, a in pads])


def pad_source(n, b, e, mode):
    """For each position of an axis of size ``n`` padded by ``b`` before and ``e`` after (both
    >= 0), the input position it reads (NumPy's reflect, edge and wrap modes)."""
    out = []
    for j in range(-b, n + e):
        if mode == "reflect":
            i = -j if j < 0 else (2 * (n - 1) - j if j >= n else j)
        elif mode == "edge":
            i = 0 if j < 0 else (n - 1 if j >= n else j)
        else:  # circular
            i = j % n
        out.append(i)
    return out


class MovementKernels:
    def mv_reshape(self, a, shape, op='reshape'):
        """``a`` with a new shape: a view when the layout allows, else a copy (``op``: the op
        named if the copy cannot be allocated)."""
        try:
            return self.xp.reshape(a, tuple(shape))
        except Exception as exc:  # noqa: BLE001 - allocation_failed keeps what is not ours
            raise self.allocation_failed(exc, op, tuple(shape)) from None

    def mv_expand(self, a, shape, op='expand'):
        """A read-only broadcast view of ``a`` with ``shape`` (leading dims added as needed; ``op``:
        the op named if its size cannot be addressed)."""
        if not self.has_layout:  # the library's broadcast is a new array (XLA aborts past memory)
            check_result(op, tuple(shape), self.dtype_of(a).itemsize)
        try:
            return self.xp.broadcast_to(a, tuple(shape))
        except Exception as exc:  # noqa: BLE001 - allocation_failed keeps what is not ours
            raise self.allocation_failed(exc, op, tuple(shape)) from None

    def mv_permute(self, a, order):
        """A view of ``a`` with its axes in ``order``."""
        return self.xp.permute_dims(a, tuple(order))

    def mv_flip(self, a, axes):
        """``a`` reversed along ``axes`` (non-negative): a view where the library has negative
        strides, else a copy."""
        return self.xp.flip(a, axis=tuple(axes)) if axes else a

    def mv_slice(self, a, bounds):
        """A view of ``a`` restricted to ``[start, end)`` on each axis; ``bounds`` one pair per
        axis."""
        return a[tuple([slice(s, e) for s, e in bounds]) + (Ellipsis,)]

    def _zeros(self, shape, g):
        return self.xp.zeros(tuple(shape), dtype=g.dtype, device=self.native_device)

    def mv_slice_backward(self, g, shape, bounds):
        """The adjoint of ``mv_slice``: zeros of ``shape`` with ``g`` placed in the window."""
        window = tuple([slice(s, e) for s, e in bounds])
        return self.idx_scatter(self._zeros(shape, g), window, g, "assign")

    @required
    def mv_pad(self, a, pads, mode, value, dtype):
        """``a`` padded by ``pads`` (one (before, after) pair per axis; negative amounts crop).

        ``mode`` is "constant" (fill with ``value``), "reflect", "edge" or "circular"; the result
        has ember dtype ``dtype``. Positive parts are padded first, negative parts cropped after.
        Required: the op passes ``op=`` for the backend's typed allocation error (``pad_windows``,
        ``pad_crop`` and ``pad_source`` here are the shared index arithmetic)."""

    def mv_pad_backward(self, g, shape, pads, mode):
        """The adjoint of ``mv_pad`` (without the fill value): the gradient for the input of
        ``shape``."""
        if not any([b or e for b, e in pads]):
            return g
        if mode == "constant":
            src, dst = pad_windows(shape, pads)
            if all(b >= 0 and e >= 0 for b, e in pads):
                return self.idx_index(g, dst)
            return self.idx_scatter(self._zeros(shape, g), src, self.idx_index(g, dst), "assign")
        xp = self.xp
        if any(b < 0 or e < 0 for b, e in pads):
            full = [n + max(b, 0) + max(e, 0) for n, (b, e) in zip(shape, pads)]
            g = self.idx_scatter(self._zeros(full, g), pad_crop(pads), g, "assign")
        for axis, (n, (b, e)) in enumerate(zip(shape, pads)):
            b, e = max(b, 0), max(e, 0)
            if b or e:
                index = xp.asarray(pad_source(n, b, e, mode), dtype=xp.int64,
                                   device=self.native_device)
                size = g.shape[:axis] + (n,) + g.shape[axis + 1:]
                g = self.idx_scatter(self._zeros(size, g), (slice(None),) * axis + (index,), g,
                                     "add")
        return g

    def mv_roll(self, a, shifts, axes):
        """A copy of ``a`` rolled by ``shifts`` along ``axes`` (NumPy's direction); ``axes=None``
        rolls the flattened array."""
        xp = self.xp
        if axes is None:
            n = math.prod(a.shape)
            return xp.roll(a, shift=shifts % n if n else 0)
        if not len(axes):
            return self.copy(a)
        total = {}
        for s, ax in zip(shifts, axes):
            total[ax] = total.get(ax, 0) + s
        dims = tuple(total)
        amounts = tuple([total[d] % a.shape[d] if a.shape[d] else 0 for d in dims])
        return xp.roll(a, shift=amounts, axis=dims)

    @required
    def mv_unfold(self, a, axis, size, step):
        """A read-only strided view of the windows of ``size`` every ``step`` along ``axis``; the
        window index replaces ``axis`` and the window offset is a new last axis. Required: the
        standard has no strided views."""

    def mv_unfold_backward(self, g, shape, axis, size, step):
        """The adjoint of ``mv_unfold``: windows summed back into an array of ``shape``."""
        out = self._zeros(shape, g)
        count = g.shape[axis]
        if count == 0 or size == 0:
            return out
        gw = self.xp.moveaxis(g, -1, 0)  # window offset first: (size, ..., count, ...)
        span = step * (count - 1) + 1
        lead = (slice(None),) * axis
        for k in range(size):  # one vectorized add per window offset, not per element
            out = self.idx_scatter(out, lead + (slice(k, k + span, step),), gw[k, ...], "add")
        return out

    @required
    def mv_repeat_interleave(self, a, repeats, axis):
        """Each element of ``a`` along ``axis`` repeated ``repeats`` times (an int or an int array).
        Required: the op passes ``op=`` for the backend's typed allocation error."""

    def mv_repeat_interleave_backward(self, g, shape, repeats, axis):
        """The adjoint of ``mv_repeat_interleave``: the copies of each element summed."""
        xp = self.xp
        n = shape[axis]
        index = self.mv_repeat_interleave(
            xp.arange(n, dtype=xp.int64, device=self.native_device), repeats, 0)
        key = (slice(None),) * axis + (index,)
        return self.idx_scatter(self._zeros(shape, g), key, g, "add")

    def mv_any_negative(self, a):
        """Whether an int array has a negative element."""
        xp = self.xp
        if a.dtype == xp.bool or xp.isdtype(a.dtype, "unsigned integer"):
            return False
        return math.prod(a.shape) > 0 and bool(xp.any(a < 0))

    def mv_int_fits(self, value, dtype):
        """Whether the number ``value`` is an integer that ember int dtype ``dtype`` can hold."""
        info = self.xp.iinfo(self.native_dtype(dtype))
        try:
            as_int = int(value)
        except (OverflowError, ValueError):  # inf, nan
            return False
        return as_int == value and info.min <= as_int <= info.max
