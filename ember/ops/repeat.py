"""The copying movement ops: roll, roll_dim, repeat, repeat_dim, repeat_interleave, and unfold
(a read-only view of sliding windows) with its adjoint fold.

roll, repeat and repeat_interleave return new buffers; unfold returns a view. Nothing ever
writes into an input. Float results record their gradient rule.

See docs/movement.md for a guide.
"""

from .. import dtypes as _dt
from ..backends.guard import check_result
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import argfix, as_int, check_rank, normalize_dim, normalize_dims
from .._tensor import Tensor, _data_from, backend_of, record, wrap
from .views import _expand_to, _flatten, _input, _is_seq, _method, _reshape_to

__all__ = ["roll", "repeat_interleave"]


# -- roll, repeat, unfold ------------------------------------------------------------------------

def _roll_to(x, shifts, axes, op):
    out = x._device.backend.mv_roll(x._data, shifts, axes)
    back = tuple([-s for s in shifts]) if isinstance(shifts, tuple) else -shifts

    def rule(g, needs, out):
        return (_roll_to(g, back, axes, op),)

    return record(out, x._dtype, (x,), rule, op)


@_method("roll")
def _roll(self, shifts, dims=None):
    """The elements shifted along ``dims`` by ``shifts`` with wrap-around; a positive shift
    moves elements to higher indices (NumPy and PyTorch). ``shifts`` and ``dims`` are ints or
    sequences of the same length (a dim may repeat: its shifts add up); with ``dims=None`` the
    flattened tensor is rolled and the shape restored.

    >>> import ember
    >>> t = ember.tensor([[0, 1, 2], [3, 4, 5]])
    >>> t.roll(1, 1).tolist()
    [[2, 0, 1], [5, 3, 4]]
    >>> t.roll(1).tolist()
    [[5, 0, 1], [2, 3, 4]]
    """
    if dims is None:
        if _is_seq(shifts):
            if len(shifts) != 1:
                raise InvalidParameterError(
                    f"roll: shifts {tuple(shifts)} needs dims of the same length; with dims=None "
                    "expected a single shift", "shifts", shifts)
            shifts = shifts[0]
        return _roll_to(self, as_int(shifts, "roll", "shifts", wide=True), None, "roll")
    s_list = list(shifts) if _is_seq(shifts) else [shifts]
    d_list = list(dims) if _is_seq(dims) else [dims]
    if len(s_list) != len(d_list):
        raise InvalidParameterError(
            f"roll: shifts {shifts!r} and dims {dims!r} have different lengths ({len(s_list)} "
            f"and {len(d_list)}); expected one shift per dim", "shifts", shifts)
    s_list = tuple([as_int(s, "roll", "shifts", wide=True) for s in s_list])
    axes = normalize_dims(d_list, self._data.ndim, "roll", "dims", allow_duplicates=True)
    return _roll_to(self, s_list, axes, "roll")


@_method("roll_dim")
def _roll_dim(self, shift, dim):
    """The elements shifted by ``shift`` along ``dim`` with wrap-around (Burn's ``roll_dim``,
    NumPy's direction: ``[0, 1, 2, 3, 4]`` rolled by 2 is ``[3, 4, 0, 1, 2]``).

    >>> import ember
    >>> ember.tensor([0, 1, 2, 3, 4]).roll_dim(2, 0).tolist()
    [3, 4, 0, 1, 2]
    """
    s = as_int(shift, "roll_dim", "shift", wide=True)
    d = normalize_dim(dim, self._data.ndim, "roll_dim")
    return _roll_to(self, (s,), (d,), "roll_dim")


