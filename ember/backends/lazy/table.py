"""The fusable primitives, one row each: the backend kernel that computes the primitive on
arrays, the dtypes it fuses in, and its C expression in a compiled loop (float and double;
``{0}``, ``{1}``, ``{2}`` are the operands' expressions) with the C helpers that expression
calls. The wrapper backend ``Lazy`` defers exactly these, and the NumPy backend's compiled maps
(``ember/backends/numpy/jit/maps.py``) render exactly these: adding a row adds both.

>>> TABLE["mul"].kernel, TABLE["mul"].c_float
('ew_mul', '({0} * {1})')
"""

from typing import NamedTuple

__all__ = ["Fusable", "TABLE", "BY_KERNEL", "FLOATS", "INTS"]

FLOATS = ("float32", "float64")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


class Fusable(NamedTuple):
    """One fusable primitive: ``kernel`` (the backend kernel's name), ``arity`` (operands),
    ``dtypes`` (ember dtype names it fuses in), ``c_float`` / ``c_double`` (its C expression,
    None where it has none in that type), ``helpers`` (the C helpers it calls, by name)."""
    kernel: str
    arity: int
    dtypes: tuple
    c_float: str
    c_double: str
    helpers: tuple = ()


TABLE = {
    "add": Fusable("ew_add", 2, FLOATS + INTS, "({0} + {1})", "({0} + {1})"),
    "sub": Fusable("ew_sub", 2, FLOATS + INTS, "({0} - {1})", "({0} - {1})"),
    "mul": Fusable("ew_mul", 2, FLOATS + INTS, "({0} * {1})", "({0} * {1})"),
    "div": Fusable("ew_truediv", 2, FLOATS, "({0} / {1})", "({0} / {1})"),
    "max": Fusable("ew_maximum", 2, FLOATS, "em_maxf({0}, {1})", "em_max({0}, {1})", ("max",)),
    "min": Fusable("ew_minimum", 2, FLOATS, "em_minf({0}, {1})", "em_min({0}, {1})", ("min",)),
    "neg": Fusable("ew_neg", 1, FLOATS, "(-{0})", "(-{0})"),
    "abs": Fusable("ew_abs", 1, FLOATS, "fabsf({0})", "fabs({0})"),
    "sqrt": Fusable("ew_sqrt", 1, FLOATS, "sqrtf({0})", "sqrt({0})"),
    "rsqrt": Fusable("ew_rsqrt", 1, FLOATS, "(1.0f / sqrtf({0}))", "(1.0 / sqrt({0}))"),
    "exp": Fusable("ew_exp", 1, FLOATS, "ember_expf({0})", "exp({0})", ("expf",)),
    "log": Fusable("ew_log", 1, FLOATS, "em_logf({0})", "log({0})", ("logf",)),
    "tanh": Fusable("ew_tanh", 1, FLOATS, "em_tanhf({0})", "tanh({0})", ("expf", "tanhf")),
    "sigmoid": Fusable("ew_sigmoid", 1, FLOATS, "em_sigmoidf({0})", "em_sigmoid({0})",
                       ("expf", "sigmoidf", "sigmoid")),
    "relu": Fusable("ew_relu", 1, FLOATS, "em_maxf({0}, 0.0f)", "em_max({0}, 0.0)", ("max",)),
    # a bool array chooses between two operands of the result's dtype
    "where": Fusable("ew_where", 3, FLOATS, "({0} ? {1} : {2})", "({0} ? {1} : {2})"),
    # casts between the float dtypes: the operand has the other one
    "cast_float32": Fusable("ew_cast", 1, FLOATS, "((float){0})", None),
    "cast_float64": Fusable("ew_cast", 1, FLOATS, None, "((double){0})"),
}

# the kernel of each primitive but the casts, and the kernels that compute one of them too
BY_KERNEL = {row.kernel: op for op, row in TABLE.items() if row.kernel != "ew_cast"}
BY_KERNEL["idx_where"] = "where"
