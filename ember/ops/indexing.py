"""The indexing op family: select, take, gather, scatter, their n-d forms, select_assign and
one-hot; the update ops they share (``IndexingUpdateOp``), the index checks, and ``linear_step``
(a recorded linear map whose gradient is its adjoint) that the other index families build on.
Masks and ``where`` live in ``ember/ops/masking.py``; ``t[key]`` in
``ember/ops/advanced_indexing.py``.

Index tensors are int tensors of any int dtype (``KindError`` otherwise; a bool mask only where a
mask is meant). Negative indices count from the end, as in Python: an index into a dim of size
``n`` must lie in ``[-n, n - 1]``, else ``DimensionError`` names the op, the index and the range.
Update ops (``IndexingUpdateOp`` or a string) are add, assign, mul, min and max; on bools add is
or. Repeated indices accumulate for add, mul, min and max; for assign the last one wins.
Gradients flow to the tensor and to the values; index tensors carry none. For min and max
updates every contribution equal to the result gets its whole gradient (Burn's rule: ties are
not split as in PyTorch).
"""

from .. import dtypes as _dt
from ..errors import (DimensionError, EmberError, GraphError, InvalidParameterError, KindError,
                      ShapeMismatchError)
from ..shapes import as_int, check_rank, normalize_dim
from ..autodiff.graph import _mode
from ..autodiff.rules import sum_to
from .._tensor import (Tensor, _data_from, check_kind, check_tensor, device_error, record, saved,
                       tensor_method, wrap)
from .views import reshape_exact as _reshape

__all__ = ["IndexingUpdateOp", "gather", "scatter", "one_hot"]


class IndexingUpdateOp:
    """How an update op combines values with the existing elements (Burn's ``IndexingUpdateOp``).

    The constants are strings, so ``"add"`` and ``IndexingUpdateOp.ADD`` mean the same.

    >>> import ember
    >>> ember.IndexingUpdateOp.ADD
    'add'
    """

    ADD = Add = "add"
    ASSIGN = Assign = "assign"
    MUL = Mul = "mul"
    MIN = Min = "min"
    MAX = Max = "max"


_UPDATES = {"add": "add", "sum": "add", "assign": "assign", "mul": "mul", "multiply": "mul",
            "prod": "mul", "min": "min", "amin": "min", "max": "max", "amax": "max"}


def _update_op(update, op, self):
    """The canonical update name; "min" and "max" order values, which complex tensors have no
    order for (KindError, docs/complex.md); "assign", "add" and "mul" take them."""
    name = _UPDATES.get(update.lower()) if isinstance(update, str) else None
    if name is None:
        raise InvalidParameterError(
            f"{op}: update {update!r} is not an update op; expected one of 'add', 'assign', "
            "'mul', 'min', 'max' (or IndexingUpdateOp.ADD, ...)", "update", update)
    if (name == "min" or name == "max") and self._dtype.kind == "complex":
        raise _dt.complex_error(f"{op} (update={name!r})", "self", self._dtype)
    return name


# -- linear steps ----------------------------------------------------------------------------------
def linear_step(x, data, adjoint, forward, name, dtype=None):
    """Record ``data``, a linear function ``forward`` (on arrays) of ``x``, whose gradient is
    the array map ``adjoint`` (its transpose).

    The gradient is a recorded step of its own (the kernel ``adjoint`` on the gradient's array),
    whose gradient is ``forward`` again: the fused kernels serve every order of derivative.
    ``dtype`` is the result's (default x's); each map gives its result in the dtype of its
    argument's counterpart. Index arrays and masks in the maps are constants.
    """
    in_dt = x._dtype

    def rule(g, needs, out):
        return (linear_step(g, adjoint(g._data), forward, adjoint, name + "_grad", in_dt),)

    return record(data, dtype or in_dt, (x,), rule, name)


def linear_map(x, forward, adjoint, name, dtype=None):
    """``linear_step`` of ``forward(x's array)``."""
    return linear_step(x, forward(x._data), adjoint, forward, name, dtype)


