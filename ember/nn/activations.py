"""The activation modules of ember.nn: ReLU, GELU, SiLU, Sigmoid, Tanh, Softmax and
LogSoftmax, PyTorch's modules over ``ember.nn.functional``.

>>> import ember
>>> from ember import nn
>>> nn.Sequential(nn.ReLU(), nn.Softmax(dim=-1))(ember.tensor([[-1.0, 0.0]])).tolist()
[[0.5, 0.5]]
"""

from ..errors import InvalidParameterError
from ..ops.nn_args import _int
from . import functional as F
from .layers import _bool
from .module import Module

__all__ = ["ReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax"]


class ReLU(Module):
    """``max(x, 0)``; ``inplace=True`` writes the result into the input tensor (and its views),
    as PyTorch's.

    >>> import ember
    >>> from ember import nn
    >>> nn.ReLU()(ember.tensor([-1.0, 1.0])).tolist()
    [0.0, 1.0]
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = _bool(inplace, "ReLU", "inplace")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.relu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class GELU(Module):
    """GELU, exact (``approximate="none"``) or with the tanh approximation.

    >>> from ember import nn
    >>> nn.GELU(approximate="tanh")
    GELU(approximate='tanh')
    """

    def __init__(self, approximate="none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise InvalidParameterError(
                f"GELU: approximate {approximate!r} is unknown; expected 'none' or 'tanh'",
                "approximate", approximate)
        self.approximate = approximate

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.gelu(input, self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """SiLU (swish) ``x * sigmoid(x)``; ``inplace=True`` writes the result into the input
    tensor (and its views), as PyTorch's.

    >>> from ember import nn
    >>> nn.SiLU()
    SiLU()
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = _bool(inplace, "SiLU", "inplace")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.silu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """The logistic function.

    >>> import ember
    >>> from ember import nn
    >>> nn.Sigmoid()(ember.tensor([0.0])).tolist()
    [0.5]
    """

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.sigmoid(input)


class Tanh(Module):
    """The hyperbolic tangent.

    >>> import ember
    >>> from ember import nn
    >>> nn.Tanh()(ember.tensor([0.0])).tolist()
    [0.0]
    """

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.tanh(input)


class Softmax(Module):
    """Softmax along ``dim`` (None: PyTorch's implicit choice).

    >>> import ember
    >>> from ember import nn
    >>> nn.Softmax(dim=-1)(ember.tensor([[0.0, 0.0]])).tolist()
    [[0.5, 0.5]]
    """

    def __init__(self, dim=None):
        super().__init__()
        if dim is not None:
            dim = _int(dim, "Softmax", "dim", -(1 << 62))
        self.dim = dim

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log-softmax along ``dim`` (None: PyTorch's implicit choice).

    >>> from ember import nn
    >>> nn.LogSoftmax(dim=1)
    LogSoftmax(dim=1)
    """

    def __init__(self, dim=None):
        super().__init__()
        if dim is not None:
            dim = _int(dim, "LogSoftmax", "dim", -(1 << 62))
        self.dim = dim

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.log_softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"
