"""PyTorch's containers on ``ember.torch.nn.Module``: ``Sequential``, ``ModuleList``,
``ModuleDict``, ``ParameterList`` and ``ParameterDict``, with PyTorch's indexing, slicing,
``append``/``extend``/``insert``/``pop``, deletion (which renumbers), ``+``/``*`` and printing.

>>> from ember.torch import nn
>>> seq = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
>>> seq[1:]
Sequential(
  (1): ReLU()
  (2): Linear(in_features=4, out_features=1, bias=True)
)
>>> nn.ModuleList([nn.ReLU() for _ in range(3)])
ModuleList(
  (0-2): 3 x ReLU()
)
"""

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import chain, islice

from ...errors import DimensionError, EmberError, GraphError, InvalidParameterError, KindError
from ...nn.module import _add_indent
from ..._tensor import Tensor as _EmberTensor
from .._tensor import Tensor
from ...nn import containers as _ec
from .module import _CLASSES, Module
from .parameter import Parameter

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
           "ContainerKeyError"]


class ContainerKeyError(EmberError, KeyError):
    """A key a ModuleDict or ParameterDict does not hold (a KeyError, as PyTorch's)."""


def _index(idx, size):
    """``idx`` (an int-like) as an index in ``[0, size)``; DimensionError when out of range."""
    try:
        i = operator.index(idx)
    except TypeError:
        raise KindError(f"index must be an int or a slice, got {type(idx).__name__}") from None
    if not -size <= i < size:
        raise DimensionError(f"index {i} is out of range")
    return i % size


def _renumbered(modules):
    return OrderedDict((str(i), m) for i, m in enumerate(modules.values()))


class Sequential(Module):
    """Modules applied in turn: ``Sequential(a, b)(x) == b(a(x))``; also from an OrderedDict
    of names to modules.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> nn.Sequential(nn.Linear(3, 2), nn.ReLU())(torch.ones(4, 3)).shape
    torch.Size([4, 2])
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        i = _index(idx, len(self))
        return next(islice(iter(self._modules.values()), i, None))

    def __setitem__(self, idx, module):
        key = list(self._modules)[_index(idx, len(self))]
        setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules)[idx]:
                delattr(self, key)
        else:
            delattr(self, list(self._modules)[_index(idx, len(self))])
        self.__dict__["_modules"] = _renumbered(self._modules)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise KindError("add operator supports only objects of Sequential class, but "
                            f"{type(other)} is given.")
        out = Sequential()
        for module in chain(self, other):
            out.append(module)
        return out

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise KindError("add operator supports only objects of Sequential class, but "
                            f"{type(other)} is given.")
        return self.extend(other)

    def __mul__(self, other):
        if not isinstance(other, int) or isinstance(other, bool):
            raise KindError(f"unsupported operand type(s) for *: {type(self)} and "
                            f"{type(other)}")
        if other <= 0:
            raise InvalidParameterError(f"Non-positive multiplication factor {other} for "
                                        f"{type(self)}", "other", other)
        out = Sequential()
        for _ in range(other):
            for module in self:
                out.append(module)
        return out

    __rmul__ = __mul__

    def __imul__(self, other):
        combined = self * other
        self.__dict__["_modules"] = combined._modules
        return self

    def append(self, module):
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        """Put ``module`` at position ``index`` (the later ones move up); returns self."""
        if not isinstance(module, Module):
            raise KindError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise DimensionError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential):
        """Add each module of ``sequential`` at the end; returns self."""
        for layer in sequential:
            self.append(layer)
        return self

    def pop(self, key):
        """Remove and return the module at ``key``."""
        value = self[key]
        del self[key]
        return value

    def forward(self, input):
        """Apply each module in turn."""
        for module in self:
            input = module(input)
        return input


def _list_repr(container, items):
    reprs = [repr(item) for item in items]
    if not reprs:
        return container._get_name() + "()"
    blocks = [[0, 0, reprs[0]]]
    for i, r in enumerate(reprs[1:], 1):
        if r == blocks[-1][2]:
            blocks[-1][1] += 1
        else:
            blocks.append([i, i, r])
    lines = []
    for start, end, r in blocks:
        head = f"({start}): " if start == end else f"({start}-{end}): {end - start + 1} x "
        lines.append(_add_indent(head + r, 2))
    return container._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleList(Module):
    """A list of modules named ``0``, ``1`` ... (it has no forward).

    >>> from ember.torch import nn
    >>> layers = nn.ModuleList([nn.Linear(2, 2)]).extend([nn.ReLU()])
    >>> len(layers), [n for n, _ in layers.named_parameters()]
    (2, ['0.weight', '0.bias'])
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self)))]

    def __setitem__(self, idx, module):
        setattr(self, str(_index(idx, len(self))), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_index(idx, len(self))))
        self.__dict__["_modules"] = _renumbered(self._modules)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        out = ModuleList()
        for i, module in enumerate(chain(self, other)):
            out.add_module(str(i), module)
        return out

    def __repr__(self):
        return _list_repr(self, self)

    def insert(self, index, module):
        """Put ``module`` at position ``index`` (the later ones move up)."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module):
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        """Remove and return the module at ``key``."""
        value = self[key]
        del self[key]
        return value

    def extend(self, modules):
        """Add each of ``modules`` at the end; returns self."""
        if not isinstance(modules, Iterable):
            raise KindError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


def _pairs(values, what):
    """The (key, value) pairs of a mapping (or a ModuleDict) or of a sequence of pairs."""
    if isinstance(values, (Mapping, ModuleDict)):
        return list(values.items())
    if not isinstance(values, Iterable):
        raise KindError(f"{what}.update should be called with an iterable of key/value pairs, "
                        "but got " + type(values).__name__)
    out = []
    for j, pair in enumerate(values):
        if not isinstance(pair, Iterable):
            raise KindError(f"{what} update sequence element #{j} should be Iterable; is"
                            + type(pair).__name__)
        pair = tuple(pair)
        if len(pair) != 2:
            raise InvalidParameterError(f"{what} update sequence element #{j} has length "
                                        f"{len(pair)}; 2 is required", "values", values)
        out.append(pair)
    return out


class ModuleDict(Module):
    """A dict of named modules (it has no forward).

    >>> from ember.torch import nn
    >>> heads = nn.ModuleDict({"a": nn.Linear(2, 1), "b": nn.ReLU()})
    >>> list(heads.keys()), heads["b"]
    (['a', 'b'], ReLU())
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        try:
            return self._modules[key]
        except KeyError:
            raise ContainerKeyError(key) from None

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        if key not in self._modules:
            raise ContainerKeyError(key)
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        """Remove every module."""
        self._modules.clear()

    def pop(self, key):
        """Remove and return the module ``key``."""
        value = self[key]
        del self[key]
        return value

    def keys(self):
        """The names."""
        return self._modules.keys()

    def items(self):
        """The (name, module) pairs."""
        return self._modules.items()

    def values(self):
        """The modules."""
        return self._modules.values()

    def update(self, modules):
        """Add the modules of a mapping or of a sequence of (name, module) pairs."""
        for key, module in _pairs(modules, "ModuleDict"):
            self[key] = module


