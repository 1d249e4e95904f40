"""Activations: ``relu``, ``sigmoid``, ``tanh``, ``gelu``, ``silu``, ``softmax`` and
``log_softmax`` (``ember.nn.functional``; ``softmax``, ``log_softmax``, ``gelu`` and ``silu`` are
Tensor methods too)."""

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError

from ..tensor import _adopt_device, check_tensor, record_arrays, tensor_method
from .nn_args import _float_math, _softmax_dim


# -- activations --------------------------------------------------------------------------------

def relu(input):
    """``max(input, 0)`` elementwise (PyTorch's ``F.relu``).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.relu(ember.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    check_tensor(input, "relu", "input")
    if input._dtype.kind != "float":
        if input._dtype.kind == "complex":  # docs/complex.md: nn takes real tensors only
            raise _dt.complex_error("relu", "input", input._dtype)
        return input.relu()  # ints keep their dtype; bools raise Tensor.relu's KindError
    xd = input._data
    be = input._device.backend
    return record_arrays(be.nn_relu(xd), input._dtype, (input,), _relu_backward((xd,), None, be),
                  "relu", _RELU_RECOMPUTE)


def _relu_forward(x):
    return _backend_of_array(x).nn_relu(x)


def _relu_backward(arrays, out, be=None):
    x = arrays[0]
    if be is None:
        be = _backend_of_array(x)
    return lambda g, needs: (be.nn_relu_grad(g, x),)


def _backend_of_array(a):
    """The backend of a backend array (the recompute path of checkpointing gets arrays only)."""
    return _adopt_device(a).backend


# under the "balanced" checkpointing strategy relu keeps no arrays and recomputes in backward
_RELU_RECOMPUTE = (_relu_forward, _relu_backward)


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
    its tanh approximation (``approximate="tanh"``).

    >>> import ember
    >>> import ember.nn.functional as F
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
    xd = x._data
    be = x._device.backend

    def backward(g, needs):
        return (be.nn_gelu_grad(g, xd, approximate),)

    return record_arrays(be.nn_gelu(xd, approximate), x._dtype, (x,), backward, op)


@tensor_method
def silu(input):
    """SiLU (swish): ``x * sigmoid(x)``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> [round(v, 4) for v in F.silu(ember.tensor([-1.0, 0.0, 1.0])).tolist()]
    [-0.2689, 0.0, 0.7311]
    """
    op = "silu"
    x = _float_math(input, op)
    xd = x._data
    be = x._device.backend

    def backward(g, needs):
        return (be.nn_silu_grad(g, xd),)

    return record_arrays(be.nn_silu(xd), x._dtype, (x,), backward, op)


def _softmax_like(input, dim, dtype, op, log):
    x = _float_math(input, op)
    if dtype is not None:
        want = _dt.as_dtype(dtype)
        if want.kind != "float":
            raise KindError(f"{op}: dtype {want.name} is not a float dtype; expected a float "
                            "dtype", )
        x = x.cast(want)
    axis = _softmax_dim(x, dim, op)
    xd = x._data
    be = x._device.backend
    scalar = x.ndim == 0
    rs = be.nn_reshape
    if scalar:
        xd = rs(xd, (1,))
    out = be.nn_log_softmax(xd, axis) if log else be.nn_softmax(xd, axis)
    if scalar:
        out = rs(out, ())

    def backward(g, needs):
        gg, yy = (rs(g, (1,)), rs(out, (1,))) if scalar else (g, out)
        r = be.nn_log_softmax_grad(gg, yy, axis) if log else be.nn_softmax_grad(gg, yy, axis)
        return (rs(r, ()) if scalar else r,)

    return record_arrays(out, x._dtype, (x,), backward, op)


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
