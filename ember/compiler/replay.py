"""A recorded step as one Python function: the kernels called one after another.

``build(rec)`` turns a Recording (ember/compiler/recording.py) into ``replay(L)``, ``L`` the
tensors among the new call's arguments, whose source is straight-line code: each kernel is a
call of the backend's method by name (so the backend's own choices, fusion included, are made
again on the new arrays), with no op-level validation, promotion, autodiff record or Tensor.
The writes the step made to tensors that existed before it are made at the end, or before the
next optimizer or scheduler step, which is called there as it was called in the step. A kernel
whose result nothing reads and that has no other effect is left out (``_dead``), and each array
is deleted after its last read (``_frees``).

Until the first of those writes, nothing outside the replay has changed: a guard that fails
there (a kernel's Python answer, an array's shape, a tensor no longer alive) raises ``Abort``
and the caller runs the step eagerly instead. A guard that fails after it raises GraphError:
the step took another path than the recorded one after it had changed its state.

>>> import ember
>>> from ember.compiler import _output_template
>>> from ember.compiler.recording import record
>>> x = ember.ones(3)
>>> rec = record(lambda t: t * 2.0 + 1.0, (x,), {}, [x])
>>> replay = build(rec, _output_template(rec, rec.result))
>>> replay([ember.tensor([1.0, 2.0, 3.0])]).tolist()
[3.0, 5.0, 7.0]
"""

import math

from .. import _tensor
from ..backends.base import generator_position, kernel_class
from ..autodiff.graph import Node
from ..errors import GraphError
from .recording import _Ref, same

__all__ = ["build", "Abort"]


class Abort(Exception):
    """A guard failed before the replay changed anything: run the step eagerly."""


def _live(ref):
    obj = ref()
    if obj is None:
        raise Abort("a tensor the step reads is gone")
    return obj


def _need(value):
    if value is None:
        raise Abort("a gradient the step reads is None")
    return value


def _late(what):
    raise GraphError(f"ember.compile: after it changed its state, the step no longer took the "
                     f"recorded path ({what}); the call was left half done. Run it without "
                     "ember.compile, or compile the part before the optimizer's step")


_ROOT = Node(None, (), "compiled step")


def _make(data, cls, dtype, ad, consumed=None):
    """A tensor of the step's result; ``consumed``: the name of the autodiff step it came
    from, whose backward ran in the step (a second backward raises, as in eager)."""
    t = _tensor.wrap(data, dtype, ad)
    if cls is not _tensor.Tensor:
        t.__class__ = cls
    if consumed is not None:
        node = Node(None, (_ROOT,), consumed)
        node.requires_grad = node.consumed = True
        t._node = node
    return t