def _repeat_impl(x, reps, op):
    shape = x._data.shape
    nd = len(shape)
    reps = [as_int(r, op, "repeats") for r in reps]
    for r in reps:
        if r < 0:
            raise InvalidParameterError(
                f"{op}: repeats {tuple(reps)} has negative count {r}; expected counts >= 0",
                "repeats", tuple(reps))
    if len(reps) < nd:
        reps = reps + [1] * (nd - len(reps))
    base = (1,) * (len(reps) - nd) + shape
    check_result(op, tuple([r * b for r, b in zip(reps, base)]), x._dtype.itemsize)
    y = _reshape_to(x, tuple([v for b in base for v in (1, b)]), op)
    y = _expand_to(y, tuple([v for r, b in zip(reps, base) for v in (r, b)]), op)
    return _reshape_to(y, tuple([r * b for r, b in zip(reps, base)]), op)


@_method("repeat")
def _repeat(self, repeats, *args):
    """The tensor tiled ``repeats[i]`` times along dim ``i`` (varargs or one sequence).

    More counts than dims add leading dims (tinygrad, PyTorch); fewer apply to the leading dims
    (Burn). Always a new buffer.

    >>> import ember
    >>> ember.tensor([1, 2, 3]).repeat(2, 2).tolist()
    [[1, 2, 3, 1, 2, 3], [1, 2, 3, 1, 2, 3]]
    """
    return _repeat_impl(self, argfix((repeats,) + args, "repeat", "repeats"), "repeat")


@_method("repeat_dim")
def _repeat_dim(self, dim, times):
    """The tensor tiled ``times`` times along ``dim`` (Burn's ``repeat_dim``).

    >>> import ember
    >>> ember.tensor([[1, 2]]).repeat_dim(0, 3).tolist()
    [[1, 2], [1, 2], [1, 2]]
    """
    d = normalize_dim(dim, self._data.ndim, "repeat_dim")
    times = as_int(times, "repeat_dim", "times")
    if times < 0:
        raise InvalidParameterError(f"repeat_dim: times {times} is negative; expected >= 0",
                                    "times", times)
    reps = [1] * self._data.ndim
    reps[d] = times
    return _repeat_impl(self, reps, "repeat_dim")


@_method("repeat_interleave")
def _repeat_interleave(self, repeats, dim=None):
    """Each element repeated ``repeats`` times along ``dim`` (``None``: of the flattened tensor).

    ``repeats`` is an int, or an int tensor (or sequence) with one count per element along
    ``dim`` (or a single count).

    >>> import ember
    >>> ember.tensor([1, 2, 3]).repeat_interleave(2).tolist()
    [1, 1, 2, 2, 3, 3]
    >>> ember.tensor([[1, 2], [3, 4]]).repeat_interleave([1, 2], dim=0).tolist()
    [[1, 2], [3, 4], [3, 4]]
    """
    op = "repeat_interleave"
    if dim is None:
        x, d = _flatten(self), 0
    else:
        x, d = self, normalize_dim(dim, self._data.ndim, op)
    shape = x._data.shape
    if isinstance(repeats, Tensor) or _is_seq(repeats):
        if isinstance(repeats, Tensor):
            reps = repeats
        else:
            try:
                reps = wrap(*_data_from(list(repeats), None, op, x._device))
            except (KindError, InvalidParameterError):
                raise InvalidParameterError(
                    f"{op}: repeats {repeats!r} must be ints", "repeats", repeats) from None
            if not repeats:
                reps = reps.cast(_dt.int64)
        if reps.kind != "int":
            raise KindError(f"{op}: repeats must be an int tensor, got {reps.dtype.name}")
        if reps.ndim > 1 or reps.numel() not in (1, shape[d]):
            raise ShapeMismatchError(
                f"{op}: repeats has shape {tuple(reps.shape)}; expected a single count or one "
                f"count per element along dim {d} (size {shape[d]})", expected=(shape[d],),
                actual=tuple(reps.shape))
        be = backend_of(x, reps, op)
        if be.mv_any_negative(reps._data):
            raise InvalidParameterError(f"{op}: repeats has a negative count; expected >= 0",
                                        "repeats", repeats)
        counts = be.mv_reshape(reps._data, (-1,), op) if reps.ndim else reps._data
        return _repeat_counts(x, counts, d, op)
    r = as_int(repeats, op, "repeats")
    if r < 0:
        raise InvalidParameterError(f"{op}: repeats {r} is negative; expected >= 0",
                                    "repeats", repeats)
    y = _reshape_to(x, shape[:d + 1] + (1,) + shape[d + 1:], op)
    y = _expand_to(y, shape[:d + 1] + (r,) + shape[d + 1:], op)
    return _reshape_to(y, shape[:d] + (shape[d] * r,) + shape[d + 1:], op)


