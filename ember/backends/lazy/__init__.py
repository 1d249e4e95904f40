"""Fusion as a wrapper backend: ``x * y + z`` on large tensors writes one buffer, not two.

NumPy computes ``x * y + z`` into one array because its C code can prove that ``x * y`` is a
temporary and write ``+ z`` into it. Python code cannot prove that, so ember defers instead
(Burn's ``Fusion`` backend, tinygrad's lazy graph), deterministically. ``Lazy(inner)`` wraps a
backend whose ability ``fuses`` says it can compute an expression (its ``ew_evaluate`` and
``ew_chain_sum``: the NumPy backend, one compiled loop per expression); its module gives the
wrapper as the device's backend. It has every kernel of ``inner``:

- The kernels of the fusable primitives (``table.TABLE``: ``+ - * /``, ``exp log tanh sqrt rsqrt
  sigmoid relu neg abs``, ``maximum``/``minimum``, ``where``, casts between float32 and float64)
  return a ``Chain`` (``chain.py``, an array's ``shape``/``dtype`` without its values) when an
  operand is a Chain or an array of at least ``MIN_NUMEL`` elements, every array and Chain has
  one shape and one dtype the row fuses in (float32/float64; ints for ``+ - *``), a number is a
  Python float (with float operands), a ``where``'s condition is a bool array of that shape,
  and every array owns its buffer (``inner.ew_deferrable``: a view may be of memory its owner
  still writes, ``from_numpy``). Otherwise they compute now.
- ``reduce_sum`` of a Chain over every dim or the last one sums in one pass without storing
  the values (``inner.ew_chain_sum``), where the backend can.
- Every other kernel computes the Chains among its arguments first (``chain.force``: once; the
  array is kept on the Chain) and runs ``inner``'s kernel: an op cannot tell. While no Chain
  exists, those kernels are ``inner``'s own, with no wrapper to pass through.
- A Chain is at most ``MAX_DEPTH`` operators deep and keeps at most ``MAX_HELD`` operand
  buffers alive (each the size of the result); an operand that would pass either cap is
  computed first.

Operands never change (ember computes a write into a new buffer unless nothing else holds the
old one, and a Chain holds it), so a Chain computes what the eager kernels would have. Threads
reading one Chain may both compute it; each publishes a complete array (the value, then the
operands dropped), and either is the answer.

>>> import ember
>>> x = ember.ones(1 << 17)
>>> y = x * 2.0 + 1.0
>>> type(y._data).__name__, y.sum().item()
('Chain', 393216.0)
"""

from ... import dtypes as _dt
from ..base import _declaring, kernel_names
from .chain import Chain, build, force, watch
from .table import BY_KERNEL, TABLE

__all__ = ["Lazy", "Chain", "MIN_NUMEL", "MAX_DEPTH", "MAX_HELD"]

MIN_NUMEL = 1 << 16  # elements; 256 KiB of float32: below it a second buffer costs little
MAX_DEPTH = 32  # operators in one Chain; a longer expression is computed in parts
MAX_HELD = 4  # operand buffers one Chain keeps alive, each the size of its result
_SEQUENCES = frozenset({"arrays", "key", "saved", "inputs", "parts", "operands"})
# kernels that count the references to their argument (one frame more would change the count);
# a Chain is never theirs to write
_OWN_FRAME = frozenset({"data_can_mut", "ew_inplace"})
_SEQ = (tuple, list)


