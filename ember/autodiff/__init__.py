"""Automatic differentiation: the recorded graph, the backward engine and the Tensor methods."""

from . import api  # noqa: F401
from .engine import Gradients
from .functional import grad, hessian, jacobian, jvp, vjp, vmap
from .graph import enable_grad, grad_enabled, inference_mode, no_grad, set_grad_enabled

__all__ = ["Gradients", "no_grad", "enable_grad", "inference_mode", "grad_enabled",
           "set_grad_enabled", "grad", "vjp", "jvp", "jacobian", "hessian", "vmap"]
