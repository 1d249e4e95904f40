"""PyTorch's other activation functions (``F.leaky_relu``, ``F.elu``, ``F.softplus``, ``F.glu``
...), composed of ember's elementwise ops, so their gradients (of any order) are those ops'.

``inplace=True`` (and the ``elu_``-style spellings) writes the result into the input tensor, as
PyTorch's: the object and every view of it (or the tensor it views) see the new value
(ember/ops/aliasing.py), the result is that object, and a leaf that requires grad raises
GraphError outside ``no_grad``. Gradients are PyTorch's: the steps computing the result keep the
input's value from before the write.

>>> import ember
>>> import ember.nn.functional as F
>>> F.leaky_relu(ember.tensor([-1.0, 2.0]), 0.1).tolist()
[-0.10000000149011612, 2.0]
"""


from ..errors import InvalidParameterError, ShapeMismatchError
from .activation import _done, relu, sigmoid, softmax, tanh
from .masking import where
from .random import rand
from .nn_args import _float_math, _int, _real, _shape_str

__all__ = ["leaky_relu", "elu", "selu", "celu", "mish", "softplus", "softsign", "hardtanh",
           "relu6", "hardsigmoid", "hardswish", "hardshrink", "softshrink", "tanhshrink",
           "threshold", "logsigmoid", "softmin", "prelu", "rrelu", "glu",
           "leaky_relu_", "elu_", "selu_", "celu_", "hardtanh_", "threshold_", "rrelu_", "relu_"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _neg_expm1(x, scale=1.0):
    # expm1 of the non-positive part only, so the branch where() discards never overflows
    return (x.clamp(max=0.0) * scale).expm1()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x`` where ``x > 0``, else ``negative_slope * x``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.leaky_relu(ember.tensor([-2.0, 3.0]), 0.5).tolist()
    [-1.0, 3.0]
    """
    x = _float_math(input, "leaky_relu")
    s = _real(negative_slope, "leaky_relu", "negative_slope")
    return _done(input, lambda: where(x > 0, x, x * s), inplace, "leaky_relu")


def elu(input, alpha=1.0, inplace=False):
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.elu(ember.tensor([0.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    x = _float_math(input, "elu")
    a = _real(alpha, "elu", "alpha")
    return _done(input, lambda: where(x > 0, x, _neg_expm1(x) * a), inplace, "elu")


def selu(input, inplace=False):
    """``scale * elu(x, alpha)`` with SELU's fixed constants.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> round(F.selu(ember.tensor([1.0])).item(), 4)
    1.0507
    """
    x = _float_math(input, "selu")
    return _done(input, lambda: where(x > 0, x, _neg_expm1(x) * _SELU_ALPHA) * _SELU_SCALE,
                 inplace, "selu")


def celu(input, alpha=1.0, inplace=False):
    """``x`` where ``x > 0``, else ``alpha * (exp(x / alpha) - 1)``; ``alpha`` must not be 0.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.celu(ember.tensor([3.0]), 2.0).tolist()
    [3.0]
    """
    x = _float_math(input, "celu")
    a = _real(alpha, "celu", "alpha")
    if a == 0:
        raise InvalidParameterError("celu: alpha is 0; expected a nonzero alpha", "alpha", alpha)
    return _done(input, lambda: where(x > 0, x, _neg_expm1(x, 1.0 / a) * a), inplace, "celu")


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * x)) / beta``, and ``x`` itself where ``beta * x > threshold``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> round(F.softplus(ember.tensor([0.0])).item(), 4), F.softplus(ember.tensor([30.0])).item()
    (0.6931, 30.0)
    """
    x = _float_math(input, "softplus")
    b = _real(beta, "softplus", "beta")
    t = _real(threshold, "softplus", "threshold")
    bx = x * b
    soft = bx.clamp(max=t).exp().log1p() / b
    return where(bx > t, x, soft)


def mish(input, inplace=False):
    """``x * tanh(softplus(x))``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> round(F.mish(ember.tensor([1.0])).item(), 4)
    0.8651
    """
    x = _float_math(input, "mish")
    return _done(input, lambda: x * tanh(softplus(x)), inplace, "mish")


def softsign(input):
    """``x / (1 + |x|)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.softsign(ember.tensor([1.0, -3.0])).tolist()
    [0.5, -0.75]
    """
    x = _float_math(input, "softsign")
    return x / (x.abs() + 1)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``x`` clamped to ``[min_val, max_val]``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.hardtanh(ember.tensor([-2.0, 0.5, 2.0])).tolist()
    [-1.0, 0.5, 1.0]
    """
    x = _float_math(input, "hardtanh")
    lo = _real(min_val, "hardtanh", "min_val")
    hi = _real(max_val, "hardtanh", "max_val")
    if lo > hi:
        raise InvalidParameterError(f"hardtanh: min_val {lo} is greater than max_val {hi}; "
                                    "expected min_val <= max_val", "min_val", min_val)
    return _done(input, lambda: x.clamp(lo, hi), inplace, "hardtanh")


def relu6(input, inplace=False):
    """``min(max(x, 0), 6)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.relu6(ember.tensor([-1.0, 7.0])).tolist()
    [0.0, 6.0]
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input, inplace=False):
    """``clamp(x / 6 + 1/2, 0, 1)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.hardsigmoid(ember.tensor([-4.0, 0.0, 4.0])).tolist()
    [0.0, 0.5, 1.0]
    """
    x = _float_math(input, "hardsigmoid")
    return _done(input, lambda: (x / 6 + 0.5).clamp(0.0, 1.0), inplace, "hardsigmoid")