def _fit(g, shape, dtype, final=None):
    """``g`` summed to ``shape`` (broadcast dims), reshaped to ``final`` (default ``shape``)
    and cast to ``dtype``."""
    g = sum_to(g, shape)
    final = tuple(shape if final is None else final)
    if tuple(g.shape) != final:
        g = _reshape(g, final)
    return g if g._dtype is dtype else g.cast(dtype)


# -- argument helpers ------------------------------------------------------------------------------
def _is_array_like(value):
    """Whether ``value`` is an array of some library (it has a shape and a dtype)."""
    return hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, Tensor)


def _on(value, device, op):
    """A new tensor on ``device`` from a list or an array (Python data next to a tensor operand
    goes to that operand's device)."""
    arr, dt = _data_from(value, None, op, device)
    return wrap(arr, dt)


def _index(indices, op, param="indices", self=None):
    """An int tensor on self's device from a tensor, a list, an array or an int; KindError for
    other kinds, DeviceError for an index tensor on another device."""
    device = self._device
    if isinstance(indices, Tensor):
        t = indices
        if t._device is not device:
            raise device_error(op, self, t)
    elif isinstance(indices, (list, tuple)) or _is_array_like(indices):
        t = _on(indices, device, op)
        if isinstance(indices, (list, tuple)) and device.backend.numel(t._data) == 0:
            t = wrap(device.backend.idx_zero_index(t._data.shape), _dt.int64)  # [] is empty
    elif isinstance(indices, bool) or not hasattr(indices, "__index__"):
        raise KindError(f"{op}: {param} must be an int tensor, got {type(indices).__name__} "
                        f"{indices!r}")
    else:
        t = wrap(device.backend.scalar_array(as_int(indices, op, param), _dt.int64), _dt.int64)
    if t._dtype.kind != "int":
        raise KindError(f"{op}: {param} must be an int tensor, got a {t._dtype.kind} tensor "
                        f"(dtype {t._dtype.name})")
    return t


def _check_range(be, arr, n, op, param, where):
    """DimensionError unless every index of ``arr`` is in ``[-n, n - 1]``."""
    bounds = be.idx_bounds(arr)
    if bounds is None:
        return
    lo, hi = bounds
    if lo < -n or hi >= n:
        bad = lo if lo < -n else hi
        expected = (f"expected indices in [{-n}, {n - 1}]" if n else
                    "expected no indices, the dim is empty")
        raise DimensionError(f"{op}: {param} contains {bad}, out of range for {where} of size "
                             f"{n}; {expected}")


def _mask(mask, op, param="mask", self=None):
    """A bool tensor on self's device (or on the default device without ``self``)."""
    if isinstance(mask, Tensor):
        t = mask
        if self is not None and t._device is not self._device:
            raise device_error(op, self, t)
    else:
        t = _on(mask, None if self is None else self._device, op)
    if t._dtype.kind != "bool":
        raise KindError(f"{op}: {param} must be a bool tensor, got a {t._dtype.kind} tensor "
                        f"(dtype {t._dtype.name})")
    return t


def _number(be, value, dtype, op, param):
    """A 0-d backend array of ``dtype`` from a Python number (Burn's ElementConversion)."""
    if isinstance(value, Tensor) or not isinstance(value, (bool, int, float, complex)) and not (
            hasattr(value, "dtype") and hasattr(value, "item") and getattr(value, "ndim", 1) == 0):
        raise KindError(f"{op}: {param} must be a number, got {type(value).__name__} {value!r}")
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, complex):
        if dtype.kind != "complex":
            raise _dt.complex_into_error(op, param, value, dtype)
    elif dtype.kind == "bool":
        value = bool(value)
    elif dtype.kind == "int" and isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidParameterError(f"{op}: {param} {value!r} cannot be stored in a "
                                        f"{dtype.name} tensor; expected a finite number", param,
                                        value)
        value = int(value)
    try:
        return be.scalar_array(value, dtype)
    except (OverflowError, ValueError, RuntimeError):
        raise InvalidParameterError(f"{op}: {param} {value!r} is out of range for dtype "
                                    f"{dtype.name}", param, value) from None


