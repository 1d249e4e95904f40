"""The loss kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class LossKernels:
    @required
    def nn_target_bad(self, target, num_classes, ignore_index):
        """The first class index of ``target`` outside ``[0, num_classes)`` (other than
        ``ignore_index``) as a Python int, or None when all are in range."""

    @required
    def nn_class_loss(self, x, target, weight, ignore_index, smoothing, reduction, from_logits, dtype):
        """Cross entropy (``from_logits``) or NLL (``x`` already log-probabilities) with class-index
        targets. ``x`` is (N, C, *rest), ``target`` (N, *rest). Returns (loss, saved)."""

    @required
    def nn_class_loss_grad(self, g, saved, x_dtype):
        """The gradient of ``nn_class_loss`` with respect to ``x``: ``(softmax * sum(q) - q)`` scaled
        (or ``-q`` for NLL), where ``q`` are the per-class loss coefficients."""

    @required
    def nn_prob_loss(self, x, target, weight, smoothing, reduction, dtype):
        """Cross entropy with class-probability targets (same shape as ``x``, classes in dim 1)."""

    @required
    def nn_prob_loss_grads(self, g, saved, need_x, need_t, x_dtype, t_dtype):
        """Gradients of ``nn_prob_loss`` with respect to the logits and the target probabilities."""

    @required
    def nn_pair_loss(self, a, b, kind, reduction, dtype):
        """Elementwise regression losses of broadcast ``a`` and ``b``: ``"mse"`` or ``"l1"``."""

    @required
    def nn_pair_loss_grads(self, g, saved):
        """The gradient of ``nn_pair_loss`` with respect to ``a`` at the broadcast shape (that of ``b``
        is its negation)."""

    @required
    def nn_bce_logits(self, x, t, weight, pos_weight, reduction, dtype):
        """Binary cross entropy on logits, stable: ``(1 - t) x - lw * logsigmoid(x)`` with ``lw = 1 +
        (pos_weight - 1) t``, times ``weight``. Returns (loss, saved)."""

    @required
    def nn_bce_logits_grads(self, g, saved):
        """Gradients of ``nn_bce_logits`` at the broadcast shape: (gx, gt, gweight, gpos_weight)."""
