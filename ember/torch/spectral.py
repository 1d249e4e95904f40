"""PyTorch's short-time Fourier transform and its inverse, ``stft`` and ``istft``, composed of
ember's framing (``unfold``), padding, ``ember.fft`` and an overlap-add (``index_add``).

``stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
align_to_window=None)``: ``input`` of shape ``(L,)`` or ``(B, L)``; the frame ``t`` starts at
``t * hop_length`` (``hop_length`` defaults to ``n_fft // 4``) after ``center`` padded ``n_fft //
2`` on both sides with ``pad_mode``; the window (``win_length`` long, ``n_fft`` by default,
all ones by default) is zero-padded on both sides to ``n_fft``; with ``align_to_window=True``
(only without ``center``) a frame starts where its window starts. The result, of shape
``(B?, freqs, frames)``, is ``sum_k window[k] x[t*hop + k] exp(-2 pi i f k / n_fft)``, times
``n_fft ** -0.5`` when ``normalized``, for ``f`` up to ``n_fft // 2`` when ``onesided`` (the
default for real input and window). ``return_complex`` must be given for real input; False
returns ``view_as_real`` of the result.

``istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
normalized=False, onesided=None, length=None, return_complex=False)`` inverts it by the least
squares overlap-add: each frame's inverse transform times the window, summed, divided by the
sum of the squared windows (which must not vanish: ``InvalidParameterError``), trimmed by
``n_fft // 2`` on both sides when ``center``, to ``length`` when given (zero-padded when
longer).

As ember's other transforms, these record no gradients (docs/pytorch.md): ``stft`` of an
input or window that requires grad raises ``KindError`` (PyTorch's is differentiable);
``istft``'s input is complex, so never tracked, and its result carries the window's gradient.

>>> import ember.torch as torch
>>> x = torch.arange(16.0)
>>> X = torch.stft(x, 8, window=torch.hann_window(8), return_complex=True)
>>> tuple(X.shape)
(5, 9)
>>> y = torch.istft(X, 8, window=torch.hann_window(8), length=16)
>>> bool((y - x).abs().max() < 1e-4)
True
"""

import math
import numbers

import ember as _e

from .. import dtypes as _dt
from ..autodiff.graph import grad_enabled
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import Tensor as _T
from . import fft as _fft
from ._tensor import as_torch, torch_function, torch_method

__all__ = ["stft", "istft"]

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _int(value, name, op):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise KindError(f"{op}: {name} must be an int, got {type(value).__name__}")
    return int(value)


def _flag(value, name, op):
    if value is not None and not isinstance(value, bool):
        raise KindError(f"{op}: {name} must be a bool or None, got {type(value).__name__}")
    return value


def _geometry(n_fft, hop_length, win_length, window, real_dtype, device, op):
    """``(n_fft, hop, win_length, window padded to n_fft)``, checked."""
    n_fft = _int(n_fft, "n_fft", op)
    if n_fft <= 0:
        raise InvalidParameterError(f"{op}: expected n_fft > 0, got {n_fft}", "n_fft", n_fft)
    hop = n_fft // 4 if hop_length is None else _int(hop_length, "hop_length", op)
    if hop <= 0:
        raise InvalidParameterError(f"{op}: expected hop_length > 0, but got hop_length={hop}",
                                    "hop_length", hop_length)
    win = n_fft if win_length is None else _int(win_length, "win_length", op)
    if not 0 < win <= n_fft:
        raise InvalidParameterError(f"{op}: expected 0 < win_length <= n_fft, but got "
                                    f"win_length={win}", "win_length", win_length)
    if window is None:
        window = _e.ones(win, dtype=real_dtype, device=device)
    elif not isinstance(window, _T):
        raise KindError(f"{op}: window must be a Tensor or None, got {type(window).__name__}")
    elif window.ndim != 1 or window.shape[0] != win:
        raise ShapeMismatchError(f"{op}: expected a 1D window tensor of size equal to "
                                 f"win_length={win}, but got window with size "
                                 f"{tuple(window.shape)}", expected=(win,),
                                 actual=tuple(window.shape))
    left = (n_fft - win) // 2
    padded = as_torch(window)
    if win < n_fft:
        padded = _pad_zeros(padded, left, n_fft - win - left)
    return n_fft, hop, win, left, as_torch(window), padded


