"""Activations: ``relu``, ``sigmoid``, ``tanh``, ``gelu``, ``silu``, ``softmax`` and
``log_softmax`` (``ember.nn.functional``; ``softmax``, ``log_softmax``, ``gelu`` and ``silu`` are
Tensor methods too)."""

import math as _math

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError

from ..autodiff.rules import array_rule
from .._tensor import (_adopt_device, check_tensor, record, record_arrays, saved, tensor_method,
                      wrap)
from .inplace import apply_inplace
from .nn_args import _float_math, _softmax_dim


# -- activations --------------------------------------------------------------------------------

def _done(input, compute, inplace, op):
    """``compute()`` (the out-of-place result), or, when ``inplace``, that result written into
    ``input`` and its aliases by PyTorch's rules (ember/ops/inplace.py's ``apply_inplace``),
    returning ``input``. The activations' and dropouts' ``inplace=`` (activation_more.py,
    norms_more.py)."""
    if not isinstance(inplace, bool):
        raise InvalidParameterError(f"{op}: inplace must be a bool, got {inplace!r}",
                                    "inplace", inplace)
    if not inplace:
        return compute()
    return apply_inplace(input, lambda _: compute(), op)


def relu(input, inplace=False):
    """``max(input, 0)`` elementwise (PyTorch's ``F.relu``); ``inplace=True`` writes the result
    into ``input`` and its views, as PyTorch's (ember/ops/activation_more.py).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.relu(ember.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    >>> x = ember.tensor([-1.0, 2.0])
    >>> F.relu(x, inplace=True) is x, x.tolist()
    (True, [0.0, 2.0])
    """
    if inplace is not False:
        return _done(input, lambda: relu(input), inplace, "relu")
    check_tensor(input, "relu", "input")
    if input._dtype.kind != "float":
        if input._dtype.kind == "complex":  # docs/complex.md: nn takes real tensors only
            raise _dt.complex_error("relu", "input", input._dtype)
        return input.relu()  # ints keep their dtype; bools raise Tensor.relu's KindError
    be = input._device.backend
    dt = input._dtype
    xd = input._data
    if input._ad == "balanced":  # recomputed in backward (record_arrays), the same rule
        return record_arrays(be.nn_relu(xd), dt, (input,), _relu_recompute((xd,), None), "relu",
                             (_relu_forward, _relu_recompute))
    return record(be.nn_relu(xd), dt, (input,), _relu_rule(saved(input)), "relu")


def _relu_rule(x):
    """relu's rule: ``g`` where ``x > 0`` (or NaN), 0 elsewhere: the fused kernel, recorded."""
    return lambda g, needs, out: (_relu_backward(g, x),)


def _relu_backward(g, x):
    """relu's backward as an op of its own (the backend's fused select kernel): ``g`` masked by
    ``x > 0``. Linear in ``g`` with a constant mask: its rule is itself; ``x`` gets none."""
    be = g._device.backend

    def rule(gg, needs, out):
        return (_relu_backward(gg, x) if needs[0] else None, None)
    return record(be.nn_relu_grad(g._data, x._data), g._dtype, (g, x), rule, "relu_backward")


def _relu_forward(x):
    return _adopt_device(x).backend.nn_relu(x)


def _relu_recompute(arrays, out):
    """The backward of relu from its input's array (the "balanced" checkpointing recompute):
    ``_relu_rule`` on arrays."""
    x = arrays[0]
    dt = _adopt_device(x).backend.dtype_of(x)
    return array_rule(_relu_rule(wrap(x, dt)), dt)


def sigmoid(input):
    """The logistic function ``1 / (1 + exp(-input))``, stable for large ``|input|``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.sigmoid(ember.tensor([0.0])).tolist()
    [0.5]
    """
    check_tensor(input, "sigmoid", "input")
    if input._dtype.kind == "complex":  # docs/complex.md: nn takes real tensors only
        raise _dt.complex_error("sigmoid", "input", input._dtype)
    return input.sigmoid()


def tanh(input):
    """The hyperbolic tangent elementwise.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.tanh(ember.tensor([0.0])).tolist()
    [0.0]
    """
    check_tensor(input, "tanh", "input")
    if input._dtype.kind == "complex":  # docs/complex.md: nn takes real tensors only
        raise _dt.complex_error("tanh", "input", input._dtype)
    return input.tanh()


