"""Slicing: basic indexing (views that carry gradients), Burn's slice family, ``narrow``, and the
three ways a tensor object is rebound to a new value (``__setitem__``, ``inplace``, ``extract``).

Basic keys are ints, slices (any step), ``None``, ``Ellipsis`` and tuples of those; their results
are views of the input's buffer. A key holding a Tensor, a list, a NumPy array or a bool anywhere is
an advanced index and goes to ``ember.ops.advanced_indexing``. Nothing here writes into a
tensor's buffer: ``slice_assign``, ``slice_fill`` and ``__setitem__`` compute a new buffer.

>>> import ember
>>> t = ember.tensor([[1, 2, 3], [4, 5, 6]])
>>> t[1, ::-1].tolist()
[6, 5, 4]
>>> t.slice(ember.s[0:1, 1:]).tolist()
[[2, 3]]
"""

import math
from weakref import ref as _weakref

from .. import dtypes as _dt
from ..autodiff.graph import _mode
from ..errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import as_int, normalize_dim
from .._tensor import Family, Tensor, _data_from, device_error, record, tensor_method, wrap
from .advanced_indexing import advanced_getitem, advanced_setitem
from ..autodiff.rules import sum_to
from .views import _reshape_to
from .aliasing import (_leaf_error, _leaf_requiring_grad, _rebind, leave_family,  # noqa: F401
                       write, writing)

__all__ = ["s"]

_FULL = slice(None)
_INDEX_KINDS = "an int, a slice, None, Ellipsis, or an index Tensor, list or array"


class _SliceMaker:
    """``ember.s[...]`` returns its key unchanged, like ``numpy.s_``: a slice, an int or a tuple.

    >>> import ember
    >>> ember.s[1:3, ::2]
    (slice(1, 3, None), slice(None, None, 2))
    >>> ember.s[-2:]
    slice(-2, None, None)
    """

    __slots__ = ()

    def __getitem__(self, key):
        return key

    def __repr__(self):
        return "ember.s"


s = _SliceMaker()


# -- key parsing ------------------------------------------------------------------------------

def _is_advanced(item, be):
    """Whether one element of a key makes the whole key an advanced index (``be``: the indexed
    tensor's backend, which knows its own array types)."""
    t = type(item)
    if t is int or t is slice or item is None or item is Ellipsis:
        return False
    return t is bool or isinstance(item, (Tensor, list, tuple)) or be.slicing_is_index_object(item)


def _int_of(value, op, what):
    """``value`` as a Python int (ints, NumPy ints, anything with ``__index__``; not bools)."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise InvalidParameterError(
            f"{op}: {what} {value!r} ({type(value).__name__}) is not an integer; expected "
            f"{_INDEX_KINDS if what == 'key element' else 'an int'}", "key", value)
    return as_int(value, op, what, wide=True)


def _checked_slice(sl, op):
    """``sl`` with int-or-None parts and a non-zero step (InvalidParameterError otherwise)."""
    start, stop, step = sl.start, sl.stop, sl.step
    if not (start is None or type(start) is int):
        start = _int_of(start, op, "slice start")
    if not (stop is None or type(stop) is int):
        stop = _int_of(stop, op, "slice stop")
    if not (step is None or type(step) is int):
        step = _int_of(step, op, "slice step")
    if step == 0:
        raise InvalidParameterError(f"{op}: slice {sl} has step 0; expected a non-zero step",
                                    "step", 0)
    if start is sl.start and stop is sl.stop and step is sl.step:
        return sl
    return slice(start, stop, step)


def _checked_index(i, size, dim, op):
    if -size <= i < size:
        return i + size if i < 0 else i
    expected = "a dim of size 0 has no indices" if size == 0 else \
        f"expected an index in [{-size}, {size - 1}]"
    raise DimensionError(f"{op}: index {i} is out of range for dim {dim} of size {size}; {expected}")


def _basic_key(items, shape, op):
    """NumPy's basic indexing, checked: (normalized key, shape of the selection)."""
    ndim = len(shape)
    consumed = ellipses = 0
    for it in items:
        if it is None:
            continue
        if it is Ellipsis:
            ellipses += 1
        else:
            consumed += 1
    if ellipses > 1:
        raise InvalidParameterError(f"{op}: the key holds {ellipses} Ellipsis (...); expected at "
                                    "most one", "key", items)
    if consumed > ndim:
        raise DimensionError(f"{op}: {consumed} indices for a tensor of rank {ndim}; expected at "
                             f"most {ndim}")
    key = []
    out_shape = []
    d = 0
    for it in items:
        if it is None:
            key.append(None)
            out_shape.append(1)
        elif it is Ellipsis:
            k = ndim - consumed
            key.extend([_FULL] * k)
            out_shape.extend(shape[d:d + k])
            d += k
        elif type(it) is slice:
            sl = _checked_slice(it, op)
            out_shape.append(len(range(*sl.indices(shape[d]))))
            key.append(sl)
            d += 1
        else:
            key.append(_checked_index(_int_of(it, op, "key element"), shape[d], d, op))
            d += 1
    out_shape.extend(shape[d:])
    return tuple(key), tuple(out_shape)


