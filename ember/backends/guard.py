"""The allocation guard's shared part: the typed error of a result too large to allocate, naming
the op the user called (every backend's guard raises it). The op's name travels with the call:
the public op passes it to the kernel (``op="repeat"``); nothing reads Python frames."""

import functools
import os

from ..errors import InvalidParameterError


def _physical_bytes():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):  # pragma: no cover - not a POSIX system
        return 2 ** 63 - 1


_PHYSICAL_BYTES = _physical_bytes()


def _shape_text(args):
    shapes = [str(tuple(a.shape)) for a in args if hasattr(a, "shape")]
    for a in args:
        if isinstance(a, (list, tuple)):
            shapes += [str(tuple(x.shape)) for x in a if hasattr(x, "shape")]
    return "inputs of shape " + ", ".join(shapes) if shapes else "its arguments"


def allocation_error(op, shape, reason, inputs=()):
    """The typed error of an allocation that cannot succeed: names ``op`` and the result ``shape``
    (None when the kernel cannot tell it; then the inputs' shapes)."""
    what = f"a result of shape {tuple(shape)}" if shape is not None else \
        f"the result for {_shape_text(inputs)}"
    return InvalidParameterError(f"{op}: {what} is too large to allocate ({reason}); expected "
                                 "a result that fits in memory", "shape",
                                 None if shape is None else tuple(shape))


def allocation_guard(allocation_failed, caught):
    """A backend's ``allocates`` decorator: for a kernel that allocates a buffer whose size the
    caller chose (creation, random, repeat, pad, cat, matmul ...), an exception of ``caught``
    that the backend's ``allocation_failed(exc, op, shape, inputs)`` recognises becomes
    ``InvalidParameterError`` naming the op the user called and the shape of the result.
    ``allocates(result_shape)``: ``result_shape(*args)`` gives that shape for the message (only
    computed on failure). The guarded kernel takes the public op's name as the keyword ``op``
    (``be.mv_repeat(x, reps, op="repeat")``); without it the message names the kernel."""
    def allocates(result_shape=None):
        def decorate(kernel):
            @functools.wraps(kernel)
            def guarded(*args, op=None, **kwargs):
                try:
                    return kernel(*args, **kwargs)
                except caught as exc:
                    shape = None
                    if result_shape is not None:
                        try:
                            shape = result_shape(*args, **kwargs)
                        except Exception:  # noqa: BLE001 - the message falls back to input shapes
                            shape = None
                    raise allocation_failed(exc, op or kernel.__name__, shape, args) from None
            return guarded
        return decorate
    return allocates
