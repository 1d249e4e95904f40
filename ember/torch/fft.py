"""``ember.torch.fft``: PyTorch's ``torch.fft`` namespace on ember's transforms.

The 1-D, 2-D and N-D transforms (``fft``/``ifft``, ``rfft``/``irfft``, ``hfft``/``ihfft``,
``fft2`` ... ``ihfftn``) with PyTorch's ``n``/``s``, ``dim`` and ``norm``, the sample
frequencies ``fftfreq``/``rfftfreq`` and ``fftshift``/``ifftshift``: ember's own ``ember.fft``
(docs/fft.md), with ember.torch tensors as results. As in ``ember.fft``, no gradient flows
through the transforms (docs/pytorch.md lists this difference).

>>> import ember.torch as torch
>>> x = torch.tensor([1.0, 2.0, 3.0, 4.0])
>>> torch.fft.irfft(torch.fft.rfft(x)).tolist()
[1.0, 2.0, 3.0, 4.0]
>>> torch.fft.fftshift(torch.fft.fftfreq(4)).tolist()
[-0.5, -0.25, 0.0, 0.25]
"""

from .. import fft as _fft
from ._tensor import Tensor, _returns_torch  # noqa: F401

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

for _name in __all__:
    globals()[_name] = _returns_torch(getattr(_fft, _name), _name)
    globals()[_name].__qualname__ = _name
del _name
