"""Compiled elementwise maps: a deferred expression (a backend Chain) as one C loop.

``evaluate(chain)`` renders the Chain (``ember/backends/lazy/chain.py``) to a C kernel
that reads every operand array once and writes one new buffer, e.g. for ``(x * y + z).exp()``
on float32::

    for (i = 0; i < n; i++) {
        const float v0 = (x0[i] * x1[i]);
        const float v1 = (v0 + x2[i]);
        out[i] = ember_expf(v1);
    }

The kernel's source depends only on the expression's structure (its ops, the order of its
arrays, their dtypes, where its numbers are), not on sizes or the numbers' values (float
parameters), so one compiled kernel serves every call of that shape of expression. It gives
NumPy's values: ``+ - * /``, ``sqrt``, ``abs``, negation, casts and the pairwise extrema are
exact IEEE operations as in NumPy (no contraction into fused multiply-adds, NaN wins in
``maximum``/``minimum`` as ``np.maximum``, a tie returns the second operand, so signed zeros
match); float32 ``exp``/``log``/``tanh``/``sigmoid`` are inline polynomials (Cephes) that the
compiler vectorises, within 2 ulp of NumPy's; float64 ones call the C library.

``evaluate`` returns None (the caller computes the Chain with NumPy) while the kernel compiles,
and for what it does not compile: dtypes other than float32/float64 (bool conditions of
``where`` aside), arrays that are not C-contiguous.
"""

import hashlib

import numpy as np

from ...lazy.table import TABLE
from . import cmath, compiler

MIN_PARALLEL = 262144  # elements; below it one thread (OpenMP's if clause)

_CTYPE = {"f": "float", "d": "double"}  # NumPy dtype.char -> C type
_ARRAY_CHARS = {"f": "float", "d": "double", "?": "uint8_t"}
_FLOAT32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)
_ndarray = np.ndarray

# The C expression of each op, by C type, and the helpers it calls (defined in _HELPERS, in
# this order): the fusable primitives' table.
_EXPR = {"float": {op: row.c_float for op, row in TABLE.items() if row.c_float},
         "double": {op: row.c_double for op, row in TABLE.items() if row.c_double}}
_NEEDS = {op: row.helpers for op, row in TABLE.items()}

_HELPERS = {
    # NaN wins; a tie (equal values, or -0.0 against 0.0) gives the second operand, as NumPy's.
    "max": """
static inline float em_maxf(float a, float b) { return (a > b || a != a) ? a : b; }
static inline double em_max(double a, double b) { return (a > b || a != a) ? a : b; }""",
    "min": """
static inline float em_minf(float a, float b) { return (a < b || a != a) ? a : b; }
static inline double em_min(double a, double b) { return (a < b || a != a) ? a : b; }""",
    "expf": cmath.EXPF,
    # Cephes logf: x = m 2**e with sqrt(1/2) <= m < sqrt(2), log(m) by a degree-9 polynomial.
    "logf": """
static inline float em_logf(float x) {
    int sub = x < 1.17549435e-38f;           /* subnormal (or zero, negative): scale up */
    float xs = sub ? x * 8388608.0f : x;
    union { float f; uint32_t u; } v;
    v.f = xs;
    int e = (int)((v.u >> 23) & 0xff) - 126 - (sub ? 23 : 0);
    v.u = (v.u & 0x807fffffu) | 0x3f000000u;  /* m in [0.5, 1) */
    float m = v.f;
    int lo = m < 0.707106781186547524f;
    e -= lo;
    m = lo ? m + m - 1.0f : m - 1.0f;
    float fe = (float)e;
    float z = m * m;
    float p = 7.0376836292E-2f;
    p = p * m - 1.1514610310E-1f;
    p = p * m + 1.1676998740E-1f;
    p = p * m - 1.2420140846E-1f;
    p = p * m + 1.4249322787E-1f;
    p = p * m - 1.6668057665E-1f;
    p = p * m + 2.0000714765E-1f;
    p = p * m - 2.4999993993E-1f;
    p = p * m + 3.3333331174E-1f;
    float y = p * m * z;
    y = y + fe * -2.12194440e-4f;
    y = y - 0.5f * z;
    float r = m + y;
    r = r + fe * 0.693359375f;
    r = x == INFINITY ? x : r;
    r = x == 0.0f ? -INFINITY : r;
    return (x < 0.0f || x != x) ? NAN : r;
}""",
    "tanhf": cmath.TANHF,
    # NumPy's ew_sigmoid: e = exp(-|x|); 1 / (1 + e) at x >= 0, else e / (1 + e).
    "sigmoidf": """
static inline float em_sigmoidf(float x) {
    float e = ember_expf(-fabsf(x));
    return x >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
}""",
    "sigmoid": """
static inline double em_sigmoid(double x) {
    double e = exp(-fabs(x));
    return x >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}""",
}

