"""``ember.torch.nn.Module``: ember's Module with PyTorch's habits.

State lives where PyTorch keeps it, in ``_parameters``, ``_buffers`` and ``_modules`` (ordered
dicts programs read): assigning a ``Parameter`` registers it, assigning a Module registers it,
``register_buffer`` registers a buffer, and any other value (a plain tensor included) is an
ordinary attribute, as in PyTorch. ``parameters()``, ``named_modules()`` ... are generators with
PyTorch's arguments; ``state_dict``/``load_state_dict`` give and take PyTorch's keys and errors;
forward pre/post hooks and full backward hooks run around ``forward``; results come back as
``ember.torch`` tensors. ember's Burn-side methods (``num_params``, ``freeze``, ``valid`` ...)
are inherited from ``ember.nn.Module``.

ember.nn's layers become ``ember.torch.nn`` classes with ``torch_class``: the class combines
this base with the ember layer, whose ``__init__`` runs in *adopting* mode (its float tensor
attributes become Parameters, a ``None`` weight or bias a ``None`` parameter, its sub-modules
torch modules); an ember module assigned to a torch module is converted in place the same way.

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> class Net(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.fc = nn.Linear(3, 2)
...         self.scale = nn.Parameter(torch.ones(1))
...         self.register_buffer("steps", torch.tensor(0))
...         self.plain = torch.zeros(2)
...     def forward(self, x):
...         return self.fc(x) * self.scale
>>> net = Net()
>>> [n for n, _ in net.named_parameters()], list(net.state_dict())
(['scale', 'fc.weight', 'fc.bias'], ['scale', 'steps', 'fc.weight', 'fc.bias'])
>>> next(net.parameters()).shape
torch.Size([1])
>>> net
Net(
  (fc): Linear(in_features=3, out_features=2, bias=True)
)
"""

import builtins
import itertools
from collections import OrderedDict

from ... import dtypes as _dt
from ...autodiff.graph import no_grad
from ...devices import Device, as_device
from ...errors import (EmberError, GraphError, InvalidParameterError, KindError)
from ...nn import module as _em
from ...nn import containers as _ec
from ..._tensor import Tensor as _EmberTensor, transfer, wrap
from .._tensor import Tensor, as_torch, to_torch
from ..methods import _TYPE_NAMES
from .hooks import RemovableHandle
from .parameter import Buffer, Parameter

__all__ = ["Module", "ModuleAttributeError", "torch_class", "adopt"]


class ModuleAttributeError(EmberError, AttributeError):
    """A Module attribute that does not exist (an AttributeError, as PyTorch raises)."""


_IncompatibleKeys = _em.IncompatibleKeys

_STATE = ("_parameters", "_buffers", "_non_persistent_buffers_set", "_modules",
          "_forward_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
          "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_backward_hooks",
          "_backward_pre_hooks", "_state_dict_hooks", "_state_dict_pre_hooks",
          "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks")


def _typename(value):
    """PyTorch's ``torch.typename``: "torch.FloatTensor" for a float32 tensor."""
    if isinstance(value, _EmberTensor):
        return Tensor.type(value)
    t = builtins.type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _init_state(module):
    """The PyTorch state of a fresh module (what ``Module.__init__`` sets)."""
    d = module.__dict__
    d["training"] = True
    for name in _STATE:
        d[name] = set() if name == "_non_persistent_buffers_set" else OrderedDict()
    d["_is_full_backward_hook"] = None


def _as_parameter(t):
    """An ember layer's float tensor as a Parameter (same buffer, same require-grad)."""
    if isinstance(t, Parameter):
        return t
    return Parameter(t, t._node is not None and t._node.requires_grad)


def _as_buffer(t):
    return t if t is None or isinstance(t, Tensor) else as_torch(t)


