"""PyTorch's shape functions and grids: broadcasting, ``atleast_*``, the ``*stack`` and
``*split`` families, ``rot90``, ``vander``, ``meshgrid``, ``tile``, ``take``/``take_along_dim``
and the ``Tensor`` spellings PyTorch adds (``swapaxes``, ``moveaxis``, ``ravel``, ``adjoint``,
``type_as`` ...).

Splits return tuples, as PyTorch's do. Everything is a view or a composition of ember's
movement ops, so gradients flow through.

>>> import ember.torch as torch
>>> a, b = torch.broadcast_tensors(torch.ones(2, 1), torch.zeros(3))
>>> a.shape, torch.broadcast_shapes((2, 1), (3,))
(torch.Size([2, 3]), torch.Size([2, 3]))
>>> [t.tolist() for t in torch.tensor_split(torch.arange(5), 2)]
[[0, 1, 2], [3, 4]]
"""

import ember as _e

from .._tensor import Tensor as _T
from ..errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import as_int, broadcast_shapes as _broadcast
from ._math_args import dim_arg, function_and_method, promoted, reshape, tensor_arg
from ._tensor import Size, torch_function, torch_method

__all__ = ["broadcast_tensors", "broadcast_shapes", "broadcast_to", "atleast_1d", "atleast_2d",
           "atleast_3d", "rot90", "vander", "meshgrid", "column_stack", "row_stack", "hstack",
           "vstack", "dstack", "tensor_split", "hsplit", "vsplit", "dsplit", "split", "chunk",
           "unbind", "moveaxis", "swapaxes", "swapdims", "ravel", "fliplr", "flipud", "tile",
           "narrow", "narrow_copy", "take", "take_along_dim", "t", "adjoint", "type_as"]


def _tensors(tensors, op):
    """Varargs tensors or one sequence of them, as ember tensors."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return [tensor_arg(t, op, f"tensors[{i}]") for i, t in enumerate(tensors)]


# -- broadcasting -------------------------------------------------------------------------------

@torch_function
def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to (an int is a 1-D shape).

    >>> import ember.torch as torch
    >>> torch.broadcast_shapes(2, (3, 1))
    torch.Size([3, 2])
    """
    out = []
    for i, s in enumerate(shapes):
        if isinstance(s, (list, tuple)):
            out.append(tuple(as_int(v, "broadcast_shapes", f"shapes[{i}]") for v in s))
        else:
            out.append((as_int(s, "broadcast_shapes", f"shapes[{i}]"),))
    for s in out:
        if any(v < 0 for v in s):
            raise InvalidParameterError(f"broadcast_shapes: sizes must be non-negative, got {s}",
                                        "shapes", s)
    return Size(_broadcast(*out, op="broadcast_shapes"))


@torch_function
def broadcast_tensors(*tensors):
    """The tensors expanded to their common broadcast shape (views).

    >>> import ember.torch as torch
    >>> [t.shape for t in torch.broadcast_tensors(torch.ones(3), torch.ones(2, 1))]
    [torch.Size([2, 3]), torch.Size([2, 3])]
    """
    ts = _tensors(tensors, "broadcast_tensors")
    shape = _broadcast(*(tuple(t.shape) for t in ts), op="broadcast_tensors")
    return tuple(t.expand(shape) for t in ts)


