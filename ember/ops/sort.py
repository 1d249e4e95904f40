"""The sort op family: sort, argsort and topk along one dim, with and without indices.

Every sort is stable (equal elements keep their order, also when descending) and NaN sorts as
the largest value, as in PyTorch. Indices are int64 tensors. Gradients of the sorted values flow
back to the positions the indices select; the indices carry none. Bool tensors have no order
(Burn's ``Ordered`` kinds are float and int) and raise ``KindError``.
"""

from .. import dtypes as _dt
from .. import return_types as _rt
from ..autodiff.graph import _mode
from ..errors import InvalidParameterError
from ..shapes import as_int, normalize_dim, dim_aliases
from .._tensor import check_kind, check_tensor, record, tensor_method, wrap

__all__ = ["sort", "argsort", "topk", "kthvalue"]




def _prepare(self, dim, op):
    """Checks; returns (data with at least one dim, axis, 0-d flag, backend)."""
    check_tensor(self, op, "self")
    kind = self._dtype.kind
    if kind != "float" and kind != "int":
        if kind == "complex":  # docs/complex.md: complex numbers have no order
            raise _dt.complex_error(op, "self", self._dtype)
        check_kind(self, ("float", "int"), op)
    x = self._data
    be = self._device.backend
    if x.ndim == 0:
        normalize_dim(dim, 1, op)  # a 0-d tensor sorts as one element: dim 0 or -1
        return be.sort_reshape(x, (1,)), 0, True, be
    return x, normalize_dim(dim, x.ndim, op), False, be


def _check_bool(value, op, param):
    if not isinstance(value, bool):
        raise InvalidParameterError(f"{op}: {param} must be a bool, got {value!r}", param, value)


def _sorted(self, dim, descending, k, op, values_only=False):
    """(values tensor, indices tensor) of a full sort (k None) or of the first k; with
    ``values_only``, just the values tensor of a full sort."""
    _check_bool(descending, op, "descending" if k is None else "largest")
    x, axis, scalar, be = _prepare(self, dim, op)
    if values_only and (self._node is None or not _mode.enabled):
        # No indices wanted and no gradient to route through them: sort the values directly.
        vals = be.sort_values(x, axis, descending)
        if scalar:
            vals = be.sort_reshape(vals, ())
        return record(vals, self._dtype, (self,), None, op)
    if k is not None:
        k = as_int(k, op, "k")
        n = x.shape[axis]
        if not 0 <= k <= n or (scalar and k != 1):
            raise InvalidParameterError(
                f"{op}: k {k} is out of range for dim {axis} of size {n}; expected "
                + ("k == 1 for a 0-d tensor" if scalar else f"0 <= k <= {n}"), "k", k)
    if k is None:
        idx = be.sort_argsort(x, axis, descending)
    else:
        idx = be.sort_topk(x, k, axis, descending)
    vals = be.sort_take(x, idx, axis)
    if scalar:  # one element: the identity
        values = record(be.sort_reshape(vals, ()), self._dtype, (self,), _identity_rule, op)
        indices = wrap(be.sort_reshape(idx, ()), _dt.int64)
    else:
        indices = wrap(idx, _dt.int64)
        index = wrap(idx, _dt.int64)  # the rule's own: the caller may rebind ``indices`` in place
        full_shape = x.shape

        def rule(g, needs, out):
            return (_put_back(g, index, axis, full_shape),)

        values = record(vals, self._dtype, (self,), rule, op)
    if values_only:
        return values
    return values, indices


def _identity_rule(g, needs, out):
    return (g,)


def _put_back(g, indices, axis, shape):
    """Zeros of ``shape`` with ``g`` put at ``indices`` along ``axis`` (distinct in each line):
    the gradient of sorted or top-k values, on its kernel; a recorded op whose own gradient
    gathers at the indices."""
    data = g._device.backend.sort_scatter_grad(g._data, indices._data, axis, shape)

    def rule(gg, needs, out):
        return (gg.gather(axis, indices),)

    return record(data, g._dtype, (g,), rule, "sort_backward")


@tensor_method(name="sort")
def sort_method(self, dim=-1, descending=False):
    """The elements sorted along ``dim`` (stable; NaN is the largest), ascending by default.

    Burn's ``sort``: the values only, as a ``ValuesTensor`` (``.indices`` gives the indices;
    unpacking raises, see ``ember.return_types``). ``ember.sort(x)`` is PyTorch's pair.

    >>> import ember
    >>> t = ember.tensor([[12.0, -2.0, 3.0], [5.0, 3.0, 6.0]])
    >>> t.sort(0).tolist()
    [[5.0, -2.0, 3.0], [12.0, 3.0, 6.0]]
    >>> t.sort(0).indices.tolist()
    [[1, 0, 0], [0, 1, 1]]
    """
    values = _sorted(self, dim, descending, None, "sort", values_only=True)
    return _rt.values_tensor(
        values, "sort", lambda: _sorted(self, dim, descending, None, "sort")[1])


def sort(input, dim=-1, descending=False, stable=False):
    """PyTorch's ``torch.sort``: the named tuple ``(values, indices)`` of the sort along ``dim``.

    Every sort is stable, so ``stable`` only has to be a bool.

    >>> import ember
    >>> values, indices = ember.sort(ember.tensor([3.0, 1.0, 2.0]))
    >>> values.tolist(), indices.tolist()
    ([1.0, 2.0, 3.0], [1, 2, 0])
    """
    _check_bool(stable, "sort", "stable")
    return _rt.sort(*_sorted(input, dim, descending, None, "sort"))


