"""ember.optim: optimizers (SGD, Adam, AdamW, RMSprop, Adagrad, NAdam, Adadelta, Adamax, RAdam,
ASGD, Rprop, LBFGS, Adafactor, SparseAdam, Muon), learning-rate schedulers and
``swap_in_optimizer_params_and_state``, as torch.optim (``ember.torch.optim.swa_utils`` adds
PyTorch's weight averaging).

An optimizer updates leaf float tensors that require grad from their ``.grad``: each step
computes the new values on backend arrays (nothing is recorded for autodiff) and rebinds the
parameter tensors to them, so tensors stay immutable values.

>>> import ember
>>> from ember import optim
>>> w = ember.tensor([3.0]).require_grad()
>>> opt = optim.SGD([w], lr=0.25)
>>> for _ in range(3):
...     opt.zero_grad()
...     _ = (w * w).sum().backward()
...     _ = opt.step()
>>> w.tolist()
[0.375]
"""

from . import lr_scheduler
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .lr_scheduler import (ChainedScheduler, ConstantLR, CosineAnnealingLR,
                           CosineAnnealingWarmRestarts, CyclicLR, ExponentialLR, LambdaLR,
                           LinearLR, LRScheduler, MultiplicativeLR, MultiStepLR, OneCycleLR,
                           PolynomialLR, ReduceLROnPlateau, SequentialLR, StepLR)
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam
from .swap_in import swap_in_optimizer_params_and_state

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "NAdam", "Adadelta", "Adamax",
           "RAdam", "ASGD", "Rprop", "LBFGS", "Adafactor", "SparseAdam", "Muon",
           "LRScheduler",
           "StepLR", "CosineAnnealingLR", "LambdaLR", "MultiStepLR", "ExponentialLR",
           "OneCycleLR", "LinearLR", "SequentialLR", "ReduceLROnPlateau", "ConstantLR",
           "MultiplicativeLR", "PolynomialLR", "CosineAnnealingWarmRestarts", "CyclicLR",
           "ChainedScheduler", "swap_in_optimizer_params_and_state", "lr_scheduler"]
