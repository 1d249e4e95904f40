"""Reductions: sums, means, products, extremes and their indices, tests, variance, median, cov.

Two spellings, as API.md rule 3 says:

- Pythonic ``sum mean prod max min (dim=None, keepdim=False)``: ``dim`` an int or a tuple of
  ints; ``None`` reduces every dim (a 0-d result); an empty tuple reduces nothing.
- Burn's dimension-keeping forms (``sum_dim``, ``sum_dims``, ``max_dim`` ...) keep each reduced
  dim with size 1. The methods ``argmax``, ``argmin``, ``median``, ``var`` ... keep the dim when
  one is given and reduce the whole tensor to 0-d when ``dim`` is ``None`` (PyTorch's spelling);
  their ``keepdim`` overrides either default.

The module-level functions ``ember.max/min/median/argmax/argmin/var/var_mean`` are PyTorch's
(``(values, indices)`` named tuples along a dim, the dim removed unless ``keepdim``); the methods
``max(dim)``, ``min(dim)`` and ``median(dim)`` return a ``ValuesTensor`` (docs/pytorch.md).

Sums and products of ints and bools are int64; the mean of ints is the floor of the exact mean
in the input's dtype. float16 and bfloat16 accumulate in float32.

Complex tensors (docs/complex.md): ``sum``, ``mean``, ``prod`` (complex results, PyTorch's),
``any``, ``all`` and ``count_nonzero`` (an element is nonzero when either part is). Every other
reduction here orders or squares its elements (max, min, argmax, median, var, cov ...) and
raises ``dtypes.complex_error`` for a complex tensor, as PyTorch's do where it defines none.
"""

import builtins as _builtins
import math

from .. import dtypes as _dt
from ..errors import DimensionError, InvalidParameterError, ShapeMismatchError
from ..shapes import as_int, normalize_dim, normalize_dims
from .. import return_types as _rt
from ..autodiff.graph import _mode
from ..autodiff.rules import unreduce
from .._tensor import Tensor, check_kind, record, saved, tensor_method, wrap
from . import fusion as _fusion

__all__ = ["sum", "mean", "prod", "max", "min", "argmax", "argmin", "any", "all", "var",
           "var_mean", "median", "cov", "count_nonzero"]



_int64 = _dt.int64
_builtin_max = _builtins.max  # this module defines its own max
_bool = _dt.bool_
_NUMERIC = ("float", "int")
_MEAN_KINDS = ("float", "int", "complex")
_ALL_AXES = tuple(tuple(range(n)) for n in range(65))  # every dim of a rank-n tensor (n <= 64)


# -- argument helpers ---------------------------------------------------------------------------

def _self(x, op):
    if not isinstance(x, Tensor):
        raise InvalidParameterError(f"{op}: expected a Tensor, got {type(x).__name__}", "self", x)
    return x


def _no_complex(x, op):
    """Raise ``dtypes.complex_error`` for a complex tensor (a reduction not defined for them)."""
    if x._dtype.kind == "complex":
        raise _dt.complex_error(op, "input", x._dtype)


def _dim_of_0d(dim, op, param):
    d = as_int(dim, op, param)
    if d not in (0, -1):
        raise DimensionError(f"{op}: {param} {d} is out of range for a 0-d tensor; "
                             "expected 0 or -1")
    return d


def _axes(x, dim, op, param="dim"):
    """The reduced axes: all for None, one for an int, several for a tuple or list."""
    nd = x._data.ndim if x.__class__ is Tensor else len(x.shape)  # a Pending stays pending
    if dim is None:
        return _ALL_AXES[nd]
    if isinstance(dim, (tuple, list)):
        if nd:
            return normalize_dims(dim, nd, op, param)
        for d in dim:
            _dim_of_0d(d, op, param)
        if len(dim) > 1:
            raise InvalidParameterError(f"{op}: {param} {tuple(dim)} repeats a dim; expected "
                                        "distinct dims", param, dim)
        return ()
    if nd:
        return (normalize_dim(dim, nd, op, param),)
    _dim_of_0d(dim, op, param)
    return ()