def _values(values, self, op, shape, param="values"):
    """(values tensor or None, backend data in self's dtype) checked against ``shape``."""
    be = self._device.backend
    if not isinstance(values, Tensor):
        return None, _number(be, values, self._dtype, op, param)
    if values._device is not self._device:
        raise device_error(op, self, values)
    if values._dtype.kind != self._dtype.kind:
        raise KindError(f"{op}: {param} is a {values._dtype.kind} tensor (dtype "
                        f"{values._dtype.name}), expected a {self._dtype.kind} tensor like self")
    if tuple(values.shape) != tuple(shape):
        raise ShapeMismatchError(f"{op}: {param} has shape {tuple(values.shape)}, expected "
                                 f"{tuple(shape)}", expected=tuple(shape),
                                 actual=tuple(values.shape))
    return values, be.cast(values._data, self._dtype)


def _updated(self, work, key, vt, vdata, update, op, reshaped=False):
    """Record ``update`` of ``work`` (self's data, maybe reshaped: ``reshaped``) at ``key``
    with values."""
    be = self._device.backend
    out_work = be.idx_update(work, key, vdata, update)
    shape = self._data.shape
    out = be.idx_reshape(out_work, shape) if reshaped else out_work
    wshape = work.shape
    vshape = None if vt is None else vt._data.shape
    vdt = None if vt is None else vt._dtype
    if update == "assign" or update == "add":
        xs = vs = None
    else:
        xs = saved(self)
        vs = None if vt is None else saved(vt)

    def get(a):
        return be.idx_get(a, key)

    def put(a):
        return be.idx_add_into_zeros(wshape, key, a)

    def zero_at(a):
        return be.idx_zero_at(a, key)

    def rule(g, needs, out_t):
        gw = _reshape(g, wshape) if reshaped else g
        gx = gv = None
        if update == "assign":
            if needs[0]:
                gx = linear_map(gw, zero_at, zero_at, op)
            if vt is not None and needs[1]:
                gv = linear_map(gw, get, put, op)
        elif update == "add":
            gx = g
            if vt is not None and needs[1]:
                gv = linear_map(gw, get, put, op)
        elif update == "mul":
            gx, gv = _mul_update_grads(be, gw, xs, vs, vdata, out_work, key, wshape, op,
                                       (needs[0], vt is not None and needs[1]))
        else:
            gx, gv = _minmax_update_grads(be, gw, work, vdata, out_work, key, wshape, op,
                                          vt is not None and needs[1])
        if gx is not None and reshaped:
            gx = _reshape(gx, shape)
        if vt is None:
            return (gx,)
        if gv is not None:
            gv = _fit(gv, vshape, vdt)
        return gx, gv

    inputs = (self,) if vt is None else (self, vt)
    return record(out, self._dtype, inputs, rule, op)


def _minmax_update_grads(be, gw, work, vdata, out_work, key, wshape, op, with_values):
    """Gradients of a min/max update (Burn's rule: every contribution equal to its result gets
    the whole gradient): ``g`` through constant masks, linear in ``g``."""
    dt = gw._dtype
    mx = (wrap(work, dt) == wrap(out_work, dt))._data
    gx = linear_map(gw, lambda a: be.idx_masked(a, mx), lambda a: be.idx_masked(a, mx), op)
    if not with_values:
        return gx, None
    mv = (wrap(vdata, dt) == wrap(be.idx_get(out_work, key), dt))._data
    gv = linear_map(gw, lambda a: be.idx_masked(be.idx_get(a, key), mv),
                    lambda a: be.idx_add_into_zeros(wshape, key, be.idx_masked(a, mv)), op)
    return gx, gv