@function_and_method
def broadcast_to(input, size):
    """``input`` expanded to ``size`` (a view; -1 keeps a dim's size).

    >>> import ember.torch as torch
    >>> torch.tensor([1, 2]).broadcast_to((2, -1)).tolist()
    [[1, 2], [1, 2]]
    """
    x = tensor_arg(input, "broadcast_to")
    size = tuple(as_int(s, "broadcast_to", "size") for s in
                 (size if isinstance(size, (list, tuple)) else (size,)))
    if len(size) < x.ndim:
        raise ShapeMismatchError(f"broadcast_to: size {size} has fewer dims than the input's "
                                 f"shape {tuple(x.shape)}", x.ndim, len(size))
    lead = len(size) - x.ndim
    full = []
    for i, s in enumerate(size):
        if s == -1:
            if i < lead:
                raise InvalidParameterError(f"broadcast_to: -1 is not allowed for the new "
                                            f"leading dim {i}", "size", size)
            s = x.shape[i - lead]
        elif s < 0:
            raise InvalidParameterError(f"broadcast_to: sizes must be non-negative or -1, got "
                                        f"{size}", "size", size)
        full.append(s)
    full = tuple(full)
    for i, s in enumerate(x.shape):
        if s != 1 and s != full[lead + i]:
            raise ShapeMismatchError(f"broadcast_to: the input's size {s} at dim {i} cannot "
                                     f"expand to {full[lead + i]} (size {full})",
                                     full[lead + i], s)
    return x.expand(full)


# -- at least n dims ----------------------------------------------------------------------------

def _shape_1d(s):
    return s if s else (1,)


def _shape_2d(s):
    return s if len(s) >= 2 else (1,) + _shape_1d(s)


def _shape_3d(s):
    return {0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}.get(len(s), s)


def _at_least(ts, shape_of):
    return [reshape(t, shape_of(tuple(t.shape))) for t in ts]


def _atleast(op, tensors, shape_of):
    out = tuple(_at_least(_tensors(tensors, op), shape_of))
    return out[0] if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)) else out


@torch_function
def atleast_1d(*tensors):
    """Each tensor viewed with at least 1 dim (a 0-d one becomes shape (1,)); one tensor in,
    one out, else a tuple.

    >>> import ember.torch as torch
    >>> torch.atleast_1d(torch.tensor(2.0)).shape
    torch.Size([1])
    """
    return _atleast("atleast_1d", tensors, _shape_1d)


@torch_function
def atleast_2d(*tensors):
    """Each tensor viewed with at least 2 dims (a vector becomes one row).

    >>> import ember.torch as torch
    >>> torch.atleast_2d(torch.ones(3)).shape
    torch.Size([1, 3])
    """
    return _atleast("atleast_2d", tensors, _shape_2d)


@torch_function
def atleast_3d(*tensors):
    """Each tensor viewed with at least 3 dims: (n,) becomes (1, n, 1), (m, n) (m, n, 1).

    >>> import ember.torch as torch
    >>> torch.atleast_3d(torch.ones(2, 3)).shape
    torch.Size([2, 3, 1])
    """
    return _atleast("atleast_3d", tensors, _shape_3d)


# -- rotations and grids ------------------------------------------------------------------------

@function_and_method
def rot90(input, k=1, dims=(0, 1)):
    """``input`` rotated by 90 degrees ``k`` times in the plane of ``dims``, from the first
    dim towards the second.

    >>> import ember.torch as torch
    >>> torch.tensor([[1, 2], [3, 4]]).rot90().tolist()
    [[2, 4], [1, 3]]
    """
    x = tensor_arg(input, "rot90")
    k = as_int(k, "rot90", "k")
    if not isinstance(dims, (list, tuple)) or len(dims) != 2:
        raise InvalidParameterError(f"rot90: dims must be a pair of dims, got {dims!r}", "dims",
                                    dims)
    if x.ndim < 2:
        raise ShapeMismatchError(f"rot90: expected at least 2 dims, got {x.ndim}", 2, x.ndim)
    d0, d1 = (dim_arg(d, x.ndim, "rot90", "dims") for d in dims)
    if d0 == d1:
        raise InvalidParameterError(f"rot90: dims must differ, got {dims!r}", "dims", dims)
    k %= 4
    if k == 1:
        return x.flip(d1).transpose(d0, d1)
    if k == 2:
        return x.flip((d0, d1))
    if k == 3:
        return x.flip(d0).transpose(d0, d1)
    return x.clone()


