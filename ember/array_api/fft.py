"""The standard's ``fft`` extension (2024.12) over ``ember.fft``: the same transforms with the
Array API's signatures (``axis``/``axes`` for torch's ``dim``, keyword-only options, ``norm``
``"backward"`` by default).

Where the standard leaves behaviour unspecified, ember follows PyTorch: a bool or int input is
transformed in the default float dtype, ``s`` without ``axes`` names the last ``len(s)`` axes,
and repeated ``axes`` raise InvalidParameterError (``fftshift`` rolls a repeated axis twice).

>>> import ember
>>> import ember.array_api as xp
>>> xp.fft.fft(xp.asarray([1.0, 0.0, 0.0, 0.0])).tolist()
[(1+0j), (1+0j), (1+0j), (1+0j)]
>>> xp.fft.rfftfreq(4).tolist()
[0.0, 0.25, 0.5]
"""

from .. import fft as _fft

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def fft(x, /, *, n=None, axis=-1, norm="backward"):
    """The 1-D discrete Fourier transform along ``axis`` (``ember.fft.fft``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.fft(xp.asarray([1.0, 1.0])).tolist()
    [(2+0j), 0j]
    """
    return _fft.fft(x, n=n, dim=axis, norm=norm)


def ifft(x, /, *, n=None, axis=-1, norm="backward"):
    """The 1-D inverse discrete Fourier transform along ``axis`` (``ember.fft.ifft``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.ifft(xp.asarray([2.0, 0.0])).tolist()
    [(1+0j), (1+0j)]
    """
    return _fft.ifft(x, n=n, dim=axis, norm=norm)


def fftn(x, /, *, s=None, axes=None, norm="backward"):
    """The N-D discrete Fourier transform over ``axes`` (all by default; ``ember.fft.fftn``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.fftn(xp.ones((2, 2))).tolist()
    [[(4+0j), 0j], [0j, 0j]]
    """
    return _fft.fftn(x, s=s, dim=axes, norm=norm)


def ifftn(x, /, *, s=None, axes=None, norm="backward"):
    """The N-D inverse discrete Fourier transform over ``axes`` (``ember.fft.ifftn``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.ifftn(xp.asarray([[4.0, 0.0], [0.0, 0.0]])).tolist()
    [[(1+0j), (1+0j)], [(1+0j), (1+0j)]]
    """
    return _fft.ifftn(x, s=s, dim=axes, norm=norm)


def rfft(x, /, *, n=None, axis=-1, norm="backward"):
    """The 1-D transform of a real signal: ``n // 2 + 1`` frequencies (``ember.fft.rfft``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.rfft(xp.asarray([1.0, 1.0, 1.0, 1.0])).tolist()
    [(4+0j), 0j, 0j]
    """
    return _fft.rfft(x, n=n, dim=axis, norm=norm)


def irfft(x, /, *, n=None, axis=-1, norm="backward"):
    """The inverse of ``rfft``: a real signal of ``n`` points, ``2 * (m - 1)`` by default
    (``ember.fft.irfft``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.irfft(xp.fft.rfft(xp.asarray([1.0, 2.0, 3.0, 4.0]))).tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    return _fft.irfft(x, n=n, dim=axis, norm=norm)


def rfftn(x, /, *, s=None, axes=None, norm="backward"):
    """The N-D transform of a real signal, the last axis halved (``ember.fft.rfftn``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.rfftn(xp.ones((2, 4))).shape
    (2, 3)
    """
    return _fft.rfftn(x, s=s, dim=axes, norm=norm)


def irfftn(x, /, *, s=None, axes=None, norm="backward"):
    """The inverse of ``rfftn``: a real result (``ember.fft.irfftn``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.irfftn(xp.fft.rfftn(xp.ones((2, 4)))).tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    """
    return _fft.irfftn(x, s=s, dim=axes, norm=norm)


def hfft(x, /, *, n=None, axis=-1, norm="backward"):
    """The transform of a Hermitian signal given by its first half: a real result of ``n``
    points (``ember.fft.hfft``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.hfft(xp.asarray([1.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    return _fft.hfft(x, n=n, dim=axis, norm=norm)


def ihfft(x, /, *, n=None, axis=-1, norm="backward"):
    """The inverse of ``hfft`` for a real signal (``ember.fft.ihfft``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.ihfft(xp.asarray([1.0, 1.0, 1.0, 1.0])).shape
    (3,)
    """
    return _fft.ihfft(x, n=n, dim=axis, norm=norm)


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """The sample frequencies of an ``n``-point transform with spacing ``d``, in ``dtype``
    (the default float dtype by default) on ``device`` (``ember.fft.fftfreq``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.fftfreq(4, d=0.5).tolist()
    [0.0, 0.5, -1.0, -0.5]
    """
    return _fft.fftfreq(n, d, dtype=dtype, device=device)


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """The ``n // 2 + 1`` non-negative sample frequencies of ``rfft`` (``ember.fft.rfftfreq``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.rfftfreq(5).shape
    (3,)
    """
    return _fft.rfftfreq(n, d, dtype=dtype, device=device)


def fftshift(x, /, *, axes=None):
    """Roll the zero frequency to the middle of ``axes`` (all by default;
    ``ember.fft.fftshift``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.fftshift(xp.fft.fftfreq(4)).tolist()
    [-0.5, -0.25, 0.0, 0.25]
    """
    return _fft.fftshift(x, dim=axes)


def ifftshift(x, /, *, axes=None):
    """The inverse of ``fftshift`` (``ember.fft.ifftshift``).

    >>> import ember, ember.array_api as xp
    >>> xp.fft.ifftshift(xp.asarray([-0.5, -0.25, 0.0, 0.25])).tolist()
    [0.0, 0.25, -0.5, -0.25]
    """
    return _fft.ifftshift(x, dim=axes)
