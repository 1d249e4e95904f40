"""Burn's Module API for groups and records: ``ParamGroup`` selects parameters by name,
``ModuleRecord`` holds a module's tensors; the Module methods ``set_require_grad_group``,
``freeze_group``, ``unfreeze_group``, ``visit``, ``map``, ``into_record``, ``into_record_group``,
``load_record``, ``try_load_record`` and ``try_load_file`` are defined here.

- ``ParamGroup("encoder.*", "*.bias", predicate=None)`` selects tensors by fnmatch globs over
  their dotted state names (``*`` also matches dots) and/or a ``predicate(name, tensor)``.
- ``ModuleRecord``: an ordered, read-only mapping name -> tensor (copies, untracked).

>>> import ember
>>> from ember import nn
>>> m = nn.Linear(2, 1).freeze_group(nn.ParamGroup("bias"))
>>> [n for n, p in m.named_parameters() if p.is_require_grad()]
['weight']
"""

import fnmatch
from collections import OrderedDict
from collections.abc import Mapping

from .. import io as _io
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..ops.quantization import QuantizedTensor
from .._tensor import Tensor, _slot_get, _slot_set, as_tensor, wrap
from .module import _shape_str, module_method

__all__ = ["ParamGroup", "ModuleRecord"]


def _type_name(value):
    return type(value).__name__


# -- parameter groups ---------------------------------------------------------------------------

class ParamGroup:
    """A group of a module's tensors (Burn's ``ParamGroup``), selected by name and/or predicate.

    ``patterns``: fnmatch globs (``fnmatch.fnmatchcase``: case-sensitive, ``*`` also matches
    dots, so ``"encoder.*"`` is everything under ``encoder``) over the dotted names of
    ``named_parameters`` (and of ``state_dict`` where a method takes buffers too, as
    ``into_record_group``). A name is in the group when it matches one of the patterns (any
    name when there are none) and ``predicate(name, tensor)`` is true (when given). At least
    one pattern or a predicate is needed (``ParamGroup("*")`` is everything).

    ``strict=True`` (the default): a pattern that matches no name at all raises
    InvalidParameterError when the group is used, so a typo does not silently do nothing.

    >>> import ember
    >>> from ember import nn
    >>> m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    >>> nn.ParamGroup("*.bias").names(m)
    ['0.bias', '1.bias']
    >>> nn.ParamGroup(predicate=lambda name, t: t.ndim == 2).names(m)
    ['0.weight', '1.weight']
    >>> nn.ParamGroup("2.*").names(m)
    Traceback (most recent call last):
    ...
    ember.errors.InvalidParameterError: ParamGroup: pattern '2.*' matches no parameter; the names are ['0.weight', '0.bias', '1.weight', '1.bias']
    """

    __slots__ = ("patterns", "predicate", "strict")

    def __init__(self, *patterns, predicate=None, strict=True):
        if len(patterns) == 1 and isinstance(patterns[0], (list, tuple)):
            patterns = tuple(patterns[0])
        for p in patterns:
            if not isinstance(p, str) or not p:
                raise InvalidParameterError(
                    f"ParamGroup: pattern {p!r} must be a non-empty string (an fnmatch glob such "
                    "as 'encoder.*')", "patterns", p)
        if predicate is not None and not callable(predicate):
            raise InvalidParameterError(
                f"ParamGroup: predicate must be callable (name, tensor) -> bool or None, got "
                f"{_type_name(predicate)}", "predicate", predicate)
        if not patterns and predicate is None:
            raise InvalidParameterError(
                "ParamGroup: give at least one pattern or a predicate (ParamGroup('*') selects "
                "everything)", "patterns", ())
        if not isinstance(strict, bool):
            raise InvalidParameterError(f"ParamGroup: strict must be a bool, got {strict!r}",
                                        "strict", strict)
        object.__setattr__(self, "patterns", tuple(patterns))
        object.__setattr__(self, "predicate", predicate)
        object.__setattr__(self, "strict", strict)

    def __setattr__(self, name, value):
        raise AttributeError("ParamGroup is immutable")

    def matches(self, name, tensor):
        """Whether the tensor named ``name`` is in the group.

        >>> import ember
        >>> from ember import nn
        >>> nn.ParamGroup("fc*").matches("fc1.weight", ember.zeros(1))
        True
        """
        if self.patterns and not any(fnmatch.fnmatchcase(name, p) for p in self.patterns):
            return False
        if self.predicate is None:
            return True
        return bool(self.predicate(name, tensor))

    def _select(self, entries, what, op):
        """The entries ``(name, ...)`` (name first, tensor last) in the group; checks strict."""
        out = [e for e in entries if self.matches(e[0], e[-1])]
        if self.strict:
            names = [e[0] for e in entries]
            for p in self.patterns:
                if not any(fnmatch.fnmatchcase(n, p) for n in names):
                    shown = names if len(names) <= 12 else names[:12] + ["..."]
                    raise InvalidParameterError(
                        f"{op}: pattern {p!r} matches no {what}; the names are {shown}",
                        "group", p)
        return out

    def names(self, module):
        """The names of ``module``'s parameters in the group, in ``named_parameters`` order.

        >>> from ember import nn
        >>> nn.ParamGroup("*weight").names(nn.Linear(2, 2))
        ['weight']
        """
        return [e[0] for e in self._select(module._slots("param"), "parameter", "ParamGroup")]

    def __eq__(self, other):
        return (isinstance(other, ParamGroup) and self.patterns == other.patterns
                and self.predicate is other.predicate and self.strict == other.strict)

    def __hash__(self):
        return hash((self.patterns, id(self.predicate), self.strict))

    def __repr__(self):
        args = [repr(p) for p in self.patterns]
        if self.predicate is not None:
            args.append(f"predicate={getattr(self.predicate, '__name__', self.predicate)}")
        if not self.strict:
            args.append("strict=False")
        return f"ParamGroup({', '.join(args)})"


