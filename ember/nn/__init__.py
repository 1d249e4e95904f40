"""ember.nn: modules, layers, losses and initializers for training real models, in PyTorch's
shape (``ember.nn.Linear``, ``ember.nn.functional as F``, ``ember.nn.init``) with Burn's Module
contract (``freeze``, ``no_grad``, ``num_params``, ``set_require_grad`` ...).

>>> import ember
>>> from ember import nn
>>> import ember.nn.functional as F
>>> ember.manual_seed(0)
>>> model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
>>> x, y = ember.randn(8, 4), ember.tensor([0, 1, 2, 0, 1, 2, 0, 1])
>>> loss = F.cross_entropy(model(x), y)
>>> grads = loss.backward()
>>> [tuple(p.grad.shape) for p in model.parameters()]
[(16, 4), (16,), (3, 16), (3,)]
"""

from . import functional, init, parallel, placement, utils  # noqa: F401
from .activations import *  # noqa: F401,F403
from .activations import __all__ as _activations_all
from .containers import *  # noqa: F401,F403
from .containers import __all__ as _containers_all
from .layers import *  # noqa: F401,F403
from .layers import __all__ as _layers_all
from .losses import *  # noqa: F401,F403
from .losses import __all__ as _losses_all
from .module import *  # noqa: F401,F403
from .module import __all__ as _module_all
from .records import ModuleRecord, ParamGroup  # noqa: F401
from .reparam import *  # noqa: F401,F403
from .reparam import __all__ as _reparam_all

__all__ = ["functional", "init", "parallel", "utils"] + list(_module_all) + list(_containers_all) + list(_layers_all) + list(_activations_all) + list(_losses_all) + ["ModuleRecord", "ParamGroup"] + list(_reparam_all)
from . import rnn_utils  # noqa: F401,E402
from .recurrent import *  # noqa: F401,F403,E402
from .recurrent import __all__ as _recurrent_all  # noqa: E402
from .rnn_utils import PackedSequence  # noqa: F401,E402

__all__ += ["rnn_utils"] + list(_recurrent_all)


# PyTorch's other activation modules
from .activations_more import *  # noqa: E402,F401,F403
from .activations_more import __all__ as _activations_more_all  # noqa: E402
__all__ += list(_activations_more_all)

# PyTorch's other convolution modules
from .conv_layers import *  # noqa: E402,F401,F403
from .conv_layers import __all__ as _conv_layers_all  # noqa: E402
__all__ += list(_conv_layers_all)

# PyTorch's other pooling modules
from .pooling import *  # noqa: E402,F401,F403
from .pooling import __all__ as _pooling_all  # noqa: E402
__all__ += list(_pooling_all)

# PyTorch's padding and resampling modules
from .padding import *  # noqa: E402,F401,F403
from .padding import __all__ as _padding_all  # noqa: E402
from .upsampling import *  # noqa: E402,F401,F403
from .upsampling import __all__ as _upsampling_all  # noqa: E402
__all__ += list(_padding_all) + list(_upsampling_all)

# PyTorch's other normalization and dropout modules
from .dropouts import *  # noqa: E402,F401,F403
from .dropouts import __all__ as _dropouts_all  # noqa: E402
from .norms import *  # noqa: E402,F401,F403
from .norms import __all__ as _norms_all  # noqa: E402
__all__ += list(_norms_all) + list(_dropouts_all)

# PyTorch's other loss modules
from .losses_more import *  # noqa: E402,F401,F403
from .losses_more import __all__ as _losses_more_all  # noqa: E402
__all__ += list(_losses_more_all)

# PyTorch's Bilinear, Unflatten and EmbeddingBag
from .misc_layers import *  # noqa: E402,F401,F403
from .misc_layers import __all__ as _misc_layers_all  # noqa: E402
__all__ += list(_misc_layers_all)

# PyTorch's 3-D pools, BatchNorm3d, the 1-D/3-D max unpools, NLLLoss2d and Container
from .volumetric_layers import *  # noqa: E402,F401,F403
from .volumetric_layers import __all__ as _volumetric_layers_all  # noqa: E402
__all__ += list(_volumetric_layers_all)

# PyTorch's AdaptiveLogSoftmaxWithLoss
from .adaptive_softmax import *  # noqa: E402,F401,F403
from .adaptive_softmax import __all__ as _adaptive_softmax_all  # noqa: E402
__all__ += list(_adaptive_softmax_all)

# PyTorch's lazy modules and the uninitialized placeholders
from .lazy import *  # noqa: E402,F401,F403
from .lazy import __all__ as _lazy_all  # noqa: E402
__all__ += list(_lazy_all)

# PyTorch's attention and transformer layers
from .transformer import *  # noqa: E402,F401,F403
from .transformer import __all__ as _transformer_all  # noqa: E402
__all__ += list(_transformer_all)

# PyTorch's legacy CrossMapLRN2d and SyncBatchNorm
from .cross_map_lrn import *  # noqa: E402,F401,F403
from .cross_map_lrn import __all__ as _cross_map_lrn_all  # noqa: E402
__all__ += list(_cross_map_lrn_all)
from .sync_batch_norm import *  # noqa: E402,F401,F403
from .sync_batch_norm import __all__ as _sync_batch_norm_all  # noqa: E402
__all__ += list(_sync_batch_norm_all)