def _repeat_counts(x, counts, d, op):
    """Each entry of ``x`` along ``d`` repeated by the int array ``counts`` (constants); its
    rule sums the copies back (``_unrepeat_counts``)."""
    shape = x._data.shape

    def rule(g, needs, out):
        return (_unrepeat_counts(g, shape, counts, d, op),)

    return record(x._device.backend.mv_repeat_interleave(x._data, counts, d, op=op), x._dtype,
                  (x,), rule, op)


def _unrepeat_counts(g, shape, counts, d, op):
    """The adjoint of ``_repeat_counts``: the copies summed into ``shape``; its rule repeats
    again."""
    def rule(gg, needs, out):
        return (_repeat_counts(gg, counts, d, op),)

    return record(g._device.backend.mv_repeat_interleave_backward(g._data, shape, counts, d),
                  g._dtype, (g,), rule, op)


@_method("unfold")
def _unfold(self, dim, size, step):
    """The windows of ``size`` elements every ``step`` along ``dim``, as a read-only view.

    Dim ``dim`` becomes the window index (``(n - size) // step + 1`` windows, 0 when
    ``n < size``) and a new last dim of ``size`` holds each window's elements.

    >>> import ember
    >>> ember.tensor([1, 2, 3, 4, 5]).unfold(0, 2, 2).tolist()
    [[1, 2], [3, 4]]
    """
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), "unfold")
    size = as_int(size, "unfold", "size")
    step = as_int(step, "unfold", "step")
    if size < 0:
        raise InvalidParameterError(f"unfold: size {size} is negative; expected >= 0",
                                    "size", size)
    if step < 1:
        raise InvalidParameterError(f"unfold: step {step} must be >= 1", "step", step)
    check_rank(len(shape) + 1, "unfold", "self", shape)
    return _unfold_to(self, d, size, step, "unfold")


def _unfold_to(x, d, size, step, op):
    """The windows of ``x`` along ``d`` (checked arguments), a view; its rule is the fold
    ``_fold``."""
    shape = x._data.shape

    def rule(g, needs, out):
        return (_fold(g, shape, d, size, step, op),)

    return record(x._device.backend.mv_unfold(x._data, d, size, step), x._dtype, (x,), rule, op)


def _fold(g, shape, d, size, step, op):
    """The adjoint of ``_unfold_to``: the windows summed back into ``shape``; its rule unfolds
    again."""
    def rule(gg, needs, out):
        return (_unfold_to(gg, d, size, step, op),)

    return record(g._device.backend.mv_unfold_backward(g._data, shape, d, size, step), g._dtype,
                  (g,), rule, op)


# -- module functions (PyTorch's spellings) -------------------------------------------------------

def roll(input, shifts, dims=None):
    """``ember.roll(x, shifts, dims)`` is ``x.roll(shifts, dims)``.

    >>> import ember
    >>> ember.roll(ember.tensor([1, 2, 3]), 1).tolist()
    [3, 1, 2]
    """
    return _roll(_input(input, "roll"), shifts, dims)


def repeat_interleave(input, repeats, dim=None):
    """``ember.repeat_interleave(x, repeats, dim)`` is ``x.repeat_interleave(repeats, dim)``.

    >>> import ember
    >>> ember.repeat_interleave(ember.tensor([1, 2]), 3).tolist()
    [1, 1, 1, 2, 2, 2]
    """
    return _repeat_interleave(_input(input, "repeat_interleave"), repeats, dim)
