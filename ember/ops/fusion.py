"""Fused elementwise expressions: ``x * y + z`` on large tensors writes one buffer, not two.

NumPy computes ``x * y + z`` into one array because its C code can prove that ``x * y`` is a
temporary and write ``+ z`` into it. Python code cannot prove that from reference counts (a
tensor held only by a NumPy object array reaches ``__add__`` with the same count), so ember
fuses without reusing anything a user could see:

- An operator (``+ - * /``) on two untracked tensors of one shape and dtype, or on a float32 or
  float64 tensor and a Python number, whose result is at least ``MIN_BYTES`` and is about to
  feed the next arithmetic operator of the same expression, returns a ``Pending`` tensor: the
  expression (a backend Chain over the operands' buffers), not computed.
- The operator that consumes a Pending extends its expression; when its own result is not
  about to feed another operator, it computes the whole expression into one new buffer.

"About to feed" is read from the caller's bytecode: after the operator, only loads and other
operators come until a ``+ - * /`` takes the result as its left or right operand (as in
``x * y + z``, ``z - x * y`` and ``x * y + z * w``). That guess only decides speed, never values: a Pending that
escapes the expression (a C caller, an object array) still holds its operands' buffers, which
ember never writes while they are shared, and computes its values the first time anything
reads it. Operands never change, so a Pending computes what the eager op would have.
"""

import dis as _dis
import sys as _sys

from .. import dtypes as _dt
from ..backends import default as be
from ..tensor import Pending, Tensor, _slot_get, pending, wrap

__all__ = ["MIN_BYTES", "feeds_next_operator", "start", "attach_operators"]

MIN_BYTES = 1 << 18  # as NumPy's temporary elision: below 256 KiB a second buffer costs little
_MAX_DEPTH = 32  # operators in one Chain; a longer expression is computed in parts
_LOOKAHEAD = 16  # instructions read after an operator to find the one consuming its result
_FUSED = frozenset(("+", "-", "*", "/"))
_LOADS = frozenset(("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW", "LOAD_CONST",
                    "LOAD_SMALL_INT", "LOAD_DEREF", "LOAD_NAME", "LOAD_GLOBAL"))
_F32 = _dt.float32
_F64 = _dt.float64
_EXACT = 1 << 53
_getframe = _sys._getframe
_sites = {}  # (code, offset) -> whether the operator there feeds the next one


def feeds_next_operator(frame):
    """Whether the instruction ``frame`` is running is a ``BINARY_OP`` whose result is an
    operand of the next ``+ - * /`` in the same expression (cached per code and offset)."""
    key = (frame.f_code, frame.f_lasti)
    hit = _sites.get(key)
    if hit is None:
        if len(_sites) > 4096:
            _sites.clear()
        hit = _sites[key] = _scan(*key)
    return hit


def _scan(code, offset):
    instructions = list(_dis.get_instructions(code))
    for k, ins in enumerate(instructions):
        if ins.offset == offset:
            break
    else:
        return False
    if ins.opname != "BINARY_OP":
        return False
    above = 0  # values pushed above the result while the expression goes on
    for ins in instructions[k + 1:k + 1 + _LOOKAHEAD]:
        name = ins.opname
        if name in _LOADS:
            if name == "LOAD_GLOBAL" and ins.arg & 1:  # it also pushes NULL for a call
                return False
            above += 1
        elif name == "BINARY_OP" and above >= 2:
            above -= 1  # an operator between two later operands, e.g. z * w in x * y + z * w
        elif name == "BINARY_OP":
            return ins.argrepr in _FUSED  # the result is its left (above == 1) or right operand
        else:
            return False
    return False


def start(kernel, a, b, dtype, ad, frame):
    """The result of ``kernel(a, b)`` on the operands' arrays (or ``a`` an array and ``b`` a
    number, either order): a Pending when it feeds the next operator, else computed now."""
    if feeds_next_operator(frame):
        return pending(be.ew_chain(kernel, a, b), dtype, ad)
    return wrap(kernel(a, b), dtype, ad)


def _finish(chain, dtype, ad, frame):
    if chain.depth < _MAX_DEPTH and feeds_next_operator(frame):
        return pending(chain, dtype, ad)
    return wrap(be.ew_evaluate(chain), dtype, ad)


def _operand(p, other, kinds):
    """What the Chain of Pending ``p`` combines with ``other``: an array, a Chain or a number,
    or None when the pair is not fusable (tracked, other dtype or shape, another type)."""
    dt = p._dtype
    if p._node is not None or dt.kind not in kinds:
        return None
    cls = other.__class__
    if cls is Tensor or cls is Pending:
        if other._node is not None or other._dtype is not dt or other._ad is not p._ad:
            return None
        operand = other._data if cls is Tensor else _slot_get(other)
        return operand if operand.shape == _slot_get(p).shape else None
    if (dt is _F32 or dt is _F64) and (cls is float or cls is int and -_EXACT < other < _EXACT):
        return float(other)
    return None


def _fused(kernel, name, eager, kinds, reflected):
    """Pending's operator ``name``: extend the Chain when it can, else compute ``self`` and
    take ``eager``, the Tensor operator."""
    def method(self, other):
        operand = _operand(self, other, kinds)
        if operand is None:
            self._data  # computes self; it is a plain Tensor from here on
            return eager(self, other)
        chain = _slot_get(self)
        if reflected:
            chain = be.ew_chain(kernel, operand, chain)
        else:
            chain = be.ew_chain(kernel, chain, operand)
        return _finish(chain, self._dtype, self._ad, _getframe(1))
    method.__name__ = name
    method.__doc__ = getattr(eager, "__doc__", None)
    return method


def attach_operators():
    """Give Pending its fused ``+ - * /`` (after Tensor has its operators)."""
    both = ("float", "int")
    for dunder, kernel, kinds in (("add", be.ew_add, both), ("sub", be.ew_sub, both),
                                  ("mul", be.ew_mul, both),
                                  ("truediv", be.ew_truediv, ("float",))):
        for name in (f"__{dunder}__", f"__r{dunder}__"):
            setattr(Pending, name, _fused(kernel, name, getattr(Tensor, name), kinds,
                                          name.startswith("__r")))
