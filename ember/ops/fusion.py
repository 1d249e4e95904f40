"""Fused elementwise expressions: ``x * y + z`` on large tensors writes one buffer, not two.

NumPy computes ``x * y + z`` into one array because its C code can prove that ``x * y`` is a
temporary and write ``+ z`` into it. Python code cannot prove that, so ember defers instead
(tinygrad's lazy graph, Burn's ``Fusion`` backend), deterministically:

- An operator (``+ - * /``) on two untracked tensors of one shape, dtype and device, or on a
  float32 or float64 tensor and a Python number, whose result has at least ``MIN_NUMEL``
  elements, returns a ``Pending`` tensor: the expression (a backend Chain over the operands'
  buffers), not computed. Only a backend with ``ew_chain``/``ew_evaluate`` (NumPy) defers;
  another (torch) computes at once.
- An operator on a Pending extends its expression (``x * y + z``, ``x * y + z * w``, and
  ``t = x * y; t + z`` alike), and so do these ops of untracked float32/float64 tensors that
  are Pending or large (``unary``, ``binary``, ``where``, ``cast``; the op's own function
  asks): ``exp log tanh sqrt rsqrt sigmoid relu neg abs``, ``maximum``/``minimum`` of one
  shape and dtype (or with a Python number), ``where`` with an untracked bool condition of that
  shape, and casts between float32 and float64. Anything else that reads the tensor's buffer
  (any other op, ``numpy()``, printing, autodiff) computes the whole expression into one new
  buffer, once, and the Pending becomes a plain Tensor. The backend computes it with one
  compiled loop where it can (``ember/backends/numpy/jit/maps.py``), else op by op in place.
- A Chain is at most ``MAX_DEPTH`` operators deep and keeps at most ``MAX_HELD`` operand
  buffers alive (each the size of the result); an operand that would pass either cap is
  computed first.
- Computing is atomic for readers: the values are computed outside any lock, then published
  (buffer, then class) under ``ember._tensor``'s lock, so threads reading one escaped Pending
  all see a complete array (two of them may compute it; one result wins).

Operands never change (ember never writes a buffer it shares), so a Pending computes what the
eager op would have; a buffer shared with NumPy (``from_numpy``) that the user writes before
the Pending is read is the one way to tell the difference.
"""

from math import prod as _prod

from .. import dtypes as _dt
from .._tensor import Pending, Tensor, new_holding, pending, pending_chain

__all__ = ["MIN_NUMEL", "MAX_DEPTH", "MAX_HELD", "defers", "start", "unary", "cast", "binary",
           "where", "sum", "attach_operators"]

MIN_NUMEL = 1 << 16  # elements; 256 KiB of float32: below it a second buffer costs little
MAX_DEPTH = 32  # operators in one Chain; a longer expression is computed in parts
MAX_HELD = 4  # operand buffers one Chain keeps alive, each the size of its result
_F32 = _dt.float32
_BOOL = _dt.bool_
_F64 = _dt.float64
_EXACT = 1 << 53
def _maker(be):
    return be.ew_chain if be.fuses else None


def defers(be):
    """Whether backend ``be`` defers elementwise chains (its ability ``fuses``)."""
    return be.fuses


def start(be, kernel, a, b, dtype, ad, device):
    """The result of ``kernel(a, b)`` on the operands' arrays (or one array and a number, either
    order), on ``device`` of backend ``be``: a Pending where the backend defers, else now."""
    make = _maker(be)
    if make is None or not (be.ew_deferrable(a) and be.ew_deferrable(b)):
        return new_holding(Tensor, kernel(a, b), dtype, ad, device)
    return pending(make(kernel, (a, b), MAX_DEPTH, MAX_HELD), dtype, ad, device)


def _source(t):
    """What a Chain reads for the untracked float32/float64 tensor ``t`` (its Chain while it
    is a Pending, else its array) and its backend's ``ew_chain``; (None, None) when ``t``
    is not deferred: another dtype, tracked, a backend that computes eagerly, a small or
    shared array."""
    dt = t._dtype
    if (dt is not _F32 and dt is not _F64) or t._node is not None:
        return None, None
    make = _maker(t._device.backend)
    if make is None:
        return None, None
    if t.__class__ is Pending:
        chain = pending_chain(t)
        if chain is not None:
            return chain, make
    a = t._data
    if _prod(a.shape) < MIN_NUMEL or not t._device.backend.ew_deferrable(a):
        return None, None
    return a, make


def unary(t, kname):
    """A Pending of the unary kernel ``kname`` (an ``exp``, ``tanh``, ``relu``...) of tensor
    ``t`` where ``t`` is deferred or large enough to be (see ``_source``), else None: the
    caller computes the op eagerly."""
    operand, make = _source(t)
    if operand is None:
        return None
    device = t._device
    chain = make(getattr(device.backend, kname), (operand,), MAX_DEPTH, MAX_HELD)
    return pending(chain, t._dtype, t._ad, device)


def cast(t, dtype):
    """A Pending of ``t`` cast to ``dtype`` (float32 <-> float64) where ``t`` is deferred or
    large enough to be, else None."""
    if dtype is not _F32 and dtype is not _F64:
        return None
    operand, make = _source(t)
    if operand is None:
        return None
    chain = make("cast_" + dtype.name, (operand,), MAX_DEPTH, MAX_HELD)
    return pending(chain, dtype, t._ad, t._device)


