"""SparseAdam: Adam that moves only the entries a gradient touches (dense fallback).

PyTorch's ``torch.optim.SparseAdam`` takes gradients of sparse layout, as
``nn.Embedding(sparse=True)`` makes them, and updates the moments and the parameter only at the
entries the sparse gradient stores. ember has no sparse layout: every gradient is dense, so this
SparseAdam is the *dense fallback* of that rule - the entries it updates are those whose
gradient is nonzero (PyTorch's own description of SparseAdam: "a masked version of Adam" whose
mask is the nonzero values of the gradient). For an embedding this is the same as PyTorch's:
the rows a batch looks up get nonzero gradients and are updated, the other rows and their
moments stay as they are. It differs only where a stored entry of a sparse gradient is exactly
zero (PyTorch updates it, ember leaves it), and it costs a dense pass over the parameter instead
of one over the touched rows.
"""

from ..autodiff import no_grad
from ..ops.masking import where
from ..ops.aliasing import written
from ._compose import as_tensor, each_step
from .optimizer import Optimizer, _check_betas, _check_flag, _check_number

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """SparseAdam, as ``torch.optim.SparseAdam``, on dense gradients: only the entries whose
    gradient is nonzero are updated (see the module's note on the dense fallback).

    Each step, where ``g != 0``: ``m += (g - m) * (1 - beta1)``,
    ``v += (g * g - v) * (1 - beta2)``, ``p -= lr * sqrt(1 - beta2**t) / (1 - beta1**t) * m /
    (sqrt(v) + eps)``; elsewhere ``m``, ``v`` and ``p`` keep their values. ``t`` counts the
    steps in which the parameter had a gradient. ``maximize`` ascends instead. The state is
    PyTorch's: ``step``, ``exp_avg`` (m) and ``exp_avg_sq`` (v).

    >>> import ember
    >>> from ember.optim import SparseAdam
    >>> w = ember.tensor([1.0, -1.0, 2.0]).require_grad()
    >>> opt = SparseAdam([w], lr=0.1)
    >>> w.grad = ember.tensor([0.5, 0.0, -3.0])   # the second entry is not touched
    >>> _ = opt.step()
    >>> [round(x, 4) for x in w.tolist()]
    [0.9, -1.0, 2.1]
    """

    _name = "SparseAdam"
    _state_spec = {"step": ("step", True), "exp_avg": ("buffer", True),
                   "exp_avg_sq": ("buffer", True)}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        group["betas"] = _check_betas(op, group["betas"])
        group["eps"] = _check_number(op, "eps", group["eps"], low=0.0)
        _check_flag(op, "maximize", group["maximize"])

    def _update(self, group, params, grads):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        with no_grad():
            for p, st, param, grad in each_step(self, params, grads, group["maximize"],
                                                 exp_avg=True, exp_avg_sq=True):
                touched = grad != 0
                m, v = as_tensor(st["exp_avg"], p), as_tensor(st["exp_avg_sq"], p)
                m = where(touched, m + (grad - m) * (1 - beta1), m)
                v = where(touched, v + (grad * grad - v) * (1 - beta2), v)
                t = st["step"]
                step_size = lr * (1 - beta2 ** t) ** 0.5 / (1 - beta1 ** t)
                moved = param - m / (v.sqrt() + eps) * step_size
                st["exp_avg"], st["exp_avg_sq"] = m._data, v._data
                p._data = where(touched, moved, param)._data
                written(p)
