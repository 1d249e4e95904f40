"""Torch kernels of the vision components ops: connected-component labelling and its statistics
(the same names, results and numbering as the NumPy backend's).

Labelling is the NumPy kernel's vectorized union-find over the foreground pixels: each round
hooks the larger root of every edge whose ends have different roots onto the smaller one
(``scatter_reduce`` with ``amin``), then compresses every path by pointer jumping, so the root
of a component is its first pixel in raster order and labels come out in raster order of their
first pixel (as OpenCV and ``scipy.ndimage.label``).
"""

import torch

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
        r, c = torch.nonzero(a & b, as_tuple=True)
        u = r * w + (c + left)
        us.append(u)
        vs.append(u + (dr * w + dc))
    return torch.cat(us), torch.cat(vs)


def cc_label(mask, connectivity):
    """Labels of the connected components of a 2-D bool tensor (4 or 8 connectivity).

    Returns ``(labels, count)``: an int64 tensor of ``mask``'s shape, 0 on the background and
    1..count on the components, numbered in raster order of their first pixel.
    """
    h, w = mask.shape
    device = mask.device
    flat = mask.reshape(-1)
    out = torch.zeros(h * w, dtype=torch.int64, device=device)
    n = int(torch.count_nonzero(flat))
    if n == 0:
        return out.reshape(h, w), 0
    cid = torch.cumsum(flat, 0, dtype=torch.int64) - 1
    u, v = _edges(mask, connectivity == 8)
    u, v = cid[u], cid[v]
    parent = torch.arange(n, dtype=torch.int64, device=device)
    while u.numel():  # one round per iteration, until no edge joins two trees
        ru, rv = parent[u], parent[v]  # roots: parent is fully compressed here
        cross = ru != rv
        if not bool(cross.all()):
            u, v, ru, rv = u[cross], v[cross], ru[cross], rv[cross]
            if not u.numel():
                break
        parent = parent.scatter_reduce(0, torch.maximum(ru, rv), torch.minimum(ru, rv), "amin")
        while True:  # pointer jumping: each step halves every path
            jumped = parent[parent]
            if torch.equal(jumped, parent):
                break
            parent = jumped
    is_root = parent == torch.arange(n, dtype=torch.int64, device=device)
    number = torch.cumsum(is_root, 0, dtype=torch.int64)  # the label of each root, 1..count
    out[flat] = number[parent]
    return out.reshape(h, w), int(number[-1])


def cc_stats(labels, count, bounds, centroids):
    """Per-label statistics of a label image (label 0, the background, included): as the NumPy
    kernel (a dict of tensors of length ``count + 1``)."""
    h, w = labels.shape
    device = labels.device
    num = count + 1
    flat = labels.reshape(-1)
    area = torch.bincount(flat, minlength=num).to(torch.int64)
    out = {"area": area}
    if not (bounds or centroids):
        return out
    cols = torch.arange(w, dtype=torch.int64, device=device).repeat(h)
    rows = torch.arange(h, dtype=torch.int64, device=device).repeat_interleave(w)
    empty = area == 0
    if bounds:
        big = torch.iinfo(torch.int64).max
        left = torch.full((num,), big, dtype=torch.int64, device=device)
        top = torch.full((num,), big, dtype=torch.int64, device=device)
        right = torch.full((num,), -1, dtype=torch.int64, device=device)
        bottom = torch.full((num,), -1, dtype=torch.int64, device=device)
        left = left.scatter_reduce(0, flat, cols, "amin")
        top = top.scatter_reduce(0, flat, rows, "amin")
        right = right.scatter_reduce(0, flat, cols, "amax")
        bottom = bottom.scatter_reduce(0, flat, rows, "amax")
        left = left.masked_fill(empty, 0)
        top = top.masked_fill(empty, 0)
        out.update(left=left, top=top, right=right, bottom=bottom,
                   width=right - left + 1, height=bottom - top + 1)
    if centroids:
        # (an empty image's bincount comes back as float32: cast)
        sx = torch.bincount(flat, weights=cols.to(torch.float64), minlength=num).double()
        sy = torch.bincount(flat, weights=rows.to(torch.float64), minlength=num).double()
        out["centroids"] = torch.stack([sx / area, sy / area], dim=1)
    return out
