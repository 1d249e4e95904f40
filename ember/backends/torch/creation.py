"""Torch kernels of the creation, data-out and display families (the same names, arguments and
results as the NumPy backend's). Kernels that make a buffer from nothing take ``device`` (a
``torch.device``), which the kernel table binds."""

import math

import torch

from .core import TORCH, allocates, dtype_of, to_host

__all__ = [ "creation_full", "creation_zeros",
           "creation_fill_value_fits", "creation_arange", "creation_arange_length",
           "creation_linspace", "creation_eye", "creation_tri_mask", "creation_tri_keep",
           "creation_cartesian_grid", "data_reshape_copy", "data_flat_list", "data_can_mut",
           "display_edges", "display_strings"]

_MAX_BYTES = 2 ** 63 - 1
_UNSIGNED_WIDE = (torch.uint16, torch.uint32, torch.uint64)


def _first(shape, *args, **kwargs):
    return shape


# -- creation -----------------------------------------------------------------------------------

@allocates(_first)
def creation_full(shape, value, dtype, *, device=None):
    """A new tensor of ``shape`` filled with ``value`` (already checked to fit ``dtype``)."""
    target = TORCH[dtype]
    if target is torch.uint64 and value > 2 ** 63 - 1:  # past int64: fill its bits
        return torch.full(shape, value - 2 ** 64, dtype=torch.int64, device=device).view(target)
    return torch.full(shape, value, dtype=target, device=device)


@allocates(_first)
def creation_zeros(shape, dtype, *, device=None):
    """A new zero-filled tensor."""
    return torch.zeros(shape, dtype=TORCH[dtype], device=device)


def creation_fill_value_fits(value, dtype):
    """Whether the Python number ``value`` converts to ember ``dtype`` without loss of its
    integral value or overflow (floats may round; bool takes 0 and 1 only)."""
    target = TORCH[dtype]
    if target is torch.bool:
        return value == 0 or value == 1
    if not target.is_floating_point:
        if isinstance(value, float):
            if not math.isfinite(value) or value != int(value):
                return False
            value = int(value)
        bits = dtype.itemsize * 8
        lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if dtype.is_signed else (0, 2 ** bits - 1)
        return lo <= value <= hi
    try:
        as_float = float(value)
    except OverflowError:
        return False
    if not math.isfinite(as_float) or abs(as_float) <= torch.finfo(target).max:
        return True
    return bool(torch.isfinite(torch.tensor(as_float, dtype=torch.float64).to(target)))


@allocates()
def creation_arange(start, end, step, dtype, is_float, *, device=None):
    """``[start, end)`` by ``step`` as ``dtype``; float ranges are computed in float64 as
    ``start + i * step`` with ``ceil((end - start) / step)`` values (PyTorch's rule)."""
    if is_float:
        n = max(0, math.ceil((end - start) / step))
        out = start + torch.arange(n, dtype=torch.float64, device=device) * step
    else:
        # exact at int64's ends (torch sizes a range in float64 and refuses empty ones): the
        # length in Python ints, each value start + i * step in wrapping int64 arithmetic
        out = torch.arange(creation_arange_length(start, end, step, False), dtype=torch.int64,
                           device=device)
        if step != 1:
            out.mul_((step + 2 ** 63) % 2 ** 64 - 2 ** 63)
        if start:
            out.add_(start)
    return out.to(TORCH[dtype])


