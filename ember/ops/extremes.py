"""Reductions that pick elements: max, min and max_abs (and Burn's ``_dim``/``_dims`` forms),
argmax, argmin, argtopk, and ``max_dim_with_indices``/``min_dim_with_indices``. Their spellings
and PyTorch's module-level ``ember.max/min/argmax/argmin`` are as ``ember/ops/reduce.py`` says.

NaN propagates (for the indices NaN wins); ties give the lowest index. Reducing zero elements
raises InvalidParameterError. The gradient goes to the selected element (a whole-tensor max or
min shares it evenly among ties). Complex tensors have no order: ``dtypes.complex_error``.
"""

from .. import dtypes as _dt
from ..errors import InvalidParameterError
from ..shapes import as_int, dim_aliases
from .. import return_types as _rt
from .._tensor import Tensor, check_kind, record, saved, tensor_method, wrap
from .reduce import (_ALL_AXES, _NUMERIC, _axes, _axis, _flag, _int64, _no_complex, _nonempty,
                     _one, _self, _spread)

__all__ = ["max", "min", "argmax", "argmin"]


# -- max, min, max_abs --------------------------------------------------------------------------

def _extreme(x, axes, keepdims, op, kind, even):
    """max/min ("max", "min") or max of |x| ("absmax") over ``axes``.

    The gradient is shared evenly among tied elements when ``even`` (a whole-tensor reduction,
    as PyTorch's ``max()``), else it goes to the first extreme element of each slice.
    """
    if x._dtype.kind == "complex":  # inlined _no_complex: max/min are hot
        raise _dt.complex_error(op, "input", x._dtype)
    if kind == "absmax":
        check_kind(x, _NUMERIC, op)
    _nonempty(x, axes, op)
    xd = x._data
    be = x._device.backend
    if kind == "max":
        data = be.reduce_max(xd, axes, keepdims)
    elif kind == "min":
        data = be.reduce_min(xd, axes, keepdims)
    else:
        data = be.reduce_max(be.reduce_abs(xd), axes, keepdims)
    if x._dtype.kind != "float":
        return wrap(data, x._dtype)
    if x._node is None:  # untracked: no gradient rule to build (what record would give)
        return wrap(data, x._dtype, x._ad)
    xs = saved(x)
    all_axes = _ALL_AXES[xd.ndim]
    if even:
        def rule(g, needs, out):
            def grad(ga):
                return be.reduce_even_grad(ga, xs._data, out._data, kind)
            return (_spread(g, grad, all_axes, op),)
    else:
        def rule(g, needs, out):
            def grad(ga):
                return be.reduce_select_grad(ga, xs._data, axes, keepdims, kind)
            return (_spread(g, grad, axes, op),)
    return record(data, x._dtype, (x,), rule, op, keep_out=even)


@tensor_method(name="max")
@dim_aliases
def max_method(self, dim=None, keepdim=False):
    """The maximum over ``dim`` (an int, a tuple, or None for every dim: a 0-d result).

    NaN propagates. Reducing zero elements raises InvalidParameterError. The values only, as
    NumPy's ``max`` and PyTorch's ``amax``; with an int ``dim`` they come as a ``ValuesTensor``
    whose ``.indices`` are PyTorch's (unpacking it raises: ``ember.max(x, dim)`` is PyTorch's
    pair). ``t.max(other)`` with a tensor is ``maximum``, as PyTorch's.
    The whole-tensor maximum shares its gradient evenly among ties (as PyTorch's ``max()``);
    with ``dim`` the gradient goes to the first maximal element.

    >>> import ember
    >>> t = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> t.max().tolist()
    9.0
    >>> t.max(0).tolist()
    [5.0, 9.0, 6.0]
    >>> t.max(0).indices.tolist()
    [1, 1, 1]
    """
    return _max_min(self, dim, keepdim, "max")


