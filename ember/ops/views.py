"""The view ops of the movement family: reshape, view, expand, permute, flip, transpose,
movedim, flatten, unflatten, squeeze and unsqueeze, with their PyTorch-style module functions.

Each returns a view of its input's buffer where the layout allows (a reshape of a
non-contiguous view copies). Nothing ever writes into an input. Float results record their
gradient rule. ``reshape_exact`` is the reshape the gradient rules of other families use.
The rest of the family: pad and shrink in ``pad.py``; roll, repeat, repeat_interleave and
unfold in ``repeat.py``.

See docs/movement.md for a guide.
"""

from ..autodiff.rules import sum_to
from ..errors import DimensionError, InvalidParameterError, ShapeMismatchError
from ..shapes import (MAX_RANK, argfix, as_int, check_rank, infer_shape, is_permutation,
                      is_plain_shape, normalize_dim, normalize_dims, prod)
from .._tensor import check_tensor, record, tensor_method, wrap

__all__ = ["reshape", "permute", "flip", "transpose", "t", "movedim", "flatten", "unflatten",
           "squeeze", "unsqueeze"]


def _method(name, prop=False):
    """Attach the decorated function to Tensor as ``name`` (a property when ``prop``)."""
    def attach(fn):
        fn.__name__ = name
        fn.__qualname__ = "Tensor." + name
        return tensor_method(fn, name=name, prop=prop)
    return attach


def _is_seq(value):
    return isinstance(value, (tuple, list))


# -- the primitives ------------------------------------------------------------------------------

def _reshape_to(x, shape, op):
    """``x`` with ``shape`` (already resolved and checked): a view when the layout allows."""
    in_shape = x._data.shape
    be = x._device.backend
    out = be.mv_reshape(x._data, shape, op)
    if x._node is None:  # untracked: no gradient rule to build (what record would give)
        return wrap(out, x._dtype, x._ad)

    def rule(g, needs, out):
        return (_reshape_to(g, in_shape, op),)

    return record(out, x._dtype, (x,), rule, op)


def reshape_exact(x, shape):
    """``x`` reshaped to exactly ``shape`` (``Tensor.reshape`` reads a 0 as "keep this size",
    Burn's rule; gradient rules reshape to computed shapes, where a 0 is a size)."""
    shape = tuple(shape)
    return x if tuple(x.shape) == shape else _reshape_to(x, shape, "reshape")


def _permute_to(x, order, op):
    """``x`` with its dims in ``order`` (already normalized and checked), a view."""
    be = x._device.backend
    out = be.mv_permute(x._data, order)
    if x._node is None:  # untracked: no gradient rule to build (what record would give)
        return wrap(out, x._dtype, x._ad)
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i

    def rule(g, needs, out):
        return (_permute_to(g, inverse, op),)

    return record(out, x._dtype, (x,), rule, op)


@_method("reshape")
def _reshape(self, shape, *args):
    """The same elements with a new shape, given as varargs or one tuple.

    One ``-1`` is inferred; ``0`` and ``None`` keep the size of the dim at that position.
    A view of the input when its layout allows, a copy otherwise.

    >>> import ember
    >>> ember.tensor([0, 1, 2, 3, 4, 5]).reshape(2, 3).tolist()
    [[0, 1, 2], [3, 4, 5]]
    >>> ember.tensor([[0, 1, 2], [3, 4, 5]]).reshape((0, -1, 1)).shape
    (2, 3, 1)
    """
    sizes = (shape,) + args if args or type(shape) is not tuple else shape
    # fast path: nothing to infer or check
    if is_plain_shape(sizes, self._device.backend.numel(self._data)):
        return _reshape_to(self, sizes, "reshape")
    new = infer_shape(argfix((shape,) + args, "reshape"), self._data.shape, "reshape")
    return _reshape_to(self, new, "reshape")


