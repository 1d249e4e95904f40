"""Views alias their base: a write through any tensor of a family is seen by all of them.

ember's buffers stay immutable; aliasing is kept as a record. The result of a view op
(``x[0]``, ``view``, ``t``, ``detach``, ``.data`` ...) joins its base's *family*: one root
tensor and, for each live view, the *steps* (the view ops, replayed) that derive it from the
root. A write (``write``) computes the root's new value with the written view's elements
replaced (their positions found by replaying its steps on the root's flat positions), rebinds
the root and derives every other live view from it again. So ``v = x[0]; v += 1`` changes
``x``, as in PyTorch, on every backend; with autodiff the root's new value is recorded from the
old one and the written values (PyTorch's CopySlices).

Each family counts its writes (``version``, PyTorch's version counter, shared by all views);
a gradient rule's saved tensor (``ember._tensor.saved``) remembers the version it was taken at,
and backward raises GraphError when it changed.

>>> import ember.torch as torch
>>> x = torch.zeros(2, 3)
>>> row = x[1]
>>> row += 5
>>> x.tolist()
[[0.0, 0.0, 0.0], [5.0, 5.0, 5.0]]
>>> x.t()[0, 1] = 7
>>> row.tolist()
[7.0, 5.0, 5.0]
"""

import threading
from contextlib import nullcontext

from ..autodiff.graph import _mode, no_grad
from ..dtypes import int64
from ..errors import GraphError, KindError
from .._tensor import (Family, Tensor, _alias_of, _set_slot, alias, capturing, family_of,
                       wrap)

__all__ = ["Family", "family_of", "register_view", "write", "review",
           "leave_family", "written", "join", "view_method", "alias_view", "VIEWS"]


def _leaf_requiring_grad(t):
    node = t._node
    return node is not None and node.requires_grad and node.backward is None and not node.parents


def _leaf_error(op):
    return GraphError(f"{op}: the tensor is a leaf that requires grad, and its new value would be "
                      "recorded from it; update it inside `with ember.no_grad():`, or call "
                      "detach() first")


def _rebind(self, result, op):
    """Make ``self`` hold ``result``'s value and graph (Burn's ``inplace``); a leaf that requires
    grad stays that leaf when ``result`` is untracked (an update under ``no_grad``)."""
    if result is self:
        return
    node = self._node
    keep_leaf = _leaf_requiring_grad(self)
    if keep_leaf:
        if result._node is not None and result._node is not node:
            raise _leaf_error(op)
        keep_leaf = result._dtype.kind == "float"
    same = (result._data.shape == self._data.shape and result._dtype is self._dtype
            and result._device is self._device)
    self._data = result._data
    self._dtype = result._dtype
    self._device = result._device
    self._ad = result._ad
    if keep_leaf:
        if not same:
            self.grad = None
    else:
        self._node = result._node
        self.grad = None


class Link:
    """A view's place in its family: the steps from the root (and the root itself, which the
    view keeps alive, as a PyTorch view keeps its base's storage)."""

    __slots__ = ("family", "steps", "root")

    def __init__(self, family, steps, root):
        self.family = family
        self.steps = steps
        self.root = root

    @property
    def detached(self):
        """Whether a step detaches the root's graph (``detach``, ``.data``)."""
        return any(s[0] in _DETACHING for s in self.steps)

    @property
    def identity(self):
        """Whether the view holds the root's elements in place (``detach``, ``as_torch``)."""
        return all(s[0] in _IDENTITY for s in self.steps)

    @property
    def blocked(self):
        """The name of a step ember does not write through, or None."""
        return next((s[0] for s in self.steps if s[0] in _UNALIASED), None)

    @property
    def overlapping(self):
        """Whether a step may map two elements to one address (``expand``, ``unfold``)."""
        return any(s[0] in _OVERLAPPING for s in self.steps)


# the view steps by what they do to a write: detach the root's graph, keep every element in
# place (the view is the root), may map two elements to one address, or are not aliased
_DETACHING = frozenset(("detach", "data"))
_IDENTITY = frozenset(("detach", "data", "alias"))
_OVERLAPPING = frozenset(("expand", "expand_as", "broadcast_to", "unfold", "as_strided"))
_SAME_VALUE = frozenset(("fill_", "zero_"))  # writes an overlapping view may take (PyTorch's)
_UNALIASED = frozenset(("real", "imag", "view_as_real", "view_as_complex", "view_dtype"))


