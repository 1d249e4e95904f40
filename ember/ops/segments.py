"""Segments: ``cat`` and ``stack`` join a family of tensors along an axis; ``split``,
``split_with_sizes``, ``chunk``, ``unbind`` and ``iter_dim`` cut one tensor into such a family.

The two directions are inverse (TorchLean's segment laws), empty families and zero-length
segments included, and so are their gradients: the backward of ``cat`` splits, and the backward
of a split is one ``cat`` of the parts' gradients. The parts of a split are views of its input.

>>> import ember
>>> x = ember.tensor([[1, 2, 3], [4, 5, 6]])
>>> a, b = x.split([1, 2], dim=1)
>>> ember.cat([a, b], dim=1).tolist() == x.tolist()
True
"""

from types import MethodType
from weakref import ref as _weakref

from .. import dtypes as _dt
from ..autodiff.graph import _mode, enable_grad
from ..devices import as_device
from ..errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import MAX_RANK, as_int, check_rank, normalize_dim
from .._tensor import Tensor, backend_of_all, check_tensor, record, saved, tensor_method, wrap
from .views import _reshape_to

__all__ = ["cat", "stack", "split", "split_with_sizes", "chunk", "unbind"]

_FULL = slice(None)


# -- argument checks --------------------------------------------------------------------------

def _family(tensors, op):
    """``tensors`` checked to be a list or tuple of Tensors."""
    if not isinstance(tensors, (list, tuple)):
        hint = f"; use t0.{op}(t1, ...) or ember.{op}([t0, t1])" if isinstance(tensors, Tensor) else ""
        raise InvalidParameterError(f"{op}: tensors must be a list or tuple of Tensors, got "
                                    f"{type(tensors).__name__}{hint}", "tensors", tensors)
    # One set of classes (usually just Tensor) instead of an isinstance per tensor; the loop
    # runs only to name the first tensor that is not one.
    if not all(issubclass(c, Tensor) for c in {t.__class__ for t in tensors}):
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise InvalidParameterError(f"{op}: tensor {i} is a {type(t).__name__}, expected "
                                            "a Tensor", "tensors", t)
    return tensors


def _shape_param(shape, op):
    if shape is None:
        return None
    if not isinstance(shape, (list, tuple)):
        raise InvalidParameterError(f"{op}: shape must be a tuple of sizes, got "
                                    f"{type(shape).__name__} {shape!r}", "shape", shape)
    check_rank(len(shape), op, "shape", tuple(shape))
    out = tuple(as_int(s, op, "shape", wide=True) for s in shape)  # sizes checked below
    for s in out:
        if s < 0:
            raise InvalidParameterError(f"{op}: shape {out} has negative size {s}; expected sizes "
                                        ">= 0", "shape", shape)
        if s >= 1 << 63:
            raise InvalidParameterError(f"{op}: shape {out} has size {s}, too large for an array; "
                                        "expected sizes < 2**63", "shape", shape)
    return out


def _dtype_param(dtype):
    return None if dtype is None else _dt.as_dtype(dtype)


def _check_out_dtype(src, dtype, op):
    """KindError when ``dtype=`` would turn complex tensors (of dtype ``src``) real: no op drops
    the imaginary part on its own (docs/complex.md)."""
    if src.kind == "complex" and dtype.kind != "complex":
        raise KindError(f"{op}: the tensors have dtype {src.name} and dtype={dtype.name} would "
                        "drop the imaginary part; expected a complex dtype, or take .real(), "
                        ".imag() or .abs() first")


def _new_dim(dim, rank, op):
    """A dim for a new axis of a result of rank ``rank + 1``: in [-(rank + 1), rank]."""
    check_rank(rank + 1, op, "tensors", None)
    d = as_int(dim, op, "dim")
    nd = d + rank + 1 if d < 0 else d
    if not 0 <= nd <= rank:
        raise DimensionError(f"{op}: dim {d} is out of range for stacking tensors of rank {rank}; "
                             f"expected a dim in [{-rank - 1}, {rank}]")
    return nd