class Module(_em.Module):
    """Base class of ``ember.torch.nn`` modules, PyTorch's ``nn.Module`` (see the module
    docstring).

    >>> from ember.torch import nn
    >>> m = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    >>> [n for n, _ in m.named_modules()]
    ['', '0', '1']
    >>> m.load_state_dict({"0.weight": m[0].weight.detach()}, strict=False)
    _IncompatibleKeys(missing_keys=['0.bias'], unexpected_keys=[])
    """

    dump_patches = False
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if kwargs:
            raise KindError(f"{builtins.type(self).__name__}.__init__() got an unexpected "
                            f"keyword argument '{next(iter(kwargs))}'")
        if args:
            raise KindError(f"{builtins.type(self).__name__}.__init__() takes 1 positional "
                            f"argument but {len(args) + 1} were given")
        _init_state(self)

    # ember.nn.Module's bookkeeping, read from PyTorch's dicts (its __init__ sets them: ignored)
    _buffer_names = property(lambda self: list(self.__dict__.get("_buffers", ())),
                             lambda self, value: None)
    _nonpersistent = property(
        lambda self: self.__dict__.get("_non_persistent_buffers_set", frozenset()),
        lambda self, value: None)

    # -- attributes -------------------------------------------------------------------------------
    def __getattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            store = d.get(key)
            if store is not None and name in store:
                return store[name]
        raise ModuleAttributeError(f"'{builtins.type(self).__name__}' object has no attribute "
                                   f"'{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if d.get("_ember_adopting"):
            value = self._adopted_value(name, value)
        if isinstance(value, Parameter):
            if params is None:
                raise ModuleAttributeError("cannot assign parameters before Module.__init__() "
                                           "call")
            _remove_from(name, d, d["_buffers"], d["_modules"], d["_non_persistent_buffers_set"])
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise KindError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, _em.Module):
                if modules is None:
                    raise ModuleAttributeError("cannot assign module before Module.__init__() "
                                               "call")
                _remove_from(name, d, d["_parameters"], d["_buffers"],
                             d["_non_persistent_buffers_set"])
                modules[name] = adopt(value)
            elif modules is not None and name in modules:
                if value is not None:
                    raise KindError(f"cannot assign '{_typename(value)}' as child module "
                                    f"'{name}' (torch.nn.Module or None expected)")
                modules[name] = value
            elif isinstance(value, Buffer):
                if "_buffers" not in d:
                    raise ModuleAttributeError("cannot assign buffer before Module.__init__() "
                                               "call")
                _remove_from(name, d, d["_parameters"], d["_modules"])
                self.register_buffer(name, value, value.persistent)
            else:
                buffers = d.get("_buffers")
                if buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, _EmberTensor):
                        raise KindError(f"cannot assign '{_typename(value)}' as buffer "
                                        f"'{name}' (torch.Tensor or None expected)")
                    buffers[name] = _as_buffer(value)
                else:
                    object.__setattr__(self, name, value)

    def _adopted_value(self, name, value):
        """What an ember layer's ``__init__`` assignment means here: a float tensor a
        Parameter, ``None`` for a weight or bias a ``None`` parameter."""
        d = self.__dict__
        if name in d["_buffers"] or name in d:
            return value
        if isinstance(value, _EmberTensor) and not isinstance(value, Parameter):
            if value._dtype.kind == "float":
                return _as_parameter(value)
        elif value is None and name in ("weight", "bias"):
            d["_parameters"][name] = None
        return value

    def __delattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_buffers", "_modules"):
            store = d.get(key)
            if store is not None and name in store:
                del store[name]
                d["_non_persistent_buffers_set"].discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        d = self.__dict__
        keys = list(object.__dir__(self))
        for key in ("_parameters", "_buffers", "_modules"):
            keys += list(d.get(key, ()))
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def _check_name(self, name, what, store):
        if "_parameters" not in self.__dict__:
            raise ModuleAttributeError(f"cannot assign {what} before Module.__init__() call")
        if not isinstance(name, str):
            raise KindError(f"{what} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise InvalidParameterError(f"{what} name can't contain \".\"", "name", name)
        if name == "":
            raise InvalidParameterError(f"{what} name can't be empty string \"\"", "name", name)
        if hasattr(self, name) and name not in store:
            raise InvalidParameterError(f"attribute '{name}' already exists", "name", name)

    def register_parameter(self, name, param):
        """Add the Parameter ``param`` (or None) as parameter ``name``.

        >>> import ember.torch as torch
        >>> from ember.torch import nn
        >>> m = nn.Module(); m.register_parameter("w", nn.Parameter(torch.ones(2)))
        >>> list(m._parameters)
        ['w']
        """
        self._check_name(name, "parameter", self.__dict__.get("_parameters", ()))
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise KindError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if not param.is_leaf:
            raise InvalidParameterError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                "created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.", "param", param)
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add ``tensor`` (or None) as buffer ``name``: saved in ``state_dict`` unless
        ``persistent=False``, never a parameter.

        >>> import ember.torch as torch
        >>> from ember.torch import nn
        >>> m = nn.Module(); m.register_buffer("mask", torch.ones(2), persistent=False)
        >>> list(m.buffers())[0].tolist(), list(m.state_dict())
        ([1.0, 1.0], [])
        """
        self._check_name(name, "buffer", self.__dict__.get("_buffers", ()))
        if tensor is not None and not isinstance(tensor, _EmberTensor):
            raise KindError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = _as_buffer(tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Add ``module`` (or None) as the sub-module ``name``.

        >>> from ember.torch import nn
        >>> m = nn.Module(); m.add_module("act", nn.ReLU()); m
        Module(
          (act): ReLU()
        )
        """
        if module is not None and not isinstance(module, _em.Module):
            raise KindError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise KindError(f"module name should be a string. Got {_typename(name)}")
        if "_modules" not in self.__dict__:
            raise ModuleAttributeError("cannot assign module before Module.__init__() call")
        if hasattr(self, name) and name not in self._modules:
            raise InvalidParameterError(f"attribute '{name}' already exists", "name", name)
        if "." in name:
            raise InvalidParameterError(f"module name can't contain \".\", got: {name}", "name",
                                        name)
        if name == "":
            raise InvalidParameterError("module name can't be empty string \"\"", "name", name)
        self._modules[name] = None if module is None else adopt(module)

    register_module = add_module

    def get_submodule(self, target):
        """The sub-module at the dotted path ``target`` ("" is this module).

        >>> from ember.torch import nn
        >>> nn.Sequential(nn.Sequential(nn.ReLU())).get_submodule("0.0")
        ReLU()
        """
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise ModuleAttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, _em.Module):
                raise ModuleAttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        """Put ``module`` at the dotted path ``target`` (its parent must exist).

        >>> from ember.torch import nn
        >>> m = nn.Sequential(nn.ReLU()); m.set_submodule("0", nn.Tanh()); m[0]
        Tanh()
        """
        if target == "":
            raise InvalidParameterError("Cannot set the submodule without a target name!",
                                        "target", target)
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise ModuleAttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), _em.Module):
            raise ModuleAttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def _owner_of(self, target):
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise ModuleAttributeError(f"{mod._get_name()} has no attribute `{name}`")
        return mod, name

    def get_parameter(self, target):
        """The parameter at the dotted path ``target``.

        >>> from ember.torch import nn
        >>> nn.Sequential(nn.Linear(2, 3)).get_parameter("0.bias").shape
        torch.Size([3])
        """
        mod, name = self._owner_of(target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise ModuleAttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path ``target``.

        >>> from ember.torch import nn
        >>> nn.Sequential(nn.BatchNorm1d(2)).get_buffer("0.running_var").tolist()
        [1.0, 1.0]
        """
        mod, name = self._owner_of(target)
        if name not in mod._buffers:
            raise ModuleAttributeError(f"`{name}` is not a buffer")
        return getattr(mod, name)

    # -- discovery (ember.nn.Module's machinery reads these) --------------------------------------
    def _local_split(self):
        d = self.__dict__
        return ([(n, (n,), p) for n, p in d["_parameters"].items() if p is not None],
                [(n, (n,), b) for n, b in d["_buffers"].items() if b is not None],
                [(n, (n,), m) for n, m in d["_modules"].items() if m is not None])

    def _local(self):
        for group in self._local_split():
            yield from group

    def _rebind(self, path, new):
        name = path[0]
        if name in self._parameters and not isinstance(new, Parameter):
            new = _as_parameter(new)
        setattr(self, name, new)

    def named_children(self):
        """(name, module) for each direct sub-module, each once: a generator."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def children(self):
        """The direct sub-modules, each once: a generator.

        >>> from ember.torch import nn
        >>> list(nn.Sequential(nn.ReLU(), nn.Tanh()).children())
        [ReLU(), Tanh()]
        """
        for _, module in self.named_children():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for this module and every sub-module, depth first: a generator.

        >>> from ember.torch import nn
        >>> r = nn.ReLU()
        >>> [n for n, _ in nn.Sequential(r, r).named_modules(remove_duplicate=False)]
        ['', '0', '1']
        """
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        """This module and every sub-module, each once: a generator."""
        for _, module in self.named_modules():
            yield module

    def _named_members(self, store, prefix, recurse, remove_duplicate):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in module.__dict__[store].items():
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, Parameter) for every parameter, PyTorch's names: a generator.

        >>> from ember.torch import nn
        >>> [n for n, _ in nn.Sequential(nn.Linear(2, 1)).named_parameters()]
        ['0.weight', '0.bias']
        """
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        """Every parameter, each once: a generator (``next(model.parameters())`` works).

        >>> from ember.torch import nn
        >>> [tuple(p.shape) for p in nn.Linear(3, 2).parameters()]
        [(2, 3), (2,)]
        """
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, tensor) for every buffer (persistent or not): a generator."""
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        """Every buffer, each once: a generator."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    # -- calling ----------------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        """The module's computation: subclasses define it (calling the module runs the hooks
        and it).

        >>> from ember.torch import nn
        >>> nn.Module()()
        Traceback (most recent call last):
        ...
        NotImplementedError: Module [Module] is missing the required "forward" function
        """
        raise NotImplementedError(f"Module [{builtins.type(self).__name__}] is missing the "
                                  "required \"forward\" function")

    def __call__(self, *args, **kwargs):
        d = self.__dict__
        if not (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_hooks"]
                or d["_backward_pre_hooks"]):
            return to_torch(self.forward(*args, **kwargs))
        pre_kw = d["_forward_pre_hooks_with_kwargs"]
        for hook_id, hook in list(d["_forward_pre_hooks"].items()):
            if hook_id in pre_kw:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise KindError("forward pre-hook must return None or a tuple of "
                                        f"(new_args, new_kwargs), but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        backward_hooks = None
        if d["_backward_hooks"] or d["_backward_pre_hooks"]:
            from .backward_hooks import BackwardHooks
            backward_hooks = BackwardHooks(self)
            args = backward_hooks.setup_inputs(args)
        try:
            result = to_torch(self.forward(*args, **kwargs))
        except Exception:
            self._always_called(args, kwargs)
            raise
        post_kw = d["_forward_hooks_with_kwargs"]
        for hook_id, hook in list(d["_forward_hooks"].items()):
            if hook_id in post_kw:
                out = hook(self, args, kwargs, result)
            else:
                out = hook(self, args, result)
            if out is not None:
                result = out
        if backward_hooks is not None:
            result = backward_hooks.setup_outputs(result)
        return result

    def _always_called(self, args, kwargs):
        """The forward hooks registered with ``always_call=True``, after ``forward`` raised."""
        d = self.__dict__
        for hook_id, hook in list(d["_forward_hooks"].items()):
            if hook_id in d["_forward_hooks_always_called"]:
                if hook_id in d["_forward_hooks_with_kwargs"]:
                    hook(self, args, kwargs, None)
                else:
                    hook(self, args, None)

    def _get_name(self):
        return builtins.type(self).__name__

    def _register_hook(self, store, hook, prepend, flags=()):
        d = self.__dict__
        handle = RemovableHandle(d[store], extra_dict=[d[f] for f, _ in flags])
        d[store][handle.id] = hook
        for flag_store, on in flags:
            if on:
                d[flag_store][handle.id] = True
        if prepend:
            d[store].move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` (``with_kwargs``: ``hook(module, args, kwargs)``) runs before
        ``forward``; a result other than None replaces the arguments. Returns a handle.

        >>> import ember.torch as torch
        >>> from ember.torch import nn
        >>> m = nn.Identity()
        >>> h = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        >>> m(torch.ones(1)).tolist()
        [2.0]
        >>> h.remove(); m(torch.ones(1)).tolist()
        [1.0]
        """
        return self._register_hook("_forward_pre_hooks", hook, prepend,
                                   [("_forward_pre_hooks_with_kwargs", with_kwargs)])

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args, kwargs,
        output)``) runs after ``forward``; a result other than None replaces the output;
        ``always_call``: it also runs (with output None) when ``forward`` raises. Returns a
        handle."""
        return self._register_hook("_forward_hooks", hook, prepend,
                                   [("_forward_hooks_with_kwargs", with_kwargs),
                                    ("_forward_hooks_always_called", always_call)])

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` runs when the gradients with respect to the
        module's tensor inputs are computed; a result other than None replaces ``grad_input``.
        Returns a handle (see ember/torch/nn/backward_hooks.py)."""
        if self._is_full_backward_hook is False:
            raise GraphError("Cannot use both regular backward hooks and full backward hooks "
                             "on a single Module. Please use only one of them.")
        self.__dict__["_is_full_backward_hook"] = True
        return self._register_hook("_backward_hooks", hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` runs when the gradients with respect to the module's
        outputs are known; a result other than None replaces ``grad_output``. Returns a
        handle."""
        return self._register_hook("_backward_pre_hooks", hook, prepend)

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` runs before ``state_dict`` saves this module."""
        return self._register_hook("_state_dict_pre_hooks", hook, False)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after ``state_dict`` saved
        this module; a result other than None is refused, as PyTorch refuses it."""
        return self._register_hook("_state_dict_hooks", hook, False)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after ``load_state_dict``; it may edit the
        key lists in place."""
        return self._register_hook("_load_state_dict_post_hooks", hook, False)

    # -- state ------------------------------------------------------------------------------------
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        d = self.__dict__
        for name, param in d["_parameters"].items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        skip = d["_non_persistent_buffers_set"]
        for name, buf in d["_buffers"].items():
            if buf is not None and name not in skip:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict, name -> tensor, of every parameter and persistent buffer, each module
        its parameters, then its buffers, then its sub-modules' (PyTorch's keys and order);
        values are detached tensors unless ``keep_vars``. ember's updates rebind a tensor to a
        new value rather than write its buffer, so a detached value keeps the value it had when
        ``state_dict`` was called (as a copy would; PyTorch's share storage and follow later
        in-place updates).

        >>> from ember.torch import nn
        >>> list(nn.BatchNorm1d(3).state_dict())
        ['weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked']
        """
        if args:  # PyTorch's deprecated positional form (destination, prefix, keep_vars)
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            if hook(self, destination, prefix, metadata) is not None:
                raise GraphError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs, assign=False):
        d = self.__dict__
        skip = d["_non_persistent_buffers_set"]
        local = [(n, p, True) for n, p in d["_parameters"].items() if p is not None]
        local += [(n, b, False) for n, b in d["_buffers"].items()
                  if b is not None and n not in skip]
        for name, old, is_param in local:
            key = prefix + name
            if key not in state_dict:
                missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, _EmberTensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  "torch.Tensor or Tensor-like object from checkpoint but "
                                  f"received {builtins.type(value)}")
                continue
            if tuple(value.shape) != tuple(old.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"torch.Size({list(value.shape)}) from checkpoint, the shape "
                                  f"in current model is torch.Size({list(old.shape)}).")
                continue
            try:
                _load_value(self, name, old, value, is_param, assign)
            except EmberError as exc:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions '
                                  f"in the model are torch.Size({list(old.shape)}) and whose "
                                  "dimensions in the checkpoint are "
                                  f"torch.Size({list(value.shape)}), an exception occurred : "
                                  f"{exc}.")
        for key in state_dict.keys():
            if key.startswith(prefix):
                parts = key[len(prefix):].split(".", 1)
                if len(parts) > 1:
                    if parts[0] not in d["_modules"]:
                        unexpected_keys.append(key)
                elif parts[0] not in {n for n, _, _ in local}:
                    unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy the tensors of ``state_dict`` into this module's parameters and persistent
        buffers (each keeps its identity; ``assign=True`` puts the given tensors in instead).
        Returns ``_IncompatibleKeys(missing_keys, unexpected_keys)``; with ``strict`` missing or
        unexpected keys raise, and a shape mismatch always raises, with PyTorch's message
        (InvalidParameterError).

        >>> import ember, ember.torch as torch
        >>> from ember.torch import nn
        >>> m = nn.Linear(2, 1)
        >>> m.load_state_dict({"weight": torch.ones(1, 2), "bias": torch.zeros(1)})
        <All keys matched successfully>
        >>> try:
        ...     m.load_state_dict({"weight": torch.ones(1, 3)}, strict=False)
        ... except ember.errors.InvalidParameterError as e:
        ...     print(str(e).replace("\\t", "  ").replace(" from", "\\n  from"))
        Error(s) in loading state_dict for Linear:
          size mismatch for weight: copying a param with shape torch.Size([1, 3])
          from checkpoint, the shape in current model is torch.Size([1, 2]).
        """
        if not hasattr(state_dict, "keys") or not hasattr(state_dict, "__getitem__"):
            raise KindError(f"Expected state_dict to be dict-like, got "
                            f"{builtins.type(state_dict)}.")
        for name, flag in (("strict", strict), ("assign", assign)):
            if not isinstance(flag, bool):
                raise InvalidParameterError(f"load_state_dict: {name} must be a bool, got "
                                            f"{flag!r}", name, flag)
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        missing, unexpected, errors = [], [], []

        def load(module, local_state, prefix=""):
            meta = {} if metadata is None else metadata.get(prefix[:-1], {})
            module._load_from_state_dict(local_state, prefix, meta, True, missing, unexpected,
                                         errors, assign)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {k: v for k, v in local_state.items()
                                   if k.startswith(child_prefix)}
                    load(child, child_state, child_prefix)
            result = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, result) is not None:
                    raise GraphError("Hooks registered with "
                                     "``register_load_state_dict_post_hook`` are not expected "
                                     "to return new values.")

        load(self, state_dict)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise InvalidParameterError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(
                    self._get_name(), "\n\t".join(errors)),
                "state_dict", {"missing_keys": missing, "unexpected_keys": unexpected})
        return _IncompatibleKeys(missing, unexpected)

    # -- modes, gradients, placement --------------------------------------------------------------
    def train(self, mode=True):
        """Training mode (``mode=True``) or evaluation mode, here and in every sub-module;
        returns self."""
        if not isinstance(mode, bool):
            raise InvalidParameterError("training mode is expected to be boolean", "mode", mode)
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """Evaluation mode, ``train(False)``; returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` of every parameter (each stays the same object); returns self.

        >>> from ember.torch import nn
        >>> nn.Linear(1, 1).requires_grad_(False).weight.requires_grad
        False
        """
        if not isinstance(requires_grad, bool):
            raise InvalidParameterError(f"requires_grad_: requires_grad must be a bool, got "
                                        f"{requires_grad!r}", "requires_grad", requires_grad)
        for p in self.parameters():
            p.requires_grad = requires_grad
        return self

    def zero_grad(self, set_to_none=True):
        """Forget the gradients of every parameter (``set_to_none=False``: set them to zeros).

        >>> import ember.torch as torch
        >>> from ember.torch import nn
        >>> m = nn.Linear(2, 1); _ = m(torch.ones(1, 2)).sum().backward()
        >>> m.zero_grad(set_to_none=False); m.bias.grad.tolist()
        [0.0]
        """
        for p in self.parameters():
            if p._grad is None:
                continue
            p.grad = None if set_to_none else to_torch(p._grad.zeros_like())

    def share_memory(self):
        """Returns self (ember's tensors need no sharing step for worker processes)."""
        return self

    def to(self, *args, **kwargs):
        """PyTorch's ``to(device=None, dtype=None, non_blocking=False)``, ``to(dtype)`` or
        ``to(tensor)``: move every parameter and buffer to the device and cast the float ones
        to the (float) dtype. Each tensor stays the same object; returns self.

        >>> import ember.torch as torch
        >>> from ember.torch import nn
        >>> m = nn.Linear(2, 2); w = m.weight
        >>> m.to(torch.float64).weight is w, w.dtype == torch.float64
        (True, True)
        """
        device, dtype = _parse_to("to", args, kwargs)
        if dtype is not None and dtype.kind not in ("float", "complex"):
            raise KindError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")
        if device is not None:
            self._move(device)
        if dtype is not None:
            self._cast(dtype, lambda t: t._dtype.kind == "float")
        return self

    def _cast_floats(self, dt):
        self._cast(dt, lambda t: t._dtype.kind == "float")

    def _cast(self, dt, which):
        """Cast each parameter and buffer that ``which`` picks to ``dt`` in place (the tensor
        object and its require-grad flag stay; a gradient is cast too)."""
        seen = set()
        with no_grad():
            for t in itertools.chain(self.parameters(), self.buffers()):
                if id(t) in seen or t._dtype is dt or not which(t):
                    continue
                seen.add(id(t))
                new = t.cast(dt)
                t._data, t._dtype = new._data, dt
                if t._grad is not None:
                    g = t._grad.cast(dt)
                    t._grad = wrap(g._data, dt)

    def _apply(self, fn, recurse=True):
        """PyTorch's ``_apply``: ``fn`` applied to every parameter (whose object stays, taking
        the new value), its gradient, and every buffer (replaced); returns self.

        >>> import ember.torch as torch
        >>> from ember.torch import nn
        >>> m = nn.Linear(1, 1); w = m.weight
        >>> m._apply(lambda t: t.double()).weight is w, w.dtype == torch.float64
        (True, True)
        """
        if recurse:
            for module in self.children():
                module._apply(fn)
        with no_grad():
            for param in self._parameters.values():
                if param is None:
                    continue
                _take_value(param, fn(param))
                if param._grad is not None:
                    g = fn(param._grad)
                    param._grad = wrap(g._data, g._dtype)
            for key, buf in list(self._buffers.items()):
                if buf is not None:
                    self._buffers[key] = _as_buffer(fn(buf))
        return self

    def cpu(self):
        """Every parameter and buffer on the CPU; returns self."""
        return self.to("cpu")

    def cuda(self, device=None):
        """Every parameter and buffer on a CUDA device (DeviceError where there is none);
        returns self."""
        name = "cuda" if device is None else (f"cuda:{device}" if isinstance(device, int)
                                              else device)
        return self.to(name)

    def type(self, dst_type):  # noqa: A003
        """Cast every parameter and buffer (of any dtype) to ``dst_type`` (a dtype or a type
        name such as ``"torch.DoubleTensor"``); returns self.

        >>> import ember.torch as torch
        >>> from ember.torch import nn
        >>> nn.Linear(1, 1).type(torch.float64).bias.dtype == torch.float64
        True
        """
        if isinstance(dst_type, str) and dst_type in _TYPE_NAMES:
            dst_type = _TYPE_NAMES[dst_type]
        dt = _dt.as_dtype(dst_type)
        self._cast(dt, lambda t: True)
        return self

    def float(self):  # noqa: A003
        """Float parameters and buffers to float32; returns self."""
        return self.to(_dt.float32)

    def double(self):
        """Float parameters and buffers to float64; returns self."""
        return self.to(_dt.float64)

    def half(self):
        """Float parameters and buffers to float16; returns self."""
        return self.to(_dt.float16)

    def bfloat16(self):
        """Float parameters and buffers to bfloat16; returns self."""
        return self.to(_dt.bfloat16)

    # -- display ----------------------------------------------------------------------------------
    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _em._add_indent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        out = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                out += extra_lines[0]
            else:
                out += "\n  " + "\n  ".join(lines) + "\n"
        return out + ")"


def _remove_from(name, *stores):
    for store in stores:
        if name in store:
            if isinstance(store, set):
                store.discard(name)
            else:
                del store[name]


def _take_value(t, value):
    """Tensor ``t`` holds ``value``'s value (dtype and device included) from now on."""
    if not isinstance(value, _EmberTensor):
        raise KindError(f"_apply: fn returned {builtins.type(value).__name__}; expected a "
                        "Tensor")
    t._data, t._dtype, t._device = value._data, value._dtype, value._device


def _load_value(module, name, old, value, is_param, assign):
    """Load ``value`` into ``module``'s tensor ``name`` (``old``): its value copied in, or with
    ``assign`` the tensor itself put in (a parameter wrapped as a Parameter)."""
    if assign:
        if is_param and not isinstance(value, Parameter):
            value = Parameter(value, old.requires_grad)
        setattr(module, name, value if is_param else _as_buffer(value))
        return
    with no_grad():
        v = value if value._dtype is old._dtype else value.cast(old._dtype)
    data = v._data
    if v._device is not old._device:
        data = transfer(data, v._dtype, v._device, old._device)
    old._data = data


def _parse_to(op, args, kwargs):
    """(device, dtype) of PyTorch's ``to`` arguments."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise KindError(f"{op}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, bool):
            continue  # non_blocking given positionally
        if isinstance(a, _EmberTensor):
            device, dtype = a._device, a._dtype
        elif isinstance(a, _dt.DType):
            dtype = a
        elif isinstance(a, (str, Device, int)):
            device = f"cuda:{a}" if isinstance(a, int) else a
        else:
            raise KindError(f"{op}() received an invalid combination of arguments: {a!r}; "
                            "expected a device, a dtype or a tensor")
    if device is not None:
        device = as_device(device, op)
    return device, None if dtype is None else _dt.as_dtype(dtype)


# -- ember.nn classes as ember.torch.nn classes -------------------------------------------------

_CLASSES = {}  # ember.nn class -> its ember.torch.nn class (containers.py adds its own)


class _adopting:
    """Within it, ``module``'s assignments follow ember's rule (see ``_adopted_value``)."""

    def __init__(self, module):
        self.d = module.__dict__

    def __enter__(self):
        self.d["_ember_adopting"] = self.d.get("_ember_adopting", 0) + 1

    def __exit__(self, *exc):
        n = self.d.pop("_ember_adopting") - 1
        if n:
            self.d["_ember_adopting"] = n
        return False


def _layer_init(self, *args, **kwargs):
    Module.__init__(self)
    with _adopting(self):
        builtins.type(self)._ember_layer.__init__(self, *args, **kwargs)


def torch_class(ember_cls):
    """The ``ember.torch.nn`` class of the ember.nn Module class ``ember_cls``: a subclass of
    both ``ember.torch.nn.Module`` and ``ember_cls`` (made once, then the same class).

    >>> import ember
    >>> from ember.torch.nn.module import torch_class
    >>> Lin = torch_class(ember.nn.Linear)
    >>> Lin is torch_class(ember.nn.Linear), issubclass(Lin, ember.nn.Linear)
    (True, True)
    >>> [type(p).__name__ for p in Lin(2, 1).parameters()]
    ['Parameter', 'Parameter']
    """
    if issubclass(ember_cls, Module):
        return ember_cls
    cls = _CLASSES.get(ember_cls)
    if cls is None:
        if issubclass(ember_cls, (_ec.ModuleList, _ec.ModuleDict)):
            # ember's containers map to ember/torch/nn/containers.py's (registered there)
            raise KindError(f"{ember_cls.__name__}: a subclass of ember.nn's containers has "
                            "no ember.torch.nn counterpart; build it from "
                            "ember.torch.nn.ModuleList or ModuleDict")
        else:
            cls = builtins.type(ember_cls.__name__, (Module, ember_cls), {
                "__init__": _layer_init, "_ember_layer": ember_cls, "forward": ember_cls.forward,
                "__module__": "ember.torch.nn", "__qualname__": ember_cls.__name__,
                "__doc__": ember_cls.__doc__})
        _CLASSES[ember_cls] = cls
    return cls


def adopt(module):
    """``module`` as an ember.torch.nn module: itself if it is one, else converted in place
    (its class becomes ``torch_class`` of its class, its float tensors Parameters, its
    registered buffers buffers, its sub-modules adopted in turn).

    >>> import ember
    >>> from ember.torch import nn
    >>> m = adopt(ember.nn.Sequential(ember.nn.Linear(2, 2)))
    >>> isinstance(m, nn.Sequential), type(m[0].weight).__name__
    (True, 'Parameter')
    """
    if isinstance(module, Module):
        return module
    if not isinstance(module, _em.Module):
        raise KindError(f"adopt: module must be an ember.nn Module, got "
                        f"{builtins.type(module).__name__}")
    cls = torch_class(builtins.type(module))
    old = dict(module.__dict__)
    module.__dict__.clear()
    module.__class__ = cls
    _init_state(module)
    module.__dict__["training"] = old.pop("training", True)
    if isinstance(old.get("_modules"), (list, dict)) and not hasattr(cls, "_ember_layer"):
        mods = old.pop("_modules")
        items = mods.items() if isinstance(mods, dict) else enumerate(mods)
        for key, child in items:
            module._modules[str(key)] = adopt(child)
    bufs = old.pop("_buffer_names", ())
    nonpersistent = old.pop("_nonpersistent", ())
    with _adopting(module):
        for key, value in old.items():
            if key in bufs:
                module.register_buffer(key, value, persistent=key not in nonpersistent)
            else:
                setattr(module, key, value)
    return module
