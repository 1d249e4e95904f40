"""The FFT family of ``ember.fft``: PyTorch's ``torch.fft`` names, keywords and semantics.

Transforms: ``fft``/``ifft`` (complex to complex), ``rfft``/``ihfft`` (real to half a
Hermitian spectrum), ``irfft``/``hfft`` (half a Hermitian spectrum to real), each in 1-D, 2-D
(``fft2``...) and N-D (``fftn``...) forms; the helpers ``fftfreq``, ``rfftfreq``, ``fftshift``
and ``ifftshift``.

Dtypes follow PyTorch: float32 and complex64 give complex64 (float32 for ``irfft``/``hfft``),
float64 and complex128 give complex128 (float64); bool and int inputs are computed in the
default float dtype (float32); float16 and bfloat16 raise KindError (PyTorch's CPU FFT refuses
them too, and ember has no complex32). ``rfft``/``ihfft`` take real inputs only.

``norm`` is ``"backward"`` (the default, ``None`` too: the inverse transforms scale by ``1/n``),
``"ortho"`` (both by ``1/sqrt(n)``) or ``"forward"`` (the forward transforms scale by ``1/n``).
``n``/``s`` pad the input with zeros or trim it along the transformed dims (an ``s`` entry of -1
keeps the input's size); a signal must have at least one point (InvalidParameterError
otherwise, as PyTorch).

No gradients: ember's autodiff is for real tensors, and the transforms mix real and complex
values, so every transform raises KindError for a tracked input while grad mode is on (detach
it or compute under ``ember.no_grad()``). ``fftshift``/``ifftshift`` are rolls and do carry
gradients.

>>> import ember
>>> ember.fft.fft(ember.tensor([1.0, 0.0, 0.0, 0.0])).tolist()
[(1+0j), (1+0j), (1+0j), (1+0j)]
>>> ember.fft.rfft(ember.tensor([1.0, 2.0, 3.0, 4.0])).tolist()
[(10+0j), (-2+2j), (-2+0j)]
"""

import math
import numbers

from .. import dtypes as _dt
from ..autodiff.graph import _mode
from ..devices import as_device
from ..errors import InvalidParameterError, KindError
from ..shapes import as_int, normalize_dim
from .._tensor import check_tensor, record, wrap

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")

# the three transform shapes: complex to complex, real to (half) complex, (half) complex to real
_C2C, _R2C, _C2R = "c2c", "r2c", "c2r"


# -- argument checks -------------------------------------------------------------------------------

def _signal(x, op, real_only):
    """The dtype the transform of ``x`` computes in (after the checks of the input)."""
    check_tensor(x, op, "input")
    dt = x._dtype
    kind = dt.kind
    if kind == "complex":
        if real_only:
            raise KindError(f"{op}: input has dtype {dt.name}; expected a real tensor ({op} "
                            "transforms a real signal: use fft/fftn for a complex one)")
    elif dt is _dt.float16 or dt is _dt.bfloat16:
        raise KindError(f"{op}: not defined for {dt.name} tensors (PyTorch's CPU FFT refuses "
                        "them and ember has no complex32); expected a float32, float64, "
                        "complex64 or complex128 tensor: cast to float32 first")
    if x._node is not None and _mode.enabled:
        raise KindError(f"{op}: input is tracked (it requires grad): ember has no gradients "
                        "through the fft ops; detach it or compute under ember.no_grad()")
    if kind == "bool" or kind == "int":  # PyTorch computes in the default float dtype
        return _dt.default_float
    return dt


def _norm(norm, op):
    if norm is None:
        return "backward"
    if isinstance(norm, str) and norm in _NORMS:
        return norm
    raise InvalidParameterError(f"{op}: norm {norm!r} is not a normalization mode; expected "
                                "None, 'backward', 'ortho' or 'forward'", "norm", norm)


