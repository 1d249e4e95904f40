import os
import sys

import numpy as np
import pytest
from hypothesis import settings

sys.path.insert(0, os.path.dirname(__file__))

# Under CI the properties run a fixed set of examples (derandomized), so a run is reproducible;
# locally each run explores new ones.
settings.register_profile("ember", max_examples=60, deadline=None,
                          derandomize=bool(os.environ.get("CI")))
settings.load_profile("ember")


@pytest.fixture
def rng():
    return np.random.default_rng(0)