@torch_function
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D ``x``: columns ``x ** (N - 1)`` ... ``x ** 0``
    (ascending powers if ``increasing``); ints and bools give int64.

    >>> import ember.torch as torch
    >>> torch.vander(torch.tensor([1, 2, 3]), N=3).tolist()
    [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    """
    v = tensor_arg(x, "vander", "x")
    if v.ndim != 1:
        raise ShapeMismatchError(f"vander: x must be 1-D, got shape {tuple(v.shape)}", 1, v.ndim)
    n = v.shape[0] if N is None else as_int(N, "vander", "N")
    if n < 0:
        raise InvalidParameterError(f"vander: N must be non-negative, got {n}", "N", n)
    if v.dtype.kind in ("int", "bool"):
        v = v.to(_e.int64)
    if n == 0:
        return _e.zeros((v.shape[0], 0), dtype=v.dtype, device=v.device)
    col = v.unsqueeze(1)
    parts = [_e.ones_like(col)] + ([col.expand((v.shape[0], n - 1))] if n > 1 else [])
    out = _e.cat(parts, 1).cumprod(1)
    return out if increasing else out.flip(1)


@torch_function
def meshgrid(*tensors, indexing=None):
    """The coordinate grids of 0-d or 1-D tensors: with ``indexing="ij"`` (the default) the
    i-th grid varies along dim i; with ``"xy"`` the first two dims are swapped.

    >>> import ember.torch as torch
    >>> gx, gy = torch.meshgrid(torch.tensor([1, 2]), torch.tensor([3, 4, 5]), indexing="ij")
    >>> gx.shape, gy[0].tolist()
    (torch.Size([2, 3]), [3, 4, 5])
    """
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise InvalidParameterError(f"meshgrid: indexing must be 'ij' or 'xy', got "
                                    f"{indexing!r}", "indexing", indexing)
    ts = _tensors(tensors, "meshgrid")
    for i, t in enumerate(ts):
        if t.ndim > 1:
            raise ShapeMismatchError(f"meshgrid: tensors[{i}] must be 0-d or 1-D, got shape "
                                     f"{tuple(t.shape)}", 1, t.ndim)
        if t._dtype is not ts[0]._dtype or t.device != ts[0].device:
            raise KindError("meshgrid: expected every tensor to have the same dtype and device")
    ts = [reshape(t, (-1,)) if t.ndim == 0 else t for t in ts]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    grids = [reshape(t, tuple(s if j == i else 1 for j, s in enumerate(shape))).expand(shape)
             for i, t in enumerate(ts)]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# -- stacks -------------------------------------------------------------------------------------

def _stacked(op, tensors, dim):
    if not tensors:
        raise InvalidParameterError(f"{op}: expected a non-empty sequence of tensors", "tensors",
                                    tensors)
    return _e.cat(list(promoted(op, *tensors)), dim)


@torch_function
def hstack(tensors):
    """The tensors joined column-wise: along dim 0 for vectors, dim 1 otherwise.

    >>> import ember.torch as torch
    >>> torch.hstack([torch.tensor([1, 2]), torch.tensor([3])]).tolist()
    [1, 2, 3]
    """
    ts = _at_least(_tensors((tensors,), "hstack"), _shape_1d)
    return _stacked("hstack", ts, 0 if ts and ts[0].ndim == 1 else 1)


@torch_function
def vstack(tensors):
    """The tensors joined row-wise (vectors become rows).

    >>> import ember.torch as torch
    >>> torch.vstack([torch.tensor([1, 2]), torch.tensor([3, 4])]).tolist()
    [[1, 2], [3, 4]]
    """
    return _stacked("vstack", _at_least(_tensors((tensors,), "vstack"), _shape_2d), 0)


@torch_function
def row_stack(tensors):
    """``vstack``'s other name.

    >>> import ember.torch as torch
    >>> torch.row_stack([torch.tensor([1]), torch.tensor([2])]).tolist()
    [[1], [2]]
    """
    return vstack(tensors)


@torch_function
def dstack(tensors):
    """The tensors joined depth-wise, along dim 2 (after ``atleast_3d``).

    >>> import ember.torch as torch
    >>> torch.dstack([torch.tensor([1, 2]), torch.tensor([3, 4])]).shape
    torch.Size([1, 2, 2])
    """
    return _stacked("dstack", _at_least(_tensors((tensors,), "dstack"), _shape_3d), 2)


@torch_function
def column_stack(tensors):
    """The tensors as columns side by side: 0-d and 1-D tensors become columns.

    >>> import ember.torch as torch
    >>> torch.column_stack([torch.tensor([1, 2]), torch.tensor([3, 4])]).tolist()
    [[1, 3], [2, 4]]
    """
    ts = _tensors((tensors,), "column_stack")
    cols = [reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in ts]
    return _stacked("column_stack", cols, 1)


# -- splits -------------------------------------------------------------------------------------

def _split_points(op, x, d, indices_or_sections):
    """The (start, length) of each part of ``tensor_split``."""
    n = x.shape[d]
    ios = indices_or_sections
    if isinstance(ios, _T):
        if ios.dtype.kind != "int" or ios.ndim > 1:
            raise KindError(f"{op}: a tensor indices_or_sections must be a 0-d or 1-D int "
                            f"tensor, got {ios.dtype.name} of shape {tuple(ios.shape)}")
        ios = ios.item() if ios.ndim == 0 else ios.tolist()
    if isinstance(ios, (list, tuple)):
        idx = [as_int(i, op, "indices") for i in ios]
        bounds, start = [], 0
        for i in idx + [n]:
            end = min(max(i + n if i < 0 else i, 0), n)
            bounds.append((start, max(end - start, 0)))
            start = end
        return bounds
    k = as_int(ios, op, "sections")
    if k <= 0:
        raise InvalidParameterError(f"{op}: sections must be positive, got {k}", "sections", k)
    size, extra = divmod(n, k)
    bounds, start = [], 0
    for i in range(k):
        length = size + (1 if i < extra else 0)
        bounds.append((start, length))
        start += length
    return bounds


@function_and_method
def tensor_split(input, indices_or_sections, dim=0):
    """``input`` split along ``dim`` into views: ``k`` near-equal parts (the first ones one
    longer), or at the given indices.

    >>> import ember.torch as torch
    >>> [t.tolist() for t in torch.arange(6).tensor_split([1, 4])]
    [[0], [1, 2, 3], [4, 5]]
    """
    x = tensor_arg(input, "tensor_split")
    if x.ndim == 0:
        raise ShapeMismatchError("tensor_split: expected at least a 1-D tensor", 1, 0)
    d = dim_arg(dim, x.ndim, "tensor_split")
    return tuple(x.narrow(d, s, n) for s, n in _split_points("tensor_split", x, d,
                                                            indices_or_sections))


def _named_split(op, input, indices_or_sections, dim, min_ndim):
    x = tensor_arg(input, op)
    if x.ndim < min_ndim:
        raise ShapeMismatchError(f"{op}: expected a tensor of at least {min_ndim} dims, got "
                                 f"{x.ndim}", min_ndim, x.ndim)
    if not isinstance(indices_or_sections, (list, tuple, _T)):
        k = as_int(indices_or_sections, op, "sections")
        if k <= 0 or x.shape[dim] % k:
            raise InvalidParameterError(f"{op}: size {x.shape[dim]} of dim {dim} is not "
                                        f"divisible by sections {k}", "sections", k)
    return tensor_split(x, indices_or_sections, dim)


@function_and_method
def hsplit(input, indices_or_sections):
    """``tensor_split`` along dim 1 (dim 0 for a vector); an int must divide the size.

    >>> import ember.torch as torch
    >>> [t.shape for t in torch.ones(2, 4).hsplit(2)]
    [torch.Size([2, 2]), torch.Size([2, 2])]
    """
    x = tensor_arg(input, "hsplit")
    return _named_split("hsplit", x, indices_or_sections, 0 if x.ndim == 1 else 1, 1)


@function_and_method
def vsplit(input, indices_or_sections):
    """``tensor_split`` along dim 0 of a tensor of at least 2 dims.

    >>> import ember.torch as torch
    >>> [t.shape for t in torch.ones(4, 2).vsplit([1])]
    [torch.Size([1, 2]), torch.Size([3, 2])]
    """
    return _named_split("vsplit", input, indices_or_sections, 0, 2)


@function_and_method
def dsplit(input, indices_or_sections):
    """``tensor_split`` along dim 2 of a tensor of at least 3 dims.

    >>> import ember.torch as torch
    >>> len(torch.ones(1, 1, 4).dsplit(2))
    2
    """
    return _named_split("dsplit", input, indices_or_sections, 2, 3)


@function_and_method
def split(tensor, split_size_or_sections, dim=0):
    """``tensor`` split along ``dim`` into parts of ``split_size`` (the last one shorter) or of
    the listed sizes, a tuple of views.

    >>> import ember.torch as torch
    >>> [t.tolist() for t in torch.arange(5).split([2, 3])]
    [[0, 1], [2, 3, 4]]
    """
    x = tensor_arg(tensor, "split", "tensor")
    if isinstance(split_size_or_sections, (list, tuple)):
        return tuple(_T.split_with_sizes(x, list(split_size_or_sections), dim))
    size = as_int(split_size_or_sections, "split", "split_size")
    if size < 0:
        raise InvalidParameterError(f"split: split_size must be non-negative, got {size}",
                                    "split_size", size)
    return tuple(_T.split(x, size, dim))


@function_and_method
def split_with_sizes(input, split_sizes, dim=0):
    """``input`` split along ``dim`` into parts of the listed sizes, a tuple.

    >>> import ember.torch as torch
    >>> [t.tolist() for t in torch.arange(5).split_with_sizes([1, 4])]
    [[0], [1, 2, 3, 4]]
    """
    return tuple(_T.split_with_sizes(tensor_arg(input, "split_with_sizes"), split_sizes, dim))


@function_and_method
def chunk(input, chunks, dim=0):
    """``input`` split into at most ``chunks`` parts of ``ceil(size / chunks)``, a tuple.

    >>> import ember.torch as torch
    >>> [t.tolist() for t in torch.arange(5).chunk(2)]
    [[0, 1, 2], [3, 4]]
    """
    return tuple(_T.chunk(tensor_arg(input, "chunk"), chunks, dim))


@function_and_method
def unbind(input, dim=0):
    """The slices of ``input`` along ``dim``, that dim removed, a tuple.

    >>> import ember.torch as torch
    >>> [t.tolist() for t in torch.tensor([[1, 2], [3, 4]]).unbind(1)]
    [[1, 3], [2, 4]]
    """
    return tuple(_T.unbind(tensor_arg(input, "unbind"), dim))


# -- dim moves, flips, tiles --------------------------------------------------------------------

@function_and_method
def moveaxis(input, source, destination):
    """``movedim``'s NumPy name.

    >>> import ember.torch as torch
    >>> torch.ones(2, 3, 4).moveaxis(0, -1).shape
    torch.Size([3, 4, 2])
    """
    return _e.movedim(tensor_arg(input, "moveaxis"), source, destination)


@function_and_method
def swapaxes(input, axis0, axis1):
    """``transpose``'s NumPy name.

    >>> import ember.torch as torch
    >>> torch.ones(2, 3).swapaxes(0, 1).shape
    torch.Size([3, 2])
    """
    return _e.transpose(tensor_arg(input, "swapaxes"), axis0, axis1)


@function_and_method
def swapdims(input, dim0, dim1):
    """``transpose``'s other name.

    >>> import ember.torch as torch
    >>> torch.swapdims(torch.ones(2, 3), 0, 1).shape
    torch.Size([3, 2])
    """
    return _e.transpose(tensor_arg(input, "swapdims"), dim0, dim1)


@function_and_method
def ravel(input):
    """``input`` flattened to one dim (a view when the layout allows).

    >>> import ember.torch as torch
    >>> torch.tensor([[1, 2], [3, 4]]).T.ravel().tolist()
    [1, 3, 2, 4]
    """
    return reshape(tensor_arg(input, "ravel"), (-1,))


@function_and_method
def fliplr(input):
    """``input`` flipped left-right (dim 1); at least 2 dims.

    >>> import ember.torch as torch
    >>> torch.tensor([[1, 2]]).fliplr().tolist()
    [[2, 1]]
    """
    x = tensor_arg(input, "fliplr")
    if x.ndim < 2:
        raise ShapeMismatchError(f"fliplr: expected at least 2 dims, got {x.ndim}", 2, x.ndim)
    return x.flip(1)


@function_and_method
def flipud(input):
    """``input`` flipped up-down (dim 0); at least 1 dim.

    >>> import ember.torch as torch
    >>> torch.tensor([[1], [2]]).flipud().tolist()
    [[2], [1]]
    """
    x = tensor_arg(input, "flipud")
    if x.ndim < 1:
        raise ShapeMismatchError("flipud: expected at least 1 dim, got 0", 1, 0)
    return x.flip(0)


@function_and_method
def tile(input, dims):
    """``input`` repeated ``dims[i]`` times along each dim; fewer ``dims`` than dims are
    padded with 1s in front, more add leading dims.

    >>> import ember.torch as torch
    >>> torch.tensor([[1, 2]]).tile((2,)).tolist()
    [[1, 2, 1, 2]]
    """
    x = tensor_arg(input, "tile")
    if not isinstance(dims, (list, tuple)):
        dims = (dims,)
    reps = tuple(as_int(r, "tile", "dims") for r in dims)
    if any(r < 0 for r in reps):
        raise InvalidParameterError(f"tile: repetitions must be non-negative, got {reps}",
                                    "dims", reps)
    reps = (1,) * (x.ndim - len(reps)) + reps
    return _T.repeat(x, reps)


@function_and_method
def narrow(input, dim, start, length):
    """The view of ``length`` entries of ``dim`` from ``start`` (negative counts from the
    end; a 0-d int tensor is accepted).

    >>> import ember.torch as torch
    >>> torch.arange(5).narrow(0, -3, 2).tolist()
    [2, 3]
    """
    x = tensor_arg(input, "narrow")
    if x.ndim == 0:
        raise ShapeMismatchError("narrow: expected at least a 1-D tensor", 1, 0)
    d = dim_arg(dim, x.ndim, "narrow")
    start = as_int(start, "narrow", "start")
    length = as_int(length, "narrow", "length")
    n = x.shape[d]
    if not -n <= start <= n:
        raise DimensionError(f"narrow: start {start} is out of range for dim {d} of size {n}")
    start = start + n if start < 0 else start
    if length < 0 or start + length > n:
        raise InvalidParameterError(f"narrow: start ({start}) + length ({length}) exceeds the "
                                    f"size {n} of dim {d}", "length", length)
    return _T.narrow(x, d, start, length)


@function_and_method
def narrow_copy(input, dim, start, length):
    """``narrow``, copied into a new tensor.

    >>> import ember.torch as torch
    >>> torch.narrow_copy(torch.arange(5), 0, 1, 2).tolist()
    [1, 2]
    """
    return tensor_arg(narrow(input, dim, start, length), "narrow_copy").clone()


def _index_arg(index, op, param="index"):
    idx = tensor_arg(index, op, param)
    if idx.dtype.kind != "int":
        raise KindError(f"{op}: {param} must be an int tensor, got {idx.dtype.name}")
    return idx.to(_e.int64) if idx._dtype is not _e.int64 else idx


@function_and_method
def take(input, index):
    """The elements of ``input`` at the positions ``index`` of its flattened view (negative
    positions count from the end); the result has ``index``'s shape.

    >>> import ember.torch as torch
    >>> torch.tensor([[1, 2], [3, 4]]).take(torch.tensor([0, -1])).tolist()
    [1, 4]
    """
    x = tensor_arg(input, "take")
    idx = _index_arg(index, "take")
    flat = reshape(x, (-1,))
    n = flat.shape[0]
    if idx.numel() and (bool((idx >= n).any()) or bool((idx < -n).any())):
        raise DimensionError(f"take: an index is out of range for a tensor of {n} elements")
    idx = _e.where(idx < 0, idx + n, idx)
    return reshape(flat.gather(0, reshape(idx, (-1,))), tuple(idx.shape))


@function_and_method
def take_along_dim(input, indices, dim=None):
    """The values of ``input`` at ``indices`` along ``dim`` (the two broadcast off ``dim``);
    without ``dim`` both are flattened.

    >>> import ember.torch as torch
    >>> x = torch.tensor([[10, 30, 20]])
    >>> x.take_along_dim(x.argsort(1), 1).tolist()
    [[10, 20, 30]]
    """
    x = tensor_arg(input, "take_along_dim")
    idx = _index_arg(indices, "take_along_dim", "indices")
    if dim is None:
        return take(reshape(x, (-1,)), reshape(idx, (-1,)))
    if x.ndim != idx.ndim:
        raise ShapeMismatchError(f"take_along_dim: input and indices must have the same number "
                                 f"of dims, got {x.ndim} and {idx.ndim}", x.ndim, idx.ndim)
    d = dim_arg(dim, x.ndim, "take_along_dim")
    off_x = tuple(1 if i == d else s for i, s in enumerate(x.shape))
    off_i = tuple(1 if i == d else s for i, s in enumerate(idx.shape))
    common = _broadcast(off_x, off_i, op="take_along_dim")
    n = x.shape[d]
    if idx.numel() and (bool((idx >= n).any()) or bool((idx < -n).any())):
        raise DimensionError(f"take_along_dim: an index is out of range for dim {d} of size {n}")
    idx = _e.where(idx < 0, idx + n, idx)
    xs = tuple(n if i == d else s for i, s in enumerate(common))
    js = tuple(idx.shape[d] if i == d else s for i, s in enumerate(common))
    return x.expand(xs).gather(d, idx.expand(js))


@function_and_method
def t(input):
    """The transpose of a tensor of at most 2 dims (0-d and 1-D ones are returned as they
    are).

    >>> import ember.torch as torch
    >>> torch.tensor([[1, 2]]).t().tolist()
    [[1], [2]]
    """
    x = tensor_arg(input, "t")
    if x.ndim > 2:
        raise ShapeMismatchError(f"t: expects a tensor with <= 2 dims, got {x.ndim}; use "
                                 "transpose(dim0, dim1) or mT", 2, x.ndim)
    return x.transpose(0, 1) if x.ndim == 2 else x


@function_and_method
def adjoint(input):
    """The conjugate transpose of the last two dims (a view).

    >>> import ember.torch as torch
    >>> torch.ones(2, 3).adjoint().shape
    torch.Size([3, 2])
    """
    x = tensor_arg(input, "adjoint")
    if x.ndim < 2:
        raise ShapeMismatchError(f"adjoint: expected at least 2 dims, got {x.ndim}", 2, x.ndim)
    mt = x.transpose(-2, -1)
    return mt.conj() if x.dtype.kind == "complex" else mt


@torch_method
def type_as(self, other):
    """``self`` cast to ``other``'s dtype.

    >>> import ember.torch as torch
    >>> torch.tensor([1, 2]).type_as(torch.ones(1)).dtype == torch.float32
    True
    """
    tensor_arg(other, "type_as", "other")
    return self.to(other.dtype)
