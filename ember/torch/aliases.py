"""PyTorch's other spellings of ember.torch's ops, and its module-level twins of Tensor methods.

- The aliases (``torch.absolute`` is ``torch.abs``, ``torch.arccos`` is ``torch.acos``,
  ``torch.clip`` is ``torch.clamp``, ``torch.concat`` is ``torch.cat``, ``unsafe_split`` is
  ``split`` (ember never shares a buffer between the pieces' updates), ...) as functions and,
  where PyTorch has them, as Tensor methods; each calls the op it aliases, looked up when
  called, so it has that op's arguments, checks and gradients.
- The module-level in-place functions (``torch.abs_(x)`` is ``x.abs_()``, ``torch.relu_``,
  ``torch.clamp_``, ...) and the other method twins (``torch.fill``, ``torch.detach``,
  ``torch.is_signed``, ``torch.softmax``, ``torch.select``): each calls the Tensor method of
  its name.

>>> import ember.torch as torch
>>> torch.arccos(torch.tensor([1.0])).tolist(), torch.tensor([-2.0]).absolute().tolist()
([0.0], [2.0])
>>> x = torch.tensor([-1.0, 2.0])
>>> torch.relu_(x) is x, x.tolist()
(True, [0.0, 2.0])
"""

import sys

import ember as _e

from .._tensor import Tensor as _T
from ..errors import InvalidParameterError
from ._tensor import Tensor, torch_function, torch_method

__all__ = ["FUNCTION_ALIASES", "METHOD_ALIASES", "METHOD_TWINS", "concatenate", "fill"]

# torch.<alias>: the ember.torch function it calls
FUNCTION_ALIASES = {
    "absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin",
    "arcsinh": "asinh", "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh", "clip": "clamp",
    "concat": "cat", "divide": "div", "multiply": "mul", "subtract": "sub", "negative": "neg",
    "less": "lt", "less_equal": "le", "fix": "trunc", "unsafe_chunk": "chunk",
    "unsafe_split": "split", "unsafe_split_with_sizes": "split_with_sizes",
}

# Tensor.<alias>: the method it calls
METHOD_ALIASES = {
    "absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin",
    "arcsinh": "asinh", "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh", "clip": "clamp",
    "negative": "neg", "less": "lt", "less_equal": "le", "fix": "trunc", "unsafe_chunk": "chunk",
    "unsafe_split": "split", "unsafe_split_with_sizes": "split_with_sizes",
}

# torch.<name>(input, ...): input.<name>(...) (the in-place ones first)
METHOD_TWINS = """abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_
arctanh_ asin_ asinh_ atan_ atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ conj_physical_ cos_
cosh_ deg2rad_ erf_ erfc_ exp2_ exp_ expm1_ fix_ floor_ frac_ gcd_ i0_ lcm_ ldexp_ log10_ log1p_
log2_ log_ logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ relu_ round_ rsqrt_ sigmoid_
sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ zero_ fill_ addmv_ index_put_ detach_
detach is_signed softmax log_softmax select""".split()


def _torch():
    return sys.modules["ember.torch"]


def _check_tensor(input, op):  # noqa: A002
    if not isinstance(input, _T):
        raise InvalidParameterError(f"{op}: input must be a Tensor, got {type(input).__name__}",
                                    "input", input)


def _function_alias(alias, target):
    def fn(*args, **kwargs):
        return getattr(_torch(), target)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = alias
    fn.__doc__ = f"``torch.{alias}``: PyTorch's other name of ``torch.{target}``."
    return fn


def _method_alias(alias, target):
    def method(self, *args, **kwargs):
        return getattr(type(self), target)(self, *args, **kwargs)
    method.__name__ = alias
    method.__doc__ = f"``Tensor.{alias}``: PyTorch's other name of ``Tensor.{target}``."
    return method


def _method_twin(name):
    def fn(input, *args, **kwargs):  # noqa: A002
        _check_tensor(input, name)
        return getattr(Tensor, name)(input, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.{name}(input, ...)``: ``input.{name}(...)``."
    return fn


def concatenate(tensors, axis=0, *, dim=None):
    """``torch.concatenate``: ``torch.cat`` along ``axis`` (or ``dim``).

    >>> import ember.torch as torch
    >>> torch.concatenate([torch.ones(1, 2), torch.zeros(1, 2)], axis=1).shape
    torch.Size([1, 4])
    """
    return _torch().cat(tensors, axis if dim is None else dim)


def fill(input, value):  # noqa: A002
    """``torch.fill``: a new tensor of ``input``'s shape, dtype and device, every element
    ``value`` (a number or a 0-d tensor).

    >>> import ember.torch as torch
    >>> torch.fill(torch.zeros(2, dtype=torch.int64), 3).tolist()
    [3, 3]
    """
    _check_tensor(input, "fill")
    if isinstance(value, _T):
        if value.ndim != 0:
            raise InvalidParameterError(f"fill: value must be a number or a 0-d tensor, got a "
                                        f"tensor of shape {tuple(value.shape)}", "value", value)
        return _e.zeros_like(input) + value.cast(input.dtype)
    return _e.full_like(input, value)


for _alias, _target in FUNCTION_ALIASES.items():
    torch_function(_function_alias(_alias, _target), name=_alias)
for _alias, _target in METHOD_ALIASES.items():
    torch_method(_method_alias(_alias, _target), name=_alias)
for _name in METHOD_TWINS:
    torch_function(_method_twin(_name), name=_name)
torch_function(concatenate)
torch_function(fill)
del _alias, _target, _name
