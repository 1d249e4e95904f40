"""Reductions: sums, means, products and the tests ``any``, ``all`` and ``count_nonzero``; the
axis helpers and the gradient of a selecting reduction (``_spread``) that the other reductions
share: ``ember/ops/extremes.py`` (max, min, argmax, ...) and ``ember/ops/statistics.py`` (var,
median, cov).

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
reduction orders or squares its elements (max, min, argmax, median, var, cov ...) and raises
``dtypes.complex_error`` for a complex tensor, as PyTorch's do where it defines none.
"""

from .. import dtypes as _dt
from ..errors import DimensionError, InvalidParameterError
from ..shapes import as_int, normalize_dim, normalize_dims, dim_aliases
from ..autodiff.graph import _mode
from ..autodiff.rules import unreduce
from .._tensor import Tensor, check_kind, record, saved, tensor_method, wrap

__all__ = ["sum", "mean", "prod", "any", "all", "count_nonzero"]


_int64 = _dt.int64
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
    nd = x._data.ndim
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


# -- the gradient of a selecting reduction ------------------------------------------------------

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


# -- sum, mean, prod ----------------------------------------------------------------------------

def _sum(x, axes, keepdims, op):
    dt = x._dtype
    be = x._device.backend
    if dt.kind != "float":
        if dt.kind == "complex":  # a complex sum (complex tensors carry no gradient)
            return wrap(be.reduce_sum(x._data, axes, keepdims, dt), dt, x._ad)
        return wrap(be.reduce_sum(x._data, axes, keepdims, _int64), _int64)
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
@dim_aliases
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
@dim_aliases
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
@dim_aliases
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


# -- any, all, count_nonzero --------------------------------------------------------------------

@tensor_method
@dim_aliases
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
@dim_aliases
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
@dim_aliases
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