def _mul_update_grads(be, gw, xs, vs, vdata, out_work, key, wshape, op, needs):
    """Gradients of a mul update, with ember ops. The product ``P`` of the values at each
    position (ones elsewhere) gives self's, ``g * P``; a value's is ``g * x`` at its position
    times the product of the *other* values there: 1 where positions are distinct, ``P / v``
    where they repeat (the kernel's zero-safe rule for repeats with a zero value, first order
    only)."""
    dt = gw._dtype
    ones = be.creation_full(wshape, 1, dt, op=op)
    xw = _reshape(xs, wshape) if tuple(xs.shape) != tuple(wshape) else xs
    if vs is None:  # a number: the product at each position is a constant
        return gw * wrap(be.idx_update(ones, key, vdata, "mul"), dt), None
    vw = vs if vs._dtype is dt else vs.cast(dt)
    prod = _updated(wrap(ones, dt), ones, key, vw, vw._data, "mul", op)
    gx = gw * prod if needs[0] else None
    gv = None
    if needs[1]:
        def get(a):
            return be.idx_get(a, key)

        def put(a):
            return be.idx_add_into_zeros(wshape, key, a)

        gv = linear_map(gw * xw, get, put, op)
        count = put(get(ones))
        bounds = be.idx_bounds(count)
        if bounds is not None and bounds[1] > 1:  # repeated positions
            if (vw == 0.0).any().item():
                if _mode.enabled:
                    raise GraphError(
                        f"{op}: the second-order gradient of a mul update with repeated "
                        "indices and a zero value is not implemented; avoid create_graph=True "
                        "here")
                _, gva = be.idx_mul_grad(gw._data, xw._data, vdata, out_work, key)
                return gx, wrap(gva, dt)
            gv = gv * linear_map(prod, get, put, op) / vw
    return gx, gv


# -- select / take ---------------------------------------------------------------------------------
def _dim_take(self, dim, indices, op, one_d):
    check_tensor(self, op, "self")
    be = self._device.backend
    d = normalize_dim(dim, self._data.ndim, op)
    idx = _index(indices, op, self=self)
    if one_d and idx._data.ndim > 1:
        raise ShapeMismatchError(f"{op}: indices must be 1-D, got shape {tuple(idx.shape)}; "
                                 "use take for indices of any rank", expected=1,
                                 actual=tuple(idx.shape))
    n = self._data.shape[d]
    _check_range(be, idx._data, n, op, "indices", f"dim {d}")
    ia = be.idx_as_intp(idx._data)
    if one_d and ia.ndim == 0:
        ia = be.idx_reshape(ia, (1,))
    key = be.idx_dim_key(ia, d)
    shape = self._data.shape

    def put(g):
        return be.idx_add_into_zeros(shape, key, g)

    def get(x):
        return be.idx_get(x, key)

    return linear_map(self, get, put, op)


@tensor_method
def select(self, dim, indices):
    """The slices at ``indices`` (a 1-D int tensor or list) along ``dim``; repeats allowed.

    >>> import ember
    >>> t = ember.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> t.select(0, ember.tensor([0])).tolist()
    [[1.0, -2.0, 3.0]]
    >>> t.select(1, [2, 0, 2]).tolist()
    [[3.0, 1.0, 3.0], [6.0, 4.0, 6.0]]
    """
    return _dim_take(self, dim, indices, "select", True)


@tensor_method
def take(self, dim, indices):
    """Elements along ``dim`` at ``indices`` of any rank (NumPy's ``take`` with an axis).

    The result has shape ``self.shape[:dim] + indices.shape + self.shape[dim + 1:]``.

    >>> import ember
    >>> t = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> t.take(-1, ember.tensor([2, 0, 1])).tolist()
    [[3.0, 1.0, 2.0], [6.0, 4.0, 5.0]]
    >>> t.take(1, ember.tensor([[0, 2], [1, 0]])).shape
    (2, 2, 2)
    """
    return _dim_take(self, dim, indices, "take", False)


