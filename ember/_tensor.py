"""class Tensor: the value, its dtype and its autodiff state; the op families add the methods.

Each op family module (``ember/ops/*.py``) attaches its methods with ``@tensor_method``, so this
file holds only what every op needs: construction, metadata, and ``record``, which wraps a
kernel's result and records the autodiff step.
"""

import threading as _threading
import weakref

from . import dtypes as _dt
from .autodiff.graph import Node, _mode, distributed_leaves
from .backends import adopt as _adopt
from .devices import CPU, Device, as_device
from .errors import DeviceError, GraphError, InvalidParameterError, KindError
from .shapes import MAX_RANK, check_rank, normalize_dim

__all__ = ["Tensor", "Device", "tensor_method", "record", "record_arrays", "saved", "wrap",
           "as_tensor", "check_kind", "check_tensor", "backend_of", "backend_of_all", "transfer"]


class Size(int):
    """``t.size``: the number of elements as an int, and PyTorch's ``t.size(dim=None)`` when
    called (the shape, or the size of dim ``dim``).

    >>> t = Tensor([[1, 2, 3], [4, 5, 6]])
    >>> t.size, t.size(), t.size(-1)
    (6, (2, 3), 3)
    """


    def __new__(cls, n, shape):
        self = int.__new__(cls, n)
        self.shape = shape
        return self

    def __call__(self, dim=None):
        if dim is None:
            return self.shape
        return self.shape[normalize_dim(dim, len(self.shape), "size")]

    def __repr__(self):
        return int.__repr__(self)


def _data_from(data, dtype, op="Tensor", device=None):
    """A backend array and ember dtype from user data (nested lists, scalars, arrays, tensors),
    on ``device`` (None: a tensor's own device, else the default device)."""
    if isinstance(data, Tensor):
        arr = data._data
        if device is not None and device is not data._device:
            arr = transfer(arr, data._dtype, data._device, device)
        if dtype is None:
            return arr, data._dtype
        if data._dtype.kind == "complex" and dtype.kind != "complex":
            raise KindError(f"{op}: data is a {data._dtype.name} tensor: "
                            + (device or data._device).backend.complex_cast_message(dtype))
        return (device or data._device).backend.cast(arr, dtype), dtype
    be = (device or as_device(None, op)).backend
    try:
        arr = be.asarray(data, dtype)
    except be.RaggedError:
        raise InvalidParameterError(
            f"{op}: data is ragged (nested sequences of unequal lengths); expected a rectangular "
            "nesting", "data", data) from None
    except be.RankError:
        check_rank(MAX_RANK + 1, op, "data")
    except (TypeError, OverflowError) as exc:
        raise KindError(f"{op}: data {data!r} cannot become a tensor: {exc}") from None
    if dtype is None:
        try:
            dtype = be.dtype_of(arr)
        except KindError:
            raise KindError(f"{op}: data of dtype {arr.dtype} has no ember kind") from None
        if dtype.kind in ("float", "complex") and not hasattr(data, "dtype"):
            # Python floats and complex values: the default dtypes; values that carry a dtype
            # (NumPy scalars) keep it, as PyTorch's
            found = _dt.sequence_dtype(data) if isinstance(data, (list, tuple)) else None
            default = _dt.default_float
            dtype = found or (default if dtype.kind == "float" else _dt.complex_of(default))
            arr = be.cast(arr, dtype)
    return arr, dtype


def transfer(arr, dtype, source, target):
    """The array ``arr`` (of ember ``dtype``, on Device ``source``) on Device ``target``, through
    host memory (zero-copy where the two backends can share it)."""
    if source.backend_name == target.backend_name:
        return target.backend.move(arr)
    return target.backend.from_host(source.backend.to_host(arr), dtype)


