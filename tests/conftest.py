import os
import sys

import numpy as np
import pytest
from hypothesis import settings

sys.path.insert(0, os.path.dirname(__file__))

settings.register_profile("ember", max_examples=60, deadline=None)
settings.load_profile("ember")


@pytest.fixture
def rng():
    return np.random.default_rng(0)