class _Source:
    """Code generation state: the namespace of constants and the lines written so far."""

    def __init__(self):
        self.ns = {"_live": _live, "_need": _need, "_late": _late, "_make": _make,
                   "_same": same, "Abort": Abort, "GraphError": GraphError}
        self.lines = []
        self.names = {}

    def const(self, value, prefix="k"):
        key = (prefix, id(value))
        name = self.names.get(key)
        if name is None:
            name = f"{prefix}{len(self.names)}"
            self.names[key] = name
            self.ns[name] = value
        return name

    def expr(self, tpl, consts):
        """Python source of an argument template (one constant where it holds no array)."""
        kind = tpl[0]
        if kind in ("tuple", "list") and not _refs(tpl):
            return self.const(_plain(tpl))
        if kind == "ref":
            name = tpl[1]
            return self.const(consts[name[1]], "c") if name.__class__ is tuple else name
        if kind == "value":
            return self.const(tpl[1].value)
        items = [self.expr(t, consts) for t in tpl[1]] if kind != "dict" else None
        if kind == "tuple":
            return "(" + "".join(i + ", " for i in items) + ")"
        if kind == "list":
            return "[" + ", ".join(items) + "]"
        return "{" + ", ".join(f"{self.const(k)}: {self.expr(v, consts)}"
                               for k, v in tpl[1]) + "}"

    def tensor(self, ref):
        """Python source of a tensor that existed before the step."""
        if ref[0] == "arg":
            return f"L[{ref[1]}]"
        if ref[0] == "obj":
            return f"_live({self.const(ref[1].ref, 'r')})"
        return f"_need({self.tensor(ref[1])}._grad)"

    def value(self, tpl, consts):
        """Python source of a value written to ``_data`` / ``_grad`` or returned."""
        if tpl is None:
            return "None"
        if tpl[0] == "tensor":
            _, cls, dtype, ad, data, consumed = tpl
            return (f"_make({self.expr(data, consts)}, {self.const(cls)}, {self.const(dtype)}, "
                    f"{ad!r}, {consumed!r})")
        if tpl[0] == "old":
            return self.tensor(tpl[1])
        if tpl[0] in ("tuple", "list") and any(t is None or t[0] in ("tensor", "old")
                                               for t in tpl[1]):
            items = [self.value(t, consts) for t in tpl[1]]
            return ("(" + "".join(i + ", " for i in items) + ")" if tpl[0] == "tuple"
                    else "[" + ", ".join(items) + "]")
        if tpl[0] == "dict" and any(t is None or t[0] in ("tensor", "old") for _, t in tpl[1]):
            return "{" + ", ".join(f"{self.const(k)}: {self.value(v, consts)}"
                                   for k, v in tpl[1]) + "}"
        return self.expr(tpl, consts)


def _refs(tpl):
    kind = tpl[0]
    if kind == "ref":
        return True
    if kind == "value":
        return False
    return any(_refs(t[1] if kind == "dict" else t) for t in tpl[1])


def _plain(tpl):
    """The value of a template that holds no array."""
    kind = tpl[0]
    if kind == "value":
        return tpl[1].value
    if kind == "dict":
        return {k: _plain(v) for k, v in tpl[1]}
    items = [_plain(t) for t in tpl[1]]
    return tuple(items) if kind == "tuple" else items


def _unpack(src, out, var):
    """Lines assigning the slots of result template ``out`` from ``var``."""
    if out[0] == "ref":
        return [f"{out[1]} = {var}"]
    lines = []
    for i, t in enumerate(out[1]):
        if t is not None:
            lines += _unpack(src, t, f"{var}[{i}]")
    return lines


# kernels with effects beyond their result (buffers written, generators drawn from, threads
# set): a replay keeps them even where nothing reads what they return
_EFFECTS = ("dist_", "optim_", "random_", "io_", "dlpack_", "threads_", "synchronize", "settle",
            "replay_")


def _slots(tpl, into):
    """Add to ``into`` the slots (array names) template ``tpl`` reads."""
    if tpl is None:
        return into
    kind = tpl[0]
    if kind == "ref":
        if tpl[1].__class__ is str:
            into.add(tpl[1])
    elif kind in ("tuple", "list"):
        for t in tpl[1]:
            _slots(t, into)
    elif kind == "dict":
        for _, t in tpl[1]:
            _slots(t, into)
    elif kind == "tensor":
        _slots(tpl[4], into)
    return into


def _dead(rec, output):
    """Indices of the kernel entries of ``rec`` a replay leaves out: those whose results
    nothing after them reads (no later kernel, write, optimizer call or the step's result)
    and that have no effect but their result (no guard, no generator, no buffer written).
    A step's forward computes such values for nothing (the char-RNN tutorial's
    ``log_softmax`` of every letter but the last); eager runs them, a replay need not."""
    used, dead = _slots(output, set()), set()
    for i in range(len(rec.entries) - 1, -1, -1):
        e = rec.entries[i]
        if e.kind == "write":
            _slots(e.value, used)
        elif e.kind == "call":
            _slots(e.args, used)
            _slots(e.kwargs, used)
        elif e.kind == "kernel":
            if (e.out is not None and e.guard.__class__ is tuple
                    and not e.name.startswith(_EFFECTS)
                    and not used.intersection(_slots(e.out, set()))
                    and generator_position(kernel_class(e.target.ref()), e.name) is None):
                dead.add(i)
                continue
            _slots(e.args, used)
            _slots(e.kwargs, used)
    return dead