@_method("view")
def _view(self, shape, *args):
    """An alias of ``reshape`` (tinygrad's ``view``): a view when the layout allows, else a copy.

    >>> import ember
    >>> ember.tensor([1, 2, 3, 4]).view(2, -1).tolist()
    [[1, 2], [3, 4]]
    """
    sizes = (shape,) + args if args or type(shape) is not tuple else shape
    if is_plain_shape(sizes, self._device.backend.numel(self._data)):  # as reshape's
        return _reshape_to(self, sizes, "view")
    new = infer_shape(argfix((shape,) + args, "view"), self._data.shape, "view")
    return _reshape_to(self, new, "view")


@_method("reshape_as")
def _reshape_as(self, other):
    """``self.reshape(other.shape)``.

    >>> import ember
    >>> ember.tensor([1, 2, 3, 4]).reshape_as(ember.tensor([[0, 0], [0, 0]])).tolist()
    [[1, 2], [3, 4]]
    """
    check_tensor(other, "reshape_as", "other")
    return _reshape_to(self, infer_shape(other.shape, self._data.shape, "reshape_as"),
                       "reshape_as")


@_method("view_as")
def _view_as(self, other):
    """``self.view(other.shape)``.

    >>> import ember
    >>> ember.tensor([1, 2, 3, 4]).view_as(ember.tensor([[0], [0], [0], [0]])).shape
    (4, 1)
    """
    check_tensor(other, "view_as", "other")
    return _reshape_to(self, infer_shape(other.shape, self._data.shape, "view_as"), "view_as")


def _expand_shape(shape, sizes, op):
    nd = len(shape)
    if len(sizes) < nd:
        raise ShapeMismatchError(
            f"{op}: shape {tuple(sizes)} has {len(sizes)} dims, fewer than the tensor's {nd} "
            f"(shape {tuple(shape)}); expected at least {nd}", expected=tuple(shape),
            actual=tuple(sizes))
    lead = len(sizes) - nd
    src = (1,) * lead + tuple(shape)
    out = []
    for i, (s, to) in enumerate(zip(src, sizes)):
        if to is None:
            out.append(s)
            continue
        to = as_int(to, op, "shape")
        if to == -1:
            out.append(s)
        elif to < 0:
            raise InvalidParameterError(
                f"{op}: shape {tuple(sizes)} has size {to} at position {i}; expected a size "
                ">= 0, or -1 / None to keep the size", "shape", tuple(sizes))
        elif s != to and s != 1:
            raise ShapeMismatchError(
                f"{op}: cannot expand dim {i - lead} of size {s} to {to} (shape "
                f"{tuple(shape)} to {tuple(sizes)}); only size-1 dims can be expanded",
                expected=tuple(shape), actual=tuple(sizes))
        else:
            out.append(to)
    return tuple(out)


def _expand_to(x, shape, op):
    in_shape = x._data.shape
    be = x._device.backend
    out = be.mv_expand(x._data, shape, op)

    def rule(g, needs, out):
        return (sum_to(g, in_shape),)

    return record(out, x._dtype, (x,), rule, op)


@_method("expand")
def _expand(self, shape, *args):
    """A read-only broadcast view with the given shape (varargs or one tuple).

    Size-1 dims grow to any size; ``-1`` or ``None`` keeps a size; extra sizes in front add
    leading dims (``-1`` there keeps size 1). No data is copied.

    >>> import ember
    >>> ember.tensor([1, 2, 3]).expand(2, -1).tolist()
    [[1, 2, 3], [1, 2, 3]]
    """
    sizes = argfix((shape,) + args, "expand")
    return _expand_to(self, _expand_shape(self._data.shape, sizes, "expand"), "expand")


@_method("expand_as")
def _expand_as(self, other):
    """``self.expand(other.shape)``.

    >>> import ember
    >>> ember.tensor([[1], [2]]).expand_as(ember.tensor([[0, 0, 0], [0, 0, 0]])).tolist()
    [[1, 1, 1], [2, 2, 2]]
    """
    check_tensor(other, "expand_as", "other")
    return _expand_to(self, _expand_shape(self._data.shape, other.shape, "expand_as"),
                      "expand_as")