_sources = {}  # (body, helpers) -> (name, source): rendered once per structure


def evaluate(chain):
    """The array of ``chain`` (float32/float64 ops over contiguous arrays) computed by its
    compiled kernel into a new buffer, or None: the kernel is still compiling, or the chain has
    something this module does not compile (the caller then computes it with NumPy)."""
    found = _kernel_of(chain, "map")
    if found is None:
        return None
    k, arrays, scalars = found
    out = np.empty(chain.shape, chain.dtype)
    if out.size:
        arrays.append(out)
        k(tuple(arrays), (out.size, compiler.num_threads()), tuple(scalars))
    return out


_UNARY = {}  # (op, dtype) -> (name, source) of its kernel: ``unary``'s one dict hit per call


def unary(op, a):
    """``op`` (a fusable primitive of one operand, as ``"sigmoid"``) of the C-contiguous
    float32/float64 array ``a`` by the kernel a Chain of that one op renders to (the same
    source, so the same values as the fused path of larger arrays), or None: another dtype or
    layout, an empty array, the kernel still compiling.

    >>> import numpy as np
    >>> out = unary("sigmoid", np.zeros(4, np.float32))   # None while it compiles
    >>> out is None or out.tolist() == [0.5] * 4
    True
    """
    found = _UNARY.get((op, a.dtype))
    if found is None:
        ctype = _CTYPE.get(a.dtype.char)
        template = _EXPR[ctype].get(op) if ctype is not None and a.dtype.isnative else None
        if template is None:
            return None
        found = _UNARY[(op, a.dtype)] = _rendered(
            "map", ctype, [a], [f"const {ctype} v0 = {template.format('x0[i]')};"], "v0",
            _NEEDS.get(op, ()))
    if not a.size or not a.flags.c_contiguous:
        return None
    k = compiler.kernel(*found)
    if k is None:
        return None
    out = np.empty(a.shape, a.dtype)
    k((a, out), (out.size, compiler.num_threads()), ())
    return out


_INTO = {}  # (op, dtype char, whether the operand is an array) -> (name, source) of its kernel


def into(op, a, b):
    """Write ``a <op> b`` ("add", "sub", "mul", "div") into the C-contiguous float32/float64
    array ``a`` itself by a compiled map, on the kernels' threads from ``MIN_PARALLEL``
    elements (NumPy's ``out=`` runs one; below that size NumPy's call costs less than this
    function's Python); whether it did. ``b`` is an array of ``a``'s shape, dtype and layout, or a Python float (or an int
    that ``a``'s dtype holds exactly): each element is one IEEE operation, NumPy's value.

    >>> import numpy as np
    >>> a = np.ones(4, np.float32)
    >>> done = into("add", a, 0.5)           # False while the kernel compiles
    >>> float(a[0]) == (1.5 if done else 1.0)
    True
    """
    char = a.dtype.char
    ctype = _CTYPE.get(char)
    if ctype is None or not a.flags.c_contiguous:
        return False
    if b.__class__ is _ndarray:
        if b.dtype.char != char or b.shape != a.shape or not b.flags.c_contiguous:
            return False
        arrays, scalars = (b,), ()
    elif b.__class__ is float or (b.__class__ is int and -(1 << 24) <= b <= 1 << 24):
        arrays, scalars = (), (float(b),)
    else:
        return False
    key = (op, char, not scalars)
    found = _INTO.get(key)
    if found is None:
        # the output is a: the kernel reads a's element through ``out`` (no aliased pointers)
        operand = "x0[i]" if arrays else "((float)f[0])" if ctype == "float" else "f[0]"
        line = f"const {ctype} v0 = {_EXPR[ctype][op].format('out[i]', operand)};"
        found = _INTO[key] = _rendered("map", ctype, arrays, [line], "v0", ())
    k = compiler.kernel(*found)
    if k is None:
        return False
    if a.size:
        k(arrays + (a,), (a.size, compiler.num_threads()), scalars)
    return True