def _plain_key(items, shape):
    """Whether ``items`` hold, for leading dims of ``shape``, only slices with int or None parts
    and a non-zero step and in-range ints: a key ``_basic_key`` accepts unchanged (up to the sign
    of an in-range negative int, which NumPy reads the same way)."""
    if len(items) > len(shape):
        return False
    ints = False
    for it in items:
        if type(it) is slice:
            start, stop, step = it.start, it.stop, it.step
            if not ((start is None or type(start) is int) and (stop is None or type(stop) is int)
                    and (step is None or (type(step) is int and step != 0))):
                return False
        elif type(it) is int:
            ints = True
        else:
            return False
    if ints:
        for it, size in zip(items, shape):
            if type(it) is int and not -size <= it < size:
                return False
    return True


def _range_slice(spec, size, dim, op):
    """One of Burn's per-dim ranges as a slice: a slice, a ``range`` or an int (one index, kept)."""
    if type(spec) is slice:
        return _checked_slice(spec, op)
    if type(spec) is range:
        return slice(spec.start, spec.stop, spec.step)
    if spec is None or isinstance(spec, (bool, tuple, list, Tensor)) or \
            not hasattr(type(spec), "__index__"):
        raise InvalidParameterError(
            f"{op}: range {spec!r} for dim {dim} is not a range; expected a slice (ember.s[1:3], "
            "slice(1, 3)), a range() or an int", "ranges", spec)
    i = _checked_index(as_int(spec, op, "ranges"), size, dim, op)
    return slice(i, i + 1)


def _ranges_key(ranges, shape, op):
    """Burn's slice argument (a range, or a tuple/list of them, Ellipsis allowed): a key of slices
    (every dim kept) and the shape it selects."""
    specs = ranges if type(ranges) in (tuple, list) else (ranges,)
    ndim = len(shape)
    ellipses = sum(1 for sp in specs if sp is Ellipsis)
    if ellipses > 1:
        raise InvalidParameterError(f"{op}: ranges hold {ellipses} Ellipsis (...); expected at most "
                                    "one", "ranges", ranges)
    n = len(specs) - ellipses
    if n > ndim:
        raise DimensionError(f"{op}: {n} ranges for a tensor of rank {ndim}; expected at most {ndim}")
    key = []
    out_shape = []
    d = 0
    for spec in specs:
        if spec is Ellipsis:
            k = ndim - n
            key.extend([_FULL] * k)
            out_shape.extend(shape[d:d + k])
            d += k
            continue
        sl = _range_slice(spec, shape[d], d, op)
        key.append(sl)
        out_shape.append(len(range(*sl.indices(shape[d]))))
        d += 1
    out_shape.extend(shape[d:])
    return tuple(key), tuple(out_shape)


# -- views ------------------------------------------------------------------------------------

def _view(x, key, name):
    """``x[key]`` (a normalized basic key) as a view that carries the gradient."""
    data = x._data
    be = x._device.backend
    if x._node is None:  # untracked: no gradient rule to build (what record would give)
        return wrap(be.slicing_view(data, key), x._dtype, x._ad)
    shape = data.shape

    def rule(g, needs, out):
        return (_unview(g, shape, key, name),)

    return record(be.slicing_view(data, key), x._dtype, (x,), rule, name)


def _unview(g, shape, key, name):
    """The adjoint of ``_view``: zeros of ``shape`` with ``g`` written at ``key``; its rule is
    the view ``g[key]`` again."""
    def rule(gg, needs, out):
        return (_view(gg, key, name),)

    return record(g._device.backend.slicing_grad(g._data, shape, key), g._dtype, (g,), rule, name)