def creation_arange_length(start, end, step, is_float):
    """The number of values ``creation_arange`` would make."""
    if is_float:
        return max(0, math.ceil((end - start) / step))
    return max(0, -((start - end) // step))


@allocates(lambda start, end, steps, dtype, **kwargs: (steps,))
def creation_linspace(start, end, steps, dtype, *, device=None):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive, computed in float64
    from both ends as PyTorch does (complex ends: both parts so), then converted to ``dtype``
    (a complex dtype for complex ends)."""
    target = TORCH[dtype]
    if steps == 1:
        wide = torch.complex128 if dtype.kind == "complex" else torch.float64
        return torch.full((1,), start, dtype=wide, device=device).to(target)
    i = torch.arange(steps, dtype=torch.float64, device=device)
    step = (end - start) / (steps - 1)
    half = steps // 2
    out = torch.where(i < half, start + i * step, end - (steps - 1 - i) * step)
    return out.to(target)


@allocates(lambda n, m, dtype, **kwargs: (n, m))
def creation_eye(n, m, dtype, *, device=None):
    """An ``n`` by ``m`` tensor with ones on the main diagonal."""
    return torch.eye(n, m, dtype=torch.bool, device=device).to(TORCH[dtype])


def _offsets(rows, cols, device):
    return (torch.arange(cols, dtype=torch.int64, device=device)[None, :]
            - torch.arange(rows, dtype=torch.int64, device=device)[:, None])


@allocates(_first)
def creation_tri_mask(shape, offset, part, *, device=None):
    """Burn's triangle masks over the last two dims of ``shape``, broadcast to ``shape``:
    True marks the elements *outside* the part (``"upper"``, ``"lower"`` or ``"diag"``)."""
    d = _offsets(shape[-2], shape[-1], device)
    bound = shape[-2] + shape[-1]  # offsets past it mark the same elements, and fit in int64
    offset = max(-bound, min(bound, offset))
    if part == "upper":
        m = d < offset
    elif part == "lower":
        m = d > offset
    else:
        m = d != offset
    return m.expand(shape).contiguous()


def creation_tri_keep(a, diagonal, upper):
    """``a`` with the elements outside the upper (or lower) triangle set to zero (a new tensor)."""
    if a.numel() == 0:
        return a.clone()
    d = _offsets(a.shape[-2], a.shape[-1], a.device)
    keep = d >= diagonal if upper else d <= diagonal
    return torch.where(keep, a, torch.zeros((), dtype=a.dtype, device=a.device))


@allocates(lambda shape, **kwargs: tuple(shape) + (len(shape),))
def creation_cartesian_grid(shape, *, device=None):
    """int64 tensor of shape ``(*shape, len(shape))`` whose entry at each index is that index."""
    if not shape:
        return torch.zeros((0,), dtype=torch.int64, device=device)
    axes = [torch.arange(s, dtype=torch.int64, device=device) for s in shape]
    return torch.stack(torch.meshgrid(*axes, indexing="ij"), dim=-1).contiguous()


# -- data out -----------------------------------------------------------------------------------

@allocates(lambda a, shape: shape)
def data_reshape_copy(a, shape):
    """A contiguous copy of ``a`` with a new shape of the same size."""
    return a.reshape(shape).clone(memory_format=torch.contiguous_format)


@allocates(lambda a: (a.numel(),))
def data_flat_list(a):
    """The values of ``a`` as one flat Python list, row-major."""
    return a.reshape(-1).tolist()


def data_can_mut(a):
    """Whether ``a`` provably has its buffer to itself: never shown on torch (False)."""
    return False


# -- display ------------------------------------------------------------------------------------

def display_edges(a, edge):
    """``a`` reduced to its first and last ``edge`` items along every dim longer than
    ``2 * edge``, and the tuple of dims that were cut (on the device: little leaves it)."""
    cut = []
    for dim, size in enumerate(a.shape):
        if size > 2 * edge:
            idx = torch.cat([torch.arange(0, edge, device=a.device),
                             torch.arange(size - edge, size, device=a.device)])
            a = a.index_select(dim, idx)
            cut.append(dim)
    return a, tuple(cut)


def display_strings(a):
    """The elements of ``a`` as display strings (see the NumPy backend's ``display_strings``):
    text is made on the host, from a host copy of the values."""
    from ...devices import CPU
    host = CPU.backend
    dtype = dtype_of(a)
    return host.display_strings(host.from_host(to_host(a), dtype))
