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


# The suite runs once per backend: EMBER_DEVICE picks the default device of every creation
# function ("cpu", the NumPy backend, when unset; "torch:cpu"; "torch:cuda"), so each test that
# any backend must pass runs on it. Tests of one backend's own behaviour (NumPy's zero-copy
# views) carry a marker and are left out of the other backends' passes.
DEVICE = os.environ.get("EMBER_DEVICE", "cpu").strip() or "cpu"
ON_NUMPY = DEVICE == "cpu"

# The NumPy backend's compiled kernels compile on first use (EMBER_JIT=sync), as dev.py runs the
# suite, so every run takes the same path; EMBER_JIT=0 runs it on the NumPy kernels alone.
os.environ.setdefault("EMBER_JIT", "sync")


def _uses(item, lacked):
    if not lacked:
        return False
    if item.get_closest_marker("half_precision") and lacked & {"float16", "bfloat16"}:
        return True
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return False
    ident = callspec.id.lower()  # a half type in the test's id: np.float16(1.5), HalfStorage
    if ("bfloat16" in lacked and "bfloat16" in ident) or ("float16" in lacked and (
            "float16" in ident.replace("bfloat16", "") or "half" in ident)):
        return True
    return any(getattr(v, "name", v) in lacked for v in callspec.params.values()
               if isinstance(v, str) or type(v).__name__ == "DType")


def pytest_collection_modifyitems(config, items):
    default_pass = ON_NUMPY and os.environ["EMBER_JIT"] != "0"
    if not DEVICE.startswith("torch"):  # checks of the torch backend's own behaviour
        left = [item for item in items if item.get_closest_marker("torch_only")]
        if left:
            config.hook.pytest_deselected(items=left)
            items[:] = [item for item in items if not item.get_closest_marker("torch_only")]
    if default_pass:
        return
    # the dtypes the device lacks (array-api-strict: float16, bfloat16) leave their tests out
    from oracle import DEVICE_LACKS
    lacked = set() if ON_NUMPY else DEVICE_LACKS
    no_layout = not ON_NUMPY and not _has_layout()
    kept, left = [], []
    for item in items:
        skip = item.get_closest_marker("once") or (
            not ON_NUMPY and (item.get_closest_marker("numpy_only") or _uses(item, lacked))) or (
            no_layout and item.get_closest_marker("layout"))
        (left if skip else kept).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


def _has_layout():
    """Whether the suite's device has arrays with a memory layout (views that share a buffer)."""
    import ember
    return ember.Device(DEVICE).backend.has_layout


def pytest_report_header(config):
    return f"ember device: {DEVICE}, EMBER_JIT={os.environ['EMBER_JIT']}"


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.fixture
def compiled_kernels(monkeypatch):
    """The NumPy backend's compiled kernels, compiled on the calling thread (skips where none
    can compile: no C compiler, or EMBER_JIT=0; the NumPy paths are tested elsewhere)."""
    from ember.backends.numpy import jit
    if not jit.enabled():
        pytest.skip("no C compiler here (or EMBER_JIT=0): the NumPy path is tested elsewhere")
    monkeypatch.setenv("EMBER_JIT", "sync")


@pytest.fixture
def jit_launches(monkeypatch):
    """The ``(name, compiled?)`` of every kernel the NumPy backend asks its compiler for while
    the test runs (a spy on ``jit.kernel``), to check which path an op took."""
    from ember.backends.numpy import jit
    asked = []
    kernel = jit.kernel

    def spy(name, source):
        found = kernel(name, source)
        asked.append((name, found is not None))
        return found

    monkeypatch.setattr(jit, "kernel", spy)
    return asked


@pytest.fixture(autouse=True)
def _default_device_unchanged():
    """Each test leaves the default device (process-wide state) as it found it."""
    import ember
    before = ember.get_default_device()
    yield
    after = ember.get_default_device()
    if after is not before:
        ember.set_default_device(before)
        pytest.fail(f"the test changed the default device from {before} to {after}")
