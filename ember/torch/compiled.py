"""``torch.compile``: ``ember.compile`` with PyTorch's signature, and the module it returns.

``torch.compile(fn)`` is ``ember.compile(fn)`` (ember/compiler: the step's kernels recorded and
replayed). ``torch.compile(module)`` returns an ``OptimizedModule``, as PyTorch's: a module
holding the original as ``_orig_mod`` (so its ``state_dict`` keys start with ``_orig_mod.``,
its parameters are the original's) whose forward is the compiled original; other attributes
are read from the original. PyTorch's options (``mode``, ``fullgraph``, ``dynamic``,
``backend``, ``options``) are accepted and change nothing; ``disable=True`` returns the
argument itself.

>>> import ember.torch as torch
>>> f = torch.compile(lambda x: x + 1)
>>> [f(torch.ones(1)).tolist() for _ in range(4)][-1]
[2.0]
>>> m = torch.compile(torch.nn.Linear(2, 1))
>>> isinstance(m, torch.nn.Module), sorted(m.state_dict())
(True, ['_orig_mod.bias', '_orig_mod.weight'])
"""

from .. import compiler as _compiler
from .nn.module import Module, ModuleAttributeError

__all__ = ["compile", "OptimizedModule"]

_OPTIONS = frozenset({"fullgraph", "dynamic", "backend", "mode", "options", "disable"})


class OptimizedModule(Module):
    """The module ``torch.compile(module)`` returns (see the module docstring).

    >>> import ember.torch as torch
    >>> lin = torch.nn.Linear(2, 1)
    >>> m = torch.compile(lin)
    >>> m._orig_mod is lin, m.weight is lin.weight
    (True, True)
    """

    def __init__(self, mod):
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_compiled"] = _compiler.compile(mod)

    def forward(self, *args, **kwargs):
        return self.__dict__["_compiled"](*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except ModuleAttributeError:
            return getattr(self.__dict__["_modules"]["_orig_mod"], name)


def compile(model=None, **options):  # noqa: A001 - torch.compile
    """``torch.compile``: see the module. Used as a decorator, with or without options.

    >>> import ember.torch as torch
    >>> @torch.compile(mode="reduce-overhead")
    ... def f(x):
    ...     return x * 2
    >>> f(torch.ones(2)).tolist()
    [2.0, 2.0]
    """
    unknown = set(options) - _OPTIONS
    if unknown:
        raise TypeError(f"compile() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    if model is None:
        return lambda fn: compile(fn, **options)
    if options.get("disable"):
        return model
    if isinstance(model, Module):
        return OptimizedModule(model)
    return _compiler.compile(model)
