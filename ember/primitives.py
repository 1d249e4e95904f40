"""The element-wise primitives, one row each (JAX's ``defjvp`` beside the primitive, PyTorch's
``derivatives.yaml``): the backend kernel that computes it, its dtype rule, its gradient rule,
and, for the primitives the NumPy backend fuses, the dtypes it fuses in and its C expression in
a compiled loop. The ops read the kernel, dtype rule and gradient of their row (``exp``,
``+``'s operator and ``add`` alike); the wrapper backend ``Lazy`` and the compiled maps read
the C expressions (``ember/backends/lazy/table.py``). Adding a fusable row adds all of them.

Gradient rules, by the row's ``arity``:

- one operand: ``grad(g, v)``, ``v`` what ``reads`` says: the input ``"x"``, the result
  ``"y"``, the input's dtype ``"dtype"``, or nothing (None);
- two: ``grad(g, a, b, need_a, need_b)``, the operands as Tensors (or numbers) in the result's
  dtype; None for a gradient not needed;
- ``where``: ``grad(g, cond, parts, needs, op)``, ``parts`` (negate, shape, dtype) of each
  tensor operand.

This module imports no op (the backends read it while ember loads); the rules that need the
ops' helpers find them when they first run.

>>> PRIMITIVES["exp"].kernel, PRIMITIVES["exp"].reads, PRIMITIVES["mul"].c_float
('ew_exp', 'y', '({0} * {1})')
"""

import math as _math
from typing import NamedTuple

__all__ = ["Primitive", "PRIMITIVES", "FLOATS", "INTS"]

FLOATS = ("float32", "float64")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


class Primitive(NamedTuple):
    """One element-wise primitive (see the module). ``dtypes`` is its dtype rule: ``"float"``
    (ints compute in the default float dtype, bools are refused, complex taken),
    ``"real float"`` (the same without complex), ``"arith"`` (the operands promote; ints stay
    ints), ``"div"`` (as arith, ints give the default float), ``"same"`` (the input's dtype),
    ``"cast"`` (the target's), ``"choose"`` (the two choices promote). ``fuses``: the dtype
    names a compiled loop takes it in (empty: not fused); ``c_float`` / ``c_double``: its C
    expression (``{0}``, ``{1}``, ``{2}`` the operands; None where it has none in that type);
    ``helpers``: the C helpers the expression calls."""
    kernel: str
    arity: int
    dtypes: str
    grad: object
    reads: object = "x"
    fuses: tuple = ()
    c_float: str = None
    c_double: str = None
    helpers: tuple = ()


_helpers = {}


def _op_helpers():
    """The ops' helpers the array-level rules use (imported on first use, then kept)."""
    if not _helpers:
        from ._tensor import wrap
        from .ops import elementwise, indexing
        _helpers.update(wrap=wrap, masked=elementwise._masked, fit=indexing._fit)
    return _helpers


# -- the rules that work on the operands' arrays (their masks are constants) -------------------

def _extremum_grad(loses, name):
    """The rule of maximum (``loses`` "ew_lt") or minimum ("ew_gt"): NaN propagates; on ties
    each side gets half the gradient (PyTorch)."""
    def grad(g, a, b, need_a, need_b):
        h = _op_helpers()
        be, dt = g._device.backend, a._dtype
        xa, xb = a._data, b._data
        lose = getattr(be, loses)
        half = g * h["wrap"](be.ew_cast(be.ew_where(be.ew_eq(xa, xb), 0.5, 1.0), dt), dt)
        return (h["masked"](half, lose(xa, xb), False, name) if need_a else None,
                h["masked"](half, lose(xb, xa), False, name) if need_b else None)
    return grad


def _relu_grad(g, x):
    """The gradient where ``x > 0`` (or NaN), 0 where ``x <= 0`` (a constant mask)."""
    return _op_helpers()["masked"](g, x._device.backend.ew_le(x._data, 0), False,
                                   "relu_backward")


def _abs_grad(g, x):
    """``g * sign(x)``, the sign a constant."""
    return g * _op_helpers()["wrap"](x._device.backend.ew_sign(x._data), x._dtype)


def _where_grad(g, cond, parts, needs, op):
    """The gradient of each float tensor choice: ``g`` where it was chosen, 0 elsewhere, summed
    to its shape and cast to its dtype."""
    h = _op_helpers()
    return tuple(h["fit"](h["masked"](g, cond, not negate, op), shape, dt)
                 if need and dt.kind == "float" else None
                 for need, (negate, shape, dt) in zip(needs, parts))


def _erf_grad(g, x):
    """``g * 2/sqrt(pi) * exp(-x**2)``: the backend's fused kernel, recorded with its own rule
    (so that it differentiates again)."""
    from ._tensor import record, saved
    be = g._device.backend
    gs, xs = saved(g), saved(x)

    def rule(gg, needs, out):
        return (_erf_grad(gg, xs) if needs[0] else None,
                _erf_grad(gg * gs, xs) * (xs * -2.0) if needs[1] else None)
    return record(be.ew_erf_grad(g._data, x._data), g._dtype, (g, x), rule, "erf_backward")


_RAD, _DEG = _math.pi / 180.0, 180.0 / _math.pi
_LN2, _LN10 = _math.log(2.0), _math.log(10.0)


def _f(kernel, grad, reads="x", dtypes="float", **fusion):
    return Primitive(kernel, 1, dtypes, grad, reads, **fusion)