def sum_rows(chain, rows):
    """The sums of ``chain``'s values in ``rows`` rows of equal length (its last dim, or 1 row
    of every element), as a float32/float64 array of ``rows`` elements, computed in one pass
    without the values' buffer; None as for ``evaluate``.

    Each row sums in float64, in blocks of 256 elements combined pairwise (a binary counter
    of partial sums); a whole-array sum adds the sums of fixed chunks pairwise too, so the
    result does not depend on the thread count, and its error grows as log(n), as NumPy's
    pairwise sum's, from float64 rounding (float32 values: far below NumPy's)."""
    found = _kernel_of(chain, "sum")
    if found is None:
        return None
    k, arrays, scalars = found
    n = int(np.prod(chain.shape))
    out = np.empty(rows, chain.dtype)
    if rows == 1 and n > _CHUNK:  # one row: its chunks are the parallel rows
        parts = np.empty(-(-n // _CHUNK), np.float64)
        k(tuple(arrays) + (parts,), (parts.size, _CHUNK, n, compiler.num_threads()),
          tuple(scalars))
        out[0] = _pairwise(parts)
    elif rows:
        parts = np.empty(rows, np.float64)
        m = n // rows
        k(tuple(arrays) + (parts,), (rows, m, n, compiler.num_threads()), tuple(scalars))
        out[:] = parts
    return out


_CHUNK = 1 << 16  # elements of a whole-array sum per parallel part


def _pairwise(parts):
    """The pairwise sum of the float64 ``parts`` (a few per million elements)."""
    while parts.size > 1:
        if parts.size % 2:
            parts = np.append(parts, 0.0)
        parts = parts[0::2] + parts[1::2]
    return parts[0]


def _kernel_of(chain, kind):
    """(kernel, arrays, numbers) of ``chain``'s ``kind`` ("map" or "sum") kernel, or None."""
    operands = chain.operands
    if operands is None:
        return None
    walk = _Walk()
    try:
        result = walk.node(chain, operands)
    except LookupError:
        return None
    k = _compiled(kind, _CTYPE[chain.dtype.char], walk.arrays, walk.lines, result, walk.helpers)
    return None if k is None else (k, walk.arrays, walk.scalars)


def _compiled(kind, ctype, arrays, lines, result, needs):
    """The ``kind`` kernel of the loop statements ``lines`` over ``arrays`` (``x0``, ``x1``...)
    giving ``result``, calling the helpers ``needs``; None while it compiles."""
    return compiler.kernel(*_rendered(kind, ctype, arrays, lines, result, needs))


def _rendered(kind, ctype, arrays, lines, result, needs):
    """``(name, source)`` of that kernel (rendered once per structure)."""
    decls = "".join(f"    const {_ARRAY_CHARS[a.dtype.char]} *restrict x{i} = "
                    f"(const {_ARRAY_CHARS[a.dtype.char]} *)p[{i}];\n"
                    for i, a in enumerate(arrays))
    loop = "".join(f"        {line}\n" for line in lines)
    helpers = tuple(h for h in _HELPERS if h in needs)
    key = (kind, ctype, len(arrays), decls, loop, result, helpers)
    found = _sources.get(key)
    if found is None:
        found = _sources[key] = _source(*key)
    return found


class _Walk:
    """The state of one rendering: the arrays and numbers met so far (parameter order), the
    loop's statements, the helpers they call, the variable of each node (a node two others
    share is computed once). Methods, not closures: nothing keeps the arrays past the call."""

    def __init__(self):
        self.arrays = []
        self.scalars = []
        self.lines = []
        self.helpers = set()
        self.names = {}

    def operand(self, x, char):
        """The C expression of operand ``x`` in a node whose operands have dtype ``char``."""
        cls = x.__class__
        if cls is float or cls is int:
            self.scalars.append(float(x))
            k = len(self.scalars) - 1
            return f"((float)f[{k}])" if char == "f" else f"f[{k}]"
        if cls is not _ndarray:
            operands = x.operands  # read once: another thread may compute x meanwhile
            if operands is not None:
                return self.node(x, operands)
            x = x.value
        if x.dtype.char != char or not x.flags.c_contiguous:
            raise LookupError
        arrays = self.arrays
        for i, a in enumerate(arrays):
            if a is x:
                return f"x{i}[i]"
        arrays.append(x)
        return f"x{len(arrays) - 1}[i]"

    def node(self, x, operands):
        """The variable of Chain ``x`` (of ``operands``), its statement added to the loop."""
        key = id(x)
        if key in self.names:
            return self.names[key]
        ctype = _CTYPE.get(x.dtype.char)
        template = _EXPR[ctype].get(x.op) if ctype is not None else None
        if template is None:
            raise LookupError
        if x.op.startswith("cast_"):
            src = getattr(operands[0], "dtype", None)
            if src is None or src.char not in _CTYPE:
                raise LookupError
            args = [self.operand(operands[0], src.char)]
        elif x.op == "where":  # a bool array chooses
            args = [self.operand(operands[0], "?")]
            args += [self.operand(o, x.dtype.char) for o in operands[1:]]
        else:
            args = [self.operand(o, x.dtype.char) for o in operands]
        self.helpers.update(_NEEDS.get(x.op, ()))
        var = f"v{len(self.lines)}"
        self.lines.append(f"const {ctype} {var} = {template.format(*args)};")
        self.names[key] = var
        return var


def _source(kind, ctype, narrays, decls, loop, result, helpers):
    """(name, C source) of a kernel: a map writes ``result`` at every index; a sum adds it up
    per row (the loop's statements compute it from ``decls``' arrays at index ``i``)."""
    name = f"ember_{kind}_" + hashlib.sha256(
        "\0".join((ctype, decls, loop, result, *helpers)).encode()).hexdigest()[:16]
    head = compiler.PRELUDE + compiler.NO_CONTRACT + "".join(_HELPERS[h] for h in helpers)
    if kind == "map":
        return name, head + f"""

EMBER_EXPORT void {name}(char **p, const int64_t *n, const double *f) {{
    const int64_t total = n[0];
    const int nt = (int)n[1];
{decls}    {ctype} *restrict out = ({ctype} *)p[{narrays}];
{compiler.simd_loop("total", "nt", MIN_PARALLEL, f"{loop}        out[i] = {result};")}}}
"""
    return name, head + f"""

/* The sum of the values at [start, end): float64 blocks of 256, added pairwise. */
static double row_sum(char **p, const double *f, int64_t start, int64_t end) {{
{decls}    double levels[64];
    int64_t count = 0;
    for (int64_t b = start; b < end; b += 256) {{
        const int64_t e = b + 256 < end ? b + 256 : end;
        double s = 0.0;
        #pragma omp simd reduction(+:s)
        for (int64_t i = b; i < e; i++) {{
{loop}            s += (double){result};
        }}
        int k = 0;
        for (int64_t c = count; c & 1; c >>= 1, k++) s = levels[k] + s;
        levels[k] = s;
        count++;
    }}
    double total = 0.0;
    int k = 0;
    for (int64_t c = count; c; c >>= 1, k++)
        if (c & 1) total = levels[k] + total;
    return total;
}}

/* n: rows, row length, elements, threads; out (float64): one sum per row. */
EMBER_EXPORT void {name}(char **p, const int64_t *n, const double *f) {{
    const int64_t rows = n[0], m = n[1], total = n[2];
    const int nt = (int)n[3];
    double *out = (double *)p[{narrays}];
    int done = 0;
    #pragma omp parallel num_threads(nt) if(total >= {MIN_PARALLEL})
    {{
    #pragma omp for schedule(guided, 1) nowait
    for (int64_t r = 0; r < rows; r++) {{
        const int64_t end = (r + 1) * m < total ? (r + 1) * m : total;
        out[r] = row_sum(p, f, r * m, end);
    }}
    ember_join(&done);
    }}
}}
"""
