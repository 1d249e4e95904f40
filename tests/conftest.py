import numpy as np
import pytest
from hypothesis import settings

settings.register_profile("ember", max_examples=60, deadline=None)
settings.load_profile("ember")


@pytest.fixture
def rng():
    return np.random.default_rng(0)