def _sizes_list(sizes, n, d, op):
    out = [as_int(s, op, "sizes") for s in sizes]
    for s in out:
        if s < 0:
            raise InvalidParameterError(f"{op}: sizes {out} hold negative size {s}; expected sizes "
                                        ">= 0", "sizes", sizes)
    total = sum(out)
    if total != n:
        raise InvalidParameterError(f"{op}: sizes {out} sum to {total}, expected {n} (the size of "
                                    f"dim {d})", "sizes", sizes)
    return out


# -- joining ----------------------------------------------------------------------------------

def cat(tensors, dim=0, *, shape=None, dtype=None):
    """Join ``tensors`` along the existing dim ``dim`` (negative counts from the end).

    Shapes must agree except at ``dim``; zero-length tensors take part. Mixed dtypes promote as
    in PyTorch (``ember.promote_types``). An empty family raises InvalidParameterError unless
    ``shape`` (the shape the tensors would have) is given: the result then has that shape with
    size 0 at ``dim``. ``dtype`` sets the result's dtype (default: the promoted one; float32 for
    an empty family). Also ``Tensor.cat([t0, t1], dim)`` and ``t0.cat(t1, t2, dim=0)``.

    >>> import ember
    >>> t0, t1 = ember.tensor([[1, 2]]), ember.tensor([[3, 4]])
    >>> ember.cat([t0, t1]).tolist()
    [[1, 2], [3, 4]]
    >>> t0.cat(t1, dim=1).tolist()
    [[1, 2, 3, 4]]
    >>> ember.cat([], dim=1, shape=(2, 5)).shape
    (2, 0)
    """
    # Fast path, the common family: Tensors of one dtype, one checkpointing strategy and one
    # device, all checked in the one pass that reads their arrays (the result is what the
    # general path gives them: same kernel, same record). Only Tensors hold an ember DType in
    # ``_dtype``, so the dtype's identity is the type check too; anything else
    # (AttributeError, or a check failing), a shape error included, takes the general path
    # below, which words the errors.
    if shape is None and dtype is None and tensors.__class__ in (list, tuple) and tensors:
        t0 = tensors[0]
        if isinstance(t0, Tensor):
            dt, ad, dev = t0._dtype, t0._ad, t0._device
            tracked = False
            try:
                arrays = []
                for t in tensors:
                    if t._dtype is not dt or t._ad is not ad or t._device is not dev:
                        break
                    if t._node is not None:
                        tracked = True
                    arrays.append(t._data)
            except AttributeError:
                arrays = ()
            if len(arrays) == len(tensors):
                d = normalize_dim(dim, t0._data.ndim, "cat")
                try:
                    data = dev.backend.segments_cat(arrays, d, op="cat")
                except (ValueError, RuntimeError, TypeError):  # (JAX: TypeError) the general
                    data = None                                  # path below words the error
                if data is not None:
                    if not tracked:  # nothing to record: what record() gives, inline
                        return wrap(data, dt, ad)
                    return _record_cat(data, dt, tensors, d, [a.shape[d] for a in arrays],
                                       [dt] * len(arrays))
    tensors = _family(tensors, "cat")
    shape = _shape_param(shape, "cat")
    dtype = _dtype_param(dtype)
    if not tensors:
        if shape is None:
            raise InvalidParameterError("cat: tensors is empty, so the result's shape is unknown; "
                                        "expected at least one tensor, or shape=", "tensors",
                                        tensors)
        d = normalize_dim(dim, len(shape), "cat")
        dt = dtype or _dt.default_float
        be = as_device(None, "cat").backend
        return wrap(be.segments_zeros(shape[:d] + (0,) + shape[d + 1:], dt, op="cat"), dt)
    be = backend_of_all(tensors, "cat")
    ref_shape = tuple(tensors[0]._data.shape) if shape is None else shape
    d = normalize_dim(dim, len(ref_shape), "cat")
    if shape is not None:
        _check_cat_shapes(tensors, ref_shape, d)
    # The family's checks as sets (one dtype, shapes left to NumPy's own check) rather than a
    # Python loop per tensor: the loop runs only to word the error once a check failed.
    dtypes = {t._dtype for t in tensors}
    single = len(dtypes) == 1
    promoted = tensors[0]._dtype
    if not single:
        for t in tensors:
            promoted = _dt.promote_types(promoted, t._dtype)
    if dtype is not None:
        _check_out_dtype(promoted, dtype, "cat")
    out_dtype = dtype or promoted
    arrays = [t._data for t in tensors]
    try:
        data = be.segments_cat(arrays, d, None if single and out_dtype is promoted else
                               out_dtype, op="cat")
    except (ValueError, RuntimeError, TypeError):  # (JAX: TypeError for ranks that differ)
        _check_cat_shapes(tensors, ref_shape, d)  # raises ShapeMismatchError naming the tensor
        raise
    return _record_cat(data, out_dtype, tensors, d, [a.shape[d] for a in arrays],
                       [t._dtype for t in tensors])