def _frees(rec, dead, output):
    """{entry index: the names to ``del`` after it}: each array slot after its last read (or
    after it is made, when nothing reads it) and each kernel's result tuple after it is
    unpacked, so that a replay holds only the arrays it still needs (a freed buffer, still in
    cache, serves the next allocation, as in eager). The slots the step's writes and result
    read are kept (they outlive the replay)."""
    keep = _slots(output, set())
    for e in rec.entries:
        if e.kind == "write":
            _slots(e.value, keep)
    last, tuples = {}, {}
    for i, e in enumerate(rec.entries):
        if e.kind == "call" or (e.kind == "kernel" and i not in dead):
            for name in _slots(e.args, _slots(e.kwargs, set())):
                last[name] = i
        if e.kind == "kernel" and i not in dead and e.out is not None:
            for name in _slots(e.out, set()):
                last.setdefault(name, i)
            if e.out[0] != "ref" or e.guard.__class__ is not tuple:
                tuples[i] = [f"_t{i}"]
        elif e.kind == "source":
            last.setdefault(e.name, i)
    frees = tuples
    for name, i in last.items():
        if name not in keep:
            frees.setdefault(i, []).append(name)
    return {i: "del " + ", ".join(names) for i, names in frees.items()}


def _kernels(src, rec, dead=()):
    """({(id(backend), kernel name): the name of its replay callable}, [the names of the
    backends' replay scopes]) for the kernels ``rec`` calls (see ``replay_kernels``)."""
    wanted = {}
    for i, e in enumerate(rec.entries):
        if e.kind == "kernel" and i not in dead:
            be = e.target.ref()
            wanted.setdefault(id(be), (be, set()))[1].add(e.name)
    largest = max((math.prod(a.shape) for a in rec.keep if hasattr(a, "shape")), default=0)
    names, scopes = {}, []
    for ident, (be, used) in wanted.items():
        for n, fn in be.replay_kernels(sorted(used), largest).items():
            names[(ident, n)] = src.const(fn, "f")
        scopes.append(src.const(be.replay_scope, "z"))
    return names, scopes


def _generators(rec):
    """(backend, generator) of each generator the kernels of ``rec`` draw from (None: the
    backend's global one): a kernel that takes ``gen``."""
    found, seen = [], set()
    for e in rec.entries:
        if e.kind != "kernel" or e.name in _RNG_STATE:
            continue
        be = e.target.ref()
        at = generator_position(kernel_class(be), e.name)
        if at is None:
            continue
        kwargs = dict(e.kwargs[1]) if e.kwargs is not None else {}
        tpl = kwargs.get("gen", e.args[1][at] if at < len(e.args[1]) else None)
        gen = None if tpl is None else tpl[1].value
        if (id(be), id(gen)) not in seen:
            seen.add((id(be), id(gen)))
            found.append((be, gen))
    return found


_RNG_STATE = frozenset({"random_get_state", "random_set_state", "random_seed",
                        "random_generator", "random_entropy_seed"})


def _guarded(body, split, generators=()):
    """``body`` with its exceptions typed: before line ``split`` (nothing changed yet) any
    exception of a kernel is an ``Abort`` (the eager step then raises ember's own error, or
    succeeds) and the ``generators`` (Python source of ``(backend, generator)``) are put back
    where they were; after it, a GraphError (see the module)."""
    save = [f"_rng{i} = {be}.random_get_state({gen})" for i, (be, gen) in enumerate(generators)]
    undo = [f"    {be}.random_set_state({gen}, _rng{i})"
            for i, (be, gen) in enumerate(generators)]
    out = [*save, "try:", *("    " + b for b in body[:split] or ["pass"]), "except Abort:",
           *undo, "    raise", "except Exception as exc:", *undo,
           "    raise Abort(repr(exc)) from exc"]
    if split < len(body):
        out += ["try:", *("    " + b for b in body[split:]), "except GraphError:", "    raise",
                "except Exception as exc:", "    _late(f'{type(exc).__name__}: {exc}')"]
    return out


