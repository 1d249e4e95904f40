"""Tensor's Python operators: ``+ - * / // % **``, plain and reflected, with the short path of
DESIGN.md for ``+ - * /`` (two tensors of one dtype, shape and device, or a float tensor and a
Python number, go straight to the backend's kernel). They compute what ``add``, ``sub``,
``mul``, ``true_divide``, ``floor_divide``, ``remainder`` and ``pow`` (``arith.py``) compute.
"""

from ..backends import guard as _guard
from ..backends.guard import check_shaped
from ..errors import InvalidParameterError
from ..autodiff.rules import array_rule
from .._tensor import Tensor, alias, device_error, record, record_arrays, saved, wrap
from .arith import (_add, _floordiv, _mul, _pow, _remainder, _sub, _truediv, add_rule, mul_rule,
                    sub_rule, truediv_rule)
from .elementwise import _F32, _F64, _fits_pair

_EXACT = 1 << 53  # Python ints below this are exact as floats


# The rules of the short paths, built from the rows' rules (ember/primitives.py) that the ops
# read too: ``grad_tt(a, b)``, ``grad_ts(a, s)`` and ``grad_st(s, a)`` of the saved operands
# (``a``, ``b`` Tensors of one shape and dtype, ``s`` a number) give the step's backward rule.

def _tensors(rule, reads=True):
    """``grad_tt`` of ``rule``; one rule for every step when it reads no operand."""
    if not reads:
        fixed = lambda g, needs, out: rule(g, None, None, needs[0], needs[1])  # noqa: E731
        return lambda a, b: fixed
    return lambda a, b: lambda g, needs, out: rule(g, a, b, needs[0], needs[1])


def _tensor_number(rule, reads=True):
    """``grad_ts`` of ``rule``: the step ``a OP s``."""
    if not reads:
        fixed = lambda g, needs, out: (rule(g, None, None, True, False)[0],)  # noqa: E731
        return lambda a, s: fixed
    return lambda a, s: lambda g, needs, out: (rule(g, a, s, True, False)[0],)


def _number_tensor(rule, reads=True):
    """``grad_st`` of ``rule``: the reflected step ``s OP a``."""
    if not reads:
        fixed = lambda g, needs, out: (rule(g, None, None, False, True)[1],)  # noqa: E731
        return lambda s, a: fixed
    return lambda s, a: lambda g, needs, out: (rule(g, s, a, False, True)[1],)


def _dunder(binary, name, symbol, reverse=False):
    """An operator that always takes the general path of ``binary``."""
    if reverse:
        def method(self, other):
            return binary(other, self, name)
        method.__doc__ = f"``other {symbol} self`` for a number ``other`` (see ``{name}``)."
    else:
        def method(self, other):
            return binary(self, other, name)
        method.__doc__ = f"``self {symbol} other`` (see ``{name}``)."
    return method


_new = object.__new__


def _kernel_of(memo, device, dtype, kname):
    """``(device, dtype, kernel, eager, below)`` for an operator's short path: the kernels of
    ``kname`` that ``device``'s backend gives for operands of ``dtype`` (its ``ew_operator``:
    ``eager`` for arrays of fewer than ``below`` bytes each), remembered in ``memo[0]`` as one
    tuple (replaced whole, so a thread never sees one device with another's kernel): an
    operator's next call on the same device and dtype finds them with two identity checks."""
    last = memo[0] = (device, dtype, *device.backend.ew_operator(kname, dtype))
    return last


_MEMOS = []  # every operator's memo (see _kernel_of)
_FORGOTTEN = (None, None, None, None, 0)


def forget_kernels():
    """Make every operator ask its device's backend for its kernels again (``ew_operator``) at
    its next call: after something its answer depends on changed (a backend's threshold,
    lowered by a test)."""
    for memo in _MEMOS:
        memo[0] = _FORGOTTEN


def _keep_none(a, b):
    return alias(a), alias(b)


def _keep_cross(a, b):  # mul: each operand's gradient reads the other
    return (saved(a) if b._node is not None else alias(a),
            saved(b) if a._node is not None else alias(b))


def _keep_div(a, b):  # a / b: a's gradient reads b, b's reads a and b
    return saved(a) if b._node is not None else alias(a), saved(b)


