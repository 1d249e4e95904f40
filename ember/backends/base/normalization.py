"""The normalization kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class NormalizationKernels:
    @required
    def nn_batch_norm(self, x, w, b, running_mean, running_var, use_batch, eps, dtype):
        """Batch norm over every dim but dim 1. Returns (out, saved, batch_mean, batch_var_unbiased);
        the batch statistics are None when the running ones are used."""

    @required
    def nn_batch_norm_grads(self, g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
        """Gradients of ``nn_batch_norm``: (gx, gw, gb). With batch statistics, ``gx = invstd * w * (g
        - mean(g) - xhat * mean(g * xhat))``, the means per channel."""

    @required
    def nn_running_update(self, running, batch, momentum, dtype):
        """``(1 - momentum) * running + momentum * batch`` as NumPy dtype ``dtype`` (a new array)."""

    @required
    def nn_layer_norm(self, x, w, b, ndims, eps, dtype):
        """Layer norm over the last ``ndims`` dims, then ``* w + b`` (either may be None)."""

    @required
    def nn_layer_norm_grads(self, g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
        """Gradients of ``nn_layer_norm``: (gx, gw, gb)."""
