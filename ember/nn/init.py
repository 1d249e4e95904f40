"""ember.nn.init: parameter initializers, PyTorch's ``torch.nn.init`` as functions of a shape.

Each initializer returns a new tensor, and its name drops PyTorch's trailing underscore:
``init.kaiming_uniform((out, in), a=...)`` is ``torch.nn.init.kaiming_uniform_(torch.empty(out,
in), a=...)``. PyTorch's spellings with the underscore exist too (``init.normal_(w, std=0.02)``):
they rebind the given tensor object to the new value, so modules and tied weights holding it
see it, and return it. The result is a float leaf
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
from ..devices import as_device
from ..errors import InvalidParameterError, KindError
from ..ops.inplace import rebind
from ..ops.random import _random, _source
from .._tensor import Tensor, wrap

__all__ = ["calculate_gain", "uniform", "normal", "constant", "zeros", "ones",
           "kaiming_uniform", "kaiming_normal", "xavier_uniform", "xavier_normal",
           "trunc_normal", "orthogonal", "fan_in_and_fan_out",
           "uniform_", "normal_", "constant_", "zeros_", "ones_", "kaiming_uniform_",
           "kaiming_normal_", "xavier_uniform_", "xavier_normal_", "trunc_normal_", "orthogonal_"]


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
        if dt.kind == "complex":  # docs/complex.md: nn takes real tensors only
            raise _dt.complex_error(op, "dtype", dt)
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


def _backend(device, op):
    """The backend that creates the values: ``device``'s (None: the default device)."""
    return as_device(device, op).backend


def _uniform(shape, low, high, dt, gen, be, op):
    if high == low:
        return be.nn_full_like_shape(shape, low, dt)
    return _random("random_uniform", (be, gen), op, shape, low, high, dt)


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


def uniform(shape, a=0.0, b=1.0, dtype=None, requires_grad=True, generator=None, device=None):
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
    be, gen = _source(generator, device, op)
    return _finish(_uniform(shape, a, b, dt, gen, be, op), dt, requires_grad, op)


def normal(shape, mean=0.0, std=1.0, dtype=None, requires_grad=True, generator=None, device=None):
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
    data = _random("random_normal", _source(generator, device, op), op,
                   shape, mean, std, dt)
    return _finish(data, dt, requires_grad, op)


def constant(shape, value, dtype=None, requires_grad=True, device=None):
    """Every value ``value``.

    >>> from ember.nn import init
    >>> init.constant((2,), 0.5).tolist()
    [0.5, 0.5]
    """
    return _constant("constant", shape, value, dtype, requires_grad, device)


def _constant(op, shape, value, dtype, requires_grad, device=None):
    shape, dt = _shape(shape, op), _dtype(dtype, op)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameterError(f"{op}: value must be a number, got {value!r}", "value",
                                    value)
    be = _backend(device, op)
    return _finish(be.nn_full_like_shape(shape, value, dt), dt, requires_grad, op)


def zeros(shape, dtype=None, requires_grad=True, device=None):
    """Zeros (biases, LayerNorm's bias).

    >>> from ember.nn import init
    >>> init.zeros(2).tolist()
    [0.0, 0.0]
    """
    return _constant("zeros", shape, 0.0, dtype, requires_grad, device)


def ones(shape, dtype=None, requires_grad=True, device=None):
    """Ones (norm weights).

    >>> from ember.nn import init
    >>> init.ones(2).tolist()
    [1.0, 1.0]
    """
    return _constant("ones", shape, 1.0, dtype, requires_grad, device)


def _kaiming_std(op, shape, a, mode, nonlinearity):
    if mode not in ("fan_in", "fan_out"):
        raise InvalidParameterError(f"{op}: mode {mode!r} is unknown; expected 'fan_in' or "
                                    "'fan_out'", "mode", mode)
    fan_in, fan_out = fan_in_and_fan_out(shape)
    fan = fan_in if mode == "fan_in" else fan_out
    gain = calculate_gain(nonlinearity, a)
    return 0.0 if fan == 0 else gain / math.sqrt(fan)


def kaiming_uniform(shape, a=0.0, mode="fan_in", nonlinearity="leaky_relu", dtype=None,
                    requires_grad=True, generator=None, device=None):
    """He initialization, uniform in ``[-bound, bound)`` with ``bound = gain * sqrt(3 / fan)``.
    ``Linear`` and ``Conv2d`` weights use ``a=sqrt(5)`` (bound ``1 / sqrt(fan_in)``).

    >>> from ember.nn import init
    >>> init.kaiming_uniform((8, 4), nonlinearity="relu").shape
    (8, 4)
    """
    op = "kaiming_uniform"
    shape, dt = _shape(shape, op), _dtype(dtype, op)
    bound = math.sqrt(3.0) * _kaiming_std(op, shape, a, mode, nonlinearity)
    be, gen = _source(generator, device, op)
    return _finish(_uniform(shape, -bound, bound, dt, gen, be, op), dt,
                   requires_grad, op)


