"""Linear algebra: matmul and ``@``, dot, outer, cross and einsum, with their gradient rules.

Ints stay ints (``int @ int`` is an int tensor), mixed kinds promote (int with float gives the
float, a complex operand gives a complex result), bools raise ``KindError``. Complex products
follow PyTorch: ``dot``, ``matmul``, ``outer`` and ``einsum`` do not conjugate; ``vecdot``
(``ember.linalg.vecdot``) conjugates its first argument. Complex results carry no gradient.
float16 and bfloat16 products accumulate in float32 and are rounded back, as PyTorch does on the
CPU.

>>> import ember
>>> a = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> (a @ a).tolist()
[[7.0, 10.0], [15.0, 22.0]]
"""

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import broadcast_shapes, normalize_dim
from ..autodiff.graph import _mode
from ..autodiff.rules import fit, sum_to
from .._tensor import Tensor, backend_of, backend_of_all, record, saved, tensor_method, wrap
from .views import reshape_exact as _reshape

__all__ = ["matmul", "dot", "outer", "cross", "einsum"]

_LOW = ("float16", "bfloat16")


def _numeric(t, op, param):
    """``t`` checked to be a Tensor of a numeric kind (float or int)."""
    if not isinstance(t, Tensor):
        raise InvalidParameterError(f"{op}: {param} must be a Tensor, got {type(t).__name__}",
                                    param, t)
    if t._dtype.kind == "bool":
        raise KindError(f"{op}: not defined for bool tensors ({param} is bool); expected a float "
                        "or int tensor")
    return t


def _compute(dtype):
    """The dtype a product of ``dtype`` is computed in (float32 for the half floats)."""
    return _dt.float32 if dtype.name in _LOW else dtype


def _finish(data, dtype, inputs, rule, name):
    kind = dtype.kind
    if kind != "float" and kind != "complex":  # record refuses a complex result of a tracked input
        return wrap(data, dtype)
    return record(data, dtype, inputs, rule, name)


def _widen(g, cdt):
    """The gradient ``g`` in the dtype products are computed in (float32 for the half floats)."""
    return g if g._dtype is cdt else g.cast(cdt)


def _as(g, dtype):
    return g if g._dtype is dtype else g.cast(dtype)



def _matmul_grads(g, a, b, need_a, need_b):
    """The gradients (ga or None, gb or None) of ``matmul(a, b)`` for the output gradient ``g``,
    Tensors, each of its operand's shape (not yet cast). A 2-D operand against a batch of the
    other is one product over the whole batch (no per-batch partial products to add up)."""
    be = g._device.backend
    a1, b1 = a.ndim == 1, b.ndim == 1
    A = a.unsqueeze(0) if a1 else a
    B = b.unsqueeze(-1) if b1 else b
    if a1 and b1:
        G = _reshape(g, (1, 1))
    elif a1:
        G = g.unsqueeze(-2)
    elif b1:
        G = g.unsqueeze(-1)
    else:
        G = g
    ga = gb = None
    batch = tuple(G.shape[:-2])
    if need_a:
        if A.ndim == 2 and B.ndim > 2 and tuple(B.shape[:-2]) == batch:
            # sum over the batch of G_b @ B_b^T as one product
            k = B.shape[-2]
            rest = _prod(batch) * G.shape[-1]
            Gm = _reshape(G.movedim(-2, 0), (G.shape[-2], rest))
            Bm = _reshape(B.movedim(-2, 0), (k, rest))
            ga = _product(Gm, Bm.mT, be)
        else:
            ga = sum_to(_product(G, B.mT, be), tuple(A.shape))
        if a1:
            ga = _reshape(ga, a.shape)
    if need_b:
        if B.ndim == 2 and A.ndim > 2 and tuple(A.shape[:-2]) == batch:
            rows = _prod(batch) * A.shape[-2]
            gb = _product(_reshape(A, (rows, A.shape[-1])).mT, _reshape(G, (rows, G.shape[-1])), be)
        else:
            gb = sum_to(_product(A.mT, G, be), tuple(B.shape))
        if b1:
            gb = _reshape(gb, b.shape)
    return ga, gb


