"""Advanced indexing: ``t[key]`` and ``t[key] = value`` for any key NumPy and PyTorch take (ints,
slices, None, Ellipsis, int tensors, lists, arrays and bool masks), with gradients. Basic keys
(views) are ``ember/ops/slicing.py``'s, which sends every other key here.

A key is planned once (``_plan``): ints index first, as PyTorch does; then unit axes for None
and bool entries; then slices and intp arrays under NumPy's rules (advanced indices separated by
a slice go to the front). The kernels are the indexing family's (``be.idx_adv_*``).
"""

import operator

from .. import dtypes as _dt
from ..errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import as_int, broadcast_shapes
from .._tensor import Tensor, check_tensor, device_error, record
from .indexing import _check_range, _fit, _is_array_like, _number, _on, linear_map


def _broadcasts_to(src, dst):
    """Whether shape ``src`` broadcasts to ``dst`` (one way: ``dst`` keeps its shape)."""
    return len(src) <= len(dst) and all(
        s == d or s == 1 for s, d in zip(reversed(src), reversed(dst)))


_NEW, _SLICE, _ARR, _INT = 0, 1, 2, 3


def _key_entries(t, key, op):
    """Classify the entries of a key: (kind, value) with kind int/slice/array/mask/new/bool/ell.
    Index tensors must be on t's device; lists and arrays go there."""
    be = t._device.backend
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if k is None:
            out.append(("new", None))
        elif k is Ellipsis:
            out.append(("ell", None))
        elif isinstance(k, bool):
            out.append(("bool", k))
        elif isinstance(k, slice):
            out.append(("slice", k))
        elif isinstance(k, int):
            out.append(("int", k))
        else:
            if isinstance(k, Tensor):
                if k._device is not t._device:
                    raise device_error(op, t, k)
                arr, kind = k._data, k._dtype.kind
            elif isinstance(k, (list, tuple)) or hasattr(k, "dtype"):
                kt = _on(k, t._device, op)
                arr, kind = kt._data, kt._dtype.kind
                if be.numel(arr) == 0 and isinstance(k, (list, tuple)):
                    arr, kind = be.idx_zero_index(arr.shape), "int"
            elif hasattr(k, "__index__"):
                out.append(("int", operator.index(k)))
                continue
            else:
                raise KindError(f"{op}: index {k!r} of type {type(k).__name__} is not an index; "
                                "expected an int, a slice, None, Ellipsis, an int tensor or a "
                                "bool mask")
            if kind == "bool":
                out.append(("bool", bool(be.idx_scalar_index(arr))) if arr.ndim == 0
                           else ("mask", arr))
            elif kind == "int":
                out.append(("int", be.idx_scalar_index(arr)) if arr.ndim == 0 else ("arr", arr))
            else:
                raise KindError(f"{op}: index tensors must be int (or bool masks), got a {kind} "
                                f"index of shape {tuple(arr.shape)}")
    return out


def _slice_of(s, op):
    def bound(v, name):
        return None if v is None else as_int(v, op, f"slice {name}", wide=True)
    start, stop, step = bound(s.start, "start"), bound(s.stop, "stop"), bound(s.step, "step")
    if step == 0:
        raise InvalidParameterError(f"{op}: slice step 0; expected a nonzero step", "step", 0)
    return slice(start, stop, step)


