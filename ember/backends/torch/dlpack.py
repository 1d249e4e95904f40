"""Torch kernels of the dlpack family (the same names and meanings as the NumPy backend's):
torch's own DLPack. torch has no read-only tensors, so an exported buffer cannot carry DLPack's
read-only flag; a consumer that shares it must not write it (as with the NumPy backend's buffers
given to PyTorch)."""

import torch

__all__ = ["dlpack_export", "dlpack_import"]


def dlpack_export(a, stream, max_version, dl_device, copy):
    """A DLPack capsule of ``a``: shared with a consumer of DLPack >= 1.0, a private copy for
    ``copy=True`` and for a legacy consumer (as the NumPy backend's). Raises BufferError where
    ``copy=False`` forbids that copy."""
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    if copy or not versioned:
        if copy is False:
            raise BufferError("__dlpack__: the buffer goes to a consumer of DLPack < 1.0, which "
                              "cannot be told it must not write it; sharing it needs copy=None "
                              "or copy=True")
        a = a.clone(memory_format=torch.contiguous_format)
    kwargs = {} if stream is None else {"stream": stream}
    if versioned:
        kwargs["max_version"] = tuple(max_version)
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    a = a.detach()
    if a.is_conj() or a.is_neg():  # torch exports no lazy conjugate: its values, resolved
        a = a.resolve_conj().resolve_neg()
    return a.__dlpack__(**kwargs)


def dlpack_import(x, copy, *, device=None):
    """A tensor of ``x``'s buffer (anything with ``__dlpack__``) on ``device``: shared (no copy)
    unless ``copy`` is True or the buffer is on another device. Raises BufferError (device,
    dtype) or TypeError (no protocol)."""
    if isinstance(x, torch.Tensor):  # torch to torch: no capsule needed
        out = x.detach()
        if device is not None and out.device != device:
            return out.to(device)
        return out.clone() if copy else out
    return torch.from_dlpack(x, device=device, copy=copy)[...]  # a view: see ew_inplace
