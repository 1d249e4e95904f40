"""The indexing kernels (see ember/backends/base/__init__.py).

An index *key* is a tuple of ints, slices, None, Ellipsis and int arrays read with NumPy's rules;
the ops build keys with the ``idx_*_key`` kernels and pass them back unopened. The standard has no
scatter: every kernel that writes at a key goes through the one required ``idx_scatter``; nothing
here writes into an array it was given.
"""

import math

from .declare import required


def _is_mask(xp, array_type, k):
    return isinstance(k, array_type) and k.dtype == xp.bool


def _in_bounds(s, n):
    """``(start, stop, step)`` of slice ``s`` on a dim of ``n`` with start and stop in bounds."""
    start, stop, step = s.indices(n)
    return start, (None if stop < 0 else stop), step


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

    def _std_get(self, x, key):
        """``x[key]`` by NumPy's rules through keys the standard reads the same: every dim
        indexed, slices within bounds, integer arrays only beside integer arrays (a slice then
        an arange placed where NumPy puts its dim), a boolean array as its ``nonzero`` unless it
        is the whole key."""
        xp = self.xp
        key = key if isinstance(key, tuple) else (key,)
        if len(key) == 1 and _is_mask(xp, self.Array, key[0]) and key[0].ndim == x.ndim:
            return x[key]
        parts = []
        for k in key:
            if _is_mask(xp, self.Array, k) and k.ndim:
                parts.extend(xp.nonzero(k))
            else:
                parts.append(k)
        used = sum(k is not None and k is not Ellipsis for k in parts)
        rest = [slice(None)] * (x.ndim - used)
        dots = [i for i, k in enumerate(parts) if k is Ellipsis]
        if dots:
            parts[dots[0]:dots[0] + 1] = rest
        else:
            parts.extend(rest)
        if not any(isinstance(k, self.Array) for k in parts):
            dims = iter(x.shape)
            sizes = [None if k is None else next(dims) for k in parts]
            return x[tuple(slice(*_in_bounds(k, n)) if isinstance(k, slice) else k
                           for k, n in zip(parts, sizes))]
        if any(k is None for k in parts):  # the new unit axes first, then a full slice of each
            x = x[tuple(parts[i] if parts[i] is None else slice(None) for i in range(len(parts)))]
            parts = [slice(None) if k is None else k for k in parts]
        adv = [i for i, k in enumerate(parts) if not isinstance(k, slice)]
        if len(adv) == 1 and all(k == slice(None) for k in parts if isinstance(k, slice)):
            at, index = adv[0], parts[adv[0]]
            if isinstance(index, self.Array) and index.ndim:
                out = xp.take(x, xp.reshape(index, (-1,)), axis=at)
                return xp.reshape(out, x.shape[:at] + index.shape + x.shape[at + 1:])
        return x[self._all_int_key(parts, x.shape, adv)]

    def _all_int_key(self, parts, shape, adv):
        """The all-integer-array key of ``parts`` (ints, slices and int arrays, one per dim of
        ``shape``; ``adv`` the positions of the ints and arrays) with NumPy's result layout."""
        xp, dev = self.xp, self.native_device
        shaped = xp.broadcast_arrays(*[parts[i] if isinstance(parts[i], self.Array) else
                                       xp.asarray(parts[i], dtype=xp.int64, device=dev)
                                       for i in adv])
        bshape = tuple(shaped[0].shape)
        others = [i for i in range(len(parts)) if i not in adv]
        at = sum(i < adv[0] for i in others) if adv == list(range(adv[0], adv[-1] + 1)) else 0
        rank = len(bshape) + len(others)
        lead = (1,) * at + bshape + (1,) * (rank - at - len(bshape))
        out = {i: xp.reshape(a, lead) for i, a in zip(adv, shaped)}
        for p, i in enumerate(others):
            p = p if p < at else p + len(bshape)
            ramp = xp.arange(*parts[i].indices(shape[i]), dtype=xp.int64, device=dev)
            out[i] = xp.reshape(ramp, tuple(ramp.shape[0] if d == p else 1 for d in range(rank)))
        return tuple(out[i] for i in range(len(parts)))

    # -- forward kernels ------------------------------------------------------------------------
    def idx_get(self, x, key):
        """``x[key]``: a view for basic keys, a new array for advanced ones (always an array)."""
        out = self._std_get(x, key)
        return out if isinstance(out, self.Array) else self.xp.asarray(out)

    def idx_gather(self, x, key):
        """``x[key]`` for a key of ``idx_along_key``; an index out of range raises IndexError."""
        return self.idx_get(x, key)

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
        return x[mask]

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
            x = self.idx_get(x, int_key)
        if axes:
            x = self.idx_expand(x, axes)
        return self.idx_get(x, key)

    def _adv_scatter(self, target, int_key, axes, key, values, op):
        """``idx_scatter`` at the key of ``idx_adv_get``: the region ``target[int_key]`` (unit axes
        at ``axes``) is copied, scattered into, and assigned back."""
        if int_key is None and not axes:
            return self.idx_scatter(target, key, values, op)
        region = self.idx_get(target, int_key) if int_key is not None else target
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