class ParameterList(Module):
    """A list of parameters named ``0``, ``1`` ... (a plain tensor put in becomes a
    Parameter).

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> ps = nn.ParameterList([torch.ones(2), nn.Parameter(torch.zeros(3))])
    >>> [n for n, _ in ps.named_parameters()], type(ps[0]).__name__
    (['0', '1'], 'Parameter')
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, str(_index(idx, len(self))))

    def __setitem__(self, idx, param):
        key = str(_index(idx, len(self)))
        if isinstance(param, _EmberTensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, key, param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __call__(self, *args, **kwargs):
        raise GraphError("ParameterList should not be called.")

    def append(self, value):
        """Add ``value`` at the end; returns self."""
        new = len(self)
        self._size += 1
        self[new] = value
        return self

    def extend(self, values):
        """Add each of ``values`` at the end; returns self."""
        if not isinstance(values, Iterable) or isinstance(values, _EmberTensor):
            raise KindError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(f"  ({k}): " + _param_str(p) for k, p in enumerate(self))


def _param_str(p, type_name=False):
    """PyTorch's line for ``p`` in a ParameterList (dtype) or ParameterDict (type name)."""
    if not isinstance(p, _EmberTensor):
        return "Object of type: " + type(p).__name__
    size = "x".join(str(s) for s in p.shape)
    device = f" ({p.device})" if p._device.type not in ("cpu",) else ""
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    dtype = Tensor.type(p) if type_name else f"torch.{p._dtype.name}"
    return f"{kind} containing: [{dtype} of size {size}{device}]"


class ParameterDict(Module):
    """A dict of named parameters (a plain tensor put in becomes a Parameter); a plain dict
    given to ``update`` adds its keys in sorted order, as PyTorch's.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> pd = nn.ParameterDict({"b": torch.ones(1), "a": torch.zeros(2)})
    >>> list(pd), [n for n, _ in pd.named_parameters()]
    (['a', 'b'], ['a', 'b'])
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def _key(self, key):
        if not isinstance(key, str):
            raise KindError("Index given to ParameterDict cannot be used as a key as it is not "
                            f"a string (type is '{type(key).__name__}'). Open an issue on github "
                            "if you need non-string keys.")
        return key

    def __getitem__(self, key):
        if self._key(key) not in self._keys:
            raise ContainerKeyError(key)
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[self._key(key)] = None
        if isinstance(value, _EmberTensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key):
        if self._key(key) not in self._keys:
            raise ContainerKeyError(key)
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        """A new ParameterDict holding the same parameters."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        """``self[key]``, first set to ``default`` when absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        """Remove every entry."""
        for k in list(self._keys):
            del self[k]

    def pop(self, key):
        """Remove and return the entry ``key``."""
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        """Remove and return the last (key, value) pair."""
        if not self._keys:
            raise ContainerKeyError("popitem(): dictionary is empty")
        key = list(self._keys)[-1]
        value = self[key]
        del self[key]
        return key, value

    def get(self, key, default=None):
        """``self[key]``, or ``default`` when absent."""
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        """A new ParameterDict with ``keys`` each set to ``default``."""
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        """The keys."""
        return self._keys.keys()

    def items(self):
        """The (key, value) pairs."""
        return ((k, self[k]) for k in self._keys)

    def values(self):
        """The values."""
        return (self[k] for k in self._keys)

    def update(self, parameters):
        """Add the entries of a mapping (a plain dict's in sorted key order) or of a sequence
        of (key, value) pairs."""
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = list(parameters.items())
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = _pairs(parameters, "ParameterDict")
        for key, value in pairs:
            self[key] = value

    def __call__(self, *args, **kwargs):
        raise GraphError("ParameterDict should not be called.")

    def extra_repr(self):
        return "\n".join(f"  ({k}): " + _param_str(p, True) for k, p in self.items())


_CLASSES.update({_ec.Sequential: Sequential, _ec.ModuleList: ModuleList,
                 _ec.ModuleDict: ModuleDict})