@tensor_method(name="min")
@dim_aliases
def min_method(self, dim=None, keepdim=False):
    """The minimum over ``dim`` (an int, a tuple, or None for every dim: a 0-d result).

    NaN propagates; the rules of ``max`` apply.

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).min().tolist()
    -2.0
    """
    return _max_min(self, dim, keepdim, "min")


def _max_min(x, dim, keepdim, kind):
    _self(x, kind)
    if isinstance(dim, Tensor):
        return x.maximum(dim) if kind == "max" else x.minimum(dim)
    axes = _axes(x, dim, kind)
    out = _extreme(x, axes, _flag(keepdim, kind), kind, kind, dim is None)
    if dim is None or isinstance(dim, (tuple, list)):
        return out
    return _rt.values_tensor(out, kind, lambda: _pair(x, dim, keepdim, kind)[1])


def _pair(x, dim, keepdim, kind):
    """PyTorch's ``(values, indices)`` of max/min along ``dim``."""
    values, indices = _extreme_with_indices(x, dim, kind, kind)
    if keepdim or not x._data.ndim:
        return values, indices
    return values.squeeze(dim), indices.squeeze(dim)


@dim_aliases
def max(input, dim=None, keepdim=False):
    """PyTorch's ``torch.max``: the maximum of every element (0-d) with no ``dim``; the named
    tuple ``(values, indices)`` along an int ``dim``; ``maximum`` with a tensor in second place.

    >>> import ember
    >>> x = ember.tensor([[1.0, 7.0], [5.0, 2.0]])
    >>> values, indices = ember.max(x, 1)
    >>> values.tolist(), indices.tolist()
    ([7.0, 5.0], [1, 0])
    """
    return _pt_max_min(input, dim, keepdim, "max", _rt.max)


@dim_aliases
def min(input, dim=None, keepdim=False):
    """PyTorch's ``torch.min``: as ``ember.max``, for the minimum.

    >>> import ember
    >>> ember.min(ember.tensor([[1.0, 7.0], [5.0, 2.0]]), dim=0).indices.tolist()
    [0, 1]
    """
    return _pt_max_min(input, dim, keepdim, "min", _rt.min)


def _pt_max_min(x, dim, keepdim, kind, result):
    _self(x, kind)
    if dim is None or isinstance(dim, (Tensor, tuple, list)):
        return _max_min(x, dim, keepdim, kind)
    _flag(keepdim, kind)
    return result(*_pair(x, dim, keepdim, kind))


@tensor_method
def max_dim(self, dim):
    """The maximum along ``dim``, which is kept with size 1 (Burn's ``max_dim``).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).max_dim(0).tolist()
    [[5.0, 9.0, 6.0]]
    """
    axes = _one(self, dim, "max_dim")
    return _extreme(self, axes, True, "max_dim", "max", False)


@tensor_method
def max_dims(self, dims):
    """The maximum along each of ``dims``, each kept with size 1 (Burn's ``max_dims``).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).max_dims([0, 1]).tolist()
    [[9.0]]
    """
    return _extreme(self, _axes(self, dims, "max_dims", "dims"), True, "max_dims", "max", False)


@tensor_method
def min_dim(self, dim):
    """The minimum along ``dim``, which is kept with size 1 (Burn's ``min_dim``).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).min_dim(0).tolist()
    [[1.0, -2.0, 3.0]]
    """
    axes = _one(self, dim, "min_dim")
    return _extreme(self, axes, True, "min_dim", "min", False)


@tensor_method
def min_dims(self, dims):
    """The minimum along each of ``dims``, each kept with size 1 (Burn's ``min_dims``).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).min_dims([0, 1]).tolist()
    [[-2.0]]
    """
    return _extreme(self, _axes(self, dims, "min_dims", "dims"), True, "min_dims", "min", False)


