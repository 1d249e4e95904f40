"""Torch kernels of the vision morphology ops (``ember/vision/morphology.py``): the same names
and meanings as the NumPy backend's.

Images are (H, W, C) tensors; the structuring element is a 2-D bool tensor. Erosion is the
minimum, dilation the maximum, of the shifted padded views at the element's True cells. The
border is read through index maps (NumPy's ``pad`` modes, pads longer than the image
included), so every dtype and device works the same way. torch has no minimum/maximum for
uint16/32/64 on the CPU: those compute in an order-preserving signed view (exact).
"""

import torch

from .core import TORCH

__all__ = ["morph_apply", "morph_int_range", "morph_has_true"]

_UNSIGNED = (torch.uint16, torch.uint32, torch.uint64)


def morph_int_range(dtype):
    """(min, max) of the ember int dtype ``dtype``, as Python ints."""
    info = torch.iinfo(TORCH[dtype])
    return int(info.min), int(info.max)


def morph_has_true(kernel):
    """Whether the bool tensor ``kernel`` has at least one True cell."""
    return bool(kernel.any())


def _border_default(dtype, op):
    """OpenCV's default constant border: a value that never wins the min (erode) or max."""
    if dtype == torch.bool:
        return op == "erode"
    if not dtype.is_floating_point:
        info = torch.iinfo(dtype)
        return int(info.max) if op == "erode" else int(info.min)
    return float("inf") if op == "erode" else float("-inf")


def _index_map(n, before, after, border, device):
    """Source indices of positions ``-before .. n + after - 1`` of a length-``n`` axis under
    ``border`` (NumPy's pad modes, repeated for pads longer than the axis); None for constant."""
    i = torch.arange(-before, n + after, device=device)
    if border == "replicate":
        return i.clamp(0, n - 1)
    if border == "wrap":
        return torch.remainder(i, n)
    if border == "reflect":  # NumPy's "symmetric": the edge is repeated
        j = torch.remainder(i, 2 * n)
        return torch.where(j < n, j, 2 * n - 1 - j)
    if n == 1:  # reflect101 (NumPy's "reflect") of one element
        return torch.zeros_like(i)
    j = torch.remainder(i, 2 * n - 2)
    return torch.where(j < n, j, 2 * n - 2 - j)


def _pad(x, pads, border, fill):
    """``x`` (H, W, C) padded by ``pads`` ((top, bottom), (left, right)) under ``border``."""
    (top, bottom), (left, right) = pads
    H, W = x.shape[0], x.shape[1]
    if border == "constant":
        out = torch.full((H + top + bottom, W + left + right, x.shape[2]), fill, dtype=x.dtype,
                         device=x.device)
        out[top:top + H, left:left + W] = x
        return out
    rows = _index_map(H, top, bottom, border, x.device)
    cols = _index_map(W, left, right, border, x.device)
    return x.index_select(0, rows).index_select(1, cols)


def _ordered(x):
    """``(view, back)``: ``x`` as a dtype torch can take the minimum of, with the same order,
    and the function that turns a result back (uint16/32 widen to int64; uint64's bits flip their
    top bit and read as int64)."""
    if x.dtype not in _UNSIGNED:
        return x, None
    if x.dtype != torch.uint64:
        dtype = x.dtype
        return x.to(torch.int64), lambda r: r.to(dtype)
    top = torch.tensor(-2 ** 63, dtype=torch.int64, device=x.device)
    return (x.view(torch.int64) ^ top), lambda r: (r ^ top).view(torch.uint64)


def morph_apply(x, kernel, anchor, iterations, op, border, value):
    """Erode (``op == "erode"``, the minimum) or dilate (the maximum) ``x`` (H, W, C): as the
    NumPy kernel. Returns a new tensor; ``x`` is never written."""
    if iterations == 0 or x.numel() == 0:
        return x.clone()
    reduce = torch.minimum if op == "erode" else torch.maximum
    offsets = [tuple(int(v) for v in o) for o in torch.nonzero(kernel).tolist()]
    kh, kw = kernel.shape
    ay, ax = anchor
    pads = ((ay, kh - 1 - ay), (ax, kw - 1 - ax))
    fill = _border_default(x.dtype, op) if value is None else value
    H, W = x.shape[0], x.shape[1]
    out = x
    for _ in range(iterations):  # a loop over the iterations
        padded = _pad(out, pads, border, fill)
        work, back = _ordered(padded)
        acc = None
        for i, j in offsets:  # a loop over the kernel's True cells, not over pixels
            view = work[i:i + H, j:j + W]
            acc = view.clone() if acc is None else reduce(acc, view)
        out = acc if back is None else back(acc)
    return out
