"""ember.torch.fft against torch.fft: every transform with PyTorch's n/s, dim and norm on real
and complex inputs of several shapes, the sample frequencies and shifts, the
documented difference (no gradient flows through a transform) and the share of torch.fft's
names that ember.torch.fft has."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et

TOL = {"float32": dict(rtol=1e-4, atol=1e-4), "float64": dict(rtol=1e-10, atol=1e-10)}
REAL = {"float32": "complex64", "float64": "complex128"}


def pair(arr):
    a = np.array(arr, copy=True)
    return et.tensor(a), torch.tensor(a)


def check(actual, expected, precision):
    assert isinstance(actual, et.Tensor), type(actual)
    assert tuple(actual.shape) == tuple(expected.shape), (actual.shape, expected.shape)
    assert actual.dtype.name == str(expected.dtype).replace("torch.", "")
    np.testing.assert_allclose(np.asarray(actual.numpy()), expected.resolve_conj().numpy(),
                               **TOL[precision])


def signal(rng, shape, dtype):
    if dtype.startswith("complex"):
        part = "float32" if dtype == "complex64" else "float64"
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype), part
    return rng.standard_normal(shape).astype(dtype), dtype


ONE_DIM = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
MULTI = ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn", "hfft2",
         "ihfft2", "hfftn", "ihfftn"]
REAL_ONLY = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}


@pytest.mark.parametrize("name", ONE_DIM)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_one_dimensional(name, dtype, rng):
    if name in REAL_ONLY and dtype.startswith("complex"):
        return
    for shape, kw in (((8,), {}), ((3, 5), dict(dim=0)), ((2, 3, 6), dict(n=4)),
                      ((4, 7), dict(n=10, dim=-1, norm="ortho")), ((5,), dict(norm="forward")),
                      ((6,), dict(norm="backward")), ((9,), {})):
        x, precision = signal(rng, shape, dtype)
        e, t = pair(x)
        check(getattr(et.fft, name)(e, **kw), getattr(torch.fft, name)(t, **kw), precision)


@pytest.mark.parametrize("name", MULTI)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_multi_dimensional(name, dtype, rng):
    if name in REAL_ONLY and dtype.startswith("complex"):
        return
    n_dims = name.endswith("n")
    cases = [((4, 6), {}), ((2, 3, 4), dict(norm="ortho")), ((3, 4, 5), dict(dim=(0, 2))),
             ((4, 6), dict(s=(3, 8))), ((2, 4, 4), dict(s=(5, 3), dim=(-1, -2), norm="forward"))]
    if n_dims:
        cases += [((3, 4, 5), dict(dim=None)), ((3, 4, 5), dict(s=(2, 3, 4)))]
    for shape, kw in cases:
        x, precision = signal(rng, shape, dtype)
        e, t = pair(x)
        check(getattr(et.fft, name)(e, **kw), getattr(torch.fft, name)(t, **kw), precision)


def test_round_trips(rng):
    x = rng.standard_normal((3, 8))
    e = et.tensor(x)
    np.testing.assert_allclose(et.fft.irfft(et.fft.rfft(e), n=8).numpy(), x, atol=1e-12)
    np.testing.assert_allclose(et.fft.ifftn(et.fft.fftn(e)).numpy().real, x, atol=1e-12)
    np.testing.assert_allclose(et.fft.ihfft(et.fft.hfft(et.fft.ihfft(e), n=8)).numpy(),
                               et.fft.ihfft(e).numpy(), atol=1e-12)


@pytest.mark.parametrize("dtype", [None, "float32", "float64"])
def test_frequencies_and_shifts(dtype, rng):
    tdt = None if dtype is None else getattr(torch, dtype)
    edt = None if dtype is None else getattr(et, dtype)
    for n, d in ((1, 1.0), (5, 0.5), (8, 2.0), (0, 1.0)):
        check(et.fft.fftfreq(n, d, dtype=edt), torch.fft.fftfreq(n, d, dtype=tdt),
              dtype or "float32")
        check(et.fft.rfftfreq(n, d, dtype=edt), torch.fft.rfftfreq(n, d, dtype=tdt),
              dtype or "float32")
    x = rng.standard_normal((4, 5))
    e, t = pair(x)
    for kw in ({}, dict(dim=0), dict(dim=(0, 1)), dict(dim=-1)):
        check(et.fft.fftshift(e, **kw), torch.fft.fftshift(t, **kw), "float64")
        check(et.fft.ifftshift(e, **kw), torch.fft.ifftshift(t, **kw), "float64")
    check(et.fft.ifftshift(et.fft.fftshift(e)), t, "float64")


def test_no_gradient_through_transforms():
    """The documented difference: ember has no gradients through the transforms, so a tensor
    that requires grad is refused (KindError) rather than silently cut from the graph."""
    x = et.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(ember.KindError):
        et.fft.rfft(x)
    check(et.fft.rfft(x.detach()), torch.fft.rfft(torch.tensor([1.0, 2.0, 3.0])), "float32")
    assert torch.fft.rfft(torch.tensor([1.0, 2.0, 3.0], requires_grad=True)).requires_grad


def test_namespace_covers_torch_fft():
    names = [n for n in dir(torch.fft) if not n.startswith("_") and callable(getattr(torch.fft, n))]
    missing = [n for n in names if not hasattr(et.fft, n)]
    share = 1 - len(missing) / len(names)
    assert share >= 0.9, f"ember.torch.fft has {share:.0%} of torch.fft; missing {missing}"
    assert et.fft.Tensor is et.Tensor
