"""``ember.torch.autograd``: PyTorch's ``torch.autograd`` on ember's autodiff.

``grad`` and ``backward`` with PyTorch's arguments (ember/torch/autograd/backward.py),
``Function`` for custom ops (function.py), the grad-mode switches (grad_mode.py),
``functional`` (``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp``, ``vhp``), ``gradcheck`` and
``gradgradcheck``, the legacy ``Variable``, and the Tensor methods ``register_hook`` and
``retain_grad`` (tensor_hooks.py).

>>> import ember.torch as torch
>>> x = torch.tensor([2.0], requires_grad=True)
>>> with torch.autograd.no_grad():
...     (x * x).requires_grad
False
>>> torch.autograd.grad((x * x).sum(), [x])[0].tolist()
[4.0]
"""

from . import functional, tensor_hooks  # noqa: F401
from .backward import backward, grad  # noqa: F401
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401
from .variable import Variable  # noqa: F401

__all__ = ["grad", "backward", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "inference_mode", "set_grad_enabled", "Variable", "gradcheck",
           "gradgradcheck", "GradcheckError", "functional"]
