"""``detect_anomaly`` and ``set_detect_anomaly``: PyTorch's anomaly mode on ember's backward.

While anomaly mode is on with ``check_nan=True``, the backward engine hands each step's
gradients to a check (``ember.autodiff.engine.anomaly_check``) as soon as the step's rule has
computed them; a gradient holding NaN stops the backward with ``AnomalyError`` (a GraphError,
so a RuntimeError, as PyTorch's) naming the step, e.g. ``Function 'SqrtBackward0' returned nan
values in its 0th output.`` Off (the default), the engine pays one None check per step.
ember records no forward tracebacks, so the error names the op but not the line that ran it.

>>> import ember.torch as torch
>>> x = torch.tensor([-1.0], requires_grad=True)
>>> with torch.autograd.detect_anomaly():
...     try:
...         x.sqrt().sum().backward()
...     except torch.autograd.AnomalyError as e:
...         print(e)
Function 'SqrtBackward0' returned nan values in its 0th output.
"""

import functools

from ...autodiff import engine as _engine
from ...autodiff.graph import no_grad
from ...errors import GraphError, InvalidParameterError
from .._tensor import torch_function
from .graph import node_name

__all__ = ["detect_anomaly", "set_detect_anomaly", "AnomalyError", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]


class AnomalyError(GraphError):
    """A backward step produced a NaN gradient while anomaly mode checked for it."""


_state = {"enabled": False, "check_nan": True}


def _check(node, results):
    """Raise AnomalyError when a gradient of ``results`` (one per input of ``node``) has NaN."""
    with no_grad():
        for i, r in enumerate(results):
            if r is not None and r._dtype.kind == "float" and r.numel() \
                    and bool(r.isnan().any().item()):
                raise AnomalyError(f"Function '{node_name(node)}' returned nan values in its "
                                   f"{i}th output.")


def _set(enabled, check_nan):
    _state["enabled"], _state["check_nan"] = enabled, check_nan
    _engine.anomaly_check = _check if enabled and check_nan else None


def _checked_bool(value, name, op):
    if not isinstance(value, bool):
        raise InvalidParameterError(f"{op}: {name} must be a bool, got {value!r}", name, value)
    return value


@torch_function
def is_anomaly_enabled():
    """Whether anomaly mode is on (``torch.is_anomaly_enabled``).

    >>> import ember.torch as torch
    >>> torch.is_anomaly_enabled()
    False
    """
    return _state["enabled"]


@torch_function
def is_anomaly_check_nan_enabled():
    """Whether anomaly mode checks gradients for NaN when on (``check_nan``).

    >>> import ember.torch as torch
    >>> torch.is_anomaly_check_nan_enabled()
    True
    """
    return _state["check_nan"]


class detect_anomaly:
    """Context manager and decorator: anomaly mode on inside (see the module docstring).

    >>> import ember.torch as torch
    >>> with torch.autograd.detect_anomaly():
    ...     torch.is_anomaly_enabled()
    True
    """

    def __init__(self, check_nan=True):
        self.check_nan = _checked_bool(check_nan, "check_nan", "detect_anomaly")
        self.prev = None

    def __enter__(self):
        self.prev = (_state["enabled"], _state["check_nan"])
        _set(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        _set(*self.prev)
        return False

    def __call__(self, fn):
        check_nan = self.check_nan

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Anomaly mode on or off (``mode``): at once when called, restored at the end of a
    ``with`` block.

    >>> import ember.torch as torch
    >>> with torch.autograd.set_detect_anomaly(True, check_nan=False):
    ...     torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()
    (True, False)
    >>> torch.is_anomaly_enabled()
    False
    """

    def __init__(self, mode, check_nan=True):
        _checked_bool(mode, "mode", "set_detect_anomaly")
        _checked_bool(check_nan, "check_nan", "set_detect_anomaly")
        self.prev = (_state["enabled"], _state["check_nan"])
        _set(mode, check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _set(*self.prev)
        return False