@_method("permute")
def _permute(self, order, *args):
    """The dims reordered: dim ``i`` of the result is dim ``order[i]`` of the input; a view.

    ``order`` is varargs or one sequence, negative dims count from the end.

    >>> import ember
    >>> t = ember.tensor([[0, 1, 2], [3, 4, 5]])
    >>> t.permute(1, 0).tolist()
    [[0, 3], [1, 4], [2, 5]]
    """
    dims = (order,) + args if args or type(order) is not tuple else order
    if is_permutation(dims, self._data.ndim):  # fast path: already a normalized order
        return _permute_to(self, dims, "permute")
    order = argfix((order,) + args, "permute", "order")
    nd = self._data.ndim
    if len(order) != nd:
        raise InvalidParameterError(
            f"permute: order {tuple(order)} has {len(order)} entries, expected {nd} (one per dim "
            f"of shape {self.shape})", "order", tuple(order))
    order = normalize_dims(list(order), nd, "permute", "order")
    return _permute_to(self, order, "permute")


@_method("flip")
def _flip(self, axis, *args):
    """The elements in reverse order along the given dims (varargs or one sequence); a view.

    >>> import ember
    >>> t = ember.tensor([[0, 1, 2], [3, 4, 5]])
    >>> t.flip(0).tolist()
    [[3, 4, 5], [0, 1, 2]]
    >>> t.flip((0, 1)).tolist()
    [[5, 4, 3], [2, 1, 0]]
    """
    axes = normalize_dims(list(argfix((axis,) + args, "flip", "dims")), self._data.ndim, "flip",
                          "dims")
    return _flip_to(self, axes, "flip")


def _flip_to(x, axes, op):
    """``x`` reversed along ``axes`` (normalized), a view; its rule is the same flip."""
    def rule(g, needs, out):
        return (_flip_to(g, axes, op),)

    return record(x._device.backend.mv_flip(x._data, axes), x._dtype, (x,), rule, op)


# -- transposes ----------------------------------------------------------------------------------

def _swap(x, d0, d1, op, p0="dim0", p1="dim1"):
    nd = x._data.ndim
    a = normalize_dim(d0, nd, op, p0)
    b = normalize_dim(d1, nd, op, p1)
    order = list(range(nd))
    order[a], order[b] = b, a
    return _permute_to(x, order, op)


@_method("transpose")
def _transpose(self, dim0=-2, dim1=-1):
    """Dims ``dim0`` and ``dim1`` swapped, by default the last two (a matrix transpose); a view.

    >>> import ember
    >>> ember.tensor([[1, 2, 3], [4, 5, 6]]).transpose().tolist()
    [[1, 4], [2, 5], [3, 6]]
    >>> ember.tensor([[[1, 2]]]).transpose(0, 2).shape
    (2, 1, 1)
    """
    return _swap(self, dim0, dim1, "transpose")


@_method("t")
def _t(self):
    """``transpose()``: the last two dims swapped; a 0-d or 1-d tensor comes back as it is.

    >>> import ember
    >>> ember.tensor([[1, 2, 3]]).t().tolist()
    [[1], [2], [3]]
    """
    if self._data.ndim < 2:
        return _permute_to(self, tuple(range(self._data.ndim)), "t")
    return _swap(self, -2, -1, "t")


def T(self):
    """``transpose()`` as a property: the last two dims swapped (0-d and 1-d: unchanged).

    >>> import ember
    >>> ember.tensor([[1, 2], [3, 4]]).T.tolist()
    [[1, 3], [2, 4]]
    """
    return _t(self)


tensor_method(T, prop=True)