def kaiming_normal(shape, a=0.0, mode="fan_in", nonlinearity="leaky_relu", dtype=None,
                   requires_grad=True, generator=None, device=None):
    """He initialization, normal with ``std = gain / sqrt(fan)``.

    >>> from ember.nn import init
    >>> init.kaiming_normal((8, 4)).shape
    (8, 4)
    """
    op = "kaiming_normal"
    shape, dt = _shape(shape, op), _dtype(dtype, op)
    std = _kaiming_std(op, shape, a, mode, nonlinearity)
    data = _random("random_normal", _source(generator, device, op), op,
                   shape, 0.0, std, dt)
    return _finish(data, dt, requires_grad, op)


def xavier_uniform(shape, gain=1.0, dtype=None, requires_grad=True, generator=None, device=None):
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
    be, gen = _source(generator, device, op)
    return _finish(_uniform(shape, -bound, bound, dt, gen, be, op), dt,
                   requires_grad, op)


def xavier_normal(shape, gain=1.0, dtype=None, requires_grad=True, generator=None, device=None):
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
    data = _random("random_normal", _source(generator, device, op), op,
                   shape, 0.0, abs(std), dt)
    return _finish(data, dt, requires_grad, op)


def trunc_normal(shape, mean=0.0, std=1.0, a=-2.0, b=2.0, dtype=None, requires_grad=True,
                 generator=None, device=None):
    """Values from N(mean, std**2) restricted to ``[a, b]`` (absolute bounds, as PyTorch's).

    >>> from ember.nn import init
    >>> w = init.trunc_normal((1000,), std=0.02, a=-0.04, b=0.04)
    >>> bool((w.abs() <= 0.04).all())
    True
    """
    op = "trunc_normal"
    shape, dt = _shape(shape, op), _dtype(dtype, op)
    mean, std = _number(mean, op, "mean"), _number(std, op, "std")
    a, b = _number(a, op, "a"), _number(b, op, "b")
    if std < 0:
        raise InvalidParameterError(f"{op}: std is {std}; expected std >= 0", "std", std)
    if a > b:
        raise InvalidParameterError(f"{op}: a={a} is above b={b}; expected a <= b", "a", a)
    data = _random("random_trunc_normal", _source(generator, device, op), op,
                   shape, mean, std, a, b, dt)
    return _finish(data, dt, requires_grad, op)


def orthogonal(shape, gain=1.0, dtype=None, requires_grad=True, generator=None, device=None):
    """A (semi-)orthogonal matrix times ``gain`` (PyTorch's ``orthogonal_``): the dims after the
    first are flattened; the rows (or the columns, whichever are fewer) are orthonormal.

    >>> import ember
    >>> from ember.nn import init
    >>> q = init.orthogonal((3, 3))
    >>> bool(((q @ q.T) - ember.eye(3)).abs().max() < 1e-5)
    True
    """
    op = "orthogonal"
    shape, dt = _shape(shape, op), _dtype(dtype, op)
    if len(shape) < 2:
        raise InvalidParameterError(f"{op}: shape {shape} has fewer than 2 dims; expected at "
                                    "least 2", "shape", shape)
    gain = _number(gain, op, "gain")
    if not all(shape):
        return _finish(_backend(device, op).nn_full_like_shape(shape, 0.0, dt), dt,
                       requires_grad, op)
    data = _random("random_orthogonal", _source(generator, device, op), op,
                   shape, gain, dt)
    return _finish(data, dt, requires_grad, op)


# -- PyTorch's in-place spellings ---------------------------------------------------------------
# Each draws a new value of the tensor's shape and dtype and rebinds the tensor object to it
# (ember.ops.inplace.rebind), so modules, optimizers and tied weights holding it see the new
# value; a parameter stays the same leaf. Each returns the tensor, as PyTorch's do.

def _target(tensor, op, float_only=True):
    if not isinstance(tensor, Tensor):
        raise InvalidParameterError(f"{op}: tensor must be a Tensor, got "
                                    f"{type(tensor).__name__}", "tensor", tensor)
    if tensor._dtype.kind == "complex":  # docs/complex.md: nn takes real tensors only
        raise _dt.complex_error(op, "tensor", tensor._dtype)
    if float_only and tensor._dtype.kind != "float":
        raise KindError(f"{op}: tensor has dtype {tensor._dtype.name}; expected a float tensor")
    return tensor


