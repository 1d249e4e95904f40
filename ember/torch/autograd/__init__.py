"""``ember.torch.autograd``: PyTorch's ``torch.autograd`` on ember's autodiff.

``grad`` and ``backward`` with PyTorch's arguments (ember/torch/autograd/backward.py),
``Function`` for custom ops and the legacy ``NestedIOFunction`` (function.py), the grad-mode
switches (grad_mode.py), ``functional`` (``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp``,
``vhp``), ``gradcheck`` and ``gradgradcheck``, the legacy ``Variable``, the Tensor methods
``register_hook``, ``register_post_accumulate_grad_hook`` and ``retain_grad`` (tensor_hooks.py),
anomaly mode (anomaly_mode.py), ``graph`` (``Node``, ``Tensor.grad_fn``), ``forward_ad``
(forward-mode AD), the engine switches and runtime queries (grad_mode.py, runtime.py).

>>> import ember.torch as torch
>>> x = torch.tensor([2.0], requires_grad=True)
>>> with torch.autograd.no_grad():
...     (x * x).requires_grad
False
>>> torch.autograd.grad((x * x).sum(), [x])[0].tolist()
[4.0]
"""

from . import forward_ad, functional, graph, tensor_hooks  # noqa: F401
from .anomaly_mode import AnomalyError, detect_anomaly, set_detect_anomaly  # noqa: F401
from .backward import backward, grad  # noqa: F401
from .function import Function, FunctionCtx, NestedIOFunction, once_differentiable  # noqa: F401
from .grad_mode import (enable_grad, enforce_grad_layout_policy, inference_mode,  # noqa: F401
                        is_multithreading_enabled, no_grad, set_grad_enabled,
                        set_multithreading_enabled)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401
from .runtime import is_tensor_like, is_view_replay_enabled, kineto_available  # noqa: F401
from .variable import Variable  # noqa: F401

__all__ = ["grad", "backward", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "inference_mode", "set_grad_enabled", "Variable", "gradcheck",
           "gradgradcheck", "GradcheckError", "functional", "graph", "forward_ad", "detect_anomaly",
           "set_detect_anomaly", "AnomalyError", "set_multithreading_enabled",
           "is_multithreading_enabled", "enforce_grad_layout_policy", "is_tensor_like",
           "kineto_available", "is_view_replay_enabled", "NestedIOFunction"]
