"""The attention kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class AttentionKernels:
    @required
    def nn_attention(self, q, k, v, bias, allowed, causal, scale, groups_k, groups_v, keep, keep_scale):
        """``softmax(q @ k^T * scale + bias) @ v`` over the last dim, with ``-inf`` where ``allowed``
        (a bool array) is False or above the diagonal when ``causal``; a row with every
        score ``-inf`` gets weights 0 (PyTorch's safe softmax). ``keep`` (or None) is the
        dropout mask of the weights, scaled by ``keep_scale``. Half floats compute in
        float32."""

    @required
    def nn_attention_grads(self, g, saved, shapes, needs):
        """The gradients (gq, gk, gv, gbias) of ``nn_attention`` for its output gradient ``g``, each
        summed back to its input's shape (``shapes``) in ``g``'s dtype; None where ``needs``
        is False."""
