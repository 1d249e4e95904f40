"""The NumPy backend: one kernel table, gathered from one file per op family."""

from .core import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .movement import *  # noqa: F401,F403
from .segments import *  # noqa: F401,F403
from .slicing import *  # noqa: F401,F403
from .elementwise import *  # noqa: F401,F403
from .bitwise import *  # noqa: F401,F403
from .compare import *  # noqa: F401,F403
from .reduce import *  # noqa: F401,F403
from .scan import *  # noqa: F401,F403
from .sort import *  # noqa: F401,F403
from .indexing import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .nn import *  # noqa: F401,F403
from .optim import *  # noqa: F401,F403
from .io import *  # noqa: F401,F403
from .threads import *  # noqa: F401,F403
from .sampling import *  # noqa: F401,F403
from .quantization import *  # noqa: F401,F403
from .color import *  # noqa: F401,F403
from .morphology import *  # noqa: F401,F403
from .components import *  # noqa: F401,F403
from .suppression import *  # noqa: F401,F403
from .distributed import *  # noqa: F401,F403
from .dlpack import *  # noqa: F401,F403
from .array_api import *  # noqa: F401,F403

name = "numpy"
