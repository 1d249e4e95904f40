"""``torch.amp.custom_fwd`` / ``custom_bwd``: decorators for the ``forward`` and ``backward``
of an ``autograd.Function`` so that it behaves under ``autocast``. ``custom_fwd`` records the
autocast state of ``device_type`` on ``ctx``; with ``cast_inputs`` (a dtype) and autocast on,
the forward runs with autocast off and its floating-point tensor inputs cast to that dtype.
``custom_bwd`` runs the backward with the autocast state the forward had.

>>> import ember.torch as torch
>>> class Square(torch.autograd.Function):
...     @staticmethod
...     @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x * x
...     @staticmethod
...     @torch.amp.custom_bwd(device_type="cpu")
...     def backward(ctx, g):
...         (x,) = ctx.saved_tensors
...         return 2 * x * g
>>> with torch.autocast("cpu"):
...     y = Square.apply(torch.ones(2, dtype=torch.bfloat16))
>>> print(y.dtype)
torch.float32
"""

import functools

from ...errors import KindError
from .. import autocast_state as _st
from .autocast_mode import autocast, cast_inputs as _cast_inputs

__all__ = ["custom_fwd", "custom_bwd"]


def _device_type(device_type, op):
    if not isinstance(device_type, str):
        raise KindError(f"{op}: expected `device_type` of type `str`, got: "
                        f"`{type(device_type).__name__}`")
    return _st.device_type_of(device_type, op)


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorate an ``autograd.Function``'s ``forward(ctx, ...)`` (see the module docstring).

    >>> import ember.torch as torch
    >>> torch.amp.custom_fwd(device_type="cpu")(lambda ctx, x: x)  # doctest: +ELLIPSIS
    <function <lambda> at ...>
    """
    kind = _device_type(device_type, "custom_fwd")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = _st.state.dtypes[kind]
        if cast_inputs is None:
            ctx._fwd_used_autocast = kind in _st.state.enabled
            return fwd(*args, **kwargs)
        on = kind in _st.state.enabled
        ctx._fwd_used_autocast = False
        if not on:
            return fwd(*args, **kwargs)
        with autocast(device_type=kind, enabled=False):
            return fwd(*_cast_inputs(args, kind, cast_inputs),
                       **_cast_inputs(kwargs, kind, cast_inputs))
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorate an ``autograd.Function``'s ``backward(ctx, ...)``: it runs with the autocast
    state its forward had (see the module docstring).

    >>> import ember.torch as torch
    >>> torch.amp.custom_bwd(device_type="cpu")(lambda ctx, g: g)  # doctest: +ELLIPSIS
    <function <lambda> at ...>
    """
    kind = _device_type(device_type, "custom_bwd")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with autocast(device_type=kind, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
