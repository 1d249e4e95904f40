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


# No result with one item of at most 16 bytes (complex128) per element of an array of at most
# this many bytes can outgrow the machine's memory: ``check_shaped``'s cheap first test.
_SMALL_BYTES = _PHYSICAL_BYTES // 16


def check_result(op, shape, itemsize):
    """Raise the allocation guard's error naming ``op`` unless a result of ``shape`` with items
    of ``itemsize`` bytes fits in the machine's memory: checked before an op computes it, on
    every backend, where the allocation would fail with the array library's own error or
    swap (a broadcast view such as ``ones(1).expand(2**40)`` holds 4 bytes, not 4 TiB)."""
    n = itemsize
    for size in shape:
        n *= size
    if n > _PHYSICAL_BYTES:
        raise allocation_error(op, shape, f"{n} bytes, more than the machine's "
                                          f"{_PHYSICAL_BYTES} bytes of memory")


def check_shaped(op, data, itemsize):
    """``check_result`` for a result of the shape of the backend array ``data`` (an op's input,
    possibly a broadcast view): one comparison of ``data.nbytes`` (NumPy's and torch's, from
    the shape) when the result surely fits (an array without ``nbytes`` is checked from its
    shape)."""
    try:
        small = data.nbytes <= _SMALL_BYTES
    except AttributeError:
        small = False
    if not small:
        check_result(op, tuple(data.shape), itemsize)


def surely_fit(a, b):
    """Whether the broadcast of the arrays ``a`` and ``b`` surely fits in memory: it has at most
    ``a.size * b.size`` elements, so one product of their ``nbytes`` decides (of their sizes
    times the widest item's, for arrays without ``nbytes`` as the standard's; False where a size
    is unknown: then the caller computes the broadcast shape)."""
    try:
        return a.nbytes * b.nbytes <= _SMALL_BYTES
    except AttributeError:
        n, m = a.size, b.size
        return n is not None and m is not None and n * m * 256 <= _SMALL_BYTES


def failed_shape(result_shape, args, kwargs):
    """The result shape an allocation error names: ``result_shape(*args, **kwargs)``, or None
    (the message then names the inputs' shapes) when there is none or it cannot be computed."""
    if result_shape is None:
        return None
    try:
        return result_shape(*args, **kwargs)
    except Exception:  # noqa: BLE001 - the message falls back to input shapes
        return None


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
                    shape = failed_shape(result_shape, args, kwargs)
                    raise allocation_failed(exc, op or kernel.__name__, shape, args) from None
            return guarded
        return decorate
    return allocates