def _size(value, op, param):
    """One signal size: an int >= 1, or -1 (the input's own size; returned as None)."""
    v = as_int(value, op, param)
    if v == -1 and param != "n":
        return None
    if v < 1:
        raise InvalidParameterError(f"{op}: {param} has {v} points; expected a signal size "
                                    "of at least 1" + ("" if param == "n" else " (or -1)"),
                                    param, value)
    return v


def _seq(value, op, param):
    """An int or a sequence of ints as a tuple (the values checked later)."""
    if isinstance(value, (list, tuple)):
        return tuple(value)
    if hasattr(value, "tolist") and getattr(value, "ndim", None) == 1:  # a 1-d int tensor
        return tuple(value.tolist())
    return (value,)


def _dims_1d(x, n, dim, op):
    dims = (normalize_dim(dim, x.ndim, op, "dim"),)
    return dims, (None if n is None else _size(n, op, "n"),)


def _dims_nd(x, s, dim, op, at_least_one):
    ndim = x.ndim
    if s is not None:
        s = _seq(s, op, "s")
    if dim is None:
        if s is None:
            dims = tuple(range(ndim))
        else:
            if len(s) > ndim:
                raise InvalidParameterError(
                    f"{op}: s has {len(s)} sizes but the input has only {ndim} dims; expected "
                    f"at most {ndim} sizes (or give dim)", "s", s)
            dims = tuple(range(ndim - len(s), ndim))
    else:
        dims = tuple(normalize_dim(d, ndim, op, "dim") for d in _seq(dim, op, "dim"))
        if len(set(dims)) != len(dims):
            raise InvalidParameterError(f"{op}: dim {dim!r} repeats a dim; expected distinct "
                                        "dims", "dim", dim)
        if s is not None and len(s) != len(dims):
            raise InvalidParameterError(
                f"{op}: s has {len(s)} sizes but dim names {len(dims)} dims; expected one size "
                "per dim", "s", s)
    if at_least_one and not dims:
        raise InvalidParameterError(f"{op}: no dims to transform; expected at least one dim "
                                    "(the last one holds half a Hermitian spectrum)", "dim", dim)
    sizes = (None,) * len(dims) if s is None else tuple(_size(v, op, "s") for v in s)
    return dims, sizes


# -- the transform ---------------------------------------------------------------------------------

def _transform(op, x, dt, dims, sizes, norm, shape_kind, forward):
    """Run a checked transform of ``x`` computed in ``dt``: ``sizes[i]`` is the signal size
    along ``dims[i]`` (None: the default), the last dim being the Hermitian one of r2c/c2r
    transforms."""
    in_shape = x.shape
    sizes = list(sizes)
    last = len(dims) - 1
    for i, d in enumerate(dims):
        if sizes[i] is None:
            m = in_shape[d]
            if shape_kind == _C2R and i == last:
                if m < 2:
                    raise InvalidParameterError(
                        f"{op}: input has {m} point{'s' if m != 1 else ''} along dim {d}, which "
                        f"gives a real signal of 2 * ({m} - 1) = {2 * (m - 1)} points; expected "
                        "at least 2 points there, or an output size (n or s)", "input", in_shape)
                sizes[i] = 2 * (m - 1)
            else:
                if m < 1:
                    raise InvalidParameterError(
                        f"{op}: input has 0 points along dim {d}, an empty signal; expected at "
                        "least 1 point there, or a signal size (n or s) to pad to", "input",
                        in_shape)
                sizes[i] = m
    sizes = tuple(sizes)
    out_shape = list(in_shape)
    for d, n in zip(dims, sizes):
        out_shape[d] = n
    if shape_kind == _R2C and dims:
        out_shape[dims[-1]] = sizes[-1] // 2 + 1
    out_shape = tuple(out_shape)
    cdt = _dt.complex_of(dt)
    out_dt = _dt.real_of(cdt) if shape_kind == _C2R else cdt
    be = x._device.backend
    arr = x._data if dt is x._dtype else be.cast(x._data, dt)  # bool and int inputs
    if not dims:  # fftn over no dims: a complex copy of the input, as PyTorch
        out = be.cast(arr, out_dt)
        if out is arr:
            out = be.copy(arr, op)
    elif 0 in out_shape or 0 in in_shape:
        # an empty batch, or an empty signal padded with zeros: the transform is all zeros
        # (PyTorch's MKL path fails on empty batches; the answer is not in doubt)
        out = be.creation_zeros(out_shape, out_dt, op=op)
    elif shape_kind == _C2C:
        out = be.fft_c2c(arr, sizes, dims, norm, forward, out_dt, op=op)
    elif shape_kind == _R2C:
        out = be.fft_r2c(arr, sizes, dims, norm, forward, out_dt, op=op)
    else:
        out = be.fft_c2r(arr, sizes, dims, norm, forward, out_dt, op=op)
    return record(out, out_dt, (x,), None, op)


