"""ember.nn.functional: the stateless neural-network ops, PyTorch's ``torch.nn.functional``.

Import it as ``import ember.nn.functional as F``. The ops live with their families in
ember/ops/ (activation.py, linear.py, conv.py, pool.py, normalization.py, dropout.py, loss.py,
attention.py); each checks its arguments first, computes through one backend kernel and records
its own gradient rule (``log_softmax``, ``cross_entropy``, ``conv2d`` ... are single recorded
steps, not chains of small ops).

Inputs of the layer ops (linear, conv, pools, norms, losses) must be float tensors (KindError
otherwise); a float input meeting float weights of another dtype computes in the promoted dtype,
and each gradient comes back in its own input's dtype. Activations follow ember's rule for float
math: int inputs compute in the default float dtype, bool inputs raise KindError.

Tensors are immutable, so ``batch_norm`` returns the normalized output only: it never updates
running statistics in place (``nn.BatchNorm1d``/``BatchNorm2d`` keep and rebind them).

>>> import ember
>>> import ember.nn.functional as F
>>> F.softmax(ember.tensor([[0.0, 0.0]]), dim=1).tolist()
[[0.5, 0.5]]
"""

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError
from ..ops.activation import gelu, log_softmax, relu, sigmoid, silu, softmax, tanh
from ..ops.attention import scaled_dot_product_attention
from ..ops.conv import conv2d
from ..ops.dropout import dropout, embedding
from ..ops.linear import linear
from ..ops.robust_losses import binary_cross_entropy, huber_loss, smooth_l1_loss
from ..ops.loss import (binary_cross_entropy_with_logits, cross_entropy, l1_loss, mse_loss,
                        nll_loss)
from ..ops.nn_args import _int
from ..ops.normalization import batch_norm, layer_norm
from ..ops.pool import avg_pool2d, max_pool2d, max_unpool2d
from .._tensor import check_tensor

__all__ = [
    "relu", "gelu", "silu", "sigmoid", "tanh", "softmax", "log_softmax",
    "linear", "conv2d", "max_pool2d", "max_unpool2d", "avg_pool2d", "batch_norm", "layer_norm",
    "dropout", "embedding",
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "pad", "one_hot", "scaled_dot_product_attention",
]


# -- passthroughs -------------------------------------------------------------------------------