def _record_cat(data, out_dtype, tensors, d, sizes, sources):
    """``record`` of cat's result ``data``: the gradient is cut at ``sizes`` along ``d`` and
    each part cast back to its tensor's dtype (``sources``)."""
    def rule(g, needs, out):
        # one shared step for all of them, not one per input
        parts = _parts(g, _segment_keys(d, sizes), "cat")
        return tuple([_cast(part, src) if need and src.kind == "float" else None
                      for part, need, src in zip(parts, needs, sources)])

    return record(data, out_dtype, tuple(tensors), rule, "cat")


def _cast(g, dtype):
    return g if g._dtype is dtype else g.cast(dtype)


def _check_cat_shapes(tensors, ref_shape, d):
    """ShapeMismatchError naming the first tensor whose shape differs from ``ref_shape`` off
    ``d`` (or whose rank differs); raised ``from None``, as it may word NumPy's own error."""
    rank = len(ref_shape)
    for i, t in enumerate(tensors):
        ts = tuple(t._data.shape)
        if len(ts) != rank:
            raise ShapeMismatchError(f"cat: tensor {i} has rank {len(ts)}, expected {rank}",
                                     expected=ref_shape, actual=ts) from None
        if ts[:d] != ref_shape[:d] or ts[d + 1:] != ref_shape[d + 1:]:
            expected = ref_shape[:d] + (ts[d],) + ref_shape[d + 1:]
            raise ShapeMismatchError(f"cat: tensor {i} has shape {ts}, expected {expected} "
                                     f"(shapes must agree except at dim {d})",
                                     expected=expected, actual=ts) from None


def _unsqueeze(x, d, op):
    be = x._device.backend
    shape = x._data.shape

    def rule(g, needs, out):
        return (_reshape_to(g, shape, op),)

    return record(be.segments_expand_dims(x._data, d), x._dtype, (x,), rule, op)


