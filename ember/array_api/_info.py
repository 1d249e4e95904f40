"""``__array_namespace_info__``: what ember's Array API namespace offers."""

from .. import dtypes as _dt
from ..devices import as_device, devices, get_default_device
from ..errors import InvalidParameterError

_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "integral": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
    "numeric": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float32", "float64", "complex64", "complex128"),
}


class __array_namespace_info__:
    """The inspection object of the standard.

    >>> import ember.array_api as xp
    >>> info = xp.__array_namespace_info__()
    >>> info.default_dtypes()["real floating"], info.default_device() in info.devices()
    (ember.float32, True)
    >>> info.devices()[0]
    Device('cpu')
    """

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": None}

    def default_device(self):
        """The creation functions' default device (``ember.get_default_device()``)."""
        return get_default_device()

    def devices(self):
        """The devices available here (``ember.devices()``): "cpu", then the torch devices."""
        return devices()

    def _check(self, device):
        if device is not None:
            as_device(device, "__array_namespace_info__")

    def default_dtypes(self, *, device=None):
        self._check(device)
        # complex64 with float32, as PyTorch's default complex dtype and ``asarray([1j])``
        return {"real floating": _dt.default_float,
                "complex floating": _dt.complex_of(_dt.default_float),
                "integral": _dt.default_int, "indexing": _dt.int64}

    def dtypes(self, *, device=None, kind=None):
        self._check(device)
        if kind is None:
            names = _KINDS["bool"] + _KINDS["numeric"]
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            for k in kinds:
                if k not in _KINDS:
                    raise InvalidParameterError(
                        f"dtypes: kind {k!r} is not one of {sorted(_KINDS)}", "kind", k)
            names = tuple(dict.fromkeys(n for k in kinds for n in _KINDS[k]))
        return {n: getattr(_dt, n if n != "bool" else "bool_") for n in names}