class Lazy:
    """The backend ``inner`` with fusion (see the module): ``Lazy(NumpyBackend(cpu))``. Every
    attribute that is not a kernel (``name``, ``xp``, ``Array``, the abilities) is ``inner``'s.

    >>> import ember
    >>> be = ember.Device("cpu").backend
    >>> type(be).__name__, be.name, be.inner.name
    ('Lazy', 'numpy', 'numpy')
    """

    eager = False

    def __init__(self, inner):
        self.inner = inner
        own = self.__dict__
        cls = type(inner)
        plain, forcing = {}, {}
        for name in kernel_names(cls):
            kernel = getattr(inner, name)
            if name in _OWN_FRAME:
                own[name] = kernel
                continue
            params = _parameters(vars(_declaring(cls, name))[name])[1:]
            if all(p[0] != "op" for p in params) and _takes_op(kernel):
                params.append(("op", True, None))  # an allocation guard's keyword
            plain[name] = staticmethod(kernel)
            forcing[name] = staticmethod(_forcing(name, kernel, params))
        # the other kernels are the class's: inner's own while no Chain exists, else wrappers
        # that compute Chain arguments first (chain.watch swaps the class: no cost per call
        # to a program whose operands never defer)
        self._classes = (type("Lazy", (Lazy,), plain), type("Lazy", (Lazy,), forcing))
        self._native = {inner.native_dtype(_dt.as_dtype(n)): n
                        for row in TABLE.values() for n in row.dtypes}
        for kname, op in BY_KERNEL.items():
            own[kname] = self._fusing(op, getattr(inner, kname))
        for kname in ("ew_cast", "cast"):
            own[kname] = self._cast(getattr(inner, kname))
        own["reduce_sum"] = self._sum(inner.reduce_sum)
        own["ew_operator"] = self._operator
        own["array_types"] = lambda: inner.array_types() + (Chain,)
        own["replay_kernels"] = self._replay_kernels
        # inner's abilities and types, read on hot paths (``has_layout`` on every reshape):
        # copied, so that reading them is not a __getattr__ call
        kernels = set(kernel_names(cls))
        for family in cls.__mro__:
            for name, value in vars(family).items():
                if not (name.startswith("_") or name in kernels or hasattr(Lazy, name)
                        or isinstance(value, property)
                        or callable(value) and not isinstance(value, type)):
                    own.setdefault(name, getattr(inner, name))
        own["device"] = inner.device
        watch(self._chains_exist)

    def _operator(self, kname, dtype):
        """The operators' short path (see the base's ``ew_operator``): this wrapper's kernel,
        and for arrays below ``MIN_NUMEL`` elements (which never fuse) inner's own."""
        return self.__dict__[kname], self.inner.ew_operator(kname, dtype)[1], \
            MIN_NUMEL * _dt.as_dtype(dtype).itemsize

    def _replay_kernels(self, names, largest):
        """inner's replay kernels where no array of the recording was large enough to fuse;
        else this wrapper's own, looked up at each call (they change while Chains exist)."""
        if largest < MIN_NUMEL:
            return self.inner.replay_kernels(names, largest)
        return {n: _looked_up(self, n) for n in names}

    def _chains_exist(self, alive):
        self.__class__ = self._classes[alive]

    def __getattr__(self, name):
        if name == "inner":  # (only while __init__ has not set it)
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self):
        return f"<Lazy {self.inner!r}>"

    def _fuse(self, op, kernel, operands):
        """A Chain of ``kernel`` (primitive ``op``) over ``operands``, or None when they do not
        fuse (see the module). A 0-d array of the expression's float dtype beside larger
        operands is a number (exact: its value as a Python float)."""
        inner = self.inner
        array = inner.Array
        lead = 1 if op == "where" else 0
        first = None
        for x in operands[lead:]:
            cls = x.__class__
            if cls is Chain or cls is array and (first is None or not first.shape):
                first = x if first is None or x.shape else first
            elif cls is not array and cls is not float:
                return None
        if first is None:
            return None
        name = self._native.get(first.dtype)
        if name is None or name not in TABLE[op].dtypes:
            return None
        shape, dtype = first.shape, first.dtype
        values = list(operands)
        for i in range(lead, len(values)):
            x = values[i]
            cls = x.__class__
            if cls is float:
                if name[0] != "f":
                    return None
                continue
            if x.shape != shape:
                if x.shape or cls is not array or x.dtype != dtype or name[0] != "f":
                    return None
                values[i] = float(x)
            elif x.dtype != dtype or cls is array and not inner.ew_deferrable(x):
                return None
        if lead:
            cond = values[0]
            if cond.__class__ is not array or cond.shape != shape \
                    or inner.dtype_of(cond) is not _dt.bool_ or not inner.ew_deferrable(cond):
                return None
        return self._build(op, kernel, values, dtype)

    def _build(self, op, kernel, operands, dtype):
        """The Chain of ``kernel`` (primitive ``op``) over ``operands``, of native ``dtype``."""
        inner = self.inner
        return build(op, kernel, operands, dtype, inner.Array, inner.ew_evaluate, inner.device,
                     MAX_DEPTH, MAX_HELD)

    def _fusing(self, op, kernel):
        """The kernel of primitive ``op`` (``kernel`` computes it now): a Chain where the
        operands fuse, else ``kernel``'s array."""
        fuse = self._fuse
        array = self.inner.Array
        arity = TABLE[op].arity
        if arity == 1:
            def unary(a):
                if a.__class__ is Chain or (a.__class__ is array and a.size >= MIN_NUMEL):
                    out = fuse(op, kernel, (a,))
                    if out is not None:
                        return out
                    if a.__class__ is Chain:
                        a = force(a)
                return kernel(a)
            fn = unary
        elif arity == 2:
            def binary(a, b):
                ca, cb = a.__class__, b.__class__
                if ca is Chain or cb is Chain or ca is array and a.size >= MIN_NUMEL \
                        or cb is array and b.size >= MIN_NUMEL:
                    out = fuse(op, kernel, (a, b))
                    if out is not None:
                        return out
                    if ca is Chain:
                        a = force(a)
                    if cb is Chain:
                        b = force(b)
                return kernel(a, b)
            fn = binary
        else:
            def ternary(cond, x, y):
                if x.__class__ is Chain or y.__class__ is Chain or (
                        cond.__class__ is array and cond.size >= MIN_NUMEL):
                    out = fuse(op, kernel, (cond, x, y))
                    if out is not None:
                        return out
                    cond, x, y = (force(v) if v.__class__ is Chain else v for v in (cond, x, y))
                return kernel(cond, x, y)
            fn = ternary
        fn.__name__ = fn.__qualname__ = TABLE[op].kernel
        fn.__doc__ = kernel.__doc__
        return fn

    def _cast(self, kernel):
        """``ew_cast``: a Chain between float32 and float64 (see the module)."""
        inner = self.inner
        array = inner.Array
        targets = {}
        for dtype in (_dt.float32, _dt.float64):
            op = "cast_" + dtype.name
            targets[dtype] = (op, inner.native_dtype(dtype), _to(kernel, dtype))

        def ew_cast(a, dtype):
            target = targets.get(dtype)
            if target is not None and (a.__class__ is Chain or (
                    a.__class__ is array and a.size >= MIN_NUMEL)):
                op, native, cast = target
                if a.dtype == native:
                    return a
                if self._native.get(a.dtype) in TABLE[op].dtypes and (
                        a.__class__ is Chain or inner.ew_deferrable(a)):
                    return self._build(op, cast, (a,), native)
            if a.__class__ is Chain:
                a = force(a)
            return kernel(a, dtype)
        ew_cast.__doc__ = kernel.__doc__
        return ew_cast

    def _sum(self, kernel):
        """``reduce_sum``: a Chain summed over every dim or its last one in one pass (the
        wrapped backend's ``ew_chain_sum``), else the kernel on its array."""
        inner = self.inner

        def reduce_sum(a, axes, keepdims, dtype):
            if a.__class__ is not Chain:
                return kernel(a, axes, keepdims, dtype)
            ndim = len(a.shape)
            every = tuple(range(ndim))
            if a.operands is not None and ndim and dtype.kind == "float" \
                    and (axes == every or axes == (ndim - 1,)):
                out = inner.ew_chain_sum(a, axes != every)
                if out is not None:
                    if keepdims:
                        out = inner.mv_reshape(out, tuple(1 if i in axes else n
                                                          for i, n in enumerate(a.shape)))
                    return out
            return kernel(force(a), axes, keepdims, dtype)
        reduce_sum.__doc__ = kernel.__doc__
        return reduce_sum