@tensor_method
def gelu(input, approximate="none"):
    """GELU: ``x * Phi(x)`` with the exact normal CDF (``approximate="none"``, through erf) or
    its tanh approximation (``approximate="tanh"``). ``gelu(inf)`` is ``inf`` on every backend and
    dtype (PyTorch's float32 exact GELU gives ``nan`` or ``inf`` there, by CPU kernel);
    ``gelu(-inf)`` and ``gelu(nan)`` are ``nan``, and so is the gradient at ``+-inf``, as PyTorch's.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.gelu(ember.tensor([float("inf"), float("-inf")])).tolist()
    [inf, nan]
    >>> [round(v, 4) for v in F.gelu(ember.tensor([-1.0, 0.0, 1.0])).tolist()]
    [-0.1587, 0.0, 0.8413]
    >>> round(F.gelu(ember.tensor(1.0), approximate="tanh").item(), 4)
    0.8412
    """
    op = "gelu"
    if approximate not in ("none", "tanh"):
        raise InvalidParameterError(
            f"{op}: approximate {approximate!r} is unknown; expected 'none' or 'tanh'",
            "approximate", approximate)
    x = _float_math(input, op)
    be = x._device.backend
    xs = saved(x)

    def rule(g, needs, out):
        return (_gelu_backward(g, xs, approximate),)

    return record(be.nn_gelu(x._data, approximate), x._dtype, (x,), rule, op)


_INV_SQRT_2PI = 1.0 / _math.sqrt(2.0 * _math.pi)
_SQRT_2_OVER_PI = _math.sqrt(2.0 / _math.pi)
_GELU_C = 0.044715


def _gelu_backward(g, x, approximate):
    """``g * gelu'(x)``, gelu's backward as an op of its own (the backend's fused kernel),
    recorded with its rule: ``gelu'(x)`` for ``g`` and ``g * gelu''(x)`` for ``x``."""
    be = g._device.backend
    gs = saved(g)

    def rule(gg, needs, out):
        return (_gelu_backward(gg, x, approximate) if needs[0] else None,
                gg * gs * _gelu_second(x, approximate) if needs[1] else None)
    return record(be.nn_gelu_grad(g._data, x._data, approximate), g._dtype, (g, x), rule,
                  "gelu_backward")


def _gelu_second(x, approximate):
    """gelu's second derivative, with ember ops: ``phi(x) * (2 - x**2)`` (exact) or that of
    the tanh form ``0.5 x (1 + tanh(u))``, ``u = c (x + a x**3)``."""
    x2 = x * x
    if approximate == "tanh":
        t = ((x + x2 * x * _GELU_C) * _SQRT_2_OVER_PI).tanh()
        sech2 = 1.0 - t * t
        du = (1.0 + x2 * (3.0 * _GELU_C)) * _SQRT_2_OVER_PI
        d2u = x * (6.0 * _GELU_C * _SQRT_2_OVER_PI)
        return sech2 * (du + x * 0.5 * (d2u - t * du * du * 2.0))
    return (x2 * -0.5).exp() * _INV_SQRT_2PI * (2.0 - x2)


@tensor_method
def silu(input, inplace=False):
    """SiLU (swish): ``x * sigmoid(x)``; ``inplace=True`` writes the result into ``input`` and
    its views, as PyTorch's.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> [round(v, 4) for v in F.silu(ember.tensor([-1.0, 0.0, 1.0])).tolist()]
    [-0.2689, 0.0, 0.7311]
    """
    if inplace is not False:
        return _done(input, lambda: silu(input), inplace, "silu")
    op = "silu"
    x = _float_math(input, op)
    be = x._device.backend
    xs = saved(x)

    def rule(g, needs, out):
        return (_silu_backward(g, xs),)

    return record(be.nn_silu(x._data), x._dtype, (x,), rule, op)


def _silu_backward(g, x):
    """``g * silu'(x)``, silu's backward as an op of its own (the backend's fused kernel),
    recorded with its rule: ``silu'(x)`` for ``g`` and ``g * silu''(x)`` for ``x``, where
    ``silu'' = s (1 - s) (2 + x (1 - 2 s))``, ``s = sigmoid(x)``."""
    be = g._device.backend
    gs = saved(g)

    def rule(gg, needs, out):
        gx = None
        if needs[1]:
            sg = x.sigmoid()
            gx = gg * gs * (sg * (1.0 - sg) * (2.0 + x * (1.0 - sg * 2.0)))
        return (_silu_backward(gg, x) if needs[0] else None, gx)
    return record(be.nn_silu_grad(g._data, x._data), g._dtype, (g, x), rule, "silu_backward")