def register_view(base, view, step):
    """Record ``view`` (the result of the view step ``step`` = (name, fn, args, kwargs, item)
    on ``base``) as an alias of ``base``'s memory; returns ``view``."""
    if view is base or not isinstance(view, Tensor) or getattr(view, "_alias", None) is not None:
        return view
    a = getattr(base, "_alias", None)
    if a is None:
        family = base._alias = Family()
        view._alias = Link(family, (step,), base)
    elif a.__class__ is Family:
        family = a
        view._alias = Link(a, (step,), base)
    else:
        family = a.family
        view._alias = Link(family, a.steps + (step,), a.root)
    family.add(view)
    return view


def _replay(steps, t):
    for _name, fn, args, kwargs, item in steps:
        t = fn(t, *args, **kwargs)
        if item is not None:
            t = t[item] if type(item) is int else t
    return t


def _take(t, value, data_only=False):
    """``t`` holds ``value``'s buffer, and its graph unless ``data_only`` (or ``t`` is a leaf that
    requires grad, which keeps its node)."""
    t._data = value._data
    t._dtype = value._dtype
    t._device = value._device
    if data_only:
        return
    node = t._node
    if node is not None and node.requires_grad and node.backward is None and not node.parents:
        return
    t._ad = value._ad
    t._node = value._node
    t._grad = None


def _has_repeats(idx):
    s = Tensor.sort(Tensor.reshape(idx, (-1,)))
    return bool(Tensor.any(s[1:] == s[:-1]))


def _positions(link, root, op=""):
    """The flat positions in ``root`` of the view's elements (an int64 tensor of its shape)."""
    be = root._device.backend
    with no_grad():
        flat = wrap(be.creation_arange(0, root.numel(), 1, int64, False), int64)
        idx = _replay(link.steps, Tensor.reshape(flat, tuple(root.shape)))
        if op not in _SAME_VALUE and idx.numel() > 1 and link.overlapping:
            if _has_repeats(idx):
                raise GraphError(
                    "unsupported operation: more than one element of the written-to tensor refers "
                    "to a single memory location (it is an expanded or overlapping view); clone it "
                    "before writing (x.clone())")
    return idx


def _scatter(root, idx, value):
    shape = tuple(root.shape)
    flat = Tensor.reshape(root, (-1,))
    out = Tensor.scatter(flat, 0, Tensor.reshape(idx, (-1,)), Tensor.reshape(value, (-1,)),
                         "assign")
    return Tensor.reshape(out, shape)


def _check_writable(link, op):
    if link.blocked:
        raise KindError(f"{op}: the tensor is a {link.blocked} view; ember does not write through "
                        f"{link.blocked} views (a write would not reach the tensor it views). "
                        "Write to a clone, or to the base tensor")
    root = link.root
    if not link.detached and _mode.enabled:
        node = root._node
        if node is not None and node.requires_grad and node.backward is None and not node.parents:
            raise GraphError(f"{op}: a view of a leaf tensor that requires grad is being used in "
                             "an in-place operation; write inside `with ember.no_grad():`, or "
                             "write to a view of its detach()")


# held while a write reads the values it replaces and rebinds them, so that threads writing
# disjoint parts of one tensor (or of its views) do not lose each other's writes
writing = threading.RLock()


def write(t, value, op):
    """Make ``t`` hold ``value`` (a tensor of ``t``'s shape and dtype), seen by every alias of
    ``t``; counts one write. With grad mode on, ``t`` (and the tensor it views) take
    ``value``'s graph; under ``no_grad`` only the values change, every graph stays.

    >>> import ember.torch as torch
    >>> x = torch.zeros(3)
    >>> v = x[1:]
    >>> write(v, torch.ones(2), "demo")
    >>> x.tolist()
    [0.0, 1.0, 1.0]
    """
    with writing:
        _write(t, value, op)


def _write(t, value, op):
    data_only = not _mode.enabled
    a = _alias_of(t)
    if a is None:  # no view of t and no saved copy: nobody else can see the write
        if data_only:
            _take(t, value, True)
        else:
            _rebind(t, value, op)
        return
    if a.__class__ is Family:
        family, root = a, t
        if data_only:
            _take(t, value, True)
        else:
            _rebind(t, value, op)
    else:
        family = a.family
        _check_writable(a, op)
        root = a.root
        if a.identity:
            new = value
        elif a.detached or data_only:
            with no_grad():
                new = _scatter(_untracked(root), _positions(a, root, op), _untracked(value))
        else:
            new = _scatter(root, _positions(a, root, op), value)
        if a.detached or data_only:
            _take(root, new, True)
        else:
            _rebind(root, new, op)
        _take(t, value, data_only)
    family.version += 1
    members = family.live()
    if members:
        with no_grad() if data_only else nullcontext():
            for m, link in members:
                if m is not t:
                    _take(m, _replay(link.steps, root), data_only)