class Tensor:
    """An n-dimensional array of one dtype, immutable, with automatic differentiation.

    >>> Tensor([[1.0, 2.0], [3.0, 4.0]]).shape
    (2, 2)
    """

    # ``_alias``: the tensor's aliasing record (ember/ops/aliasing.py), unset until a view of it
    # is taken or it is written in place
    __slots__ = ("_data", "_dtype", "_device", "_node", "_ad", "_grad", "_alias", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, data, dtype=None, device=None, requires_grad=False):
        if device is not None:
            device = as_device(device, "Tensor")
        if dtype is not None:
            dtype = _dt.as_dtype(dtype)
        self._data, self._dtype = _data_from(data, dtype, "Tensor", device)
        self._device = device or _adopt_device(self._data)
        self._node = None
        self._ad = "none"
        self._grad = None  # the ``grad`` property (ember/autodiff/api.py) checks assignments
        if requires_grad:
            self.require_grad()

    # -- metadata ---------------------------------------------------------------------------
    @property
    def shape(self):
        """The sizes of the dims, a tuple: ``Tensor([[1, 2]]).shape == (1, 2)``."""
        shape = self._data.shape
        return shape if shape.__class__ is tuple else tuple(shape)  # torch.Size is a subclass

    def dims(self):
        """The sizes of the dims as a list (Burn's ``dims``): ``[2, 3]``."""
        return list(self._data.shape)

    @property
    def ndim(self):
        """The number of dims."""
        return self._data.ndim

    def rank(self):
        """The number of dims (Burn's ``rank``)."""
        return self._data.ndim

    def dim(self):
        """The number of dims (PyTorch's ``dim``)."""
        return self._data.ndim

    def numel(self):
        """The number of elements."""
        return self._device.backend.numel(self._data)

    @property
    def size(self):
        """The number of elements (the Array API's attribute, ``t.size == 6``); called, PyTorch's
        method: the shape, or the size of one dim (``ember.zeros(2, 3).size(-1) == 3``)."""
        return Size(self._device.backend.numel(self._data), self.shape)

    @property
    def dtype(self):
        """The element type, an ``ember.DType``."""
        return self._dtype

    @property
    def kind(self):
        """``"float"``, ``"int"``, ``"bool"`` or ``"complex"``."""
        return self._dtype.kind

    @property
    def device(self):
        """The device of the buffer, ``Device('cpu')`` by default; ``t.device()`` gives it too."""
        return self._device

    def is_contiguous(self):
        """Whether the buffer is laid out row-major without gaps."""
        return self._device.backend.is_contiguous(self._data)

    def contiguous(self):
        """This tensor if contiguous, else a contiguous copy (same values, same graph)."""
        be = self._device.backend
        if be.is_contiguous(self._data):
            return self
        return record(be.contiguous(self._data), self._dtype, (self,), _identity_backward,
                      "contiguous")

    def __len__(self):
        if self._data.ndim == 0:
            raise KindError("len() of a 0-d tensor; it has no dim 0 (a TypeError, as Python's and "
                            "NumPy's for unsized objects)")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise KindError("iteration over a 0-d tensor; it has no dim 0 (a TypeError, as "
                            "Python's for objects that are not iterable)")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    @property
    def is_leaf(self):
        """Whether no recorded op produced this tensor (PyTorch's ``is_leaf``)."""
        node = self._node
        return node is None or node.backward is None and not node.parents

    def set_distributed(self, param_id):
        """Mark this parameter as distributed (Burn's ``set_distributed``); returns the tensor.

        While a process group is initialized (``ember.distributed``), backward averages the
        gradients of distributed parameters across ranks. Does nothing when autodiff is
        disabled for the tensor. ``param_id`` is an ``ember.distributed.ParamId`` (or an int),
        the same on every rank for the same parameter.

        >>> import ember
        >>> w = ember.zeros(3).require_grad().set_distributed(0)
        >>> w.is_distributed()
        True
        """
        from .distributed.params import ParamId
        param_id = ParamId.of(param_id, "set_distributed")
        if self._ad is None:
            return self
        node = self._node
        if node is None or not node.requires_grad or node.parents:
            raise GraphError("set_distributed: the tensor is not a leaf that requires grad; "
                             "call require_grad() on the parameter first")
        distributed_leaves[node] = param_id
        return self

    def is_distributed(self):
        """Whether this tensor is marked as distributed (``set_distributed``)."""
        node = self._node
        if node is None or node.parents:
            return False
        return node in distributed_leaves


