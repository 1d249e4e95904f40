"""PyTorch's grad-mode switches: ``no_grad``, ``enable_grad``, ``inference_mode`` (ember's, which
are context managers and decorators) and ``set_grad_enabled``, which PyTorch also uses as a
decorator; and the engine switches ``set_multithreading_enabled`` and
``enforce_grad_layout_policy`` (per thread, as PyTorch's; see their docstrings for what they
mean on ember).

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
import threading

from ...autodiff import graph as _graph
from ...autodiff.graph import enable_grad, inference_mode, no_grad  # noqa: F401
from ...errors import InvalidParameterError

__all__ = ["no_grad", "enable_grad", "inference_mode", "set_grad_enabled",
           "set_multithreading_enabled", "is_multithreading_enabled",
           "enforce_grad_layout_policy"]


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


class _EngineSwitches(threading.local):
    multithreading = True
    grad_layout = True


_switches = _EngineSwitches()


class _Switch:
    """A per-thread engine switch set at once (as a function), restored at the end of a
    ``with`` block, or set for each call of the function it decorates."""

    _attr = ""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise InvalidParameterError(f"{type(self).__name__}: mode must be a bool, got "
                                        f"{mode!r}", "mode", mode)
        self.prev = getattr(_switches, self._attr)
        self.mode = mode
        setattr(_switches, self._attr, mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        setattr(_switches, self._attr, self.prev)
        return False

    def __call__(self, fn):
        setattr(_switches, self._attr, self.prev)  # decorating changes nothing now
        cls, mode = type(self), self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with cls(mode):
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        """A new switch to the same mode."""
        return type(self)(self.mode)


class set_multithreading_enabled(_Switch):
    """Multithreaded backward on (the default) or off, for this thread. ember's backward
    always runs on the calling thread, as PyTorch's does for CPU tensors, so either mode gives
    the same gradients; ``is_multithreading_enabled()`` reports the setting. As a decorator
    it sets the mode for the calls only (PyTorch's leaves it set from the decoration on).

    >>> from ember.torch import autograd
    >>> with autograd.set_multithreading_enabled(False):
    ...     autograd.is_multithreading_enabled()
    False
    >>> autograd.is_multithreading_enabled()
    True
    """

    _attr = "multithreading"


def is_multithreading_enabled():
    """Whether multithreaded backward is on for this thread (``set_multithreading_enabled``)."""
    return _switches.multithreading


class enforce_grad_layout_policy(_Switch):
    """Whether accumulated gradients are made to follow the parameter's layout (``True``, the
    default) or may keep the incoming gradient's, for this thread. ember's gradients are
    always dense, row-major and of the parameter's shape, so the contract holds either way.

    >>> import ember.torch as torch
    >>> p = torch.ones(2, 3, requires_grad=True)
    >>> with torch.autograd.enforce_grad_layout_policy(False):
    ...     (p * 2).sum().backward()
    >>> p.grad.is_contiguous(), p.grad.shape
    (True, torch.Size([2, 3]))
    """

    _attr = "grad_layout"

    def __init__(self, enable=True):
        super().__init__(enable)