def _short(kname, slow, name, symbol, grad_tt, grad_ts, float_only=False, reverse=False,
           reads=_keep_cross, reads_number=True):
    """An operator with the short path of DESIGN.md: two tensors of one dtype, shape and device,
    or a float32/float64 tensor with a Python float (or small int), go straight to the kernel
    ``kname`` of the operand's backend (no promotion, no broadcasting checks); everything else
    takes ``slow``. ``grad_tt(be, a, b)`` and ``grad_ts(be, a, s)`` build the backward rule of
    each case. When no operand is tracked (and both carry the same checkpointing strategy) the
    result is built directly: what ``record`` would return, without building a rule it would
    drop: two untracked tensors need no equal shapes, the kernel broadcasts as ember does, and
    shapes it cannot broadcast take ``slow``, which words the error. With ``reverse`` it is the
    reflected operator, ``other OP self`` for a number ``other`` (``grad_ts(s, a)`` builds its
    rule; no tensor case). ``reads(a, b)`` gives
    the operands a two-tensor rule keeps, ``saved`` where the rule reads a value (so a later
    in-place write of it makes backward raise, as PyTorch's) and ``alias`` where it does not;
    ``reads_number``: whether the rule with a number reads the tensor's value."""
    kinds = ("float",) if float_only else ("float", "int")
    keep = saved if reads_number else alias
    # a two-tensor rule that reads no operand is one rule for every step: no operands kept
    fixed = grad_tt(None, None) if reads is _keep_none and grad_tt is not None else None
    memo = [_FORGOTTEN]
    _MEMOS.append(memo)

    def method(self, other):
        dt = self._dtype
        if isinstance(other, Tensor) and not reverse:
            a, b = self._data, other._data
            if other._dtype is dt:
                device = self._device
                last = memo[0]  # the kernel of the device and dtype of the last call
                if last[0] is not device or last[1] is not dt:  # (memo holds kinds it takes)
                    if dt.kind not in kinds:
                        return slow(self, other, name)
                    last = _kernel_of(memo, device, dt, kname)
                if other._device is not device:
                    raise device_error(name, self, other)
                kernel, below = last[2], last[4]
                small = below and a.nbytes < below and b.nbytes < below
                if small:
                    kernel = last[3]
                ad = self._ad
                untracked = self._node is None and other._node is None and ad is other._ad
                if untracked:
                    try:  # guard.surely_fit, inline: the hot path (the kernel broadcasts)
                        big = a.nbytes * b.nbytes > _guard._SMALL_BYTES
                    except AttributeError:  # an array without nbytes (the Array API has none)
                        big = not _guard.surely_fit(a, b)
                    if big:  # (two small operands may still broadcast to a large result)
                        _fits_pair(name, a, b, dt.itemsize)
                    try:
                        out = kernel(a, b)
                    except (RuntimeError, TypeError, ValueError):  # shapes that do not broadcast
                        # (JAX words it as a TypeError)
                        return slow(self, other, name)
                    t = _new(Tensor)  # nothing to record: what ``wrap`` gives, inline
                    t._data = out
                    t._dtype = dt
                    t._device = device
                    t._node = None
                    t._ad = ad
                    t._grad = None
                    return t
                if a.shape == b.shape:
                    if not small:  # (the result is the size of a: it fits)
                        check_shaped(name, a, dt.itemsize)
                    if ad == "balanced" or other._ad == "balanced":
                        return record_arrays(
                            kernel(a, b), dt, (self, other),
                            array_rule(grad_tt(wrap(a, dt), wrap(b, dt)), dt), name,
                            (kernel, lambda arrays, out: array_rule(grad_tt(
                                wrap(arrays[0], dt), wrap(arrays[1], dt)), dt)))
                    return record(kernel(a, b), dt, (self, other),
                                  fixed or grad_tt(*reads(self, other)), name)
        elif dt is _F32 or dt is _F64:
            t = type(other)
            if t is float or (t is int and -_EXACT < other < _EXACT):
                a, other = self._data, float(other)
                device = self._device
                last = memo[0]  # the kernel of the device and dtype of the last call
                if last[0] is not device or last[1] is not dt:
                    last = _kernel_of(memo, device, dt, kname)
                below = last[4]
                if below and a.nbytes < below:  # (far under the memory bound: it fits)
                    kernel = last[3]
                else:
                    kernel = last[2]
                    check_shaped(name, a, dt.itemsize)
                if self._node is None:
                    return wrap(kernel(other, a) if reverse else kernel(a, other), dt, self._ad)
                return _scalar_step(self, kernel, other, grad_ts, name, reverse, keep)
        return slow(other, self, name) if reverse else slow(self, other, name)
    if reverse:
        method.__name__ = "r" + name
        method.__doc__ = f"``other {symbol} self`` for a number ``other`` (see ``{name}``)."
    else:
        method.__name__ = name
        method.__doc__ = f"``self {symbol} other`` (see ``{name}``)."
    return method


