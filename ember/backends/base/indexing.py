"""The indexing kernels (see ember/backends/base/__init__.py).

An index *key* is a tuple of ints, slices, None, Ellipsis and int arrays read with NumPy's rules;
the ops build keys with the ``idx_*_key`` kernels and pass them back unopened. The standard has no
scatter: every kernel that writes at a key goes through the one required ``idx_scatter``; nothing
here writes into an array it was given.
"""

import math
import operator

from .declare import required


def _norm_slice(s, n):
    """``s`` on an axis of size ``n`` with its bounds in range (the standard refuses others)."""
    start, stop, step = s.indices(n)
    if not len(range(start, stop, step)):
        return slice(0, 0, 1)
    return slice(start, None if stop < 0 else stop, step)


class IndexingKernels:
    # -- index arrays ---------------------------------------------------------------------------
    def idx_bounds(self, a):
        """``(min, max)`` of an int array as Python ints, or None when it is empty."""
        if math.prod(a.shape) == 0:
            return None
        return int(self.xp.min(a)), int(self.xp.max(a))

    def idx_bounds_last(self, a):
        """Per column of the last axis: ``(mins, maxs)`` lists of Python ints, or None when
        empty."""
        if math.prod(a.shape) == 0:
            return None
        xp = self.xp
        flat = xp.reshape(a, (-1, a.shape[-1]))
        lo, hi = xp.min(flat, axis=0), xp.max(flat, axis=0)
        cols = range(a.shape[-1])
        return [int(lo[i]) for i in cols], [int(hi[i]) for i in cols]

    def idx_as_intp(self, a):
        """``a`` as an intp array (no copy when it already is one)."""
        return self.xp.astype(a, self.xp.int64, copy=False)

    def idx_is_integral(self, a):
        """Whether every element of a float array is a finite whole number."""
        xp = self.xp
        return bool(xp.all(xp.isfinite(a) & (xp.floor(a) == a)))

    def idx_zero_index(self, shape):
        """An intp array of zeros of ``shape`` (no elements for an empty list key)."""
        return self.xp.zeros(shape, dtype=self.xp.int64, device=self.native_device)

    def idx_nonzero(self, a):
        """The indices of the nonzero elements, one int64 array per dim."""
        xp = self.xp
        return [xp.astype(i, xp.int64, copy=False) for i in xp.nonzero(a)]

    def idx_argwhere(self, a):
        """The indices of the nonzero elements, one row (int64) per element."""
        xp = self.xp
        if a.ndim == 0:
            count = int(xp.count_nonzero(a))
            return xp.zeros((count, 0), dtype=xp.int64, device=self.native_device)
        return xp.stack(self.idx_nonzero(a), axis=-1)

    def idx_scalar_index(self, value):
        """A 0-d or one-element int array as a Python int."""
        return int(self.xp.reshape(value, ()))

    # -- keys -----------------------------------------------------------------------------------
    def idx_dim_key(self, index, axis):
        """The key selecting ``index`` (any shape) along ``axis``: NumPy's ``take`` layout."""
        return (slice(None),) * axis + (index,)

    def idx_along_key(self, index, axis):
        """The key of ``take_along_axis``: ``index`` on ``axis``, aranges broadcast on the
        others."""
        xp, nd = self.xp, index.ndim
        key = []
        for d, n in enumerate(index.shape):
            if d == axis:
                key.append(index)
            else:  # arange(n) on dim d, unit dims elsewhere
                ramp = xp.arange(n, dtype=xp.int64, device=self.native_device)
                key.append(ramp[tuple([slice(None) if k == d else None for k in range(nd)])])
        return tuple(key)

    def idx_nd_key(self, indices):
        """The key of ``gather_nd``: column ``k`` of the last axis indexes dim ``k``."""
        return tuple(self.xp.unstack(indices, axis=-1))

    def idx_lead_key(self, batch_shape):
        """The key that picks index 0 of a leading unit axis once per batch element."""
        return (self.xp.zeros(tuple(batch_shape), dtype=self.xp.int64, device=self.native_device),)

    def idx_lead(self, x):
        """``x`` with a leading unit axis (a view)."""
        return x[None, ...]

    def idx_unlead(self, x):
        """``x`` without its leading unit axis (a view)."""
        return x[0, ...]

    # -- forward kernels ------------------------------------------------------------------------
    def idx_index(self, x, key):
        """``x[key]`` by NumPy's rules (ints, slices, None, Ellipsis, int and bool arrays), through
        the standard's basic indexing and ``take``; an index out of range raises IndexError."""
        xp = self.xp
        key = key if isinstance(key, tuple) else (key,)
        used = sum(0 if k is None or k is Ellipsis else
                   k.ndim if isinstance(k, self.Array) and xp.isdtype(k.dtype, "bool") else 1
                   for k in key)
        at = next((i for i, k in enumerate(key) if k is Ellipsis), len(key))
        key = key[:at] + (slice(None),) * (x.ndim - used) + key[at + 1:]
        entries = []  # (kind, value): "none", "slice", "int", "array" or "unit" (a new axis)
        for k in key:
            if isinstance(k, self.Array):
                if xp.isdtype(k.dtype, "bool") and k.ndim == 0:  # a new axis of size 1 or 0
                    entries.append(("unit", xp.nonzero(xp.reshape(k, (1,)))[0]))
                elif xp.isdtype(k.dtype, "bool"):
                    entries.extend(("array", i) for i in xp.nonzero(k))
                else:
                    entries.append(("array", k))
            elif k is None or isinstance(k, slice):
                entries.append(("none" if k is None else "slice", k))
            else:
                entries.append(("int", operator.index(k)))
        advanced = any(kind in ("array", "unit") for kind, _ in entries)
        basic, adv, d = [], [], 0
        for kind, k in entries:
            if kind == "none":
                basic.append(None)
                continue
            if kind == "unit":
                adv.append((len(basic), k, 1))
                basic.append(None)
                continue
            n = x.shape[d]
            if kind == "slice":
                basic.append(_norm_slice(k, n))
            elif not advanced:
                if not -n <= k < n:
                    raise IndexError(f"index {k} is out of range for an axis of size {n}")
                basic.append(k)
            else:
                adv.append((len(basic), k, n))
                basic.append(slice(None))
            d += 1
        y = x[tuple(basic) + (Ellipsis,)]
        if not advanced:
            return y
        return self._take_advanced(y, adv)

    def _take_advanced(self, y, adv):
        """``y`` indexed by ``adv``, ``(axis, int or int array, size)`` per advanced entry of the
        key (the others already applied as full slices), with NumPy's placement of the index
        axes: where the first one was when the entries are adjacent, else in front."""
        xp = self.xp
        axes = [a for a, _, _ in adv]
        idx = [xp.asarray(i, dtype=xp.int64, device=self.native_device) if isinstance(i, int)
               else xp.astype(i, xp.int64) for _, i, _ in adv]
        idx = xp.broadcast_arrays(*idx) if len(idx) > 1 else idx
        bshape = tuple(idx[0].shape)
        rest = [a for a in range(y.ndim) if a not in axes]
        y = xp.permute_dims(y, tuple(axes + rest))
        flat, linear = 1, None
        for (_, _, n), i in zip(reversed(adv), reversed(idx)):
            if math.prod(i.shape) and bool(xp.any((i < -n) | (i >= n))):
                raise IndexError(f"index out of range for an axis of size {n}")
            term = xp.where(i < 0, i + n, i) * flat
            linear = term if linear is None else linear + term
            flat *= n
        rest_shape = tuple(y.shape[len(axes):])
        y = xp.reshape(y, (flat,) + rest_shape)
        out = xp.take(y, xp.reshape(linear, (-1,)), axis=0)
        out = xp.reshape(out, bshape + rest_shape)
        if axes == list(range(axes[0], axes[0] + len(axes))) and axes[0]:
            nb, p = len(bshape), axes[0]
            order = list(range(nb, nb + p)) + list(range(nb)) + list(range(nb + p, out.ndim))
            out = xp.permute_dims(out, tuple(order))
        return out

    def idx_get(self, x, key):
        """``x[key]``: a view for basic keys, a new array for advanced ones (always an array)."""
        out = self.idx_index(x, key)
        return out if isinstance(out, self.Array) else self.xp.asarray(out)

    def idx_gather(self, x, key):
        """``x[key]`` for a key of ``idx_along_key``; an index out of range raises IndexError."""
        return self.idx_index(x, key)

    @required
    def idx_scatter(self, target, key, values, op):
        """``target`` with ``values`` (broadcast) combined at ``key`` by ``op``: assign, add, mul,
        min or max; repeated positions accumulate (assign: the last wins); on bools add and max
        are or, mul and min are and. ``target`` is a fresh array the caller gives up: a backend
        may write into it and return it. The standard has no scatter: the one primitive behind
        every kernel here that writes at a key."""

    def idx_update(self, x, key, values, op):
        """A copy of ``x`` with ``values`` combined at ``key`` by ``op`` (``idx_scatter``'s)."""
        return self.idx_scatter(self.copy(x), key, values, op)

    def idx_where(self, cond, a, b):
        """``a`` where ``cond`` else ``b`` (broadcasting)."""
        return self.xp.where(cond, a, b)

    def idx_mask_select(self, x, mask):
        """The elements of ``x`` where ``mask`` (same shape) is true, flattened in order."""
        return self.idx_index(x, (mask,))

    @required
    def idx_one_hot(self, index, num_classes, on_value, off_value, axis, dtype):
        """One-hot of an intp array (non-negative, in range) with the class axis at ``axis``; ember
        ``dtype``. Required: the op passes ``op=`` for the backend's typed allocation error."""

    def idx_wrap_negative(self, index, n):
        """``index`` with negative entries shifted up by ``n`` (Python's wrap)."""
        return self.xp.where(index < 0, index + n, index)

    def idx_reshape(self, a, shape):
        """``a`` with ``shape``."""
        return self.xp.reshape(a, tuple(shape))

    def idx_logical_not(self, a):
        """Element-wise not."""
        return self.xp.logical_not(a)

    # -- gradient kernels -----------------------------------------------------------------------
    def idx_zero_at(self, g, key):
        """A copy of ``g`` with zeros at ``key``."""
        return self.idx_update(g, key, 0, "assign")

    def _zeros_like_shape(self, shape, g):
        return self.xp.zeros(tuple(shape), dtype=g.dtype, device=self.native_device)

    def idx_add_into_zeros(self, shape, key, g):
        """Zeros of ``shape`` with ``g`` added at ``key`` (repeated positions accumulate)."""
        return self.idx_scatter(self._zeros_like_shape(shape, g), key, g, "add")

    def idx_masked(self, g, mask):
        """``g`` where ``mask`` else 0."""
        xp = self.xp
        return xp.where(mask, g, xp.zeros((), dtype=g.dtype, device=self.native_device))

    def idx_mask_select_grad(self, g, mask, shape):
        """Zeros of ``shape`` with ``g`` at the true positions of ``mask``."""
        return self.idx_scatter(self._zeros_like_shape(shape, g), (mask,), g, "assign")

    def idx_mul_grad(self, g, x, values, out, key):
        """Gradients of a mul update (``torch.scatter_reduce``'s "prod" rule, zeros included)."""
        xp, scatter, get = self.xp, self.idx_scatter, self.idx_get
        gx = g * scatter(xp.ones_like(x), key, values, "mul")
        vzero = values == 0
        nzero = scatter(self._zeros_like_shape(x.shape, g), key, xp.astype(vzero, g.dtype), "add")
        single = vzero & (get(nzero, key) == 1)
        one = xp.ones((), dtype=values.dtype, device=self.native_device)
        res_masked = scatter(self.copy(x), key, xp.where(single, one, values), "mul")
        safe = xp.where(vzero, one, values)
        gv = xp.where(single, get(g * res_masked, key), get(g * out, key) / safe)
        return xp.astype(gx, g.dtype, copy=False), xp.astype(gv, g.dtype, copy=False)

    # -- advanced indexing (__getitem__ / __setitem__) ------------------------------------------
    def idx_expand(self, x, axes):
        """``x`` with unit axes inserted at ``axes`` (positions in the result; a view)."""
        if not axes:
            return x
        return x[tuple([None if i in axes else slice(None)
                        for i in range(x.ndim + len(axes))])]

    def idx_adv_get(self, x, int_key, axes, key):
        """``x[int_key]`` (basic), unit axes at ``axes``, then ``[key]`` (NumPy's rules)."""
        if int_key is not None:
            x = self.idx_index(x, int_key)
        if axes:
            x = self.idx_expand(x, axes)
        return self.idx_get(x, key)

    def _adv_scatter(self, target, int_key, axes, key, values, op):
        """``idx_scatter`` at the key of ``idx_adv_get``: the region ``target[int_key]`` (unit axes
        at ``axes``) is copied, scattered into, and assigned back."""
        if int_key is None and not axes:
            return self.idx_scatter(target, key, values, op)
        region = self.idx_index(target, int_key) if int_key is not None else target
        shape = region.shape
        region = self.idx_scatter(self.idx_expand(self.copy(region), axes), key, values, op)
        if axes:
            region = self.xp.reshape(region, shape)
        if int_key is None:
            return region
        return self.idx_scatter(target, int_key, region, "assign")

    def idx_adv_grad(self, g, shape, int_key, axes, key, advanced):
        """The gradient of ``idx_adv_get``: zeros of ``shape`` with ``g`` added back at the key."""
        return self._adv_scatter(self._zeros_like_shape(shape, g), int_key, axes, key, g,
                                 "add" if advanced else "assign")

    def idx_adv_set(self, x, int_key, axes, key, value):
        """A copy of ``x`` with ``value`` (broadcast) written at the key of ``idx_adv_get``."""
        return self._adv_scatter(self.copy(x), int_key, axes, key, value,
                                 "assign")

    def idx_adv_zero(self, g, int_key, axes, key):
        """A copy of ``g`` with zeros at the key of ``idx_adv_get``."""
        return self.idx_adv_set(g, int_key, axes, key, 0)