@tensor_method
def select_assign(self, dim, indices, values, update="assign"):
    """A copy with ``values`` combined into the slices at ``indices`` along ``dim``.

    ``values`` has self's shape with ``len(indices)`` at ``dim``; ``update`` is add, assign,
    mul, min or max (repeated indices accumulate for add).

    >>> import ember
    >>> t = ember.tensor([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    >>> v = ember.tensor([[1.0, 2.0], [10.0, 20.0]])
    >>> t.select_assign(0, ember.tensor([2, 2]), v, "add").tolist()
    [[0.0, 0.0], [0.0, 0.0], [11.0, 22.0]]
    """
    op = "select_assign"
    check_tensor(self, op, "self")
    be = self._device.backend
    d = normalize_dim(dim, self._data.ndim, op)
    idx = _index(indices, op, self=self)
    if idx._data.ndim > 1:
        raise ShapeMismatchError(f"{op}: indices must be 1-D, got shape {tuple(idx.shape)}",
                                 expected=1, actual=tuple(idx.shape))
    update = _update_op(update, op, self)
    ia = be.idx_as_intp(idx._data)
    if ia.ndim == 0:
        ia = be.idx_reshape(ia, (1,))
    shape = list(self._data.shape)
    shape[d] = ia.shape[0]
    vt, vdata = _values(values, self, op, shape)
    _check_range(be, ia, self._data.shape[d], op, "indices", f"dim {d}")
    return _updated(self, self._data, be.idx_dim_key(ia, d), vt, vdata, update, op)


# -- gather / scatter ------------------------------------------------------------------------------
def _along(self, dim, index, op):
    """Checks of gather/scatter but the index values' range, which the kernel's own bounds check
    covers (see _along_range); returns (dim, index tensor, lifted) where lifted means 0-d."""
    check_tensor(self, op, "self")
    nd = self._data.ndim
    d = normalize_dim(dim, max(nd, 1), op)
    idx = _index(index, op, "index", self)
    ishape = idx._data.shape
    if len(ishape) != nd:
        raise ShapeMismatchError(f"{op}: index has rank {len(ishape)} (shape {tuple(ishape)}), "
                                 f"expected rank {nd} like self (shape {tuple(self.shape)})",
                                 expected=nd, actual=tuple(ishape))
    for k, (s, i) in enumerate(zip(self._data.shape, ishape)):
        if k != d and i > s:
            raise ShapeMismatchError(
                f"{op}: index has shape {tuple(ishape)}, larger than self's {tuple(self.shape)} "
                f"at dim {k} ({i} > {s}); expected index.shape[k] <= self.shape[k] off dim {d}",
                expected=tuple(self.shape), actual=tuple(ishape))
    return d, idx, nd == 0


def _along_range(self, d, idx, op):
    """After NumPy's IndexError in the gather/scatter kernel: the DimensionError naming the
    index out of range. Checking here, on failure only, spares every call a min/max pass over
    the index; the kernel's result is a new array, so nothing is left half-done."""
    n = self._data.shape[d] if self._data.ndim else 1
    try:
        _check_range(self._device.backend, idx._data, n, op, "index", f"dim {d}")
    except DimensionError as err:
        raise err from None  # ours alone: not shown as raised while handling NumPy's error


@tensor_method
def gather(self, dim, index):
    """Elements along ``dim`` at ``index``: ``out[i][j] = self[index[i][j]][j]`` for dim 0.

    ``index`` has self's rank and may be smaller than self off ``dim`` (tinygrad's rule); the
    result has index's shape.

    >>> import ember
    >>> t = ember.tensor([[1, 2], [3, 4]])
    >>> t.gather(1, ember.tensor([[0, 0], [1, 0]])).tolist()
    [[1, 1], [4, 3]]
    """
    op = "gather"
    d, idx, lifted = _along(self, dim, index, op)
    be = self._device.backend
    x = self._data
    ia = be.idx_as_intp(idx._data)
    shape = x.shape
    if lifted:
        x, ia = be.idx_reshape(x, (1,)), be.idx_reshape(ia, (1,))
    key = be.idx_along_key(ia, d)
    try:
        out = be.idx_gather(x, key)
    except IndexError:
        _along_range(self, d, idx, op)
        raise
    if lifted:
        out = be.idx_reshape(out, ())

        def put(g):
            return be.idx_reshape(be.idx_add_into_zeros((1,), key, be.idx_reshape(g, (1,))),
                                  shape)

        def get(a):
            return be.idx_reshape(be.idx_gather(be.idx_reshape(a, (1,)), key), ())
    else:
        def put(g):
            return be.idx_add_into_zeros(shape, key, g)

        def get(a):
            return be.idx_gather(a, key)

    return linear_step(self, out, put, get, op)