def binary(a, b, kname):
    """A Pending of the binary kernel ``kname`` (``ew_maximum``, ``ew_minimum``) of ``a`` and
    ``b`` (tensors of one shape, dtype, device and strategy, or one of them a Python float)
    where one is deferred or large enough to be, else None."""
    if a.__class__ is Pending or a.__class__ is Tensor:
        first, other, reflected = a, b, False
    elif b.__class__ is Pending or b.__class__ is Tensor:
        first, other, reflected = b, a, True
    else:
        return None
    left, make = _source(first)
    if left is None:
        return None
    right = _operand(first, left, other, ("float",))
    if right is None:
        return None
    device = first._device
    operands = (right, left) if reflected else (left, right)
    return pending(make(getattr(device.backend, kname), operands, MAX_DEPTH, MAX_HELD),
                   first._dtype, first._ad, device)


def where(condition, a, b):
    """A Pending of ``where(condition, a, b)``: ``condition`` an untracked bool tensor, ``a``
    and ``b`` as for ``binary`` (one of them may be a Python float), all of one shape and
    device, one of ``a`` and ``b`` deferred or large enough to be; else None."""
    if condition.__class__ is not Tensor or condition._node is not None \
            or condition._dtype is not _BOOL:
        return None
    if a.__class__ is Pending or a.__class__ is Tensor:
        first, other, reflected = a, b, False
    elif b.__class__ is Pending or b.__class__ is Tensor:
        first, other, reflected = b, a, True
    else:
        return None
    left, make = _source(first)
    if left is None or condition._device is not first._device:
        return None
    right = _operand(first, left, other, ("float",))
    cond = condition._data
    if right is None or cond.shape != left.shape \
            or not first._device.backend.ew_deferrable(cond):
        return None
    operands = (cond, right, left) if reflected else (cond, left, right)
    return pending(make("where", operands, MAX_DEPTH, MAX_HELD), first._dtype, first._ad,
                   first._device)


def sum(t, axes, keepdims):
    """The sum of Pending ``t`` over ``axes`` (every dim, or the last one) in one pass over its
    operands, the expression's values never stored (``ew_chain_sum``), as an untracked Tensor;
    None when ``t`` is not a Pending, for other axes, or when the backend cannot now."""
    chain = pending_chain(t) if t.__class__ is Pending else None
    if chain is None:
        return None
    ndim = len(chain.shape)
    every = tuple(range(ndim))
    if not ndim or (axes != every and axes != (ndim - 1,)):
        return None
    device = t._device
    out = device.backend.ew_chain_sum(chain, axes != every)
    if out is None:
        return None
    if keepdims:
        out = out.reshape(tuple(1 if i in axes else n for i, n in enumerate(chain.shape)))
    return new_holding(Tensor, out, t._dtype, t._ad, device)


def _operand(p, chain, other, kinds):
    """What the Chain ``chain`` of Pending ``p`` combines with ``other``: an array, a Chain or a
    number, or None when the pair is not fusable (tracked, another dtype, shape, device,
    checkpointing strategy or type)."""
    dt = p._dtype
    if dt.kind not in kinds:
        return None
    cls = other.__class__
    if cls is Tensor or cls is Pending:
        if other._node is not None or other._dtype is not dt or other._ad is not p._ad \
                or other._device is not p._device:
            return None
        operand = pending_chain(other) if cls is Pending else None
        if operand is None:  # a plain tensor, or a Pending computed meanwhile
            operand = other._data
            if not p._device.backend.ew_deferrable(operand):
                return None
        return operand if operand.shape == chain.shape else None
    if (dt is _F32 or dt is _F64) and (cls is float or cls is int and -_EXACT < other < _EXACT):
        return float(other)
    return None


def _fused(kname, name, eager, kinds, reflected):
    """Pending's operator ``name``: extend the Chain when it can, else compute ``self`` and
    take ``eager``, the Tensor operator."""
    def method(self, other):
        chain = pending_chain(self)
        operand = None if chain is None else _operand(self, chain, other, kinds)
        if operand is None:
            self._data  # computes self; it is a plain Tensor from here on
            return eager(self, other)
        device = self._device
        be = device.backend
        kernel = getattr(be, kname)
        operands = (operand, chain) if reflected else (chain, operand)
        chain = be.ew_chain(kernel, operands, MAX_DEPTH, MAX_HELD)
        return pending(chain, self._dtype, self._ad, device)
    method.__name__ = name
    method.__doc__ = getattr(eager, "__doc__", None)
    return method


def attach_operators():
    """Give Pending its fused ``+ - * /`` (after Tensor has its operators)."""
    both = ("float", "int")
    for dunder, kname, kinds in (("add", "ew_add", both), ("sub", "ew_sub", both),
                                 ("mul", "ew_mul", both), ("truediv", "ew_truediv", ("float",))):
        for name in (f"__{dunder}__", f"__r{dunder}__"):
            setattr(Pending, name, _fused(kname, name, getattr(Tensor, name), kinds,
                                          name.startswith("__r")))