def _untracked(x):
    return wrap(x._data, x._dtype, x._ad)


class _Unwritten:
    version = 0


_UNWRITTEN = _Unwritten()


class saving_original:
    """``with saving_original(t) as s: value = f(t)`` then ``s.written()`` after ``write(t,
    value)``: the tensors the steps computing ``value`` saved from ``t`` (or from ``value``)
    hold ``t``'s value before the write, as PyTorch's in-place ops save the original; they
    count from the write on, so only a later write makes backward raise."""

    def __init__(self, t):
        self.t = t
        self.got = []

    def __enter__(self):
        capturing.append(self.got)
        return self

    def __exit__(self, *exc):
        capturing.remove(self.got)
        return False

    def written(self, value=None):
        if not self.got:
            return
        family = family_of(self.t)
        after = _alias_of(value) if value is not None else None
        result = after.family if isinstance(after, Link) else after
        for check in self.got:
            if check[0] is family:  # the original value: a copy of its own, as PyTorch's
                check[0], check[1] = _UNWRITTEN, 0
            elif check[0] is result and result is not None:  # the result: self from now on
                check[0], check[1] = family, family.version


def written(t):
    """Bring every alias of ``t`` along after ``t._data`` was set directly (an optimizer's step:
    no step recorded).

    >>> import ember.torch as torch
    >>> p = torch.zeros(2)
    >>> d = p.data
    >>> p._data = torch.ones(2)._data
    >>> written(p)
    >>> d.tolist()
    [1.0, 1.0]
    """
    if _alias_of(t) is not None:
        with no_grad():
            write(t, wrap(t._data, t._dtype, t._ad), "step")


def leave_family(t):
    """Take ``t`` out of its family (it keeps its value; the others keep theirs): for ops that
    give ``t`` new memory (``resize_``, ``set_``, Burn's ``inplace``)."""
    a = _alias_of(t)
    if a is None:
        return
    family = a if a.__class__ is Family else a.family
    if a.__class__ is Family:
        members = family.live()
        if members:
            # the others keep the old memory: a hidden tensor holding it becomes their root
            keeper = alias(t)
            _set_slot(keeper, family)
            for _m, link in members:
                link.root = keeper
    fresh = Family()
    fresh.version = family.version
    _set_slot(t, fresh)


def review(t, name, fn, args=(), kwargs=None):
    """``t`` becomes the view ``fn(t, *args)`` of its own memory (PyTorch's in-place shape ops:
    ``t_``, ``transpose_``, ``squeeze_``, ``unsqueeze_``, ``as_strided_``); returns ``t``."""
    kwargs = kwargs or {}
    value = fn(t, *args, **kwargs)
    a = _alias_of(t)
    if a is None or (a.__class__ is Family and not a.live()):
        _take(t, value)
        return t
    step = (name, fn, args, kwargs, None)
    if a.__class__ is Family:
        keeper = alias(t)
        family = a
        _set_slot(keeper, family)
        for _m, link in family.live():
            link.root = keeper
        link = Link(family, (step,), keeper)
    else:
        family = a.family
        link = Link(family, a.steps + (step,), a.root)
    _set_slot(t, link)
    family.add(t)
    _take(t, value)
    return t


def join(t, source):
    """``t`` shares ``source``'s memory from now on (PyTorch's ``t.set_(source)`` and
    ``t.data = source``): it leaves its family and joins ``source``'s as the same view."""
    leave_family(t)
    a = _alias_of(source)
    if a is None or a.__class__ is Family:
        family = a or Family()
        if a is None:
            _set_slot(source, family)
        link = Link(family, (("alias", _same, (), {}, None),), source)
    else:
        family = a.family
        link = Link(family, a.steps, a.root)
    _set_slot(t, link)
    family.add(t)


def _same(t):
    return alias(t, type(t))


def alias_view(t, cls):
    """A new ``cls`` object for ``t``'s value and graph that is a view of ``t`` (the same
    elements): ``as_torch``, ``as_ember``."""
    return register_view(t, alias(t, cls), ("alias", _same, (), {}, None))


# -- the view methods -----------------------------------------------------------------------

