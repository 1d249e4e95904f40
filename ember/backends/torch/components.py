"""Torch kernels of the components family; ``cc_label`` is written once in
ember/backends/base/components.py."""

import torch

__all__ = ["cc_stats"]


# override: 1000 vs the default's 8200 µs (256x256 random mask: bincount and scatter_reduce)
def cc_stats(labels, count, bounds, centroids):
    """Per-label statistics of a label image (label 0, the background, included): as the
    default (a dict of tensors of length ``count + 1``)."""
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
