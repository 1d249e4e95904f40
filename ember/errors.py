"""The error classes of ember: each is an EmberError and the built-in exception a user would catch."""

__all__ = [
    "EmberError",
    "ShapeMismatchError",
    "InvalidParameterError",
    "DimensionError",
    "KindError",
    "CastError",
    "GraphError",
    "DistributedError",
    "DeviceError",
]


class EmberError(Exception):
    """Base class of every error ember raises."""


class ShapeMismatchError(EmberError, ValueError):
    """Shapes that must agree don't; carries ``expected`` and ``actual``."""

    def __init__(self, message, expected=None, actual=None):
        super().__init__(message)
        self.expected = expected
        self.actual = actual


class InvalidParameterError(EmberError, ValueError):
    """A parameter's value is out of its domain; carries ``param`` and ``value``."""

    def __init__(self, message, param=None, value=None):
        super().__init__(message)
        self.param = param
        self.value = value


class DimensionError(EmberError, IndexError):
    """A dim or an index is out of range."""


class KindError(EmberError, TypeError):
    """An op is not defined for the tensor's kind or dtype."""


class CastError(KindError, RuntimeError):
    """A result cannot be written into the tensor given for it (an in-place op, ``out=``): its
    dtype is of a higher kind (a float result into an int tensor). A KindError, and the
    RuntimeError PyTorch raises there."""


class GraphError(EmberError, RuntimeError):
    """Autodiff misuse: backward through consumed steps, require_grad on a non-leaf, ..."""


class DistributedError(EmberError, RuntimeError):
    """A collective could not complete: no process group, a rank died, or the timeout passed."""


class DeviceError(EmberError, RuntimeError):
    """Tensors on different devices meet in one op, or a device is not available here; carries
    ``devices``, the devices involved."""

    def __init__(self, message, devices=()):
        super().__init__(message)
        self.devices = tuple(devices)
