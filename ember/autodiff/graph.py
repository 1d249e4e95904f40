"""The recorded graph: one Node per tracked tensor, and the switch that turns recording off.

A tensor is *tracked* when it has a Node: a leaf that requires grad, or the result of a recorded
op with a tracked input. An op records a Node only when grad mode is on, its result is a float
tensor and one of its inputs is tracked; untracked inputs are constants.
"""

import threading
import weakref

from ..errors import InvalidParameterError

# Leaf nodes marked by Tensor.set_distributed, to their ParamId.
distributed_leaves = weakref.WeakKeyDictionary()

__all__ = ["Node", "grad_enabled", "no_grad", "enable_grad", "inference_mode", "set_grad_enabled"]


class Node:
    """One recorded step.

    ``backward(g, needs, out)`` maps the output's gradient to one gradient per parent (or None);
    ``needs[i]`` says whether parent ``i`` wants one. With ``tensors`` set the rule takes and
    returns Tensors (``record``); else backend arrays and no ``out`` (``record_arrays``). A leaf Node has
    no parents and keeps a weak reference to its tensor so that ``tensor.grad`` can be set.
    """

    __slots__ = ("backward", "parents", "requires_grad", "consumed", "tensor_ref", "name",
                 "recompute", "sources", "tensors", "out", "checks", "__weakref__")

    def __init__(self, backward, parents, name=""):
        self.backward = backward
        self.parents = parents
        self.requires_grad = False
        self.consumed = False
        self.tensor_ref = None
        self.name = name
        # Under the "balanced" checkpointing strategy a memory-bound step keeps no arrays of its
        # own: ``recompute = (forward, make_backward)`` rebuilds its output and its backward
        # from its inputs during backward; ``sources[i]`` is input i's array when that input
        # is kept (a constant, a leaf, a checkpointed output) and None when it is recomputed.
        self.recompute = None
        self.sources = None
        # A rule written with ember ops (``record``) takes and returns Tensors and can be
        # recorded in turn; ``out`` is the step's result (untracked) when the rule reads it.
        self.tensors = False
        self.out = None
        # [family, version] of each tensor the rule saved (``ember._tensor.saved``): backward
        # raises if one was written in place since
        self.checks = None

    @classmethod
    def leaf(cls, tensor):
        node = cls(None, (), "leaf")
        node.requires_grad = True
        node.tensor_ref = weakref.ref(tensor)
        return node

    @property
    def is_leaf(self):
        return not self.parents

    def __repr__(self):
        state = "consumed" if self.consumed else "live"
        return f"<Node {self.name or 'leaf'} {state}>"


class _GradMode(threading.local):
    enabled = True

    def __init__(self):
        self.saves = []  # the tensors ``saved`` since the last recorded step, in this thread


_mode = _GradMode()


def grad_enabled():
    """Whether ops record steps for autodiff right now (False inside ``ember.no_grad()``)."""
    return _mode.enabled


class set_grad_enabled:
    """Context manager (and function) that turns recording on or off.

    >>> import ember
    >>> with ember.set_grad_enabled(False):
    ...     ember.grad_enabled()
    False
    """

    def __init__(self, mode):
        self.prev = _mode.enabled
        _mode.enabled = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _mode.enabled = self.prev
        return False


class no_grad:
    """Context manager (and decorator) in which no op records autodiff steps.

    >>> import ember
    >>> w = ember.ones(2).require_grad()
    >>> with ember.no_grad():
    ...     (w * 2).is_tracked()
    False
    """

    _value = False

    def __enter__(self):
        self.prev = _mode.enabled
        _mode.enabled = self._value
        return self

    def __exit__(self, *exc):
        _mode.enabled = self.prev
        return False

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with type(self)():
                return fn(*args, **kwargs)
        wrapper.__name__ = getattr(fn, "__name__", "wrapper")
        wrapper.__doc__ = getattr(fn, "__doc__", None)
        return wrapper


class enable_grad(no_grad):
    """Context manager in which ops record again, inside a ``no_grad`` block."""

    _value = True


class inference_mode(no_grad):
    """PyTorch's ``inference_mode``: a context manager and decorator in which no op records
    autodiff steps (ember's ``no_grad``; ember has no separate inference tensors).
    ``inference_mode(False)`` leaves recording as it is.

    >>> import ember
    >>> w = ember.ones(2).require_grad()
    >>> with ember.inference_mode():
    ...     (w * 2).is_tracked()
    False
    >>> @ember.inference_mode()
    ... def predict(x):
    ...     return (w * x).is_tracked()
    >>> predict(3.0)
    False
    """

    def __init__(self, mode=True):
        if not isinstance(mode, bool):
            raise InvalidParameterError(f"inference_mode: mode must be a bool, got {mode!r}",
                                        "mode", mode)
        self.mode = mode

    def __enter__(self):
        self.prev = _mode.enabled
        if self.mode:
            _mode.enabled = False
        return self

    def __call__(self, fn):
        mode = self.mode

        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)
        wrapper.__name__ = getattr(fn, "__name__", "wrapper")
        wrapper.__doc__ = getattr(fn, "__doc__", None)
        return wrapper