def stack(tensors, dim=0, *, shape=None, dtype=None):
    """Join same-shaped ``tensors`` along a new dim ``dim`` (in ``[-(rank + 1), rank]``).

    Checked in the Dart ``stack``'s order: an empty family raises InvalidParameterError (unless
    ``shape``, the tensors' shape, is given: the result has a new dim of size 0 at ``dim``); one
    tensor is unsqueezed; then ``dim``; then each tensor's dtype, rank and shape in turn, naming
    the tensor's index. Dtypes must match exactly (no promotion). ``dtype`` sets the result's
    dtype. Also ``Tensor.stack([t0, t1], dim)`` and ``t0.stack(t1, dim=0)``.

    >>> import ember
    >>> t0, t1 = ember.tensor([1, 2]), ember.tensor([3, 4])
    >>> ember.stack([t0, t1], dim=-1).tolist()
    [[1, 3], [2, 4]]
    >>> ember.stack([ember.tensor([1, 2])]).shape
    (1, 2)
    >>> ember.stack([t0, ember.tensor([1, 2, 3])])
    Traceback (most recent call last):
        ...
    ember.errors.ShapeMismatchError: stack: tensor 1 has shape (3,), expected (2,)
    """
    # Fast path: two or more Tensors of one dtype, shape and device and an int dim in range,
    # checked in the one pass that reads their arrays; the general path below gives them the
    # same kernel and record. Anything else (AttributeError: not a Tensor) takes the general
    # path, which checks in the documented order and words the errors.
    if (shape is None and dtype is None and tensors.__class__ in (list, tuple)
            and len(tensors) > 1 and dim.__class__ is int):
        t0 = tensors[0]
        if isinstance(t0, Tensor):
            dt, dev, first_shape = t0._dtype, t0._device, t0._data.shape
            rank = len(first_shape)
            try:
                arrays = []
                for t in tensors:
                    a = t._data
                    if t._dtype is not dt or t._device is not dev or a.shape != first_shape:
                        break
                    arrays.append(a)
            except AttributeError:
                arrays = ()
            if len(arrays) == len(tensors) and -rank - 1 <= dim <= rank and rank < MAX_RANK:
                d = dim + rank + 1 if dim < 0 else dim
                data = dev.backend.segments_stack(arrays, d, dt, op="stack")
                return _record_stack(data, dt, tensors, d)
    tensors = _family(tensors, "stack")
    shape = _shape_param(shape, "stack")
    dtype = _dtype_param(dtype)
    if not tensors:
        if shape is None:
            raise InvalidParameterError("stack: tensors is empty, so the result's shape is "
                                        "unknown; expected at least one tensor, or shape=",
                                        "tensors", tensors)
        d = _new_dim(dim, len(shape), "stack")
        dt = dtype or _dt.default_float
        be = as_device(None, "stack").backend
        return wrap(be.segments_zeros(shape[:d] + (0,) + shape[d:], dt, op="stack"), dt)
    first = tensors[0]
    first_shape = tuple(first._data.shape)
    if shape is not None and first_shape != shape:
        raise ShapeMismatchError(f"stack: tensor 0 has shape {first_shape}, expected {shape} "
                                 "(the shape= given)", expected=shape, actual=first_shape)
    rank = len(first_shape)
    d = _new_dim(dim, rank, "stack")
    if dtype is not None:
        _check_out_dtype(first._dtype, dtype, "stack")
    if len(tensors) == 1:
        out = _unsqueeze(first, d, "stack")
        return out if dtype is None else out.cast(dtype)
    first_dtype = first._dtype
    for i in range(1, len(tensors)):
        t = tensors[i]
        ts = tuple(t._data.shape)
        if t._dtype is not first_dtype:
            raise InvalidParameterError(f"stack: tensor {i} has dtype {t._dtype.name}, expected "
                                        f"{first_dtype.name}; all tensors must have the same dtype",
                                        "dtype", t._dtype)
        if len(ts) != rank:
            raise ShapeMismatchError(f"stack: tensor {i} has rank {len(ts)}, expected {rank}",
                                     expected=first_shape, actual=ts)
        if ts != first_shape:
            raise ShapeMismatchError(f"stack: tensor {i} has shape {ts}, expected {first_shape}",
                                     expected=first_shape, actual=ts)
    out_dtype = dtype or first_dtype
    be = backend_of_all(tensors, "stack")
    data = be.segments_stack([t._data for t in tensors], d, out_dtype, op="stack")
    return _record_stack(data, out_dtype, tensors, d, first_dtype)


def _record_stack(data, out_dtype, tensors, d, src=None):
    """``record`` of stack's result ``data``: the gradient's slices along ``d``, each cast to
    the tensors' dtype ``src`` (default ``out_dtype``)."""
    src = src or out_dtype
    n = len(tensors)

    def rule(g, needs, out):
        head = (_FULL,) * d
        # one shared step for all of them, not one per input
        parts = _parts(g, [head + (i,) for i in range(n)], "stack")
        return tuple([_cast(part, src) if need else None for part, need in zip(parts, needs)])

    return record(data, out_dtype, tuple(tensors), rule, "stack")


class _JoinMethod:
    """One attribute, both spellings: on the class it is the static function
    (``Tensor.cat([t0, t1], dim)``, Burn's), on a tensor a method taking the other tensors as
    arguments (``t0.cat(t1, t2, dim=0)``, tinygrad's)."""

    def __init__(self, fn):
        name = fn.__name__

        def method(self, *others, dim=0, **options):
            for i, t in enumerate(others):
                if not isinstance(t, Tensor):
                    raise InvalidParameterError(
                        f"{name}: argument {i + 1} is a {type(t).__name__}, expected a Tensor; "
                        f"t.{name}(*tensors, dim=...) takes the other tensors as arguments and "
                        "dim as a keyword", "tensors", t)
            return fn([self, *others], dim, **options)

        method.__name__ = name
        method.__qualname__ = f"Tensor.{name}"
        method.__doc__ = fn.__doc__
        self._fn = fn
        self._method = method
        self.__doc__ = fn.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self._fn
        return MethodType(self._method, instance)


