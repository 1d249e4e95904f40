"""The fusable primitives: the rows of ``ember.primitives.PRIMITIVES`` that name dtypes to fuse
in, with what fusion reads of them: the backend kernel that computes the primitive on arrays,
the dtypes, and its C expression in a compiled loop (float and double; ``{0}``, ``{1}``,
``{2}`` are the operands' expressions) with the C helpers that expression calls. The wrapper
backend ``Lazy`` defers exactly these, and the NumPy backend's compiled maps
(``ember/backends/numpy/jit/maps.py``) render exactly these; the ops read the same rows'
gradient rules.

>>> TABLE["mul"].kernel, TABLE["mul"].c_float
('ew_mul', '({0} * {1})')
"""

from typing import NamedTuple

from ...primitives import FLOATS, INTS, PRIMITIVES

__all__ = ["Fusable", "TABLE", "BY_KERNEL", "FLOATS", "INTS"]


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


TABLE = {name: Fusable(row.kernel, row.arity, row.fuses, row.c_float, row.c_double, row.helpers)
         for name, row in PRIMITIVES.items() if row.fuses}

# the kernel of each primitive but the casts, and the kernels that compute one of them too
BY_KERNEL = {row.kernel: op for op, row in TABLE.items() if row.kernel != "ew_cast"}
BY_KERNEL["idx_where"] = "where"