_slot_get = Tensor._data.__get__
_slot_set = Tensor._data.__set__


_publishing = _threading.Lock()  # a buffer and class that change together, seen together


def rebind_plain(t, data):
    """The ``_data`` setter of a Tensor subclass whose ``_data`` is a property (a quantized
    tensor): ``t`` holds the array ``data`` and is a plain Tensor from then on. The buffer and
    the class change under one lock."""
    with _publishing:
        _slot_set(t, data)
        t.__class__ = Tensor


def new_holding(cls, raw, dtype, ad, device=CPU):
    """A new untracked ``cls`` (such a subclass) with ``raw`` in its ``_data`` slot."""
    t = _new(cls)
    _slot_set(t, raw)
    t._dtype = dtype
    t._device = device
    t._node = None
    t._ad = ad
    t._grad = None
    return t


def realized(data, device):
    """The array ``data`` (a kernel's result on ``device``) with its values computed: itself,
    or what the backend's ``realize`` gives where the backend is not ``eager``."""
    if data.__class__ is _Array:
        return data
    be = device.backend
    return data if be.eager else be.realize(data)


def _identity_backward(g, needs, out=None):
    return (g,)


_new = object.__new__
_Array = CPU.backend.Array  # the common case, told apart with one class check


def _adopt_device(data):
    return CPU if data.__class__ is _Array else _adopt(data)[1]


def wrap(data, dtype, ad="none"):
    """A new untracked Tensor around a backend array (no copy, no checks); its device is the
    array's."""
    t = _new(Tensor)
    if data.__class__ is _Array:
        t._device = CPU
    else:
        data, t._device = _adopt(data)
    t._data = data
    t._dtype = dtype
    t._node = None
    t._ad = ad
    t._grad = None
    t._alias = None  # (set: reading an unset slot with a default costs an AttributeError)
    return t


def record(data, dtype, inputs, rule, name="", keep_out=False, _recompute=None, _tensors=True):
    """Wrap a kernel's result and record the autodiff step ``rule`` when one is needed.

    ``inputs`` are the tensors the result depends on; the step is recorded when grad mode is on,
    the result is a float and at least one input is tracked. ``rule(g, needs, out)`` is the
    step's gradient rule, written with ember ops: ``g`` is the gradient of the result (a
    Tensor), ``needs[i]`` whether input ``i`` wants a gradient, and ``out`` the result itself
    (a Tensor) when ``keep_out`` (else None; a rule must never hold the result in its closure,
    which would be a reference cycle). It returns one Tensor (or None) per input, of that
    input's shape and dtype. Values a rule needs are captured with ``saved(x)``. Because rules
    are ember ops, a backward with ``create_graph=True`` records them in turn (higher-order
    gradients). (``_recompute`` and ``_tensors=False``: ``record_arrays``'s step.)
    """
    saves = _mode.saves
    unchecked = None
    if saves:
        unchecked = saves[:]
        saves.clear()
    t = _new(Tensor)  # what wrap(data, dtype, None) gives, inline (every recorded op runs it)
    if data.__class__ is _Array:
        t._device = CPU
    else:
        data, t._device = _adopt(data)
    t._data = data
    t._dtype = dtype
    t._node = None
    t._grad = None
    t._alias = None
    if len(inputs) == 1:  # the common one-input op: no strategies to reconcile
        x = inputs[0]
        ad = t._ad = x._ad
        if x._node is None:  # untracked: nothing to record
            return t
    else:
        ad = None
        tracked = False
        for x in inputs:
            if x._node is not None:
                tracked = True
            xad = x._ad
            if xad is not None:
                if ad is None:
                    ad = xad
                elif xad != ad:
                    ad, tracked = _joined_strategy(inputs, name)
                    break
        t._ad = ad if inputs else "none"
        if not tracked:
            return t
    if rule is not None and _mode.enabled and dtype.kind == "float":
        if data.__class__ is not _Array:  # a recorded step's result is computed now
            t._data = realized(data, t._device)
        n = len(inputs)  # (one and two inputs spelled out: a comprehension costs 0.2 µs more)
        parents = ((inputs[0]._node,) if n == 1 else (inputs[0]._node, inputs[1]._node)
                   if n == 2 else tuple([x._node for x in inputs]))
        if _recompute is not None and ad == "balanced":
            t._node = _recomputed_node(_recompute, inputs, parents, name)
        else:
            node = t._node = Node(rule, parents, name)
            if _tensors:
                node.tensors = True
                if keep_out:  # saved(t), inline: t is checked with the saves before it
                    out = node.out = alias(t)
                    out._node = None
                    unchecked = unchecked + [t] if unchecked else [t]
            if unchecked:
                node.checks = _checks(unchecked)
    elif dtype.kind == "complex" and _mode.enabled:
        raise KindError(f"{name or 'op'}: a complex result of a tracked tensor: ember has no "
                        "gradients through complex tensors (docs/complex.md); compute it from "
                        "an untracked tensor (without_autodiff()) or under ember.no_grad()")
    return t


