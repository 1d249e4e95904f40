"""Scans: cumulative sums, products, minima and maxima along one dim.

``cumsum`` and ``cumprod`` of ints and bools give int64 (as PyTorch); floats keep their dtype and
accumulate in higher precision. The methods ``cummin`` and ``cummax`` return the values (Burn's,
as a ``ValuesTensor`` with ``.indices``); ``ember.cummin``/``ember.cummax`` and the
``_with_indices`` methods return PyTorch's ``(values, indices)``. A NaN propagates from its first position
to the end of its scan.

Complex tensors (docs/complex.md): ``cumsum`` and ``cumprod`` keep their complex dtype (as
PyTorch's); ``cummin`` and ``cummax`` order their elements and raise ``dtypes.complex_error``.
"""

from .. import dtypes as _dt
from .. import return_types as _rt
from ..errors import DimensionError, InvalidParameterError
from ..shapes import as_int, normalize_dim
from ..autodiff.graph import _mode
from .._tensor import Tensor, record, saved, tensor_method, wrap

__all__ = ["cumsum", "cumprod", "cummin", "cummax"]



_int64 = _dt.int64


def _prepare(x, dim, op):
    """(data with at least one dim, axis, original shape, backend); a 0-d tensor scans as one
    element."""
    if not isinstance(x, Tensor):
        raise InvalidParameterError(f"{op}: expected a Tensor, got {type(x).__name__}", "self", x)
    xd = x._data
    be = x._device.backend
    if xd.ndim:
        return xd, normalize_dim(dim, xd.ndim, op), xd.shape, be
    d = as_int(dim, op, "dim")
    if d not in (0, -1):
        raise DimensionError(f"{op}: dim {d} is out of range for a 0-d tensor; expected 0 or -1")
    return be.scan_reshape(xd, (1,)), 0, (), be


def _int_or_complex(dtype):
    """The result dtype of a cumulative sum or product that is not a float: int64 for ints and
    bools, the dtype itself for complex tensors."""
    return dtype if dtype.kind == "complex" else _int64


def _back(be, a, shape):
    return a if a.shape == shape else be.scan_reshape(a, shape)


@tensor_method
def cumsum(self, dim):
    """The cumulative sum along ``dim`` (negative dims count from the end).

    Ints and bools give int64; floats and complex tensors keep their dtype.

    >>> import ember
    >>> t = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> t.cumsum(0).tolist()
    [[1.0, 2.0, 3.0], [5.0, 7.0, 9.0]]
    >>> t.cumsum(1).tolist()
    [[1.0, 3.0, 6.0], [4.0, 9.0, 15.0]]
    """
    x1, axis, shape, be = _prepare(self, dim, "cumsum")
    data = be.scan_cumsum(x1, axis)
    if self._dtype.kind != "float":
        return wrap(_back(be, data, shape), _int_or_complex(self._dtype))
    if not shape:  # one element: the identity
        return record(_back(be, data, shape), self._dtype, (self,), _identity_rule, "cumsum")

    def rule(g, needs, out):
        return (_rcumsum(g, axis),)

    return record(data, self._dtype, (self,), rule, "cumsum")


def _identity_rule(g, needs, out):
    return (g,)


def _rcumsum(g, axis):
    """The reversed cumulative sum of ``g`` along ``axis`` (the gradient of cumsum), on its
    kernel; a recorded op whose own gradient is the cumulative sum."""
    data = g._device.backend.scan_cumsum_grad(g._data, axis)

    def rule(gg, needs, out):
        return (gg.cumsum(axis),)

    return record(data, g._dtype, (g,), rule, "cumsum_backward")


@tensor_method
def cumprod(self, dim):
    """The cumulative product along ``dim``. Ints and bools give int64; floats and complex
    tensors keep their dtype.

    The gradient is exact where the input holds zeros, as PyTorch's.

    >>> import ember
    >>> t = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> t.cumprod(0).tolist()
    [[1.0, 2.0, 3.0], [4.0, 10.0, 18.0]]
    >>> t.cumprod(1).tolist()
    [[1.0, 2.0, 6.0], [4.0, 20.0, 120.0]]
    """
    x1, axis, shape, be = _prepare(self, dim, "cumprod")
    data = be.scan_cumprod(x1, axis)
    if self._dtype.kind != "float":
        return wrap(_back(be, data, shape), _int_or_complex(self._dtype))
    if not shape:  # one element: the identity
        return record(_back(be, data, shape), self._dtype, (self,), _identity_rule, "cumprod")
    if self._node is None:  # untracked: no gradient rule to build (what record would give)
        return wrap(data, self._dtype, self._ad)
    xs = saved(self)

    def rule(g, needs, out):
        return (_cumprod_grad(g, xs, out, axis),)

    return record(data, self._dtype, (self,), rule, "cumprod", keep_out=True)