def __getitem__(self, key):
    """NumPy/PyTorch indexing. Basic keys (ints, slices with any step, None, ``...``) give views.

    Out-of-range ints raise DimensionError; slices clamp as in Python. Keys with a Tensor, list,
    array or bool are advanced indices (``ember.ops.advanced_indexing``).

    >>> import ember
    >>> t = ember.tensor([[1, 2, 3], [4, 5, 6]])
    >>> t[-1].tolist(), t[:, ::2].tolist(), t[None, ..., 1].shape
    ([4, 5, 6], [[1, 3], [4, 6]], (1, 2))
    """
    if isinstance(key, Tensor):  # t[index_tensor]: advanced, whatever its dtype (as below)
        return advanced_getitem(self, key)
    items = key if type(key) is tuple else (key,)
    if _plain_key(items, self._data.shape):  # fast path: ``t[1:, ::2]``, ``t[0]``: nothing to parse
        return _view(self, items, "__getitem__")
    be = self._device.backend
    for it in items:
        if _is_advanced(it, be):
            return advanced_getitem(self, key)
    return _view(self, _basic_key(items, self._data.shape, "__getitem__")[0], "__getitem__")


Tensor.__getitem__ = __getitem__


@tensor_method(name="slice")
def slice_(self, ranges):
    """Burn's ``slice``: the elements in ``ranges``, every dim kept (a view).

    ``ranges`` is one range or a tuple/list with one per leading dim: a Python slice (any step;
    out-of-range bounds clamp; an empty or descending range gives an empty result), a ``range``,
    or an int (that one index, the dim kept with size 1). ``ember.s[...]`` builds them.

    >>> import ember
    >>> t = ember.tensor(list(range(10)))
    >>> t.slice(slice(2, 8)).tolist()
    [2, 3, 4, 5, 6, 7]
    >>> t.slice(ember.s[::-3]).tolist()
    [9, 6, 3, 0]
    >>> ember.tensor([[1, 2], [3, 4]]).slice((1, ember.s[:])).tolist()
    [[3, 4]]
    """
    return _view(self, _ranges_key(ranges, self._data.shape, "slice")[0], "slice")


def _dim_range_key(self, dim, spec, op):
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), op)
    return (_FULL,) * d + (_range_slice(spec, shape[d], d, op),)


@tensor_method
def slice_dim(self, dim, range):  # noqa: A002  (Burn's parameter name)
    """Burn's ``slice_dim``: ``range`` (a slice, a ``range`` or an int kept as size 1) on one dim.

    >>> import ember
    >>> t = ember.tensor([[1, 2, 3], [4, 5, 6]])
    >>> t.slice_dim(1, ember.s[::2]).tolist()
    [[1, 3], [4, 6]]
    >>> t.slice_dim(0, 1).tolist()
    [[4, 5, 6]]
    """
    return _view(self, _dim_range_key(self, dim, range, "slice_dim"), "slice_dim")


@tensor_method
def select_dim(self, dim, index):
    """Burn's ``select_dim``: the entries at ``index`` of ``dim``, that dim removed (a view).

    >>> import ember
    >>> ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).select_dim(1, -2).tolist()
    [2.0, 5.0]
    """
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), "select_dim")
    i = _checked_index(as_int(index, "select_dim", "index"), shape[d], d, "select_dim")
    return _view(self, (_FULL,) * d + (i,), "select_dim")


@tensor_method
def narrow(self, dim, start, length):
    """``length`` entries of ``dim`` from ``start`` (negative counts from the end), as a view.

    >>> import ember
    >>> t = ember.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    >>> t.narrow(0, 1, 2).tolist()
    [[4, 5, 6], [7, 8, 9]]
    >>> t.narrow(-1, -1, 1).tolist()
    [[3], [6], [9]]
    >>> t.narrow(1, 3, 0).shape
    (3, 0)
    """
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), "narrow")
    n = shape[d]
    start = as_int(start, "narrow", "start")
    length = as_int(length, "narrow", "length")
    if not -n <= start <= n:
        raise DimensionError(f"narrow: start {start} is out of range for dim {d} of size {n}; "
                             f"expected a start in [{-n}, {n}]")
    if length < 0:
        raise InvalidParameterError(f"narrow: length {length} is negative; expected a length >= 0",
                                    "length", length)
    if start < 0:
        start += n
    if start + length > n:
        raise DimensionError(f"narrow: start {start} + length {length} exceeds the size {n} of "
                             f"dim {d}; expected start + length <= {n}")
    return _view(self, (_FULL,) * d + (slice(start, start + length),), "narrow")


# -- writes (new buffers) ---------------------------------------------------------------------

