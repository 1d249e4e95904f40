"""ember/torch/spectral.py against torch 2.13: stft and istft with every argument (n_fft,
hop_length, win_length, window, center, pad_mode, normalized, onesided, return_complex,
align_to_window, length), batched and not, real and complex; errors."""

import warnings

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError
from oracle import assert_close

warnings.filterwarnings("ignore", message=".*stft.*")
warnings.filterwarnings("ignore", message=".*istft.*")
warnings.filterwarnings("ignore", message=".*window.*")

GEOMETRY = [
    (20, 8, None, None, {}),
    (21, 8, 3, 6, {"center": False, "align_to_window": True}),
    (21, 8, 3, 6, {"center": False, "align_to_window": False}),
    (24, 8, 3, 6, {"center": False}),
    (33, 16, 4, 10, {"pad_mode": "constant", "normalized": True}),
    (20, 8, 2, 8, {"onesided": False}),
    (20, 7, 2, 5, {"pad_mode": "replicate"}),
    (19, 6, 1, None, {"pad_mode": "circular"}),
]


def _signal(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("length,n_fft,hop,win,kw", GEOMETRY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [(), (3,)])
@pytest.mark.parametrize("window", ["hann", None])
def test_stft(length, n_fft, hop, win, kw, dtype, batch, window):
    x = _signal(batch + (length,), dtype)
    we = None if window is None else et.hann_window(win or n_fft, dtype=getattr(et, dtype))
    wt = None if window is None else torch.hann_window(win or n_fft, dtype=getattr(torch, dtype))
    for rc in (True, False):
        a = et.stft(et.tensor(x), n_fft, hop, win, we, return_complex=rc, **kw)
        b = torch.stft(torch.tensor(x), n_fft, hop, win, wt, return_complex=rc, **kw)
        assert_close(a, b, rtol=1e-4 if dtype == "float32" else 1e-9,
                     atol=1e-4 if dtype == "float32" else 1e-9)
    a = et.tensor(x).stft(n_fft, hop, win, we, return_complex=True, **kw)
    assert tuple(a.shape) == tuple(b.shape[:-1])


@pytest.mark.parametrize("length,n_fft,hop,win,kw", [g for g in GEOMETRY
                                                     if "align_to_window" not in g[4]])
@pytest.mark.parametrize("batch", [(), (2,)])
@pytest.mark.parametrize("out_length", [None, "shorter", "longer"])
def test_istft(length, n_fft, hop, win, kw, batch, out_length):
    x = _signal(batch + (length,), "float64")
    kw = {k: v for k, v in kw.items() if k != "pad_mode"}
    we = et.hann_window(win or n_fft, dtype=et.float64) if kw.get("center", True) else None
    wt = torch.hann_window(win or n_fft, dtype=torch.float64) if we is not None else None
    X = torch.stft(torch.tensor(x), n_fft, hop, win, wt, return_complex=True, **kw)
    extra = {} if out_length is None else {
        "length": length - 3 if out_length == "shorter" else length + 5}
    try:
        expected = torch.istft(X, n_fft, hop, win, wt, **kw, **extra)
    except RuntimeError:
        with pytest.raises(InvalidParameterError, match="overlap"):
            et.istft(et.tensor(X.numpy()), n_fft, hop, win, we, **kw, **extra)
        return
    got = et.istft(et.tensor(X.numpy()), n_fft, hop, win, we, **kw, **extra)
    assert_close(got, expected, rtol=1e-9, atol=1e-9)
    got = et.tensor(X.numpy()).istft(n_fft, hop, win, we, **kw, **extra)
    assert_close(got, expected, rtol=1e-9, atol=1e-9)


def test_round_trip_recovers_the_signal():
    x = _signal((2, 40), "float64")
    w = et.hann_window(16, dtype=et.float64)
    X = et.stft(et.tensor(x), 16, 4, window=w, return_complex=True)
    assert_close(et.istft(X, 16, 4, window=w, length=40), x, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_input(dtype):
    rng = np.random.default_rng(2)
    z = (rng.standard_normal(20) + 1j * rng.standard_normal(20)).astype(dtype)
    a = et.stft(et.tensor(z), 8, return_complex=True)
    b = torch.stft(torch.tensor(z), 8, return_complex=True)
    tol = 1e-4 if dtype == "complex64" else 1e-9
    assert_close(a, b, rtol=tol, atol=tol)
    assert_close(et.stft(et.tensor(z), 8), torch.stft(torch.tensor(z), 8), rtol=tol, atol=tol)
    assert_close(et.stft(et.tensor(z), 8, return_complex=False),
                 torch.stft(torch.tensor(z), 8, return_complex=False), rtol=tol, atol=tol)
    assert_close(et.istft(a, 8, return_complex=True), torch.istft(b, 8, return_complex=True),
                 rtol=tol, atol=tol)
    assert_close(et.istft(a, 8), torch.istft(b, 8), rtol=tol, atol=tol)


def test_stft_errors_as_torch():
    x, t = et.ones(20), torch.ones(20)
    cases = [((8,), {}, InvalidParameterError),
             ((8,), {"hop_length": 0, "return_complex": True}, InvalidParameterError),
             ((30,), {"return_complex": True, "center": False}, InvalidParameterError),
             ((8,), {"win_length": 9, "return_complex": True}, InvalidParameterError),
             ((8,), {"return_complex": True, "align_to_window": True}, InvalidParameterError)]
    for args, kw, ours in cases:
        with pytest.raises(RuntimeError):
            torch.stft(t, *args, **kw)
        with pytest.raises(ours):
            et.stft(x, *args, **kw)
    with pytest.raises(RuntimeError):
        torch.stft(t, 8, window=torch.ones(5), return_complex=True)
    with pytest.raises(ShapeMismatchError):
        et.stft(x, 8, window=et.ones(5), return_complex=True)
    with pytest.raises(RuntimeError):
        torch.stft(torch.ones(2, 3, 20), 8, return_complex=True)
    with pytest.raises(ShapeMismatchError):
        et.stft(et.ones(2, 3, 20), 8, return_complex=True)
    with pytest.raises(RuntimeError):
        torch.stft(torch.ones(20, dtype=torch.complex64), 8, onesided=True, return_complex=True)
    with pytest.raises(InvalidParameterError):
        et.stft(et.ones(20, dtype=et.complex64), 8, onesided=True, return_complex=True)
    with pytest.raises(InvalidParameterError):
        et.stft(x, 8, return_complex=True, pad_mode="mirror")
    with pytest.raises(KindError):
        et.stft(et.ones(20, dtype=et.int64), 8, return_complex=True)


def test_istft_errors_as_torch():
    X = torch.stft(torch.ones(20), 8, return_complex=True)
    with pytest.raises(RuntimeError):
        torch.istft(torch.view_as_real(X), 8)
    with pytest.raises(KindError):
        et.istft(et.ones(5, 11), 8)
    with pytest.raises(RuntimeError):
        torch.istft(X, 8, window=torch.zeros(8))
    with pytest.raises(InvalidParameterError, match="overlap"):
        et.istft(et.tensor(X.numpy()), 8, window=et.zeros(8))
    with pytest.raises(RuntimeError):
        torch.istft(X, 8, return_complex=True)
    with pytest.raises(InvalidParameterError):
        et.istft(et.tensor(X.numpy()), 8, return_complex=True)
    with pytest.raises(ShapeMismatchError):
        et.istft(et.tensor(X.numpy()), 10, onesided=True)


def test_gradients():
    # ember has no gradients through the fft ops: a tracked stft input is refused, not
    # silently detached; istft's window gets the gradient of the overlap-add, as PyTorch's
    with pytest.raises(KindError, match="requires grad"):
        et.stft(et.ones(20, requires_grad=True), 8, return_complex=True)
    with et.no_grad():
        assert et.stft(et.ones(20, requires_grad=True), 8, return_complex=True).shape == \
            torch.stft(torch.ones(20), 8, return_complex=True).shape
    x = _signal((30,), "float64")
    X = torch.stft(torch.tensor(x), 8, 2, window=torch.hann_window(8, dtype=torch.float64),
                   return_complex=True)
    w0 = torch.hann_window(8, dtype=torch.float64).numpy() + 0.1
    we, wt = et.tensor(w0, requires_grad=True), torch.tensor(w0, requires_grad=True)
    weights = _signal((30,), "float64", seed=5)
    (et.istft(et.tensor(X.numpy()), 8, 2, window=we, length=30) * et.tensor(weights)).sum() \
        .backward()
    (torch.istft(X, 8, 2, window=wt, length=30) * torch.tensor(weights)).sum().backward()
    assert_close(we.grad, wt.grad, rtol=1e-8, atol=1e-8)