def _cumprod_grad(g, x, y, axis):
    """The gradient of ``y = x.cumprod(axis)``, PyTorch's, exact where ``x`` holds zeros.

    Without zeros: ``rcumsum(g * y) / x``. Before the first zero of a slice, the same; at the
    first zero, the reversed cumulative sum of ``g`` times the cumulative product with that zero
    replaced by one; after it, zero. Under ``create_graph`` the positions after the first zero
    get their value as a function: that zero times the gradient of the cumulative product with
    the zero replaced by one (a recursion over the zeros), so the second derivative is exact
    too, as PyTorch's slower formula of grad mode.
    """
    zero = x == 0
    if not zero.any().item():
        return _rcumsum(g * y, axis) / x
    dt = x._dtype
    seen = zero.cumsum(axis)  # zeros up to each position
    before = (seen == 0).cast(dt)
    at = (zero & (seen == 1)).cast(dt)
    x_before = x * before + (1 - before)  # x where it is before the first zero, else 1
    part = _rcumsum(g * y, axis) / x_before * before
    x_one = x * (1 - at) + at  # the first zero replaced by one
    y_one = x_one.cumprod(axis)
    if not _mode.enabled:  # first order: zero after the first zero
        return part + _rcumsum(g * y_one, axis) * at
    after = 1 - before - at
    x_zero = (x * at).sum(axis, keepdim=True)  # the first zero itself (a function of x)
    rest = _cumprod_grad(g, x_one, y_one, axis) * (x_zero * after + (1 - after))
    return part + rest * (1 - before)


def _cumext(x, dim, op, kind):
    if isinstance(x, Tensor) and x._dtype.kind == "complex":
        raise _dt.complex_error(op, "input", x._dtype)
    x1, axis, shape, be = _prepare(x, dim, op)
    vals, idx = be.scan_cumext(x1, axis, kind)
    indices = wrap(_back(be, idx, shape), _int64)
    if x._dtype.kind != "float":
        return wrap(_back(be, vals, shape), x._dtype), indices
    if not shape:  # one element: the identity
        return record(_back(be, vals, shape), x._dtype, (x,), _identity_rule, op), indices

    index = wrap(idx, _int64)  # the rule's own: the caller may rebind ``indices`` in place

    def rule(g, needs, out):
        return (_index_sum(g, index, axis),)

    return record(vals, x._dtype, (x,), rule, op), indices


def _index_sum(g, indices, axis):
    """Each element of ``g`` added at its index along ``axis`` (the gradient of cummax and
    cummin), on its kernel; a recorded op whose own gradient gathers at the indices."""
    data = g._device.backend.scan_index_grad(g._data, indices._data, axis)

    def rule(gg, needs, out):
        return (gg.gather(axis, indices),)

    return record(data, g._dtype, (g,), rule, "cumext_backward")


@tensor_method(name="cummin")
def cummin_method(self, dim):
    """The cumulative minimum along ``dim`` (Burn's: the values only; see
    ``cummin_with_indices``). Once a NaN is met, the rest of its scan is NaN.

    >>> import ember
    >>> t = ember.tensor([[3.0, 5.0, 2.0], [4.0, 1.0, 6.0]])
    >>> t.cummin(0).tolist()
    [[3.0, 5.0, 2.0], [3.0, 1.0, 2.0]]
    >>> t.cummin(1).tolist()
    [[3.0, 3.0, 2.0], [4.0, 1.0, 1.0]]
    """
    values, indices = _cumext(self, dim, "cummin", "min")
    return _rt.values_tensor(values, "cummin", indices)


def cummin(input, dim):
    """PyTorch's ``torch.cummin``: the named tuple ``(values, indices)`` of the cumulative
    minimum along ``dim`` (as ``cummin_with_indices``).

    >>> import ember
    >>> ember.cummin(ember.tensor([2.0, 1.0, 3.0]), 0).indices.tolist()
    [0, 1, 1]
    """
    return _rt.cummin(*_cumext(input, dim, "cummin", "min"))


@tensor_method(name="cummax")
def cummax_method(self, dim):
    """The cumulative maximum along ``dim`` (Burn's: the values only; see
    ``cummax_with_indices``). Once a NaN is met, the rest of its scan is NaN.

    >>> import ember
    >>> t = ember.tensor([[3.0, 1.0, 2.0], [4.0, 5.0, 2.0]])
    >>> t.cummax(0).tolist()
    [[3.0, 1.0, 2.0], [4.0, 5.0, 2.0]]
    >>> t.cummax(1).tolist()
    [[3.0, 3.0, 3.0], [4.0, 5.0, 5.0]]
    """
    values, indices = _cumext(self, dim, "cummax", "max")
    return _rt.values_tensor(values, "cummax", indices)


def cummax(input, dim):
    """PyTorch's ``torch.cummax``: the named tuple ``(values, indices)`` of the cumulative
    maximum along ``dim`` (as ``cummax_with_indices``).

    >>> import ember
    >>> ember.cummax(ember.tensor([2.0, 1.0, 3.0]), 0).indices.tolist()
    [0, 0, 2]
    """
    return _rt.cummax(*_cumext(input, dim, "cummax", "max"))


@tensor_method
def cummin_with_indices(self, dim):
    """``(values, indices)`` of the cumulative minimum along ``dim``, as PyTorch's ``cummin``:
    the index is the last position where the running minimum was reached (ties and NaNs move
    it). The gradient goes to those indices.

    >>> import ember
    >>> values, indices = ember.tensor([3.0, 1.0, 1.0, 2.0]).cummin_with_indices(0)
    >>> values.tolist(), indices.tolist()
    ([3.0, 1.0, 1.0, 1.0], [0, 1, 2, 2])
    """
    return _cumext(self, dim, "cummin_with_indices", "min")


@tensor_method
def cummax_with_indices(self, dim):
    """``(values, indices)`` of the cumulative maximum along ``dim``, as PyTorch's ``cummax``.

    >>> import ember
    >>> values, indices = ember.tensor([1, 3, 2, 3]).cummax_with_indices(0)
    >>> values.tolist(), indices.tolist()
    ([1, 3, 3, 3], [0, 1, 1, 3])
    """
    return _cumext(self, dim, "cummax_with_indices", "max")
