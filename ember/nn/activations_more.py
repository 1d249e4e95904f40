"""PyTorch's other activation modules (LeakyReLU, ELU, SELU, CELU, Mish, Softplus, Hardtanh,
ReLU6, PReLU, RReLU, GLU ...), each over its ``ember.nn.functional`` function, with PyTorch's
arguments and repr. ``inplace=True`` writes the result into the input tensor and its views, as
PyTorch's (see ember/ops/activation_more.py).

>>> import ember
>>> from ember import nn
>>> nn.LeakyReLU(0.2)
LeakyReLU(negative_slope=0.2)
>>> nn.LeakyReLU(0.5)(ember.tensor([-2.0, 1.0])).tolist()
[-1.0, 1.0]
"""

from ..devices import as_device
from ..errors import InvalidParameterError
from ..ops import activation_more as A
from ..ops.activation import softmax
from ..ops.nn_args import _int, _rank, _real
from .init import constant as _constant
from .layers import _bool, _check_input, _float_dtype
from .module import Module

__all__ = ["LeakyReLU", "ELU", "SELU", "CELU", "Mish", "Softplus", "Softsign", "Hardtanh",
           "ReLU6", "Hardsigmoid", "Hardswish", "Hardshrink", "Softshrink", "Tanhshrink",
           "Threshold", "LogSigmoid", "Softmin", "Softmax2d", "PReLU", "RReLU", "GLU"]


def _num(value, layer, param, low=None):
    """``value`` checked as a real number, kept as given (PyTorch's repr shows it so)."""
    checked = _real(value, layer, param, low)
    return value if type(value) in (int, float) else checked


def _inplace_str(m, first=False):
    if not m.inplace:
        return ""
    return "inplace=True" if first else ", inplace=True"