def _one_dim(op, shape_kind, forward, input, n, dim, norm):
    dt = _signal(input, op, shape_kind == _R2C)
    dims, sizes = _dims_1d(input, n, dim, op)
    norm = _norm(norm, op)
    return _transform(op, input, dt, dims, sizes, norm, shape_kind, forward)


def _n_dim(op, shape_kind, forward, input, s, dim, norm):
    dt = _signal(input, op, shape_kind == _R2C)
    dims, sizes = _dims_nd(input, s, dim, op, shape_kind != _C2C)
    norm = _norm(norm, op)
    return _transform(op, input, dt, dims, sizes, norm, shape_kind, forward)


def fft(input, n=None, dim=-1, norm=None):
    """The 1-D discrete Fourier transform along ``dim`` (``n`` points: the input is trimmed or
    padded with zeros), as ``torch.fft.fft``.

    >>> import ember
    >>> ember.fft.fft(ember.tensor([1.0, 2.0, 3.0, 4.0])).tolist()
    [(10+0j), (-2+2j), (-2+0j), (-2-2j)]
    """
    return _one_dim("fft", _C2C, True, input, n, dim, norm)


def ifft(input, n=None, dim=-1, norm=None):
    """The 1-D inverse discrete Fourier transform along ``dim``, as ``torch.fft.ifft``.

    >>> import ember
    >>> ember.fft.ifft(ember.tensor([4.0, 0.0, 0.0, 0.0])).tolist()
    [(1+0j), (1+0j), (1+0j), (1+0j)]
    """
    return _one_dim("ifft", _C2C, False, input, n, dim, norm)


def rfft(input, n=None, dim=-1, norm=None):
    """The 1-D Fourier transform of a real signal: the ``n // 2 + 1`` non-negative frequencies, as
    ``torch.fft.rfft``.

    >>> import ember
    >>> ember.fft.rfft(ember.tensor([1.0, 2.0, 3.0, 4.0])).tolist()
    [(10+0j), (-2+2j), (-2+0j)]
    """
    return _one_dim("rfft", _R2C, True, input, n, dim, norm)


