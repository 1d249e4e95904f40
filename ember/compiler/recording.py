"""Recording a step: the backend kernels it calls, where their arrays come from, what it writes.

While ``record(fn, args, kwargs, leaves)`` runs ``fn`` once, eagerly, on the calling thread:

- every device's backend is a ``_Proxy`` whose kernels append an ``Entry`` to the tape (the
  kernel's name, its arguments as templates, its result's arrays as new slots); kernels that
  only read an array's metadata are not recorded; kernels that give Python values (``item``,
  a bounds check's answer) are recorded as guards: a replay computes them again and must get
  the same value; the two in-place decisions (``data_can_mut``, ``ew_inplace``) answer False,
  which their contract allows (the step computes the same values out of place);
- ``Tensor._data`` and ``Tensor._grad`` are read and written through a descriptor that notes
  where each array the tape did not make comes from (an argument, a tensor that existed before
  the step, the gradient of one) and which tensors that existed before the step the step
  rebinds (the writes a replay repeats);
- ``Optimizer.step`` and ``LRScheduler.step`` run as they are, unrecorded: a replay calls them
  (their Python state, the step count and the learning rate, moves on as in eager);
- every module called has its ``training`` flag and plain attributes noted (guards).

Anything the tape cannot repeat is collected in ``Recording.problems`` (the caller falls back
to eager): a tensor the step creates and keeps somewhere ember cannot see, a returned tensor
that requires grad, an array that came from outside the kernels and is not the same object in
two recordings (the comparison is the caller's).

>>> import ember
>>> from ember.compiler.recording import record
>>> x = ember.ones(3)
>>> rec = record(lambda t: (t * 2.0).exp(), (x,), {}, [x])
>>> [e.name for e in rec.entries if e.kind == "kernel"]
['ew_mul', 'ew_exp']
"""

import gc
import threading
import weakref

from .. import _tensor
from ..devices import _interned
from ..backends.base import kernel_class, kernel_names, metadata_kernels

__all__ = ["record", "recording_here", "Recording", "Entry", "HOST_KERNELS"]

# kernels whose result goes to Python as values: guards, whatever type they return
HOST_KERNELS = frozenset({"item", "tolist", "to_host", "data_flat_list", "dlpack_export"})
# in-place decisions: False (allowed by their contracts) while recording
_NEVER = frozenset({"data_can_mut", "ew_inplace"})
_lock = threading.RLock()
_active = [None]  # the Recording of the thread that holds _lock, else None
_MEMBERS = {name: _tensor.Tensor.__dict__[name] for name in ("_data", "_grad")}


class Entry:
    """One step of a tape. ``kind``: ``"kernel"`` (``name``, ``args``/``kwargs`` templates,
    ``out`` the template of its result, ``guard`` the expected value or ``NO_GUARD``),
    ``"write"`` (``target`` a tensor reference, ``attr``, ``value`` a template), ``"call"``
    (``target`` an object, ``attr`` its method, ``args``/``kwargs`` templates: an optimizer's
    or scheduler's step)."""

    __slots__ = ("kind", "name", "args", "kwargs", "out", "guard", "target", "attr", "value")

    def __init__(self, kind, **fields):
        self.kind = kind
        for slot in self.__slots__[1:]:
            setattr(self, slot, fields.get(slot))

    def key(self):
        """What two recordings must agree on for this entry."""
        return (self.kind, self.name, self.args, self.kwargs, self.out, self.guard,
                self.target, self.attr, self.value)


NO_GUARD = ("no guard",)