def pad(input, pad, mode="constant", value=None):
    """PyTorch's ``F.pad``: ``pad`` is a flat ``(left, right, top, bottom, ...)`` tuple, the last
    dim first; ``mode`` "constant", "reflect", "replicate" or "circular". ``Tensor.pad`` does
    the work.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.pad(ember.tensor([[1, 2]]), (1, 0), value=9).tolist()
    [[9, 1, 2]]
    """
    op = "pad"
    check_tensor(input, op, "input")
    if not isinstance(pad, (tuple, list)) or len(pad) % 2:
        raise InvalidParameterError(
            f"{op}: pad {pad!r} must be a flat tuple of (before, after) amounts, last dim first "
            "(an even number of ints)", "pad", pad)
    amounts = tuple(_int(v, op, "pad") for v in pad)
    if len(amounts) // 2 > input.ndim:
        raise InvalidParameterError(
            f"{op}: pad {amounts} pads {len(amounts) // 2} dims but the input has {input.ndim}",
            "pad", pad)
    pairs = [(amounts[2 * i], amounts[2 * i + 1]) for i in range(len(amounts) // 2)][::-1]
    return input.pad(pairs, mode, 0.0 if value is None else value)


def one_hot(tensor, num_classes=-1):
    """PyTorch's ``F.one_hot``: int64 one-hot codes in a new last dim; ``num_classes=-1`` takes
    one more than the largest class.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.one_hot(ember.tensor([0, 2])).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    op = "one_hot"
    check_tensor(tensor, op, "tensor")
    if tensor._dtype.kind != "int":
        raise KindError(f"{op}: tensor has dtype {tensor._dtype.name}; expected an int tensor "
                        "of class indices")
    num_classes = _int(num_classes, op, "num_classes", -1)
    if num_classes == -1:
        if tensor.numel() == 0:
            raise InvalidParameterError(
                f"{op}: cannot infer num_classes from an empty tensor; pass num_classes",
                "num_classes", num_classes)
        num_classes = tensor._device.backend.nn_int_max(tensor._data) + 1
    return tensor.cast(_dt.int64).one_hot(num_classes)

# -- PyTorch's other activations (ember/ops/activation_more.py) ---------------------------------
from ..ops.activation_more import *  # noqa: E402,F401,F403
from ..ops.activation_more import __all__ as _activation_more_all  # noqa: E402
__all__ += list(_activation_more_all)

# -- PyTorch's other convolutions (ember/ops/conv_more.py) --------------------------------------
from ..ops.conv_more import *  # noqa: E402,F401,F403
from ..ops.conv_more import __all__ as _conv_more_all  # noqa: E402
__all__ += list(_conv_more_all)

# -- PyTorch's other pooling functions (ember/ops/pool_more.py) ---------------------------------
from ..ops.pool_more import *  # noqa: E402,F401,F403
from ..ops.pool_more import __all__ as _pool_more_all  # noqa: E402
__all__ += list(_pool_more_all)

# -- PyTorch's resampling functions (ember/ops/resample.py) -------------------------------------
from ..ops.resample import *  # noqa: E402,F401,F403
from ..ops.resample import __all__ as _resample_all  # noqa: E402
__all__ += list(_resample_all)

# -- PyTorch's other normalizations and channel dropouts (ember/ops/norms_more.py) --------------
from ..ops.norms_more import *  # noqa: E402,F401,F403
from ..ops.norms_more import __all__ as _norms_more_all  # noqa: E402
__all__ += list(_norms_more_all)

# -- PyTorch's other losses and distances (ember/ops/losses_more.py) ----------------------------
from ..ops.losses_more import *  # noqa: E402,F401,F403
from ..ops.losses_more import __all__ as _losses_more_all  # noqa: E402
__all__ += list(_losses_more_all)

# -- F.bilinear, F.embedding_bag, F.gumbel_softmax (ember/ops/misc_more.py) ---------------------
from ..ops.misc_more import *  # noqa: E402,F401,F403
from ..ops.misc_more import __all__ as _misc_more_all  # noqa: E402
__all__ += list(_misc_more_all)

# -- 3-D convolutions and pools, 1-D/3-D max unpools (ember/ops/volumetric.py) ------------------
from ..ops.volumetric import *  # noqa: E402,F401,F403
from ..ops.volumetric import __all__ as _volumetric_all  # noqa: E402
__all__ += list(_volumetric_all)

# -- F.ctc_loss (ember/ops/ctc.py) --------------------------------------------------------------
from ..ops.ctc import ctc_loss  # noqa: E402,F401
__all__ += ["ctc_loss"]

# -- fractional max pooling (ember/ops/fractional.py) -------------------------------------------
from ..ops.fractional import *  # noqa: E402,F401,F403
from ..ops.fractional import __all__ as _fractional_all  # noqa: E402
__all__ += list(_fractional_all)

# -- F.linear_cross_entropy (ember/ops/linear_ce.py) --------------------------------------------
from ..ops.linear_ce import linear_cross_entropy  # noqa: E402,F401
__all__ += ["linear_cross_entropy"]

# -- F.multi_head_attention_forward (ember/ops/multihead_attention.py) --------------------------
from ..ops.multihead_attention import multi_head_attention_forward  # noqa: E402,F401
__all__ += ["multi_head_attention_forward"]

# -- F.grouped_mm (ember/ops/grouped_mm.py) -----------------------------------------------------
from ..ops.grouped_mm import grouped_mm  # noqa: E402,F401
__all__ += ["grouped_mm"]