def _plan(t, key, op):
    """Turn a key into (int_key, axes, key2, kinds2, work_shape): apply int_key (basic), insert
    unit axes at ``axes``, then index with key2 (slices and intp arrays, NumPy's rules)."""
    entries = _key_entries(t, key, op)
    be = t._device.backend
    shape = t._data.shape
    nd = len(shape)
    used = 0
    ells = 0
    for kind, v in entries:
        if kind in ("int", "slice", "arr"):
            used += 1
        elif kind == "mask":
            used += v.ndim
        elif kind == "ell":
            ells += 1
    if ells > 1:
        raise InvalidParameterError(f"{op}: the key has {ells} Ellipses; expected at most one",
                                    "key", key)
    if used > nd:
        raise DimensionError(f"{op}: too many indices: the key indexes {used} dims, the tensor "
                             f"has rank {nd} (shape {tuple(shape)})")
    int_key = None
    key2, kinds2, work = [], [], []
    axes = []
    pos = 0
    for kind, v in entries:
        if kind == "int":
            n = shape[pos]
            if not -n <= v < n:
                raise DimensionError(f"{op}: index {v} is out of range for dim {pos} of size {n}; "
                                     f"expected an index in [{-n}, {n - 1}]" if n else
                                     f"{op}: index {v} is out of range for dim {pos} of size 0; "
                                     "the dim is empty")
            if int_key is None:
                int_key = [slice(None)] * nd
            int_key[pos] = v
            pos += 1
        elif kind == "slice":
            key2.append(_slice_of(v, op))
            kinds2.append(_SLICE)
            work.append(shape[pos])
            pos += 1
        elif kind == "arr":
            n = shape[pos]
            _check_range(be, v, n, op, "index", f"dim {pos}")
            key2.append(be.idx_as_intp(v))
            kinds2.append(_ARR)
            work.append(n)
            pos += 1
        elif kind == "mask":
            m = v.ndim
            want = tuple(shape[pos:pos + m])
            if tuple(v.shape) != want:
                raise ShapeMismatchError(
                    f"{op}: bool mask has shape {tuple(v.shape)}, expected {want} (dims {pos} to "
                    f"{pos + m - 1} of the tensor's shape {tuple(shape)})", expected=want,
                    actual=tuple(v.shape))
            for a in be.idx_nonzero(v):
                key2.append(be.idx_as_intp(a))
                kinds2.append(_ARR)
            work.extend(want)
            pos += m
        elif kind == "new":
            axes.append(len(key2))
            key2.append(slice(None))
            kinds2.append(_SLICE)
            work.append(1)
        elif kind == "bool":
            axes.append(len(key2))
            key2.append(be.idx_zero_index((1,) if v else (0,)))
            kinds2.append(_ARR)
            work.append(1)
        else:  # Ellipsis
            fill = nd - used
            key2.extend([slice(None)] * fill)
            kinds2.extend([_SLICE] * fill)
            work.extend(shape[pos:pos + fill])
            pos += fill
    rest = nd - pos
    key2.extend([slice(None)] * rest)
    kinds2.extend([_SLICE] * rest)
    work.extend(shape[pos:])
    adv = [i for i, k in enumerate(kinds2) if k == _ARR]
    bshape = None
    if len(adv) == 1:
        bshape = key2[adv[0]].shape
    elif adv:
        bshape = broadcast_shapes(*[tuple(key2[i].shape) for i in adv], op=op)
    # the trailing Ellipsis keeps a 0-d result a (writable) array view, not a NumPy scalar
    return (None if int_key is None else tuple(int_key) + (Ellipsis,)), tuple(axes), \
        tuple(key2) + (Ellipsis,), adv, bshape, work


def _result_shape(key2, adv, bshape, work):
    basic = []
    for i, (k, n) in enumerate(zip(key2, work)):
        if i not in adv:
            basic.append((i, len(range(*k.indices(n)))))
    if not adv:
        return tuple(s for _, s in basic)
    if adv == list(range(adv[0], adv[-1] + 1)):
        before = [s for i, s in basic if i < adv[0]]
        after = [s for i, s in basic if i > adv[-1]]
        return tuple(before) + tuple(bshape) + tuple(after)
    return tuple(bshape) + tuple(s for _, s in basic)