def _scalar_step(x, kernel, s, grad, name, reverse, keep=saved):
    """The recorded step of a tracked float tensor ``x`` with the number ``s`` (``s OP x`` when
    ``reverse``): ``grad(x, s)`` (``grad(s, x)``) builds its rule; under the "balanced"
    strategy it recomputes on arrays with the same rule (the caller checked the size)."""
    a, dt = x._data, x._dtype
    out = kernel(s, a) if reverse else kernel(a, s)
    if x._ad == "balanced":
        rule = grad(s, wrap(a, dt)) if reverse else grad(wrap(a, dt), s)
        return record_arrays(out, dt, (x,), array_rule(rule, dt), name,
                             _scalar_recompute(kernel, grad, s, dt, reverse))
    return record(out, dt, (x,), grad(s, keep(x)) if reverse else grad(keep(x), s), name)


def _scalar_recompute(kernel, grad, s, dt, reverse):
    """The "balanced" recompute recipe of a tensor-with-number op (see ``record_arrays``)."""
    if reverse:
        return (lambda a: kernel(s, a),
                lambda arrays, out: array_rule(grad(s, wrap(arrays[0], dt)), dt))
    return (lambda a: kernel(a, s), lambda arrays, out: array_rule(grad(wrap(arrays[0], dt), s), dt))


_NONE = {"reads": _keep_none, "reads_number": False}
Tensor.__add__ = _short("ew_add", _add, "add", "+", _tensors(add_rule, False),
                        _tensor_number(add_rule, False), **_NONE)
Tensor.__radd__ = _short("ew_add", _add, "add", "+", None, _number_tensor(add_rule, False),
                         reverse=True, **_NONE)
Tensor.__sub__ = _short("ew_sub", _sub, "sub", "-", _tensors(sub_rule, False),
                        _tensor_number(sub_rule, False), **_NONE)
Tensor.__rsub__ = _short("ew_sub", _sub, "sub", "-", None, _number_tensor(sub_rule, False),
                         reverse=True, **_NONE)
Tensor.__mul__ = _short("ew_mul", _mul, "mul", "*", _tensors(mul_rule), _tensor_number(mul_rule),
                        reads_number=False)
Tensor.__rmul__ = _short("ew_mul", _mul, "mul", "*", None, _number_tensor(mul_rule),
                         reverse=True, reads_number=False)
Tensor.__truediv__ = _short("ew_truediv", _truediv, "true_divide", "/", _tensors(truediv_rule),
                            _tensor_number(truediv_rule), float_only=True, reads=_keep_div,
                            reads_number=False)
Tensor.__rtruediv__ = _short("ew_truediv", _truediv, "true_divide", "/", None,
                             _number_tensor(truediv_rule), reverse=True)
Tensor.__floordiv__ = _dunder(_floordiv, "floor_divide", "//")
Tensor.__rfloordiv__ = _dunder(_floordiv, "floor_divide", "//", reverse=True)
Tensor.__mod__ = _dunder(_remainder, "remainder", "%")
Tensor.__rmod__ = _dunder(_remainder, "remainder", "%", reverse=True)



def _pow_dunder(self, other, modulo=None):
    """``self ** other`` (see ``pow``)."""
    if modulo is not None:
        raise InvalidParameterError(f"pow: the three-argument pow is not supported, got modulo "
                                    f"{modulo!r}", "modulo", modulo)
    return _pow(self, other, "pow", "auto")


def _rpow_dunder(self, other):
    """``other ** self`` for a number ``other`` (see ``pow``)."""
    return _pow(other, self, "pow", "auto")


Tensor.__pow__ = _pow_dunder
Tensor.__rpow__ = _rpow_dunder