def check_group(group, op):
    if not isinstance(group, ParamGroup):
        raise InvalidParameterError(
            f"{op}: group must be a ParamGroup, got {_type_name(group)} {group!r}", "group", group)
    return group


# -- rebinding values ---------------------------------------------------------------------------

def _become_quantized(t, q):
    """Make tensor object ``t`` hold the quantized value ``q`` (same object, untracked)."""
    t.__class__ = QuantizedTensor
    _slot_set(t, _slot_get(q))
    t._node = None
    t.grad = None


def assign(old, new):
    """Rebind the value of ``old`` (the same object) to ``new``'s (cast to ``old``'s dtype); a
    quantized ``new`` of ``old``'s dtype makes ``old`` quantized (and so frozen)."""
    if new.__class__ is QuantizedTensor and new._dtype is old._dtype:
        _become_quantized(old, new)
        return
    value = new if new._dtype is old._dtype else new.cast(old._dtype)
    old._data = value._data  # a quantized ``old`` becomes a plain tensor (rebind_plain)


# -- records ------------------------------------------------------------------------------------

def _copy(t):
    if t.__class__ is QuantizedTensor:
        return t.clone()  # the stored integers are immutable: shared, never written
    return wrap(t._device.backend.copy(t._data, "ModuleRecord"), t._dtype)


def _describe(t):
    q = f" {t.scheme.value}" if t.__class__ is QuantizedTensor else ""
    return f"{t._dtype.name}{_shape_str(tuple(t.shape))}{q}"


