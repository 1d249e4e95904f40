"""Module: the base class of layers and models, with PyTorch's API and Burn's Module contract.

A Module finds its state by looking at its attributes, in the order they were set:

- **parameters**: float Tensor attributes (also inside lists, tuples and dicts), except the
  ones registered as buffers;
- **buffers**: tensors registered with ``register_buffer(name, tensor)`` (BatchNorm's running
  statistics), saved in ``state_dict`` but never parameters;
- **sub-modules**: Module attributes, also inside lists, tuples and dicts (``self.blocks =
  [Block(), Block()]`` names them ``blocks.0``, ``blocks.1``). Containers (``Sequential``,
  ``ModuleList``, ``ModuleDict``) name theirs ``0``, ``1`` ... as PyTorch.

Names follow PyTorch (``conv1.weight``, ``0.bias``, ``bn.running_mean``), so a state dict maps
key for key onto the equivalent torch model's. Tensors are immutable: loading a state dict,
casting with ``to(dtype)`` or updating running statistics rebinds the attribute to a new tensor.

>>> import ember
>>> from ember import nn
>>> class Net(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.fc1 = nn.Linear(4, 3)
...         self.act = nn.ReLU()
...         self.fc2 = nn.Linear(3, 2, bias=False)
...     def forward(self, x):
...         return self.fc2(self.act(self.fc1(x)))
>>> net = Net()
>>> [name for name, _ in net.named_parameters()]
['fc1.weight', 'fc1.bias', 'fc2.weight']
>>> net.num_params()
21
>>> net(ember.ones(5, 4)).shape
(5, 2)
>>> net
Net(
  (fc1): Linear(in_features=4, out_features=3, bias=True)
  (act): ReLU()
  (fc2): Linear(in_features=3, out_features=2, bias=False)
)
"""

from collections import OrderedDict, namedtuple

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import Tensor, as_tensor, transfer, wrap

__all__ = ["Module", "Parameter", "IncompatibleKeys"]

