"""How ``ember/backends/base`` declares kernels: ``@required`` marks a primitive every backend
must implement (its body is only the declaration: signature and meaning); an undecorated
method of the base is a default, written once against the backend's Array API namespace
``self.xp``, which a backend overrides only where it is measurably faster; ``@metadata`` marks
a default that reads only an array's shape, dtype or layout (a backend runs it as written)."""

import functools

from ..guard import failed_shape

__all__ = ["required", "is_required", "metadata", "is_metadata", "allocates"]


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


def metadata(fn):
    """Mark ``fn`` (a default of a base kernel family) as reading only what an array tells of
    itself (shape, dtype, layout): it computes no value that could warn, so ``Backend`` stores
    it as written, without the backend's ``_prepare`` (no warnings context: it is on every
    view's path).

    >>> @metadata
    ... def numel(self, a):
    ...     '''The number of elements of ``a``.'''
    >>> is_metadata(numel)
    True
    """
    fn.__ember_metadata__ = True
    return fn


def is_metadata(fn):
    """Whether ``fn`` (a kernel, bound or not) is marked ``metadata``."""
    return getattr(getattr(fn, "__func__", fn), "__ember_metadata__", False)


def allocates(result_shape=None):
    """The allocation guard of a default that allocates a buffer whose size the caller chose:
    the backend's ``allocation_failed`` turns an exception of an impossible allocation into the
    typed error naming the op ``op`` (a keyword the guarded default takes, and passes on to the
    kernels it calls) and ``result_shape(*args)``, as the backends' own ``allocates``.

    >>> class K:
    ...     @allocates(lambda n: (n,))
    ...     def ones(self, n, op=None):
    ...         return [1] * n
    >>> K().ones(2)
    [1, 1]
    """
    def decorate(method):
        @functools.wraps(method)
        def guarded(self, *args, op=None, **kwargs):
            try:
                return method(self, *args, op=op, **kwargs)
            except Exception as exc:  # noqa: BLE001 - the backend tells which are allocations
                shape = failed_shape(result_shape, args, kwargs)
                error = self.allocation_failed(exc, op or method.__name__, shape, args)
                if error is exc:
                    raise
                raise error from None
        return guarded
    return decorate
