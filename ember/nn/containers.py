"""The container modules, as PyTorch's: ``ModuleList``, ``Sequential`` and ``ModuleDict`` name
their modules ``0``, ``1`` ... (or by key) in parameter names and state dicts."""

from collections import OrderedDict

from ..errors import InvalidParameterError
from .module import Module, _add_indent

__all__ = ["Sequential", "ModuleList", "ModuleDict"]


def _check_module(m, op, i):
    if not isinstance(m, Module):
        raise InvalidParameterError(f"{op}: entry {i!r} is a {type(m).__name__}, expected a "
                                    "Module", "modules", m)
    return m


class ModuleList(Module):
    """A list of modules, named ``0``, ``1`` ... (PyTorch's ``ModuleList``): indexable,
    iterable, ``append``/``extend``; it has no forward.

    >>> from ember import nn
    >>> blocks = nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])
    >>> len(blocks), [n for n, _ in blocks.named_parameters()]
    (2, ['0.weight', '0.bias'])
    """

    _flat = ("_modules",)

    def __init__(self, modules=()):
        super().__init__()
        self._modules = []
        for m in modules:
            self.append(m)

    def append(self, module):
        """Add ``module`` at the end; returns self.

        >>> from ember import nn
        >>> len(nn.ModuleList().append(nn.ReLU()))
        1
        """
        self._modules.append(_check_module(module, type(self).__name__, len(self._modules)))
        return self

    def extend(self, modules):
        """Add each of ``modules`` at the end; returns self.

        >>> from ember import nn
        >>> len(nn.ModuleList([nn.ReLU()]).extend([nn.Tanh(), nn.SiLU()]))
        3
        """
        for m in modules:
            self.append(m)
        return self

    def _index(self, idx):
        n = len(self._modules)
        if isinstance(idx, bool) or not hasattr(idx, "__index__"):
            raise InvalidParameterError(f"{type(self).__name__}: index must be an int or a "
                                        f"slice, got {idx!r}", "index", idx)
        i = idx.__index__()
        if not -n <= i < n:
            from ..errors import DimensionError
            raise DimensionError(f"{type(self).__name__}: index {i} is out of range for {n} "
                                 f"modules; expected an int in [{-n}, {n - 1}]")
        return i % n

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(self._modules[idx])
        return self._modules[self._index(idx)]

    def __setitem__(self, idx, module):
        self._modules[self._index(idx)] = _check_module(module, type(self).__name__, idx)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(list(self._modules))

    def __repr__(self):
        if type(self) is not ModuleList:
            return Module.__repr__(self)
        reprs = [repr(m) for m in self._modules]
        if not reprs:
            return "ModuleList()"
        blocks = [[0, 0, reprs[0]]]  # runs of equal reprs print once, as PyTorch
        for i, r in enumerate(reprs[1:], 1):
            if r == blocks[-1][2]:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = []
        for start, end, r in blocks:
            head = f"({start}): " if start == end else f"({start}-{end}): {end - start + 1} x "
            lines.append(_add_indent(head + r, 2))
        return "ModuleList(\n  " + "\n  ".join(lines) + "\n)"