def mT(self):
    """The Array API's matrix transpose: the last two dims swapped, a view; a tensor of fewer
    than 2 dims raises DimensionError (it has no matrices).

    >>> import ember
    >>> ember.zeros(4, 2, 3).mT.shape
    (4, 3, 2)
    """
    if self._data.ndim < 2:
        raise DimensionError(f"mT: the tensor has {self._data.ndim} dims (shape "
                             f"{tuple(self.shape)}); expected at least 2")
    return _swap(self, -2, -1, "mT")


tensor_method(mT, prop=True)


@_method("swap_dims")
def _swap_dims(self, dim1, dim2):
    """Dims ``dim1`` and ``dim2`` swapped (Burn's ``swap_dims``; negatives count from the end).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).swap_dims(0, -1).tolist()
    [[1.0, 5.0], [-2.0, 9.0], [3.0, 6.0]]
    """
    return _swap(self, dim1, dim2, "swap_dims", "dim1", "dim2")


@_method("movedim")
def _movedim(self, source, destination):
    """The dims at ``source`` moved to ``destination`` (ints or equal-length sequences); the
    other dims keep their order. A view.

    >>> import ember
    >>> ember.tensor([[[1.0], [5.0]], [[-2.0], [9.0]], [[3.0], [6.0]]]).movedim(1, 0).tolist()
    [[[1.0], [-2.0], [3.0]], [[5.0], [9.0], [6.0]]]
    """
    nd = self._data.ndim
    src_seq, dst_seq = _is_seq(source), _is_seq(destination)
    src = list(source) if src_seq else [source]
    dst = list(destination) if dst_seq else [destination]
    if len(src) != len(dst):
        raise InvalidParameterError(
            f"movedim: source {source!r} has {len(src)} dims but destination {destination!r} has "
            f"{len(dst)}; expected the same number", "destination", destination)
    src = normalize_dims(src, nd, "movedim", "source")
    dst = normalize_dims(dst, nd, "movedim", "destination")
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    moved = set(src)
    rest = iter([d for d in range(nd) if d not in moved])
    order = [next(rest) if o is None else o for o in order]
    return _permute_to(self, order, "movedim")


# -- flatten, squeeze, unsqueeze -----------------------------------------------------------------

@_method("flatten")
def _flatten(self, start_dim=0, end_dim=-1):
    """Dims ``start_dim`` to ``end_dim`` (inclusive) merged into one; a view when possible.
    A 0-d tensor becomes 1-d.

    >>> import ember
    >>> t = ember.tensor([[[0, 1], [2, 3]], [[4, 5], [6, 7]]])
    >>> t.flatten().tolist()
    [0, 1, 2, 3, 4, 5, 6, 7]
    >>> t.flatten(start_dim=1).tolist()
    [[0, 1, 2, 3], [4, 5, 6, 7]]
    """
    shape = self._data.shape
    nd = len(shape)
    s = normalize_dim(start_dim, max(nd, 1), "flatten", "start_dim")
    e = normalize_dim(end_dim, max(nd, 1), "flatten", "end_dim")
    if nd == 0:
        return _reshape_to(self, (1,), "flatten")
    if s > e:
        raise InvalidParameterError(
            f"flatten: start_dim {start_dim} (dim {s}) comes after end_dim {end_dim} (dim {e}); "
            "expected start_dim <= end_dim", "start_dim", start_dim)
    new = shape[:s] + (prod(shape[s:e + 1]),) + shape[e + 1:]
    return _reshape_to(self, new, "flatten")