class ModuleRecord(Mapping):
    """A module's tensors by name (Burn's ``ModuleRecord``): an ordered, read-only mapping name
    -> tensor. The tensors are copies (untracked; quantized ones stay quantized), so the record
    never changes when the module trains.

    ``partial``: a record of a group (``into_record_group``) is partial: loading it sets only
    its names and leaves the module's other tensors as they are; a full record (``into_record``)
    must name every tensor of the module. Unknown names are refused either way.
    ``==`` compares names (in any order), dtypes, shapes, values (NaN equal to NaN), which
    tensors are quantized, and ``partial``. ``ModuleRecord(mapping)`` builds one from tensors
    (or array-likes).

    >>> import ember
    >>> from ember import nn
    >>> rec = nn.Linear(3, 2).into_record()
    >>> rec
    ModuleRecord({'weight': float32(2, 3), 'bias': float32(2,)})
    >>> list(rec), rec.shapes["weight"], rec == rec, rec.partial
    (['weight', 'bias'], (2, 3), True, False)
    """

    def __init__(self, tensors=(), partial=False):
        if not isinstance(partial, bool):
            raise InvalidParameterError(f"ModuleRecord: partial must be a bool, got {partial!r}",
                                        "partial", partial)
        if isinstance(tensors, Mapping) or hasattr(tensors, "keys"):
            items = [(k, tensors[k]) for k in tensors.keys()]
        else:
            try:
                items = [tuple(kv) for kv in tensors]
            except TypeError:
                raise InvalidParameterError(
                    f"ModuleRecord: tensors must be a mapping or (name, tensor) pairs, got "
                    f"{_type_name(tensors)}", "tensors", tensors) from None
        data = OrderedDict()
        for item in items:
            if len(item) != 2:
                raise InvalidParameterError(
                    f"ModuleRecord: entry {item!r} is not a (name, tensor) pair", "tensors", item)
            name, value = item
            if not isinstance(name, str) or not name:
                raise InvalidParameterError(
                    f"ModuleRecord: name {name!r} must be a non-empty string", "tensors", name)
            if name in data:
                raise InvalidParameterError(f"ModuleRecord: name {name!r} appears twice",
                                            "tensors", name)
            if not isinstance(value, Tensor):
                try:
                    value = as_tensor(value, None, "ModuleRecord")
                except Exception as exc:  # anything that is no tensor at all
                    raise InvalidParameterError(
                        f"ModuleRecord: the value of {name!r} is not a tensor ({exc})",
                        "tensors", name) from None
            data[name] = _copy(value)
        self._tensors = data
        self.partial = partial

    def __getitem__(self, name):
        try:
            return self._tensors[name]
        except KeyError:
            raise KeyError(f"ModuleRecord: no tensor named {name!r}") from None

    def __iter__(self):
        return iter(self._tensors)

    def __len__(self):
        return len(self._tensors)

    @property
    def shapes(self):
        """name -> shape (a tuple), in order."""
        return OrderedDict((k, tuple(t.shape)) for k, t in self._tensors.items())

    @property
    def dtypes(self):
        """name -> dtype, in order."""
        return OrderedDict((k, t._dtype) for k, t in self._tensors.items())

    def state_dict(self):
        """The tensors as an OrderedDict (for ``load_state_dict`` or ``ember.io.save_file``).

        >>> from ember import nn
        >>> list(nn.Linear(1, 1).into_record().state_dict())
        ['weight', 'bias']
        """
        return OrderedDict(self._tensors)

    def __eq__(self, other):
        if not isinstance(other, ModuleRecord):
            return NotImplemented
        if self.partial != other.partial or set(self._tensors) != set(other._tensors):
            return False
        for name, a in self._tensors.items():
            b = other._tensors[name]
            if (a._dtype is not b._dtype or tuple(a.shape) != tuple(b.shape)
                    or (a.__class__ is QuantizedTensor) != (b.__class__ is QuantizedTensor)):
                return False
            same = a == b
            if a._dtype.kind == "float":
                same = same | (a.isnan() & b.isnan())
            if not bool(same.all()):
                return False
        return True

    __hash__ = None

    def __repr__(self):
        body = ", ".join(f"{k!r}: {_describe(t)}" for k, t in self._tensors.items())
        return f"ModuleRecord({{{body}}}{', partial=True' if self.partial else ''})"


