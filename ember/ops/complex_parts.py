"""Complex parts: ``real``, ``imag``, ``conj`` and ``angle`` of a tensor, and the complex tensor
of two float ones, ``complex(real, imag)`` and ``polar(abs, angle)`` (as ``torch.complex`` and
``torch.polar``). See docs/complex.md.
"""

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError
from ..shapes import broadcast_shapes
from .._tensor import Tensor, device_error, record, tensor_method, wrap
from .elementwise import _F32, _F64, _check_tensor, _float_input, _zero_rule

__all__ = ["real", "imag", "conj", "angle", "complex", "polar"]


@tensor_method
def real(self):
    """The real part: a float tensor of a complex tensor's parts' dtype; a real tensor itself
    (as PyTorch). May be a view of ``self``'s buffer.

    >>> import ember, numpy
    >>> ember.from_numpy(numpy.array([1 + 2j, -1j], "complex64")).real().tolist()
    [1.0, -0.0]
    """
    _check_tensor(self, "real", "self", cx=True, computes=False)
    dt = self._dtype
    if dt.kind != "complex":
        return self
    return wrap(self._device.backend.ew_real(self._data), _dt.real_of(dt), self._ad)


@tensor_method
def imag(self):
    """The imaginary part of a complex tensor, a float tensor (PyTorch's ``imag``; a real tensor
    raises ``KindError``, as in PyTorch). May be a view of ``self``'s buffer.

    >>> import ember, numpy
    >>> ember.from_numpy(numpy.array([1 + 2j, -1j], "complex64")).imag().tolist()
    [2.0, -1.0]
    """
    _check_tensor(self, "imag", "self", cx=True, computes=False)
    dt = self._dtype
    if dt.kind != "complex":
        raise KindError(f"imag: not defined for real tensors (self has dtype {dt.name}); "
                        "expected a complex tensor (a real tensor's imaginary part is 0)")
    return wrap(self._device.backend.ew_imag(self._data), _dt.real_of(dt), self._ad)


@tensor_method
def conj(self):
    """The complex conjugate (the imaginary part negated); a real tensor itself (as PyTorch).

    >>> import ember, numpy
    >>> ember.from_numpy(numpy.array([1 + 2j], "complex64")).conj().tolist()
    [(1-2j)]
    """
    _check_tensor(self, "conj", "self", cx=True, computes=False)
    if self._dtype.kind != "complex":
        return self
    return wrap(self._device.backend.ew_conj(self._data), self._dtype, self._ad)


@tensor_method
def angle(self):
    """The argument ``atan2(imag, real)`` in ``[-pi, pi]``, a float tensor (complex64 gives
    float32). Of a real tensor, as PyTorch: ``pi`` below 0, else 0 (``-0.0`` gives 0), NaN for
    NaN; int tensors give the default float. Zero gradient for real tensors.

    >>> import ember, numpy
    >>> ember.from_numpy(numpy.array([1j, -1 + 0j])).angle().tolist()
    [1.5707963267948966, 3.141592653589793]
    >>> ember.tensor([-2.0, 0.0, 3.0]).angle().tolist()
    [3.1415927410125732, 0.0, 0.0]
    """
    _check_tensor(self, "angle", "self", cx=True)
    be = self._device.backend
    dt = self._dtype
    if dt.kind == "complex":
        return wrap(be.ew_angle(self._data), _dt.real_of(dt), self._ad)
    x, dt = _float_input(be, self, "angle")
    return record(be.ew_angle(x), dt, (self,), _zero_rule, "angle")


def _parts_pair(a, b, op, pa, pb):
    """Checked float32/float64 tensors ``a`` and ``b`` of one dtype on one device, broadcast:
    their buffers, the complex result dtype and the backend."""
    for t, p in ((a, pa), (b, pb)):
        if not isinstance(t, Tensor):
            raise InvalidParameterError(
                f"{op}: {p} must be a Tensor, got {type(t).__name__} {t!r}", p, t)
        if t._dtype is not _F32 and t._dtype is not _F64:
            raise KindError(f"{op}: {p} has dtype {t._dtype.name}; expected a float32 or "
                            "float64 tensor (as torch." + op + ")")
    if a._dtype is not b._dtype:
        raise KindError(f"{op}: {pa} has dtype {a._dtype.name} and {pb} has dtype "
                        f"{b._dtype.name}; expected the same dtype (float32 or float64)")
    if a._device is not b._device:
        raise device_error(op, a, b)
    if a._data.shape != b._data.shape:
        broadcast_shapes(a._data.shape, b._data.shape, op=op)
    return a._data, b._data, _dt.complex_of(a._dtype), a._device.backend


def _complex(real, imag):
    """A complex tensor from its real and imaginary parts (PyTorch's ``torch.complex``): two
    float32 tensors give complex64, two float64 tensors complex128; they broadcast.

    >>> import ember
    >>> ember.complex(ember.tensor([1.0, 0.0]), ember.tensor([2.0, -1.0])).tolist()
    [(1+2j), -1j]
    """
    re, im, dt, be = _parts_pair(real, imag, "complex", "real", "imag")
    return record(be.ew_complex(re, im), dt, (real, imag), None, "complex")


def polar(abs, angle):
    """The complex tensor ``abs * (cos(angle) + 1j * sin(angle))`` (PyTorch's ``torch.polar``):
    two float32 tensors give complex64, two float64 tensors complex128; they broadcast.

    >>> import ember
    >>> ember.polar(ember.tensor([2.0], dtype="float64"), ember.tensor([0.0], dtype="float64")).tolist()
    [(2+0j)]
    """
    r, t, dt, be = _parts_pair(abs, angle, "polar", "abs", "angle")
    return record(be.ew_polar(r, t), dt, (abs, angle), None, "polar")


complex = _complex  # noqa: A001 (ember.complex, as torch.complex)
complex.__name__ = complex.__qualname__ = "complex"