def _scalar_value(be, value, dtype, op, param):
    """A 0-d untracked tensor of ``dtype`` (on ``be``'s device) holding the number ``value``;
    None if not a number."""
    kind = _dt._scalar_kind(value)
    if kind is None:
        return None
    if kind == "complex" and dtype.kind != "complex":
        raise _dt.complex_into_error(op, param, value, dtype)
    if dtype.kind == "int" and kind == "float" and not math.isfinite(value):
        raise InvalidParameterError(f"{op}: {param} {value!r} cannot be stored in a {dtype.name} "
                                    "tensor; expected a finite number", param, value)
    try:
        return wrap(be.slicing_scalar(value, dtype), dtype)
    except OverflowError:
        raise InvalidParameterError(f"{op}: {param} {value!r} does not fit the tensor's dtype "
                                    f"{dtype.name}", param, value) from None


def _broadcasts_into(vshape, target):
    extra = len(vshape) - len(target)
    if extra > 0:
        if any(size != 1 for size in vshape[:extra]):
            return False
        vshape = vshape[extra:]
    offset = len(target) - len(vshape)
    return all(size == 1 or size == target[offset + i] for i, size in enumerate(vshape))


def _reduce_to(region, vshape):
    """Sum a gradient region (a Tensor) over the dims broadcasting added, back to ``vshape``."""
    rshape = region._data.shape
    if rshape == vshape:
        return region
    extra = len(vshape) - len(rshape)
    if extra > 0:
        return _reshape_to(sum_to(region, vshape[extra:]), vshape, "__setitem__")
    return sum_to(region, vshape)


def _assign(x, key, v, name):
    """A new tensor: ``x`` with ``v`` (same dtype, broadcastable to ``x[key]``) written at ``key``."""
    if v._device is not x._device:
        raise device_error(name, x, v)
    be = x._device.backend
    vshape = v._data.shape

    def rule(g, needs, out):
        gx = _zero_region(g, key, name) if needs[0] else None
        gv = _reduce_to(_view(g, key, name), vshape) if needs[1] else None
        return gx, gv

    return record(be.slicing_assign(x._data, key, v._data), x._dtype, (x, v), rule, name)


def _zero_region(g, key, name):
    """``g`` with zeros at ``key``: a projection, its own rule."""
    def rule(gg, needs, out):
        return (_zero_region(gg, key, name),)

    return record(g._device.backend.slicing_zero_region(g._data, key), g._dtype, (g,), rule, name)


def _fill(x, key, value, name):
    be = x._device.backend

    def rule(g, needs, out):
        return (_zero_region(g, key, name),)

    return record(be.slicing_fill(x._data, key, value._data), x._dtype, (x,), rule, name)


@tensor_method
def slice_assign(self, ranges, values):
    """Burn's ``slice_assign``: a new tensor with ``values`` written at ``ranges`` (as ``slice``).

    ``values`` must have the selection's shape (ShapeMismatchError) and self's kind (KindError);
    a different dtype of that kind is cast. Gradients reach both self and ``values``.

    >>> import ember
    >>> t = ember.tensor([0.0, 1.0, 2.0, 3.0, 4.0])
    >>> t.slice_assign(ember.s[::-1], ember.tensor([10.0, 11.0, 12.0, 13.0, 14.0])).tolist()
    [14.0, 13.0, 12.0, 11.0, 10.0]
    >>> t.slice_assign(ember.s[1:3], ember.tensor([-1.0, -2.0])).tolist()
    [0.0, -1.0, -2.0, 3.0, 4.0]
    """
    key, region = _ranges_key(ranges, self._data.shape, "slice_assign")
    if not isinstance(values, Tensor):
        raise InvalidParameterError(
            f"slice_assign: values must be a Tensor, got {type(values).__name__}; use slice_fill "
            "for a number", "values", values)
    if values._dtype.kind != self._dtype.kind:
        raise KindError(f"slice_assign: values are a {values._dtype.kind} tensor (dtype "
                        f"{values._dtype.name}); expected a {self._dtype.kind} tensor like self "
                        f"({self._dtype.name})")
    if values._data.shape != region:
        actual = tuple(values._data.shape)
        raise ShapeMismatchError(f"slice_assign: values have shape {actual}, expected "
                                 f"{region} (the shape of the slice)", expected=region,
                                 actual=actual)
    if values._dtype is not self._dtype:
        values = values.cast(self._dtype)
    return _assign(self, key, values, "slice_assign")


@tensor_method
def slice_fill(self, ranges, value):
    """Burn's ``slice_fill``: a new tensor with the number ``value`` at ``ranges`` (steps allowed).

    >>> import ember
    >>> ember.tensor([0, 0, 0, 0, 0, 0]).slice_fill(ember.s[::2], 7).tolist()
    [7, 0, 7, 0, 7, 0]
    """
    key, _ = _ranges_key(ranges, self._data.shape, "slice_fill")
    v = _scalar_value(self._device.backend, value, self._dtype, "slice_fill", "value")
    if v is None:
        raise InvalidParameterError(
            f"slice_fill: value must be a number, got {type(value).__name__}; use slice_assign "
            "for a tensor", "value", value)
    return _fill(self, key, v, "slice_fill")


