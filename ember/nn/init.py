"""ember.nn.init: parameter initializers, PyTorch's ``torch.nn.init`` as functions of a shape.

Values are immutable, so each initializer returns a new tensor instead of filling one in place,
and its name drops PyTorch's trailing underscore: ``init.kaiming_uniform((out, in), a=...)``
is ``torch.nn.init.kaiming_uniform_(torch.empty(out, in), a=...)``. The result is a float leaf
tensor (float32 unless ``dtype`` says otherwise) that requires grad, ready to be a parameter
(``requires_grad=False`` for a plain tensor). Random values come from ember's global generator,
so ``ember.manual_seed`` reproduces them.

>>> import ember
>>> from ember.nn import init
>>> ember.manual_seed(0)
>>> w = init.kaiming_uniform((3, 4), a=5 ** 0.5)
>>> w.shape, w.is_require_grad(), bool((w.abs() <= 0.5).all())
((3, 4), True, True)
"""

import math

from .. import dtypes as _dt
from ..backends import default as be
from ..errors import InvalidParameterError, KindError
from ..tensor import Tensor, wrap

__all__ = ["calculate_gain", "uniform", "normal", "constant", "zeros", "ones",
           "kaiming_uniform", "kaiming_normal", "xavier_uniform", "xavier_normal",
           "fan_in_and_fan_out"]


def _shape(shape, op):
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if not isinstance(shape, (tuple, list)):
        shape = (shape,)
    out = []
    for s in shape:
        if isinstance(s, bool) or not hasattr(s, "__index__") or s.__index__() < 0:
            raise InvalidParameterError(
                f"{op}: shape {tuple(shape)!r} must be a tuple of ints >= 0", "shape", shape)
        out.append(s.__index__())
    return tuple(out)


def _dtype(dtype, op):
    dt = _dt.default_float if dtype is None else _dt.as_dtype(dtype)
    if dt.kind != "float":
        raise KindError(f"{op}: dtype {dt.name} is not a float dtype; expected a float dtype")
    return dt


def _number(value, op, param):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameterError(f"{op}: {param} must be a number, got {value!r}", param,
                                    value)
    value = float(value)
    if not math.isfinite(value):
        raise InvalidParameterError(f"{op}: {param} is {value}; expected a finite number",
                                    param, value)
    return value


def _finish(data, dt, requires_grad, op):
    if not isinstance(requires_grad, bool):
        raise InvalidParameterError(f"{op}: requires_grad must be a bool, got {requires_grad!r}",
                                    "requires_grad", requires_grad)
    t = wrap(data, dt)
    if requires_grad:
        t.require_grad()
    return t