def _prod(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


# -- matmul -----------------------------------------------------------------------------------

def _matmul_shape(sa, sb):
    """The output shape of ``matmul`` for operand shapes ``sa`` and ``sb`` (NumPy's rules)."""
    if not sa or not sb:
        which, shape = ("self", sa) if not sa else ("other", sb)
        raise ShapeMismatchError(
            f"matmul: {which} is 0-d (shape {tuple(shape)}); expected tensors with at least 1 dim",
            expected="at least 1 dim", actual=tuple(shape))
    ka = sa[-1]
    kb = sb[0] if len(sb) == 1 else sb[-2]
    if ka != kb:
        raise ShapeMismatchError(
            f"matmul: shapes {tuple(sa)} and {tuple(sb)} cannot be multiplied: self has {ka} "
            f"columns (its last dim), other has {kb} rows (dim {0 if len(sb) == 1 else -2}); "
            "expected equal sizes", expected=ka, actual=kb)
    batch_a, batch_b = sa[:-2], sb[:-2]
    nd = max(len(batch_a), len(batch_b))
    batch = []
    for i in range(-nd, 0):
        x = batch_a[i] if -i <= len(batch_a) else 1
        y = batch_b[i] if -i <= len(batch_b) else 1
        if x != y and x != 1 and y != 1:
            raise ShapeMismatchError(
                f"matmul: batch dims of shapes {tuple(sa)} and {tuple(sb)} do not broadcast "
                f"(size {x} against {y})", expected=tuple(batch_a), actual=tuple(batch_b))
        batch.append(y if x == 1 else x)
    out = batch
    if len(sa) > 1:
        out.append(sa[-2])
    if len(sb) > 1:
        out.append(sb[-1])
    return tuple(out)


@tensor_method
def matmul(self, other):
    """The matrix product ``self @ other``: batched, broadcasting the batch dims, as NumPy/PyTorch.

    A 1-D ``self`` is a row vector and a 1-D ``other`` a column vector; their added dim is
    removed from the result. Int operands give an int result; mixed kinds promote.

    >>> import ember
    >>> a = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> ember.matmul(a, ember.tensor([1.0, 1.0])).tolist()
    [3.0, 7.0]
    >>> (ember.tensor([[1, 2]]) @ ember.tensor([[3], [4]])).tolist()
    [[11]]
    """
    _numeric(self, "matmul", "self")
    _numeric(other, "matmul", "other")
    be = backend_of(self, other, "matmul")
    _matmul_shape(self._data.shape, other._data.shape)
    return _product(self, other, be)


def _product(x, y, be):
    """``matmul`` of the checked Tensors ``x`` and ``y`` (valid shapes, numeric, on the backend
    ``be``): the kernel and the recorded step, without the argument checks (gradient rules call
    it directly, their shapes are right by construction)."""
    dx, dy = x._dtype, y._dtype
    dtype = dx if dx is dy else _dt.promote_types(dx, dy)
    kind = dtype.kind
    cdt = _dt.float32 if dtype.name in _LOW else dtype
    a, b = x._data, y._data
    if dx is not cdt:
        a = be.cast(a, cdt)
    if dy is not cdt:
        b = be.cast(b, cdt)
    out = be.linalg_matmul(a, b, op="matmul")
    if cdt is not dtype:
        out = be.cast(out, dtype)
    if kind != "float" and kind != "complex":  # record refuses a complex result of a tracked input
        return wrap(out, dtype)
    if (x._node is None and y._node is None) or not _mode.enabled:  # no rule to build
        return record(out, dtype, (x, y), None, "matmul")
    return record(out, dtype, (x, y), _matmul_rule(saved(x), saved(y), cdt), "matmul")


def _matmul_rule(xa, xb, cdt):
    def rule(g, needs, out):
        ga, gb = _matmul_grads(_widen(g, cdt), xa, xb, needs[0], needs[1])
        return (None if ga is None else _as(ga, xa._dtype),
                None if gb is None else _as(gb, xb._dtype))
    return rule


@tensor_method(name="__matmul__")
def _matmul_op(self, other):
    if not isinstance(other, Tensor):
        other = Tensor(other, device=self._device)  # Python data goes to self's device
    return matmul(self, other)


@tensor_method(name="__rmatmul__")
def _rmatmul_op(self, other):
    if not isinstance(other, Tensor):
        other = Tensor(other, device=self._device)
    return matmul(other, self)


# -- dot, outer ------------------------------------------------------------------------------

def _vector_pair(a, b, op):
    _numeric(a, op, "self")
    _numeric(b, op, "other")
    for name, t in (("self", a), ("other", b)):
        if t._data.ndim != 1:
            raise ShapeMismatchError(
                f"{op}: {name} has shape {tuple(t.shape)}; expected a 1-D tensor",
                expected="1 dim", actual=tuple(t.shape))
    return _dt.promote_types(a._dtype, b._dtype)


@tensor_method
def dot(self, other):
    """The dot product of two 1-D tensors of the same length, a 0-d tensor (Burn's ``dot``).

    >>> import ember
    >>> ember.tensor([1.0, 2.0]).dot(ember.tensor([-2.0, 3.0])).tolist()
    4.0
    """
    dtype = _vector_pair(self, other, "dot")
    be = backend_of(self, other, "dot")
    n, m = self._data.shape[0], other._data.shape[0]
    if n != m:
        raise ShapeMismatchError(
            f"dot: self has {n} elements and other has {m}; expected the same number",
            expected=n, actual=m)
    cdt = _compute(dtype)
    a = be.cast(self._data, cdt)
    b = be.cast(other._data, cdt)
    out = be.cast(be.linalg_dot(a, b), dtype)
    xa, xb = saved(self), saved(other)

    def rule(g, needs, out):
        g = _widen(g, cdt)
        return (_as(g * xb, xa._dtype) if needs[0] else None,
                _as(g * xa, xb._dtype) if needs[1] else None)

    return _finish(out, dtype, (self, other), rule, "dot")


@tensor_method
def outer(self, other):
    """The outer product of two 1-D tensors: ``out[i, j] = self[i] * other[j]``.

    >>> import ember
    >>> ember.tensor([1, 2]).outer(ember.tensor([1, 10, 100])).tolist()
    [[1, 10, 100], [2, 20, 200]]
    """
    dtype = _vector_pair(self, other, "outer")
    be = backend_of(self, other, "outer")
    cdt = _compute(dtype)
    a = be.cast(self._data, cdt)
    b = be.cast(other._data, cdt)
    out = be.cast(be.linalg_outer(a, b, op="outer"), dtype)
    xa, xb = saved(self), saved(other)

    def rule(g, needs, out):
        g = _widen(g, cdt)
        return (_as(g @ xb, xa._dtype) if needs[0] else None,
                _as(xa @ g, xb._dtype) if needs[1] else None)

    return _finish(out, dtype, (self, other), rule, "outer")


def vecdot(x, y, *, dim=-1):
    """The dot product of vectors along ``dim`` with the first argument conjugated,
    ``sum(conj(x) * y, dim)``, as ``torch.linalg.vecdot``; the other dims broadcast. Float and
    complex tensors (PyTorch refuses ints); both must have the same size along ``dim``.

    >>> import ember
    >>> x = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> ember.linalg.vecdot(x, ember.tensor([1.0, 1.0])).tolist()
    [3.0, 7.0]
    """
    op = "vecdot"
    for name, t in (("x", x), ("y", y)):
        if not isinstance(t, Tensor):
            raise InvalidParameterError(f"{op}: {name} must be a Tensor, got {type(t).__name__}",
                                        name, t)
        k = t._dtype.kind
        if k != "float" and k != "complex":
            raise KindError(f"{op}: {name} has dtype {t._dtype.name}; expected a float or "
                            "complex tensor (as torch.linalg.vecdot)")
    be = backend_of(x, y, op)
    sx, sy = tuple(x._data.shape), tuple(y._data.shape)
    shape = broadcast_shapes(sx, sy, op=op)
    if not shape:
        raise ShapeMismatchError(f"{op}: x and y are 0-d; expected tensors with at least 1 dim",
                                 expected="at least 1 dim", actual=shape)
    d = normalize_dim(dim, len(shape), op)
    nx = sx[d - len(shape) + len(sx)] if d - len(shape) + len(sx) >= 0 else 1
    ny = sy[d - len(shape) + len(sy)] if d - len(shape) + len(sy) >= 0 else 1
    if nx != ny:
        raise ShapeMismatchError(f"{op}: x has size {nx} and y has size {ny} along dim {dim} "
                                 f"(shapes {sx} and {sy}); expected the same size",
                                 expected=nx, actual=ny)
    dtype = _dt.promote_types(x._dtype, y._dtype)
    cdt = _compute(dtype)
    a = be.cast(x._data, cdt)
    b = be.cast(y._data, cdt)
    out = be.cast(be.linalg_vecdot(a, b, d), dtype)
    kept = shape[:d] + (1,) + shape[d + 1:]
    xs, ys = saved(x), saved(y)

    def rule(g, needs, out):  # real operands only: d/dx = g * y, d/dy = g * x
        g = _reshape(_widen(g, cdt), kept)
        return (fit(g * ys, xs) if needs[0] else None, fit(g * xs, ys) if needs[1] else None)

    return record(out, dtype, (x, y), rule, op)


# -- cross -----------------------------------------------------------------------------------

@tensor_method
def cross(self, other, dim=-1):
    """The cross product of 3-vectors along ``dim`` (default the last), as ``torch.linalg.cross``.

    Both tensors have the same number of dims and size 3 along ``dim``; the other dims broadcast.

    >>> import ember
    >>> ember.tensor([1.0, 0.0, 0.0]).cross(ember.tensor([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """
    _numeric(self, "cross", "self")
    _numeric(other, "cross", "other")
    be = backend_of(self, other, "cross")
    sa, sb = self._data.shape, other._data.shape
    if len(sa) != len(sb):
        raise ShapeMismatchError(
            f"cross: self has shape {tuple(sa)} and other {tuple(sb)}; expected the same number "
            "of dims", expected=len(sa), actual=len(sb))
    d = normalize_dim(dim, len(sa), "cross")
    for name, s in (("self", sa), ("other", sb)):
        if s[d] != 3:
            raise ShapeMismatchError(
                f"cross: {name} has size {s[d]} along dim {dim} (shape {tuple(s)}); expected 3",
                expected=3, actual=s[d])
    for i, (x, y) in enumerate(zip(sa, sb)):
        if x != y and x != 1 and y != 1:
            raise ShapeMismatchError(
                f"cross: shapes {tuple(sa)} and {tuple(sb)} do not broadcast (size {x} against "
                f"{y} at dim {i})", expected=tuple(sa), actual=tuple(sb))
    dtype = _dt.promote_types(self._dtype, other._dtype)
    cdt = _compute(dtype)
    a = be.cast(self._data, cdt)
    b = be.cast(other._data, cdt)
    out = be.cast(be.linalg_cross(a, b, d), dtype)
    xa, xb = saved(self), saved(other)

    def rule(g, needs, out):
        g = _widen(g, cdt)
        # d<g, a x b>/da = b x g, d<g, a x b>/db = g x a
        return (fit(cross(xb, g, d), xa) if needs[0] else None,
                fit(cross(g, xa, d), xb) if needs[1] else None)

    return _finish(out, dtype, (self, other), rule, "cross")


# -- einsum ----------------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_PARSED = {}


def _parse_term(term, where, equation):
    """Labels of one term: a tuple of letters with at most one ``None`` standing for ``...``."""
    labels = []
    i = 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if term[i:i + 3] != "...":
                raise InvalidParameterError(
                    f"einsum: equation {equation!r} has a '.' in {where} that is not part of an "
                    "ellipsis '...'", "equation", equation)
            if None in labels:
                raise InvalidParameterError(
                    f"einsum: equation {equation!r} has more than one ellipsis '...' in {where}",
                    "equation", equation)
            labels.append(None)
            i += 3
            continue
        if c not in _LETTERS:
            raise InvalidParameterError(
                f"einsum: equation {equation!r} has the invalid character {c!r} in {where}; "
                "expected letters a-z, A-Z, ',', '->' and '...'", "equation", equation)
        labels.append(c)
        i += 1
    return tuple(labels)


def _parse(equation):
    """(input terms, output term or None) of an equation; cached per equation string."""
    found = _PARSED.get(equation)
    if found is not None:
        return found
    eq = "".join(equation.split())
    if eq.count("->") > 1:
        raise InvalidParameterError(f"einsum: equation {equation!r} has more than one '->'",
                                    "equation", equation)
    lhs, arrow, rhs = eq.partition("->")
    terms = tuple(_parse_term(t, f"operand term {k}", equation)
                  for k, t in enumerate(lhs.split(",")))
    out = None
    if arrow:
        out = _parse_term(rhs, "the output", equation)
        letters = [c for c in out if c is not None]
        if len(set(letters)) != len(letters):
            dup = next(c for c in letters if letters.count(c) > 1)
            raise InvalidParameterError(
                f"einsum: equation {equation!r} repeats the label {dup!r} in the output; expected "
                "each output label once", "equation", equation)
        used = {c for t in terms for c in t}
        for c in letters:
            if c not in used:
                raise InvalidParameterError(
                    f"einsum: output label {c!r} of equation {equation!r} appears in no operand "
                    "term", "equation", equation)
    if len(_PARSED) > 1024:
        _PARSED.clear()
    _PARSED[equation] = (terms, out)
    return terms, out


_PLANS = {}


def _plan(equation, shapes):
    """Canonical subscripts without ellipsis or broadcasting, and the operands' squeezed shapes.

    Returns (subs, squeezed shapes, output subscript, output shape); cached per equation and
    shapes.
    """
    key = (equation, tuple(shapes))
    found = _PLANS.get(key)
    if found is None:
        found = _make_plan(equation, shapes)
        if len(_PLANS) > 2048:
            _PLANS.clear()
        _PLANS[key] = found
    return found


def _make_plan(equation, shapes):
    terms, out = _parse(equation)
    if len(terms) != len(shapes):
        raise InvalidParameterError(
            f"einsum: equation {equation!r} has {len(terms)} operand term(s), got "
            f"{len(shapes)} operand(s)", "operands", len(shapes))
    # ellipsis ranks and their broadcast shape
    ell_shapes = []
    for k, (t, s) in enumerate(zip(terms, shapes)):
        named = len(t) - (None in t)
        if (None in t and len(s) < named) or (None not in t and len(s) != named):
            want = f"at least {named}" if None in t else f"{named}"
            sub = "".join("..." if c is None else c for c in t)
            raise ShapeMismatchError(
                f"einsum: operand {k} has {len(s)} dims (shape {tuple(s)}) but its subscript "
                f"{sub!r} names {want}", expected=named, actual=len(s))
        if None in t:
            p = t.index(None)
            ell_shapes.append(s[p:p + len(s) - named])
    n_ell = max((len(e) for e in ell_shapes), default=0)
    ell = [1] * n_ell
    for e in ell_shapes:
        for i, n in enumerate(e):
            j = n_ell - len(e) + i
            if n != ell[j] and n != 1:
                if ell[j] != 1:
                    raise ShapeMismatchError(
                        f"einsum: the dims covered by '...' do not broadcast: shapes "
                        f"{' and '.join(str(tuple(x)) for x in ell_shapes)}",
                        expected=tuple(ell), actual=tuple(e))
                ell[j] = n
    used = {c for t in terms for c in t if c is not None}
    spare = [c for c in _LETTERS if c not in used]
    if n_ell > len(spare):
        raise InvalidParameterError(
            f"einsum: equation {equation!r} needs {len(used) + n_ell} distinct dims; at most "
            f"{len(_LETTERS)} are supported", "equation", equation)
    ell_labels = spare[:n_ell]
    # expand each term's ellipsis into labels
    full = []
    for t, s in zip(terms, shapes):
        if None in t:
            p = t.index(None)
            r = len(s) - (len(t) - 1)
            t = t[:p] + tuple(ell_labels[n_ell - r:]) + t[p + 1:]
        full.append(t)
    # label sizes: equal within an operand, equal or 1 across operands
    size = {}
    for k, (t, s) in enumerate(zip(full, shapes)):
        own = {}
        for c, n in zip(t, s):
            if c in own and own[c] != n:
                raise ShapeMismatchError(
                    f"einsum: label {c!r} is repeated in operand {k} with sizes {own[c]} and {n}; "
                    "expected equal sizes", expected=own[c], actual=n)
            own[c] = n
        for c, n in own.items():
            prev = size.get(c)
            if prev is None or prev == 1:
                size[c] = n
            elif n != prev and n != 1:
                raise ShapeMismatchError(
                    f"einsum: label {c!r} has size {n} in operand {k} but size {prev} in an "
                    "earlier operand; expected equal sizes (or 1, which broadcasts)",
                    expected=prev, actual=n)
    # output labels
    if out is None:
        counts = {}
        for t in terms:
            for c in t:
                if c is not None:
                    counts[c] = counts.get(c, 0) + 1
        out_labels = tuple(ell_labels) + tuple(sorted(c for c, n in counts.items() if n == 1))
    else:
        out_labels = []
        for c in out:
            out_labels.extend(ell_labels if c is None else (c,))
        out_labels = tuple(out_labels)
    # squeeze the size-1 dims that broadcast against a larger size
    subs, squeezed = [], []
    for t, s in zip(full, shapes):
        keep = [i for i, c in enumerate(t) if not (s[i] == 1 and size[c] != 1)]
        subs.append("".join(t[i] for i in keep))
        squeezed.append(tuple(s[i] for i in keep))
    out_sub = "".join(out_labels)
    return tuple(subs), tuple(squeezed), out_sub, tuple(size[c] for c in out_labels)


def einsum(equation, *operands):
    """Einstein summation: ``ember.einsum("ij,jk->ik", a, b)`` or ``ember.einsum(eq, [a, b])``.

    Explicit (``"ij,jk->ik"``) and implicit (``"ij,jk"``: the labels seen once, sorted) outputs,
    any number of operands, repeated labels for diagonals and traces (``"ii->i"``, ``"ii"``),
    and ``...`` for broadcast dims. Labels missing from an explicit output are summed, also the
    dims of ``...``. A label of size 1 broadcasts against the same label in another operand.
    The contraction order is chosen by NumPy's path optimizer (cached per equation and shapes).

    >>> import ember
    >>> m = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> ember.einsum("ij,j->i", m, ember.tensor([10.0, 20.0])).tolist()
    [50.0, 110.0]
    >>> ember.einsum("ii", m).tolist()
    5.0
    >>> ember.einsum("ij->ji", [m]).tolist()
    [[1.0, 3.0], [2.0, 4.0]]
    """
    if not isinstance(equation, str):
        raise InvalidParameterError(
            f"einsum: equation must be a str, got {type(equation).__name__} {equation!r}",
            "equation", equation)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise InvalidParameterError("einsum: no operands given; expected at least one tensor",
                                    "operands", ())
    for k, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise InvalidParameterError(
                f"einsum: operand {k} must be a Tensor, got {type(t).__name__}", "operands", t)
        if t._dtype.kind == "bool":
            raise KindError(f"einsum: not defined for bool tensors (operand {k} is bool); "
                            "expected float or int tensors")
        if t.is_quantized:  # Burn's einsum panics on quantized operands
            raise KindError(f"einsum: the tensor is quantized (operand {k}); einsum takes no "
                            "quantized operands (call dequantize() first)")
    be = backend_of_all(operands, "einsum")
    subs, squeezed, out_sub, _ = _plan(equation, [tuple(t._data.shape) for t in operands])
    dtype = operands[0]._dtype
    for t in operands[1:]:
        dtype = _dt.promote_types(dtype, t._dtype)
    cdt = _compute(dtype)
    arrays = []
    for t, s in zip(operands, squeezed):
        x = be.cast(t._data, cdt)
        if x.shape != s:
            x = be.linalg_reshape(x, s)
        arrays.append(x)
    eq = ",".join(subs) + "->" + out_sub
    out = be.cast(be.einsum_contract(eq, arrays, op="einsum"), dtype)
    if dtype.kind != "float" and dtype.kind != "complex":
        return wrap(out, dtype)
    xs = tuple(saved(t) for t in operands)

    def rule(g, needs, out):
        g = _widen(g, cdt)
        views = [_reshape(x, sq) for x, sq in zip(xs, squeezed)]
        result = []
        for i, x in enumerate(xs):
            if not needs[i]:
                result.append(None)
                continue
            gi = _einsum_grad(g, views, subs, out_sub, i)
            gi = _reshape(gi, x.shape)
            result.append(_as(gi, x._dtype))
        return tuple(result)

    return record(out, dtype, tuple(operands), rule, "einsum")


def _einsum_grad(g, views, subs, out, i):
    """The gradient of operand ``i`` (of squeezed shape, labels ``subs[i]``) of the einsum
    ``",".join(subs) + "->" + out`` of the Tensors ``views``, for the output gradient ``g``: the
    einsum of ``g`` with the other operands onto the operand's distinct labels; labels summed
    inside that operand only are broadcast back, and a repeated label (a diagonal) puts the
    result on the diagonal (times identity matrices)."""
    s = subs[i]
    sizes = {}
    for sub, x in zip(subs, views):
        for lab, n in zip(sub, x.shape):
            sizes[lab] = n
    uniq = "".join(dict.fromkeys(s))
    others = [subs[j] for j in range(len(subs)) if j != i]
    avail = set(out).union(*others) if others else set(out)
    present = "".join(lab for lab in uniq if lab in avail)
    gi = einsum(",".join([out] + others) + "->" + present,
                [g] + [views[j] for j in range(len(views)) if j != i])
    if len(present) != len(uniq):
        gi = _reshape(gi, [sizes[lab] if lab in avail else 1 for lab in uniq])
        gi = gi.expand(*[sizes[lab] for lab in uniq])
    if len(uniq) != len(s):
        # each later occurrence of a label gets a fresh label tied to the first by an identity
        used = set(_LETTERS) - set(subs[0]).union(*subs[1:]) - set(out)
        spare = [c for c in _LETTERS if c in used]
        labels, terms, eyes, seen = [], [uniq], [], set()
        for lab in s:
            if lab in seen:
                fresh = spare.pop(0)
                labels.append(fresh)
                terms.append(lab + fresh)
                eyes.append(Tensor.eye(sizes[lab], dtype=gi._dtype, device=gi._device))
            else:
                seen.add(lab)
                labels.append(lab)
        gi = einsum(",".join(terms) + "->" + "".join(labels), [gi] + eyes)
    return gi


Tensor.einsum = staticmethod(einsum)
