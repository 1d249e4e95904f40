"""The components kernels, written once against ``self.xp`` (see ember/backends/base/__init__.py):
connected-component labelling and its statistics.

Labelling is a vectorized union-find over the foreground pixels: every pair of neighbouring
foreground pixels is an edge; each round hooks the larger root of every edge whose ends have
different roots onto the smaller one (a scatter-min, ``idx_update``), then compresses every path
by pointer jumping (``P = P[P]`` until stable) and drops the edges that became internal.
Pointers always go to a smaller pixel index, so the root of a component is its first pixel in
raster order, and labels numbered by their roots come out in raster order of their first pixel
(as OpenCV and ``scipy.ndimage.label``). Pointer jumping makes long thin shapes (snakes,
spirals) take a few rounds, not one round per pixel as plain min-label propagation would.
"""

from ... import dtypes


class ComponentsKernels:
    def _cc_edges(self, mask, eight):
        """Pairs ``(u, v)`` of flat indices of neighbouring foreground pixels, ``v`` after ``u``."""
        xp = self.xp
        h, w = mask.shape
        offsets = [(0, 1), (1, 0)] + ([(1, 1), (1, -1)] if eight else [])
        us, vs = [], []
        for dr, dc in offsets:  # 2 or 4 neighbour offsets, each handled for all pixels at once
            left, right = max(0, -dc), max(0, dc)
            r, c = xp.nonzero(mask[:h - dr, left:w - right] & mask[dr:, right:w - left])
            u = r * w + (c + left)
            us.append(u)
            vs.append(u + (dr * w + dc))
        return xp.concat(us), xp.concat(vs)

    def cc_label(self, mask, connectivity):
        """Labels of the connected components of a 2-D bool array (4 or 8 connectivity).

        Returns ``(labels, count)``: an int64 array of ``mask``'s shape, 0 on the background and
        1..count on the components, numbered in raster order of their first pixel.
        """
        xp = self.xp
        i64 = self.native_dtype(dtypes.int64)
        h, w = mask.shape
        flat = xp.reshape(mask, (-1,))
        n = int(xp.count_nonzero(flat))
        if n == 0:
            return xp.zeros((h, w), dtype=i64, device=self.native_device), 0
        # compact ids of the foreground pixels, in raster order (int32 where they fit: half the
        # memory traffic in the gathers below)
        idt = self.native_dtype(dtypes.int32 if h * w < 2**31 else dtypes.int64)
        cid = xp.cumulative_sum(xp.astype(flat, idt)) - 1
        u, v = self._cc_edges(mask, connectivity == 8)
        u, v = xp.take(cid, u), xp.take(cid, v)
        parent = xp.arange(n, dtype=idt, device=self.native_device)
        # one round per iteration; each hooks every edge between two trees, so the number of
        # rounds is small (logarithmic in practice) and the loop ends when no edge joins two trees
        while u.shape[0]:
            ru, rv = xp.take(parent, u), xp.take(parent, v)  # roots: parent is fully compressed
            cross = ru != rv
            if not bool(xp.all(cross)):
                u, v, ru, rv = u[cross], v[cross], ru[cross], rv[cross]
                if not u.shape[0]:
                    break
            key = self.idx_dim_key(xp.maximum(ru, rv), 0)
            parent = self.idx_update(parent, key, xp.minimum(ru, rv), "min")
            while True:  # pointer jumping: each step halves every path
                jumped = xp.take(parent, parent)
                if bool(xp.all(jumped == parent)):
                    break
                parent = jumped
        is_root = parent == xp.arange(n, dtype=idt, device=self.native_device)
        number = xp.cumulative_sum(xp.astype(is_root, i64))  # the label of each root, 1..count
        labels = xp.take(number, xp.take(parent, xp.clip(cid, 0, None)))
        labels = xp.where(flat, labels, xp.zeros((), dtype=i64, device=self.native_device))
        return xp.reshape(labels, (h, w)), int(number[-1])

    def cc_stats(self, labels, count, bounds, centroids):
        """Per-label statistics of a label image (label 0, the background, included).

        Returns a dict of arrays of length ``count + 1``: ``area`` always; ``left``, ``top``,
        ``right``, ``bottom``, ``width``, ``height`` (int64) when ``bounds``; ``centroids``
        (float64, shape (count + 1, 2), columns x and y) when ``centroids``. A label with no
        pixel (only the background can be one) has left = top = 0, right = bottom = -1,
        width = height = 0 and a NaN centroid.
        """
        xp = self.xp
        i64, f64 = self.native_dtype(dtypes.int64), self.native_dtype(dtypes.float64)
        h, w = labels.shape
        num = count + 1
        key = self.idx_dim_key(xp.reshape(labels, (-1,)), 0)
        ones = xp.ones((h * w,), dtype=i64, device=self.native_device)
        area = self.idx_add_into_zeros((num,), key, ones)
        out = {"area": area}
        if not (bounds or centroids):
            return out
        cols = xp.reshape(xp.broadcast_to(xp.arange(w, dtype=i64, device=self.native_device),
                                          (h, w)), (-1,))
        rows = xp.reshape(xp.broadcast_to(xp.arange(h, dtype=i64, device=self.native_device)
                                          [:, None], (h, w)), (-1,))
        if bounds:
            def extreme(start, values, op):
                full = xp.full((num,), start, dtype=i64, device=self.native_device)
                return self.idx_update(full, key, values, op)
            empty = area == 0
            zero = xp.zeros((), dtype=i64, device=self.native_device)
            left = xp.where(empty, zero, extreme(2**63 - 1, cols, "min"))
            top = xp.where(empty, zero, extreme(2**63 - 1, rows, "min"))
            right, bottom = extreme(-1, cols, "max"), extreme(-1, rows, "max")
            out.update(left=left, top=top, right=right, bottom=bottom,
                       width=right - left + 1, height=bottom - top + 1)
        if centroids:
            nan = xp.full((), float("nan"), dtype=f64, device=self.native_device)
            one = xp.ones((), dtype=f64, device=self.native_device)
            a = xp.where(area > 0, xp.astype(area, f64), one)  # an empty label's mean: NaN
            means = [xp.where(area > 0, self.idx_add_into_zeros((num,), key, xp.astype(t, f64))
                              / a, nan) for t in (cols, rows)]
            out["centroids"] = xp.stack(means, axis=1)
        return out