@tensor_method
def scatter(self, dim, index, values, update="assign"):
    """A copy with ``values`` combined in at ``index`` along ``dim`` (the inverse of gather).

    ``values`` has index's shape (or is a number); ``update`` is add, assign, mul, min or max.
    For dim 0: ``out[index[i][j]][j] (update)= values[i][j]``.

    >>> import ember
    >>> t = ember.tensor([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    >>> idx = ember.tensor([[2, 0, 2]])
    >>> t.scatter(1, idx, ember.tensor([[1.0, 2.0, 3.0]]), "add").tolist()
    [[2.0, 0.0, 4.0], [0.0, 0.0, 0.0]]
    """
    op = "scatter"
    d, idx, lifted = _along(self, dim, index, op)
    try:
        update = _update_op(update, op, self)
        vt, vdata = _values(values, self, op, idx._data.shape)
    except EmberError:
        _along_range(self, d, idx, op)  # an index out of range is reported first, as ever
        raise
    be = self._device.backend
    ia = be.idx_as_intp(idx._data)
    work = self._data
    if lifted:
        work, ia = be.idx_reshape(work, (1,)), be.idx_reshape(ia, (1,))
        vdata = be.idx_reshape(vdata, (1,)) if vt is not None else vdata
    try:
        return _updated(self, work, be.idx_along_key(ia, d), vt, vdata, update, op, lifted)
    except IndexError:
        _along_range(self, d, idx, op)
        raise


# -- gather_nd / scatter_nd ------------------------------------------------------------------------
def _nd(self, indices, op):
    """Checks of gather_nd/scatter_nd; returns (key, lead, batch shape, K)."""
    check_tensor(self, op, "self")
    be = self._device.backend
    idx = _index(indices, op, self=self)
    ishape = idx._data.shape
    nd = self._data.ndim
    if len(ishape) < 1:
        raise ShapeMismatchError(f"{op}: indices must have at least 1 dim (its last dim indexes "
                                 "self's leading dims), got a 0-d tensor", expected=1, actual=())
    k = ishape[-1]
    if k > nd:
        raise ShapeMismatchError(f"{op}: indices has last dim {k}, more than self's rank {nd}; "
                                 f"expected at most {nd} (indices shape {tuple(ishape)})",
                                 expected=nd, actual=tuple(ishape))
    bounds = be.idx_bounds_last(idx._data) if k else None
    if bounds is not None:
        for col, (lo, hi) in enumerate(zip(*bounds)):
            n = self._data.shape[col]
            if lo < -n or hi >= n:
                bad = lo if lo < -n else hi
                expected = (f"expected indices in [{-n}, {n - 1}]" if n else
                            "expected no indices, the dim is empty")
                raise DimensionError(f"{op}: indices column {col} contains {bad}, out of range "
                                     f"for dim {col} of size {n}; {expected}")
    batch = ishape[:-1]
    if k == 0:
        return be.idx_lead_key(batch), True, batch, k
    return be.idx_nd_key(be.idx_as_intp(idx._data)), False, batch, k


@tensor_method
def gather_nd(self, indices):
    """Slices of self at the multi-indices in the last dim of ``indices``.

    With ``K = indices.shape[-1]``, the result has shape
    ``indices.shape[:-1] + self.shape[K:]``: ``out[b] = self[tuple(indices[b])]``.

    >>> import ember
    >>> t = ember.tensor([[1, 2], [3, 4]])
    >>> t.gather_nd(ember.tensor([[1, 0], [0, 1]])).tolist()
    [3, 2]
    >>> t.gather_nd(ember.tensor([[1]])).tolist()
    [[3, 4]]
    """
    op = "gather_nd"
    key, lead, batch, k = _nd(self, indices, op)
    be = self._device.backend
    x = be.idx_lead(self._data) if lead else self._data
    wshape = x.shape

    def put(g):
        gx = be.idx_add_into_zeros(wshape, key, g)
        return be.idx_unlead(gx) if lead else gx

    def get(a):
        return be.idx_get(be.idx_lead(a) if lead else a, key)

    return linear_step(self, be.idx_get(x, key), put, get, op)


