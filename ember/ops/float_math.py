"""Float math: the unary functions (``exp``, ``log``, ``sqrt``, ``erf``, the trigonometric and
hyperbolic functions and their inverses, ``sigmoid``, ...), all from one table, ``_float_unary``;
the binary ones (``atan2``, ``hypot``) and ``lerp``; the rounding ops (``round``, ``floor``,
``ceil``, ``trunc``) and ``relu``. Int tensors compute in the default float dtype (rounding and
relu keep them as they are); see ``elementwise.py`` for the rules every elementwise family
shares.
"""

from operator import attrgetter as _kernel

from .. import dtypes as _dt
from ..errors import KindError
from ..shapes import as_int, broadcast_shapes
from ..autodiff.rules import array_rule, fit
from ..primitives import PRIMITIVES
from .._tensor import Tensor, device_error, record, record_arrays, saved, tensor_method, wrap
from .elementwise import (_cast, _check_operand, _check_tensor,
                          _fits, _float_input, _kept, _masked, _prep2, _record2t, _result_type,
                          _scalar, _zero_rule)

__all__ = ["exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "recip", "reciprocal", "erf", "sin",
           "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh",
           "atanh", "atan2", "hypot", "deg2rad", "rad2deg", "round", "floor", "ceil", "trunc",
           "sigmoid", "relu", "lerp", "log2", "log10"]


# -- float unaries ----------------------------------------------------------------------------