class Recording:
    """The tape of one run of a step (see the module): ``entries``, ``modules`` (the modules
    called, with their guarded attributes), ``consts`` (the arrays from outside the kernels
    and the tensors, by identity), ``result`` (what the step returned) and ``problems``
    (reasons it cannot be replayed)."""

    def __init__(self, leaves):
        self.entries, self.problems, self.modules = [], [], {}
        self.names = {}    # id(array) -> its name in the tape ("s3" made, "e1" external)
        self.keep = []     # every array named, alive while recording (ids stay unique)
        self.consts = {}   # id(obj) -> ("c", n) for arrays from elsewhere (the same object)
        self.tensor_refs = {}  # id(tensor) -> reference ("arg", i) / ("obj", tensor) / ...
        self.created = []  # weakrefs of the tensors the step creates
        self.created_ids = set()
        self.written = set()  # (id(tensor), attr) the step wrote (since the last call entry)
        self.thread = threading.get_ident()
        self.paused = 0
        self.made = self.externals = 0
        for i, t in enumerate(leaves):
            if isinstance(t, _tensor.Tensor):
                self.tensor_refs[id(t)] = ("arg", i)
                arr = _MEMBERS["_data"].__get__(t)
                if id(arr) not in self.names:
                    self._external(arr, ("arg", i))
        self.leaves = leaves

    # -- names --------------------------------------------------------------------------------
    def _external(self, arr, ref):
        name = f"e{self.externals}"
        self.externals += 1
        self.entries.append(Entry("source", name=name, target=ref,
                                  value=(tuple(arr.shape), _Same(arr.dtype))))
        self.names[id(arr)] = name
        self.keep.append(arr)
        return name

    def _new_slot(self, arr):
        name = f"s{self.made}"
        self.made += 1
        self.names[id(arr)] = name
        self.keep.append(arr)
        return name

    def template(self, value):
        """``value`` (a kernel's argument) with each array replaced by its name."""
        cls = value.__class__
        if _is_array(value) or _bundle(value):
            name = self.names.get(id(value))
            if name is None:  # an array from elsewhere: a constant if it is the same object
                name = self.consts.setdefault(id(value), ("c", len(self.consts), value))[:2]
                self.keep.append(value)
            return ("ref", name)
        if cls is tuple or cls is list:
            return (cls.__name__, tuple(self.template(v) for v in value))
        if cls is dict:
            return ("dict", tuple((k, self.template(v)) for k, v in value.items()))
        if isinstance(value, _tensor.Tensor):
            self.problems.append(f"a kernel was given a tensor ({value.shape})")
        return ("value", _Same(value))

    def results(self, value):
        """The template of a kernel's result: each array (and each bundle) a new slot."""
        cls = value.__class__
        if _is_array(value) or _bundle(value):
            return ("ref", self._new_slot(value))
        if cls is tuple or cls is list:
            return (cls.__name__, tuple(self.results(v) for v in value))
        return None

    def tensor_ref(self, t):
        """How a replay finds the tensor ``t`` that existed before the step."""
        ref = self.tensor_refs.get(id(t))
        if ref is None:
            ref = ("obj", _Ref(t))
            self.tensor_refs[id(t)] = ref
        return ref

    # -- what the hooks see -------------------------------------------------------------------
    def here(self):
        return self.paused == 0 and threading.get_ident() == self.thread

    def read(self, t, attr, value):
        if attr == "_data":
            if id(value) not in self.names and id(t) not in self.created_ids:
                self._external(value, self.tensor_ref(t))
        elif value is not None and id(value) not in self.created_ids \
                and (id(t), "_grad") not in self.written and id(value) not in self.tensor_refs:
            self.tensor_refs[id(value)] = ("grad", self.tensor_ref(t))

    def wrote(self, t, attr, value, is_new):
        if is_new:
            self.created.append(weakref.ref(t))
            self.created_ids.add(id(t))
            return
        if id(t) in self.created_ids:
            return
        self.written.add((id(t), attr))
        self.entries.append(Entry("write", target=self.tensor_ref(t), attr=attr,
                                  value=self.value_template(value)))

    def value_template(self, value):
        """A template of a value written to a tensor's ``_data`` or ``_grad``."""
        if value is None:
            return None
        if isinstance(value, _tensor.Tensor):
            if id(value) in self.created_ids:
                if value._node is not None:
                    self.problems.append("it stores a tensor that requires grad")
                return ("tensor", type(value), value._dtype, value._ad,
                        self.template(_MEMBERS["_data"].__get__(value)), None)
            return ("old", self.tensor_ref(value))
        return self.template(value)

    def kernel(self, backend, name, args, kwargs, out, guard):
        self.entries.append(Entry(
            "kernel", name=name, target=_Ref(backend), args=self.template(args),
            kwargs=self.template(kwargs) if kwargs else None,
            out=self.results(out) if _holds_array(out) else None,
            guard=guard))

    def call(self, obj, attr, args, kwargs):
        self.entries.append(Entry("call", target=_Ref(obj), attr=attr,
                                  args=self.template(args),
                                  kwargs=self.template(kwargs)))
        self.written.clear()  # its writes are its own: what is read after it is read anew

    def module(self, m):
        if id(m) not in self.modules:
            self.modules[id(m)] = (weakref.ref(m), guarded_attributes(m))