def build(rec, output):
    """``replay(L)`` of Recording ``rec`` (see the module); ``output`` is the template of the
    step's result (``Source.value``'s forms)."""
    src = _Source()
    consts = {n: v for n, v in ((c[1], c[2]) for c in rec.consts.values())}
    body, pending, committed, split = [], {}, False, None
    dead = _dead(rec, output)
    frees = _frees(rec, dead, output)
    kernels, scopes = _kernels(src, rec, dead)

    def fail(what):
        return f"_late({what!r})" if committed else f"raise Abort({what!r})"

    def commit():
        nonlocal committed, split
        if not committed:
            committed, split = True, len(body)

    def flush():
        if pending:
            commit()
        body.extend(f"{target} = {value}" for target, value in pending.items())
        pending.clear()

    for ref, attrs in rec.modules.values():
        m = src.const(ref, "r")
        body.append(f"d = _live({m}).__dict__")
        for k, v in attrs:
            if v.__class__ is _Ref:
                test = f"d.get({k!r}) is not {src.const(v.ref, 'r')}()"
            else:
                test = f"not _same(d.get({k!r}), {src.const(v)})"
            body.append(f"if {test}: raise Abort('module attribute {k} changed')")
    for i, e in enumerate(rec.entries):
        if e.kind == "source":
            shape, dtype = e.value
            data = f"{src.tensor(e.target)}._data"
            body.append(f"{e.name} = {data}")
            if e.target[0] != "arg":
                body.append(f"if {e.name}.shape != {src.const(shape)} or "
                            f"{e.name}.dtype != {src.const(dtype.value)}: "
                            + fail(f"{e.name}: shape or dtype"))
        elif e.kind == "kernel" and i not in dead:
            call = f"{kernels[(e.target.ident, e.name)]}(" + ", ".join(
                src.expr(a, consts) for a in e.args[1])
            if e.kwargs is not None:
                call += "".join(f", {k}={src.expr(v, consts)}" for k, v in e.kwargs[1])
            call += ")"
            direct = e.out is not None and e.out[0] == "ref" and e.guard.__class__ is tuple
            var = e.out[1] if direct else f"_t{i}"
            body.append(f"{var} = {call}")
            if not direct:
                if e.guard is not None and e.guard.__class__ is not tuple:
                    body.append(f"if not _same({var}, {src.const(e.guard.value)}): "
                                + fail(f"{e.name} gave another value"))
                if e.out is not None:
                    body.extend(_unpack(src, e.out, var))
        elif e.kind == "write":  # the last write to an attribute is the one that stays
            pending[f"{src.tensor(e.target)}.{e.attr}"] = src.value(e.value, consts)
        elif e.kind == "call":
            flush()
            commit()
            call = f"_live({src.const(e.target.ref, 'r')}).{e.attr}(" + ", ".join(
                src.expr(a, consts) for a in e.args[1])
            call += "".join(f", {k}={src.expr(v, consts)}" for k, v in e.kwargs[1]) + ")"
            body.append(call)
        if i in frees:
            body.append(frees[i])
    result = src.value(output, consts)
    body.append(f"out = {result}")
    flush()
    body.append("return out")
    generators = [(src.const(be, "b"), src.const(gen)) for be, gen in _generators(rec)]
    body = _guarded(body, len(body) if split is None else split, generators)
    if scopes:
        body = [f"with {', '.join(s + '()' for s in scopes)}:"] + ["    " + b for b in body]
    code = "def replay(L):\n" + "".join(f"    {line}\n" for line in body)
    exec(compile(code, "<ember.compile replay>", "exec"), src.ns)  # noqa: S102 - our own code
    replay = src.ns["replay"]
    replay.source = code
    return replay
