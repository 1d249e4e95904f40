"""``ember.torch.optim``: PyTorch's optimizers (ember.optim's, which follow torch.optim), its
``lr_scheduler`` and ``swa_utils`` (weight averaging).

>>> import ember.torch as torch
>>> w = torch.ones(2, requires_grad=True)
>>> opt = torch.optim.SGD([w], lr=0.5)
>>> (w * w).sum().backward()
>>> opt.step()
>>> w.tolist()
[0.0, 0.0]
"""

from ...optim import *  # noqa: F401,F403
from . import lr_scheduler  # noqa: F401
from . import swa_utils  # noqa: F401