def _axis(x, dim, op, param="dim"):
    """One axis, non-negative; 0 for a 0-d tensor (treated as one element)."""
    nd = x._data.ndim
    if nd:
        return normalize_dim(dim, nd, op, param)
    _dim_of_0d(dim, op, param)
    return 0


def _one(x, dim, op):
    """The axes tuple of a one-dim reduction: (axis,), or () for a 0-d tensor."""
    axis = _axis(x, dim, op)
    return (axis,) if x._data.ndim else ()


def _flag(value, op, param="keepdim"):
    if value is True or value is False:
        return value
    raise InvalidParameterError(f"{op}: {param} must be a bool, got {type(value).__name__} "
                                f"{value!r}", param, value)


def _count(shape, axes):
    n = 1
    for ax in axes:
        n *= shape[ax]
    return n


def _nonempty(x, axes, op):
    shape = x._data.shape
    if _count(shape, axes) == 0:
        raise InvalidParameterError(
            f"{op}: cannot reduce zero elements (dims {axes} of a tensor of shape {tuple(shape)}); "
            "expected a non-empty reduction", "dim", axes)


def _kept(shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _squeezed(shape, axes):
    return tuple(s for i, s in enumerate(shape) if i not in axes)


# -- sum, mean, prod ----------------------------------------------------------------------------

def _sum(x, axes, keepdims, op):
    dt = x._dtype
    be = x._device.backend
    if dt.kind != "float":
        if dt.kind == "complex":  # a complex sum (complex tensors carry no gradient)
            return wrap(be.reduce_sum(x._data, axes, keepdims, dt), dt, x._ad)
        return wrap(be.reduce_sum(x._data, axes, keepdims, _int64), _int64)
    if x.__class__ is not Tensor and (out := _fusion.sum(x, axes, keepdims)) is not None:
        return out  # a deferred expression summed in one pass (ops/fusion.py)
    data = be.reduce_sum(x._data, axes, keepdims, dt)
    if x._node is None:  # untracked: no gradient rule to build (what record would give)
        return wrap(data, dt, x._ad)
    shape = x._data.shape

    def rule(g, needs, out):
        return (unreduce(g, shape, axes, keepdims),)

    return record(data, dt, (x,), rule, op)


def _mean(x, axes, keepdims, op):
    check_kind(x, _MEAN_KINDS, op)
    be = x._device.backend
    shape = x._data.shape
    n = _count(shape, axes)
    if x._dtype.kind == "int":
        if n == 0:
            raise InvalidParameterError(
                f"{op}: the mean of zero int elements is undefined (dims {axes} of a tensor of "
                f"shape {tuple(shape)}); expected a non-empty reduction", "dim", axes)
        return wrap(be.reduce_mean_int(x._data, axes, keepdims), x._dtype)
    data = be.reduce_mean(x._data, axes, keepdims)  # complex: the mean of each part
    if x._node is None:  # untracked: no gradient rule to build (what record would give)
        return wrap(data, x._dtype, x._ad)

    def rule(g, needs, out):
        return (unreduce(g / n if n else g, shape, axes, keepdims),)  # n = 0: an empty gradient

    return record(data, x._dtype, (x,), rule, op)


def _prod(x, axes, keepdims, op):
    dt = x._dtype
    out_dt = dt if dt.kind == "float" or dt.kind == "complex" else _int64
    xd = x._data
    be = x._device.backend
    data = be.reduce_prod(xd, axes, keepdims, out_dt)
    if out_dt.kind != "float":
        return wrap(data, out_dt)
    if x._node is None:  # untracked: no gradient rule to build (what record would give)
        return wrap(data, out_dt, x._ad)
    xs = saved(x)

    def rule(g, needs, out):
        if not _mode.enabled:  # a first-order backward: the fused kernel, the same values
            return (wrap(be.reduce_prod_grad(g._data, xs._data, out._data, axes, keepdims),
                         out_dt),)
        return (_prod_grad(g, xs, out, axes, keepdims),)

    return record(data, out_dt, (x,), rule, op, keep_out=True)


def _prod_grad(g, x, out, axes, keepdims):
    """The gradient of ``out = x.prod(axes)``, PyTorch's: ``g * out / x`` when ``x`` holds no
    zero; else the product of the other elements of each slice, from the exclusive cumulative
    products from both ends (exact with zeros, and differentiable again). With ember ops, for a
    backward that records (``create_graph``); the values are those of the kernel
    ``reduce_prod_grad`` that a first-order backward takes."""
    if not axes:  # a product over no dims is the identity
        return g
    shape = tuple(x.shape)
    if not (x == 0).any().item():
        return unreduce(g * out, shape, axes, keepdims) / x
    nd = len(shape)
    rest = [i for i in range(nd) if i not in axes]
    perm = rest + list(axes)
    rest_shape = tuple(shape[i] for i in rest)
    m = _count(shape, axes)
    rows = x.permute(perm).reshape(rest_shape + (m,))  # the reduced elements of a slice last
    left = rows.narrow(-1, 0, m - 1).pad([(1, 0)], value=1.0).cumprod(-1)
    right = rows.narrow(-1, 1, m - 1).pad([(0, 1)], value=1.0).flip(-1).cumprod(-1).flip(-1)
    gr = g.reshape(rest_shape + (1,)) * (left * right)
    inverse = [perm.index(i) for i in range(nd)]
    return gr.reshape(tuple(shape[i] for i in perm)).permute(inverse)


@tensor_method
def sum(self, dim=None, keepdim=False):
    """The sum over ``dim`` (an int, a tuple, or None for every dim: a 0-d result).

    Ints and bools sum to int64; floats and complex tensors keep their dtype.

    >>> import ember
    >>> t = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> t.sum().tolist()
    22.0
    >>> t.sum(1).tolist()
    [2.0, 20.0]
    >>> t.sum((0, 1), keepdim=True).tolist()
    [[22.0]]
    """
    _self(self, "sum")
    return _sum(self, _axes(self, dim, "sum"), _flag(keepdim, "sum"), "sum")


@tensor_method
def sum_dim(self, dim):
    """The sum along ``dim``, which is kept with size 1 (Burn's ``sum_dim``).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).sum_dim(1).tolist()
    [[2.0], [20.0]]
    """
    return _sum(self, _one(self, dim, "sum_dim"), True, "sum_dim")


@tensor_method
def sum_dims(self, dims):
    """The sum along each of ``dims``, each kept with size 1 (Burn's ``sum_dims``).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).sum_dims([0, 1]).tolist()
    [[22.0]]
    """
    return _sum(self, _axes(self, dims, "sum_dims", "dims"), True, "sum_dims")


@tensor_method
def sum_dims_squeeze(self, dims):
    """The sum along each of ``dims``, which are removed (``sum_dims(dims).squeeze_dims(dims)``).

    >>> import ember
    >>> t = ember.tensor([[[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]],
    ...                   [[9.0, 2.0, 5.0], [5.0, 7.0, 7.0]]])
    >>> t.sum_dims_squeeze([0, 1]).tolist()
    [20.0, 16.0, 21.0]
    """
    return _sum(self, _axes(self, dims, "sum_dims_squeeze", "dims"), False, "sum_dims_squeeze")


@tensor_method
def mean(self, dim=None, keepdim=False):
    """The mean over ``dim`` (an int, a tuple, or None for every dim: a 0-d result).

    Floats keep their dtype (the mean of nothing is nan); the mean of ints is the floor of the
    exact mean, in their dtype. A complex tensor's mean is complex. Bools raise KindError.

    >>> import ember
    >>> ember.tensor([[2.0, 4.0], [6.0, -4.0]]).mean().tolist()
    2.0
    >>> ember.tensor([1, 2, 2]).mean().tolist()
    1
    """
    _self(self, "mean")
    return _mean(self, _axes(self, dim, "mean"), _flag(keepdim, "mean"), "mean")


@tensor_method
def mean_dim(self, dim):
    """The mean along ``dim``, which is kept with size 1 (Burn's ``mean_dim``).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).mean_dim(0).tolist()
    [[3.0, 3.5, 4.5]]
    """
    return _mean(self, _one(self, dim, "mean_dim"), True,
                 "mean_dim")


@tensor_method
def mean_dims(self, dims):
    """The mean along each of ``dims``, each kept with size 1 (Burn's ``mean_dims``).

    >>> import ember
    >>> ember.tensor([[2.0, 4.0], [6.0, -4.0]]).mean_dims([0, 1]).tolist()
    [[2.0]]
    """
    return _mean(self, _axes(self, dims, "mean_dims", "dims"), True, "mean_dims")


@tensor_method
def prod(self, dim=None, keepdim=False):
    """The product over ``dim`` (an int, a tuple, or None for every dim: a 0-d result).

    Ints and bools multiply to int64; floats and complex tensors keep their dtype.

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).prod().tolist()
    -1620.0
    """
    _self(self, "prod")
    return _prod(self, _axes(self, dim, "prod"), _flag(keepdim, "prod"), "prod")


@tensor_method
def prod_dim(self, dim):
    """The product along ``dim``, which is kept with size 1 (Burn's ``prod_dim``).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).prod_dim(1).tolist()
    [[-6.0], [270.0]]
    """
    return _prod(self, _one(self, dim, "prod_dim"), True,
                 "prod_dim")


@tensor_method
def prod_dims(self, dims):
    """The product along each of ``dims``, each kept with size 1 (Burn's ``prod_dims``).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).prod_dims([0, 1]).tolist()
    [[-1620.0]]
    """
    return _prod(self, _axes(self, dims, "prod_dims", "dims"), True, "prod_dims")


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


def _spread(g, grad, axes, op):
    """The gradient of a reduction over ``axes`` that selects (max, min, median): the kernel
    ``grad(g_array)`` puts ``g`` where the selected elements were, with weights ``W`` of the
    input's shape (one-hot, shared evenly among ties, times a sign for max_abs) that do not
    change as the input moves. It is recorded as an op of ``g``, linear, whose rule is its
    adjoint: ``gg * W`` summed back over ``axes`` (``W`` is ``grad`` of ones)."""
    def rule(gg, needs, out):  # g_data only gives the ones their shape and dtype
        w = wrap(grad(gg._device.backend.ones_like(g_data)), gg._dtype)
        return ((gg * w).sum(axes, keepdim=keepdim),)

    g_data = g._data
    data = grad(g_data)
    keepdim = g_data.ndim == data.ndim  # whether the reduction kept its dims
    return record(data, g._dtype, (g,), rule, op + "_backward")


@tensor_method(name="max")
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
def argmin_method(self, dim=None, keepdim=None):
    """The index of the minimum along ``dim``, kept with size 1, or the flat index (0-d) when
    ``dim`` is None. NaN wins over numbers; ties give the lowest index.

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).argmin(0).tolist()
    [[0, 0, 0]]
    """
    return _arg(self, dim, keepdim, "argmin", "min")


def argmax(input, dim=None, keepdim=False):
    """PyTorch's ``torch.argmax``: the index of the maximum along ``dim``, the dim removed unless
    ``keepdim`` (the method keeps it, as Burn's); the flat index with no ``dim``.

    >>> import ember
    >>> ember.argmax(ember.tensor([[1.0, 3.0], [4.0, 2.0]]), dim=1).tolist()
    [1, 0]
    """
    return _arg(input, dim, keepdim, "argmax", "max")


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


# -- any, all, count_nonzero --------------------------------------------------------------------

@tensor_method
def any(self, dim=None, keepdim=False):
    """Whether any element is nonzero (True), over ``dim`` or the whole tensor (a 0-d bool).

    Every kind (a complex element is nonzero when either part is); NaN counts as nonzero; the
    ``any`` of nothing is False.

    >>> import ember
    >>> ember.tensor([[True, False, True], [False, True, False]]).any().tolist()
    True
    >>> ember.tensor([[0, 0], [0, 2]]).any(1).tolist()
    [False, True]
    """
    _self(self, "any")
    axes = _axes(self, dim, "any")
    return wrap(self._device.backend.reduce_any(self._data, axes, _flag(keepdim, "any")), _bool)


@tensor_method
def all(self, dim=None, keepdim=False):
    """Whether every element is nonzero (True), over ``dim`` or the whole tensor (a 0-d bool).

    Every kind (a complex element is nonzero when either part is); NaN counts as nonzero; the
    ``all`` of nothing is True.

    >>> import ember
    >>> ember.tensor([[True, False, True], [True, True, True]]).all().tolist()
    False
    """
    _self(self, "all")
    axes = _axes(self, dim, "all")
    return wrap(self._device.backend.reduce_all(self._data, axes, _flag(keepdim, "all")), _bool)


@tensor_method
def any_dim(self, dim):
    """Whether any element along ``dim`` is nonzero; ``dim`` kept with size 1 (Burn's).

    >>> import ember
    >>> ember.tensor([[True, False, False], [False, True, False]]).any_dim(1).tolist()
    [[True], [True]]
    """
    axes = _one(self, dim, "any_dim")
    return wrap(self._device.backend.reduce_any(self._data, axes, True), _bool)


@tensor_method
def all_dim(self, dim):
    """Whether every element along ``dim`` is nonzero; ``dim`` kept with size 1 (Burn's).

    >>> import ember
    >>> ember.tensor([[True, True, False], [True, True, True]]).all_dim(0).tolist()
    [[True, True, False]]
    """
    axes = _one(self, dim, "all_dim")
    return wrap(self._device.backend.reduce_all(self._data, axes, True), _bool)


@tensor_method
def count_nonzero(self, dim=None):
    """The number of nonzero elements over ``dim`` (an int, a tuple or None), int64, the
    reduced dims removed (PyTorch's ``count_nonzero``).

    >>> import ember
    >>> ember.tensor([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]]).count_nonzero(1).tolist()
    [2, 1]
    """
    _self(self, "count_nonzero")
    axes = _axes(self, dim, "count_nonzero")
    return wrap(self._device.backend.reduce_count_nonzero(self._data, axes), _int64)


# -- variance -----------------------------------------------------------------------------------

def _var(x, dim, keepdim, correction, op, with_mean):
    _self(x, op)
    _no_complex(x, op)
    axes = _axes(x, dim, op)
    keep = (dim is not None) if keepdim is None else _flag(keepdim, op)
    check_kind(x, "float", op)
    xd = x._data
    be = x._device.backend
    shape = xd.shape
    n = _count(shape, axes)
    var_data, mean_data = be.reduce_var_mean(xd, axes, correction, keep)
    if x._node is None:  # untracked: no gradient rule to build (what record would give)
        var = wrap(var_data, x._dtype, x._ad)
        return (var, wrap(mean_data, x._dtype, x._ad)) if with_mean else var
    xs = saved(x)

    def rule_var(g, needs, out):
        return (_var_backward(g, xs, mean_data, axes, correction, keep),)

    var = record(var_data, x._dtype, (x,), rule_var, op)
    if not with_mean:
        return var

    def rule_mean(g, needs, out):
        return (unreduce(g / n if n else g, shape, axes, keep),)

    return var, record(mean_data, x._dtype, (x,), rule_mean, op)


def _var_backward(g, x, mean_data, axes, correction, keep):
    """The gradient of the variance, ``g * 2 (x - mean) / (n - correction)`` (PyTorch's), on its
    kernel (``mean_data``: the mean the forward computed); a recorded op of ``g`` and ``x``
    whose rule differentiates it again (``x - mean`` is a centring of ``x``)."""
    be = x._device.backend
    data = be.reduce_var_grad(g._data, x._data, mean_data, axes, correction, keep)
    n = _count(x._data.shape, axes)
    scale = 2.0 / (n - correction) if n > correction else math.inf
    shape = x._data.shape
    gs = saved(g)

    def rule(u, needs, out):
        gx = gg = None
        if needs[0]:
            gg = (u * (x - x.mean(axes, keepdim=True))).sum(axes, keepdim=keep) * scale
        if needs[1]:
            w = u * unreduce(gs, shape, axes, keep) * scale
            gx = w - w.mean(axes, keepdim=True)
        return gg, gx

    return record(data, g._dtype, (g, x), rule, "var_backward")


@tensor_method(name="var")
def var_method(self, dim=None, keepdim=None):
    """The variance along ``dim`` with Bessel's correction (divides by n - 1), the dim kept with
    size 1 (Burn's ``var(dim)``); ``dim`` None: the whole tensor, 0-d. Float tensors only.

    >>> import ember
    >>> ember.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]).var(1).tolist()
    [[1.0], [4.0]]
    """
    return _var(self, dim, keepdim, 1, "var", False)


@tensor_method
def var_bias(self, dim=None, keepdim=None):
    """The variance along ``dim`` without Bessel's correction (divides by n), the dim kept.

    >>> import ember
    >>> ember.tensor([[1.0, 3.0], [2.0, 6.0]]).var_bias(1).tolist()
    [[1.0], [4.0]]
    """
    return _var(self, dim, keepdim, 0, "var_bias", False)


@tensor_method(name="var_mean")
def var_mean_method(self, dim=None, keepdim=None):
    """``(variance, mean)`` along ``dim`` (Bessel's correction), both with the dim kept.

    >>> import ember
    >>> v, m = ember.tensor([[1.0, 2.0, 3.0]]).var_mean(1)
    >>> v.tolist(), m.tolist()
    ([[1.0]], [[2.0]])
    """
    return _var(self, dim, keepdim, 1, "var_mean", True)


@tensor_method
def var_mean_bias(self, dim=None, keepdim=None):
    """``(variance, mean)`` along ``dim`` without Bessel's correction, both with the dim kept.

    >>> import ember
    >>> v, m = ember.tensor([[1.0, 3.0]]).var_mean_bias(1)
    >>> v.tolist(), m.tolist()
    ([[1.0]], [[2.0]])
    """
    return _var(self, dim, keepdim, 0, "var_mean_bias", True)


def _correction(unbiased, correction, op):
    if correction is None:
        return 1 if _flag(unbiased, op, "unbiased") else 0
    if unbiased is not True:
        raise InvalidParameterError(f"{op}: give unbiased or correction, not both (got "
                                    f"unbiased={unbiased!r}, correction={correction!r})",
                                    "correction", correction)
    c = as_int(correction, op, "correction")
    if c < 0:
        raise InvalidParameterError(f"{op}: correction {c} is negative; expected an int >= 0",
                                    "correction", c)
    return c


def var(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """PyTorch's ``torch.var``: the variance over ``dim`` (None: every dim) with ``correction``
    (default 1, Bessel's; ``unbiased=False`` is 0), the dims removed unless ``keepdim`` (the
    method keeps them, as Burn's).

    >>> import ember
    >>> ember.var(ember.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]), 1).tolist()
    [1.0, 4.0]
    """
    return _var(input, dim, keepdim, _correction(unbiased, correction, "var"), "var", False)


def var_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """PyTorch's ``torch.var_mean``: ``(variance, mean)`` as ``ember.var``.

    >>> import ember
    >>> v, m = ember.var_mean(ember.tensor([[1.0, 2.0, 3.0]]), 1)
    >>> v.tolist(), m.tolist()
    ([1.0], [2.0])
    """
    c = _correction(unbiased, correction, "var_mean")
    return _var(input, dim, keepdim, c, "var_mean", True)


# -- median -------------------------------------------------------------------------------------

def _median(x, dim, keepdim, op, with_indices):
    _self(x, op)
    _no_complex(x, op)
    xd = x._data
    be = x._device.backend
    shape = xd.shape
    nd = xd.ndim
    if dim is None:
        keep = False if keepdim is None else _flag(keepdim, op)
        axis = None
    else:
        axis = _axis(x, dim, op)
        keep = True if keepdim is None else _flag(keepdim, op)
    check_kind(x, _NUMERIC, op)
    is_float = x._dtype.kind == "float"
    if axis is None:
        out_shape = (1,) * nd if keep else ()
    elif nd:
        out_shape = _kept(shape, (axis,)) if keep else _squeezed(shape, (axis,))
    else:
        out_shape = ()
    if axis is None and be.numel(xd) == 0 and is_float and not with_indices:
        dt = x._dtype
        data = be.reduce_nan_like(out_shape, dt)

        def rule_empty(g, needs, out):
            return (wrap(be.reduce_zeros(shape, dt), dt),)
        return record(data, x._dtype, (x,), rule_empty, op)
    if axis is None:
        _nonempty(x, tuple(range(nd)), op)
        x1 = be.reduce_reshape(xd, (-1,))
        axis1 = 0
    else:
        _nonempty(x, (axis,) if nd else (), op)
        x1 = xd if nd else be.reduce_reshape(xd, (1,))
        axis1 = axis
    val1, idx1 = be.reduce_median(x1, axis1)
    values = be.reduce_reshape(val1, out_shape)
    indices = wrap(be.reduce_reshape(idx1, out_shape), _int64)
    if not is_float:
        out = wrap(values, x._dtype)
        return (out, indices) if with_indices else out
    shape1 = x1.shape
    xs = saved(x)
    if axis is None and not with_indices:
        def rule(g, needs, out):
            def grad(ga):
                return be.reduce_even_grad(ga, xs._data, out._data, "median")
            return (_spread(g, grad, tuple(range(nd)), op),)
    else:
        axes = tuple(range(nd)) if axis is None else (axis,) if nd else ()
        kshape = val1.shape

        def rule(g, needs, out):
            def grad(ga):
                g1 = be.reduce_reshape(ga, kshape)
                return be.reduce_reshape(be.reduce_index_grad(g1, idx1, shape1, axis1), shape)
            return (_spread(g, grad, axes, op),)
    out = record(values, x._dtype, (x,), rule, op, keep_out=axis is None and not with_indices)
    return (out, indices) if with_indices else out


@tensor_method(name="median")
def median_method(self, dim=None, keepdim=None):
    """The lower median along ``dim``, the dim kept with size 1 (Burn's ``median(dim)``), or of
    every element, 0-d, when ``dim`` is None (PyTorch's ``median()``).

    A slice holding NaN has median NaN, as PyTorch. Floats and ints.

    >>> import ember
    >>> t = ember.tensor([[1.0, 5.0, 3.0, 2.0], [8.0, 4.0, 6.0, 7.0]])
    >>> t.median(0).tolist()
    [[1.0, 4.0, 3.0, 2.0]]
    >>> t.median(1).tolist()
    [[2.0], [6.0]]
    >>> t.median().tolist()
    4.0

    With ``dim`` the values come as a ``ValuesTensor`` (``.indices``; unpacking raises):
    ``ember.median(x, dim)`` is PyTorch's ``(values, indices)`` with the dim removed.
    """
    out = _median(self, dim, keepdim, "median", False)
    if dim is None:
        return out
    return _rt.values_tensor(out, "median", lambda: _median(self, dim, keepdim, "median", True)[1])


def median(input, dim=None, keepdim=False):
    """PyTorch's ``torch.median``: the lower median of every element (0-d) with no ``dim``, else
    the named tuple ``(values, indices)`` along ``dim``, removed unless ``keepdim``.

    >>> import ember
    >>> values, indices = ember.median(ember.tensor([[1.0, 5.0, 3.0], [8.0, 4.0, 6.0]]), 1)
    >>> values.tolist(), indices.tolist()
    ([3.0, 6.0], [2, 2])
    """
    if dim is None:
        return _median(input, None, keepdim, "median", False)
    return _rt.median(*_median(input, dim, keepdim, "median", True))


@tensor_method
def median_with_indices(self, dim=None, keepdim=None):
    """``(values, indices)`` of the lower median along ``dim``, both kept with size 1; with
    ``dim`` None, the median of every element and its flat index, 0-d.

    >>> import ember
    >>> t = ember.tensor([[1.0, 5.0, 3.0, 2.0], [8.0, 4.0, 6.0, 7.0]])
    >>> values, indices = t.median_with_indices(1)
    >>> values.tolist(), indices.tolist()
    ([[2.0], [6.0]], [[3], [2]])
    """
    return _median(self, dim, keepdim, "median_with_indices", True)


# -- covariance ---------------------------------------------------------------------------------

@tensor_method
def cov(self, dim, correction_factor=1):
    """Covariance matrices of a tensor whose observations lie along ``dim`` (Burn's ``cov``):
    ``cov(1)`` of a (V, N) tensor and ``cov(0)`` of an (N, V) one are (V, V). The variables lie
    along the last dim other than ``dim``; every other dim is a batch dim, kept in order, so
    ``cov(-1)`` of a (B, V, N) tensor is (B, V, V). ``correction_factor`` is 1 for samples, 0
    for a population; the divisor is ``max(N - correction_factor, 0)``, as PyTorch's ``cov``.
    Float tensors of rank 2 or more.

    >>> import ember
    >>> ember.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]).cov(1).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    >>> ember.zeros(4, 2, 5).cov(-1).shape
    (4, 2, 2)
    """
    op = "cov"
    _self(self, op)
    _no_complex(self, op)
    xd = self._data
    if xd.ndim < 2:
        raise ShapeMismatchError(f"{op}: self has shape {tuple(xd.shape)} (rank {xd.ndim}); "
                                 "expected a "
                                 "tensor of rank 2 or more (variables and observations)",
                                 expected="rank >= 2", actual=tuple(xd.shape))
    axis = normalize_dim(dim, xd.ndim, op)
    c = as_int(correction_factor, op, "correction_factor")
    if c < 0:
        raise InvalidParameterError(f"{op}: correction_factor {c} is negative; expected an int "
                                    ">= 0", "correction_factor", c)
    check_kind(self, "float", op)
    be = self._device.backend
    data = be.reduce_cov(xd, axis, c)
    nd = xd.ndim
    var = nd - 2 if axis == nd - 1 else nd - 1  # the variables: the last dim other than axis
    order = [d for d in range(nd) if d != var and d != axis] + [var, axis]
    inverse = [order.index(d) for d in range(nd)]
    divisor = float(_builtin_max(xd.shape[axis] - c, 0))
    xs = saved(self)

    def rule(g, needs, out):  # cov = xc xc^T / divisor with xc = x - mean (batch..., V, N)
        xw = xs.permute(order)
        xc = xw - xw.mean(-1, keepdim=True)
        return ((((g + g.transpose(-1, -2)) @ xc) / divisor).permute(inverse),)

    return record(data, self._dtype, (self,), rule, op)