@tensor_method
@dim_aliases
def max_abs(self, dim=None, keepdim=False):
    """The maximum absolute value over ``dim`` (None: every dim, a 0-d result, as Burn's).

    Floats and ints; NaN propagates.

    >>> import ember
    >>> ember.tensor([[1.0, -7.0, 3.0], [5.0, -1.0, 6.0]]).max_abs().tolist()
    7.0
    """
    _self(self, "max_abs")
    axes = _axes(self, dim, "max_abs")
    return _extreme(self, axes, _flag(keepdim, "max_abs"), "max_abs", "absmax", dim is None)


@tensor_method
def max_abs_dim(self, dim):
    """The maximum absolute value along ``dim``, kept with size 1 (Burn's ``max_abs_dim``).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).max_abs_dim(0).tolist()
    [[5.0, 9.0, 6.0]]
    """
    axes = _one(self, dim, "max_abs_dim")
    return _extreme(self, axes, True, "max_abs_dim", "absmax", False)


@tensor_method
def max_abs_dims(self, dims):
    """The maximum absolute value along each of ``dims``, kept with size 1 (Burn's).

    Empty ``dims`` reduce nothing: the absolute values themselves.

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, -9.0, 6.0]]).max_abs_dims([0, 1]).tolist()
    [[9.0]]
    """
    return _extreme(self, _axes(self, dims, "max_abs_dims", "dims"), True, "max_abs_dims",
                    "absmax", False)


# -- indices of extremes ------------------------------------------------------------------------

def _arg(x, dim, keepdim, op, kind):
    _self(x, op)
    _no_complex(x, op)
    xd = x._data
    be = x._device.backend
    kernel = be.reduce_argmax if kind == "max" else be.reduce_argmin
    if dim is None:
        keep = False if keepdim is None else _flag(keepdim, op)
        _nonempty(x, tuple(range(xd.ndim)), op)
        return wrap(kernel(xd, None, keep), _int64)
    axis = _axis(x, dim, op)
    keep = True if keepdim is None else _flag(keepdim, op)
    if not xd.ndim:
        return wrap(kernel(xd, None, False), _int64)
    _nonempty(x, (axis,), op)
    return wrap(kernel(xd, axis, keep), _int64)


@tensor_method(name="argmax")
@dim_aliases
def argmax_method(self, dim=None, keepdim=None):
    """The index of the maximum along ``dim``, kept with size 1 (Burn's ``argmax(dim)``), or the
    flat index over the whole tensor, 0-d, when ``dim`` is None (PyTorch's ``argmax()``).

    NaN wins over numbers; ties give the lowest index. ``keepdim`` overrides the default.

    >>> import ember
    >>> t = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> t.argmax(1).tolist()
    [[2], [1]]
    >>> t.argmax().tolist()
    4
    >>> ember.tensor([3.0, float("nan"), float("nan")]).argmax(0).tolist()
    [1]
    """
    return _arg(self, dim, keepdim, "argmax", "max")


@tensor_method(name="argmin")
@dim_aliases
def argmin_method(self, dim=None, keepdim=None):
    """The index of the minimum along ``dim``, kept with size 1, or the flat index (0-d) when
    ``dim`` is None. NaN wins over numbers; ties give the lowest index.

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).argmin(0).tolist()
    [[0, 0, 0]]
    """
    return _arg(self, dim, keepdim, "argmin", "min")


@dim_aliases
def argmax(input, dim=None, keepdim=False):
    """PyTorch's ``torch.argmax``: the index of the maximum along ``dim``, the dim removed unless
    ``keepdim`` (the method keeps it, as Burn's); the flat index with no ``dim``.

    >>> import ember
    >>> ember.argmax(ember.tensor([[1.0, 3.0], [4.0, 2.0]]), dim=1).tolist()
    [1, 0]
    """
    return _arg(input, dim, keepdim, "argmax", "max")


@dim_aliases
def argmin(input, dim=None, keepdim=False):
    """PyTorch's ``torch.argmin``: as ``ember.argmax``, for the minimum.

    >>> import ember
    >>> ember.argmin(ember.tensor([[1.0, 3.0], [4.0, 2.0]]), dim=1).tolist()
    [0, 1]
    """
    return _arg(input, dim, keepdim, "argmin", "min")


