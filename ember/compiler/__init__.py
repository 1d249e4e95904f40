"""``ember.compile(fn)``: a step recorded once and replayed as a straight run of kernels.

The first call with given argument shapes and dtypes runs ``fn`` eagerly; the next two run it
eagerly while recording the backend kernels it calls (ember/compiler/recording.py); when the
two recordings agree, later calls with the same shapes run the recording (ember/compiler/
replay.py): the same kernels, in the same order, on the new arrays, so the results are the
eager step's bit for bit, without ember's per-op Python (validation, dtype promotion, autodiff
records, Tensor objects). An optimizer's or scheduler's ``step`` inside ``fn`` runs as it is,
between the recorded kernels.

What ``fn`` may do, and what is guarded: its tensor arguments may change values from call to
call (their shapes, strides, dtypes, devices and whether they require grad are the cache key,
with grad mode and the default dtype); it may read and update tensors that exist outside it (parameters,
gradients, optimizer state); the modules it calls keep their ``training`` flag and plain
attributes (checked before each replay). Python values it computes from anything else are the
recording's: they must not change between calls (two recordings are compared, so a value that
changes from call to call, like a counter, is caught). It may not read a tensor's value in
Python (``.item()``) unless the value is the same at each call, keep the tensors it creates
anywhere but its result and the gradients, or return a tensor that requires grad. A step that
does any of these runs eagerly, with one ``UserWarning`` naming the reason.

The cache holds ``cache_size`` recordings (default 8), the least recently used dropped first.

>>> import ember
>>> @ember.compile
... def f(x):
...     return (x * 2.0).exp().sum()
>>> [round(f(ember.full((3,), float(i))).item(), 3) for i in range(4)]
[3.0, 22.167, 163.794, 1210.286]
>>> f.stats["replays"]
1
"""

import gc
import types as _types
import warnings
from collections import OrderedDict

from .. import _tensor
from .. import dtypes as _dt
from ..autodiff.graph import _mode
from ..devices import _default as _default_device
from ..errors import InvalidParameterError, KindError
from .recording import (_MEMBERS, _Same, _is_array, escaped, record,
                        recording_here as _recording_here, same)
from .replay import Abort, build

__all__ = ["compile", "Compiled", "guard_context"]

_CONTEXT = []     # functions giving the global state a recording depends on (guard_context)
_RERECORDS = 3    # times a key may fail its guards and be recorded again


class _Key:
    """The cache entry of one argument signature: its state (``"eager"`` calls before
    recording, the first recording, the replay, or the reason it runs eagerly)."""

    __slots__ = ("calls", "first", "replay", "reason", "rerecords")

    def __init__(self):
        self.calls, self.first, self.replay, self.reason, self.rerecords = 0, None, None, None, 0


