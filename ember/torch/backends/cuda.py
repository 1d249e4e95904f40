"""``ember.torch.backends.cuda``: ``matmul.allow_tf32`` and ``is_built()`` as PyTorch's.

>>> import ember.torch as torch
>>> torch.backends.cuda.matmul.allow_tf32 = False
>>> torch.backends.cuda.matmul.allow_tf32
False
"""

import sys

__all__ = ["is_built", "matmul"]


def is_built():
    """Whether the installed PyTorch was built with CUDA (False without PyTorch)."""
    import importlib.util
    if importlib.util.find_spec("torch") is None:
        return False
    import torch
    return bool(torch.backends.cuda.is_built())


class _Matmul:
    """The matmul precision flags (kept; passed to PyTorch when it is loaded)."""

    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True

    def __setattr__(self, name, value):
        torch = sys.modules.get("torch")
        if torch is not None and hasattr(torch.backends.cuda.matmul, name):
            setattr(torch.backends.cuda.matmul, name, value)
        object.__setattr__(self, name, value)


matmul = _Matmul()
