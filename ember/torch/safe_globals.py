"""The globals ``torch.load(weights_only=True)`` may rebuild beyond tensors and containers:
``add_safe_globals``, ``get_safe_globals``, ``clear_safe_globals`` and the ``safe_globals``
context manager of ``torch.serialization``. A class listed here is rebuilt as pickle does (its
``__new__``, then ``__setstate__`` or its ``__dict__`` updated); a function is called or
returned as the file says. Each entry is an object (named by its ``__module__`` and
``__qualname__``) or an ``(object, "module.name")`` pair for an object saved under another name.

>>> import io, collections, ember.torch as torch
>>> Point = collections.namedtuple("Point", "x y")
>>> torch.serialization.add_safe_globals([Point])
>>> Point in torch.serialization.get_safe_globals()
True
>>> torch.serialization.clear_safe_globals()
>>> with torch.serialization.safe_globals([Point]):
...     len(torch.serialization.get_safe_globals())
1
>>> torch.serialization.get_safe_globals()
[]
"""

from ..errors import InvalidParameterError

__all__ = ["add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]

_ALLOWED = []


def _checked(entries, where):
    if isinstance(entries, (str, bytes)) or not hasattr(entries, "__iter__"):
        raise InvalidParameterError(f"{where}: safe_globals must be a list of objects or "
                                    f"(object, 'module.name') pairs, got {entries!r}",
                                    "safe_globals", entries)
    entries = list(entries)
    for entry in entries:
        if isinstance(entry, tuple):
            if len(entry) != 2 or not isinstance(entry[1], str) or "." not in entry[1]:
                raise InvalidParameterError(
                    f"{where}: a pair in safe_globals must be (object, 'module.name'), got "
                    f"{entry!r}", "safe_globals", entry)
        elif not isinstance(getattr(entry, "__module__", None), str) or not isinstance(
                getattr(entry, "__qualname__", getattr(entry, "__name__", None)), str):
            raise InvalidParameterError(
                f"{where}: {entry!r} in safe_globals has no __module__ and __qualname__ to be "
                "found by; pass it as (object, 'module.name')", "safe_globals", entry)
    return entries


def add_safe_globals(safe_globals):
    """Allow the objects of the list ``safe_globals`` in ``load(weights_only=True)`` from now
    on (see the module docstring)."""
    _ALLOWED.extend(_checked(safe_globals, "add_safe_globals"))


def get_safe_globals():
    """The objects ``add_safe_globals`` (or an open ``safe_globals`` block) allowed, a list."""
    return list(_ALLOWED)


def clear_safe_globals():
    """Forget every object ``add_safe_globals`` allowed."""
    _ALLOWED.clear()


class safe_globals:
    """``with safe_globals([...]):`` allows the objects of the list inside the block only."""

    def __init__(self, safe_globals):
        self.entries = _checked(safe_globals, "safe_globals")
        self.saved = None

    def __enter__(self):
        self.saved = list(_ALLOWED)
        _ALLOWED.extend(self.entries)

    def __exit__(self, *exc):
        _ALLOWED[:] = self.saved
        return False


def _name(obj):
    return obj.__module__, getattr(obj, "__qualname__", None) or obj.__name__


def allowed():
    """``(module, name)`` -> object for every allowed object: what a pickle's globals may name.
    An ember.torch function that presents one of ember's (``__wrapped__``: ``F.relu``, which a
    layer may hold as ember's ``relu``) allows that one too."""
    table = {}
    for entry in _ALLOWED:
        if isinstance(entry, tuple):
            obj, full = entry
            module, _, name = full.rpartition(".")
            table[module, name] = obj
            continue
        table[_name(entry)] = entry
        inner = getattr(entry, "__wrapped__", None)
        if callable(inner) and isinstance(getattr(inner, "__module__", None), str):
            table.setdefault(_name(inner), inner)
    return table
