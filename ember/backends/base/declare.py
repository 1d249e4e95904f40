"""How ``ember/backends/base`` declares kernels: ``@required`` marks a primitive every backend
must implement (its body is only the declaration: signature and meaning); an undecorated
method of the base is a default, written once against the backend's Array API namespace
``self.xp``, which a backend overrides only where it is measurably faster."""

__all__ = ["required", "is_required"]


def required(fn):
    """Mark ``fn`` (a method of a base kernel family) as a required primitive.

    >>> @required
    ... def ew_add(self, a, b):
    ...     '''a + b.'''
    >>> is_required(ew_add)
    True
    """
    fn.__ember_required__ = True
    return fn


def is_required(fn):
    """Whether ``fn`` is a required primitive's declaration (not an implementation)."""
    return getattr(fn, "__ember_required__", False)
