"""PyTorch's control-flow operators and futures, run eagerly: ``cond``, ``while_loop``,
``vmap`` (``ember.torch.func.vmap``) and ``fork`` / ``wait`` (``torch.jit``'s futures).

- ``cond(pred, true_fn, false_fn, operands=())``: ``pred`` a bool or a one-element tensor;
  calls the branch it selects with ``*operands`` and returns its result (gradients flow
  through the branch taken).
- ``while_loop(cond_fn, body_fn, carried_inputs)``: while ``cond_fn(*carried)`` is true,
  ``carried = body_fn(*carried)``; returns the final carried values as a tuple. ``body_fn``
  returns as many values as it receives.
- ``fork(fn, *args, **kwargs)`` runs ``fn`` at once (ember has no TorchScript interpreter to run
  it beside the caller) and returns a ``Future`` holding its result or its exception;
  ``wait(future)`` (or ``future.wait()``) returns the result or raises the exception.

>>> import ember.torch as torch
>>> torch.cond(torch.tensor(True), lambda x: x + 1, lambda x: x - 1, (torch.ones(2),)).tolist()
[2.0, 2.0]
>>> i, x = torch.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2),
...                         (torch.tensor(0), torch.ones(2)))
>>> i.item(), x.tolist()
(3, [8.0, 8.0])
>>> torch.wait(torch.fork(lambda a: a * 10, torch.ones(1))).tolist()
[10.0]
"""

from ..errors import InvalidParameterError, KindError
from .._tensor import Tensor as _T
from ._tensor import torch_function

__all__ = ["cond", "while_loop", "vmap", "fork", "wait", "Future"]


def _truth(pred, op, param):
    """``pred`` (a bool, or a tensor of one element) as a Python bool."""
    if isinstance(pred, bool):
        return pred
    if isinstance(pred, _T):
        if pred.numel() != 1:
            raise InvalidParameterError(f"{op}: Expected {param} to be bool or single-element "
                                        f"tensor, but got a tensor of shape {tuple(pred.shape)}",
                                        param, pred)
        return bool(pred.item())
    raise KindError(f"{op}: {param} must be a bool or a single-element tensor, got "
                    f"{type(pred).__name__}")


def _operands(operands, op, param):
    if not isinstance(operands, (tuple, list)):
        raise KindError(f"{op}: {param} must be a tuple or list, got {type(operands).__name__}")
    return tuple(operands)


def _callable(fn, op, param):
    if not callable(fn):
        raise KindError(f"{op}: {param} must be callable, got {type(fn).__name__}")


@torch_function
def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)`` (``torch.cond``).

    >>> import ember.torch as torch
    >>> torch.cond(False, lambda x: x * 2, lambda x: x * 3, (torch.ones(1),)).tolist()
    [3.0]
    """
    _callable(true_fn, "cond", "true_fn")
    _callable(false_fn, "cond", "false_fn")
    operands = _operands(operands, "cond", "operands")
    branch = true_fn if _truth(pred, "cond", "pred") else false_fn
    return branch(*operands)


@torch_function
def while_loop(cond_fn, body_fn, carried_inputs):
    """The carried values after ``body_fn`` ran while ``cond_fn`` held (``torch.while_loop``).

    >>> import ember.torch as torch
    >>> torch.while_loop(lambda x: x.sum() < 10, lambda x: (x * 2,), (torch.ones(2),))[0].tolist()
    [8.0, 8.0]
    """
    _callable(cond_fn, "while_loop", "cond_fn")
    _callable(body_fn, "while_loop", "body_fn")
    carried = _operands(carried_inputs, "while_loop", "carried_inputs")
    while _truth(cond_fn(*carried), "while_loop", "cond_fn's result"):
        out = body_fn(*carried)
        if not isinstance(out, (tuple, list)):
            out = (out,)
        if len(out) != len(carried):
            raise InvalidParameterError(f"while_loop: body_fn returned {len(out)} values, "
                                        f"expected {len(carried)} (one per carried input)",
                                        "body_fn", body_fn)
        carried = tuple(out)
    return carried


@torch_function
def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a batch dim of its arguments: ``ember.torch.func.vmap``.

    >>> import ember.torch as torch
    >>> torch.vmap(torch.dot)(torch.ones(3, 2), torch.ones(3, 2)).tolist()
    [2.0, 2.0, 2.0]
    """
    from .func import vmap as _vmap
    return _vmap(func, in_dims, out_dims, randomness, chunk_size=chunk_size)


class Future:
    """The result of ``fork``: ``wait()`` and ``value()`` return it (or raise the exception the
    function raised), ``done()`` is True, ``then(callback)`` gives a Future of
    ``callback(self)``.

    >>> import ember.torch as torch
    >>> f = torch.fork(lambda: 3)
    >>> f.done(), f.wait(), f.then(lambda fut: fut.value() + 1).wait()
    (True, 3, 4)
    """

    def __init__(self, value=None, error=None):
        self._value, self._error = value, error

    def done(self):
        return True

    def wait(self):
        if self._error is not None:
            raise self._error
        return self._value

    value = wait

    def then(self, callback):
        _callable(callback, "Future.then", "callback")
        return fork(callback, self)

    def add_done_callback(self, callback):
        _callable(callback, "Future.add_done_callback", "callback")
        callback(self)


Future.__module__ = "ember.torch"


@torch_function
def fork(func, *args, **kwargs):
    """A ``Future`` of ``func(*args, **kwargs)``, run now (``torch.jit.fork``).

    >>> import ember.torch as torch
    >>> torch.fork(lambda x: x + 1, torch.zeros(1)).wait().tolist()
    [1.0]
    """
    _callable(func, "fork", "func")
    try:
        return Future(func(*args, **kwargs))
    except Exception as exc:  # handed to the caller of wait(), as a future does
        return Future(error=exc)


@torch_function
def wait(future):
    """The value of ``future`` (``torch.jit.wait``); raises what its function raised.

    >>> import ember.torch as torch
    >>> torch.wait(torch.fork(lambda: "done"))
    'done'
    """
    if not isinstance(future, Future):
        raise KindError(f"wait: future must be a Future, got {type(future).__name__}")
    return future.wait()