class _Inplace(Module):
    """A parameterless activation ``_fn(input, inplace=)``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = _bool(inplace, type(self).__name__, "inplace")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return type(self)._fn(_check_input(input, type(self).__name__), inplace=self.inplace)

    def extra_repr(self):
        return _inplace_str(self, True)


class _Plain(Module):
    """A parameterless activation ``_fn(input)``."""

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return type(self)._fn(_check_input(input, type(self).__name__))


class LeakyReLU(Module):
    """``F.leaky_relu`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.LeakyReLU()(ember.tensor([-100.0])).tolist()
    [-1.0]
    """

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = _num(negative_slope, "LeakyReLU", "negative_slope")
        self.inplace = _bool(inplace, "LeakyReLU", "inplace")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return A.leaky_relu(_check_input(input, "LeakyReLU"), self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_str(self)}"


class ELU(Module):
    """``F.elu`` as a module.

    >>> from ember import nn
    >>> nn.ELU(alpha=0.5)
    ELU(alpha=0.5)
    """

    _fn = staticmethod(A.elu)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = _num(alpha, type(self).__name__, "alpha")
        self.inplace = _bool(inplace, type(self).__name__, "inplace")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return type(self)._fn(_check_input(input, type(self).__name__), self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_str(self)}"


class CELU(ELU):
    """``F.celu`` as a module.

    >>> from ember import nn
    >>> nn.CELU()
    CELU(alpha=1.0)
    """

    _fn = staticmethod(A.celu)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha, inplace)
        if self.alpha == 0:
            raise InvalidParameterError("CELU: alpha is 0; expected a nonzero alpha", "alpha",
                                        alpha)


class SELU(_Inplace):
    """``F.selu`` as a module.

    >>> from ember import nn
    >>> nn.SELU(inplace=True)
    SELU(inplace=True)
    """

    _fn = staticmethod(A.selu)


class Mish(_Inplace):
    """``F.mish`` as a module.

    >>> from ember import nn
    >>> nn.Mish()
    Mish()
    """

    _fn = staticmethod(A.mish)


class Hardsigmoid(_Inplace):
    """``F.hardsigmoid`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.Hardsigmoid()(ember.tensor([0.0])).tolist()
    [0.5]
    """

    _fn = staticmethod(A.hardsigmoid)

    def extra_repr(self):
        return ""


class Hardswish(Hardsigmoid):
    """``F.hardswish`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.Hardswish()(ember.tensor([3.0])).tolist()
    [3.0]
    """

    _fn = staticmethod(A.hardswish)


class Softsign(_Plain):
    """``F.softsign`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.Softsign()(ember.tensor([1.0])).tolist()
    [0.5]
    """

    _fn = staticmethod(A.softsign)


class Tanhshrink(_Plain):
    """``F.tanhshrink`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.Tanhshrink()(ember.tensor([0.0])).tolist()
    [0.0]
    """

    _fn = staticmethod(A.tanhshrink)


class LogSigmoid(_Plain):
    """``F.logsigmoid`` as a module.

    >>> from ember import nn
    >>> nn.LogSigmoid()
    LogSigmoid()
    """

    _fn = staticmethod(A.logsigmoid)


class Softplus(Module):
    """``F.softplus`` as a module.

    >>> from ember import nn
    >>> nn.Softplus(beta=2)
    Softplus(beta=2, threshold=20.0)
    """

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = _num(beta, "Softplus", "beta")
        self.threshold = _num(threshold, "Softplus", "threshold")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return A.softplus(_check_input(input, "Softplus"), self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """``F.hardtanh`` as a module (``min_value``/``max_value``: PyTorch's deprecated
    spellings, used when given).

    >>> from ember import nn
    >>> nn.Hardtanh(-2.0, 2.0)
    Hardtanh(min_val=-2.0, max_val=2.0)
    """

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None,
                 max_value=None):
        super().__init__()
        name = type(self).__name__
        min_val = min_val if min_value is None else min_value
        max_val = max_val if max_value is None else max_value
        self.min_val = _num(min_val, name, "min_val")
        self.max_val = _num(max_val, name, "max_val")
        self.inplace = _bool(inplace, name, "inplace")
        if self.min_val > self.max_val:
            raise InvalidParameterError(
                f"{name}: min_val {min_val} is greater than max_val {max_val}; expected "
                "min_val <= max_val", "min_val", min_val)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return A.hardtanh(_check_input(input, type(self).__name__), self.min_val, self.max_val,
                          self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_str(self)}"


class ReLU6(Hardtanh):
    """``F.relu6`` as a module (a ``Hardtanh(0, 6)``, as PyTorch).

    >>> import ember
    >>> from ember import nn
    >>> nn.ReLU6()(ember.tensor([7.0])).tolist()
    [6.0]
    """

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return _inplace_str(self, True)


class Hardshrink(Module):
    """``F.hardshrink`` as a module.

    >>> from ember import nn
    >>> nn.Hardshrink()
    Hardshrink(0.5)
    """

    _fn = staticmethod(A.hardshrink)

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _num(lambd, type(self).__name__, "lambd")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return type(self)._fn(_check_input(input, type(self).__name__), self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``F.softshrink`` as a module.

    >>> from ember import nn
    >>> nn.Softshrink(1.0)
    Softshrink(1.0)
    """

    _fn = staticmethod(A.softshrink)

    def __init__(self, lambd=0.5):
        super().__init__(lambd)
        _num(lambd, "Softshrink", "lambd", 0.0)


class Threshold(Module):
    """``F.threshold`` as a module.

    >>> from ember import nn
    >>> nn.Threshold(0.1, 20)
    Threshold(threshold=0.1, value=20)
    """

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = _num(threshold, "Threshold", "threshold")
        self.value = _num(value, "Threshold", "value")
        self.inplace = _bool(inplace, "Threshold", "inplace")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return A.threshold(_check_input(input, "Threshold"), self.threshold, self.value,
                           self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_str(self)}"


class Softmin(Module):
    """``F.softmin`` as a module.

    >>> from ember import nn
    >>> nn.Softmin(dim=1)
    Softmin(dim=1)
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = None if dim is None else _int(dim, "Softmin", "dim", -(1 << 62))

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return A.softmin(_check_input(input, "Softmin"), self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of a (N, C, H, W) or (C, H, W) input.

    >>> import ember
    >>> from ember import nn
    >>> nn.Softmax2d()(ember.zeros(2, 1, 1)).tolist()
    [[[0.5]], [[0.5]]]
    """

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        x = _check_input(input, "Softmax2d")
        _rank(x, (3, 4), "Softmax2d", "(N, C, H, W) or (C, H, W)")
        return softmax(x, -3)


class PReLU(Module):
    """``F.prelu`` with a learnt ``weight`` of ``num_parameters`` slopes (1, or one per
    channel), each initialized to ``init``.

    >>> from ember import nn
    >>> m = nn.PReLU(3)
    >>> m, m.weight.tolist()
    (PReLU(num_parameters=3), [0.25, 0.25, 0.25])
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = _int(num_parameters, "PReLU", "num_parameters", 1)
        self.init = _num(init, "PReLU", "init")
        dt = _float_dtype(dtype, "PReLU")
        self.weight = _constant((self.num_parameters,), self.init, dtype=dt,
                                device=as_device(device, "PReLU"))

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return A.prelu(_check_input(input, "PReLU"), self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """``F.rrelu`` as a module: random slopes in training, their mean in eval.

    >>> from ember import nn
    >>> nn.RReLU(0.1, 0.3)
    RReLU(lower=0.1, upper=0.3)
    """

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = _num(lower, "RReLU", "lower")
        self.upper = _num(upper, "RReLU", "upper")
        self.inplace = _bool(inplace, "RReLU", "inplace")
        if self.lower > self.upper:
            raise InvalidParameterError(f"RReLU: lower {lower} is greater than upper {upper}; "
                                        "expected lower <= upper", "lower", lower)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return A.rrelu(_check_input(input, "RReLU"), self.lower, self.upper, self.training,
                       self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_str(self)}"


class GLU(Module):
    """``F.glu`` as a module.

    >>> from ember import nn
    >>> nn.GLU()
    GLU(dim=-1)
    """

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = _int(dim, "GLU", "dim", -(1 << 62))

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return A.glu(_check_input(input, "GLU"), self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"
