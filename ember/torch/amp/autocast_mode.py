"""``torch.autocast`` (``torch.amp.autocast``): a context manager, and a decorator, inside
which the ops of ember/torch/amp/autocast_ops.py run in a lower-precision dtype (matrix
products, convolutions) or in float32 (losses and the like) on tensors of ``device_type``.

On entry it sets the thread's autocast state for ``device_type`` (ember/torch/autocast_state.py:
on/off, dtype, the weight-cast cache) and counts one more nested region; on exit it restores
what it found, and the outermost region forgets the cached casts. As PyTorch's: a CPU dtype
other than bfloat16 / float16, or ``"cuda"`` without a CUDA device, warns and leaves autocast
off for the region.

>>> import ember.torch as torch
>>> x = torch.randn(4, 3)
>>> with torch.autocast("cpu", dtype=torch.bfloat16):
...     y = torch.nn.functional.linear(x, torch.randn(2, 3))
>>> print(y.dtype)
torch.bfloat16
"""

import functools
import warnings

from ... import cuda as _cuda
from ...dtypes import DType, as_dtype, bfloat16, float16
from ...errors import InvalidParameterError, KindError
from .. import autocast_state as _st
from .._dtypes import twin

__all__ = ["autocast", "is_autocast_available"]


def is_autocast_available(device_type):
    """Whether autocast can be used for ``device_type`` here: ``"cpu"`` always, ``"cuda"`` with a
    CUDA device; other device types have autocast state but no ember device.

    >>> import ember.torch as torch
    >>> torch.amp.is_autocast_available("cpu")
    True
    """
    kind = _st.device_type_of(device_type, "is_autocast_available")
    return kind == "cpu" or (kind == "cuda" and _cuda.is_available())


class autocast:  # noqa: N801  (PyTorch's name)
    """``autocast(device_type, dtype=None, enabled=True, cache_enabled=None)`` (see the module
    docstring): ``dtype`` None means ``torch.get_autocast_dtype(device_type)``, ``cache_enabled``
    None ``torch.is_autocast_cache_enabled()``. ``enabled=False`` turns autocast off inside
    an enclosing region. Used as ``@autocast(...)``, the function runs inside it.

    >>> import ember.torch as torch
    >>> @torch.autocast("cpu")
    ... def product(a, b):
    ...     return a @ b
    >>> print(product(torch.ones(2, 2), torch.ones(2, 2)).dtype)
    torch.bfloat16
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise KindError(f"autocast: expected `device_type` of type `str`, got: "
                            f"`{type(device_type).__name__}`")
        self.device = _st.device_type_of(device_type, "autocast")
        if not isinstance(enabled, bool):
            raise KindError(f"autocast: argument 'enabled' must be bool, not "
                            f"{type(enabled).__name__}")
        if dtype is not None and not isinstance(dtype, DType):
            raise KindError(f"autocast: argument 'dtype' must be torch.dtype, not "
                            f"{type(dtype).__name__}")
        if cache_enabled is not None and not isinstance(cache_enabled, bool):
            raise KindError(f"autocast: argument 'cache_enabled' must be bool, not "
                            f"{type(cache_enabled).__name__}")
        self.fast_dtype = twin(_st.state.dtypes[self.device] if dtype is None else dtype)
        self._cache_enabled = (_st.state.cache_enabled if cache_enabled is None
                               else cache_enabled)
        if enabled and self.device == "cuda" and not _cuda.is_available():
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. "
                          "Disabling autocast.", UserWarning, stacklevel=2)
            enabled = False
        if enabled and self.device == "cpu" and self.fast_dtype not in (bfloat16, float16):
            warnings.warn(f"In CPU autocast, but the target dtype {self.fast_dtype} is not "
                          "supported. Disabling autocast. CPU Autocast only supports dtype of "
                          "torch.bfloat16, torch.float16 currently.", UserWarning, stacklevel=2)
            enabled = False
        self._enabled = enabled
        self._saved = []

    def __enter__(self):
        st = _st.state
        self._saved.append((self.device in st.enabled, st.dtypes[self.device],
                            st.cache_enabled))
        _st._set(self.device, self._enabled)
        st.dtypes[self.device] = as_dtype(self.fast_dtype)
        st.cache_enabled = self._cache_enabled
        st.nesting += 1
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        st = _st.state
        st.nesting -= 1
        if st.nesting == 0:
            st.cache.clear()
        was_enabled, dtype, cache_enabled = self._saved.pop()
        _st._set(self.device, was_enabled)
        st.dtypes[self.device] = dtype
        st.cache_enabled = cache_enabled
        return False

    def __call__(self, func):
        if not callable(func):
            raise InvalidParameterError(f"autocast: used as a decorator, it takes a function, "
                                        f"got {type(func).__name__}", "func", func)

        @functools.wraps(func)
        def run(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return run

    def __repr__(self):
        return (f"autocast(device_type={self.device!r}, dtype={self.fast_dtype}, "
                f"enabled={self._enabled}, cache_enabled={self._cache_enabled})")


def cast_inputs(value, device_type, dtype):
    """``value`` with each floating-point tensor of ``device_type`` in it (not float64) cast to
    ``dtype``; lists, tuples and dicts are walked (custom_fwd's ``cast_inputs``)."""
    from ..._tensor import Tensor
    if isinstance(value, Tensor):
        if (value._dtype.kind == "float" and value._dtype.name != "float64"
                and value._device.type == device_type):
            return value.to(dtype)
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(cast_inputs(v, device_type, dtype) for v in value)
    if isinstance(value, dict):
        return {k: cast_inputs(v, device_type, dtype) for k, v in value.items()}
    return value