def _into(tensor, make, op, *args, **kwargs):
    _target(tensor, op)
    value = make(tuple(tensor.shape), *args, dtype=tensor._dtype, requires_grad=False,
                 device=tensor._device, **kwargs)
    rebind(tensor, value, op)
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill ``tensor`` with values uniform in ``[a, b)`` (rebinding it); returns it.

    >>> import ember
    >>> from ember.nn import init
    >>> w = ember.zeros(3, 2)
    >>> init.uniform_(w, 1.0, 1.0).tolist()
    [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
    """
    return _into(tensor, uniform, "uniform_", a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill ``tensor`` with values from N(mean, std**2); returns it.

    >>> import ember
    >>> from ember.nn import init
    >>> init.normal_(ember.zeros(2), mean=3.0, std=0.0).tolist()
    [3.0, 3.0]
    """
    return _into(tensor, normal, "normal_", mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill ``tensor`` with values from N(mean, std**2) restricted to ``[a, b]``; returns it.

    >>> import ember
    >>> from ember.nn import init
    >>> bool((init.trunc_normal_(ember.zeros(50), std=5.0).abs() <= 2.0).all())
    True
    """
    return _into(tensor, trunc_normal, "trunc_normal_", mean, std, a, b, generator=generator)


def constant_(tensor, val):
    """Fill ``tensor`` with ``val`` (any dtype); returns it.

    >>> import ember
    >>> from ember.nn import init
    >>> init.constant_(ember.zeros(2, dtype="int64"), 3).tolist()
    [3, 3]
    """
    op = "constant_"
    _target(tensor, op, float_only=False)
    if isinstance(val, bool) or not isinstance(val, (int, float)):
        raise InvalidParameterError(f"{op}: val must be a number, got {val!r}", "val", val)
    dt = tensor._dtype
    be = tensor._device.backend
    rebind(tensor, wrap(be.nn_full_like_shape(tuple(tensor.shape), val, dt), dt), op)
    return tensor


def zeros_(tensor):
    """Fill ``tensor`` with zeros; returns it.

    >>> import ember
    >>> from ember.nn import init
    >>> init.zeros_(ember.ones(2)).tolist()
    [0.0, 0.0]
    """
    return constant_(tensor, 0)


def ones_(tensor):
    """Fill ``tensor`` with ones; returns it.

    >>> import ember
    >>> from ember.nn import init
    >>> init.ones_(ember.zeros(2)).tolist()
    [1.0, 1.0]
    """
    return constant_(tensor, 1)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot-uniform values for ``tensor`` (see ``xavier_uniform``); returns it.

    >>> import ember
    >>> from ember.nn import init
    >>> init.xavier_uniform_(ember.zeros(3, 5)).shape
    (3, 5)
    """
    return _into(tensor, xavier_uniform, "xavier_uniform_", gain, generator=generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot-normal values for ``tensor`` (see ``xavier_normal``); returns it.

    >>> import ember
    >>> from ember.nn import init
    >>> init.xavier_normal_(ember.zeros(3, 5)).shape
    (3, 5)
    """
    return _into(tensor, xavier_normal, "xavier_normal_", gain, generator=generator)


def kaiming_uniform_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He-uniform values for ``tensor`` (see ``kaiming_uniform``); returns it.

    >>> import ember
    >>> from ember.nn import init
    >>> init.kaiming_uniform_(ember.zeros(4, 2), a=5 ** 0.5).shape
    (4, 2)
    """
    return _into(tensor, kaiming_uniform, "kaiming_uniform_", a, mode, nonlinearity,
                 generator=generator)


def kaiming_normal_(tensor, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He-normal values for ``tensor`` (see ``kaiming_normal``); returns it.

    >>> import ember
    >>> from ember.nn import init
    >>> init.kaiming_normal_(ember.zeros(4, 2), mode="fan_out").shape
    (4, 2)
    """
    return _into(tensor, kaiming_normal, "kaiming_normal_", a, mode, nonlinearity,
                 generator=generator)


def orthogonal_(tensor, gain=1.0, generator=None):
    """A (semi-)orthogonal value for ``tensor`` (see ``orthogonal``); returns it.

    >>> import ember
    >>> from ember.nn import init
    >>> init.orthogonal_(ember.zeros(2, 4)).shape
    (2, 4)
    """
    return _into(tensor, orthogonal, "orthogonal_", gain, generator=generator)
