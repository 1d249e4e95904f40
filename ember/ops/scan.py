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
from ..tensor import Tensor, record_arrays, tensor_method, wrap

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

    def backward(g, needs):
        return (_back(be, be.scan_cumsum_grad(_back(be, g, x1.shape), axis), shape),)

    return record_arrays(_back(be, data, shape), self._dtype, (self,), backward, "cumsum")


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

    def backward(g, needs):
        return (_back(be, be.scan_cumprod_grad(_back(be, g, x1.shape), x1, data, axis), shape),)

    return record_arrays(_back(be, data, shape), self._dtype, (self,), backward, "cumprod")


def _cumext(x, dim, op, kind):
    if isinstance(x, Tensor) and x._dtype.kind == "complex":
        raise _dt.complex_error(op, "input", x._dtype)
    x1, axis, shape, be = _prepare(x, dim, op)
    vals, idx = be.scan_cumext(x1, axis, kind)
    indices = wrap(_back(be, idx, shape), _int64)
    if x._dtype.kind != "float":
        return wrap(_back(be, vals, shape), x._dtype), indices

    def backward(g, needs):
        return (_back(be, be.scan_index_grad(_back(be, g, x1.shape), idx, axis), shape),)

    return record_arrays(_back(be, vals, shape), x._dtype, (x,), backward, op), indices


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
