"""DLPack kernels: export a buffer to another array library, import one from it.

An exported buffer is a read-only view of the tensor's array (DLPack 1.0's read-only flag), so
the view keeps the array referenced and ``data_can_mut`` never reuses a buffer a consumer holds.
"""

import numpy as np

__all__ = ["dlpack_export", "dlpack_import"]


def dlpack_export(a, stream, max_version, dl_device, copy):
    """A DLPack capsule of ``a``: a read-only view when the consumer speaks DLPack >= 1.0 (the
    flag tells it so); a private copy for ``copy=True``, for a legacy consumer (it cannot be
    told) and for a view with negative strides (PyTorch cannot take them). Raises BufferError
    where ``copy=False`` forbids that copy."""
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    flipped = any(s < 0 for s in a.strides)
    if copy or not versioned or flipped:
        if copy is False:
            why = ("has negative strides (a flipped view)" if flipped else
                   "goes to a consumer of DLPack < 1.0, which cannot be told it is read-only")
            raise BufferError(f"__dlpack__: the buffer {why}; sharing it needs copy=None or "
                              "copy=True")
        return np.array(a, copy=True).__dlpack__(stream=stream, max_version=max_version,
                                                 dl_device=dl_device)
    v = a.view()
    v.flags.writeable = False
    return v.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)


def dlpack_import(x, copy):
    """An array of ``x``'s buffer (anything with ``__dlpack__``): a read-only view (no copy)
    unless ``copy`` is True. Raises BufferError (device, dtype) or TypeError (no protocol)."""
    arr = np.from_dlpack(x, copy=copy)
    if copy:
        return arr
    v = arr.view()
    v.flags.writeable = False
    return v
