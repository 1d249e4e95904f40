"""NumPy kernels of the vision components ops: connected-component labelling and its statistics.

Public names here are kernels (``be.NAME``); helpers start with ``_``.

Labelling is a vectorized union-find over the foreground pixels: every pair of neighbouring
foreground pixels is an edge; each round hooks the larger root of every edge whose ends have
different roots onto the smaller one (``np.minimum.at``), then compresses every path by pointer
jumping (``P = P[P]`` until stable) and drops the edges that became internal. Pointers always go
to a smaller pixel index, so the root of a component is its first pixel in raster order, and
labels numbered by their roots come out in raster order of their first pixel (as OpenCV and
``scipy.ndimage.label``). Pointer jumping makes long thin shapes (snakes, spirals) take a few
rounds, not one round per pixel as plain min-label propagation would.
"""

import numpy as np

__all__ = ["cc_label", "cc_stats"]


def _edges(mask, eight):
    """Pairs ``(u, v)`` of flat indices of neighbouring foreground pixels, ``v`` after ``u``."""
    h, w = mask.shape
    offsets = [(0, 1), (1, 0)] + ([(1, 1), (1, -1)] if eight else [])
    us, vs = [], []
    for dr, dc in offsets:  # 2 or 4 neighbour offsets, each handled for all pixels at once
        left, right = max(0, -dc), max(0, dc)
        a = mask[:h - dr, left:w - right]
        b = mask[dr:, right:w - left]
        r, c = np.nonzero(a & b)
        u = r * w + (c + left)
        us.append(u)
        vs.append(u + (dr * w + dc))
    return np.concatenate(us), np.concatenate(vs)


def cc_label(mask, connectivity):
    """Labels of the connected components of a 2-D bool array (4 or 8 connectivity).

    Returns ``(labels, count)``: an int64 array of ``mask``'s shape, 0 on the background and
    1..count on the components, numbered in raster order of their first pixel.
    """
    h, w = mask.shape
    flat = np.ascontiguousarray(mask).reshape(-1)
    out = np.zeros(h * w, dtype=np.int64)
    n = int(np.count_nonzero(flat))
    if n == 0:
        return out.reshape(h, w), 0
    # compact ids of the foreground pixels, in raster order (int32 where they fit: half the
    # memory traffic in the gathers below)
    idt = np.int32 if h * w < 2**31 else np.int64
    cid = np.cumsum(flat, dtype=idt) - 1
    u, v = _edges(np.asarray(mask), connectivity == 8)
    u, v = cid[u], cid[v]
    parent = np.arange(n, dtype=idt)
    # one round per iteration; each hooks every edge between two trees, so the number of rounds
    # is small (logarithmic in practice) and the loop ends when no edge joins two trees
    while u.size:
        ru, rv = parent[u], parent[v]  # roots: parent is fully compressed here
        cross = ru != rv
        if not cross.all():
            u, v, ru, rv = u[cross], v[cross], ru[cross], rv[cross]
            if not u.size:
                break
        np.minimum.at(parent, np.maximum(ru, rv), np.minimum(ru, rv))
        while True:  # pointer jumping: each step halves every path
            jumped = parent[parent]
            if np.array_equal(jumped, parent):
                break
            parent = jumped
    is_root = parent == np.arange(n, dtype=idt)
    number = np.cumsum(is_root, dtype=np.int64)  # the label of each root, 1..count
    out[flat] = number[parent]
    return out.reshape(h, w), int(number[-1])


def cc_stats(labels, count, bounds, centroids):
    """Per-label statistics of a label image (label 0, the background, included).

    Returns a dict of arrays of length ``count + 1``: ``area`` always; ``left``, ``top``,
    ``right``, ``bottom``, ``width``, ``height`` (int64) when ``bounds``; ``centroids`` (float64,
    shape (count + 1, 2), columns x and y) when ``centroids``. A label with no pixel (only the
    background can be one) has left = top = 0, right = bottom = -1, width = height = 0 and a
    NaN centroid.
    """
    h, w = labels.shape
    num = count + 1
    flat = labels.reshape(-1)
    area = np.bincount(flat, minlength=num).astype(np.int64)
    out = {"area": area}
    if not (bounds or centroids):
        return out
    cols = np.tile(np.arange(w, dtype=np.int64), h)
    rows = np.repeat(np.arange(h, dtype=np.int64), w)
    empty = area == 0
    if bounds:
        big = np.iinfo(np.int64).max
        left = np.full(num, big, dtype=np.int64)
        top = np.full(num, big, dtype=np.int64)
        right = np.full(num, -1, dtype=np.int64)
        bottom = np.full(num, -1, dtype=np.int64)
        np.minimum.at(left, flat, cols)
        np.minimum.at(top, flat, rows)
        np.maximum.at(right, flat, cols)
        np.maximum.at(bottom, flat, rows)
        left[empty] = 0
        top[empty] = 0
        out.update(left=left, top=top, right=right, bottom=bottom,
                   width=right - left + 1, height=bottom - top + 1)
    if centroids:
        with np.errstate(divide="ignore", invalid="ignore"):
            cx = np.bincount(flat, weights=cols.astype(np.float64), minlength=num) / area
            cy = np.bincount(flat, weights=rows.astype(np.float64), minlength=num) / area
        out["centroids"] = np.stack([cx, cy], axis=1)
    return out