def hardswish(input, inplace=False):
    """``x * clamp(x + 3, 0, 6) / 6``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.hardswish(ember.tensor([-4.0, 3.0])).tolist()
    [-0.0, 3.0]
    """
    x = _float_math(input, "hardswish")
    return _done(input, lambda: x * _hardswish_gate(x) / 6, inplace, "hardswish")


def _hardswish_gate(x):
    """``clamp(x + 3, 0, 6)`` whose gradient is 1 strictly inside (-3, 3) and 0 at the bounds,
    so that hardswish's gradient at -3 and 3 is PyTorch's (0 and 1; a clamp's gradient includes
    its bounds, which gave -0.5 and 1.5)."""
    s = x + 3
    return where((x > -3) & (x < 3), s, s.clamp(0.0, 6.0).detach())


def hardshrink(input, lambd=0.5):
    """``x`` where ``|x| > lambd``, else 0.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.hardshrink(ember.tensor([0.2, -1.0])).tolist()
    [0.0, -1.0]
    """
    x = _float_math(input, "hardshrink")
    lam = _real(lambd, "hardshrink", "lambd")
    return where(x.abs() > lam, x, 0.0)


def softshrink(input, lambd=0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0; ``lambd >= 0``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.softshrink(ember.tensor([0.2, -1.0, 2.0])).tolist()
    [0.0, -0.5, 1.5]
    """
    x = _float_math(input, "softshrink")
    lam = _real(lambd, "softshrink", "lambd", 0.0)
    return where(x > lam, x - lam, where(x < -lam, x + lam, 0.0))


def tanhshrink(input):
    """``x - tanh(x)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.tanhshrink(ember.tensor([0.0])).tolist()
    [0.0]
    """
    x = _float_math(input, "tanhshrink")
    return x - tanh(x)


def threshold(input, threshold, value, inplace=False):
    """``x`` where ``x > threshold``, else ``value``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.threshold(ember.tensor([0.5, 2.0]), 1.0, -9.0).tolist()
    [-9.0, 2.0]
    """
    x = _float_math(input, "threshold")
    t = _real(threshold, "threshold", "threshold")
    v = _real(value, "threshold", "value")
    return _done(input, lambda: where(x > t, x, v), inplace, "threshold")


_threshold = threshold  # threshold_'s parameter of the same name hides the function


def logsigmoid(input):
    """``log(sigmoid(x))``, computed stably as ``min(x, 0) - log1p(exp(-|x|))``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> round(F.logsigmoid(ember.tensor([0.0])).item(), 4)
    -0.6931
    """
    x = _float_math(input, "logsigmoid")
    return x.clamp(max=0.0) - (-x.abs()).exp().log1p()


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x, dim)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.softmin(ember.tensor([[0.0, 0.0]]), dim=1).tolist()
    [[0.5, 0.5]]
    """
    x = _float_math(input, "softmin")
    return softmax(-x, dim, dtype)


def prelu(input, weight):
    """``x`` where ``x > 0``, else ``weight * x``; ``weight`` has one slope, or one per channel
    (dim 1 of an input of 2 or more dims).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.prelu(ember.tensor([[-1.0, -1.0]]), ember.tensor([0.5, 0.25])).tolist()
    [[-0.5, -0.25]]
    """
    x = _float_math(input, "prelu")
    w = _float_math(weight, "prelu", "weight")
    n = w.numel()
    if w.ndim > 1:
        raise ShapeMismatchError(f"prelu: weight has shape {_shape_str(w.shape)}; expected a "
                                 "0-d or 1-d tensor", expected=1, actual=tuple(w.shape))
    channels = x.shape[1] if x.ndim >= 2 else 1
    if n != 1 and n != channels:
        raise ShapeMismatchError(
            f"prelu: weight has {n} slopes but the input {_shape_str(x.shape)} has {channels} "
            "channels (dim 1); expected 1 slope or one per channel", expected=channels,
            actual=n)
    if n == 1:
        w = w.reshape(())
    else:
        w = w.reshape((channels,) + (1,) * (x.ndim - 2))
    return where(x > 0, x, x * w)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: in training each negative element gets a slope drawn uniformly
    from ``[lower, upper]`` (ember's generator); in eval the slope is ``(lower + upper) / 2``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.rrelu(ember.tensor([-1.0, 2.0]), 0.25, 0.75).tolist()
    [-0.5, 2.0]
    """
    x = _float_math(input, "rrelu")
    lo = _real(lower, "rrelu", "lower")
    hi = _real(upper, "rrelu", "upper")
    if lo > hi:
        raise InvalidParameterError(f"rrelu: lower {lo} is greater than upper {hi}; expected "
                                    "lower <= upper", "lower", lower)
    if not isinstance(training, bool):
        raise InvalidParameterError(f"rrelu: training must be a bool, got {training!r}",
                                    "training", training)
    if training:
        slope = rand(*x.shape, dtype=x.dtype, device=x.device) * (hi - lo) + lo
    else:
        slope = (lo + hi) / 2
    return _done(input, lambda: where(x >= 0, x, x * slope), inplace, "rrelu")


def glu(input, dim=-1):
    """Gated linear unit: ``a * sigmoid(b)`` with ``a``, ``b`` the halves of ``input`` along
    ``dim`` (which must have an even size).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.glu(ember.tensor([2.0, 0.0])).tolist()
    [1.0]
    """
    x = _float_math(input, "glu")
    if x.ndim == 0:
        raise ShapeMismatchError("glu: input is 0-d; expected at least 1 dim",
                                 expected=1, actual=())
    d = _int(dim, "glu", "dim", -x.ndim)
    if d >= x.ndim:
        raise InvalidParameterError(f"glu: dim {dim} is out of range for a {x.ndim}-d input",
                                    "dim", dim)
    d %= x.ndim
    if x.shape[d] % 2:
        raise ShapeMismatchError(
            f"glu: input has shape {_shape_str(x.shape)}; dim {dim} has odd size "
            f"{x.shape[d]}, expected an even size", expected="even", actual=tuple(x.shape))
    a, b = x.chunk(2, d)
    return a * sigmoid(b)


def _underscored(fn, name):
    def op(input, *args, **kwargs):
        return fn(input, *args, inplace=True, **kwargs)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"``{fn.__name__}(input, ..., inplace=True)``: writes the result into "
                  "``input`` (and its views) and returns it.")
    return op


leaky_relu_ = _underscored(leaky_relu, "leaky_relu_")
elu_ = _underscored(elu, "elu_")
selu_ = _underscored(selu, "selu_")
celu_ = _underscored(celu, "celu_")
hardtanh_ = _underscored(hardtanh, "hardtanh_")


def threshold_(input, threshold, value):  # noqa: F811  (PyTorch's parameter names)
    """``threshold(input, threshold, value, inplace=True)``: writes the result into ``input``
    (and its views) and returns it."""
    return _threshold(input, threshold, value, inplace=True)


rrelu_ = _underscored(rrelu, "rrelu_")
relu_ = _underscored(relu, "relu_")