def advanced_getitem(t, key):
    """``t[key]`` for any key NumPy and PyTorch take: ints, slices, None, Ellipsis, int tensors,
    lists, arrays and bool masks, with gradients (the scatter-add of the output's gradient).

    Ints index first, as PyTorch does, so ``t[0, :, [0, 1]]`` has shape ``(3, 2)`` for a
    ``(2, 3, 4)`` tensor; advanced indices separated by a slice go to the front, as in NumPy.

    >>> import ember
    >>> t = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> advanced_getitem(t, (slice(None), ember.tensor([2, 0]))).tolist()
    [[3.0, 1.0], [6.0, 4.0]]
    >>> advanced_getitem(t, t.numpy() > 2).tolist()
    [3.0, 4.0, 5.0, 6.0]
    """
    op = "__getitem__"
    check_tensor(t, op, "self")
    be = t._device.backend
    shape = t._data.shape
    if isinstance(key, Tensor) and key._dtype.kind == "int" and key._data.ndim and shape and \
            key._device is t._device:
        # the common t[index_tensor] (an embedding lookup): one array on dim 0
        _check_range(be, key._data, shape[0], op, "index", "dim 0")
        int_key, axes, key2, advanced = None, (), (be.idx_as_intp(key._data),), True
    else:
        int_key, axes, key2, adv, _, _ = _plan(t, key, op)
        advanced = bool(adv)

    def put(g):
        return be.idx_adv_grad(g, shape, int_key, axes, key2, advanced)

    def get(a):
        return be.idx_adv_get(a, int_key, axes, key2)

    return linear_map(t, get, put, op)


def advanced_setitem(t, key, value):
    """The value of ``t`` after ``t[key] = value``: a new tensor (``t`` is unchanged).

    ``value`` (a tensor, a number or nested lists) is converted to t's dtype and broadcast to the
    shape of ``t[key]``. Gradients flow to ``t`` (zero at the written positions) and to ``value``.

    >>> import ember
    >>> t = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> advanced_setitem(t, (ember.tensor([1, 0]), 0), ember.tensor([9.0, 8.0])).tolist()
    [[8.0, 2.0], [9.0, 4.0]]
    >>> t.tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    op = "__setitem__"
    check_tensor(t, op, "self")
    int_key, axes, key2, adv, bshape, work = _plan(t, key, op)
    target = _result_shape(key2, adv, bshape, work)
    dtype = t._dtype
    be = t._device.backend
    if isinstance(value, Tensor):
        vt = value
        if vt._device is not t._device:
            raise device_error(op, t, vt)
    elif isinstance(value, (list, tuple)) or _is_array_like(value):
        vt = _on(value, t._device, op)
    else:
        vt = None
    if vt is None:
        vdata = _number(be, value, dtype, op, "value")
        vshape = vstrip = ()
    else:
        vshape = tuple(vt.shape)
        vstrip = vshape
        while len(vstrip) > len(target) and vstrip[0] == 1:
            vstrip = vstrip[1:]
        if not _broadcasts_to(vstrip, target):
            raise ShapeMismatchError(f"{op}: value has shape {vshape}, which does not broadcast "
                                     f"to the indexed shape {target}", expected=target,
                                     actual=vshape)
        if vt._dtype.kind == "complex" and dtype.kind != "complex":
            raise _dt.complex_into_error(op, "value", vt, dtype)
        vdata = be.idx_reshape(be.cast(vt._data, dtype), vstrip)
    out = be.idx_adv_set(t._data, int_key, axes, key2, vdata)
    value_grad = vt is not None and vt._dtype.kind == "float"

    shape = t._data.shape
    vdt = None if vt is None else vt._dtype

    def zero(a):
        return be.idx_adv_zero(a, int_key, axes, key2)

    def get(a):
        return be.idx_adv_get(a, int_key, axes, key2)

    def put(a):
        return be.idx_adv_grad(a, shape, int_key, axes, key2, bool(adv))

    def rule(g, needs, out_t):
        gx = linear_map(g, zero, zero, op) if needs[0] else None
        if vt is None:
            return (gx,)
        gv = None
        if value_grad and needs[1]:
            gv = _fit(linear_map(g, get, put, op), vstrip, vdt, vshape)
        return gx, gv

    inputs = (t,) if vt is None else (t, vt)
    return record(out, dtype, inputs, rule, op)
