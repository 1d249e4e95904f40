"""``ember.torch.nn.functional``."""

from ...nn.functional import *  # noqa: F401,F403
