"""The activation kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class ActivationKernels:
    @required
    def nn_gelu(self, x, approximate):
        """GELU: ``x * Phi(x)`` (exact, through erf) or its tanh approximation. float32 (and the half
        types) compute in float32, float64 in float64."""

    @required
    def nn_gelu_grad(self, g, x, approximate):
        """The gradient of ``nn_gelu`` for the output gradient ``g``."""

    @required
    def nn_silu(self, x):
        """SiLU (swish): ``x * sigmoid(x)``."""

    @required
    def nn_silu_grad(self, g, x):
        """The gradient of ``nn_silu``: ``g * s * (1 + x * (1 - s))`` with ``s = sigmoid(x)``."""

    @required
    def nn_relu(self, x):
        """``max(x, 0)`` of a float array, keeping nan (a new array)."""

    @required
    def nn_relu_grad(self, g, x):
        """The gradient of ``nn_relu``: 0 where ``x <= 0``, else ``g`` (NaN inputs pass ``g`` on, as
        PyTorch's), in ``g``'s dtype."""

    @required
    def nn_softmax(self, x, axis):
        """Softmax along ``axis``: the max is subtracted before ``exp``. One output buffer: the shifted
        values are exponentiated and divided in place."""

    @required
    def nn_softmax_grad(self, g, y, axis):
        """The gradient of softmax from its output ``y``: ``y * (g - sum(g * y))``."""

    @required
    def nn_log_softmax(self, x, axis):
        """Log-softmax along ``axis``: ``x - max - log(sum(exp(x - max)))``."""

    @required
    def nn_log_softmax_grad(self, g, y, axis):
        """The gradient of log-softmax from its output ``y``: ``g - exp(y) * sum(g)``."""