Tensor.cat = _JoinMethod(cat)
Tensor.stack = _JoinMethod(stack)


# -- cutting ----------------------------------------------------------------------------------

class _SplitHub:
    """The one backward step shared by the parts of a split.

    Each part hands its gradient to the hub (and passes a 0-d placeholder on); the hub's rule
    then joins them, zeros for the parts no gradient reached, into the input's gradient with one
    ``cat`` (or ``stack``, for parts that dropped the dim): linear in the input's size whatever
    the number of parts, and, being ember ops, differentiable again. Parts that a backward pass
    did not reach are moved to a fresh hub step, so a later pass through them still works.

    The hub keeps no reference to its own Node (the Node's rule refers to the hub) and drops the
    gradients it collected as soon as it has joined them, so a split makes no reference cycle:
    its graph goes as soon as the parts are dropped.
    """

    __slots__ = ("x", "shapes", "dtype", "be", "name", "dim", "stacked", "grads", "parts")

    def __init__(self, x, shapes, dtype, be, name, dim, stacked):
        self.x = saved(x)
        self.shapes = shapes
        self.dtype = dtype
        self.be = be
        self.name = name
        self.dim = dim
        self.stacked = stacked
        self.grads = {}
        self.parts = ()

    def step(self, data):
        """A recorded step of the hub's rule on the input: the parts' one parent, with ``data``
        as its value."""
        return record(data, self.dtype, (self.x,), self.rule, self.name)

    def part_rule(self, i):
        def rule(g, needs, out):
            self.grads[i] = g
            return (wrap(self.be.segments_token(), _dt.float64),)
        return rule

    def rule(self, g, needs, out):
        grads = self.grads
        self.grads = {}
        be, dtype, name = self.be, self.dtype, self.name
        pieces = [grads.get(i) for i in range(len(self.shapes))]
        for i, p in enumerate(pieces):
            if p is None:
                pieces[i] = wrap(be.segments_zeros(self.shapes[i], dtype, op=name), dtype)
            elif p._dtype is not dtype:
                pieces[i] = p.cast(dtype)
        with enable_grad():  # a backward pass records nothing unless it creates a graph
            fresh = self.step(be.segments_token())._node
        for r in self.parts:
            p = r()
            if p is not None and not p.consumed:
                p.parents = (fresh,)
        return ((stack if self.stacked else cat)(pieces, self.dim),)


def _parts(x, keys, name):
    """The views ``x[key]`` for each key, sharing one backward step when ``x`` is tracked.

    ``keys`` (full slices up to one dim, then one entry) either cut that dim into consecutive
    slices covering it (a split) or pick each of its indices in turn (ints: an unbind)."""
    data = x._data
    dtype = x._dtype
    be = x._device.backend
    views = [be.slicing_view(data, k) for k in keys]
    if x._node is None or not views or not _mode.enabled or dtype.kind != "float":
        ad = x._ad
        return [wrap(v, dtype, ad) for v in views]
    d = len(keys[0]) - 1
    hub = _SplitHub(x, [v.shape for v in views], dtype, be, name, d, type(keys[0][d]) is int)
    holder = hub.step(data)
    parts = [record(v, dtype, (holder,), hub.part_rule(i), name) for i, v in enumerate(views)]
    hub.parts = tuple([_weakref(p._node) for p in parts])
    return parts


def _segment_keys(d, sizes):
    head = (_FULL,) * d
    keys = []
    start = 0
    for size in sizes:
        keys.append(head + (slice(start, start + size),))
        start += size
    return keys


def _even_sizes(k, n):
    return [min(k, n - i) for i in range(0, n, k)] if n else [0]