def record_arrays(data, dtype, inputs, backward, name="", recompute=None):
    """``record`` for a rule on backend arrays: ``backward(g, needs)`` maps the gradient (an
    array) to one array (or None) per input. Such a step has first-order gradients only. A
    memory-bound op passes ``recompute = (forward, make_backward)``: ``forward(*arrays)`` gives
    the result from the inputs' arrays and ``make_backward(arrays, out)`` its backward; under
    the "balanced" gradient-checkpointing strategy the step then keeps no arrays and recomputes
    in backward.
    """
    return record(data, dtype, inputs, backward, name, False, recompute, False)


def saved(x):
    """The value ``x`` has now, for a gradient rule: a Tensor object of its own (a later write of
    ``x`` does not change what the rule sees). The step recorded next remembers ``x``'s version,
    and backward raises GraphError if ``x`` was written in place since (``x[0] = 1``,
    ``x.add_(1)``, a write through a view), as PyTorch's saved tensors do."""
    _mode.saves.append(x)
    return alias(x)


capturing = []  # lists that saves are added to while an in-place op computes its value


_set_slot = Tensor._alias.__set__


class Family:
    """The tensors sharing one buffer: the live views (each link holds the root and the steps
    from it) and the write count."""

    __slots__ = ("members", "version", "limit")

    def __init__(self):
        self.members = []  # weak references to the views (whose links hold the root)
        self.version = 0
        self.limit = 16  # the length at which ``add`` forgets the dead views

    def add(self, view):
        """Record ``view`` (whose ``_alias`` is its link in this family)."""
        members = self.members
        members.append(weakref.ref(view))
        if len(members) > self.limit:
            self.limit = 2 * len(self.live()) + 16

    def live(self):
        """The live (view, link) pairs; forgets the dead ones and those that left."""
        out, keep = [], []
        for ref in self.members:
            m = ref()
            if m is not None:
                link = _alias_of(m)
                if link.__class__ is not Family and link.family is self:  # a Link
                    out.append((m, link))
                    keep.append(ref)
        self.members = keep
        return out


def _alias_of(t):
    return getattr(t, "_alias", None)


def _new_family(t):
    """A new family with ``t`` as its root (``t`` has none)."""
    a = Family()
    _set_slot(t, a)
    return a


def family_of(t):
    """The family ``t`` belongs to (a new one, ``t`` its root, if it has none)."""
    a = getattr(t, "_alias", None)
    if a is None:
        return _new_family(t)
    return a if a.__class__ is Family else a.family


def _checks(saves):
    """[family, version] of each tensor of ``saves`` (see ``saved``)."""
    out = []
    for x in saves:
        a = getattr(x, "_alias", None)  # family_of(x), inline: once per saved tensor
        if a is None:
            out.append([_new_family(x), 0])
        else:
            family = a if a.__class__ is Family else a.family
            out.append([family, family.version])
    if capturing:
        capturing[-1].extend(out)
    return out