PRIMITIVES = {
    # + - * / (the ops and the operators' short paths read these rules)
    "add": Primitive("ew_add", 2, "arith",
                     lambda g, a, b, na, nb: (g if na else None, g if nb else None),
                     None, FLOATS + INTS, "({0} + {1})", "({0} + {1})"),
    "sub": Primitive("ew_sub", 2, "arith",
                     lambda g, a, b, na, nb: (g if na else None, -g if nb else None),
                     None, FLOATS + INTS, "({0} - {1})", "({0} - {1})"),
    "mul": Primitive("ew_mul", 2, "arith",
                     lambda g, a, b, na, nb: (g * b if na else None, g * a if nb else None),
                     None, FLOATS + INTS, "({0} * {1})", "({0} * {1})"),
    # b's gradient -g * a / (b * b), as PyTorch
    "div": Primitive("ew_truediv", 2, "div",
                     lambda g, a, b, na, nb: (g / b if na else None,
                                              -g * a / (b * b) if nb else None),
                     None, FLOATS, "({0} / {1})", "({0} / {1})"),
    "max": Primitive("ew_maximum", 2, "arith", _extremum_grad("ew_lt", "maximum_backward"),
                     None, FLOATS, "em_maxf({0}, {1})", "em_max({0}, {1})", ("max",)),
    "min": Primitive("ew_minimum", 2, "arith", _extremum_grad("ew_gt", "minimum_backward"),
                     None, FLOATS, "em_minf({0}, {1})", "em_min({0}, {1})", ("min",)),
    # a bool array chooses between two operands of the result's dtype
    "where": Primitive("ew_where", 3, "choose", _where_grad, None, FLOATS,
                       "({0} ? {1} : {2})", "({0} ? {1} : {2})"),
    # casts between the float dtypes (the operand has the other one): the gradient cast back
    "cast_float32": Primitive("ew_cast", 1, "cast", lambda g, src: g.cast(src), "dtype",
                              FLOATS, "((float){0})", None),
    "cast_float64": Primitive("ew_cast", 1, "cast", lambda g, src: g.cast(src), "dtype",
                              FLOATS, None, "((double){0})"),
    "neg": _f("ew_neg", lambda g, _: -g, None, "same", fuses=FLOATS, c_float="(-{0})",
              c_double="(-{0})"),
    "abs": _f("ew_abs", _abs_grad, "x", "same", fuses=FLOATS, c_float="fabsf({0})",
              c_double="fabs({0})"),
    "relu": _f("ew_relu", _relu_grad, "x", "same", fuses=FLOATS, c_float="em_maxf({0}, 0.0f)",
               c_double="em_max({0}, 0.0)", helpers=("max",)),
    # the float functions (ember/ops/float_math.py)
    "exp": _f("ew_exp", lambda g, y: g * y, "y", fuses=FLOATS, c_float="ember_expf({0})",
              c_double="exp({0})", helpers=("expf",)),
    "log": _f("ew_log", lambda g, x: g / x, fuses=FLOATS, c_float="em_logf({0})",
              c_double="log({0})", helpers=("logf",)),
    "log1p": _f("ew_log1p", lambda g, x: g / (x + 1)),
    "log2": _f("ew_log2", lambda g, x: g / (x * _LN2)),
    "log10": _f("ew_log10", lambda g, x: g / (x * _LN10)),
    "expm1": _f("ew_expm1", lambda g, y: g * (y + 1), "y"),
    "sqrt": _f("ew_sqrt", lambda g, y: g / (y * 2), "y", fuses=FLOATS, c_float="sqrtf({0})",
               c_double="sqrt({0})"),
    "rsqrt": _f("ew_rsqrt", lambda g, y: (g * -0.5) * (y * (y * y)), "y", fuses=FLOATS,
                c_float="(1.0f / sqrtf({0}))", c_double="(1.0 / sqrt({0}))"),
    "recip": _f("ew_recip", lambda g, y: -g * (y * y), "y"),
    "erf": _f("ew_erf", _erf_grad, dtypes="real float"),
    "sin": _f("ew_sin", lambda g, x: g * x.cos()),
    "cos": _f("ew_cos", lambda g, x: g * -x.sin()),
    "tan": _f("ew_tan", lambda g, y: g * (y * y + 1), "y"),
    "sinh": _f("ew_sinh", lambda g, x: g * x.cosh()),
    "cosh": _f("ew_cosh", lambda g, x: g * x.sinh()),
    "tanh": _f("ew_tanh", lambda g, y: g * (1 - y * y), "y", fuses=FLOATS,
               c_float="em_tanhf({0})", c_double="tanh({0})", helpers=("expf", "tanhf")),
    "asin": _f("ew_asin", lambda g, x: g * (1 - x * x).rsqrt()),
    "acos": _f("ew_acos", lambda g, x: -g * (1 - x * x).rsqrt()),
    "atan": _f("ew_atan", lambda g, x: g / (x * x + 1)),
    "asinh": _f("ew_asinh", lambda g, x: g * (x * x + 1).rsqrt()),
    "acosh": _f("ew_acosh", lambda g, x: g * (x * x - 1).rsqrt()),
    "atanh": _f("ew_atanh", lambda g, x: g / (1 - x * x)),
    "deg2rad": _f("ew_deg2rad", lambda g, _: g * _RAD, None, "real float"),
    "rad2deg": _f("ew_rad2deg", lambda g, _: g * _DEG, None, "real float"),
    "sigmoid": _f("ew_sigmoid", lambda g, y: g * (1 - y) * y, "y", "real float", fuses=FLOATS,
                  c_float="em_sigmoidf({0})", c_double="em_sigmoid({0})",
                  helpers=("expf", "sigmoidf", "sigmoid")),
}
