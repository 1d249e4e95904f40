"""The optim kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class OptimKernels:
    @required
    def optim_sgd(self, p, g, buf, lr, momentum, dampening, nesterov, weight_decay, maximize):
        """One SGD step for one parameter (PyTorch's ``_single_tensor_sgd``)."""

    @required
    def optim_adam(self, p, g, m, v, vmax, step, lr, beta1, beta2, eps, weight_decay, decoupled, amsgrad, maximize):
        """One Adam/AdamW step for one parameter (PyTorch's ``_single_tensor_adam``)."""

    @required
    def optim_rmsprop(self, p, g, square_avg, grad_avg, buf, lr, alpha, eps, weight_decay, momentum, centered, maximize):
        """One RMSprop step for one parameter (PyTorch's ``_single_tensor_rmsprop``)."""

    @required
    def optim_adagrad(self, p, g, state_sum, step, lr, lr_decay, eps, weight_decay, maximize):
        """One Adagrad step for one parameter (PyTorch's ``_single_tensor_adagrad``)."""

    @required
    def optim_nadam(self, p, g, m, v, mu_product, step, lr, beta1, beta2, eps, weight_decay, momentum_decay, decoupled, maximize):
        """One NAdam step for one parameter (PyTorch's ``_single_tensor_nadam``)."""

    @required
    def optim_zeros(self, a):
        """A new zero-filled, C-contiguous array with the shape and dtype of ``a`` (a state buffer)."""

    @required
    def optim_full(self, a, value):
        """A new C-contiguous array with the shape and dtype of ``a``, every element ``value``."""

    @required
    def optim_state_copy(self, a, like=None):
        """A fresh, writable, C-contiguous copy of ``a`` (cast to ``like``'s dtype when given)."""
