"""Statistics along dims: the variance (``var``, ``var_bias``, ``var_mean``, ``var_mean_bias`` and
PyTorch's ``ember.var``/``ember.var_mean`` with ``correction``), the lower median (``median``,
``median_with_indices``) and Burn's covariance ``cov``. Their spellings are as
``ember/ops/reduce.py`` says. Float tensors (the median takes ints too); complex tensors raise
``dtypes.complex_error``.
"""

import math

from ..errors import InvalidParameterError, ShapeMismatchError
from ..shapes import as_int, normalize_dim, dim_aliases
from .. import return_types as _rt
from ..autodiff.rules import unreduce
from .._tensor import check_kind, record, saved, tensor_method, wrap
from .reduce import (_NUMERIC, _axes, _axis, _count, _flag, _int64, _kept, _no_complex, _nonempty,
                     _self, _spread, _squeezed)

__all__ = ["var", "var_mean", "median", "cov"]


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
@dim_aliases
def var_method(self, dim=None, keepdim=None):
    """The variance along ``dim`` with Bessel's correction (divides by n - 1), the dim kept with
    size 1 (Burn's ``var(dim)``); ``dim`` None: the whole tensor, 0-d. Float tensors only.

    >>> import ember
    >>> ember.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]).var(1).tolist()
    [[1.0], [4.0]]
    """
    return _var(self, dim, keepdim, 1, "var", False)


@tensor_method
@dim_aliases
def var_bias(self, dim=None, keepdim=None):
    """The variance along ``dim`` without Bessel's correction (divides by n), the dim kept.

    >>> import ember
    >>> ember.tensor([[1.0, 3.0], [2.0, 6.0]]).var_bias(1).tolist()
    [[1.0], [4.0]]
    """
    return _var(self, dim, keepdim, 0, "var_bias", False)


@tensor_method(name="var_mean")
@dim_aliases
def var_mean_method(self, dim=None, keepdim=None):
    """``(variance, mean)`` along ``dim`` (Bessel's correction), both with the dim kept.

    >>> import ember
    >>> v, m = ember.tensor([[1.0, 2.0, 3.0]]).var_mean(1)
    >>> v.tolist(), m.tolist()
    ([[1.0]], [[2.0]])
    """
    return _var(self, dim, keepdim, 1, "var_mean", True)


@tensor_method
@dim_aliases
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


@dim_aliases
def var(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """PyTorch's ``torch.var``: the variance over ``dim`` (None: every dim) with ``correction``
    (default 1, Bessel's; ``unbiased=False`` is 0), the dims removed unless ``keepdim`` (the
    method keeps them, as Burn's).

    >>> import ember
    >>> ember.var(ember.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]), 1).tolist()
    [1.0, 4.0]
    """
    return _var(input, dim, keepdim, _correction(unbiased, correction, "var"), "var", False)


@dim_aliases
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
@dim_aliases
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


@dim_aliases
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
@dim_aliases
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
    divisor = float(max(xd.shape[axis] - c, 0))
    xs = saved(self)

    def rule(g, needs, out):  # cov = xc xc^T / divisor with xc = x - mean (batch..., V, N)
        xw = xs.permute(order)
        xc = xw - xw.mean(-1, keepdim=True)
        return ((((g + g.transpose(-1, -2)) @ xc) / divisor).permute(inverse),)

    return record(data, self._dtype, (self,), rule, op)