class Compiled:
    """A compiled step (see the module): call it as ``fn``. ``stats`` counts the calls by how
    they ran (``"eager"``, ``"recorded"``, ``"replays"``, ``"aborted"``); ``reasons`` maps each
    argument signature that runs eagerly to why; ``last_abort`` says why the last replay that
    stopped (and ran eagerly) stopped."""

    def __init__(self, fn, cache_size=8):
        self.fn = fn
        self.cache_size = cache_size
        self._keys = OrderedDict()
        self._warned = set()
        self.stats = {"eager": 0, "recorded": 0, "replays": 0, "aborted": 0}
        self.last_abort = None
        self.__wrapped__ = fn
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)

    @property
    def reasons(self):
        return {k: v.reason for k, v in self._keys.items() if v.reason}

    def __get__(self, instance, owner=None):  # a compiled method: the instance is an argument
        return self if instance is None else _types.MethodType(self, instance)

    def __getattr__(self, name):  # a compiled module keeps its attributes
        if name == "fn":
            raise AttributeError(name)
        return getattr(self.fn, name)

    def __call__(self, *args, **kwargs):
        if _recording_here():  # inside another step's recording: its kernels are that one's
            return self.fn(*args, **kwargs)
        leaves = []
        key = _signature((args, kwargs), leaves)
        if key is None:
            return self._eager(args, kwargs)
        state = self._keys.get(key)
        if state is None:
            state = self._keys[key] = _Key()
            if len(self._keys) > self.cache_size:
                self._keys.popitem(last=False)
        else:
            self._keys.move_to_end(key)
        if state.replay is not None:
            try:
                out = state.replay(leaves)
            except Abort as exc:
                self.last_abort = str(exc)
                self.stats["aborted"] += 1
                state.replay, state.calls = None, 0
                state.rerecords += 1
                if state.rerecords > _RERECORDS:
                    self._refuse(state, "its recorded path keeps failing its guards (a "
                                 "tensor's value read in Python, or a tensor it reads gone)")
                return self._eager(args, kwargs)
            self.stats["replays"] += 1
            return out
        if state.reason is not None or state.calls == 0:
            state.calls += 1
            return self._eager(args, kwargs)
        return self._record(state, args, kwargs, leaves)

    def _eager(self, args, kwargs):
        self.stats["eager"] += 1
        return self.fn(*args, **kwargs)

    def _refuse(self, state, reason):
        state.reason, state.replay, state.first = reason, None, None
        if reason not in self._warned:
            self._warned.add(reason)
            warnings.warn(f"ember.compile({self.__name__}): runs eagerly: {reason}",
                          UserWarning, stacklevel=4)

    def _record(self, state, args, kwargs, leaves):
        rec = record(self.fn, args, kwargs, leaves)
        self.stats["recorded"] += 1
        out = rec.result
        output = _output_template(rec, out)
        keep = _with_roots([*_tensors(out), *_grads_written(rec)])
        for t in escaped(rec, keep):
            rec.problems.append(f"it keeps a tensor it creates (shape {tuple(t.shape)}) "
                                "outside its result and the gradients")
            break
        rec.result = None
        if rec.problems:
            self._refuse(state, rec.problems[0])
            return out
        if state.first is None:
            state.first = (rec, output)
            return out
        first, first_output = state.first
        state.first = None
        diff = _difference(first, first_output, rec, output)
        if diff:
            state.rerecords += 1
            if state.rerecords > _RERECORDS:
                self._refuse(state, diff)
            else:  # a first call's work (a kernel compiled since) may differ: compare again
                state.first = (rec, output)
            return out
        state.replay = build(rec, output)
        return out


def _signature(tree, leaves):
    """The cache key of the arguments ``tree`` (their tensors appended to ``leaves``), or None
    when an argument cannot be part of a key (it is not hashable)."""
    parts = []
    if not _walk(tree, leaves, parts):
        return None
    return (_mode.enabled, _dt.default_float, _default_device[0],
            tuple(f() for f in _CONTEXT), tuple(parts))


def _walk(x, leaves, parts):
    """Append ``x``'s part of a key to ``parts`` (see ``_signature``); False when it has none.
    (A plain function: a nested one would be a reference cycle per call.)"""
    if isinstance(x, _tensor.Tensor):
        leaves.append(x)
        parts.append((type(x), x.shape, x._dtype, x._device, x._ad, x._node is None,
                      x._device.backend.layout_strides(x._data)))
    elif x.__class__ in (tuple, list):
        parts.append((x.__class__, len(x)))
        return all(_walk(v, leaves, parts) for v in x)
    elif x.__class__ is dict:
        parts.append((dict, tuple(x)))
        return all(_walk(v, leaves, parts) for v in x.values())
    else:
        try:
            hash(x)
        except TypeError:
            return False
        parts.append((x.__class__, x))
    return True


def guard_context(fn):
    """Make ``fn()`` (a hashable value of global state that changes which kernels a step calls,
    such as ember.torch's autocast state) part of every compiled step's cache key. Returns
    ``fn``.

    >>> import ember
    >>> fn = guard_context(lambda: ember.get_default_dtype())
    >>> _CONTEXT.remove(fn)  # (this example's)
    """
    _CONTEXT.append(fn)
    return fn


def _tensors(value):
    if isinstance(value, _tensor.Tensor):
        yield value
    elif value.__class__ in (tuple, list):
        for v in value:
            yield from _tensors(v)
    elif value.__class__ is dict:
        for v in value.values():
            yield from _tensors(v)