@_method("unflatten")
def _unflatten(self, dim, sizes):
    """Dim ``dim`` split into dims of ``sizes`` (one may be ``-1``); the inverse of ``flatten``.

    >>> import ember
    >>> ember.tensor([[1, 2, 3, 4]]).unflatten(1, (2, -1)).tolist()
    [[[1, 2], [3, 4]]]
    """
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), "unflatten")
    if not _is_seq(sizes) or not sizes:
        raise InvalidParameterError(
            f"unflatten: sizes must be a non-empty sequence of ints, got {sizes!r}", "sizes", sizes)
    check_rank(len(shape) - 1 + len(sizes), "unflatten", "sizes", sizes)
    sizes = tuple([as_int(s, "unflatten", "sizes") for s in sizes])
    if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
        raise InvalidParameterError(
            f"unflatten: sizes {sizes} must be sizes >= 0 with at most one -1", "sizes", sizes)
    n = shape[d]
    known = prod([s for s in sizes if s != -1])
    if -1 in sizes:
        if known == 0 or n % known:
            raise ShapeMismatchError(
                f"unflatten: cannot infer the -1 in sizes {sizes} for dim {d} of size {n}",
                expected=n, actual=sizes)
        sizes = tuple([n // known if s == -1 else s for s in sizes])
    elif known != n:
        raise ShapeMismatchError(
            f"unflatten: sizes {sizes} multiply to {known}, expected the size {n} of dim {d}",
            expected=n, actual=sizes)
    return _reshape_to(self, shape[:d] + sizes + shape[d + 1:], "unflatten")


@_method("squeeze")
def _squeeze(self, dim=None):
    """Size-1 dims removed: all of them (``dim=None``), or ``dim`` (an int or a sequence) where
    its size is 1; a dim of another size is left as it is (tinygrad and PyTorch). A view.

    >>> import ember
    >>> t = ember.tensor([[[1, 2]]])
    >>> t.squeeze().shape, t.squeeze(0).shape, t.squeeze(2).shape
    ((2,), (1, 2), (1, 1, 2))
    """
    shape = self._data.shape
    nd = len(shape)
    if dim is None:
        keep = [s for s in shape if s != 1]
    else:
        dims = normalize_dims(list(dim) if _is_seq(dim) else [dim], max(nd, 1), "squeeze", "dim")
        if nd == 0:
            keep = []
        else:
            drop = set(d for d in dims if shape[d] == 1)
            keep = [s for i, s in enumerate(shape) if i not in drop]
    return _reshape_to(self, tuple(keep), "squeeze")


@_method("squeeze_dim")
def _squeeze_dim(self, dim):
    """Dim ``dim`` removed; ``ShapeMismatchError`` if its size is not 1 (Burn's ``squeeze_dim``).

    >>> import ember
    >>> ember.tensor([[1, 2, 3]]).squeeze_dim(0).tolist()
    [1, 2, 3]
    """
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), "squeeze_dim")
    if shape[d] != 1:
        raise ShapeMismatchError(
            f"squeeze_dim: dim {dim} has size {shape[d]} (shape {tuple(shape)}); expected size 1",
            expected=1, actual=shape[d])
    return _reshape_to(self, shape[:d] + shape[d + 1:], "squeeze_dim")


@_method("squeeze_dims")
def _squeeze_dims(self, dims):
    """The size-1 dims ``dims`` removed (all size-1 dims when ``dims`` is empty);
    ``ShapeMismatchError`` if one of them has another size.

    >>> import ember
    >>> ember.tensor([[[1], [2]]]).squeeze_dims([0, -1]).tolist()
    [1, 2]
    """
    shape = self._data.shape
    if not _is_seq(dims):
        dims = [dims]
    ds = normalize_dims(list(dims), len(shape), "squeeze_dims", "dims")
    if not ds:
        return _reshape_to(self, tuple([s for s in shape if s != 1]), "squeeze_dims")
    for d, raw in zip(ds, dims):
        if shape[d] != 1:
            raise ShapeMismatchError(
                f"squeeze_dims: dim {raw} has size {shape[d]} (shape {tuple(shape)}); expected "
                "size 1",
                expected=1, actual=shape[d])
    drop = set(ds)
    return _reshape_to(self, tuple([s for i, s in enumerate(shape) if i not in drop]),
                       "squeeze_dims")