def _pad_zeros(t, before, after):
    """``t`` with zeros added on its last dim (any dtype, complex included)."""
    shape = tuple(t.shape[:-1])
    parts = [_e.zeros(shape + (before,), dtype=t.dtype, device=t.device), t,
             _e.zeros(shape + (after,), dtype=t.dtype, device=t.device)]
    return as_torch(_e.cat(parts, -1))


def _pad(x, pad, mode):
    """``x`` (B, L) padded ``pad`` on both sides of its last dim by ``mode``."""
    from .nn import functional as F
    if x._dtype.kind == "complex":
        re, im = (as_torch(F.pad(p.unsqueeze(1), (pad, pad), mode=mode)).squeeze(1)
                  for p in (x.real, x.imag))
        return as_torch(_e.complex(re, im))
    return as_torch(F.pad(x.unsqueeze(1), (pad, pad), mode=mode)).squeeze(1)


@torch_method
@torch_function
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,  # noqa: A002
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform of ``input`` (see the module docstring).

    >>> import ember.torch as torch
    >>> X = torch.stft(torch.ones(8), 4, hop_length=2, return_complex=True, center=False)
    >>> X.shape, X[0].tolist()
    (torch.Size([3, 3]), [(4+0j), (4+0j), (4+0j)])
    """
    op = "stft"
    if not isinstance(input, _T):
        raise KindError(f"{op}: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (1, 2):
        raise ShapeMismatchError(f"{op}: expected a 1D or 2D tensor, got shape "
                                 f"{tuple(input.shape)}", expected="1D or 2D",
                                 actual=tuple(input.shape))
    if input._dtype.kind not in ("float", "complex"):
        raise KindError(f"{op}: expected a float or complex input, got {input._dtype.name}")
    for name, value in (("center", center), ("normalized", normalized)):
        if not isinstance(value, bool):
            raise KindError(f"{op}: {name} must be a bool, got {type(value).__name__}")
    onesided = _flag(onesided, "onesided", op)
    return_complex = _flag(return_complex, "return_complex", op)
    align_to_window = _flag(align_to_window, "align_to_window", op)
    if pad_mode not in _PAD_MODES:
        raise InvalidParameterError(f"{op}: pad_mode must be one of {_PAD_MODES}, got "
                                    f"{pad_mode!r}", "pad_mode", pad_mode)
    if align_to_window is not None and center:
        raise InvalidParameterError(f"{op}: align_to_window should only be set when center = "
                                    "false", "align_to_window", align_to_window)
    real_dtype = {_dt.complex128: _dt.float64, _dt.complex64: _dt.float32}.get(input._dtype,
                                                                             input._dtype)
    n_fft, hop, win, left, window, padded = _geometry(n_fft, hop_length, win_length, window,
                                                      real_dtype, input.device, op)
    if grad_enabled() and (input.requires_grad or window.requires_grad):
        raise KindError(f"{op}: input or window requires grad, and ember has no gradients "
                        "through the fft ops (docs/pytorch.md); detach them or compute under "
                        "no_grad()")
    is_complex = input._dtype.kind == "complex" or window._dtype.kind == "complex"
    if return_complex is None:
        if not is_complex:
            raise InvalidParameterError(f"{op}: requires the return_complex parameter be given "
                                        "for real inputs (True, or False for view_as_real's "
                                        "format)", "return_complex", return_complex)
        return_complex = True
    if onesided is None:
        onesided = not is_complex
    elif onesided and is_complex:
        raise InvalidParameterError(f"{op}: Cannot have onesided output if window or input is "
                                    "complex", "onesided", onesided)
    x = as_torch(input)
    batched = x.ndim == 2
    if not batched:
        x = x.unsqueeze(0)
    if center:
        x = _pad(x, n_fft // 2, pad_mode)
    length = x.shape[-1]
    frame = win if align_to_window else n_fft
    if not 0 < frame <= length:
        raise InvalidParameterError(f"{op}: expected 0 < n_fft <= {length} (the padded input's "
                                    f"length), but got n_fft={n_fft}", "n_fft", n_fft)
    if align_to_window:
        frames = _pad_zeros(x.unfold(-1, win, hop) * window, left, n_fft - win - left)
    else:
        frames = x.unfold(-1, n_fft, hop) * padded
    spectrum = (_fft.rfft if onesided else _fft.fft)(frames, dim=-1).transpose(-1, -2)
    if normalized:
        spectrum = spectrum * (n_fft ** -0.5)
    if not batched:
        spectrum = spectrum.squeeze(0)
    if not return_complex:
        from .complex_views import view_as_real
        spectrum = view_as_real(spectrum)
    return spectrum


@torch_method
@torch_function
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,  # noqa: A002
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse short-time Fourier transform of ``input`` (see the module docstring).

    >>> import ember.torch as torch
    >>> X = torch.stft(torch.arange(8.0), 4, return_complex=True)
    >>> [round(v, 4) for v in torch.istft(X, 4).tolist()]
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    """
    op = "istft"
    if not isinstance(input, _T) or input._dtype.kind != "complex":
        raise KindError(f"{op}: requires a complex-valued input tensor matching the output from "
                        "stft with return_complex=True.")
    if input.ndim not in (2, 3):
        raise ShapeMismatchError(f"{op}: expected a 2D or 3D input (freqs, frames), got shape "
                                 f"{tuple(input.shape)}", expected="2D or 3D",
                                 actual=tuple(input.shape))
    for name, value in (("center", center), ("normalized", normalized),
                        ("return_complex", return_complex)):
        if not isinstance(value, bool):
            raise KindError(f"{op}: {name} must be a bool, got {type(value).__name__}")
    onesided = _flag(onesided, "onesided", op)
    real_dtype = _dt.float64 if input._dtype is _dt.complex128 else _dt.float32
    n_fft, hop, win, left, window, padded = _geometry(n_fft, hop_length, win_length, window,
                                                      real_dtype, input.device, op)
    freqs, count = input.shape[-2], input.shape[-1]
    if onesided is None:
        onesided = freqs != n_fft
    expected = n_fft // 2 + 1 if onesided else n_fft
    if freqs != expected:
        raise ShapeMismatchError(f"{op}: expected the input to have {expected} frequency bins "
                                 f"({'one' if onesided else 'two'}-sided, n_fft={n_fft}), got "
                                 f"{freqs}", expected=expected, actual=freqs)
    if count == 0:
        raise InvalidParameterError(f"{op}: the input has no frames", "input", input)
    if return_complex and onesided:
        raise InvalidParameterError(f"{op}: Cannot have onesided output if window or input is "
                                    "complex", "onesided", onesided)
    if not return_complex and window._dtype.kind == "complex":
        raise InvalidParameterError(f"{op}: Complex windows are incompatible with "
                                    "return_complex=False", "window", window)
    if length is not None:
        length = _int(length, "length", op)
        if length < 0:
            raise InvalidParameterError(f"{op}: length must be >= 0, got {length}", "length",
                                        length)
    X = as_torch(input)
    batched = X.ndim == 3
    if not batched:
        X = X.unsqueeze(0)
    if return_complex:
        frames = _fft.ifft(X, dim=-2)
    else:
        frames = _fft.irfft(X[:, : n_fft // 2 + 1], n=n_fft, dim=-2)
    if normalized:
        frames = frames * math.sqrt(n_fft)
    frames = frames.transpose(-1, -2) * padded  # (B, frames, n_fft)
    total = n_fft + hop * (count - 1)
    starts = as_torch(_e.arange(count, device=X.device)).unsqueeze(1) * hop
    index = (starts + as_torch(_e.arange(n_fft, device=X.device))).reshape(-1)
    batch = frames.shape[0]
    y = as_torch(_e.zeros((batch, total), dtype=frames.dtype, device=X.device))
    y = y.index_add(1, index, frames.reshape(batch, -1))
    square = (padded * padded.conj()).real if padded._dtype.kind == "complex" else padded ** 2
    envelope = as_torch(_e.zeros(total, dtype=square.dtype, device=X.device))
    envelope = envelope.index_add(0, index, square.repeat(count))
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = total - n_fft // 2 if center else total
    end = min(end, total)
    y, envelope = y[:, start:end], envelope[start:end]
    if envelope.numel() and bool((envelope.abs() < 1e-11).any().item()):
        raise InvalidParameterError(f"{op}: window overlap add min below 1e-11: the window "
                                    "does not satisfy the nonzero overlap-add constraint "
                                    "(NOLA)", "window", window)
    y = y / envelope
    if length is not None and y.shape[-1] < length:
        y = _pad_zeros(y, 0, length - y.shape[-1])
    return y.squeeze(0) if not batched else y