def check_record(record, op):
    if not isinstance(record, ModuleRecord):
        hint = " (ModuleRecord(mapping) makes one)" if hasattr(record, "keys") else ""
        raise InvalidParameterError(
            f"{op}: record must be a ModuleRecord, got {_type_name(record)}{hint}", "record",
            record)
    return record


def _load_record(module, record, op):
    """Check every name, shape and kind of ``record`` against ``module``, then load it."""
    check_record(record, op)
    expected = OrderedDict()
    for name, _, _, t in module._slots("state", dedupe=False):
        expected.setdefault(name, t)
    owner = type(module).__name__
    unexpected = [k for k in record if k not in expected]
    missing = [] if record.partial else [n for n in expected if n not in record]
    if unexpected or missing:
        parts = []
        if missing:
            parts.append(f"missing names {missing}")
        if unexpected:
            parts.append(f"unexpected names {unexpected}")
        raise InvalidParameterError(
            f"{op}: {owner}: " + "; ".join(parts) + " (a record must name exactly the module's "
            "tensors; a partial record, from into_record_group, a subset of them)", "record",
            {"missing": missing, "unexpected": unexpected})
    bad_shape = [(k, tuple(v.shape), tuple(expected[k].shape)) for k, v in record.items()
                 if tuple(v.shape) != tuple(expected[k].shape)]
    if bad_shape:
        raise ShapeMismatchError(
            f"{op}: {owner}: mis-shaped names " + ", ".join(
                f"{k!r} (shape {_shape_str(a)} in the record, expected {_shape_str(e)})"
                for k, a, e in bad_shape),
            expected=[e for _, _, e in bad_shape], actual=[a for _, a, _ in bad_shape])
    bad_kind = [(k, v._dtype, expected[k]._dtype) for k, v in record.items()
                if v._dtype.kind != expected[k]._dtype.kind]
    if bad_kind:
        raise KindError(f"{op}: {owner}: " + ", ".join(
            f"{k!r} is {a.name} in the record, expected a {e.kind} tensor ({e.name})"
            for k, a, e in bad_kind))
    done = set()
    for name, _, _, old in module._slots("state", dedupe=False):
        if name in record and id(old) not in done:
            done.add(id(old))
            assign(old, record[name])
    return module


# -- reparameterizations ------------------------------------------------------------------------


@module_method
def set_require_grad_group(self, group, require_grad):
    """Set whether the parameters in ``group`` (a ``ParamGroup``) require grad, with
    ``set_require_grad``'s semantics; the others are untouched (Burn's
    ``set_require_grad_group``). Returns self.

    >>> from ember import nn
    >>> m = nn.Linear(2, 2).set_require_grad_group(nn.ParamGroup("bias"), False)
    >>> m.weight.is_require_grad(), m.bias.is_require_grad()
    (True, False)
    """
    return _require_grad_group(self, group, require_grad, "set_require_grad_group")


def _require_grad_group(self, group, require_grad, op):
    check_group(group, op)
    if not isinstance(require_grad, bool):
        raise InvalidParameterError(
            f"{op}: require_grad must be a bool, got {require_grad!r}", "require_grad",
            require_grad)
    for _, mod, path, t in group._select(self._slots("param"), "parameter", op):
        if require_grad:
            if not t.is_leaf or not t.is_autodiff():
                mod._rebind(path, wrap(t._data, t._dtype).require_grad())
            elif not t.is_require_grad():
                t.require_grad()
        else:
            t.set_require_grad(False)
    return self


@module_method
def freeze_group(self, group):
    """Freeze the parameters in ``group`` (Burn's ``freeze_group``); returns self.

    >>> from ember import nn
    >>> m = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1)).freeze_group(nn.ParamGroup("0.*"))
    >>> [n for n, p in m.named_parameters() if p.is_require_grad()]
    ['1.weight', '1.bias']
    """
    return _require_grad_group(self, group, False, "freeze_group")