def _insert_dim(dim, ndim, op):
    """A position for a new dim, in [-(ndim + 1), ndim], made non-negative."""
    if ndim >= MAX_RANK:
        check_rank(ndim + 1, op, "dim", dim)
    d = as_int(dim, op, "dim")
    if not -ndim - 1 <= d <= ndim:
        raise DimensionError(
            f"{op}: dim {d} is out of range for inserting a dim into a tensor of rank {ndim}; "
            f"expected a dim in [{-ndim - 1}, {ndim}]")
    return d + ndim + 1 if d < 0 else d


@_method("unsqueeze")
def _unsqueeze(self, dim):
    """A new size-1 dim at position ``dim`` of the result (negatives count from its end). A view.

    >>> import ember
    >>> t = ember.tensor([1, 2, 3, 4])
    >>> t.unsqueeze(0).tolist()
    [[1, 2, 3, 4]]
    >>> t.unsqueeze(-1).shape
    (4, 1)
    """
    shape = self._data.shape
    d = _insert_dim(dim, len(shape), "unsqueeze")
    return _reshape_to(self, shape[:d] + (1,) + shape[d:], "unsqueeze")


@_method("unsqueeze_dim")
def _unsqueeze_dim(self, dim):
    """Burn's name for ``unsqueeze(dim)``.

    >>> import ember
    >>> ember.tensor([[1, 2], [3, 4]]).unsqueeze_dim(1).shape
    (2, 1, 2)
    """
    shape = self._data.shape
    d = _insert_dim(dim, len(shape), "unsqueeze_dim")
    return _reshape_to(self, shape[:d] + (1,) + shape[d:], "unsqueeze_dim")


@_method("unsqueeze_dims")
def _unsqueeze_dims(self, axes):
    """New size-1 dims at the positions ``axes`` of the result (Burn's ``unsqueeze_dims``).

    The result has ``ndim + len(axes)`` dims; a negative position counts from its end. A position
    named ``k`` times gets ``k`` new dims: forward from a non-negative position, backward from a
    negative one, so ``[0, -1, -1]`` adds one leading and two trailing dims.

    >>> import ember
    >>> ember.tensor([[1, 2]]).unsqueeze_dims([0, -1, -1]).shape
    (1, 1, 2, 1, 1)
    """
    shape = self._data.shape
    if not _is_seq(axes):
        axes = [axes]
    rank = check_rank(len(shape) + len(axes), "unsqueeze_dims", "axes", axes)
    taken = [False] * rank
    raw = [as_int(a, "unsqueeze_dims", "axes") for a in axes]
    for a in raw:
        if not -rank <= a < rank:
            raise DimensionError(
                f"unsqueeze_dims: axis {a} is out of range for a result of rank {rank}; expected "
                f"a position in [{-rank}, {rank - 1}]")
    for a in sorted([a for a in raw if a >= 0]):
        while a < rank and taken[a]:
            a += 1
        if a == rank:
            raise DimensionError(f"unsqueeze_dims: axes {tuple(raw)} need more positions than "
                                 f"the result's {rank} dims")
        taken[a] = True
    for a in sorted([a + rank for a in raw if a < 0], reverse=True):
        while a >= 0 and taken[a]:
            a -= 1
        if a < 0:
            raise DimensionError(f"unsqueeze_dims: axes {tuple(raw)} need more positions than "
                                 f"the result's {rank} dims")
        taken[a] = True
    rest = iter(shape)
    new = tuple([1 if t else next(rest) for t in taken])
    return _reshape_to(self, new, "unsqueeze_dims")


@_method("unsqueeze_to")
def _unsqueeze_to(self, rank):
    """New leading size-1 dims up to ``rank`` dims (Burn's ``unsqueeze::<D2>()``).

    >>> import ember
    >>> ember.tensor([[1, 2], [3, 4]]).unsqueeze_to(4).shape
    (1, 1, 2, 2)
    """
    shape = self._data.shape
    r = as_int(rank, "unsqueeze_to", "rank")
    check_rank(r, "unsqueeze_to", "rank", rank)
    if r < len(shape):
        raise InvalidParameterError(
            f"unsqueeze_to: rank {r} is smaller than the tensor's rank {len(shape)} (shape "
            f"{tuple(shape)}); expected rank >= {len(shape)}", "rank", rank)
    return _reshape_to(self, (1,) * (r - len(shape)) + shape, "unsqueeze_to")