def _float_unary(name, doc):
    """The float-math op of the row ``PRIMITIVES[name]`` (ember/primitives.py): its backend
    kernel, its gradient rule ``grad(g, v)`` (ember ops), ``v`` what it ``reads`` (the input
    "x", the result "y" or nothing), and whether it takes complex tensors (dtype rule "float":
    a complex result, no gradient)."""
    row = PRIMITIVES[name]
    kernel, grad, reads, cx = _kernel(row.kernel), row.grad, row.reads, row.dtypes == "float"
    keep_out = reads == "y"
    if reads == "x":
        def rule_of(x):
            return lambda g, needs, out: (grad(g, x),)
    else:
        def rule(g, needs, out):
            return (grad(g, out),)

        def rule_of(x):
            return rule

    def op(self):
        _check_tensor(self, name, "input", cx)
        be = self._device.backend
        x, dt = _float_input(be, self, name)
        fn = kernel(be)
        out = fn(x)
        if self._node is None:
            return wrap(out, dt, self._ad)  # nothing to record
        if self._ad == "balanced":  # recomputed in backward (record_arrays), the same rule
            def make_backward(arrays, out):
                return array_rule(rule_of(wrap(arrays[0], dt)), dt, out if keep_out else None)
            return record_arrays(out, dt, (self,), make_backward((x,), out), name,
                                 (fn, make_backward))
        return record(out, dt, (self,), rule_of(saved(self)), name, keep_out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return tensor_method(op)


exp = _float_unary("exp",
                   """``e ** self``. Int tensors compute in float32; bool tensors raise KindError.

    >>> import ember
    >>> ember.tensor([0.0, 1.0], dtype="float64").exp().tolist()
    [1.0, 2.71828182845904...]
    """)
log = _float_unary("log",
                   """The natural logarithm (``log(0) == -inf``, negative inputs give NaN).

    >>> import ember
    >>> ember.tensor([1.0, 0.0, -1.0]).log().tolist()
    [0.0, -inf, nan]
    """)
log1p = _float_unary("log1p",
                     """``log(1 + self)``, accurate near 0.

    >>> import ember
    >>> ember.tensor([0.0, 1e-10], dtype="float64").log1p().tolist()
    [0.0, 9.999999999500001e-11]
    """)
log2 = _float_unary("log2",
                    """The base-2 logarithm (``log2(0) == -inf``, negative inputs give NaN).

    >>> import ember
    >>> ember.tensor([1.0, 8.0, 0.5]).log2().tolist()
    [0.0, 3.0, -1.0]
    """)
log10 = _float_unary("log10",
                     """The base-10 logarithm (``log10(0) == -inf``, negative inputs give NaN).

    >>> import ember
    >>> ember.tensor([1.0, 100.0], dtype="float64").log10().tolist()
    [0.0, 2.0]
    """)
expm1 = _float_unary("expm1",
                     """``exp(self) - 1``, accurate near 0.

    >>> import ember
    >>> ember.tensor([0.0, 1e-10], dtype="float64").expm1().tolist()
    [0.0, 1.00000000005e-10]
    """)
sqrt = _float_unary("sqrt",
                    """The square root (NaN below 0; the gradient at 0 is inf, as PyTorch).

    >>> import ember
    >>> ember.tensor([4.0, 0.0, 2.25]).sqrt().tolist()
    [2.0, 0.0, 1.5]
    """)
rsqrt = _float_unary("rsqrt",
                     """``1 / sqrt(self)``.

    >>> import ember
    >>> ember.tensor([4.0, 0.25]).rsqrt().tolist()
    [0.5, 2.0]
    """)
recip = _float_unary("recip",
                     """``1 / self`` (Burn's ``recip``; ``reciprocal`` is the same op).

    >>> import ember
    >>> ember.tensor([2.0, -4.0, 0.0]).recip().tolist()
    [0.5, -0.25, inf]
    """)
reciprocal = recip
Tensor.reciprocal = recip
erf = _float_unary("erf",
                   """The error function ``2/sqrt(pi) * integral of exp(-t**2) from 0 to self``.

    >>> import ember
    >>> ember.tensor([0.0, 1.0, -2.0], dtype="float64").erf().round(6).tolist()
    [0.0, 0.842701, -0.995322]
    """)
sin = _float_unary("sin",
                   """The sine (radians).

    >>> import ember
    >>> ember.tensor([0.0]).sin().tolist()
    [0.0]
    """)
cos = _float_unary("cos",
                   """The cosine (radians).

    >>> import ember
    >>> ember.tensor([0.0]).cos().tolist()
    [1.0]
    """)
tan = _float_unary("tan",
                   """The tangent (radians).

    >>> import ember
    >>> ember.tensor([0.0, 1.0], dtype="float64").tan().tolist()
    [0.0, 1.5574077246549023]
    """)
sinh = _float_unary("sinh",
                    """The hyperbolic sine.

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 2.0], dtype="float64").sinh().round(4).tolist()
    [0.0, -1.1752, 3.6269]
    """)
cosh = _float_unary("cosh",
                    """The hyperbolic cosine.

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 2.0], dtype="float64").cosh().round(4).tolist()
    [1.0, 1.5431, 3.7622]
    """)
tanh = _float_unary("tanh",
                    """The hyperbolic tangent.

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 2.0], dtype="float64").tanh().round(4).tolist()
    [0.0, -0.7616, 0.964]
    """)
asin = _float_unary("asin",
                    """The inverse sine (NaN outside [-1, 1]).

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 1.0], dtype="float64").asin().round(4).tolist()
    [0.0, -1.5708, 1.5708]
    """)
acos = _float_unary("acos",
                    """The inverse cosine (NaN outside [-1, 1]).

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 1.0], dtype="float64").acos().round(4).tolist()
    [1.5708, 3.1416, 0.0]
    """)
atan = _float_unary("atan",
                    """The inverse tangent.

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 2.0], dtype="float64").atan().round(4).tolist()
    [0.0, -0.7854, 1.1071]
    """)
asinh = _float_unary("asinh",
                     """The inverse hyperbolic sine.

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 1.0], dtype="float64").asinh().round(4).tolist()
    [0.0, -0.8814, 0.8814]
    """)
acosh = _float_unary("acosh",
                     """The inverse hyperbolic cosine (NaN below 1).

    >>> import ember
    >>> ember.tensor([1.0, 2.0, 3.0], dtype="float64").acosh().round(4).tolist()
    [0.0, 1.317, 1.7627]
    """)
atanh = _float_unary("atanh",
                     """The inverse hyperbolic tangent (±inf at ±1, NaN outside).

    >>> import ember
    >>> ember.tensor([0.0, -0.5, 0.5], dtype="float64").atanh().round(4).tolist()
    [0.0, -0.5493, 0.5493]
    """)
deg2rad = _float_unary("deg2rad",
                       """Degrees to radians.

    >>> import ember
    >>> ember.tensor([180.0, -90.0], dtype="float64").deg2rad().tolist()
    [3.141592653589793, -1.5707963267948966]
    """)
rad2deg = _float_unary("rad2deg",
                       """Radians to degrees.

    >>> import ember
    >>> ember.tensor([3.141592653589793], dtype="float64").rad2deg().tolist()
    [180.0]
    """)
sigmoid = _float_unary("sigmoid",
                       """The logistic ``1 / (1 + exp(-self))``, stable for large ``|self|``.

    >>> import ember
    >>> ember.tensor([0.0, -1000.0, 1000.0]).sigmoid().tolist()
    [0.5, 0.0, 1.0]
    """)


# -- float binaries and lerp ------------------------------------------------------------------

def _float_binary(a, b, op, kernel, grad, keep_out=False):
    """A float-math op of two operands: ``grad(g, need_a, need_b, a, b, out)`` is its rule, with
    the operands (Tensors or numbers) in the result's dtype."""
    xa, xb, dt, ta, tb, be = _prep2(a, b, op, to_float=True)
    out = be.ew_cast(kernel(be)(xa, xb), dt)
    a, b = _kept(a, b, ta, tb)

    def rule(g, need_a, need_b, out):
        return grad(g, need_a, need_b, _cast(a, dt), _cast(b, dt), out)
    return _record2t(out, dt, ta, tb, rule, op, keep_out)


def _atan2_grad(g, need_a, need_b, y, x, out):
    denom = x * x + y * y
    # at (0, 0) the gradient is 0, as PyTorch's, rather than 0/0 (a constant mask)
    r = _masked(g / denom, g._device.backend.ew_eq(denom._data, 0), False, "atan2_backward")
    return (r * x if need_a else None, r * -y if need_b else None)


def _hypot_grad(g, need_a, need_b, a, b, out):
    r = g / out
    return (r * a if need_a else None, r * b if need_b else None)


@tensor_method
def atan2(self, other):
    """The angle of the point (``other``, ``self``): ``atan(self / other)`` in the right quadrant.

    >>> import ember
    >>> y, x = ember.tensor([-2.0, 2.0, -2.0]), ember.tensor([1.0, -1.0, -1.0])
    >>> y.atan2(x).cast("float64").round(4).tolist()
    [-1.1071, 2.0344, -2.0344]
    """
    return _float_binary(self, other, "atan2", _ATAN2, _atan2_grad)


@tensor_method
def hypot(self, other):
    """``sqrt(self ** 2 + other ** 2)`` without overflow.

    >>> import ember
    >>> ember.tensor([3.0, 5.0]).hypot(ember.tensor([4.0, 12.0])).tolist()
    [5.0, 13.0]
    """
    return _float_binary(self, other, "hypot", _HYPOT, _hypot_grad, keep_out=True)


_ATAN2, _HYPOT = _kernel("ew_atan2"), _kernel("ew_hypot")


@tensor_method
def lerp(self, end, weight):
    """Linear interpolation ``self + weight * (end - self)`` (float result; tensors or numbers).

    >>> import ember
    >>> ember.tensor([0.0, 10.0]).lerp(ember.tensor([10.0, 20.0]), 0.25).tolist()
    [2.5, 12.5]
    """
    op = "lerp"
    _check_tensor(self, op, "self")
    _check_operand(end, op, "end")
    _check_operand(weight, op, "weight")
    tensors = [t for t in (self, end, weight) if isinstance(t, Tensor)]
    for t in tensors:
        if t._device is not self._device:
            raise device_error(op, self, t)
    be = self._device.backend
    shapes = [t._data.shape for t in tensors]
    if any(s != shapes[0] for s in shapes):
        broadcast_shapes(*shapes, op=op)
    dt = _result_type(self, end, weight)
    if dt.kind != "float":
        dt = _dt.default_float
    _fits(op, dt.itemsize, self, end, weight)
    x = be.ew_cast(self._data, dt)
    e = be.ew_cast(end._data, dt) if isinstance(end, Tensor) else _scalar(be, end, dt, op, "end")
    w = (be.ew_cast(weight._data, dt) if isinstance(weight, Tensor)
         else _scalar(be, weight, dt, op, "weight"))
    out = be.ew_cast(be.ew_lerp(x, e, w), dt)
    owners = [self] + [t for t in (end, weight) if isinstance(t, Tensor)]
    xs = saved(self)
    es = saved(end) if isinstance(end, Tensor) else end
    ws = saved(weight) if isinstance(weight, Tensor) else weight

    rules = [lambda g: g * (1 - _cast(ws, dt))]  # one per owner, in order
    if isinstance(end, Tensor):
        rules.append(lambda g: g * _cast(ws, dt))
    if isinstance(weight, Tensor):
        rules.append(lambda g: g * (_cast(es, dt) - _cast(xs, dt)))

    def backward(g, needs, out):
        return tuple([fit(rule(g), t) if need else None
                      for t, rule, need in zip(owners, rules, needs)])
    return record(out, dt, tuple(owners), backward, op)


# -- rounding ---------------------------------------------------------------------------------

def _rounding(kernel, name, doc):
    """round/floor/ceil/trunc (``kernel`` the name of its backend kernel): zero gradient; int
    tensors are returned unchanged (as PyTorch)."""
    kernel = _kernel(kernel)

    def op(self):
        _check_tensor(self, name)
        if self._dtype.kind == "int":
            return wrap(self._data, self._dtype, self._ad)
        be = self._device.backend
        return record(kernel(be)(self._data), self._dtype, (self,), _zero_rule, name)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return tensor_method(op)


floor = _rounding("ew_floor", "floor", """Round down to an integral value (floats); ints unchanged.

    >>> import ember
    >>> ember.tensor([1.5, -1.5]).floor().tolist()
    [1.0, -2.0]
    """)
ceil = _rounding("ew_ceil", "ceil", """Round up to an integral value (floats); ints unchanged.

    >>> import ember
    >>> ember.tensor([1.5, -1.5]).ceil().tolist()
    [2.0, -1.0]
    """)
trunc = _rounding("ew_trunc", "trunc", """Round toward zero, keeping the sign of zero.

    ``trunc(-0.5) == -0.0``; ``trunc(±inf) == ±inf``; NaN stays NaN.

    >>> import ember
    >>> ember.tensor([2.3, -1.7, 0.5, -0.5, 3.9]).trunc().tolist()
    [2.0, -1.0, 0.0, -0.0, 3.0]
    """)
_round0 = _rounding("ew_round", "round", "")


@tensor_method
def round(self, decimals=0):
    """Round half to even (``2.5 -> 2.0``, ``-0.5 -> -0.0``), optionally at ``decimals`` digits.

    Int tensors are returned unchanged (``decimals`` must then be 0). Zero gradient.

    >>> import ember
    >>> ember.tensor([0.5, 1.5, 2.5, -2.5, 2.7]).round().tolist()
    [0.0, 2.0, 2.0, -2.0, 3.0]
    >>> ember.tensor([1.2345], dtype="float64").round(2).tolist()
    [1.23]

    A complex tensor has each part rounded (the Array API's rule).
    """
    _check_tensor(self, "round", cx=True)
    decimals = as_int(decimals, "round", "decimals")
    if self._dtype.kind == "complex":
        be = self._device.backend
        x = self._data

        def part(p):
            return be.ew_round(p) if decimals == 0 else be.ew_round_decimals(p, decimals)
        return wrap(be.ew_complex(part(be.ew_real(x)), part(be.ew_imag(x))), self._dtype,
                    self._ad)
    if decimals == 0:
        return _round0(self)
    if self._dtype.kind == "int":
        raise KindError(f"round: decimals={decimals} is only defined for float tensors, this one "
                        f"is {self._dtype.name}")
    be = self._device.backend
    return record(be.ew_round_decimals(self._data, decimals), self._dtype, (self,), _zero_rule,
                  "round")


# -- relu -------------------------------------------------------------------------------------

@tensor_method
def relu(self):
    """``max(self, 0)``; NaN stays NaN; the gradient is 0 where ``self <= 0``, else 1 (at NaN
    the incoming gradient passes, as PyTorch's).

    >>> import ember
    >>> ember.tensor([-1.0, 0.0, 2.0]).relu().tolist()
    [0.0, 0.0, 2.0]
    """
    _check_tensor(self, "relu")
    if self._node is None:
        be = self._device.backend
        return wrap(be.ew_relu(self._data), self._dtype, self._ad)  # nothing to record
    be = self._device.backend
    x = self._data
    dt = self._dtype
    if self._ad == "balanced":  # recomputed in backward (record_arrays), the same rule
        make = _relu_recompute(dt)
        return record_arrays(be.ew_relu(x), dt, (self,), make((x,), None), "relu",
                             (be.ew_relu, make))
    return record(be.ew_relu(x), dt, (self,), _relu_rule(saved(self)), "relu")


def _relu_rule(x):
    """relu's rule (its row's: the gradient where ``x > 0`` or NaN) on the saved input ``x``."""
    grad = PRIMITIVES["relu"].grad
    return lambda g, needs, out: (grad(g, x),)


def _relu_recompute(dt):
    """The ``make_backward(arrays, out)`` of relu for dtype ``dt``: ``_relu_rule`` on arrays."""
    return lambda arrays, out: array_rule(_relu_rule(wrap(arrays[0], dt)), dt)
