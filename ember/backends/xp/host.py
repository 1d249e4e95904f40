"""The kernels an ``xp:<library>`` device runs on the host: the required primitives the Array API
standard has no function for (random draws, convolution and pooling, linear algebra that
reports a singular matrix, strided windows, one-hot, median, top-k, padding modes, files,
threads, distributed buffers, DLPack) run as the NumPy backend's kernels on a host copy, and
their results come back as the library's arrays. Everything else runs on the library.

>>> "random_normal" in HOST_KERNELS and "ew_add" not in HOST_KERNELS
True
"""

from ..base import Backend, required_kernels

__all__ = ["HOST_KERNELS", "HostRouted", "complex_through_host", "through_host"]

#: the required primitives an ``xp`` device computes on the host; its own (``xp/__init__.py``)
#: are the core kernels, the scatter where the library has one, erf and complex where it has them
HOST_KERNELS = tuple(n for n in required_kernels() if n not in {
    "allocation_failed", "allocates", "asarray", "cast", "readonly", "copy", "contiguous",
    "is_contiguous", "shares_memory", "broadcast_to", "add", "native_dtype", "dtype_of",
    "ember_dtype", "to_host", "from_host", "synchronize"})


def through_host(name):
    """The kernel ``name`` of the NumPy backend, on host copies of this device's arrays."""
    def kernel(self, *args, **kwargs):
        host = self.host
        out = getattr(host, name)(*[self._down(a) for a in args],
                                  **{k: self._down(v) for k, v in kwargs.items()})
        return self._up(out)
    kernel.__name__ = name
    kernel.__doc__ = f"``{name}`` of the NumPy backend, on a host copy."
    kernel.__wrapped__ = getattr(Backend, name)  # it takes the declaration's parameters
    return kernel


def complex_through_host(name, own):
    """The kernel ``name``: where an argument is a complex array, the NumPy backend's on host
    copies (``through_host``), else ``own`` (a bound kernel)."""
    host = through_host(name)

    def kernel(self, *args, **kwargs):
        Array = self.Array
        if any(isinstance(a, Array) and self.dtype_of(a).kind == "complex" for a in args):
            return host(self, *args, **kwargs)
        return own(*args, **kwargs)
    kernel.__name__ = name
    kernel.__doc__ = f"``{name}``; of complex arrays the NumPy backend's, on host copies."
    kernel.__wrapped__ = getattr(Backend, name)
    return kernel


class HostRouted:
    """The host route of every kernel in ``HOST_KERNELS`` (a base of ``ArrayAPIBackend``)."""

    def _down(self, value):
        """``value`` with this device's arrays (also inside tuples and lists) as host arrays."""
        if isinstance(value, self.Array):
            return self.to_host(value)
        if isinstance(value, (tuple, list)):
            return type(value)(self._down(v) for v in value)
        return value

    def _up(self, value):
        """``value`` with host arrays and NumPy scalars (also inside tuples, lists and dicts) as
        this device's arrays."""
        host_xp = self.host.xp
        if isinstance(value, (host_xp.ndarray, host_xp.generic)):
            value = host_xp.asarray(value)
            return self.from_host(value, self.host.dtype_of(value))
        if isinstance(value, (tuple, list)):
            return type(value)(self._up(v) for v in value)
        if isinstance(value, dict):
            return {k: self._up(v) for k, v in value.items()}
        return value


for _name in HOST_KERNELS:
    setattr(HostRouted, _name, through_host(_name))