def check_saves(node):
    """Raise GraphError if a tensor the step ``node`` saved was written in place since."""
    for family, version in node.checks:
        if family.version != version:
            raise GraphError(
                f"backward: one of the tensors needed for gradient computation (by the step "
                f"{node.name!r}) has been modified by an inplace operation: it is at version "
                f"{family.version}; expected version {version} instead. Clone it before writing "
                "in place (x.clone()), or write after backward")


def alias(x, cls=None):
    """A new object of ``cls`` (default Tensor; a subclass of the same layout) sharing ``x``'s
    buffer, graph and checkpointing strategy, with no ``grad`` of its own."""
    t = _new(cls or Tensor)
    t._data = x._data
    t._dtype = x._dtype
    t._device = x._device
    t._node = x._node
    t._ad = x._ad
    t._grad = None
    return t


def _joined_strategy(inputs, name):
    """(strategy, tracked) of a step whose inputs carry different checkpointing strategies.

    The recorded steps among the inputs are the graph the step joins, and its strategy wins:
    constants and leaves adopt it. Without one, a constant's or leaf's "balanced" wins over the
    default "none" (``x_balanced @ weight`` is balanced). Two recorded steps of different
    strategies are two graphs that cannot be joined (GraphError, as Burn).
    """
    graph = chosen = None
    tracked = False
    for x in inputs:
        node, xad = x._node, x._ad
        if node is not None:
            tracked = True
        if xad is None:
            continue
        if node is not None and node.parents:
            if graph is not None and xad != graph:
                raise GraphError(f"{name}: operands come from recorded steps of different "
                                 f"gradient-checkpointing strategies {graph!r} and {xad!r}; "
                                 "give them the same one")
            graph = xad
        elif xad != "none":
            chosen = xad
    return graph or chosen or "none", tracked


def _recomputed_node(recompute, inputs, parents, name):
    node = Node(None, parents, name)
    node.recompute = recompute
    node.sources = tuple([None if p is not None and p.recompute is not None else x._data
                          for x, p in zip(inputs, parents)])
    return node


def tensor_method(fn=None, *, name=None, prop=False, static=False):
    """Attach ``fn`` to Tensor under ``name`` (default its own); returns ``fn`` unchanged."""
    def attach(f):
        value = f
        if prop:
            value = property(f)
        elif static:
            value = staticmethod(f)
        setattr(Tensor, name or f.__name__, value)
        return f
    return attach(fn) if fn is not None else attach


def as_tensor(value, dtype=None, op="as_tensor"):
    """``value`` itself if it is a Tensor (cast to ``dtype`` if given), else a new tensor of it."""
    if isinstance(value, Tensor):
        if dtype is None or value._dtype is dtype:
            return value
        return value.cast(dtype)
    arr, dt = _data_from(value, dtype, op)
    return wrap(arr, dt)


def device_error(op, a, b):
    """The DeviceError of an op whose operands ``a`` and ``b`` live on different devices."""
    return DeviceError(f"{op}: operands are on different devices, {a._device} and {b._device}; "
                       "move one with to_device() first", (a._device, b._device))


def backend_of(a, b, op):
    """The backend of two tensor operands; DeviceError when they are on different devices."""
    if a._device is not b._device:
        raise device_error(op, a, b)
    return a._device.backend


def backend_of_all(tensors, op):
    """The backend of a sequence of tensors (at least one); DeviceError naming the first two
    devices that differ."""
    first = tensors[0]
    device = first._device
    for t in tensors:
        if t._device is not device:
            raise device_error(op, first, t)
    return device.backend


def check_tensor(value, op, param="tensor"):
    """Raise InvalidParameterError unless ``value`` is a Tensor."""
    if not isinstance(value, Tensor):
        raise InvalidParameterError(
            f"{op}: {param} must be a Tensor, got {type(value).__name__}", param, value)
    return value


def check_kind(t, kinds, op):
    """Raise KindError unless ``t``'s kind is one of ``kinds`` (a string or a tuple of them)."""
    kind = t._dtype.kind
    if kind != kinds and kind not in kinds:
        want = kinds if isinstance(kinds, str) else " or ".join(kinds)
        raise KindError(f"{op}: not defined for {kind} tensors (dtype {t._dtype.name}); "
                        f"expected a {want} tensor")
    return t