@tensor_method
def scatter_nd(self, indices, values, update="assign"):
    """A copy with ``values`` combined in at the multi-indices of ``indices`` (gather_nd's inverse).

    ``values`` has shape ``indices.shape[:-1] + self.shape[K:]`` with ``K = indices.shape[-1]``.

    >>> import ember
    >>> t = ember.tensor([[0, 0], [0, 0]])
    >>> t.scatter_nd(ember.tensor([[1, 0], [1, 0]]), ember.tensor([5, 6]), "add").tolist()
    [[0, 0], [11, 0]]
    """
    op = "scatter_nd"
    key, lead, batch, k = _nd(self, indices, op)
    update = _update_op(update, op, self)
    vt, vdata = _values(values, self, op, tuple(batch) + tuple(self._data.shape[k:]))
    be = self._device.backend
    if not lead:
        return _updated(self, self._data, key, vt, vdata, update, op)
    return _updated(self, be.idx_lead(self._data), key, vt, vdata, update, op, True)


# -- one-hot ---------------------------------------------------------------------------------------
@tensor_method
def one_hot_fill(self, num_classes, on_value=1.0, off_value=0.0, axis=-1):
    """One-hot encoding: a new dim of size ``num_classes`` at ``axis`` holding ``on_value`` at
    each element's class and ``off_value`` elsewhere; self's dtype.

    Class indices are int (or whole floats) in ``[-num_classes, num_classes - 1]``; negative
    ones count from the end.

    >>> import ember
    >>> t = ember.tensor([[0.0, 2.0], [1.0, -1.0]])
    >>> t.one_hot_fill(3, 5.0, 0.0, -1).tolist()
    [[[5.0, 0.0, 0.0], [0.0, 0.0, 5.0]], [[0.0, 5.0, 0.0], [0.0, 0.0, 5.0]]]
    """
    op = "one_hot_fill"
    return _one_hot(self, num_classes, on_value, off_value, axis, op)


def _one_hot(self, num_classes, on_value, off_value, axis, op):
    check_tensor(self, op, "self")
    if self._dtype.kind == "complex":  # class indices are whole real numbers
        raise _dt.complex_error(op, "self", self._dtype)
    check_kind(self, ("int", "float"), op)
    n = as_int(num_classes, op, "num_classes")
    if n < 0:
        raise InvalidParameterError(f"{op}: num_classes {n} is negative; expected >= 0",
                                    "num_classes", n)
    check_rank(self._data.ndim + 1, op, "self", self.shape)
    ax = normalize_dim(axis, self._data.ndim + 1, op, "axis")
    be = self._device.backend
    on = _number(be, on_value, self._dtype, op, "on_value")
    off = _number(be, off_value, self._dtype, op, "off_value")
    data = self._data
    if self._dtype.kind == "float":
        if not be.idx_is_integral(data):
            raise InvalidParameterError(f"{op}: class indices must be whole numbers, got "
                                        "fractional, NaN or infinite values", "self", None)
    _check_range(be, data, n, op, "class index", "num_classes")
    ia = be.idx_wrap_negative(be.idx_as_intp(data), n)
    out = be.idx_one_hot(ia, n, on, off, ax, self._dtype, op=op)
    return wrap(out, self._dtype)


@tensor_method
def one_hot(self, num_classes):
    """One-hot encoding in a new last dim of size ``num_classes`` (1 at the class, else 0).

    >>> import ember
    >>> ember.tensor([0, 2, -1]).one_hot(3).tolist()
    [[1, 0, 0], [0, 0, 1], [0, 0, 1]]
    """
    return _one_hot(self, num_classes, 1, 0, -1, "one_hot")