def _softmax_like(input, dim, dtype, op, log):
    x = _float_math(input, op)
    if dtype is not None:
        want = _dt.as_dtype(dtype)
        if want.kind != "float":
            raise KindError(f"{op}: dtype {want.name} is not a float dtype; expected a float "
                            "dtype", )
        x = x.cast(want)
    xd = x._data
    nd = xd.ndim
    if dim.__class__ is int and -nd <= dim < nd:  # an int dim in range: what _softmax_dim gives
        axis = dim + nd if dim < 0 else dim
    else:
        axis = _softmax_dim(x, dim, op)
    be = x._device.backend
    scalar = nd == 0
    if scalar:
        xd = be.nn_reshape(xd, (1,))
    out = be.nn_log_softmax(xd, axis) if log else be.nn_softmax(xd, axis)
    if scalar:
        out = be.nn_reshape(out, ())

    def rule(g, needs, y):
        return (_softmax_backward(g, y, axis, log),)

    return record(out, x._dtype, (x,), rule, op, keep_out=True)


def _softmax_backward(g, y, axis, log):
    """The backward of softmax (``log``: log_softmax) from its output ``y``, as an op of its
    own (the backend's fused row kernel), recorded with its rule:

    - softmax: ``z = y * (g - sum(g * y))``; ``dz/dg`` applied to ``gg`` is the same backward
      of ``gg``, and ``dz/dy`` gives ``gg * (g - sum(g * y)) - g * sum(gg * y)``;
    - log_softmax: ``z = g - exp(y) * sum(g)``; ``gg - sum(gg * exp(y))`` for ``g`` and
      ``-gg * exp(y) * sum(g)`` for ``y``.
    """
    be = g._device.backend
    gd, yd = g._data, y._data
    scalar = g.ndim == 0
    if scalar:
        gd, yd = be.nn_reshape(gd, (1,)), be.nn_reshape(yd, (1,))
    data = be.nn_log_softmax_grad(gd, yd, axis) if log else be.nn_softmax_grad(gd, yd, axis)
    if scalar:
        data = be.nn_reshape(data, ())
    gs, ys = saved(g), saved(y)

    def rule(gg, needs, out):
        g1, y1, gg1 = (gs.reshape(1), ys.reshape(1), gg.reshape(1)) if scalar else (gs, ys, gg)
        rg = ry = None
        if log:
            p = y1.exp()
            if needs[0]:
                rg = gg1 - (gg1 * p).sum(axis, keepdim=True)
            if needs[1]:
                ry = -(gg1 * p) * g1.sum(axis, keepdim=True)
        else:
            if needs[0]:
                rg = _softmax_backward(gg1, y1, axis, False)
            if needs[1]:
                ry = gg1 * (g1 - (g1 * y1).sum(axis, keepdim=True)) - \
                    g1 * (gg1 * y1).sum(axis, keepdim=True)
        if scalar:
            rg = None if rg is None else rg.reshape(())
            ry = None if ry is None else ry.reshape(())
        return rg, ry
    return record(data, g._dtype, (g, y), rule,
                  "log_softmax_backward" if log else "softmax_backward")


@tensor_method
def softmax(input, dim=None, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``, computed stably (the max is subtracted first).

    ``dim=None`` picks PyTorch's implicit dim (0 for 0-, 1- and 3-d inputs, else 1); ``dtype``
    casts the input first. As in PyTorch, a slice holding +inf or NaN, or only -inf, is NaN
    throughout, and so is its gradient (also for ``log_softmax`` and ``cross_entropy``).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.softmax(ember.tensor([1000.0, 1000.0]), dim=0).tolist()
    [0.5, 0.5]
    >>> F.softmax(ember.tensor([float("inf"), 0.0]), dim=0).tolist()
    [nan, nan]
    """
    return _softmax_like(input, dim, dtype, "softmax", False)


@tensor_method
def log_softmax(input, dim=None, dtype=None):
    """``x - log(sum(exp(x)))`` along ``dim``, computed stably; one recorded op whose gradient is
    ``g - softmax * sum(g)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> [round(v, 4) for v in F.log_softmax(ember.tensor([0.0, 0.0]), dim=0).tolist()]
    [-0.6931, -0.6931]
    """
    return _softmax_like(input, dim, dtype, "log_softmax", True)
