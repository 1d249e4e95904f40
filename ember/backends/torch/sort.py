"""Torch kernels of the sort family: the NumPy backend's kernels of the same names and results.

Every sort here gives the stable sort's result (``sort_values`` runs torch's unstable sort on
the CPU where the bits are the same: no -0.0, no NaN); NaN sorts as the largest value, and a
descending sort keeps equal elements in their original order (the NumPy kernels' order: the
reversed tensor sorted ascending, reversed back). Wide unsigned ints sort through ``_ordered``.
"""

import torch

from .reduce import _HALF, _bits, _flip, _ordered, _unbits, _unordered

__all__ = ["sort_argsort", "sort_values", "sort_take", "sort_first", "sort_scatter_grad"]


# override: torch sorts no uint16/32/64 (the default fails there); 67 vs 77 µs (float32 (32, 64))
def sort_argsort(x, axis, descending=False):
    keys = _ordered(x)
    if not descending:
        return torch.sort(keys, dim=axis, stable=True)[1]
    n = x.shape[axis]
    idx = torch.sort(torch.flip(keys, (axis,)), dim=axis, stable=True)[1]
    return (n - 1) - torch.flip(idx, (axis,))


# override: the elements' bits (NaN payloads, uint16/32/64); 23 vs the default's 38 µs
def sort_take(x, idx, axis):
    return _unbits(torch.take_along_dim(_bits(x), idx, dim=axis), x.dtype)


# override: torch.sort's own values, no gather (half types and descending sorts: the default's)
def sort_values(x, axis, descending=False):
    if descending or x.dtype in _HALF:
        return sort_take(x, sort_argsort(x, axis, descending), axis)
    k = _ordered(x)  # unstable: the same bits without -0.0 or NaN (on the CPU: the check syncs)
    stable = k.is_floating_point() and k.numel() > 0 and (k.device.type != "cpu" or bool(
        k.max().isnan()) or int(_bits(k).min()) == torch.iinfo(_bits(k).dtype).min)  # (-0.0)
    return _unordered(torch.sort(k, dim=axis, stable=stable)[0], x.dtype)


# override: 1.6 vs the default's 6.1 µs (int64 (32, 64))
def sort_first(idx, k, axis):
    return idx.narrow(axis, 0, k)


# override: 14 vs the default's 283 µs (float32 (32, 64))
def sort_scatter_grad(g, idx, axis, shape):
    out = torch.zeros(shape, dtype=g.dtype, device=g.device)
    return out.scatter(axis, idx, g)