@module_method
def unfreeze_group(self, group):
    """Make the parameters in ``group`` require grad again (Burn's ``unfreeze_group``);
    returns self.

    >>> from ember import nn
    >>> m = nn.Linear(2, 2).freeze().unfreeze_group(nn.ParamGroup("weight"))
    >>> m.weight.is_require_grad(), m.bias.is_require_grad()
    (True, False)
    """
    return _require_grad_group(self, group, True, "unfreeze_group")


def _visit_slots(self, buffers, op):
    if not isinstance(buffers, bool):
        raise InvalidParameterError(f"{op}: buffers must be a bool, got {buffers!r}",
                                    "buffers", buffers)
    slots = self._slots("param")
    if buffers:
        slots = slots + self._slots("buffer")
    return slots


@module_method
def visit(self, fn, buffers=False):
    """Call ``fn(name, tensor)`` for every parameter, each once, in ``named_parameters``
    order (Burn's ``visit``); ``buffers=True``: then for every buffer too (Burn's
    "module-owned control values", such as BatchNorm's running statistics). Returns None.

    >>> from ember import nn
    >>> seen = []
    >>> nn.BatchNorm1d(2).visit(lambda name, t: seen.append((name, t.shape)), buffers=True)
    >>> seen[:3]
    [('weight', (2,)), ('bias', (2,)), ('running_mean', (2,))]
    """
    if not callable(fn):
        raise InvalidParameterError(f"visit: fn must be callable (name, tensor), got {fn!r}",
                                    "fn", fn)
    for name, _, _, t in _visit_slots(self, buffers, "visit"):
        fn(name, t)


@module_method
def map(self, fn, buffers=False):
    """Rebind every parameter (and, with ``buffers=True``, every buffer) to
    ``fn(name, tensor)`` (Burn's ``map``): each tensor stays the same object (its
    require-grad kept, as an optimizer step) and gets the new value, cast to its dtype.

    ``fn`` is called for every tensor first and each result is checked (a Tensor of the same
    shape and kind) before any value changes. A quantized result of the same dtype makes the
    tensor quantized (and so frozen). Returns self.

    >>> import ember
    >>> from ember import nn
    >>> m = nn.Linear(2, 1)
    >>> w = m.weight
    >>> _ = m.map(lambda name, t: ember.zeros_like(t) if name == "bias" else t * 0 + 1)
    >>> m.weight is w, m.weight.tolist(), m.bias.tolist(), w.is_require_grad()
    (True, [[1.0, 1.0]], [0.0], True)
    """
    op = "map"
    if not callable(fn):
        raise InvalidParameterError(f"{op}: fn must be callable (name, tensor) -> tensor, "
                                    f"got {fn!r}", "fn", fn)
    new = []
    for name, _, _, t in _visit_slots(self, buffers, op):
        v = fn(name, t)
        if not isinstance(v, Tensor):
            raise InvalidParameterError(
                f"{op}: fn returned a {type(v).__name__} for {name!r}; expected a Tensor",
                "fn", v)
        if tuple(v.shape) != tuple(t.shape):
            raise ShapeMismatchError(
                f"{op}: fn returned shape {_shape_str(tuple(v.shape))} for {name!r}; "
                f"expected its shape {_shape_str(tuple(t.shape))}", expected=tuple(t.shape),
                actual=tuple(v.shape))
        if v._dtype.kind != t._dtype.kind:
            raise KindError(f"{op}: fn returned a {v._dtype.kind} tensor ({v._dtype.name}) "
                            f"for {name!r}; expected a {t._dtype.kind} tensor like it "
                            f"({t._dtype.name})")
        new.append((t, v))
    for t, v in new:
        assign(t, v)
    return self