class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns, printed as PyTorch prints it.

    >>> IncompatibleKeys([], [])
    <All keys matched successfully>
    >>> IncompatibleKeys(["bias"], ["scale"])
    _IncompatibleKeys(missing_keys=['bias'], unexpected_keys=['scale'])
    """

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, "
                f"unexpected_keys={self.unexpected_keys!r})")

    __str__ = __repr__

_INTERNAL = frozenset(("training", "_buffer_names", "_nonpersistent"))


def Parameter(data, requires_grad=True):
    """A parameter: a float leaf tensor that requires grad (``requires_grad=False``: a frozen
    one). ``data`` is a Tensor (its buffer is shared; the result is a new leaf) or anything
    ``ember.tensor`` takes. Any float tensor attribute of a Module is a parameter; this helper
    only makes one that is ready for training.

    >>> import ember
    >>> from ember import nn
    >>> w = nn.Parameter(ember.zeros(2, 3))
    >>> w.is_require_grad(), w.is_leaf
    (True, True)
    """
    if isinstance(data, Tensor):
        t = wrap(data._data, data._dtype)
    else:
        t = as_tensor(data, None, "Parameter")
    if t._dtype.kind == "complex":  # docs/complex.md: nn takes real tensors only
        raise _dt.complex_error("Parameter", "data", t._dtype)
    if not isinstance(data, Tensor):
        if t.kind != "float" and requires_grad:
            t = t.cast(_dt.default_float)
    if not isinstance(requires_grad, bool):
        raise InvalidParameterError(
            f"Parameter: requires_grad must be a bool, got {requires_grad!r}", "requires_grad",
            requires_grad)
    if requires_grad:
        if t.kind != "float":
            raise KindError(f"Parameter: only float tensors can require grad, got dtype "
                            f"{t.dtype.name}")
        t.require_grad()
    return t


def _entries(name, path, value):
    """(name, path, value) for the tensors and modules in ``value`` (a container or not)."""
    if isinstance(value, (Tensor, Module)):
        yield name, path, value
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            if isinstance(v, (Tensor, Module, list, tuple, dict)):
                yield from _entries(f"{name}.{i}", path + (i,), v)
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (Tensor, Module, list, tuple, dict)):
                yield from _entries(f"{name}.{k}", path + (k,), v)


def _replace(container, path, new):
    """``container`` with the entry at ``path`` replaced by ``new`` (lists and dicts in place,
    tuples rebuilt)."""
    key = path[0]
    inner = new if len(path) == 1 else _replace(container[key], path[1:], new)
    if isinstance(container, (list, dict)):
        container[key] = inner
        return container
    items = list(container)
    items[key] = inner
    if hasattr(container, "_fields"):
        return type(container)(*items)
    return type(container)(items)


def _add_indent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


def _shape_str(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


class Module:
    """Base class of layers and models: subclass it, set layers and tensors as attributes in
    ``__init__`` (after ``super().__init__()``) and define ``forward``; calling the module calls
    ``forward``.

    >>> import ember
    >>> from ember import nn
    >>> m = nn.Linear(2, 1)
    >>> m.training, m.eval().training
    (True, False)
    >>> sorted(m.state_dict())
    ['bias', 'weight']
    """

    training = True
    _buffer_names = ()
    _nonpersistent = frozenset()
    _flat = ()  # container attributes whose entries are named without the attribute's name

    def __init__(self):
        self.training = True
        self._buffer_names = []
        self._nonpersistent = set()

    # -- calling --------------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        """The computation of the module; subclasses define it (calling the module calls it).

        >>> from ember import nn
        >>> nn.Module().forward()
        Traceback (most recent call last):
        ...
        NotImplementedError: Module: forward() is not defined; define forward in the subclass
        """
        raise NotImplementedError(f"{type(self).__name__}: forward() is not defined; define "
                                  "forward in the subclass")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    # -- discovery ------------------------------------------------------------------------------
    def _local(self):
        """(name, path, value) for the tensors and modules this module holds directly."""
        flat = self._flat
        for attr, value in self.__dict__.items():
            if attr in _INTERNAL:
                continue
            if attr in flat:
                items = value.items() if isinstance(value, dict) else enumerate(value)
                for k, v in items:
                    if isinstance(v, (Tensor, Module, list, tuple, dict)):
                        yield from _entries(str(k), (attr, k), v)
            else:
                yield from _entries(attr, (attr,), value)

    def _local_split(self):
        """(params, buffers, children): lists of (name, path, value) in definition order."""
        params, buffers, children = [], [], []
        bufs = self._buffer_names
        for name, path, value in self._local():
            if isinstance(value, Module):
                children.append((name, path, value))
            elif len(path) == 1 and path[0] in bufs:
                buffers.append((name, path, value))
            elif value._dtype.kind == "float":
                params.append((name, path, value))
        if bufs:
            order = {n: i for i, n in enumerate(bufs)}
            buffers.sort(key=lambda e: order[e[1][0]])
        return params, buffers, children

    def named_children(self):
        """(name, module) for the direct sub-modules, each once, in definition order.

        >>> from ember import nn
        >>> [n for n, _ in nn.Sequential(nn.Linear(2, 2), nn.ReLU()).named_children()]
        ['0', '1']
        """
        seen = set()
        out = []
        for name, _, m in self._local_split()[2]:
            if id(m) not in seen:
                seen.add(id(m))
                out.append((name, m))
        return out

    def children(self):
        """The direct sub-modules, each once, in definition order.

        >>> from ember import nn
        >>> nn.Sequential(nn.ReLU(), nn.Tanh()).children()
        [ReLU(), Tanh()]
        """
        return [m for _, m in self.named_children()]

    def named_modules(self, prefix=""):
        """(name, module) for this module ("") and every sub-module, depth first, each once.

        >>> from ember import nn
        >>> [n for n, _ in nn.Sequential(nn.Sequential(nn.ReLU())).named_modules()]
        ['', '0', '0.0']
        """
        out, seen, stack = [], set(), [(prefix, self)]
        while stack:  # iterative depth-first walk: no recursive closure, no reference cycle
            pre, mod = stack.pop()
            if id(mod) in seen:
                continue
            seen.add(id(mod))
            out.append((pre, mod))
            children = [(f"{pre}.{name}" if pre else name, child)
                        for name, child in mod.named_children()]
            stack.extend(reversed(children))
        return out

    def modules(self):
        """This module and every sub-module, depth first, each once.

        >>> from ember import nn
        >>> len(nn.Sequential(nn.Linear(1, 1), nn.ReLU()).modules())
        3
        """
        return [m for _, m in self.named_modules()]

    def _slots(self, kind, dedupe=True):
        """(full name, owner, path, tensor) of the parameters (``kind="param"``), the buffers
        (``"buffer"``) or the saved state (``"state"``: parameters and persistent buffers).

        ``dedupe``: each module and each tensor once (``named_parameters``); otherwise every
        path, as ``state_dict`` lists a shared module under each of its names.
        """
        out = []
        if dedupe:
            seen = set()
            for pre, mod in self.named_modules():
                params, buffers, _ = mod._local_split()
                for name, path, t in (params if kind == "param" else buffers):
                    if id(t) not in seen:
                        seen.add(id(t))
                        out.append(((pre + "." if pre else "") + name, mod, path, t))
            return out
        on_path = set()

        def walk(mod, pre):
            if id(mod) in on_path:  # a module holding one of its ancestors: no endless loop
                return
            on_path.add(id(mod))
            params, buffers, children = mod._local_split()
            if kind in ("param", "state"):
                out.extend((pre + name, mod, path, t) for name, path, t in params)
            if kind == "buffer":
                out.extend((pre + name, mod, path, t) for name, path, t in buffers)
            elif kind == "state":
                out.extend((pre + name, mod, path, t) for name, path, t in buffers
                           if path[0] not in mod._nonpersistent)
            for name, _, child in children:
                walk(child, f"{pre}{name}.")
            on_path.discard(id(mod))

        walk(self, "")
        return out

    def named_parameters(self, prefix="", recurse=True):
        """(name, tensor) for every parameter, PyTorch's names (``"0.weight"``), each once;
        ``recurse=False``: this module's own only.

        >>> from ember import nn
        >>> [n for n, _ in nn.Sequential(nn.Linear(2, 1)).named_parameters()]
        ['0.weight', '0.bias']
        """
        if not recurse:
            return [(prefix + n, t) for n, _, t in self._local_split()[0]]
        pre = prefix + "." if prefix else ""
        return [(pre + n, t) for n, _, _, t in self._slots("param")]

    def parameters(self, recurse=True):
        """Every parameter (float tensor attribute that is not a buffer), each once, a list.

        >>> from ember import nn
        >>> [tuple(p.shape) for p in nn.Linear(3, 2).parameters()]
        [(2, 3), (2,)]
        """
        return [t for _, t in self.named_parameters(recurse=recurse)]

    def named_buffers(self, prefix="", recurse=True):
        """(name, tensor) for every registered buffer (persistent or not), each once.

        >>> from ember import nn
        >>> [n for n, _ in nn.BatchNorm1d(2).named_buffers()]
        ['running_mean', 'running_var', 'num_batches_tracked']
        """
        if not recurse:
            return [(prefix + n, t) for n, _, t in self._local_split()[1]]
        pre = prefix + "." if prefix else ""
        return [(pre + n, t) for n, _, _, t in self._slots("buffer")]

    def buffers(self, recurse=True):
        """Every registered buffer, each once, a list.

        >>> from ember import nn
        >>> [b.tolist() for b in nn.BatchNorm1d(1).buffers()]
        [[0.0], [1.0], 0]
        """
        return [t for _, t in self.named_buffers(recurse=recurse)]

    def num_params(self):
        """The number of scalar parameters (the sizes of all parameters added up), as Burn.

        >>> from ember import nn
        >>> nn.Linear(3, 2).num_params()
        8
        """
        return sum(t.numel() for t in self.parameters())

    def register_buffer(self, name, tensor, persistent=True):
        """Keep ``tensor`` as attribute ``name``: saved in ``state_dict`` (unless
        ``persistent=False``) but not a parameter (BatchNorm's running statistics).

        >>> import ember
        >>> from ember import nn
        >>> m = nn.Module()
        >>> m.register_buffer("steps", ember.tensor(0))
        >>> list(m.state_dict()), m.parameters()
        (['steps'], [])
        """
        if not isinstance(name, str) or not name.isidentifier() or name in _INTERNAL:
            raise InvalidParameterError(
                f"register_buffer: name {name!r} must be an attribute name", "name", name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise InvalidParameterError(
                f"register_buffer: tensor must be a Tensor or None, got "
                f"{type(tensor).__name__}", "tensor", tensor)
        if "_buffer_names" not in self.__dict__:
            self._buffer_names = []
            self._nonpersistent = set()
        if name not in self._buffer_names:
            self._buffer_names.append(name)
        if persistent:
            self._nonpersistent.discard(name)
        else:
            self._nonpersistent.add(name)
        setattr(self, name, tensor)

    # -- modes and gradients --------------------------------------------------------------------
    def train(self, mode=True):
        """Set training mode (``mode=True``) or evaluation mode on every module; returns self.

        >>> from ember import nn
        >>> nn.Sequential(nn.Dropout()).train(False)[0].training
        False
        """
        if not isinstance(mode, bool):
            raise InvalidParameterError(f"train: mode must be a bool, got {mode!r}", "mode", mode)
        for m in self.modules():
            m.training = mode
        return self

    def eval(self):
        """Evaluation mode (``train(False)``): Dropout passes through, BatchNorm uses its
        running statistics; returns self.

        >>> from ember import nn
        >>> nn.BatchNorm1d(2).eval().training
        False
        """
        return self.train(False)

    def set_require_grad(self, require_grad):
        """Set whether every float parameter requires grad (Burn's ``set_require_grad``);
        returns self.

        >>> from ember import nn
        >>> nn.Linear(1, 1).set_require_grad(False).weight.is_require_grad()
        False
        """
        if not isinstance(require_grad, bool):
            raise InvalidParameterError(
                f"set_require_grad: require_grad must be a bool, got {require_grad!r}",
                "require_grad", require_grad)
        for _, mod, path, t in self._slots("param"):
            if require_grad:
                if not t.is_leaf or not t.is_autodiff():
                    new = wrap(t._data, t._dtype).require_grad()
                    mod._rebind(path, new)
                elif not t.is_require_grad():
                    t.require_grad()
            else:
                t.set_require_grad(False)
        return self

    def requires_grad_(self, requires_grad=True):
        """PyTorch's spelling of ``set_require_grad``; returns self.

        >>> from ember import nn
        >>> nn.Linear(1, 1).requires_grad_(False).bias.is_require_grad()
        False
        """
        return self.set_require_grad(requires_grad)

    def freeze(self):
        """No parameter requires grad any more (Burn's ``freeze``); returns self.

        >>> from ember import nn
        >>> m = nn.Linear(2, 2).freeze()
        >>> [p.is_require_grad() for p in m.parameters()]
        [False, False]
        >>> [p.is_require_grad() for p in m.unfreeze().parameters()]
        [True, True]
        """
        return self.set_require_grad(False)

    def unfreeze(self):
        """Every parameter requires grad again (Burn's ``unfreeze``); returns self.

        >>> from ember import nn
        >>> nn.Linear(1, 1).freeze().unfreeze().weight.is_require_grad()
        True
        """
        return self.set_require_grad(True)

    def no_grad(self):
        """Disable gradients for every float parameter (Burn's ``no_grad``); returns self.

        >>> from ember import nn
        >>> any(p.is_require_grad() for p in nn.Linear(2, 2).no_grad().parameters())
        False
        """
        return self.set_require_grad(False)

    def with_gradient_checkpointing_strategy(self, strategy):
        """Every parameter and buffer with autodiff carries ``strategy`` ("none" or "balanced"),
        the module-wide form of ``Tensor.with_gradient_checkpointing_strategy``; the tensors stay
        the same objects (an optimizer keeps them). Returns self.

        Not needed for the common case: constants and leaves adopt the strategy of the graph
        they join (see docs/autodiff.md); this one also makes the steps that use parameters
        alone (a reparameterization, a LoRA product) balanced.

        >>> from ember import nn
        >>> m = nn.Linear(2, 2).with_gradient_checkpointing_strategy("balanced")
        >>> m.weight.gradient_checkpointing_strategy(), m.weight.is_require_grad()
        ('balanced', True)
        """
        from ..autodiff.api import STRATEGIES
        name = getattr(strategy, "value", strategy)
        if not isinstance(name, str) or name not in STRATEGIES:
            raise InvalidParameterError(
                f"with_gradient_checkpointing_strategy: strategy {strategy!r} is unknown; "
                f"expected one of {STRATEGIES}", "strategy", strategy)
        for _, _, _, t in self._slots("param") + self._slots("buffer"):
            if t._ad is not None:
                t._ad = name
        return self

    def zero_grad(self, set_to_none=True):
        """Forget the gradients of every parameter (``.grad`` becomes None).

        >>> import ember
        >>> from ember import nn
        >>> m = nn.Linear(2, 1)
        >>> _ = m(ember.ones(1, 2)).backward()
        >>> m.zero_grad(); m.weight.grad is None
        True
        """
        for p in self.parameters():
            p.grad = None

    def _rebind(self, path, new):
        attr = path[0]
        if len(path) == 1:
            setattr(self, attr, new)
        else:
            self.__dict__[attr] = _replace(self.__dict__[attr], path[1:], new)

    # -- state ----------------------------------------------------------------------------------
    def state_dict(self):
        """An ordered dict, name -> tensor, of every parameter and persistent buffer (the
        module's own tensors: values are immutable, so nothing is copied). Each module lists its
        parameters, then its buffers, then its sub-modules', as PyTorch.

        >>> from ember import nn
        >>> list(nn.BatchNorm1d(3).state_dict())
        ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
        """
        return OrderedDict((name, t) for name, _, _, t in self._slots("state", dedupe=False))

    def load_state_dict(self, state_dict, strict=True):
        """Load the tensors of ``state_dict`` (name -> tensor or array-like) into this module.

        Every key is checked before anything changes. With ``strict=True`` (the default) missing
        and unexpected keys raise InvalidParameterError naming them; a value whose shape differs
        from the module's tensor raises ShapeMismatchError naming the key (with any strictness).
        Loading rebinds the value of each of the module's tensors (cast to its dtype): the tensor
        objects stay, so an optimizer built before loading keeps updating them. Returns ``IncompatibleKeys(missing_keys,
        unexpected_keys)``, which prints as PyTorch's result does.

        >>> import ember
        >>> from ember import nn
        >>> m = nn.Linear(2, 1)
        >>> m.load_state_dict({"weight": ember.tensor([[1.0, 2.0]]), "bias": [0.5]})
        <All keys matched successfully>
        >>> m(ember.tensor([[1.0, 1.0]])).tolist()
        [[3.5]]
        >>> m.load_state_dict({"weight": ember.zeros(1, 2)})
        Traceback (most recent call last):
        ...
        ember.errors.InvalidParameterError: load_state_dict: Linear: missing keys ['bias']
        """
        op = "load_state_dict"
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise InvalidParameterError(
                f"{op}: state_dict must be a mapping of names to tensors, got "
                f"{type(state_dict).__name__}", "state_dict", state_dict)
        if not isinstance(strict, bool):
            raise InvalidParameterError(f"{op}: strict must be a bool, got {strict!r}", "strict",
                                        strict)
        slots = self._slots("state", dedupe=False)
        expected = OrderedDict()
        for name, mod, path, t in slots:
            expected.setdefault(name, []).append((mod, path, t))
        keys = list(state_dict.keys())
        missing = [n for n in expected if n not in state_dict]
        unexpected = [k for k in keys if k not in expected]
        values, mismatched = {}, []
        for name in expected:
            if name not in state_dict:
                continue
            raw = state_dict[name]
            old = expected[name][0][2]
            if isinstance(raw, Tensor):
                value = raw
            else:
                try:
                    value = as_tensor(raw, None, op)
                except Exception as exc:  # a value that is no tensor at all
                    raise InvalidParameterError(
                        f"{op}: {type(self).__name__}: the value of key {name!r} is not a tensor "
                        f"({exc})", "state_dict", name) from None
            if tuple(value.shape) != tuple(old.shape):
                mismatched.append((name, tuple(value.shape), tuple(old.shape)))
            values[name] = value
        problems = []
        if strict and missing:
            problems.append(f"missing keys {missing}")
        if strict and unexpected:
            problems.append(f"unexpected keys {unexpected}")
        if mismatched:
            problems.append("mis-shaped keys " + ", ".join(
                f"{n!r} (shape {_shape_str(a)} in the state dict, expected {_shape_str(e)})"
                for n, a, e in mismatched))
        if problems:
            msg = f"{op}: {type(self).__name__}: " + "; ".join(problems)
            if strict and (missing or unexpected):
                raise InvalidParameterError(msg, "state_dict",
                                            {"missing": missing, "unexpected": unexpected,
                                             "mismatched": [m[0] for m in mismatched]})
            raise ShapeMismatchError(msg, expected=[m[2] for m in mismatched],
                                     actual=[m[1] for m in mismatched])
        new = {}  # id(tensor) -> (tensor, its new value): all made before any is rebound
        for name, value in values.items():
            for _, _, old in expected[name]:
                if id(old) not in new:
                    try:
                        v = value if value._dtype is old._dtype else value.cast(old._dtype)
                    except KindError as exc:  # e.g. complex values for a float tensor
                        raise KindError(f"{op}: {type(self).__name__}: the value of key "
                                        f"{name!r} cannot load into a {old.dtype.name} tensor "
                                        f"({exc})") from None
                    data = v._data
                    if v._device is not old._device:  # loads onto the module's device
                        data = transfer(data, v._dtype, v._device, old._device)
                    new[id(old)] = (old, data)
        for old, data in new.values():
            old._data = data  # rebind the value; the tensor object stays
        return IncompatibleKeys(missing, unexpected)

    def save_file(self, path):
        """Save ``state_dict()`` to a safetensors file through ``ember.io.save_file``
        (``model.save_file("model.safetensors")``; Burn's ``save_file``)."""
        from .. import io as _io
        _io.save_file(self.state_dict(), path)

    def load_file(self, path, strict=True):
        """Load a state dict saved by ``save_file`` (``ember.io.load_file``) with
        ``load_state_dict(..., strict)``; returns self (``model.load_file("model.safetensors")``).
        """
        from .. import io as _io
        self.load_state_dict(_io.load_file(path), strict=strict)
        return self

    def valid(self):
        """Burn's ``valid``: a copy of the module in eval mode whose parameters do not require
        grad (a validation snapshot); this module is unchanged.

        >>> from ember import nn
        >>> m = nn.Sequential(nn.Linear(2, 2), nn.Dropout())
        >>> v = m.valid()
        >>> v.training, v[0].weight.is_require_grad(), m.training
        (False, False, True)
        """
        import copy
        return copy.deepcopy(self).eval().no_grad()

    def apply(self, fn):
        """Call ``fn`` on every sub-module (children first) and then on this module; returns
        self (PyTorch's ``apply``, used for custom initialization).

        >>> from ember import nn
        >>> names = []
        >>> _ = nn.Sequential(nn.ReLU()).apply(lambda m: names.append(type(m).__name__))
        >>> names
        ['ReLU', 'Sequential']
        """
        if not callable(fn):
            raise InvalidParameterError(f"apply: fn must be callable, got {fn!r}", "fn", fn)
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    # -- Burn's Module API: groups, visit/map and records are in ember/nn/records.py,
    # reparameterizations (LoRA) and weight quantization in ember/nn/reparam.py: each file
    # attaches its Module methods with ``module_method``.

    # -- display --------------------------------------------------------------------------------
    def extra_repr(self):
        """The hyper-parameters shown inside this module's repr (subclasses override).

        >>> from ember import nn
        >>> nn.Linear(2, 3).extra_repr()
        'in_features=2, out_features=3, bias=True'
        """
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _add_indent(repr(m), 2)
                       for name, m in self.named_children()]
        lines = extra_lines + child_lines
        out = type(self).__name__ + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                out += extra_lines[0]
            else:
                out += "\n  " + "\n  ".join(lines) + "\n"
        return out + ")"


def module_method(fn):
    """Make ``fn`` the Module method of its name: the families of Module methods that live in
    their own files (ember/nn/records.py, ember/nn/reparam.py) attach them with it."""
    setattr(Module, fn.__name__, fn)
    return fn