@tensor_method
def argtopk(self, k, dim=-1):
    """The indices of the ``k`` largest elements along ``dim``, largest first (Burn's
    ``argtopk``): ``dim`` gets size ``k``. NaN counts as the largest; equal elements come in
    ascending index order.

    >>> import ember
    >>> t = ember.tensor([[12.0, -2.0, 3.0], [5.0, 3.0, 6.0]])
    >>> t.argtopk(2, 0).tolist()
    [[0, 1, 1], [1, 0, 0]]
    >>> t.argtopk(1, 1).tolist()
    [[0], [2]]
    """
    op = "argtopk"
    _self(self, op)
    _no_complex(self, op)
    axis = _axis(self, dim, op)
    k = as_int(k, op, "k")
    xd = self._data
    be = self._device.backend
    size = xd.shape[axis] if xd.ndim else 1
    if not xd.ndim and k != 1:
        raise InvalidParameterError(f"{op}: k {k} is out of range for a 0-d tensor; expected "
                                    "k == 1", "k", k)
    if not 0 <= k <= size:
        raise InvalidParameterError(f"{op}: k {k} is out of range for dim {dim} of size {size}; "
                                    f"expected 0 <= k <= {size}", "k", k)
    if not xd.ndim:
        out = be.reduce_argtopk(be.reduce_reshape(xd, (1,)), 1, 0)
        return wrap(be.reduce_reshape(out, ()), _int64)
    return wrap(be.reduce_argtopk(xd, k, axis), _int64)


def _extreme_with_indices(x, dim, op, kind):
    _self(x, op)
    _no_complex(x, op)
    axis = _axis(x, dim, op)
    xd = x._data
    be = x._device.backend
    x1 = xd if xd.ndim else be.reduce_reshape(xd, (1,))
    _nonempty(x, (axis,) if xd.ndim else (), op)
    if kind == "max":
        values, idx = be.reduce_max(x1, (axis,), True), be.reduce_argmax(x1, axis, True)
    else:
        values, idx = be.reduce_min(x1, (axis,), True), be.reduce_argmin(x1, axis, True)
    if not xd.ndim:
        values, idx = be.reduce_reshape(values, ()), be.reduce_reshape(idx, ())
    indices = wrap(idx, _int64)
    if x._dtype.kind != "float":
        return wrap(values, x._dtype), indices
    if not xd.ndim:  # one element: the identity
        return record(values, x._dtype, (x,), _identity_rule, op), indices
    shape1 = x1.shape

    def rule(g, needs, out):
        def grad(ga):
            return be.reduce_index_grad(ga, idx, shape1, axis)
        return (_spread(g, grad, (axis,), op),)

    return record(values, x._dtype, (x,), rule, op), indices


def _identity_rule(g, needs, out):
    return (g,)


@tensor_method
def max_dim_with_indices(self, dim):
    """The maximum along ``dim`` and its index, both kept with size 1 (Burn's).

    NaN wins (its lowest index); ties give the lowest index. The gradient goes to that index.

    >>> import ember
    >>> values, index = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).max_dim_with_indices(0)
    >>> values.tolist(), index.tolist()
    ([[5.0, 9.0, 6.0]], [[1, 1, 1]])
    """
    return _extreme_with_indices(self, dim, "max_dim_with_indices", "max")


@tensor_method
def min_dim_with_indices(self, dim):
    """The minimum along ``dim`` and its index, both kept with size 1 (Burn's).

    >>> import ember
    >>> values, index = ember.tensor([[7.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).min_dim_with_indices(0)
    >>> values.tolist(), index.tolist()
    ([[5.0, -2.0, 3.0]], [[1, 0, 0]])
    """
    return _extreme_with_indices(self, dim, "min_dim_with_indices", "min")