@module_method
def into_record(self):
    """A ``ModuleRecord`` of every parameter and persistent buffer under its ``state_dict``
    name (Burn's ``into_record``): copies, so later training does not change it. The module
    is not consumed (Python has no ownership).

    >>> import ember
    >>> from ember import nn
    >>> m = nn.Linear(2, 1)
    >>> rec = m.into_record()
    >>> _ = m.map(lambda n, t: ember.zeros_like(t))
    >>> rec == m.into_record(), m.load_record(rec).into_record() == rec
    (False, True)
    """
    return ModuleRecord(self.state_dict())


@module_method
def into_record_group(self, group):
    """A partial ``ModuleRecord`` of the parameters and persistent buffers in ``group`` (a
    ``ParamGroup`` over the ``state_dict`` names); loading it sets only those names.

    >>> from ember import nn
    >>> m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    >>> rec = m.into_record_group(nn.ParamGroup("1.*"))
    >>> list(rec), rec.partial
    (['1.weight', '1.bias', '1.running_mean', '1.running_var', '1.num_batches_tracked'], True)
    """
    op = "into_record_group"
    check_group(group, op)
    state = list(self.state_dict().items())
    return ModuleRecord(group._select(state, "tensor of the state dict", op), partial=True)


@module_method
def load_record(self, record):
    """Load a ``ModuleRecord`` (Burn's ``load_record``); returns self.

    Everything is checked before any value changes, and a failure leaves the module as it
    was: a name the module lacks (InvalidParameterError), for a full record also a name the
    record lacks (a partial record, from ``into_record_group``, loads only its names), a
    shape (ShapeMismatchError) or a kind (KindError: float into int ...) that differs.
    Values are cast to the module's dtypes; the module's tensors stay the same objects, so
    an optimizer built before keeps updating them. A quantized record value stays quantized.

    >>> import ember
    >>> from ember import nn
    >>> rec = nn.ModuleRecord({"weight": ember.ones(1, 2)})
    >>> nn.Linear(2, 1).load_record(rec)
    Traceback (most recent call last):
    ...
    ember.errors.InvalidParameterError: load_record: Linear: missing names ['bias'] (a record must name exactly the module's tensors; a partial record, from into_record_group, a subset of them)
    """
    return _load_record(self, record, "load_record")


@module_method
def try_load_record(self, record):
    """Burn's fallible ``try_load_record``: Rust's ``Result`` becomes an exception, so this
    is ``load_record`` (the same checks and errors, nothing changed on failure).

    >>> import ember
    >>> from ember import nn
    >>> rec = nn.ModuleRecord({"weight": ember.ones(2, 2)}, partial=True)
    >>> nn.Linear(2, 1).try_load_record(rec)
    Traceback (most recent call last):
    ...
    ember.errors.ShapeMismatchError: try_load_record: Linear: mis-shaped names 'weight' (shape (2, 2) in the record, expected (1, 2))
    """
    return _load_record(self, record, "try_load_record")


@module_method
def try_load_file(self, path, strict=True):
    """Burn's fallible ``try_load_file``: load a file written by ``save_file`` with
    ``load_record``'s checks (names, shapes and kinds; ``strict=False``: the file may name
    a subset of the tensors). Errors are exceptions (a missing file: FileNotFoundError; a
    bad one: InvalidParameterError), and the module is unchanged on failure. Returns self.

    >>> import os, tempfile
    >>> from ember import nn
    >>> path = os.path.join(tempfile.mkdtemp(), "m.safetensors")
    >>> a, b = nn.Linear(2, 1), nn.Linear(2, 1)
    >>> a.save_file(path)
    >>> b.try_load_file(path).into_record() == a.into_record()
    True
    """
    if not isinstance(strict, bool):
        raise InvalidParameterError(f"try_load_file: strict must be a bool, got {strict!r}",
                                    "strict", strict)
    return _load_record(self, ModuleRecord(_io.load_file(path), partial=not strict),
                       "try_load_file")