def _with_roots(tensors, limit=200_000):
    """The ids of the objects ``tensors`` hold, directly or not (a view holds its base, an
    autodiff step the tensors it saved), not following modules, classes or functions' globals."""
    seen, todo = set(), list(tensors)
    while todo and len(seen) < limit:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (type, _types.ModuleType)):
            continue
        if isinstance(obj, _types.FunctionType):
            todo.extend(c.cell_contents for c in obj.__closure__ or () if _filled(c))
            todo.extend(obj.__defaults__ or ())
            continue
        todo.extend(gc.get_referents(obj))
    return seen


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _grads_written(rec):
    """The tensors the step left as gradients of tensors that existed before it."""
    out = []
    for e in rec.entries:
        if e.kind == "write" and e.attr == "_grad":
            target = e.target
            t = None
            if target[0] == "arg":
                t = rec.leaves[target[1]]
            elif target[0] == "obj":
                t = target[1].ref()
            if t is not None:
                g = _MEMBERS["_grad"].__get__(t)
                if g is not None:
                    out.append(g)
    return out


def _output_template(rec, value):
    if isinstance(value, _tensor.Tensor):
        if id(value) in rec.created_ids:
            node = value._node
            if node is not None and not node.consumed:
                rec.problems.append("it returns a tensor that requires grad and whose graph is "
                                    "still live (compile the whole step, backward and update "
                                    "included, or run it under ember.no_grad())")
            return ("tensor", type(value), value._dtype, value._ad,
                    rec.template(_MEMBERS["_data"].__get__(value)),
                    None if node is None else node.name)
        return ("old", rec.tensor_ref(value))
    if value.__class__ in (tuple, list):
        return (value.__class__.__name__, tuple(_output_template(rec, v) for v in value))
    if value.__class__ is dict:
        return ("dict", tuple((k, _output_template(rec, v)) for k, v in value.items()))
    if _is_array(value):
        return rec.template(value)
    return ("value", _Same(value))


def _difference(a, a_out, b, b_out):
    """Why two recordings of one step differ (None when they agree)."""
    if len(a.entries) != len(b.entries):
        return (f"it runs {len(a.entries)} then {len(b.entries)} steps (its Python path "
                "depends on something other than its arguments' shapes)")
    for i, (x, y) in enumerate(zip(a.entries, b.entries)):
        if x.key() != y.key():
            what = x.name or x.attr or x.kind
            if x.kind == "kernel" and x.name == y.name and x.guard != y.guard:
                return (f"it reads a tensor's value in Python ({x.name} gave "
                        f"{_short(x.guard.value)}, then {_short(y.guard.value)}): return the "
                        "tensor instead, or compute with it")
            return (f"its step {i} ({what}) differs between two calls (a Python value it "
                    "reads changes from call to call)")
    ca = [id(c[2]) for c in sorted(a.consts.values(), key=lambda c: c[1])]
    cb = [id(c[2]) for c in sorted(b.consts.values(), key=lambda c: c[1])]
    if ca != cb:
        return ("it uses an array computed outside ember's kernels, or one that changes from "
                "call to call without being an argument")
    if a_out != b_out:
        return "its result differs in kind between two calls (a Python value it returns?)"
    if list(a.modules) != list(b.modules) or not all(
            same(x[1], y[1]) for x, y in zip(a.modules.values(), b.modules.values())):
        return "it calls other modules, or modules of other attributes, from call to call"
    return None


def _short(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def compile(fn=None, *, cache_size=8):  # noqa: A001 - ember.compile, as torch.compile
    """``fn`` compiled (see the module): a ``Compiled`` that records ``fn``'s kernels and replays
    them. Used as ``@ember.compile`` or ``@ember.compile(cache_size=4)``.

    >>> import ember
    >>> step = ember.compile(lambda x: x + 1.0)
    >>> [step(ember.ones(2)).tolist() for _ in range(4)][-1]
    [2.0, 2.0]
    """
    if fn is None:
        return lambda f: compile(f, cache_size=cache_size)
    if not callable(fn):
        raise KindError(f"compile: fn is {type(fn).__name__}; expected a callable")
    if cache_size.__class__ is not int or cache_size < 1:
        raise InvalidParameterError(f"compile: cache_size is {cache_size!r}; expected an int "
                                    ">= 1", "cache_size", cache_size)
    return Compiled(fn, cache_size)
