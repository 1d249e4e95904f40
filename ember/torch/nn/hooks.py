"""``RemovableHandle``: what the ``register_*_hook`` methods return, as PyTorch's
``torch.utils.hooks.RemovableHandle``: ``handle.remove()`` takes the hook out again; usable as
a context manager.

>>> from collections import OrderedDict
>>> hooks = OrderedDict()
>>> h = RemovableHandle(hooks)
>>> hooks[h.id] = print
>>> h.remove(); len(hooks)
0
"""

import itertools
import weakref

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """A handle that removes its hook from ``hooks_dict`` (and each of ``extra_dict``)."""

    _ids = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._ids)
        if extra_dict is None:
            extra_dict = ()
        elif isinstance(extra_dict, dict):
            extra_dict = (extra_dict,)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        """Take the hook out (again: nothing happens)."""
        for ref in (self.hooks_dict_ref,) + self.extra_dict_ref:
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False

    def __repr__(self):
        return f"<RemovableHandle id={self.id}>"
