"""The functions of ``ember.torch`` whose PyTorch meaning is their Tensor method's.

PyTorch's ``torch.<name>(input, ...)`` means ``input.<name>(...)``. ember's module-level
functions (which ``ember.torch`` exports, see ``ember/torch/__init__.py``) keep a few of ember's
meanings where ``ember.torch.Tensor`` has a PyTorch override (``ember.div`` of ints floors,
``ember.equal`` is element-wise, ``ember.cross`` takes the last dim ...), so one rule fixes them
all: each such function dispatches to the method. Its first argument must be a tensor; a Python
number is taken as PyTorch takes it (a "wrapped number", of the other operand's dtype when of the
same kind) by the functions PyTorch allows it for (``torch.add(2, x)``), and refused with a
``KindError`` elsewhere. ``input=`` names the first argument, as in PyTorch.

tests/torch/test_function_meanings.py audits the functions against PyTorch; docs/pytorch.md
lists the names whose meaning differs from ember's.

>>> import ember.torch as torch
>>> torch.div(torch.tensor([3, 4]), torch.tensor([2, 2])).tolist()
[1.5, 2.0]
>>> torch.equal(torch.ones(2), torch.ones(2))
True
>>> torch.sub(1, torch.tensor([0.5, 2.0])).tolist()
[0.5, -1.0]
"""

import builtins as _b

from .._tensor import Tensor as _T
from ..errors import KindError
from ._tensor import Tensor, functions, torch_function, torch_method
from .methods import binary_rules, wrapped_number

__all__ = ["METHOD_FUNCTIONS"]

# torch.<name> whose signature is not ``input.<name>(...)``'s: left to their own functions
_NOT_METHODS = frozenset((
    "where",  # torch.where(condition, input, other); Tensor.where(condition, other)
    "polygamma",  # torch.polygamma(n, input); Tensor.polygamma(n)
))

# the functions PyTorch lets take a Python number as ``input`` (the other operand a tensor)
_NUMBER_FIRST = frozenset((
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
    "remainder", "pow", "xlogy", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_left_shift", "bitwise_right_shift",
))

# ember's functions, with PyTorch's meaning, whose ``input`` PyTorch takes only as a tensor
_TENSOR_FIRST = ("eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "not_equal",
                 "isclose", "fmod")

_MISSING = object()
_NUMBER = (_b.bool, _b.int, _b.float, _b.complex)


def _method_function(name, method):
    method = getattr(method, "returns_torch_of", method)  # torch_function converts the results

    def function(input=_MISSING, *args, **kwargs):  # noqa: A002  (PyTorch's name)
        if input is _MISSING:
            raise KindError(f"{name}: missing the argument input (a tensor)")
        if not isinstance(input, _T):
            other = args[0] if args else kwargs.get("other", kwargs.get("exponent"))
            if (name in _NUMBER_FIRST and isinstance(input, _NUMBER)
                    and isinstance(other, _T)):
                input = wrapped_number(input, other)
            else:
                raise KindError(f"{name}: argument input must be a Tensor, got "
                                f"{type(input).__name__} {input!r}")
        return method(input, *args, **kwargs)
    function.__name__ = name
    function.__doc__ = (f"PyTorch's ``torch.{name}(input, ...)``: ``input.{name}(...)`` (see "
                        "ember/torch/functions.py).")
    return function


# PyTorch's functions that ember has only as ember.torch's Tensor methods
_ALSO = ("multiply", "divide", "subtract", "softmax", "log_softmax")


def _rule():
    """The names where ember.torch's Tensor overrides the method and the ``ember.torch``
    function is ember's own (not one a family module wrote for PyTorch), and ``_ALSO``."""
    names = [name for name in _ALSO if name not in functions]
    for name, fn in functions.items():
        if name in _NOT_METHODS or name not in Tensor.__dict__:
            continue
        if fn.__module__.startswith("ember.torch"):
            continue
        names.append(name)
    return sorted(names)


# the binary methods a family module registered after methods.py: PyTorch's operand rules too
for _name in ("xlogy", "igamma", "igammac"):
    torch_method(binary_rules(_name, Tensor.__dict__[_name]), name=_name)

METHOD_FUNCTIONS = tuple(_rule())  # the names this rule registered, for the tests and docs

for _name in METHOD_FUNCTIONS:
    _method = Tensor.__dict__[_name]
    if isinstance(_method, property):  # real, imag: PyTorch's properties, functions too
        _method = _method.fget
    torch_function(_method_function(_name, _method), name=_name)
for _name in _TENSOR_FIRST:
    if _name not in METHOD_FUNCTIONS:
        torch_function(_method_function(_name, functions[_name]), name=_name)
del _name, _method


_repeat_interleave = functions["repeat_interleave"]


@torch_function
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):  # noqa: A002
    """PyTorch's ``torch.repeat_interleave``: ``input.repeat_interleave(repeats, dim)``; with
    ``input`` alone (a 1-d int tensor of counts), each index repeated its count of times.

    >>> import ember.torch as torch
    >>> torch.repeat_interleave(torch.tensor([1, 0, 2])).tolist()
    [0, 2, 2]
    """
    if repeats is None and dim is None:
        if not isinstance(input, _T) or input.dtype.kind != "int" or input.ndim != 1:
            raise KindError("repeat_interleave: with no repeats, input must be a 1-d int tensor "
                            f"of counts, got {input!r}")
        from ..ops.creation import arange
        input, repeats = arange(input.shape[0], device=input.device), input
    return _repeat_interleave(input, repeats, dim, output_size=output_size)