def _to(kernel, dtype):
    """The one-operand kernel of a cast to ember ``dtype`` (a Chain's step)."""
    def cast(a):
        return kernel(a, dtype)
    return cast


_EMPTY = object()  # no default


def _parameters(fn):
    """``(name, keyword_only, default)`` of each parameter of the Python function ``fn``
    (``_EMPTY`` where it has no default), read from its code object (of the function a
    decorator wraps, where it wraps one)."""
    while getattr(fn, "__wrapped__", None) is not None:
        fn = fn.__wrapped__
    code = fn.__code__
    n, k = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames[:n + k]
    defaults = fn.__defaults__ or ()
    kw = fn.__kwdefaults__ or {}
    first = n - len(defaults)
    return [(name, i >= n, (defaults[i - first] if i >= first else _EMPTY) if i < n
             else kw.get(name, _EMPTY)) for i, name in enumerate(names)]


def _takes_op(kernel):
    """Whether ``kernel`` (a function, a method, or a wrapper of one) takes the keyword ``op``."""
    while kernel is not None:
        fn = getattr(kernel, "__func__", kernel)
        code = getattr(fn, "__code__", None)
        if code is not None and "op" in code.co_varnames[:code.co_argcount
                                                          + code.co_kwonlyargcount]:
            return True
        kernel = getattr(fn, "__wrapped__", None)
    return False


def _force_all(xs):
    """The sequence ``xs`` with each Chain in it (nested sequences too) computed; ``xs``
    itself when it holds none."""
    for x in xs:
        if x.__class__ is Chain or x.__class__ in _SEQ:
            break
    else:
        return xs
    out = [force(x) if x.__class__ is Chain else _force_all(x) if x.__class__ in _SEQ else x
           for x in xs]
    return out if xs.__class__ is list else tuple(out)


def _looked_up(obj, name):
    def kernel(*args, **kwargs):
        return getattr(obj, name)(*args, **kwargs)
    return kernel


def _forcing(name, kernel, params):
    """``kernel`` with the parameters ``params`` (see ``_parameters``), computing any Chain among its arguments first
    (generated with the exact parameters: one frame and a class check per argument)."""
    scope = {"_kernel": kernel, "_Chain": Chain, "_force": force, "_all": _force_all,
             "_SEQ": _SEQ}
    heads, passes, lines = [], [], []
    starred = False
    for i, (pname, keyword, default) in enumerate(params):
        if keyword and not starred:
            heads.append("*")
            starred = True
        if default is _EMPTY:
            heads.append(pname)
        else:
            scope[f"_d{i}"] = default
            heads.append(f"{pname}=_d{i}")
        passes.append(f"{pname}={pname}" if keyword else pname)
        lines.append(f"    if {pname}.__class__ is _Chain: {pname} = _force({pname})")
        if pname in _SEQUENCES:
            lines.append(f"    elif {pname}.__class__ in _SEQ: {pname} = _all({pname})")
    source = (f"def {name}({', '.join(heads)}):\n" + "\n".join(lines)
              + f"\n    return _kernel({', '.join(passes)})\n")
    exec(compile(source, f"<ember.backends.lazy {name}>", "exec"), scope)  # noqa: S102
    fn = scope[name]
    fn.__doc__ = getattr(kernel, "__doc__", None)
    return fn
