"""ember.fft: PyTorch's ``torch.fft`` namespace.

The discrete Fourier transforms ``fft``/``ifft``, ``rfft``/``irfft`` and ``hfft``/``ihfft`` in
1-D, 2-D (``fft2``, ...) and N-D (``fftn``, ...) forms, with torch's keywords (``n``/``s``,
``dim``, ``norm``); the sample frequencies ``fftfreq``/``rfftfreq``; ``fftshift``/``ifftshift``.
Results are complex64/complex128 tensors (docs/complex.md); no gradients flow through the
transforms. See docs/fft.md.

>>> import ember
>>> ember.fft.irfft(ember.fft.rfft(ember.tensor([1.0, 2.0, 3.0, 4.0]))).tolist()
[1.0, 2.0, 3.0, 4.0]
"""

from .ops.fft import (fft, fft2, fftfreq, fftn, fftshift, hfft, hfft2, hfftn, ifft,  # noqa: F401
                      ifft2, ifftn, ifftshift, ihfft, ihfft2, ihfftn, irfft, irfft2, irfftn, rfft,
                      rfft2, rfftfreq, rfftn)

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]