@tensor_method
def split(self, sizes, dim=0):
    """Cut ``dim`` into parts (views), returned as a list.

    ``sizes`` an int: parts of that size, the last one smaller if it does not divide (a
    zero-length dim gives one zero-length part). ``sizes`` a list: one part per entry, zero sizes
    kept; they must sum to the dim's size (``[]`` for a zero-length dim gives ``[]``).

    >>> import ember
    >>> t = ember.tensor([0, 1, 2, 3, 4])
    >>> [p.tolist() for p in t.split(2)]
    [[0, 1], [2, 3], [4]]
    >>> [p.tolist() for p in t.split([1, 0, 4])]
    [[0], [], [1, 2, 3, 4]]
    """
    check_tensor(self, "split", "self")
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), "split")
    n = shape[d]
    if isinstance(sizes, (list, tuple)):
        sizes = _sizes_list(sizes, n, d, "split")
    else:
        k = as_int(sizes, "split", "sizes")
        if k < 0 or (k == 0 and n > 0):
            raise InvalidParameterError(f"split: sizes {k} is not a valid part size for dim {d} of "
                                        f"size {n}; expected a size >= 1, or a list of sizes",
                                        "sizes", sizes)
        sizes = _even_sizes(k, n)
    return _parts(self, _segment_keys(d, sizes), "split")


@tensor_method
def split_with_sizes(self, sizes, dim=0):
    """Burn's ``split_with_sizes``: one part (a view) per entry of ``sizes``, which must sum to the
    size of ``dim``; zero sizes give zero-length parts.

    >>> import ember
    >>> [p.tolist() for p in ember.tensor([0.0, 1.0, 2.0, 3.0, 4.0]).split_with_sizes([2, 3])]
    [[0.0, 1.0], [2.0, 3.0, 4.0]]
    """
    check_tensor(self, "split_with_sizes", "self")
    if not isinstance(sizes, (list, tuple)):
        raise InvalidParameterError(f"split_with_sizes: sizes must be a list of sizes, got "
                                    f"{type(sizes).__name__} {sizes!r}; use split(size) for "
                                    "parts of one size", "sizes", sizes)
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), "split_with_sizes")
    sizes = _sizes_list(sizes, shape[d], d, "split_with_sizes")
    return _parts(self, _segment_keys(d, sizes), "split_with_sizes")


@tensor_method
def chunk(self, chunks, dim=0):
    """At most ``chunks`` parts (views) of ``dim``, each of size ``ceil(n / chunks)`` but the
    last, as PyTorch and tinygrad (so possibly fewer parts); a zero-length dim gives ``chunks``
    zero-length parts.

    >>> import ember
    >>> [p.tolist() for p in ember.tensor(list(range(11))).chunk(6)]
    [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10]]
    >>> len(ember.tensor([1, 2, 3, 4, 5]).chunk(4))
    3
    """
    check_tensor(self, "chunk", "self")
    c = as_int(chunks, "chunk", "chunks")
    if c < 1:
        raise InvalidParameterError(f"chunk: chunks {c} is not positive; expected chunks >= 1",
                                    "chunks", chunks)
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), "chunk")
    n = shape[d]
    sizes = _even_sizes(-(-n // c), n) if n else [0] * c
    return _parts(self, _segment_keys(d, sizes), "chunk")


@tensor_method
def unbind(self, dim=0):
    """The slices along ``dim``, that dim removed, as a list of views (PyTorch's ``unbind``).

    >>> import ember
    >>> [r.tolist() for r in ember.tensor([[1, 2, 3], [4, 5, 6]]).unbind(1)]
    [[1, 4], [2, 5], [3, 6]]
    """
    check_tensor(self, "unbind", "self")
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), "unbind")
    head = (_FULL,) * d
    return _parts(self, [head + (i,) for i in range(shape[d])], "unbind")


@tensor_method
def iter_dim(self, dim):
    """Burn's ``iter_dim``: an iterator over the slices along ``dim``, each keeping that dim with
    size 1 (views).

    >>> import ember
    >>> [r.tolist() for r in ember.tensor([[3.0, 4.5, 2.0], [2.0, 1.5, 3.0]]).iter_dim(0)]
    [[[3.0, 4.5, 2.0]], [[2.0, 1.5, 3.0]]]
    """
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), "iter_dim")
    return iter(_parts(self, _segment_keys(d, [1] * shape[d]), "iter_dim"))