def __setitem__(self, key, value):
    """``t[key] = value``: writes ``value`` at ``key``, in ``t`` and every alias of it (views
    of ``t``, the tensor ``t`` views: ember/ops/aliasing.py), as PyTorch's.

    The value (a tensor, a number or nested lists) broadcasts to the selection and is cast to
    ``t``'s dtype, as in PyTorch. Gradients reach the old value of ``t`` and ``value``.

    >>> import ember
    >>> t = ember.tensor([[1, 2, 3], [4, 5, 6]])
    >>> row = t[0]
    >>> t[:, 1] = 0
    >>> t.tolist(), row.tolist()
    ([[1, 0, 3], [4, 0, 6]], [1, 0, 3])
    """
    items = key if type(key) is tuple else (key,)
    advanced = False
    be = self._device.backend
    for it in items:
        if _is_advanced(it, be):
            advanced = True
            break
    if _mode.enabled and _leaf_requiring_grad(self):
        raise _leaf_error("__setitem__")
    if advanced:
        with writing:
            write(self, advanced_setitem(self, key, value), "__setitem__")
    else:
        op = "__setitem__"
        dtype = self._dtype
        nkey, region = _basic_key(items, self._data.shape, op)
        if isinstance(value, Tensor):
            v = value
        else:
            v = _scalar_value(be, value, dtype, op, "value")
            if v is None:
                v = wrap(*_data_from(value, None, op, self._device))
        if not _broadcasts_into(v._data.shape, region):
            vshape = tuple(v._data.shape)
            raise ShapeMismatchError(f"__setitem__: value of shape {vshape} does not "
                                     f"broadcast to the selection's shape {region}",
                                     expected=region, actual=vshape)
        if v._dtype is not dtype:
            if v._dtype.kind == "complex" and dtype.kind != "complex":
                raise _dt.complex_into_error(op, "value", v, dtype)
            v = v.cast(dtype)
        a = getattr(self, "_alias", None)
        if a is not None and a.__class__ is not Family:
            # a view: write only the selection, a view of it, as PyTorch's copy_ into
            # ``self[key]`` does (the other elements of the tensor it views are not rewritten,
            # so threads writing disjoint parts of it keep each other's writes)
            target = self[key]
            write(target, v.expand(tuple(target.shape)) if tuple(v.shape) != region else v, op)
            return
        with writing:
            write(self, _assign(self, nkey, v, op), op)


Tensor.__setitem__ = __setitem__


@tensor_method
def inplace(self, fn):
    """Burn's ``inplace``: rebind this tensor to ``fn(self)``; returns None.

    Other tensors (views of this one included) keep their values: the tensor leaves the views'
    memory (Burn's tensors are values; PyTorch's spellings write through views). A leaf that
    requires grad can only be updated inside ``ember.no_grad()`` (it then stays that leaf).

    >>> import ember
    >>> t = ember.tensor([1, 2, 3])
    >>> t.inplace(lambda x: x[::-1])
    >>> t.tolist()
    [3, 2, 1]
    """
    if not callable(fn):
        raise InvalidParameterError(f"inplace: fn must be callable, got {type(fn).__name__}",
                                    "fn", fn)
    result = fn(self)
    if not isinstance(result, Tensor):
        raise InvalidParameterError(f"inplace: fn returned {type(result).__name__}; expected a "
                                    "Tensor", "fn", fn)
    leave_family(self)
    _rebind(self, result, "inplace")


@tensor_method
def extract(self):
    """Burn's ``extract``: a tensor with this one's value and graph; this one becomes an empty
    placeholder (every dim of size 0, same rank and dtype; shape ``(0,)`` for a 0-d tensor).

    >>> import ember
    >>> t = ember.tensor([[1, 2], [3, 4]])
    >>> v = t.extract()
    >>> v.tolist(), t.shape
    ([[1, 2], [3, 4]], (0, 0))
    """
    out = wrap(self._data, self._dtype, self._ad)
    node = self._node
    out._node = node
    out.grad = self.grad
    if _leaf_requiring_grad(self):
        node.tensor_ref = _weakref(out)
    shape = (0,) * self._data.ndim or (0,)
    self._data = self._device.backend.slicing_empty(shape, self._dtype)
    self._node = None
    self.grad = None
    return out