class _Same:
    """A constant argument, equal to another when both recordings gave the same value."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return same(self.value, other.value)

    def __hash__(self):
        return 0


class _Ref:
    """A reference to an object that existed before the step: equal when it is the same
    object; a replay reaches it through ``ref()``."""

    __slots__ = ("ref", "ident")

    def __init__(self, obj):
        self.ident = id(obj)
        try:
            self.ref = weakref.ref(obj)
        except TypeError:
            self.ref = lambda obj=obj: obj

    def __eq__(self, other):
        return self.ident == other.ident and self.ref() is other.ref()

    def __hash__(self):
        return self.ident


def same(a, b):
    """Whether two constants are the same value (NaN equals NaN; containers and arrays compared
    item by item; otherwise ``==``, or identity where ``==`` does not give a bool).

    >>> same((1, float("nan")), (1, float("nan"))), same([1], (1,))
    (True, False)
    """
    if a is b:
        return True
    cls = a.__class__
    if cls is not b.__class__:
        return False
    if cls is tuple or cls is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if cls is float:
        return a == b or (a != a and b != b)
    if cls is dict:
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if hasattr(a, "shape") and hasattr(a, "dtype") and not isinstance(a, type):
        return _same_array(a, b)
    try:
        eq = a == b
    except Exception:  # noqa: BLE001 - an object without a usable ==: identity decides
        return False
    return eq if eq.__class__ is bool else False


def _same_array(a, b):
    """Host arrays (a host kernel's values): the same shape, dtype and bytes."""
    if a.shape != b.shape or a.dtype != b.dtype or not hasattr(a, "tobytes"):
        return False
    return a.tobytes() == b.tobytes()


def guarded_attributes(m):
    """The attributes of module ``m`` a replay checks: ``training`` and every plain number,
    string, bool or None among its attributes (equal values), and its tensors (the same
    objects: a replaced parameter is another recording's)."""
    return tuple((k, _Ref(v) if isinstance(v, _tensor.Tensor) else v)
                 for k, v in vars(m).items()
                 if v is None or v.__class__ in (bool, int, float, str)
                 or isinstance(v, _tensor.Tensor))


_ARRAY_TYPES = []


def _is_array(value):
    return isinstance(value, _ARRAY_TYPES[0])


def _holds_array(value):
    if _is_array(value):
        return True
    if isinstance(value, (tuple, list)):
        return any(_holds_array(v) for v in value)
    return False


def _bundle(value):
    """Whether ``value`` is a backend's own sequence of arrays (a tuple or list subclass, such
    as an indexing key that carries its axis): one value to the tape, passed on whole."""
    cls = value.__class__
    return cls is not tuple and cls is not list and isinstance(value, (tuple, list)) \
        and _holds_array(value)


# -- the hooks --------------------------------------------------------------------------------

class _Watched:
    """The descriptor of ``Tensor._data`` / ``Tensor._grad`` while a step is recorded."""

    def __init__(self, attr):
        self.attr = attr
        self.member = _MEMBERS[attr]

    def __get__(self, t, cls=None):
        if t is None:
            return self
        value = self.member.__get__(t, cls)
        rec = _active[0]
        if rec is not None and rec.here():
            rec.read(t, self.attr, value)
        return value

    def __set__(self, t, value):
        rec = _active[0]
        if rec is not None and rec.here():
            try:
                self.member.__get__(t)
                is_new = False
            except AttributeError:
                is_new = True
            self.member.__set__(t, value)
            if self.attr == "_data" or not is_new:
                rec.wrote(t, self.attr, value, is_new and self.attr == "_data")
            return
        self.member.__set__(t, value)


class _Proxy:
    """A device's backend while a step is recorded: its kernels record (see the module)."""

    def __init__(self, real):
        self._real = real
        cls = kernel_class(real)
        self._kernels = set(kernel_names(cls)) - metadata_kernels(cls)

    def __getattr__(self, name):
        real = self._real
        value = getattr(real, name)
        if name not in self._kernels or not callable(value):
            return value
        if name in _NEVER:
            def never(*args, **kwargs):
                rec = _active[0]
                if rec is not None and rec.here():
                    return False
                return getattr(real, name)(*args, **kwargs)
            fn = never
        elif name == "ew_operator":
            def operator(kname, dtype):
                return getattr(self, kname), getattr(self, kname), 0
            fn = operator
        else:
            fn = _recording_kernel(real, name)
        self.__dict__[name] = fn
        return fn


def _recording_kernel(real, name):
    host = name in HOST_KERNELS

    def kernel(*args, **kwargs):
        out = getattr(real, name)(*args, **kwargs)
        rec = _active[0]
        if rec is not None and rec.here():
            guard = _Same(out) if host or not _holds_array(out) else NO_GUARD
            rec.kernel(real, name, args, kwargs, out, guard)
        return out
    return kernel


def _pausing(method, attr):
    """``method`` (an optimizer's or scheduler's ``step``) run unrecorded, noted as a call."""
    def run(self, *args, **kwargs):
        rec = _active[0]
        if rec is None or not rec.here():
            return method(self, *args, **kwargs)
        rec.call(self, attr, args, kwargs)
        rec.paused += 1
        try:
            return method(self, *args, **kwargs)
        finally:
            rec.paused -= 1
    run.__wrapped__ = method
    return run


def _noting(method):
    """``Module.__call__`` noting the module (its flags are guards)."""
    def call(self, *args, **kwargs):
        rec = _active[0]
        if rec is not None and rec.here():
            rec.module(self)
        return method(self, *args, **kwargs)
    call.__wrapped__ = method
    return call


def _classes_with(base, attr):
    """``base`` and its subclasses that define ``attr`` themselves."""
    seen, todo, found = set(), [base], []
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        if attr in vars(cls):
            found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def _patches():
    """(class, attribute, replacement) of every hook (see the module)."""
    from ..nn.module import Module
    from ..optim.lr_scheduler_base import LRScheduler
    from ..optim.optimizer import Optimizer
    out = [(_tensor.Tensor, attr, _Watched(attr)) for attr in _MEMBERS]
    for base in (Optimizer, LRScheduler):
        out += [(cls, "step", _pausing(vars(cls)["step"], "step"))
                for cls in _classes_with(base, "step")]
    out += [(cls, "__call__", _noting(vars(cls)["__call__"]))
            for cls in _classes_with(Module, "__call__")]
    return out


def recording_here():
    """Whether the calling thread is recording a step."""
    rec = _active[0]
    return rec is not None and rec.thread == threading.get_ident()


def record(fn, args, kwargs, leaves):
    """Run ``fn(*args, **kwargs)`` once, eagerly, recording it (see the module); ``leaves`` are
    the tensors among the arguments, in order. Returns the Recording, with ``result`` the value
    ``fn`` returned (or re-raises what ``fn`` raised, with everything restored)."""
    from ..ops import operators
    with _lock:
        if _active[0] is not None:  # a compiled step called inside another's recording
            rec = Recording(leaves)
            rec.problems.append("it was called while another step was being recorded")
            rec.result = fn(*args, **kwargs)
            return rec
        devices = [d for d in set(_interned.values()) if _loaded(d)]
        for d in devices:
            d.backend.settle()
        arrays = tuple({t for d in devices for t in d.backend.array_types()})
        _ARRAY_TYPES[:] = [arrays]
        rec = Recording(leaves)
        patches = _patches()
        saved = [(cls, attr, vars(cls)[attr]) for cls, attr, _ in patches]
        backends = [(d, d.backend) for d in devices]
        operators.forget_kernels()
        try:
            for d, be in backends:
                d.backend = _Proxy(be)
            for cls, attr, new in patches:
                setattr(cls, attr, new)
            _active[0] = rec
            rec.result = fn(*args, **kwargs)
        finally:
            _active[0] = None
            for cls, attr, old in saved:
                setattr(cls, attr, old)
            for d, be in backends:
                d.backend = be
            operators.forget_kernels()
        return rec


def _loaded(device):
    """Whether ``device``'s backend is loaded (a device nobody used is left alone)."""
    try:
        object.__getattribute__(device, "backend")
    except AttributeError:
        return False
    return True


def escaped(rec, keep):
    """The tensors the step created that are still alive outside what a replay rebuilds
    (``keep``: ids of the output tensors and the tensors written to ``_grad``)."""
    gc.collect()
    out = []
    for ref in rec.created:
        t = ref()
        if t is not None and id(t) not in keep:
            out.append(t)
    return out