def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of ``rfft``: a real signal of ``n`` points (default ``2 * (m - 1)``) from half a
    Hermitian spectrum, as ``torch.fft.irfft``.

    >>> import ember
    >>> ember.fft.irfft(ember.fft.rfft(ember.tensor([1.0, 2.0, 3.0, 4.0]))).tolist()
    [1.0, 2.0, 3.0, 4.0]
    >>> ember.fft.irfft(ember.tensor([4.0, 0.0, 0.0])).tolist()  # zero imaginary parts
    [1.0, 1.0, 1.0, 1.0]
    """
    return _one_dim("irfft", _C2R, False, input, n, dim, norm)


def hfft(input, n=None, dim=-1, norm=None):
    """The 1-D Fourier transform of a signal with Hermitian symmetry, given by its first half: a
    real result of ``n`` points (default ``2 * (m - 1)``), as ``torch.fft.hfft``.

    >>> import ember
    >>> ember.fft.hfft(ember.tensor([1.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    return _one_dim("hfft", _C2R, True, input, n, dim, norm)


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of ``hfft``: half the inverse Fourier transform of a real signal, as
    ``torch.fft.ihfft``.

    >>> import ember
    >>> ember.fft.ihfft(ember.tensor([1.0, 1.0, 1.0, 1.0])).tolist()
    [(1-0j), -0j, -0j]
    """
    return _one_dim("ihfft", _R2C, False, input, n, dim, norm)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D discrete Fourier
    transform over ``dim`` (the last two dims by default), as ``torch.fft.fft2``.

    >>> import ember
    >>> ember.fft.fft2(ember.ones(2, 2)).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return _n_dim("fft2", _C2C, True, input, s, dim, norm)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D inverse discrete
    Fourier transform over ``dim`` (the last two dims by default), as ``torch.fft.ifft2``.

    >>> import ember
    >>> ember.fft.ifft2(ember.tensor([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[(1+0j), (1+0j)], [(1+0j), (1+0j)]]
    """
    return _n_dim("ifft2", _C2C, False, input, s, dim, norm)


def fftn(input, s=None, dim=None, norm=None):
    """The N-D discrete Fourier transform over ``dim`` (every dim by default; the last ``len(s)``
    dims when only ``s`` is given), as ``torch.fft.fftn``.

    >>> import ember
    >>> ember.fft.fftn(ember.ones(2, 2)).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return _n_dim("fftn", _C2C, True, input, s, dim, norm)


def ifftn(input, s=None, dim=None, norm=None):
    """The N-D inverse discrete Fourier transform over ``dim``, as ``torch.fft.ifftn``.

    >>> import ember
    >>> ember.fft.ifftn(ember.tensor([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[(1+0j), (1+0j)], [(1+0j), (1+0j)]]
    """
    return _n_dim("ifftn", _C2C, False, input, s, dim, norm)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D Fourier transform
    of a real signal (the last transformed dim halved), as ``torch.fft.rfft2``.

    >>> import ember
    >>> ember.fft.rfft2(ember.ones(2, 2)).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return _n_dim("rfft2", _R2C, True, input, s, dim, norm)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of
    ``rfft2``: a real result, as ``torch.fft.irfft2``.

    >>> import ember
    >>> ember.fft.irfft2(ember.tensor([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    return _n_dim("irfft2", _C2R, False, input, s, dim, norm)


def rfftn(input, s=None, dim=None, norm=None):
    """The N-D Fourier transform of a real signal (the last transformed dim halved), as
    ``torch.fft.rfftn``.

    >>> import ember
    >>> ember.fft.rfftn(ember.ones(2, 2)).shape
    (2, 2)
    """
    return _n_dim("rfftn", _R2C, True, input, s, dim, norm)


def irfftn(input, s=None, dim=None, norm=None):
    """The inverse of ``rfftn``: a real result whose last transformed dim has ``s[-1]`` points
    (default ``2 * (m - 1)``), as ``torch.fft.irfftn``.

    >>> import ember
    >>> ember.fft.irfftn(ember.tensor([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    return _n_dim("irfftn", _C2R, False, input, s, dim, norm)


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D Fourier transform
    of a Hermitian-symmetric signal given by its half: a real result, as ``torch.fft.hfft2``.

    >>> import ember
    >>> ember.fft.hfft2(ember.tensor([[1.0, 0.0], [0.0, 0.0]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    return _n_dim("hfft2", _C2R, True, input, s, dim, norm)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of
    ``hfft2``: half the 2-D inverse transform of a real signal, as ``torch.fft.ihfft2``.

    >>> import ember
    >>> ember.fft.ihfft2(ember.ones(2, 2)).shape
    (2, 2)
    """
    return _n_dim("ihfft2", _R2C, False, input, s, dim, norm)


def hfftn(input, s=None, dim=None, norm=None):
    """The N-D Fourier transform of a Hermitian-symmetric signal given by its half (the last
    transformed dim): a real result, as ``torch.fft.hfftn``.

    >>> import ember
    >>> ember.fft.hfftn(ember.tensor([[1.0, 0.0], [0.0, 0.0]])).tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    return _n_dim("hfftn", _C2R, True, input, s, dim, norm)


def ihfftn(input, s=None, dim=None, norm=None):
    """The inverse of ``hfftn``: half the N-D inverse transform of a real signal, as
    ``torch.fft.ihfftn``.

    >>> import ember
    >>> ember.fft.ihfftn(ember.ones(2, 2)).shape
    (2, 2)
    """
    return _n_dim("ihfftn", _R2C, False, input, s, dim, norm)


# -- frequencies and shifts ------------------------------------------------------------------------

def _freq(op, n, d, dtype, device, half):
    n = as_int(n, op, "n")
    if n < 0:
        raise InvalidParameterError(f"{op}: n {n} is negative; expected a signal length >= 0",
                                    "n", n)
    if isinstance(d, bool) or not isinstance(d, numbers.Real):
        raise InvalidParameterError(f"{op}: d must be a real number (the sample spacing), got "
                                    f"{type(d).__name__} {d!r}", "d", d)
    d = float(d)
    dt = _dt.default_float if dtype is None else _dt.as_dtype(dtype, "dtype", op)
    if dt.kind != "float":
        raise KindError(f"{op}: dtype {dt.name} is not a float dtype; expected a float dtype "
                        "(the frequencies are fractions)")
    dev = as_device(device, op)
    nd = n * d
    # as PyTorch: the frequencies are k * (1 / (n * d)); d = 0 gives inf (nan at k = 0)
    scale = 1.0 / nd if nd != 0 else math.copysign(math.inf, nd)
    out = dev.backend.fft_freq(n, scale, dt, half, op=op)
    return wrap(out, dt)


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of a transform of ``n`` points with spacing ``d``:
    ``[0, 1, ..., -2, -1] / (d * n)``, as ``torch.fft.fftfreq`` (default float dtype).

    >>> import ember
    >>> ember.fft.fftfreq(4).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    return _freq("fftfreq", n, d, dtype, device, False)


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The ``n // 2 + 1`` non-negative sample frequencies of ``rfft``'s result, as
    ``torch.fft.rfftfreq``.

    >>> import ember
    >>> ember.fft.rfftfreq(4).tolist()
    [0.0, 0.25, 0.5]
    """
    return _freq("rfftfreq", n, d, dtype, device, True)


def _shift(op, x, dim, inverse):
    check_tensor(x, op, "input")
    shape = x.shape
    if dim is None:
        dims = tuple(range(len(shape)))
    else:  # repeated dims roll twice, as PyTorch's roll
        dims = tuple(normalize_dim(d, len(shape), op, "dim") for d in _seq(dim, op, "dim"))
    if not dims:  # nothing to shift (PyTorch's roll refuses; the shift of no dims is x)
        return x.reshape(shape)
    shifts = tuple(-(shape[d] // 2) if inverse else shape[d] // 2 for d in dims)
    return x.roll(shifts, dims)


def fftshift(input, dim=None):
    """Roll the zero frequency to the middle of ``dim`` (every dim by default), as
    ``torch.fft.fftshift``; a movement op, so it takes every dtype and carries gradients.

    >>> import ember
    >>> ember.fft.fftshift(ember.fft.fftfreq(4)).tolist()
    [-0.5, -0.25, 0.0, 0.25]
    """
    return _shift("fftshift", input, dim, False)


def ifftshift(input, dim=None):
    """The inverse of ``fftshift``, as ``torch.fft.ifftshift``.

    >>> import ember
    >>> ember.fft.ifftshift(ember.tensor([-0.5, -0.25, 0.0, 0.25])).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    return _shift("ifftshift", input, dim, True)
