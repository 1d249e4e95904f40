"""The lazy array of the wrapper backend ``Lazy``: an element-wise expression not computed yet.

A ``Chain`` is ``kernel(*operands)``: each operand an array of the wrapped backend, a Python
number or another Chain, every array and Chain of one shape. It has an array's ``shape``,
``ndim``, ``size``, ``nbytes`` and ``dtype`` (the backend's own), so that code reading only
those never computes it; ``force(chain)`` computes it once (the wrapped backend's
``ew_evaluate``) and gives the array again after that.

``watch(fn)`` calls ``fn(True)`` when the first Chain is made and ``fn(False)`` when the last
one is freed (under one lock, in order): ``Lazy`` checks kernel arguments for Chains only while
one exists.
"""

from math import prod
from threading import RLock

__all__ = ["Chain", "force", "build", "watch"]

_lock = RLock()  # re-entrant: a Chain freed by the collector inside a locked region
_live = [0]  # Chains in existence
_alive = [False]  # what the watchers were last told
_watchers = []


def watch(fn):
    """Call ``fn(any_alive)`` now and whenever Chains start or stop existing (see the module)."""
    with _lock:
        _watchers.append(fn)
        fn(_live[0] > 0)


def _count(step):
    with _lock:
        _live[0] += step
        alive = _live[0] > 0
        if alive is not _alive[0]:
            _alive[0] = alive
            for fn in _watchers:
                fn(alive)


class Chain:
    """``kernel(*operands)`` not computed yet (see the module). ``op`` names the primitive (a
    row of ``table.TABLE``), ``dtype`` is the result's dtype (the backend's own), ``held`` the
    distinct arrays it reads (the buffers it keeps alive), ``depth`` its operators along the
    longest path, ``evaluate`` the wrapped backend's ``ew_evaluate``, ``device`` the ember Device.
    Once computed, ``value`` is its array and ``operands`` is None: a leaf from then on
    (``value`` is published first, so a reader that sees ``operands`` None finds it)."""

    __slots__ = ("op", "kernel", "ufunc", "operands", "shape", "dtype", "depth", "held", "value",
                 "evaluate", "device")

    def __init__(self, op, kernel, operands, shape, dtype, depth, held, evaluate, device):
        _count(1)
        self.op = op
        self.kernel = kernel
        self.ufunc = getattr(kernel, "ufunc", None)
        self.operands = operands
        self.shape = shape
        self.dtype = dtype
        self.depth = depth
        self.held = held
        self.value = None
        self.evaluate = evaluate
        self.device = device

    def __del__(self):
        _count(-1)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return prod(self.shape)

    @property
    def nbytes(self):
        return prod(self.shape) * self.dtype.itemsize

    def __repr__(self):
        state = "computed" if self.operands is None else f"depth {self.depth}"
        return f"<Chain {self.op} {self.shape} {self.dtype} ({state})>"


def force(x):
    """The array of Chain ``x``, computed now if it was not."""
    if x.operands is None:
        return x.value
    return x.evaluate(x)


def _leaf(x):
    """``x``, or the array of a Chain already computed."""
    if x.__class__ is Chain and x.operands is None:
        return x.value
    return x


def build(op, kernel, operands, dtype, array_type, evaluate, device, max_depth, max_held):
    """A Chain of ``kernel`` (primitive ``op``) over ``operands`` (arrays of ``array_type``,
    Chains of one shape, or Python numbers) with result ``dtype``. At most ``max_depth``
    operators deep and holding at most ``max_held`` arrays: an operand Chain that would pass
    either cap is computed first (its array becomes the operand)."""
    operands = tuple(_leaf(x) for x in operands)
    depth, held = _measure(operands, array_type)
    if depth > max_depth or len(held) > max_held:
        operands = list(operands)
        for i, x in enumerate(operands):
            if x.__class__ is Chain:
                operands[i] = force(x)
                depth, held = _measure(operands, array_type)
                if depth <= max_depth and len(held) <= max_held:
                    break
        operands = tuple(operands)
    shape = next(x.shape for x in operands if x.__class__ is Chain or x.__class__ is array_type)
    return Chain(op, kernel, operands, shape, dtype, depth, held, evaluate, device)


def _measure(operands, array_type):
    """(depth, held) of a Chain over ``operands``."""
    depth = 1
    held = ()
    for x in operands:
        if x.__class__ is Chain:
            depth = max(depth, x.depth + 1)
            found = x.held
        elif x.__class__ is array_type:
            found = (x,)
        else:
            continue
        for a in found:
            for h in held:
                if h is a:
                    break
            else:
                held += (a,)
    return depth, held
