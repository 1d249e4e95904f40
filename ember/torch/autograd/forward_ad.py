"""``torch.autograd.forward_ad``: forward-mode AD (``dual_level``, ``make_dual``,
``unpack_dual``) on ember's reverse-mode engine, by the double-vjp identity.

``make_dual(x, t)`` returns a tensor of ``x``'s value recorded as one step from ``x`` and from
a hidden leaf ``a`` of the level (an identity in both), so that every result ``y`` computed from
it records how it depends on ``a``. ``unpack_dual(y).tangent`` is the Jacobian-vector product
``J t``: with ``u`` a fresh leaf of ``y``'s shape, ``v(u) = J^T u`` is computed by a backward
with ``create_graph=True`` (linear in ``u``), and the gradient of ``sum(v(u) * t)`` with respect
to ``u`` is ``J t``, exactly (two backward passes, no finite differences). Several duals of one
level add their contributions.

What differs from PyTorch: the ops between ``make_dual`` and ``unpack_dual`` must run with grad
mode on and have rules that can be differentiated again (ember's ops written with ember ops;
a rule on backend arrays raises GraphError); a dual tensor reports ``requires_grad=True`` (it
is recorded); the tangent is computed when asked for, not along the forward pass; one level at
a time, as PyTorch.

>>> import ember.torch as torch
>>> import ember.torch.autograd.forward_ad as fwAD
>>> x, t = torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])
>>> with fwAD.dual_level():
...     y = (fwAD.make_dual(x, t) * 3).exp()
...     fwAD.unpack_dual(y).tangent.allclose(3 * (3 * x).exp() * t)
True
"""

from collections import namedtuple

from ...autodiff.engine import _topological, run_backward
from ...autodiff.graph import enable_grad
from ...errors import GraphError, InvalidParameterError, KindError, ShapeMismatchError
from ..._tensor import Tensor as _EmberTensor, record, wrap
from .._tensor import as_torch

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "UnpackedDualTensor"]

_levels = []  # the active level's duals: a list of (hidden leaf, tangent), at most one level


def enter_dual_level():
    """Start a forward-AD level and return its index (0); one level at a time."""
    if _levels:
        raise GraphError("Nested forward mode AD is not supported at the moment")
    _levels.append([])
    return 0


def exit_dual_level(*, level=None):
    """End the forward-AD level ``level`` (default: the current one); its tangents go."""
    if level is None:
        level = len(_levels) - 1
    if level != len(_levels) - 1 or level < 0:
        raise InvalidParameterError(f"Trying to exit a forward AD level ({level}) that was not "
                                    "the last one that was created", "level", level)
    _levels.pop()


class dual_level:
    """Context manager: a forward-AD level, within which ``make_dual`` and ``unpack_dual``
    work; the tangents are gone after it.

    >>> import ember.torch as torch
    >>> import ember.torch.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(torch.tensor(2.0), torch.tensor(1.0))
    ...     fwAD.unpack_dual(d * d).tangent.item()
    4.0
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def _current(level, op):
    if not _levels:
        raise GraphError(f"{op}: no forward AD level is active; use it inside "
                         "`with forward_ad.dual_level():`")
    if level is not None and level != len(_levels) - 1:
        raise InvalidParameterError(f"{op}: level {level} is not the current forward AD level "
                                    f"({len(_levels) - 1})", "level", level)
    return _levels[-1]


def make_dual(tensor, tangent, *, level=None):
    """A tensor of ``tensor``'s value whose tangent (directional derivative) is ``tangent``
    (see the module docstring)."""
    duals = _current(level, "make_dual")
    for name, v in (("tensor", tensor), ("tangent", tangent)):
        if not isinstance(v, _EmberTensor):
            raise KindError(f"make_dual: {name} is of type {type(v).__name__}; expected a "
                            "Tensor")
    if tensor._dtype.kind != "float":
        raise KindError(f"make_dual: expected a float tensor, got dtype {tensor._dtype.name}; "
                        "only floating point tensors have tangents")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise ShapeMismatchError(f"Trying to set a forward gradient that has a different size "
                                 f"than that of the original Tensor, this is not supported. "
                                 f"Tensor is of size {list(tensor.shape)} while the given "
                                 f"forward gradient is of size {list(tangent.shape)}.",
                                 expected=tuple(tensor.shape), actual=tuple(tangent.shape))
    if tangent._device is not tensor._device:
        raise InvalidParameterError(f"make_dual: tangent is on {tangent._device}, the tensor on "
                                    f"{tensor._device}; expected one device", "tangent", tangent)
    anchor = wrap(tensor._data, tensor._dtype).require_grad()
    t = wrap(tangent._data, tangent._dtype)
    duals.append((anchor, t if t._dtype is tensor._dtype else t.cast(tensor._dtype)))
    with enable_grad():
        out = record(tensor._data, tensor._dtype, (tensor, anchor),
                     lambda g, needs, out: (g, g), "make_dual")
    return as_torch(out)


UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__doc__ = "What ``unpack_dual`` returns: the primal value and its tangent."


def _tangent(tensor, duals):
    """``J t`` summed over the level's duals that ``tensor`` depends on, or None."""
    if tensor._node is None or tensor._dtype.kind != "float" or not duals:
        return None
    anchors = [a for a, _ in duals]
    u = wrap(tensor.zeros_like()._data, tensor._dtype).require_grad()
    with enable_grad():
        vs = run_backward(tensor, u, True, targets=anchors, retain=True)
        total = None
        for v, (_, t) in zip(vs, duals):
            if v is None:
                continue
            term = (v * t).sum()
            total = term if total is None else total + term
    if total is None:
        return None
    (jt,) = run_backward(total, None, False, targets=[u])
    return as_torch(jt if jt is not None else u.zeros_like())


def _primal(tensor, duals):
    """``tensor``'s value without its tangent: a new untracked tensor when only the level's
    hidden leaves make it tracked, else ``tensor`` (it keeps its backward graph)."""
    if tensor._node is None:
        return as_torch(tensor)
    hidden = {id(a._node) for a, _ in duals}
    leaves = [n for n in _topological(tensor._node) if not n.parents and n.requires_grad]
    if all(id(n) in hidden for n in leaves):
        return as_torch(wrap(tensor._data, tensor._dtype))
    return as_torch(tensor)


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` of ``tensor`` (an UnpackedDualTensor); the tangent is None when
    ``tensor`` depends on no dual of the level, or when no level is active."""
    if not isinstance(tensor, _EmberTensor):
        raise KindError(f"unpack_dual: tensor is of type {type(tensor).__name__}; expected a "
                        "Tensor")
    if not _levels:
        return UnpackedDualTensor(as_torch(tensor), None)
    duals = _current(level, "unpack_dual")
    return UnpackedDualTensor(_primal(tensor, duals), _tangent(tensor, duals))