@tensor_method
def sort_descending(self, dim=-1):
    """The elements sorted along ``dim`` in descending order (stable; NaN first).

    >>> import ember
    >>> ember.tensor([[12.0, -2.0, 3.0], [5.0, 3.0, 6.0]]).sort_descending(1).tolist()
    [[12.0, 3.0, -2.0], [6.0, 5.0, 3.0]]
    """
    return _sorted(self, dim, True, None, "sort_descending", values_only=True)


@tensor_method
def sort_with_indices(self, dim=-1, descending=False):
    """``(values, indices)``: the sorted elements along ``dim`` and where each came from.

    >>> import ember
    >>> values, indices = ember.tensor([[12.0, -2.0, 3.0], [5.0, 3.0, 6.0]]).sort_with_indices(0)
    >>> indices.tolist()
    [[1, 0, 0], [0, 1, 1]]
    """
    return _sorted(self, dim, descending, None, "sort_with_indices")


@tensor_method
def sort_descending_with_indices(self, dim=-1):
    """``(values, indices)`` of the descending sort along ``dim`` (ties keep their order).

    >>> import ember
    >>> t = ember.tensor([[12.0, -2.0, 3.0], [5.0, 3.0, 6.0]])
    >>> t.sort_descending_with_indices(0)[1].tolist()
    [[0, 1, 1], [1, 0, 0]]
    """
    return _sorted(self, dim, True, None, "sort_descending_with_indices")


@tensor_method
def argsort(self, dim=-1, descending=False):
    """The int64 indices that sort the elements along ``dim`` (stable).

    >>> import ember
    >>> ember.tensor([[12.0, -2.0, 3.0], [5.0, 3.0, 6.0]]).argsort(0).tolist()
    [[1, 0, 0], [0, 1, 1]]
    """
    return _sorted(self, dim, descending, None, "argsort")[1]


@tensor_method
def argsort_descending(self, dim=-1):
    """The int64 indices that sort the elements along ``dim`` in descending order (stable).

    >>> import ember
    >>> ember.tensor([[12.0, -2.0, 3.0], [5.0, 3.0, 6.0]]).argsort_descending(1).tolist()
    [[0, 2, 1], [2, 0, 1]]
    """
    return _sorted(self, dim, True, None, "argsort_descending")[1]


@tensor_method(name="topk")
def topk_method(self, k, dim=-1, largest=True):
    """The ``k`` largest elements along ``dim``, largest first (``largest=False``: smallest first).

    Ties go to the lower index. Gradients flow to the selected positions. Burn's ``topk``: the
    values only, as a ``ValuesTensor`` (``.indices`` gives the indices; unpacking raises).
    ``ember.topk(x, k)`` is PyTorch's pair.

    >>> import ember
    >>> ember.tensor([[12.0, -2.0, 3.0], [5.0, 3.0, 6.0]]).topk(1, 1).tolist()
    [[12.0], [6.0]]
    """
    values, indices = _sorted(self, dim, largest, k, "topk")
    return _rt.values_tensor(values, "topk", indices)


def topk(input, k, dim=-1, largest=True, sorted=True):
    """PyTorch's ``torch.topk``: the named tuple ``(values, indices)`` of the ``k`` largest
    (``largest=False``: smallest) elements along ``dim``. They always come sorted, which
    ``sorted=False`` allows.

    >>> import ember
    >>> probs = ember.tensor([[0.1, 0.7, 0.2]])
    >>> _, idx = ember.topk(probs, k=1)
    >>> idx.tolist()
    [[1]]
    """
    _check_bool(sorted, "topk", "sorted")
    return _rt.topk(*_sorted(input, dim, largest, k, "topk"))


@dim_aliases
def kthvalue(input, k, dim=-1, keepdim=False):
    """PyTorch's ``kthvalue``: the named tuple ``(values, indices)`` of the ``k``-th smallest
    element (``k`` from 1) along ``dim``, the dim removed unless ``keepdim``. Also
    ``Tensor.kthvalue`` (Burn has no such method, so PyTorch's result).

    >>> import ember
    >>> values, indices = ember.tensor([[4.0, 1.0, 3.0], [2.0, 9.0, 5.0]]).kthvalue(2)
    >>> values.tolist(), indices.tolist()
    ([3.0, 5.0], [2, 2])
    """
    op = "kthvalue"
    check_tensor(input, op, "self")
    k = as_int(k, op, "k")
    _check_bool(keepdim, op, "keepdim")
    if k < 1:
        raise InvalidParameterError(f"{op}: k {k} is out of range; expected k >= 1", "k", k)
    values, indices = _sorted(input, dim, False, k, op)
    if input._data.ndim == 0:
        return _rt.kthvalue(values, indices)
    axis = normalize_dim(dim, input._data.ndim, op)
    values, indices = values.narrow(axis, k - 1, 1), indices.narrow(axis, k - 1, 1)
    if not keepdim:
        values, indices = values.squeeze(axis), indices.squeeze(axis)
    return _rt.kthvalue(values, indices)


tensor_method(kthvalue)


@tensor_method
def topk_with_indices(self, k, dim=-1, largest=True):
    """``(values, indices)`` of the ``k`` largest elements along ``dim``.

    >>> import ember
    >>> values, indices = ember.tensor([[12.0, -2.0, 3.0], [5.0, 3.0, 6.0]]).topk_with_indices(2, 0)
    >>> values.tolist(), indices.tolist()
    ([[12.0, 3.0, 6.0], [5.0, -2.0, 3.0]], [[0, 1, 1], [1, 0, 0]])
    """
    return _sorted(self, dim, largest, k, "topk_with_indices")
