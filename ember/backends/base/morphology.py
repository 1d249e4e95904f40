"""The morphology kernels, written once against ``self.xp`` (see ember/backends/base/__init__.py).

Images are (H, W, C) arrays; the structuring element is a 2-D bool array. Erosion is the
minimum, dilation the maximum, of the shifted padded views at the element's True cells. The
border is read through index maps (NumPy's ``pad`` modes, pads longer than the image included).
Unsigned ints wider than 8 bits compute in an order-preserving int64 form (exact): torch has no
minimum or maximum for them on the CPU.
"""

from ... import dtypes


class MorphologyKernels:
    def morph_int_range(self, dtype):
        """(min, max) of the ember int dtype ``dtype``, as Python ints."""
        info = self.xp.iinfo(self.native_dtype(dtype))
        return int(info.min), int(info.max)

    def morph_has_true(self, kernel):
        """Whether the bool array ``kernel`` has at least one True cell."""
        return bool(self.xp.any(kernel))

    def _morph_fill(self, dtype, op):
        """OpenCV's default constant border for the ember ``dtype``: a value that never wins
        the min (erode) or max."""
        if dtype.kind == "bool":
            return op == "erode"
        if dtype.kind == "int":
            lo, hi = self.morph_int_range(dtype)
            return hi if op == "erode" else lo
        return float("inf") if op == "erode" else float("-inf")

    def _morph_index(self, n, before, after, border):
        """Source indices of positions ``-before .. n + after - 1`` of a length-``n`` axis under
        ``border`` (NumPy's pad modes, repeated for pads longer than the axis)."""
        xp = self.xp
        i = xp.arange(-before, n + after, dtype=self.native_dtype(dtypes.int64),
                      device=self.native_device)
        if border == "replicate":
            return xp.clip(i, 0, n - 1)
        if border == "wrap":
            return xp.remainder(i, n)
        if border == "reflect":  # NumPy's "symmetric": the edge is repeated
            j = xp.remainder(i, 2 * n)
            return xp.where(j < n, j, 2 * n - 1 - j)
        if n == 1:  # reflect101 (NumPy's "reflect") of one element
            return xp.zeros_like(i)
        j = xp.remainder(i, 2 * n - 2)
        return xp.where(j < n, j, 2 * n - 2 - j)

    def _morph_pad(self, x, pads, border, fill):
        """``x`` (H, W, C) padded by ``pads`` ((top, bottom), (left, right)) under ``border``."""
        xp = self.xp
        (top, bottom), (left, right) = pads
        H, W, C = x.shape
        if border != "constant":
            x = xp.take(x, self._morph_index(H, top, bottom, border), axis=0)
            return xp.take(x, self._morph_index(W, left, right, border), axis=1)
        def full(h, w):
            return xp.full((h, w, C), fill, dtype=x.dtype, device=self.native_device)
        x = xp.concat([full(H, left), x, full(H, right)], axis=1)
        return xp.concat([full(top, W + left + right), x, full(bottom, W + left + right)], axis=0)

    def morph_apply(self, x, kernel, anchor, iterations, op, border, value):
        """Erode (``op == "erode"``, the minimum) or dilate (the maximum) ``x`` (H, W, C).

        ``out[y, x] = min/max over kernel[i, j] of src[y + i - anchor[0], x + j - anchor[1]]``,
        ``iterations`` times; the source is padded by ``border`` (ember's names: constant,
        replicate, reflect, reflect101, wrap) with ``value`` for constant (None: the value that
        never wins). NaN propagates. Returns a new array; ``x`` is never written.
        """
        xp = self.xp
        if iterations == 0 or 0 in x.shape:
            return xp.asarray(x, copy=True)
        if self.dtype_of(x).kind == "bool":  # the standard's minimum and maximum take numbers
            reduce = xp.logical_and if op == "erode" else xp.logical_or
        else:
            reduce = xp.minimum if op == "erode" else xp.maximum
        rows, cols = xp.nonzero(kernel)
        offsets = [(int(rows[k]), int(cols[k])) for k in range(rows.shape[0])]
        kh, kw = kernel.shape
        ay, ax = anchor
        pads = ((ay, kh - 1 - ay), (ax, kw - 1 - ax))
        fill = self._morph_fill(self.dtype_of(x), op) if value is None else value
        H, W = x.shape[0], x.shape[1]
        dtype, i64 = x.dtype, self.native_dtype(dtypes.int64)
        wide = [self.native_dtype(d) for d in (dtypes.uint16, dtypes.uint32, dtypes.uint64)]
        top = xp.asarray(-2 ** 63, dtype=i64, device=self.native_device)
        out = x
        for _ in range(iterations):  # a loop over the iterations
            work = self._morph_pad(out, pads, border, fill)
            if dtype in wide:  # int64 in the same order (uint64: its top bit flipped)
                work = xp.astype(work, i64)
                work = work ^ top if dtype == wide[2] else work
            acc = work[offsets[0][0]:offsets[0][0] + H, offsets[0][1]:offsets[0][1] + W, ...]
            for i, j in offsets[1:]:  # a loop over the kernel's True cells, not over pixels
                acc = reduce(acc, work[i:i + H, j:j + W, ...])
            if dtype in wide:
                acc = xp.astype(acc ^ top if dtype == wide[2] else acc, dtype)
            out = xp.asarray(acc, copy=True) if len(offsets) == 1 else acc
        return out