def _uniform(shape, low, high, dt):
    if high == low:
        return be.nn_full_like_shape(shape, low, dt.np)
    return be.random_uniform(shape, low, high, dt.np)


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (PyTorch's table): 1 for linear/conv/sigmoid,
    5/3 for tanh, sqrt(2) for relu, sqrt(2 / (1 + slope**2)) for leaky_relu, 3/4 for selu.

    >>> from ember.nn import init
    >>> round(init.calculate_gain("relu"), 4)
    1.4142
    """
    op = "calculate_gain"
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else _number(param, op, "param")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    known = linear + ("tanh", "relu", "leaky_relu", "selu")
    raise InvalidParameterError(
        f"{op}: nonlinearity {nonlinearity!r} is unknown; expected one of {known}",
        "nonlinearity", nonlinearity)


def fan_in_and_fan_out(shape):
    """(fan_in, fan_out) of a weight shape: ``shape[1] * receptive`` and ``shape[0] * receptive``
    where ``receptive`` is the product of the dims after the first two (PyTorch's rule).

    >>> from ember.nn import init
    >>> init.fan_in_and_fan_out((16, 3, 5, 5))
    (75, 400)
    """
    shape = _shape(shape, "fan_in_and_fan_out")
    if len(shape) < 2:
        raise InvalidParameterError(
            f"fan_in_and_fan_out: shape {shape} has fewer than 2 dims; fan in and fan out need "
            "at least 2", "shape", shape)
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def uniform(shape, a=0.0, b=1.0, dtype=None, requires_grad=True):
    """Values uniform in ``[a, b)``.

    >>> from ember.nn import init
    >>> bool(((init.uniform((100,), -2.0, -1.0) >= -2.0).all()))
    True
    """
    op = "uniform"
    shape, dt = _shape(shape, op), _dtype(dtype, op)
    a, b = _number(a, op, "a"), _number(b, op, "b")
    if a > b:
        raise InvalidParameterError(f"{op}: a={a} is above b={b}; expected a <= b", "a", a)
    return _finish(_uniform(shape, a, b, dt), dt, requires_grad, op)


def normal(shape, mean=0.0, std=1.0, dtype=None, requires_grad=True):
    """Values from the normal distribution N(mean, std**2).

    >>> from ember.nn import init
    >>> init.normal((2, 3), std=0.02).shape
    (2, 3)
    """
    op = "normal"
    shape, dt = _shape(shape, op), _dtype(dtype, op)
    mean, std = _number(mean, op, "mean"), _number(std, op, "std")
    if std < 0:
        raise InvalidParameterError(f"{op}: std is {std}; expected std >= 0", "std", std)
    return _finish(be.random_normal(shape, mean, std, dt.np), dt, requires_grad, op)


def constant(shape, value, dtype=None, requires_grad=True):
    """Every value ``value``.

    >>> from ember.nn import init
    >>> init.constant((2,), 0.5).tolist()
    [0.5, 0.5]
    """
    return _constant("constant", shape, value, dtype, requires_grad)


def _constant(op, shape, value, dtype, requires_grad):
    shape, dt = _shape(shape, op), _dtype(dtype, op)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameterError(f"{op}: value must be a number, got {value!r}", "value",
                                    value)
    return _finish(be.nn_full_like_shape(shape, value, dt.np), dt, requires_grad, op)


def zeros(shape, dtype=None, requires_grad=True):
    """Zeros (biases, LayerNorm's bias).

    >>> from ember.nn import init
    >>> init.zeros(2).tolist()
    [0.0, 0.0]
    """
    return _constant("zeros", shape, 0.0, dtype, requires_grad)


def ones(shape, dtype=None, requires_grad=True):
    """Ones (norm weights).

    >>> from ember.nn import init
    >>> init.ones(2).tolist()
    [1.0, 1.0]
    """
    return _constant("ones", shape, 1.0, dtype, requires_grad)


def _kaiming_std(op, shape, a, mode, nonlinearity):
    if mode not in ("fan_in", "fan_out"):
        raise InvalidParameterError(f"{op}: mode {mode!r} is unknown; expected 'fan_in' or "
                                    "'fan_out'", "mode", mode)
    fan_in, fan_out = fan_in_and_fan_out(shape)
    fan = fan_in if mode == "fan_in" else fan_out
    gain = calculate_gain(nonlinearity, a)
    return 0.0 if fan == 0 else gain / math.sqrt(fan)


def kaiming_uniform(shape, a=0.0, mode="fan_in", nonlinearity="leaky_relu", dtype=None,
                    requires_grad=True):
    """He initialization, uniform in ``[-bound, bound)`` with ``bound = gain * sqrt(3 / fan)``.
    ``Linear`` and ``Conv2d`` weights use ``a=sqrt(5)`` (bound ``1 / sqrt(fan_in)``).

    >>> from ember.nn import init
    >>> init.kaiming_uniform((8, 4), nonlinearity="relu").shape
    (8, 4)
    """
    op = "kaiming_uniform"
    shape, dt = _shape(shape, op), _dtype(dtype, op)
    bound = math.sqrt(3.0) * _kaiming_std(op, shape, a, mode, nonlinearity)
    return _finish(_uniform(shape, -bound, bound, dt), dt, requires_grad, op)


def kaiming_normal(shape, a=0.0, mode="fan_in", nonlinearity="leaky_relu", dtype=None,
                   requires_grad=True):
    """He initialization, normal with ``std = gain / sqrt(fan)``.

    >>> from ember.nn import init
    >>> init.kaiming_normal((8, 4)).shape
    (8, 4)
    """
    op = "kaiming_normal"
    shape, dt = _shape(shape, op), _dtype(dtype, op)
    std = _kaiming_std(op, shape, a, mode, nonlinearity)
    return _finish(be.random_normal(shape, 0.0, std, dt.np), dt, requires_grad, op)


def xavier_uniform(shape, gain=1.0, dtype=None, requires_grad=True):
    """Glorot initialization, uniform in ``[-a, a)`` with
    ``a = gain * sqrt(6 / (fan_in + fan_out))``.

    >>> from ember.nn import init
    >>> init.xavier_uniform((3, 5)).shape
    (3, 5)
    """
    op = "xavier_uniform"
    shape, dt = _shape(shape, op), _dtype(dtype, op)
    fan_in, fan_out = fan_in_and_fan_out(shape)
    gain = _number(gain, op, "gain")
    bound = 0.0 if fan_in + fan_out == 0 else gain * math.sqrt(6.0 / (fan_in + fan_out))
    return _finish(_uniform(shape, -bound, bound, dt), dt, requires_grad, op)


def xavier_normal(shape, gain=1.0, dtype=None, requires_grad=True):
    """Glorot initialization, normal with ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    >>> from ember.nn import init
    >>> init.xavier_normal((3, 5)).shape
    (3, 5)
    """
    op = "xavier_normal"
    shape, dt = _shape(shape, op), _dtype(dtype, op)
    fan_in, fan_out = fan_in_and_fan_out(shape)
    gain = _number(gain, op, "gain")
    std = 0.0 if fan_in + fan_out == 0 else gain * math.sqrt(2.0 / (fan_in + fan_out))
    return _finish(be.random_normal(shape, 0.0, abs(std), dt.np), dt, requires_grad, op)
