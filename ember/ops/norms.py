"""Vector and matrix norms: ``ember.linalg.vector_norm``, ``matrix_norm``, ``norm`` and
``Tensor.norm`` (also ``ember.norm``), with PyTorch's semantics and gradients.

Norms take float and complex tensors (KindError for ints and bools, as PyTorch); ``dtype=`` casts
the input first and must not narrow it (a complex input takes a complex ``dtype``). float16 and
bfloat16 vector norms accumulate in float32. The norm of a complex tensor is the norm of its
absolute values, real (float32 for complex64, float64 for complex128), as PyTorch's.

>>> import ember
>>> ember.tensor([3.0, 4.0]).norm().item()
5.0
"""

import math

from .. import dtypes as _dt
from ..autodiff.graph import _mode
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import normalize_dim, dim_aliases
from .._tensor import check_tensor, record, saved, tensor_method, wrap
from .decompositions import matrices, singular_values
from .reduce import _axes

__all__ = ["norm"]

_LOW = ("float16", "bfloat16")
_MATRIX_ORDS = ("fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2)


def _float_input(x, op, dtype):
    """``x`` checked to be a float or complex Tensor, cast to ``dtype`` (which must not narrow it
    and is of ``x``'s kind)."""
    check_tensor(x, op, "input")
    kind = x._dtype.kind
    if kind != "float" and kind != "complex":
        raise KindError(f"{op}: input has dtype {x._dtype.name}; expected a float or complex "
                        "tensor (cast it with .float())")
    if dtype is None:
        return x
    dt = _dt.as_dtype(dtype, "dtype", op)
    if dt.kind != kind:
        raise InvalidParameterError(f"{op}: dtype is {dt.name}; expected a {kind} dtype for an "
                                    f"input of dtype {x._dtype.name}", "dtype", dtype)
    if _dt.promote_types(x._dtype, dt) is not dt:
        raise InvalidParameterError(
            f"{op}: dtype {dt.name} would narrow the input's dtype {x._dtype.name}; expected a "
            "dtype the input converts to without narrowing", "dtype", dtype)
    return x if dt is x._dtype else x.cast(dt)


def _vector_ord(ord, op):
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise InvalidParameterError(f"{op}: ord is {ord!r}; expected a real number "
                                    "(inf and -inf included)", "ord", ord)
    return float(ord)


def _flag(value, op, param="keepdim"):
    if value is True or value is False:
        return value
    raise InvalidParameterError(f"{op}: {param} must be a bool, got {value!r}", param, value)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ``ord``-norm of ``x`` over ``dim`` (None or ``()``: all dims, flattened), as
    ``torch.linalg.vector_norm``: ``sum(|x|**ord)**(1/ord)``; ``inf``/``-inf`` the largest /
    smallest ``|x|``; ``0`` the number of nonzeros.

    The gradient is PyTorch's: zero where the norm is zero, shared evenly among ties of the
    inf-norms. ``inf``, ``-inf`` and negative ords of zero elements raise InvalidParameterError.

    >>> import ember
    >>> x = ember.tensor([[3.0, -4.0], [0.0, 1.0]])
    >>> x.norm().item() == ember.linalg.vector_norm(x).item()
    True
    >>> ember.linalg.vector_norm(x, ord=1, dim=1).tolist()
    [7.0, 1.0]
    >>> ember.linalg.vector_norm(x, ord=float("inf")).item()
    4.0
    """
    op = "vector_norm"
    x = _float_input(x, op, dtype)
    p = _vector_ord(ord, op)
    keep = _flag(keepdim, op)
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        axes = tuple(range(x.ndim))
    else:
        axes = _axes(x, dim, op)
    count = 1
    for ax in axes:
        count *= x.shape[ax]
    if count == 0 and (p < 0 or p == math.inf):
        raise InvalidParameterError(
            f"{op}: cannot compute the {ord} norm of zero elements (dims {axes} of shape "
            f"{tuple(x.shape)}); it has no identity. Expected a non-empty reduction or ord >= 0",
            "input", tuple(x.shape))
    xd = x._data
    be = x._device.backend
    if x._dtype.kind == "complex":  # the norm of |x|, real; no gradient through complex tensors
        rdt = _dt.real_of(x._dtype)
        return wrap(be.linalg_vector_norm(xd, p, axes, keep, rdt), rdt, x._ad)
    cdt = _dt.float32 if x._dtype.name in _LOW else x._dtype
    out = be.linalg_vector_norm(xd, p, axes, keep, cdt)
    if x._node is None:  # untracked: no gradient rule to build (what record would give)
        return wrap(out, x._dtype, x._ad)
    xs = saved(x)

    def rule(g, needs, out):
        if not _mode.enabled:  # a first-order backward: the fused kernel, the same values
            return (wrap(be.linalg_vector_norm_grad(g._data, xs._data, out._data, p, axes, keep,
                                                    cdt), x._dtype),)
        return (_vector_norm_grad(g, xs, out, p, keep, axes, cdt),)

    return record(out, x._dtype, (x,), rule, op, keep_out=True)


def _const(t):
    """``t``'s value as an untracked tensor: for the masks and signs of a rule, whose
    derivatives are zero."""
    return wrap(t._data, t._dtype)


def _vector_norm_grad(g, x, norm, p, keep, axes, cdt):
    """The gradient of ``norm = vector_norm(x, p, axes)``, PyTorch's: zero where the norm is
    zero, and ties of the inf-norms share it evenly; computed in ``cdt``. With ember ops, for
    a backward that records (``create_graph``); the values are those of the kernel
    ``linalg_vector_norm_grad`` that a first-order backward takes."""
    dt = x._dtype
    if cdt is not dt:
        x, g, norm = x.cast(cdt), g.cast(cdt), norm.cast(cdt)
    if not keep:  # the reduced dims back, with size 1
        for a in sorted(axes):
            g, norm = g.unsqueeze(a), norm.unsqueeze(a)
    if p == 0:
        out = _const(x) * 0.0
    elif p == 2:  # g / norm where the norm is not zero, 0 where it is (a safe divisor, so that
        dead = (_const(norm) == 0).cast(cdt)  # no NaN reaches a higher-order gradient)
        out = x * (g / (norm + dead) * (1 - dead))
    elif p == 1:
        out = _const(x).sign() * g
    elif math.isinf(p):
        a = _const(x).abs()
        mask = (a == _const(norm)) | a.is_nan()
        out = _const(x).sign() * (g / mask.sum(axes, keepdim=True).cast(cdt)) * mask.cast(cdt)
    else:
        sign = _const(x).sign()
        ax = x * sign  # |x|
        if p < 1:
            zero = (_const(x) == 0).cast(cdt)
            out = sign * ((ax + zero) ** (p - 1) * (1 - zero)) * g * norm ** (1 - p)
        else:
            dead = (_const(norm) == 0).cast(cdt)
            scale = g / (norm + dead) ** (p - 1) * (1 - dead)
            out = (sign * ax ** (p - 1) if p < 2 else x * ax ** (p - 2)) * scale
    return out if cdt is dt else out.cast(dt)


def _matrix_dims(x, dim, op):
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise InvalidParameterError(f"{op}: dim is {dim!r}; expected a 2-tuple of dims",
                                    "dim", dim)
    d0 = normalize_dim(dim[0], x.ndim, op)
    d1 = normalize_dim(dim[1], x.ndim, op)
    if d0 == d1:
        raise InvalidParameterError(f"{op}: dim {tuple(dim)} names dim {d0} twice; expected two "
                                    "different dims", "dim", dim)
    return d0, d1


def _kept(shape, d0, d1):
    return tuple(1 if i in (d0, d1) else s for i, s in enumerate(shape))


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The ``ord``-norm of the matrices of ``A`` over the two dims ``dim``, as
    ``torch.linalg.matrix_norm``.

    ``ord``: ``"fro"`` (Frobenius), ``"nuc"`` (sum of singular values), ``inf``/``-inf`` (max/min
    absolute row sum), ``1``/``-1`` (max/min absolute column sum), ``2``/``-2`` (largest/smallest
    singular value). The max-type norms of an empty matrix are 0; the min-type ones raise
    InvalidParameterError. Ties share the gradient evenly, as PyTorch's ``amax``.

    >>> import ember
    >>> A = ember.tensor([[1.0, -2.0], [3.0, 4.0]])
    >>> ember.linalg.matrix_norm(A, ord=1).item(), ember.linalg.matrix_norm(A, ord=float("inf")).item()
    (6.0, 7.0)
    >>> round(ember.linalg.matrix_norm(A).item(), 4)
    5.4772
    """
    op = "matrix_norm"
    A = _float_input(A, op, dtype)
    keep = _flag(keepdim, op)
    if isinstance(ord, bool) or ord not in _MATRIX_ORDS:
        raise InvalidParameterError(f"{op}: ord is {ord!r}; expected 'fro', 'nuc', inf, -inf, "
                                    "1, -1, 2 or -2", "ord", ord)
    if A.ndim < 2:
        raise ShapeMismatchError(f"{op}: input has shape {tuple(A.shape)}; expected at least 2 "
                                 "dims", expected=2, actual=A.ndim)
    d0, d1 = _matrix_dims(A, dim, op)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keep)
    kept = _kept(A.shape, d0, d1)
    final = kept if keep else tuple(s for i, s in enumerate(A.shape) if i not in (d0, d1))
    if ord in (1, -1, math.inf, -math.inf):
        sum_axis, ext_axis = (d0, d1) if ord in (1, -1) else (d1, d0)
        if ord < 0 and A.shape[ext_axis] == 0:
            raise InvalidParameterError(
                f"{op}: the {ord} norm of a matrix with no {'columns' if ord == -1 else 'rows'} "
                f"(shape {tuple(A.shape)}) has no value; expected a non-empty matrix", "input",
                tuple(A.shape))
        a = A._data
        be = A._device.backend
        cdt = _dt.float32 if A._dtype.name in _LOW else A._dtype
        r, s = be.linalg_abs_sum_extreme(be.cast(a, cdt), sum_axis, ext_axis, ord > 0)
        if A._dtype.kind == "complex":  # sums of |a|: real, no gradient
            rdt = _dt.real_of(A._dtype)
            return wrap(be.linalg_reshape(be.cast(r, rdt), final), rdt)
        out = be.linalg_reshape(be.cast(r, A._dtype), final)

        def rule(g, needs, out):
            # sign(A) times the share of each tied extreme sum: weights with zero derivative
            gk = g if cdt is A._dtype else g.cast(cdt)
            if not keep:  # the two reduced dims back, with size 1
                gk = gk.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
            w = be.linalg_abs_sum_extreme_grad(be.ones_like(gk._data), be.cast(a, cdt), s, r,
                                               ext_axis)
            ga = gk * wrap(w, cdt)
            return (ga if cdt is A._dtype else ga.cast(A._dtype),)

        return record(out, A._dtype, (A,), rule, op)
    matrices(A, op, "input", square=False)
    if ord == -2 and min(A.shape[d0], A.shape[d1]) == 0:
        raise InvalidParameterError(f"{op}: the -2 norm of an empty matrix (shape "
                                    f"{tuple(A.shape)}) has no value; expected a non-empty matrix",
                                    "input", tuple(A.shape))
    s = singular_values(A.movedim((d0, d1), (-2, -1)), op, "input")
    if ord == "nuc":
        out = s.sum(-1)
    else:
        be = s._device.backend
        r, w = be.linalg_extreme_last(s._data, ord > 0)
        weights = wrap(w, s._dtype)  # the share of each tied extreme: zero derivative

        def rule(g, needs, out):
            return (g.unsqueeze(-1) * weights,)

        out = record(r, s._dtype, (s,), rule, op)
    return out.reshape(final)


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``torch.linalg.norm``: a vector norm when ``dim`` is an int or 1-tuple, a matrix norm when
    it is a 2-tuple; with ``dim=None``, the 2-norm of the flattened input when ``ord`` is None,
    else a vector norm of a 1-d input or a matrix norm of a 2-d one.

    >>> import ember
    >>> A = ember.tensor([[1.0, -2.0], [3.0, 4.0]])
    >>> ember.linalg.norm(A, ord=1).item()
    6.0
    >>> ember.linalg.norm(A, ord=1, dim=1).tolist()
    [3.0, 7.0]
    """
    op = "norm"
    check_tensor(A, op, "input")
    if dim is not None:
        dims = (dim,) if not isinstance(dim, (tuple, list)) else tuple(dim)
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        raise InvalidParameterError(f"{op}: dim is {dim!r}; expected an int, a 1-tuple or a "
                                    "2-tuple", "dim", dim)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if isinstance(ord, str) or A.ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    if A.ndim == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    raise ShapeMismatchError(f"{op}: input has {A.ndim} dims and ord is {ord!r} without dim; "
                             "expected a 1-d or 2-d input (or give dim)", expected=(1, 2),
                             actual=A.ndim)


@tensor_method
@dim_aliases
def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    """The norm of PyTorch's ``Tensor.norm`` / ``torch.norm``: ``p="fro"`` (or None) over at most
    two dims is the 2-norm of those elements; a number ``p`` is ``vector_norm(p)`` over ``dim``
    (None: all dims); ``p="nuc"`` is the nuclear matrix norm over ``dim`` (None: a 2-d input).

    >>> import ember
    >>> x = ember.tensor([[3.0, 4.0], [0.0, 0.0]])
    >>> x.norm().item(), x.norm(dim=1).tolist(), x.norm(p=1).item()
    (5.0, [5.0, 0.0], 7.0)
    """
    op = "norm"
    check_tensor(self, op, "input")
    dims = None if dim is None else ((dim,) if not isinstance(dim, (tuple, list)) else tuple(dim))
    if isinstance(p, str):
        if p == "fro" and (dims is None or len(dims) <= 2):
            return vector_norm(self, 2, dims, keepdim, dtype=dtype)
        if dims is None:
            dims = tuple(range(self.ndim))
        return matrix_norm(self, p, dims, keepdim, dtype=dtype)
    return vector_norm(self, 2 if p is None else p, dims, keepdim, dtype=dtype)
