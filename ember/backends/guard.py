"""The allocation guard's shared part: the typed error of a result too large to allocate, naming
the op the user called (every backend's guard raises it)."""

import functools
import os
import sys

from ..errors import InvalidParameterError

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_BACKENDS = os.path.join(_PACKAGE, "backends") + os.sep


def _physical_bytes():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):  # pragma: no cover - not a POSIX system
        return 2 ** 63 - 1


_PHYSICAL_BYTES = _physical_bytes()


def _method_names():
    """Tensor's methods by their code objects: the public name of a frame's function."""
    tensor = getattr(sys.modules.get("ember.tensor"), "Tensor", None)
    names = {}
    for name, value in (vars(tensor).items() if tensor is not None else ()):
        code = getattr(getattr(value, "fget", value), "__code__", None)
        if code is not None and (code not in names or names[code].startswith("_")):
            names[code] = name
    return names


def _entry_op(kernel):
    """The name of the ember function the user called: the outermost of the ember frames that
    lead to this kernel (Python frames are only walked when an allocation has failed)."""
    code = None
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(_PACKAGE):
            break
        if not path.startswith(_BACKENDS) and not frame.f_code.co_name.startswith("<"):
            code = frame.f_code
        frame = frame.f_back
    if code is None:
        return kernel.__name__
    return _method_names().get(code, code.co_name).strip("_")


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
    that the backend's ``allocation_failed(exc, kernel, shape, inputs)`` recognises becomes
    ``InvalidParameterError`` naming the op the user called and the shape of the result.
    ``allocates(result_shape)``: ``result_shape(*args)`` gives that shape for the message (only
    computed on failure)."""
    def allocates(result_shape=None):
        def decorate(kernel):
            @functools.wraps(kernel)
            def guarded(*args, **kwargs):
                try:
                    return kernel(*args, **kwargs)
                except caught as exc:
                    shape = None
                    if result_shape is not None:
                        try:
                            shape = result_shape(*args, **kwargs)
                        except Exception:  # noqa: BLE001 - the message falls back to input shapes
                            shape = None
                    raise allocation_failed(exc, kernel, shape, args) from None
            return guarded
        return decorate
    return allocates