# -- module functions (PyTorch's spellings) -------------------------------------------------------

def _input(x, op):
    return check_tensor(x, op, "input")


def reshape(input, shape, *args):
    """``ember.reshape(x, shape)`` is ``x.reshape(shape)``.

    >>> import ember
    >>> ember.reshape(ember.tensor([1, 2, 3, 4]), (2, 2)).tolist()
    [[1, 2], [3, 4]]
    """
    return _reshape(_input(input, "reshape"), shape, *args)


def permute(input, dims, *args):
    """``ember.permute(x, dims)`` is ``x.permute(dims)``.

    >>> import ember
    >>> ember.permute(ember.tensor([[1, 2]]), (1, 0)).tolist()
    [[1], [2]]
    """
    return _permute(_input(input, "permute"), dims, *args)


def flip(input, dims, *args):
    """``ember.flip(x, dims)`` is ``x.flip(dims)``.

    >>> import ember
    >>> ember.flip(ember.tensor([1, 2, 3]), 0).tolist()
    [3, 2, 1]
    """
    return _flip(_input(input, "flip"), dims, *args)


def transpose(input, dim0=-2, dim1=-1):
    """``ember.transpose(x, dim0, dim1)`` is ``x.transpose(dim0, dim1)``.

    >>> import ember
    >>> ember.transpose(ember.tensor([[1, 2]]), 0, 1).tolist()
    [[1], [2]]
    """
    return _transpose(_input(input, "transpose"), dim0, dim1)


def t(input):
    """``ember.t(x)`` is ``x.t()``.

    >>> import ember
    >>> ember.t(ember.tensor([[1, 2]])).tolist()
    [[1], [2]]
    """
    return _t(_input(input, "t"))


def movedim(input, source, destination):
    """``ember.movedim(x, source, destination)`` is ``x.movedim(source, destination)``.

    >>> import ember
    >>> ember.movedim(ember.tensor([[[1, 2, 3]]]), 2, 0).shape
    (3, 1, 1)
    """
    return _movedim(_input(input, "movedim"), source, destination)


def flatten(input, start_dim=0, end_dim=-1):
    """``ember.flatten(x, start_dim, end_dim)`` is ``x.flatten(start_dim, end_dim)``.

    >>> import ember
    >>> ember.flatten(ember.tensor([[1, 2], [3, 4]])).tolist()
    [1, 2, 3, 4]
    """
    return _flatten(_input(input, "flatten"), start_dim, end_dim)


def unflatten(input, dim, sizes):
    """``ember.unflatten(x, dim, sizes)`` is ``x.unflatten(dim, sizes)``.

    >>> import ember
    >>> ember.unflatten(ember.tensor([1, 2, 3, 4]), 0, (2, 2)).tolist()
    [[1, 2], [3, 4]]
    """
    return _unflatten(_input(input, "unflatten"), dim, sizes)


def squeeze(input, dim=None):
    """``ember.squeeze(x, dim)`` is ``x.squeeze(dim)``.

    >>> import ember
    >>> ember.squeeze(ember.tensor([[1, 2]])).tolist()
    [1, 2]
    """
    return _squeeze(_input(input, "squeeze"), dim)


def unsqueeze(input, dim):
    """``ember.unsqueeze(x, dim)`` is ``x.unsqueeze(dim)``.

    >>> import ember
    >>> ember.unsqueeze(ember.tensor([1, 2]), 1).tolist()
    [[1], [2]]
    """
    return _unsqueeze(_input(input, "unsqueeze"), dim)
