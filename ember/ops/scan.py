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
from ..backends.guard import check_shaped
from ..errors import DimensionError, InvalidParameterError
from ..shapes import as_int, normalize_dim, dim_aliases
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
    check_shaped(op, xd, max(8, x._dtype.itemsize))  # its sums are wide, its indices int64
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


def _scan(x, dim, op, kernel):
    """``(done, data, axis)`` of a cumulative sum or product (``kernel``, the backend kernel's
    name) of ``x`` along ``dim``: ``done`` is the finished result when it needs no gradient
    rule of its own (ints, bools and complex; a 0-d float tensor, the identity), else None and
    ``data`` the kernel's result along ``axis``."""
    x1, axis, shape, be = _prepare(x, dim, op)
    data = getattr(be, kernel)(x1, axis)
    if x._dtype.kind != "float":
        return wrap(_back(be, data, shape), _int_or_complex(x._dtype)), data, axis
    if not shape:  # one element: the identity
        return record(_back(be, data, shape), x._dtype, (x,), _identity_rule, op), data, axis
    return None, data, axis


@tensor_method
@dim_aliases
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
    done, data, axis = _scan(self, dim, "cumsum", "scan_cumsum")
    if done is not None:
        return done

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
@dim_aliases
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
    done, data, axis = _scan(self, dim, "cumprod", "scan_cumprod")
    if done is not None:
        return done
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


def _extremum(name, kind, word, table, by_dim, indices, ties, ties_result):
    """The three public forms of the cumulative ``kind`` ("min" or "max") named ``name``: the
    Tensor method (Burn's values), the function (PyTorch's named tuple) and the
    ``_with_indices`` method, with their docstrings made from the examples given (``table``
    scanned along each dim with ``by_dim`` results; ``indices`` of ``[2.0, 1.0, 3.0]``; ``ties``
    and its ``(values, indices)``). Their errors name them."""
    pair = name + "_with_indices"
    named_tuple = getattr(_rt, name)

    def method(self, dim):
        values, indices = _cumext(self, dim, name, kind)
        return _rt.values_tensor(values, name, indices)

    def function(input, dim):
        return named_tuple(*_cumext(input, dim, name, kind))

    def with_indices(self, dim):
        return _cumext(self, dim, pair, kind)

    method.__name__ = method.__qualname__ = name + "_method"
    method.__doc__ = (f"The cumulative {word} along ``dim`` (Burn's: the values only; see\n"
                      f"``{pair}``). Once a NaN is met, the rest of its scan is NaN.\n\n"
                      f">>> import ember\n>>> t = ember.tensor({table})\n"
                      f">>> t.{name}(0).tolist()\n{by_dim[0]}\n"
                      f">>> t.{name}(1).tolist()\n{by_dim[1]}\n")
    function.__name__ = function.__qualname__ = name
    function.__doc__ = (f"PyTorch's ``torch.{name}``: the named tuple ``(values, indices)`` of "
                        f"the cumulative\n{word} along ``dim`` (as ``{pair}``).\n\n"
                        f">>> import ember\n>>> ember.{name}(ember.tensor([2.0, 1.0, 3.0]), 0)"
                        f".indices.tolist()\n{indices}\n")
    with_indices.__name__ = with_indices.__qualname__ = pair
    with_indices.__doc__ = (f"``(values, indices)`` of the cumulative {word} along ``dim``, as "
                            f"PyTorch's ``{name}``:\nthe index is the last position where the "
                            f"running {word} was reached (ties and NaNs move\nit). The gradient "
                            f"goes to those indices.\n\n>>> import ember\n>>> values, indices "
                            f"= ember.tensor({ties}).{pair}(0)\n"
                            f">>> values.tolist(), indices.tolist()\n{ties_result}\n")
    tensor_method(method, name=name)
    tensor_method(with_indices)
    return method, function, with_indices


cummin_method, cummin, cummin_with_indices = _extremum(
    "cummin", "min", "minimum", "[[3.0, 5.0, 2.0], [4.0, 1.0, 6.0]]",
    ("[[3.0, 5.0, 2.0], [3.0, 1.0, 2.0]]", "[[3.0, 3.0, 2.0], [4.0, 1.0, 1.0]]"), "[0, 1, 1]",
    "[3.0, 1.0, 1.0, 2.0]", "([3.0, 1.0, 1.0, 1.0], [0, 1, 2, 2])")
cummax_method, cummax, cummax_with_indices = _extremum(
    "cummax", "max", "maximum", "[[3.0, 1.0, 2.0], [4.0, 5.0, 2.0]]",
    ("[[3.0, 1.0, 2.0], [4.0, 5.0, 2.0]]", "[[3.0, 3.0, 3.0], [4.0, 5.0, 5.0]]"), "[0, 0, 2]",
    "[1, 3, 2, 3]", "([1, 3, 3, 3], [0, 1, 1, 3])")
