"""Automatic differentiation: the recorded graph, the backward engine and the Tensor methods."""

from . import api  # noqa: F401
from .engine import Gradients
from .graph import enable_grad, grad_enabled, inference_mode, no_grad, set_grad_enabled

__all__ = ["Gradients", "no_grad", "enable_grad", "inference_mode", "grad_enabled",
           "set_grad_enabled"]