class Sequential(ModuleList):
    """Modules applied one after the other: ``Sequential(a, b, c)(x) == c(b(a(x)))``; also from
    an ordered dict of names to modules. Indexable (a slice gives a Sequential), ``len``,
    iteration, ``append``.

    >>> import ember
    >>> from ember import nn
    >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    >>> model(ember.ones(3, 4)).shape
    (3, 2)
    >>> [n for n, _ in model.named_parameters()]
    ['0.weight', '0.bias', '2.weight', '2.bias']
    >>> model[1], len(model)
    (ReLU(), 3)
    """

    def __init__(self, *modules):
        Module.__init__(self)
        if len(modules) == 1 and isinstance(modules[0], dict):
            self._modules = OrderedDict()
            for name, m in modules[0].items():
                if not isinstance(name, str) or not name:
                    raise InvalidParameterError(
                        f"Sequential: module name {name!r} must be a non-empty string", "name",
                        name)
                self._modules[name] = _check_module(m, "Sequential", name)
        else:
            self._modules = []
            for m in modules:
                self.append(m)

    def _values(self):
        mods = self._modules
        return list(mods.values()) if isinstance(mods, dict) else list(mods)

    def append(self, module):
        """Add ``module`` at the end; returns self.

        >>> from ember import nn
        >>> nn.Sequential(nn.Linear(2, 2)).append(nn.ReLU())[-1]
        ReLU()
        """
        mods = self._modules
        if isinstance(mods, dict):
            mods[str(len(mods))] = _check_module(module, "Sequential", len(mods))
        else:
            mods.append(_check_module(module, "Sequential", len(mods)))
        return self

    def __getitem__(self, idx):
        values = self._values()
        if isinstance(idx, slice):
            if isinstance(self._modules, dict):
                keys = list(self._modules)[idx]
                return Sequential(OrderedDict((k, self._modules[k]) for k in keys))
            return Sequential(*values[idx])
        return values[self._index(idx)]

    def __setitem__(self, idx, module):
        i = self._index(idx)
        module = _check_module(module, "Sequential", idx)
        if isinstance(self._modules, dict):
            self._modules[list(self._modules)[i]] = module
        else:
            self._modules[i] = module

    def __iter__(self):
        return iter(self._values())

    def forward(self, input):
        """Apply each module in turn.

        >>> import ember
        >>> from ember import nn
        >>> nn.Sequential(nn.ReLU(), nn.Tanh()).forward(ember.tensor([-1.0, 0.0])).tolist()
        [0.0, 0.0]
        """
        for m in self._values():
            input = m(input)
        return input


class ModuleDict(Module):
    """A dict of named modules (PyTorch's ``ModuleDict``); it has no forward. As in PyTorch, a
    module is also an attribute (``self.transformer.wte``), and assigning a module to an
    attribute adds it.

    >>> from ember import nn
    >>> heads = nn.ModuleDict({"a": nn.Linear(2, 1)})
    >>> [n for n, _ in heads.named_parameters()]
    ['a.weight', 'a.bias']
    >>> heads.a is heads["a"]
    True
    """

    _flat = ("_modules",)

    def __init__(self, modules=None):
        super().__init__()
        self._modules = OrderedDict()
        if modules is not None:
            for name, m in dict(modules).items():
                self[name] = m

    def __getitem__(self, name):
        try:
            return self._modules[name]
        except KeyError:
            raise InvalidParameterError(f"ModuleDict: no module named {name!r}; the names are "
                                        f"{list(self._modules)}", "name", name) from None

    def __setitem__(self, name, module):
        if not isinstance(name, str) or not name:
            raise InvalidParameterError(f"ModuleDict: name {name!r} must be a non-empty string",
                                        "name", name)
        self._modules[name] = _check_module(module, "ModuleDict", name)

    def __getattr__(self, name):
        # only called when ordinary lookup fails: then a module of that name, as PyTorch's
        modules = self.__dict__.get("_modules")
        if modules is not None and name in modules:
            return modules[name]
        raise AttributeError(f"ModuleDict has no attribute or module {name!r}")

    def __setattr__(self, name, value):
        if isinstance(value, Module) and "_modules" in self.__dict__:
            self[name] = value
            self.__dict__.pop(name, None)
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name):
        modules = self.__dict__.get("_modules")
        if modules is not None and name in modules:
            del modules[name]
        else:
            object.__delattr__(self, name)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(list(self._modules))

    def __contains__(self, name):
        return name in self._modules

    def keys(self):
        """The names, in insertion order.

        >>> from ember import nn
        >>> nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()}).keys()
        ['b', 'a']
        """
        return list(self._modules.keys())

    def values(self):
        """The modules, in insertion order.

        >>> from ember import nn
        >>> nn.ModuleDict({"act": nn.ReLU()}).values()
        [ReLU()]
        """
        return list(self._modules.values())

    def items(self):
        """(name, module) pairs, in insertion order.

        >>> from ember import nn
        >>> nn.ModuleDict({"act": nn.ReLU()}).items()
        [('act', ReLU())]
        """
        return list(self._modules.items())
