"""PyTorch's grad-mode switches: ``no_grad``, ``enable_grad``, ``inference_mode`` (ember's, which
are context managers and decorators) and ``set_grad_enabled``, which PyTorch also uses as a
decorator.

>>> import ember.torch as torch
>>> from ember.torch.autograd import set_grad_enabled
>>> w = torch.ones(2, requires_grad=True)
>>> @set_grad_enabled(False)
... def f(x):
...     return (w * x).requires_grad
>>> f(2.0), (w * 2).requires_grad
(False, True)
"""

import functools

from ...autodiff import graph as _graph
from ...autodiff.graph import enable_grad, inference_mode, no_grad  # noqa: F401
from ...errors import InvalidParameterError

__all__ = ["no_grad", "enable_grad", "inference_mode", "set_grad_enabled"]


class set_grad_enabled(_graph.set_grad_enabled):
    """Recording on (``mode=True``) or off: set at once (as a function), for a ``with`` block,
    or for each call of the function it decorates."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise InvalidParameterError(f"set_grad_enabled: mode must be a bool, got {mode!r}",
                                        "mode", mode)
        self.mode = mode
        super().__init__(mode)

    def __call__(self, fn):
        _graph._mode.enabled = self.prev  # decorating changes nothing now
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        """A new switch to the same mode."""
        return set_grad_enabled(self.mode)
