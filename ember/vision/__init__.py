"""ember.vision: Burn's vision traits on tensors: color conversion, morphology, connected
components and non-maximum suppression. Importing it attaches the methods to Tensor.
"""

from .color import *  # noqa: F401,F403
from .components import *  # noqa: F401,F403
from .morphology import *  # noqa: F401,F403
from .suppression import *  # noqa: F401,F403