def _basic_key(key):
    k = type(key)
    if k is int or k is slice:
        return True
    items = key if k is tuple else (key,)
    for it in items:
        k = type(it)
        if not (k is int or k is slice or it is None or it is Ellipsis or
                (hasattr(k, "__index__") and k is not bool and not isinstance(it, Tensor))):
            return False
    return True


def view_method(name, fn, kind="one", convert=None):
    """``fn`` (a Tensor method whose result views ``self``) recording its result(s) as views:
    ``kind`` is "one" (one tensor), "many" (a sequence of views, ``split``), "getitem" (a view
    for basic keys only) or "maybe" (a view when it shares ``self``'s memory, or always on a
    backend without memory layout: ``reshape``). ``convert``: the function ``fn`` applies to
    the result of the function ``fn.returns_torch_of`` (ember.torch's methods); the method then
    calls that function and ``convert`` itself (one call less; the recorded step names ``fn``)."""
    raw = getattr(fn, "returns_torch_of", None) if convert is not None else None
    if raw is not None and kind in ("one", "getitem"):
        if kind == "one":
            def method(self, *args, **kwargs):
                return register_view(self, convert(raw(self, *args, **kwargs)),
                                     (name, fn, args, kwargs, None))
        else:
            def method(self, key):
                out = convert(raw(self, key))
                if _basic_key(key):
                    register_view(self, out, (name, fn, (key,), {}, None))
                return out
    elif kind == "getitem":
        def method(self, key):
            out = fn(self, key)
            if _basic_key(key):
                register_view(self, out, (name, fn, (key,), {}, None))
            return out
    elif kind == "many":
        def method(self, *args, **kwargs):
            out = fn(self, *args, **kwargs)
            for i, piece in enumerate(out):
                register_view(self, piece, (name, fn, args, kwargs, i))
            return out
    elif kind == "maybe":
        def method(self, *args, **kwargs):
            out = fn(self, *args, **kwargs)
            be = self._device.backend
            if (isinstance(out, Tensor) and out is not self and
                    (not be.has_layout or be.shares_memory(out._data, self._data))):
                register_view(self, out, (name, fn, args, kwargs, None))
            return out
    else:
        def method(self, *args, **kwargs):
            return register_view(self, fn(self, *args, **kwargs), (name, fn, args, kwargs, None))
    method.__name__ = getattr(fn, "__name__", name)
    method.__qualname__ = getattr(fn, "__qualname__", name)
    method.__doc__ = fn.__doc__
    method.__wrapped__ = fn
    method.view_of = fn
    return method


# method name -> kind, for ember.Tensor and ember.torch.Tensor
VIEWS = {
    "__getitem__": "getitem", "detach": "one", "view": "one", "view_as": "one",
    "reshape": "maybe", "reshape_as": "maybe", "flatten": "maybe", "unflatten": "one",
    "squeeze": "one", "unsqueeze": "one", "squeeze_dims": "one", "transpose": "one",
    "swap_dims": "one", "swapaxes": "one", "swapdims": "one", "permute": "one",
    "movedim": "one", "moveaxis": "one", "t": "one", "narrow": "one", "select": "one",
    "diagonal": "one", "expand": "one", "expand_as": "one", "broadcast_to": "one",
    "unfold": "one", "as_strided": "one", "slice": "one", "split": "many", "chunk": "many",
    "unbind": "many", "tensor_split": "many", "split_with_sizes": "many", "hsplit": "many",
    "vsplit": "many", "dsplit": "many", "real": "one", "imag": "one",
}
VIEW_PROPERTIES = ("T", "mT", "H", "mH")


def install(cls, convert=None):
    """Make the view methods and properties of ``cls`` (defined on it, not inherited) record
    their results as views (idempotent); ``convert``: see ``view_method``."""
    for name, kind in VIEWS.items():
        fn = cls.__dict__.get(name)
        if fn is None or not callable(fn) or _is_view_method(fn):
            continue
        setattr(cls, name, view_method(name, fn, kind, convert))
    for name in VIEW_PROPERTIES:
        prop = cls.__dict__.get(name)
        if isinstance(prop, property) and not _is_view_method(prop.fget):
            get = view_method(name, prop.fget)
            setattr(cls, name, property(get, prop.fset, prop.fdel, prop.__doc__))


def _is_view_method(fn):
    while fn is not None:
        if hasattr(fn, "view_of"):
            return True
        fn = getattr(fn, "__wrapped__", None)
    return False
